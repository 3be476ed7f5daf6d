"""The agents' live-server tests run a real server as the server suite does: its fixtures, loaded from
tests/server/conftest.py by path (a second module named ``conftest`` would clash with this one)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

_SERVER_TESTS = Path(__file__).resolve().parent.parent / "server"
sys.path.insert(0, str(_SERVER_TESTS))
_spec = importlib.util.spec_from_file_location("server_test_fixtures", _SERVER_TESTS / "conftest.py")
assert _spec is not None and _spec.loader is not None
_fixtures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_fixtures)

settings_for = _fixtures.settings_for
start_server = _fixtures.start_server
server = _fixtures.server
people = _fixtures.people
