"""The anti-farming guards end to end: real engine games, the facts the server gathers, the store's
record of earlier meetings (docs/accounts.md, "Against farming")."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from fractions import Fraction
from typing import Any

import pytest
from server_kit import choose

import opolyx.engine
from opolyx.progression import Credit
from opolyx.server.play import xp_credit
from opolyx.storage import NewRoom, RoomRecord, SeatRecord, SqlStore, Store
from opolyx.storage.testing import TestDatabase

pytestmark = pytest.mark.anyio
SEED = 20261130


@pytest.fixture
async def store(database: TestDatabase) -> AsyncIterator[Store]:
    s = await SqlStore.open(database.url, schema=database.schema)
    try:
        yield s
    finally:
        await s.close()


async def _room(store: Store, room_id: str, users: list[str], *, public: bool) -> RoomRecord:
    await store.create_room(
        NewRoom(room_id, None if public else room_id.upper()[:16], "classic", 6, public, users[0], "x")
    )
    for i, u in enumerate(users[1:], start=1):
        await store.take_seat(room_id, i, user_id=u, bot=None, name=u)
    seats = [SeatRecord(i, u, None, u) for i, u in enumerate(users)]
    info = [{"name": u, "bot": False, "team": None, "vip": False, "cards": {}} for u in users]
    return await store.start_game(room_id, seed=SEED, seats=seats, seat_info=info)


def _play(seats: int, resigns: dict[int, int]) -> tuple[list[tuple[int | None, dict[str, Any]]], dict[str, Any]]:
    """A real game: everyone plays sensibly; seat s resigns once round ``resigns[s]`` is reached."""
    info = [{"name": f"p{i}", "bot": False, "team": None, "vip": False, "cards": {}} for i in range(seats)]
    game = opolyx.engine.new_game("classic", seats, SEED, seat_info=info)
    rng = random.Random(1)
    log: list[tuple[int | None, dict[str, Any]]] = []
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


async def _stored(
    store: Store,
    room_id: str,
    log: list[tuple[int | None, dict[str, Any]]],
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


async def _meetings(store: Store, a: str, b: str, n: int) -> None:
    for k in range(n):
        await _room(store, f"old{k}{a}", [a, b], public=False)
        await store.finish_game(f"old{k}{a}", None, [])


async def _users(store: Store, *names: str) -> None:
    for u in names:
        await store.create_user(u, u, "en")


def _by_seat(credits: list[Credit]) -> dict[int, Credit]:
    return {c.seat: c for c in credits}


async def test_a_pair_that_keeps_meeting_privately_with_an_early_resign_earns_nothing(store: Store) -> None:
    await _users(store, "a", "b")
    await _meetings(store, "a", "b", 2)
    room = await _room(store, "farm", ["a", "b"], public=False)
    log, snap = _play(2, {1: 12})
    await _stored(store, "farm", log)
    assert snap["result"]["round"] >= 12
    credits = _by_seat(await xp_credit.credits(store, opolyx.engine, room, log, snap))
    assert {s: (c.xp, c.refused) for s, c in credits.items()} == {0: (0, "pair_farming"), 1: (0, "pair_farming")}


async def test_the_same_game_pays_without_the_history_or_in_public(store: Store) -> None:
    await _users(store, "a", "b", "c", "d")
    await _meetings(store, "c", "d", 1)  # one earlier meeting is a rematch, not farming
    log, snap = _play(2, {1: 12})
    for room in (
        await _room(store, "first", ["a", "b"], public=False),
        await _room(store, "pub", ["c", "d"], public=True),
    ):
        await _stored(store, room.id, log)
        credits = _by_seat(await xp_credit.credits(store, opolyx.engine, room, log, snap))
        # Seat 1 ended the game by resigning in round 12: a short game pays 12/25 of its XP.
        share = Fraction(snap["result"]["round"], 25)
        assert credits[0].refused is None and credits[0].xp == int((100 + 25 + credits[0].parts["groups"]) * share)
        assert credits[1].refused is None and credits[1].xp == int((60 + credits[1].parts["groups"]) * share)
        assert credits[0].won and not credits[1].won and credits[0].parts["ended_by_leaving"] is True


async def test_a_seat_that_resigns_in_the_first_rounds_earns_nothing_while_the_rest_do(store: Store) -> None:
    await _users(store, "a", "b", "c")
    room = await _room(store, "early", ["a", "b", "c"], public=True)
    log, snap = _play(3, {2: 2, 1: 12})
    await _stored(store, "early", log)
    credits = _by_seat(await xp_credit.credits(store, opolyx.engine, room, log, snap))
    assert (credits[2].xp, credits[2].refused) == (0, "early_exit")
    assert credits[0].refused is None and credits[0].xp > 0
    assert credits[1].refused is None and credits[1].xp > 0


async def test_a_game_over_before_round_ten_pays_nobody(store: Store) -> None:
    await _users(store, "a", "b")
    room = await _room(store, "short", ["a", "b"], public=True)
    log, snap = _play(2, {1: 3})
    credits = await xp_credit.credits(store, opolyx.engine, room, log, snap)
    assert [(c.xp, c.refused) for c in credits] == [(0, "short_game"), (0, "short_game")]


async def test_two_seats_from_one_address_earn_nothing_when_one_resigns_for_the_other(store: Store) -> None:
    """The issue's farmer: two sessions of one person in a two-seat public room, one resigning in round
    10+. The server saw both seats act from one address: neither earns."""
    await _users(store, "a", "b")
    room = await _room(store, "twins", ["a", "b"], public=True)
    log, snap = _play(2, {1: 12})
    await _stored(store, "twins", log)
    await store.add_seat_marks("twins", 0, ["addr:same", "session:1"])
    await store.add_seat_marks("twins", 1, ["addr:same", "session:2"])
    credits = _by_seat(await xp_credit.credits(store, opolyx.engine, room, log, snap))
    assert {s: (c.xp, c.refused) for s, c in credits.items()} == {0: (0, "same_person"), 1: (0, "same_person")}


async def test_turns_the_clock_or_an_instant_script_played_earn_nothing(store: Store) -> None:
    """An alt idling beside the farmer (its turns time out), or a script answering in milliseconds:
    those seats played no turn. The person who played earns."""
    await _users(store, "a", "b", "c", "d")
    log, snap = _play(2, {})
    assert snap["result"]["round"] >= 10
    for room_id, pair, change in (
        ("clocked", ["a", "b"], {"actor": {1: "clock"}}),
        ("scripted", ["c", "d"], {"elapsed_ms": {1: 5}}),
    ):
        room = await _room(store, room_id, pair, public=True)
        await _stored(store, room_id, log, **change)  # type: ignore[arg-type]
        credits = _by_seat(await xp_credit.credits(store, opolyx.engine, room, log, snap))
        assert (credits[1].xp, credits[1].refused) == (0, "not_played")
        assert credits[0].refused is None and credits[0].xp == credits[0].parts["total"] > 0


async def test_play_faster_than_a_person_is_paid_in_proportion(store: Store) -> None:
    """A script that waits just over the think-time floor still cannot play turns faster than the
    plausible pace: its XP shrinks with the time its turns took (here about a fifth of the floor)."""
    await _users(store, "a", "b")
    log, snap = _play(2, {})
    room = await _room(store, "quick", ["a", "b"], public=True)
    await _stored(store, "quick", log, elapsed_ms={0: 1000, 1: 30_000})
    credits = _by_seat(await xp_credit.credits(store, opolyx.engine, room, log, snap))
    fast, slow = credits[0], credits[1]
    assert fast.refused is None and 0 < fast.xp < fast.parts["total"] // 2
    assert fast.parts["reduced_from"] == fast.parts["total"]
    assert slow.xp == slow.parts["total"]
