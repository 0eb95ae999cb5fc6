"""Scrapy's SitemapSpider against sitemap_reader.scrapy.SitemapReaderSpider, pages not downloaded.

The loopback site of ``bench_site.py`` (robots.txt -> index -> CHILDREN gzipped urlsets of
URLS_PER_CHILD URLs, served on 127.0.0.1 by a child process) is crawled by each spider in a
fresh process of its own, so its wall time and peak RSS (``os.wait4``) are its own:

    python benchmarks/bench_scrapy.py                   # 4 x 50,000 = 200,000 URLs
    python benchmarks/bench_scrapy.py --children 20     # 1,000,000 URLs

Both spiders run with the same Scrapy settings, in two modes:

* ``count``: ``sitemap_filter`` counts the page entries and keeps none, so no page request
  is made: what reading the sitemaps costs inside Scrapy.
* ``requests``: a ``Request`` for every page (the default rule, every page to ``parse``),
  counted and dropped by a scheduler that keeps no page request (sitemap requests it
  schedules as usual): each page request costs what Scrapy's engine and middlewares charge
  for it, and no page is downloaded.

* ``requests-one-by-one``: ``requests`` with ``sitemap_requests_in_bulk = False`` (the reader's
  spider only): its page requests yielded one at a time, as Scrapy takes start requests.

``sitemap-reader-txt`` (the command line, no Scrapy) is the reader alone, for reference.
``--runs`` picks the runs (``SitemapReaderSpider:requests-one-by-one`` is not run by default).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_site import measure, run_measured, site_served

RUNS = (
    "SitemapSpider:count",
    "SitemapReaderSpider:count",
    "SitemapSpider:requests",
    "SitemapReaderSpider:requests",
    "sitemap-reader-txt",
)
SETTINGS: dict[str, Any] = {
    "LOG_LEVEL": "ERROR",
    "ROBOTSTXT_OBEY": False,
    "TELNETCONSOLE_ENABLED": False,
}


def run_spider(run: str, url: str) -> int:
    """Crawl the site as ``run`` says (``SPIDER:MODE``); return how many pages it counted."""
    from scrapy.core.scheduler import Scheduler
    from scrapy.crawler import AsyncCrawlerProcess
    from scrapy.http import Request, Response
    from scrapy.spiders import SitemapSpider

    from sitemap_reader.scrapy import SitemapReaderSpider

    name, mode = run.split(":")
    pages = [0]

    class PageCounter(Scheduler):
        """Counts the page requests (callback ``parse``) and keeps none of them."""

        def enqueue_request(self, request: Request) -> bool:
            if getattr(request.callback, "__name__", None) == "parse":
                pages[0] += 1
                return True
            return super().enqueue_request(request)

    def parse(self: Any, response: Response) -> None:
        raise AssertionError("no page is downloaded")

    def count_sitemap_spider(self: Any, entries: Any) -> Any:
        if entries.type == "urlset":  # a Sitemap: its pages counted, none requested
            pages[0] += sum(1 for _ in entries)
            return
        yield from entries  # an index: its children followed

    def count_reader_spider(self: Any, entries: Any) -> Any:
        pages[0] += len(entries)  # a batch of Entry records (a list)
        return ()

    attributes: dict[str, Any] = {"name": "bench", "sitemap_urls": [url + "robots.txt"]}
    attributes["parse"] = parse
    settings = dict(SETTINGS)
    if name == "SitemapSpider":
        base: type[Any] = SitemapSpider
        counter = count_sitemap_spider
    elif name == "SitemapReaderSpider":
        base, counter = SitemapReaderSpider, count_reader_spider
    else:
        raise SystemExit(f"unknown spider {name}")
    if mode == "count":
        attributes["sitemap_filter"] = counter
    elif mode in ("requests", "requests-one-by-one"):
        settings["SCHEDULER"] = PageCounter
        if mode == "requests-one-by-one":
            if base is not SitemapReaderSpider:
                raise SystemExit("requests-one-by-one is a mode of SitemapReaderSpider only")
            attributes["sitemap_requests_in_bulk"] = False
    else:
        raise SystemExit(f"unknown mode {mode}")
    process = AsyncCrawlerProcess(settings=settings)
    process.crawl(type("Bench", (base,), attributes))
    process.start()
    return pages[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--children", type=int, default=4)
    parser.add_argument("--urls-per-child", type=int, default=50_000)
    parser.add_argument("--runs", default=",".join(RUNS))
    parser.add_argument("--run-spider", nargs=2, metavar=("NAME", "URL"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run_spider:
        print(run_spider(*args.run_spider))
        return

    expected = args.children * args.urls_per_child
    with site_served(args.children, args.urls_per_child) as url:
        print(f"site: {url} ({args.children} x {args.urls_per_child:,} = {expected:,} URLs)")
        for name in args.runs.split(","):
            print(row(name, url, expected), flush=True)


def row(name: str, url: str, expected: int) -> str:
    """Run ``name`` in a fresh process; its line of figures."""
    if name.startswith("sitemap-reader"):
        result: dict[str, Any] = measure(name, url, expected)
        seconds, found = float(result["seconds"]), int(result["urls"])
        rss, ok = float(result["peak_rss_mb"]), bool(result["ok"])
    else:
        run = run_measured([sys.executable, __file__, "--run-spider", name, url])
        lines = run.out.strip().splitlines()
        found = int(lines[-1]) if run.code == 0 and lines else 0
        seconds, rss, ok = run.seconds, run.peak_rss_mb, found == expected
        if run.code != 0:
            print(run.err[-2000:], file=sys.stderr)
    flag = "" if ok else f"  <- found {found:,} of {expected:,}"
    return (
        f"{name:28} {seconds:8.2f} s {found:>10,} URLs {found / seconds:>10,.0f} URLs/s "
        f"{rss:8.1f} MB peak RSS{flag}"
    )


if __name__ == "__main__":
    main()
