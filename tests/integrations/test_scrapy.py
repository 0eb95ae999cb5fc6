"""sitemap_reader.scrapy: real Scrapy crawls of a loopback site, sitemaps and pages served.

Each crawl runs ``tests/support/scrapy_crawl.py`` in a child process (Scrapy installs a reactor per
process) against a site served from a thread of this process on 127.0.0.1, so the test
sees every request the crawl made, sitemaps and pages alike, and can change the files
between two runs.
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("scrapy")

from tests.support.http_site import (
    Served,
    ThreadedServer,
    closed_port,
    gz_file,
    redirect,
    sequence,
    sitemapindex,
    status,
    text,
    xml,
)
from tests.support.scrapy_crawl import SITEMAP_HEADER

ROOT = Path(__file__).resolve().parents[2]
CRAWL_TIMEOUT = 120  # seconds; a crawl of this site takes about two

SITEMAP_HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
    'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" '
    'xmlns:xhtml="http://www.w3.org/1999/xhtml">\n'
)


def url(loc: str, lastmod: str | None = None, *, extra: str = "") -> str:
    last = f"<lastmod>{lastmod}</lastmod>" if lastmod else ""
    return f"<url><loc>{loc}</loc>{last}{extra}</url>\n"


def image(loc: str, title: str) -> str:
    return (
        f"<image:image><image:loc>{loc}</image:loc><image:title>{title}</image:title></image:image>"
    )


def alternate(hreflang: str, href: str) -> str:
    return f'<xhtml:link rel="alternate" hreflang="{hreflang}" href="{href}"/>'


@pytest.fixture
def served() -> Iterator[Served]:
    with ThreadedServer() as served:
        yield served


def serve_pages(served: Served, *paths: str) -> None:
    for path in paths:
        served.add(path, xml(f"<html><body>{path}</body></html>", content_type="text/html"))


def crawl(out: Path, source: str, *args: str) -> dict[str, Any]:
    """One Scrapy crawl in its own process; what its spider saw."""
    done = subprocess.run(
        [sys.executable, "-m", "tests.support.scrapy_crawl", str(out), source, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=CRAWL_TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert out.exists(), done.stderr[-3000:]
    result: dict[str, Any] = json.loads(out.read_text())
    assert result["reason"] == "finished", result
    result["log"] = done.stderr
    return result


def pages_by_url(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    pages = {p["url"]: p for p in result["pages"]}
    assert len(pages) == len(result["pages"]), "a page was requested twice"
    return pages


PAGES = ("/blog/a", "/de/blog/a", "/blog/b", "/blog/news", "/shop/1", "/shop/2")


def test_pages_meta_and_hooks(served: Served, tmp_path: Path) -> None:
    """robots.txt -> index -> children, read by the reader inside Scrapy's start(): every page
    the rules, follow and filter keep is requested once with its entry in meta, and nothing else."""
    a = served.a
    served.add(
        "/robots.txt",
        text(
            f"Sitemap: {a('/sitemap_index.xml')}\n"
            f"Sitemap: {a('/sitemap-news.xml')}\n"  # a leaf: sitemap_follow is not applied
            f"Sitemap: {served.b('/sitemap-guarded.xml')}\n"  # refused by the SSRF guard
        ),
    )
    served.add(
        "/sitemap_index.xml",
        xml(
            sitemapindex(
                a("/sitemap-blog.xml"), a("/sitemap-shop.xml.gz"), a("/sitemap-archive.xml")
            )
        ),
    )
    blog = (
        SITEMAP_HEAD
        + url(
            a("/blog/a"),
            "2024-05-01T10:00:00+02:00",
            extra=image(a("/img/a.jpg"), "A photo")
            + alternate("de", a("/de/blog/a"))
            + alternate("x-default", a("/blog/a")),
        )
        + url(a("/blog/b"))
        + url(a("/blog/old"), "2019-06-01")  # dropped by sitemap_filter
        + url(a("/private/x"), "2024-05-01")  # no rule matches
        + url(served.b("/blog/cross"), "2024-05-01")  # another host: out of scope
        + "</urlset>\n"
    )
    served.add("/sitemap-blog.xml", xml(blog))
    shop = SITEMAP_HEAD + url(a("/shop/1"), "2024-04-01") + url(a("/shop/2")) + "</urlset>\n"
    served.add("/sitemap-shop.xml.gz", gz_file(shop))
    served.add("/sitemap-news.xml", xml(SITEMAP_HEAD + url(a("/blog/news")) + "</urlset>\n"))
    served.add("/sitemap-archive.xml", xml(SITEMAP_HEAD + url(a("/blog/archived")) + "</urlset>\n"))
    served.add(
        "/sitemap-guarded.xml", xml(SITEMAP_HEAD + url(served.b("/blog/guarded")) + "</urlset>\n")
    )
    serve_pages(served, *PAGES)

    result = crawl(tmp_path / "out.json", a("/"), "--alternates")
    pages = pages_by_url(result)

    assert set(pages) == {
        a("/blog/a"),
        a("/de/blog/a"),
        a("/blog/b"),
        a("/blog/news"),
        a("/shop/1"),
        a("/shop/2"),
    }
    for never in ("/blog/old", "/private/x", "/blog/archived", "/blog/cross", "/blog/guarded"):
        assert served.count(never) == 0, never
    # The guarded sitemap was refused by the SSRF guard before any request reached it.
    assert served.count("/sitemap-guarded.xml") == 0
    assert result["stats"]["sitemap_reader/problems/private-address"] == 1
    # Sitemaps were read by the reader, once each, through Scrapy's downloader.
    sitemaps = ("/robots.txt", "/sitemap_index.xml", "/sitemap-blog.xml", "/sitemap-news.xml")
    for path in sitemaps:
        assert served.count(path) == 1, path
    # As with SitemapSpider, a sitemap sitemap_follow refuses is not downloaded at all.
    assert served.count("/sitemap-archive.xml") == 0
    assert result["stats"]["sitemap_reader/sitemaps/skipped"] == 1
    # sitemap_config's request settings reach every sitemap request; the pages are Scrapy's.
    for hit in served.site.hits:
        sent = hit.headers.get(SITEMAP_HEADER[0])
        assert sent == (None if hit.path in PAGES else SITEMAP_HEADER[1]), hit.path
    assert pages[a("/blog/news")]["sitemap"] == a("/sitemap-news.xml")
    assert result["stats"]["sitemap_reader/requests"] == len(pages)
    fetched = [d["url"] for d in result["downloaded"] if not d["page"]]
    assert sorted(fetched) == sorted(
        a(p)
        for p in (*sitemaps, "/sitemap-shop.xml.gz")  # not the refused archive
    )
    assert result["stats"]["downloader/request_count"] == len(pages) + len(fetched)
    assert result["started"] == []  # handed to the scheduler in bulk, not yielded one by one

    blog_a = pages[a("/blog/a")]
    assert blog_a["callback"] == "parse_blog"
    assert blog_a["status"] == 200
    assert blog_a["entry_type"] == "Entry"
    assert blog_a["entry_loc"] == a("/blog/a")
    assert blog_a["lastmod"] == "2024-05-01T10:00:00+02:00"
    assert blog_a["entry_lastmod_same"]
    assert blog_a["alternates"] == {"de": a("/de/blog/a"), "x-default": a("/blog/a")}
    assert blog_a["images"] == [a("/img/a.jpg")]
    assert blog_a["image_titles"] == ["A photo"]
    assert blog_a["sitemap"] == a("/sitemap-blog.xml")
    assert blog_a["source"] == a("/")
    assert blog_a["change"] is None
    # An alternate is requested under the rules too, with the entry it belongs to.
    de = pages[a("/de/blog/a")]
    assert de["callback"] == "parse_blog"
    assert de["entry_loc"] == a("/blog/a")
    assert pages[a("/blog/b")]["lastmod"] is None
    shop1 = pages[a("/shop/1")]
    assert shop1["callback"] == "parse"
    assert shop1["lastmod"] == "2024-04-01T00:00:00+00:00"
    assert shop1["sitemap"] == a("/sitemap-shop.xml.gz")
    assert result["removed"] == []


def test_state_requests_only_new_and_modified_pages(served: Served, tmp_path: Path) -> None:
    """With sitemap_state, a second crawl after the files changed requests only the new and
    modified pages (with their whole entries in meta) and reports the removed one; a third,
    with nothing changed, requests nothing."""
    a = served.a
    state = tmp_path / "state" / "site.sqlite"  # its directory does not exist yet

    def publish(blog_lastmod: str, *blog_urls: str) -> None:
        served.add(
            "/sitemap_index.xml",
            xml(
                sitemapindex(
                    (a("/sitemap-blog.xml"), blog_lastmod),
                    (a("/sitemap-shop.xml.gz"), "2024-01-01"),
                )
            ),
        )
        served.add("/sitemap-blog.xml", xml(SITEMAP_HEAD + "".join(blog_urls) + "</urlset>\n"))

    served.add("/sitemap-shop.xml.gz", gz_file(SITEMAP_HEAD + url(a("/shop/1")) + "</urlset>\n"))
    serve_pages(served, "/blog/a", "/blog/b", "/blog/c", "/shop/1")
    publish("2024-05-01", url(a("/blog/a"), "2024-05-01"), url(a("/blog/b"), "2024-05-01"))

    first = crawl(tmp_path / "1.json", a("/sitemap_index.xml"), "--state", str(state))
    pages = pages_by_url(first)
    assert set(pages) == {a("/blog/a"), a("/blog/b"), a("/shop/1")}
    assert {p["change"] for p in pages.values()} == {"new"}
    assert pages[a("/blog/a")]["source"] == a("/sitemap_index.xml")
    assert first["removed"] == []
    assert state.exists()

    # The blog changes: a removed, b modified, c new (with an image). The shop does not.
    publish(
        "2024-05-02",
        url(a("/blog/b"), "2024-05-02T08:00:00+00:00"),
        url(a("/blog/c"), "2024-05-02", extra=image(a("/img/c.jpg"), "C")),
    )
    second = crawl(tmp_path / "2.json", a("/sitemap_index.xml"), "--state", str(state))
    pages = pages_by_url(second)
    assert set(pages) == {a("/blog/b"), a("/blog/c")}
    assert pages[a("/blog/b")]["change"] == "modified"
    assert pages[a("/blog/b")]["lastmod"] == "2024-05-02T08:00:00+00:00"
    new = pages[a("/blog/c")]
    assert new["change"] == "new"
    assert new["callback"] == "parse_blog"
    assert new["images"] == [a("/img/c.jpg")]  # the whole entry, not just the change record
    assert new["image_titles"] == ["C"]
    assert new["sitemap"] == a("/sitemap-blog.xml")
    assert second["removed"] == [{"loc": a("/blog/a"), "change": "removed"}]
    # Its index lastmod did not move: not asked again (the recheck budget, 2% of the site's
    # bytes a run, covers no child yet).
    assert served.count("/sitemap-shop.xml.gz") == 1
    assert served.count("/blog/a") == served.count("/shop/1") == 1
    assert served.count("/blog/b") == 2

    third = crawl(tmp_path / "3.json", a("/sitemap_index.xml"), "--state", str(state))
    assert third["pages"] == []
    assert third["removed"] == []
    assert served.count("/blog/c") == 1


def test_the_docs_side_by_side_runs() -> None:
    """The two spiders of docs/scrapy.md (Scrapy's SitemapSpider, then SitemapReaderSpider) are code
    that runs: both define their spider, and the reader's filter keeps what it says."""
    import re
    from datetime import datetime, timezone

    from scrapy.spiders import SitemapSpider

    from sitemap_reader import Entry
    from sitemap_reader.scrapy import SitemapReaderSpider

    page = (ROOT / "docs" / "scrapy.md").read_text(encoding="utf-8")
    section = page.split("\n## ", 1)[0]  # the page's opening, before its first section
    before, after = re.findall(r"```python\n(.*?)```", section, re.DOTALL)[:2]
    spiders = []
    for code, base in ((before, SitemapSpider), (after, SitemapReaderSpider)):
        names: dict[str, Any] = {}
        exec(compile(code, "docs/scrapy.md", "exec"), names)  # noqa: S102 (the docs' own code)
        spiders.append(names["Shop"])
        assert issubclass(names["Shop"], base)
    old = Entry("https://www.example.com/product/1", datetime(2025, 6, 1, tzinfo=timezone.utc))
    new = Entry("https://www.example.com/product/2", datetime(2026, 2, 1, tzinfo=timezone.utc))
    kept = list(spiders[1].sitemap_filter(spiders[1].__new__(spiders[1]), [old, new, Entry("x")]))
    assert kept == [new]
    assert spiders[0].sitemap_rules == spiders[1].sitemap_rules


def test_sitemaps_go_through_scrapys_downloader(served: Served, tmp_path: Path) -> None:
    """Sitemaps are Scrapy requests: the project's downloader middleware sees each one,
    DEFAULT_REQUEST_HEADERS reach the server on them, a redirect is one request per hop (the
    reader follows it, not Scrapy's RedirectMiddleware), a 503 is retried by the reader, and
    Scrapy's HTTP cache answers them on the next crawl."""
    a = served.a
    served.add("/robots.txt", text(f"Sitemap: {a('/old-index.xml')}\n"))
    served.add("/old-index.xml", redirect(a("/sitemap_index.xml")))
    served.add("/sitemap_index.xml", xml(sitemapindex(a("/sitemap-blog.xml"))))
    blog = xml(SITEMAP_HEAD + url(a("/blog/a")) + "</urlset>\n")
    served.add("/sitemap-blog.xml", sequence(status(503, headers={"Retry-After": "0"}), blog))
    serve_pages(served, "/blog/a")
    sitemaps = ("/robots.txt", "/old-index.xml", "/sitemap_index.xml", "/sitemap-blog.xml")
    cache = tmp_path / "cache"

    first = crawl(tmp_path / "1.json", a("/"), "--cache", str(cache))

    assert set(pages_by_url(first)) == {a("/blog/a")}
    asked = [*sitemaps, "/sitemap-blog.xml", "/blog/a"]  # the 503, then the retry
    seen = [(d["url"], d["page"]) for d in first["downloaded"]]
    assert sorted(seen) == sorted((a(p), p == "/blog/a") for p in asked)
    for path in asked:
        assert served.count(path) == asked.count(path), path
        for headers in served.site.headers(path):
            assert headers.get("x-crawl") == "scrapy-defaults", path
    assert first["stats"]["downloader/request_count"] == len(asked)
    assert first["stats"]["sitemap_reader/sitemaps/ok"] >= 2

    second = crawl(tmp_path / "2.json", a("/"), "--cache", str(cache))

    assert set(pages_by_url(second)) == {a("/blog/a")}
    assert second["downloaded"] == []  # the cache, before the middleware, answered them all
    for path in asked:
        assert served.count(path) == asked.count(path), path


def test_page_requests_one_by_one_when_asked(served: Served, tmp_path: Path) -> None:
    """sitemap_requests_in_bulk = False: the same page requests, each yielded from start()
    through the spider middlewares' process_start."""
    a = served.a
    blog = SITEMAP_HEAD + url(a("/blog/a")) + url(a("/blog/b")) + "</urlset>\n"
    served.add("/sitemap-blog.xml", xml(blog))
    serve_pages(served, "/blog/a", "/blog/b")

    result = crawl(tmp_path / "out.json", a("/sitemap-blog.xml"), "--one-by-one")

    assert set(pages_by_url(result)) == {a("/blog/a"), a("/blog/b")}
    assert sorted(result["started"]) == [a("/blog/a"), a("/blog/b")]


def test_a_proxy_a_middleware_sets_carries_the_sitemaps(served: Served, tmp_path: Path) -> None:
    """meta['proxy'] set by a downloader middleware applies to the sitemap requests: they
    reach the proxy (here the site's own server on localhost, which answers a forward-proxy
    request as it would a direct one) with the proxy's credentials."""
    a = served.a
    served.add("/robots.txt", text(f"Sitemap: {a('/sitemap-blog.xml')}\n"))
    served.add("/sitemap-blog.xml", xml(SITEMAP_HEAD + url(a("/blog/a")) + "</urlset>\n"))
    serve_pages(served, "/blog/a")
    proxy = f"http://crawler:secret@localhost:{served.port}"

    result = crawl(tmp_path / "out.json", a("/"), "--proxy", proxy)

    assert set(pages_by_url(result)) == {a("/blog/a")}
    for path in ("/robots.txt", "/sitemap-blog.xml", "/blog/a"):
        (headers,) = served.site.headers(path)
        assert headers.get("proxy-authorization", "").startswith("Basic "), path


def test_a_refused_connection_through_scrapy_is_said_plainly(tmp_path: Path) -> None:
    """Twisted's refusal comes out as the reader's: the robots.txt problem names the URL,
    says the connection was refused and asks whether the address is right."""
    source = f"http://127.0.0.1:{closed_port()}/"

    result = crawl(tmp_path / "out.json", source)

    assert result["pages"] == []
    assert result["stats"]["sitemap_reader/problems/robots-unavailable"] == 1
    # One WARNING, the reader's logger's (the spider logs the problem itself at INFO).
    lines = [line for line in result["log"].splitlines() if "robots.txt" in line]
    (line,) = [line for line in lines if " WARNING: " in line]
    assert "[sitemap_reader] WARNING" in line, line
    assert [line for line in lines if " INFO: " in line], lines
    assert f"{source}robots.txt" in line
    assert "connection refused" in line
    assert "is the address right?" in line


async def test_a_scrapy_response_as_the_reader_reads_it() -> None:
    """A Scrapy response, whole, read as the transport protocol says: repeated headers joined,
    the length of the body as it arrived, the body in CHUNK pieces, and no peer for the guard
    when the response came through a proxy (its address is the proxy's)."""
    import ipaddress

    from scrapy import Request
    from scrapy.http import Response

    from sitemap_reader._io._http._response import CHUNK
    from sitemap_reader._io._http._scrapy import ScrapyResponse

    body = b"x" * (2 * CHUNK + 10)
    address = ipaddress.ip_address("127.0.0.1")

    def response(meta: dict[str, str]) -> ScrapyResponse:
        headers = [("Vary", "Accept"), ("Vary", "Cookie"), ("Content-Length", "99")]
        return ScrapyResponse(
            Response(
                "http://127.0.0.1/s.xml",
                status=200,
                headers=headers,
                body=body,
                request=Request("http://127.0.0.1/s.xml", meta=meta),
                ip_address=address,
            )
        )

    direct = response({})
    assert direct.status == 200
    assert direct.reason == "OK"
    assert direct.headers["vary"] == "Accept, Cookie"
    assert direct.headers["Content-Length"] == str(len(body))
    pieces = [piece async for piece in direct.chunks()]
    assert [len(p) for p in pieces] == [CHUNK, CHUNK, 10]
    assert b"".join(pieces) == body
    assert direct.peer == "127.0.0.1"
    assert response({"proxy": "http://localhost:3128"}).peer is None


def test_sitemap_configs_proxy_becomes_the_sitemap_requests_meta_proxy(
    served: Served, tmp_path: Path
) -> None:
    """sitemap_config.proxy goes to Scrapy as each sitemap request's meta['proxy'] (Scrapy's
    HttpProxyMiddleware sends its credentials), and to no page request."""
    a = served.a
    served.add("/robots.txt", text(f"Sitemap: {a('/sitemap-blog.xml')}\n"))
    served.add("/sitemap-blog.xml", xml(SITEMAP_HEAD + url(a("/blog/a")) + "</urlset>\n"))
    serve_pages(served, "/blog/a")
    proxy = f"http://crawler:secret@localhost:{served.port}"

    result = crawl(tmp_path / "out.json", a("/"), "--config-proxy", proxy)

    assert set(pages_by_url(result)) == {a("/blog/a")}
    for path in ("/robots.txt", "/sitemap-blog.xml"):
        (headers,) = served.site.headers(path)
        assert headers.get("proxy-authorization", "").startswith("Basic "), path
    (page,) = served.site.headers("/blog/a")
    assert "proxy-authorization" not in page


def test_scrapys_download_delay_paces_the_sitemaps(served: Served, tmp_path: Path) -> None:
    """Sitemaps wait in Scrapy's download slot as pages do: with DOWNLOAD_DELAY, the starts
    of consecutive requests to the host (sitemaps among them) are at least that far apart.
    A lower bound only: the server's arrival times, less a margin for one request's latency."""
    a = served.a
    children = [f"/sitemap-blog-{i}.xml" for i in range(3)]  # followed by the test spider
    served.add("/robots.txt", text(f"Sitemap: {a('/sitemap_index.xml')}\n"))
    served.add("/sitemap_index.xml", xml(sitemapindex(*(a(c) for c in children))))
    for i, child in enumerate(children):
        served.add(child, xml(SITEMAP_HEAD + url(a(f"/blog/{i}")) + "</urlset>\n"))
    serve_pages(served, *(f"/blog/{i}" for i in range(3)))
    delay = 0.4

    result = crawl(tmp_path / "paced.json", a("/"), "--download-delay", str(delay))

    assert len(pages_by_url(result)) == 3
    starts = sorted(hit.at for hit in served.site.hits)
    sitemap_paths = ("/robots.txt", "/sitemap_index.xml", *children)
    asked = sorted(hit.path for hit in served.site.hits if hit.path in sitemap_paths)
    assert asked == sorted(sitemap_paths)
    assert len(starts) == 8  # five sitemaps and three pages, all in one slot
    gaps = [later - earlier for earlier, later in itertools.pairwise(starts)]
    assert min(gaps) >= delay - 0.15, gaps
