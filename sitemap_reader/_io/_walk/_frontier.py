"""The frontier: the documents a run has taken on, those waiting to be read, and the budgets
that bound them.

A FIFO queue of small jobs that a fixed pool of workers drains (a 50,000-child index costs
a deque of jobs, not 50,000 tasks). Each document is taken on once per run, by its dedupe
key. The sitemap budgets (run-wide and per site) are applied when a document is named, so
the queue never outgrows them (they count sitemaps: robots.txt and a well-known path that
held none are not counted); the other budgets of the run are checked before a read.
"""

from __future__ import annotations

import asyncio
import enum
import time
from collections import deque
from dataclasses import dataclass, replace

from ..._base._config import ReaderConfig
from ..._base._models import Problem, ProblemKind
from ..._base._run import Progress
from ..._base._words import plural
from ..._core._walk._jobs import Job, JobKind

# Sitemaps named past a spent budget that are reported (skipped) one by one, per run; the
# rest are counted in their index's report: a hostile index may name millions.
UNREAD_LISTED = 1_000


class Pushed(enum.Enum):
    """What :meth:`Frontier.push` did with a job (else it was :class:`Refused`)."""

    QUEUED = "queued"  # taken on (by :meth:`Frontier.claim`: for the caller to read now)
    DUPLICATE = "duplicate"  # its document is queued or read already


@dataclass(frozen=True, slots=True)
class Refused:
    """A job not taken on: the sitemap budget it would pass is spent."""

    budget: ProblemKind  # MAX_SITEMAPS or MAX_SITEMAPS_PER_SITE


class Frontier:
    """The jobs of one run: which documents it took on, which wait, what budgets allow."""

    def __init__(self, config: ReaderConfig, progress: Progress) -> None:
        self._config = config
        self._progress = progress
        self._queue: deque[Job] = deque()
        self._seen: set[str] = set()  # dedupe keys of the documents taken on
        self._cond = asyncio.Condition()
        # Sitemaps taken on (queued or probed), run-wide and per source; robots.txt and
        # well-known paths that held no sitemap are not counted.
        self._taken = 0
        self._taken_by_root: dict[str, int] = {}
        self.named = 0  # documents named so far, duplicates too: the next one's order
        self._budgets_said: set[str] = set()  # each budget is reported once (per site for one)
        self._unread_listed = 0  # sitemaps reported skipped by left_unread()

    # -- taking documents on ---------------------------------------------------------------

    def __contains__(self, key: object) -> bool:
        """Whether the document of dedupe ``key`` was taken on in this run."""
        return key in self._seen

    def mark(self, key: str) -> None:
        """A document reached otherwise (a redirect's target) counts as taken on."""
        self._seen.add(key)

    def push(self, job: Job) -> Pushed | Refused:
        """Queue ``job`` for a worker, unless its document is taken on already.

        Past a sitemap budget a named document is refused. A user's source is queued all
        the same, to be reported as not read.
        """
        return self._admit(job, queue=True)

    def claim(self, job: Job) -> Pushed | Refused:
        """Take ``job`` on without queueing it: the caller reads it now (a probe)."""
        return self._admit(job, queue=False)

    def pass_over(self) -> int:
        """A document named and left unread by the caller's choice (``ReaderConfig.follow``):
        its order; it is not taken on, so a later naming may still read it."""
        self.named += 1
        return self.named

    def _admit(self, job: Job, *, queue: bool) -> Pushed | Refused:
        key = job.key
        self.named += 1
        if key in self._seen:
            return Pushed.DUPLICATE
        # robots.txt is no sitemap: the sitemap budgets do not count it.
        budget = None if job.kind is JobKind.ROBOTS else self._take(job.root)
        if budget is not None and (job.source or not queue):
            self._progress.not_read += 1
            return Refused(budget)
        self._seen.add(key)
        if job.kind is not JobKind.ROBOTS:
            self._progress.sitemaps += 1
        if queue:
            self._queue.append(replace(job, order=self.named, refused=budget or job.refused))
            self._progress.queued += 1
        return Pushed.QUEUED

    def release(self, job: Job) -> None:
        """A probe claimed (:meth:`claim`) found no sitemap: it gives its place in the
        sitemap budgets back, as a missing well-known path is no sitemap."""
        self._taken -= 1
        self._taken_by_root[job.root] -= 1

    def left_unread(self) -> int | None:
        """Count a sitemap named after its budget was spent (skipped, never queued; its
        problem is said once, by :meth:`budget_problem`): the order its report takes, or
        None past UNREAD_LISTED, when it is counted but not reported."""
        self.named += 1
        if self._unread_listed >= UNREAD_LISTED:
            return None
        self._unread_listed += 1
        return self.named

    def _take(self, root: str) -> ProblemKind | None:
        """Count one more sitemap for the run and its site; the budget it would pass."""
        spent = self.spent(root)
        if spent is None:
            self._taken += 1
            self._taken_by_root[root] = self._taken_by_root.get(root, 0) + 1
        return spent

    def spent(self, root: str) -> ProblemKind | None:
        """The sitemap budget with no room left for ``root``, if any."""
        limits = self._config.limits
        if self._taken >= limits.max_sitemaps:
            return ProblemKind.MAX_SITEMAPS
        if self._taken_by_root.get(root, 0) >= limits.max_sitemaps_per_site:
            return ProblemKind.MAX_SITEMAPS_PER_SITE
        return None

    # -- the workers' side -----------------------------------------------------------------

    async def next(self) -> Job | None:
        """The next job to read; None once none is queued and none is being read."""
        async with self._cond:
            while not self._queue:
                if self._progress.active == 0:
                    self._cond.notify_all()
                    return None
                await self._cond.wait()
            self._progress.queued -= 1
            self._progress.active += 1
            return self._queue.popleft()

    async def done(self) -> None:
        """A job taken from :meth:`next` is over (it may have queued others)."""
        async with self._cond:
            self._progress.active -= 1
            self._cond.notify_all()

    # -- the run's budgets -----------------------------------------------------------------

    def out_of_budget(self, job: Job, fetched: int) -> ProblemKind | None:
        """The run-wide budget that forbids starting ``job`` now, ``fetched`` body bytes
        into the run, if any."""
        if job.refused:
            return job.refused
        limits, progress = self._config.limits, self._progress
        deadline = self._config.timeouts.deadline
        if deadline is not None and time.monotonic() - progress.started > deadline:
            return ProblemKind.DEADLINE
        if progress.entries >= limits.max_entries:
            return ProblemKind.MAX_ENTRIES
        if fetched >= limits.max_total_bytes:
            return ProblemKind.MAX_TOTAL_BYTES
        return None

    def budget_problem(self, kind: ProblemKind, url: str, root: str) -> Problem | None:
        """The Problem that says a budget was reached, the first time only (per site for
        the per-site budget); None after that. Records the first budget of the run."""
        said = f"{kind} {root}" if kind == ProblemKind.MAX_SITEMAPS_PER_SITE else kind
        if said in self._budgets_said:
            return None
        self._budgets_said.add(said)
        if self._progress.budget is None:
            self._progress.budget = kind
        config, limits = self._config, self._config.limits
        why = {
            ProblemKind.DEADLINE: f"the run's deadline of {config.timeouts.deadline or 0:g} s passed",
            ProblemKind.MAX_SITEMAPS: f"the run's budget of {plural(limits.max_sitemaps, 'sitemap')} "
            "is spent",
            ProblemKind.MAX_SITEMAPS_PER_SITE: "the budget of "
            f"{plural(limits.max_sitemaps_per_site, 'sitemap')} for {root} is spent",
            ProblemKind.MAX_ENTRIES: "the run delivered its budget of "
            f"{plural(limits.max_entries, 'URL')}",
            ProblemKind.MAX_TOTAL_BYTES: "the run's budget of "
            f"{plural(limits.max_total_bytes, 'body byte')} is spent",
        }[kind]
        return Problem(
            kind=kind, url=url, message=f"{why}: this and further documents are not read"
        )
