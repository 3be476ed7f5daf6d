"""Choosing a side in a Team room before the start (docs/rules.md §19b, docs/protocol.md "Team choice").

Seats alternate between the two teams (the engine's ``side_of_seat``), so a side is chosen by sitting in a
free seat of its parity, and the alternation the rules require holds whatever people choose. These are
pure functions of the room record; :mod:`opolyx.server.play.seating` takes the lock and stores the result.
"""

from __future__ import annotations

import dataclasses
import secrets

from opolyx.engine.teams import side_of_seat
from opolyx.protocol import errors as E
from opolyx.protocol.errors import RoomRefused
from opolyx.rules import load_rules
from opolyx.storage import RoomRecord, SeatRecord

_RANDOM = secrets.SystemRandom()


def is_team_room(room: RoomRecord) -> bool:
    return load_rules(room.mode).teams


def free_seats_of_side(room: RoomRecord, team: int) -> list[int]:
    """The free seats on ``team``'s side, lowest first; refused outside Team rooms or when that side is full."""
    if not is_team_room(room):
        raise RoomRefused(E.NOT_TEAM_ROOM, "only Team rooms have sides to choose")
    if team not in (0, 1):
        raise RoomRefused(E.INVALID_REQUEST, "team is 0 or 1")
    taken = {s.seat for s in room.seats}
    free = [i for i in range(room.seat_count) if i not in taken and side_of_seat(i) == team]
    if not free:
        raise RoomRefused(E.TEAM_FULL, "that team has no free seat")
    return free


def moved_to_side(room: RoomRecord, user_id: str, team: int) -> list[SeatRecord] | None:
    """The seats after ``user_id`` moved to ``team``'s side (None when they already sit there)."""
    if not is_team_room(room):
        raise RoomRefused(E.NOT_TEAM_ROOM, "only Team rooms have sides to choose")
    mine = room.seat_of(user_id)
    if mine is None:
        raise RoomRefused(E.NOT_IN_ROOM, "you hold no seat in this room")
    if side_of_seat(mine.seat) == team:
        return None
    target = free_seats_of_side(room, team)[0]
    return [dataclasses.replace(s, seat=target) if s.seat == mine.seat else s for s in room.seats]


def shuffled(room: RoomRecord) -> list[SeatRecord]:
    """Everyone seated dealt to random seats (empty seats too), so each lands on a random side."""
    if not is_team_room(room):
        raise RoomRefused(E.NOT_TEAM_ROOM, "only Team rooms have sides to shuffle")
    slots = _RANDOM.sample(range(room.seat_count), len(room.seats))
    return sorted((dataclasses.replace(s, seat=slot) for s, slot in zip(room.seats, slots, strict=True)),
                  key=lambda s: s.seat)
