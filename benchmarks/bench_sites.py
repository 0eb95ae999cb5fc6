"""Many sites: ``dump --sites`` in one process against ``sitemap_reader.dask`` on 2 workers.

The sites are served by one aiohttp server on 127.0.0.1, in a child process, one port (one
origin, one robots.txt) per site:

* SMALL small sites (200): robots.txt -> one urlset of SMALL_URLS URLs (500);
* one large site: robots.txt -> index -> CHILDREN gzipped urlsets of URLS_PER_CHILD URLs
  (20 x 50,000 = 1,000,000), the site of ``bench_site.py``.

Each reader runs in a fresh child process, its wall time and peak RSS from ``os.wait4``:

(a) ``sitemap-reader dump --sites FILE`` (jsonl to /dev/null, then parquet to a file): every
    site in one run, one process, one session with its per-host limit;
(b) ``read_sites`` on a ``LocalCluster`` of 2 worker processes (1 thread each), both frames
    written with ``to_parquet`` and computed together: a partition of about
    ``--sites-per-task`` sites (16), by host, a task. Its peak RSS is given for the client
    (which hosts the scheduler) and for each worker, as each reports its own.

    python benchmarks/bench_sites.py
    python benchmarks/bench_sites.py --children 4 --small 50      # a quick run
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_site  # found through the path set above, as bench_site finds _generate
from _bytecode import compile_package

# -- the sites (in their own process) ---------------------------------------------------------


def serve(small: int, small_urls: int, children: int, per_child: int, sites_file: str) -> None:
    """Serve the large site and ``small`` small ones, one port each, until killed."""
    from _generate import gzipped, plain_sitemap
    from aiohttp import web

    # port -> path -> (body, content type)
    sites: dict[int, dict[str, tuple[bytes, str]]] = {}

    async def handle(request: web.Request) -> web.Response:
        assert request.transport is not None
        port = request.transport.get_extra_info("sockname")[1]
        found = sites[port].get(request.path)
        if found is None:
            return web.Response(status=404, text="not found")
        body, content_type = found
        return web.Response(body=body, content_type=content_type)

    def robots(base: str, sitemap: str) -> tuple[bytes, str]:
        return f"User-agent: *\nAllow: /\nSitemap: {base}{sitemap}\n".encode(), "text/plain"

    async def main() -> None:
        app = web.Application()
        app.router.add_get("/{tail:.*}", handle)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        bases = []
        for _ in range(small + 1):
            site = web.TCPSite(runner, "127.0.0.1", 0)
            await site.start()
            port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
            sites[port] = {}
            bases.append((port, f"http://127.0.0.1:{port}"))
        port, base = bases[0]  # the large site
        kids = "".join(
            f"<sitemap><loc>{base}/sitemap-{i}.xml.gz</loc>"
            f"<lastmod>2026-11-0{1 + i % 9}T00:00:00+00:00</lastmod></sitemap>\n"
            for i in range(children)
        )
        index = (
            '<?xml version="1.0" encoding="UTF-8"?>\n'
            '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
            f"{kids}</sitemapindex>\n"
        )
        sites[port]["/robots.txt"] = robots(base, "/sitemap_index.xml")
        sites[port]["/sitemap_index.xml"] = (index.encode(), "application/xml")
        for i in range(children):
            body = gzipped(plain_sitemap(per_child, seed=i, base_url=f"{base}/c{i}"))
            sites[port][f"/sitemap-{i}.xml.gz"] = (body, "application/x-gzip")
        for n, (port, base) in enumerate(bases[1:]):
            sites[port]["/robots.txt"] = robots(base, "/sitemap.xml")
            body = plain_sitemap(small_urls, seed=1_000 + n, base_url=base)
            sites[port]["/sitemap.xml"] = (body, "application/xml")
        temp = sites_file + ".part"  # whole or not at all: the parent waits for the file
        Path(temp).write_text("".join(f"{base}/\n" for _, base in bases))
        os.replace(temp, sites_file)
        while True:
            await asyncio.sleep(3600)

    asyncio.run(main())


# -- (b) the Dask run (in its own process) ------------------------------------------------------


def _peak_rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@contextlib.contextmanager
def cluster(workers: int, threads: int) -> Iterator[Any]:
    """A Client of a fresh LocalCluster of ``workers`` processes on 127.0.0.1, whose
    workers have imported sitemap_reader.dask (dask.dataframe, pandas, pyarrow): a few
    seconds, counted with the cluster's start."""
    from distributed import Client, LocalCluster

    with (
        LocalCluster(
            n_workers=workers,
            threads_per_worker=threads,
            processes=True,
            host="127.0.0.1",
            dashboard_address="127.0.0.1:0",
        ) as local,
        Client(local) as client,
    ):
        client.run(importlib.import_module, "sitemap_reader.dask")
        yield client


def run_dask(sites_file: str, out: str, workers: int, sites_per_task: int) -> dict[str, Any]:
    """read_sites on a fresh LocalCluster, both frames to Parquet; times, rows, peak RSS."""
    import pyarrow.parquet as pq
    from dask.base import compute

    from sitemap_reader.dask import read_sites

    sites = Path(sites_file).read_text().split()
    start = time.perf_counter()
    with cluster(workers, 1) as client:
        imported_rss = sorted(client.run(_peak_rss_mb).values())  # before any read
        started = time.perf_counter()
        entries, problems = read_sites(sites, sites_per_task=sites_per_task)
        called = time.perf_counter()  # the frames are lazy: nothing is read yet
        compute(
            entries.to_parquet(f"{out}/entries", compute=False, write_index=False),
            problems.to_parquet(f"{out}/problems", compute=False, write_index=False),
        )
        done = time.perf_counter()
        worker_rss = sorted(client.run(_peak_rss_mb).values())
        partitions = entries.npartitions
    rows = sum(pq.read_metadata(f).num_rows for f in Path(out, "entries").glob("*.parquet"))
    faults = sum(pq.read_metadata(f).num_rows for f in Path(out, "problems").glob("*.parquet"))
    return {
        "urls": rows,
        "problems": faults,
        "partitions": partitions,
        "cluster_s": started - start,
        "call_s": called - started,
        "read_s": done - called,
        "client_rss_mb": _peak_rss_mb(),
        "worker_rss_mb": worker_rss,
        "worker_import_rss_mb": imported_rss,
    }


def wait_for_sites(server: subprocess.Popen[bytes], sites_file: str, seconds: float) -> None:
    """Wait until the server has written its list of sites, at most ``seconds``."""
    for _ in range(int(seconds * 10)):
        if os.path.exists(sites_file) or server.poll() is not None:
            break
        time.sleep(0.1)
    if not os.path.exists(sites_file):
        raise SystemExit("the site server did not start")


# -- measuring ------------------------------------------------------------------------------------


def measure_dump(sites_file: str, fmt: str, target: str) -> dict[str, Any]:
    command = [sys.executable, "-m", "sitemap_reader", "dump", "--sites", sites_file]
    command += ["--format", fmt, "-o", target, "--no-progress"]
    run = bench_site.run_measured(command)
    urls = bench_site._found("sitemap-reader", run.out, run.err)
    return {
        "reader": f"dump --sites ({fmt})",
        "seconds": run.seconds,
        "urls": urls,
        "peak_rss_mb": run.peak_rss_mb,
        "error": "" if run.code == 0 else run.err.strip()[-500:],
    }


def measure_dask(sites_file: str, out: str, workers: int, sites_per_task: int) -> dict[str, Any]:
    command = [sys.executable, __file__, "--run-dask", sites_file, out]
    command += ["--workers", str(workers), "--sites-per-task", str(sites_per_task)]
    run = bench_site.run_measured(command)
    result: dict[str, Any] = {"reader": f"read_sites, {workers} workers"}
    try:
        result.update(json.loads(run.out.strip().splitlines()[-1]))
    except (IndexError, ValueError):
        result.update(urls=0, error=run.err.strip()[-2000:])
    result.update(seconds=run.seconds, peak_rss_mb=run.peak_rss_mb)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", type=int, default=200, help="small sites (200)")
    parser.add_argument("--small-urls", type=int, default=500, help="URLs per small site")
    parser.add_argument("--children", type=int, default=20, help="leaves of the large site")
    parser.add_argument("--urls-per-child", type=int, default=50_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--sites-per-task", type=int, default=16)
    parser.add_argument("--readers", default="jsonl,parquet,dask")
    parser.add_argument("--json", metavar="FILE", help="also write the results here")
    parser.add_argument("--serve", metavar="SITES_FILE", help=argparse.SUPPRESS)
    parser.add_argument(
        "--run-dask", nargs=2, metavar=("SITES_FILE", "OUT"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.serve:
        serve(args.small, args.small_urls, args.children, args.urls_per_child, args.serve)
        return
    if args.run_dask:
        sites_file, out = args.run_dask
        print(json.dumps(run_dask(sites_file, out, args.workers, args.sites_per_task)))
        return
    compile_package()  # the readers' processes start from bytecode, as after pip install

    expected = args.small * args.small_urls + args.children * args.urls_per_child
    with tempfile.TemporaryDirectory(prefix="bench-sites-") as temp:
        sites_file = os.path.join(temp, "sites.txt")
        command = [sys.executable, __file__, "--serve", sites_file, "--small", str(args.small)]
        command += ["--small-urls", str(args.small_urls), "--children", str(args.children)]
        command += ["--urls-per-child", str(args.urls_per_child)]
        server = subprocess.Popen(command)
        try:
            wait_for_sites(server, sites_file, max(120, args.children * 6))  # ~1 s a leaf
            print(
                f"sites: {args.small} x {args.small_urls:,} URLs + 1 x {args.children} x "
                f"{args.urls_per_child:,} URLs = {expected:,} URLs on 127.0.0.1",
                flush=True,
            )
            results = []
            for name in args.readers.split(","):
                if name == "dask":
                    out = tempfile.mkdtemp(dir=temp)
                    result = measure_dask(sites_file, out, args.workers, args.sites_per_task)
                else:
                    target = os.devnull if name == "jsonl" else os.path.join(temp, "out.parquet")
                    result = measure_dump(sites_file, name, target)
                results.append(result)
                report(result, expected)
            if args.json:
                Path(args.json).write_text(json.dumps(results, indent=2))
        finally:
            server.kill()
            server.wait()


def report(result: dict[str, Any], expected: int) -> None:
    seconds = float(result["seconds"])
    urls = int(result["urls"])
    flag = "" if urls >= expected * 0.99 else f"  <- found too few URLs {result.get('error', '')}"
    line = (
        f"{result['reader']:24} {seconds:8.2f} s {urls:>10,} URLs "
        f"{urls / seconds if seconds else 0:>9,.0f} URLs/s "
        f"{float(result['peak_rss_mb']):8.1f} MB peak RSS"
    )
    if "worker_rss_mb" in result:
        workers = ", ".join(f"{mb:.0f}" for mb in result["worker_rss_mb"])
        imported = ", ".join(f"{mb:.0f}" for mb in result["worker_import_rss_mb"])
        line += (
            f" (client+scheduler {float(result['client_rss_mb']):.0f} MB,"
            f" workers {workers} MB, {imported} MB of it before the read;"
            f" cluster start {float(result['cluster_s']):.1f} s,"
            f" read_sites call {float(result['call_s']):.1f} s,"
            f" read {float(result['read_s']):.1f} s,"
            f" {result['partitions']} partitions, {result['problems']} problems)"
        )
    print(line + flag, flush=True)


if __name__ == "__main__":
    main()
