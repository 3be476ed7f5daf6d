"""Several server processes serving the same rooms, through Redis (enabled by ``OPOLYX_REDIS_URL``).

Each room is owned by one process at a time: the holder of the Redis key ``opolyx:lease:<room>``
(value: that process's node id, with an expiry the owner keeps renewing). Only the owner runs the
room's hub, clocks and bots and applies actions, so "persist, then broadcast" and the single order
of events hold exactly as in one process. Any other process that has clients in the room forwards
their frames (and lobby calls about the room) to the owner over Redis pub/sub, and the owner sends
each of those clients' outgoing frames back to the process holding its socket, which relays them.

When the owner dies its lease expires; another process takes the lease, replays the game from the
database (every accepted action is there before anybody saw its events), resumes clocks and bots,
and the processes holding sockets re-attach them, each client receiving a fresh snapshot. Should two
processes ever both believe they own a room, the ``(game id, seq)`` primary key lets only one of
them store the next action; the other refuses it.

Every process listens on one channel, ``opolyx:node:<node id>``, and on ``opolyx:node:all`` for what
concerns every process (closing a deleted account's sockets); messages are JSON batches.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from opolyx.jsontypes import JSON
from opolyx.server.play.peers import Peer
from opolyx.server.wire import dumps, loads
from opolyx.storage import UserRecord

if TYPE_CHECKING:
    from redis.asyncio import Redis

    from opolyx.server.http.metrics import ServerMetrics

log = logging.getLogger(__name__)

LEASE = "opolyx:lease:"
CHANNEL = "opolyx:node:"
# Posted to this "node", a message reaches every process (this one too). Node ids are hex: no clash.
EVERYONE = "all"
# Redis connections one process keeps for its sockets, lobby calls and rate limits. Above that many
# commands at once (a few thousand sockets opening together) a command waits for a connection, up to
# REDIS_WAIT seconds; redis-py's default pool instead failed it ("Too many connections"), and with it
# the socket, the frame or the lease renewal that sent it.
REDIS_CONNECTIONS = 64
REDIS_WAIT = 30.0

# Renew our leases (only those still ours) in one round trip; answers 1/0 per room.
_RENEW = """
local out = {}
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then
    redis.call('PEXPIRE', key, ARGV[2])
    out[i] = 1
  else
    out[i] = 0
  end
end
return out
"""
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


class RemoteConnection(Peer):
    """On the owner: a client whose socket lives in another process. Frames go back over Redis."""

    def __init__(self, cluster: Cluster, node: str, conn_id: str, room_id: str, user: UserRecord, address: str):
        self.cluster = cluster
        self.node = node
        self.id = conn_id
        self.room_id = room_id
        self.user = user
        self.address = address
        self.closed = False
        self.inbox: asyncio.Queue[JSON] = asyncio.Queue()
        self.worker: asyncio.Task[None] | None = None

    def send_text(self, text: str) -> None:
        if not self.closed:
            self.cluster.post(self.node, {"t": "out", "conn": self.id, "text": text})

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.cluster.post(self.node, {"t": "close", "conn": self.id})


def _node(lease: object) -> str | None:
    """The process a lease value names (None: no lease)."""
    return lease.decode() if isinstance(lease, bytes) else None


class Cluster:
    """The Redis side: leases, one pub/sub channel per process, an ordered outbox, request/reply."""

    def __init__(self, url: str, lease_seconds: float, *, metrics: ServerMetrics | None = None) -> None:
        from redis.asyncio import BlockingConnectionPool, Redis

        self.metrics = metrics
        pool = BlockingConnectionPool.from_url(url, max_connections=REDIS_CONNECTIONS, timeout=REDIS_WAIT)
        self.redis: Redis = Redis(connection_pool=pool)
        # Leases on a connection of their own: a renewal never queues behind the sockets' traffic.
        self.lease_redis: Redis = Redis(connection_pool=BlockingConnectionPool.from_url(url, max_connections=2))
        self.node = secrets.token_hex(8)
        self.lease_ms = int(lease_seconds * 1000)
        self.owned: set[str] = set()
        self._outbox: dict[str, list[JSON]] = {}
        self._wake = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._replies: dict[str, asyncio.Future[JSON]] = {}
        self._handler: Callable[[str, JSON], Awaitable[None] | None] | None = None
        self._renew = self.lease_redis.register_script(_RENEW)
        self._release = self.lease_redis.register_script(_RELEASE)

    async def start(self, handler: Callable[[str, JSON], Awaitable[None] | None]) -> None:
        self._handler = handler
        pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        await pubsub.subscribe(CHANNEL + self.node, CHANNEL + EVERYONE)
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._listen(pubsub)), loop.create_task(self._publisher())]

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(BaseException):
                await task
        for room_id in list(self.owned):
            with contextlib.suppress(Exception):
                await self.release(room_id)
        await self.redis.aclose(close_connection_pool=True)
        await self.lease_redis.aclose(close_connection_pool=True)

    # --- leases ----------------------------------------------------------------------------------------

    async def owner(self, room_id: str) -> str | None:
        return _node(await self.redis.get(LEASE + room_id))

    async def acquire(self, room_id: str) -> bool:
        if await self.lease_redis.set(LEASE + room_id, self.node, nx=True, px=self.lease_ms):
            self.owned.add(room_id)
            self._moved("taken")
            return True
        return room_id in self.owned and await self.owner(room_id) == self.node

    async def release(self, room_id: str) -> None:
        if room_id in self.owned:
            self.owned.discard(room_id)
            self._moved("released")
        await self._release(keys=[LEASE + room_id], args=[self.node])

    def _moved(self, direction: str) -> None:
        if self.metrics is not None:
            self.metrics.lease(direction)

    async def renew(self) -> list[str]:
        """Extend every lease still ours; return the rooms whose lease we lost."""
        rooms = sorted(self.owned)
        if not rooms:
            return []
        kept = await self._renew(keys=[LEASE + r for r in rooms], args=[self.node, self.lease_ms])
        lost = [r for r, ok in zip(rooms, kept, strict=True) if not ok]
        for room_id in lost:
            self.owned.discard(room_id)
            self._moved("lost")
        return lost

    async def owners(self, room_ids: list[str]) -> dict[str, str | None]:
        if not room_ids:
            return {}
        values = await self.redis.mget([LEASE + r for r in room_ids])
        return {r: _node(v) for r, v in zip(room_ids, values, strict=True)}

    # --- messages --------------------------------------------------------------------------------------

    def post(self, node: str, message: JSON) -> None:
        """Queue a message for ``node``; the publisher keeps the order of everything posted."""
        self._outbox.setdefault(node, []).append(message)
        self._wake.set()

    async def call(self, node: str, message: JSON, timeout: float) -> JSON:
        req = secrets.token_hex(8)
        future: asyncio.Future[JSON] = asyncio.get_running_loop().create_future()
        self._replies[req] = future
        try:
            self.post(node, dict(message, t="call", req=req, reply_to=self.node))
            return await asyncio.wait_for(future, timeout)
        finally:
            self._replies.pop(req, None)

    def reply(self, node: str, req: str, body: JSON) -> None:
        self.post(node, {"t": "reply", "req": req, "body": body})

    async def _publisher(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            outbox, self._outbox = self._outbox, {}
            for node, messages in outbox.items():
                try:
                    await self.redis.publish(CHANNEL + node, dumps({"from": self.node, "m": messages}))
                except Exception:
                    log.exception("could not publish %d messages to node %s", len(messages), node)

    async def _listen(self, pubsub: Any) -> None:
        while True:
            try:
                async for raw in pubsub.listen():
                    if raw.get("type") != "message":
                        continue
                    batch = loads(raw["data"])
                    sender = str(batch.get("from"))
                    for message in batch.get("m") or []:
                        if message.get("t") == "reply":
                            future = self._replies.get(str(message.get("req")))
                            if future is not None and not future.done():
                                future.set_result(message.get("body") or {})
                            continue
                        assert self._handler is not None
                        result = self._handler(sender, message)
                        if result is not None:
                            await result
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("cluster listener failed; resubscribing")
                await asyncio.sleep(0.5)
                with contextlib.suppress(Exception):
                    await pubsub.subscribe(CHANNEL + self.node, CHANNEL + EVERYONE)
