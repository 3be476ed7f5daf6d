"""Which colour each seat shows (issue #43 item 9): a person may pick one of the client's six seat colours
before the start; the server keeps colours unique per table. A picked colour belongs to whoever picked it
first (a later pick of it is refused with ``colour_taken``); every other seat keeps its own seat's colour
when free, else takes the lowest free one. Picks live with the room's hub, in memory: after a restart the
table falls back to the default colours, which are just as readable."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Protocol

from opolyx.protocol import errors as E
from opolyx.protocol.errors import RoomRefused

PALETTE_SIZE = 6


class SeatLike(Protocol):
    @property
    def seat(self) -> int: ...

    @property
    def user_id(self) -> str | None: ...


def seat_colours(seats: Iterable[SeatLike], picked: Mapping[str, int]) -> dict[int, int]:
    """seat → colour index (0..5), unique: picks first (in seat order), then the defaults."""
    ordered = sorted(seats, key=lambda s: s.seat)
    out: dict[int, int] = {}
    for s in ordered:
        colour = picked.get(s.user_id) if s.user_id else None
        if colour is not None and colour not in out.values():
            out[s.seat] = colour
    for s in ordered:
        if s.seat in out:
            continue
        free = [c for c in range(PALETTE_SIZE) if c not in out.values()]
        own = s.seat % PALETTE_SIZE
        out[s.seat] = own if own in free else free[0]
    return out


def check_pick(seats: Iterable[SeatLike], picked: Mapping[str, int], user_id: str, colour: int) -> None:
    """Refuse a colour out of range or one another seated person already picked."""
    if not 0 <= colour < PALETTE_SIZE:
        raise RoomRefused(E.COLOUR_TAKEN, f"there is no colour {colour}")
    seated = {s.user_id for s in seats if s.user_id}
    if user_id not in seated:
        raise RoomRefused(E.NOT_SEATED, "only a seated player picks a colour")
    if any(c == colour and u != user_id and u in seated for u, c in picked.items()):
        raise RoomRefused(E.COLOUR_TAKEN, "another player has picked that colour")
