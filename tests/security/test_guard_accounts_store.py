"""The accounts store's scoping from the attacker's side (issue 46): every write names one person's rows,
and a request about one account (a merge, a deletion, a profile change, a sign-out, a link) must leave
every other account's rows exactly as they were. Each test sets up a bystander next to the target."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable
from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa

from opolyx.progression import Credit, merged
from opolyx.storage import ChatRecord, NewRoom, SeatRecord, SqlStore, accounts_sql
from opolyx.storage.accounts import LINK_EXPIRED, LINK_UNKNOWN, LINK_USED
from opolyx.storage.accounts_sql import DELETED_NAME, DELETED_TEXT, SEEN_RESOLUTION
from opolyx.storage.tables import magic_links, users, xp_awards, xp_merges
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


async def _people(store: SqlStore, *ids: str) -> None:
    for u in ids:
        await store.create_user(u, u, "en")


async def _game(store: SqlStore, room_id: str, people: list[str], *, names: list[str] | None = None) -> None:
    """A running game with these people in seats 0..n-1 (the first one created the room)."""
    await store.create_room(NewRoom(room_id, None, "classic", 6, True, people[0], people[0]))
    for i, u in enumerate(people[1:], start=1):
        await store.take_seat(room_id, i, user_id=u, bot=None, name=u)
    seats = [SeatRecord(i, u, None, u) for i, u in enumerate(people)]
    info: list[object] = [{"name": n} for n in (names or people)]
    await store.start_game(room_id, seed=1, seats=seats, seat_info=info)  # type: ignore[arg-type]


def _credit(seat: int, user: str, xp: int, *, won: bool = False, refused: str | None = None) -> Credit:
    return Credit(seat, user, xp, {"total": xp}, won, refused)


async def _set(store: SqlStore, user_id: str, **values: object) -> None:
    async with store.engine.begin() as conn:
        await conn.execute(users.update().where(users.c.id == user_id).values(**values))


def _chat(user: str, text: str, seat: int = 0) -> ChatRecord:
    return ChatRecord(user, seat, False, text, 1.0, user)


# --- sessions ------------------------------------------------------------------------------------------


async def test_a_request_refreshes_only_its_own_sessions_last_seen_and_not_too_often(store: SqlStore) -> None:
    await _people(store, "u")
    later = _now() + timedelta(days=1)
    await store.create_session("s1", "u", "h1", user_agent="A", expires_at=later)
    await store.create_session("s2", "u", "h2", user_agent="B", expires_at=later)
    seen = {s.id: s.last_seen_at for s in await store.list_sessions("u", _now())}
    just_inside = seen["s1"] + SEEN_RESOLUTION
    record = await store.session_by_token("h1", just_inside)
    assert record is not None and record.id == "s1" and record.user_id == "u"
    after = {s.id: s.last_seen_at for s in await store.list_sessions("u", _now())}
    assert after == seen, "not written again within the resolution"
    past = seen["s1"] + SEEN_RESOLUTION + timedelta(seconds=1)
    assert await store.session_by_token("h1", past) is not None
    after = {s.id: s.last_seen_at for s in await store.list_sessions("u", _now())}
    assert after["s1"] == past, "the session that made the request is refreshed"
    assert after["s2"] == seen["s2"], "a session that made no request is not"


async def test_last_use_is_refreshed_at_most_every_five_minutes(store: SqlStore) -> None:
    """docs/accounts.md: a session's last use is refreshed at most every 5 minutes."""
    await _people(store, "u")
    await store.create_session("s", "u", "h", user_agent=None, expires_at=_now() + timedelta(days=1))
    (session,) = await store.list_sessions("u", _now())
    seen = session.last_seen_at
    await store.session_by_token("h", seen + timedelta(minutes=5))
    assert [s.last_seen_at for s in await store.list_sessions("u", _now())] == [seen]
    await store.session_by_token("h", seen + timedelta(minutes=5, seconds=1))
    assert [s.last_seen_at for s in await store.list_sessions("u", _now())] == [seen + timedelta(minutes=5, seconds=1)]


async def test_a_session_is_listed_until_its_expiry_and_newest_first(store: SqlStore) -> None:
    await _people(store, "u", "v")
    now = _now()
    await store.create_session("s1", "u", "h1", user_agent="x" * 300, expires_at=now + timedelta(hours=1))
    await store.create_session("s2", "u", "h2", user_agent="", expires_at=now + timedelta(hours=2))
    await store.create_session("sv", "v", "hv", user_agent=None, expires_at=now + timedelta(hours=2))
    await store.session_by_token("h2", now + timedelta(minutes=30))  # refreshes s2's last_seen_at
    listed = await store.list_sessions("u", now + timedelta(minutes=30))
    assert [s.id for s in listed] == ["s2", "s1"], "most recently seen first, nobody else's"
    assert [s.user_agent for s in listed] == [None, "x" * 200], "cut to 200 characters; empty is none"
    assert [s.id for s in await store.list_sessions("u", now + timedelta(hours=1))] == ["s2"]
    assert await store.session_by_token("h1", now + timedelta(hours=1)) is None, "expired at its expiry"


async def test_signing_out_another_persons_session_by_its_id_revokes_nothing(store: SqlStore) -> None:
    await _people(store, "attacker", "victim")
    later = _now() + timedelta(days=1)
    await store.create_session("mine", "attacker", "ha", user_agent=None, expires_at=later)
    await store.create_session("theirs", "victim", "hv", user_agent=None, expires_at=later)
    await store.create_session("theirs2", "victim", "hv2", user_agent=None, expires_at=later)
    assert await store.revoke_sessions("attacker", only="theirs") == 0
    assert await store.revoke_sessions("attacker", keep="mine") == 0
    assert await store.session_by_token("hv", _now()) is not None
    assert await store.session_by_token("ha", _now()) is not None
    assert await store.revoke_sessions("attacker") == 1
    assert await store.session_by_token("ha", _now()) is None
    assert await store.session_by_token("hv", _now()) is not None and await store.session_by_token("hv2", _now())
    assert await store.revoke_sessions("attacker") == 0, "a revoked session is not revoked twice"
    assert await store.revoke_sessions("victim", keep="theirs") == 1
    assert await store.session_by_token("hv", _now()) is not None
    assert await store.session_by_token("hv2", _now()) is None


async def test_signing_out_one_session_ends_that_one_only(store: SqlStore) -> None:
    await _people(store, "u")
    later = _now() + timedelta(days=1)
    for n in (1, 2, 3):
        await store.create_session(f"s{n}", "u", f"h{n}", user_agent=None, expires_at=later)
    assert await store.revoke_sessions("u", only="s2") == 1
    assert [await store.session_by_token(f"h{n}", _now()) is not None for n in (1, 2, 3)] == [True, False, True]
    for n in (4, 5):
        await store.create_session(f"s{n}", "u", f"h{n}", user_agent=None, expires_at=later)
    assert await store.revoke_sessions("u", keep="s4") == 3, "those before and after the kept one"
    assert [await store.session_by_token(f"h{n}", _now()) is not None for n in range(1, 6)] == [
        False,
        False,
        False,
        True,
        False,
    ]


async def test_signing_out_counts_no_session_that_expired_at_that_moment(
    store: SqlStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "Signed out N other devices" counts live sessions only: one whose expiry is now is already gone."""
    await _people(store, "u")
    moment = _now()
    monkeypatch.setattr(accounts_sql, "_now", lambda: moment)
    await store.create_session("ending", "u", "h1", user_agent=None, expires_at=moment)
    await store.create_session("live", "u", "h2", user_agent=None, expires_at=moment + timedelta(microseconds=1))
    assert await store.revoke_sessions("u") == 1
    assert await store.revoke_sessions("u") == 0


# --- magic links ---------------------------------------------------------------------------------------


async def test_opening_one_link_leaves_every_other_link_usable(store: SqlStore) -> None:
    expires = _now() + timedelta(minutes=15)
    await store.create_magic_link("h1", "a@example.org", guest_id="g", expires_at=expires)
    await store.create_magic_link("h2", "b@example.org", guest_id=None, expires_at=expires)
    used = await store.consume_magic_link("h1", _now())
    assert not isinstance(used, str) and (used.email, used.guest_id) == ("a@example.org", "g")
    peeked = await store.peek_magic_link("h2", _now())
    assert peeked is not None and (peeked.email, peeked.guest_id) == ("b@example.org", None)
    other = await store.consume_magic_link("h2", _now())
    assert not isinstance(other, str) and other.email == "b@example.org"
    assert await store.peek_magic_link("h1", _now()) is None
    assert await store.peek_magic_link("nope", _now()) is None


async def test_a_link_stops_working_at_its_expiry_exactly(store: SqlStore) -> None:
    expires = _now() + timedelta(minutes=15)
    await store.create_magic_link("h", "a@example.org", guest_id=None, expires_at=expires)
    assert await store.peek_magic_link("h", expires) is None
    assert await store.consume_magic_link("h", expires) == LINK_EXPIRED
    before = expires - timedelta(seconds=1)
    assert await store.peek_magic_link("h", before) is not None
    assert not isinstance(await store.consume_magic_link("h", before), str)
    assert await store.consume_magic_link("h", before) == LINK_USED
    assert await store.consume_magic_link("never-made", before) == LINK_UNKNOWN


# --- addresses and profiles ----------------------------------------------------------------------------


async def test_an_address_names_only_the_account_it_was_attached_to(store: SqlStore) -> None:
    await _people(store, "a", "b")
    assert await store.user_by_email("a@example.org") is None
    await store.attach_email("a", "a@example.org")
    assert await store.user_by_email("a@example.org") == "a"
    a, b = await store.get_user("a"), await store.get_user("b")
    assert a is not None and a.email == "a@example.org"
    assert b is not None and b.email is None, "the bystander keeps no address"


async def test_changing_ones_profile_changes_nobody_elses(store: SqlStore) -> None:
    await _people(store, "a", "b")
    await store.update_profile("a", nickname="Annie", avatar="dragon", language="de")
    a, b = await store.get_user("a"), await store.get_user("b")
    assert a is not None and (a.nickname, a.avatar, a.language) == ("Annie", "dragon", "de")
    assert b is not None and (b.nickname, b.avatar, b.language) == ("b", None, "en")
    await store.update_profile("a", nickname=None, avatar=None, language="fr")
    a = await store.get_user("a")
    assert a is not None and (a.nickname, a.avatar, a.language) == ("Annie", "dragon", "fr"), "omitted fields stay"
    await store.update_profile("a", nickname=None, avatar="cat", language=None)
    await store.update_profile("a", nickname="Ann", avatar=None, language=None)
    await store.update_profile("a", nickname=None, avatar=None, language=None)
    a = await store.get_user("a")
    assert a is not None and (a.nickname, a.avatar, a.language) == ("Ann", "cat", "fr")


# --- merging a guest -----------------------------------------------------------------------------------


async def test_a_merge_moves_only_the_guests_rows(store: SqlStore) -> None:
    await _people(store, "guest", "acct", "other")
    await store.attach_email("acct", "a@example.org")
    await _game(store, "g1", ["guest", "other"])
    await store.finish_game("g1", None, [])
    await _game(store, "g2", ["other", "acct"])
    await store.add_chat("g1", _chat("guest", "hi from the guest"))
    await store.add_chat("g1", _chat("other", "hi from other", seat=1))
    later = _now() + timedelta(days=1)
    await store.create_session("gs", "guest", "gh", user_agent=None, expires_at=later)
    await store.create_session("as", "acct", "ah", user_agent=None, expires_at=later)
    await store.create_session("os", "other", "oh", user_agent=None, expires_at=later)
    await store.merge_user("guest", "acct", merged)
    g1, g2 = await store.get_room("g1"), await store.get_room("g2")
    assert g1 is not None and [s.user_id for s in g1.seats] == ["acct", "other"]
    assert g1.creator_id == "acct", "the guest's room is the account's now"
    assert g2 is not None and [s.user_id for s in g2.seats] == ["other", "acct"]
    assert g2.creator_id == "other", "a bystander's room keeps its creator"
    chat = await store.recent_chat("g1", 10)
    assert [(c.user_id, c.text) for c in chat] == [("acct", "hi from the guest"), ("other", "hi from other")]
    assert await store.session_by_token("gh", _now()) is None, "the guest's sessions end"
    assert await store.session_by_token("ah", _now()) is not None, "the account's do not"
    assert await store.session_by_token("oh", _now()) is not None, "nor a bystander's"
    assert await store.active_room_of("other") == "g2"


async def test_merged_xp_counts_against_the_accounts_daily_cap_by_what_it_added(store: SqlStore) -> None:
    """An account that already had XP absorbs a guest: only the XP the merge added counts today."""
    await _people(store, "guest", "acct", "other")
    await store.attach_email("acct", "a@example.org")
    await _set(store, "acct", xp=1000, level=5)  # earned on earlier days
    await _set(store, "guest", xp=300)
    await store.merge_user("guest", "acct", merged)
    acct = await store.get_user("acct")
    assert acct is not None and acct.xp == 1300
    guest = await store.get_user("guest")
    assert guest is None, "the emptied guest row is gone"
    async with store.engine.connect() as conn:
        row = (await conn.execute(users.select().where(users.c.id == "guest"))).one()
    assert (row.xp, row.level, row.wins) == (0, 1, 0), "the XP moved to the account, it was not copied"
    await _game(store, "g", ["acct", "other"])
    (award,) = await store.finish_game("g", None, [_credit(0, "acct", 1500)])
    assert award.xp == 1500 - 300, "the cap has 1200 XP left after a 300-XP merge"


async def test_a_guest_cannot_be_merged_into_itself_or_a_missing_account(store: SqlStore) -> None:
    await _people(store, "guest", "zed")  # zed sorts after every name below: never taken for a missing one
    await _set(store, "guest", xp=300, level=3, wins=2)
    await _set(store, "zed", xp=200, level=3, wins=1)
    await store.merge_user("guest", "guest", merged)
    await store.merge_user("guest", "nobody", merged)
    await store.merge_user("nobody", "guest", merged)
    guest, zed = await store.get_user("guest"), await store.get_user("zed")
    assert guest is not None and (guest.xp, guest.level, guest.wins) == (300, 3, 2)
    assert zed is not None and (zed.xp, zed.level, zed.wins) == (200, 3, 1)


# --- deleting an account -------------------------------------------------------------------------------


async def test_deleting_an_account_touches_its_rooms_and_only_its_own_data(store: SqlStore) -> None:
    await _people(store, "a", "b", "c")
    await store.attach_email("a", "a@example.org")
    await store.attach_email("b", "b@example.org")
    await _game(store, "sat", ["a", "b"], names=["Alice", "Bob"])
    await store.finish_game("sat", None, [])
    await _game(store, "spoke", ["c", "b"], names=["Cee", "Bob"])
    await store.finish_game("spoke", None, [])
    await store.add_chat("spoke", ChatRecord("Alice", None, True, "a spectator's line", 1.0, "a"))
    await store.add_chat("sat", _chat("a", "a's line at a's own table"))  # sat and spoke: still one room
    await store.add_chat("spoke", _chat("c", "c's line"))
    await _game(store, "apart", ["b", "c"], names=["Bob", "Cee"])  # a never came here
    await store.add_seat_marks("apart", 0, ["user:b"])
    await store.add_seat_marks("spoke", 0, ["user:c"])  # a room sorting after "sat", seat 0 not a's
    await store.add_chat("apart", _chat("b", "b's line"))  # others speaking does not make it a's room
    later = _now() + timedelta(days=1)
    for u in ("a", "b"):
        await store.create_session(f"s{u}", u, f"h{u}", user_agent=None, expires_at=later)
        await store.create_api_key(f"k{u}", u, "bot", f"kh{u}")
        await store.create_magic_link(f"link-{u}", f"{u}@example.org", guest_id=None, expires_at=later)
        await store.create_magic_link(f"guest-{u}", "new@example.org", guest_id=u, expires_at=later)
    await store.finish_game("apart", None, [_credit(0, "b", 325)])
    assert await store.cards_of("b")

    touched = await store.delete_account("a")

    assert touched == ["sat", "spoke"], "where a sat or spoke: the rooms whose names must be refreshed"
    sat, spoke, apart = [await store.get_room(r) for r in ("sat", "spoke", "apart")]
    assert sat is not None and sat.seat_info == [{"name": DELETED_NAME}, {"name": "Bob"}]
    assert [s.name for s in sat.seats] == [DELETED_NAME, "b"]
    assert spoke is not None and spoke.seat_info == [{"name": "Cee"}, {"name": "Bob"}]
    assert apart is not None and apart.seat_info == [{"name": "Bob"}, {"name": "Cee"}]
    assert await store.seat_marks_of("apart") == {0: {"user:b"}}
    assert await store.seat_marks_of("spoke") == {0: {"user:c"}}
    chat = await store.recent_chat("spoke", 10)
    assert [(c.name, c.text) for c in chat] == [(DELETED_NAME, DELETED_TEXT), ("c", "c's line")]
    assert [(c.name, c.text) for c in await store.recent_chat("apart", 10)] == [("b", "b's line")]
    # The bystander keeps everything.
    assert await store.session_by_token("hb", _now()) is not None
    assert [k.id for k in await store.list_api_keys("b")] == ["kb"]
    assert await store.cards_of("b")
    assert await store.peek_magic_link("link-b", _now()) is not None
    assert await store.peek_magic_link("guest-b", _now()) is not None
    assert await store.user_by_email("b@example.org") == "b"
    b = await store.get_user("b")
    assert b is not None and (b.nickname, b.xp) == ("b", 325)
    # The deleted account keeps nothing.
    assert await store.session_by_token("ha", _now()) is None
    assert await store.list_api_keys("a") == []
    assert await store.peek_magic_link("link-a", _now()) is None, "a link to its address"
    assert await store.peek_magic_link("guest-a", _now()) is None, "a link that would move it"
    assert await store.user_by_email("a@example.org") is None
    async with store.engine.connect() as conn:
        row = (await conn.execute(users.select().where(users.c.id == "a"))).one()
    assert (row.nickname, row.email, row.email_verified_at, row.avatar) == (DELETED_NAME, None, None, None)
    assert (row.xp, row.level, row.wins, row.drop_seed) == (0, 1, 0, None)


async def test_deleting_renames_a_seat_a_bot_took_over_and_frees_the_seat_record(store: SqlStore) -> None:
    await _people(store, "a", "b")
    await _game(store, "g", ["a", "b"], names=["Alice", "Bob"])
    await store.replace_with_bot("g", 0, bot="easy", name="Bot", at_seq=3)
    assert await store.delete_account("a") == ["g"]
    room = await store.get_room("g")
    assert room is not None and room.seat_info == [{"name": DELETED_NAME}, {"name": "Bob"}]
    async with store.engine.connect() as conn:
        rows = (await conn.execute(sa.text("SELECT replaced_user_id FROM room_seats"))).scalars().all()
    assert "a" not in rows


async def test_deleting_an_account_with_no_games_touches_no_room(store: SqlStore) -> None:
    await _people(store, "a", "b")
    await _game(store, "g", ["b"], names=["Bob"])
    assert await store.delete_account("a") == []
    room = await store.get_room("g")
    assert room is not None and room.seat_info == [{"name": "Bob"}]


# --- progression ---------------------------------------------------------------------------------------


async def test_the_daily_cap_counts_todays_person_xp_only(store: SqlStore) -> None:
    """Yesterday's games and an agent's seats do not use up a person's cap for today."""
    await _people(store, "a", "b")
    for n in range(2):
        await _game(store, f"old{n}", ["a", "b"])
        await store.finish_game(f"old{n}", None, [_credit(0, "a", 700)])
    async with store.engine.begin() as conn:  # both games were yesterday
        await conn.execute(xp_awards.update().values(created_at=Credit.cap_since(_now()) - timedelta(seconds=1)))
    await _game(store, "agent", ["a", "b"])
    await store.finish_game("agent", None, [Credit(0, "a", 125, {"total": 125}, True, None, agent=True)])
    await _game(store, "today", ["a", "b"])
    (award,) = await store.finish_game("today", None, [_credit(0, "a", 1600)])
    assert (award.xp, award.parts["capped_from"]) == (1500, 1600), "the whole cap, not a point more or less"
    await _game(store, "more", ["a", "b"])
    (award,) = await store.finish_game("more", None, [_credit(0, "a", 10)])
    assert (award.xp, award.refused) == (0, "daily_cap")


async def test_xp_booked_or_merged_at_midnight_counts_against_that_days_cap(store: SqlStore) -> None:
    await _people(store, "a", "b", "guest")
    await _game(store, "g1", ["a", "b"])
    await store.finish_game("g1", None, [_credit(0, "a", 500)])
    await _set(store, "guest", xp=300)
    await store.merge_user("guest", "a", merged)
    midnight = Credit.cap_since(_now())
    async with store.engine.begin() as conn:
        await conn.execute(xp_awards.update().values(created_at=midnight))
        await conn.execute(xp_merges.update().values(created_at=midnight))
    await _game(store, "g2", ["a", "b"])
    (award,) = await store.finish_game("g2", None, [_credit(0, "a", 1000)])
    assert award.xp == 1500 - 500 - 300


async def test_a_deleted_or_unknown_account_has_no_drop_seed_and_a_seed_is_kept(store: SqlStore) -> None:
    await _people(store, "a", "b")
    seed_a, seed_b = await store.next_drop_seed("a"), await store.next_drop_seed("b")
    assert seed_a is not None and seed_b is not None and seed_a != seed_b
    async with store.engine.connect() as conn:
        stored = dict((await conn.execute(sa.select(users.c.id, users.c.drop_seed))).all())
    assert stored == {"a": seed_a, "b": seed_b}, "each account's seed is written to its own row"
    await store.delete_account("a")
    assert await store.next_drop_seed("a") is None
    assert await store.next_drop_seed("b") == seed_b


async def test_a_seed_a_card_revealed_is_replaced_once_and_then_kept(store: SqlStore) -> None:
    """Whoever saw a card knows its seed: the next drops must come from a new secret seed, and the
    commitment shown for it must hold until it is spent (a seed redrawn at every look commits to nothing)."""
    await _people(store, "a", "b")
    await _game(store, "g1", ["a", "b"])
    (award,) = await store.finish_game("g1", None, [_credit(0, "a", 325)])
    shown = award.drops[0].seed
    await _set(store, "a", drop_seed=shown)  # as the server stored it before seeds were spent
    fresh = await store.next_drop_seed("a")
    assert fresh not in (shown, None)
    assert await store.next_drop_seed("a") == fresh
    async with store.engine.connect() as conn:
        stored = (await conn.execute(sa.select(users.c.drop_seed).where(users.c.id == "a"))).scalar()
    assert stored == fresh


async def test_fresh_drop_seeds_are_62_random_bits(store: SqlStore) -> None:
    """docs/accounts.md: a 62-bit seed, drawn afresh for an account without one and after every drop."""
    people = [f"p{n}" for n in range(40)]
    await _people(store, "rival", *people)
    seeds = []
    for u in people:
        await _set(store, u, drop_seed=None)
        seeds.append(await store.next_drop_seed(u))
    for n, u in enumerate(people[:24]):
        await _game(store, f"g{n}", [u, "rival"])
        (award,) = await store.finish_game(f"g{n}", None, [_credit(0, u, 325)])
        assert len(award.drops) == 1
        seeds.append(await store.next_drop_seed(u))
    assert all(isinstance(x, int) and 0 <= x < 2**62 for x in seeds)
    assert max(seeds[:40]) >= 2**61 and max(seeds[40:]) >= 2**61, "all 62 bits drawn (fails once in 2**24 runs)"
    assert len(set(seeds)) == len(seeds)


async def test_finishing_books_each_seat_to_its_own_account_in_seat_order(store: SqlStore) -> None:
    await _people(store, "a", "b", "c")
    await _game(store, "z-earlier", ["c", "b"])  # sorts after "g"
    (earlier,) = await store.finish_game("z-earlier", None, [_credit(0, "c", 325)])
    await _game(store, "g", ["a", "b", "c"])
    credits = [_credit(2, "c", 40), _credit(0, "a", 325, won=True), _credit(1, "b", 0, refused="pair_farming")]
    awards = await store.finish_game("g", {"winner": 0}, credits)
    assert [(x.seat, x.user_id, x.xp, x.refused, x.won) for x in awards] == [
        (0, "a", 325, None, True),
        (1, "b", 0, "pair_farming", False),
        (2, "c", 40, None, False),
    ]
    assert [(x.level_before, x.level_after) for x in awards] == [(1, 3), (1, 1), (3, 3)]
    stored = await store.awards_of_game("g")
    assert [(x.seat, x.user_id, x.xp, x.won, x.level_after) for x in stored] == [
        (0, "a", 325, True, 3),
        (1, "b", 0, False, 1),
        (2, "c", 40, False, 3),
    ]
    assert [len(x.drops) for x in stored] == [1, 0, 0], "a's card is a's, and c's card of another game is not g's"
    assert stored[0].drops == awards[0].drops
    assert [c.game_id for c in earlier.drops] == ["z-earlier"]
    assert [c.level for c in (await store.awards_of_game("z-earlier"))[0].drops] == [3]
    for u, xp, level, wins in (("a", 325, 3, 1), ("b", 0, 1, 0), ("c", 365, 3, 0)):
        user = await store.get_user(u)
        assert user is not None and (user.xp, user.level, user.wins) == (xp, level, wins)
    assert await store.awards_of_game("other") == []


async def test_recent_games_are_ones_own_finished_games_newest_first(store: SqlStore) -> None:
    await _people(store, "a", "b", "c")
    for n in range(3):
        await _game(store, f"g{n}", ["b", "a"])
        result = {"placements": [{"seat": 0, "place": 2}, {"seat": 1, "place": 1}]}
        await store.finish_game(f"g{n}", result, [_credit(1, "a", 10 * (n + 1)), _credit(0, "b", 5)])
    await _game(store, "theirs", ["c", "b"])
    await store.finish_game("theirs", None, [])
    await _game(store, "running", ["a", "b"])
    games = await store.recent_games("a")
    assert [g.game_id for g in games] == ["g2", "g1", "g0"]
    assert [(g.seat, g.place, g.xp) for g in games] == [(1, 1, 30), (1, 1, 20), (1, 1, 10)]
    assert all(g.players == ("b", "a") and g.mode == "classic" and g.finished_at is not None for g in games)
    assert [g.game_id for g in await store.recent_games("a", limit=2)] == ["g2", "g1"]
    assert await store.recent_games("nobody") == []


async def test_the_profile_lists_the_last_twenty_games_and_unpaid_ones_at_zero_xp(store: SqlStore) -> None:
    await _people(store, "a", "b")
    for n in range(21):
        await _game(store, f"g{n:02}", ["a", "b"])
        await store.finish_game(f"g{n:02}", None, [_credit(1, "b", 7)])
    games = await store.recent_games("a")
    assert [g.game_id for g in games] == [f"g{n:02}" for n in range(20, 0, -1)]
    assert {(g.xp, g.place) for g in games} == {(0, None)}, "no award, no placement: nothing made up"
    assert {g.xp for g in await store.recent_games("b")} == {7}


async def test_meetings_count_only_finished_games_since_the_window(store: SqlStore) -> None:
    await _people(store, "a", "b", "c", "d")
    since = _now() - timedelta(days=1)
    for n in range(2):
        await _game(store, f"ab{n}", ["a", "b"])
        await store.finish_game(f"ab{n}", None, [])
    await _game(store, "ac", ["a", "c"])
    await store.finish_game("ac", None, [])
    await _game(store, "cd", ["c", "d"])
    await store.finish_game("cd", None, [])
    await _game(store, "running", ["a", "d"])
    assert await store.meetings("a", ["b", "c"], since) == 2, "the most met of the others"
    assert await store.meetings("a", ["c"], since) == 1
    assert await store.meetings("a", ["d"], since) == 0, "an unfinished game is no meeting"
    assert await store.meetings("a", [], since) == 0
    assert await store.meetings("b", ["c"], since) == 0
    room = await store.get_room("ac")
    assert room is not None and room.finished_at is not None
    assert await store.meetings("a", ["c"], room.finished_at) == 1, "a game finished at the window's start counts"


# --- leaderboard ---------------------------------------------------------------------------------------


async def test_the_leaderboard_ranks_live_accounts_with_something_to_show(store: SqlStore) -> None:
    await _people(store, "a", "b", "c", "d", "gone")
    for u, xp, wins in (("a", 300, 1), ("b", 300, 0), ("c", 100, 2), ("gone", 900, 5)):
        await _set(store, u, xp=xp, wins=wins)
    await store.delete_account("gone")
    rows, own = await store.leaderboard("xp", since=None, limit=10, viewer="d")
    assert [(r.position, r.user_id, r.value) for r in rows] == [(1, "a", 300), (2, "b", 300), (3, "c", 100)]
    assert own is None, "nothing to show: not ranked"
    rows, own = await store.leaderboard("wins", since=None, limit=1, viewer="a")
    assert [(r.user_id, r.value) for r in rows] == [("c", 2)]
    assert own is not None and (own.position, own.user_id, own.value) == (2, "a", 1)
    rows, own = await store.leaderboard("xp", since=None, limit=1, viewer="c")
    assert own is not None and (own.position, own.value, own.nickname) == (3, 100, "c"), "two ahead, tied or not"
    rows, own = await store.leaderboard("xp", since=None, limit=1, viewer="a")
    assert own is not None and own.position == 1 and own == rows[0]
    # b is tied with a: shown second in the list, and first by value when outside it.
    rows, own = await store.leaderboard("xp", since=None, limit=10, viewer="b")
    assert own is not None and (own.position, own.user_id, own.value) == (2, "b", 300) and own == rows[1]
    rows, own = await store.leaderboard("xp", since=None, limit=1, viewer="b")
    assert [r.user_id for r in rows] == ["a"]
    assert own is not None and (own.position, own.user_id, own.value, own.level) == (1, "b", 300, 1)


async def test_the_weeks_board_counts_paid_wins_and_xp_since_the_week_began(store: SqlStore) -> None:
    await _people(store, "a", "b", "c")
    await _game(store, "g1", ["a", "b"])
    await store.finish_game("g1", None, [_credit(0, "a", 200, won=True), _credit(1, "b", 50)])
    await _game(store, "g2", ["b", "c"])
    await store.finish_game("g2", None, [_credit(0, "b", 0, won=True, refused="pair_farming"), _credit(1, "c", 80)])
    await _game(store, "g3", ["a", "c"])
    await store.finish_game("g3", None, [_credit(0, "a", 0), _credit(1, "c", 0)])  # a lost: no win taken away
    since = _now() - timedelta(days=1)
    wins, own = await store.leaderboard("wins", since=since, limit=10, viewer="b")
    assert [(r.user_id, r.value) for r in wins] == [("a", 1)], "a refused win is no win"
    assert own is None
    xp, own = await store.leaderboard("xp", since=since, limit=10, viewer="b")
    assert [(r.user_id, r.value) for r in xp] == [("a", 200), ("c", 80), ("b", 50)]
    assert own is not None and own.position == 3
    xp, own = await store.leaderboard("xp", since=since, limit=1, viewer="b")
    assert [r.user_id for r in xp] == ["a"] and own is not None and (own.position, own.value) == (3, 50)
    async with store.engine.begin() as conn:
        await conn.execute(xp_awards.update().where(xp_awards.c.user_id == "a").values(created_at=since))
    xp, _ = await store.leaderboard("xp", since=since, limit=10, viewer=None)
    assert [r.user_id for r in xp] == ["a", "c", "b"], "an award at the week's start counts"
    xp, _ = await store.leaderboard("xp", since=since + timedelta(seconds=1), limit=10, viewer=None)
    assert [r.user_id for r in xp] == ["c", "b"]


async def test_magic_links_of_an_address_are_removed_with_its_account_only(store: SqlStore) -> None:
    """No address, no address links removed: a guest without an address deletes only its own links."""
    await _people(store, "guest")
    later = _now() + timedelta(days=1)
    await store.create_magic_link("someone", "x@example.org", guest_id=None, expires_at=later)
    await store.delete_account("guest")
    async with store.engine.connect() as conn:
        left = (await conn.execute(sa.select(magic_links.c.token_hash))).scalars().all()
    assert left == ["someone"]


# --- the account row's lock (PostgreSQL) ---------------------------------------------------------------


async def _while_locked(store: SqlStore, user_id: str, task: Awaitable[object], **write: object) -> object:
    """Run ``task`` while another transaction holds the account's row and changes it (a second worker
    booking a game, say); the other transaction commits once ``task`` has had the time to reach the row."""
    async with store.engine.begin() as conn:
        await conn.execute(users.select().where(users.c.id == user_id).with_for_update())
        running = asyncio.ensure_future(task)
        await asyncio.sleep(0.5)
        await conn.execute(users.update().where(users.c.id == user_id).values(**write))
    return await running


async def test_concurrent_bookings_and_merges_wait_for_the_account_row(store: SqlStore, database: TestDatabase) -> None:
    """Two workers writing one account at once: each reads the account's standing only once the other
    has committed, so neither overwrites the other's XP nor its drop seed (SQLite has one writer anyway)."""
    if database.kind != "postgresql":
        pytest.skip("SQLite lets one transaction write at a time: no row locks to test")
    await _people(store, "a", "b", "guest")
    await _game(store, "g", ["a", "b"])
    await _while_locked(store, "a", store.finish_game("g", None, [_credit(0, "a", 100)]), xp=1000)
    a = await store.get_user("a")
    assert a is not None and a.xp == 1100, "the booking added to the other worker's XP"
    await _set(store, "guest", xp=200)
    await _while_locked(store, "a", store.merge_user("guest", "a", merged), xp=1300)
    a = await store.get_user("a")
    assert a is not None and a.xp == 1500, "the merge added to the other worker's XP"
    seed = await _while_locked(store, "b", store.next_drop_seed("b"), drop_seed=12345)
    assert seed == 12345, "the profile commits to the seed the other worker stored"


async def test_a_deleted_account_leaves_the_weeks_board_and_nobody_behind_it(store: SqlStore) -> None:
    """Its awards stay with the games, but the deleted account neither shows on this week's board nor
    pushes the living down."""
    await _people(store, "gone", "a", "b")
    await _game(store, "g1", ["gone", "a"])
    await store.finish_game("g1", None, [_credit(0, "gone", 900, won=True), _credit(1, "a", 50)])
    await _game(store, "g2", ["b", "a"])
    await store.finish_game("g2", None, [_credit(0, "b", 100, won=True)])
    await store.delete_account("gone")
    since = _now() - timedelta(days=1)
    for by, want in (("xp", [("b", 100), ("a", 50)]), ("wins", [("b", 1)])):
        rows, _ = await store.leaderboard(by, since=since, limit=10, viewer=None)  # type: ignore[arg-type]
        assert [(r.position, r.user_id, r.value) for r in rows] == [(i, u, v) for i, (u, v) in enumerate(want, 1)]
    _, own = await store.leaderboard("xp", since=since, limit=1, viewer="a")
    assert own is not None and (own.position, own.value) == (2, 50)


async def test_every_write_names_its_account_exactly_whichever_way_the_others_ids_sort(store: SqlStore) -> None:
    """The scoping checks again with bystanders on both sides of the target's id ("a" before "m", "z"
    after): a condition that only compared ids (before or after) instead of matching one would catch one
    of them."""
    later = _now() + timedelta(days=1)
    await _people(store, "a", "z", "m")
    for u in ("a", "z", "m"):
        await store.attach_email(u, f"{u}@example.org")
        await store.create_session(f"s-{u}", u, f"h-{u}", user_agent=None, expires_at=later)
        await store.create_magic_link(f"l-{u}", f"new-{u}@example.org", guest_id=u, expires_at=later)
        await store.create_magic_link(f"addr-{u}", f"{u}@example.org", guest_id=None, expires_at=later)
        await store.create_api_key(f"k-{u}", u, "bot", f"kh-{u}")
    # The bystanders' own game: cards for both, a's seat later played by a bot, a's chat.
    await _game(store, "theirs", ["a", "z"])
    await store.replace_with_bot("theirs", 0, bot="easy", name="Bot", at_seq=1)
    await store.add_chat("theirs", _chat("a", "a's line"))
    await store.finish_game("theirs", None, [_credit(0, "a", 325), _credit(1, "z", 325)])
    cards = {u: await store.cards_of(u) for u in ("a", "z")}
    assert all(len(c) == 1 for c in cards.values())
    for u in ("a", "z", "m"):
        await _set(store, u, drop_seed=None)
    assert [await store.user_by_email(f"{u}@example.org") for u in ("a", "m", "z")] == ["a", "m", "z"]
    assert await store.user_by_email("b@example.org") is None, "an address nobody attached names nobody"
    # Sessions.
    assert [s.id for s in await store.list_sessions("m", _now())] == ["s-m"]
    assert await store.revoke_sessions("m", keep="s-a") == 1
    assert await store.revoke_sessions("m", only="s-z") == 0
    assert [await store.session_by_token(f"h-{u}", _now()) is not None for u in ("a", "m", "z")] == [True, False, True]
    # Links.
    assert not isinstance(await store.consume_magic_link("l-m", _now()), str)
    assert [await store.peek_magic_link(f"l-{u}", _now()) is not None for u in ("a", "m", "z")] == [True, False, True]
    # Profile and seed.
    await store.update_profile("m", nickname="Em", avatar="cat", language="de")
    assert [(x.nickname, x.avatar, x.language) for x in [await store.get_user(u) for u in "amz"] if x] == [
        ("a", None, "en"),
        ("Em", "cat", "de"),
        ("z", None, "en"),
    ]
    seed = await store.next_drop_seed("m")
    async with store.engine.connect() as conn:
        stored = dict((await conn.execute(sa.select(users.c.id, users.c.drop_seed))).all())
    assert {u: stored[u] for u in ("a", "m", "z")} == {"a": None, "m": seed, "z": None}
    # Merges: a guest sorting before the account, then one after it, each beside bystanders "b" and "y".
    await _people(store, "b", "y", "a-guest", "z-guest")
    for guest, bystander in (("a-guest", "y"), ("z-guest", "b")):
        await _game(store, f"{guest}-game", [guest, bystander])
        await store.finish_game(f"{guest}-game", None, [_credit(0, guest, 50)])
        await store.add_chat(f"{guest}-game", _chat(bystander, "hello", seat=1))
        await store.create_session(f"s-{guest}", guest, f"h-{guest}", user_agent=None, expires_at=later)
        await store.merge_user(guest, "m", merged)
        room = await store.get_room(f"{guest}-game")
        assert room is not None and [s.user_id for s in room.seats] == ["m", bystander] and room.creator_id == "m"
        assert [c.user_id for c in await store.recent_chat(f"{guest}-game", 5)] == [bystander]
        assert await store.get_user(guest) is None and await store.session_by_token(f"h-{guest}", _now()) is None
    assert [await store.session_by_token(f"h-{u}", _now()) is not None for u in ("a", "z")] == [True, True]
    m = await store.get_user("m")
    assert m is not None and m.xp == 100, "both guests' XP arrived"
    # Deletion.
    assert await store.delete_account("m") == ["a-guest-game", "z-guest-game"]
    assert await store.get_user("m") is None
    for u in ("a", "z"):
        user = await store.get_user(u)
        assert user is not None and (user.nickname, user.email) == (u, f"{u}@example.org")
        assert await store.session_by_token(f"h-{u}", _now()) is not None
        assert await store.peek_magic_link(f"l-{u}", _now()) is not None
        assert await store.peek_magic_link(f"addr-{u}", _now()) is not None
        assert [k.id for k in await store.list_api_keys(u)] == [f"k-{u}"]
        assert await store.cards_of(u) == cards[u]
    assert await store.list_api_keys("m") == [] and await store.peek_magic_link("addr-m", _now()) is None
    assert [(c.name, c.text) for c in await store.recent_chat("theirs", 5)] == [("a", "a's line")]
    async with store.engine.connect() as conn:
        replaced = (
            await conn.execute(sa.text("SELECT replaced_user_id FROM room_seats WHERE room_id = 'theirs'"))
        ).all()
    assert sorted(str(r[0]) for r in replaced) == ["None", "a"], "the bot still stands in for a"
    for guest, bystander in (("a-guest", "y"), ("z-guest", "b")):
        room = await store.get_room(f"{guest}-game")
        assert room is not None and [s.name for s in room.seats] == [DELETED_NAME, bystander]
        assert room.seat_info == [{"name": DELETED_NAME}, {"name": bystander}]
        assert [(c.name, c.text) for c in await store.recent_chat(f"{guest}-game", 5)] == [(bystander, "hello")]
