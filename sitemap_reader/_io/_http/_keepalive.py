"""Keep-alive connections a server kept sending on are closed, never asked again.

A server whose ``Content-Length`` counts less than it sends (characters counted for bytes,
a body changed after it was measured) leaves the rest on the connection. aiohttp gives a
connection back to its pool the moment a body reaches its count, and a request sent on it
next would read that rest as its response ("Bad status line"). aiohttp closes such a
connection itself when the rest reaches it while the connection is idle or still being
read; what it cannot see is closed here, once the body has been read:

- bytes (or the server's close) already waiting on the socket, not yet read by the loop;
- a document cut at the body's end: the count was short, and the rest may be on its way.

A connection is closed only while it waits idle in the pool. When a request of this
reader took it first (a body read through takes a moment), it is left to that request,
which reads the rest as its answer if the rest comes after it.
"""

from __future__ import annotations

import asyncio
import selectors

import aiohttp

from ._aiohttp_compat import idle_transport


def retire_if_overrun(
    response: aiohttp.ClientResponse, connector: aiohttp.BaseConnector | None, *, cut: bool
) -> bool:
    """Close the connection ``response`` came on, idle in ``connector``'s pool, if the
    server may have sent more than the body it counted: bytes wait on the socket, or
    ``cut`` (the document ended with the body). True when it was closed."""
    transport = idle_transport(response, connector)
    if transport is None or transport.is_closing():
        return False  # a request holds it, or it is closed already
    if not (cut or _bytes_waiting(transport)):
        return False
    transport.close()
    return True


def _bytes_waiting(transport: asyncio.BaseTransport) -> bool:
    """Whether the socket has something to read: the server sent after the response."""
    sock = transport.get_extra_info("socket")
    if sock is None:
        return False
    with selectors.DefaultSelector() as selector:
        selector.register(sock.fileno(), selectors.EVENT_READ)
        return bool(selector.select(0))
