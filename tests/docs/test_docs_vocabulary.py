"""docs/actions.md names every action, event and error code the engine has, so the doc cannot drift."""

from __future__ import annotations

import re
from pathlib import Path

import opolyx.engine.game as engine_game
import opolyx.engine.setup as engine_setup
from opolyx.engine import Game

ROOT = Path(__file__).resolve().parents[2]
ACTIONS_MD = ROOT / "docs" / "actions.md"
ENGINE_MD = ROOT / "docs" / "engine.md"


def _source(module: object) -> str:
    path = getattr(module, "__file__", None)
    assert path is not None
    return Path(path).read_text(encoding="utf-8")


def _doc_names() -> set[str]:
    """Every `backticked` word of docs/actions.md."""
    return set(re.findall(r"`([a-z_]+)`", ACTIONS_MD.read_text(encoding="utf-8")))


def _headings() -> set[str]:
    return set(re.findall(r"^#+ `([a-z_]+)`", ACTIONS_MD.read_text(encoding="utf-8"), re.MULTILINE))


def test_every_action_type_has_a_section() -> None:
    missing = sorted(set(Game._HANDLERS) - _headings())
    assert not missing, f"actions without a section in docs/actions.md: {missing}"


def test_every_event_type_has_a_section() -> None:
    events = set(re.findall(r"_emit\(\s*\"([a-z_]+)\"", _source(engine_game)))
    assert len(events) > 40
    missing = sorted(events - _headings())
    assert not missing, f"events without a section in docs/actions.md: {missing}"


def test_every_error_code_is_listed() -> None:
    codes: set[str] = set()
    for module in (engine_game, engine_setup):
        codes |= set(re.findall(r"IllegalAction\(\s*\"([a-z_]+)\"", _source(module)))
    assert len(codes) > 30
    missing = sorted(codes - _doc_names())
    assert not missing, f"error codes missing from docs/actions.md: {missing}"


def test_engine_doc_points_at_the_example() -> None:
    text = ENGINE_MD.read_text(encoding="utf-8")
    assert "examples/engine_example.py" in text
    assert (ROOT / "examples" / "engine_example.py").exists()
