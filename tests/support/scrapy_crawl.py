"""A real Scrapy crawl with a SitemapReaderSpider, run as a child process by test_scrapy.py.

    python -m tests.support.scrapy_crawl OUT SOURCE [--state FILE] [--alternates] [--cache DIR]
        [--one-by-one] [--proxy URL] [--config-proxy URL] [--download-delay SECONDS]

Scrapy installs a process-wide reactor, so each crawl gets a process of its own. The spider
uses every hook a SitemapSpider user knows (rules with two callbacks, follow, filter) and
writes what it saw as JSON to OUT: each page response with its callback and the plain
values of its meta, the pages reported removed, every request a downloader middleware of the
project saw (sitemaps and pages alike), and the crawl's stats. Scrapy's DEFAULT_REQUEST_HEADERS
add ``X-Crawl``, which the server logs; ``--cache`` turns Scrapy's HTTP cache on. A spider
middleware notes each request ``start()`` yields (``started``): none when page requests go in
bulk, each of them with ``--one-by-one``. ``--proxy`` has a downloader middleware put
``meta['proxy']`` on every request; ``--config-proxy`` is the spider's
``sitemap_config.proxy`` (the sitemap requests' alone). ``--download-delay`` is Scrapy's
DOWNLOAD_DELAY, not randomised.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import AsyncIterator, Iterable, Iterator
from dataclasses import replace
from datetime import datetime
from typing import Any

from scrapy import Request
from scrapy.crawler import AsyncCrawlerProcess, Crawler
from scrapy.http import Response

from sitemap_reader import Entry, EntryChange, ReaderConfig, RetryPolicy, Timeouts
from sitemap_reader.scrapy import SitemapReaderSpider

# The SSRF guard stays on (allow_private is False): it trusts 127.0.0.1, the source's host,
# and refuses localhost, which only a document names.
# The header marks the sitemap requests, which the reader makes (the pages' are Scrapy's).
SITEMAP_HEADER = ("X-Sitemap-Run", "scrapy-1")
CONFIG = ReaderConfig(
    timeouts=Timeouts(connect=2.0, read=2.0, request=10.0, deadline=30.0),
    retry=RetryPolicy(backoff=0.01, max_backoff=0.05),
    headers=(SITEMAP_HEADER,),
)
FILTERED_BEFORE = datetime.fromisoformat("2020-01-01T00:00:00+00:00")
CRAWL_HEADER = ("X-Crawl", "scrapy-defaults")  # DEFAULT_REQUEST_HEADERS: on every request


class SeenMiddleware:
    """A downloader middleware of the project: notes each request it is handed."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> SeenMiddleware:
        return cls(crawler)

    def process_request(self, request: Request, spider: Any = None) -> None:
        seen = getattr(self.crawler.spider, "downloaded", None)
        if seen is not None:
            seen.append({"url": request.url, "page": request.callback is not None})


class ProxyMiddleware:
    """A downloader middleware of the project: every request through the PROXY setting."""

    def __init__(self, crawler: Crawler) -> None:
        self.proxy = crawler.settings.get("PROXY")

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ProxyMiddleware:
        return cls(crawler)

    def process_request(self, request: Request, spider: Any = None) -> None:
        if self.proxy:
            request.meta["proxy"] = self.proxy


class StartSeenMiddleware:
    """A spider middleware of the project: notes each request start() yields."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> StartSeenMiddleware:
        return cls(crawler)

    async def process_start(self, start: AsyncIterator[Any]) -> AsyncIterator[Any]:
        async for out in start:
            if isinstance(out, Request):
                self.crawler.spider.started.append(out.url)  # type: ignore[union-attr]
            yield out


class SiteSpider(SitemapReaderSpider):
    name = "site"
    sitemap_rules = ((r"/blog/", "parse_blog"), (r"/shop/", "parse"))  # /private/: none
    sitemap_follow = (r"/sitemap-(blog|shop)",)  # sitemap-archive.xml gives no requests
    sitemap_config = CONFIG

    def __init__(self, *args: Any, out: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.out = out
        self.pages: list[dict[str, Any]] = []
        self.removed: list[dict[str, Any]] = []
        self.downloaded: list[dict[str, Any]] = []  # SeenMiddleware's
        self.started: list[str] = []  # StartSeenMiddleware's

    def sitemap_filter(self, entries: Iterable[Entry]) -> Iterator[Entry]:
        for entry in entries:
            if entry.lastmod is None or entry.lastmod >= FILTERED_BEFORE:
                yield entry

    def sitemap_removed(self, change: EntryChange) -> Iterator[Any]:
        self.removed.append({"loc": change.loc, "change": change.change.value})
        return iter(())

    def parse(self, response: Response, **kwargs: Any) -> None:
        self._record(response, "parse")

    def parse_blog(self, response: Response) -> None:
        self._record(response, "parse_blog")

    def _record(self, response: Response, callback: str) -> None:
        meta = response.meta
        entry = meta["sitemap_entry"]
        lastmod = meta["sitemap_lastmod"]
        self.pages.append(
            {
                "url": response.url,
                "status": response.status,
                "callback": callback,
                "entry_type": type(entry).__name__,
                "entry_loc": entry.loc,
                "entry_lastmod_same": entry.lastmod == lastmod,
                "lastmod": None if lastmod is None else lastmod.isoformat(),
                "alternates": meta["sitemap_alternates"],
                "images": list(meta["sitemap_images"]),
                "image_titles": [image.title for image in entry.images],
                "sitemap": meta["sitemap_url"],
                "source": meta["sitemap_source"],
                "change": meta["sitemap_change"],
            }
        )

    def closed(self, reason: str) -> None:
        assert self.crawler.stats is not None
        stats = {
            k: v for k, v in self.crawler.stats.get_stats().items() if isinstance(v, int | str)
        }
        with open(self.out, "w", encoding="utf-8") as file:
            json.dump(
                {
                    "pages": self.pages,
                    "removed": self.removed,
                    "downloaded": self.downloaded,
                    "started": self.started,
                    "stats": stats,
                    "reason": reason,
                },
                file,
            )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("source")
    parser.add_argument("--state")
    parser.add_argument("--alternates", action="store_true")
    parser.add_argument("--cache")
    parser.add_argument("--one-by-one", action="store_true")
    parser.add_argument("--proxy")
    parser.add_argument("--config-proxy")
    parser.add_argument("--download-delay", type=float)
    args = parser.parse_args()
    settings: dict[str, Any] = {
        "LOG_LEVEL": "INFO",
        "ROBOTSTXT_OBEY": False,  # the pages' robots.txt is not what is tested here
        "TELNETCONSOLE_ENABLED": False,
        "CLOSESPIDER_TIMEOUT": 60,
        "DEFAULT_REQUEST_HEADERS": {"Accept": "*/*", CRAWL_HEADER[0]: CRAWL_HEADER[1]},
        # After the HTTP cache (900): it sees what reaches the network.
        # ProxyMiddleware before Scrapy's HttpProxyMiddleware (750), which reads meta['proxy'].
        "DOWNLOADER_MIDDLEWARES": {
            "tests.support.scrapy_crawl.ProxyMiddleware": 100,
            "tests.support.scrapy_crawl.SeenMiddleware": 950,
        },
        "PROXY": args.proxy,
        "SPIDER_MIDDLEWARES": {"tests.support.scrapy_crawl.StartSeenMiddleware": 500},
    }
    if args.cache:
        # A failure is not kept, or the reader's retry would be answered with it.
        settings.update(
            HTTPCACHE_ENABLED=True,
            HTTPCACHE_DIR=args.cache,
            HTTPCACHE_IGNORE_HTTP_CODES=[429, 500, 502, 503, 504],
        )
    if args.download_delay is not None:
        settings.update(DOWNLOAD_DELAY=args.download_delay, RANDOMIZE_DOWNLOAD_DELAY=False)
    process = AsyncCrawlerProcess(settings=settings)
    process.crawl(
        SiteSpider,
        out=args.out,
        sitemap_urls=[args.source],
        sitemap_state=args.state,
        sitemap_alternate_links=args.alternates,
        sitemap_requests_in_bulk=not args.one_by_one,
        sitemap_config=replace(CONFIG, proxy=args.config_proxy),
    )
    process.start()


if __name__ == "__main__":
    main()
