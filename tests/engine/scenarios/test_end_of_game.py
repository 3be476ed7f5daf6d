"""docs/rules.md §16: net worth, the round limit (Blitz 25, Classic 500), winners and placements."""

from __future__ import annotations

import pytest
from scenario_kit import find, make, refuse, setup


def finish_round(game, seats: list[int]) -> list[dict]:  # type: ignore[type-arg]
    """Every seat in ``seats`` rolls from Start to just visiting; returns the last events."""
    events: list[dict] = []  # type: ignore[type-arg]
    for seat in seats:
        game.players[seat].position = 0
        events = game.apply(seat, {"type": "roll"})
    return events


def test_net_worth_formula(mode: str) -> None:
    game = make(mode)
    setup(game, 0, cash=1000, levels={1: 2, 3: 1}, owns=[12], mortgaged=[39])
    # 1000 cash + 1200 brown prices + 3 levels × 500 + 1500 utility + (4000 − 2200) mortgaged
    assert game.snapshot()["players"][0]["net_worth"] == 1000 + 1200 + 1500 + 1500 + 1800
    assert game.snapshot()["players"][1]["net_worth"] == 15000


@pytest.mark.parametrize(("mode", "limit"), [("blitz", 25), ("classic", 500)])
def test_the_game_ends_after_the_round_limit(mode: str, limit: int) -> None:
    game = make(mode, dice=[(4, 6)] * 4)
    game.round = limit - 1
    finish_round(game, [0, 1])
    assert game.snapshot()["round"] == limit and not game.is_over
    setup(game, 1, owns=[39])
    events = finish_round(game, [0, 1])
    over = find(events, "game_over")
    assert over["reason"] == "round_limit" and over["round"] == limit
    assert over["winner"] == 1
    assert [(p["seat"], p["place"], p["net_worth"], p["out"]) for p in over["placements"]] == [
        (1, 1, 19000, False), (0, 2, 15000, False)]
    snap = game.snapshot()
    assert snap["over"] and snap["phase"] == "over" and snap["pending"] == []
    assert snap["result"] == {k: v for k, v in over.items() if k != "type"}


def test_blitz_does_not_end_before_its_last_round_is_complete() -> None:
    game = make("blitz", 3, dice=[(4, 6)] * 3)
    game.round = 25
    finish_round(game, [0, 1])
    assert not game.is_over
    events = finish_round(game, [2])
    assert find(events, "game_over")["round"] == 25


@pytest.mark.parametrize(("first", "winner"), [(0, 0), (1, 1)])
def test_a_tie_goes_to_the_earlier_seat_in_seat_order(first: int, winner: int) -> None:
    game = make("blitz", dice=[(4, 6)] * 2, first_player=first)
    game.round = 25
    events = finish_round(game, [first, 1 - first])
    over = find(events, "game_over")
    assert over["winner"] == winner
    assert [p["seat"] for p in over["placements"]] == [winner, 1 - winner]


def test_placements_survivors_by_net_worth_then_later_eliminations_ahead_of_earlier() -> None:
    game = make("blitz", 5, dice=[(4, 6)] * 5)
    game.round = 25
    setup(game, 2, owns=[39])
    setup(game, 0, owns=[37])
    game.apply(3, {"type": "resign"})
    game.apply(1, {"type": "resign"})
    events = finish_round(game, [0, 2, 4])
    over = find(events, "game_over")
    assert over["winner"] == 2
    assert [(p["seat"], p["place"], p["out"]) for p in over["placements"]] == [
        (2, 1, False), (0, 2, False), (4, 3, False), (1, 4, True), (3, 5, True)]


def test_the_last_solvent_player_wins_and_the_rest_rank_by_elimination(mode: str) -> None:
    game = make(mode, 4)
    game.apply(2, {"type": "resign"})
    game.apply(0, {"type": "resign"})
    events = game.apply(3, {"type": "resign"})
    over = find(events, "game_over")
    assert over["reason"] == "last_player" and over["winner"] == 1
    assert [p["seat"] for p in over["placements"]] == [1, 3, 0, 2]


def test_nothing_is_allowed_after_the_game_is_over(mode: str) -> None:
    game = make(mode)
    game.apply(1, {"type": "resign"})
    assert game.is_over
    assert game.legal_actions(0) == [] and game.legal_actions(1) == []
    refuse(game, 0, {"type": "roll"}, "game_over")
    refuse(game, None, {"type": "timeout"}, "game_over")
