"""XP at the end of a game (server/play/xp_credit.py) from the farmer's side (issue 46): which seats are
credited at all, which facts they are measured from, and whose earlier games count as meetings."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator

import pytest

import opolyx.engine
from opolyx.progression import SeatPlay
from opolyx.server.play import xp_credit
from opolyx.storage import SqlStore
from opolyx.storage.testing import TestDatabase
from played_games import by_seat, played, started_room, stored, users

pytestmark = pytest.mark.anyio


@pytest.fixture
async def store(database: TestDatabase) -> AsyncIterator[SqlStore]:
    s = await SqlStore.open(database.url, schema=database.schema)
    try:
        yield s
    finally:
        await s.close()


async def test_a_house_rules_game_pays_nobody_but_shows_what_it_would_have(store: SqlStore) -> None:
    await users(store, "a", "b")
    room = await started_room(store, "house", ["a", "b"])
    log, snap = played(2, {1: 12})
    await stored(store, "house", log)
    plain = by_seat(await xp_credit.credits(store, opolyx.engine, room, log, snap))
    assert plain[0].xp > 0 and plain[0].won
    house = dataclasses.replace(room, house_rules={"salary": 400})
    credits = by_seat(await xp_credit.credits(store, opolyx.engine, house, log, snap))
    assert {s: (c.xp, c.won, c.refused) for s, c in credits.items()} == {
        0: (0, False, xp_credit.HOUSE_RULES),
        1: (0, False, xp_credit.HOUSE_RULES),
    }
    assert credits[0].parts["total"] > 0, "what the game would have paid, for the player to see"


async def test_a_seat_a_bot_plays_earns_its_person_nothing(store: SqlStore) -> None:
    """A person whose seat a bot took over is not paid for the bot's game, even where the seat's
    record still names them."""
    await users(store, "a", "b")
    room = await started_room(store, "bot", ["a", "b"])
    log, snap = played(2, {})
    await stored(store, "bot", log)
    taken = dataclasses.replace(room, seats=(room.seats[0], dataclasses.replace(room.seats[1], bot="hard")))
    credits = await xp_credit.credits(store, opolyx.engine, taken, log, snap)
    assert [c.seat for c in credits] == [0]
    freed = dataclasses.replace(room.seats[1], user_id=None, bot="hard")
    credits = await xp_credit.credits(
        store, opolyx.engine, dataclasses.replace(room, seats=(room.seats[0], freed)), log, snap
    )
    assert [c.seat for c in credits] == [0] and credits[0].xp > 0


async def test_a_game_ending_in_round_ten_is_measured_and_paid(store: SqlStore) -> None:
    await users(store, "a", "b", "c", "d", "e", "f")
    room = await started_room(store, "ten", ["a", "b"])
    log, snap = played(2, {1: 10})
    assert snap["result"]["round"] == 10
    await stored(store, "ten", log)
    credits = by_seat(await xp_credit.credits(store, opolyx.engine, room, log, snap))
    assert credits[0].refused is None and credits[0].xp > 0 and credits[0].won
    short_log, short = played(2, {1: 9})
    assert short["result"]["round"] == 9
    room9 = await started_room(store, "nine", ["c", "d"])
    await stored(store, "nine", short_log)
    credits = by_seat(await xp_credit.credits(store, opolyx.engine, room9, short_log, short))
    assert {s: (c.xp, c.refused) for s, c in credits.items()} == {0: (0, "short_game"), 1: (0, "short_game")}
    # Refused before anything is measured: the stored log is not even replayed (here it could not be).
    unmeasured = await started_room(store, "nine-unreplayable", ["e", "f"])
    await store.append_action("nine-unreplayable", 1, 1, {"type": "build", "square": 99}, actor="person", elapsed_ms=1)
    again = by_seat(await xp_credit.credits(store, opolyx.engine, unmeasured, short_log, short))
    assert {s: (c.xp, c.refused, c.parts) for s, c in again.items()} == {
        s: (c.xp, c.refused, c.parts) for s, c in credits.items()
    }


async def test_a_game_with_no_person_credits_nobody(store: SqlStore) -> None:
    await users(store, "a", "b")
    room = await started_room(store, "bots", ["a", "b"])
    log, snap = played(2, {})
    await stored(store, "bots", log)
    bots = tuple(dataclasses.replace(s, user_id=None, bot="easy") for s in room.seats)
    assert await xp_credit.credits(store, opolyx.engine, dataclasses.replace(room, seats=bots), log, snap) == []


async def test_only_the_game_the_hub_finished_is_measured_never_more_of_the_stored_log(store: SqlStore) -> None:
    """What the store holds beyond the hub's log is not this game's play: the credit is the same as if the
    store held exactly the hub's log."""
    await users(store, "a", "b", "c", "d")
    log, snap = played(2, {})
    cut = log[: len(log) // 8]
    exact = await started_room(store, "exact", ["a", "b"])
    await stored(store, "exact", cut)
    ahead = await started_room(store, "ahead", ["c", "d"])
    await stored(store, "ahead", log)
    want = by_seat(await xp_credit.credits(store, opolyx.engine, exact, cut, snap))
    got = by_seat(await xp_credit.credits(store, opolyx.engine, ahead, cut, snap))
    assert {s: (c.xp, c.refused, c.parts) for s, c in got.items()} == {
        s: (c.xp, c.refused, c.parts) for s, c in want.items()
    }
    full = by_seat(await xp_credit.credits(store, opolyx.engine, ahead, log, snap))
    assert full[0].xp > 0 and full[0] != got[0], "the whole log pays more than its first eighth"


async def test_games_with_other_people_do_not_make_a_pair(store: SqlStore) -> None:
    """Meetings are counted between the people at this table: a regular who played many private games
    with others meets a newcomer for the first time."""
    await users(store, "a", "b", "c")
    for k in range(3):
        await started_room(store, f"old{k}", ["a", "c"], public=False)
        await store.finish_game(f"old{k}", None, [])
    room = await started_room(store, "new", ["a", "b"], public=False)
    log, snap = played(2, {1: 12})
    await stored(store, "new", log)
    credits = by_seat(await xp_credit.credits(store, opolyx.engine, room, log, snap))
    assert credits[0].refused is None and credits[0].xp > 0
    assert credits[1].refused is None and credits[1].xp > 0


async def test_a_seat_played_through_an_api_key_is_an_agents(store: SqlStore) -> None:
    await users(store, "a", "b")
    room = await started_room(store, "agent", ["a", "b"])
    log, snap = played(2, {})
    await stored(store, "agent", log, actor={1: "agent"})
    credits = by_seat(await xp_credit.credits(store, opolyx.engine, room, log, snap))
    assert not credits[0].agent and credits[1].agent
    flagged = dataclasses.replace(room, seats=(dataclasses.replace(room.seats[0], agent=True), room.seats[1]))
    credits = by_seat(await xp_credit.credits(store, opolyx.engine, flagged, log, snap))
    assert credits[0].agent, "a seat taken through a key is an agent's however it was played"


def test_a_seat_is_an_agents_only_when_the_key_made_most_of_its_decisions() -> None:
    mostly = xp_credit._mostly_agent
    assert mostly(SeatPlay(0, decisions=4, agent_decisions=5))
    assert not mostly(SeatPlay(0, decisions=5, agent_decisions=5))
    assert not mostly(SeatPlay(0, decisions=6, agent_decisions=5))
    assert not mostly(None)


async def test_without_a_time_scale_the_pace_floors_are_the_real_ones(store: SqlStore) -> None:
    """Only tests and benchmarks scale the clock: a server left at its default pays a quick script at the
    real floors, no more and no less."""
    await users(store, "a", "b")
    room = await started_room(store, "quick", ["a", "b"])
    log, snap = played(2, {})
    await stored(store, "quick", log, elapsed_ms={0: 2_000, 1: 2_000})
    default = by_seat(await xp_credit.credits(store, opolyx.engine, room, log, snap))
    real = by_seat(await xp_credit.credits(store, opolyx.engine, room, log, snap, time_scale=1.0))
    half = by_seat(await xp_credit.credits(store, opolyx.engine, room, log, snap, time_scale=0.5))
    assert [c.xp for c in default.values()] == [c.xp for c in real.values()]
    assert 0 < default[0].xp < half[0].xp, "at 2 s a decision the floors cut the XP; halved floors cut less"
