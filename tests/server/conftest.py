from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from server_kit import Person, ThreadServer, test_settings

from opolyx.server import Settings
from opolyx.storage.testing import BACKENDS, PG_SKIP_MESSAGE, TestDatabase, fresh_database, pg_url


@pytest.fixture(params=BACKENDS)
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[TestDatabase]:
    if request.param == "postgresql" and pg_url() is None:
        pytest.skip(PG_SKIP_MESSAGE)
    with fresh_database(request.param, tmp_path) as db:
        yield db


@pytest.fixture
def settings_for(database: TestDatabase, tmp_path: Path) -> Callable[..., Settings]:
    def make(**overrides: Any) -> Settings:
        return test_settings(database, tmp_path / "data", **overrides)

    return make


@pytest.fixture
def start_server(settings_for: Callable[..., Settings]) -> Iterator[Callable[..., ThreadServer]]:
    with ExitStack() as stack:

        def start(**overrides: Any) -> ThreadServer:
            return stack.enter_context(ThreadServer(settings_for(**overrides)))

        yield start


@pytest.fixture
def server(start_server: Callable[..., ThreadServer]) -> ThreadServer:
    return start_server()


@pytest.fixture
def people(server: ThreadServer) -> Iterator[Callable[[str], Person]]:
    made: list[Person] = []

    def make(name: str) -> Person:
        p = Person(server.base, name)
        made.append(p)
        return p

    yield make
    for p in made:
        p.close()
