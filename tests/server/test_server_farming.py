"""The anti-farming guards end to end: real engine games, the facts the server gathers, the store's
record of earlier meetings (docs/accounts.md, "Against farming")."""

from __future__ import annotations

from collections.abc import AsyncIterator
from fractions import Fraction

import pytest

import opolyx.engine
from opolyx.server.play import xp_credit
from opolyx.storage import SqlStore, Store
from opolyx.storage.testing import TestDatabase
from played_games import by_seat, played, started_room, stored, users

pytestmark = pytest.mark.anyio


@pytest.fixture
async def store(database: TestDatabase) -> AsyncIterator[Store]:
    s = await SqlStore.open(database.url, schema=database.schema)
    try:
        yield s
    finally:
        await s.close()


async def _meetings(store: Store, a: str, b: str, n: int) -> None:
    for k in range(n):
        await started_room(store, f"old{k}{a}", [a, b], public=False)
        await store.finish_game(f"old{k}{a}", None, [])


async def test_a_pair_that_keeps_meeting_privately_with_an_early_resign_earns_nothing(store: Store) -> None:
    await users(store, "a", "b")
    await _meetings(store, "a", "b", 2)
    room = await started_room(store, "farm", ["a", "b"], public=False)
    log, snap = played(2, {1: 12})
    await stored(store, "farm", log)
    assert snap["result"]["round"] >= 12
    credits = by_seat(await xp_credit.credits(store, opolyx.engine, room, log, snap))
    assert {s: (c.xp, c.refused) for s, c in credits.items()} == {0: (0, "pair_farming"), 1: (0, "pair_farming")}


async def test_the_same_game_pays_without_the_history_or_in_public(store: Store) -> None:
    await users(store, "a", "b", "c", "d")
    await _meetings(store, "c", "d", 1)  # one earlier meeting is a rematch, not farming
    log, snap = played(2, {1: 12})
    for room in (
        await started_room(store, "first", ["a", "b"], public=False),
        await started_room(store, "pub", ["c", "d"], public=True),
    ):
        await stored(store, room.id, log)
        credits = by_seat(await xp_credit.credits(store, opolyx.engine, room, log, snap))
        # Seat 1 ended the game by resigning in round 12: a short game pays 12/25 of its XP.
        share = Fraction(snap["result"]["round"], 25)
        assert credits[0].refused is None and credits[0].xp == int((100 + 25 + credits[0].parts["groups"]) * share)
        assert credits[1].refused is None and credits[1].xp == int((60 + credits[1].parts["groups"]) * share)
        assert credits[0].won and not credits[1].won and credits[0].parts["ended_by_leaving"] is True


async def test_a_seat_that_resigns_in_the_first_rounds_earns_nothing_while_the_rest_do(store: Store) -> None:
    await users(store, "a", "b", "c")
    room = await started_room(store, "early", ["a", "b", "c"], public=True)
    log, snap = played(3, {2: 2, 1: 12})
    await stored(store, "early", log)
    credits = by_seat(await xp_credit.credits(store, opolyx.engine, room, log, snap))
    assert (credits[2].xp, credits[2].refused) == (0, "early_exit")
    assert credits[0].refused is None and credits[0].xp > 0
    assert credits[1].refused is None and credits[1].xp > 0


async def test_a_game_over_before_round_ten_pays_nobody(store: Store) -> None:
    await users(store, "a", "b")
    room = await started_room(store, "short", ["a", "b"], public=True)
    log, snap = played(2, {1: 3})
    credits = await xp_credit.credits(store, opolyx.engine, room, log, snap)
    assert [(c.xp, c.refused) for c in credits] == [(0, "short_game"), (0, "short_game")]


async def test_two_seats_from_one_address_earn_nothing_when_one_resigns_for_the_other(store: Store) -> None:
    """The issue's farmer: two sessions of one person in a two-seat public room, one resigning in round
    10+. The server saw both seats act from one address: neither earns."""
    await users(store, "a", "b")
    room = await started_room(store, "twins", ["a", "b"], public=True)
    log, snap = played(2, {1: 12})
    await stored(store, "twins", log)
    await store.add_seat_marks("twins", 0, ["addr:same", "session:1"])
    await store.add_seat_marks("twins", 1, ["addr:same", "session:2"])
    credits = by_seat(await xp_credit.credits(store, opolyx.engine, room, log, snap))
    assert {s: (c.xp, c.refused) for s, c in credits.items()} == {0: (0, "same_person"), 1: (0, "same_person")}


async def test_turns_the_clock_or_an_instant_script_played_earn_nothing(store: Store) -> None:
    """An alt idling beside the farmer (its turns time out), or a script answering in milliseconds:
    those seats played no turn. The person who played earns."""
    await users(store, "a", "b", "c", "d")
    log, snap = played(2, {})
    assert snap["result"]["round"] >= 10
    for room_id, pair, change in (
        ("clocked", ["a", "b"], {"actor": {1: "clock"}}),
        ("scripted", ["c", "d"], {"elapsed_ms": {1: 5}}),
    ):
        room = await started_room(store, room_id, pair, public=True)
        await stored(store, room_id, log, **change)  # type: ignore[arg-type]
        credits = by_seat(await xp_credit.credits(store, opolyx.engine, room, log, snap))
        assert (credits[1].xp, credits[1].refused) == (0, "not_played")
        assert credits[0].refused is None and credits[0].xp == credits[0].parts["total"] > 0


async def test_play_faster_than_a_person_is_paid_in_proportion(store: Store) -> None:
    """A script that waits just over the think-time floor still cannot play turns faster than the
    plausible pace: its XP shrinks with the time its turns took (here about a fifth of the floor)."""
    await users(store, "a", "b")
    log, snap = played(2, {})
    room = await started_room(store, "quick", ["a", "b"], public=True)
    await stored(store, "quick", log, elapsed_ms={0: 1000, 1: 30_000})
    credits = by_seat(await xp_credit.credits(store, opolyx.engine, room, log, snap))
    fast, slow = credits[0], credits[1]
    assert fast.refused is None and 0 < fast.xp < fast.parts["total"] // 2
    assert fast.parts["reduced_from"] == fast.parts["total"]
    assert slow.xp == slow.parts["total"]
