"""A process of a cluster keeps the leases of its rooms while it is busy with other cluster work.

Under load (a few hundred rooms on two workers) adopting unowned games took seconds; renewing leases
waited behind it, the leases expired, and the other worker took rooms that were still being played
here: both then ran them, actions were refused as conflicts and every socket of those rooms got
re-attached over and over.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

from opolyx.server.cluster import Cluster
from opolyx.server.engine_api import load_engine
from opolyx.server.hub import HubContext
from opolyx.server.rooms import RoomService
from opolyx.server.settings import Settings
from opolyx.storage.testing import REDIS_ENV

REDIS_URL = os.environ.get(REDIS_ENV) or None

pytestmark = pytest.mark.skipif(
    REDIS_URL is None, reason=f"lease tests skipped: set {REDIS_ENV}=redis://127.0.0.1:6379/0 to run them"
)


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
        rooms = RoomService(HubContext(settings, store, load_engine), cluster)
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
