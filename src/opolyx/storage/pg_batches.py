"""Group-committed batches on PostgreSQL: one statement on a connection of their own.

Every accepted action is written before anybody sees its events, so at human pace the batch writer runs about
once per action, and its CPU is the server's. Through SQLAlchemy a batch was a pooled connection's checkout,
``BEGIN``, an ``INSERT`` of the actions, an ``UPDATE`` of the rooms' clocks and ``COMMIT``. Here it is one
statement, which PostgreSQL runs atomically without a transaction block, built from the tables' own
definitions (columns and their types): the actions and chat messages are inserted from arrays (``unnest``) and
the clocks updated from arrays, in one data-modifying ``WITH``, on a connection held for it: a fraction of the
CPU of the transaction (figures: ``benchmarks/README.md``).

A held connection that fails (the database restarted, the connection was dropped) is discarded, and
the batch that met the failure fails as it would have through the pool; the next batch opens another.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from opolyx.jsontypes import JSON
from opolyx.storage.tables import actions, chat_messages, rooms

log = logging.getLogger(__name__)

# Every column of the tables (the chat's id is the database's), so a column added to a table and its
# rows in sql.py is written here too.
ACTION_COLUMNS = tuple(c.name for c in actions.c)
CHAT_COLUMNS = tuple(c.name for c in chat_messages.c if c.name != "id")
CLOCK_COLUMNS = ("id", "clocks")


def _array_casts(table: sa.Table, columns: Sequence[str], first: int) -> list[str]:
    """``$n::TYPE[]`` for each column, its type as the table defines it for PostgreSQL."""
    dialect = postgresql.dialect()  # type: ignore[no-untyped-call]
    return [f"${first + i}::{table.c[name].type.compile(dialect=dialect)}[]" for i, name in enumerate(columns)]


def _statement() -> str:
    a = _array_casts(actions, ACTION_COLUMNS, 1)
    c = _array_casts(chat_messages, CHAT_COLUMNS, 1 + len(ACTION_COLUMNS))
    k = _array_casts(rooms, CLOCK_COLUMNS, 1 + len(ACTION_COLUMNS) + len(CHAT_COLUMNS))
    return (
        f"WITH stored_actions AS (INSERT INTO {actions.name} ({', '.join(ACTION_COLUMNS)}) "
        f"SELECT * FROM unnest({', '.join(a)})), "
        f"stored_chat AS (INSERT INTO {chat_messages.name} ({', '.join(CHAT_COLUMNS)}) "
        f"SELECT * FROM unnest({', '.join(c)})) "
        f"UPDATE {rooms.name} AS r SET clocks = latest.clocks "
        f"FROM unnest({', '.join(k)}) AS latest(id, clocks) WHERE r.id = latest.id"
    )


STATEMENT = _statement()


def _columns(rows: Sequence[Mapping[str, Any]], names: Sequence[str], json_columns: frozenset[str]) -> list[list[Any]]:
    """Rows as one list per column; JSON values as text (JSONB parses it, as SQLAlchemy's type does)."""
    return [
        [json.dumps(row[name]) if name in json_columns else row[name] for row in rows]
        for name in names
    ]


class PgBatches:
    """Writes one batch of actions, chat messages and clocks in one statement (see the module)."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self._conn: AsyncConnection | None = None
        self._driver: Any = None

    async def write(
        self,
        action_rows: Sequence[Mapping[str, Any]],
        chat_rows: Sequence[Mapping[str, Any]],
        clocks: Mapping[str, JSON],
    ) -> None:
        import asyncpg  # type: ignore[import-untyped]

        args = [
            *_columns(action_rows, ACTION_COLUMNS, frozenset({"action"})),
            *_columns(chat_rows, CHAT_COLUMNS, frozenset()),
            list(clocks),
            [json.dumps(c) for c in clocks.values()],
        ]
        driver = await self._driver_connection()
        try:
            await driver.execute(STATEMENT, *args)
        except asyncpg.IntegrityConstraintViolationError as exc:
            # As SQLAlchemy reports it, so the store's one-by-one retry tells the taken seq apart.
            raise IntegrityError(STATEMENT, None, exc) from exc
        except (asyncpg.PostgresConnectionError, asyncpg.InterfaceError, OSError):  # the connection failed
            await self._discard()
            raise
        except asyncpg.PostgresError:
            if driver.is_closed():  # e.g. the server shutting down
                await self._discard()
            raise

    async def _driver_connection(self) -> Any:
        if self._conn is None or self._driver is None or self._driver.is_closed():
            await self._discard()
            conn = await self.engine.connect()
            try:
                raw = await conn.get_raw_connection()
            except BaseException:
                await conn.close()
                raise
            self._conn, self._driver = conn, raw.driver_connection
        return self._driver

    async def _discard(self) -> None:
        conn, self._conn, self._driver = self._conn, None, None
        if conn is not None:
            try:
                await conn.invalidate()
                await conn.close()
            except Exception:
                log.debug("closing a failed batch connection", exc_info=True)

    async def close(self) -> None:
        conn, self._conn, self._driver = self._conn, None, None
        if conn is not None:
            await conn.close()
