"""Choosing a side in a Team room from the side of someone who would break the alternation or move others
(issue 46): a side in a room that has none, a third team, a full side, moving without a seat, a shuffle of
a room that is not a Team room. Pure functions of the room record (server/play/team_choice.py)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from opolyx.protocol.errors import RoomRefused
from opolyx.server.play.team_choice import free_seats_of_side, is_team_room, moved_to_side, shuffled
from opolyx.storage import RoomRecord, SeatRecord


def room(*taken: tuple[int, str], mode: str = "team", seats: int = 4) -> RoomRecord:
    made = tuple(SeatRecord(seat, uid, None, uid.upper()) for seat, uid in taken)
    return RoomRecord("r", None, mode, seats, True, "a", "waiting", datetime.now(UTC), made)


def refused(call: object, *args: object) -> str:
    with pytest.raises(RoomRefused) as caught:
        call(*args)  # type: ignore[operator]
    return caught.value.code


def test_sides_exist_only_in_team_rooms() -> None:
    classic = room((0, "a"), mode="classic")
    assert not is_team_room(classic) and is_team_room(room())
    assert refused(free_seats_of_side, classic, 0) == "not_team_room"
    assert refused(moved_to_side, classic, "a", 1) == "not_team_room"
    assert refused(shuffled, classic) == "not_team_room"


def test_there_are_two_sides_and_a_full_one_takes_nobody() -> None:
    r = room((0, "a"), (1, "b"), seats=6)
    for team in (-1, 2):
        assert refused(free_seats_of_side, r, team) == "invalid_request"
    assert free_seats_of_side(r, 0) == [2, 4] and free_seats_of_side(r, 1) == [3, 5]
    full = room((0, "a"), (2, "c"), (1, "b"))
    assert refused(free_seats_of_side, full, 0) == "team_full"
    assert refused(moved_to_side, full, "b", 0) == "team_full"
    assert free_seats_of_side(full, 1) == [3]


def test_only_a_seated_person_moves_and_only_themselves() -> None:
    r = room((0, "a"), (1, "b"))
    assert refused(moved_to_side, r, "eve", 1) == "not_in_room"
    assert moved_to_side(r, "a", 0) is None  # already there: nothing changes
    after = moved_to_side(r, "a", 1)
    assert after is not None
    assert sorted((s.seat, s.user_id) for s in after) == [(1, "b"), (3, "a")]


def test_a_shuffle_deals_everyone_to_distinct_seats_of_the_room() -> None:
    r = room((0, "a"), (1, "b"), (2, "c"), seats=6)
    for _ in range(30):
        dealt = shuffled(r)
        assert sorted(s.user_id or "" for s in dealt) == ["a", "b", "c"]
        seats = [s.seat for s in dealt]
        assert seats == sorted(seats) and len(set(seats)) == 3 and all(0 <= n < 6 for n in seats)
    assert {s.seat for _ in range(60) for s in shuffled(r)} == set(range(6))
