"""The default transport: an aiohttp session (the reader's own or a caller's).

aiohttp's faults become :class:`TransportError` here, said plainly, and the guard's refusal
raised inside aiohttp's connector (``._resolver``) comes out as :class:`AddressRefused`.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator, Mapping

import aiohttp
from multidict import CIMultiDict

from ..._base._errors import AddressRefused, TransportError
from ._aiohttp_compat import peer, unread
from ._guard import Refused
from ._keepalive import retire_if_overrun


class AiohttpTransport:
    """GETs (and HEADs) on ``session``, which the caller keeps owning; ``connect`` bounds a TCP connect
    (seconds), the only timer left to aiohttp (the reader times the waits itself)."""

    def __init__(self, session: aiohttp.ClientSession, *, connect: float | None = None) -> None:
        self._session = session
        self.trust_env = session.trust_env  # it reads the environment's proxies itself
        # aiohttp's 'connect' would count the pool's queue too: sock_connect times the
        # connect alone.
        self._timeout = aiohttp.ClientTimeout(
            total=None, connect=None, sock_connect=connect, sock_read=None
        )

    async def get(
        self, url: str, headers: Mapping[str, str], *, proxy: str | None = None
    ) -> AiohttpResponse:
        return await self._send("GET", url, headers, proxy)

    async def head(
        self, url: str, headers: Mapping[str, str], *, proxy: str | None = None
    ) -> AiohttpResponse:
        return await self._send("HEAD", url, headers, proxy)

    async def _send(
        self, method: str, url: str, headers: Mapping[str, str], proxy: str | None
    ) -> AiohttpResponse:
        try:
            response = await self._session.request(
                method,
                url,
                allow_redirects=False,  # the reader follows them, vetting each hop
                timeout=self._timeout,
                headers=headers,  # a multidict's repeats are kept
                proxy=proxy,
                auto_decompress=False,  # the reader undoes Content-Encoding (see ._fetch)
            )
        except aiohttp.ClientConnectorError as exc:
            if isinstance(exc.os_error, Refused):  # the guard, inside aiohttp's connector
                refusal = exc.os_error.refusal
                raise AddressRefused(
                    str(refusal), url=url, host=refusal.host, address=refusal.address
                ) from None
            raise _transport_error(url, exc) from exc
        except (aiohttp.ClientError, ValueError) as exc:
            raise _transport_error(url, exc) from exc
        return AiohttpResponse(response, self._session.connector)


class AiohttpResponse:
    """An aiohttp response seen through :class:`~._transport.TransportResponse`."""

    __slots__ = ("_connector", "_headers", "_response")

    def __init__(
        self, response: aiohttp.ClientResponse, connector: aiohttp.BaseConnector | None
    ) -> None:
        self._response = response
        self._connector = connector
        self._headers: CIMultiDict[str] | None = None

    @property
    def status(self) -> int:
        return self._response.status

    @property
    def reason(self) -> str | None:
        return self._response.reason

    @property
    def headers(self) -> Mapping[str, str]:
        if self._headers is None:
            raw = self._response.headers
            self._headers = CIMultiDict((k, ", ".join(raw.getall(k))) for k in set(raw.keys()))
        return self._headers

    @property
    def final_url(self) -> str:
        return str(self._response.url)

    @property
    def peer(self) -> str | None:
        address = peer(self._response)
        return str(address[0]) if address else None

    async def chunks(self) -> AsyncIterator[bytes]:
        content = self._response.content
        while True:
            try:
                data = await content.readany()
            except aiohttp.ClientPayloadError as exc:
                # aiohttp raises a cut before handing over what it had buffered (a short
                # body arrives with the close): passed on, what came before the cut is kept.
                rest = unread(content)
                if rest:
                    yield rest
                raise TransportError(str(exc) or type(exc).__name__) from exc
            except aiohttp.ClientError as exc:
                raise TransportError(str(exc) or type(exc).__name__) from exc
            if not data:
                return
            yield data

    def close(self, *, reuse: bool = True) -> None:
        retire_if_overrun(self._response, self._connector, cut=not reuse)
        self._response.release()


def could_not_connect(error: Exception) -> bool:
    """True when ``error`` is a connection that never opened (refused, no route, no name)."""
    return isinstance(error, TransportError) and isinstance(
        error.__cause__, aiohttp.ClientConnectorError
    )


def _transport_error(url: str, exc: BaseException) -> TransportError:
    if isinstance(exc, aiohttp.ClientHttpProxyError):
        # The proxy refused the tunnel (CONNECT, for an https target).
        what = f"the proxy answered HTTP {exc.status} {exc.message}".rstrip()
    elif isinstance(exc, aiohttp.ClientConnectorError):
        # Said plainly: aiohttp's words ("Cannot connect to host ... ssl:default [Connect call
        # failed ...]") name its internals, not the cause.
        cause = exc.os_error
        if isinstance(cause, ConnectionRefusedError):
            why = "connection refused"
        elif isinstance(cause, socket.gaierror):
            why = f"the host name does not resolve: {cause.strerror or cause}"
        else:
            why = cause.strerror or str(cause) or type(cause).__name__
        proxy = "the proxy " if isinstance(exc, aiohttp.ClientProxyConnectionError) else ""
        what = f"could not connect to {proxy}{exc.host}:{exc.port} ({why})"
    elif isinstance(exc, asyncio.TimeoutError):
        what = f"timed out: {exc}" if str(exc) else "timed out"
    elif isinstance(exc, aiohttp.ClientResponseError):
        # aiohttp could not parse the response's head; the 400 in its message is its own
        # code, not the server's answer.
        what = f"the response's status line or headers could not be read: {exc.message}"
    else:
        what = str(exc) or type(exc).__name__
    return TransportError(what, url=url)
