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
from ._pace_store import LocalPace, PaceBook, PaceStore


def host_of(url: str) -> str:
    """The pace's key of ``url``: ``host:port``, the port the scheme's when none is given."""
    try:
        parsed = URL(url)
    except ValueError:
        return url
    return f"{parsed.host}:{parsed.port}"


class Pacer:
    """One run's pace, host by host. The start times live in ``store`` (a book of this
    reader's own by default; a cluster's, shared); ``clock`` and ``sleep`` are injected so a
    test can count the waits without sleeping."""

    def __init__(
        self,
        pace: Pace,
        deadline: float | None,
        *,
        store: PaceStore | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> None:
        self._pace = pace
        self._deadline = deadline  # on ``clock``: no request starts after it
        self._clock = clock
        self._sleep = sleep
        self._store = store or LocalPace(PaceBook(clock))
        # Hosts this reader slowed past pace.delay: asked for with each start, so a shared
        # store has them even before the slowdown sent on its own has arrived.
        self._delays: dict[str, float] = {}

    def delay(self, host: str) -> float:
        """Seconds between two starts to ``host``, at least, as far as this reader knows."""
        return self._delays.get(host, self._pace.delay)

    def slow(self, host: str, seconds: float) -> float:
        """Make ``host``'s delay at least ``seconds``, capped by ``max_delay``, for the rest of
        the run (a Crawl-delay, a Retry-After); returns the delay it has now."""
        wanted = min(seconds, self._pace.max_delay)
        current = self.delay(host)
        if wanted <= current:
            return current
        self._delays[host] = wanted
        self._store.slow(host, wanted)  # the next start counts from the last with the new gap
        return wanted

    async def start(self, url: str) -> None:
        """Wait for the next free start of ``url``'s host and take it.

        Raises LimitExceeded (DEADLINE) when that start is past the run's deadline.
        """
        host = host_of(url)
        horizon = None if self._deadline is None else self._deadline - self._clock()
        wait, delay = await self._store.take(host, self.delay(host), horizon)
        if wait is None:
            raise LimitExceeded(
                f"the pace of {host} (a request every {delay:g} s) would start this request "
                "after the run's deadline",
                url=url,
                kind=ProblemKind.DEADLINE,
            )
        if wait > 0:
            await self._sleep(wait)
