"""Where a pace keeps its hosts' start times and delays: in the reader (the default), or
somewhere readers share (a Dask cluster's, ``sitemap_reader.dask``), so that one host is
paced across all of them, and a slowdown one reader learns (a Crawl-delay, a Retry-After)
holds for every reader's requests to it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import NamedTuple, Protocol


class PaceStart(NamedTuple):
    """A start taken at a host: ``wait`` seconds from now (None: refused, nothing taken),
    and the host's delay it was spaced by."""

    wait: float | None
    delay: float


class PaceStore(Protocol):
    """Hosts' next free starts and delays, shared by whoever holds the same store."""

    async def take(
        self, host: str, delay: float, horizon: float | None
    ) -> tuple[float | None, float]:
        """Take ``host``'s next free start (``max(now, last start + delay)``), its delay
        raised to ``delay`` first if that is longer: ``(wait, delay)`` as a PaceStart has
        them; refused, taking nothing, when that start is more than ``horizon`` seconds
        away (None: any wait is taken)."""
        ...

    def slow(self, host: str, delay: float) -> None:
        """Raise ``host``'s delay to ``delay`` if that is longer. It must not block: the
        walk calls it between two awaits."""
        ...


class PaceBook:
    """The starts and delays themselves, on one ``clock``: a pace store's state, thread
    safe (the tasks of dask's threaded scheduler share one). Relative waits go in and
    out, so callers on other machines never compare their clocks with this one."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._delays: dict[str, float] = {}  # host -> the longest delay it was given
        self._next: dict[str, float] = {}  # host -> the earliest start still free

    def __reduce__(self) -> tuple[type[PaceBook], tuple[Callable[[], float]]]:
        """Pickled (to another process), a book starts empty there: its lock cannot go."""
        return (PaceBook, (self._clock,))

    def take(self, host: str, delay: float, horizon: float | None) -> PaceStart:
        with self._lock:
            delay = self._raise(host, delay)
            now = self._clock()
            at = max(now, self._next.get(host, now))
            wait = at - now
            if wait > 0 and horizon is not None and wait > horizon:
                return PaceStart(None, delay)
            self._next[host] = at + delay  # taken before the wait: the next caller queues behind
            return PaceStart(wait, delay)

    def slow(self, host: str, delay: float) -> float:
        with self._lock:
            return self._raise(host, delay)

    def free_in(self, host: str) -> float:
        """Seconds until ``host``'s next free start (0 when it is free now)."""
        with self._lock:
            return max(self._next.get(host, 0.0) - self._clock(), 0.0)

    def _raise(self, host: str, delay: float) -> float:
        current = self._delays.get(host, 0.0)
        if delay <= current:
            return current
        self._delays[host] = delay
        if host in self._next:  # the next start counts from the last with the new gap
            self._next[host] += delay - current
        return delay


class LocalPace:
    """A pace store of this process, asked without waiting: a reader's own by default;
    given to several readers (``SitemapReader(pace=LocalPace())``), one pace for them all."""

    def __init__(self, book: PaceBook | None = None) -> None:
        self._book = book or PaceBook()

    async def take(self, host: str, delay: float, horizon: float | None) -> PaceStart:
        return self._book.take(host, delay, horizon)

    def slow(self, host: str, delay: float) -> None:
        self._book.slow(host, delay)
