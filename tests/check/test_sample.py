"""``check --sample N``: the reservoir draw, Wilson's interval, what a page's head and headers
say, and the drawn pages fetched from a loopback site (redirects, 4xx, 5xx, noindex by header
and by meta, canonicals by header and by tag)."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Mapping

import aiohttp
import pytest
from aiohttp import web
from pytest_aiohttp.plugin import AiohttpServer

import sitemap_reader as sr
from sitemap_reader._check._page import HeadReader, canonical_in_link, elsewhere, noindex_in
from sitemap_reader._check._sample import PageAnswer, Reservoir, sample_findings, wilson
from sitemap_reader._io._http._aiohttp import AiohttpResponse, AiohttpTransport
from tests.support.check import NOW, loc, urls
from tests.support.http_site import FAST, Handler, Served, redirect, serve, status, text, xml

# -- Wilson's interval ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hits", "n", "low", "high"),
    [
        # Reference values (Newcombe 1998, table I, and R's prop.test(correct = FALSE)).
        (0, 10, 0.0, 0.2775),
        (5, 10, 0.2366, 0.7634),
        (10, 10, 0.7225, 1.0),
        (81, 263, 0.2553, 0.3662),
        (62, 2000, 0.0243, 0.0395),  # the "about 3.1% (2.4 to 4.0%)"
    ],
)
def test_wilson_interval_matches_reference_values(
    hits: int, n: int, low: float, high: float
) -> None:
    got = wilson(hits, n)
    assert got == pytest.approx((low, high), abs=5e-5)


def test_wilson_refuses_a_share_of_nothing() -> None:
    with pytest.raises(ValueError, match="no share"):
        wilson(0, 0)
    with pytest.raises(ValueError, match="no share"):
        wilson(3, 2)


# -- the reservoir ---------------------------------------------------------------------------


def test_reservoir_keeps_everything_below_its_size_in_order() -> None:
    r = Reservoir(5, seed=1)
    for i in range(3):
        r.offer(f"u{i}")
    assert (r.items, r.seen) == (["u0", "u1", "u2"], 3)


def test_reservoir_is_bounded_and_seeded() -> None:
    """100,000 offers leave 10 items; the same seed draws the same ones, another seed not."""

    def draw(seed: int) -> list[str]:
        r = Reservoir(10, seed=seed)
        for i in range(100_000):
            r.offer(f"u{i}")
        assert r.seen == 100_000
        return r.items

    first = draw(7)
    assert len(first) == len(set(first)) == 10
    assert draw(7) == first
    assert draw(8) != first


def test_reservoir_draw_is_uniform() -> None:
    """Each of 20 items is kept in about size/20 of the draws: over 4,000 seeded draws of 5,
    every count lies within 4 standard deviations of 1,000 (binomial, p = 1/4)."""
    kept: Counter[str] = Counter()
    draws = 4_000
    for seed in range(draws):
        r = Reservoir(5, seed=seed)
        for i in range(20):
            r.offer(f"u{i}")
        kept.update(r.items)
    mean, sd = draws * 0.25, (draws * 0.25 * 0.75) ** 0.5
    assert set(kept) == {f"u{i}" for i in range(20)}
    assert all(abs(c - mean) < 4 * sd for c in kept.values()), kept


def test_reservoir_of_a_negative_size_is_refused() -> None:
    with pytest.raises(ValueError, match="give 0 or more"):
        Reservoir(-1)
    with pytest.raises(ValueError, match="sample=-2"):
        sr.CheckOptions(sample=-2)


# -- what a page says of itself ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "robot", "said"),
    [
        ("noindex", "", True),
        ("NoIndex, nofollow", "", True),
        ("none", "", True),
        ("nofollow", "", False),
        ("googlebot: noindex", "", False),  # another crawler's
        ("sitemap-reader: noindex", "sitemap-reader", True),
        ("unavailable_after: 25 Jun 2010 15:00:00 PST", "", False),
        ("googlebot: nofollow, noindex", "", False),  # both googlebot's
        ("googlebot: nofollow, otherbot: noindex", "otherbot", True),
        ("max-snippet: 20, noindex", "", True),  # a valued directive names no crawler
    ],
)
def test_noindex_directives(value: str, robot: str, said: bool) -> None:
    assert noindex_in(value, robot) is said


def test_canonical_in_a_link_header() -> None:
    value = '<https://e.com/a.css>; rel=preload, <https://e.com/p>; rel="canonical"'
    assert canonical_in_link(value) == "https://e.com/p"
    assert canonical_in_link("<https://e.com/p>; rel=alternate; hreflang=de") is None


def test_canonical_elsewhere_is_resolved_and_compared_normalised() -> None:
    assert elsewhere("https://e.com/p?x=1", "/p") == "https://e.com/p"
    assert elsewhere("https://E.com:443/p", "https://e.com/p#top") is None
    assert elsewhere("https://e.com/p", "https://e.com/p") is None


def test_head_reader_stops_at_the_body() -> None:
    """A robots meta or a canonical after <body> is not the head's: it is not read."""
    head = HeadReader()
    head.feed_bytes(b'<html><head><title>t</title></head><body><meta name="robots" ')
    head.feed_bytes(b'content="noindex"><link rel="canonical" href="/x">')
    assert head.done and not head.noindex and head.canonical is None
    head = HeadReader()
    head.feed_bytes(b'<html><head><meta name="ROBOTS" content="noindex,follow">')
    head.feed_bytes(b'<link rel="canonical" href="/x"></head>')
    assert head.done and head.noindex and head.canonical == "/x"


# -- the findings and their shares ---------------------------------------------------------------


def test_findings_give_the_count_and_the_estimated_share() -> None:
    """62 of 2,000 sampled pages of 5,000,000 listed redirect: the issue's own sentence."""
    answers = [
        PageAnswer(f"https://e.com/{i}", status=301, redirect=f"https://e.com/n{i}")
        for i in range(62)
    ] + [PageAnswer(f"https://e.com/ok{i}", status=200) for i in range(1938)]
    found, summary = sample_findings(answers, 5_000_000)
    (only,) = found
    assert (only.code, only.name, only.count, only.url) == (
        "S701",
        "page-redirects",
        62,
        "https://e.com/0",
    )
    assert only.message.startswith(
        "about 3.1% (2.4% to 4.0%) of the listed URLs redirect: 62 of 2,000 sampled pages "
        "(of 5,000,000 listed URLs), such as https://e.com/0 -> https://e.com/n0 (301), "
    )
    assert (summary.listed, summary.drawn, summary.asked, summary.disallowed) == (
        5_000_000,
        2000,
        2000,
        0,
    )


def test_disallowed_pages_are_counted_not_judged() -> None:
    answers = [PageAnswer("https://e.com/a", disallowed=True), PageAnswer("https://e.com/b", 404)]
    found, summary = sample_findings(answers, 2)
    assert [(f.code, f.count) for f in found] == [("S702", 1)]
    assert (summary.asked, summary.disallowed) == (1, 1)
    assert "100.0% (20.7% to 100.0%)" in found[0].message  # 1 of 1 asked: an estimate


# -- the pages fetched from a loopback site ------------------------------------------------------

HEAD = "<!DOCTYPE html><html><head><title>t</title>{}</head><body>page</body></html>"


def page(extra: str = "", *, headers: dict[str, str] | None = None) -> Handler:
    body = HEAD.format(extra).encode()

    async def handle(request: web.Request) -> web.StreamResponse:
        return web.Response(body=body, content_type="text/html", headers=headers)

    return handle


def big_head() -> Handler:
    """An HTML page whose head never ends: 4 MiB of <meta> tags."""
    body = b"<html><head>" + b'<meta name="x" content="y">' * 160_000

    async def handle(request: web.Request) -> web.StreamResponse:
        return web.Response(body=body, content_type="text/html")

    return handle


PAGES = {
    "/ok": lambda s: page(f'<link rel="canonical" href="{s.a("/ok")}">'),  # itself: fine
    "/moved": lambda s: redirect("/new", 301),
    "/gone": lambda s: status(404),
    "/broken": lambda s: status(500),
    "/hidden-header": lambda s: page(headers={"X-Robots-Tag": "noindex"}),
    "/hidden-meta": lambda s: page('<meta name="robots" content="noindex, follow">'),
    "/canon-header": lambda s: page(headers={"Link": f'<{s.a("/ok")}>; rel="canonical"'}),
    "/canon-tag": lambda s: page('<link rel="canonical" href="/ok">'),
    "/both": lambda s: page(  # its headers say all: no GET
        headers={"X-Robots-Tag": "none", "Link": f'<{s.a("/ok")}>; rel="canonical"'}
    ),
    "/pdf": lambda s: xml(b"%PDF-1.4 ...", content_type="application/pdf"),
    "/big": lambda s: big_head(),
}


def site(s: Served) -> None:
    for path, make in PAGES.items():
        s.add(path, make(s))
    s.add("/new", page())
    s.add("/sitemap.xml", xml(urls(*(loc(s, path) for path in PAGES))))


async def run_check(s: Served, options: sr.CheckOptions) -> tuple[list[sr.Finding], sr.Checker]:
    checker = sr.Checker(options)
    async with sr.SitemapReader(FAST) as reader:
        found = [f async for f in reader.check(s.a("/sitemap.xml"), checker=checker)]
        # /big's 4 MiB were cut once 64 KiB of it was read (the transport's pieces are larger
        # on loopback: what the socket had is counted too).
        assert reader.progress.bytes < 1_048_576
    return found, checker


async def test_every_listed_page_sampled(aiohttp_server: AiohttpServer) -> None:
    """A sample as large as the list asks every page (the 500 as often as the retry policy
    says), follows no redirect, reads a body only where it must, and reports each fault with
    its exact share."""
    s = await serve(aiohttp_server)
    site(s)
    found, checker = await run_check(s, sr.CheckOptions(now=NOW, sample=50))
    by_code = {f.code: f for f in found if f.code.startswith("S")}
    assert {c: (f.count, f.url) for c, f in by_code.items()} == {
        "S701": (1, s.a("/moved")),
        "S702": (1, s.a("/gone")),
        "S703": (1, s.a("/broken")),
        "S705": (3, s.a("/hidden-header")),
        "S706": (3, s.a("/canon-header")),
    }
    assert by_code["S701"].message.startswith(
        f"9.1% of the listed URLs redirect: 1 of 11 sampled pages (of 11 listed URLs), such "
        f"as {s.a('/moved')} -> {s.a('/new')} (301)."
    )
    assert "(by X-Robots-Tag), " in by_code["S705"].message
    assert '(by <meta name="robots">)' in by_code["S705"].message
    assert f"{s.a('/canon-tag')} -> {s.a('/ok')}" in by_code["S706"].message
    assert s.count("/new") == 0  # the redirect's target is the finding, not a request
    # A HEAD each; a GET where the head is needed (HTML whose headers left something unsaid)
    # or where the HEAD failed (asked again: some servers answer HEAD worse than GET).
    heads = {p: s.count(p, method="HEAD") for p in PAGES}
    gets = {p: s.count(p, method="GET") for p in PAGES}
    attempts = FAST.retry.attempts
    assert heads == {p: attempts if p == "/broken" else 1 for p in PAGES}
    assert {p for p, n in gets.items() if n} == {
        "/ok",
        "/gone",
        "/broken",
        "/hidden-header",
        "/hidden-meta",
        "/canon-header",
        "/canon-tag",
        "/big",
    }
    assert gets["/broken"] == attempts and gets["/gone"] == 1
    assert checker.sample is not None and (checker.sample.asked, checker.sample.listed) == (11, 11)


async def test_a_sample_smaller_than_the_list(aiohttp_server: AiohttpServer) -> None:
    """Three of ten pages drawn: three page requests, the draw the seed's, the shares
    estimates with their interval."""
    s = await serve(aiohttp_server)
    site(s)
    found, _ = await run_check(s, sr.CheckOptions(now=NOW, sample=3, seed=4))
    asked = [p for p in PAGES if s.count(p, method="HEAD")]
    assert len(asked) == 3 and all(s.count(p) == 0 for p in set(PAGES) - set(asked))
    expected = Reservoir(3, seed=4)
    for path in PAGES:
        expected.offer(s.a(path))
    assert sorted(s.a(p) for p in asked) == sorted(expected.items)
    for item in (f for f in found if f.code.startswith("S")):
        assert item.message.startswith("about ") and " of 3 sampled pages (of 11 listed" in (
            item.message
        )


async def test_no_page_is_fetched_without_a_sample(aiohttp_server: AiohttpServer) -> None:
    s = await serve(aiohttp_server)
    site(s)
    found, checker = await run_check(s, sr.CheckOptions(now=NOW))
    assert not [f for f in found if f.code.startswith("S")]
    assert all(s.count(p) == 0 for p in PAGES) and checker.sample is None


async def test_pages_robots_refuses_are_counted_not_fetched(aiohttp_server: AiohttpServer) -> None:
    """The hook for robots.txt's verdict: a page it refuses is not requested."""
    s = await serve(aiohttp_server)
    site(s)
    checker = sr.Checker(sr.CheckOptions(now=NOW, sample=50))
    async with sr.SitemapReader(FAST) as reader:
        async for batch in reader.walk_batches(s.a("/sitemap.xml")):
            checker.feed(batch)
        checker.close()
        found = await reader.check_sample(checker, allowed=lambda url: "/gone" not in url)
    assert s.count("/gone") == 0 and "S702" not in {f.code for f in found}
    assert checker.sample is not None
    assert (checker.sample.disallowed, checker.sample.asked) == (1, 10)


@pytest.mark.parametrize("policy", [sr.RobotsPolicy.REPORT, sr.RobotsPolicy.OBEY])
async def test_the_walks_robots_rules_keep_pages_from_the_sample(
    aiohttp_server: AiohttpServer, policy: sr.RobotsPolicy
) -> None:
    """Without ``allowed``, the robots.txt rules the walk read decide: the pages it
    disallows for the user agent are counted, not fetched; a page only another group's
    rules refuse is fetched."""
    s = await serve(aiohttp_server)
    site(s)
    s.add(
        "/robots.txt",
        text(
            "User-agent: othercrawler\nDisallow: /broken\n\n"
            "User-agent: *\nDisallow: /gone\nDisallow: /hidden-*$\n\n"
            f"Sitemap: {s.a('/sitemap.xml')}\n"
        ),
    )
    config = dataclasses.replace(FAST, robots=policy)
    checker = sr.Checker(sr.CheckOptions(now=NOW, sample=50))
    async with sr.SitemapReader(config) as reader:
        found = [f async for f in reader.check(s.a("/"), checker=checker)]
    refused = ("/gone", "/hidden-header", "/hidden-meta")
    assert [s.count(p) for p in refused] == [0, 0, 0]
    assert s.count("/broken") > 0  # only othercrawler's group disallows it
    assert checker.sample is not None
    # 11 pages listed: report draws them all and counts 3 unasked; obey left those 3 out of
    # the list before the draw.
    expected = (3, 8) if policy is sr.RobotsPolicy.REPORT else (0, 8)
    assert (checker.sample.disallowed, checker.sample.asked) == expected
    counts = {f.code: f.count for f in found if f.code.startswith("S")}
    assert "S702" not in counts and counts["S705"] == 1  # /both alone: the hidden pages unasked


class GetOnly:
    """A transport that offers GET alone (as a caller's may): the pages are asked by GET."""

    def __init__(self, inner: AiohttpTransport) -> None:
        self._inner = inner

    async def get(
        self, url: str, headers: Mapping[str, str], *, proxy: str | None = None
    ) -> AiohttpResponse:
        return await self._inner.get(url, headers, proxy=proxy)


async def test_a_transport_without_head_is_asked_get_alone(aiohttp_server: AiohttpServer) -> None:
    s = await serve(aiohttp_server)
    site(s)
    checker = sr.Checker(sr.CheckOptions(now=NOW, sample=50))
    async with aiohttp.ClientSession() as session:
        transport = GetOnly(AiohttpTransport(session))
        async with sr.SitemapReader(FAST, transport=transport) as reader:
            found = [f async for f in reader.check(s.a("/sitemap.xml"), checker=checker)]
    assert all(s.count(p, method="HEAD") == 0 for p in PAGES)
    assert {f.code: f.count for f in found if f.code.startswith("S")} == {
        "S701": 1,
        "S702": 1,
        "S703": 1,
        "S705": 3,
        "S706": 3,
    }
    assert s.count("/pdf") == 1 and s.count("/moved") == 1
