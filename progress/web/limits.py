"""What one request may cost the server, and the submissions rate limit.

Past a state or time bound a check answers "inconclusive" (as `progress
check` exits 3); past a size bound a request is refused (HTTP 413).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    max_test_bytes: int = 16_384
    """The largest test (.axb text or kernel source) the playground checks (also bounds the URL)."""
    max_body_bytes: int = 4 * 1024 * 1024
    """The largest request body: a submission of a whole large suite fits."""
    max_states: int = 200_000
    """States explored per check before it stops as inconclusive."""
    max_state_cells: int = 2_000_000
    """States x (threads + locations) per check: a state of a wide test holds
    more (300 threads: a successor list of 300 steps, about 10 KB a state with
    its products), so its state bound is lower."""
    time_limit_s: float = 5.0
    """Seconds of checking per request before it stops as inconclusive."""
    draw_states: int = 400
    """The largest LTS the playground draws (Graphviz's layout is superlinear)."""
    draw_timeout_s: float = 10.0
    tool_timeout_s: float = 10.0
    """Seconds each SPIR-V tool (glslangValidator, spirv-as, spirv-val) may
    run on a playground kernel before the check is refused."""
    tool_memory_bytes: int = 512 << 20
    """The address space each of those tools may use (the corpus's kernels
    compile and validate within 64 MiB; a macro that doubles itself 22
    times takes glslang past a gigabyte in 10 s)."""
    concurrent_checks: int = 2
    """Checks running at once; more wait their turn."""
    submissions_per_minute: int = 6
    """Per client address: a token bucket of this many, refilled over a minute."""
    suite_states: int = 1_000_000
    """The state bound for the suites' own checks at start."""


class RateLimiter:
    """A token bucket per client: `capacity` tokens, refilled at capacity per
    `period_s`; `allow(client)` takes one or says no. Thread-safe; the clock
    is injectable for tests."""

    def __init__(self, capacity: int, period_s: float = 60.0, clock: Callable[[], float] = time.monotonic):
        self.capacity = capacity
        self.period_s = period_s
        self.clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def allow(self, client: str) -> bool:
        with self._lock:
            now = self.clock()
            tokens, last = self._buckets.get(client, (float(self.capacity), now))
            tokens = min(float(self.capacity), tokens + (now - last) * self.capacity / self.period_s)
            if len(self._buckets) > 10_000:  # a flood of addresses: forget the full buckets
                self._buckets = {k: v for k, v in self._buckets.items() if v[0] < self.capacity}
            if tokens < 1.0:
                self._buckets[client] = (tokens, now)
                return False
            self._buckets[client] = (tokens - 1.0, now)
            return True

    def retry_after(self, client: str) -> int:
        """Whole seconds until `client` has a token again."""
        with self._lock:
            tokens, _ = self._buckets.get(client, (float(self.capacity), 0.0))
        return max(1, int((1.0 - tokens) * self.period_s / max(self.capacity, 1)) + 1)


def state_bound(limits: Limits, threads: int, locations: int) -> int:
    """The state bound of one check of a test this wide."""
    return max(1, min(limits.max_states, limits.max_state_cells // max(1, threads + locations)))
