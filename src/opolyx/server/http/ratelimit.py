"""Token buckets keyed by (what, who).

In memory by default: a limit protects this process. With a cluster (``OPOLYX_REDIS_URL``) the buckets
of people and addresses live in Redis (:class:`SharedRateLimiter`), so a person cannot multiply their
allowance by spreading requests over several processes. Per-connection buckets stay in memory: a
connection lives in one process.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from redis.asyncio import Redis

log = logging.getLogger(__name__)


@dataclass
class _Bucket:
    tokens: float
    at: float


@dataclass(frozen=True)
class Rule:
    burst: float
    per_second: float


class RateLimiter:
    def __init__(
        self,
        rules: dict[str, Rule],
        *,
        address_factor: float = 1.0,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        self.rules = rules
        self.address_factor = address_factor
        self.now = now
        self._buckets: dict[tuple[str, str], _Bucket] = {}

    def allow(self, kind: str, *keys: str) -> bool:
        """Take one token from every key's bucket, or none at all when any is empty."""
        rule = self.rules[kind]
        now = self.now()
        buckets = []
        for key in keys:
            # Many people can share one address, so its bucket is larger.
            factor = self.address_factor if key.startswith("addr:") else 1.0
            b = self._buckets.get((kind, key))
            cap = rule.burst * factor
            if b is None:
                b = _Bucket(cap, now)
                self._buckets[(kind, key)] = b
            b.tokens = min(cap, b.tokens + (now - b.at) * rule.per_second * factor)
            b.at = now
            buckets.append(b)
        if any(b.tokens < 1.0 for b in buckets):
            return False
        for b in buckets:
            b.tokens -= 1.0
        if len(self._buckets) > 50_000:
            self._prune(now)
        return True

    async def take(self, kind: str, *keys: str) -> bool:
        """``allow`` for callers that may be served by a shared (Redis) limiter."""
        return self.allow(kind, *keys)

    def _prune(self, now: float) -> None:
        # A bucket idle long enough to be full again carries no information.
        stale = [k for k, b in self._buckets.items() if now - b.at > 600]
        for k in stale:
            del self._buckets[k]


# All keys' buckets refilled, then one token taken from each, or from none (atomic in Redis).
_TAKE = """
local now = tonumber(ARGV[1])
local n = #KEYS
local state = {}
for i = 1, n do
  local cap = tonumber(ARGV[2 * i])
  local rate = tonumber(ARGV[2 * i + 1])
  local b = redis.call('HMGET', KEYS[i], 't', 'at')
  local tokens = tonumber(b[1]) or cap
  local at = tonumber(b[2]) or now
  tokens = math.min(cap, tokens + math.max(0, now - at) * rate)
  state[i] = tokens
  if tokens < 1 then
    return 0
  end
end
for i = 1, n do
  local cap = tonumber(ARGV[2 * i])
  local rate = tonumber(ARGV[2 * i + 1])
  redis.call('HSET', KEYS[i], 't', state[i] - 1, 'at', now)
  redis.call('PEXPIRE', KEYS[i], math.ceil(1000 * (cap / math.max(rate, 0.001)) + 1000))
end
return 1
"""


class SharedRateLimiter(RateLimiter):
    """The same buckets, kept in Redis so every process of a cluster draws from one allowance."""

    def __init__(self, rules: dict[str, Rule], redis: Redis, *, address_factor: float = 1.0) -> None:
        super().__init__(rules, address_factor=address_factor)
        self.redis = redis
        self._script: Any = redis.register_script(_TAKE)

    async def take(self, kind: str, *keys: str) -> bool:
        rule = self.rules[kind]
        args: list[float] = [time.time()]
        for key in keys:
            factor = self.address_factor if key.startswith("addr:") else 1.0
            args += [rule.burst * factor, rule.per_second * factor]
        try:
            return bool(await self._script(keys=[f"opolyx:rate:{kind}:{k}" for k in keys], args=args))
        except Exception:
            # Redis trouble must not lock everyone out: fall back to this process's own buckets.
            log.warning("shared rate limit unavailable; using the local one", exc_info=True)
            return self.allow(kind, *keys)


class SocketCounter:
    """Open sockets per key (a session, an address) in this process, with caps."""

    def __init__(self) -> None:
        self._open: dict[str, int] = {}

    def open(self, keys: tuple[str, ...], caps: tuple[int, ...]) -> str | None:
        """Count a new socket under every key; a reason (and the socket still counted: call ``close``)
        when any key is over its cap."""
        problem = None
        for key, cap in zip(keys, caps, strict=True):
            n = self._open[key] = self._open.get(key, 0) + 1
            if n > cap and problem is None:
                who = "session" if key.startswith("user:") else "address"
                problem = f"at most {cap} open sockets per {who}; close some first"
        return problem

    def close(self, keys: tuple[str, ...]) -> None:
        for key in keys:
            n = self._open.get(key, 0) - 1
            if n > 0:
                self._open[key] = n
            else:
                self._open.pop(key, None)
