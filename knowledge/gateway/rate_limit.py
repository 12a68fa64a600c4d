"""Per-identity token buckets: ``rate`` calls per second on average, bursts of up to ``burst``."""
from __future__ import annotations

import time
from collections import OrderedDict
from typing import Callable

from knowledge.gateway.errors import RateLimitedError


class TokenBucket:
    __slots__ = ("rate", "burst", "tokens", "updated")

    def __init__(self, rate: float, burst: int, now: float) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = float(burst)
        self.updated = now

    def _refill(self, now: float) -> None:
        self.tokens = min(self.burst, self.tokens + (now - self.updated) * self.rate)
        self.updated = now

    def take(self, now: float) -> float:
        """Spend one token; returns 0.0 when allowed, else the seconds until one is available."""
        self._refill(now)
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return 0.0
        return (1.0 - self.tokens) / self.rate


class RateLimiter:
    """Buckets by identity key; the least recently used keys are forgotten beyond ``max_keys``."""

    def __init__(self, rate: float, burst: int, *, max_keys: int = 10_000,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError(f"rate limit needs rate > 0 and burst >= 1 (got rate={rate}, burst={burst})")
        self.rate = rate
        self.burst = burst
        self.max_keys = max_keys
        self.clock = clock
        self._buckets: OrderedDict[str, TokenBucket] = OrderedDict()

    def check(self, key: str) -> None:
        """Spend one call of ``key``'s budget or raise RateLimitedError with the wait."""
        now = self.clock()
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = TokenBucket(self.rate, self.burst, now)
            while len(self._buckets) > self.max_keys:
                self._buckets.popitem(last=False)
        else:
            self._buckets.move_to_end(key)
        wait = bucket.take(now)
        if wait > 0:
            raise RateLimitedError(
                f"rate limit of {self.rate:g} calls/s (burst {self.burst}) reached; retry in {wait:.2f} s",
                retry_after_seconds=round(wait, 3),
            )
