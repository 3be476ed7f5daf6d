"""The typed vocabulary (``opolyx.engine.vocabulary``) says what the engine does: its modes are the rule
tables, its actions are the engine's handlers, and every action ``legal_actions`` lists fits its class."""

from __future__ import annotations

import json
import random
import re
import types
from pathlib import Path
from typing import Any, Literal, NotRequired, Union, get_args, get_origin, get_type_hints

import pytest

import opolyx
import opolyx.engine
from opolyx.engine import vocabulary as v
from opolyx.engine.game import Game
from opolyx.rules import mode_names

ENGINE_DIR = Path(opolyx.engine.__file__).parent
GOLDEN = Path(__file__).parent / "golden" / "data"

#: Fields a listed ``propose_trade`` template carries instead of an offer's (docs/engine.md).
TEMPLATE_KEYS = {"type", "template", "to", "give", "take", "fairness_percent"}


def test_modes_are_the_rule_tables() -> None:
    assert tuple(mode_names()) == v.MODES


def test_the_browser_lists_the_same_modes() -> None:
    """The browser's client cannot import Python: its list is checked against the vocabulary instead."""
    names_js = (Path(opolyx.__file__).parent / "web" / "js" / "names.js").read_text(encoding="utf-8")
    listed = re.search(r"export const MODES = \[([^\]]*)\]", names_js)
    assert listed is not None
    assert tuple(re.findall(r"'([a-z]+)'", listed.group(1))) == v.MODES


def test_action_classes_are_the_engine_handlers() -> None:
    assert set(Game._HANDLERS) == v.CLIENT_ACTION_TYPES | v.SYSTEM_ACTION_TYPES
    assert not v.CLIENT_ACTION_TYPES & v.SYSTEM_ACTION_TYPES
    assert [v.action_type(a) for a in get_args(v.ClientAction)] == [v.action_type(a) for a in v.CLIENT_ACTIONS]


def _fits(action: dict[str, object]) -> bool:
    spec = {v.action_type(a): a for a in v.CLIENT_ACTIONS}[str(action["type"])]
    keys = set(action)
    return spec.__required_keys__ <= keys <= spec.__required_keys__ | spec.__optional_keys__


@pytest.mark.parametrize("mode", v.MODES)
def test_listed_actions_fit_their_class_and_phases_are_named(mode: str) -> None:
    phases = set(get_args(v.Phase))
    rng = random.Random(mode)
    game = opolyx.new_game(mode, 4, 11)
    for _ in range(400):
        if game.is_over:
            break
        assert game.phase in phases - {"resolving", "landed"}
        seat = game.actor()
        assert seat is not None
        legal = game.legal_actions(seat)
        for action in legal:
            if action.get("template"):
                assert set(action) == TEMPLATE_KEYS
            else:
                assert _fits(action), action
        game.apply(seat, rng.choice([a for a in legal if a["type"] not in ("propose_trade", "resign")]))


def _fits_type(value: Any, hint: Any) -> bool:
    """Whether a JSON value has the type a vocabulary annotation gives (TypedDicts exactly: no other keys)."""
    origin = get_origin(hint)
    if origin is NotRequired:
        return _fits_type(value, get_args(hint)[0])
    if origin is Literal:
        return value in get_args(hint)
    if origin in (Union, types.UnionType):
        return any(_fits_type(value, h) for h in get_args(hint))
    if hint is None or hint is type(None):
        return value is None
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is str:
        return isinstance(value, str)
    if origin is list:
        return isinstance(value, list) and all(_fits_type(x, get_args(hint)[0]) for x in value)
    if origin is dict:
        key, val = get_args(hint)
        return isinstance(value, dict) and all(_fits_type(k, key) and _fits_type(x, val) for k, x in value.items())
    if isinstance(hint, type) and hasattr(hint, "__required_keys__"):
        hints = get_type_hints(hint)
        return (
            isinstance(value, dict)
            and hint.__required_keys__ <= set(value) <= set(hints)
            and all(_fits_type(x, hints[k]) for k, x in value.items())
        )
    raise AssertionError(f"no check for {hint!r}")


EVENT_CLASSES = {v.action_type(e): e for e in v.EVENTS}


def _check_events(events: list[dict[str, Any]], seen: set[str]) -> None:
    for event in events:
        spec = EVENT_CLASSES.get(event["type"])
        assert spec is not None and _fits_type(event, spec), event
        seen.add(event["type"])


def test_event_classes_are_the_event_types() -> None:
    assert list(EVENT_CLASSES) == list(get_args(v.EventType))
    emitted = set()
    for path in ENGINE_DIR.glob("*.py"):
        emitted.update(re.findall(r'\.emit(?:_data)?\(\s*"([a-z_]+)"', path.read_text(encoding="utf-8")))
    assert emitted == set(EVENT_CLASSES)


def test_every_event_fits_its_class() -> None:
    """The golden games, and random play in every mode with VIP seats, cards, timeouts and resignations."""
    seen: set[str] = set()
    for path in sorted(GOLDEN.glob("*.json")):
        save = json.loads(path.read_text(encoding="utf-8"))["save"]
        game = Game.from_save({**save, "actions": []})
        _check_events(game.start_events, seen)
        for seat, action in save["actions"]:
            _check_events(game.apply(seat, action), seen)
    for mode in v.MODES:
        for seed in range(2):
            rng = random.Random(seed)
            game = opolyx.new_game(mode, 4, seed, seat_info=[{"vip": True, "cards": {1: "legendary"}}] * 4)
            _check_events(game.start_events, seen)
            for _ in range(2000):
                if game.is_over:
                    break
                if rng.random() < 0.05:
                    pending = game.pending()[0]
                    timeout = {"type": "timeout", "seat": pending["seat"], "clock": pending["clock"]["id"]}
                    _check_events(game.apply(None, timeout), seen)
                    continue
                seat = game.actor()
                legal = [a for a in game.legal_actions(seat)
                         if a["type"] != "propose_trade" and (a["type"] != "resign" or rng.random() < 0.002)]
                _check_events(game.apply(seat, rng.choice(legal)), seen)
    assert len(seen) > 45
