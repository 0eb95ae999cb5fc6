"""The attacks of the hostile-server table of docs/safety.md (``bench_hostile.py`` runs them), each
with the outcome its row states, as a check that raises :class:`Broken` when it does not hold.

A :class:`Row` is a line of the table; its attacks (one, or several whose figures the row
separates with " / ") each fill a site served by ``tests/support/hostile.py``'s handlers and say how
to read it (:class:`Setup`): the source, the configuration, the check and the bounds.
Imported with the repository root on ``sys.path`` (``bench_hostile.py`` puts it there).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from sitemap_reader import (
    Limits,
    Problem,
    ReaderConfig,
    RetryPolicy,
    SitemapVisited,
    Status,
    Timeouts,
)
from sitemap_reader._io._walk._frontier import UNREAD_LISTED
from tests.support.hostile import (
    ENTITY_ATTACKS,
    PEAK,
    RUN_PEAK,
    SECRET,
    Measured,
    MiB,
    bomb,
    cut_transport,
    endless,
    endless_redirects,
    entity_attack,
    fan_out,
    hostile_site,
    huge_headers,
    opening,
    pages,
    short_length,
    slowloris,
)
from tests.support.http_site import (
    FAST,
    Served,
    Site,
    gz_transport,
    sitemapindex,
    text_sitemap,
    urlset,
    xml,
)

DEFAULT_CAP = Limits().max_bytes  # 50 MB
# What a bomb cut at the cap may have been read of: the gzip and deflate bombs are 1.06 MB
# (590 KB read, measured), br 193 KB and zstd 33 KB (read whole, inflated to the cap only).
BOMB_READ = 1_000_000
BOMB_CODINGS = (None, "gzip", "deflate", "br", "zstd")  # None: a .gz file
CUT_CODINGS = ("gzip", "deflate", "deflate-raw", "br", "zstd")
# zstd decodes a whole block (up to 128 KiB) at a time: half of 1,000 URLs may end in its first
CUT_URLS = {coding: 10_000 if coding == "zstd" else 1_000 for coding in CUT_CODINGS}


class Broken(Exception):
    """An outcome of the table does not hold."""


def expect(holds: bool, what: str) -> None:
    """Raise :class:`Broken` saying ``what`` should have held (works under ``python -O``)."""
    if not holds:
        raise Broken(what)


def only_problem(m: Measured, kind: str, url: str) -> Problem:
    """The one problem of the run, of ``kind``, for ``url``."""
    found = [(p.kind, p.url) for p in m.run.problems]
    expect(found == [(kind, url)], f"one {kind!r} problem for {url}; the run had {found}")
    return m.run.problems[0]


def report(m: Measured, url: str) -> SitemapVisited:
    """The one report of the document named ``url``."""
    reports = [r for r in m.run.reports if r.url == url]
    expect(len(reports) == 1, f"one report for {url}, not {len(reports)}")
    return reports[0]


def status(m: Measured, url: str) -> Status:
    return report(m, url).status


@dataclass(frozen=True)
class Setup:
    """What one attack reads, how, and what must hold once it is read."""

    source: str
    config: ReaderConfig
    check: Callable[[Measured], None]
    seconds: float  # the time bound of a run
    peak: int = PEAK  # the bound of its traced memory


@dataclass(frozen=True)
class Attack:
    """One attack of a row: it fills a served site and says how to read it."""

    build: Callable[[Served, Path], Setup]
    site: Callable[[], Site] = Site


@dataclass(frozen=True)
class Row:
    """A row of the table: the attacks whose figures it gives, separated by " / "."""

    name: str  # for --only
    attack: str  # markdown
    outcome: str  # markdown: what every attack of the row is checked for
    attacks: tuple[Attack, ...]


# -- the attacks -------------------------------------------------------------------------------


def endless_body(claimed: int | None, max_bytes: int) -> Attack:
    """Three entries, then white space forever: chunked, or with a Content-Length lie."""

    def build(s: Served, tmp: Path) -> Setup:
        url = s.a("/sitemap.xml")
        s.add("/sitemap.xml", endless(opening(s, 3), b" \n", claimed_length=claimed))
        config = dataclasses.replace(
            FAST, limits=Limits(max_bytes=max_bytes), timeouts=Timeouts(read=5.0, request=60.0)
        )

        def check(m: Measured) -> None:
            expect(m.run.locs == pages(s, 3), "the three entries before the endless part")
            problem = only_problem(m, "too-large", url)
            expect(f"over {max_bytes:,} bytes" in problem.message, "the cap named")
            expect(status(m, url) is Status.PARTIAL, "the document is partial")
            read = report(m, url).bytes
            expect(max_bytes <= read < max_bytes + 2 * MiB, f"cut at the cap, not at {read:,}")
            expect(s.count("/sitemap.xml") == 1, "one request: a cap is not retried")

        return Setup(url, config, check, seconds=20.0)

    return Attack(build)


def shorter_length() -> Attack:
    """A Content-Length that counts half the body; the rest is written on the connection
    0.2 s after it, when one connection for the whole run would carry the next request."""

    def build(s: Served, tmp: Path) -> Setup:
        body = urlset(*pages(s, 10)).encode()
        counted = body.index(b"</url>", len(body) // 2) + 2  # inside an entry's end tag
        before = body[:counted].count(b"</loc>")  # (the one cut in its end tag is kept)
        s.add("/index.xml", xml(sitemapindex(s.a("/a.xml"), s.a("/b.xml"), s.a("/c.xml"))))
        s.add("/a.xml", short_length(body, counted, pause=0.2))
        s.add("/b.xml", xml(urlset(s.a("/b"))))
        s.add("/c.xml", xml(urlset(s.a("/c"))))
        config = dataclasses.replace(FAST, limits=Limits(max_concurrency=1, per_host=1))

        def check(m: Measured) -> None:
            locs = [*pages(s, before), s.a("/b"), s.a("/c")]
            expect(m.run.locs == locs, "the entries before the count, then every other one")
            found = [(p.kind, p.url) for p in m.run.problems]
            said = [("cut-entry", s.a("/a.xml")), ("truncated", s.a("/a.xml"))]
            expect(found == said, f"the cut entry and the cut said; the run had {found}")
            expect(status(m, s.a("/a.xml")) is Status.PARTIAL, "the short document is partial")
            expect(status(m, s.a("/b.xml")) is Status.OK, "the next document is read whole")
            expect(s.count("/a.xml") == 1, "the short document is asked once")
            tries = s.count("/b.xml") + s.count("/c.xml")
            expect(tries == 2, f"no failed try: each next document asked once ({tries} requests)")

        return Setup(s.a("/index.xml"), config, check, seconds=5.0)

    return Attack(build)


def trickle_forever() -> Attack:
    """Two entries, then a byte a second: each wait under the read timeout."""

    def build(s: Served, tmp: Path) -> Setup:
        url = s.a("/sitemap.xml")
        s.add("/sitemap.xml", slowloris(opening(s, 2), b"<url><loc>", interval=1.0))
        config = dataclasses.replace(
            FAST,
            timeouts=Timeouts(connect=2.0, read=5.0, request=2.0),
            retry=RetryPolicy(attempts=1),
        )

        def check(m: Measured) -> None:
            expect(m.seconds > 1.9, "the request's 2 s budget, not a read timeout, ended it")
            expect(m.run.locs == pages(s, 2), "the two entries sent before the trickle")
            problem = only_problem(m, "network", url)
            said = "timed out: the request's 2 s budget ran out after"
            expect(problem.message.startswith(said), f"the budget named: {problem.message!r}")
            expect(status(m, url) is Status.PARTIAL, "the document is partial")

        return Setup(url, config, check, seconds=5.0)

    return Attack(build)


def compression_bomb(coding: str | None) -> Attack:
    """Three entries, then 1 GiB of spaces compressed (about 1 MB sent, or less): a ``.gz``
    file when ``coding`` is None, else sent with that ``Content-Encoding``."""

    def build(s: Served, tmp: Path) -> Setup:
        url = s.a("/sitemap.xml")
        s.add("/sitemap.xml", bomb(opening(s, 3), b" ", 1 << 30, coding=coding))
        config = dataclasses.replace(FAST, timeouts=Timeouts(read=5.0, request=60.0))

        def check(m: Measured) -> None:
            expect(m.run.locs == pages(s, 3), "the three entries before the bomb")
            problem = only_problem(m, "too-large", url)
            cap = f"over {DEFAULT_CAP:,} bytes (decompressed)"
            expect(cap in problem.message, f"the 50 MB cap named: {problem.message!r}")
            expect(status(m, url) is Status.PARTIAL, "the document is partial")
            read = report(m, url).bytes
            expect(read < BOMB_READ, f"under {BOMB_READ:,} bytes read, not {read:,}")

        return Setup(url, config, check, seconds=20.0)

    return Attack(build)


def cut_stream(document: str, coding: str) -> Attack:
    """Entries, XML or text, in a ``Content-Encoding`` stream (``deflate-raw``: raw deflate
    sent as deflate) that stops halfway, with a Content-Length that matches what is sent."""
    n = CUT_URLS[coding]

    def build(s: Served, tmp: Path) -> Setup:
        url = s.a("/sitemap")
        locs = pages(s, n)
        body = urlset(*locs) if document == "xml" else text_sitemap(*locs)
        s.add("/sitemap", cut_transport(body.encode(), 0.5, coding))

        def check(m: Measured) -> None:
            got = len(m.run.locs)
            expect(0 < got < n, f"some entries, not all ({got:,})")
            expect(m.run.locs == locs[:got], "the entries in order, none made from a part")
            problem = only_problem(m, "network", url)
            expect(problem.fatal, "the cut ends the document")
            said = f"the {coding.removesuffix('-raw')} Content-Encoding stream ends before its end"
            expect(said in problem.message, f"the coding named: {problem.message!r}")
            expect(status(m, url) is Status.PARTIAL, "the document is partial")

        return Setup(url, FAST, check, seconds=5.0)

    return Attack(build)


def enormous_headers(*, value: int = 0, count: int = 0) -> Attack:
    """A 200 whose headers pass aiohttp's limits, beside a good sibling."""

    def build(s: Served, tmp: Path) -> Setup:
        url = s.a("/headers.xml")
        s.add("/index.xml", xml(sitemapindex(s.a("/good.xml"), url)))
        s.add("/good.xml", xml(urlset(*pages(s, 2))))
        s.add(
            "/headers.xml", huge_headers(value=value, count=count, body=urlset(s.a("/x")).encode())
        )

        def check(m: Measured) -> None:
            expect(m.run.locs == pages(s, 2), "the sibling's entries")
            problem = only_problem(m, "network", url)
            said = "the response's status line or headers could not be read"
            expect(problem.message.startswith(said), f"the headers named: {problem.message!r}")
            expect(len(problem.message) < 1_000, "a message of a line, not the headers")
            expect(status(m, url) is Status.FAILED, "the document failed")

        return Setup(s.a("/index.xml"), FAST, check, seconds=5.0)

    return Attack(build)


def redirect_chain() -> Attack:
    """/r/N redirects to /r/N+1 for every N, beside a good sibling."""

    def build(s: Served, tmp: Path) -> Setup:
        s.add("/index.xml", xml(sitemapindex(s.a("/good.xml"), s.a("/r/0"))))
        s.add("/good.xml", xml(urlset(*pages(s, 2))))
        s.add("/r/*", endless_redirects("/r/"))

        def check(m: Measured) -> None:
            expect(m.run.locs == pages(s, 2), "the sibling's entries")
            hops = [p for p in s.site.paths() if p.startswith("/r/")]
            expect(hops == [f"/r/{i}" for i in range(6)], f"6 requests, not {len(hops)}")
            problem = only_problem(m, "redirect", s.a("/r/0"))
            said = f"more than 5 redirects (last to {s.a('/r/6')})"
            expect(problem.message == said, f"the limit named: {problem.message!r}")

        return Setup(s.a("/index.xml"), FAST, check, seconds=5.0)

    return Attack(build, hostile_site)


def fan_out_indexes() -> Attack:
    """An index of a leaf and an index of 50,000 indexes of 50,000, and so on."""
    budget = 20

    def build(s: Served, tmp: Path) -> Setup:
        root = s.a("/index.xml")
        s.add("/index.xml", xml(sitemapindex(s.a("/leaf.xml"), s.a("/fan/0.xml"))))
        s.add("/leaf.xml", xml(urlset(*pages(s, 5))))
        s.add("/fan/*", fan_out(s.a(""), "/fan/", 50_000))
        config = dataclasses.replace(FAST, limits=Limits(max_sitemaps_per_site=budget))

        def check(m: Measured) -> None:
            expect(m.run.locs == pages(s, 5), "the leaf's entries")
            expect(len(s.site.hits) == budget, f"{budget} requests, not {len(s.site.hits)}")
            kinds = [p.kind for p in m.run.problems]
            expect(kinds == ["max-sitemaps-per-site"], f"one budget problem, not {kinds}")
            problem = m.run.problems[0]
            said = f"the budget of {budget} sitemaps for {root} is spent"
            expect(said in problem.message, f"the budget named: {problem.message!r}")
            read = [r for r in m.run.reports if r.status is not Status.SKIPPED]
            expect(len(read) == budget, f"{budget} documents read, not {len(read)}")
            unread = len(m.run.reports) - len(read)
            expect(
                unread <= UNREAD_LISTED, f"at most {UNREAD_LISTED:,} refused listed, not {unread:,}"
            )
            expect(m.frontier <= budget, f"the frontier held {m.frontier:,} documents")

        return Setup(root, config, check, seconds=10.0)

    return Attack(build, hostile_site)


def endless_children(kind: str) -> Attack:
    """An index of 200 children, each endless (trickled a byte a second for the deadline),
    four read at once, against one run-wide budget."""
    limits = {
        "max-entries": Limits(max_entries=2_000, max_concurrency=4),
        "max-total-bytes": Limits(max_total_bytes=4 * MiB, max_concurrency=4),
        "deadline": Limits(max_concurrency=4),
    }[kind]
    timeouts = Timeouts(connect=2.0, read=5.0, request=60.0, deadline=1.0)

    def build(s: Served, tmp: Path) -> Setup:
        children = [s.a(f"/c/{i}.xml") for i in range(200)]
        s.add("/index.xml", xml(sitemapindex(*children)))
        head, entry = opening(s, 1, "/c/page"), f"<url><loc>{s.a('/c/page/0')}</loc></url>\n"
        if kind == "deadline":
            s.add("/c/*", slowloris(head, entry.encode(), interval=1.0))
        else:  # entries without end, or white space (kept entries would fill the memory)
            s.add("/c/*", endless(head, entry.encode() if kind == "max-entries" else b" "))
        config = dataclasses.replace(
            FAST, limits=limits, timeouts=timeouts if kind == "deadline" else FAST.timeouts
        )

        def check(m: Measured) -> None:
            expect(len(s.site.hits) <= 5, f"one round of requests, not {len(s.site.hits)}")
            expect(set(m.run.locs) == {s.a("/c/page/0")}, "the entries read before")
            if kind == "max-entries":
                expect(len(m.run.locs) == 2_000, f"2,000 entries, not {len(m.run.locs):,}")
            problems = [p for p in m.run.problems if p.kind == kind]
            expect(len(problems) == 1, f"one {kind!r} problem, not {len(problems)}")
            skipped = [status(m, c) for c in children].count(Status.SKIPPED)
            expect(skipped >= 196, f"the children not begun are skipped ({skipped})")

        return Setup(s.a("/index.xml"), config, check, seconds=10.0, peak=RUN_PEAK)

    return Attack(build, hostile_site)


def entity(name: str) -> Attack:
    """The attack gzipped in transport, beside a good sibling; the XXE names a real file."""

    def build(s: Served, tmp: Path) -> Setup:
        secret = tmp / "secret.txt"
        secret.write_text(SECRET)
        url = s.a("/attack.xml")
        s.add("/index.xml", xml(sitemapindex(s.a("/good.xml"), url)))
        s.add("/good.xml", xml(urlset(*pages(s, 2))))
        s.add("/attack.xml", gz_transport(entity_attack(name, secret)))

        def check(m: Measured) -> None:
            expect(m.run.locs == pages(s, 2), "the sibling's entries, nothing from the attack")
            problem = only_problem(m, "unsafe-xml", url)
            expect("'l" in problem.message, f"the entity named: {problem.message!r}")
            text = repr(m.run.events)
            expect(SECRET not in text and "lollol" not in text, "nothing expanded or read")
            expect(status(m, url) is Status.FAILED, "nothing recognisable was read: failed")

        return Setup(s.a("/index.xml"), FAST, check, seconds=5.0)

    return Attack(build)


def deep_nesting() -> Attack:
    """An entry, then 512 KiB of ``<a>``, gzipped in transport (a few kB sent)."""

    def build(s: Served, tmp: Path) -> Setup:
        url = s.a("/sitemap.xml")
        s.add("/sitemap.xml", gz_transport(opening(s, 1) + b"<url>" + b"<a>" * (MiB // 6)))

        def check(m: Measured) -> None:
            expect(m.run.locs == pages(s, 1), "the entry before")
            problem = only_problem(m, "too-nested", url)
            expect(problem.fatal, "the nesting ends the document")

        return Setup(url, FAST, check, seconds=10.0, peak=8 * MiB)

    return Attack(build)


CUT_ATTACK = (
    "`Content-Encoding` stream cut halfway ({document}): 1,000 URLs in gzip / deflate (zlib) / "
    "deflate (raw) / br, 10,000 in zstd"
)
CUT_OUTCOME = (
    "the entries before the cut, none made up from a partial one; "
    '`network`: "the *coding* Content-Encoding stream ends before its end"'
)

ROWS: tuple[Row, ...] = (
    Row(
        "endless",
        "endless chunked body, default 50 MB cap",
        "cut at `max_bytes` (`too-large`), the entries before kept, no retry",
        (endless_body(None, DEFAULT_CAP),),
    ),
    Row(
        "length-high",
        "`Content-Length` of 1 TB, `max_bytes` 8 MiB",
        "cut at `max_bytes` (`too-large`), the entries before kept",
        (endless_body(10**12, 8 * MiB),),
    ),
    Row(
        "length-short",
        "`Content-Length` shorter than the body, one connection",
        "cut at the count (`truncated`), the entries before kept, and the one cut after its "
        "`<loc>` (`cut-entry`); its connection is closed, so the rest, sent later, is not read "
        "as the next document: that one is read at its first try",
        (shorter_length(),),
    ),
    Row(
        "slowloris",
        "slowloris, one byte a second, `Timeouts(request=2)`",
        "cut by the request budget (`network`), the entries before kept",
        (trickle_forever(),),
    ),
    Row(
        "bomb",
        "1 GiB bomb in a `.gz` file / in `Content-Encoding` gzip / deflate / br / zstd",
        "cut at 50 MB (`too-large`), the entries before kept, under 1 MB read",
        tuple(compression_bomb(coding) for coding in BOMB_CODINGS),
    ),
    Row(
        "cut-xml",
        CUT_ATTACK.format(document="XML"),
        CUT_OUTCOME,
        tuple(cut_stream("xml", coding) for coding in CUT_CODINGS),
    ),
    Row(
        "cut-text",
        CUT_ATTACK.format(document="text"),
        CUT_OUTCOME,
        tuple(cut_stream("text", coding) for coding in CUT_CODINGS),
    ),
    Row(
        "headers",
        "a 1 MiB header value / 10,000 headers",
        '"the response\'s status line or headers could not be read" (`network`), the sibling read',
        (enormous_headers(value=MiB), enormous_headers(count=10_000)),
    ),
    Row(
        "redirects",
        "endless redirects",
        "6 requests (`redirect`), the sibling read",
        (redirect_chain(),),
    ),
    Row(
        "fan-out",
        "an index of 50,000 children that are indexes of 50,000, per-site budget 20",
        "20 requests, one `max-sitemaps-per-site` problem; never more than 20 documents in the frontier",
        (fan_out_indexes(),),
    ),
    Row(
        "budgets",
        "endless children against `max-entries` / `max-total-bytes` / `deadline`",
        "stopped by each budget after one round of requests, the entries before kept",
        tuple(endless_children(k) for k in ("max-entries", "max-total-bytes", "deadline")),
    ),
    Row(
        "entities",
        "billion laughs / quadratic blowup / XXE",
        "refused (`unsafe-xml`), nothing expanded or read",
        tuple(entity(name) for name in ENTITY_ATTACKS),
    ),
    Row(
        "nesting",
        "512 KiB of `<a>` (gzipped in transport)",
        "`too-nested`, the entry before kept",
        (deep_nesting(),),
    ),
)
