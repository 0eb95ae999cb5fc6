"""What the library takes as a source, and what a local file turns out to be.

A source no run can read raises ValueError naming it, before any request; a ``file:`` URL is
the local file; a local robots.txt has its Sitemap: lines followed; a document with nothing
recognisable in it is no sitemap read; ``ReaderConfig.base_url`` gives local files a location.
"""

from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Iterable
from pathlib import Path

import pytest
from pytest_aiohttp.plugin import AiohttpServer

from sitemap_reader import (
    Entry,
    Event,
    Format,
    Problem,
    ReaderConfig,
    SitemapReader,
    SitemapVisited,
    Status,
    collect_urls_sync,
    walk_sync,
)
from sitemap_reader._base._sources import check_source, source_name
from sitemap_reader._core._formats._robots import looks_like_robots
from tests.support.helpers import kinds, parse
from tests.support.http_site import FAST, Site, serve, urlset, xml


def _locs(events: Iterable[Event]) -> list[str]:
    return [e.loc for e in events if isinstance(e, Entry)]


def _reports(events: Iterable[Event]) -> list[SitemapVisited]:
    return [e for e in events if isinstance(e, SitemapVisited)]


BAD = [
    ("http://[::1", "http://[::1: not a valid URL (Invalid IPv6 URL)"),
    ("http://", "http://: not a valid URL (it has no host)"),
    ("https://127.0.0.1:99999/", "https://127.0.0.1:99999/: not a valid URL (Port out of range"),
    ("ftp://host/sitemap.xml", "ftp://host/sitemap.xml: ftp: URLs are not read"),
    ("file://elsewhere/s.xml", "a file: URL on another host (elsewhere) is not read"),
    (
        "www.example.com",
        "www.example.com: no such file, and not a URL: did you mean https://www.example.com/?",
    ),
    ("example.com/sitemap.xml", "did you mean https://example.com/sitemap.xml?"),
    ("localhost:8080", "did you mean http://localhost:8080/?"),
    ("10.0.0.5/sitemap.xml", "did you mean http://10.0.0.5/sitemap.xml?"),
]


@pytest.mark.parametrize(("source", "message"), BAD, ids=[b[0] for b in BAD])
def test_collect_urls_sync_refuses_a_source_it_cannot_read(source: str, message: str) -> None:
    """Never a yarl traceback from deep inside, never [] in silence: a ValueError that names
    the source and the cause."""
    with pytest.raises(ValueError) as raised:
        collect_urls_sync(source)
    assert message in str(raised.value)


async def test_a_walk_refuses_a_bad_source_before_any_request(
    aiohttp_server: AiohttpServer,
) -> None:
    """Among good sources, one bad one stops the walk before anything is fetched."""
    s = await serve(aiohttp_server)
    s.add("/s.xml", xml(urlset(s.a("/1"))))
    async with SitemapReader(FAST) as reader:
        with pytest.raises(ValueError, match=re.escape("did you mean https://www.example.com/?")):
            async for _ in reader.walk(s.a("/s.xml"), "www.example.com"):
                pass
    assert s.site.hits == []


@pytest.mark.parametrize(
    "source", ["sitemap.xml", "sitemaps/today.xml", "1.5", "-", "C:\\sitemaps\\s.xml"]
)
def test_paths_that_are_no_host_pass_the_check(source: str) -> None:
    """A missing file that reads as a path is the walk's to report (unreadable), not refused."""
    check_source(source)


def test_a_path_object_is_always_a_path(tmp_path: Path) -> None:
    check_source(tmp_path / "www.example.com")


def test_a_file_url_is_the_local_file(tmp_path: Path) -> None:
    path = tmp_path / "a b.txt"
    path.write_text("https://www.example.com/1\n")

    assert source_name(path.as_uri()) == str(path)
    reports = _reports(walk_sync(path.as_uri()))
    assert [(r.url, r.status) for r in reports] == [(str(path), Status.OK)]
    assert collect_urls_sync(path.as_uri()) == ["https://www.example.com/1"]


# -- no sitemap: nothing recognisable in it ------------------------------------------------------


@pytest.mark.parametrize("seed", range(8))
def test_random_bytes_are_no_sitemap(seed: int) -> None:
    events = parse(random.Random(seed).randbytes(2048))
    assert kinds(events)[-1] in ("unknown-format", "not-well-formed", "gzip-error")
    assert len(kinds(events)) == 1  # one fatal problem, not a tally of every dropped line


def test_a_text_file_of_relative_paths_is_still_a_sitemap() -> None:
    """Relative paths are URLs the protocol does not allow, not noise: reported as such."""
    assert kinds(parse(b"/a\n/b\n")) == ["relative-loc"]


def test_a_walk_over_random_bytes_reads_no_sitemap(tmp_path: Path) -> None:
    path = tmp_path / "noise"
    path.write_bytes(random.Random(1).randbytes(2048))

    events = list(walk_sync(path))

    report = events[-1]
    assert isinstance(report, SitemapVisited)
    assert (report.status, report.format) == (Status.FAILED, Format.TEXT)
    assert [p.kind for p in report.problems] == ["unknown-format"]


# -- a local robots.txt ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("head", "robots"),
    [
        (b"User-agent: *\nDisallow: /\n", True),
        (b"\xef\xbb\xbf# comment\n\n  sitemap: https://x/s.xml\n", True),
        (b"Crawl-delay: 10\n", True),
        (b"https://example.com/a\nUser-agent: *\n", False),
        (b"<?xml version='1.0'?><urlset/>", False),
        (b"", False),
    ],
)
def test_looks_like_robots(head: bytes, robots: bool) -> None:
    assert looks_like_robots(head) is robots


@pytest.mark.parametrize("name", ["robots.txt", "ROBOTS.TXT", "rules.txt"])
async def test_a_local_robots_txt_is_followed(
    aiohttp_server: AiohttpServer, tmp_path: Path, name: str
) -> None:
    s = await serve(aiohttp_server, Site())
    s.add("/s.xml", xml(urlset(s.a("/1"), s.a("/2"))))
    path = tmp_path / name
    path.write_text(f"User-agent: *\nDisallow: /x\nSitemap: {s.a('/s.xml')}\n")

    async with SitemapReader(FAST) as reader:
        events = [e async for e in reader.walk(path)]

    assert _locs(events) == [s.a("/1"), s.a("/2")]
    reports = {r.url: r for r in _reports(events)}
    robots = reports[str(path)]
    assert (robots.format, robots.status, robots.children) == (Format.ROBOTS, Status.OK, 1)
    assert reports[s.a("/s.xml")].source == str(path)


async def test_a_local_robots_txt_resolves_relative_lines_against_the_base_url(
    aiohttp_server: AiohttpServer, tmp_path: Path
) -> None:
    s = await serve(aiohttp_server, Site())
    s.add("/s.xml", xml(urlset(s.a("/1"))))
    path = tmp_path / "robots.txt"
    path.write_text("Sitemap: /s.xml\n")
    config = dataclasses.replace(FAST, base_url=s.a("/robots.txt"))

    async with SitemapReader(config) as reader:
        events = [e async for e in reader.walk(path)]

    assert _locs(events) == [s.a("/1")]
    assert "relative-loc-resolved" in [e.kind for e in events if isinstance(e, Problem)]


# -- ReaderConfig.base_url ---------------------------------------------------------------------------


def test_base_url_resolves_and_scopes_a_local_file(tmp_path: Path) -> None:
    path = tmp_path / "s.xml"
    path.write_text(urlset("page", "https://site.example/dir/abs", "https://elsewhere.example/x"))
    base = "https://site.example/dir/sitemap.xml"

    assert collect_urls_sync(path) == [
        "https://site.example/dir/abs",
        "https://elsewhere.example/x",
    ]
    config = ReaderConfig(base_url=base, resolve_relative=True)
    entries = [e for e in walk_sync(path, config=config) if isinstance(e, Entry)]
    assert [(e.loc, e.sitemap) for e in entries] == [
        ("https://site.example/dir/page", base),
        ("https://site.example/dir/abs", base),
    ]


@pytest.mark.parametrize("base", ["site.example/s.xml", "ftp://site.example/", "http://"])
def test_base_url_must_be_an_http_url(base: str) -> None:
    with pytest.raises(ValueError, match="URL"):
        ReaderConfig(base_url=base)
