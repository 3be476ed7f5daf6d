"""The server's action models are generated from the engine's typed actions: every action the engine lists
passes them unchanged, and they keep refusing what the wire never allowed."""

from __future__ import annotations

import random

import pytest
from pydantic import TypeAdapter, ValidationError

import opolyx
from opolyx.engine import vocabulary
from opolyx.protocol.models import ACTION_MODELS, SYSTEM_ACTIONS, Action

ADAPTER: TypeAdapter[object] = TypeAdapter(Action)


def test_one_model_per_client_action() -> None:
    assert set(ACTION_MODELS) == vocabulary.CLIENT_ACTION_TYPES
    assert frozenset({"timeout"}) == SYSTEM_ACTIONS
    assert ACTION_MODELS["propose_trade"].__name__ == "ProposeTrade"


@pytest.mark.parametrize("mode", vocabulary.MODES)
def test_listed_actions_pass_unchanged(mode: str) -> None:
    rng = random.Random(mode)
    game = opolyx.new_game(mode, 4, 5)
    for _ in range(300):
        if game.is_over:
            break
        seat = game.actor()
        assert seat is not None
        legal = game.legal_actions(seat)
        for action in legal:
            if not action.get("template"):
                model = ACTION_MODELS[action["type"]].model_validate(action)
                assert model.model_dump(mode="json", exclude_none=True) == action
        game.apply(seat, rng.choice([a for a in legal if a["type"] not in ("propose_trade", "resign")]))


@pytest.mark.parametrize(
    "action",
    [
        {"type": "build", "square": 40},
        {"type": "build"},
        {"type": "roll", "extra": 1},
        {"type": "bid", "amount": -1},
        {"type": "jackpot_bet", "numbers": []},
        {"type": "jackpot_bet", "numbers": [7]},
        {"type": "choose_bus", "use": "both"},
        {"type": "propose_trade", "to": 6, "give": {}, "take": {}},
        {"type": "propose_trade", "to": 1, "give": {"cash": -5}, "take": {}},
    ],
)
def test_refused_as_before(action: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        ADAPTER.validate_python(action)


def test_optional_fields_keep_their_defaults() -> None:
    trade = ACTION_MODELS["propose_trade"].model_validate({"type": "propose_trade", "to": 1, "give": {}, "take": {}})
    assert trade.model_dump(mode="json", exclude_none=True) == {
        "type": "propose_trade", "to": 1, "give": {"cash": 0, "squares": []}, "take": {"cash": 0, "squares": []},
    }
    bid = ACTION_MODELS["bid"].model_validate({"type": "bid", "amount": None})
    assert bid.model_dump(mode="json", exclude_none=True) == {"type": "bid"}
    accept = ACTION_MODELS["accept_trade"].model_validate({"type": "accept_trade", "trade": "7"})
    assert accept.model_dump(mode="json") == {"type": "accept_trade", "trade": "7"}
