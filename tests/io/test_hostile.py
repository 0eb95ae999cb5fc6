"""Hostile servers (issue 5). For each attack, over real HTTP: the run ends within its time
budget, the peak of traced memory stays under a stated bound, the entries read before the
fault are delivered, and a Problem names the cause. Then the cost of an unfinished token fed
chunk after chunk, which must grow with its size, not with the square of it.

Faults covered in test_http_faults.py (a reset mid-body, a trickle under the read timeout, a
truncated .gz file, a redirect loop and limit) and the parser-level attacks of
test_security.py are not repeated here.
"""

from __future__ import annotations

import dataclasses
import tracemalloc
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from pytest_aiohttp.plugin import AiohttpServer

from sitemap_reader import (
    Event,
    Limits,
    RetryPolicy,
    SitemapParser,
    Status,
    Timeouts,
)
from sitemap_reader._core._xml import _expat
from sitemap_reader._io._walk._frontier import UNREAD_LISTED
from tests.support.helpers import SITEMAP_NS, URL, fatal, kinds
from tests.support.hostile import (
    ENTITY_ATTACKS,
    RUN_PEAK,
    SECRET,
    MiB,
    bomb,
    cut_transport,
    endless,
    endless_redirects,
    entity_attack,
    fan_out,
    hostile_site,
    huge_headers,
    measured_walk,
    opening,
    pages,
    short_length,
    slowloris,
)
from tests.support.http_site import (
    FAST,
    gz_transport,
    serve,
    sitemapindex,
    text_sitemap,
    urlset,
    xml,
)

# -- bodies that never end -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("claimed", "max_bytes", "seconds"),
    [
        (None, None, 20.0),  # the default cap, 50 MB (about 2 s here)
        (10**12, 8 * MiB, 10.0),  # a Content-Length of a terabyte is trusted for nothing
    ],
    ids=["chunked-no-length", "length-lies-high"],
)
async def test_endless_body_is_cut_at_max_bytes(
    aiohttp_server: AiohttpServer, claimed: int | None, max_bytes: int | None, seconds: float
) -> None:
    """A body that never ends (white space after three entries) is cut at Limits.max_bytes:
    the entries are kept and the cut is a `too-large` problem naming the cap."""
    s = await serve(aiohttp_server)
    s.add("/sitemap.xml", endless(opening(s, 3), b" \n", claimed_length=claimed))
    limits = Limits() if max_bytes is None else Limits(max_bytes=max_bytes)
    config = dataclasses.replace(FAST, limits=limits, timeouts=Timeouts(read=5.0, request=60.0))

    m = await measured_walk(s.a("/sitemap.xml"), config=config)

    m.within(seconds)
    assert m.run.locs == pages(s, 3)
    problem = m.run.problem("too-large")
    assert problem.url == s.a("/sitemap.xml")
    assert f"over {limits.max_bytes:,} bytes" in problem.message
    report = m.run.report(s.a("/sitemap.xml"))
    assert report.status is Status.PARTIAL
    assert limits.max_bytes <= report.bytes < limits.max_bytes + 2 * MiB  # no more was read
    assert s.count("/sitemap.xml") == 1  # a cap is not a fault to retry


async def test_slowloris_is_cut_by_the_request_budget(aiohttp_server: AiohttpServer) -> None:
    """One byte a second after two entries: every wait is under the read timeout, so the
    request's budget of 2 s ends it; the entries sent before are kept."""
    s = await serve(aiohttp_server)
    s.add("/sitemap.xml", slowloris(opening(s, 2), b"<url><loc>", interval=1.0))
    config = dataclasses.replace(
        FAST,
        timeouts=Timeouts(connect=2.0, read=5.0, request=2.0),
        retry=RetryPolicy(attempts=1),
    )

    m = await measured_walk(s.a("/sitemap.xml"), config=config)

    m.within(5.0)
    assert m.seconds > 1.9  # the request's budget, not a read timeout, ended it
    assert m.run.locs == pages(s, 2)
    problem = m.run.problem("network")
    assert problem.url == s.a("/sitemap.xml")
    assert problem.message.startswith("timed out: the request's 2 s budget ran out after")
    assert m.run.report(s.a("/sitemap.xml")).status is Status.PARTIAL


async def test_content_length_shorter_than_the_body(aiohttp_server: AiohttpServer) -> None:
    """A Content-Length that counts half the body: the document ends at the count (`truncated`,
    the entries before kept, and the one cut in its end tag: `cut-entry`), and its connection
    is closed, so the rest, sent later, is not read as the next document's answer: that one
    is read whole at its first try."""
    s = await serve(aiohttp_server)
    body = urlset(*pages(s, 10)).encode()
    counted = body.index(b"</url>", len(body) // 2) + 2  # inside an entry's end tag
    before = body[:counted].count(b"</loc>")  # the entries whose <loc> closed before the count
    s.add("/index.xml", xml(sitemapindex(s.a("/a.xml"), s.a("/b.xml"), s.a("/c.xml"))))
    s.add("/a.xml", short_length(body, counted, pause=0.2))
    s.add("/b.xml", xml(urlset(s.a("/b"))))
    s.add("/c.xml", xml(urlset(s.a("/c"))))
    # One connection: /b.xml is asked on the connection /a.xml left its extra bytes on.
    config = dataclasses.replace(FAST, limits=Limits(max_concurrency=1, per_host=1))

    m = await measured_walk(s.a("/index.xml"), config=config)

    m.within(5.0)
    assert m.run.locs == [*pages(s, before), s.a("/b"), s.a("/c")]
    problem = m.run.problem("truncated")
    assert problem.url == s.a("/a.xml")
    assert kinds(m.run.problems) == ["cut-entry", "truncated"]
    assert m.run.report(s.a("/a.xml")).status is Status.PARTIAL
    assert m.run.report(s.a("/b.xml")).status is Status.OK
    assert s.count("/a.xml") == 1
    assert s.count("/b.xml") == 1
    assert s.count("/c.xml") == 1


# -- compression -----------------------------------------------------------------------------


@pytest.mark.parametrize("coding", [None, "gzip", "deflate", "deflate-raw", "br", "zstd"])
async def test_bomb_is_cut_at_max_bytes(aiohttp_server: AiohttpServer, coding: str | None) -> None:
    """A 1 GiB bomb (at most about 1 MB sent) after three entries, inflated by the fetcher
    (Content-Encoding: gzip, deflate zlib or raw, br, zstd) or by the parser (a .gz file, ``None``), is
    cut at the default 50 MB: both inflate a bounded piece at a time, so memory stays small."""
    s = await serve(aiohttp_server)
    s.add("/sitemap.xml", bomb(opening(s, 3), b" ", 1 << 30, coding=coding))
    config = dataclasses.replace(FAST, timeouts=Timeouts(read=5.0, request=60.0))

    m = await measured_walk(s.a("/sitemap.xml"), config=config)

    m.within(20.0)
    assert m.run.locs == pages(s, 3)
    problem = m.run.problem("too-large")
    assert f"over {Limits().max_bytes:,} bytes (decompressed)" in problem.message
    report = m.run.report(s.a("/sitemap.xml"))
    assert report.status is Status.PARTIAL
    assert report.bytes < 4 * MiB  # the bytes as sent: the bomb was not drained


# aiohttp does not check that a stream ends where the body does: the fetcher inflates
# Content-Encoding itself, or a cut text sitemap's last line was a wrong URL.
@pytest.mark.parametrize("document", ["xml", "text"])
@pytest.mark.parametrize("coding", ["gzip", "deflate", "deflate-raw", "br", "zstd"])
async def test_cut_content_encoding(
    aiohttp_server: AiohttpServer, document: str, coding: str
) -> None:
    """A Content-Encoding stream cut halfway (its Content-Length matching what is sent):
    the entries before the cut are kept, none is made up from a partial one, and the cut
    is reported as the coding's."""
    s = await serve(aiohttp_server)
    n = 10_000 if coding == "zstd" else 1_000  # zstd decodes a block (up to 128 KiB) at a time
    locs = pages(s, n)
    body = urlset(*locs) if document == "xml" else text_sitemap(*locs)
    s.add("/sitemap", cut_transport(body.encode(), 0.5, coding))

    m = await measured_walk(s.a("/sitemap"))

    m.within(5.0)
    assert 0 < len(m.run.locs) < n
    assert m.run.locs == locs[: len(m.run.locs)]  # in order, and never a partial URL
    assert m.run.problems, "the cut was not reported"
    problem = m.run.problems[-1]
    assert problem.fatal and kinds(m.run.problems) == ["network"]
    name = coding.removesuffix("-raw")
    assert f"the {name} Content-Encoding stream ends before its end" in problem.message
    assert m.run.report(s.a("/sitemap")).status is Status.PARTIAL


# -- headers and redirects -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "count"),
    [
        # aiohttp's parse error reads "400, message=...": its own code, not the server's.
        pytest.param(MiB, 0, id="one-mib-value"),
        pytest.param(0, 10_000, id="ten-thousand-headers"),
    ],
)
async def test_enormous_headers(aiohttp_server: AiohttpServer, value: int, count: int) -> None:
    """Response headers past aiohttp's limits (8,190 bytes a line, 128 headers) fail the
    document in bounded memory, with a problem that says the headers were the fault; the
    sibling sitemap is read."""
    s = await serve(aiohttp_server)
    s.add("/index.xml", xml(sitemapindex(s.a("/good.xml"), s.a("/headers.xml"))))
    s.add("/good.xml", xml(urlset(*pages(s, 2))))
    s.add("/headers.xml", huge_headers(value=value, count=count, body=urlset(s.a("/x")).encode()))

    m = await measured_walk(s.a("/index.xml"))

    m.within(5.0)
    assert m.run.locs == pages(s, 2)
    problem = m.run.problem("network")
    assert problem.url == s.a("/headers.xml")
    assert len(problem.message) < 1_000
    assert m.run.report(s.a("/headers.xml")).status is Status.FAILED
    assert s.count("/headers.xml") <= FAST.retry.attempts
    assert "header" in problem.message.lower()
    assert not problem.message.startswith("400")  # the server sent no 400


async def test_endless_redirects(aiohttp_server: AiohttpServer) -> None:
    """A redirect chain that never ends and never loops stops at Limits.max_redirects (the
    default, 5): six requests, no retry, a `redirect` problem; the sibling is read."""
    s = await serve(aiohttp_server, hostile_site())
    s.add("/index.xml", xml(sitemapindex(s.a("/good.xml"), s.a("/r/0"))))
    s.add("/good.xml", xml(urlset(*pages(s, 2))))
    s.add("/r/*", endless_redirects("/r/"))

    m = await measured_walk(s.a("/index.xml"))

    m.within(5.0)
    assert m.run.locs == pages(s, 2)
    assert [p for p in s.site.paths() if p.startswith("/r/")] == [f"/r/{i}" for i in range(6)]
    problem = m.run.problem("redirect")
    assert (problem.url, problem.message) == (
        s.a("/r/0"),
        f"more than 5 redirects (last to {s.a('/r/6')})",
    )
    assert m.run.report(s.a("/r/0")).status is Status.FAILED


# -- fan-out and the run's budgets -----------------------------------------------------------


async def test_fan_out_to_50000_indexes_is_bounded_by_the_site_budget(
    aiohttp_server: AiohttpServer,
) -> None:
    """An index of 50,000 children that are indexes of 50,000 more, without end: with a
    budget of 20 documents for the site, 20 requests are made, each index is cut once the
    budget is spent (its further children are not queued), memory stays small, one
    `max-sitemaps-per-site` problem says so, and the leaf read before is delivered."""
    s = await serve(aiohttp_server, hostile_site())
    s.add("/index.xml", xml(sitemapindex(s.a("/leaf.xml"), s.a("/fan/0.xml"))))
    s.add("/leaf.xml", xml(urlset(*pages(s, 5))))
    s.add("/fan/*", fan_out(s.a(""), "/fan/", 50_000))
    config = dataclasses.replace(FAST, limits=Limits(max_sitemaps_per_site=20))

    m = await measured_walk(s.a("/index.xml"), config=config)

    m.within(10.0)
    assert m.run.locs == pages(s, 5)
    assert len(s.site.hits) == 20
    read = [r for r in m.run.reports if r.status is not Status.SKIPPED]
    assert len(read) == 20
    # The children refused: the first UNREAD_LISTED of the run reported skipped (tree lists
    # them), the rest counted in their index's report, not reported one by one.
    skipped = [r for r in m.run.reports if r.status is Status.SKIPPED]
    assert len(skipped) == UNREAD_LISTED
    unlisted = [p for r in read for p in r.problems if "nor listed one by one" in p.message]
    assert unlisted and all(p.kind == "max-sitemaps-per-site" for p in unlisted)
    problem = m.run.problem("max-sitemaps-per-site")
    assert f"the budget of 20 sitemaps for {s.a('/index.xml')} is spent" in problem.message
    assert kinds(m.run.problems) == ["max-sitemaps-per-site"]
    assert m.frontier <= 20  # the budget is applied as children are named, not as they are read
    indexes = [r for r in read if "/fan/" in r.url]
    assert {r.status for r in indexes} == {Status.PARTIAL}  # each one cut
    # Each index was cut within its first reads, not read to its end (3.5 MB each).
    assert all(r.bytes < 2 * MiB for r in indexes)


@pytest.mark.parametrize(
    ("kind", "limits", "timeouts"),
    [
        ("max-entries", Limits(max_entries=2_000, max_concurrency=4), None),
        ("max-total-bytes", Limits(max_total_bytes=4 * MiB, max_concurrency=4), None),
        (
            "deadline",
            Limits(max_concurrency=4),
            Timeouts(connect=2.0, read=5.0, request=60.0, deadline=1.0),
        ),
    ],
    ids=["max-entries", "max-total-bytes", "deadline"],
)
async def test_endless_children_are_bounded_by_the_run_budgets(
    aiohttp_server: AiohttpServer, kind: str, limits: Limits, timeouts: Timeouts | None
) -> None:
    """An index of 200 children, each an endless urlset (for the deadline, trickled a
    byte a second), is stopped by the run's budget: at most one round of requests, the
    entries read before delivered, one problem naming the budget, the rest skipped."""
    s = await serve(aiohttp_server, hostile_site())
    children = [s.a(f"/c/{i}.xml") for i in range(200)]
    s.add("/index.xml", xml(sitemapindex(*children)))
    entry = f"<url><loc>{s.a('/c/page/0')}</loc></url>\n".encode()
    if kind == "deadline":
        s.add("/c/*", slowloris(opening(s, 1, "/c/page"), entry, interval=1.0))
    else:  # entries without end, or white space (kept entries would fill the test's memory)
        s.add("/c/*", endless(opening(s, 1, "/c/page"), entry if kind == "max-entries" else b" "))
    config = dataclasses.replace(FAST, limits=limits, timeouts=timeouts or FAST.timeouts)

    m = await measured_walk(s.a("/index.xml"), config=config)

    m.within(10.0, peak=RUN_PEAK)
    assert len(s.site.hits) <= 1 + limits.max_concurrency
    assert m.run.locs and set(m.run.locs) == {s.a("/c/page/0")}
    if kind == "max-entries":
        assert len(m.run.locs) == 2_000
    problem = m.run.problem(kind)
    assert "deadline" in problem.message if kind == "deadline" else "budget" in problem.message
    statuses = [m.run.report(c).status for c in children]
    assert statuses.count(Status.SKIPPED) >= len(children) - limits.max_concurrency


# -- XML attacks over HTTP -------------------------------------------------------------------


@pytest.mark.parametrize("attack", ENTITY_ATTACKS)
async def test_entity_attacks_are_refused_unexpanded(
    aiohttp_server: AiohttpServer, tmp_path: Path, attack: str
) -> None:
    """Billion laughs, quadratic blowup and XXE, served gzipped in transport: refused at the
    declaration (`unsafe-xml` naming the entity), nothing expanded or read, the sibling read."""
    secret_file = tmp_path / "secret.txt"
    secret_file.write_text(SECRET)
    s = await serve(aiohttp_server)
    s.add("/index.xml", xml(sitemapindex(s.a("/good.xml"), s.a("/attack.xml"))))
    s.add("/good.xml", xml(urlset(*pages(s, 2))))
    s.add("/attack.xml", gz_transport(entity_attack(attack, secret_file)))

    m = await measured_walk(s.a("/index.xml"))

    m.within(5.0)
    assert m.run.locs == pages(s, 2)
    problem = m.run.problem("unsafe-xml")
    assert problem.url == s.a("/attack.xml")
    assert "'l" in problem.message  # the entity is named (l0 or l9)
    assert SECRET not in repr(m.run.events)
    assert "lollol" not in repr(m.run.events)
    assert m.run.report(s.a("/attack.xml")).status is Status.FAILED  # nothing recognisable was read


async def test_deep_nesting_is_cut_in_bounded_memory(aiohttp_server: AiohttpServer) -> None:
    """A sitemap that opens elements without end ('<a>' after an entry, 512 KiB of them here,
    gzipped to a few kB) ends the document in bounded memory, the entry before kept."""
    s = await serve(aiohttp_server)
    s.add("/sitemap.xml", gz_transport(opening(s, 1) + b"<url>" + b"<a>" * (MiB // 6)))

    m = await measured_walk(s.a("/sitemap.xml"))

    assert m.run.locs == pages(s, 1)
    assert m.run.problems[-1].fatal
    assert m.run.problems[-1].kind == "too-nested"
    m.within(10.0, peak=8 * MiB)


# -- the cost of an unfinished token ---------------------------------------------------------

_HEAD = (
    f'<?xml version="1.0"?>\n<urlset xmlns="{SITEMAP_NS}">\n'
    "<url><loc>https://example.com/first</loc></url>\n"
).encode()
# Each feed used to re-read what was held (expat < 2.6, or with reparse deferral off,
# re-scans an unfinished token from its start; the text reader copied the line so far): feeding a 1 MiB comment in 64-byte pieces took 38 s.


class _CountingExpat:
    """A pyexpat parser that counts the bytes it goes over: each ``Parse()`` re-scans the
    unfinished token it holds from its start (expat < 2.6, or with deferral off), then the
    new input."""

    def __init__(self, real: Any, work: _Work) -> None:
        object.__setattr__(self, "_real", real)
        object.__setattr__(self, "_work", work)
        object.__setattr__(self, "_fed", 0)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._real, name, value)  # the handlers

    def Parse(self, data: bytes, final: bool = False) -> int:
        held = self._fed - max(self._real.CurrentByteIndex, 0)
        self._work.expat += held + len(data)
        object.__setattr__(self, "_fed", self._fed + len(data))
        return int(self._real.Parse(data, final))


@dataclass
class _Work:
    """What feeding a token cost, counted: no clock, so a busy machine changes nothing."""

    expat: int = 0  # bytes expat went over
    allocated: int = 0  # the most a feed had allocated at once, beyond its piece (copies)

    def total(self) -> int:
        return self.expat + self.allocated


_MAKE_PARSER = _expat.make_parser


def _feed_work(
    head: bytes, token: bytes, limit: int, chunk: int, fast: bool, monkeypatch: pytest.MonkeyPatch
) -> tuple[_Work, list[Event]]:
    """Open ``token`` and feed ``chunk``-byte pieces of it up to ``limit`` bytes, then on to
    the verdict: the work the pieces cost, and every event."""
    work = _Work()
    monkeypatch.setattr(_expat, "make_parser", lambda: _CountingExpat(_MAKE_PARSER(), work))
    parser = SitemapParser(URL, limits=Limits(max_token_bytes=limit), fast=fast)
    events: list[Event] = parser.feed(head + token)
    piece = b"x" * chunk
    fed = 0
    tracemalloc.start()
    try:
        while fed + chunk < limit:
            before = tracemalloc.get_traced_memory()[0]
            tracemalloc.reset_peak()
            events += parser.feed(piece)
            work.allocated += max(0, tracemalloc.get_traced_memory()[1] - before - chunk)
            fed += chunk
    finally:
        tracemalloc.stop()
    while not parser.ended and fed < limit + (128 << 10):  # XML checks every 64 KiB
        events += parser.feed(piece)
        fed += chunk
    events += parser.close()
    return work, events


@pytest.mark.parametrize(
    ("head", "token", "limit", "chunk", "fast"),
    [
        pytest.param(_HEAD, b"<!--", MiB, 8192, True, id="comment-fast"),
        pytest.param(_HEAD, b"<!--", MiB, 8192, False, id="comment-exact"),
        pytest.param(_HEAD, b"<url><loc><![CDATA[", MiB, 8192, True, id="cdata-fast"),
        pytest.param(_HEAD, b"<url><loc><![CDATA[", MiB, 8192, False, id="cdata-exact"),
        pytest.param(_HEAD, b"<url><loc>https://example.com/", MiB, 8192, False, id="text-exact"),
        # the scanner holds a block up to 64 KiB before expat takes over: look inside that
        pytest.param(
            _HEAD,
            b"<url><loc>https://example.com/",
            64 << 10,
            512,
            True,
            id="text-fast",
        ),
        pytest.param(
            b"https://example.com/first\n",
            b"https://example.com/",
            2 * MiB,
            1024,
            True,
            id="text-line",
        ),
    ],
)
def test_unfinished_token_costs_work_linear_in_its_size(
    head: bytes,
    token: bytes,
    limit: int,
    chunk: int,
    fast: bool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An unclosed comment, CDATA section, text node or text line fed in small chunks up to
    Limits.max_token_bytes costs work linear in its size: the bytes expat goes over and
    the copies made come to about what pieces eight times larger cost (the compiled
    scanner's own matching is not counted here: it is Rust's). Were each piece to re-read or copy what is held, the work would be the
    square of the token over twice the piece: eight times more for the small pieces (64 MiB
    for the 1 MiB comment). The verdict comes past the limit."""
    small, events = _feed_work(head, token, limit, chunk, fast, monkeypatch)
    large, _ = _feed_work(head, token, limit, 8 * chunk, fast, monkeypatch)
    if head.startswith(b"<"):
        problem = fatal(events)
        assert problem is not None and problem.kind == "token-too-large", events[-1:]
    else:
        assert kinds(events) == ["loc-too-long"]
    assert small.total() < 2 * (large.total() + limit), (small, large)
