"""Documents parsed in threads (``ReaderConfig.parse_threads``): the same events and reports
as inline, two documents parsed at once, one document's calls one at a time and in order, a
fault, a cancel and a budget as inline, the threads joined; and the premise, that a compiled
read of dump's lines releases the GIL."""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading
from collections.abc import Iterable, Iterator, Sized
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, cast

import pytest
from pytest_aiohttp.plugin import AiohttpServer

from sitemap_reader import (
    Entry,
    Limits,
    ReaderConfig,
    SitemapParser,
    SitemapReader,
    Status,
    entries_sync,
)
from sitemap_reader._base._cores import available_cores
from sitemap_reader._cli import _build_parser, _options
from sitemap_reader._core import _parser
from sitemap_reader._core._xml._core_choice import COMPILED, ENTRIES
from sitemap_reader._io._walk import _body, _local
from sitemap_reader._io._walk._threads import ParseThreads, threads_for
from tests.support.helpers import SITEMAP_NS, mixed
from tests.support.http_site import (
    FAST,
    ThreadedServer,
    by_sitemap,
    gz_file,
    reset_after,
    serve,
    sitemapindex,
    status,
    text,
    untimed,
    walk,
    xml,
)

THREADS = replace(FAST, parse_threads=2)
INLINE = replace(FAST, parse_threads=0)
PARSE_THREAD = "sitemap-parse"  # the pool's thread names start so


def parse_threads_alive() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith(PARSE_THREAD)]


@dataclass
class Calls:
    """What the parsers of a walk were asked, watched from inside the real parser."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    threads: dict[str, set[str]] = field(default_factory=dict)  # document -> thread names
    fed: dict[str, bytearray] = field(default_factory=dict)  # document -> bytes, in call order
    overlaps: list[str] = field(default_factory=list)  # a document called while in a call
    inside: set[str] = field(default_factory=set)  # documents in a call now
    most_inside: int = 0  # documents in a call at once, at most
    meet: threading.Barrier | None = None  # the first feeds of these documents wait
    meeting: frozenset[str] = frozenset()  # for each other at this barrier
    met: list[str] = field(default_factory=list)
    fail: str | None = None  # a document whose first feed raises
    gate: threading.Event | None = None  # first feeds wait for it
    gated: frozenset[str] = frozenset()  # those of these documents only (empty: every one)
    entered: threading.Event = field(default_factory=threading.Event)  # (a gated document)
    exits: list[str] = field(default_factory=list)

    def enter(self, url: str, data: bytes) -> bool:
        """Record a call; True for a document's first feed."""
        with self.lock:
            if url in self.inside:
                self.overlaps.append(url)
            self.inside.add(url)
            self.most_inside = max(self.most_inside, len(self.inside))
            self.threads.setdefault(url, set()).add(threading.current_thread().name)
            first = url not in self.fed
            self.fed.setdefault(url, bytearray()).extend(data)
        if url in (self.gated or {url}):
            self.entered.set()
        return first

    def leave(self, url: str) -> None:
        with self.lock:
            self.inside.discard(url)
            self.exits.append(url)


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Calls:
    """The walk's bodies make parsers that report their calls to the returned record."""
    seen = Calls()

    class Watched(SitemapParser):
        def feed(self, data: bytes) -> list[Any]:
            first = seen.enter(self.url, data)
            try:
                if first and seen.meet is not None and self.url in seen.meeting:
                    seen.meet.wait()  # raises BrokenBarrierError if the other never comes
                    seen.met.append(self.url)
                if first and seen.gate is not None and self.url in (seen.gated or {self.url}):
                    seen.gate.wait(timeout=30)
                if first and self.url == seen.fail:
                    raise RuntimeError(f"a parser bug in {self.url}")
                return super().feed(data)
            finally:
                seen.leave(self.url)

        def close(self) -> list[Any]:
            seen.enter(self.url, b"")
            try:
                return super().close()
            finally:
                seen.leave(self.url)

    monkeypatch.setattr(_body, "SitemapParser", Watched)
    monkeypatch.setattr(_local, "SitemapParser", Watched)
    return seen


def site_kids(base: str) -> dict[str, Any]:
    """Children in several shapes: a large one read in many chunks, .gz, text, a broken one,
    one cut by the server, one naming URLs out of scope, one missing."""
    big = mixed(base, 3000)
    return {
        "/big.xml": xml(big),
        "/small.xml.gz": gz_file(mixed(base, 400)),
        "/list.txt": text("\n".join(f"{base}/t/{i}" for i in range(200))),
        "/broken.xml": xml(mixed(base, 300, broken_at=150)),
        "/cut.xml": reset_after(big, len(big) // 3),
        "/elsewhere.xml": xml(mixed("https://other.example", 50)),
        "/missing.xml": status(404),
    }


async def test_threads_yield_what_inline_does(aiohttp_server: AiohttpServer, calls: Calls) -> None:
    """An index of children in every shape: the same entries in the same order per sitemap,
    the same problems and the same reports with two parse threads as inline; the threads
    did the parsing, and none is left once the walk ended."""
    s = await serve(aiohttp_server)
    kids = site_kids(s.a())
    for path, handler in kids.items():
        s.add(path, handler)
    s.add("/index.xml", xml(sitemapindex(*(s.a(p) for p in kids))))
    once = replace(FAST.retry, attempts=1)  # the cut child read once

    inline = await walk(s.a("/index.xml"), config=replace(INLINE, retry=once))
    assert set().union(*calls.threads.values()) == {threading.current_thread().name}
    calls.threads.clear()
    calls.fed.clear()
    threaded = await walk(s.a("/index.xml"), config=replace(THREADS, retry=once))

    assert by_sitemap(threaded) == by_sitemap(inline)
    assert len(by_sitemap(inline)[s.a("/big.xml")]) == 3000
    assert sorted(map(repr, threaded.problems)) == sorted(map(repr, inline.problems))
    assert {p.kind for p in inline.problems} >= {"not-well-formed", "invalid-lastmod"}
    assert untimed(threaded) == untimed(inline)
    statuses = {r.url: r.status for r in inline.reports}
    assert statuses[s.a("/cut.xml")] is Status.PARTIAL
    assert statuses[s.a("/small.xml.gz")] is Status.OK
    # The index, read alone, is parsed inline; its children, read side by side, in threads.
    assert calls.threads[s.a("/index.xml")] == {threading.current_thread().name}
    kids_used = set().union(*(calls.threads.get(s.a(p), set()) for p in kids))
    assert {n for n in kids_used if n.startswith(PARSE_THREAD)}
    assert calls.overlaps == []
    assert parse_threads_alive() == []  # joined when the walk ended


async def test_two_documents_are_parsed_at_once(
    aiohttp_server: AiohttpServer, calls: Calls
) -> None:
    """The first feeds of two children wait for each other at a barrier: they pass only if
    both are in a call at the same time, on two threads (serialised feeds would break it)."""
    s = await serve(aiohttp_server)
    s.add("/a.xml", xml(mixed(s.a("/a"), 500)))
    s.add("/b.xml", xml(mixed(s.a("/b"), 500)))
    s.add("/index.xml", xml(sitemapindex(s.a("/a.xml"), s.a("/b.xml"))))
    calls.meet = threading.Barrier(2, timeout=30)  # a bound, never reached when it works
    calls.meeting = frozenset({s.a("/a.xml"), s.a("/b.xml")})

    run = await walk(s.a("/index.xml"), config=THREADS)

    assert sorted(calls.met) == [s.a("/a.xml"), s.a("/b.xml")]
    assert calls.most_inside == 2
    assert calls.threads[s.a("/a.xml")] | calls.threads[s.a("/b.xml")] >= {
        f"{PARSE_THREAD}_0",
        f"{PARSE_THREAD}_1",
    }
    assert len(run.entries) == 1000
    assert all(r.status is Status.OK for r in run.reports)


async def test_a_documents_calls_are_one_at_a_time_in_order(
    aiohttp_server: AiohttpServer, calls: Calls
) -> None:
    """Large documents served whole (a fast server hands a body over at once, parsed a
    chunk at a time) and gzipped: each parser got the exact bytes of its document in order,
    never two calls at once, though its calls ran on several threads."""
    s = await serve(aiohttp_server)
    docs = {f"/d{i}.xml": mixed(s.a(f"/{i}"), 4000).encode() for i in range(4)}
    for path, body in docs.items():
        s.add(path, xml(body))
    s.add("/z.xml.gz", gz_file(docs["/d0.xml"]))
    s.add("/index.xml", xml(sitemapindex(*(s.a(p) for p in (*docs, "/z.xml.gz")))))

    run = await walk(s.a("/index.xml"), config=replace(THREADS, parse_threads=3))

    assert calls.overlaps == []
    assert calls.most_inside <= 3  # no more calls at once than threads
    for path, body in docs.items():
        assert bytes(calls.fed[s.a(path)]) == body
    assert calls.fed[s.a("/z.xml.gz")][:2] == b"\x1f\x8b"
    assert len(run.entries) == 5 * 4000
    assert any(len(names) > 1 for names in calls.threads.values())


async def test_budgets_and_limits_cut_as_inline(
    aiohttp_server: AiohttpServer, calls: Calls
) -> None:
    """The run's entry budget ends inside a document, the sitemap budget inside an index,
    and a document's own limits (URLs, with and without the cut; bytes) end it early: the
    same events, in the same order, and the same reports with threads as inline."""
    s = await serve(aiohttp_server)
    s.add("/big.xml", xml(mixed(s.a(), 5000)))
    s.add("/big.xml.gz", gz_file(mixed(s.a(), 5000)))
    kids = [f"/k{i}.xml" for i in range(6)]
    for path in kids:
        s.add(path, xml(mixed(s.a(path), 20)))
    s.add("/index.xml", xml(sitemapindex(*(s.a(p) for p in kids))))
    cases = {  # the source, the limits, the problem that says the cut
        "entries": ("/big.xml", Limits(max_entries=1234), "max-entries"),
        "sitemaps": ("/index.xml", Limits(max_sitemaps=3, max_concurrency=1), "max-sitemaps"),
        "urls": ("/big.xml", Limits(max_urls=1000), "too-many-urls"),
        "urls cut": ("/big.xml.gz", Limits(max_urls=1000, cut_at_max_urls=True), "too-many-urls"),
        "bytes": ("/big.xml.gz", Limits(max_bytes=200_000), "too-large"),
    }
    for case, (path, limits, kind) in cases.items():
        inline = await walk(s.a(path), config=replace(INLINE, limits=limits))
        threaded = await walk(s.a(path), config=replace(THREADS, limits=limits))
        assert [repr(e) for e in threaded.events if type(e).__name__ != "SitemapVisited"] == [
            repr(e) for e in inline.events if type(e).__name__ != "SitemapVisited"
        ], case
        assert untimed(threaded) == untimed(inline), case
        # (untimed leaves out the bytes received of a read cut: they are the network's)
        assert all(r.bytes > 0 for r in threaded.reports if r.status is Status.PARTIAL), case
        assert kind in threaded.kinds, (case, threaded.kinds)
        if case == "entries":
            assert len(threaded.entries) == 1234
        if case == "urls cut":
            assert threaded.report(s.a(path)).status is Status.PARTIAL
    assert calls.overlaps == []


async def test_a_parser_that_raises_fails_the_walk_as_inline(
    aiohttp_server: AiohttpServer, calls: Calls
) -> None:
    """A bug in a parser raises out of the walk with threads as inline, and the walk
    ends: it does not wait for the thread that raised, nor leave one behind."""
    s = await serve(aiohttp_server)
    s.add("/a.xml", xml(mixed(s.a("/a"), 200)))
    s.add("/b.xml", xml(mixed(s.a("/b"), 200)))
    s.add("/index.xml", xml(sitemapindex(s.a("/a.xml"), s.a("/b.xml"))))
    calls.fail = s.a("/b.xml")
    for config in (INLINE, THREADS):
        calls.fed.clear()
        with pytest.raises(RuntimeError, match="a parser bug in"):
            await asyncio.wait_for(walk(s.a("/index.xml"), config=config), timeout=60)
    assert parse_threads_alive() == []


async def test_a_cancel_waits_for_the_call_in_a_thread(
    aiohttp_server: AiohttpServer, calls: Calls
) -> None:
    """The walk is cancelled while a thread is in a feed: the body does not unwind (nor the
    reader close) before that call ended, as an inline call would have ended first; then
    the cancel goes through and the threads are joined. (Two children, read side by side,
    so that their feeds go to the threads.)"""
    s = await serve(aiohttp_server)
    s.add("/a.xml", xml(mixed(s.a("/a"), 2000)))
    s.add("/b.xml", xml(mixed(s.a("/b"), 2000)))
    s.add("/index.xml", xml(sitemapindex(s.a("/a.xml"), s.a("/b.xml"))))
    calls.gate = threading.Event()
    calls.gated = frozenset({s.a("/a.xml"), s.a("/b.xml")})

    async def run() -> None:
        async with SitemapReader(THREADS) as reader:
            async for _ in reader.walk(s.a("/index.xml")):
                pass

    task = asyncio.ensure_future(run())
    assert await asyncio.to_thread(calls.entered.wait, 30)
    task.cancel()
    for _ in range(50):  # the loop turns: the task could end here if it did not wait
        await asyncio.sleep(0)
    assert not task.done()
    assert calls.gated.isdisjoint(calls.exits)  # no child's call has ended
    calls.gate.set()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, timeout=30)
    assert calls.gated <= set(calls.exits)  # each child's call ended before the unwinding
    assert calls.inside == set()
    assert parse_threads_alive() == []


def test_leaving_a_blocking_iteration_early_joins_the_threads(calls: Calls) -> None:
    """``entries_sync`` left after a few entries while children are being parsed: the run
    stops, each call in a thread ends first, and no parse thread outlives it."""
    with ThreadedServer() as s:
        kids = [f"/k{i}.xml" for i in range(6)]
        for path in kids:
            s.add(path, xml(mixed(s.a(path), 3000)))
        s.add("/index.xml", xml(sitemapindex(*(s.a(p) for p in kids))))
        taken = []
        entries = entries_sync(s.a("/index.xml"), config=THREADS)
        for entry in entries:
            taken.append(entry)
            if len(taken) == 10:
                break
        entries.close()

    assert len(taken) == 10
    assert calls.inside == set()  # every call ended: none left running with its parser
    kids_used = set().union(*(calls.threads.get(s.a(p), set()) for p in kids))
    assert kids_used <= {
        f"{PARSE_THREAD}_0",
        f"{PARSE_THREAD}_1",
        *calls.threads[s.a("/index.xml")],
    }
    assert parse_threads_alive() == []


async def test_cancel_while_waiting_for_a_call_is_said_once_the_call_ends() -> None:
    """ParseThreads.call, cancelled twice while its thread works: it still waits for the
    work to end, then raises CancelledError; the work's own outcome is not lost silently."""
    threads = ParseThreads(1)
    release = threading.Event()
    done: list[str] = []

    def work(data: bytes) -> list[Any]:
        release.wait(timeout=30)
        done.append("done")
        return []

    reading = contextlib.ExitStack()
    for _ in range(2):  # two documents being read: the call goes to the thread
        reading.enter_context(threads.reading())
    task = asyncio.ensure_future(threads.call(work, b"x"))
    for _ in range(5):
        await asyncio.sleep(0)
    task.cancel()
    await asyncio.sleep(0)
    task.cancel()
    for _ in range(20):
        await asyncio.sleep(0)
    assert not task.done()
    release.set()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, timeout=30)
    assert done == ["done"]
    reading.close()
    threads.close()
    assert parse_threads_alive() == []


async def test_workers_take_their_documents_and_threads_the_rest(
    aiohttp_server: AiohttpServer, calls: Calls
) -> None:
    """With worker processes too: the index (the first document, read in this process,
    alone) is parsed inline, its children in the worker; the same events as inline."""
    s = await serve(aiohttp_server)
    kids = [f"/k{i}.xml" for i in range(3)]
    for path in kids:
        s.add(path, xml(mixed(s.a(path), 300)))
    s.add("/index.xml", xml(sitemapindex(*(s.a(p) for p in kids))))

    inline = await walk(s.a("/index.xml"), config=INLINE)
    calls.threads.clear()
    both = await walk(s.a("/index.xml"), config=replace(THREADS, workers=1))

    assert by_sitemap(both) == by_sitemap(inline)
    assert untimed(both) == untimed(inline)
    assert set(calls.threads) == {s.a("/index.xml")}  # the children: parsed in the worker
    assert calls.threads[s.a("/index.xml")] == {threading.current_thread().name}


async def test_a_document_read_alone_is_parsed_inline(
    aiohttp_server: AiohttpServer, calls: Calls, tmp_path: Path
) -> None:
    """With nothing beside it to parse, a thread would only add two hops a chunk: a single
    sitemap, over HTTP or from a file, is parsed on the loop's thread, and no parse thread
    is started; the same entries as inline."""
    s = await serve(aiohttp_server)
    body = mixed(s.a("/one"), 3000).encode()
    s.add("/one.xml", xml(body))
    path = tmp_path / "one.xml"
    path.write_bytes(body)
    started: list[str | None] = []  # the name prefix of each pool asked to run something
    real = ThreadPoolExecutor.submit

    def submit(self: ThreadPoolExecutor, *args: Any, **kwargs: Any) -> Any:
        started.append(self._thread_name_prefix)
        return real(self, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ThreadPoolExecutor, "submit", submit)
        fetched = await walk(s.a("/one.xml"), config=THREADS)
        local = await walk(str(path), config=THREADS)

    assert len(fetched.entries) == len(local.entries) == 3000
    assert [e.loc for e in local.entries] == [e.loc for e in fetched.entries]
    assert set(calls.threads) == {s.a("/one.xml"), str(path)}
    assert set().union(*calls.threads.values()) == {threading.current_thread().name}
    assert PARSE_THREAD not in started  # the pool was never asked
    assert bytes(calls.fed[str(path)]) == body  # the file, read in large pieces, all of it


# -- the settings -------------------------------------------------------------------------------


def test_auto_threads_only_when_the_core_releases_the_gil(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Auto (None): none with the pure-Python core, which holds the GIL; one a core with a
    core that releases it (none on a single core). A number is taken as it is."""
    monkeypatch.setattr(_parser, "RELEASES_GIL", False)
    assert threads_for(ReaderConfig()) == 0
    monkeypatch.setattr(_parser, "RELEASES_GIL", True)
    cores = available_cores()
    assert threads_for(ReaderConfig()) == (cores if cores > 1 else 0)
    assert threads_for(ReaderConfig(parse_threads=0)) == 0
    assert threads_for(ReaderConfig(parse_threads=3)) == 3


def test_auto_threads_for_dumps_lines_under_the_compiled_core(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A walk writing dump's lines keeps its records in Rust: auto gives one thread a core
    with the compiled core (none on one core), none with the pure-Python one."""
    monkeypatch.setattr(_parser, "RELEASES_GIL", False)
    cores = available_cores()
    expected = cores if COMPILED and cores > 1 else 0
    assert threads_for(ReaderConfig(), lines=True) == expected
    assert threads_for(ReaderConfig()) == 0
    assert threads_for(ReaderConfig(parse_threads=0), lines=True) == 0


def test_parse_threads_must_not_be_negative() -> None:
    with pytest.raises(ValueError, match="parse_threads"):
        ReaderConfig(parse_threads=-1)


@pytest.mark.parametrize(("given", "expected"), [("0", 0), ("3", 3), ("auto", None)])
def test_the_parse_threads_option(given: str, expected: int | None) -> None:
    """``--parse-threads N|auto``: auto, as left out, is the config's own choice."""
    parser = _build_parser()
    args = parser.parse_args(["dump", "--parse-threads", given, "x.xml"])
    assert _options.config(args).parse_threads == expected
    assert _options.config(parser.parse_args(["dump", "x.xml"])).parse_threads is None


# -- the premise: a compiled read of dump's lines releases the GIL --------------------------


URLS = 200_000  # about 23 MB: a third of a second of compiled work
BIG = Limits(max_urls=URLS)
# Feeds of 4 MiB: each leaves the GIL free long enough for the watcher's thread to be
# scheduled on a busy machine (it must take the GIL before the feed takes it back).
FEED = 4 << 20


def big_urlset(n: int) -> bytes:
    head = f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{SITEMAP_NS}">\n'
    rows = (
        f"<url><loc>https://example.com/p/{i}?a=1&amp;b=2</loc>"
        f"<lastmod>2024-01-0{1 + i % 9}</lastmod><priority>0.5</priority></url>\n"
        for i in range(n)
    )
    return (head + "".join(rows) + "</urlset>\n").encode()


@pytest.fixture
def no_forced_switch() -> Iterator[None]:
    """The GIL changes hands only when its holder lets it go (blocks, ends, or releases it
    in C): a thread that wants it runs during a call only if that call released it."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1_000.0)
    try:
        yield
    finally:
        sys.setswitchinterval(before)


def entries_in(events: Iterable[Any]) -> int:
    """The entries among ``events``: a run of compiled records (``ENTRIES``) counts its own."""
    runs = ENTRIES or ()
    count = 0
    for event in events:
        if isinstance(event, runs):
            count += len(cast("Sized", event))
        elif isinstance(event, Entry):
            count += 1
    return count


def runs_during_feeds(parser: SitemapParser, data: bytes) -> tuple[bool, int]:
    """Whether a Python thread, woken just before ``data`` is fed (FEED bytes a call), ran while
    the feeds were under way; and the entries they gave."""
    feeding = [True]
    saw: list[bool] = []
    go = threading.Event()

    def watch() -> None:
        go.wait(timeout=60)
        saw.append(feeding[0])

    watcher = threading.Thread(target=watch, name="gil-watcher")
    watcher.start()  # (waits for it to start: it then waits for go)
    go.set()  # it wants the GIL from here; only a release before the join gives it
    records = 0
    for start in range(0, len(data), FEED):
        records += entries_in(parser.feed(data[start : start + FEED]))
    records += entries_in(parser.close())
    feeding[0] = False
    watcher.join(timeout=60)
    return saw == [True], records


@pytest.mark.skipif(not COMPILED, reason="the compiled core is not built or is off")
def test_a_compiled_read_of_lines_releases_the_gil(no_forced_switch: None) -> None:
    """A Python thread runs while a parser made for dump's lines reads a large urlset: the
    compiled block scanner runs detached from the interpreter (py.detach) and keeps its
    records in Rust, so a thread parsing a document leaves the GIL to the event loop and to
    the other parse threads (what ``threads_for(..., lines=True)`` counts on)."""
    parser = SitemapParser("https://example.com/sitemap.xml", limits=BIG, lines=True)
    ran, records = runs_during_feeds(parser, big_urlset(URLS))
    assert records == URLS
    assert ran


def test_the_gil_check_tells_a_held_gil(no_forced_switch: None) -> None:
    """The check above is no tautology: through the exact path (expat and the Python record
    builders), which holds the GIL throughout, the watcher does not run until the feeds are
    over."""
    data = big_urlset(20_000)
    parser = SitemapParser("https://example.com/sitemap.xml", limits=BIG, fast=False)
    ran, records = runs_during_feeds(parser, data)
    assert records == 20_000
    assert not ran
