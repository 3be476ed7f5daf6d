"""SQLite's checkpoints run beside the serving thread, never inside a commit on it.

A checkpoint copies the write-ahead log into the database file and waits for the disk (fsync). SQLite
runs one inside whichever commit fills the log past 1,000 pages; on the event loop's thread that stalled
every room of the server for 15-150 ms every few seconds under load.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from opolyx.storage.sql import LoopSqlite, SqlStore

pytestmark = pytest.mark.anyio

# Enough commits to fill the log past SQLite's automatic checkpoint (1,000 pages) more than once.
COMMITS = 1500


async def _write(store: SqlStore, prefix: str) -> None:
    for i in range(COMMITS):
        await store.create_user(f"{prefix}{i}", "Name", "en")


async def test_commits_leave_checkpoints_to_the_background(tmp_path: Path) -> None:
    path = tmp_path / "opolyx.sqlite3"
    url = f"sqlite+aiosqlite:///{path}"
    await (await SqlStore.open(url)).close()  # migrated
    size = path.stat().st_size

    quiet = SqlStore(LoopSqlite(url, checkpoint_seconds=0))  # no background checkpoints at all
    try:
        await _write(quiet, "a")
        # Everything is in the log: no commit copied it into the database file.
        assert path.stat().st_size == size
        assert await quiet.get_user(f"a{COMMITS - 1}") is not None
    finally:
        await quiet.close()

    size = path.stat().st_size
    store = SqlStore(LoopSqlite(url, checkpoint_seconds=0.05))
    try:
        await _write(store, "b")
        for _ in range(200):  # the background checkpoint lands within a few of its periods
            if path.stat().st_size > size:
                break
            await asyncio.sleep(0.05)
        assert path.stat().st_size > size
        assert await store.get_user(f"b{COMMITS - 1}") is not None
    finally:
        await store.close()
