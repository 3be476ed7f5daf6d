"""The typed vocabulary (``opolyx.engine.vocabulary``) says what the engine does: its modes are the rule
tables, its actions are the engine's handlers, and every action ``legal_actions`` lists fits its class."""

from __future__ import annotations

import random
from typing import get_args

import pytest

import opolyx
from opolyx.engine import vocabulary as v
from opolyx.engine.game import Game
from opolyx.rules import mode_names

#: Fields a listed ``propose_trade`` template carries instead of an offer's (docs/engine.md).
TEMPLATE_KEYS = {"type", "template", "to", "give", "take", "fairness_percent"}


def test_modes_are_the_rule_tables() -> None:
    assert tuple(mode_names()) == v.MODES


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
