"""Accounts and progression costs (issue 10): what finishing a game adds, and the leaderboard's reads.

Prints, on SQLite in a temporary directory (and on PostgreSQL when OPOLYX_TEST_DATABASE_URL is set):
- the XP facts of a finished game (loading its measured log and replaying it for turns played and
  elimination rounds), per game and per action;
- ``finish_game`` with two credited seats (one transaction: result, XP, levels, drops);
- the leaderboard (all time and this week, by XP) over USERS accounts with AWARDS XP rows, and the
  viewer's own position when outside the top.

    .venv/bin/python benchmarks/accounts.py [--users 20000] [--awards 60000] [--games 20]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import secrets
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import sqlalchemy as sa

import opolyx.engine
from opolyx.server.play import xp_credit
from opolyx.storage import NewRoom, SeatRecord, SqlStore
from opolyx.storage.tables import users, xp_awards
from opolyx.storage.testing import pg_url


def long_game(seed: int) -> tuple[list[tuple[int | None, dict[str, Any]]], dict[str, Any]]:
    rng = random.Random(seed)
    game = opolyx.engine.new_game("classic", 2, seed)
    log: list[tuple[int | None, dict[str, Any]]] = []
    while not game.is_over:
        seat = game.actor()
        assert seat is not None
        legal = [a for a in game.legal_actions(seat) if a["type"] not in ("propose_trade", "resign")]
        action = rng.choice(legal)
        game.apply(seat, action)
        log.append((seat, action))
    return log, game.snapshot()


async def bench(url: str, schema: str, args: argparse.Namespace) -> None:
    store = await SqlStore.open(url, schema=schema)
    try:
        # XP facts of finished games.
        games = [long_game(seed) for seed in range(args.games)]
        actions = sum(len(log) for log, _ in games)
        for u in ("a", "b"):
            await store.create_user(u, u, "en")
        rooms = []
        facts = finishing = 0.0
        for k, (log, snap) in enumerate(games):
            rid = f"g{k}"
            await store.create_room(NewRoom(rid, None, "classic", 2, True, "a", "a"))
            await store.take_seat(rid, 1, user_id="b", bot=None, name="b")
            seats = [SeatRecord(0, "a", None, "a"), SeatRecord(1, "b", None, "b")]
            room = await store.start_game(rid, seed=k, seats=seats, seat_info=[{}, {}])
            rooms.append(room)
            # The log as the server stores it: each action measured (a person answering after 13 s).
            for seq, (seat, action) in enumerate(log, start=1):
                await store.append_action(rid, seq, seat, action, actor="person", elapsed_ms=13_000)
            t0 = time.perf_counter()
            credits = await xp_credit.credits(store, opolyx.engine, room, log, snap)
            t1 = time.perf_counter()
            await store.finish_game(rid, snap["result"], credits)
            facts += t1 - t0
            finishing += time.perf_counter() - t1
        print(
            f"  XP facts of a finished game: {facts / args.games * 1000:8.1f} ms/game "
            f"({facts / actions * 1e6:.1f} µs/action, {actions // args.games} actions/game)"
        )
        print(f"  finish_game with 2 credits:  {finishing / args.games * 1000:8.2f} ms/game")

        # A populated leaderboard.
        now = datetime.now(UTC)
        rng = random.Random(7)
        user_rows = [
            {
                "id": f"u{i}",
                "nickname": f"p{i}",
                "language": "en",
                "created_at": now,
                "xp": rng.randrange(100000),
                "level": 1,
                "wins": rng.randrange(300),
            }
            for i in range(args.users)
        ]
        award_rows = [
            {
                "game_id": rooms[i % len(rooms)].id,
                "seat": 2 + i,
                "user_id": f"u{rng.randrange(args.users)}",
                "xp": rng.randrange(200),
                "parts": {},
                "refused": None,
                "won": rng.random() < 0.3,
                "level_before": 1,
                "level_after": 1,
                "created_at": now - timedelta(hours=rng.randrange(24 * 30)),
            }
            for i in range(args.awards)
        ]
        async with store.engine.begin() as conn:
            for start in range(0, len(user_rows), 5000):
                await conn.execute(users.insert(), user_rows[start : start + 5000])
            for start in range(0, len(award_rows), 5000):
                await conn.execute(xp_awards.insert(), award_rows[start : start + 5000])
            if conn.dialect.name == "postgresql":
                # What autovacuum does soon after a bulk load; without statistics the planner guesses badly.
                await conn.execute(sa.text("ANALYZE"))
        week = (now - timedelta(days=now.weekday())).replace(hour=0, minute=0, second=0, microsecond=0)
        # Viewers far down the board, so their own place is counted, not found among the top rows.
        by_xp = sorted(user_rows, key=lambda r: r["xp"])
        viewers = {None: by_xp[len(by_xp) // 10]["id"]}
        recent = [a for a in award_rows if a["created_at"] >= week]
        viewers[week] = min((a for a in recent if a["xp"] > 0), key=lambda a: a["xp"])["user_id"]
        for label, since in (("all time", None), ("this week", week)):
            runs = 20
            t0 = time.perf_counter()
            for _ in range(runs):
                rows, own = await store.leaderboard("xp", since=since, limit=50, viewer=viewers[since])
            per = (time.perf_counter() - t0) / runs * 1000
            place = own.position if own else "-"
            print(f"  leaderboard {label:<9} (top {len(rows)} + own place {place}): {per:8.2f} ms")
    finally:
        await store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--users", type=int, default=20000)
    parser.add_argument("--awards", type=int, default=60000)
    parser.add_argument("--games", type=int, default=20)
    args = parser.parse_args()
    print(f"{args.users} accounts, {args.awards} XP rows, {args.games} games")
    with tempfile.TemporaryDirectory() as tmp:
        print("SQLite")
        asyncio.run(bench(f"sqlite+aiosqlite:///{Path(tmp) / 'bench.sqlite3'}", "", args))
    url = pg_url()
    if url:
        import asyncpg  # type: ignore[import-untyped]

        schema = f"bench_{secrets.token_hex(4)}"

        async def drop() -> None:
            conn = await asyncpg.connect(url.replace("postgresql+asyncpg://", "postgresql://", 1))
            try:
                await conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
            finally:
                await conn.close()

        print("PostgreSQL")
        try:
            asyncio.run(bench(url, schema, args))
        finally:
            asyncio.run(drop())


if __name__ == "__main__":
    main()
