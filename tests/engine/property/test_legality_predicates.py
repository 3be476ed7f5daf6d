"""The rule modules' yes/no questions (``building.may_build``, ``building.raisable``, ``building.may_sell``,
``mortgages.may_mortgage``, ``trades.may_offer``) answer exactly as their validators (``check_build``,
``check_sell``, ``check_mortgage``, ``check_trade_items``) decide, for every seat and every square, all along
random games in every mode. The bots ask these questions instead of listing every legal action, so this is
what keeps what a bot believes legal and what the engine accepts one and the same.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
import randplay as rp

from opolyx import Game, IllegalAction
from opolyx.engine import building, holdings, mortgages, trades
from opolyx.engine.state import Offer


def passes(check: Callable[..., None], *args: Any) -> bool:
    try:
        check(*args)
    except IllegalAction:
        return False
    return True


def check_position(game: Game) -> None:
    board = game.board
    for seat in range(game.seats):
        player = game.players[seat]
        for i in range(len(board.squares)):
            group = holdings.street_group(game, i)
            for given in (None, group):
                assert building.may_build(game, seat, i, given) == passes(building.check_build, game, seat, i)
                assert building.may_sell(game, seat, i, given) == passes(building.check_sell, game, seat, i)
                assert mortgages.may_mortgage(game, seat, i, given) == passes(
                    mortgages.check_mortgage, game, seat, i)
            if not player.out:
                assert trades.may_offer(game, seat, i, group) == passes(
                    trades.check_trade_items, game, seat, seat, Offer(0, (i,)), Offer())
        # ``raisable``: every test of ``check_build`` but the cash, asked of a whole group at once.
        cash = player.cash
        player.cash = 10**9
        try:
            groups = list(board.groups.values())
            expected = [j for members in groups for j in members if passes(building.check_build, game, seat, j)]
            assert building.raisable(game, seat, groups) == expected, seat
        finally:
            player.cash = cash


@pytest.mark.parametrize("mode", rp.MODES)
def test_predicates_answer_as_the_validators_decide(mode: str) -> None:
    rng = random.Random(f"predicates:{mode}")
    for k in range(2):
        seats = rp.seat_choices(mode)[k % len(rp.seat_choices(mode))]
        game = rp.new(mode, seats, rng.randrange(2**31))
        for step in range(600):
            if step % 4 == 0:
                check_position(game)
            move = rp.next_move(rng, game)
            if move is None:
                break
            seat, action = move
            try:
                game.apply(seat, action)
            except IllegalAction:
                continue
        check_position(game)
