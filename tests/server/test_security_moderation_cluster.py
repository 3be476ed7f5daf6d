"""A ban reaches every process of a cluster: the banned person's sockets close wherever they are served."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
from moderation_kit import appoint
from server_kit import Person, test_settings
from websockets.exceptions import ConnectionClosed

from live_server import ThreadServer
from opolyx.storage.testing import REDIS_ENV, fresh_database, pg_url

REDIS_URL = os.environ.get(REDIS_ENV) or None
pytestmark = pytest.mark.skipif(pg_url() is None or REDIS_URL is None, reason="needs PostgreSQL and Redis")


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[tuple[ThreadServer, ThreadServer]]:
    with fresh_database("postgresql", tmp_path) as db, ExitStack() as stack:
        a, b = (
            stack.enter_context(ThreadServer(test_settings(db, tmp_path / n, redis_url=REDIS_URL))) for n in ("a", "b")
        )
        yield a, b


def closed(p: Person) -> bool:
    try:
        while True:
            p.recv(timeout=15)
    except (ConnectionClosed, EOFError):
        return True
    except TimeoutError:
        return False


def test_a_ban_closes_every_socket_of_the_person_on_every_worker(pair: tuple[ThreadServer, ThreadServer]) -> None:
    a, b = pair
    ann = Person(a.base, "Ann")
    op = Person(a.base, "Op")
    bob_a = Person(a.base, "Bob")
    bob_b = Person(b.base, "Bob")
    cid = Person(b.base, "Cid")
    made = [ann, op, bob_a, bob_b, cid]
    try:
        appoint(a, op)
        appoint(b, op)
        # Bob's second session is the same person: signed in through process b with the first's token.
        bob_b.http.headers["Authorization"] = f"Bearer {bob_a.token}"
        bob_b.token, bob_b.id = bob_a.token, bob_a.id
        here = ann.create()  # owned by process a
        there = cid.create()  # owned by process b
        bob_a.connect(here["id"])  # served by a, room on a
        bob_a.recv_until("snapshot")
        bob_b.connect(there["id"])  # served by b, room on b
        bob_b.recv_until("snapshot")
        spare = Person(b.base, "Bob-too")
        made.append(spare)
        spare.token, spare.id = bob_a.token, bob_a.id
        spare.connect(here["id"])  # served by b, room on a: relayed through Redis
        spare.recv_until("snapshot")
        # The operator bans Bob through process a.
        r = op.post("/api/operator/sanctions", {"kind": "ban", "user": bob_a.id, "minutes": 30, "reason": "abuse"})
        assert r.status_code == 201, r.text
        assert closed(bob_a) and closed(bob_b) and closed(spare)
        # Ann and Cid play on.
        ann.connect(here["id"])
        assert ann.recv_until("snapshot")
        # Reconnecting through either process is refused: the session is gone.
        for srv in (a, b):
            again = Person(srv.base, "Tmp")
            made.append(again)
            again.token = bob_a.token
            again.connect(there["id"])
            assert again.recv()["code"] == "not_authenticated"
    finally:
        for p in made:
            p.close()


def test_opolyx_admin_bans_through_redis_and_every_worker_closes_the_sockets(
    pair: tuple[ThreadServer, ThreadServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from opolyx.cli import app

    a, b = pair
    for name, value in (
        ("DATABASE_URL", a.settings.database_url),
        ("DATABASE_SCHEMA", a.settings.database_schema),
        ("REDIS_URL", REDIS_URL or ""),
    ):
        monkeypatch.setenv(f"OPOLYX_{name}", value)
    ann, eve_a, eve_b = Person(a.base, "Ann"), Person(a.base, "Eve"), Person(b.base, "Eve")
    try:
        eve_b.token, eve_b.id = eve_a.token, eve_a.id
        room = ann.create()
        eve_a.connect(room["id"])
        eve_a.recv_until("snapshot")
        eve_b.connect(room["id"])  # the same person through the other worker
        eve_b.recv_until("snapshot")
        result = CliRunner().invoke(
            app, ["admin", "ban", "--user", eve_a.id, "--minutes", "10", "--reason", "spam", "--operator", "ops"]
        )
        assert result.exit_code == 0, result.output
        assert "every socket closed" in result.output
        assert closed(eve_a) and closed(eve_b)
    finally:
        for p in (ann, eve_a, eve_b):
            p.close()
