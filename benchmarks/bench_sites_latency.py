"""Many small sites that answer slowly: sites/s of ``dump --sites``, ``read_sites`` and Scrapy.

SITES small sites (10,000), each on a port of its own on 127.0.0.1 (one origin, one
robots.txt, as in ``bench_sites.py``): robots.txt -> one urlset of URLS URLs (20). Every
response waits LATENCY seconds (0.1) before it is sent, as a far server would. The
server is a child process, stopped by its PID at the end.

Each reader runs in a fresh child process, with the same start URLs (each site's
robots.txt, or its root for the reader, which asks robots.txt first) and the same
politeness: at most PER_HOST requests in flight to one host (2), no delay:

(a) ``sitemap-reader dump --sites FILE --per-host 2`` (txt to /dev/null): one process, one
    walk, its default 16 requests in flight in all;
(b) ``read_sites(per_host=2)`` on a ``LocalCluster`` of WORKERS processes (2) of THREADS
    threads (4), each partition's walk 16 requests in flight in all;
(c) Scrapy's ``SitemapSpider`` (``sitemap_urls`` the robots.txt URLs), counting the pages
    and requesting none, ``CONCURRENT_REQUESTS`` 16 (``--scrapy-concurrency``) and
    ``CONCURRENT_REQUESTS_PER_DOMAIN`` 2. Scrapy keys its per-domain slots by host name alone, which is 127.0.0.1 for every
    site here: a downloader middleware keys them by ``host:port``, as the reader does, so
    each site is a host of its own to both.

    python benchmarks/bench_sites_latency.py
    python benchmarks/bench_sites_latency.py --sites 1000 --readers dump,dask   # a quick run
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_site  # found through the path set above
from _bytecode import compile_package
from bench_sites import _peak_rss_mb, cluster, wait_for_sites

PER_HOST = 2
CONCURRENCY = 16  # the reader's default (Limits.max_concurrency), and Scrapy's

# -- the sites (in their own process) ---------------------------------------------------------


def serve(sites: int, urls: int, latency: float, sites_file: str) -> None:
    """Serve ``sites`` small sites, one port each, every answer ``latency`` late."""
    from aiohttp import web

    bodies: dict[int, dict[str, bytes]] = {}

    async def handle(request: web.Request) -> web.Response:
        assert request.transport is not None
        port = request.transport.get_extra_info("sockname")[1]
        await asyncio.sleep(latency)
        body = bodies[port].get(request.path)
        if body is None:
            return web.Response(status=404, text="not found")
        kind = "text/plain" if request.path == "/robots.txt" else "application/xml"
        return web.Response(body=body, content_type=kind)

    async def main() -> None:
        app = web.Application()
        app.router.add_get("/{tail:.*}", handle)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        bases = []
        for n in range(sites):
            site = web.TCPSite(runner, "127.0.0.1", 0, backlog=1024)
            await site.start()
            port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
            base = f"http://127.0.0.1:{port}"
            locs = "".join(f"<url><loc>{base}/p/{n}/{i}</loc></url>\n" for i in range(urls))
            bodies[port] = {
                "/robots.txt": f"User-agent: *\nAllow: /\nSitemap: {base}/sitemap.xml\n".encode(),
                "/sitemap.xml": (
                    '<?xml version="1.0" encoding="UTF-8"?>\n'
                    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
                    f"{locs}</urlset>\n"
                ).encode(),
            }
            bases.append(base)
        temp = sites_file + ".part"  # whole or not at all: the parent waits for the file
        Path(temp).write_text("".join(f"{base}/\n" for base in bases))
        os.replace(temp, sites_file)
        while True:
            await asyncio.sleep(3600)

    asyncio.run(main())


# -- (b) read_sites and (c) Scrapy, each in its own process -----------------------------------


def run_dask(sites_file: str, workers: int, threads: int, sites_per_task: int) -> dict[str, Any]:
    """read_sites on a fresh LocalCluster; the entries counted on the workers."""
    import dataclasses

    from dask.base import compute

    from sitemap_reader import DEFAULT_CONFIG
    from sitemap_reader.dask import read_sites

    sites = Path(sites_file).read_text().split()
    limits = dataclasses.replace(DEFAULT_CONFIG.limits, per_host=PER_HOST)
    config = dataclasses.replace(DEFAULT_CONFIG, limits=limits)
    start = time.perf_counter()
    with cluster(workers, threads) as client:
        started = time.perf_counter()
        entries, problems = read_sites(
            sites, config=config, per_host=PER_HOST, sites_per_task=sites_per_task
        )
        counts, problem_rows = compute(entries.map_partitions(len), problems.map_partitions(len))
        done = time.perf_counter()
        worker_rss = sorted(client.run(_peak_rss_mb).values())
    return {
        "urls": int(counts.sum()),
        "problems": int(problem_rows.sum()),
        "cluster_s": started - start,
        "read_s": done - started,
        "worker_rss_mb": worker_rss,
    }


def run_scrapy(sites_file: str, concurrency: int) -> int:
    """Scrapy's SitemapSpider over the sites' robots.txt; the pages it counted."""
    from scrapy.crawler import AsyncCrawlerProcess
    from scrapy.http import Request
    from scrapy.spiders import SitemapSpider
    from scrapy.utils.httpobj import urlparse_cached

    pages = [0]

    class PortSlots:
        """Keys Scrapy's per-domain slot by host:port: each site is a host of its own."""

        def process_request(self, request: Request, spider: Any) -> None:
            parsed = urlparse_cached(request)
            request.meta.setdefault("download_slot", f"{parsed.hostname}:{parsed.port}")

    def count(self: Any, entries: Any) -> Any:
        if entries.type == "urlset":  # a Sitemap: its pages counted, none requested
            pages[0] += sum(1 for _ in entries)
            return
        yield from entries

    def parse(self: Any, response: Any) -> None:
        raise AssertionError("no page is downloaded")

    robots = [line + "robots.txt" for line in Path(sites_file).read_text().split()]
    settings = {
        "LOG_LEVEL": "ERROR",
        "ROBOTSTXT_OBEY": False,  # robots.txt is the spider's start: read once, as the reader
        "TELNETCONSOLE_ENABLED": False,
        "CONCURRENT_REQUESTS": concurrency,
        "CONCURRENT_REQUESTS_PER_DOMAIN": PER_HOST,
        "DOWNLOAD_DELAY": 0,
        "DOWNLOADER_MIDDLEWARES": {PortSlots: 50},
    }
    attributes = {"name": "bench", "sitemap_urls": robots, "sitemap_filter": count}
    attributes["parse"] = parse
    process = AsyncCrawlerProcess(settings=settings)
    process.crawl(type("Bench", (SitemapSpider,), attributes))
    process.start()
    return pages[0]


# -- measuring ------------------------------------------------------------------------------------


def measure(name: str, sites_file: str, args: argparse.Namespace) -> dict[str, Any]:
    if name == "dump":
        command = [sys.executable, "-m", "sitemap_reader", "dump", "--sites", sites_file]
        command += ["--format", "txt", "-o", os.devnull, "--no-progress"]
        command += ["--per-host", str(PER_HOST), "--deadline", "none"]
        command += ["--concurrency", str(CONCURRENCY)]
        reader = "dump --sites"
    elif name == "dask":
        command = [sys.executable, __file__, "--run-dask", sites_file]
        command += ["--workers", str(args.workers), "--threads", str(args.threads)]
        command += ["--sites-per-task", str(args.sites_per_task)]
        reader = f"read_sites, {args.workers} workers x {args.threads} threads"
    elif name == "scrapy":
        command = [sys.executable, __file__, "--run-scrapy", sites_file]
        command += ["--scrapy-concurrency", str(args.scrapy_concurrency)]
        reader = f"Scrapy SitemapSpider ({args.scrapy_concurrency} at once)"
    else:
        raise SystemExit(f"unknown reader {name}")
    run = bench_site.run_measured(command)
    result: dict[str, Any] = {"reader": reader, "seconds": run.seconds}
    result.update(peak_rss_mb=run.peak_rss_mb, cpu_s=run.cpu_seconds)
    lines = run.out.strip().splitlines()
    if name == "dump":
        result["urls"] = bench_site._found("sitemap-reader", run.out, run.err)
    elif name == "dask" and run.code == 0 and lines:
        result.update(json.loads(lines[-1]))
    elif name == "scrapy" and run.code == 0 and lines:
        result["urls"] = int(lines[-1])
    else:
        result["urls"] = 0
    if run.code != 0:
        result["error"] = run.err.strip()[-2000:]
    return result


def report(result: dict[str, Any], sites: int, expected: int) -> None:
    seconds = float(result["seconds"])
    urls = int(result["urls"])
    line = (
        f"{result['reader']:34} {seconds:8.2f} s {urls:>9,} URLs "
        f"{sites / seconds:8.1f} sites/s {float(result['peak_rss_mb']):7.1f} MB peak RSS"
    )
    if "read_s" in result:
        read = float(result["read_s"])
        workers = ", ".join(f"{mb:.0f}" for mb in result["worker_rss_mb"])
        line += (
            f" (cluster start {float(result['cluster_s']):.1f} s; read {read:.2f} s,"
            f" {sites / read:.1f} sites/s; workers {workers} MB)"
        )
    if urls != expected:
        line += f"  <- {urls:,} of {expected:,} URLs {result.get('error', '')}"
    print(line, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sites", type=int, default=10_000)
    parser.add_argument("--urls", type=int, default=20, help="URLs per site (20)")
    parser.add_argument("--latency", type=float, default=0.1, help="seconds per response")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=4, help="threads per worker (4)")
    parser.add_argument("--sites-per-task", type=int, default=64)
    parser.add_argument("--readers", default="dump,dask,scrapy")
    parser.add_argument(
        "--scrapy-concurrency", type=int, default=CONCURRENCY, help="CONCURRENT_REQUESTS (16)"
    )
    parser.add_argument("--json", metavar="FILE", help="also write the results here")
    parser.add_argument("--serve", metavar="SITES_FILE", help=argparse.SUPPRESS)
    parser.add_argument("--run-dask", metavar="SITES_FILE", help=argparse.SUPPRESS)
    parser.add_argument("--run-scrapy", metavar="SITES_FILE", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.sites, args.urls, args.latency, args.serve)
        return
    if args.run_dask:
        result = run_dask(args.run_dask, args.workers, args.threads, args.sites_per_task)
        print(json.dumps(result))
        return
    if args.run_scrapy:
        print(run_scrapy(args.run_scrapy, args.scrapy_concurrency))
        return
    compile_package()  # the readers' processes start from bytecode, as after pip install

    expected = args.sites * args.urls
    with tempfile.TemporaryDirectory(prefix="bench-sites-latency-") as temp:
        sites_file = os.path.join(temp, "sites.txt")
        command = [sys.executable, __file__, "--serve", sites_file, "--sites", str(args.sites)]
        command += ["--urls", str(args.urls), "--latency", str(args.latency)]
        server = subprocess.Popen(command)
        try:
            wait_for_sites(server, sites_file, 120)
            print(
                f"sites: {args.sites:,} x {args.urls} URLs on 127.0.0.1, {args.latency} s a "
                f"response, {PER_HOST} requests in flight a host at most",
                flush=True,
            )
            results = []
            for name in args.readers.split(","):
                result = measure(name, sites_file, args)
                results.append(result)
                report(result, args.sites, expected)
            if args.json:
                Path(args.json).write_text(json.dumps(results, indent=2))
        finally:
            os.kill(server.pid, 15)  # by its PID: the server is this run's child
            server.wait()


if __name__ == "__main__":
    main()
