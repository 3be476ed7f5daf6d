"""The accounts store's guards from the attacker's side (issue 46): what a deleted account may no longer
receive, and sessions whose record says no although their token is well formed."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest

from opolyx.progression import Credit
from opolyx.storage import NewRoom, SeatRecord, SqlStore, Store
from opolyx.storage.testing import TestDatabase

pytestmark = pytest.mark.anyio


@pytest.fixture
async def store(database: TestDatabase) -> AsyncIterator[Store]:
    s = await SqlStore.open(database.url, schema=database.schema)
    try:
        yield s
    finally:
        await s.close()


def _now() -> datetime:
    return datetime.now(UTC)


async def _game(store: Store, room_id: str, users: list[str]) -> None:
    await store.create_room(NewRoom(room_id, None, "classic", 6, True, users[0], "x"))
    for i, u in enumerate(users[1:], start=1):
        await store.take_seat(room_id, i, user_id=u, bot=None, name=u)
    seats = [SeatRecord(i, u, None, u) for i, u in enumerate(users)]
    await store.start_game(room_id, seed=1, seats=seats, seat_info=[{} for _ in users])


async def test_a_deleted_account_is_never_credited(store: Store) -> None:
    for u in ("a", "b"):
        await store.create_user(u, u.upper(), "en")
    await _game(store, "g1", ["a", "b"])
    await store.delete_account("a")
    credits = [Credit(0, "a", 325, {"total": 325}, True, None), Credit(1, "b", 60, {"total": 60}, False, None)]
    awards = await store.finish_game("g1", {"winner": 0}, credits)
    assert [(x.user_id, x.xp) for x in awards] == [("b", 60)]
    assert await store.get_user("a") is None, "no row came back to life"
    assert await store.next_drop_seed("a") is None
    rows, _ = await store.leaderboard("xp", since=None, limit=10, viewer=None)
    assert [r.user_id for r in rows] == ["b"]


async def test_a_session_past_its_expiry_or_of_a_deleted_account_is_refused(store: Store) -> None:
    await store.create_user("u", "U", "en")
    await store.create_session("s1", "u", "h1", user_agent=None, expires_at=_now() + timedelta(seconds=30))
    assert await store.session_by_token("h1", _now()) is not None
    assert await store.session_by_token("h1", _now() + timedelta(seconds=31)) is None
    assert await store.session_by_token("h1"[:1], _now()) is None, "a prefix of the hash is not the hash"
    await store.delete_account("u")
    assert await store.session_by_token("h1", _now()) is None
