"""Blocking wrappers for scripts and notebooks, and the glue that runs async code from sync
code: :func:`run_blocking` runs a coroutine to its end, :func:`iterate_blocking` streams an
async iterator; every blocking caller in the package (this module, the tables, Dask tasks,
the command line) goes through them. Both work inside a running event loop too (a
notebook, Dask's synchronous scheduler): the async code runs on a thread and loop of its own.

Records cross over through a bounded queue, so a slow consumer slows the reading instead
of letting records pile up; leaving the loop early stops the run.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
import queue
import threading
from collections.abc import AsyncGenerator, Awaitable, Callable, Generator
from typing import TYPE_CHECKING, TypeVar

from .._base._config import ReaderConfig
from .._base._lines import Lines
from .._base._models import Entry, Event
from .._io._state._store import StateStore
from .._io._walk._lines import LineMaker
from ._reader import SitemapReader, Source

if TYPE_CHECKING:
    from .._check._checker import Checker
    from .._check._codes import Finding

_DONE = object()
_T = TypeVar("_T")


State = StateStore | str | os.PathLike[str] | None


def walk_sync(
    *sources: Source, config: ReaderConfig | None = None, state: State = None
) -> Generator[Event, None, None]:
    """Blocking ``SitemapReader.walk``: entries, problems and per-document reports.

    ``state`` is as for :class:`SitemapReader`. Works inside a running event loop too (a
    notebook): the walk runs on a thread and loop of its own, and each step waits for it,
    holding the caller's loop meanwhile. Close the generator (or leave a ``for`` loop) to
    stop the run early.
    """

    async def batches() -> AsyncGenerator[list[Event], None]:
        async with SitemapReader(config, state=state) as reader:
            async for batch in reader.walk_batches(*sources):
                yield batch

    return _flatten(iterate_blocking(batches))


def _flatten(batches: Generator[list[_T], None, None]) -> Generator[_T, None, None]:
    try:
        for batch in batches:
            yield from batch
    finally:
        batches.close()  # leaving early stops the run now, not when garbage is collected


def entries_sync(
    *sources: Source, config: ReaderConfig | None = None, state: State = None
) -> Generator[Entry, None, None]:
    """Blocking ``SitemapReader.entries``: iterate page URLs as they are read."""
    return _only_entries(walk_sync(*sources, config=config, state=state))


def _only_entries(events: Generator[Event, None, None]) -> Generator[Entry, None, None]:
    try:
        for event in events:
            if type(event) is Entry:
                yield event
    finally:
        events.close()  # leaving early stops the run now, not when garbage is collected


def lines_sync(
    *sources: Source, plan: LineMaker, config: ReaderConfig | None = None, state: State = None
) -> Generator[Lines, None, None]:
    """Blocking ``SitemapReader.lines``: the entries' lines in ``plan``'s format (a
    :class:`LinePlan`), a run of them at a time, as they are written (write
    ``plan.header`` first)."""

    async def batches() -> AsyncGenerator[list[Lines], None]:
        async with SitemapReader(config, state=state) as reader:
            async for batch in reader.line_batches(*sources, plan=plan):
                yield [event for event in batch if type(event) is Lines]

    return _flatten(iterate_blocking(batches))


def collect_urls_sync(
    *sources: Source, config: ReaderConfig | None = None, state: State = None
) -> list[str]:
    """Every page URL of the sources, as a list (for small sites and scripts)."""
    return [entry.loc for entry in entries_sync(*sources, config=config, state=state)]


def check_sync(
    *sources: Source, config: ReaderConfig | None = None, checker: Checker | None = None
) -> list[Finding]:
    """Blocking ``SitemapReader.check``: every finding of the sources' sitemaps, as a list."""

    async def check() -> list[Finding]:
        async with SitemapReader(config) as reader:
            return [found async for found in reader.check(*sources, checker=checker)]

    return run_blocking(check)


# -- async code run from sync code ---------------------------------------------------------------


def run_blocking(work: Callable[[], Awaitable[_T]], *, refuse: str | None = None) -> _T:
    """Run ``work()`` to its end on an event loop of its own and return its result.

    Called from a running event loop (a notebook, Dask's synchronous scheduler), blocking
    would stall that loop: with ``refuse``, RuntimeError(refuse) is raised; without, the
    work runs on a thread of its own while the caller waits.
    """
    if not _inside_loop():
        return asyncio.run(_await(work))
    if refuse is not None:
        raise RuntimeError(refuse)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(lambda: asyncio.run(_await(work))).result()


def iterate_blocking(
    items: Callable[[], AsyncGenerator[_T, None]],
) -> Generator[_T, None, None]:
    """Iterate ``items()`` from sync code: it runs on a thread and event loop of its own,
    whether or not a loop runs here (a notebook), and each step waits for its next item.

    Items cross over through a short queue, so a slow consumer slows the producer instead
    of letting items pile up. Closing the generator (leaving a ``for`` loop) cancels the
    producer and waits for its thread; its exceptions are raised here, as they are.
    """
    channel: queue.Queue[object] = queue.Queue(maxsize=8)
    stop = threading.Event()
    running: list[tuple[asyncio.AbstractEventLoop, asyncio.Task[None]]] = []

    def put(item: object) -> bool:
        while not stop.is_set():
            with contextlib.suppress(queue.Full):
                channel.put(item, timeout=0.1)
                return True
        return False

    async def produce() -> None:
        task = asyncio.current_task()
        assert task is not None
        running.append((asyncio.get_running_loop(), task))
        if stop.is_set():
            return
        async with contextlib.aclosing(items()) as iterator:
            async for item in iterator:
                if not await asyncio.to_thread(put, item):
                    return

    def run() -> None:
        try:
            run_blocking(produce)  # on this new thread: on a loop of its own
        except asyncio.CancelledError:
            pass  # the consumer left: stopped on purpose
        except Exception as exc:  # noqa: BLE001 -- handed to the consumer, raised there
            put(exc)
        finally:
            put(_DONE)

    thread = threading.Thread(target=run, name="sitemap-reader", daemon=True)
    thread.start()
    try:
        while True:
            item = channel.get()
            if item is _DONE:
                return
            if isinstance(item, BaseException):
                raise item
            yield item  # type: ignore[misc]
    finally:
        stop.set()
        for loop, task in running:  # don't wait for work nobody wants any more
            with contextlib.suppress(RuntimeError):  # the loop already ended
                loop.call_soon_threadsafe(task.cancel)
        thread.join()


def _inside_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


async def _await(work: Callable[[], Awaitable[_T]]) -> _T:
    return await work()
