"""Real games for the XP tests, stored the way the server stores them: the rooms, a person's choices, a game
in which chosen seats resign at chosen rounds, and its actions with who answered and how fast.

Shared by the farming tests (tests/server) and the XP-credit guards (tests/security), so both measure the
same games."""

from __future__ import annotations

import random
from typing import Any

import opolyx.engine
from opolyx.progression import Credit
from opolyx.storage import NewRoom, RoomRecord, SeatRecord, Store

SEED = 20261130
Log = list[tuple[int | None, dict[str, Any]]]


def choose(legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """A person who buys what they can and otherwise keeps the game moving."""
    for kind in ("decline_trade", "build", "buy", "roll", "pay", "bid", "jail_roll", "decline"):
        options = [a for a in legal if a["type"] == kind]
        if options:
            if kind == "bid" and rng.random() < 0.7:
                continue
            return rng.choice(options)
    rest = [a for a in legal if a["type"] not in ("propose_trade", "resign", "redeem", "cancel_trade")]
    if rest:
        return rng.choice(rest)
    return next(a for a in legal if a["type"] == "resign")


async def started_room(store: Store, room_id: str, people: list[str], *, public: bool = True) -> RoomRecord:
    """A classic room of ``people`` (the first created it), its game started with :data:`SEED`."""
    await store.create_room(
        NewRoom(room_id, None if public else room_id.upper()[:16], "classic", 6, public, people[0], "x")
    )
    for i, u in enumerate(people[1:], start=1):
        await store.take_seat(room_id, i, user_id=u, bot=None, name=u)
    seats = [SeatRecord(i, u, None, u) for i, u in enumerate(people)]
    info = [{"name": u, "bot": False, "team": None, "vip": False, "cards": {}} for u in people]
    return await store.start_game(room_id, seed=SEED, seats=seats, seat_info=info)  # type: ignore[arg-type]


def played(seats: int, resigns: dict[int, int]) -> tuple[Log, dict[str, Any]]:
    """A real game: everyone plays sensibly (:func:`choose`); seat s resigns once round ``resigns[s]`` is
    reached."""
    info = [{"name": f"p{i}", "bot": False, "team": None, "vip": False, "cards": {}} for i in range(seats)]
    game = opolyx.engine.new_game("classic", seats, SEED, seat_info=info)
    rng = random.Random(1)
    log: Log = []
    left = dict(resigns)
    while not game.is_over:
        snap = game.snapshot()
        due = [s for s, r in left.items() if snap["round"] >= r and not snap["players"][s]["out"]]
        if due:
            seat, action = due[0], {"type": "resign"}
            del left[seat]
        else:
            seat = snap["pending"][0]["seat"]
            action = choose(game.legal_actions(seat), rng)
        game.apply(seat, action)
        log.append((seat, action))
        assert len(log) < 20000
    return log, game.snapshot()


async def stored(
    store: Store,
    room_id: str,
    log: Log,
    *,
    actor: dict[int, str] | None = None,
    elapsed_ms: dict[int, int] | None = None,
) -> None:
    """Store the game's actions as the server measures them: by default every seat's person answered
    after 13 s (a human pace: a round of two seats lasts over 25 s); ``actor``/``elapsed_ms`` change that
    per seat."""
    actor, elapsed_ms = actor or {}, elapsed_ms or {}
    for seq, (seat, action) in enumerate(log, start=1):
        who = actor.get(seat, "person") if seat is not None else "clock"
        await store.append_action(room_id, seq, seat, action, actor=who, elapsed_ms=elapsed_ms.get(seat, 13_000))


async def users(store: Store, *names: str) -> None:
    for u in names:
        await store.create_user(u, u, "en")


def by_seat(credits: list[Credit]) -> dict[int, Credit]:
    return {c.seat: c for c in credits}
