"""Hostile handlers for :class:`tests.support.http_site.Site`: servers that try to make a reader hang,
fill its memory or lose what it read (issue 5).

Each handler generates its body as it goes, in pieces of at most :data:`PIECE` bytes, so
that the server's own allocations stay small: the tests trace the memory of the whole
process, server included, and what they bound is the reader's. Every loop also ends when the
client goes away or the server shuts down (``Site.closing``), so no handler outlives its test.

Documents that are generated per path (an endless redirect chain, an index fanning out to
indexes) need routes that match a whole family of paths: build the site with
``Site(routes=PrefixRoutes())`` and add a route whose path ends in ``*``.

Also here, for tests/io/test_hostile.py and benchmarks/bench_hostile.py alike: the documents a
hostile body starts with (:func:`opening`), the entity attacks, and :func:`measured_walk`,
a walk with its time, its peak of traced memory and the most documents its frontier held.
"""

from __future__ import annotations

import gc
import time
import tracemalloc
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiohttp import web

from sitemap_reader import Event, ReaderConfig, SitemapReader
from tests.support.helpers import bomb_stream, encode
from tests.support.http_site import FAST, SITEMAP_NS, Handler, Run, Served, Site, site_of, urlset

PIECE = 65_536  # the largest write a hostile handler makes
MiB = 1 << 20
# What one document may cost while it streams: a 64 KiB read, aiohttp's buffers (up to a few
# hundred KiB), one 64 KiB inflate step, the parser's buffers and the batches in the queue,
# plus the hostile server's pieces of at most 64 KiB. Measured: 0.3 to 4 MB.
PEAK = 16 * MiB
# The same for several documents in flight at once (four here). Measured: up to 8 MB.
RUN_PEAK = 32 * MiB


class PrefixRoutes(dict[tuple[str | None, str], Handler]):
    """A route table for ``Site(routes=...)``: a path ending in ``*`` serves every path that
    starts with what comes before the star (exact routes win)."""

    def get(self, key: tuple[str | None, str], default: Any = None) -> Any:  # type: ignore[override]
        found = super().get(key)
        if found is not None:
            return found
        host, path = key
        for (route_host, pattern), handler in self.items():
            if route_host == host and pattern.endswith("*") and path.startswith(pattern[:-1]):
                return handler
        return default


async def _start(
    request: web.Request,
    *,
    content_type: str = "application/xml",
    length: int | None = None,
    headers: dict[str, str] | None = None,
) -> web.StreamResponse:
    """A prepared response: chunked (no Content-Length) unless ``length`` is given."""
    response = web.StreamResponse(headers={"Content-Type": content_type, **(headers or {})})
    if length is None:
        response.enable_chunked_encoding()
    else:
        response.content_length = length
    await response.prepare(request)
    return response


async def _send(
    request: web.Request, response: web.StreamResponse, pieces: Iterator[bytes]
) -> None:
    """Write ``pieces`` until they run out, the client leaves or the server shuts down."""
    site = site_of(request)
    try:
        for piece in pieces:
            if site.closing.is_set():
                return
            await response.write(piece)
    except ConnectionError:
        return  # the reader stopped reading (a limit) and closed the connection


def _repeat(head: bytes, filler: bytes, total: int | None = None) -> Iterator[bytes]:
    """``head``, then ``filler`` repeated (forever, or up to ``total`` bytes), in pieces."""
    yield head
    block = filler * max(1, PIECE // len(filler))
    sent = 0
    while total is None or sent < total:
        yield block
        sent += len(block)


# -- bodies that never end ---------------------------------------------------------------------


def endless(head: bytes, filler: bytes, *, claimed_length: int | None = None) -> Handler:
    """``head``, then ``filler`` forever: chunked with no Content-Length, or with a
    Content-Length of ``claimed_length`` (a lie: the body goes on past anything a reader
    should accept)."""

    async def handle(request: web.Request) -> web.StreamResponse:
        response = await _start(request, length=claimed_length)
        await _send(request, response, _repeat(head, filler))
        return response

    return handle


def slowloris(head: bytes, filler: bytes, interval: float) -> Handler:
    """``head`` at once, then one byte of ``filler`` every ``interval`` seconds, forever:
    each wait is well under any read timeout, so only a bound on the whole request ends it."""

    async def handle(request: web.Request) -> web.StreamResponse:
        response = await _start(request)
        site = site_of(request)
        try:
            await response.write(head)
            at = 0
            while not site.closing.is_set():
                await site.sleep(interval)
                await response.write(filler[at : at + 1])
                at = (at + 1) % len(filler)
        except ConnectionError:
            pass
        return response

    return handle


def short_length(body: bytes, counted: int, *, pause: float = 0.0) -> Handler:
    """A Content-Length of ``counted`` bytes for a longer ``body``: the counted bytes go out
    as the response and, ``pause`` seconds later, the rest is written on the connection
    after it, where a client that reuses the connection reads it as its next response."""

    async def handle(request: web.Request) -> web.StreamResponse:
        response = await _start(request, length=counted)
        await response.write(body[:counted])
        await response.write_eof()
        await site_of(request).sleep(pause)
        transport = request.transport
        if transport is not None and not transport.is_closing():
            transport.write(body[counted:])
        return response

    return handle


# -- compression -------------------------------------------------------------------------------


def bomb(prefix: bytes, fill: bytes, total: int, *, coding: str | None) -> Handler:
    """``prefix`` and ``total`` bytes of ``fill``, compressed lazily (1,000 to 1 or more): a
    ``.gz`` file (application/gzip) when ``coding`` is None, else a body sent with that
    ``Content-Encoding`` (gzip, deflate, deflate-raw, br or zstd), which the fetcher inflates."""
    content_type = "application/gzip" if coding is None else "application/xml"
    # deflate-raw is sent as deflate
    headers = None if coding is None else {"Content-Encoding": coding.removesuffix("-raw")}

    async def handle(request: web.Request) -> web.StreamResponse:
        response = await _start(request, content_type=content_type, headers=headers)
        await _send(request, response, bomb_stream(prefix, fill, total, coding=coding or "gzip"))
        return response

    return handle


def cut_transport(body: bytes, keep: float, coding: str) -> Handler:
    """A ``coding`` stream (see :func:`tests.support.helpers.encode`) that stops after ``keep`` of
    its bytes (a fraction), with a Content-Length that matches what is sent: nothing but the
    stream says it was cut."""
    data = encode(body, coding)
    data = data[: int(len(data) * keep)]
    headers = {"Content-Encoding": coding.removesuffix("-raw")}  # deflate-raw is sent as deflate

    async def handle(request: web.Request) -> web.StreamResponse:
        return web.Response(body=data, content_type="application/xml", headers=headers)

    return handle


# -- headers and redirects ---------------------------------------------------------------------


def huge_headers(*, value: int = 0, count: int = 0, body: bytes = b"") -> Handler:
    """A 200 whose headers are enormous: one header of ``value`` bytes, or ``count`` headers."""

    async def handle(request: web.Request) -> web.StreamResponse:
        response = web.Response(body=body, content_type="application/xml")
        if value:
            response.headers["X-Padding"] = "x" * value
        for i in range(count):
            response.headers[f"X-Padding-{i}"] = "x"
        return response

    return handle


def endless_redirects(prefix: str) -> Handler:
    """``{prefix}N`` redirects to ``{prefix}N+1``, for every N: a chain that never ends and
    never loops (serve it with a ``{prefix}*`` route)."""

    async def handle(request: web.Request) -> web.StreamResponse:
        hop = int(request.path[len(prefix) :] or 0)
        return web.Response(status=302, headers={"Location": f"{prefix}{hop + 1}"})

    return handle


# -- fan-out -------------------------------------------------------------------------------------


def fan_out(origin: str, prefix: str, width: int) -> Handler:
    """Every path under ``prefix`` is a sitemap index of ``width`` children, each one a path
    under ``prefix`` again (so each child is an index of ``width`` more), generated as it
    is sent. Serve it with a ``{prefix}*`` route.

    A document is its path's stem joined with pieces made once, here: one C-level join per
    batch of children, so that sending millions of children costs the server neither time
    nor traced memory (the pieces exist before a test starts tracing).
    """
    # between[i] closes child i - 1 and opens child i: "<stem>" goes after each of them.
    between = [f"<sitemap><loc>{origin}".encode()] + [
        f"-{i - 1}.xml</loc></sitemap>\n<sitemap><loc>{origin}".encode() for i in range(1, width)
    ]
    start = f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="{SITEMAP_NS}">\n'
    end = f"-{width - 1}.xml</loc></sitemap>\n</sitemapindex>\n".encode()
    batch = 500  # children a piece: about 40 kB

    def pieces(stem: bytes) -> Iterator[bytes]:
        yield start.encode()
        for at in range(0, width, batch):
            yield stem.join(between[at : at + batch]) + stem
        yield end

    async def handle(request: web.Request) -> web.StreamResponse:
        response = await _start(request)
        await _send(request, response, pieces(request.path.removesuffix(".xml").encode()))
        return response

    return handle


# -- documents and sites -------------------------------------------------------------------------


def hostile_site() -> Site:
    """A site whose routes may end in ``*`` (documents generated per path)."""
    return Site(routes=PrefixRoutes())


def pages(s: Served, n: int, prefix: str = "/page") -> list[str]:
    return [s.a(f"{prefix}/{i}") for i in range(n)]


def opening(s: Served, n: int, prefix: str = "/page") -> bytes:
    """A urlset of ``n`` pages without its end tag: what a hostile body starts with."""
    return urlset(*pages(s, n, prefix)).encode().removesuffix(b"</urlset>\n")


ENTITY_ATTACKS = ("billion-laughs", "quadratic-blowup", "xxe")
SECRET = "TOPSECRET-9d2e71"  # what the XXE attack's file holds: it must never be read


def entity_attack(name: str, secret_file: Path) -> bytes:
    """A urlset whose DOCTYPE declares an entity attack (one of :data:`ENTITY_ATTACKS`)."""
    declarations = {
        # ten levels of ten references: 10**9 "lol"s if it were expanded
        "billion-laughs": '<!ENTITY l0 "lol">'
        + "".join(f'<!ENTITY l{i} "{f"&l{i - 1};" * 10}">' for i in range(1, 10)),
        # one 100 kB entity referenced 100,000 times: 10 GB if it were expanded
        "quadratic-blowup": f'<!ENTITY l9 "{"x" * 100_000}">',
        "xxe": f'<!ENTITY l9 SYSTEM "{secret_file.as_uri()}">',
    }[name]
    references = "&l9;" * (100_000 if name == "quadratic-blowup" else 1)
    return (
        f'<?xml version="1.0"?>\n<!DOCTYPE urlset [{declarations}]>\n'
        f'<urlset xmlns="{SITEMAP_NS}"><url><loc>https://example.com/{references}</loc></url>'
        "</urlset>\n"
    ).encode()


# -- measuring a walk ----------------------------------------------------------------------------


@dataclass
class Measured:
    run: Run
    seconds: float
    peak: int  # bytes: the tracemalloc peak over the run, server and reader together
    frontier: int  # the most documents waiting in the frontier, seen after each event

    def within(self, seconds: float, peak: int = PEAK) -> None:
        assert self.seconds < seconds, f"took {self.seconds:.1f} s"
        assert self.peak < peak, f"peak {self.peak:,} bytes"


async def measured_walk(*sources: str, config: ReaderConfig = FAST) -> Measured:
    """A walk with its wall time and the peak of traced memory (the server's included)."""
    gc.collect()
    tracemalloc.start()
    try:
        started = time.monotonic()
        events: list[Event] = []
        frontier = 0
        async with SitemapReader(config) as reader:
            async for event in reader.walk(*sources):
                events.append(event)
                frontier = max(frontier, reader.progress.queued)
        seconds = time.monotonic() - started
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return Measured(Run(events), seconds, peak, frontier)
