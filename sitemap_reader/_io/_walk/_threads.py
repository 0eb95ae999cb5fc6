"""Documents parsed in threads: a parser's ``feed`` and ``close`` run off the event loop.

With ``ReaderConfig.parse_threads`` above 0 (or None, auto, when the parser's core is the
compiled one), a :class:`ParseThreads` keeps that many threads for one walk. A document's
body awaits each of its calls before making the next, so one document is never fed by two
threads at once and its chunks go in order; meanwhile the event loop keeps fetching and
the other documents' calls run on the other threads. A compiled core does its work with
the GIL released, so two documents are parsed on two cores in one process, and the
records need no shipping between processes (``ReaderConfig.workers``). The pure-Python
core holds the GIL: threads would only add a hand-over a chunk, so auto leaves them off.

Memory stays bounded as inline: one chunk a document is in flight, and the events of a
call are handed to the outbox (bounded) before the next chunk is read.

A document read alone (a local file, a site's robots.txt and first index, the last child)
is parsed inline all the same: with nothing to parse beside it, the hop to a thread and the
wake-up of the loop after it are all a thread would add, twice a chunk. The walk says how
many documents it is reading (:meth:`ParseThreads.reading`); a call goes to a thread only
while another document is being read too.

A call cannot be stopped in the middle: a cancelled body (Ctrl-C, a stopped walk) waits for
its call to end before it goes on unwinding, as an inline call would have ended first, so
nothing touches the parser while a thread still holds it. A call that raises raises in the
body, as inline.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor

from ..._base._config import ReaderConfig
from ..._base._cores import available_cores
from ..._base._models import Event
from ..._core import _parser
from ..._core._xml._core_choice import COMPILED


def threads_for(config: ReaderConfig, *, lines: bool = False) -> int:
    """How many parse threads a walk of ``config`` keeps (0: parsed on the event loop);
    ``lines``: the walk writes lines from compiled records (``._lines``).

    Auto (None): one a core, when the parser's core releases the GIL for enough of its
    work and there are several cores to run on; else none. The compiled core does when
    its records stay in Rust (``lines``): the scan and the writing run detached, and only
    a run a chunk is handed back (``benchmarks/bench_threads.py``: 1.13x to 1.28x on a
    site, on two cores). Building ``Entry`` records holds the GIL, so the library's walks
    gain little (``_parser.RELEASES_GIL``)."""
    if config.parse_threads is not None:
        return config.parse_threads
    cores = available_cores()
    releases = _parser.RELEASES_GIL or (lines and COMPILED)
    return cores if releases and cores > 1 else 0


class ParseThreads:
    """Up to ``size`` threads, started as calls come; :meth:`close` joins them."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._executor = ThreadPoolExecutor(max_workers=size, thread_name_prefix="sitemap-parse")
        self._reading = 0  # documents the walk is reading now

    @contextlib.contextmanager
    def reading(self) -> Iterator[None]:
        """Around the read of one document (its fetch or its file, and its parse)."""
        self._reading += 1
        try:
            yield
        finally:
            self._reading -= 1

    async def call(self, work: Callable[..., list[Event]], *args: bytes) -> list[Event]:
        """``work(*args)`` on a thread of the pool, or inline when its document is the only
        one being read; its events, or what it raised."""
        if self._reading < 2:
            return work(*args)
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self._executor, work, *args)
        try:
            # Shielded: a cancel must not leave the thread running with the parser.
            return await asyncio.shield(future)
        except asyncio.CancelledError:
            await _outlast(future)
            raise

    def close(self) -> None:
        """Join the threads. Called once no body awaits a call (each waits for its own even
        when cancelled), so none is running and this returns at once."""
        self._executor.shutdown(wait=True)


async def _outlast(future: asyncio.Future[list[Event]]) -> None:
    """Wait for ``future`` to be done, through any further cancel (one call's work)."""
    try:
        await asyncio.wait((future,))
    except asyncio.CancelledError:
        await _outlast(future)  # cancelled again: the thread still holds the parser
    if not future.cancelled():
        future.exception()  # retrieved: the cancel is what the body raises
