"""docs/rules.md §15: the sixteen event cards and the cycling deck (Classic and Blitz)."""

from __future__ import annotations

from typing import Any

import pytest
from scenario_kit import CARDS, cash, deck_with, find, kinds, make, pending_seat, setup

#: (position before the roll, event square reached by rolling (1, 2))
FROM_7 = 4
FROM_22 = 19
FROM_33 = 30
FROM_36 = 33


def draw(mode: str, card: str, start: int, *, seats: int = 2, first_player: int = 0,
         roller: int | None = None, prepare: Any = None) -> tuple[Any, list[dict[str, Any]]]:
    game = make(mode, seats, dice=[(1, 2)], deck=deck_with(card), first_player=first_player)
    seat = first_player if roller is None else roller
    setup(game, seat, position=start)
    if prepare is not None:
        prepare(game)
    events = game.apply(seat, {"type": "roll"})
    drawn = find(events, "card_drawn")
    assert drawn["effect"] == card and drawn["card"] == card and drawn["seat"] == seat
    return game, events


def pos(game: Any, seat: int = 0) -> int:
    return int(game.snapshot()["players"][seat]["position"])


@pytest.mark.parametrize("start", [FROM_7, FROM_33])
def test_advance_to_start_pays_salary_and_landing_bonus(mode: str, start: int) -> None:
    game, events = draw(mode, "advance_to_start", start)
    received = [e for e in events if e["type"] == "cash_received"]
    assert [(e["amount"], e["reason"]) for e in received] == [(3000, "start_landing")]
    assert pos(game) == 0
    assert cash(game) == [18000, 15000]
    assert game.snapshot()["turn"] == 1


@pytest.mark.parametrize(("card", "start", "target", "salary"), [
    ("advance_to_red_c", FROM_7, 24, 0),
    ("advance_to_red_c", FROM_36, 24, 2000),
    ("advance_to_pink_a", FROM_7, 11, 0),
    ("advance_to_pink_a", FROM_22, 11, 2000),
    ("advance_to_dark_blue_b", FROM_7, 39, 0),
    ("advance_to_dark_blue_b", FROM_36, 39, 0),
    ("nearest_dealership", FROM_7, 15, 0),
    ("nearest_dealership", FROM_22, 25, 0),
    ("nearest_dealership", FROM_36, 5, 2000),
    ("nearest_utility", FROM_7, 12, 0),
    ("nearest_utility", FROM_22, 28, 0),
    ("nearest_utility", FROM_33, 12, 2000),
])
def test_move_cards_reach_their_square_and_offer_it(mode: str, card: str, start: int, target: int,
                                                     salary: int) -> None:
    game, events = draw(mode, card, start)
    assert pos(game) == target
    assert sum(e["amount"] for e in events if e["type"] == "cash_received") == salary
    assert cash(game) == [15000 + salary, 15000]
    snap = game.snapshot()
    assert snap["phase"] == "buy" and snap["offer"] == target
    game.apply(0, {"type": "buy"})
    assert game.snapshot()["squares"][target]["owner"] == 0


def test_advance_to_an_owned_street_pays_its_rent(mode: str) -> None:
    game, _ = draw(mode, "advance_to_dark_blue_b", FROM_7, prepare=lambda g: setup(g, 1, owns=[39]))
    assert game.snapshot()["debt"]["creditors"] == [{"seat": 1, "amount": 500}]


def test_nearest_dealership_pays_its_normal_rent(mode: str) -> None:
    game, _ = draw(mode, "nearest_dealership", FROM_7, prepare=lambda g: setup(g, 1, owns=[15, 25]))
    assert game.snapshot()["debt"]["creditors"] == [{"seat": 1, "amount": 500}]
    game.apply(0, {"type": "pay"})
    assert cash(game) == [14500, 15500]


def test_nearest_utility_pays_the_dice_total_times_40(mode: str) -> None:
    game, _ = draw(mode, "nearest_utility", FROM_7, prepare=lambda g: setup(g, 1, owns=[12]))
    assert game.snapshot()["debt"]["creditors"] == [{"seat": 1, "amount": 120}]


def test_go_back_three_squares_resolves_the_new_square(mode: str) -> None:
    game, events = draw(mode, "go_back_three", FROM_7)
    assert pos(game) == 4
    snap = game.snapshot()
    assert snap["phase"] == "pay" and snap["debt"]["reason"] == "tax" and snap["debt"]["amount"] == 2000
    assert "cash_received" not in kinds(events)


def test_go_back_three_onto_an_event_square_draws_the_next_card(mode: str) -> None:
    game = make(mode, dice=[(1, 2)], deck=deck_with("go_back_three", "bank_dividend"))
    setup(game, 0, position=FROM_36)
    events = game.apply(0, {"type": "roll"})
    assert [e["effect"] for e in events if e["type"] == "card_drawn"] == ["go_back_three", "bank_dividend"]
    assert pos(game) == 33
    assert cash(game) == [16000, 15000]


def test_go_back_three_from_square_2_goes_to_39_without_salary(mode: str) -> None:
    game = make(mode, dice=[(1, 1)], deck=deck_with("go_back_three"))
    events = game.apply(0, {"type": "roll"})
    assert "cash_received" not in kinds(events)
    assert pos(game) == 39 and game.snapshot()["offer"] == 39


def test_go_to_jail(mode: str) -> None:
    game, events = draw(mode, "go_to_jail", FROM_36)
    assert pos(game) == 10 and game.snapshot()["players"][0]["in_jail"] is True
    assert "cash_received" not in kinds(events)
    assert cash(game) == [15000, 15000]


@pytest.mark.parametrize(("card", "amount"), [("lottery_win", 2000), ("bank_dividend", 1000),
                                              ("performance_bonus", 1500)])
def test_collect_cards(mode: str, card: str, amount: int) -> None:
    game, events = draw(mode, card, FROM_7)
    got = find(events, "cash_received")
    assert (got["amount"], got["reason"]) == (amount, "card")
    assert cash(game) == [15000 + amount, 15000]
    assert game.snapshot()["turn"] == 1


def test_birthday_pay_steps_in_seat_order_from_the_player_on_turn(mode: str) -> None:
    game, _ = draw(mode, "birthday", FROM_7, seats=4, first_player=2)
    snap = game.snapshot()
    assert [(d["debtor"], d["creditors"]) for d in snap["debts"]] == [
        (3, [{"seat": 2, "amount": 200}]), (0, [{"seat": 2, "amount": 200}]), (1, [{"seat": 2, "amount": 200}])]
    assert pending_seat(game) == (3, "pay")
    game.apply(3, {"type": "pay"})
    assert pending_seat(game) == (0, "pay")
    game.apply(0, {"type": "pay"})
    assert pending_seat(game) == (1, "pay")
    game.apply(1, {"type": "pay"})
    assert cash(game) == [14800, 14800, 15600, 14800]
    assert game.snapshot()["turn"] == 3


def test_charity_gala_pays_500_to_every_other_player_in_one_pay_step(mode: str) -> None:
    game, _ = draw(mode, "charity_gala", FROM_7, seats=3)
    snap = game.snapshot()
    assert snap["debt"]["debtor"] == 0 and snap["debt"]["amount"] == 1000
    assert snap["debt"]["creditors"] == [{"seat": 1, "amount": 500}, {"seat": 2, "amount": 500}]
    game.apply(0, {"type": "pay"})
    assert cash(game) == [14000, 15500, 15500]


@pytest.mark.parametrize(("card", "amount"), [("tax_audit", 2500), ("speeding_fine", 500)])
def test_pay_cards_go_to_the_bank_through_the_pay_step(mode: str, card: str, amount: int) -> None:
    game, _ = draw(mode, card, FROM_7)
    snap = game.snapshot()
    assert snap["debt"]["creditors"] == [{"seat": None, "amount": amount}] and snap["debt"]["reason"] == "card"
    assert cash(game) == [15000, 15000]
    game.apply(0, {"type": "pay"})
    assert cash(game) == [15000 - amount, 15000]


def test_building_repairs_charge_250_per_level(mode: str) -> None:
    game, _ = draw(mode, "building_repairs", FROM_7,
                   prepare=lambda g: (setup(g, 0, levels={1: 2, 3: 1, 37: 1, 39: 1}), setup(g, 1, levels={6: 5})))
    assert game.snapshot()["debt"]["amount"] == 250 * 5
    game.apply(0, {"type": "pay"})
    assert cash(game) == [15000 - 1250, 15000]


def test_building_repairs_without_buildings_cost_nothing(mode: str) -> None:
    game, _ = draw(mode, "building_repairs", FROM_7)
    assert game.snapshot()["phase"] == "turn" and game.snapshot()["turn"] == 1


def _settle(game: Any) -> None:
    """Take safe defaults until someone must roll."""
    while True:
        seat, decision = pending_seat(game)
        if decision == "buy":
            game.apply(seat, {"type": "decline"})
        elif decision == "bid":
            game.apply(seat, {"type": "pass"})
        elif decision == "pay":
            game.apply(seat, {"type": "pay"})
        elif decision == "jackpot":
            game.apply(seat, {"type": "jackpot_decline"})
        else:
            return


def test_the_deck_cycles_drawn_cards_go_to_the_bottom(mode: str) -> None:
    deck = list(reversed(CARDS))
    game = make(mode, dice=[(1, 2)] * 18, deck=deck)
    drawn: list[str] = []
    for _ in range(9):
        for seat in (0, 1):
            p = game.players[seat]
            p.position, p.in_jail, p.jail_tries, p.cash = FROM_7, False, 0, 15000
            events = game.apply(seat, {"type": "roll"})
            drawn += [e["effect"] for e in events if e["type"] == "card_drawn"]
            _settle(game)
            assert game.snapshot()["turn"] == 1 - seat
    # go_back_three from 7 lands on income tax, so every roll drew exactly one card
    assert drawn == [*deck, deck[0], deck[1]]


def test_go_back_three_onto_go_to_jail(mode: str) -> None:
    game, _ = draw(mode, "go_back_three", FROM_33)
    p = game.snapshot()["players"][0]
    assert (p["position"], p["in_jail"]) == (10, True)
    assert game.snapshot()["turn"] == 1


def test_a_card_drawn_on_doubles_keeps_the_roll_again_unless_it_jails(mode: str) -> None:
    game = make(mode, dice=[(2, 2)], deck=deck_with("bank_dividend"))
    setup(game, 0, position=3)
    game.apply(0, {"type": "roll"})  # 7
    assert cash(game) == [16000, 15000] and pending_seat(game) == (0, "roll")
    game = make(mode, dice=[(2, 2)], deck=deck_with("go_to_jail"))
    setup(game, 0, position=3)
    game.apply(0, {"type": "roll"})
    assert game.snapshot()["turn"] == 1 and game.snapshot()["players"][0]["in_jail"] is True
