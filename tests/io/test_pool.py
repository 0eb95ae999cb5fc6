"""Sitemaps parsed in worker processes (``ReaderConfig.workers``): the records packed and
unpacked equal, a worker's replies equal the parser's own, a walk with workers yields the
events a walk without them does, and a worker that dies costs its documents only."""

from __future__ import annotations

import asyncio
import io
import pickle
import signal
import threading
from collections.abc import Iterator
from dataclasses import replace
from datetime import timezone
from typing import Any

import pytest
from pytest_aiohttp.plugin import AiohttpServer

from sitemap_reader import (
    Entry,
    Event,
    Limits,
    ReaderConfig,
    RetryPolicy,
    SitemapParser,
    Status,
    Timeouts,
)
from sitemap_reader._base._cores import available_cores
from sitemap_reader._cli import _build_parser, _options
from sitemap_reader._core._dates import DATE_ALONE
from sitemap_reader._io._walk import _pool
from sitemap_reader._io._walk._pool import (
    CLOSE,
    FEED,
    OPEN,
    ParsePool,
    pack,
    serve,
    unpack,
)
from tests.support.helpers import CORPUS, URL, gz, mixed, needs_corpus, parse, sized, urlset
from tests.support.http_site import (
    FAST,
    by_sitemap,
    gated,
    gz_file,
    sitemapindex,
    stall_after,
    text,
    untimed,
    walk,
    xml,
)
from tests.support.http_site import (
    serve as serve_site,
)

# -- packing ------------------------------------------------------------------------------------


def round_trip(events: list[Event], url: str = URL) -> list[Event]:
    packed = pickle.loads(pickle.dumps(pack(events, url), protocol=pickle.HIGHEST_PROTOCOL))
    return unpack(packed, url)


@needs_corpus
def test_every_corpus_document_packs_and_unpacks_to_its_events() -> None:
    """Entries (every extension), index children and problems, in their order."""
    seen = 0
    for path in sorted(CORPUS.rglob("*")):
        if path.is_file() and path.name not in ("MANIFEST.tsv", "README.md"):
            events = parse(path.read_bytes())
            back = round_trip(events)
            assert back == events, path.name
            assert repr(back) == repr(events), path.name  # dates at their own offsets too
            seen += 1
    assert seen > 50


def test_a_date_alone_comes_back_a_date_alone() -> None:
    """The zone that tells a lastmod written as a date (check's V420) from midnight UTC
    written with its time crosses to the walk: DATE_ALONE, and UTC's own object."""
    events = parse(
        urlset(
            "<url><loc>https://example.com/a</loc><lastmod>2024-05-01</lastmod></url>",
            "<url><loc>https://example.com/b</loc><lastmod>2024-05-01T00:00:00Z</lastmod></url>",
        ).encode()
    )
    back = round_trip(events)
    assert back == events and repr(back) == repr(events)
    zones = [e.lastmod.tzinfo for e in back if isinstance(e, Entry) and e.lastmod]
    assert len(zones) == 2 and zones[0] is DATE_ALONE and zones[1] is timezone.utc


def test_entries_of_another_sitemap_and_problems_keep_their_places() -> None:
    events = parse(mixed("https://example.com", 30, broken_at=20).encode())
    moved: list[Event] = [Entry("https://example.com/x", sitemap="elsewhere"), *events]
    assert repr(round_trip(moved)) == repr(moved)
    assert type(moved[-1]).__name__ == "Problem"  # the fatal one, last


# -- the worker's loop --------------------------------------------------------------------------


def ask(doc: int, op: int, payload: bytes = b"") -> bytes:
    return _pool._ASK.pack(len(payload), doc, op) + payload


@pytest.fixture
def sigint_kept() -> Iterator[None]:
    """serve() ignores SIGINT in its process (a worker's: Ctrl-C is the walk's). Run here,
    that process is pytest's, whose children would inherit SIGINT ignored: the command
    lines that tests/cli/test_cli_signals.py interrupts would then never stop."""
    before = signal.getsignal(signal.SIGINT)
    yield
    signal.signal(signal.SIGINT, before)


@pytest.mark.parametrize("gzipped", [False, True], ids=["xml", "gz"])
def test_serve_replies_with_what_the_parser_gives(gzipped: bool, sigint_kept: None) -> None:
    """Two documents interleaved on one worker, fed in small chunks: each reply is what a
    parser of its own gives for that chunk, with its format, end and fatal problem."""
    docs = {
        1: mixed("https://example.com", 400).encode(),
        2: mixed("https://example.com", 300, broken_at=250).encode(),
    }
    if gzipped:
        docs = {k: gz(v) for k, v in docs.items()}
    opening = pickle.dumps(("https://example.com/s.xml", Limits(), False, None))
    chunks = {k: sized(v, 4096) for k, v in docs.items()}
    requests = [ask(k, OPEN, opening) for k in docs]
    order: list[int] = []
    for i in range(max(len(c) for c in chunks.values())):
        for k, pieces in chunks.items():
            if i < len(pieces):
                requests.append(ask(k, FEED, pieces[i]))
                order.append(k)
    requests += [ask(k, CLOSE) for k in docs]
    order += list(docs)
    out = io.BytesIO()
    serve(io.BytesIO(b"".join(requests)), out)

    out.seek(0)
    replies: dict[int, list[Any]] = {k: [] for k in docs}
    while head := out.read(_pool._REPLY.size):
        size, doc = _pool._REPLY.unpack(head)
        replies[doc].append(pickle.loads(out.read(size)))
    assert sum(map(len, replies.values())) == len(order)
    for k in docs:
        parser = SitemapParser("https://example.com/s.xml")
        expected = [parser.feed(piece) for piece in chunks[k]] + [parser.close()]
        got = [unpack(r[0], "https://example.com/s.xml") for r in replies[k]]
        assert got == expected
        assert replies[k][-1][1:] == (
            parser.format,
            parser.ended,
            parser.fatal,
            parser.gzipped,
            parser.encoding,
        )
        assert replies[k][-1][4] is gzipped
    assert replies[2][-1][3] is not None  # the broken one ended in a fatal problem


# -- walks ----------------------------------------------------------------------------------------

SLOW_OK = replace(FAST, timeouts=Timeouts(connect=5.0, read=20.0, request=30.0))


class Spy:
    """Counts the documents ParsePool hands to workers (the real pool, watched)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.remote: list[str] = []
        self.processes: list[asyncio.subprocess.Process] = []
        real_parser, real_start = ParsePool.parser, _pool._Worker._start
        spy = self

        def parser(pool: ParsePool, url: str, *args: Any) -> Any:
            got = real_parser(pool, url, *args)
            if got is not None:
                spy.remote.append(url)
            return got

        async def start(worker: Any) -> None:
            await real_start(worker)
            spy.processes.append(worker._process)

        monkeypatch.setattr(ParsePool, "parser", parser)
        monkeypatch.setattr(_pool._Worker, "_start", start)


async def test_a_walk_with_workers_yields_what_one_process_does(
    aiohttp_server: AiohttpServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An index of children in several shapes (a large mixed one read in many chunks, .gz,
    text, a broken one, one naming URLs out of scope): the same entries in the same order
    per sitemap, the same problems and the same reports, with two workers as with none."""
    s = await serve_site(aiohttp_server)
    kids = {
        "/big.xml": xml(mixed(s.a(), 3000)),
        "/small.xml.gz": gz_file(mixed(s.a(), 200)),
        "/list.txt": text("\n".join(s.a(f"/t/{i}") for i in range(100))),
        "/broken.xml": xml(mixed(s.a(), 300, broken_at=150)),
        "/elsewhere.xml": xml(mixed("https://other.example", 50)),
    }
    for path, handler in kids.items():
        s.add(path, handler)
    s.add("/index.xml", xml(sitemapindex(*(s.a(p) for p in kids))))

    alone = await walk(s.a("/index.xml"))
    spy = Spy(monkeypatch)
    pooled = await walk(s.a("/index.xml"), config=replace(FAST, workers=2))

    assert sorted(spy.remote) == sorted(s.a(p) for p in kids)  # the index was read here
    assert len(spy.processes) == 2
    assert all(p.returncode == 0 for p in spy.processes)  # ended, by their stdin closing
    assert by_sitemap(pooled) == by_sitemap(alone)
    assert len(by_sitemap(alone)[s.a("/big.xml")]) == 3000
    assert sorted(map(repr, pooled.problems)) == sorted(map(repr, alone.problems))
    assert {p.kind for p in alone.problems} >= {"not-well-formed", "invalid-lastmod"}
    assert untimed(pooled) == untimed(alone)


async def test_one_sitemap_starts_no_worker(
    aiohttp_server: AiohttpServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run of one document parses it here: starting processes would cost more."""
    s = await serve_site(aiohttp_server)
    s.add("/s.xml", xml(mixed(s.a(), 100)))
    spy = Spy(monkeypatch)
    run = await walk(s.a("/s.xml"), config=replace(FAST, workers=2))
    assert len(run.entries) == 100
    assert spy.remote == [] and spy.processes == []


async def test_a_worker_that_dies_costs_its_documents_only(
    aiohttp_server: AiohttpServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The workers are killed while a child is half read: that child is reported with a
    worker-lost problem (what came before kept, in order); the children read after it are
    parsed here, whole; the run ends normally."""
    s = await serve_site(aiohttp_server)
    gate = threading.Event()
    half = mixed(s.a(), 2000)
    s.add("/half.xml", stall_after(half, len(half) // 2, 3.0))
    later = {f"/later-{i}.xml": mixed(s.a(f"/{i}"), 50) for i in range(2)}
    for path, body in later.items():
        s.add(path, gated(xml(body), gate, timeout=10.0))
    s.add("/index.xml", xml(sitemapindex(s.a("/half.xml"), *(s.a(p) for p in later))))
    spy = Spy(monkeypatch)
    config = replace(SLOW_OK, workers=1, retry=RetryPolicy(attempts=1))

    task = asyncio.ensure_future(walk(s.a("/index.xml"), config=config))
    for _ in range(500):  # bounded: 10 s
        if spy.processes and s.count("/half.xml"):
            break
        await asyncio.sleep(0.02)
    await asyncio.sleep(0.3)  # the first half on its way to the worker
    for process in spy.processes:
        process.kill()
    await asyncio.sleep(0.1)
    gate.set()
    run = await asyncio.wait_for(task, timeout=30)

    report = run.report(s.a("/half.xml"))
    assert report.status in (Status.PARTIAL, Status.FAILED)
    assert [p.kind for p in report.problems] == ["worker-lost"]
    got = by_sitemap(run)
    whole = [e.loc for e in parse(half.encode(), url=s.a("/half.xml")) if type(e) is Entry]
    kept = [e.loc for e in got.get(s.a("/half.xml"), [])]
    assert kept == whole[: len(kept)] and len(kept) < len(whole)
    for path in later:
        assert len(got[s.a(path)]) == 50, path  # parsed here, after the worker died
        assert run.report(s.a(path)).status is Status.OK


def test_workers_must_not_be_negative() -> None:
    with pytest.raises(ValueError, match="workers"):
        ReaderConfig(workers=-1)


@pytest.mark.parametrize(
    ("given", "expected"),
    [("0", 0), ("3", 3), ("auto", available_cores() if available_cores() > 1 else 0)],
)
def test_the_workers_option(given: str, expected: int) -> None:
    """``--workers N|auto``: auto is one a core, none on a machine of one core."""
    args = _build_parser().parse_args(["dump", "--workers", given, "x.xml"])
    assert _options.config(args).workers == expected
