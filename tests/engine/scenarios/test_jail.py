"""docs/rules.md §10: jail."""

from __future__ import annotations

from scenario_kit import cash, deck_with, find, kinds, legal_types, make, pending_seat, refuse, setup


def jailed_game(mode: str, dice: list[tuple[int, int]], **kw):  # type: ignore[no-untyped-def]
    """Seat 0 starts its turn in jail; seat 1 owns 3, 6, 9 and 13 so its own rolls from Start are quiet."""
    game = make(mode, dice=dice, **kw)
    setup(game, 0, in_jail=True)
    setup(game, 1, owns=[3, 6, 9, 13])
    return game


def test_a_jailed_player_chooses_bail_or_a_jail_roll(mode: str) -> None:
    game = jailed_game(mode, [])
    assert pending_seat(game) == (0, "jail")
    types = legal_types(game, 0)
    assert {"pay_bail", "jail_roll"} <= types and "roll" not in types
    refuse(game, 0, {"type": "roll"}, "in_jail")
    setup(game, 0, cash=499)
    assert "pay_bail" not in legal_types(game, 0)
    refuse(game, 0, {"type": "pay_bail"}, "insufficient_cash")


def test_bail_500_then_roll_normally(mode: str) -> None:
    game = jailed_game(mode, [(1, 2)])
    events = game.apply(0, {"type": "pay_bail"})
    assert find(events, "bail_paid")["amount"] == 500
    p = game.snapshot()["players"][0]
    assert p["in_jail"] is False and p["position"] == 10
    assert cash(game) == [14500, 15000]
    assert pending_seat(game) == (0, "roll")
    game.apply(0, {"type": "roll"})
    snap = game.snapshot()
    assert snap["players"][0]["position"] == 13
    assert snap["phase"] == "pay" and snap["debt"]["amount"] == 100  # seat 1's pink B


def test_after_bail_doubles_roll_again(mode: str) -> None:
    game = jailed_game(mode, [(2, 2), (1, 2)])
    setup(game, 0, owns=[14])
    game.apply(0, {"type": "pay_bail"})
    game.apply(0, {"type": "roll"})  # 14
    assert pending_seat(game) == (0, "roll")


def test_doubles_in_jail_move_by_the_dice_with_no_extra_roll(mode: str) -> None:
    game = jailed_game(mode, [(3, 3)])
    events = game.apply(0, {"type": "jail_roll"})
    assert find(events, "released")["reason"] == "doubles"
    snap = game.snapshot()
    assert snap["players"][0]["position"] == 16 and snap["players"][0]["in_jail"] is False
    assert cash(game) == [15000, 15000]
    game.apply(0, {"type": "buy"})
    assert game.snapshot()["turn"] == 1  # no roll again


def test_three_tries_then_forced_bail_through_the_pay_step_and_move_by_the_third_roll(mode: str) -> None:
    game = jailed_game(mode, [(1, 2), (1, 2), (1, 2), (1, 2), (2, 3)])
    events = game.apply(0, {"type": "jail_roll"})
    assert find(events, "jail_roll_failed")["tries"] == 1
    snap = game.snapshot()
    assert snap["players"][0]["position"] == 10 and snap["players"][0]["jail_tries"] == 1
    assert snap["turn"] == 1
    game.apply(1, {"type": "roll"})  # 3, its own
    events = game.apply(0, {"type": "jail_roll"})
    assert find(events, "jail_roll_failed")["tries"] == 2
    game.apply(1, {"type": "roll"})  # 6, its own
    events = game.apply(0, {"type": "jail_roll"})  # (2, 3): third failure
    assert find(events, "jail_roll_failed")["tries"] == 3
    assert "moved" not in kinds(events)
    snap = game.snapshot()
    assert snap["phase"] == "pay"
    assert snap["debt"]["reason"] == "bail" and snap["debt"]["creditors"] == [{"seat": None, "amount": 500}]
    assert snap["players"][0]["position"] == 10 and snap["players"][0]["in_jail"] is True
    assert cash(game) == [15000, 15000]
    events = game.apply(0, {"type": "pay"})
    assert find(events, "released")["reason"] == "bail"
    moved = find(events, "moved")
    assert (moved["to"], moved["steps"]) == (15, 5)
    snap = game.snapshot()
    assert snap["players"][0]["in_jail"] is False and snap["phase"] == "buy" and snap["offer"] == 15
    assert cash(game) == [14500, 15000]


def test_forced_bail_short_of_cash_raises_it_in_the_pay_step(mode: str) -> None:
    game = jailed_game(mode, [(1, 2)])
    game.players[0].jail_tries = 2
    setup(game, 0, cash=200, owns=[39])
    game.apply(0, {"type": "jail_roll"})
    assert game.snapshot()["phase"] == "pay"
    assert legal_types(game, 0) == {"mortgage", "propose_trade", "resign"}
    game.apply(0, {"type": "mortgage", "square": 39})
    game.apply(0, {"type": "pay"})
    snap = game.snapshot()
    assert snap["players"][0]["position"] == 13
    assert cash(game) == [200 + 2000 - 500, 15000]  # the 100 rent is in a new pay step
    assert snap["phase"] == "pay" and snap["debt"]["amount"] == 100


def test_a_jailed_owner_still_collects_rent(mode: str) -> None:
    game = make(mode, dice=[(1, 2)], first_player=1)
    setup(game, 0, in_jail=True, owns=[3])
    game.apply(1, {"type": "roll"})
    snap = game.snapshot()
    assert snap["debt"]["creditors"] == [{"seat": 0, "amount": 40}]
    game.apply(1, {"type": "pay"})
    assert cash(game) == [15040, 14960]
    assert game.snapshot()["players"][0]["in_jail"] is True


def test_the_go_to_jail_card_pays_no_salary(mode: str) -> None:
    game = make(mode, dice=[(1, 2)], deck=deck_with("go_to_jail"))
    setup(game, 0, position=33)
    events = game.apply(0, {"type": "roll"})  # 36: event
    assert find(events, "jailed")["reason"] == "card"
    assert "cash_received" not in kinds(events)
    p = game.snapshot()["players"][0]
    assert (p["position"], p["in_jail"]) == (10, True)
    assert cash(game) == [15000, 15000]
    assert game.snapshot()["turn"] == 1


def test_landing_in_jail_on_doubles_ends_the_turn(mode: str) -> None:
    game = make(mode, dice=[(4, 4)])
    setup(game, 0, position=22)
    game.apply(0, {"type": "roll"})  # 30: go to jail
    snap = game.snapshot()
    assert snap["players"][0]["in_jail"] is True and snap["turn"] == 1
