"""The walk: sources -> robots.txt -> sitemaps -> index children, streamed out in batches.

A fixed pool of workers takes jobs from a FIFO frontier (so a 50,000-child index costs a
deque of small jobs, not 50,000 tasks) and puts batches of events on a bounded queue that
the consumer drains: a slow consumer slows the fetching, and memory stays bounded by the
work in flight, never by the size of the site.

Each document is read once per run: URLs are normalised (yarl) before they are queued and
again after redirects. A child that is one of its own ancestors is a cycle; a child that
some other branch already read is a duplicate. Both are reported, not read again.

With a state store, a :class:`~._incremental.Tracker` plans each fetch (skip, conditional
request, hold the body back) and records each complete read; see ``_incremental``.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import sys
import time
from collections import deque
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from tempfile import SpooledTemporaryFile
from typing import BinaryIO

from yarl import URL

from .._config import ReaderConfig, ScopePolicy
from .._core._parser import SitemapParser
from .._core._robots import sitemap_urls
from .._core._scope import Scope, ScopeFilter, origin_of
from .._errors import AddressRefused, FetchError, HTTPStatusError, LimitExceeded, TransportError
from .._models import (
    Entry,
    Event,
    Format,
    Problem,
    SitemapRef,
    SitemapState,
    SitemapVisited,
    Status,
)
from .._sources import is_url, source_name
from ._fetch import CHUNK, Fetcher, FetchResult, Response
from ._incremental import ENTRY_FORMATS, FIRST_READ, Plan, Tracker
from ._state import StateStore

logger = logging.getLogger(__name__)

ROBOTS_MAX_BYTES = 512_000  # -- RFC 9309 section 2.5: crawlers MUST parse at least 500 KiB
_NOT_A_SITEMAP = frozenset({"html", "unknown-format", "empty"})
SPOOL_IN_MEMORY = 1_048_576  # a held-back body past this many bytes goes to a temporary file


@dataclass
class Progress:
    """Live counters of a run, for progress displays (read them at any time)."""

    queued: int = 0  # documents waiting in the frontier
    active: int = 0  # documents being read now
    done: int = 0  # documents finished (any status)
    failed: int = 0
    entries: int = 0  # page URLs passed on
    dropped: int = 0  # page URLs left out (scope)
    bytes: int = 0  # body bytes received
    unchanged: int = 0  # documents found unchanged since the last run (a state store)
    bytes_saved: int = 0  # their sizes at their last reads, less what was fetched again
    # The first run-wide budget reached ("deadline", "max-entries", ...), None while none is.
    budget: str | None = None
    not_read: int = 0  # documents named but neither queued nor read: a budget was reached
    started: float = field(default_factory=time.monotonic)


@dataclass(frozen=True, slots=True)
class _Job:
    url: str  # as named
    kind: str  # "robots", "sitemap", "probe" (a well-known path) or "local"
    root: str  # the user's source it descends from
    source: str = ""  # who named it
    depth: int = 0
    vouched: str = ""  # origin of the robots.txt that vouches for it
    ancestors: tuple[str, ...] = ()  # keys of the indexes above it
    lastmod: datetime | None = None
    parent_scope: Scope | None = None  # the index's scope, to judge a redirected child
    refused: str = ""  # a source beyond a sitemap budget: reported, not read


@dataclass(frozen=True, slots=True)
class Leaf:
    """A leaf sitemap (urlset, text, RSS, Atom) that discovery found and left unread.

    Picklable, so it can be read anywhere later (``SitemapReader.leaf_batches``, a Dask
    task): it carries what the walk knew when it was named (scope, vouching, lineage), and
    is read exactly as the whole walk would have read it.
    """

    url: str
    root: str  # the user's source it descends from
    source: str  # who named it
    depth: int
    lastmod: datetime | None  # what its index said
    job: _Job = field(repr=False, compare=False)
    # Bytes as sent (Content-Length of the sniffing request), when the server said: a
    # weight for batching leaves into tasks. None when unknown or remembered from a store.
    size: int | None = None


def normalise(url: str) -> str:
    """The dedupe key of a URL: yarl's normal form without the fragment."""
    try:
        return str(URL(url).with_fragment(None))
    except (ValueError, TypeError):
        return url


class Walk:
    """One run over ``sources``; iterate :meth:`batches` once."""

    def __init__(
        self,
        fetcher: Fetcher | None,
        config: ReaderConfig,
        sources: Sequence[str | os.PathLike[str]],
        progress: Progress,
        store: StateStore | None = None,
        *,
        defer_leaves: bool = False,
        leaves: Sequence[Leaf] = (),
    ) -> None:
        self._fetcher = fetcher
        # Discovery: leaf sitemaps are sniffed (their first bytes tell their format) and
        # handed out as Leaf records instead of being read.
        self._defer = defer_leaves
        self.leaves = 0
        self._config = config
        self._progress = progress
        self._tracker = None if store is None else Tracker(store, config.incremental)
        self._frontier: deque[_Job] = deque()
        self._seen: set[str] = set()
        self._cond = asyncio.Condition()
        # Few batches: one gzipped 64 KiB read can inflate to thousands of entries, and
        # what waits here is most of a run's memory.
        self._out: asyncio.Queue[list[Event] | None] = asyncio.Queue(maxsize=8)
        # Documents taken on (queued or probed), run-wide and per source: the sitemap budgets
        # are applied when a document is named, so the frontier never outgrows them.
        self._taken = 0
        self._taken_by_root: dict[str, int] = {}
        self._budgets_said: set[str] = set()  # each budget is reported once (per site for one)
        for source in sources:
            self._add_source(source)
        for leaf in leaves:
            self._push(leaf.job)

    # -- sources -------------------------------------------------------------------------

    def _add_source(self, source: str | os.PathLike[str]) -> None:
        if isinstance(source, str) and is_url(source):
            url = URL(source)
            if url.path in ("", "/") and not url.query_string:
                self._push(_Job(str(url.origin() / "robots.txt"), "robots", source))
            elif url.path.endswith("/robots.txt"):
                self._push(_Job(source, "robots", source))
            else:
                self._push(_Job(source, "sitemap", source))
        else:
            name = source_name(source)
            self._push(_Job(name, "local", name))

    def _push(self, job: _Job) -> bool | str:
        """Queue a job: True; False when its document is already queued or read.

        Past a sitemap budget a named document is not queued: the budget's kind is
        returned. A user's source is queued all the same, to be reported as not read.
        """
        key = job.url if job.kind == "local" else normalise(job.url)
        if key in self._seen:
            return False
        refused = self._take(job.root)
        if refused is not None and job.source:
            self._progress.not_read += 1
            return refused
        self._seen.add(key)
        self._frontier.append(job if refused is None else replace(job, refused=refused))
        self._progress.queued += 1
        return True

    def _take(self, root: str) -> str | None:
        """Count one more document for the run and its site; the budget it would pass."""
        spent = self._spent(root)
        if spent is None:
            self._taken += 1
            self._taken_by_root[root] = self._taken_by_root.get(root, 0) + 1
        return spent

    def _spent(self, root: str) -> str | None:
        """The sitemap budget with no room left for ``root``, if any."""
        limits = self._config.limits
        if self._taken >= limits.max_sitemaps:
            return "max-sitemaps"
        if self._taken_by_root.get(root, 0) >= limits.max_sitemaps_per_site:
            return "max-sitemaps-per-site"
        return None

    def _budget_problem(self, kind: str, url: str, root: str) -> Problem | None:
        """The Problem that says a budget was reached, the first time only (per site for
        the per-site budget); None after that. Records the first budget of the run."""
        said = f"{kind} {root}" if kind == "max-sitemaps-per-site" else kind
        if said in self._budgets_said:
            return None
        self._budgets_said.add(said)
        if self._progress.budget is None:
            self._progress.budget = kind
        limits = self._config.limits
        why = {
            "deadline": f"the run's deadline of {self._config.timeouts.deadline or 0:g} s passed",
            "max-sitemaps": f"the run's budget of {limits.max_sitemaps:,} documents is spent",
            "max-sitemaps-per-site": f"the budget of {limits.max_sitemaps_per_site:,} "
            f"documents for {root} is spent",
            "max-entries": f"the run delivered its budget of {limits.max_entries:,} URLs",
            "max-total-bytes": f"the run's budget of {limits.max_total_bytes:,} body bytes "
            "is spent",
        }[kind]
        return Problem(kind, url, f"{why}: this and further documents are not read")

    # -- the run ---------------------------------------------------------------------------

    async def batches(self) -> AsyncIterator[list[Event]]:
        workers = [
            asyncio.ensure_future(self._worker())
            for _ in range(self._config.limits.max_concurrency)
        ]
        closer = asyncio.ensure_future(self._close_when_done(workers))
        try:
            while True:
                batch = await self._out.get()
                if batch is None:
                    break
                yield batch
            await closer  # re-raise a worker's unexpected exception
            if self._tracker is not None:
                self._tracker.delivered()  # the consumer took every change
        finally:
            for task in (*workers, closer):
                task.cancel()
            await asyncio.gather(*workers, closer, return_exceptions=True)

    async def _close_when_done(self, workers: Sequence[asyncio.Future[None]]) -> None:
        try:
            await asyncio.gather(*workers)
            if self._tracker is not None:  # the change feed, once every document is settled
                for changes in self._tracker.change_batches():
                    await self._emit(changes)
        finally:
            await self._out.put(None)

    async def _worker(self) -> None:
        while True:
            job = await self._next()
            if job is None:
                return
            try:
                await self._run(job)
            finally:
                async with self._cond:
                    self._progress.active -= 1
                    self._cond.notify_all()

    async def _next(self) -> _Job | None:
        async with self._cond:
            while not self._frontier:
                if self._progress.active == 0:
                    self._cond.notify_all()
                    return None
                await self._cond.wait()
            self._progress.queued -= 1
            self._progress.active += 1
            return self._frontier.popleft()

    async def _emit(self, batch: Sequence[Event]) -> None:
        if batch:
            await self._out.put(list(batch))

    async def _report(self, report: SitemapVisited) -> None:
        progress = self._progress
        progress.done += 1
        if report.status is Status.FAILED:
            progress.failed += 1
        await self._out.put([report])

    async def _run(self, job: _Job) -> None:
        if job.kind == "robots":
            await self._robots(job)
        elif job.kind == "local":
            await self._local(job)
        else:
            await self._sitemap(job)

    def _out_of_budget(self, job: _Job) -> str | None:
        """The run-wide budget that forbids starting ``job`` now, if any."""
        if job.refused:
            return job.refused
        limits, progress = self._config.limits, self._progress
        deadline = self._config.timeouts.deadline
        if deadline is not None and time.monotonic() - progress.started > deadline:
            return "deadline"
        if progress.entries >= limits.max_entries:
            return "max-entries"
        if self._fetcher is not None and self._fetcher.bytes >= limits.max_total_bytes:
            return "max-total-bytes"
        return None

    # -- robots.txt ----------------------------------------------------------------------

    async def _robots(self, job: _Job) -> None:
        assert self._fetcher is not None
        budget = self._out_of_budget(job)
        if budget is not None:
            await self._skip(job, budget)
            return
        key = normalise(job.url)
        plan = self._plan(key, None)
        body = _BytesBody(ROBOTS_MAX_BYTES)
        result = await self._fetcher.get(job.url, body, headers=plan.headers)
        self._progress.bytes += result.bytes
        final = result.final_url or job.url
        error = result.error
        problems: list[Problem] = []
        refs: tuple[SitemapRef, ...] = ()
        if error is not None and not _is_client_error(error):
            # -- RFC 9309 section 2.3.1.4: an unreachable robots.txt means complete disallow.
            problem = Problem(
                "robots-unavailable",
                job.url,
                f"{error!s}: the site is taken as disallowing everything "
                "(RFC 9309) and is not probed further",
            )
            await self._emit([problem])
            await self._report(
                SitemapVisited(
                    job.url,
                    Status.FAILED,
                    final,
                    job.source,
                    0,
                    Format.ROBOTS,
                    result.status,
                    result.bytes,
                    problems=(problem,),
                )
            )
            return
        status = Status.OK if error is None else Status.MISSING
        if error is None and plan.state is not None and result.status == 304:
            status, refs = Status.UNCHANGED, plan.state.children
            self._count_unchanged(plan.state, result)
        elif error is None:
            found = sitemap_urls(bytes(body.data), final)
            refs, problems = found.refs, list(found.problems)
            await self._emit([*problems])
        if self._tracker is not None:
            self._settle_robots(key, result, status, body, refs)
        vouched = origin_of(final)
        for ref in refs:
            pushed = self._push(
                _Job(ref.loc, "sitemap", job.root, final, 0, vouched, (), None, None)
            )
            if isinstance(pushed, str):
                said = self._budget_problem(pushed, ref.loc, job.root)
                if said is not None:
                    problems.append(said)
                    await self._emit([said])
        await self._report(
            SitemapVisited(
                job.url,
                status,
                final,
                job.source,
                0,
                Format.ROBOTS,
                result.status,
                result.bytes,
                children=len(refs),
                problems=tuple(problems),
            )
        )
        if not refs:
            await self._probe(job, final)

    async def _probe(self, job: _Job, robots_url: str) -> None:
        """No sitemap named: try the well-known paths in order, up to the first sitemap."""
        paths = self._config.well_known_paths
        if not paths:
            await self._emit(
                [
                    Problem(
                        "no-sitemap",
                        robots_url,
                        "robots.txt names no sitemap, and probing well-known paths is off",
                    )
                ]
            )
            return
        origin = URL(robots_url).origin()
        for path in paths:
            probe = _Job(str(origin.with_path(path)), "probe", job.root, robots_url)
            key = normalise(probe.url)
            if key in self._seen:
                continue
            refused = self._take(job.root)
            if refused is not None:
                self._progress.not_read += 1
                said = self._budget_problem(refused, probe.url, job.root)
                await self._emit([said] if said is not None else [])
                return
            self._seen.add(key)
            if await self._sitemap(probe):
                return
        problem = Problem(
            "no-sitemap",
            str(origin),
            "robots.txt names no sitemap and none of the well-known paths is one "
            f"({', '.join(paths)})",
        )
        await self._emit([problem])

    # -- sitemaps ----------------------------------------------------------------------------

    async def _sitemap(self, job: _Job) -> bool:
        """Fetch and read one sitemap; True when it was one (read, in part, or unchanged)."""
        assert self._fetcher is not None
        key = normalise(job.url)
        plan = self._plan(key, job.lastmod)
        if self._defer and plan.state is not None and plan.state.format in ENTRY_FORMATS:
            # Discovery remembers its leaves: handed out again without a request; the leaf's
            # read decides, from its own state, whether anything changed.
            await self._hand_out(job, None)
            return True
        if plan.skip:
            assert plan.state is not None
            await self._unchanged(job, plan.state, None)
            return True
        budget = self._out_of_budget(job)
        if budget is not None:
            await self._skip(job, budget)
            return False
        reader = _SitemapBody(self, job, plan)
        try:
            result = await self._fetcher.get(job.url, reader, headers=plan.headers)
        finally:
            reader.release()
        self._progress.bytes += result.bytes
        if reader.deferred and result.error is None:
            if self._tracker is not None:
                # Remembered as a leaf, never as read: its own read records that.
                assert reader.parser is not None
                self._tracker.settle(
                    key,
                    lastmod=job.lastmod,
                    result=result,
                    status=Status.OK,
                    fmt=reader.parser.format,
                    entries=0,
                    digest=None,
                    children=(),
                )
            await self._hand_out(job, reader.size)
            return True
        unchanged = result.status == 304 or reader.same
        if plan.state is not None and result.error is None and unchanged:
            await self._unchanged(job, plan.state, result)
            return True
        report = reader.report(result)
        if report.status is Status.MISSING and job.kind != "probe":
            report = replace(report, status=Status.FAILED)
        if self._tracker is not None:
            reader.settle(result, report)
        await self._emit(reader.late_problems)
        await self._report(report)
        return report.status in (Status.OK, Status.PARTIAL)

    async def _hand_out(self, job: _Job, size: int | None) -> None:
        """Discovery: pass a leaf on, unread."""
        self.leaves += 1
        leaf = Leaf(job.url, job.root, job.source, job.depth, job.lastmod, job, size)
        # Discovery batches carry Leaf records (discover_batches' type says so).
        await self._out.put([leaf])  # type: ignore[list-item]

    # -- incremental runs (a state store) --------------------------------------------------------

    def _plan(self, key: str, lastmod: datetime | None) -> Plan:
        return FIRST_READ if self._tracker is None else self._tracker.plan(key, lastmod)

    async def _unchanged(self, job: _Job, state: SitemapState, result: FetchResult | None) -> None:
        """Report a document unchanged since its last read (skipped by its index's lastmod,
        answered 304, or the same bytes): nothing to emit; the children it named are queued."""
        assert self._tracker is not None
        if result is not None:
            self._tracker.confirm(normalise(job.url), job.lastmod, result)
        self._count_unchanged(state, result)
        body = _SitemapBody(self, job)
        await body.replay(state)
        await self._report(
            SitemapVisited(
                job.url,
                Status.UNCHANGED,
                state.final_url if result is None else result.final_url,
                job.source,
                job.depth,
                state.format,
                None if result is None else result.status,
                0 if result is None else result.bytes,
                children=len(state.children),
                problems=tuple(body.problems),
                lastmod=job.lastmod,
            )
        )

    def _count_unchanged(self, state: SitemapState, result: FetchResult | None) -> None:
        progress = self._progress
        progress.unchanged += 1
        progress.bytes_saved += max(0, state.bytes - (0 if result is None else result.bytes))

    def _settle_robots(
        self,
        key: str,
        result: FetchResult,
        status: Status,
        body: _BytesBody,
        refs: Sequence[SitemapRef],
    ) -> None:
        assert self._tracker is not None
        if status is Status.UNCHANGED:
            self._tracker.confirm(key, None, result)
            return
        self._tracker.settle(
            key,
            lastmod=None,
            result=result,
            status=status,
            fmt=Format.ROBOTS,
            entries=0,
            digest=hashlib.blake2b(body.data, digest_size=16).hexdigest(),
            children=[_recorded(ref) for ref in refs],
        )

    def _child(self, parent: _SitemapBody, ref: SitemapRef) -> Problem | SitemapVisited | None:
        """Queue an index child; else a Problem saying why not, or a duplicate's report.

        Once the site's sitemap budget is spent the index is cut: every child it names
        further would be refused, and a hostile index may name millions.
        """
        job = parent.job
        spent = self._spent(job.root)
        if spent is not None:
            self._progress.not_read += 1
            parent.cut = True
            return self._budget_problem(spent, ref.loc, job.root)
        depth = job.depth + 1
        if depth > self._config.limits.max_depth:
            return Problem(
                "too-deep",
                ref.loc,
                f"not read: nested deeper than {self._config.limits.max_depth} indexes "
                f"(named by {ref.source})",
            )
        why = parent.scope.check_child(ref.loc)
        if why is not None:
            return Problem(
                "out-of-scope",
                ref.loc,
                f"not read: an index at {ref.source} may not name a sitemap there ({why})",
            )
        key = normalise(ref.loc)
        if key in parent.lineage:
            return Problem(
                "cycle", ref.loc, f"not read again: {ref.source} names its own ancestor (a cycle)"
            )
        queued = self._push(
            _Job(
                ref.loc,
                "sitemap",
                job.root,
                ref.source,
                depth,
                job.vouched,
                parent.lineage,
                ref.lastmod,
                parent.scope,
            )
        )
        if queued is not False:  # queued (_spent above said the budget had room)
            return None
        # Named again (by this index or another): read once per run, reported, no problem.
        return SitemapVisited(
            ref.loc, Status.DUPLICATE, None, ref.source, depth, lastmod=ref.lastmod
        )

    # -- local files ---------------------------------------------------------------------------

    async def _local(self, job: _Job) -> None:
        name = job.url
        budget = self._out_of_budget(job)
        if budget is not None:
            await self._skip(job, budget)
            return
        parser = SitemapParser(name, limits=self._config.limits, resolve_relative=False)
        body = _SitemapBody(self, job)
        body.begin(parser, Scope("", ScopePolicy.OFF))
        try:
            stream: BinaryIO = (
                sys.stdin.buffer if name == "-" else await asyncio.to_thread(open, name, "rb")
            )
        except OSError as exc:
            problem = Problem("unreadable", name, f"cannot read the file: {exc.strerror or exc}")
            await self._emit([problem])
            await self._report(
                SitemapVisited(name, Status.FAILED, name, "", 0, problems=(problem,))
            )
            return
        size = 0
        try:
            while True:
                data = await asyncio.to_thread(stream.read, CHUNK)
                if not data:
                    break
                size += len(data)
                if not await body.chunk(data):
                    break
            await body.finish()
        except OSError as exc:
            problem = Problem("unreadable", name, f"reading the file failed: {exc.strerror or exc}")
            body.problems.append(problem)
            await self._emit([problem])
        finally:
            if stream is not sys.stdin.buffer:
                stream.close()
        result = FetchResult(name, name, None, size, 1, None, True)
        report = body.report(result)
        if self._tracker is not None and self._tracker.changes:
            body.settle(result, report)  # local files join the change feed, nothing else
        await self._report(report)

    async def _skip(self, job: _Job, budget: str) -> None:
        """Report a document a budget keeps from being read (the Problem said once)."""
        said = self._budget_problem(budget, job.url, job.root)
        problem = said or Problem(budget, job.url, "not read: a budget of the run was reached")
        if said is not None:
            await self._emit([said])
        await self._report(
            SitemapVisited(
                job.url,
                Status.SKIPPED,
                None,
                job.source,
                job.depth,
                problems=(problem,),
                lastmod=job.lastmod,
            )
        )


class _BytesBody:
    """Collects a small body (robots.txt), keeping at most ``limit`` bytes."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.data = bytearray()

    def start(self, response: Response, attempt: int) -> bool:
        self.data.clear()
        return True

    async def chunk(self, data: bytes) -> bool:
        self.data.extend(data[: self.limit - len(self.data)])
        return len(self.data) < self.limit

    async def finish(self) -> None:
        return None

    def redirect(self, target: str) -> bool:
        return True


class _SitemapBody:
    """Streams one sitemap body through a parser, applies scope, queues index children.

    With a state store it also hashes the body, keeps the children it named, stages its
    entries for the change feed instead of emitting them, and, when the plan says so, holds
    the body back (``spool``) until its digest tells whether it changed.
    """

    def __init__(self, walk: Walk, job: _Job, plan: Plan = FIRST_READ) -> None:
        self.walk = walk
        self.job = job
        tracker = walk._tracker
        self.key = normalise(job.url) if job.kind != "local" else job.url
        self.digest = None if tracker is None else hashlib.blake2b(digest_size=16)
        self.refs: list[SitemapRef] = []  # kept with a store only
        self.staging = tracker is not None and tracker.changes
        # The digest of the last read when the body is to be held back, else None.
        self.recorded = plan.state.digest if plan.spool and plan.state is not None else None
        self.spool: SpooledTemporaryFile[bytes] | None = None
        self.same = False  # the held-back body had the recorded digest: nothing was parsed
        self.parser: SitemapParser | None = None
        self.scope = Scope(job.url, walk._config.scope, job.vouched)
        self._filter: ScopeFilter = self.scope.filter()
        self.lineage: tuple[str, ...] = (*job.ancestors, normalise(job.url))
        self.emitted = 0  # parser events passed on, across attempts
        self._skip = 0
        self.entries = 0
        self.children = 0
        self.dropped: dict[str, int] = {}
        self.problems: list[Problem] = []
        self.late_problems: list[Problem] = []
        self.refused: Status | None = None
        self.cut = False  # a budget of the run (entries, sitemaps) ran out inside this document
        self.defer = walk._defer and job.kind != "local"
        self.deferred = False  # discovery: a leaf, left unread
        self.size: int | None = None  # Content-Length, as the server said
        self.final_url = job.url
        self._passed = {normalise(job.url)}  # where this job has been: its URL and its hops

    # -- the Body protocol ---------------------------------------------------------------------

    def redirect(self, target: str) -> bool:
        """Vet a redirect before it is followed, so no request goes where nothing is read.

        Every attempt retraces the hops; those this job already passed are let through.
        """
        key = normalise(target)
        if key in self._passed:
            return True
        walk, job = self.walk, self.job
        if key in job.ancestors:
            self._refuse(Status.CYCLE, "cycle", f"redirects to {target}, one of its own indexes")
            return False
        if key in walk._seen:
            self._refuse(
                Status.DUPLICATE,
                "duplicate",
                f"redirects to {target}, which this run reads already",
            )
            return False
        # Scope is judged once, on the final URL (start): a hop may pass anywhere the
        # fetcher lets it (http(s), the SSRF guard).
        walk._seen.add(key)
        self._passed.add(key)
        self.lineage = (*self.lineage, key)
        return True

    def start(self, response: Response, attempt: int) -> bool:
        self.final_url = response.final_url
        self.size = response.content_length
        if self.job.parent_scope is not None and response.final_url != self.job.url:
            why = self.job.parent_scope.check_child(response.final_url)
            if why is not None:
                self._refuse(
                    Status.SKIPPED,
                    "out-of-scope",
                    f"redirected to {response.final_url}, out of scope ({why})",
                )
                return False
        if self.digest is not None:
            self.digest = hashlib.blake2b(digest_size=16)  # a retry hashes from the start
        if self.recorded is not None:
            if self.spool is None:
                # Closed by release() once the fetch is over, whatever its outcome.
                self.spool = SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY)  # noqa: SIM115
            self.spool.seek(0)
            self.spool.truncate()
            return True
        self._begin_parser()
        return True

    def _begin_parser(self) -> None:
        final, config = self.final_url, self.walk._config
        self.begin(
            SitemapParser(final, limits=config.limits, resolve_relative=config.resolve_relative),
            Scope(final, config.scope, self.job.vouched),
        )

    def begin(self, parser: SitemapParser, scope: Scope) -> None:
        self.parser = parser
        self.scope = scope
        self._filter = scope.filter()
        self._skip = self.emitted  # a retry re-reads from the start: pass nothing twice

    async def chunk(self, data: bytes) -> bool:
        if self.digest is not None:
            self.digest.update(data)
        if self.spool is not None:
            self.spool.write(data)
            return self.spool.tell() < self.walk._config.limits.max_bytes
        if len(data) <= CHUNK:
            return await self._parse(data)
        # A fast server hands over a whole body at once: parse it a piece at a time, so a
        # budget that runs out stops the parsing too, not only the reading.
        for start in range(0, len(data), CHUNK):
            if not await self._parse(data[start : start + CHUNK]):
                return False
        return True

    async def _parse(self, data: bytes) -> bool:
        parser = self.parser
        assert parser is not None
        events = parser.feed(data)
        if self.defer and parser.format in ENTRY_FORMATS:
            self.deferred = True  # a leaf: what its first bytes held is read with the rest
            return False
        if events:
            await self._handle(events)
        return not (parser.ended or self.cut)

    async def finish(self) -> None:
        spool = self.spool
        if spool is not None:  # held back: parse it only if its bytes changed
            assert self.digest is not None
            if self.digest.hexdigest() == self.recorded:
                self.same = True
                return
            self._begin_parser()
            spool.seek(0)
            while (data := spool.read(CHUNK)) and await self._parse(data):
                pass
        assert self.parser is not None
        if not (self.cut or self.deferred):  # a document not read to its end: no verdict
            events = self.parser.close()
            if self.defer and self.parser.format in ENTRY_FORMATS:
                self.deferred = True  # a short leaf, its format known only at its end
                return
            await self._handle(events)

    def release(self) -> None:
        """Drop a held-back body (after the fetch, whatever its outcome)."""
        if self.spool is not None:
            self.spool.close()
            self.spool = None

    async def replay(self, state: SitemapState) -> None:
        """An unchanged document names what it named last time: queue those again, through
        the usual checks (depth, scope, cycles, duplicates)."""
        self.final_url = state.final_url
        self.scope = Scope(state.final_url, self.walk._config.scope, self.job.vouched)
        final = normalise(state.final_url)
        if final not in self._passed:  # it was redirected: the target is read too
            self._passed.add(final)
            self.walk._seen.add(final)
            self.lineage = (*self.lineage, final)
        if state.children:
            await self._handle(list(state.children))

    def settle(self, result: FetchResult, report: SitemapVisited) -> None:
        """Record this read in the store if it was complete (else drop what was staged)."""
        tracker = self.walk._tracker
        assert tracker is not None
        tracker.settle(
            self.key,
            lastmod=self.job.lastmod,
            result=result,
            status=report.status,
            fmt=report.format,
            entries=report.entries,
            digest=None if self.digest is None else self.digest.hexdigest(),
            children=[_recorded(ref) for ref in self.refs],
        )

    # -- events ------------------------------------------------------------------------------

    async def _handle(self, events: list[Event]) -> None:
        if self._skip:
            if len(events) <= self._skip:
                self._skip -= len(events)
                return
            events = events[self._skip :]
            self._skip = 0
        self.emitted += len(events)
        check = self._filter.check
        out: list[Event] = []
        dropped = self.dropped
        entries = 0
        for event in events:
            if type(event) is Entry:
                why = check(event.loc)
                if why is None:
                    out.append(event)
                    entries += 1
                else:
                    dropped[why] = dropped.get(why, 0) + 1
            elif type(event) is SitemapRef:
                self.children += 1
                if self.digest is not None:
                    self.refs.append(event)
                outcome = self.walk._child(self, event)
                if type(outcome) is Problem:
                    self.problems.append(outcome)
                    out.append(outcome)
                elif outcome is not None:
                    out.append(outcome)  # the report of a duplicate
            else:
                assert isinstance(event, Problem)
                self.problems.append(event)
                if not (self.job.kind == "probe" and event.fatal and event.kind in _NOT_A_SITEMAP):
                    out.append(event)  # a probed path that is a web page is no news
        progress = self.walk._progress
        room = self.walk._config.limits.max_entries - progress.entries
        if entries > room:
            out = self._cut(out, room)
            entries = max(room, 0)
        self.entries += entries
        progress.entries += entries
        if self.staging and entries:  # the change feed: entries go to the store, not out
            tracker = self.walk._tracker
            assert tracker is not None
            tracker.store.stage(self.key, [e for e in out if type(e) is Entry])
            out = [e for e in out if type(e) is not Entry]
        await self.walk._emit(out)

    def _cut(self, out: list[Event], room: int) -> list[Event]:
        """The run's entry budget ends here: keep ``room`` entries of ``out``, stop reading."""
        self.cut = True
        kept: list[Event] = []
        for event in out:
            if type(event) is Entry:
                if room <= 0:
                    continue
                room -= 1
            kept.append(event)
        problem = self.walk._budget_problem("max-entries", self.job.url, self.job.root)
        if problem is not None:
            self.problems.append(problem)
            kept.append(problem)
        return kept

    def _refuse(self, status: Status, kind: str, message: str) -> None:
        self.refused = status
        problem = Problem(kind, self.job.url, f"not read: {message}")
        self.problems.append(problem)
        self.late_problems.append(problem)

    # -- the outcome --------------------------------------------------------------------------

    def report(self, result: FetchResult) -> SitemapVisited:
        job, parser = self.job, self.parser
        error = result.error
        status = Status.OK
        if self.refused is not None:
            status = self.refused
        elif error is not None:
            if job.kind == "probe" and isinstance(error, HTTPStatusError) and error.status < 500:
                status = Status.MISSING
            else:
                status = Status.PARTIAL if self.emitted else Status.FAILED
                problem = Problem(_error_kind(error), error.url or job.url, str(error), True)
                self.problems.append(problem)
                if not isinstance(error, LimitExceeded) or self.walk._budget_problem(
                    error.kind, job.url, job.root
                ):
                    self.late_problems.append(problem)  # a budget is said once a run
        elif self.cut:
            status = Status.PARTIAL
        elif parser is not None and parser.fatal is not None:
            fatal = parser.fatal
            assert isinstance(fatal, Problem)
            if fatal.kind in _NOT_A_SITEMAP:
                status = Status.MISSING if job.kind == "probe" else Status.FAILED
            else:
                status = Status.PARTIAL
        elif parser is None and result.status == 304:
            status = Status.UNCHANGED
        fmt = parser.format if parser is not None else None
        self.walk._progress.dropped += sum(self.dropped.values())
        return SitemapVisited(
            job.url,
            status,
            result.final_url,
            job.source,
            job.depth,
            fmt,
            result.status,
            result.bytes,
            self.entries,
            self.children,
            tuple(sorted(self.dropped.items())),
            tuple(self.problems),
            job.lastmod,
        )


def _recorded(ref: SitemapRef) -> SitemapRef:
    """A child as the store keeps it: under its dedupe key, which is the store's key too."""
    return SitemapRef(normalise(ref.loc), ref.lastmod, ref.source)


def _is_client_error(error: Exception) -> bool:
    return isinstance(error, HTTPStatusError) and 400 <= error.status < 500


def _error_kind(error: Exception) -> str:
    if isinstance(error, HTTPStatusError):
        return "http-status"
    if isinstance(error, TransportError):
        return "network"
    if isinstance(error, LimitExceeded):
        return error.kind
    if isinstance(error, AddressRefused):
        return "private-address"
    if isinstance(error, FetchError):
        return "redirect"
    return "error"
