"""Read many sites on a Dask cluster: ``entries, problems = read_sites(sites)``.

    from distributed import Client
    import dask
    from sitemap_reader.dask import read_sites

    client = Client("tcp://scheduler:8786")  # or LocalCluster(); the workers need
    entries, problems = read_sites(sites)     # sitemap-reader[dask] installed too
    dask.compute(
        entries.to_parquet("out/entries", compute=False),
        problems.to_parquet("out/problems", compute=False),
    )

The read is split in two stages so that no task holds a whole large site:

1. **Discovery**, run eagerly by :func:`read_sites` as tasks on the cluster (a few sites a
   task), reads each site's robots.txt and sitemap indexes. A leaf sitemap (urlset, text,
   RSS, Atom) is fetched only as far as its first bytes, which tell its format, and comes
   back as a :class:`~sitemap_reader.Leaf`. This is what gives the partition count, as
   ``dask.dataframe.read_parquet`` reads its metadata eagerly.
2. **The leaves**, read lazily by the workers when the frames are computed: a site with
   many leaves gets one task (one partition) per leaf, so a 5,000,000-URL site spreads
   across the cluster; the leaves of small sites are packed together a few to a task.

Both frames are built from the same tasks (one per leaf or batch of small leaves), so
computing them *together* (``dask.compute(entries, problems)``, or both ``to_parquet(...,
compute=False)`` as above) downloads each leaf once. Computing them one after the other
reads the leaves twice.

Every request of both stages waits for a turn at its host from a ``distributed.Semaphore``
named after the host, so ``per_host`` bounds the requests in flight to one host across the
whole cluster, not task by task; and takes its start from one book of start times kept by
an actor, so the pace (``config.pace``, a Crawl-delay, a Retry-After) spaces the requests
to one host across the whole cluster too.

This module needs dask, distributed, pandas and pyarrow (``pip install
'sitemap-reader[dask]'``); ``import sitemap_reader`` never imports it.
"""

from __future__ import annotations

import asyncio
import contextvars
import hashlib
import os
import re
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from ._api._reader import SitemapReader
from ._api._sync import run_blocking
from ._base._config import ReaderConfig
from ._base._models import Entry, Problem
from ._base._sources import is_url
from ._core._walk._jobs import Leaf
from ._io._http._pace_store import PaceBook, PaceStart
from ._output._frames import problem_frame, problem_schema
from ._output._table import (
    entries_to_dataframe,
    entries_to_table,
    require_pyarrow,
    table_to_dataframe,
)

_EXTRA = "pip install 'sitemap-reader[dask]'"

try:
    import dask.bag as db
    import dask.dataframe as dd
    from dask.base import compute, get_scheduler
    from dask.delayed import delayed
    from distributed import Client, WorkerPlugin
except ImportError as exc:  # pragma: no cover - the extra is installed where tests run
    raise ImportError(
        f"sitemap_reader.dask needs dask, distributed, pandas and pyarrow: {_EXTRA}"
    ) from exc

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa
    from distributed import Worker

__all__ = ["problem_schema", "read_sites"]

_CONVERT_EVERY = 8_192  # entries turned into Arrow at once: a leaf's records never pile up
_SITES_AT_ONCE = 8  # sites one discovery task reads concurrently


# -- state files: one per site's tree, one per leaf, so no two tasks share one -----------------

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def _key(url: str) -> str:
    """A file name for ``url``: readable, and unique by a digest of the whole URL."""
    readable = _UNSAFE.sub("_", url.split("://", 1)[-1]).strip("._")[:80]
    return f"{readable}-{hashlib.blake2b(url.encode(), digest_size=8).hexdigest()}"


def _tree_state(state_dir: str, site: str) -> str:
    return os.path.join(state_dir, _key(site), "tree.sqlite")


def _leaf_state(state_dir: str, site: str, leaf: Leaf) -> str:
    return os.path.join(state_dir, _key(site), "leaves", _key(leaf.url) + ".sqlite")


def _made(path: str) -> str:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    return path


# -- politeness across the cluster: a semaphore per host ---------------------------------------
#
# A distributed.Semaphore per host rather than host-affine tasks: pinning a host's tasks to
# one worker would put a large site's leaves back on one machine, which stage 2 spreads out.


class _Lock(Protocol):
    """What distributed.Semaphore and threading.BoundedSemaphore both are."""

    def acquire(self, *, timeout: float | None = None) -> bool: ...
    def release(self) -> object: ...


_LOCAL_LOCKS: dict[str, threading.BoundedSemaphore] = {}
_LOCAL_LOCKS_HELD = threading.Lock()
# [waiting, releasing, pacing], made at the first turn asked
_pools: list[ThreadPoolExecutor] = []
_POOLS_MADE = threading.Lock()


def _host_lock(name: str, per_host: int) -> _Lock:
    """The cluster's semaphore ``name``; without a cluster (dask's local schedulers run the
    tasks as threads of one process), one of this process."""
    try:
        from distributed import Semaphore, get_worker

        get_worker()
    except (ImportError, ValueError):
        with _LOCAL_LOCKS_HELD:
            return _LOCAL_LOCKS.setdefault(name, threading.BoundedSemaphore(per_host))
    return Semaphore(max_leases=per_host, name=name)


def _pool(which: int) -> ThreadPoolExecutor:
    """The threads the blocking cluster calls run on, off the reader's event loop:
    waiting for turns (many at once), giving them back (one thread, never behind a wait,
    so a turn held here is always given back however many wait), and asking the pace for
    starts (a request asks while it holds a turn: never behind the waits for turns)."""
    with _POOLS_MADE:
        if not _pools:
            _pools.append(ThreadPoolExecutor(32, thread_name_prefix="sitemap-reader-gate"))
            _pools.append(ThreadPoolExecutor(1, thread_name_prefix="sitemap-reader-gate-release"))
            _pools.append(ThreadPoolExecutor(8, thread_name_prefix="sitemap-reader-pace"))
    return _pools[which]


class _ClusterGate:
    """The readers' HostGate in read_sites' tasks: at most ``per_host`` requests to one
    host at once across the cluster (every task, every worker, and every read_sites with
    the same ``per_host`` on this cluster: the semaphore is named after both)."""

    def __init__(self, per_host: int) -> None:
        self._per_host = per_host
        self._locks: dict[str, _Lock] = {}  # kept while the task runs: leases are refreshed

    def _lock(self, host: str) -> _Lock:
        lock = self._locks.get(host)
        if lock is None:
            name = f"sitemap-reader:{self._per_host}:{host}"
            lock = self._locks[host] = _host_lock(name, self._per_host)
        return lock

    async def enter(self, host: str, timeout: float | None) -> bool:
        lock = self._lock(host)
        waiting = _pool(0).submit(lock.acquire, timeout=timeout)
        try:
            return await asyncio.wrap_future(waiting)
        except asyncio.CancelledError:
            # A wait already under way cannot be called off: a turn it gets is given back.
            waiting.add_done_callback(lambda done: _give_back_if_got(done, lock))
            raise

    def leave(self, host: str) -> None:
        _pool(1).submit(self._locks[host].release)


def _give_back_if_got(done: Future[bool], lock: _Lock) -> None:
    if not done.cancelled() and done.exception() is None and done.result():
        lock.release()


def _gate(per_host: int | None) -> _ClusterGate | None:
    return None if per_host is None else _ClusterGate(per_host)


# -- the pace across the cluster: one book of start times, in an actor -------------------------
#
# One actor rather than a distributed.Lock and a Variable per host (or metadata under a
# lock): a start is one call to the actor's worker, not four round trips to the scheduler
# (acquire, get, set, release) with a lease refreshed besides, and the actor's methods run
# one at a time on its thread, so a take is atomic without a lock. Its book's clock is that
# worker's wall clock; the callers get back waits, never times, so their clocks never meet.

_T = TypeVar("_T")
_Book = Any  # a PaceBook of this process, or a distributed.Actor of one


def _shared_book(config: ReaderConfig | None) -> _Book | None:
    """The book every task of a read_sites paces its requests by: an actor on the
    cluster, a book of this process on dask's local schedulers; None when the pace can
    never space a request (no delay, no Crawl-delay nor Retry-After taken)."""
    pace = (config or ReaderConfig()).pace
    if pace.delay == 0 and pace.max_delay == 0:
        return None
    client = _cluster_client()
    if client is None:
        return PaceBook()
    return client.submit(PaceBook, time.time, actor=True, pure=False).result()


def _cluster_client() -> Client | None:
    """The ``distributed.Client`` whose cluster runs the tasks, if it is dask's scheduler."""
    client = getattr(get_scheduler(), "__self__", None)  # Client.get, if it is the scheduler
    return client if isinstance(client, Client) else None


def _on_pool(which: int, call: Callable[[], _T]) -> Future[_T]:
    """``call()`` on a pool's thread, in this context (a worker's task's: the actor
    finds its worker through it)."""
    return _pool(which).submit(contextvars.copy_context().run, call)


class _ClusterPace:
    """The readers' PaceStore in read_sites' tasks: every task's starts to one host come
    from one book (the actor's), so they are spaced as one reader's would be."""

    def __init__(self, book: _Book) -> None:
        self._book = book

    async def take(self, host: str, delay: float, horizon: float | None) -> PaceStart:
        book = self._book
        if isinstance(book, PaceBook):  # threads of this process: no call to wait for
            return book.take(host, delay, horizon)
        asked = _on_pool(2, lambda: book.take(host, delay, horizon).result())
        return PaceStart(*await asyncio.wrap_future(asked))

    def slow(self, host: str, delay: float) -> None:
        book = self._book
        if isinstance(book, PaceBook):
            book.slow(host, delay)
        else:  # sent, not waited for: the reader's next start carries the delay anyway
            _on_pool(2, lambda: book.slow(host, delay))


@dataclass(frozen=True, slots=True)
class _Shared:
    """What a task's readers share with the other tasks: the host gate, the pace."""

    gate: _ClusterGate | None
    pace: _ClusterPace | None

    @classmethod
    def of(cls, per_host: int | None, book: _Book | None) -> _Shared:
        return cls(_gate(per_host), None if book is None else _ClusterPace(book))

    def reader(self, config: ReaderConfig | None, state: str | None = None) -> SitemapReader:
        return SitemapReader(config, state=state, gate=self.gate, pace=self.pace)


# -- dask's worker profiler, off where it can deadlock a worker -------------------------------
#
# On CPython 3.11, sys._current_frames() can deadlock the process (python/cpython#106883): it
# holds the runtime's lock while it makes frame objects, an allocation can start the GC, and
# the GC can hand the GIL to a thread that waits for that lock. A distributed worker calls it
# every 10 ms while a task runs (Worker.trigger_profile, ``distributed.worker.profile``);
# distributed keeps its event loops' own profile thread off on 3.11 (dask/distributed#8916),
# not this one. read_sites' tasks run many threads, and runs hung in 3 of about 10 (issue
# 33). 3.12 and later run the GC at the eval breaker, not inside an allocation, and no hang
# is reported there.
# Stopped by a plugin rather than refused: the user's pipeline runs under dask's defaults,
# and a plugin reaches the workers that join or restart later too.


def _profiler_deadlocks() -> bool:
    """Whether this process's Python is one where the profiler can deadlock (asked on the
    worker, whose Python may not be the client's)."""
    return sys.version_info[:2] == (3, 11)


class _NoProfiler(WorkerPlugin):
    """Stops a worker's statistical profiler where it can deadlock the worker. Its setup
    runs on the worker's event loop, where the profiler's callbacks run: none is under way."""

    idempotent = True  # registered once per cluster, whatever the number of reads
    name = "sitemap-reader-no-profiler"

    def setup(self, worker: Worker) -> None:
        if not _profiler_deadlocks():
            return
        for name in ("profile", "profile-cycle"):
            # Out of the dict too: a worker that is still starting would start it later.
            callback = worker.periodic_callbacks.pop(name, None)
            if callback is not None:
                callback.stop()


# -- stage 1: discovery -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Found:
    """What discovery found for one site: its leaves and its problems."""

    site: str
    leaves: tuple[Leaf, ...]
    problems: tuple[Problem, ...]


def _discover_sites(
    sites: Sequence[str],
    config: ReaderConfig | None,
    state_dir: str | None,
    per_host: int | None,
    book: _Book | None,
) -> list[_Found]:
    """A discovery task: the trees of ``sites``, a few at a time, each with its own reader
    (and tree state file), so every problem is known to be that site's."""
    shared = _Shared.of(per_host, book)

    async def work() -> list[_Found]:
        few = asyncio.Semaphore(_SITES_AT_ONCE)

        async def one(site: str) -> _Found:
            async with few:
                return await _discover(site, config, state_dir, shared)

        return list(await asyncio.gather(*map(one, sites)))

    return run_blocking(work)


async def _discover(
    site: str, config: ReaderConfig | None, state_dir: str | None, shared: _Shared
) -> _Found:
    if not is_url(site):
        raise ValueError(f"read_sites reads sites over HTTP: {site!r} is not an http(s) URL")
    leaves: list[Leaf] = []
    problems: list[Problem] = []
    state = None if state_dir is None else _made(_tree_state(state_dir, site))
    async with shared.reader(config, state) as reader:
        async for batch in reader.discover_batches(site):
            for item in batch:
                if type(item) is Leaf:
                    leaves.append(item)
                elif type(item) is Problem:
                    problems.append(item)
    return _Found(site, tuple(leaves), tuple(problems))


# -- stage 2: the leaves ------------------------------------------------------------------------

_Part = tuple[tuple[str, tuple[Leaf, ...]], ...]  # (site, its leaves) read by one task


# Bytes (as sent, Leaf.size) past which a site's leaves are not batched: a few large leaves
# would otherwise all land in one task (six 50,000-URL leaves took 15 s in one).
SMALL_SITE_BYTES = 2_000_000


def _plan(found: Iterable[_Found], batch_small: int, leaves_per_task: int) -> list[_Part]:
    """Tasks of leaves: a site with more than ``batch_small`` leaves, or whose leaves add
    up to more than ``SMALL_SITE_BYTES``, gets ``leaves_per_task`` of them a task; smaller
    sites share tasks of up to ``batch_small`` leaves, a site's leaves never split (one
    session reads them: politeness)."""
    parts: list[_Part] = []
    small: list[tuple[str, tuple[Leaf, ...]]] = []
    held = 0
    for f in found:
        n = len(f.leaves)
        if n == 0:
            continue
        size = sum(leaf.size or 0 for leaf in f.leaves)
        if n > batch_small or (n > 1 and size > SMALL_SITE_BYTES):
            parts += [
                ((f.site, f.leaves[i : i + leaves_per_task]),) for i in range(0, n, leaves_per_task)
            ]
            continue
        if held + n > batch_small:
            parts.append(tuple(small))
            small, held = [], 0
        small.append((f.site, f.leaves))
        held += n
    if small:
        parts.append(tuple(small))
    return parts


def _read_part(
    part: _Part,
    config: ReaderConfig | None,
    state_dir: str | None,
    per_host: int | None,
    book: _Book | None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A leaf task: the entries and the problems of ``part``'s leaves, as two frames."""
    shared = _Shared.of(per_host, book)

    async def work() -> list[tuple[list[pa.Table], list[Problem]]]:
        return list(
            await asyncio.gather(
                *(_read_leaves(site, leaves, config, state_dir, shared) for site, leaves in part)
            )
        )

    results = run_blocking(work)
    tables = [table for tables, _ in results for table in tables]
    if not tables:
        entries = entries_to_dataframe([])
    else:
        entries = table_to_dataframe(require_pyarrow().concat_tables(tables))
    rows = [
        (site, p) for (site, _), (_, problems) in zip(part, results, strict=True) for p in problems
    ]
    return entries, problem_frame(rows)


async def _read_leaves(
    site: str,
    leaves: tuple[Leaf, ...],
    config: ReaderConfig | None,
    state_dir: str | None,
    shared: _Shared,
) -> tuple[list[pa.Table], list[Problem]]:
    """One site's leaves: one reader for them all, or, with state, one reader (and state
    file) per leaf, at most ``per_host`` at a time."""
    tables: list[pa.Table] = []
    problems: list[Problem] = []

    async def read(reader: SitemapReader, chosen: tuple[Leaf, ...]) -> None:
        pending: list[Entry] = []
        async for batch in reader.leaf_batches(*chosen):
            for event in batch:
                if type(event) is Entry:
                    pending.append(event)
                elif type(event) is Problem:
                    problems.append(event)
            if len(pending) >= _CONVERT_EVERY:
                tables.append(entries_to_table(pending, source=site))
                pending = []
        if pending:
            tables.append(entries_to_table(pending, source=site))

    if state_dir is None:
        async with shared.reader(config) as reader:
            await read(reader, leaves)
        return tables, problems

    few = asyncio.Semaphore((config or ReaderConfig()).limits.per_host)

    async def one(leaf: Leaf) -> None:
        async with few:
            state = _made(_leaf_state(state_dir, site, leaf))
            async with shared.reader(config, state) as reader:
                await read(reader, (leaf,))

    await asyncio.gather(*map(one, leaves))
    return tables, problems


# -- the entry point ----------------------------------------------------------------------------


def read_sites(
    sites: Iterable[str] | str | db.Bag | dd.Series | pd.Series,
    *,
    config: ReaderConfig | None = None,
    state_dir: str | os.PathLike[str] | None = None,
    sites_per_task: int = 16,
    batch_small: int = 8,
    leaves_per_task: int = 1,
    per_host: int | None = 2,
    keep_profiler: bool = False,
) -> tuple[dd.DataFrame, dd.DataFrame]:
    """Read many sites' sitemaps into two Dask DataFrames: ``(entries, problems)``.

    Discovery (robots.txt, indexes) runs now, as tasks on the current Dask scheduler (the
    ``distributed.Client`` in use, if any); the leaf sitemaps are read by the workers when
    the frames are computed. Compute both together (``dask.compute(entries, problems)``)
    so that each leaf is downloaded once: each task of leaves gives a partition of both.

    ``entries`` has the columns and dtypes of ``sitemap_reader.entry_schema()`` (the
    Parquet output's), ``source`` holding the site each row was read for; rows keep
    document order within each leaf sitemap. ``problems`` has :func:`problem_schema`'s
    columns: a site that cannot be read at all (robots.txt failing, a refused connection)
    is a row there, never an exception. Each site is read as ``SitemapReader`` reads it
    alone (scope, limits, retries, budgets per site), so the rows are those of
    ``read_dataframe`` over the same sites.

    Politeness holds across the cluster: at most ``per_host`` requests are in flight to
    one host (``host:port``) at once, whichever tasks and workers send them, robots.txt,
    indexes and leaves alike. Each request waits for a turn from a ``distributed.Semaphore``
    named after the host (and the bound), held from before it is sent until its body is
    read, so sites that share a host share its turns; the run's deadline ends the wait.
    Each task's own session still sends at most ``config.limits.per_host`` at a time.

    The pace (``config.pace``) is the cluster's too: every request takes its start from one
    book of start times per host, kept by a ``distributed`` actor on one worker, so the
    requests to a host start at least ``Pace.delay`` apart whichever tasks send them, and a
    Crawl-delay that discovery reads, or a Retry-After one task is answered, spaces every
    task's later requests to that host (capped by ``Pace.max_delay``). The book keeps the
    actor's worker's wall clock and hands out waits, so the workers' clocks need not
    agree. A start past the run's deadline is refused, as in one reader. Without a
    ``distributed`` cluster the book is one process's (dask's threaded scheduler shares
    it; its processes scheduler paces task by task).

    Args:
        sites: site URLs (``https://example.com/``; a robots.txt or sitemap URL works too):
            a list or other iterable, one string, a pandas Series, or a Dask Bag or Series
            (gathered on the client: the list of sites is small, the work is not). Blank
            entries and repeats are dropped.
        config: the ``ReaderConfig`` of every read (pickled to the workers). The run-wide
            budgets (deadline, ``max_sitemaps``) apply to each task's reader.
        state_dir: makes the reads incremental: per site, ``<dir>/<site>/tree.sqlite``
            for discovery and ``<dir>/<site>/leaves/<leaf>.sqlite`` per leaf, so no two
            tasks ever write one file. It must be a directory every worker can reach (a
            shared file system on a real cluster). Only what changed since the last run is
            fetched and only the entries of changed sitemaps come out, as with ``--state``.
        sites_per_task: sites one discovery task reads (concurrently).
        batch_small: a site with at most this many leaves is read in one task, which
            other such sites' leaves share up to this many leaves.
        leaves_per_task: leaves of a larger site a task reads.
        per_host: requests in flight to one host at once across the cluster (2 by
            default); None lifts the cluster-wide bound, leaving each task's
            ``config.limits.per_host`` alone (up to worker threads x that many at once).
            Without a ``distributed`` cluster (dask's local schedulers), the bound is one
            process's.
        keep_profiler: leave dask's worker profiler running on Python 3.11 workers. By
            default read_sites stops it there (on the cluster's workers, and on those that
            join later) for the life of the workers: on 3.11 it can deadlock a worker
            (python/cpython#106883, dask/distributed#8616). Other Pythons keep it.

    Raises:
        ValueError: a site that is not an http(s) URL, a bad count, or
            ``config.incremental.changes`` (the change feed needs ``SitemapReader.walk``).
        TypeError: a site that is not a string.
        StateError: a state file that cannot be used.
        ImportError: pandas or pyarrow is missing (the message names the extra).
    """
    for name, value in (
        ("sites_per_task", sites_per_task),
        ("batch_small", batch_small),
        ("leaves_per_task", leaves_per_task),
        ("per_host", 1 if per_host is None else per_host),
    ):
        if value < 1:
            raise ValueError(f"{name} must be at least 1, not {value}")
    if config is not None and config.incremental.changes:
        raise ValueError("read_sites reads entries; the change feed needs SitemapReader.walk")
    entries_meta = entries_to_dataframe([])  # fails early when pandas or pyarrow is missing
    listed = _site_list(sites)
    directory = None if state_dir is None else os.path.abspath(os.fspath(state_dir))
    token = uuid.uuid4().hex  # a read of now: never the cached result of an earlier one
    client = _cluster_client()
    if client is not None and not keep_profiler:
        client.register_plugin(_NoProfiler())
    book = _shared_book(config)  # held by the tasks' graphs: it lives as long as they do

    discover = delayed(_discover_sites, pure=False)
    found: list[_Found] = [
        f
        for group in compute(
            *(
                discover(
                    listed[i : i + sites_per_task],
                    config,
                    directory,
                    per_host,
                    book,
                    dask_key_name=f"sitemap-reader-discover-{i}-{token}",
                )
                for i in range(0, len(listed), sites_per_task)
            )
        )
        for f in group
    ]

    read = delayed(_read_part, pure=False, nout=2)
    tasks = [
        read(
            part,
            config,
            directory,
            per_host,
            book,
            dask_key_name=f"sitemap-reader-leaves-{i}-{token}",
        )
        for i, part in enumerate(_plan(found, batch_small, leaves_per_task))
    ]
    if tasks:
        entries = dd.from_delayed(
            [entry_part for entry_part, _ in tasks],
            meta=entries_meta,
            verify_meta=False,
            prefix="sitemap-reader-entries",
        )
    else:
        entries = dd.from_pandas(entries_meta, npartitions=1)
    discovered = problem_frame([(f.site, p) for f in found for p in f.problems])
    problems = dd.from_delayed(
        [delayed(discovered), *(problem_part for _, problem_part in tasks)],
        meta=discovered.iloc[:0],
        verify_meta=False,
        prefix="sitemap-reader-problems",
    )
    return entries, problems


def _site_list(sites: Iterable[str] | str | db.Bag | dd.Series | pd.Series) -> list[str]:
    if isinstance(sites, str):
        sites = [sites]
    elif isinstance(sites, (db.Bag, dd.Series)):
        sites = sites.compute()
    listed: dict[str, None] = {}
    for site in sites:
        if not isinstance(site, str):
            raise TypeError(f"a site is a URL string, not {site!r}")
        if site.strip():
            listed[site.strip()] = None
    return list(listed)
