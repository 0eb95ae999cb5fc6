"""End to end: a loopback site read through `sitemap-reader dump` and the reference readers.

The site is robots.txt -> index -> CHILDREN gzipped urlsets of URLS_PER_CHILD URLs each
(1,000,000 URLs by default), served by an aiohttp server on 127.0.0.1 in a child process.
Each reader runs in a fresh child process of its own, so its wall time and peak RSS (from
``os.wait4``) are its own, measured in the same run on the same machine:

    python benchmarks/bench_site.py                      # 20 x 50,000 URLs
    python benchmarks/bench_site.py --children 100       # 5,000,000 URLs (memory flatness)
    python benchmarks/bench_site.py --readers sitemap-reader,floor
    python benchmarks/bench_site.py --shape mixed        # alternates, image titles (_generate)
    python benchmarks/bench_site.py --load 2             # while 2 busy processes hold the cores
    python benchmarks/bench_site.py --shape mixed --robots-rules \
        --readers sitemap-reader,sitemap-reader-obey     # the cost of --robots obey

``--shape`` picks the children's shape from ``_generate.SHAPES``: ``plain`` (the default),
``mixed`` (hreflang alternates, image titles and captions, changefreq and priority on some:
what multilingual and image-rich sites serve) or ``cdata`` (All in One SEO's CDATA shape).

Readers: ``sitemap-reader`` (the CLI, jsonl to /dev/null), ``sitemap-reader-workers``
(the same with ``--workers auto``: the children parsed in worker processes, one a core),
``sitemap-reader-txt``, ``sitemap-reader-obey`` (``--robots obey``: with ``--robots-rules``
the site's robots.txt is :data:`RULES`, which disallows some of its URLs; the URLs it counted
as disallowed count as found),
``floor`` (a sequential urllib + gzip + lxml loop reading only <loc>: no checks, no
output), and, when the ``bench`` extra is installed, ``usp`` (ultimate-sitemap-parser),
``advertools``, ``scrapy`` (a SitemapSpider that counts and follows no page) and
``trafilatura``. Every reader must report the URL count it found; a reader that finds far
fewer URLs than the site has is flagged, so nothing is timed doing nothing.

``--load N`` keeps N processes spinning on the CPU while the readers run (stopped at the
end): a machine whose cores other jobs hold, as a shared one's often are.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _bytecode import compile_package  # found through the path set above

READERS = (
    "sitemap-reader",
    "sitemap-reader-workers",
    "sitemap-reader-txt",
    "sitemap-reader-obey",
    "floor",
    "usp",
    "advertools",
    "scrapy",
    "trafilatura",
)


# -- the site ------------------------------------------------------------------------------

# --robots-rules: a robots.txt as sites write them: WordPress's admin, internal search, a tag
# archive, file types ("*" and "$"), and sections of the site left out, some of which hold
# generated pages (each child's pages are under /cN/: the garden aisle of c1's shop but its
# lenses, c2's v1 reference docs, c3's blog of 2019, all of c4), and a group for another bot.
RULES = """User-agent: *
Disallow: /wp-admin/
Allow: /wp-admin/admin-ajax.php
Disallow: /search/
Disallow: /*?s=
Disallow: /*/tag/
Disallow: /*.pdf$
Disallow: /c1/shop/garden/
Allow: /c1/shop/garden/desk-lens-
Disallow: /c2/docs/v1/reference/
Disallow: /c3/blog/2019/
Disallow: /c4/

User-agent: Googlebot
Disallow: /private/
"""


def serve(
    children: int, per_child: int, port_file: str, shape: str = "plain", rules: bool = False
) -> None:
    """Run the loopback site until killed (in its own process)."""
    from _generate import SHAPES, gzipped
    from aiohttp import web

    async def main() -> None:
        app = web.Application()
        bodies: dict[int, bytes] = {}
        base = {"url": ""}

        async def robots(request: web.Request) -> web.Response:
            head = RULES if rules else "User-agent: *\nAllow: /\n"
            return web.Response(text=f"{head}Sitemap: {base['url']}/sitemap_index.xml\n")

        async def index(request: web.Request) -> web.Response:
            kids = "".join(
                f"<sitemap><loc>{base['url']}/sitemap-{i}.xml.gz</loc>"
                f"<lastmod>2026-11-0{1 + i % 9}T00:00:00+00:00</lastmod></sitemap>\n"
                for i in range(children)
            )
            body = (
                '<?xml version="1.0" encoding="UTF-8"?>\n'
                '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
                f"{kids}</sitemapindex>\n"
            )
            return web.Response(body=body.encode(), content_type="application/xml")

        async def child(request: web.Request) -> web.Response:
            i = int(request.match_info["i"])
            return web.Response(body=bodies[i], content_type="application/x-gzip")

        app.router.add_get("/robots.txt", robots)
        app.router.add_get("/sitemap_index.xml", index)
        app.router.add_get("/sitemap-{i:\\d+}.xml.gz", child)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        base["url"] = f"http://127.0.0.1:{port}"
        # Distinct pages per child (a seed each), all on this origin.
        for i in range(children):
            bodies[i] = gzipped(SHAPES[shape](per_child, seed=i, base_url=base["url"] + f"/c{i}"))
        Path(port_file).write_text(str(port))
        while True:
            await asyncio.sleep(3600)

    asyncio.run(main())


# -- the readers (each runs in its own process) ----------------------------------------------


def run_reader(name: str, url: str) -> int:
    """Read the site; return how many page URLs were found."""
    if name == "floor":
        return _floor(url)
    if name == "usp":
        from usp.tree import sitemap_tree_for_homepage

        tree = sitemap_tree_for_homepage(url, use_robots=True, use_known_paths=False)
        return sum(1 for _ in tree.all_pages())
    if name == "advertools":
        import advertools

        frame = advertools.sitemap_to_df(url + "robots.txt")
        return int(frame["loc"].notna().sum())
    if name == "scrapy":
        return _scrapy(url)
    if name == "trafilatura":
        from trafilatura.sitemaps import sitemap_search

        return len(sitemap_search(url, target_lang=None))
    raise SystemExit(f"unknown reader {name}")


def _floor(url: str) -> int:
    """The floor: fetch, gunzip and iterparse <loc> sequentially, nothing else."""
    import gzip
    import io
    import re
    import urllib.request

    from lxml import etree

    ns = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
    robots = urllib.request.urlopen(url + "robots.txt").read().decode()
    index_url = re.search(r"Sitemap:\s*(\S+)", robots)[1]  # type: ignore[index]
    index = urllib.request.urlopen(index_url).read()
    children = [el.text for el in etree.fromstring(index).iter(ns + "loc")]
    count = 0
    for child in children:
        data = gzip.decompress(urllib.request.urlopen(child).read())
        for _event, element in etree.iterparse(io.BytesIO(data), tag=ns + "url"):
            if element.findtext(ns + "loc"):
                count += 1
            element.clear(keep_tail=True)
    return count


def _scrapy(url: str) -> int:
    from scrapy.crawler import CrawlerProcess
    from scrapy.spiders import SitemapSpider

    counted = [0]

    class Counter(SitemapSpider):
        name = "counter"
        sitemap_urls = (url + "robots.txt",)

        def sitemap_filter(self, entries):  # type: ignore[no-untyped-def]
            if entries.type == "urlset":
                counted[0] += sum(1 for _ in entries)  # count, request no page
                return
            yield from entries

    process = CrawlerProcess(
        settings={"LOG_LEVEL": "ERROR", "TELEMETRY_ENABLED": False, "ROBOTSTXT_OBEY": False}
    )
    process.crawl(Counter)
    process.start()
    return counted[0]


# -- measuring ---------------------------------------------------------------------------------


def measure(name: str, url: str, expected: int) -> dict[str, object]:
    """Run one reader in a fresh process: wall time, peak RSS, the URLs it found."""
    if name.startswith("sitemap-reader"):
        fmt = "txt" if name.endswith("txt") else "jsonl"
        command = [
            sys.executable,
            "-m",
            "sitemap_reader",
            "dump",
            url,
            "--format",
            fmt,
            "-o",
            os.devnull,
            "--no-progress",
        ]
        if name.endswith("workers"):
            command += ["--workers", "auto"]
        if name.endswith("obey"):
            command += ["--robots", "obey"]
    else:
        command = [sys.executable, __file__, "--run-reader", name, url]
    run = run_measured(command)
    found = _found(name, run.out, run.err)
    return {
        "reader": name,
        "seconds": run.seconds,
        "cpu_seconds": run.cpu_seconds,
        "urls": found,
        "urls_per_s": found / run.seconds if run.seconds else 0.0,
        "peak_rss_mb": run.peak_rss_mb,
        "ok": run.code == 0 and found >= expected * 0.99,
        "error": "" if run.code == 0 else run.err.strip().splitlines()[-1:],
    }


@contextlib.contextmanager
def site_served(
    children: int, per_child: int, shape: str = "plain", rules: bool = False
) -> Iterator[str]:
    """Serve the site (``serve``) in a process of its own while in the block; its URL."""
    with tempfile.TemporaryDirectory(prefix="bench-site-") as tmp:
        port_file = Path(tmp) / "port"
        server = multiprocessing.get_context("spawn").Process(
            target=serve, args=(children, per_child, str(port_file), shape, rules)
        )
        server.start()
        try:
            yield wait_for_site(port_file, server.is_alive, children)
        finally:
            server.kill()
            server.join()


def wait_for_site(port_file: Path, alive: Callable[[], bool], children: int) -> str:
    """The site's URL once its server wrote its port. Generating the site takes a while:
    about a second a child, so the wait is bounded in proportion."""
    for _ in range(max(1200, children * 60)):
        if port_file.exists() and port_file.read_text():
            return f"http://127.0.0.1:{port_file.read_text()}/"
        if not alive():
            raise SystemExit("the site server died")
        time.sleep(0.1)
    raise SystemExit("the site server did not start in time")


@dataclass(frozen=True)
class Measured:
    """One command run in a fresh process: what it printed, its time and its peak RSS."""

    seconds: float
    code: int
    out: str
    err: str
    peak_rss_mb: float  # the largest single process (the command's or a worker's)
    cpu_seconds: float  # user + system, the command's and its workers' together


def run_measured(command: list[str]) -> Measured:
    """Run ``command``; its output goes through files, so a chatty child never fills a
    pipe and blocks while ``wait4`` waits for it. ``wait4`` gives this child's peak RSS and
    CPU time, its own and those of the processes it started and waited for (Linux)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=out, stderr=err, text=True)
        _pid, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        return Measured(
            seconds,
            os.waitstatus_to_exitcode(status),
            out.read(),
            err.read(),
            usage.ru_maxrss / 1024,
            usage.ru_utime + usage.ru_stime,
        )


def _found(name: str, out: str, err: str) -> int:
    if name.startswith("sitemap-reader"):
        # The summary line: "sitemap-reader: 1,000,000 URLs from 21 sitemaps ..., 9,000 URLs
        # dropped as disallowed by robots.txt (robots), ..." (those count as found).
        for line in err.splitlines():
            if line.startswith("sitemap-reader: ") and " URLs from " in line:
                found = int(line.split()[1].replace(",", ""))
                robots = re.search(r"([\d,]+) URLs? dropped as disallowed by robots.txt", line)
                return found + (int(robots[1].replace(",", "")) if robots else 0)
        return 0
    try:
        return int(out.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return 0


def _spin() -> None:
    while True:
        pass


@contextlib.contextmanager
def busy(processes: int) -> Iterator[None]:
    """``processes`` processes spinning on the CPU while in the block (other jobs' load)."""
    spinners = [
        multiprocessing.get_context("spawn").Process(target=_spin) for _ in range(processes)
    ]
    for spinner in spinners:
        spinner.start()
    try:
        yield
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.join()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--children", type=int, default=20)
    parser.add_argument("--urls-per-child", type=int, default=50_000)
    parser.add_argument("--readers", default=",".join(READERS))
    parser.add_argument("--shape", choices=("plain", "mixed", "cdata"), default="plain")
    parser.add_argument("--json", metavar="FILE", help="also write the results here")
    parser.add_argument("--load", type=int, default=0, metavar="N", help="N busy processes")
    parser.add_argument(
        "--robots-rules", action="store_true", help="serve RULES as robots.txt (for --robots obey)"
    )
    parser.add_argument("--run-reader", nargs=2, metavar=("NAME", "URL"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run_reader:
        print(run_reader(*args.run_reader))
        return
    compile_package()  # the readers' processes start from bytecode, as after pip install

    expected = args.children * args.urls_per_child
    served = site_served(args.children, args.urls_per_child, args.shape, args.robots_rules)
    with served as url, busy(args.load):
        print(
            f"site: {url} ({args.children} x {args.urls_per_child:,} = {expected:,} URLs, "
            f"{args.shape} shape{f', {args.load} busy processes' if args.load else ''})"
        )
        results = []
        for name in args.readers.split(","):
            result = measure(name, url, expected)
            results.append(result)
            flag = "" if result["ok"] else f"  <- {result['error'] or 'found too few URLs'}"
            print(
                f"{name:20} {result['seconds']:8.2f} s {result['cpu_seconds']:8.2f} s CPU "
                f"{result['urls']:>10,} URLs "
                f"{result['urls_per_s']:>10,.0f} URLs/s {result['peak_rss_mb']:8.1f} MB peak RSS{flag}",
                flush=True,
            )
        ours = next((r for r in results if r["reader"] == "sitemap-reader" and r["ok"]), None)
        refs = [
            r
            for r in results
            if r["ok"] and r["reader"] in ("usp", "advertools", "scrapy", "trafilatura")
        ]
        if ours and refs:
            best = max(refs, key=lambda r: float(r["urls_per_s"]))  # type: ignore[arg-type]
            print(
                f"sitemap-reader vs the fastest reference ({best['reader']}): "
                f"{float(ours['urls_per_s']) / float(best['urls_per_s']):.2f}x"  # type: ignore[arg-type]
            )
        if args.json:
            Path(args.json).write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
