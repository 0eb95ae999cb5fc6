"""Hostile handlers for :class:`tests.http_site.Site`: servers that try to make a reader hang,
fill its memory or lose what it read (issue 5).

Each handler generates its body as it goes, in pieces of at most :data:`PIECE` bytes, so
that the server's own allocations stay small: the tests trace the memory of the whole
process, server included, and what they bound is the reader's. Every loop also ends when the
client goes away or the server shuts down (``Site.closing``), so no handler outlives its test.

Documents that are generated per path (an endless redirect chain, an index fanning out to
indexes) need routes that match a whole family of paths: build the site with
``Site(routes=PrefixRoutes())`` and add a route whose path ends in ``*``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from aiohttp import web

from tests.helpers import bomb_stream, encode
from tests.http_site import SITEMAP_NS, Handler, site_of

PIECE = 65_536  # the largest write a hostile handler makes


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
    ``Content-Encoding`` (gzip, deflate, br or zstd), which the fetcher inflates."""
    content_type = "application/gzip" if coding is None else "application/xml"
    headers = None if coding is None else {"Content-Encoding": coding}

    async def handle(request: web.Request) -> web.StreamResponse:
        response = await _start(request, content_type=content_type, headers=headers)
        await _send(request, response, bomb_stream(prefix, fill, total, coding=coding or "gzip"))
        return response

    return handle


def cut_transport(body: bytes, keep: float, coding: str) -> Handler:
    """A ``coding`` stream (see :func:`tests.helpers.encode`) that stops after ``keep`` of
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
