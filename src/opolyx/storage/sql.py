"""The SQLAlchemy store, one implementation for SQLite (aiosqlite) and PostgreSQL (asyncpg)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import sqlite3
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Protocol, TypeVar

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from opolyx.jsontypes import JSON
from opolyx.progression.booking import Credit
from opolyx.storage.accounts import AwardRecord
from opolyx.storage.accounts_sql import AccountsSql
from opolyx.storage.base import (
    CLOSED,
    FINISHED,
    RUNNING,
    UNFINISHED,
    WAITING,
    ActionRecord,
    AlreadySeated,
    ApiKeyRecord,
    ChatRecord,
    NewRoom,
    NotFound,
    RoomRecord,
    SeatRecord,
    SeatTaken,
    SeqConflict,
    Store,
    UserRecord,
)
from opolyx.storage.moderation_sql import ModerationSql
from opolyx.storage.pg_batches import PgBatches
from opolyx.storage.ratings_sql import RatingsSql
from opolyx.storage.tables import actions, api_keys, chat_messages, room_seats, rooms, seat_marks, users

log = logging.getLogger(__name__)

MIGRATIONS = Path(__file__).with_name("migrations")
T = TypeVar("T")
# A connection as the store uses it: ``await conn.execute(...)`` returning a buffered result, and
# ``await conn.run_sync(fn)``. Both sqlalchemy's AsyncConnection and _LoopConnection below fit.
Conn = Any
# Any constant works; it only has to be the same for every server process sharing a database.
_MIGRATION_LOCK = 0x6F706F6C79

# Statements run for every action, chat message and opened socket, built once with bound parameters:
# SQLAlchemy then finds them in its compiled cache without building and keying a new statement per
# call, which costs several times the query itself.
_INSERT_ACTIONS = actions.insert()
_INSERT_CHAT = chat_messages.insert()
_USER_BY_ID = users.select().where(users.c.id == sa.bindparam("uid"))
_SAVE_CLOCKS = rooms.update().where(rooms.c.id == sa.bindparam("rid")).values(clocks=sa.bindparam("c"))


def _now() -> datetime:
    return datetime.now(UTC)


def _utc(value: datetime | None) -> datetime | None:
    # SQLite hands timestamps back without a zone; everything we write is UTC.
    if value is None or value.tzinfo is not None:
        return value
    return value.replace(tzinfo=UTC)


def make_engine(url: str, *, schema: str = "") -> AsyncEngine:
    """Create the engine with the per-backend settings that make "nothing lost" hold."""
    if url.startswith("sqlite"):
        engine = create_async_engine(url, connect_args={"timeout": 30})
        sa.event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
        return engine
    connect_args: dict[str, Any] = {}
    if schema:
        connect_args["server_settings"] = {"search_path": schema}
    # No ping before each use of a pooled connection: SQLAlchemy's asyncpg ping is a transaction of its
    # own (BEGIN, a query, ROLLBACK), which adds half again to the CPU of every short transaction and so
    # of every batch of actions. A connection the database dropped fails the one call
    # that uses it; SQLAlchemy then discards every connection opened before (test_storage_contract).
    return create_async_engine(url, connect_args=connect_args, pool_size=10)


class Db(Protocol):
    """What the store needs of an engine: transactions, plain connections, and a way to shut down."""

    def begin(self) -> AbstractAsyncContextManager[Conn]: ...

    def connect(self) -> AbstractAsyncContextManager[Conn]: ...

    async def dispose(self) -> None: ...


class _LoopConnection:
    def __init__(self, conn: Connection) -> None:
        self.sync = conn
        self.dialect = conn.dialect

    async def execute(self, statement: Any, parameters: Any = None) -> Any:
        if parameters is None:
            return self.sync.execute(statement)
        return self.sync.execute(statement, parameters)

    async def run_sync(self, fn: Callable[..., T], *args: Any) -> T:
        return fn(self.sync, *args)


class LoopSqlite:
    """SQLite run on the event loop's own thread, through one connection.

    A statement on a local SQLite file in WAL mode takes microseconds; handing each one to a worker
    thread (what aiosqlite does) costs far more than that in thread switches and GIL hand-offs, and
    was the largest cost under load. One connection also means one writer, so writers never meet
    SQLite's busy handler. Transactions are serialised by a lock, so they never interleave.

    Checkpoints (copying the write-ahead log into the database file, with an fsync) are the one slow
    part: SQLite runs them inside the commit that fills the log past 1,000 pages, which on the loop's
    thread stalled every room for 15-150 ms every few seconds under load. That connection never
    checkpoints; a second connection does it every ``checkpoint_seconds`` in a worker thread (SQLite
    lets writers go on meanwhile, and the sqlite3 module releases the GIL while it works).
    """

    def __init__(self, url: str, *, checkpoint_seconds: float = 1.0) -> None:
        sync_url = url.replace("sqlite+aiosqlite", "sqlite+pysqlite", 1)
        self.path = sa.engine.make_url(sync_url).database or ""
        self.sync = sa.create_engine(sync_url, pool_size=1, max_overflow=0, connect_args={"timeout": 30})
        sa.event.listen(self.sync, "connect", _sqlite_pragmas)
        sa.event.listen(self.sync, "connect", _no_autocheckpoint)
        self._lock: asyncio.Lock | None = None
        self._checkpointer: asyncio.Task[None] | None = None
        if self.path not in ("", ":memory:") and checkpoint_seconds > 0:
            self._checkpointer = asyncio.get_running_loop().create_task(self._checkpoints(checkpoint_seconds))

    async def _checkpoints(self, every: float) -> None:
        while True:
            await asyncio.sleep(every)
            try:
                await asyncio.to_thread(checkpoint, self.path)
            except Exception:
                log.warning("checkpointing %s failed; retrying", self.path, exc_info=True)

    def _get_lock(self) -> asyncio.Lock:
        if self._lock is None:
            self._lock = asyncio.Lock()
        return self._lock

    @asynccontextmanager
    async def begin(self) -> AsyncIterator[Conn]:
        async with self._get_lock():
            with self.sync.begin() as conn:
                yield _LoopConnection(conn)

    @asynccontextmanager
    async def connect(self) -> AsyncIterator[Conn]:
        async with self._get_lock():
            with self.sync.connect() as conn:
                yield _LoopConnection(conn)

    async def dispose(self) -> None:
        if self._checkpointer is not None:
            self._checkpointer.cancel()
            with contextlib.suppress(BaseException):
                await self._checkpointer
        self.sync.dispose()


def checkpoint(path: str) -> None:
    """Copy what the write-ahead log holds into the database file, without waiting for anybody (a
    passive checkpoint: readers and the writer go on; what they still use is copied next time)."""
    db = sqlite3.connect(path, timeout=30)
    try:
        db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
    finally:
        db.close()


def _no_autocheckpoint(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA wal_autocheckpoint=0")
    cur.close()


def _private_file(path: Path) -> None:
    """The SQLite file holds every game's secret seed: readable by the server's user only (SQLite gives
    its -wal and -shm files the same mode)."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    os.close(fd)
    os.chmod(path, 0o600)


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    # WAL + NORMAL survives a killed process (not a power cut) and lets readers run beside the writer.
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA busy_timeout=30000")
    cur.close()


def _upgrade(connection: Connection) -> None:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.attributes["connection"] = connection
    command.upgrade(cfg, "head")


async def migrate(engine: AsyncEngine, *, schema: str = "") -> None:
    """Bring the schema to the newest migration; safe to run from several processes at once."""
    async with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            await conn.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": _MIGRATION_LOCK})
            if schema:
                await conn.execute(sa.text(f'CREATE SCHEMA IF NOT EXISTS "{schema}"'))
        await conn.run_sync(_upgrade)


@dataclass
class _Append:
    room_id: str
    seq: int
    seat: int | None
    action: JSON
    clocks: JSON | None
    done: asyncio.Future[None]
    actor: str | None = None
    elapsed_ms: int | None = None

    def row(self, now: datetime) -> dict[str, Any]:
        return {
            "game_id": self.room_id,
            "seq": self.seq,
            "seat": self.seat,
            "action": self.action,
            "created_at": now,
            "actor": self.actor,
            "elapsed_ms": self.elapsed_ms,
        }


@dataclass
class _Chat:
    room_id: str
    message: ChatRecord
    done: asyncio.Future[None]

    def row(self) -> dict[str, Any]:
        m = self.message
        return {
            "room_id": self.room_id,
            "user_id": m.user_id,
            "name": m.name,
            "seat": m.seat,
            "spectator": m.spectator,
            "text": m.text,
            "at": m.at,
        }


async def _rewrite_seats(conn: Conn, room_id: str, seats: Sequence[SeatRecord]) -> None:
    """Replace a room's seats with ``seats`` (none out; a person's seat active), inside ``conn``'s
    transaction: how a team shuffle and a game's start both store the seats as they now stand."""
    await conn.execute(room_seats.delete().where(room_seats.c.room_id == room_id))
    for s in seats:
        await conn.execute(
            room_seats.insert().values(
                room_id=room_id,
                seat=s.seat,
                user_id=s.user_id,
                bot=s.bot,
                name=s.name,
                out=False,
                active=s.user_id is not None,
                agent=s.agent,
            )
        )


class SqlStore(AccountsSql, RatingsSql, ModerationSql, Store):
    """PostgreSQL through asyncpg; SQLite on the loop's thread through one connection (LoopSqlite).

    Appended actions and chat messages are group-committed: whatever arrives while a commit is in
    flight is written together in the next transaction, and each caller returns only once the
    transaction holding its row has committed. (At a few thousand players a transaction of its own per
    chat message cost the serving thread about as much as a batch of actions.)
    """

    def __init__(self, engine: Db) -> None:
        self.engine = engine
        self._appends: list[_Append] = []
        self._chats: list[_Chat] = []
        self._flusher: asyncio.Task[None] | None = None
        # PostgreSQL writes its batches as one statement on a connection of their own (pg_batches.py).
        self._pg_batches = PgBatches(engine) if isinstance(engine, AsyncEngine) else None

    @classmethod
    async def open(cls, url: str, *, schema: str = "") -> SqlStore:
        if url.startswith("sqlite"):
            path = url.split("///", 1)[-1]
            if path and path != ":memory:":
                _private_file(Path(path))
        engine = make_engine(url, schema=schema)
        try:
            await migrate(engine, schema=schema)
        except BaseException:
            await engine.dispose()
            raise
        if url.startswith("sqlite"):
            # Migrated through the async engine (Alembic's path); served on the loop's thread.
            await engine.dispose()
            return cls(LoopSqlite(url))
        return cls(engine)

    async def ping(self) -> None:
        async with self.engine.connect() as conn:
            await conn.execute(sa.text("SELECT 1"))

    async def close(self) -> None:
        if self._flusher is not None:
            with contextlib.suppress(BaseException):
                await self._flusher
        if self._pg_batches is not None:
            with contextlib.suppress(Exception):
                await self._pg_batches.close()
        await self.engine.dispose()

    # people ---------------------------------------------------------------------------------------

    async def create_user(self, user_id: str, nickname: str, language: str) -> UserRecord:
        now = _now()
        async with self.engine.begin() as conn:
            await conn.execute(
                # The seed of the first card drops is drawn now, so its commitment is published before them.
                users.insert().values(
                    id=user_id, nickname=nickname, language=language, created_at=now, drop_seed=secrets.randbits(62)
                )
            )
        return UserRecord(user_id, nickname, language, None, now)

    async def get_user(self, user_id: str) -> UserRecord | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(_USER_BY_ID, {"uid": user_id})).first()
        if row is None or row.deleted_at is not None:
            return None
        return UserRecord(
            row.id,
            row.nickname,
            row.language,
            row.email,
            _utc(row.created_at) or _now(),
            avatar=row.avatar,
            xp=row.xp,
            level=row.level,
            wins=row.wins,
        )

    async def update_user(self, user_id: str, *, nickname: str, language: str) -> UserRecord:
        async with self.engine.begin() as conn:
            await conn.execute(
                users.update().where(users.c.id == user_id).values(nickname=nickname, language=language)
            )
        user = await self.get_user(user_id)
        if user is None:
            raise NotFound(user_id)
        return user

    # rooms ----------------------------------------------------------------------------------------

    async def _room(self, conn: Conn, room_id: str) -> RoomRecord | None:
        row = (await conn.execute(rooms.select().where(rooms.c.id == room_id))).first()
        if row is None:
            return None
        seat_rows = (
            await conn.execute(
                room_seats.select().where(room_seats.c.room_id == room_id).order_by(room_seats.c.seat)
            )
        ).all()
        return self._to_room(row, seat_rows)

    @staticmethod
    def _to_room(row: Any, seat_rows: Sequence[Any]) -> RoomRecord:
        seats = tuple(
            SeatRecord(s.seat, s.user_id, s.bot, s.name, bool(s.out), s.took_over_at, bool(s.agent))
            for s in seat_rows
        )
        return RoomRecord(
            id=row.id,
            code=row.code,
            mode=row.mode,
            seat_count=row.seat_count,
            public=bool(row.public),
            creator_id=row.creator_id,
            status=row.status,
            created_at=_utc(row.created_at) or _now(),
            seats=seats,
            started_at=_utc(row.started_at),
            finished_at=_utc(row.finished_at),
            seed=row.seed,
            seat_info=row.seat_info,
            result=row.result,
            clocks=row.clocks or {},
            bots_replace_leavers=bool(row.bots_replace_leavers),
            house_rules=row.house_rules or None,
            rated=bool(row.rated),
        )

    async def _must_room(self, conn: Conn, room_id: str) -> RoomRecord:
        room = await self._room(conn, room_id)
        if room is None:
            raise NotFound(room_id)
        return room

    async def create_room(self, room: NewRoom) -> RoomRecord:
        try:
            async with self.engine.begin() as conn:
                await conn.execute(
                    rooms.insert().values(
                        id=room.id,
                        code=room.code,
                        mode=room.mode,
                        seat_count=room.seat_count,
                        public=room.public,
                        creator_id=room.creator_id,
                        status=WAITING,
                        created_at=_now(),
                        clocks={},
                        bots_replace_leavers=room.bots_replace_leavers,
                        house_rules=room.house_rules or None,
                        rated=room.rated,
                    )
                )
                await conn.execute(
                    room_seats.insert().values(
                        room_id=room.id,
                        seat=0,
                        user_id=room.creator_id,
                        bot=None,
                        name=room.creator_name,
                        out=False,
                        active=True,
                        agent=room.creator_agent,
                    )
                )
        except IntegrityError as exc:
            busy = await self.active_room_of(room.creator_id)
            if busy is not None:
                raise AlreadySeated(busy) from exc
            raise
        return await self._get(room.id)

    async def _get(self, room_id: str) -> RoomRecord:
        async with self.engine.connect() as conn:
            return await self._must_room(conn, room_id)

    async def get_room(self, room_id: str) -> RoomRecord | None:
        async with self.engine.connect() as conn:
            return await self._room(conn, room_id)

    async def get_room_by_code(self, code: str) -> RoomRecord | None:
        async with self.engine.connect() as conn:
            room_id = (await conn.execute(sa.select(rooms.c.id).where(rooms.c.code == code))).scalar()
            if room_id is None:
                return None
            return await self._room(conn, room_id)

    async def list_rooms(
        self, statuses: Sequence[str], *, public_only: bool = True, limit: int = 100
    ) -> list[RoomRecord]:
        query = rooms.select().where(rooms.c.status.in_(list(statuses)))
        if public_only:
            query = query.where(rooms.c.public.is_(True))
        query = query.order_by(rooms.c.created_at.desc()).limit(limit)
        async with self.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
            if not rows:
                return []
            ids = [r.id for r in rows]
            seat_rows = (
                await conn.execute(
                    room_seats.select()
                    .where(room_seats.c.room_id.in_(ids))
                    .order_by(room_seats.c.room_id, room_seats.c.seat)
                )
            ).all()
        by_room: dict[str, list[Any]] = {}
        for s in seat_rows:
            by_room.setdefault(s.room_id, []).append(s)
        return [self._to_room(r, by_room.get(r.id, [])) for r in rows]

    async def active_room_of(self, user_id: str) -> str | None:
        async with self.engine.connect() as conn:
            room_id = (
                await conn.execute(
                    sa.select(room_seats.c.room_id).where(
                        room_seats.c.user_id == user_id, room_seats.c.active.is_(True)
                    )
                )
            ).scalar()
        return None if room_id is None else str(room_id)

    async def take_seat(
        self, room_id: str, seat: int, *, user_id: str | None, bot: str | None, name: str, agent: bool = False
    ) -> RoomRecord:
        try:
            async with self.engine.begin() as conn:
                await conn.execute(
                    room_seats.insert().values(
                        room_id=room_id,
                        seat=seat,
                        user_id=user_id,
                        bot=bot,
                        name=name,
                        out=False,
                        active=user_id is not None,
                        agent=agent and user_id is not None,
                    )
                )
        except IntegrityError as exc:
            if user_id is not None:
                busy = await self.active_room_of(user_id)
                if busy is not None:
                    raise AlreadySeated(busy) from exc
            raise SeatTaken(f"seat {seat} of room {room_id}") from exc
        return await self._get(room_id)

    async def free_seat(self, room_id: str, seat: int) -> RoomRecord:
        async with self.engine.begin() as conn:
            await conn.execute(
                room_seats.delete().where(room_seats.c.room_id == room_id, room_seats.c.seat == seat)
            )
            return await self._must_room(conn, room_id)

    async def set_creator(self, room_id: str, user_id: str) -> RoomRecord:
        async with self.engine.begin() as conn:
            await conn.execute(rooms.update().where(rooms.c.id == room_id).values(creator_id=user_id))
            return await self._must_room(conn, room_id)

    async def set_house_rules(self, room_id: str, house_rules: JSON | None) -> RoomRecord:
        async with self.engine.begin() as conn:
            await conn.execute(
                rooms.update()
                .where(rooms.c.id == room_id, rooms.c.status == WAITING)
                .values(house_rules=house_rules or None)
            )
            return await self._must_room(conn, room_id)

    async def arrange_seats(self, room_id: str, seats: Sequence[SeatRecord]) -> RoomRecord:
        async with self.engine.begin() as conn:
            await _rewrite_seats(conn, room_id, seats)
            return await self._must_room(conn, room_id)

    async def close_room(self, room_id: str) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(
                room_seats.update().where(room_seats.c.room_id == room_id).values(active=False)
            )
            await conn.execute(
                rooms.update().where(rooms.c.id == room_id).values(status=CLOSED, finished_at=_now())
            )

    # games ----------------------------------------------------------------------------------------

    async def start_game(
        self, room_id: str, *, seed: int, seats: Sequence[SeatRecord], seat_info: list[JSON]
    ) -> RoomRecord:
        async with self.engine.begin() as conn:
            await _rewrite_seats(conn, room_id, seats)
            await conn.execute(
                rooms.update()
                .where(rooms.c.id == room_id)
                .values(status=RUNNING, started_at=_now(), seed=seed, seat_info=seat_info, clocks={})
            )
            return await self._must_room(conn, room_id)

    async def append_action(
        self,
        room_id: str,
        seq: int,
        seat: int | None,
        action: JSON,
        *,
        clocks: JSON | None = None,
        actor: str | None = None,
        elapsed_ms: int | None = None,
    ) -> None:
        item = _Append(
            room_id, seq, seat, action, clocks, asyncio.get_running_loop().create_future(), actor, elapsed_ms
        )
        self._appends.append(item)
        await self._committed(item)

    async def _committed(self, item: _Append | _Chat) -> None:
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.get_running_loop().create_task(self._flush())
        # Shielded: a caller that goes away must not take the write (or the others in its batch) along.
        await asyncio.shield(item.done)

    async def _flush(self) -> None:
        while self._appends or self._chats:
            batch, self._appends = self._appends, []
            chats, self._chats = self._chats, []
            try:
                await self._write_batch(batch, chats)
            except IntegrityError:
                # Somebody's seq was taken: write them one by one so only that one is refused.
                for item in batch:
                    try:
                        await self._write_batch([item], [])
                    except IntegrityError as exc:
                        _settle(item, SeqConflict(f"action {item.seq} of game {item.room_id} already stored"), exc)
                    except Exception as exc:
                        _settle(item, exc)
                    else:
                        _settle(item)
                for chat in chats:
                    try:
                        await self._write_batch([], [chat])
                    except Exception as exc:
                        _settle(chat, exc)
                    else:
                        _settle(chat)
            except Exception as exc:
                for each in _both(batch, chats):
                    _settle(each, exc)
            else:
                for each in _both(batch, chats):
                    _settle(each)

    async def _write_batch(self, batch: Sequence[_Append], chats: Sequence[_Chat]) -> None:
        now = _now()
        latest = {item.room_id: item.clocks for item in batch if item.clocks is not None}
        if self._pg_batches is not None:
            await self._pg_batches.write([item.row(now) for item in batch], [chat.row() for chat in chats], latest)
            return
        async with self.engine.begin() as conn:
            if batch:
                await conn.execute(_INSERT_ACTIONS, [item.row(now) for item in batch])
            if chats:
                await conn.execute(_INSERT_CHAT, [chat.row() for chat in chats])
            if latest:
                await self._write_clocks(conn, latest)

    @staticmethod
    async def _write_clocks(conn: Conn, clocks: Mapping[str, JSON]) -> None:
        await conn.execute(_SAVE_CLOCKS, [{"rid": rid, "c": c} for rid, c in clocks.items()])

    async def load_actions(self, room_id: str) -> list[ActionRecord]:
        async with self.engine.connect() as conn:
            rows = (
                await conn.execute(
                    actions.select().where(actions.c.game_id == room_id).order_by(actions.c.seq)
                )
            ).all()
        return [
            ActionRecord(r.seq, r.seat, r.action, _utc(r.created_at) or _now(), r.actor, r.elapsed_ms) for r in rows
        ]

    async def add_seat_marks(self, room_id: str, seat: int, marks: Sequence[str]) -> None:
        if not marks:
            return
        async with self.engine.begin() as conn:
            known = set(
                (
                    await conn.execute(
                        sa.select(seat_marks.c.mark).where(seat_marks.c.game_id == room_id, seat_marks.c.seat == seat)
                    )
                ).scalars()
            )
            new = [m for m in dict.fromkeys(marks) if m not in known]
            if new:
                await conn.execute(seat_marks.insert(), [{"game_id": room_id, "seat": seat, "mark": m} for m in new])

    async def seat_marks_of(self, room_id: str) -> dict[int, set[str]]:
        async with self.engine.connect() as conn:
            rows = (await conn.execute(seat_marks.select().where(seat_marks.c.game_id == room_id))).all()
        out: dict[int, set[str]] = {}
        for r in rows:
            out.setdefault(int(r.seat), set()).add(str(r.mark))
        return out

    async def save_clocks(self, room_id: str, clocks: JSON) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(_SAVE_CLOCKS, {"rid": room_id, "c": clocks})

    async def save_clocks_many(self, clocks: Mapping[str, JSON]) -> None:
        if not clocks:
            return
        async with self.engine.begin() as conn:
            await self._write_clocks(conn, clocks)

    async def replace_with_bot(self, room_id: str, seat: int, *, bot: str, name: str, at_seq: int) -> RoomRecord:
        async with self.engine.begin() as conn:
            result = await conn.execute(
                room_seats.update()
                .where(room_seats.c.room_id == room_id, room_seats.c.seat == seat, room_seats.c.out.is_(False))
                .values(
                    replaced_user_id=room_seats.c.user_id,
                    user_id=None,
                    bot=bot,
                    name=name,
                    active=False,
                    took_over_at=at_seq,
                    agent=False,
                )
            )
            if result.rowcount != 1:
                raise NotFound(f"seat {seat} of room {room_id} is not playing")
            return await self._must_room(conn, room_id)

    async def mark_out(self, room_id: str, seats: Sequence[int]) -> None:
        if not seats:
            return
        async with self.engine.begin() as conn:
            await conn.execute(
                room_seats.update()
                .where(room_seats.c.room_id == room_id, room_seats.c.seat.in_(list(seats)))
                .values(out=True, active=False)
            )

    async def finish_game(
        self, room_id: str, result: JSON | None, credits: Sequence[Credit] = ()
    ) -> list[AwardRecord]:
        async with self.engine.begin() as conn:
            await conn.execute(
                room_seats.update().where(room_seats.c.room_id == room_id).values(active=False)
            )
            finished = await conn.execute(
                rooms.update()
                .where(rooms.c.id == room_id, rooms.c.status.in_(list(UNFINISHED)))
                .values(status=FINISHED, finished_at=_now(), result=result)
            )
            if finished.rowcount != 1:
                # Already finished (another process got there first): never credit twice.
                return []
            return await self._credit(conn, room_id, credits)

    # chat -----------------------------------------------------------------------------------------

    async def add_chat(self, room_id: str, message: ChatRecord) -> None:
        item = _Chat(room_id, message, asyncio.get_running_loop().create_future())
        self._chats.append(item)
        await self._committed(item)

    async def recent_chat(self, room_id: str, limit: int) -> list[ChatRecord]:
        if limit <= 0:
            return []
        query = (
            chat_messages.select()
            .where(chat_messages.c.room_id == room_id)
            .order_by(chat_messages.c.id.desc())
            .limit(limit)
        )
        async with self.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [
            ChatRecord(r.name, r.seat, bool(r.spectator), r.text, float(r.at), r.user_id) for r in reversed(rows)
        ]

    # personal API keys ----------------------------------------------------------------------------

    async def create_api_key(self, key_id: str, user_id: str, label: str, key_hash: str) -> ApiKeyRecord:
        now = _now()
        async with self.engine.begin() as conn:
            await conn.execute(
                api_keys.insert().values(id=key_id, user_id=user_id, label=label, key_hash=key_hash, created_at=now)
            )
        return ApiKeyRecord(key_id, user_id, label, now)

    async def list_api_keys(self, user_id: str) -> list[ApiKeyRecord]:
        query = (
            api_keys.select()
            .where(api_keys.c.user_id == user_id, api_keys.c.revoked_at.is_(None))
            .order_by(api_keys.c.created_at, api_keys.c.id)
        )
        async with self.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [
            ApiKeyRecord(r.id, r.user_id, r.label, _utc(r.created_at) or _now(), _utc(r.last_used_at)) for r in rows
        ]

    async def revoke_api_key(self, user_id: str, key_id: str) -> bool:
        async with self.engine.begin() as conn:
            result = await conn.execute(
                api_keys.update()
                .where(api_keys.c.id == key_id, api_keys.c.user_id == user_id, api_keys.c.revoked_at.is_(None))
                .values(revoked_at=_now())
            )
        return bool(result.rowcount == 1)

    async def user_by_api_key(self, key_hash: str) -> UserRecord | None:
        now = _now()
        async with self.engine.connect() as conn:
            row = (
                await conn.execute(
                    sa.select(api_keys.c.id, api_keys.c.user_id, api_keys.c.last_used_at).where(
                        api_keys.c.key_hash == key_hash, api_keys.c.revoked_at.is_(None)
                    )
                )
            ).first()
        if row is None:
            return None
        last = _utc(row.last_used_at)
        # Noted at most once a minute, so an agent's every call does not become a write.
        if last is None or now - last > timedelta(seconds=60):
            async with self.engine.begin() as conn:
                await conn.execute(api_keys.update().where(api_keys.c.id == row.id).values(last_used_at=now))
        user = await self.get_user(row.user_id)
        return None if user is None else replace(user, agent=True, api_key=row.id)


def _both(batch: Sequence[_Append], chats: Sequence[_Chat]) -> list[_Append | _Chat]:
    both: list[_Append | _Chat] = list(batch)
    both.extend(chats)
    return both


def _settle(item: _Append | _Chat, error: BaseException | None = None, cause: BaseException | None = None) -> None:
    if item.done.done():
        return
    if error is None:
        item.done.set_result(None)
        return
    if cause is not None:
        error.__cause__ = cause
    item.done.set_exception(error)


__all__ = ["FINISHED", "SqlStore", "make_engine", "migrate"]
