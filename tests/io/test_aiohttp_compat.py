"""The aiohttp-private attributes the reader relies on, read on real responses.

Each test fails naming the attribute when an aiohttp release moves, renames or changes it:
re-check ``sitemap_reader/_io/_aiohttp_compat.py`` against that release then. The server
runs on 127.0.0.1 (pytest-aiohttp's fixture stops it).
"""

from __future__ import annotations

import asyncio
import collections
import re
import time
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web
from pytest_aiohttp.plugin import AiohttpServer

import sitemap_reader
from sitemap_reader._io._http._aiohttp_compat import (
    PRIVATE_ATTRIBUTES,
    idle_transport,
    peer,
    private,
    unread,
)
from tests.support.http_site import serve, xml

BODY = b"<urlset>" + b"x" * 4_000 + b"</urlset>"
CUT = 3_000


def changed(attribute: str, needed_for: str) -> str:
    return (
        f"aiohttp {aiohttp.__version__} changed {attribute}, which "
        f"sitemap_reader._io._http._aiohttp_compat reads for {needed_for}: re-check that module "
        "against this aiohttp release"
    )


async def test_every_private_attribute_read_is_tested() -> None:
    """The list the module keeps is the list these tests check."""
    assert PRIVATE_ATTRIBUTES == (
        ("ClientResponse", "_protocol"),
        ("StreamReader", "_buffer"),
        ("StreamReader", "_buffer_offset"),
        ("BaseConnector", "_acquired"),
    )


# A private attribute read by name (getattr), or one of aiohttp's read off another object.
PRIVATE_READ = re.compile(
    r"getattr\([^,()]+,\s*[\"']_[a-z]\w*"
    r"|\b(?!self\b|cls\b)\w+\._(?:protocol|buffer\w*|payload|connection|connector|conns)\b"
)


def test_private_attributes_are_read_in_the_compat_module_only() -> None:
    """No other module of the package reads a private attribute of another object."""
    package = Path(sitemap_reader.__file__).parent
    compat = package / "_io" / "_http" / "_aiohttp_compat.py"
    readers = [
        f"{path.relative_to(package)}: {match.group(0)}"
        for path in sorted(package.rglob("*.py"))
        if path != compat
        for match in PRIVATE_READ.finditer(path.read_text())
    ]
    assert readers == [], "private attributes read outside _aiohttp_compat.py"
    assert PRIVATE_READ.search('getattr(response, "_protocol", None)')
    assert PRIVATE_READ.search("rest = content._buffer")


async def test_response_protocol_holds_the_socket_after_a_short_body(
    aiohttp_server: AiohttpServer,
) -> None:
    """A short body read whole: the protocol still has the transport connected to the server."""
    s = await serve(aiohttp_server)
    s.add("/short.xml", xml("<urlset/>"))
    async with aiohttp.ClientSession() as session, session.get(s.a("/short.xml")) as response:
        await response.read()
        protocol = private(response, "_protocol")
        assert protocol is not None, changed(
            "ClientResponse._protocol (now missing)", "the peer address of a short response"
        )
        transport = getattr(protocol, "transport", None)
        assert isinstance(transport, asyncio.Transport), changed(
            f"ClientResponse._protocol.transport (now {transport!r})",
            "the peer address of a short response",
        )
        assert transport.get_extra_info("peername")[:2] == ("127.0.0.1", s.port), changed(
            "ClientResponse._protocol.transport's peer", "the peer address of a short response"
        )
        assert peer(response)[:2] == ("127.0.0.1", s.port)


async def test_stream_buffer_keeps_a_cut_body_after_the_error(
    aiohttp_server: AiohttpServer,
) -> None:
    """Content-Length says more than comes, then the server closes: readany raises, and the
    bytes aiohttp received but did not hand over are in its buffer, less what a sized read
    took of the first piece."""
    s = await serve(aiohttp_server)
    first_part = asyncio.Event()

    async def cut(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "application/xml"})
        response.content_length = len(BODY)
        await response.prepare(request)
        await response.write(BODY[:100])
        await asyncio.wait_for(first_part.wait(), 5)  # the client took 10 bytes of these
        await response.write(BODY[100:CUT])
        assert request.transport is not None
        request.transport.close()
        return response

    s.add("/cut.xml", cut)
    async with aiohttp.ClientSession() as session, session.get(s.a("/cut.xml")) as response:
        content = response.content
        assert await content.readexactly(10) == BODY[:10]
        first_part.set()
        deadline = time.monotonic() + 30  # a hang guard, generous for a busy machine
        while content.exception() is None:  # the close reached the client
            assert time.monotonic() < deadline, "the server's close never reached the client"
            await asyncio.sleep(0.01)

        buffer = private(content, "_buffer")
        assert isinstance(buffer, collections.deque), changed(
            f"StreamReader._buffer (now {type(buffer).__name__})", "the bytes of a cut body"
        )
        assert all(isinstance(piece, bytes) for piece in buffer), changed(
            "StreamReader._buffer's items (no longer bytes)", "the bytes of a cut body"
        )
        offset = private(content, "_buffer_offset")
        assert isinstance(offset, int), changed(
            f"StreamReader._buffer_offset (now {offset!r})", "the bytes of a cut body"
        )
        with pytest.raises(aiohttp.ClientPayloadError):
            await content.readany()
        assert unread(content) == BODY[10:CUT], changed(
            "what StreamReader._buffer holds after a cut", "the bytes of a cut body"
        )


async def test_connector_acquired_holds_the_connections_in_use(
    aiohttp_server: AiohttpServer,
) -> None:
    """aiohttp gives a connection back to its pool once a body reaches its count; while a
    later request holds it, it is in the connector's acquired set, and not once given back."""
    s = await serve(aiohttp_server)
    s.add("/a.xml", xml("<urlset/>"))
    gate = asyncio.Event()

    async def held(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "application/xml"})
        response.content_length = len(b"<urlset/>")
        await response.prepare(request)
        await response.write(b"<url")
        await asyncio.wait_for(gate.wait(), 5)
        await response.write(b"set/>")
        return response

    s.add("/b.xml", held)
    connector = aiohttp.TCPConnector(limit=1)
    async with aiohttp.ClientSession(connector=connector) as session:
        async with session.get(s.a("/a.xml")) as first:
            await first.read()
        protocol = private(first, "_protocol")
        acquired = private(connector, "_acquired")
        assert isinstance(acquired, set), changed(
            f"BaseConnector._acquired (now {acquired!r})",
            "closing an overlong response's connection",
        )
        assert protocol not in acquired, changed(
            "BaseConnector._acquired (holds a connection given back)",
            "closing an overlong response's connection",
        )
        transport = idle_transport(first, connector)
        assert isinstance(transport, asyncio.Transport)
        assert transport is protocol.transport

        async with session.get(s.a("/b.xml")) as second:  # the same connection, reused
            assert private(second, "_protocol") is protocol, "the one connection was not reused"
            assert protocol in private(connector, "_acquired"), changed(
                "BaseConnector._acquired (misses a connection in use)",
                "closing an overlong response's connection",
            )
            assert idle_transport(first, connector) is None
            gate.set()
            assert await second.read() == b"<urlset/>"
        assert protocol not in private(connector, "_acquired")
        assert idle_transport(second, connector) is transport
