"""Ratings in the store (SQLite and, when configured, PostgreSQL): a game books each rating once, with its
history; the leaderboard lists settled ratings of one mode and pool; deleted accounts drop off it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping

import pytest

from opolyx.storage import AGENTS, PEOPLE, Moved, NewRoom, RatingKey, RatingRecord, SqlStore, Store
from opolyx.storage.testing import TestDatabase

pytestmark = pytest.mark.anyio


@pytest.fixture
async def store(database: TestDatabase) -> AsyncIterator[Store]:
    s = await SqlStore.open(database.url, schema=database.schema)
    try:
        yield s
    finally:
        await s.close()


def plus(points: float) -> object:
    def decide(stored: Mapping[RatingKey, RatingRecord | None]) -> dict[RatingKey, Moved]:
        out = {}
        for key, old in stored.items():
            mu, sigma = (old.mu, old.sigma) if old else (25.0, 8.0)
            out[key] = Moved(mu, sigma, mu + points, sigma - 1.0)
        return out

    return decide


async def _game(store: Store, room_id: str, creator: str) -> None:
    await store.create_room(NewRoom(room_id, None, "classic", 2, True, creator, creator, rated=True))
    room = await store.get_room(room_id)
    assert room is not None and room.rated


async def test_a_game_books_each_rating_once_with_history(store: Store) -> None:
    for u in ("a", "b"):
        await store.create_user(u, u.upper(), "en")
    await _game(store, "g1", "a")
    keys = [RatingKey("a", "classic"), RatingKey("b", "classic", AGENTS)]
    booked = await store.book_ratings("g1", keys, plus(2.0))  # type: ignore[arg-type]
    assert {(r.user_id, r.pool, r.mu, r.games) for r in booked} == {("a", PEOPLE, 27.0, 1), ("b", AGENTS, 27.0, 1)}
    # The same game again (another process finishing it too): nothing moves.
    assert await store.book_ratings("g1", keys, plus(2.0)) == []  # type: ignore[arg-type]
    await store.finish_game("g1", None)
    await _game(store, "g2", "a")
    await store.book_ratings("g2", keys[:1], plus(1.0))  # type: ignore[arg-type]
    [mine] = await store.ratings_of("a")
    assert (mine.mu, mine.sigma, mine.games) == (28.0, 6.0, 2)
    history = await store.rating_history("a")
    assert [(p.game_id, p.mu_before, p.mu, p.games) for p in history] == [("g1", 25.0, 27.0, 1), ("g2", 27.0, 28.0, 2)]
    found = await store.ratings_for([RatingKey("b", "classic", AGENTS), RatingKey("b", "classic")])
    assert list(found) == [RatingKey("b", "classic", AGENTS)]


async def test_the_leaderboard_lists_settled_ratings_of_one_mode_and_pool(store: Store) -> None:
    for u in ("a", "b", "c"):
        await store.create_user(u, u.upper(), "en")
    for n in range(3):
        await _game(store, f"g{n}", "a")
        await store.book_ratings(f"g{n}", [RatingKey("a", "classic"), RatingKey("b", "classic")], plus(1.0))  # type: ignore[arg-type]
        await store.finish_game(f"g{n}", None)
    await _game(store, "h", "c")
    await store.book_ratings("h", [RatingKey("c", "classic", AGENTS)], plus(9.0))  # type: ignore[arg-type]
    rows, own = await store.rating_leaderboard("classic", PEOPLE, min_games=3, limit=1, viewer="b")
    assert [r.user_id for r in rows] == ["a"] or [r.user_id for r in rows] == ["b"]
    assert own is not None and own.user_id == "b"
    rows, _ = await store.rating_leaderboard("classic", PEOPLE, min_games=4, limit=10, viewer=None)
    assert rows == []  # provisional ratings stay off the board
    rows, _ = await store.rating_leaderboard("classic", AGENTS, min_games=1, limit=10, viewer=None)
    assert [r.user_id for r in rows] == ["c"]  # agents on a board of their own
    await store.delete_account("c")
    rows, _ = await store.rating_leaderboard("classic", AGENTS, min_games=1, limit=10, viewer=None)
    assert rows == []


async def test_a_guest_signing_in_brings_the_ratings_the_account_lacks(store: Store) -> None:
    from opolyx.progression import merged

    for u in ("guest", "acct"):
        await store.create_user(u, u.upper(), "en")
    for game, mode in (("g0", "classic"), ("g1", "blitz")):
        await _game(store, game, "guest")
        await store.book_ratings(game, [RatingKey("guest", mode)], plus(3.0))  # type: ignore[arg-type]
        await store.finish_game(game, None)
    await _game(store, "g2", "acct")
    await store.book_ratings("g2", [RatingKey("acct", "classic")], plus(1.0))  # type: ignore[arg-type]
    await store.finish_game("g2", None)
    await store.merge_user("guest", "acct", merged)
    mine = {(r.mode, r.mu) for r in await store.ratings_of("acct")}
    assert mine == {("classic", 26.0), ("blitz", 28.0)}  # the account's own classic rating stands
    assert [(p.game_id, p.mode) for p in await store.rating_history("acct")] == [("g1", "blitz"), ("g2", "classic")]
