"""The one contract every Store backend passes; run against SQLite and (when configured) PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import sqlalchemy as sa

from opolyx.storage import (
    CLOSED,
    FINISHED,
    RUNNING,
    WAITING,
    AlreadySeated,
    NewRoom,
    SeatRecord,
    SeatTaken,
    SeqConflict,
    SqlStore,
    Store,
)
from opolyx.storage.tables import metadata
from opolyx.storage.testing import TestDatabase

pytestmark = pytest.mark.anyio


@pytest.fixture
async def store(database: TestDatabase) -> AsyncIterator[Store]:
    s = await SqlStore.open(database.url, schema=database.schema)
    try:
        yield s
    finally:
        await s.close()


async def _room(store: Store, room_id: str, user: str, *, public: bool = True, code: str | None = None) -> None:
    await store.create_room(NewRoom(room_id, code, "classic", 4, public, user, user.upper()))


async def test_users_round_trip(store: Store) -> None:
    u = await store.create_user("u1", "Ann", "de")
    assert (await store.get_user("u1")) == u
    assert u.email is None
    assert await store.get_user("nobody") is None
    u2 = await store.update_user("u1", nickname="Anna", language="fr")
    assert (u2.nickname, u2.language) == ("Anna", "fr")


async def test_room_creation_seats_creator(store: Store) -> None:
    await store.create_user("a", "A", "en")
    await _room(store, "r1", "a", public=False, code="ABC234")
    room = await store.get_room("r1")
    assert room is not None
    assert room.status == WAITING and room.creator_id == "a" and not room.public
    assert [(s.seat, s.user_id) for s in room.seats] == [(0, "a")]
    assert (await store.get_room_by_code("ABC234")) == room
    assert await store.active_room_of("a") == "r1"


async def test_one_unfinished_game_per_person(store: Store) -> None:
    for u in ("a", "b"):
        await store.create_user(u, u, "en")
    await _room(store, "r1", "a")
    await _room(store, "r2", "b")
    with pytest.raises(AlreadySeated) as info:
        await _room(store, "r3", "a")
    assert info.value.room_id == "r1"
    assert await store.get_room("r3") is None
    with pytest.raises(AlreadySeated):
        await store.take_seat("r2", 1, user_id="a", bot=None, name="A")
    # Freed once out: eliminated people may sit elsewhere.
    await store.mark_out("r1", [0])
    assert await store.active_room_of("a") is None
    room = await store.take_seat("r2", 1, user_id="a", bot=None, name="A")
    assert room.seat_of("a") is not None


async def test_racing_joins_cannot_double_seat(store: Store) -> None:
    for u in ("a", "b", "c"):
        await store.create_user(u, u, "en")
    await _room(store, "r1", "a")
    await _room(store, "r2", "b")
    results = await asyncio.gather(
        store.take_seat("r1", 1, user_id="c", bot=None, name="C"),
        store.take_seat("r2", 1, user_id="c", bot=None, name="C"),
        return_exceptions=True,
    )
    assert sum(1 for r in results if isinstance(r, AlreadySeated)) == 1
    with pytest.raises(SeatTaken):
        await store.take_seat("r1", 1, user_id=None, bot="easy", name="Bot")


async def test_bots_and_freeing_seats(store: Store) -> None:
    await store.create_user("a", "A", "en")
    await _room(store, "r1", "a")
    room = await store.take_seat("r1", 2, user_id=None, bot="hard", name="Bot")
    assert [s.bot for s in room.seats] == [None, "hard"]
    room = await store.free_seat("r1", 2)
    assert len(room.seats) == 1
    await store.close_room("r1")
    room2 = await store.get_room("r1")
    assert room2 is not None and room2.status == CLOSED
    assert await store.active_room_of("a") is None


async def test_listing_filters_status_and_privacy(store: Store) -> None:
    for u in ("a", "b", "c"):
        await store.create_user(u, u, "en")
    await _room(store, "pub", "a")
    await _room(store, "priv", "b", public=False, code="QWERTY")
    await _room(store, "run", "c")
    await store.start_game("run", seed=1, seats=[SeatRecord(0, "c", None, "C")], seat_info=[{}])
    waiting = await store.list_rooms([WAITING])
    assert [r.id for r in waiting] == ["pub"]
    assert [r.id for r in await store.list_rooms([RUNNING])] == ["run"]
    assert {r.id for r in await store.list_rooms([WAITING], public_only=False)} == {"pub", "priv"}


async def test_action_log_is_ordered_and_conflicts(store: Store) -> None:
    await store.create_user("a", "A", "en")
    await _room(store, "g", "a")
    room = await store.start_game(
        "g",
        seed=2**62 - 1,
        seats=[SeatRecord(0, "a", None, "A"), SeatRecord(1, None, "easy", "Bot")],
        seat_info=[{"name": "A"}, {"name": "Bot", "bot": True}],
    )
    assert room.status == RUNNING and room.seed == 2**62 - 1
    assert [s.seat for s in room.seats] == [0, 1]
    await store.append_action("g", 1, 0, {"type": "roll"}, clocks={"running": {"c:turn:1": 70.0}})
    await store.append_action("g", 2, None, {"type": "timeout"})
    with pytest.raises(SeqConflict):
        await store.append_action("g", 2, 1, {"type": "buy"})
    log = await store.load_actions("g")
    assert [(r.seq, r.seat, r.action) for r in log] == [(1, 0, {"type": "roll"}), (2, None, {"type": "timeout"})]
    room2 = await store.get_room("g")
    assert room2 is not None and room2.clocks == {"running": {"c:turn:1": 70.0}}
    await store.save_clocks("g", {"running": {}})
    await store.finish_game("g", {"winner": 0})
    done = await store.get_room("g")
    assert done is not None and done.status == FINISHED and done.result == {"winner": 0}
    assert await store.active_room_of("a") is None


async def test_migrations_match_tables(store: Store) -> None:
    assert isinstance(store, SqlStore)

    def compare(conn: sa.Connection) -> list[str]:
        inspector = sa.inspect(conn)
        problems = []
        for table in metadata.sorted_tables:
            cols = {c["name"] for c in inspector.get_columns(table.name)}
            if cols != {c.name for c in table.columns}:
                problems.append(table.name)
        return problems

    async with store.engine.connect() as conn:
        assert await conn.run_sync(compare) == []


async def test_migrating_twice_is_harmless(store: Store, database: TestDatabase) -> None:
    again = await SqlStore.open(database.url, schema=database.schema)
    await again.ping()
    await again.close()
