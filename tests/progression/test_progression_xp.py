"""XP by docs/rules.md §19: placement, complete colour groups at the end, survival, Team placement, short games."""

from __future__ import annotations

from typing import Any

import pytest

from opolyx.progression import game_xp
from opolyx.rules import load_board

BOARD = load_board("classic")


def _snapshot(owners: dict[int, int] | None = None, board: str = "classic") -> dict[str, Any]:
    owners = owners or {}
    return {"board": board, "squares": [{"index": i, "owner": owners.get(i)} for i in range(40)]}


def _result(places: list[tuple[int, int, bool]], round_: int = 30) -> dict[str, Any]:
    return {
        "round": round_,
        "placements": [{"seat": s, "place": p, "out": out, "team": None} for s, p, out in places],
    }


@pytest.mark.parametrize(("place", "expected"), [(1, 100), (2, 60), (3, 40), (4, 25), (5, 15), (6, 10)])
def test_each_placement_pays_its_amount_plus_survival(place: int, expected: int) -> None:
    places = [(s, s + 1, False) for s in range(6)]
    xp = game_xp(_result(places), _snapshot())
    assert xp[place - 1].placement == expected
    assert xp[place - 1].total == expected + 25


def test_eliminated_seats_get_placement_but_no_survival_bonus() -> None:
    xp = game_xp(_result([(0, 1, False), (1, 2, True)]), _snapshot())
    assert xp[0].total == 125
    assert (xp[1].placement, xp[1].survival, xp[1].total) == (60, 0, 60)


def test_each_complete_colour_group_held_at_the_end_adds_fifteen() -> None:
    groups = list(BOARD.groups.values())
    owners = {i: 0 for i in groups[0] + groups[1]}
    # One square short of a third group: it does not count.
    owners.update({i: 0 for i in groups[2][:-1]})
    owners[groups[2][-1]] = 1
    xp = game_xp(_result([(0, 1, False), (1, 2, False)]), _snapshot(owners))
    assert (xp[0].group_count, xp[0].groups) == (2, 30)
    assert xp[0].total == 100 + 30 + 25
    assert xp[1].groups == 0


def test_team_members_each_get_the_teams_placement() -> None:
    result = {
        "round": 40,
        "placements": [
            {"seat": 0, "place": 1, "team": 0, "out": False},
            {"seat": 2, "place": 1, "team": 0, "out": True},
            {"seat": 1, "place": 2, "team": 1, "out": True},
            {"seat": 3, "place": 2, "team": 1, "out": False},
        ],
    }
    xp = game_xp(result, _snapshot())
    assert xp[0].placement == xp[2].placement == 100
    assert xp[1].placement == xp[3].placement == 60
    # Survival stays personal.
    assert (xp[0].survival, xp[2].survival, xp[3].survival) == (25, 0, 25)


@pytest.mark.parametrize("round_", [1, 5, 9])
def test_games_ending_before_round_ten_pay_nothing(round_: int) -> None:
    assert game_xp(_result([(0, 1, False), (1, 2, True)], round_), _snapshot()) == {}


def test_round_ten_already_pays() -> None:
    assert game_xp(_result([(0, 1, False), (1, 2, True)], 10), _snapshot())[0].total == 125
