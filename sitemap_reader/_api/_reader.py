"""SitemapReader: the library's façade, an async context manager around one session (made at
the first request: a run over local files alone loads no HTTP machinery)."""

from __future__ import annotations

import contextlib
import enum
import os
import time
from collections.abc import AsyncGenerator, Callable
from dataclasses import replace
from types import TracebackType
from typing import TYPE_CHECKING, cast

from .._base._config import CHECK_ROBOTS, DEFAULT_CONFIG, ReaderConfig, RobotsPolicy
from .._base._lines import Lines
from .._base._models import Entry, Event
from .._base._run import Batch, Progress
from .._base._sources import check_source, is_url
from .._core._walk._jobs import Leaf
from .._io._http._guard import Guard
from .._io._http._network import LazyFetcher
from .._io._state._incremental import feed_store
from .._io._state._lock import RunLock, hold
from .._io._state._store import StateStore, file_of, open_store
from .._io._walk._lines import LineMaker
from .._io._walk._robots import RobotsBook, RobotsFilter
from .._io._walk._walker import Walk

if TYPE_CHECKING:
    import aiohttp
    from typing_extensions import Self

    from .._check._checker import Checker
    from .._check._codes import Finding
    from .._io._http._fetch import Fetcher
    from .._io._http._gate import HostGate
    from .._io._http._pace_store import PaceStore
    from .._io._http._transport import Transport

Source = str | os.PathLike[str]


class _State(enum.Enum):
    UNOPENED = 1
    OPENED = 2
    CLOSED = 3


class SitemapReader:
    """Read sites' sitemaps over HTTP (and local files), streaming records out.

        async with SitemapReader() as reader:
            async for entry in reader.entries("https://example.com/"):
                print(entry.loc)

    A source is a site root (``https://example.com/``: robots.txt, then well-known paths),
    a robots.txt URL, a sitemap or index URL, a local file (a path or a ``file:`` URL), or
    ``-`` for stdin. Iterating a walk over any other source raises ValueError naming it: a
    URL that does not parse or has no host, another scheme (``ftp:``), or a host written
    without its scheme that is no file (``www.example.com``: "did you mean https://...?").

    Args:
        config: limits, timeouts, retries, scope, user agent, incremental policy
            (``ReaderConfig``).
        session: an ``aiohttp.ClientSession`` to use; the caller keeps owning it (it is
            left open). Without one, the reader makes its own from ``config`` at its first
            request (a run over local files makes none) and closes it.
        transport: a :class:`Transport` to send the requests through instead of aiohttp
            (a host framework's downloader); the caller keeps owning it. The SSRF guard,
            redirects, timeouts, retries and limits stay the reader's. Not with ``session``.
        state: a :class:`StateStore`, or the path of a SQLite state file (opened on entry,
            closed on exit; the caller keeps owning a store it passes). With one, runs are
            incremental: documents unchanged since the last run are skipped or asked
            conditionally, and only the entries of sitemaps that changed are emitted
            (``config.incremental`` says more: ``max_age``, ``read_all``, ``changes``).
            One run at a time per store: a state file (or a SqliteStateStore's) is locked
            from entry to exit (``config.incremental.wait`` says how long to wait for another
            run holding it).
        gate: a bound on the requests to one host that this reader shares with others (the
            readers of a cluster's tasks, as ``sitemap_reader.dask.read_sites`` gives them):
            an object with ``async enter(host, timeout) -> bool`` and ``leave(host)``, asked
            for a turn at the host (``host:port``) before each request attempt and given it
            back once the body is read. The run's deadline ends the wait. Without one, only
            ``config.limits.per_host`` bounds this reader's own requests.
        pace: where the pace (``config.pace``) keeps each host's next free start and delay,
            shared with other readers (``read_sites``' tasks share a cluster's): an object
            with ``async take(host, delay, horizon) -> (wait, delay)`` and ``slow(host, delay)``.
            A Crawl-delay or Retry-After this reader learns goes there too. Without one,
            the pace is this reader's own.

    Raises:
        StateError: on entry, when the state file cannot be used (it is left untouched).
        StateLocked: on entry, when another run holds the state file past
            ``config.incremental.wait`` (a StateError naming the file and the process).
        ValueError: ``config.incremental.changes`` without a state.
        TypeError: ``config.incremental.changes`` with a store that has no change feed.
    """

    def __init__(
        self,
        config: ReaderConfig | None = None,
        *,
        session: aiohttp.ClientSession | None = None,
        transport: Transport | None = None,
        state: StateStore | str | os.PathLike[str] | None = None,
        gate: HostGate | None = None,
        pace: PaceStore | None = None,
    ) -> None:
        self.config = config or DEFAULT_CONFIG
        if session is not None and transport is not None:
            raise ValueError("give a session or a transport, not both")
        self._gate = gate
        self._pace = pace
        if self.config.incremental.changes:
            if state is None:
                raise ValueError("the change feed (incremental.changes) needs a state store")
            if not isinstance(state, (str, os.PathLike)):
                feed_store(state)  # a store without a change feed is refused here, not mid-run
        self._session = session
        self._owns_session = session is None and transport is None
        self._transport = transport
        self._state = _State.UNOPENED
        self._state_source = state
        self._store: StateStore | None = None
        self._owns_store = False
        self._lock: RunLock | None = None  # one run at a time per state file
        self._guard: Guard | None = None
        self._walks: set[Walk] = set()  # the runs started and not over yet
        self._last_fetcher: LazyFetcher | None = None  # the last walk's: check_sample's too
        self._last_walk: Walk | None = None  # its robots.txt rules: check_sample's too
        self.progress = Progress()

    async def __aenter__(self) -> Self:
        if self._state is not _State.UNOPENED:
            raise RuntimeError(
                "a SitemapReader can be opened once; make a new one for another run"
                if self._state is _State.CLOSED
                else "this SitemapReader is already open"
            )
        if self._state_source is not None:
            # Held from before the store opens (migrations included) until it is closed.
            path = file_of(self._state_source)
            if path is not None:
                self._lock = await hold(path, self.config.incremental.wait)
            try:
                self._store, self._owns_store = open_store(self._state_source)
            except BaseException:
                self._release()
                raise
        if not self.config.allow_private:
            # Only the reader's own session resolves names through the guard.
            self._guard = Guard(owns_resolver=self._owns_session)
        self._state = _State.OPENED
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Stop the runs still going (an iteration left early), then close the session and
        the state file if the reader opened them."""
        try:
            # Before the session and the store close: no worker of a run uses them afterwards.
            for walk in list(self._walks):
                await walk.aclose()
            self._walks.clear()
            if self._state is _State.OPENED and self._owns_session and self._session is not None:
                await self._session.close()
        finally:
            if self._owns_store and self._store is not None:
                self._store.close()
                self._store = None
            self._release()
            self._state = _State.CLOSED

    def _release(self) -> None:
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def _open_walk(
        self,
        sources: tuple[Source, ...],
        *,
        defer_leaves: bool = False,
        leaves: tuple[Leaf, ...] = (),
        lines: LineMaker | None = None,
        robots: RobotsPolicy | None = None,
    ) -> Walk:
        if self._state is not _State.OPENED:
            raise RuntimeError("use the reader inside 'async with SitemapReader(...) as reader:'")
        if not sources and not leaves:
            raise ValueError("give at least one source")
        if lines is not None and self.config.incremental.changes:
            raise ValueError(
                "the change feed (incremental.changes) gives EntryChange records, not lines: "
                "use walk_batches"
            )
        for source in sources:
            check_source(source)  # a source no run can read is refused before any fetch
        deadline = self.config.timeouts.deadline
        ends = None if deadline is None else time.monotonic() + deadline
        progress = self.progress = Progress()
        if self._guard is not None:
            for source in (*sources, *(leaf.root for leaf in leaves)):
                if isinstance(source, str) and is_url(source):
                    self._guard.trust(source)
        fetcher = self._last_fetcher = LazyFetcher(lambda: self._fetcher(ends, progress))
        config = self.config
        if config.robots is None and robots is not None:  # the caller set no policy
            config = replace(config, robots=robots)
        walk = Walk(
            fetcher,
            config,
            sources,
            progress=progress,
            store=self._store,
            defer_leaves=defer_leaves,
            leaves=leaves,
            lines=lines,
        )
        self._last_walk = walk
        # Opened on an iterator's first step, so every walk here has started (or will now).
        self._walks = {w for w in self._walks if not w.closed}
        self._walks.add(walk)
        return walk

    def _fetcher(self, deadline: float | None, progress: Progress) -> Fetcher:
        """A walk's Fetcher, made at its first request; the session too, unless given."""
        from .._io._http._fetch import Fetcher

        if self._transport is None:
            from .._io._http._aiohttp import AiohttpTransport

            if self._session is None:
                self._session = _session(self.config, self._guard)
            self._transport = AiohttpTransport(self._session, connect=self.config.timeouts.connect)
        return Fetcher(
            self._transport,
            self.config,
            deadline,
            guard=self._guard,
            progress=progress,
            gate=self._gate,
            pace=self._pace,
        )

    async def walk_batches(self, *sources: Source) -> AsyncGenerator[Batch, None]:
        """Everything the run meets, in batches (the fastest way to consume a run).

        Batches hold ``Entry`` records, ``Problem`` events as they happen, and one
        ``SitemapVisited`` report per document (robots.txt, index, sitemap). Each is a
        :class:`Batch`, a list whose ``root`` says which of ``sources`` its events descend
        from (a local file by its absolute path), so a run over many sources can say each
        entry's source.
        """
        async with contextlib.aclosing(self._open_walk(sources).batches()) as batches:
            async for batch in batches:
                yield batch

    async def line_batches(
        self, *sources: Source, plan: LineMaker
    ) -> AsyncGenerator[list[Event | Lines], None]:
        """:meth:`walk_batches` with the entries written as lines: each run of entries a
        batch holds comes as one :class:`Lines` event in its place, in ``plan``'s format
        (a :class:`LinePlan`), keeping only those its ``since`` keeps. The problems and
        reports come as in :meth:`walk_batches`; so do the reports' entry counts, the
        run's budget and ``progress.entries``, which count the entries ``since`` drops.

        The lines are the bytes ``dump`` writes, under either core: the compiled core
        writes most of them from its own records, with no ``Entry`` made (the fastest way
        to write a run out), the pure core from ``Entry`` records. Write
        ``plan.header`` first (csv's header row). Each batch is a :class:`Batch`.

        Raises:
            ValueError: with ``config.incremental.changes`` (the change feed gives
                ``EntryChange`` records: read them with :meth:`walk_batches`).
        """
        walk = self._open_walk(sources, lines=plan)
        async with contextlib.aclosing(walk.batches()) as batches:
            async for batch in batches:
                yield cast("list[Event | Lines]", batch)

    async def lines(self, *sources: Source, plan: LineMaker) -> AsyncGenerator[Lines, None]:
        """The :class:`Lines` of :meth:`line_batches` alone, one run of lines at a time:
        ``out.write(plan.header)``, then ``out.write(lines.data)`` for each."""
        async with contextlib.aclosing(self.line_batches(*sources, plan=plan)) as batches:
            async for batch in batches:
                for event in batch:
                    if type(event) is Lines:
                        yield event

    async def discover_batches(self, *sources: Source) -> AsyncGenerator[list[Event | Leaf], None]:
        """The sites' sitemap trees, leaves left unread: the first stage of a split read.

        robots.txt and indexes are read as :meth:`walk_batches` reads them; a leaf sitemap
        (urlset, text, RSS, Atom) is fetched only as far as its first bytes, which tell its
        format, and comes out as a :class:`Leaf` instead of its entries (and without a
        report: its read reports it). Read the leaves with :meth:`leaf_batches`, here or
        elsewhere: together they give what :meth:`walk_batches` gives.
        """
        walk = self._open_walk(sources, defer_leaves=True)
        async with contextlib.aclosing(walk.batches()) as batches:
            async for batch in batches:
                yield cast("list[Event | Leaf]", batch)

    async def leaf_batches(self, *leaves: Leaf) -> AsyncGenerator[Batch, None]:
        """Read leaves found by :meth:`discover_batches` as the whole walk would have (same
        scope, vouching and budgets; one that became an index has its children read). A
        batch's ``root`` is its leaf's."""
        async with contextlib.aclosing(self._open_walk((), leaves=leaves).batches()) as batches:
            async for batch in batches:
                yield batch

    async def walk(self, *sources: Source) -> AsyncGenerator[Event, None]:
        """Every ``Entry``, ``Problem`` and ``SitemapVisited`` report, one at a time."""
        async with contextlib.aclosing(self.walk_batches(*sources)) as batches:
            async for batch in batches:
                for event in batch:
                    yield event

    async def entries(self, *sources: Source) -> AsyncGenerator[Entry, None]:
        """The page URLs the sources' sitemaps vouch for, in document order per sitemap."""
        async with contextlib.aclosing(self.walk_batches(*sources)) as batches:
            async for batch in batches:
                for event in batch:
                    if type(event) is Entry:
                        yield event

    async def check(
        self, *sources: Source, checker: Checker | None = None
    ) -> AsyncGenerator[Finding, None]:
        """What is wrong with the sources' sitemaps, as :class:`Finding` records (see
        docs/check.md): each as soon as it is known, those that need the whole run
        (duplicates across sitemaps, hreflang reciprocity) at the end. Pass a
        :class:`Checker` to set its options and keep what it gathered for a report.

        robots.txt's rules are read and reported (``RobotsPolicy.REPORT``, R108 to R110)
        unless ``ReaderConfig.robots`` sets a policy, as the command line's ``check`` does
        unless ``--robots`` is given."""
        if checker is None:
            from .._check._checker import Checker

            checker = Checker()
        # robots.txt's rules are read unless the config says otherwise (ReaderConfig.robots
        # None: CHECK_ROBOTS), as the command line's check reads them.
        walk = self._open_walk(sources, robots=CHECK_ROBOTS)
        async with contextlib.aclosing(walk.batches()) as batches:
            async for batch in batches:
                for found in checker.feed(batch):
                    yield found
        for found in checker.close():
            yield found
        if checker.reservoir is not None:
            for found in await self.check_sample(checker):
                yield found

    async def check_sample(
        self, checker: Checker, *, allowed: Callable[[str], bool] | None = None
    ) -> list[Finding]:
        """Fetch the listed pages ``checker`` drew (``CheckOptions.sample``) and return what
        they answered as findings (redirects, 4xx, 5xx, noindex, a canonical elsewhere),
        each with the share of all listed URLs it stands for (docs/check.md, "Sampling the
        pages"). :meth:`check` calls it after the walk; call it after feeding a checker
        yourself. The pages go through the last walk's fetcher: its pace (a Crawl-delay
        learned included), per-host bound, user agent and deadline. A page ``allowed``
        refuses is counted, not fetched; by default that is the last walk's robots.txt
        verdict for the user agent, when it read the rules (``ReaderConfig.robots`` obey or
        report: the command line's ``check`` reads them unless ``--robots ignore``)."""
        from ._sample import fetch_answers

        if checker.reservoir is None:
            return []
        if self._state is not _State.OPENED:
            raise RuntimeError("use the reader inside 'async with SitemapReader(...) as reader:'")
        fetcher = self._last_fetcher
        if fetcher is None:  # no walk ran on this reader: a fetcher of its own
            fetcher = LazyFetcher(lambda: self._fetcher(None, self.progress))
        if allowed is None and self._last_walk is not None:
            allowed = _robots_allowed(self._last_walk.robots)
        answers = await fetch_answers(
            fetcher,
            checker.reservoir.items,
            user_agent=self.config.user_agent,
            concurrency=self.config.limits.max_concurrency,
            allowed=allowed,
        )
        return checker.sampled(answers)


def _robots_allowed(book: RobotsBook | None) -> Callable[[str], bool] | None:
    """robots.txt's verdict for the reader's user agent, from the rules a walk read."""
    if book is None:
        return None
    robots = RobotsFilter(book)
    return lambda url: not robots.judge(url)[0]


def _session(config: ReaderConfig, guard: Guard | None) -> aiohttp.ClientSession:
    """The reader's own session: its limits, its User-Agent, the guard's resolver. It reads
    nothing of the environment: the fetcher applies ``config.trust_env`` (proxies, .netrc)."""
    import aiohttp

    from .._io._http._resolver import GuardedResolver

    limits = config.limits
    return aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(
            limit=limits.max_concurrency,
            limit_per_host=limits.per_host,
            resolver=None if guard is None else GuardedResolver(guard),
        ),
        headers={"User-Agent": config.user_agent},
        auto_decompress=True,  # Content-Encoding is aiohttp's job; .gz bodies are ours
        trust_env=False,
    )
