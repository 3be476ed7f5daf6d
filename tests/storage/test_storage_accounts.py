"""The accounts half of the store on SQLite and PostgreSQL: sessions, links, credits, merge, deletion,
leaderboard."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest

from opolyx.progression import Booking, Credit, ProgressionRules, Standing, draw_card, level_for, merged
from opolyx.storage import FINISHED, NewRoom, SeatRecord, SqlStore, Store
from opolyx.storage.accounts import LINK_EXPIRED, LINK_UNKNOWN, LINK_USED
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


async def _game(store: Store, room_id: str, users: list[str], *, public: bool = True) -> None:
    """A running game with these people in seats 0..n-1."""
    await store.create_room(NewRoom(room_id, None if public else room_id[:16], "classic", 6, public, users[0], "x"))
    for i, u in enumerate(users[1:], start=1):
        await store.take_seat(room_id, i, user_id=u, bot=None, name=u)
    seats = [SeatRecord(i, u, None, u) for i, u in enumerate(users)]
    await store.start_game(room_id, seed=1, seats=seats, seat_info=[{} for _ in users])


def _credit(seat: int, user: str, xp: int, *, won: bool = False, refused: str | None = None) -> Credit:
    return Credit(seat, user, xp, {"total": xp}, won, refused)


async def test_revoked_and_expired_sessions_stop_working(store: Store) -> None:
    await store.create_user("u", "U", "en")
    later = _now() + timedelta(days=1)
    await store.create_session("s1", "u", "h1", user_agent="A", expires_at=later)
    await store.create_session("s2", "u", "h2", user_agent="B", expires_at=later)
    await store.create_session("s3", "u", "h3", user_agent="C", expires_at=_now() - timedelta(seconds=1))
    assert (await store.session_by_token("h1", _now())) is not None
    assert await store.session_by_token("h3", _now()) is None
    assert {s.id for s in await store.list_sessions("u", _now())} == {"s1", "s2"}
    assert await store.revoke_sessions("u", keep="s1") == 1
    assert await store.session_by_token("h2", _now()) is None
    assert await store.revoke_sessions("u", only="s1") == 1
    assert await store.session_by_token("h1", _now()) is None
    assert await store.list_sessions("u", _now()) == []


async def test_a_magic_link_works_once_and_not_after_it_expires(store: Store) -> None:
    await store.create_magic_link("h", "a@example.org", guest_id=None, expires_at=_now() + timedelta(minutes=15))
    await store.create_magic_link("old", "a@example.org", guest_id=None, expires_at=_now() - timedelta(seconds=1))
    assert (await store.peek_magic_link("h", _now())) is not None
    used = await store.consume_magic_link("h", _now())
    assert not isinstance(used, str) and used.email == "a@example.org"
    assert await store.consume_magic_link("h", _now()) == LINK_USED
    assert await store.consume_magic_link("old", _now()) == LINK_EXPIRED
    assert await store.consume_magic_link("forged", _now()) == LINK_UNKNOWN
    assert await store.peek_magic_link("h", _now()) is None


async def test_finishing_credits_xp_levels_and_drops_in_one_go(store: Store) -> None:
    for u in ("a", "b"):
        await store.create_user(u, u.upper(), "en")
    await _game(store, "g1", ["a", "b"])
    awards = await store.finish_game("g1", {"winner": 0}, [_credit(0, "a", 325, won=True), _credit(1, "b", 60)])
    a = next(x for x in awards if x.user_id == "a")
    assert (a.xp, a.level_before, a.level_after) == (325, 1, 3)
    # Level 3 is a drop level: the card is the one its stored seed draws.
    assert [c.level for c in a.drops] == [3]
    card = a.drops[0]
    again = draw_card(card.seed, 3)
    assert (card.square, card.rarity) == (again.square, again.rarity)
    user = await store.get_user("a")
    assert user is not None and (user.xp, user.level, user.wins) == (325, 3, 1)
    assert [c.id for c in await store.cards_of("a")] == [card.id]
    room = await store.get_room("g1")
    assert room is not None and room.status == FINISHED
    # The game over frame can be rebuilt after a restart, and finishing twice credits nothing.
    assert [x.xp for x in await store.awards_of_game("g1")] == [325, 60]
    assert await store.finish_game("g1", {"winner": 0}, [_credit(0, "a", 325, won=True)]) == []
    user = await store.get_user("a")
    assert user is not None and user.xp == 325


class _Crash(Exception):
    pass


class _CrashingCredit(Credit):
    """A credit whose booking dies half-way through the seats, as a killed process would."""

    def book(self, standing: Standing, rules: ProgressionRules | None = None) -> Booking:
        raise _Crash


async def test_a_crash_while_booking_credits_nothing_and_finishing_again_credits_each_seat_once(
    store: Store,
) -> None:
    for u in ("a", "b"):
        await store.create_user(u, u.upper(), "en")
    await _game(store, "g1", ["a", "b"])
    dying = [_credit(0, "a", 325, won=True), _CrashingCredit(1, "b", 60, {"total": 60}, False)]
    with pytest.raises(_Crash):
        await store.finish_game("g1", {"winner": 0}, dying)
    room = await store.get_room("g1")
    assert room is not None and room.status != FINISHED, "the result and the first seat's XP rolled back together"
    assert await store.awards_of_game("g1") == [] and await store.cards_of("a") == []
    user = await store.get_user("a")
    assert user is not None and (user.xp, user.level, user.wins) == (0, 1, 0)
    awards = await store.finish_game("g1", {"winner": 0}, [_credit(0, "a", 325, won=True), _credit(1, "b", 60)])
    assert [(x.seat, x.xp) for x in awards] == [(0, 325), (1, 60)]
    assert await store.finish_game("g1", {"winner": 0}, [_credit(0, "a", 325, won=True), _credit(1, "b", 60)]) == []
    for u, xp in (("a", 325), ("b", 60)):
        user = await store.get_user(u)
        assert user is not None and user.xp == xp
    assert len(await store.cards_of("a")) == 1


async def test_refused_credits_are_recorded_with_their_reason_and_pay_nothing(store: Store) -> None:
    for u in ("a", "b"):
        await store.create_user(u, u.upper(), "en")
    await _game(store, "g1", ["a", "b"])
    awards = await store.finish_game("g1", None, [_credit(0, "a", 0, won=True, refused="pair_farming")])
    assert (awards[0].xp, awards[0].refused) == (0, "pair_farming")
    user = await store.get_user("a")
    assert user is not None and (user.xp, user.wins) == (0, 0)


async def test_the_daily_cap_cuts_then_stops_xp(store: Store) -> None:
    for u in ("a", "b"):
        await store.create_user(u, u.upper(), "en")
    cap = 1500
    got = []
    for n in range(12):
        await _game(store, f"g{n}", ["a", "b"])
        awards = await store.finish_game(f"g{n}", None, [_credit(0, "a", 155)])
        got.append(awards[0])
    assert sum(a.xp for a in got) == cap
    assert got[9].xp == 1500 - 9 * 155 and got[9].parts["capped_from"] == 155
    assert (got[10].xp, got[10].refused) == (0, "daily_cap")
    user = await store.get_user("a")
    assert user is not None and user.xp == cap and user.level == level_for(cap)


async def test_a_guest_merged_into_an_account_brings_games_xp_and_cards(store: Store) -> None:
    for u in ("guest", "acct", "other"):
        await store.create_user(u, u, "en")
    await store.attach_email("acct", "a@example.org")
    await _game(store, "g1", ["guest", "other"])
    await store.finish_game("g1", None, [_credit(0, "guest", 320, won=True)])
    await _game(store, "g2", ["acct", "other"])
    await store.finish_game("g2", None, [_credit(0, "acct", 200)])
    await store.create_session("gs", "guest", "gh", user_agent=None, expires_at=_now() + timedelta(days=1))
    await store.merge_user("guest", "acct", merged)
    acct = await store.get_user("acct")
    assert acct is not None and (acct.xp, acct.wins, acct.level) == (520, 1, 3)
    assert {g.game_id for g in await store.recent_games("acct")} == {"g1", "g2"}
    # The account reached level 3 and drew its own card; the guest's level-3 card is not added to it
    # (cards follow the resulting level: docs/accounts.md, "Merging a guest").
    assert sorted(c.level for c in await store.cards_of("acct")) == [3]
    assert await store.get_user("guest") is None
    assert await store.session_by_token("gh", _now()) is None
    assert await store.user_by_email("a@example.org") == "acct"


async def test_merges_keep_the_daily_cap_and_the_drop_schedule(store: Store) -> None:
    """The issue's farmer: capped guests merged into one account. An account at 0 XP absorbing a
    1,500-XP guest ends at level 6 with the schedule's two cards; later merges that day add nothing."""
    await store.create_user("acct", "acct", "en")
    await store.create_user("other", "other", "en")
    await store.attach_email("acct", "farmer@example.org")
    for n in range(3):
        guest = f"guest{n}"
        await store.create_user(guest, guest, "en")
        for k in range(10):
            await _game(store, f"g{n}-{k}", [guest, "other"])
            await store.finish_game(f"g{n}-{k}", None, [_credit(0, guest, 155)])
        assert (await store.get_user(guest)).xp == 1500  # type: ignore[union-attr]
        await store.merge_user(guest, "acct", merged)
        acct = await store.get_user("acct")
        assert acct is not None and (acct.xp, acct.level) == (1500, 6)
        assert sorted(c.level for c in await store.cards_of("acct")) == [3, 5]
    # The merged XP counts against the account's own games today too.
    await _game(store, "after", ["acct", "other"])
    (award,) = await store.finish_game("after", None, [_credit(0, "acct", 125)])
    assert (award.xp, award.refused) == (0, "daily_cap")


async def test_deleting_an_account_removes_personal_data(store: Store) -> None:
    for u in ("a", "b"):
        await store.create_user(u, "Alice" if u == "a" else "Bob", "en")
    await store.attach_email("a", "alice@example.org")
    await store.create_session("s", "a", "h", user_agent=None, expires_at=_now() + timedelta(days=1))
    await _game(store, "g1", ["a", "b"])
    await store.finish_game("g1", None, [_credit(0, "a", 320)])
    await store.add_seat_marks("g1", 0, ["user:a", "addr:hashed"])
    await store.add_seat_marks("g1", 1, ["user:b"])
    await store.delete_account("a")
    assert await store.seat_marks_of("g1") == {1: {"user:b"}}, "the identities seen acting for a's seat go too"
    assert await store.get_user("a") is None
    assert await store.user_by_email("alice@example.org") is None
    assert await store.session_by_token("h", _now()) is None
    assert await store.cards_of("a") == []
    room = await store.get_room("g1")
    assert room is not None and "Alice" not in [s.name for s in room.seats]
    rows, _ = await store.leaderboard("xp", since=None, limit=10, viewer=None)
    assert "a" not in [r.user_id for r in rows]


async def test_leaderboard_all_time_and_this_week_with_own_position(store: Store) -> None:
    users = [f"u{i}" for i in range(5)]
    for u in users:
        await store.create_user(u, u, "en")
    for i, u in enumerate(users):
        await _game(store, f"g{i}", [u, "u0" if u != "u0" else "u1"])
        await store.finish_game(f"g{i}", None, [_credit(0, u, 100 * (i + 1), won=i % 2 == 0)])
    rows, own = await store.leaderboard("xp", since=None, limit=2, viewer="u1")
    assert [(r.position, r.user_id, r.value) for r in rows] == [(1, "u4", 500), (2, "u3", 400)]
    assert own is not None and (own.position, own.value) == (4, 200)
    week, _ = await store.leaderboard("wins", since=_now() - timedelta(days=1), limit=10, viewer=None)
    assert {r.user_id for r in week} == {"u0", "u2", "u4"}
    nothing, _ = await store.leaderboard("xp", since=_now() + timedelta(days=1), limit=10, viewer="u1")
    assert nothing == []


async def test_agents_are_ranked_on_their_own_board_never_among_people(store: Store) -> None:
    for u in ("ann", "bot_owner"):
        await store.create_user(u, u, "en")
    await _game(store, "g", ["ann", "bot_owner"])
    agent_credit = Credit(1, "bot_owner", 125, {"total": 125}, True, None, agent=True)
    await store.finish_game("g", None, [_credit(0, "ann", 85), agent_credit])
    owner = await store.get_user("bot_owner")
    assert owner is not None and (owner.xp, owner.level, owner.wins) == (0, 1, 0), "no person's XP for an agent"
    for since in (None, _now() - timedelta(days=1)):
        people, _ = await store.leaderboard("xp", since=since, limit=10, viewer=None)
        assert [(r.user_id, r.value) for r in people] == [("ann", 85)]
        agents, _ = await store.leaderboard("xp", since=since, limit=10, viewer=None, board="agents")
        assert [(r.user_id, r.value) for r in agents] == [("bot_owner", 125)]
    wins, _ = await store.leaderboard("wins", since=None, limit=10, viewer=None, board="agents")
    assert [(r.user_id, r.value) for r in wins] == [("bot_owner", 1)]


async def test_meetings_count_finished_games_of_a_pair_public_or_private(store: Store) -> None:
    for u in ("a", "b", "c"):
        await store.create_user(u, u, "en")
    since = _now() - timedelta(days=7)
    for n in range(2):
        await _game(store, f"p{n}", ["a", "b"], public=False)
        await store.finish_game(f"p{n}", None, [])
    await _game(store, "pub", ["a", "b"], public=True)
    await store.finish_game("pub", None, [])
    assert await store.meetings("a", ["b"], since) == 3, "a public room no longer escapes the pair rule"
    assert await store.meetings("a", ["c"], since) == 0
    assert await store.meetings("a", ["b"], _now() + timedelta(seconds=5)) == 0


async def test_a_drop_spends_its_seed_and_the_next_drops_get_a_fresh_secret_one(store: Store) -> None:
    """Commit now, reveal at the drop: the seed a drop reveals is never drawn from again."""
    for u in ("a", "b"):
        await store.create_user(u, u.upper(), "en")
    first = await store.next_drop_seed("a")
    assert first is not None and await store.next_drop_seed("a") == first, "stable until a drop"
    assert await store.next_drop_seed("nobody") is None
    await _game(store, "g1", ["a", "b"])
    awards = await store.finish_game("g1", None, [_credit(0, "a", 325)])
    assert [c.seed for c in awards[0].drops] == [first]
    second = await store.next_drop_seed("a")
    assert second is not None and second != first
    await _game(store, "g2", ["a", "b"])
    await store.finish_game("g2", None, [_credit(0, "a", 10)])  # no drop: the seed stays
    assert await store.next_drop_seed("a") == second


async def test_an_account_whose_seed_a_card_revealed_gets_a_fresh_one(store: Store) -> None:
    """Accounts from before seeds were spent: their cards all showed the one seed of every later drop."""
    import sqlalchemy as sa

    from opolyx.storage.tables import users

    for u in ("a", "b"):
        await store.create_user(u, u.upper(), "en")
    await _game(store, "g1", ["a", "b"])
    (award,) = await store.finish_game("g1", None, [_credit(0, "a", 325)])
    shown = award.drops[0].seed
    assert isinstance(store, SqlStore)
    async with store.engine.begin() as conn:  # as the old server stored it: the revealed seed kept
        await conn.execute(sa.update(users).where(users.c.id == "a").values(drop_seed=shown))
    assert await store.next_drop_seed("a") not in (shown, None)
    async with store.engine.begin() as conn:
        await conn.execute(sa.update(users).where(users.c.id == "a").values(drop_seed=shown))
    await _game(store, "g2", ["a", "b"])
    (award,) = await store.finish_game("g2", None, [_credit(0, "a", 1000 - 325)])
    assert [c.level for c in award.drops] == [5] and award.drops[0].seed != shown
