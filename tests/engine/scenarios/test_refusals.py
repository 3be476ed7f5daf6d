"""docs/rules.md §§4–12: in many positions, every action outside legal_actions() is refused with a code and
leaves snapshot() byte-identical, and every listed one is accepted."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from scenario_kit import make, setup, state

from opolyx import Game, IllegalAction


def _candidates(game: Game) -> list[dict[str, Any]]:
    acts: list[dict[str, Any]] = [
        {"type": t} for t in ("roll", "buy", "decline", "pass", "pay", "declare_bankruptcy", "pay_bail",
                              "jail_roll", "jackpot_decline")
    ]
    acts += [{"type": "bid", "amount": a} for a in (500, 600, 700, 800, 1000, 1100)]
    acts += [{"type": "jackpot_bet", "numbers": n} for n in ([1], [2, 5], [1, 2, 3], [], [1, 2, 3, 4])]
    acts += [{"type": k, "square": i} for k in ("build", "sell", "mortgage", "redeem")
             for i in (1, 3, 5, 12, 37, 39, 0, 40)]
    ids = [t["id"] for t in game.snapshot()["trades"]] + [999]
    acts += [{"type": k, "trade": i} for k in ("accept_trade", "decline_trade", "cancel_trade") for i in ids]
    return acts


def _position_turn(mode: str) -> Game:
    game = make(mode, 3, dice=[(1, 2)])
    setup(game, 0, levels={1: 1, 3: 0}, mortgaged=[39], owns=[5])
    setup(game, 1, owns=[37])
    game.apply(0, {"type": "propose_trade", "to": 1, "give": {"squares": [5]}, "take": {"cash": 1500}})
    return game


def _position_buy(mode: str) -> Game:
    game = make(mode, 3, dice=[(1, 2)])
    game.apply(0, {"type": "roll"})
    return game


def _position_auction(mode: str) -> Game:
    game = _position_buy(mode)
    game.apply(0, {"type": "decline"})
    game.apply(1, {"type": "bid", "amount": 600})
    return game


def _position_pay(mode: str) -> Game:
    game = make(mode, 3, dice=[(1, 2)])
    setup(game, 0, position=36, cash=300, levels={1: 1, 3: 1}, owns=[12])
    setup(game, 1, owns=[39])
    game.apply(0, {"type": "roll"})
    return game


def _position_broke(mode: str) -> Game:
    game = _position_pay(mode)
    game.owner[12] = None
    game.level[1] = game.level[3] = 0
    game.owner[1] = game.owner[3] = None
    return game


def _position_jail(mode: str) -> Game:
    game = make(mode, 3, dice=[(1, 2)])
    setup(game, 0, in_jail=True, owns=[1, 3])
    return game


def _position_jackpot(mode: str) -> Game:
    game = make(mode, 3, dice=[(2, 3), (4, 1)])
    setup(game, 0, position=15)
    game.apply(0, {"type": "roll"})
    return game


POSITIONS: dict[str, Callable[[str], Game]] = {
    "turn": _position_turn, "buy": _position_buy, "auction": _position_auction, "pay": _position_pay,
    "broke": _position_broke, "jail": _position_jail, "jackpot": _position_jackpot,
}


@pytest.mark.parametrize("position", sorted(POSITIONS))
def test_every_unlisted_action_is_refused_untouched_and_every_listed_one_works(mode: str, position: str) -> None:
    game = POSITIONS[position](mode)
    for seat in range(game.seats):
        legal = [a for a in game.legal_actions(seat) if a["type"] not in ("propose_trade", "resign")]
        for action in _candidates(game):
            before = state(game)
            if action in legal:
                trial = game.copy()
                trial.apply(seat, action)
                assert state(game) == before
                continue
            with pytest.raises(IllegalAction) as info:
                game.apply(seat, action)
            assert isinstance(info.value.code, str) and info.value.code, action
            assert state(game) == before, (seat, action)
        for action in legal:
            game.copy().apply(seat, action)
