from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from server_kit import Person, test_settings

from live_server import ThreadServer
from opolyx.server import Settings
from opolyx.server.engine_api import EngineApi
from opolyx.storage.testing import TestDatabase


@pytest.fixture
def settings_for(database: TestDatabase, tmp_path: Path) -> Callable[..., Settings]:
    def make(**overrides: Any) -> Settings:
        return test_settings(database, tmp_path / "data", **overrides)

    return make


@pytest.fixture
def start_server(settings_for: Callable[..., Settings]) -> Iterator[Callable[..., ThreadServer]]:
    with ExitStack() as stack:

        def start(engine: Callable[[], EngineApi] | None = None, **overrides: Any) -> ThreadServer:
            """A server with these settings; ``engine`` replaces the rules engine (e.g. a RiggedEngine)."""
            return stack.enter_context(ThreadServer(settings_for(**overrides), engine))

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
