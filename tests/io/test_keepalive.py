"""A server that sends more than its Content-Length on a keep-alive connection.

The server is a plain socket server on 127.0.0.1 on a thread of its own, so it can send
bytes while the reader's loop is busy, and say which connection each request came on.
One connection at a time and no retry (``attempts=1``): the document asked after the
overlong one must be read whole, on a new connection, not from the rest of the first.
"""

from __future__ import annotations

import dataclasses
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import aiohttp
import pytest

from sitemap_reader import Limits, RetryPolicy, Status
from sitemap_reader._io._http._aiohttp import AiohttpTransport
from sitemap_reader._io._http._fetch import Fetcher
from sitemap_reader._io._http._response import Response
from tests.support.http_site import FAST, sitemapindex, urlset, walk

if TYPE_CHECKING:
    from typing_extensions import Self

ONE_TRY = dataclasses.replace(
    FAST, limits=Limits(max_concurrency=1, per_host=1), retry=RetryPolicy(attempts=1)
)
JUNK = b"<!-- what the Content-Length did not count -->\n" * 20

# path -> (the counted bytes, what is sent after them, the server's wait in between: None
# for "until the test says"). The rest is sent on the same connection, after the response.
Documents = dict[str, tuple[bytes, bytes, float | None]]


@dataclass
class RawServer:
    """Serves ``documents`` on 127.0.0.1 with Content-Length headers, connection by
    connection; records (connection number, path) of each request."""

    documents: Documents = field(default_factory=dict)
    requests: list[tuple[int, str]] = field(default_factory=list)
    send_rest: threading.Event = field(default_factory=threading.Event)
    rest_sent: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.1)
        self.port = self._listener.getsockname()[1]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="raw-server", daemon=True)

    def a(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self.send_rest.set()
        self._thread.join(timeout=10)
        self._listener.close()

    def _serve(self) -> None:
        number = 0
        while not self._stop.is_set():
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            number += 1
            with conn:
                conn.settimeout(0.1)
                try:
                    self._answer(conn, number)
                except ConnectionError:
                    pass  # the client closed it with bytes unread: a reset

    def _answer(self, conn: socket.socket, number: int) -> None:
        pending = b""
        while not self._stop.is_set():
            if b"\r\n\r\n" not in pending:
                try:
                    data = conn.recv(65_536)
                except TimeoutError:
                    continue
                if not data:
                    return  # the client closed this connection
                pending += data
                continue
            head, pending = pending.split(b"\r\n\r\n", 1)
            path = head.split(b" ")[1].decode()
            self.requests.append((number, path))
            counted, rest, wait = self.documents[path]
            conn.sendall(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/xml\r\n"
                b"Content-Length: %d\r\n\r\n%s" % (len(counted), counted)
            )
            if rest:
                if wait is None:
                    self.send_rest.wait(10)
                else:
                    time.sleep(wait)
                conn.sendall(rest)
                self.rest_sent.set()


@pytest.fixture
def server() -> Iterator[RawServer]:
    with RawServer() as s:
        yield s


async def test_a_document_cut_at_its_count_leaves_no_rest_for_the_next(
    server: RawServer,
) -> None:
    """The count ends inside an entry (kept: its <loc> closed); the rest comes 0.2 s later,
    when the next request is out already: the connection was closed, so the next document
    is read whole."""
    full = urlset(*(server.a(f"/a/{i}") for i in range(10))).encode()
    counted = full.index(b"</url>", len(full) // 2) + 2  # inside an entry's end tag
    server.documents.update(
        {
            "/index.xml": (sitemapindex(server.a("/a.xml"), server.a("/b.xml")).encode(), b"", 0),
            "/a.xml": (full[:counted], full[counted:], 0.2),
            "/b.xml": (urlset(server.a("/b")).encode(), b"", 0),
        }
    )

    run = await walk(server.a("/index.xml"), config=ONE_TRY)

    before = full[:counted].count(b"</loc>")
    assert run.locs == [*(server.a(f"/a/{i}") for i in range(before)), server.a("/b")]
    assert run.kinds == ["cut-entry", "truncated"]
    assert run.report(server.a("/a.xml")).status is Status.PARTIAL
    assert run.report(server.a("/b.xml")).status is Status.OK
    assert server.requests == [(1, "/index.xml"), (1, "/a.xml"), (2, "/b.xml")]


class Blocking:
    """A body that holds the reader's loop once the body is in, until the server has sent
    the rest: the rest waits on the socket, unread, when the fetch ends."""

    def __init__(self, server: RawServer | None) -> None:
        self._server = server
        self.data = b""

    def start(self, response: Response, attempt: int) -> bool:
        self.data = b""
        return True

    async def chunk(self, data: bytes) -> bool:
        self.data += data
        return True

    async def finish(self) -> bool:
        if self._server is not None:
            self._server.send_rest.set()
            assert self._server.rest_sent.wait(5)
            # The loopback delivers it; the loop is held on purpose, so nothing reads it.
            time.sleep(0.1)  # noqa: ASYNC251
        return True

    def redirect(self, target: str) -> bool:
        return True


async def fetch_both(server: RawServer, first: Callable[[], Blocking]) -> list[bytes]:
    async with aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(limit=1), auto_decompress=False
    ) as session:
        fetcher = Fetcher(AiohttpTransport(session), ONE_TRY, deadline=None)
        bodies = []
        for path, body in (("/a.xml", first()), ("/b.xml", Blocking(None))):
            result = await fetcher.get(server.a(path), body)
            assert result.error is None, result.error
            bodies.append(body.data)
        return bodies


async def test_bytes_waiting_after_a_whole_document_close_its_connection(
    server: RawServer,
) -> None:
    """A whole document, then more bytes that reach the socket while the reader is busy
    with the body: they are seen waiting there, and the connection is not asked again."""
    a, b = urlset(server.a("/a")).encode(), urlset(server.a("/b")).encode()
    server.documents.update({"/a.xml": (a, JUNK, None), "/b.xml": (b, b"", 0)})

    assert await fetch_both(server, lambda: Blocking(server)) == [a, b]
    assert server.requests == [(1, "/a.xml"), (2, "/b.xml")]


async def test_a_connection_with_nothing_after_its_response_is_reused(
    server: RawServer,
) -> None:
    """The usual case: a response that ends where it says, and the connection is kept."""
    a, b = urlset(server.a("/a")).encode(), urlset(server.a("/b")).encode()
    server.documents.update({"/a.xml": (a, b"", 0), "/b.xml": (b, b"", 0)})

    assert await fetch_both(server, lambda: Blocking(None)) == [a, b]
    assert server.requests == [(1, "/a.xml"), (1, "/b.xml")]
