"""Token buckets keyed by (what, who). In memory: a limit protects this process, which is what it is for."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass


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

    def _prune(self, now: float) -> None:
        # A bucket idle long enough to be full again carries no information.
        stale = [k for k, b in self._buckets.items() if now - b.at > 600]
        for k in stale:
            del self._buckets[k]
