"""Quick play's queue as data: who waits for which table, and which tables a moment in time forms.

Pure (no clock, no I/O, no randomness): the caller passes ``now``, so the rules below are tested with a
fake clock (tests/server/test_quickplay_queue.py) and the same function runs in one process or, under a
lock, for a whole cluster (quickplay_store.py).

The rules, in the order they are applied at each tick:

- Tickets are looked at oldest first (waiting order; the person's id breaks ties). The oldest ticket not
  yet placed is the *anchor*.
- For each seat count the anchor accepts (in its order of preference), the anchor gathers the oldest
  other tickets of the same mode that accept that count and whose rating is close enough: within
  ``window(waited)``, which widens the longer the anchor has waited, so similar players meet when the
  queue allows and anyone meets anyone soon after. Enough of them: a table of people only.
- An anchor whose countdown has run out (``wait`` seconds since it joined) or who asked to start with
  bots now is always seated: with whoever compatible waits (any rating, oldest first) up to its first
  seat-count choice, the other seats filled with bots of the strength it chose.

So nobody is placed twice in one tick (a placed ticket leaves the pool), a ticket is never passed over
by a later one with the same wishes and rating, and a ticket is seated at the first tick at or after
its deadline.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field

from opolyx.jsontypes import JSON

MODES = ("classic", "blitz", "speed", "team", "halal", "fortuna")
STRENGTHS = ("easy", "normal", "hard")
ANY_SEATS = (4, 3, 5, 2, 6)
TEAM_SEATS = (4, 6)
# Ratings are compared on the OpenSkill ordinal (mu - 3 sigma) scale: a new player is at 0, a strong one
# near 30. The window starts this wide and grows this much per second of the anchor's wait.
WINDOW_START = 5.0
WINDOW_GROWTH = 1.5


def allowed_seats(mode: str) -> tuple[int, ...]:
    return TEAM_SEATS if mode == "team" else (2, 3, 4, 5, 6)


def seat_wishes(mode: str, seats: int | None) -> tuple[int, ...]:
    """The seat counts a ticket accepts, most wanted first: the one asked for, or any (4 first)."""
    allowed = allowed_seats(mode)
    if seats is None:
        return tuple(n for n in ANY_SEATS if n in allowed)
    return (seats,)


def window(waited: float) -> float:
    """How far apart (in ordinal points) two ratings may be for a table of people only."""
    return WINDOW_START + WINDOW_GROWTH * max(0.0, waited)


@dataclass(frozen=True)
class Ticket:
    """One person waiting: what they asked for, when, and how strong they are."""

    user: str
    mode: str
    seats: tuple[int, ...]
    strength: str
    at: float
    rating: float = 0.0
    bots_now: bool = False
    # Shown at the table (the queue itself never reads them).
    name: str = ""
    agent: bool = False

    def key(self) -> tuple[float, str]:
        return (self.at, self.user)

    def due(self, now: float, wait: float) -> bool:
        return self.bots_now or now >= self.at + wait

    def to_json(self) -> JSON:
        return {
            "user": self.user,
            "mode": self.mode,
            "seats": list(self.seats),
            "strength": self.strength,
            "at": self.at,
            "rating": self.rating,
            "bots_now": self.bots_now,
            "name": self.name,
            "agent": self.agent,
        }

    @classmethod
    def from_json(cls, data: JSON) -> Ticket:
        return cls(
            user=str(data["user"]),
            mode=str(data["mode"]),
            seats=tuple(int(n) for n in data["seats"]),
            strength=str(data["strength"]),
            at=float(data["at"]),
            rating=float(data.get("rating") or 0.0),
            bots_now=bool(data.get("bots_now")),
            name=str(data.get("name") or ""),
            agent=bool(data.get("agent")),
        )


@dataclass(frozen=True)
class Table:
    """A table the queue formed: its people (oldest ticket first), then ``bots`` bots of ``strength``."""

    mode: str
    seats: int
    people: tuple[Ticket, ...]
    bots: int = 0
    strength: str = "normal"
    formed_at: float = 0.0
    users: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "users", tuple(t.user for t in self.people))


def _first(
    pool: Sequence[Ticket],
    placed: set[str],
    anchor: Ticket,
    seats: int,
    spread: float | None,
    apart: Collection[frozenset[str]] = (),
) -> list[Ticket]:
    """The oldest free tickets (at most ``seats - 1``) that fit at the anchor's table of ``seats``: same
    mode (the pool is one mode's), accepting that size, with a rating within ``spread`` (None: any), and
    nobody in a pair of ``apart`` (one blocked the other) with someone already at the table."""
    found: list[Ticket] = []
    for t in pool:
        if t.user in placed or t.user == anchor.user or seats not in t.seats:
            continue
        if spread is not None and abs(t.rating - anchor.rating) > spread:
            continue
        if apart and any(frozenset((t.user, o.user)) in apart for o in (anchor, *found)):
            continue
        found.append(t)
        if len(found) == seats - 1:
            break
    return found


def match(
    tickets: Iterable[Ticket], now: float, wait: float, apart: Collection[frozenset[str]] = ()
) -> list[Table]:
    """The tables to form at ``now`` from the waiting ``tickets`` (see the module's rules); two people of a
    pair in ``apart`` (one blocked the other, docs/operating.md "Moderation") never share a table."""
    modes: dict[str, list[Ticket]] = {}
    for t in sorted(tickets, key=Ticket.key):
        modes.setdefault(t.mode, []).append(t)
    placed: set[str] = set()
    tables: list[Table] = []
    # Tickets of different modes never share a table: each mode's queue is matched on its own.
    for pool in modes.values():
        for anchor in pool:
            if anchor.user in placed:
                continue
            spread = window(now - anchor.at)
            table: Table | None = None
            for seats in anchor.seats:
                close = _first(pool, placed, anchor, seats, spread, apart)
                if len(close) == seats - 1:
                    table = Table(anchor.mode, seats, (anchor, *close), formed_at=now)
                    break
            if table is None and anchor.due(now, wait):
                seats = anchor.seats[0]
                company = _first(pool, placed, anchor, seats, None, apart)
                table = Table(
                    anchor.mode, seats, (anchor, *company), bots=seats - 1 - len(company), strength=anchor.strength,
                    formed_at=now,
                )
            if table is not None:
                tables.append(table)
                placed.update(table.users)
    return tables


def position(tickets: Sequence[Ticket], user: str) -> int | None:
    """1-based place of ``user`` among the tickets of its mode in waiting order (None: not waiting)."""
    mine = next((t for t in tickets if t.user == user), None)
    if mine is None:
        return None
    same = sorted((t for t in tickets if t.mode == mine.mode), key=Ticket.key)
    return 1 + [t.user for t in same].index(user)
