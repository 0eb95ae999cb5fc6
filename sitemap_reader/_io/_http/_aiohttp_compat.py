"""aiohttp's private attributes: read here, through :func:`private`, and nowhere else.

Checked against aiohttp 3.13.3 (the oldest ``pyproject.toml`` allows) and 3.14.5. Each is
read with a fallback, so a change in aiohttp degrades to what the public API gives; the
test ``tests/test_aiohttp_compat.py`` reads each one on real responses from a server on
127.0.0.1 and fails, naming the attribute, when an aiohttp release changes it.

- ``ClientResponse._protocol`` (aiohttp's ``ResponseHandler``) and its ``transport``: a
  short body read whole with the headers has already given its connection back to the pool
  (``response.connection`` is None), yet the address guard must check the address the
  socket is connected to before the body is used; the protocol still holds the socket.
- ``StreamReader._buffer`` and ``StreamReader._buffer_offset``: a body cut before its
  Content-Length (the connection closed) makes ``readany`` raise ``ClientPayloadError``
  before handing over the bytes already buffered, and the public ``read_nowait`` raises the
  same; the entries in those bytes are still read (``_buffer_offset``: what a sized read
  already took of the first buffered piece).
- ``BaseConnector._acquired``: the connections requests hold now. aiohttp gives a
  connection back to its pool as soon as a body reaches its Content-Length; closing it
  afterwards (the server sent more than it counted: see ``_keepalive``) must wait for it to
  be idle, or it would cut a request that took it meanwhile (whose answer, waiting on the
  socket, would also pass for the server's extra bytes).
"""

from __future__ import annotations

import asyncio
from typing import Any

import aiohttp

# (aiohttp class, attribute): every private attribute read through private().
PRIVATE_ATTRIBUTES: tuple[tuple[str, str], ...] = (
    ("ClientResponse", "_protocol"),
    ("StreamReader", "_buffer"),
    ("StreamReader", "_buffer_offset"),
    ("BaseConnector", "_acquired"),
)


def private(obj: object, name: str) -> Any:
    """``obj.name``, one of :data:`PRIVATE_ATTRIBUTES`, or None when aiohttp dropped it."""
    return getattr(obj, name, None)


def peer(response: aiohttp.ClientResponse) -> Any:
    """The (address, port, ...) the response's socket is connected to, if known."""
    transport = _transport(response)
    return None if transport is None else transport.get_extra_info("peername")


def idle_transport(
    response: aiohttp.ClientResponse, connector: aiohttp.BaseConnector | None
) -> asyncio.Transport | None:
    """The transport of the connection ``response`` came on while it waits idle in
    ``connector``'s pool (given back, and no request took it since); None otherwise."""
    protocol = private(response, "_protocol")
    acquired = private(connector, "_acquired")
    if protocol is None or response.connection is not None or acquired is None:
        return None
    return None if protocol in acquired else _transport(response)


def _transport(response: aiohttp.ClientResponse) -> asyncio.Transport | None:
    connection = response.connection
    transport = connection.transport if connection is not None else None
    if transport is None:  # given back to the pool already: its protocol holds the socket
        transport = getattr(private(response, "_protocol"), "transport", None)
    return transport


def unread(content: aiohttp.StreamReader) -> bytes:
    """The bytes ``content`` received and had not handed over (a cut body's last ones)."""
    buffer = private(content, "_buffer")
    if not buffer:
        return b""
    return b"".join(buffer)[private(content, "_buffer_offset") or 0 :]
