"""A loopback site that fails on purpose, for the soak benchmark (``bench_soak.py``).

robots.txt -> one sitemap index -> SITEMAPS - 1 urlsets (half of them gzipped) of
MIN_URLS..MAX_URLS generated URLs each, served by aiohttp on 127.0.0.1 in a process of its
own (``FaultySite`` starts and stops it), so its memory never counts as the reader's.

A share ``rate`` of the document responses fail, each in one of four ways picked evenly:
a 5xx status (500, 502, or 503 with ``Retry-After: 1``), a connection reset midway through
the body, a stall longer than the reader's read timeout (before the status line or midway
through the body), or a truncated body (Content-Length says more than is sent, then the
connection is closed cleanly). Request n's fate comes from its own RNG seeded with
``(seed, n)``, so a seed gives the same sequence of faults whatever the timing.

The rate starts at 0 (a fault-free reference run first) and is set through
``/_control?rate=R``; ``/_stats`` returns the counters as JSON. Neither counts as a request.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from aiohttp import web

if TYPE_CHECKING:
    from typing_extensions import Self

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _generate import gzipped, plain_sitemap  # found through the path set above
from bench_site import wait_for_site

# The fault kinds as the server counts them, and the four categories they are drawn from.
CATEGORIES = ("5xx", "reset", "timeout", "truncated")
KINDS = (
    "http-500",
    "http-502",
    "http-503",
    "reset",
    "timeout-headers",
    "timeout-body",
    "truncated",
)


@dataclass(frozen=True)
class SiteSpec:
    """What the site holds and how long a stall lasts at most."""

    sitemaps: int = 200  # the index and its urlsets (robots.txt comes on top)
    min_urls: int = 300
    max_urls: int = 3000
    seed: int = 0
    # A stall ends when the client hangs up, or after this many seconds (longer than the
    # reader's timeouts, so the reader always times out first).
    stall: float = 10.0

    def sizes(self) -> list[int]:
        """URLs in each urlset."""
        rng = random.Random(self.seed)
        return [rng.randint(self.min_urls, self.max_urls) for _ in range(self.sitemaps - 1)]


def category(kind: str) -> str:
    """The category (CATEGORIES) of a fault kind (KINDS)."""
    if kind.startswith("http-"):
        return "5xx"
    return kind.split("-")[0]


# -- the server (its own process) ------------------------------------------------------------


def serve(spec: SiteSpec, port_file: str) -> None:
    """Generate the site, write its port to ``port_file``, serve until killed."""
    documents: dict[str, tuple[bytes, str]] = {}
    stats: dict[str, object] = {}
    requests = 0
    active = 0
    not_found = 0
    faults: Counter[str] = Counter()
    control = {"rate": 0.0}

    async def stats_handler(request: web.Request) -> web.Response:
        return web.json_response(
            {
                **stats,
                "requests": requests,
                "active": active,
                "not_found": not_found,
                "faults": dict(faults),
            }
        )

    async def control_handler(request: web.Request) -> web.Response:
        control["rate"] = float(request.query["rate"])
        return web.json_response(control)

    async def document(request: web.Request) -> web.StreamResponse:
        nonlocal requests, active, not_found
        number = requests
        requests += 1
        active += 1
        try:
            found = documents.get(request.path)
            if found is None:
                not_found += 1  # the reader asked for no document of the site
                return web.Response(status=404, text="not found")
            body, content_type = found
            fault = fault_for(spec.seed, number, control["rate"])
            if fault is None:
                return web.Response(body=body, content_type=content_type)
            kind, where = fault
            faults[kind] += 1
            return await _fault(kind, request, body, content_type, where, spec.stall)
        finally:
            active -= 1

    async def main() -> None:
        app = web.Application()
        app.router.add_get("/_stats", stats_handler)
        app.router.add_get("/_control", control_handler)
        app.router.add_get("/{tail:.*}", document)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = int(runner.addresses[0][1])
        base = f"http://127.0.0.1:{port}"
        sizes = spec.sizes()
        children = []
        for i, n in enumerate(sizes):
            # Distinct pages per child (a seed each); every other child gzipped.
            xml = plain_sitemap(n, seed=spec.seed * 100_003 + i, base_url=f"{base}/c{i}")
            if i % 2:
                path = f"/sitemaps/s{i}.xml.gz"
                documents[path] = (gzipped(xml), "application/x-gzip")
            else:
                path = f"/sitemaps/s{i}.xml"
                documents[path] = (xml, "application/xml")
            children.append(
                f"<sitemap><loc>{base}{path}</loc>"
                f"<lastmod>2026-11-{1 + i % 28:02d}T00:00:00+00:00</lastmod></sitemap>\n"
            )
        documents["/sitemap_index.xml"] = (
            (
                '<?xml version="1.0" encoding="UTF-8"?>\n'
                '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
                f"{''.join(children)}</sitemapindex>\n"
            ).encode(),
            "application/xml",
        )
        documents["/robots.txt"] = (
            f"User-agent: *\nAllow: /\nSitemap: {base}/sitemap_index.xml\n".encode(),
            "text/plain",
        )
        stats.update(documents=len(documents), urls=sum(sizes), spec=asdict(spec))
        Path(port_file).write_text(str(port))
        while True:
            await asyncio.sleep(3600)

    asyncio.run(main())


def fault_for(seed: int, number: int, rate: float) -> tuple[str, float] | None:
    """The fault of request ``number`` (from 0), if any: its kind and where (0..1) to cut the
    body. Its own RNG, so the sequence does not depend on which document each request asks."""
    rng = random.Random(f"{seed}:{number}")
    if rng.random() >= rate:
        return None
    return _draw(rng), rng.random()


def _draw(rng: random.Random) -> str:
    """One fault: a category evenly, then its variant."""
    picked = rng.choice(CATEGORIES)
    if picked == "5xx":
        return rng.choice(("http-500", "http-502", "http-503"))
    if picked == "timeout":
        return rng.choice(("timeout-headers", "timeout-body"))
    return picked


async def _fault(
    kind: str, request: web.Request, body: bytes, content_type: str, where: float, stall: float
) -> web.StreamResponse:
    """Answer ``request`` with fault ``kind``; ``where`` (0..1) places a cut in the body."""
    if kind.startswith("http-"):
        code = int(kind[5:])
        headers = {"Retry-After": "1"} if code == 503 else None
        return web.Response(status=code, text=f"status {code}", headers=headers)
    if kind == "timeout-headers":
        await _stall(request, stall)
        if _gone(request):
            return web.Response(status=200)  # never sent: the client hung up
        return web.Response(body=body, content_type=content_type)
    cut = int(where * len(body))
    response = web.StreamResponse(headers={"Content-Type": content_type})
    response.content_length = len(body)  # the whole body is announced, whatever is sent
    await response.prepare(request)
    try:
        if cut:
            await response.write(body[:cut])
        transport = request.transport
        if kind == "reset":
            await asyncio.sleep(0.01)  # let the client read what was sent, then RST
            if transport is not None:
                transport.abort()
        elif kind == "truncated":
            if transport is not None:
                transport.close()  # flushes what was written, then FIN
        else:  # timeout-body
            await _stall(request, stall)
            if not _gone(request):
                await response.write(body[cut:])
    except ConnectionError:
        pass  # the client hung up first: that is the point
    return response


def _gone(request: web.Request) -> bool:
    transport = request.transport
    return transport is None or transport.is_closing()


async def _stall(request: web.Request, seconds: float) -> None:
    """Say nothing until the client hangs up (its read timeout), or ``seconds`` pass."""
    deadline = time.monotonic() + seconds
    while not _gone(request) and time.monotonic() < deadline:
        await asyncio.sleep(0.02)


# -- the client side: start, control, stop -----------------------------------------------------


class FaultySite:
    """The site in a child process, as a context manager: ``with FaultySite(spec) as site:``."""

    def __init__(self, spec: SiteSpec) -> None:
        self.spec = spec
        self.url = ""
        self._dir = tempfile.TemporaryDirectory(prefix="faulty-site-")
        self._process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Self:
        port_file = Path(self._dir.name) / "port"
        self._process = subprocess.Popen(
            [sys.executable, __file__, str(port_file), json.dumps(asdict(self.spec))]
        )
        process = self._process
        try:
            self.url = wait_for_site(port_file, lambda: process.poll() is None, self.spec.sitemaps)
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._process is not None:
            self._process.kill()
            self._process.wait()
            self._process = None
        self._dir.cleanup()

    def _get(self, path: str) -> dict[str, Any]:
        with urllib.request.urlopen(self.url + path.lstrip("/"), timeout=10) as response:
            data: dict[str, Any] = json.loads(response.read())
        return data

    def stats(self) -> dict[str, Any]:
        """The counters: requests, faults by kind, requests in progress, the site's size."""
        return self._get("/_stats")

    def set_rate(self, rate: float) -> None:
        """Fail this share of the responses from now on."""
        self._get(f"/_control?rate={rate}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="serve the faulty site (used by FaultySite)")
    parser.add_argument("port_file")
    parser.add_argument("spec", help="a SiteSpec as JSON")
    args = parser.parse_args()
    serve(SiteSpec(**json.loads(args.spec)), args.port_file)
