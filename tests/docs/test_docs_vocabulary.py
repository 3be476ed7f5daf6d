"""docs/actions.md names every action, event and error code the engine has, so the doc cannot drift."""

from __future__ import annotations

import re
from pathlib import Path

import opolyx.engine
from opolyx.engine import Game

ROOT = Path(__file__).resolve().parents[2]
ENGINE_DIR = Path(opolyx.engine.__file__).parent
ACTIONS_MD = ROOT / "docs" / "actions.md"
ENGINE_MD = ROOT / "docs" / "engine.md"


def _engine_source() -> str:
    """Every module of the engine: the rules live in one module per docs/rules.md section."""
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(ENGINE_DIR.glob("*.py")))


def _doc_names() -> set[str]:
    """Every `backticked` word of docs/actions.md."""
    return set(re.findall(r"`([a-z_]+)`", ACTIONS_MD.read_text(encoding="utf-8")))


def _headings() -> set[str]:
    return set(re.findall(r"^#+ `([a-z_]+)`", ACTIONS_MD.read_text(encoding="utf-8"), re.MULTILINE))


def test_every_action_type_has_a_section() -> None:
    missing = sorted(set(Game._HANDLERS) - _headings())
    assert not missing, f"actions without a section in docs/actions.md: {missing}"


def test_every_event_type_has_a_section() -> None:
    events = set(re.findall(r"\.emit(?:_data)?\(\s*\"([a-z_]+)\"", _engine_source()))
    assert len(events) > 40
    missing = sorted(events - _headings())
    assert not missing, f"events without a section in docs/actions.md: {missing}"


def test_every_error_code_is_listed() -> None:
    codes = set(re.findall(r"IllegalAction\(\s*\"([a-z_]+)\"", _engine_source()))
    assert len(codes) > 30
    missing = sorted(codes - _doc_names())
    assert not missing, f"error codes missing from docs/actions.md: {missing}"


def test_engine_doc_points_at_the_example() -> None:
    text = ENGINE_MD.read_text(encoding="utf-8")
    assert "examples/engine_example.py" in text
    assert (ROOT / "examples" / "engine_example.py").exists()
