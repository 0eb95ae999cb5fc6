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

The sites are partitioned by host, as the crawlers that spread sitemaps over machines do
(Nutch, StormCrawler, Heritrix): the sites of one host (``host:port``) are always in one
partition, a few hosts to a partition, and each partition is read by one task with the
ordinary walk of one reader (``dump --sites``' walk). Its robots.txt, its pace and its
per-host bound are that process's, so a request asks nothing of the scheduler.

A site's sitemaps on other hosts (a CDN, another site's host) follow the site into its
partition, so such a host may be read by several partitions: it is the one thing
coordinated. A partition leases the host from the cluster (a ``distributed.Semaphore`` of
one lease named after it) the first time it needs it, and gives the lease back once it
has left the host alone for a while: one acquire and one release per host and partition,
not per request. While one partition holds it, no other sends to that host.

Both frames come from the same tasks (one per partition), so computing them *together*
(``dask.compute(entries, problems)``, or both ``to_parquet(..., compute=False)`` as above)
reads each site once. Computing them one after the other reads the sites twice.

This module needs dask, distributed, pandas and pyarrow (``pip install
'sitemap-reader[dask]'``); ``import sitemap_reader`` never imports it.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import os
import re
import sys
import threading
import uuid
import warnings
from collections import Counter
from collections.abc import Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from ._api._reader import SitemapReader
from ._api._sync import run_blocking
from ._base._config import ReaderConfig
from ._base._models import Entry, Problem
from ._base._run import Batch
from ._base._sources import is_url
from ._io._http._pace import host_of
from ._io._http._pace_store import LocalPace, PaceBook
from ._output._frames import problem_frame, problem_schema
from ._output._table import (
    PENDING_ENTRIES,
    entries_to_dataframe,
    entry_schema,
    record_batch,
    require_pyarrow,
    source_column,
    table_to_dataframe,
)

_EXTRA = "pip install 'sitemap-reader[dask]'"

try:
    import dask.bag as db
    import dask.dataframe as dd
    from dask.base import get_scheduler
    from dask.delayed import delayed
    from distributed import Client, WorkerPlugin
except ImportError as exc:  # pragma: no cover - the extra is installed where tests run
    raise ImportError(
        f"sitemap_reader.dask needs dask, distributed, pandas and pyarrow: {_EXTRA}"
    ) from exc

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    import pandas as pd
    import pyarrow as pa
    from distributed import Worker

__all__ = ["problem_schema", "read_sites"]

_SITES_AT_ONCE = 8  # sites of a partition read at once, each with its own state file
# Seconds a partition keeps a lease on a shared host after its last request there ends (and
# at least until the host's pace lets the next start go): a site's sitemaps on that host
# come in bursts, and a lease given back between two of them would be taken again.
LINGER = 1.0


# -- partitions: by host ----------------------------------------------------------------------


def _partitions(sites: Sequence[str], sites_per_task: int) -> list[tuple[str, ...]]:
    """The sites in partitions of about ``sites_per_task``, the sites of one host
    (``host:port``) never split: packed in order of first appearance."""
    by_host: dict[str, list[str]] = {}
    for site in sites:
        by_host.setdefault(host_of(site), []).append(site)
    parts: list[tuple[str, ...]] = []
    current: list[str] = []
    for group in by_host.values():
        if current and len(current) + len(group) > sites_per_task:
            parts.append(tuple(current))
            current = []
        current += group
    if current:
        parts.append(tuple(current))
    return parts


# -- state files: one per site, so no two tasks share one --------------------------------------

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def _key(url: str) -> str:
    """A file name for ``url``: readable, and unique by a digest of the whole URL."""
    readable = _UNSAFE.sub("_", url.split("://", 1)[-1]).strip("._")[:80]
    return f"{readable}-{hashlib.blake2b(url.encode(), digest_size=8).hexdigest()}"


def _site_state(state_dir: str, site: str) -> str:
    path = os.path.join(state_dir, _key(site), "site.sqlite")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    return path


# -- the hosts a partition shares: one lease each, while it uses them ------------------------------


class _Lock(Protocol):
    """What distributed.Semaphore and threading.BoundedSemaphore both are."""

    def acquire(self, *, timeout: float | None = None) -> bool: ...
    def release(self) -> object: ...


_LOCAL_LOCKS: dict[str, threading.BoundedSemaphore] = {}
_LOCAL_LOCKS_HELD = threading.Lock()
_pools: list[ThreadPoolExecutor] = []  # [waiting for leases, giving them back]
_POOLS_MADE = threading.Lock()


def _host_lease(host: str) -> _Lock:
    """The cluster's one lease of ``host``; without a cluster (dask's local schedulers run
    the tasks as threads of one process), one of this process. Made when a partition first
    needs the host: registering it is a scheduler call."""
    name = f"sitemap-reader:host:{host}"
    try:
        from distributed import Semaphore, get_worker

        get_worker()
    except (ImportError, ValueError):
        with _LOCAL_LOCKS_HELD:
            return _LOCAL_LOCKS.setdefault(name, threading.BoundedSemaphore(1))
    return Semaphore(max_leases=1, name=name)


def _pool(which: int) -> ThreadPoolExecutor:
    """The threads the blocking lease calls run on, off the reader's event loop: waiting
    (many at once), and giving back (one thread, never behind a wait)."""
    with _POOLS_MADE:
        if not _pools:
            _pools.append(ThreadPoolExecutor(16, thread_name_prefix="sitemap-reader-lease"))
            _pools.append(ThreadPoolExecutor(1, thread_name_prefix="sitemap-reader-lease-back"))
    return _pools[which]


@dataclass(eq=False)
class _Lease:
    """A partition's hold on a shared host: being asked, held, or given back."""

    lock: _Lock
    asked: Future[bool] | None = None  # the blocking acquire, while it runs
    held: bool = False
    giving_back: asyncio.TimerHandle | None = None


@dataclass(eq=False)
class _PartitionGate:
    """The readers' HostGate in a partition's task: at most ``per_host`` requests to one
    host at once, counted in this process; a host that is not one of the partition's own
    (``own``: its sites' hosts) is leased from the cluster first, once while it is in use.
    A lease goes back ``LINGER`` seconds after the host's last request, and never before
    the host's pace (``book``) would start the next: another partition's first request
    there keeps the pace."""

    per_host: int
    own: frozenset[str]
    book: PaceBook
    _turns: dict[str, asyncio.Semaphore] = field(default_factory=dict)
    _users: Counter[str] = field(default_factory=Counter)  # requests holding or waiting
    _leases: dict[str, _Lease] = field(default_factory=dict)
    leases_taken: int = 0  # acquires asked of the cluster: what the tests count

    async def enter(self, host: str, timeout: float | None) -> bool:
        self._users[host] += 1
        entered = False
        try:
            await asyncio.wait_for(self._turn(host), timeout)
            entered = True
        except asyncio.TimeoutError:
            return False
        finally:
            if not entered:
                self._done_with(host)
        return True

    async def _turn(self, host: str) -> None:
        if host not in self.own:
            await self._leased(host)
        turns = self._turns.get(host)
        if turns is None:
            turns = self._turns[host] = asyncio.Semaphore(self.per_host)
        await turns.acquire()

    def leave(self, host: str) -> None:
        self._turns[host].release()
        self._done_with(host)

    async def _leased(self, host: str) -> None:
        lease = self._leases.get(host)
        if lease is None:
            lease = self._leases[host] = _Lease(_host_lease(host))
        if lease.giving_back is not None:  # wanted again before it went back
            lease.giving_back.cancel()
            lease.giving_back = None
        if lease.held:
            return
        if lease.asked is None:  # one acquire however many requests wait for it
            lease.asked = _pool(0).submit(lease.lock.acquire)
            self.leases_taken += 1
        asked = lease.asked
        try:
            # Shielded: a request that stops waiting (its deadline) leaves the acquire going.
            await asyncio.shield(asyncio.wrap_future(asked))
        except BaseException:
            if asked.done() and not asked.cancelled() and asked.exception() is not None:
                lease.asked = None  # the cluster refused: the next request asks again
            raise
        if lease.asked is asked:  # the first of its waiters to wake
            lease.asked = None
            lease.held = True

    def _done_with(self, host: str) -> None:
        self._users[host] -= 1
        lease = self._leases.get(host)
        if self._users[host] == 0 and lease is not None and lease.held:
            self._give_back_later(host, lease)

    def _give_back_later(self, host: str, lease: _Lease) -> None:
        if lease.giving_back is not None:
            lease.giving_back.cancel()
        wait = max(LINGER, self.book.free_in(host))
        lease.giving_back = asyncio.get_running_loop().call_later(wait, self._give_back, lease)

    def _give_back(self, lease: _Lease) -> None:
        lease.giving_back = None
        if lease.held:
            lease.held = False
            _pool(1).submit(lease.lock.release)

    async def close(self) -> None:
        """At the task's end: every lease back once the pace allows; an acquire still
        under way gives its lease back when it gets it."""
        for host, lease in self._leases.items():
            if lease.giving_back is not None:
                lease.giving_back.cancel()
                lease.giving_back = None
            if lease.held:
                await asyncio.sleep(self.book.free_in(host))
                self._give_back(lease)
            elif lease.asked is not None:
                lease.asked.add_done_callback(functools.partial(_back_if_got, lease.lock))


def _back_if_got(lock: _Lock, done: Future[bool]) -> None:
    if not done.cancelled() and done.exception() is None and done.result():
        _pool(1).submit(lock.release)


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


# -- a partition's task ---------------------------------------------------------------------------


@dataclass(eq=False)
class _Gathered:
    """What a task read: entries as Arrow record batches (converted every
    ``PENDING_ENTRIES``, so records never pile up; each row's source from the runs of
    batch roots), and ``(site, problem)`` pairs."""

    batches: list[pa.RecordBatch] = field(default_factory=list)
    pending: list[Entry] = field(default_factory=list)
    runs: list[tuple[str, int]] = field(default_factory=list)  # (site, rows) of pending
    problems: list[tuple[str, Problem]] = field(default_factory=list)

    async def take(self, batches: AsyncIterator[Batch]) -> None:
        async for batch in batches:
            site = batch.root or ""
            entries = [event for event in batch if type(event) is Entry]
            if len(entries) < len(batch):  # reports and problems: rare beside entries
                self.problems += [(site, e) for e in batch if type(e) is Problem]
            if not entries:
                continue
            self.pending += entries
            if self.runs and self.runs[-1][0] == site:
                self.runs[-1] = (site, self.runs[-1][1] + len(entries))
            else:
                self.runs.append((site, len(entries)))
            if len(self.pending) >= PENDING_ENTRIES:
                self._convert()

    def _convert(self) -> None:
        if self.pending:
            sources = source_column(require_pyarrow(), self.runs)
            self.batches.append(record_batch(self.pending, sources))
            self.pending, self.runs = [], []

    def frames(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        self._convert()
        table = require_pyarrow().Table.from_batches(self.batches, schema=entry_schema())
        self.batches = []
        return table_to_dataframe(table), problem_frame(self.problems)


def _read_partition(
    sites: tuple[str, ...],
    config: ReaderConfig | None,
    state_dir: str | None,
    per_host: int | None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A partition's task: its sites' entries and problems, as two frames.

    Without state, one reader walks every site at once (``dump --sites``' walk); with it,
    each site has a reader (and state file) of its own, a few at once, all sharing the
    partition's gate and pace."""
    book = PaceBook()
    pace = LocalPace(book)
    gate = (
        None if per_host is None else _PartitionGate(per_host, frozenset(map(host_of, sites)), book)
    )
    gathered = _Gathered()

    async def work() -> None:
        try:
            if state_dir is None:
                async with SitemapReader(config, gate=gate, pace=pace) as reader:
                    await gathered.take(reader.walk_batches(*sites))
                return
            few = asyncio.Semaphore(_SITES_AT_ONCE)

            async def one(site: str) -> None:
                async with few:
                    state = _site_state(state_dir, site)
                    async with SitemapReader(config, state=state, gate=gate, pace=pace) as reader:
                        await gathered.take(reader.walk_batches(site))

            await asyncio.gather(*map(one, sites))
        finally:
            if gate is not None:
                await gate.close()

    run_blocking(work)
    return gathered.frames()


# -- the entry point ----------------------------------------------------------------------------


def read_sites(
    sites: Iterable[str] | str | db.Bag | dd.Series | pd.Series,
    *,
    config: ReaderConfig | None = None,
    state_dir: str | os.PathLike[str] | None = None,
    sites_per_task: int = 16,
    batch_small: int | None = None,
    leaves_per_task: int | None = None,
    per_host: int | None = 2,
    keep_profiler: bool = False,
) -> tuple[dd.DataFrame, dd.DataFrame]:
    """Read many sites' sitemaps into two Dask DataFrames: ``(entries, problems)``.

    The sites are partitioned by host (``host:port``): the sites of one host are always in
    one partition, and each partition is read, when the frames are computed, by one task
    on the current Dask scheduler (the ``distributed.Client`` in use, if any) with the
    ordinary walk, robots.txt first. Compute both frames together
    (``dask.compute(entries, problems)``) so that each site is read once: each task gives
    a partition of both.

    ``entries`` has the columns and dtypes of ``sitemap_reader.entry_schema()`` (the
    Parquet output's), ``source`` holding the site each row was read for; rows keep
    document order within each sitemap. ``problems`` has :func:`problem_schema`'s
    columns: a site that cannot be read at all (robots.txt failing, a refused connection)
    is a row there, never an exception. Each site is read as ``SitemapReader`` reads it
    (scope, limits, retries per site), so the rows are those of ``read_dataframe`` over
    the same sites.

    Politeness holds across the cluster. A host's own sites live in one partition, so its
    bound (``per_host`` requests in flight at once, robots.txt and sitemaps alike) and its
    pace (``config.pace``: delay, Crawl-delay, Retry-After) are kept by that task alone,
    with no call to the scheduler. A host that several partitions reach (sitemaps of
    several sites on one CDN host) is leased: a partition asks the cluster for the host's
    one lease (a ``distributed.Semaphore`` named after it) before its first request there,
    and gives it back ``LINGER`` seconds after its last one, never before the host's pace
    would allow the next start; so one partition at a time sends to it, within the bound
    and the pace. That is one acquire and one release per host and partition, not per
    request.

    Args:
        sites: site URLs (``https://example.com/``; a robots.txt or sitemap URL works too):
            a list or other iterable, one string, a pandas Series, or a Dask Bag or Series
            (gathered on the client: the list of sites is small, the work is not). Blank
            entries and repeats are dropped.
        config: the ``ReaderConfig`` of every read (pickled to the workers). The run-wide
            budgets (deadline, ``max_sitemaps``) apply to each task's reader.
        state_dir: makes the reads incremental: ``<dir>/<site>/site.sqlite`` per site, so
            no two tasks ever write one file. It must be a directory every worker can
            reach (a shared file system on a real cluster). Only what changed since the
            last run is fetched and only the entries of changed sitemaps come out, as with
            ``--state``.
        sites_per_task: sites a partition holds, about: a host's sites are never split,
            so a host with more sites makes a larger partition.
        batch_small: no effect since the read is partitioned by host (kept so that calls
            that pass it still work, with a ``DeprecationWarning``).
        leaves_per_task: no effect, as ``batch_small``.
        per_host: requests in flight to one host at once (2 by default), whichever task
            sends them; None lifts this bound and the leases of shared hosts, leaving each
            task's ``config.limits.per_host`` alone.
        keep_profiler: leave dask's worker profiler running on Python 3.11 workers. By
            default read_sites stops it there (on the cluster's workers, and on those that
            join later) for the life of the workers: on 3.11 it can deadlock a worker
            (python/cpython#106883, dask/distributed#8616). Other Pythons keep it.

    Raises:
        ValueError: a site that is not an http(s) URL, a bad count, or
            ``config.incremental.changes`` (the change feed needs ``SitemapReader.walk``).
        TypeError: a site that is not a string.
        ImportError: pandas or pyarrow is missing (the message names the extra).
    """
    for name, value in (
        ("sites_per_task", sites_per_task),
        ("batch_small", 1 if batch_small is None else batch_small),
        ("leaves_per_task", 1 if leaves_per_task is None else leaves_per_task),
        ("per_host", 1 if per_host is None else per_host),
    ):
        if value < 1:
            raise ValueError(f"{name} must be at least 1, not {value}")
    for name, given in (("batch_small", batch_small), ("leaves_per_task", leaves_per_task)):
        if given is not None:  # a caller who tunes it should learn that it does nothing now
            warnings.warn(
                f"read_sites: {name} has no effect since the read is partitioned by host",
                DeprecationWarning,
                stacklevel=2,
            )
    if config is not None and config.incremental.changes:
        raise ValueError("read_sites reads entries; the change feed needs SitemapReader.walk")
    entries_meta = entries_to_dataframe([])  # fails early when pandas or pyarrow is missing
    problems_meta = problem_frame([])
    listed = _site_list(sites)
    directory = None if state_dir is None else os.path.abspath(os.fspath(state_dir))
    token = uuid.uuid4().hex  # a read of now: never the cached result of an earlier one
    client = _cluster_client()
    if client is not None and not keep_profiler:
        client.register_plugin(_NoProfiler())

    read = delayed(_read_partition, pure=False, nout=2)
    tasks = [
        read(part, config, directory, per_host, dask_key_name=f"sitemap-reader-sites-{i}-{token}")
        for i, part in enumerate(_partitions(listed, sites_per_task))
    ]
    if not tasks:
        return dd.from_pandas(entries_meta, npartitions=1), dd.from_pandas(
            problems_meta, npartitions=1
        )
    entries = dd.from_delayed(
        [entry_part for entry_part, _ in tasks],
        meta=entries_meta,
        verify_meta=False,
        prefix="sitemap-reader-entries",
    )
    problems = dd.from_delayed(
        [problem_part for _, problem_part in tasks],
        meta=problems_meta,
        verify_meta=False,
        prefix="sitemap-reader-problems",
    )
    return entries, problems


def _cluster_client() -> Client | None:
    """The ``distributed.Client`` whose cluster runs the tasks, if it is dask's scheduler."""
    client = getattr(get_scheduler(), "__self__", None)  # Client.get, if it is the scheduler
    return client if isinstance(client, Client) else None


def _site_list(sites: Iterable[str] | str | db.Bag | dd.Series | pd.Series) -> list[str]:
    if isinstance(sites, str):
        sites = [sites]
    elif isinstance(sites, (db.Bag, dd.Series)):
        sites = sites.compute()
    listed: dict[str, None] = {}
    for site in sites:
        if not isinstance(site, str):
            raise TypeError(f"a site is a URL string, not {site!r}")
        site = site.strip()
        if not site:
            continue
        if not is_url(site):
            raise ValueError(f"read_sites reads sites over HTTP: {site!r} is not an http(s) URL")
        listed[site] = None
    return list(listed)
