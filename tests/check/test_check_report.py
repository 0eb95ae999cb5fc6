"""The report page of ``check --report``, opened in a real headless Chromium: it loads with no
console message and no request beyond the file, its charts are drawn from the data, it fits
a phone's width, and its screenshot is a picture (more than one colour)."""

from __future__ import annotations

import json
import os
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

import pytest
from pytest_aiohttp.plugin import AiohttpServer

import sitemap_reader as sr
from sitemap_reader._check._report import render_report
from tests.support.browser import CHROMIUM, chromium, open_page, png_colours
from tests.support.check import NOW, loc, urls
from tests.support.http_site import FAST, Served, serve, sitemapindex, text, xml

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
        load = await open_page(endpoint, url, _CHARTS)

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
