"""The one contract every Store backend passes; run against SQLite and (when configured) PostgreSQL."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator

import pytest
import sqlalchemy as sa

from opolyx.storage import (
    CLOSED,
    FINISHED,
    RUNNING,
    WAITING,
    AlreadySeated,
    ChatRecord,
    NewRoom,
    NotFound,
    SeatRecord,
    SeatTaken,
    SeqConflict,
    SqlStore,
    Store,
)
from opolyx.storage.tables import metadata
from opolyx.storage.testing import TestDatabase, pg_exec

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
    await store.append_action(
        "g", 1, 0, {"type": "roll"}, clocks={"running": {"c:turn:1": 70.0}}, actor="person", elapsed_ms=4200
    )
    await store.append_action("g", 2, None, {"type": "timeout"}, actor="clock", elapsed_ms=70_000)
    with pytest.raises(SeqConflict):
        await store.append_action("g", 2, 1, {"type": "buy"})
    log = await store.load_actions("g")
    assert [(r.seq, r.seat, r.action) for r in log] == [(1, 0, {"type": "roll"}), (2, None, {"type": "timeout"})]
    # The server's measurement of each action comes back with it (XP pays for turns people played).
    assert [(r.actor, r.elapsed_ms) for r in log] == [("person", 4200), ("clock", 70_000)]
    await store.add_seat_marks("g", 0, ["user:a", "addr:1"])
    await store.add_seat_marks("g", 0, ["addr:1", "device:2"])
    assert await store.seat_marks_of("g") == {0: {"user:a", "addr:1", "device:2"}}
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


async def _running(store: Store, room_id: str, user: str) -> None:
    await store.create_user(user, user.upper(), "en")
    await _room(store, room_id, user)
    await store.start_game(
        room_id,
        seed=7,
        seats=[SeatRecord(0, user, None, user.upper()), SeatRecord(1, None, "easy", "Bot 1 (easy)")],
        seat_info=[{"name": user.upper()}, {"name": "Bot 1 (easy)", "bot": True}],
    )


async def test_group_commit_keeps_concurrent_appends_in_order(store: Store) -> None:
    games = ["g1", "g2", "g3"]
    for i, g in enumerate(games):
        await _running(store, g, f"u{i}")
    # All appends are in flight together (one hub per game appends in its own order): they end up in
    # shared transactions, yet every game's log is complete, gap-free and in order.
    calls = [
        store.append_action(g, seq, seq % 2, {"type": "roll", "n": seq, "g": g}) for seq in range(1, 41) for g in games
    ]
    await asyncio.gather(*calls)
    for g in games:
        log = await store.load_actions(g)
        assert [r.seq for r in log] == list(range(1, 41))
        assert [r.action for r in log] == [{"type": "roll", "n": seq, "g": g} for seq in range(1, 41)]
        assert [r.seat for r in log] == [seq % 2 for seq in range(1, 41)]


async def test_group_commit_refuses_only_the_duplicate(store: Store) -> None:
    for i, g in enumerate(["g1", "g2"]):
        await _running(store, g, f"u{i}")
    for seq in range(1, 6):
        await store.append_action("g1", seq, 0, {"type": "roll", "n": seq})
    # One batch: new actions of both games and a second writer of g1's action 3.
    results = await asyncio.gather(
        store.append_action("g1", 6, 0, {"type": "roll", "n": 6}),
        store.append_action("g2", 1, 1, {"type": "buy"}),
        store.append_action("g1", 3, 1, {"type": "forked"}),
        store.append_action("g1", 7, 0, {"type": "roll", "n": 7}),
        store.append_action("g2", 2, None, {"type": "timeout"}),
        store.append_action("g2", 2, 0, {"type": "forked"}),
        return_exceptions=True,
    )
    refused = [i for i, r in enumerate(results) if r is not None]
    assert refused == [2, 5] and all(isinstance(results[i], SeqConflict) for i in refused)
    g1 = await store.load_actions("g1")
    assert [(r.seq, r.action) for r in g1] == [(n, {"type": "roll", "n": n}) for n in range(1, 8)]
    g2 = await store.load_actions("g2")
    assert [(r.seq, r.seat, r.action) for r in g2] == [(1, 1, {"type": "buy"}), (2, None, {"type": "timeout"})]
    # The store goes on accepting after a refusal.
    await store.append_action("g1", 8, 0, {"type": "roll", "n": 8})
    assert [r.seq for r in await store.load_actions("g1")][-1] == 8


async def test_chat_shares_the_action_batches_and_survives_a_refused_action(store: Store) -> None:
    await _running(store, "g1", "u0")
    await store.append_action("g1", 1, 0, {"type": "roll"})
    # Chat and actions in flight together, one action a duplicate: every message is stored, in order,
    # and only the duplicate is refused.
    results = await asyncio.gather(
        store.add_chat("g1", ChatRecord("A", 0, False, "one", 1.0, "u0")),
        store.append_action("g1", 2, 0, {"type": "buy"}),
        store.add_chat("g1", ChatRecord("A", 0, False, "two", 2.0, "u0")),
        store.append_action("g1", 1, 1, {"type": "forked"}),
        store.add_chat("g1", ChatRecord("Eve", None, True, "three", 3.0)),
        return_exceptions=True,
    )
    assert [type(r).__name__ for r in results] == ["NoneType", "NoneType", "NoneType", "SeqConflict", "NoneType"]
    assert [m.text for m in await store.recent_chat("g1", 10)] == ["one", "two", "three"]
    assert [r.action["type"] for r in await store.load_actions("g1")] == ["roll", "buy"]


async def test_a_connection_the_database_dropped_fails_at_most_one_call(store: Store, database: TestDatabase) -> None:
    if database.kind != "postgresql":
        pytest.skip("SQLite has no server to drop connections")
    assert isinstance(store, SqlStore)
    await store.create_user("a", "A", "en")
    async with store.engine.connect() as conn:
        pid = (await conn.execute(sa.text("SELECT pg_backend_pid()"))).scalar()
    await pg_exec(database.url, f"SELECT pg_terminate_backend({int(pid)})")  # e.g. a database restart
    failures = 0
    for _ in range(3):
        try:
            await store.get_user("a")
        except Exception:
            failures += 1
    assert failures <= 1
    assert (await store.get_user("a")) is not None


async def test_a_dropped_batch_connection_fails_at_most_one_batch(store: Store, database: TestDatabase) -> None:
    """PostgreSQL writes actions on a connection of their own (pg_batches.py): a restart of the database
    under it costs at most the batch in flight, and the next batch opens another connection."""
    if database.kind != "postgresql":
        pytest.skip("SQLite has no server to drop connections")
    await _running(store, "g1", "u0")
    await store.append_action("g1", 1, 0, {"type": "roll"}, clocks={"running": {"c:0": 1.0}})
    assert isinstance(store, SqlStore) and store._pg_batches is not None
    writer = store._pg_batches
    pid = writer._driver.get_server_pid()
    await pg_exec(database.url, f"SELECT pg_terminate_backend({int(pid)})")
    failures = 0
    for seq in range(2, 5):
        try:
            await store.append_action("g1", seq, 0, {"type": "roll", "n": seq})
        except Exception:
            failures += 1
            await store.append_action("g1", seq, 0, {"type": "roll", "n": seq})  # the client tries again
    assert failures <= 1
    assert writer._driver.get_server_pid() != pid  # written on a new connection
    assert [r.seq for r in await store.load_actions("g1")] == [1, 2, 3, 4]
    assert (await store.get_room("g1")).clocks == {"running": {"c:0": 1.0}}  # type: ignore[union-attr]


async def test_save_clocks_many_writes_all_and_only_those(store: Store) -> None:
    games = ["g1", "g2", "g3"]
    for i, g in enumerate(games):
        await _running(store, g, f"u{i}")
    await store.save_clocks("g3", {"running": {"c:3": 9.0}})
    await store.save_clocks_many({})
    await asyncio.gather(
        store.save_clocks_many({"g1": {"running": {"c:1": 1.5}}, "g2": {"running": {"c:2": 2.5}, "paused": {}}}),
        store.append_action("g1", 1, 0, {"type": "roll"}),
    )
    clocks = {g: (await store.get_room(g)).clocks for g in games}  # type: ignore[union-attr]
    assert clocks == {
        "g1": {"running": {"c:1": 1.5}},
        "g2": {"running": {"c:2": 2.5}, "paused": {}},
        "g3": {"running": {"c:3": 9.0}},
    }
    # A later checkpoint replaces what the earlier one wrote.
    await store.save_clocks_many({"g1": {"running": {}}, "g3": {"running": {"c:3": 4.0}}})
    assert (await store.get_room("g1")).clocks == {"running": {}}  # type: ignore[union-attr]
    assert (await store.get_room("g3")).clocks == {"running": {"c:3": 4.0}}  # type: ignore[union-attr]
    assert [r.seq for r in await store.load_actions("g1")] == [1]


async def test_a_bot_takes_over_a_seat_and_frees_the_person(store: Store) -> None:
    await store.create_user("a", "A", "en")
    await store.create_user("b", "B", "en")
    room = await store.create_room(NewRoom("r", None, "blitz", 2, True, "a", "A", bots_replace_leavers=True))
    assert room.bots_replace_leavers
    await store.take_seat("r", 1, user_id="b", bot=None, name="B")
    await store.start_game(
        "r", seed=1, seats=[SeatRecord(0, "a", None, "A"), SeatRecord(1, "b", None, "B")],
        seat_info=[{"name": "A"}, {"name": "B"}],
    )
    assert await store.active_room_of("b") == "r"
    after = await store.replace_with_bot("r", 1, bot="normal", name="Bot 1 (normal)", at_seq=12)
    assert after.seats[1] == SeatRecord(1, None, "normal", "Bot 1 (normal)", False, 12)
    assert after.seats[0].took_over_at is None and after.status == RUNNING
    assert await store.active_room_of("b") is None
    await _room(store, "elsewhere", "b")  # free to sit down in another game
    await store.mark_out("r", [0])
    with pytest.raises(NotFound):
        await store.replace_with_bot("r", 0, bot="normal", name="Bot 2 (normal)", at_seq=13)
    plain = await store.create_room(NewRoom("p", None, "classic", 2, True, "a", "A"))
    assert plain.bots_replace_leavers is False
    # The person the bot replaced deletes their account: the name the engine was told for that seat (served
    # in every replay) is pseudonymised too, though the seat is now the bot's.
    await store.delete_account("b")
    room = await store.get_room("r")
    assert room is not None and room.seat_info is not None
    assert [entry["name"] for entry in room.seat_info] == ["A", "—"]


async def test_chat_keeps_the_last_messages_per_room(store: Store) -> None:
    await store.create_user("a", "A", "en")
    await store.create_user("b", "B", "en")
    await _room(store, "r1", "a")
    await _room(store, "r2", "b")
    for i in range(7):
        await store.add_chat("r1", ChatRecord("A", 0, False, f"hello {i}", 1000.0 + i, "a"))
    await store.add_chat("r2", ChatRecord("Eve", None, True, "hi there", 5.25))
    recent = await store.recent_chat("r1", 3)
    assert [m.text for m in recent] == ["hello 4", "hello 5", "hello 6"]
    assert recent[-1] == ChatRecord("A", 0, False, "hello 6", 1006.0, "a")
    assert await store.recent_chat("r2", 50) == [ChatRecord("Eve", None, True, "hi there", 5.25, None)]
    assert await store.recent_chat("nowhere", 50) == []
    assert await store.recent_chat("r1", 0) == []


async def test_api_keys_name_their_owner_until_revoked(store: Store) -> None:
    await store.create_user("u1", "Ann", "en")
    await store.create_user("u2", "Bob", "en")
    made = await store.create_api_key("k1", "u1", "my agent", "digest-1")
    assert made.last_used_at is None
    owner = await store.user_by_api_key("digest-1")
    assert owner is not None and owner.id == "u1" and owner.agent and owner.api_key == "k1"
    assert await store.user_by_api_key("unknown") is None
    [listed] = await store.list_api_keys("u1")
    assert listed.label == "my agent" and listed.last_used_at is not None
    assert await store.list_api_keys("u2") == []
    # Only the owner can revoke, and only once; a revoked key names nobody and is no longer listed.
    assert not await store.revoke_api_key("u2", "k1")
    assert await store.revoke_api_key("u1", "k1")
    assert not await store.revoke_api_key("u1", "k1")
    assert await store.user_by_api_key("digest-1") is None
    assert await store.list_api_keys("u1") == []


async def test_seats_taken_by_agents_stay_marked_through_the_start(store: Store) -> None:
    await store.create_user("ann", "Ann", "en")
    await store.create_user("bob", "Bob", "en")
    await store.create_room(NewRoom("r1", None, "classic", 4, True, "ann", "Ann", creator_agent=True))
    room = await store.take_seat("r1", 1, user_id="bob", bot=None, name="Bob")
    assert [s.agent for s in room.seats] == [True, False]
    started = await store.start_game("r1", seed=1, seats=list(room.seats), seat_info=[{}, {}])
    assert [s.agent for s in started.seats] == [True, False]


async def test_house_rules_are_kept_with_the_room_until_the_start(store: Store) -> None:
    """A room's house rules (migration 0010) are stored at creation, replaced while it waits, and fixed
    once the game runs: a restarted server rebuilds the game from them."""
    await store.create_user("a", "A", "en")
    await store.create_room(NewRoom("r1", None, "classic", 2, True, "a", "A", house_rules={"salary": 0}))
    room = await store.get_room("r1")
    assert room is not None and room.house_rules == {"salary": 0}
    assert (await store.set_house_rules("r1", {"jackpot": False, "round_limit": 40})).house_rules == {
        "jackpot": False, "round_limit": 40}
    assert (await store.set_house_rules("r1", {})).house_rules is None
    await store.set_house_rules("r1", {"starting_cash": 30000})
    await store.take_seat("r1", 1, user_id=None, bot="easy", name="Bot")
    waiting = await store.get_room("r1")
    assert waiting is not None
    running = await store.start_game("r1", seed=1, seats=waiting.seats, seat_info=[{}, {}])
    assert running.house_rules == {"starting_cash": 30000}
    assert (await store.set_house_rules("r1", None)).house_rules == {"starting_cash": 30000}, "fixed once running"
    listed = await store.list_rooms([RUNNING])
    assert [r.house_rules for r in listed] == [{"starting_cash": 30000}]


async def test_arranging_seats_moves_everyone_at_once(store: Store) -> None:
    """Team choice and shuffling rewrite a waiting room's seats in one transaction: nobody ends up seated
    twice or nowhere, and the one-unfinished-game rule still holds."""
    for u in ("a", "b"):
        await store.create_user(u, u.upper(), "en")
    await _room(store, "r1", "a")
    room = await store.take_seat("r1", 1, user_id="b", bot=None, name="B")
    await store.take_seat("r1", 2, user_id=None, bot="easy", name="Bot 1 (easy)")
    room = await store.get_room("r1")
    assert room is not None
    moved = {0: 3, 1: 0, 2: 1}
    room = await store.arrange_seats("r1", [dataclasses.replace(s, seat=moved[s.seat]) for s in room.seats])
    assert [(s.seat, s.user_id, s.bot) for s in room.seats] == [(0, "b", None), (1, None, "easy"), (3, "a", None)]
    assert await store.active_room_of("a") == "r1" and await store.active_room_of("b") == "r1"
    with pytest.raises(AlreadySeated):
        await store.take_seat("r1", 2, user_id="a", bot=None, name="A")
