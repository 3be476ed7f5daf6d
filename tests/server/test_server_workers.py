"""``opolyx serve --workers 2``: two processes on one port share the rooms through Redis leases.

Which worker accepts a connection is the kernel's choice, so the test opens rooms until both workers
own some (the Redis leases say who), then plays in them with sockets landing wherever they land, and
checks that any worker's /metrics answers for both.
"""

from __future__ import annotations

import contextlib
import os
import random
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from redis import Redis
from server_kit import SRC, Person, ProcessServer, Table, metric, scrape, test_settings

from live_server import quick_settings
from opolyx.server.cluster.node import LEASE
from opolyx.storage.testing import PG_ENV, REDIS_ENV, fresh_database, pg_url

REDIS_URL = os.environ.get(REDIS_ENV) or None

needs_cluster = pytest.mark.skipif(
    pg_url() is None or REDIS_URL is None,
    reason=f"--workers tests skipped: set {PG_ENV} and {REDIS_ENV} to run them",
)


@pytest.fixture
def workers(tmp_path: Path) -> Iterator[ProcessServer]:
    with fresh_database("postgresql", tmp_path) as db:
        settings = test_settings(db, tmp_path / "data", redis_url=REDIS_URL, bot_delay_min=0.05, bot_delay_max=0.1)
        server = ProcessServer(settings, tmp_path / "workers.log", args=["--workers", "2"])
        try:
            server.start()
            yield server
        finally:
            server.stop()


@needs_cluster
def test_two_workers_share_rooms_and_metrics(workers: ProcessServer) -> None:
    assert REDIS_URL is not None
    redis = Redis.from_url(REDIS_URL)
    people: list[Person] = []
    owners: dict[str, str] = {}
    try:
        # Each person has their own HTTP connection, accepted by one worker or the other.
        for i in range(40):
            p = Person(workers.base, f"P{i}")
            people.append(p)
            room = p.create("blitz", 2)
            assert p.post(f"/api/rooms/{room['id']}/bots", {"strength": "easy"}).status_code == 200
            owner = redis.get(LEASE + room["id"])
            assert isinstance(owner, bytes)
            owners[room["id"]] = owner.decode()
            if len(set(owners.values())) == 2 and len(owners) >= 4:
                break
        assert len(set(owners.values())) == 2, "every room went to one worker"

        # Everyone plays against their bot, watched by a spectator; sockets land on either worker.
        tables: list[Table] = []
        watchers: list[Person] = []
        for p, room_id in zip(list(people), owners, strict=False):
            p.connect(room_id)
            w = Person(workers.base, "Watcher")
            watchers.append(w)
            people.append(w)
            w.connect(room_id)
            # The watcher's socket may sit on the other worker, which attaches it to the owner over Redis:
            # its snapshot says it is attached, so the game's first events cannot pass it by (before this
            # wait a loaded machine started the game first and the watcher began at a later snapshot).
            w.recv_until("snapshot")
            assert p.post(f"/api/rooms/{room_id}/start").status_code == 200, room_id
            tables.append(Table(p, random.Random(len(tables))))
        sockets = 2 * len(owners)
        for t in tables:
            t.p.send({"type": "sync"})
        deadline = time.monotonic() + 120
        while not all(t.seq >= 6 or t.over for t in tables):
            assert time.monotonic() < deadline, [t.seq for t in tables]
            for t in tables:
                with contextlib.suppress(TimeoutError):
                    t.step(timeout=0.05)
        # Each watcher, wherever its socket is, saw the player's events in the same order.
        for t, w in zip(tables, watchers, strict=True):
            played = dict(t.events_seen)
            seen: list[int] = []
            while len(seen) < min(6, t.seq):
                f = w.recv()
                if f["type"] == "events":
                    assert f["events"] == played[f["seq"]]
                    seen.append(f["seq"])
            assert seen == list(range(1, len(seen) + 1))

        # Whichever worker answers, the figures are the sum over both.
        for _ in range(6):
            samples = scrape(workers.base)
            assert metric(samples, "opolyx_players_connected") == sockets
            assert metric(samples, "opolyx_lease_moves_total", direction="taken") >= len(owners)
            assert metric(samples, "opolyx_actions_total") >= 6 * len(owners)
        deadline = time.monotonic() + 10
        while metric(scrape(workers.base), "opolyx_rooms", status="running") != len(owners):
            assert time.monotonic() < deadline
            time.sleep(0.2)
    finally:
        for p in people:
            p.close()
        redis.close()


def test_workers_refuse_sqlite(tmp_path: Path) -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(SRC) + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("OPOLYX_REDIS_URL", None)
    env.pop("OPOLYX_DATABASE_URL", None)
    settings = quick_settings(tmp_path / "data")
    done = subprocess.run(
        [sys.executable, "-m", "opolyx.server", "serve", "--workers", "2", "--port", str(settings.port),
         "--data-dir", str(tmp_path / "data")],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "needs PostgreSQL" in done.stderr


def test_a_worker_logs_one_plain_line_per_record(tmp_path: Path) -> None:
    """Each ``--workers`` process logs like the single server: a third-party library (MCP) would
    otherwise install rich-formatted logging that spends about half a second of CPU on each logged
    traceback, during which the worker's rooms all wait."""
    env = dict(os.environ, OPOLYX_DATA_DIR=str(tmp_path / "data"))
    env["PYTHONPATH"] = str(SRC) + os.pathsep + env.get("PYTHONPATH", "")
    script = (
        "import logging\n"
        "from opolyx.server.cli import worker_app\n"
        "worker_app()\n"
        "print(sorted({type(h).__name__ for h in logging.getLogger().handlers}))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["['StreamHandler']"]
