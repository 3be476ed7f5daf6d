"""docs/rules.md §14: the Jackpot corner (square 20) in Classic and Blitz."""

from __future__ import annotations

import pytest
from scenario_kit import cash, find, kinds, legal_types, make, pending_seat, refuse, setup


def at_jackpot(mode: str, die: int, *, landing: tuple[int, int] = (2, 3), more=()):  # type: ignore[no-untyped-def]
    game = make(mode, dice=[landing, (die, 1), *more])
    setup(game, 0, position=20 - sum(landing))
    events = game.apply(0, {"type": "roll"})
    offered = find(events, "jackpot_offered")
    assert offered["stake"] == 1000
    assert game.snapshot()["phase"] == "jackpot"
    assert pending_seat(game) == (0, "jackpot")
    return game


def test_landing_offers_every_choice_of_one_two_or_three_numbers(mode: str) -> None:
    game = at_jackpot(mode, 1)
    bets = [a["numbers"] for a in game.legal_actions(0) if a["type"] == "jackpot_bet"]
    assert len(bets) == 6 + 15 + 20
    assert [1] in bets and [4, 5, 6] in bets
    assert "jackpot_decline" in legal_types(game, 0)


@pytest.mark.parametrize(("numbers", "die", "after"), [
    ([4], 4, 15000 - 1000 + 6000),
    ([1, 2], 2, 15000 - 1000 + 3000),
    ([1, 2, 3], 3, 15000 - 1000 + 2000),
    ([4], 5, 14000),
    ([1, 2], 6, 14000),
    ([1, 2, 3], 4, 14000),
])
def test_payouts_six_three_two_times_the_stake_and_a_miss_loses_it(mode: str, numbers: list[int], die: int,
                                                                   after: int) -> None:
    game = at_jackpot(mode, die)
    events = game.apply(0, {"type": "jackpot_bet", "numbers": numbers})
    played = find(events, "jackpot_played")
    assert played["die"] == die and played["won"] is (die in numbers)
    assert cash(game) == [after, 15000]
    assert game.snapshot()["turn"] == 1


def test_the_jackpot_die_is_the_first_value_of_the_next_roll(mode: str) -> None:
    game = at_jackpot(mode, 6, more=[(1, 2)])
    setup(game, 1, owns=[3])
    game.apply(0, {"type": "jackpot_bet", "numbers": [6]})
    game.apply(1, {"type": "roll"})
    assert game.snapshot()["players"][1]["position"] == 3  # the next roll is (1, 2)


def test_declining_costs_nothing(mode: str) -> None:
    game = at_jackpot(mode, 1)
    events = game.apply(0, {"type": "jackpot_decline"})
    assert "jackpot_declined" in kinds(events)
    assert cash(game) == [15000, 15000]
    assert game.snapshot()["turn"] == 1


def test_no_play_with_less_cash_than_the_stake(mode: str) -> None:
    game = make(mode, dice=[(2, 3)])
    setup(game, 0, position=15, cash=999)
    events = game.apply(0, {"type": "roll"})
    assert "jackpot_offered" not in kinds(events)
    assert game.snapshot()["turn"] == 1
    assert cash(game) == [999, 15000]


def test_bad_numbers_are_refused(mode: str) -> None:
    game = at_jackpot(mode, 1)
    for numbers in ([], [1, 2, 3, 4], [0], [7], [2, 2], "1", [True]):
        refuse(game, 0, {"type": "jackpot_bet", "numbers": numbers}, "bad_numbers")
    refuse(game, 1, {"type": "jackpot_bet", "numbers": [1]}, "not_your_turn")


def test_a_doubles_roller_rolls_again_after_the_jackpot(mode: str) -> None:
    game = at_jackpot(mode, 3, landing=(2, 2))
    game.apply(0, {"type": "jackpot_bet", "numbers": [3]})
    assert cash(game) == [20000, 15000]
    assert pending_seat(game) == (0, "roll")
