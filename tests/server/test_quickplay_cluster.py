"""Two real server processes on one PostgreSQL and one Redis share one quick-play queue: people pressing
Play now on either process sit at the same tables, nobody is seated twice, and anyone can ask either
process where they were seated."""

from __future__ import annotations

import contextlib
import os
import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from server_kit import Person, ProcessServer, test_settings

from opolyx.storage.testing import PG_ENV, REDIS_ENV, fresh_database, pg_url

REDIS_URL = os.environ.get(REDIS_ENV) or None

pytestmark = pytest.mark.skipif(
    pg_url() is None or REDIS_URL is None,
    reason=f"cluster tests skipped: set {PG_ENV} and {REDIS_ENV} to run them",
)


@contextlib.contextmanager
def _two(tmp_path: Path, wait: float) -> Iterator[tuple[ProcessServer, ProcessServer]]:
    prefix = f"test:quickplay:{secrets.token_hex(6)}:"
    with fresh_database("postgresql", tmp_path) as db:
        servers = [
            ProcessServer(
                test_settings(
                    db,
                    tmp_path / name,
                    redis_url=REDIS_URL,
                    cluster_lease_seconds=1.0,
                    quickplay_redis_prefix=prefix,
                    quickplay_wait_seconds=wait,
                    quickplay_tick_seconds=0.05,
                    bot_delay_min=0.5,
                    bot_delay_max=0.5,
                ),
                tmp_path / f"{name}.log",
            )
            for name in ("a", "b")
        ]
        try:
            for s in servers:
                s.start()
            yield servers[0], servers[1]
        finally:
            for s in servers:
                s.stop()


def _seated(p: Person, timeout: float = 30.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        body: dict[str, Any] = p.http.get("/api/quickplay").json()
        if body["status"] == "seated":
            return str(body["room"])
        time.sleep(0.05)
    raise AssertionError(f"not seated: {body}")


def test_people_on_two_processes_share_one_queue(tmp_path: Path) -> None:
    with _two(tmp_path, wait=60.0) as (a, b):
        ann, bob = Person(a.base, "Ann"), Person(b.base, "Bob")
        try:
            assert ann.post("/api/quickplay", {"mode": "speed", "seats": 2}).json()["status"] == "queued"
            # Bob asks the other process, which sees Ann waiting in the same queue.
            queued = bob.post("/api/quickplay", {"mode": "speed", "seats": 2}).json()
            assert queued["status"] in ("queued", "seated")
            room = _seated(ann)
            assert _seated(bob) == room
            # Either process answers for the room, wherever its game runs.
            for p, server in ((ann, b), (bob, a)):
                view = p.http.get(f"{server.base}/api/rooms/{room}").json()
                assert view["status"] == "running" and sorted(x["name"] for x in view["players"]) == ["Ann", "Bob"]
        finally:
            ann.close()
            bob.close()


def test_many_people_on_both_processes_are_each_seated_once(tmp_path: Path) -> None:
    with _two(tmp_path, wait=1.0) as (a, b):
        crowd = [Person((a, b)[i % 2].base, f"P{i}") for i in range(14)]
        try:
            for i, p in enumerate(crowd):
                seats = (2, 3, None)[i % 3]
                assert p.post("/api/quickplay", {"mode": "classic", "seats": seats}).status_code == 200
            # One leaves at once: never seated.
            assert crowd[-1].http.delete("/api/quickplay").json()["status"] in ("idle", "seated")
            left_seated = crowd[-1].http.get("/api/quickplay").json()["status"] == "seated"
            rooms = {p.id: _seated(p) for p in (crowd if left_seated else crowd[:-1])}
            if not left_seated:
                assert crowd[-1].http.get("/api/quickplay").json()["status"] == "idle"
            seen: dict[str, int] = {}
            for room_id in set(rooms.values()):
                view = crowd[0].http.get(f"/api/rooms/{room_id}").json()
                assert view["status"] == "running"
                for player in view["players"]:
                    if player["kind"] == "human":
                        seen[player["name"]] = seen.get(player["name"], 0) + 1
            assert all(n == 1 for n in seen.values()), seen
            assert len(seen) == len(rooms)
        finally:
            for p in crowd:
                p.close()
