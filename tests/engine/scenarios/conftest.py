"""Scenario tests run every rule in both Classic and Blitz."""

from __future__ import annotations

import pytest


@pytest.fixture(params=["classic", "blitz"])
def mode(request: pytest.FixtureRequest) -> str:
    """Every rule of docs/rules.md §§1–16 holds the same way in Classic and Blitz."""
    return str(request.param)
