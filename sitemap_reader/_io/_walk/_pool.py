"""Sitemaps parsed in worker processes: the walk's bytes go out, the records come back.

With ``ReaderConfig.workers`` above 0, a :class:`ParsePool` keeps that many worker
processes (``python -c`` running :func:`serve`, started when a second document asks for
one: a run of one sitemap starts none). Each document is pinned to one worker, which holds
its :class:`SitemapParser`; the walk's :class:`RemoteParser` stands for it: ``await
feed(chunk)`` sends the chunk and returns the records it completed, as the parser itself
would, in order. One request per document is in flight, so memory is bounded by the
walk's own concurrency.

Records come back packed per reply (:func:`pack`): columns of locs, dates, change
frequencies and priorities, extension records as tuples, the rare other events (index
children, problems) with their positions; pickled once per reply, not one dataclass at a
time. The frames on the pipes are a length, the document's number and an operation.

A worker that dies fails the documents it held (:class:`WorkerLost`, reported as a
``worker-lost`` problem of each, read in part); the documents after it are parsed in
this process.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import pickle
import signal
import struct
import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import IO, Any

from ..._base._config import ReaderConfig
from ..._base._errors import WorkerLost
from ..._base._gc import few_collections
from ..._base._models import Alternate, ChangeFreq, Entry, Event, Format, Image
from ..._core._dates import DATE_ALONE
from ..._core._parser import SitemapParser

_ASK = struct.Struct("<IIB")  # payload length, document, operation
_REPLY = struct.Struct("<II")  # payload length, document
OPEN, FEED, CLOSE, DROP = range(1, 5)
_ERROR = "error"  # a reply saying the parser raised (a bug): raised again here
_WORKER = "from sitemap_reader._io._walk._pool import serve; serve()"
_FREQ: dict[str | None, ChangeFreq | None] = {f.value: f for f in ChangeFreq}
_FREQ[None] = None


# -- the records, packed -----------------------------------------------------------------------

Packed = tuple[Any, ...]


def pack(events: list[Event], url: str) -> Packed:
    """``events`` as columns: entries of ``url`` field by field, the rest as they are.

    Dates go as ISO text: every parsed date has a tzinfo object of its own, which pickle
    would write (and the walk rebuild) one by one; ``fromisoformat`` gives the same instant
    at the same offset for a tenth of the cost. A date written alone goes as the date, so that
    it comes back in ``DATE_ALONE`` (``_dates``)."""
    locs: list[str] = []
    dates: list[str | None] = []
    freqs: list[str | None] = []
    prios: list[float | None] = []
    exts: list[tuple[Any, ...] | None] = []
    others: list[tuple[int, Event]] = []
    for i, e in enumerate(events):
        if type(e) is not Entry or e.sitemap != url:
            others.append((i, e))
            continue
        locs.append(e.loc)
        lastmod = e.lastmod
        if lastmod is None:
            dates.append(None)
        else:
            iso = lastmod.isoformat()
            dates.append(iso[:10] if lastmod.tzinfo is DATE_ALONE else iso)
        freqs.append(None if e.changefreq is None else e.changefreq.value)
        prios.append(e.priority)
        if e.images or e.videos or e.news or e.alternates:
            exts.append(
                (
                    [(m.loc, m.caption, m.title, m.geo_location, m.license) for m in e.images],
                    e.videos,  # rare: as they are
                    e.news,
                    [(a.hreflang, a.href, a.media) for a in e.alternates],
                )
            )
        else:
            exts.append(None)
    return (locs, dates, freqs, prios, exts, others)


def unpack(packed: Packed, url: str) -> list[Event]:
    """The events :func:`pack` packed, equal and in the same order."""
    locs, dates, freqs, prios, exts, others = packed
    freq, iso = _FREQ, _lastmod
    out: list[Event] = [
        Entry(loc, date and iso(date), freq[f], prio, url)
        if ext is None
        else Entry(
            loc,
            date and iso(date),
            freq[f],
            prio,
            url,
            tuple([Image(*m) for m in ext[0]]),
            ext[1],
            ext[2],
            tuple([Alternate(*a) for a in ext[3]]),
        )
        for loc, date, f, prio, ext in zip(locs, dates, freqs, prios, exts, strict=True)
    ]
    for i, event in others:  # in ascending order: each lands at its own index
        out.insert(i, event)
    return out


def _lastmod(text: str) -> datetime:
    """A lastmod as ``pack`` wrote it: a date alone (ten characters) in ``DATE_ALONE``."""
    value = datetime.fromisoformat(text)
    return value.replace(tzinfo=DATE_ALONE) if len(text) == 10 else value


# -- the worker process ---------------------------------------------------------------------------


def serve(stdin: IO[bytes] | None = None, stdout: IO[bytes] | None = None) -> None:
    """A worker's loop: requests on stdin, replies on stdout, until stdin ends."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the walk's to handle
    read = (stdin or sys.stdin.buffer).read
    out = stdout or sys.stdout.buffer
    _widen(out)
    with few_collections():  # the worker process is ours (see _gc)
        _serve(read, out)


def _serve(read: Callable[[int], bytes], out: IO[bytes]) -> None:
    parsers: dict[int, SitemapParser] = {}
    while len(head := read(_ASK.size)) == _ASK.size:
        size, doc, op = _ASK.unpack(head)
        payload = read(size) if size else b""
        if op == OPEN:
            url, limits, resolve, content_type = pickle.loads(payload)
            parsers[doc] = SitemapParser(
                url, limits=limits, resolve_relative=resolve, content_type=content_type
            )
            continue
        if op == DROP:
            parsers.pop(doc, None)
            continue
        parser = parsers[doc]
        reply: tuple[Any, ...]
        try:
            events = parser.feed(payload) if op == FEED else parser.close()
            reply = (pack(events, parser.url), *_state(parser))
        except Exception as exc:  # noqa: BLE001 -- a parser bug: raised again in the walk
            reply = (_ERROR, f"{type(exc).__name__}: {exc}")
        if op == CLOSE:
            del parsers[doc]
        data = pickle.dumps(reply, protocol=pickle.HIGHEST_PROTOCOL)
        out.write(_REPLY.pack(len(data), doc))
        out.write(data)
        out.flush()


def _state(parser: SitemapParser) -> tuple[Any, ...]:
    """What the walk reads of a parser besides its records (RemoteParser's attributes)."""
    return (parser.format, parser.ended, parser.fatal, parser.gzipped, parser.encoding)


def _widen(pipe: IO[bytes]) -> None:
    """Make the reply pipe hold a whole reply (a 64 KiB chunk of a sitemap is a few hundred
    KiB of records): with the default 64 KiB the worker waits on each write until the walk,
    busy with the records before, reads it, and parses nothing meanwhile. Linux only."""
    try:
        import fcntl

        fcntl.fcntl(pipe.fileno(), fcntl.F_SETPIPE_SZ, _PIPE_BYTES)
    except (ImportError, AttributeError, OSError, ValueError):
        pass  # another system, not a pipe, or over the system's cap: the default it is


_PIPE_BYTES = 1 << 20  # Linux's default cap for an unprivileged process (pipe-max-size)


# -- the walk's side ----------------------------------------------------------------------------


class _Worker:
    """One worker process, started in the background when made."""

    def __init__(self) -> None:
        self.docs = 0  # documents pinned here, open
        self.lost = False
        self._waiting: dict[int, asyncio.Future[bytes]] = {}
        self._process: asyncio.subprocess.Process | None = None
        self._started = asyncio.ensure_future(self._start())

    async def _start(self) -> None:
        # The worker imports the sitemap_reader this process runs, wherever it came from.
        home = str(Path(__file__).resolve().parents[3])
        path = os.environ.get("PYTHONPATH")
        env = {**os.environ, "PYTHONPATH": home if not path else home + os.pathsep + path}
        self._process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            _WORKER,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            env=env,
            limit=_PIPE_BYTES,  # a reply is read whole without pausing the pipe on the way
        )
        self._reader = asyncio.ensure_future(self._read())

    def send(self, doc: int, op: int, payload: bytes = b"") -> None:
        process = self._process
        if process is None or process.stdin is None or self.lost:
            return
        try:
            process.stdin.writelines((_ASK.pack(len(payload), doc, op), payload))
        except (ConnectionError, RuntimeError):
            self._lose()

    async def ask(self, doc: int, op: int, opening: bytes | None, payload: bytes = b"") -> bytes:
        """Send a request about ``doc`` (opening it first if ``opening``); its reply."""
        try:
            await self._started
        except OSError as exc:  # could not be started
            self._lose()
            raise WorkerLost(f"no parse worker could be started: {exc}") from None
        if self.lost:
            raise WorkerLost("the parse worker of this document died")
        future: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        self._waiting[doc] = future
        if opening is not None:
            self.send(doc, OPEN, opening)
        self.send(doc, op, payload)
        process = self._process
        assert process is not None and process.stdin is not None
        try:
            await process.stdin.drain()
        except (ConnectionError, RuntimeError):
            self._lose()
        return await future

    async def _read(self) -> None:
        assert self._process is not None and self._process.stdout is not None
        stdout = self._process.stdout
        try:
            while True:
                size, doc = _REPLY.unpack(await stdout.readexactly(_REPLY.size))
                data = await stdout.readexactly(size)
                future = self._waiting.pop(doc, None)
                if future is not None and not future.done():
                    future.set_result(data)
        except (asyncio.IncompleteReadError, ConnectionError):
            self._lose()

    def _lose(self) -> None:
        self.lost = True
        waiting, self._waiting = self._waiting, {}
        for future in waiting.values():
            if not future.done():
                future.set_exception(WorkerLost("the parse worker of this document died"))

    async def close(self) -> None:
        """End the worker: its stdin closed, it exits; killed if it does not in time."""
        self._started.cancel()
        await asyncio.gather(self._started, return_exceptions=True)
        process = self._process
        if process is None:
            return
        if process.stdin is not None:
            process.stdin.close()
        try:
            await asyncio.wait_for(process.wait(), timeout=5)
        except asyncio.TimeoutError:
            process.kill()
            await process.wait()
        self._reader.cancel()
        await asyncio.gather(self._reader, return_exceptions=True)
        self._lose()


class RemoteParser:
    """A :class:`SitemapParser` living in a worker: ``feed`` and ``close`` are awaited."""

    def __init__(self, worker: _Worker, doc: int, url: str, opening: bytes) -> None:
        self.url = url
        self.format: Format | None = None
        self.ended = False
        self.fatal: Event | None = None
        self.gzipped = False
        self.encoding: str | None = None
        self._worker = worker
        self._doc = doc
        self._opening: bytes | None = opening  # sent with the first request
        self._done = False

    async def feed(self, data: bytes) -> list[Event]:
        if self.ended or self._done:  # as the parser: nothing more is read
            return []
        return await self._ask(FEED, data)

    async def close(self) -> list[Event]:
        if self._done:
            return []
        events = await self._ask(CLOSE)
        self._done = True
        self._worker.docs -= 1
        return events

    def release(self) -> None:
        """The document is done with (read in part, or retried): the worker forgets it."""
        if not self._done:
            self._done = True
            self._worker.docs -= 1
            if self._opening is None:
                self._worker.send(self._doc, DROP)

    async def _ask(self, op: int, data: bytes = b"") -> list[Event]:
        opening, self._opening = self._opening, None
        reply = pickle.loads(await self._worker.ask(self._doc, op, opening, data))
        if reply[0] == _ERROR:
            raise RuntimeError(f"parsing {self.url} in a worker: {reply[1]}")
        packed, self.format, self.ended, self.fatal, self.gzipped, self.encoding = reply
        return unpack(packed, self.url)


class ParsePool:
    """Up to ``size`` worker processes for one walk; :meth:`close` ends them."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._workers: list[_Worker] = []
        self._asked = 0
        self._docs = itertools.count(1)

    def parser(
        self, url: str, config: ReaderConfig, content_type: str | None
    ) -> RemoteParser | None:
        """A parser in a worker for the document at ``url``; None: parse it here (the
        first document a walk reads, or once every worker died)."""
        self._asked += 1
        if self._asked < 2:
            return None
        if not self._workers:
            self._workers = [_Worker() for _ in range(self._size)]
        alive = [w for w in self._workers if not w.lost]
        if not alive:
            return None
        worker = min(alive, key=lambda w: w.docs)
        worker.docs += 1
        opening = pickle.dumps(
            (url, config.limits, config.resolve_relative, content_type),
            protocol=pickle.HIGHEST_PROTOCOL,
        )
        return RemoteParser(worker, next(self._docs), url, opening)

    async def close(self) -> None:
        workers, self._workers = self._workers, []
        await asyncio.gather(*(w.close() for w in workers), return_exceptions=True)
