"""Generated sites served by a real aiohttp server on 127.0.0.1, for the HTTP-level tests.

A :class:`Site` is a table of ``(host, path) -> handler`` looked up at request time, so a
test starts the server first (to learn its port) and then fills the table with documents
that name real URLs. Every request is logged (host, path and query, headers) so tests can
count what the reader fetched and see what it sent. ``127.0.0.1`` and ``localhost`` reach the same server; routes may
be bound to one host name, which makes cross-host cases real.

Handlers are built by small functions: documents (:func:`xml`, :func:`gz_file`,
:func:`gz_transport`, :func:`text`, :func:`html`), faults (:func:`status`,
:func:`sequence`, :func:`redirect`, :func:`reset_after`, :func:`stall_after`,
:func:`hang`, :func:`trickle`) and timing (:func:`slow`, :func:`gated`). Every wait is bounded and also
ends when the server shuts down, so no test can hang on a handler.

Two ways to serve: :func:`serve` with pytest-aiohttp's ``aiohttp_server`` fixture (async
tests; the fixture stops the server), or :class:`ThreadedServer`, a context manager that
runs the server on its own thread and loop (sync wrappers, subprocess CLI runs).
"""

from __future__ import annotations

import asyncio
import gzip
import socket
import threading
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from xml.sax.saxutils import escape

from aiohttp import web
from multidict import CIMultiDict
from pytest_aiohttp.plugin import AiohttpServer

from sitemap_reader import (
    Entry,
    Event,
    Problem,
    ReaderConfig,
    RetryPolicy,
    SitemapReader,
    SitemapVisited,
    Status,
    Timeouts,
)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
SOFT_404 = (
    "<!DOCTYPE html>\n<html><head><title>Page not found</title></head>"
    "<body><h1>Sorry, nothing here</h1></body></html>\n"
)
FAST_SHUTDOWN = 2.0  # seconds the server waits for handlers still running when it stops


# -- documents ---------------------------------------------------------------------------


def urlset(*locs: str | dict[str, str]) -> str:
    """A urlset: each item a loc, or a dict of child elements (``loc``, ``lastmod``, ...)."""
    blocks = []
    for item in locs:
        fields = {"loc": item} if isinstance(item, str) else item
        inner = "".join(f"<{k}>{escape(v)}</{k}>" for k, v in fields.items())
        blocks.append(f"  <url>{inner}</url>\n")
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{SITEMAP_NS}">\n'
        + "".join(blocks)
        + "</urlset>\n"
    )


def sitemapindex(*locs: str | tuple[str, str]) -> str:
    """A sitemap index: each item a child loc, or ``(loc, lastmod)``."""
    blocks = []
    for item in locs:
        loc, lastmod = (item, None) if isinstance(item, str) else item
        last = f"<lastmod>{lastmod}</lastmod>" if lastmod else ""
        blocks.append(f"  <sitemap><loc>{escape(loc)}</loc>{last}</sitemap>\n")
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="{SITEMAP_NS}">\n'
        + "".join(blocks)
        + "</sitemapindex>\n"
    )


def text_sitemap(*locs: str) -> str:
    """A plain-text sitemap: one URL a line."""
    return "".join(f"{loc}\n" for loc in locs)


def rss(*links: str) -> str:
    """An RSS 2.0 feed with one item per link."""
    items = "".join(
        f"<item><title>t{i}</title><link>{escape(link)}</link>"
        f"<pubDate>Wed, 01 May 2024 10:00:00 GMT</pubDate></item>"
        for i, link in enumerate(links)
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0"><channel>'
        f"<title>feed</title><link>http://127.0.0.1/</link><description>d</description>"
        f"{items}</channel></rss>\n"
    )


def atom(*links: str) -> str:
    """An Atom 1.0 feed with one entry per link."""
    entries = "".join(
        f'<entry><title>t{i}</title><id>urn:x:{i}</id><link rel="alternate" '
        f'href="{escape(link)}"/><updated>2024-05-01T10:00:00Z</updated></entry>'
        for i, link in enumerate(links)
    )
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">'
        "<title>feed</title><id>urn:x</id><updated>2024-05-01T10:00:00Z</updated>"
        f"{entries}</feed>\n"
    )


def _bytes(body: str | bytes) -> bytes:
    return body.encode("utf-8") if isinstance(body, str) else body


# -- handlers: documents -------------------------------------------------------------------


def xml(body: str | bytes, *, content_type: str = "application/xml") -> Handler:
    """200 with ``body`` as it is."""
    data = _bytes(body)

    async def handle(request: web.Request) -> web.StreamResponse:
        return web.Response(body=data, content_type=content_type)

    return handle


def text(body: str | bytes) -> Handler:
    """200 text/plain (robots.txt, text sitemaps)."""
    return xml(body, content_type="text/plain")


def html(body: str = SOFT_404) -> Handler:
    """200 text/html: the soft 404 that real servers answer for a missing sitemap."""
    return xml(body, content_type="text/html")


def gz_file(body: str | bytes) -> Handler:
    """A ``.gz`` file: gzip bytes served as application/gzip, no Content-Encoding."""
    return xml(gzip.compress(_bytes(body), mtime=0), content_type="application/gzip")


def gz_transport(body: str | bytes) -> Handler:
    """Gzip in transport: ``Content-Encoding: gzip``, which the HTTP client inflates."""
    data = gzip.compress(_bytes(body), mtime=0)

    async def handle(request: web.Request) -> web.StreamResponse:
        return web.Response(
            body=data, content_type="application/xml", headers={"Content-Encoding": "gzip"}
        )

    return handle


# -- handlers: faults ----------------------------------------------------------------------


def status(code: int, *, headers: dict[str, str] | None = None, body: str = "") -> Handler:
    """An answer with status ``code`` (and ``headers``, e.g. Retry-After)."""

    async def handle(request: web.Request) -> web.StreamResponse:
        return web.Response(status=code, text=body or f"status {code}", headers=headers)

    return handle


def redirect(location: str, code: int = 301) -> Handler:
    """A redirect to ``location`` (absolute or relative)."""

    async def handle(request: web.Request) -> web.StreamResponse:
        return web.Response(status=code, headers={"Location": location})

    return handle


def sequence(*handlers: Handler) -> Handler:
    """The n-th request gets the n-th handler; the last one answers every later request."""
    calls = 0

    async def handle(request: web.Request) -> web.StreamResponse:
        nonlocal calls
        calls += 1
        return await handlers[min(calls, len(handlers)) - 1](request)

    return handle


async def _stream(request: web.Request, data: bytes) -> web.StreamResponse:
    """A prepared XML response whose Content-Length announces all of ``data``."""
    response = web.StreamResponse(headers={"Content-Type": "application/xml"})
    response.content_length = len(data)
    await response.prepare(request)
    return response


def reset_after(body: str | bytes, cut: int, *, pause: float = 0.1) -> Handler:
    """Send the first ``cut`` bytes of ``body`` (Content-Length says all), then reset.

    The pause lets the client read what was sent before the connection goes away.
    """
    data = _bytes(body)

    async def handle(request: web.Request) -> web.StreamResponse:
        response = await _stream(request, data)
        await response.write(data[:cut])
        await asyncio.sleep(pause)
        transport = request.transport
        assert transport is not None
        transport.abort()
        return response

    return handle


def stall_after(body: str | bytes, cut: int, seconds: float) -> Handler:
    """Send the first ``cut`` bytes of ``body``, then go silent for ``seconds`` (a read timeout)."""
    data = _bytes(body)

    async def handle(request: web.Request) -> web.StreamResponse:
        response = await _stream(request, data)
        await response.write(data[:cut])
        await site_of(request).sleep(seconds)
        await response.write(data[cut:])
        return response

    return handle


def trickle(body: str | bytes, piece: int, interval: float) -> Handler:
    """Send ``body`` ``piece`` bytes at a time, ``interval`` seconds apart (a slow server)."""
    data = _bytes(body)

    async def handle(request: web.Request) -> web.StreamResponse:
        response = await _stream(request, data)
        site = site_of(request)
        for at in range(0, len(data), piece):
            await response.write(data[at : at + piece])
            await site.sleep(interval)
        return response

    return handle


def hang(seconds: float, then: Handler | None = None) -> Handler:
    """Say nothing for ``seconds`` before the status line (a read timeout), then answer."""
    after = then or status(200)

    async def handle(request: web.Request) -> web.StreamResponse:
        await site_of(request).sleep(seconds)
        return await after(request)

    return handle


# -- handlers: timing ----------------------------------------------------------------------


def slow(handler: Handler, seconds: float) -> Handler:
    """``handler``, after ``seconds``."""

    async def handle(request: web.Request) -> web.StreamResponse:
        await site_of(request).sleep(seconds)
        return await handler(request)

    return handle


def gated(handler: Handler, gate: threading.Event, *, timeout: float = 5.0) -> Handler:
    """``handler`` once ``gate`` is set (a threading.Event, so any thread may open it).

    The wait ends after ``timeout`` seconds anyway, so a broken test cannot hang the suite;
    :attr:`Site.served_at` tells when the answer went out.
    """

    async def handle(request: web.Request) -> web.StreamResponse:
        site = site_of(request)
        deadline = time.monotonic() + timeout
        while not gate.is_set() and not site.closing.is_set() and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        return await handler(request)

    return handle


@dataclass(frozen=True)
class Flight:
    """One request as a :class:`Flights` handler answered it."""

    path: str
    start: float  # time.monotonic() when the handler began
    end: float  # time.monotonic() when the whole body was written (or the client left)


@dataclass
class Flights:
    """A log of the requests answered through :meth:`around`, to count how many were in
    flight at once (the server runs on one loop: no lock is needed)."""

    log: list[Flight] = field(default_factory=list)

    def around(self, handler: Handler) -> Handler:
        """``handler``, its request logged from its start until its body is written."""

        async def handle(request: web.Request) -> web.StreamResponse:
            start = time.monotonic()
            try:
                response = await handler(request)
                if not response.prepared:  # send it here, so the end is the body's end
                    await response.prepare(request)
                    await response.write_eof()
                return response
            finally:
                self.log.append(Flight(request.path_qs, start, time.monotonic()))

        return handle

    def most_at_once(self) -> int:
        """The most requests in flight at one time, counted from the log (an end at the
        same instant as a start counts first: the two did not overlap)."""
        events = sorted(
            [(f.start, 1) for f in self.log] + [(f.end, -1) for f in self.log],
            key=lambda event: (event[0], event[1]),
        )
        most = now = 0
        for _, step in events:
            now += step
            most = max(most, now)
        return most


# -- the site ------------------------------------------------------------------------------


def site_of(request: web.Request) -> Site:
    return request.app[_SITE_KEY]


@dataclass
class Hit:
    """One request the server received."""

    host: str  # the Host header's name (127.0.0.1 or localhost), without the port
    path: str  # path and query, as sent
    at: float  # time.monotonic() when it arrived
    headers: CIMultiDict[str] = field(default_factory=CIMultiDict)  # as received
    method: str = "GET"


@dataclass
class Site:
    """Routes looked up per request, and a log of every request (thread-safe enough)."""

    routes: dict[tuple[str | None, str], Handler] = field(default_factory=dict)
    hits: list[Hit] = field(default_factory=list)
    served_at: dict[str, float] = field(default_factory=dict)  # path -> when first answered
    closing: threading.Event = field(default_factory=threading.Event)

    def add(self, path: str, handler: Handler, *, host: str | None = None) -> None:
        """Serve ``path`` (with its query, if any) with ``handler``, on ``host`` or on any."""
        self.routes[(host, path)] = handler

    def add_many(self, pairs: Iterable[tuple[str, Handler]], *, host: str | None = None) -> None:
        for path, handler in pairs:
            self.add(path, handler, host=host)

    def count(self, path: str, *, host: str | None = None, method: str | None = None) -> int:
        """Requests for ``path`` (on ``host``, or on any host; of ``method``, or any)."""
        return sum(
            1
            for h in self.hits
            if h.path == path
            and (host is None or h.host == host)
            and (method is None or h.method == method)
        )

    def paths(self, *, host: str | None = None) -> list[str]:
        """Every requested path, in order (on ``host``, or on any host)."""
        return [h.path for h in self.hits if host is None or h.host == host]

    def headers(self, path: str, *, host: str | None = None) -> list[CIMultiDict[str]]:
        """The headers of each request for ``path`` (on ``host``, or on any host), in order."""
        return [h.headers for h in self.hits if h.path == path and (host is None or h.host == host)]

    def times(self, path: str) -> list[float]:
        return [h.at for h in self.hits if h.path == path]

    async def sleep(self, seconds: float) -> None:
        """Sleep, but wake up when the server shuts down."""
        deadline = time.monotonic() + seconds
        while not self.closing.is_set() and time.monotonic() < deadline:
            await asyncio.sleep(min(0.01, max(0.0, deadline - time.monotonic())))

    async def _dispatch(self, request: web.Request) -> web.StreamResponse:
        host = (request.host or "").rsplit(":", 1)[0]
        path = request.path_qs
        hit = Hit(host, path, time.monotonic(), request.headers.copy(), request.method)
        self.hits.append(hit)
        handler = self.routes.get((host, path)) or self.routes.get((None, path))
        response: web.StreamResponse
        if handler is None:
            response = web.Response(status=404, text="not found")
        else:
            response = await handler(request)
        self.served_at.setdefault(path, time.monotonic())
        return response

    def app(self) -> web.Application:
        app = web.Application()
        app[_SITE_KEY] = self
        app.router.add_route("GET", "/{tail:.*}", self._dispatch)
        # HEAD as aiohttp answers it: the GET handler's response without its body.
        app.router.add_route("HEAD", "/{tail:.*}", self._dispatch)

        async def on_shutdown(app: web.Application) -> None:
            self.closing.set()

        app.on_shutdown.append(on_shutdown)
        return app


_SITE_KEY = web.AppKey("site", Site)


@dataclass
class Served:
    """A running site: its port, and URLs on the two host names that reach it."""

    site: Site
    port: int

    def a(self, path: str = "/") -> str:
        """``path`` on http://127.0.0.1:PORT."""
        return f"http://127.0.0.1:{self.port}{path}"

    def b(self, path: str = "/") -> str:
        """``path`` on http://localhost:PORT (the same server, another host name)."""
        return f"http://localhost:{self.port}{path}"

    def add(self, path: str, handler: Handler, *, host: str | None = None) -> None:
        self.site.add(path, handler, host=host)

    def count(self, path: str, *, host: str | None = None, method: str | None = None) -> int:
        return self.site.count(path, host=host, method=method)


async def serve(aiohttp_server: AiohttpServer, site: Site | None = None) -> Served:
    """Start ``site`` on 127.0.0.1 with pytest-aiohttp's fixture (which stops it)."""
    site = site or Site()
    server = await aiohttp_server(site.app(), shutdown_timeout=FAST_SHUTDOWN)
    assert server.port is not None
    return Served(site, server.port)


class ThreadedServer:
    """A site served on 127.0.0.1 from a thread with its own loop, as a context manager:
    ``with ThreadedServer() as served:`` gives a :class:`Served`; leaving the block stops it.
    """

    def __init__(self, site: Site | None = None) -> None:
        self.site = site or Site()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="test-server")
        self._runner: web.AppRunner | None = None

    def __enter__(self) -> Served:
        self._thread.start()
        future = asyncio.run_coroutine_threadsafe(self._start(), self._loop)
        try:
            port = future.result(timeout=10)
        except BaseException:
            self._stop_loop()
            raise
        return Served(self.site, port)

    def __exit__(self, *exc: object) -> None:
        self.site.closing.set()
        try:
            asyncio.run_coroutine_threadsafe(self._cleanup(), self._loop).result(timeout=10)
        finally:
            self._stop_loop()

    async def _start(self) -> int:
        self._runner = web.AppRunner(self.site.app(), shutdown_timeout=FAST_SHUTDOWN)
        await self._runner.setup()
        tcp = web.TCPSite(self._runner, "127.0.0.1", 0)
        await tcp.start()
        address = self._runner.addresses[0]
        return int(address[1])

    async def _cleanup(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    def _stop_loop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()


def serve_index(
    s: Served,
    sizes: Mapping[str, int],
    *,
    index_lastmod: str | None = None,
    entry_lastmod: str | None = None,
) -> None:
    """robots.txt -> /index.xml -> /NAME.xml for each NAME of ``sizes``, listing that many
    pages /p/NAME0, /p/NAME1, ...; the index dates each child ``index_lastmod`` and each
    child its entries ``entry_lastmod`` (no lastmod when None). Called again, it replaces
    the files it names (a child left out stays served, unlisted)."""
    s.add("/robots.txt", text(f"Sitemap: {s.a('/index.xml')}\n"))
    s.add(
        "/index.xml", xml(sitemapindex(*[(s.a(f"/{n}.xml"), index_lastmod or "") for n in sizes]))
    )
    for name, n in sizes.items():
        entry = {} if entry_lastmod is None else {"lastmod": entry_lastmod}
        s.add(
            f"/{name}.xml", xml(urlset(*[{"loc": s.a(f"/p/{name}{i}"), **entry} for i in range(n)]))
        )


def closed_port() -> int:
    """A port on 127.0.0.1 where nothing listens (connections are refused)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


# -- running the reader ----------------------------------------------------------------------

# Tiny timeouts and waits: every fault test ends in well under a second. 127.0.0.1 and
# localhost stand for two public hosts here, so the SSRF guard is open; the guard's own
# tests (test_guard.py) close it.
FAST = ReaderConfig(
    timeouts=Timeouts(connect=2.0, read=0.5, request=5.0),
    retry=RetryPolicy(backoff=0.01, max_backoff=0.05),
    allow_private=True,
)


@dataclass
class Run:
    """Everything one walk yielded, in order, with views for assertions."""

    events: list[Event]

    @property
    def entries(self) -> list[Entry]:
        return [e for e in self.events if type(e) is Entry]

    @property
    def locs(self) -> list[str]:
        return [e.loc for e in self.entries]

    @property
    def problems(self) -> list[Problem]:
        return [e for e in self.events if type(e) is Problem]

    @property
    def kinds(self) -> list[str]:
        return [p.kind for p in self.problems]

    @property
    def reports(self) -> list[SitemapVisited]:
        return [e for e in self.events if type(e) is SitemapVisited]

    def report(self, url: str) -> SitemapVisited:
        """The one report of the document named ``url``."""
        found = [r for r in self.reports if r.url == url]
        assert len(found) == 1, f"{len(found)} reports for {url}: {self.reports!r}"
        return found[0]

    def problem(self, kind: str) -> Problem:
        """The one problem of ``kind``."""
        found = [p for p in self.problems if p.kind == kind]
        assert len(found) == 1, f"{len(found)} {kind!r} problems: {self.problems!r}"
        return found[0]


async def walk(*sources: str, config: ReaderConfig = FAST) -> Run:
    """Run ``SitemapReader.walk`` over ``sources`` and keep every event."""
    async with SitemapReader(config) as reader:
        return Run([event async for event in reader.walk(*sources)])


def untimed(run: Run) -> list[str]:
    """The run's reports, but for what depends on timing: how long each read took, and the
    bytes received of a document read in part. A read cut by a budget (URLs, bytes of the
    run) or a reset stops at the chunk it was in, and how the body came in chunks is the
    network's and the machine's: the same run of one big sitemap cut at 1,234 URLs counted
    947,052 bytes received at once and 259,000 trickled. The sorted lists showed that
    difference as reports in another order."""
    return sorted(
        repr(replace(r, elapsed=0.0, bytes=0 if r.status is Status.PARTIAL else r.bytes))
        for r in run.reports
    )


def by_sitemap(run: Run) -> dict[str, list[Entry]]:
    out: dict[str, list[Entry]] = {}
    for e in run.entries:
        out.setdefault(e.sitemap, []).append(e)
    return out
