"""Two real server processes on one PostgreSQL and one Redis serve the same rooms.

Clients on different processes play one room to the end and see the same events; killing the room's
owner hands the room to the other process (its lease expires) with nothing lost. Both ways a socket that
reaches the process not owning its room is served: relayed through Redis (the owner runs elsewhere), or
handed to the owner on this machine (handoff.py).
"""

from __future__ import annotations

import contextlib
import os
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from server_kit import Person, ProcessServer, Table, metric, scrape, test_settings

from opolyx.storage.testing import PG_ENV, REDIS_ENV, fresh_database, pg_url

REDIS_URL = os.environ.get(REDIS_ENV) or None

pytestmark = pytest.mark.skipif(
    pg_url() is None or REDIS_URL is None,
    reason=(
        f"cluster tests skipped: set {PG_ENV}=postgresql+asyncpg://postgres@127.0.0.1:5432/test and "
        f"{REDIS_ENV}=redis://127.0.0.1:6379/0 to run them"
    ),
)


class Rejoining(Table):
    """A table that, on a fresh snapshot (a new owner took the room), forgets the action in flight."""

    def absorb(self, f: dict[str, Any]) -> None:
        if f["type"] == "snapshot":
            self.awaiting = None
        super().absorb(f)


@contextlib.contextmanager
def _two(tmp_path: Path, *, a_hands_over: bool) -> Iterator[tuple[ProcessServer, ProcessServer]]:
    with fresh_database("postgresql", tmp_path) as db:
        servers = []
        for name in ("a", "b"):
            settings = test_settings(
                db,
                tmp_path / name,
                redis_url=REDIS_URL,
                cluster_lease_seconds=1.0,
                cluster_adopt_seconds=0.5,
                clock_checkpoint_seconds=0.2,
                cluster_socket_handoff=a_hands_over or name == "b",
            )
            servers.append(ProcessServer(settings, tmp_path / f"{name}.log"))
        try:
            for s in servers:
                s.start()
            yield servers[0], servers[1]
        finally:
            for s in servers:
                s.stop()


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[tuple[ProcessServer, ProcessServer]]:
    """A takes no sockets from B, as if it ran on another machine: B relays its sockets' frames."""
    with _two(tmp_path, a_hands_over=False) as servers:
        yield servers


@pytest.fixture
def neighbours(tmp_path: Path) -> Iterator[tuple[ProcessServer, ProcessServer]]:
    """Two processes on one machine passing sockets to each other (``opolyx serve --workers``)."""
    with _two(tmp_path, a_hands_over=True) as servers:
        yield servers


def _play_both(tables: list[Table], until: int | None = None, max_seconds: float = 180) -> None:
    """Drive both seats until the game is over (or every table has seen seq ``until``)."""
    deadline = time.monotonic() + max_seconds
    for t in tables:
        t.p.send({"type": "sync"})
    while not all(t.over or (until is not None and t.seq >= until and t.awaiting is None) for t in tables):
        assert time.monotonic() < deadline, [t.seq for t in tables]
        for t in tables:
            if t.over or (until is not None and t.seq >= until and t.awaiting is None):
                continue
            with contextlib.suppress(TimeoutError):
                t.step(timeout=0.05)


def test_two_processes_play_one_room(pair: tuple[ProcessServer, ProcessServer]) -> None:
    a, b = pair
    ann, bob = Person(a.base, "Ann"), Person(b.base, "Bob")
    try:
        room = ann.create("blitz", 2)  # created on A: A owns it
        joined = bob.post(f"/api/rooms/{room['id']}/join")  # asked of B, forwarded to A
        assert joined.status_code == 200, joined.text
        assert [p["name"] for p in joined.json()["players"]] == ["Ann", "Bob"]
        ann.connect(room["id"])
        # B holds Bob's socket and relays the owner's frames; Bob asks for the game's changes only.
        bob.connect(room["id"], changes=True)
        started = ann.post(f"/api/rooms/{room['id']}/start")
        assert started.status_code == 200, started.text
        tables = [Table(ann, random.Random(1)), Table(bob, random.Random(2))]
        _play_both(tables)
        assert tables[0].result == tables[1].result is not None
        assert tables[0].events_seen == tables[1].events_seen
        assert tables[0].changes_frames == 0 and tables[1].changes_frames > 10
        assert tables[1].game == tables[0].game  # rebuilt from changes relayed by the owner
        assert [seq for seq, _ in tables[0].events_seen] == list(range(1, tables[0].seq + 1))
        view = bob.http.get(f"/api/rooms/{room['id']}").json()
        assert view["status"] == "finished"
    finally:
        ann.close()
        bob.close()


def test_killing_the_owner_hands_the_room_over(pair: tuple[ProcessServer, ProcessServer]) -> None:
    a, b = pair
    ann, bob = Person(a.base, "Ann"), Person(b.base, "Bob")
    try:
        room = ann.create("blitz", 3)
        assert ann.post(f"/api/rooms/{room['id']}/bots", {"strength": "easy"}).status_code == 200
        assert bob.post(f"/api/rooms/{room['id']}/join").status_code == 200
        ann.connect(room["id"])
        bob.connect(room["id"], changes=True)  # the new owner's first frame to Bob is a snapshot
        assert ann.post(f"/api/rooms/{room['id']}/start").status_code == 200
        tables = [Rejoining(ann, random.Random(3)), Rejoining(bob, random.Random(4))]
        _play_both(tables, until=20)
        before = {seq: events for seq, events in tables[1].events_seen}

        a.kill()  # the owner dies; Bob's socket on B stays open
        ann.disconnect()
        ann.base = b.base
        ann.http.base_url = b.base  # type: ignore[assignment]
        ann.connect(room["id"])  # Ann comes back through B, which takes the room over

        _play_both(tables)
        assert tables[0].result == tables[1].result is not None
        assert tables[1].game == tables[0].game
        after = {seq: events for seq, events in tables[1].events_seen}
        for seq, events in before.items():
            assert after[seq] == events
        replay = bob.http.get(f"/games/{room['id']}/replay").json()
        stored = [x["seq"] for x in replay["actions"]]
        assert stored == list(range(1, len(stored) + 1))
        assert len(stored) == tables[1].seq
        # Everything Bob saw before the crash is in the log, unchanged.
        assert max(before) <= len(stored)
        # B's metrics show it took the room's lease over.
        assert metric(scrape(b.base), "opolyx_lease_moves_total", direction="taken") >= 1
    finally:
        ann.close()
        bob.close()


def _handoffs(server: ProcessServer) -> dict[str, float]:
    samples = scrape(server.base)
    results = ("passed", "kept", "adopted", "declined")
    return {r: metric(samples, "opolyx_socket_handoffs_total", result=r) for r in results}


@contextlib.contextmanager
def _ann_on_a_bob_on_b(
    a: ProcessServer, b: ProcessServer, *, bob_first: bool = False
) -> Iterator[tuple[Person, Person, str]]:
    """A two-seat Blitz game created on A (so A owns it), Ann's socket opened at A and Bob's at B (Bob's
    first with ``bob_first``), started; yields the people and the room id."""
    ann, bob = Person(a.base, "Ann"), Person(b.base, "Bob")
    try:
        room_id = ann.create("blitz", 2)["id"]
        assert bob.post(f"/api/rooms/{room_id}/join").status_code == 200
        for person in (bob, ann) if bob_first else (ann, bob):
            person.connect(room_id, changes=person is bob)
        assert ann.post(f"/api/rooms/{room_id}/start").status_code == 200
        yield ann, bob, room_id
    finally:
        ann.close()
        bob.close()


def test_a_socket_reaching_the_other_process_is_served_by_the_owner(
    neighbours: tuple[ProcessServer, ProcessServer],
) -> None:
    a, b = neighbours
    # Bob's socket reaches B, which passes it to A before answering its handshake.
    with _ann_on_a_bob_on_b(a, b) as (ann, bob, _room):
        tables = [Table(ann, random.Random(5)), Table(bob, random.Random(6))]
        _play_both(tables)
        assert tables[0].result == tables[1].result is not None
        assert tables[0].events_seen == tables[1].events_seen
        assert tables[1].game == tables[0].game
        assert _handoffs(b)["passed"] == 1 and _handoffs(a)["adopted"] == 1
        # Both sockets live in A; B holds none (nothing of this game went through Redis).
        assert metric(scrape(a.base), "opolyx_players_connected") == 2
        assert metric(scrape(b.base), "opolyx_players_connected") == 0


def test_an_owner_that_served_no_socket_yet_declines_and_the_socket_is_relayed(
    neighbours: tuple[ProcessServer, ProcessServer],
) -> None:
    a, b = neighbours
    # A has not served a room socket yet when Bob's arrives, so it cannot build one: B keeps it and relays.
    with _ann_on_a_bob_on_b(a, b, bob_first=True) as (ann, bob, _room):
        tables = [Table(ann, random.Random(7)), Table(bob, random.Random(8))]
        _play_both(tables, until=15)
        assert tables[0].events_seen[:15] == tables[1].events_seen[:15]
        assert _handoffs(b)["kept"] == 1 and _handoffs(a)["declined"] == 1
        assert metric(scrape(b.base), "opolyx_players_connected") == 1


def test_when_the_owner_dies_handed_over_sockets_come_back_through_the_other_process(
    neighbours: tuple[ProcessServer, ProcessServer],
) -> None:
    a, b = neighbours
    with _ann_on_a_bob_on_b(a, b) as (ann, bob, room_id):  # Bob's socket is held by A from the start
        tables = [Rejoining(ann, random.Random(9)), Rejoining(bob, random.Random(10))]
        _play_both(tables, until=15)
        before = dict(tables[1].events_seen)

        a.kill()  # both sockets lived in A: both people reconnect, through B, which takes the room over
        for person in (ann, bob):
            person.disconnect()
            person.base = b.base
            person.http.base_url = b.base  # type: ignore[assignment]
            person.connect(room_id, changes=True)
        _play_both(tables)
        assert tables[0].result == tables[1].result is not None
        assert tables[1].game == tables[0].game
        after = dict(tables[1].events_seen)
        assert all(after[seq] == events for seq, events in before.items())
        replay = bob.http.get(f"/games/{room_id}/replay").json()
        assert [x["seq"] for x in replay["actions"]] == list(range(1, tables[1].seq + 1))
