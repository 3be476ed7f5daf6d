"""Throw-away databases for tests: an SQLite file, or a fresh PostgreSQL schema dropped afterwards.

Kept in the package (not under tests/) so the storage and server suites, and anyone testing against
opolyx, share one definition of "a clean database of kind X".
"""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

PG_ENV = "OPOLYX_TEST_DATABASE_URL"
REDIS_ENV = "OPOLYX_TEST_REDIS_URL"
BACKENDS = ("sqlite", "postgresql")
PG_SKIP_MESSAGE = (
    f"PostgreSQL variant skipped: set {PG_ENV}=postgresql+asyncpg://postgres@127.0.0.1:5432/test to run it"
)


@dataclass(frozen=True)
class TestDatabase:
    __test__ = False  # not a pytest class
    kind: str
    url: str
    schema: str = ""


def pg_url() -> str | None:
    return os.environ.get(PG_ENV) or None


async def pg_exec(url: str, sql: str) -> None:
    import asyncpg  # type: ignore[import-untyped]

    conn = await asyncpg.connect(url.replace("postgresql+asyncpg://", "postgresql://", 1))
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


@contextmanager
def fresh_database(kind: str, tmp_dir: Path) -> Iterator[TestDatabase]:
    if kind == "sqlite":
        yield TestDatabase("sqlite", f"sqlite+aiosqlite:///{tmp_dir / 'test.sqlite3'}")
        return
    url = pg_url()
    if url is None:
        raise RuntimeError(PG_SKIP_MESSAGE)
    schema = f"t_{secrets.token_hex(6)}"
    asyncio.run(pg_exec(url, f'CREATE SCHEMA "{schema}"'))
    try:
        yield TestDatabase("postgresql", url, schema)
    finally:
        asyncio.run(pg_exec(url, f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
