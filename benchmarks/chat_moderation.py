"""What table manners cost per chat line: the store's two questions for every line (is the speaker muted
by an operator; which readers must not see them) and the word filter (run once per line, shared by every
reader who keeps it on), in µs of wall time per line (database round trips included: on PostgreSQL most
of it is waiting, not the serving thread's CPU).

Each figure is the least of several rounds (other load only ever adds). SQLite by default; pass a
PostgreSQL URL to measure there (a fresh schema is made and dropped).

    .venv/bin/python benchmarks/chat_moderation.py [--lines 2000] [--rounds 5] [--readers 6]
    .venv/bin/python benchmarks/chat_moderation.py --database postgresql+asyncpg://postgres@127.0.0.1:5432/test
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import tempfile
import time

from opolyx.server.moderation import wordfilter
from opolyx.storage import SqlStore
from opolyx.storage.moderation import BLOCK, SILENCE
from opolyx.storage.testing import pg_exec

LINE = "good game everyone, nice trade on the greens, see you next round"


async def measure(url: str, schema: str, lines: int, rounds: int, readers: int) -> dict[str, float]:
    store = await SqlStore.open(url, schema=schema)
    try:
        ids = [secrets.token_hex(16) for _ in range(readers)]
        for uid in ids:
            await store.create_user(uid, "P", "en")
        await store.set_link(ids[1], ids[0], BLOCK, True)
        best = {"hidden_from": float("inf"), "active_sanction": float("inf"), "filter": float("inf")}
        for _ in range(rounds):
            t = time.perf_counter()
            for _ in range(lines):
                await store.hidden_from(ids, ids[0])
            best["hidden_from"] = min(best["hidden_from"], (time.perf_counter() - t) / lines)
            t = time.perf_counter()
            for _ in range(lines):
                await store.active_sanction(SILENCE, user_id=ids[0], address="127.0.0.1")
            best["active_sanction"] = min(best["active_sanction"], (time.perf_counter() - t) / lines)
            t = time.perf_counter()
            for _ in range(lines):
                wordfilter.clean(LINE)
            best["filter"] = min(best["filter"], (time.perf_counter() - t) / lines)
        return best
    finally:
        await store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", default="", help="a PostgreSQL URL (default: an SQLite file)")
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--readers", type=int, default=6)
    args = parser.parse_args()
    wordfilter.clean("warm up the lists")
    if args.database:
        schema = f"bench_{secrets.token_hex(4)}"
        asyncio.run(pg_exec(args.database, f'CREATE SCHEMA "{schema}"'))
        try:
            best = asyncio.run(measure(args.database, schema, args.lines, args.rounds, args.readers))
        finally:
            asyncio.run(pg_exec(args.database, f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        kind = "postgresql"
    else:
        with tempfile.TemporaryDirectory() as tmp:
            url = f"sqlite+aiosqlite:///{tmp}/bench.sqlite3"
            best = asyncio.run(measure(url, "", args.lines, args.rounds, args.readers))
        kind = "sqlite"
    print(f"{kind}, {args.readers} readers, least of {args.rounds} rounds of {args.lines} lines:")
    for name, seconds in best.items():
        print(f"  {name:16} {seconds * 1e6:8.1f} µs per line")
    total = best["hidden_from"] + best["active_sanction"]
    print(f"  {'store, per line':16} {total * 1e6:8.1f} µs")


if __name__ == "__main__":
    main()
