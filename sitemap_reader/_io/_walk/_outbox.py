"""What a run hands out: batches on a bounded queue to the consumer (``Batch`` and the live
``Progress`` counters are records of ``_base._run``).

The queue is short on purpose: a slow consumer slows the fetching, and memory stays
bounded by the work in flight, never by the size of the site. Each batch comes from one
job, so it is tagged once with the SOURCE its events descend from: a consumer learns each
entry's source at no cost per entry. Ending a run never waits on that queue: the end is
marked without a put, and once the consumer has left (an interrupt, a closed pipe, a
``break``) every put fails at once, so no task waits for room nothing will make.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from ..._base._log import logger as package_logger
from ..._base._models import Event, Format, SitemapVisited, Status
from ..._base._run import Batch, Progress
from ..._base._words import plural
from ..._core._walk._jobs import Leaf

# The package's own logger, not this module's: the one a program configures (docs/library.md,
# "Logging"). Every report passes here, whoever consumes the run.
log = package_logger()


class Outbox:
    """The batches of one run, from its workers to its consumer; None ends them."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        # Few batches: one gzipped 64 KiB read can inflate to thousands of entries, and
        # what waits here is most of a run's memory.
        self._queue: asyncio.Queue[Batch | None] = asyncio.Queue(maxsize=8)
        self._closed = False  # no batch comes after those queued
        self._abandoned = False  # the consumer left: no batch is wanted any more

    async def _put(self, batch: Batch) -> None:
        if self._abandoned:
            # The task is being stopped; a cancellation it missed (wait_for can lose one
            # before Python 3.12) must not leave it waiting on a queue nobody drains.
            raise asyncio.CancelledError
        await self._queue.put(batch)

    async def emit(self, batch: Sequence[Event], *, root: str | None) -> None:
        """Events of one job (``root`` its source), or the change feed's (None)."""
        if batch:
            await self._put(Batch(batch, root))

    async def report(self, report: SitemapVisited, *, root: str) -> None:
        """One document's report, counted as done."""
        progress = self.progress
        progress.done += 1
        if report.status is Status.FAILED:
            progress.failed += 1
        if report.status in (Status.FAILED, Status.PARTIAL) and log.isEnabledFor(logging.WARNING):
            _warn(report)
        if report.format is not Format.ROBOTS:
            if report.status is Status.MISSING:
                progress.sitemaps -= 1  # a well-known path probed: it was no sitemap
            else:
                progress.sitemaps_done += 1
        await self._put(Batch((report,), root))

    async def hand_out(self, leaf: Leaf) -> None:
        """Discovery: a leaf, passed on unread."""
        # Discovery batches carry Leaf records (discover_batches' type says so).
        await self._put(Batch((leaf,), leaf.root))  # type: ignore[arg-type]

    def close(self) -> None:
        """No batch comes after those queued; never waits (the queue may be full)."""
        self._closed = True
        if not self._queue.full():  # wakes a consumer waiting on an empty queue
            self._queue.put_nowait(None)

    def abandon(self) -> None:
        """The consumer left: every put from now on fails (see :meth:`_put`)."""
        self._abandoned = True

    async def get(self) -> Batch | None:
        """The next batch; None once the run is over."""
        if self._closed and self._queue.empty():
            return None
        return await self._queue.get()


def _warn(report: SitemapVisited) -> None:
    """One WARNING for a document that failed or was read in part: its URL, how it ended and
    the cause (the fatal problem, else the last one), the report itself as ``record.report``."""
    what = "robots.txt" if report.format is Format.ROBOTS else "sitemap"
    problems = report.problems
    cause = next((p for p in reversed(problems) if p.fatal), problems[-1] if problems else None)
    why = "no problem was recorded" if cause is None else f"{cause.message} [{cause.kind}]"
    extra = {"report": report}
    if report.status is Status.FAILED:
        log.warning("%s %s failed: %s", what, report.url, why, extra=extra)
    else:
        if report.format is Format.SITEMAPINDEX:
            kept = f"{plural(report.children, 'sitemap')} named"
        else:
            kept = f"{plural(report.entries, 'URL')} kept"
        log.warning("%s %s read in part (%s): %s", what, report.url, kept, why, extra=extra)
