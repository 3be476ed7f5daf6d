"""The accounts store's guards from the attacker's side (issue 46): what a deleted account may no longer
receive, and sessions whose record says no although their token is well formed."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest

from opolyx.progression import Credit
from opolyx.server.play.seat_perks import seat_info
from opolyx.storage import NewRoom, SeatRecord, SqlStore, Store
from opolyx.storage.tables import users
from opolyx.storage.testing import TestDatabase

pytestmark = pytest.mark.anyio


@pytest.fixture
async def store(database: TestDatabase) -> AsyncIterator[SqlStore]:
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


async def _level(store: SqlStore, user_id: str, level: int) -> None:
    async with store.engine.begin() as conn:
        await conn.execute(users.update().where(users.c.id == user_id).values(level=level))


async def test_only_accounts_at_the_vip_level_bring_perks_to_a_seat(store: SqlStore) -> None:
    """A guest's level is easy to farm: VIP is for accounts (docs/rules.md §19), from level 10 exactly."""
    for u, level in (("acc10", 10), ("acc9", 9), ("guest10", 10)):
        await store.create_user(u, u, "en")
        await _level(store, u, level)
    await store.attach_email("acc10", "ten@example.org")
    await store.attach_email("acc9", "nine@example.org")
    seats = [
        SeatRecord(0, "acc10", None, "acc10"),
        SeatRecord(1, "acc9", None, "acc9"),
        SeatRecord(2, "guest10", None, "guest10"),
        SeatRecord(3, "acc10", "hard", "Bot"),  # a bot that took over a VIP's seat is no VIP
        SeatRecord(4, "gone", None, "gone"),  # no such account (deleted)
    ]
    info = await seat_info(store, "classic", seats)
    assert [s["vip"] for s in info] == [True, False, False, False, False]
    assert [s["bot"] for s in info] == [False, False, False, True, False]
    assert [s["team"] for s in info] == [None] * 5
    assert [s["name"] for s in info] == ["acc10", "acc9", "guest10", "Bot", "gone"]
    team = "".join(["te", "am"])  # a mode as a request's JSON gives it: equal to "team", not the same object
    teams = await seat_info(store, team, seats[:4])
    assert [s["team"] for s in teams] == [0, 1, 0, 1]


async def test_a_seat_brings_every_card_of_its_person_and_nobody_elses(store: SqlStore) -> None:
    for u in ("a", "b"):
        await store.create_user(u, u, "en")
    await _game(store, "g1", ["a", "b"])
    await store.finish_game("g1", None, [Credit(0, "a", 900, {"total": 900}, True, None)])
    cards = await store.cards_of("a")
    assert cards, "level 3 is a drop level"
    expected: dict[str, list[str]] = {}
    for c in cards:
        expected.setdefault(str(c.square), []).append(c.rarity)
    info = await seat_info(store, "classic", [SeatRecord(0, "a", None, "a"), SeatRecord(1, "b", None, "b")])
    assert info[0]["cards"] == expected and info[1]["cards"] == {}
    bot = await seat_info(store, "classic", [SeatRecord(0, "a", "easy", "Bot")])
    assert bot[0]["cards"] == {}
