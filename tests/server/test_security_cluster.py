"""In a cluster, hostile frames are stopped where the socket lives and never cost the next frame."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from server_kit import Person, test_settings

from live_server import ThreadServer
from opolyx.storage.testing import REDIS_ENV, fresh_database, pg_url

REDIS_URL = os.environ.get(REDIS_ENV) or None
pytestmark = pytest.mark.skipif(pg_url() is None or REDIS_URL is None, reason="needs PostgreSQL and Redis")


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[tuple[ThreadServer, ThreadServer]]:
    with fresh_database("postgresql", tmp_path) as db, ExitStack() as stack:
        a, b = (
            stack.enter_context(ThreadServer(test_settings(db, tmp_path / n, redis_url=REDIS_URL)))
            for n in ("a", "b")
        )
        yield a, b


def test_frames_are_checked_before_they_travel_to_the_owner(pair: tuple[ThreadServer, ThreadServer]) -> None:
    a, b = pair
    ann = Person(a.base, "Ann")
    bob = Person(b.base, "Bob")
    try:
        room = ann.create()  # owned by process a
        cluster = b.server.config.app.state.services.rooms.cluster  # type: ignore[attr-defined]
        posted: list[dict[str, Any]] = []
        real_post = cluster.post

        def spy(node: str, message: dict[str, Any]) -> None:
            posted.append(message)
            real_post(node, message)

        cluster.post = spy
        bob.connect(room["id"])  # through process b
        bob.recv_until("snapshot")
        big = '{"type":"chat","text":"' + "x" * 40_000 + '"}'
        bob.send(big)
        assert bob.recv_until("error")["code"] == "frame_too_large"
        assert not [m for m in posted if m.get("t") == "frame" and len(str(m.get("raw"))) > 16_384]
        # A frame nested thousands deep is refused by the owner, and the next frame still arrives.
        bob.send("[" * 5_000 + "]" * 5_000)
        assert bob.recv_until("error")["code"] == "bad_json"
        bob.send({"type": "ping", "ref": "after"})
        assert bob.recv_until("pong")["ref"] == "after"
    finally:
        ann.close()
        bob.close()
