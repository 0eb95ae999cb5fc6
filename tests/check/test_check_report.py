"""The report page of ``check --report``, opened in a real headless Chromium: it loads with no
console message and no request beyond the file, its charts are drawn from the data, nothing
on it scrolls sideways at a phone's width (400 px) or a desk's (1280 px), and its screenshot
is a picture (more than one colour)."""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from xml.sax.saxutils import escape

import pytest
from pytest_aiohttp.plugin import AiohttpServer

import sitemap_reader as sr
from sitemap_reader._check._report import render_report
from tests.support.browser import CHROMIUM, chromium, open_page, png_colours
from tests.support.check import NOW, loc, urls
from tests.support.http_site import (
    FAST,
    Served,
    html,
    redirect,
    serve,
    sitemapindex,
    status,
    text,
    xml,
)

needs_chromium = pytest.mark.skipif(
    CHROMIUM is None and os.environ.get("CI") != "true",
    reason="chromium is not installed (apt-get install chromium); CI always runs this",
)

# Every chart's bars, read back from the page as laid out.
_CHARTS = """
JSON.stringify({
  width: document.documentElement.scrollWidth,
  viewport: window.innerWidth,
  charts: Object.fromEntries(["lastmod", "urls", "findings"].map(key => [key,
    [...document.querySelectorAll(`#chart-${key} rect.bar`)].map(r => ({
      label: r.dataset.label, kind: r.dataset.kind || "", value: +r.dataset.value,
      width: r.getBoundingClientRect().width, height: r.getBoundingClientRect().height}))])),
  svgs: document.querySelectorAll("svg.chart").length,
  errors: +document.querySelector("#count-error b").textContent.replace(/,/g, ""),
})
"""


# The page at a width: how wide it is laid out, what sticks out of the viewport or overflows
# its box, the month chart's scale and bars, the findings chart, the document tables' cells.
_LAYOUT = """
(() => {
  const viewport = window.innerWidth;
  const room = document.documentElement.clientWidth;  // the viewport less a scroll bar
  const all = [...document.body.querySelectorAll("*")];
  const name = e => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "")
    + (typeof e.className === "string" && e.className ? "." + e.className : "");
  const box = e => e.getBoundingClientRect();
  return JSON.stringify({
    viewport, room,
    width: document.documentElement.scrollWidth,
    outside: all.filter(e => { const r = box(e);
      return r.width > 0 && (r.left < -0.5 || r.right > room + 0.5); }).map(name),
    overflowing: all.filter(e => e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1)
      .map(name),
    scale: document.querySelector("#chart-lastmod svg").dataset.scale,
    caption: document.querySelector("#chart-lastmod figcaption").textContent,
    months: [...document.querySelectorAll("#chart-lastmod rect.bar")].map(r => ({
      label: r.dataset.label, value: +r.dataset.value, height: box(r).height})),
    findingsChart: document.querySelectorAll("#chart-findings svg").length,
    findingsNote: (document.querySelector("#chart-findings .note") || {}).textContent || "",
    codesHead: getComputedStyle(document.querySelector("#codes thead")).display,
    documents: [...document.querySelectorAll("details table")].map(t =>
      [...t.querySelectorAll("tbody tr")].map(tr =>
        [...tr.children].map(td => [Math.round(box(td).left), Math.round(box(td).width)]))),
  });
})()
"""

PRODUCTS = 30_412  # one month of many lastmods: the shop's catalogue imported in one go
BLOG_MONTHS = {  # and a blog's few, month by month (September empty)
    "2023-06": 3, "2023-07": 5, "2023-08": 0, "2023-09": 8, "2023-10": 4, "2023-11": 6,
    "2023-12": 9, "2024-01": 7, "2024-02": 12, "2024-03": 7, "2024-04": 10,
}  # fmt: skip
LONG = (
    "/blog/2024/04/how-we-moved-thirty-thousand-product-pages-to-a-new-shop-without-losing-"
    "a-single-search-ranking-and-what-we-learned-about-sitemaps-along-the-way"
    "?utm_source=newsletter&utm_medium=email&utm_campaign=spring-2024-relaunch"
)
LONG_SITEMAP = "/sitemaps/editorial/blog-posts-and-long-form-articles-archive-2023-2024-part-1.xml"


def shop(s: Served) -> None:
    """A realistic site: an index over a catalogue of 30,412 URLs all modified in May 2024,
    a blog of 71 posts over eleven months (one URL very long, one relative, one with a
    priority of 7) under a long sitemap URL, a news sitemap with a lastmod in the future and
    a duplicate, and a sitemap that answers 404."""
    s.add("/robots.txt", text(f"Sitemap: {s.a('/sitemap_index.xml')}\n"))
    names = ["/products.xml", LONG_SITEMAP, "/news.xml", "/old-sitemap.xml"]
    s.add("/sitemap_index.xml", xml(sitemapindex(*(s.a(n) for n in names))))
    stamp = "<lastmod>2024-05-14T03:00:00+00:00</lastmod>"
    s.add("/products.xml", xml(urls(*(loc(s, f"/p/{i}", stamp) for i in range(PRODUCTS)))))
    days = [f"{m}-{d + 1:02d}" for m, n in BLOG_MONTHS.items() for d in range(n)]
    posts = [loc(s, f"/blog/post-{i}", f"<lastmod>{day}</lastmod>") for i, day in enumerate(days)]
    posts[-1] = loc(s, escape(LONG), f"<lastmod>{days[-1]}</lastmod><priority>7</priority>")
    s.add(LONG_SITEMAP, xml(urls(*posts, "<loc>/blog/relative-post</loc>")))
    future = "<lastmod>2025-01-01</lastmod>"
    s.add("/news.xml", xml(urls(loc(s, "/news/today", future), loc(s, "/blog/post-3"))))
    s.add("/old-sitemap.xml", status(404))


async def report_of(
    aiohttp_server: AiohttpServer, tmp_path: Path, build: Callable[[Served], None]
) -> tuple[str, list[sr.Finding]]:
    """Check the site ``build`` makes and write its report page; its file URL and findings."""
    s = await serve(aiohttp_server)
    build(s)
    checker = sr.Checker(sr.CheckOptions(now=NOW))
    async with sr.SitemapReader(FAST) as reader:
        findings = [f async for f in reader.check(s.a("/"), checker=checker)]
    page = tmp_path / "report.html"
    page.write_text(
        render_report(checker, findings, [s.a("/")], datetime.now(timezone.utc)), "utf-8"
    )
    return page.as_uri(), findings


@needs_chromium
@pytest.mark.parametrize("width", [400, 1280])
async def test_report_fits_phone_and_desk(
    aiohttp_server: AiohttpServer, tmp_path: Path, width: int
) -> None:
    url, findings = await report_of(aiohttp_server, tmp_path, shop)
    async with chromium() as endpoint:
        load = await open_page(endpoint, url, _LAYOUT, width=width, full=True)
    (tmp_path / f"report-{width}.png").write_bytes(load.screenshot)  # to look at
    assert load.console == [] and load.errors == []
    data = json.loads(load.value)
    assert data["viewport"] == width

    # Nothing scrolls sideways: not the page, and no element sticks out or overflows its box.
    assert data["width"] <= width
    assert data["outside"] == [] and data["overflowing"] == []

    # One month of 30,412 beside months of 3 to 12: a log scale, said in the caption, on
    # which the smallest month is still a bar to see and a bigger month a taller bar.
    months = {b["label"]: b for b in data["months"]}
    assert months["2024-05"]["value"] == PRODUCTS and months["2023-08"]["value"] == 0
    assert data["scale"] == "log" and "log scale" in data["caption"]
    assert months["2023-06"]["height"] >= 10, "the month of 3 lastmods is not visible"
    assert months["2023-08"]["height"] == 0
    drawn = sorted((b["value"], b["height"]) for b in data["months"])
    assert [h for _, h in drawn] == sorted(h for _, h in drawn)

    # The sitemaps have different numbers of findings: the chart is drawn.
    assert data["findingsChart"] == 1 and data["findingsNote"] == ""
    assert len({f.url for f in findings}) >= 3

    documents = data["documents"]
    assert len(documents) >= 3
    rows = [row for table in documents for row in table]
    if width == 1280:
        # One set of columns: every row of every document's table has its cells at the
        # same places and widths, so the tables line up down the page.
        assert data["codesHead"] != "none"
        assert all(len(row) == 4 for row in rows) and len({str(row) for row in rows}) == 1
    else:
        # A phone: no table head, each row a card, its message under its badge and code.
        assert data["codesHead"] == "none"
        for row in rows:
            (badge_left, _), *_, (message_left, message_width) = row
            assert message_left == badge_left and message_width > width * 0.6


def equal_findings(s: Served) -> None:
    """Two sitemaps with one finding each (a relative URL in both)."""
    s.add("/robots.txt", text(f"Sitemap: {s.a('/index.xml')}\n"))
    s.add("/index.xml", xml(sitemapindex(s.a("/a.xml"), s.a("/b.xml"))))
    for name in ("a", "b"):
        s.add(f"/{name}.xml", xml(urls(loc(s, f"/{name}/1"), f"<loc>/{name}/relative</loc>")))


@needs_chromium
async def test_report_leaves_out_equal_findings_chart(
    aiohttp_server: AiohttpServer, tmp_path: Path
) -> None:
    """Bars of 1 beside bars of 1 say nothing: the chart gives way to a sentence."""
    url, findings = await report_of(aiohttp_server, tmp_path, equal_findings)
    assert sorted(Counter(f.url for f in findings).values()) == [1, 1]
    async with chromium() as endpoint:
        load = await open_page(endpoint, url, _LAYOUT, width=400)
    data = json.loads(load.value)
    assert data["findingsChart"] == 0
    assert data["findingsNote"] == "2 documents have 1 finding each: see Findings by document."
    assert data["width"] <= 400 and data["outside"] == [] and data["overflowing"] == []


def test_report_names_a_few_sources_in_its_title() -> None:
    """A check of 60 files: the heading names the first and counts the rest, which are
    listed under it (a heading of 60 paths would fill a phone's first screens)."""
    checker = sr.Checker(sr.CheckOptions(now=NOW))
    checker.close()
    sources = [f"/srv/sitemaps/part-{i}.xml" for i in range(60)]
    page = render_report(checker, [], sources, NOW)
    assert "<h1>Sitemap check: /srv/sitemaps/part-0.xml and 59 more</h1>" in page
    assert "<summary>60 sources</summary>" in page
    assert all(f'<span class="url">{source}</span>' in page for source in sources)
    few = render_report(checker, [], sources[:3], NOW)
    assert "<h1>Sitemap check: " + ", ".join(sources[:3]) + "</h1>" in few
    assert "sources</summary>" not in few


def site(s: Served) -> None:
    """An index over three sitemaps of different sizes, lastmods over several months, and
    faults of each severity."""
    s.add("/robots.txt", text(f"Sitemap: {s.a('/index.xml')}\n"))
    s.add("/index.xml", xml(sitemapindex(*(s.a(f"/s{i}.xml") for i in range(3)))))
    months = ["2024-01-15", "2024-03-02", "2024-03-20", "2024-04-10"]
    s.add(
        "/s0.xml",
        xml(urls(*(loc(s, f"/a{i}", f"<lastmod>{months[i % 4]}</lastmod>") for i in range(40)))),
    )
    s.add("/s1.xml", xml(urls(*(loc(s, f"/b{i}") for i in range(10)), "<loc>/relative</loc>")))
    s.add("/s2.xml", xml(urls(loc(s, "/c", "<priority>7</priority>"), loc(s, "/a1"))))


def proportional(bars: list[dict[str, float]], size: str) -> None:
    """Each bar's drawn size is to the largest's as its value is to the largest value."""
    top = max(bars, key=lambda b: b["value"])
    for bar in bars:
        assert bar[size] == pytest.approx(top[size] * bar["value"] / top["value"], rel=0.02)


@needs_chromium
async def test_report_page_in_chromium(aiohttp_server: AiohttpServer, tmp_path: Path) -> None:
    s = await serve(aiohttp_server)
    site(s)
    checker = sr.Checker(sr.CheckOptions(now=NOW))
    async with sr.SitemapReader(FAST) as reader:
        findings = [f async for f in reader.check(s.a("/"), checker=checker)]
    page = tmp_path / "report.html"
    page.write_text(
        render_report(checker, findings, [s.a("/")], datetime.now(timezone.utc)), "utf-8"
    )
    url = page.as_uri()

    async with chromium() as endpoint:
        load = await open_page(endpoint, url, _CHARTS, width=412)

    assert load.requests == [url], "the page asked for something beyond its own file"
    assert load.console == [] and load.errors == []

    data = json.loads(load.value)
    assert data["svgs"] == 3
    assert data["width"] <= data["viewport"], "the page is wider than a phone"
    assert data["errors"] == sum(f.severity is sr.Severity.ERROR for f in findings) > 0

    # lastmods by month: a bar per month from January to April 2024, empty February included.
    lastmod = data["charts"]["lastmod"]
    assert [(b["label"], b["value"]) for b in lastmod] == [
        ("2024-01", 10),
        ("2024-02", 0),
        ("2024-03", 20),
        ("2024-04", 10),
    ]
    proportional(lastmod, "height")

    # URLs per sitemap: the entries each document delivered.
    urls_bars = {b["label"]: b["value"] for b in data["charts"]["urls"]}
    assert urls_bars == {s.a("/s0.xml"): 40, s.a("/s1.xml"): 10, s.a("/s2.xml"): 2}
    proportional(data["charts"]["urls"], "width")

    # Findings per sitemap, stacked by severity: what the findings say.
    expected = Counter((f.url, f.severity.value) for f in findings)
    drawn = {(b["label"], b["kind"]): b["value"] for b in data["charts"]["findings"]}
    assert drawn == dict(expected)
    assert all(b["width"] > 0 for b in data["charts"]["findings"])

    colours = png_colours(load.screenshot)
    assert len(colours) > 10, f"the screenshot has {len(colours)} colours"


def test_png_reader_counts_colours() -> None:
    """The PNG reader itself: a one-colour image is one colour, a striped one two."""
    import struct
    import zlib

    def png(rows: list[bytes], width: int) -> bytes:
        def chunk(kind: bytes, body: bytes) -> bytes:
            return struct.pack(">I", len(body)) + kind + body + b"\0\0\0\0"

        head = struct.pack(">IIBBBBB", width, len(rows), 8, 2, 0, 0, 0)
        raw = b"".join(b"\x02" + row for row in rows)  # filter "Up" on every row
        return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", head) + chunk(b"IDAT", zlib.compress(raw))

    white = bytes([255, 255, 255]) * 4
    assert png_colours(png([white, bytes(12)], 4)) == {b"\xff\xff\xff"}  # Up: same as above
    assert len(png_colours(png([white, bytes([1, 0, 0]) * 4], 4))) == 2


# The sampled pages' section, read back from the page as laid out.
_SAMPLE = """
JSON.stringify({
  width: document.documentElement.scrollWidth,
  drawn: document.querySelector("#sample-drawn").textContent,
  rows: [...document.querySelectorAll("#sample tbody tr")].map(tr =>
    [...tr.children].map(td => td.textContent)),
  visible: [...document.querySelectorAll("#sample tbody td")].every(td =>
    td.getBoundingClientRect().width > 0 && td.getBoundingClientRect().right <= innerWidth),
})
"""


def sampled_site(s: Served) -> None:
    """Eight listed pages: two redirect, one answers 404, one is noindex, four are fine."""
    page = "<html><head><title>p</title>{}</head><body></body></html>"
    s.add("/robots.txt", text(f"Sitemap: {s.a('/sitemap.xml')}\n"))
    paths = [f"/p{i}" for i in range(8)]
    s.add("/sitemap.xml", xml(urls(*(loc(s, p) for p in paths))))
    for path in paths[4:]:
        s.add(path, html(page.format("")))
    s.add("/p0", redirect("/p4"))
    s.add("/p1", redirect("/p5", 302))
    s.add("/p2", status(404))
    s.add("/p3", html(page.format('<meta name="robots" content="noindex">')))


@needs_chromium
@pytest.mark.parametrize(("sample", "width"), [(8, 400), (4, 1280)])
async def test_report_shows_the_sampled_pages(
    aiohttp_server: AiohttpServer, tmp_path: Path, sample: int, width: int
) -> None:
    """A section for --sample: what was drawn and fetched, a row per finding with its pages
    and share (exact when every listed URL was fetched, else Wilson's interval), laid out
    inside a phone's width and a desk's."""
    s = await serve(aiohttp_server)
    sampled_site(s)
    checker = sr.Checker(sr.CheckOptions(now=NOW, sample=sample, seed=3))
    async with sr.SitemapReader(FAST) as reader:
        findings = [f async for f in reader.check(s.a("/"), checker=checker)]
    page = tmp_path / "report.html"
    page.write_text(
        render_report(checker, findings, [s.a("/")], datetime.now(timezone.utc)), "utf-8"
    )
    async with chromium() as endpoint:
        load = await open_page(endpoint, page.as_uri(), _SAMPLE, width=width)
    assert load.console == [] and load.errors == []
    data = json.loads(load.value)
    assert data["width"] <= width and data["visible"]
    assert data["drawn"] == f"{sample} of 8 listed URLs drawn (seed 3), {sample} fetched."
    assert checker.sample is not None
    expected = [
        [
            sr.CODES[line.code].severity.value,
            line.code,
            line.name,
            str(line.hits),
            f"{line.share * 100:.1f}%",
            "exact: every listed URL was fetched"
            if sample == 8
            else f"about {line.share * 100:.1f}% ({line.low * 100:.1f}% to {line.high * 100:.1f}%)",
        ]
        for line in checker.sample.lines
    ]
    assert data["rows"] == expected
    if sample == 8:  # every page: the counts are the site's
        assert [(r[1], r[3]) for r in data["rows"]] == [("S701", "2"), ("S702", "1"), ("S705", "1")]
