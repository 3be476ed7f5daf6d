"""docs/rules.md §9: mortgages and redemption (Classic and Blitz: value + 10 %, never expiring)."""

from __future__ import annotations

import pytest
from scenario_kit import cash, find, legal_types, make, refuse, setup


@pytest.mark.parametrize(("square", "value", "redeem"), [(1, 300, 330), (5, 1000, 1100), (12, 750, 825),
                                                          (39, 2000, 2200)])
def test_mortgage_gives_half_and_redeeming_costs_value_plus_ten_percent(mode: str, square: int, value: int,
                                                                        redeem: int) -> None:
    game = make(mode, dice=[(4, 6), (4, 6)])
    setup(game, 0, owns=[square])
    events = game.apply(0, {"type": "mortgage", "square": square})
    got = find(events, "mortgaged")
    assert (got["square"], got["value"]) == (square, value)
    snap = game.snapshot()
    assert snap["squares"][square]["mortgaged"] is True
    assert "mortgage_rounds_left" not in snap["squares"][square]
    assert cash(game) == [15000 + value, 15000]
    assert snap["players"][0]["net_worth"] == 15000 + value + game.board.squares[square].price - redeem
    assert {"type": "redeem", "square": square} in game.legal_actions(0)
    events = game.apply(0, {"type": "redeem", "square": square})
    assert find(events, "redeemed")["cost"] == redeem
    assert game.snapshot()["squares"][square]["mortgaged"] is False
    assert cash(game) == [15000 + value - redeem, 15000]


def test_mortgages_never_expire(mode: str) -> None:
    game = make(mode, dice=[(4, 6)] * 30)
    setup(game, 0, owns=[39])
    game.apply(0, {"type": "mortgage", "square": 39})
    for _ in range(12):  # 12 rounds, each player rolling from Start to just visiting
        for seat in (0, 1):
            game.players[seat].position = 0
            game.apply(seat, {"type": "roll"})
    snap = game.snapshot()
    assert snap["round"] == 13
    assert snap["squares"][39]["owner"] == 0 and snap["squares"][39]["mortgaged"] is True


def test_cannot_mortgage_while_the_group_has_buildings(mode: str) -> None:
    game = make(mode)
    setup(game, 0, levels={1: 0, 3: 1})
    assert "mortgage" not in legal_types(game, 0)
    refuse(game, 0, {"type": "mortgage", "square": 1}, "has_buildings")
    refuse(game, 0, {"type": "mortgage", "square": 3}, "has_buildings")
    game.apply(0, {"type": "sell", "square": 3})
    game.apply(0, {"type": "mortgage", "square": 1})
    assert cash(game) == [15000 + 250 + 300, 15000]


def test_mortgage_refusals(mode: str) -> None:
    game = make(mode)
    setup(game, 0, mortgaged=[39])
    setup(game, 1, owns=[37])
    refuse(game, 0, {"type": "mortgage", "square": 39}, "already_mortgaged")
    refuse(game, 0, {"type": "mortgage", "square": 37}, "not_owner")
    refuse(game, 0, {"type": "mortgage", "square": 4}, "not_a_company")
    refuse(game, 0, {"type": "redeem", "square": 37}, "not_owner")
    refuse(game, 1, {"type": "mortgage", "square": 37}, "wrong_phase")  # not seat 1's turn
    setup(game, 0, cash=2199)
    refuse(game, 0, {"type": "redeem", "square": 39}, "insufficient_cash")
    setup(game, 0, cash=2200)
    game.apply(0, {"type": "redeem", "square": 39})
    refuse(game, 0, {"type": "redeem", "square": 39}, "not_mortgaged")
    assert cash(game) == [0, 15000]


def test_mortgage_in_the_pay_step_but_redeem_only_before_the_roll(mode: str) -> None:
    game = make(mode, dice=[(1, 2)])
    setup(game, 0, position=1, cash=1000, owns=[37], mortgaged=[39])
    game.apply(0, {"type": "roll"})  # income tax 2000
    assert legal_types(game, 0) == {"mortgage", "propose_trade", "resign"}
    refuse(game, 0, {"type": "pay"}, "insufficient_cash")
    refuse(game, 0, {"type": "redeem", "square": 39}, "wrong_phase")
    game.apply(0, {"type": "mortgage", "square": 37})
    assert "pay" in legal_types(game, 0)
    game.apply(0, {"type": "pay"})
    assert cash(game) == [1000 + 1750 - 2000, 15000]
