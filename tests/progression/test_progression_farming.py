"""Every anti-farming guard refuses XP in its case and only there (docs/accounts.md)."""

from __future__ import annotations

import dataclasses

import pytest

from opolyx.progression import SeatFacts, refusal

FAIR = SeatFacts(is_person=True, out_reason=None, out_round=None, game_round=30, played_turns=30)


def test_a_fair_seat_earns() -> None:
    assert refusal(FAIR) is None


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"is_person": False}, "bot"),
        ({"game_round": 9}, "short_game"),
        ({"out_reason": "forfeit", "out_round": 3}, "early_exit"),
        ({"out_reason": "resigned", "out_round": 9}, "early_exit"),
        ({"same_person": True}, "same_person"),
        ({"played_turns": 0}, "not_played"),
        ({"early_leaver_at_table": True, "pair_meetings": 2}, "pair_farming"),
    ],
)
def test_each_farming_case_earns_nothing(change: dict[str, object], reason: str) -> None:
    assert refusal(dataclasses.replace(FAIR, **change)) == reason  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "change",
    [
        {"out_reason": "bankrupt", "out_round": 3},  # going broke early is playing, not farming
        {"out_reason": "forfeit", "out_round": 10},  # forfeited after the first rounds
        {"early_leaver_at_table": True, "pair_meetings": 1},  # a rematch is fine
        {"early_leaver_at_table": False, "pair_meetings": 5},  # friends playing it out
        {"played_turns": 1},  # one turn played is paid (for that turn: credits.measured_xp)
    ],
)
def test_near_misses_still_earn(change: dict[str, object]) -> None:
    assert refusal(dataclasses.replace(FAIR, **change)) is None  # type: ignore[arg-type]
