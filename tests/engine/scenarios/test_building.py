"""docs/rules.md §7: building and selling levels."""

from __future__ import annotations

from scenario_kit import cash, find, legal_types, make, refuse, setup


def build(game, square: int, seat: int = 0):  # type: ignore[no-untyped-def]
    return game.apply(seat, {"type": "build", "square": square})


def test_building_needs_the_whole_group(mode: str) -> None:
    game = make(mode)
    setup(game, 0, owns=[1])
    setup(game, 1, owns=[3])
    assert {"type": "build", "square": 1} not in game.legal_actions(0)
    refuse(game, 0, {"type": "build", "square": 1}, "group_incomplete")
    refuse(game, 0, {"type": "build", "square": 3}, "not_owner")
    refuse(game, 0, {"type": "build", "square": 5}, "not_a_street")
    refuse(game, 0, {"type": "build", "square": 99}, "bad_square")


def test_building_needs_the_group_unmortgaged(mode: str) -> None:
    game = make(mode)
    setup(game, 0, owns=[1], mortgaged=[3])
    refuse(game, 0, {"type": "build", "square": 1}, "group_mortgaged")


def test_build_pays_the_level_cost(mode: str) -> None:
    game = make(mode)
    setup(game, 0, owns=[1, 3, 31, 32, 34])
    assert {"type": "build", "square": 1} in game.legal_actions(0)
    events = build(game, 1)
    got = find(events, "built")
    assert (got["square"], got["level"], got["cost"]) == (1, 1, 500)
    build(game, 31)
    snap = game.snapshot()
    assert snap["squares"][1]["level"] == 1 and snap["squares"][31]["level"] == 1
    assert snap["built_this_turn"] == [1, 31]
    assert cash(game) == [15000 - 500 - 2000, 15000]


def test_even_building(mode: str) -> None:
    game = make(mode)
    setup(game, 0, owns=[6, 8, 9])
    build(game, 6)
    refuse(game, 0, {"type": "build", "square": 6}, "uneven")
    build(game, 8)
    build(game, 9)
    assert [game.snapshot()["squares"][i]["level"] for i in (6, 8, 9)] == [1, 1, 1]


def test_a_street_rises_at_most_one_level_per_turn(mode: str) -> None:
    game = make(mode, dice=[(4, 6), (4, 6)])
    setup(game, 0, levels={1: 1, 3: 1})
    build(game, 1)
    build(game, 3)
    refuse(game, 0, {"type": "build", "square": 1}, "built_this_turn")  # even, but already rose
    game.apply(0, {"type": "roll"})
    game.apply(1, {"type": "roll"})
    build(game, 1)  # a new turn
    assert game.snapshot()["squares"][1]["level"] == 3


def test_the_limit_holds_across_a_doubles_roll_again(mode: str) -> None:
    game = make(mode, dice=[(3, 3)])
    setup(game, 0, position=4, levels={1: 1, 3: 1})
    build(game, 1)
    build(game, 3)
    game.apply(0, {"type": "roll"})  # 10, just visiting; roll again
    assert game.snapshot()["phase"] == "turn" and game.snapshot()["turn"] == 0
    refuse(game, 0, {"type": "build", "square": 1}, "built_this_turn")


def test_five_levels_at_most(mode: str) -> None:
    game = make(mode)
    setup(game, 0, levels={1: 5, 3: 5})
    refuse(game, 0, {"type": "build", "square": 1}, "max_level")


def test_building_needs_the_cash(mode: str) -> None:
    game = make(mode)
    setup(game, 0, cash=499, owns=[1, 3])
    refuse(game, 0, {"type": "build", "square": 1}, "insufficient_cash")


def test_build_only_before_the_roll_on_your_own_turn(mode: str) -> None:
    game = make(mode, dice=[(1, 2)])
    setup(game, 0, owns=[37, 39])
    setup(game, 1, owns=[1, 3])
    refuse(game, 1, {"type": "build", "square": 1}, "wrong_phase")
    setup(game, 0, position=1)
    game.apply(0, {"type": "roll"})  # 4: income tax, pay step
    assert game.snapshot()["phase"] == "pay"
    refuse(game, 0, {"type": "build", "square": 37}, "wrong_phase")
    assert "build" not in legal_types(game, 0)


def test_sell_returns_half_the_level_cost(mode: str) -> None:
    game = make(mode)
    setup(game, 0, levels={1: 1, 3: 1, 37: 2, 39: 2})
    events = game.apply(0, {"type": "sell", "square": 39})
    got = find(events, "sold")
    assert (got["square"], got["level"], got["refund"]) == (39, 1, 1000)
    game.apply(0, {"type": "sell", "square": 1})
    assert cash(game) == [15000 + 1000 + 250, 15000]


def test_even_selling(mode: str) -> None:
    game = make(mode)
    setup(game, 0, levels={1: 2, 3: 1})
    refuse(game, 0, {"type": "sell", "square": 3}, "uneven")
    game.apply(0, {"type": "sell", "square": 1})
    game.apply(0, {"type": "sell", "square": 3})
    game.apply(0, {"type": "sell", "square": 1})
    snap = game.snapshot()
    assert [snap["squares"][i]["level"] for i in (1, 3)] == [0, 0]
    refuse(game, 0, {"type": "sell", "square": 1}, "no_buildings")
    assert cash(game) == [15750, 15000]


def test_sell_in_the_pay_step_but_not_after_the_roll_otherwise(mode: str) -> None:
    game = make(mode, dice=[(1, 2), (1, 2)])
    setup(game, 0, position=1, levels={37: 1, 39: 1})
    game.apply(0, {"type": "roll"})  # income tax
    assert {"type": "sell", "square": 37} in game.legal_actions(0)
    game.apply(0, {"type": "sell", "square": 37})
    game.apply(0, {"type": "pay"})
    snap = game.snapshot()
    assert snap["squares"][37]["level"] == 0
    assert cash(game) == [15000 + 1000 - 2000, 15000]
    # seat 1 rolls onto an unowned company: no selling in the buy phase
    setup(game, 1, levels={6: 1, 8: 1, 9: 1})
    game.apply(1, {"type": "roll"})
    assert game.snapshot()["phase"] == "buy"
    refuse(game, 1, {"type": "sell", "square": 6}, "wrong_phase")
