"""Alembic environment. The server runs migrations programmatically (see opolyx.storage.migrate) and
hands over an open connection; run by hand, ``alembic -c src/opolyx/storage/alembic.ini upgrade head``
reads the URL from OPOLYX_DATABASE_URL."""

from __future__ import annotations

import asyncio
import os

from alembic import context
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine

from opolyx.storage.tables import metadata

config = context.config
target_metadata = metadata


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


async def _run_standalone(url: str) -> None:
    engine = create_async_engine(url)
    async with engine.begin() as conn:
        await conn.run_sync(_run)
    await engine.dispose()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    url = os.environ.get("OPOLYX_DATABASE_URL") or config.get_main_option("sqlalchemy.url")
    if not url:
        raise SystemExit("set OPOLYX_DATABASE_URL to the database to migrate")
    asyncio.run(_run_standalone(url))


if context.is_offline_mode():
    raise SystemExit("offline (SQL script) migrations are not supported; run against a database")
run_migrations_online()
