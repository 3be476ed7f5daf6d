"""Fixtures shared by the suites below (the storage contract and the server tests both need databases)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from opolyx.storage.testing import BACKENDS, PG_SKIP_MESSAGE, TestDatabase, fresh_database, pg_url


@pytest.fixture(params=BACKENDS)
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[TestDatabase]:
    """A clean database of each kind; PostgreSQL only when OPOLYX_TEST_DATABASE_URL names a server."""
    if request.param == "postgresql" and pg_url() is None:
        pytest.skip(PG_SKIP_MESSAGE)
    with fresh_database(request.param, tmp_path) as db:
        yield db
