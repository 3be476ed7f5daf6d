"""Where quick play's tickets wait: in this process's memory, or in Redis so that every process of a
cluster serves one queue.

The contract (tests/server/test_quickplay_store.py runs it on both):

- ``put`` adds or replaces a person's ticket; ``remove`` takes it out at once (leaving is instant).
- ``turn()`` is held by one process at a time while it forms tables: in memory an asyncio lock, in Redis
  a lease like a room's (``SET NX PX`` with this process's token, released only by its holder), so two
  processes never form tables from the same tickets.
- ``claim(tickets)`` removes exactly these tickets, all or none, and only if each is still as it was
  read: a person who left (or changed their wishes) since is never seated from the old ticket. In the
  same step each claimed person's placement becomes PENDING (their room is being opened), so nobody
  asking in between is told they are in no queue at all.
- ``place(users, room)`` remembers where each claimed person sits, so whichever process they ask next
  answers "seated, here"; ``placed`` reads it back (it lapses after PLACED_SECONDS).
"""

from __future__ import annotations

import abc
import asyncio
import contextlib
import json
import secrets
import time
from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING, Any

from opolyx.server.play.quickplay_queue import Ticket

if TYPE_CHECKING:
    from redis.asyncio import Redis

# How long "you were seated at room X" is kept for the person to pick up.
PLACED_SECONDS = 600.0
# The placement of a claimed ticket whose room is being opened (room ids never begin with "-").
PENDING = "-"
# The queue's lease: long enough for one tick's seating, short enough that a dead holder is replaced soon.
TURN_MS = 5000


def _text(ticket: Ticket) -> str:
    return json.dumps(ticket.to_json(), sort_keys=True, separators=(",", ":"))


class QueueStore(abc.ABC):
    @abc.abstractmethod
    async def put(self, ticket: Ticket) -> None: ...

    @abc.abstractmethod
    async def get(self, user: str) -> Ticket | None: ...

    @abc.abstractmethod
    async def remove(self, user: str) -> bool:
        """Take the person's ticket out; False if they had none (never queued, or already claimed)."""

    @abc.abstractmethod
    async def tickets(self) -> list[Ticket]: ...

    @abc.abstractmethod
    def turn(self) -> contextlib.AbstractAsyncContextManager[bool]:
        """Hold the queue for forming tables; yields False when another process holds it now."""

    @abc.abstractmethod
    async def claim(self, tickets: Sequence[Ticket]) -> bool:
        """Remove these tickets if every one is unchanged since read (all or none)."""

    @abc.abstractmethod
    async def place(self, users: Sequence[str], room_id: str) -> None: ...

    @abc.abstractmethod
    async def placed(self, user: str) -> str | None: ...

    @abc.abstractmethod
    async def forget_placed(self, user: str) -> None: ...

    async def close(self) -> None:
        return None


class MemoryQueue(QueueStore):
    """One process: a dict of tickets and an asyncio lock."""

    def __init__(self, clock: Any = time.monotonic) -> None:
        self._tickets: dict[str, Ticket] = {}
        self._placed: dict[str, tuple[float, str]] = {}
        self._lock = asyncio.Lock()
        self._clock = clock

    async def put(self, ticket: Ticket) -> None:
        self._tickets[ticket.user] = ticket
        self._placed.pop(ticket.user, None)

    async def get(self, user: str) -> Ticket | None:
        return self._tickets.get(user)

    async def remove(self, user: str) -> bool:
        return self._tickets.pop(user, None) is not None

    async def tickets(self) -> list[Ticket]:
        return list(self._tickets.values())

    @contextlib.asynccontextmanager
    async def turn(self) -> AsyncIterator[bool]:
        if self._lock.locked():
            yield False
            return
        async with self._lock:
            yield True

    async def claim(self, tickets: Sequence[Ticket]) -> bool:
        if any(self._tickets.get(t.user) != t for t in tickets):
            return False
        until = self._clock() + PLACED_SECONDS
        for t in tickets:
            del self._tickets[t.user]
            self._placed[t.user] = (until, PENDING)
        return True

    async def place(self, users: Sequence[str], room_id: str) -> None:
        until = self._clock() + PLACED_SECONDS
        for user in users:
            self._placed[user] = (until, room_id)
        now = self._clock()
        for user, (ends, _room) in list(self._placed.items()):
            if ends < now:
                del self._placed[user]

    async def placed(self, user: str) -> str | None:
        found = self._placed.get(user)
        if found is None or found[0] < self._clock():
            return None
        return found[1]

    async def forget_placed(self, user: str) -> None:
        self._placed.pop(user, None)


# Remove every ticket (KEYS[1] is the hash; ARGV pairs are user, expected JSON; ARGV[1] is the placement
# lifetime) only if all still match, and mark each person's placement pending (KEYS[2..]).
_CLAIM = """
for i = 2, #ARGV, 2 do
  if redis.call('HGET', KEYS[1], ARGV[i]) ~= ARGV[i + 1] then return 0 end
end
for i = 2, #ARGV, 2 do
  redis.call('HDEL', KEYS[1], ARGV[i])
  redis.call('SET', KEYS[i / 2 + 1], '-', 'PX', ARGV[1])
end
return 1
"""
# The cluster's lease release (cluster/node.py): delete the key only while it still holds our token.
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


class RedisQueue(QueueStore):
    """Every process of a cluster: tickets in one Redis hash, the turn a lease key, placements with expiry.

    ``prefix`` namespaces the keys (``opolyx:quickplay:`` by default; tests use their own)."""

    def __init__(self, redis: Redis, prefix: str = "opolyx:quickplay:") -> None:
        self.redis = redis
        self.prefix = prefix
        self.token = secrets.token_hex(8)
        self._claim: Any = redis.register_script(_CLAIM)
        self._release: Any = redis.register_script(_RELEASE)

    @property
    def _hash(self) -> str:
        return self.prefix + "tickets"

    async def put(self, ticket: Ticket) -> None:
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(self._hash, ticket.user, _text(ticket))
            pipe.delete(self.prefix + "placed:" + ticket.user)
            await pipe.execute()

    async def get(self, user: str) -> Ticket | None:
        raw = await self.redis.hget(self._hash, user)
        return None if raw is None else Ticket.from_json(json.loads(raw))

    async def remove(self, user: str) -> bool:
        return bool(await self.redis.hdel(self._hash, user))

    async def tickets(self) -> list[Ticket]:
        raw = await self.redis.hgetall(self._hash)
        return [Ticket.from_json(json.loads(v)) for v in raw.values()]

    @contextlib.asynccontextmanager
    async def turn(self) -> AsyncIterator[bool]:
        key = self.prefix + "turn"
        token = f"{self.token}:{secrets.token_hex(4)}"
        if not await self.redis.set(key, token, nx=True, px=TURN_MS):
            yield False
            return
        try:
            yield True
        finally:
            with contextlib.suppress(Exception):
                await self._release(keys=[key], args=[token])

    async def claim(self, tickets: Sequence[Ticket]) -> bool:
        args: list[str] = [str(int(PLACED_SECONDS * 1000))]
        for t in tickets:
            args += [t.user, _text(t)]
        keys = [self._hash] + [self.prefix + "placed:" + t.user for t in tickets]
        return bool(await self._claim(keys=keys, args=args))

    async def place(self, users: Sequence[str], room_id: str) -> None:
        async with self.redis.pipeline(transaction=False) as pipe:
            for user in users:
                pipe.set(self.prefix + "placed:" + user, room_id, px=int(PLACED_SECONDS * 1000))
            await pipe.execute()

    async def placed(self, user: str) -> str | None:
        raw = await self.redis.get(self.prefix + "placed:" + user)
        return raw.decode() if isinstance(raw, bytes) else raw

    async def forget_placed(self, user: str) -> None:
        await self.redis.delete(self.prefix + "placed:" + user)
