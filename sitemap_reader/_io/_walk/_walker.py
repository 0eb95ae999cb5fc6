"""The walk: sources -> robots.txt -> sitemaps -> index children, streamed out in batches.

A fixed pool of workers takes jobs from the :class:`~._frontier.Frontier` and puts batches
of events in the :class:`~._outbox.Outbox` that the consumer drains. This module decides
how each kind of document is read: a robots.txt (then the well-known paths when it names
no sitemap), a sitemap over HTTP (through a :class:`~._body.SitemapBody`), a local file.
With robots.txt's rules (``ReaderConfig.robots`` obey or report), each origin's robots.txt
is read once, for its robots.txt job and the sitemaps given directly alike, and judges a
sitemap before it is fetched (``._robots_reads``).

Each document is read once per run: URLs are normalised (yarl) before they are queued and
again after redirects. A child that is one of its own ancestors is a cycle; a child that
some other branch already read is a duplicate. Both are reported, not read again.

With a state store, a :class:`~._incremental.Tracker` plans each fetch (skip, conditional
request, hold the body back) and records each complete read; see ``_incremental``.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
from collections.abc import AsyncGenerator, Sequence
from dataclasses import replace

from yarl import URL

from ..._base._config import WALK_ROBOTS, ReaderConfig, RobotsPolicy
from ..._base._errors import HTTPStatusError
from ..._base._models import (
    Format,
    Problem,
    ProblemKind,
    SitemapRef,
    SitemapState,
    Status,
)
from ..._base._run import Batch, Progress
from ..._base._sources import is_url, source_name
from ..._core._walk._jobs import Job, JobKind, Leaf, job_of, leaf_of
from ..._core._walk._scope import origin_of
from .._http._network import LazyFetcher, could_not_connect
from .._http._response import Body, FetchResult
from .._state._holdback import Hashed, HoldBack
from .._state._incremental import ENTRY_FORMATS, FIRST_READ, Plan, Tracker
from .._state._store import StateStore
from ._body import BytesBody, Settings, SitemapBody, recorded
from ._frontier import Frontier, Pushed, Refused
from ._lines import LineMaker
from ._local import LocalFiles
from ._outbox import Outbox
from ._pool import ParsePool
from ._reports import child_report, visited
from ._robots import RobotsBook
from ._robots_reads import RobotsGate, is_client_error
from ._threads import ParseThreads, threads_for


class Walk:
    """One run over ``sources`` (and ``leaves`` found by discovery); iterate :meth:`batches`
    once. With ``defer_leaves`` (discovery), leaf sitemaps are sniffed (their first bytes
    tell their format) and handed out as :class:`Leaf` records instead of being read. With
    ``lines`` (``SitemapReader.line_batches``), the bodies write entries as lines (``._lines``)."""

    def __init__(
        self,
        fetcher: LazyFetcher,
        config: ReaderConfig,
        sources: Sequence[str | os.PathLike[str]],
        progress: Progress,
        store: StateStore | None = None,
        *,
        defer_leaves: bool = False,
        leaves: Sequence[Leaf] = (),
        lines: LineMaker | None = None,
    ) -> None:
        if config.robots is None:  # the caller set no policy: a walk's default
            config = replace(config, robots=WALK_ROBOTS)
        self._fetcher = fetcher
        self._config = config
        self._progress = progress
        self._tracker = None if store is None else Tracker(store, config.incremental, progress)
        self._pool = ParsePool(config.workers) if config.workers and not defer_leaves else None
        threads = threads_for(config, lines=lines is not None and lines.compiled is not None)
        # Made here, started as calls come: a walk that parses nothing starts no thread.
        self._threads = ParseThreads(threads) if threads else None
        # ReaderConfig.robots obey or report: each robots.txt read adds its rules, for the
        # bodies.
        self._rules = None if config.robots is RobotsPolicy.IGNORE else RobotsBook()
        self._gate = RobotsGate(fetcher, config, self._rules)
        self._settings = Settings(
            config=config,
            tracker=self._tracker,
            defer=defer_leaves,
            pool=self._pool,
            threads=self._threads,
            lines=lines,
            robots=self._rules,
        )
        self._frontier = Frontier(config, progress)
        self._outbox = Outbox(progress)
        self._local = LocalFiles(
            config,
            progress,
            self._outbox,
            self._tracker,
            refuse=self._refuse,
            body=self._body,
            follow=self._follow,
        )
        self._tasks: tuple[asyncio.Future[None], ...] = ()  # the workers and their closer
        self._stopped = False
        for source in sources:
            self._add_source(source)
        for leaf in leaves:
            self._frontier.push(job_of(leaf))

    def _add_source(self, source: str | os.PathLike[str]) -> None:
        if isinstance(source, str) and is_url(source):
            url = URL(source)
            if url.path in ("", "/") and not url.query_string:
                job = Job(url=str(url.origin() / "robots.txt"), kind=JobKind.ROBOTS, root=source)
            elif url.path.endswith("/robots.txt"):
                job = Job(url=source, kind=JobKind.ROBOTS, root=source)
            else:
                job = Job(url=source, kind=JobKind.SITEMAP, root=source)
        else:
            name = source_name(source)
            job = Job(url=name, kind=JobKind.LOCAL, root=name)
        if self._tracker is not None:
            self._tracker.source(job.root, job.key)
        self._frontier.push(job)

    def _body(self, job: Job) -> SitemapBody:
        return SitemapBody(job, self._frontier, self._outbox, self._settings)

    # -- the run ---------------------------------------------------------------------------

    async def batches(self) -> AsyncGenerator[Batch, None]:
        workers = [
            asyncio.ensure_future(self._worker())
            for _ in range(self._config.limits.max_concurrency)
        ]
        closer = asyncio.ensure_future(self._close_when_done(workers))
        self._tasks = (*workers, closer)
        try:
            while (batch := await self._outbox.get()) is not None:
                yield batch
            if self._stopped:
                raise RuntimeError("the SitemapReader was closed during this walk")
            await closer  # re-raise a worker's unexpected exception
            if self._tracker is not None:
                self._tracker.delivered()  # the consumer took every change
        finally:
            await self.aclose()

    @property
    def closed(self) -> bool:
        """Whether the run is over (stopped, or its batches all taken)."""
        return self._stopped

    @property
    def robots(self) -> RobotsBook | None:
        """The robots.txt rules the run read, by origin (``ReaderConfig.robots`` obey or
        report), or None when it ignores them."""
        return self._rules

    async def aclose(self) -> None:
        """Stop the run (idempotent): its workers are cancelled and waited for, so none
        uses the session or the state store afterwards; a consumer still waiting for a
        batch is woken and told."""
        self._stopped = True
        # No task may wait on the outbox from here: nothing drains it. A consumer waiting
        # in another task is woken: no batch comes after those queued.
        self._outbox.abandon()
        self._outbox.close()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._pool is not None:  # after the tasks: none waits on a worker any more
            await self._pool.close()
        if self._threads is not None:  # after the tasks too: none is in a call
            self._threads.close()
        self._gate.close()

    async def _close_when_done(self, workers: Sequence[asyncio.Future[None]]) -> None:
        try:
            await asyncio.gather(*workers)
            if self._tracker is not None:  # the change feed, once every document is settled
                for said in self._tracker.finish():  # a source's shrink guard
                    await self._outbox.emit([said], root=said.url)
                for changes in self._tracker.change_batches():
                    await self._outbox.emit(changes, root=None)  # every source's
        finally:
            self._outbox.close()

    async def _worker(self) -> None:
        threads = self._threads
        while (job := await self._frontier.next()) is not None:
            try:
                with contextlib.nullcontext() if threads is None else threads.reading():
                    await self._run(job)
            finally:
                await self._frontier.done()

    async def _run(self, job: Job) -> None:
        if job.kind is JobKind.ROBOTS:
            await self._robots(job)
        elif job.kind is JobKind.LOCAL:
            await self._local.read(job)
        else:
            await self._sitemap(job)

    async def _refuse(self, job: Job) -> bool:
        """Report ``job`` skipped if a budget keeps it from being read (True), else False."""
        budget = self._frontier.out_of_budget(job, self._fetcher.bytes)
        if budget is not None:
            await self._skip(job, budget)
        return budget is not None

    async def _say_budget(self, budget: ProblemKind, url: str, root: str) -> Problem | None:
        """Emit the Problem that says ``budget`` was reached, if not said yet; returns it."""
        said = self._frontier.budget_problem(budget, url, root)
        if said is not None:
            await self._outbox.emit([said], root=root)
        return said

    # -- robots.txt ----------------------------------------------------------------------

    async def _robots(self, job: Job) -> None:
        if await self._refuse(job):
            return
        plan = self._plan(job)
        # A 304 brings no body to read the Crawl-delay or the rules from: asked
        # unconditionally then (and, with the rules, once a run: ``_robots_reads``).
        obey = self._config.pace.obey_crawl_delay
        headers = None if obey or self._rules is not None else plan.headers
        read = await self._gate.fetch(job.url, headers)
        result, body, final = read.result, read.body, read.final
        error = result.error
        problems: list[Problem] = []
        refs: tuple[SitemapRef, ...] = ()
        if error is not None and not is_client_error(error):
            # -- RFC 9309 section 2.3.1.4: an unreachable robots.txt means complete disallow.
            # A connection that never opened is most likely a wrong address: said so, and
            # the robots.txt rule only where the server answered.
            if could_not_connect(error):
                why = f"{error!s}: is the address right?"
            elif isinstance(error, HTTPStatusError):
                why = (
                    f"{error!s}: the site is taken as disallowing everything (RFC 9309) and "
                    "is not probed further"
                )
            else:
                why = f"{error!s}: the site is not read further"
            problem = Problem(kind=ProblemKind.ROBOTS_UNAVAILABLE, url=job.url, message=why)
            await self._outbox.emit([problem], root=job.root)
            await self._report_robots(job, Status.FAILED, final, result, problems=(problem,))
            return
        status = Status.OK if error is None else Status.MISSING
        if error is None and plan.state is not None and result.status == 304:
            status, refs = Status.UNCHANGED, plan.state.children
            self._count_unchanged(plan.state, result)
        elif error is None and read.found is not None:
            refs, problems = read.found.refs, list(read.found.problems)
            await self._outbox.emit(problems, root=job.root)
        if self._tracker is not None:
            said = self._settle_robots(job, result, status, body, refs)
            if said is not None:
                problems.append(said)
                await self._outbox.emit([said], root=job.root)
        problems += await self._follow(job, refs, final, origin_of(final))
        await self._report_robots(
            job, status, final, result, children=len(refs), problems=tuple(problems)
        )
        if not refs:
            await self._probe(job, final)

    async def _follow(
        self, job: Job, refs: Sequence[SitemapRef], final: str, vouched: str
    ) -> list[Problem]:
        """Queue the sitemaps a robots.txt names; the budget problems that refused some.

        They are sources of the run, as a sitemap given directly is: never judged by the
        caller's follow rules (``ReaderConfig.follow``, ``--follow``, ``--skip``), which
        choose among the children an index names (Scrapy's ``sitemap_follow`` does the same).
        """
        problems = []
        for ref in refs:
            pushed = self._frontier.push(
                Job(
                    url=ref.loc,
                    kind=JobKind.SITEMAP,
                    root=job.root,
                    source=final,
                    vouched=vouched,
                )
            )
            if isinstance(pushed, Refused):
                said = await self._say_budget(pushed.budget, ref.loc, job.root)
                if said is not None:
                    problems.append(said)
                listed = self._frontier.left_unread()
                if listed is not None:
                    unread = child_report(
                        replace(ref, source=final), job.depth, Status.SKIPPED, listed
                    )
                    await self._outbox.emit([unread], root=job.root)
        return problems

    async def _report_robots(
        self,
        job: Job,
        status: Status,
        final: str,
        result: FetchResult,
        *,
        children: int = 0,
        problems: tuple[Problem, ...],
    ) -> None:
        await self._outbox.report(
            visited(
                job,
                status,
                result,
                final_url=final,
                format=Format.ROBOTS,
                children=children,
                problems=problems,
            ),
            root=job.root,
        )

    async def _probe(self, job: Job, robots_url: str) -> None:
        """No sitemap named: try the well-known paths in order, up to the first sitemap."""
        paths = self._config.well_known_paths
        if not paths:
            await self._outbox.emit(
                [
                    Problem(
                        kind=ProblemKind.NO_SITEMAP,
                        url=robots_url,
                        message="robots.txt names no sitemap, and probing well-known paths is off",
                    )
                ],
                root=job.root,
            )
            return
        origin = URL(robots_url).origin()
        for path in paths:
            probe = Job(
                url=str(origin.with_path(path)),
                kind=JobKind.PROBE,
                root=job.root,
                source=robots_url,
            )
            claimed = self._frontier.claim(probe)
            if claimed is Pushed.DUPLICATE:
                continue
            if isinstance(claimed, Refused):
                await self._say_budget(claimed.budget, probe.url, job.root)
                return
            if await self._sitemap(probe):
                return
            self._frontier.release(probe)
        problem = Problem(
            kind=ProblemKind.NO_SITEMAP,
            url=str(origin),
            message="robots.txt names no sitemap and none of the well-known paths is one "
            f"({', '.join(paths)})",
        )
        await self._outbox.emit([problem], root=job.root)

    # -- sitemaps ----------------------------------------------------------------------------

    async def _sitemap(self, job: Job) -> bool:
        """Fetch and read one sitemap; True when it was one (read, in part, or unchanged)."""
        stop, noted = await self._gate.before(job)
        if stop is not None:
            if job.kind is not JobKind.PROBE:  # (a guessed path is no sitemap anyone named)
                await self._outbox.emit([stop], root=job.root)
                await self._outbox.report(
                    visited(job, Status.SKIPPED, problems=(*noted, stop)), root=job.root
                )
            return False
        key = job.key
        plan = self._plan(job)
        tracker = self._tracker
        if self._settings.defer and plan.state is not None and plan.state.format in ENTRY_FORMATS:
            # Discovery remembers its leaves: handed out again without a request; the leaf's
            # read decides, from its own state, whether anything changed.
            await self._outbox.hand_out(leaf_of(job, None))
            return True
        if plan.skip:
            assert plan.state is not None
            await self._unchanged(job, plan.state, None)
            return True
        if await self._refuse(job):
            return False
        body = self._body(job)
        body.problems += noted
        body.late_problems += noted
        hashed = None if tracker is None else self._hashed(body, plan)
        try:
            result = await self._fetcher.get(job.url, hashed or body, headers=plan.headers)
        finally:
            if hashed is not None:
                hashed.release()
        if body.deferred and result.error is None:
            if tracker is not None:
                # Remembered as a leaf, never as read: its own read records that.
                assert body.parser is not None
                tracker.settle(
                    key,
                    lastmod=job.lastmod,
                    result=result,
                    status=Status.OK,
                    fmt=body.parser.format,
                    entries=0,
                    digest=None,
                    children=(),
                )
            await self._outbox.hand_out(leaf_of(job, body.size))
            return True
        unchanged = result.status == 304 or (hashed is not None and hashed.same)
        if plan.state is not None and result.error is None and unchanged:
            await self._unchanged(job, plan.state, result)
            return True
        report = body.report(result)  # missing only for a probe (a named sitemap failed)
        if hashed is not None:
            settled = body.settle(result, report, hashed.hexdigest())
            said = () if settled.problem is None else (settled.problem,)
            body.late_problems.extend(said)
            report = replace(report, problems=(*report.problems, *said), lastmods=settled.lastmods)
        await self._outbox.emit(body.late_problems, root=job.root)
        await self._outbox.report(report, root=job.root)
        return report.status in (Status.OK, Status.PARTIAL)

    def _hashed(self, body: Body, plan: Plan) -> Hashed:
        """``body`` hashed as it comes, and held back when its last digest is known."""
        if plan.spool and plan.state is not None and plan.state.digest:
            return HoldBack(body, plan.state.digest, self._config.limits.max_bytes)
        return Hashed(body)

    # -- incremental runs (a state store) --------------------------------------------------------

    def _plan(self, job: Job) -> Plan:
        if self._tracker is None:
            return FIRST_READ
        return self._tracker.plan(job.key, job.lastmod, job.root)

    async def _unchanged(self, job: Job, state: SitemapState, result: FetchResult | None) -> None:
        """Report a document unchanged since its last read (skipped by its index's lastmod,
        answered 304, or the same bytes): nothing to emit; the children it named are queued."""
        tracker = self._tracker
        assert tracker is not None
        if result is not None:
            lastmods = tracker.confirm(job.key, job.lastmod, result, job.root)
        else:
            lastmods = tracker.known(job.key, job.root)
        self._count_unchanged(state, result)
        body = self._body(job)
        await body.replay(state)
        said = body.nothing_followed()
        if said is not None:
            await self._outbox.emit([said], root=job.root)
        await self._outbox.report(
            # Not through ``result``: what a 304 says of itself is no reading to check.
            visited(
                job,
                Status.UNCHANGED,
                final_url=state.final_url if result is None else result.final_url,
                format=state.format,
                http_status=None if result is None else result.status,
                bytes=0 if result is None else result.bytes,
                children=len(state.children),
                problems=tuple(body.problems),
                lastmods=lastmods,
            ),
            root=job.root,
        )

    def _count_unchanged(self, state: SitemapState, result: FetchResult | None) -> None:
        progress = self._progress
        progress.unchanged += 1
        progress.bytes_saved += max(0, state.bytes - (0 if result is None else result.bytes))

    def _settle_robots(
        self,
        job: Job,
        result: FetchResult,
        status: Status,
        body: BytesBody,
        refs: Sequence[SitemapRef],
    ) -> Problem | None:
        assert self._tracker is not None
        if status is Status.UNCHANGED:
            self._tracker.confirm(job.key, None, result)
            return None
        return self._tracker.settle(
            job.key,
            lastmod=None,
            result=result,
            status=status,
            fmt=Format.ROBOTS,
            entries=0,
            digest=hashlib.blake2b(body.data, digest_size=16).hexdigest(),
            children=[recorded(ref) for ref in refs],
            valid=_whole_robots(body),
            root=job.root,
        ).problem

    async def _skip(self, job: Job, budget: ProblemKind) -> None:
        """Report a document a budget keeps from being read (the Problem said once)."""
        said = await self._say_budget(budget, job.url, job.root)
        problem = said or Problem(
            kind=budget, url=job.url, message="not read: a budget of the run was reached"
        )
        await self._outbox.report(
            visited(job, Status.SKIPPED, problems=(problem,)),
            root=job.root,
        )


def _whole_robots(body: BytesBody) -> bool:
    """Whether a robots.txt read says all it names: not cut at its size limit, and not a
    web page (a soft 404) answered in its place."""
    return len(body.data) < body.limit and body.data.lstrip()[:1] != b"<"
