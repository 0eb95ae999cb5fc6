"""The pace of a run: when each request to a host (host:port) may start.

Start times are handed out, not waited for in turn: a request takes the next free start
of its host (``max(now, last start + delay)``) before it sleeps, so requests to one host are
spread ``delay`` apart however many wait at once, while other hosts are not held up.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from yarl import URL

from ..._base._config import Pace
from ..._base._errors import LimitExceeded
from ..._base._models import ProblemKind


def host_of(url: str) -> str:
    """The pace's key of ``url``: ``host:port``, the port the scheme's when none is given."""
    try:
        parsed = URL(url)
    except ValueError:
        return url
    return f"{parsed.host}:{parsed.port}"


class Pacer:
    """One run's pace, host by host. ``clock`` and ``sleep`` are injected so a test can
    count the waits without sleeping."""

    def __init__(
        self,
        pace: Pace,
        deadline: float | None,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> None:
        self._pace = pace
        self._deadline = deadline  # on ``clock``: no request starts after it
        self._clock = clock
        self._sleep = sleep
        self._delays: dict[str, float] = {}  # hosts slowed past pace.delay
        self._next: dict[str, float] = {}  # host -> the earliest start still free

    def delay(self, host: str) -> float:
        """Seconds between two starts to ``host``, at least."""
        return self._delays.get(host, self._pace.delay)

    def slow(self, host: str, seconds: float) -> float:
        """Make ``host``'s delay at least ``seconds``, capped by ``max_delay``, for the rest of
        the run (a Crawl-delay, a Retry-After); returns the delay it has now."""
        wanted = min(seconds, self._pace.max_delay)
        current = self.delay(host)
        if wanted > current:
            self._delays[host] = wanted
            if host in self._next:  # the next start counts from the last one with the new gap
                self._next[host] += wanted - current
            return wanted
        return current

    async def start(self, url: str) -> None:
        """Wait for the next free start of ``url``'s host and take it.

        Raises LimitExceeded (DEADLINE) when that start is past the run's deadline.
        """
        host = host_of(url)
        delay = self.delay(host)
        now = self._clock()
        at = max(now, self._next.get(host, now))
        if at > now and self._deadline is not None and at > self._deadline:
            raise LimitExceeded(
                f"the pace of {host} (a request every {delay:g} s) would start this request "
                "after the run's deadline",
                url=url,
                kind=ProblemKind.DEADLINE,
            )
        self._next[host] = at + delay  # taken before the wait: the next caller queues behind
        if at > now:
            await self._sleep(at - now)
