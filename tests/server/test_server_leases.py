"""A process of a cluster keeps the leases of its rooms, and carries out lobby calls once, while it is
busy with other cluster work.

Under load (a few hundred rooms on two workers) adopting unowned games took seconds; renewing leases
waited behind it, the leases expired, and the other worker took rooms that were still being played
here: both then ran them, actions were refused as conflicts and every socket of those rooms got
re-attached over and over.
"""

from __future__ import annotations

import asyncio
import os
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from opolyx.server.cluster.node import Cluster
from opolyx.server.engine_api import load_engine
from opolyx.server.play import rooms as rooms_module
from opolyx.server.play.context import HubContext
from opolyx.server.play.rooms import RoomService
from opolyx.server.settings import Settings
from opolyx.storage import UserRecord
from opolyx.storage.testing import REDIS_ENV

REDIS_URL = os.environ.get(REDIS_ENV) or None

pytestmark = pytest.mark.skipif(
    REDIS_URL is None, reason=f"lease tests skipped: set {REDIS_ENV}=redis://127.0.0.1:6379/0 to run them"
)


async def no_frames(hub: Any, conn: Any, raw: Any) -> None:
    """No socket sends frames in these tests."""



class SlowListing:
    """A store whose listing of running games takes longer than a lease lasts (a busy database)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    async def list_rooms(self, statuses: Any, **_: Any) -> list[Any]:
        await asyncio.sleep(self.seconds)
        return []

    async def save_clocks_many(self, due: Any) -> None:
        return None


def test_a_room_lease_is_kept_while_adopting_games_is_slow(tmp_path: Path) -> None:
    assert REDIS_URL is not None
    lease = 0.3
    settings = Settings(
        data_dir=tmp_path, cluster_lease_seconds=lease, cluster_adopt_seconds=0.05, secret_key="test-secret"
    )

    async def run() -> tuple[str | None, str]:
        cluster = Cluster(REDIS_URL, lease)
        store: Any = SlowListing(seconds=8 * lease)
        rooms = RoomService(HubContext(settings, store, load_engine), cluster, on_frame=no_frames)
        await rooms.start_cluster()
        room_id = f"lease-test-{cluster.node}"
        try:
            assert await cluster.acquire(room_id)
            rooms.start_checkpoints()
            await asyncio.sleep(6 * lease)  # the first adoption pass is still listing rooms
            return await cluster.owner(room_id), cluster.node
        finally:
            await rooms.close()
            await cluster.close()

    owner, node = asyncio.run(run())
    assert owner == node


def test_a_crowd_of_redis_commands_waits_for_connections_instead_of_failing() -> None:
    """A few thousand sockets opening together each ask Redis who owns their room: more commands at
    once than the process keeps connections for must queue, not fail the sockets ("Too many
    connections" closed them, and a failed renewal cost leases)."""
    assert REDIS_URL is not None

    async def run() -> list[str | None]:
        cluster = Cluster(REDIS_URL, 5.0)
        try:
            return await asyncio.gather(*(cluster.owner(f"crowd-{cluster.node}-{i}") for i in range(600)))
        finally:
            await cluster.close()

    assert asyncio.run(run()) == [None] * 600


class Users:
    """A store that knows every caller (the owner looks the caller of a forwarded lobby call up)."""

    async def get_user(self, user_id: str) -> UserRecord:
        return UserRecord(user_id, "Ann", "en", None, datetime(2026, 1, 1, tzinfo=UTC))


def test_a_lobby_call_retried_after_a_timeout_is_carried_out_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A busy owner answers a forwarded "add a bot" after the caller's timeout: the caller asks again,
    and the owner must answer the retry with the first call's result instead of adding a second bot
    (or, for "start", answering ``already_started`` to the person who started the game)."""
    assert REDIS_URL is not None
    settings = Settings(data_dir=tmp_path, cluster_call_timeout=0.4, secret_key="test-secret")
    carried_out: list[tuple[str, tuple[Any, ...]]] = []

    async def slow_call(hub: Any, op: str, user: Any, args: Any) -> dict[str, Any]:
        carried_out.append((op, tuple(args)))
        await asyncio.sleep(1.0)  # longer than the caller waits, twice
        return {"id": hub.room.id, "bots": len(carried_out)}

    monkeypatch.setattr(rooms_module, "_local_call", slow_call)

    async def run() -> dict[str, Any]:
        owner_cluster, caller_cluster = Cluster(REDIS_URL, 5.0), Cluster(REDIS_URL, 5.0)
        store: Any = Users()
        owner = RoomService(HubContext(settings, store, load_engine), owner_cluster, on_frame=no_frames)
        caller = RoomService(HubContext(settings, store, load_engine), caller_cluster, on_frame=no_frames)
        room_id = f"retry-test-{owner_cluster.node}"
        await owner.start_cluster()
        await caller.start_cluster()
        try:
            assert await owner_cluster.acquire(room_id)
            owner.hubs[room_id] = cast(Any, SimpleNamespace(room=SimpleNamespace(id=room_id)))
            user = await store.get_user("u1")
            return await caller.call(room_id, "add_bot", user, "normal")
        finally:
            owner.hubs.pop(room_id, None)
            await owner_cluster.release(room_id)
            for service, cluster in ((owner, owner_cluster), (caller, caller_cluster)):
                await service.close()
                await cluster.close()

    view = asyncio.run(run())
    assert carried_out == [("add_bot", ("normal",))]
    assert view["bots"] == 1
