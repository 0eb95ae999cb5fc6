"""A transport through Scrapy's downloader, for :class:`~sitemap_reader.scrapy.SitemapReaderSpider`.

Each GET becomes a ``scrapy.Request`` handed to the engine's downloader, so Scrapy's
downloader middlewares (default headers, user agent, proxies, the HTTP cache, anything the
project adds) and its slots (``DOWNLOAD_DELAY``, AutoThrottle, concurrency) apply to the
sitemaps as to the pages. Redirects and retries are the reader's: the request asks Scrapy's
redirect and retry middlewares to leave it alone. Scrapy hands a body over whole, so it is
held in memory until read; it is passed on a chunk at a time all the same.
"""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator, Mapping
from http import HTTPStatus
from typing import TYPE_CHECKING

from multidict import CIMultiDict
from scrapy import Request, exceptions
from scrapy.exceptions import IgnoreRequest
from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet import error as twisted_error

from ..._base._errors import FetchError, TransportError
from ._response import CHUNK

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Response


def _kinds(*names: str) -> tuple[type[BaseException], ...]:
    """Scrapy's exception classes of these names, those this Scrapy has: newer releases
    wrap Twisted's faults in their own (2.19 does), older ones raise Twisted's."""
    return tuple(getattr(exceptions, name) for name in names if hasattr(exceptions, name))


_Kinds = tuple[type[BaseException], ...]
_REFUSED: _Kinds = (twisted_error.ConnectionRefusedError, *_kinds("DownloadConnectionRefusedError"))
_NO_NAME: _Kinds = (twisted_error.DNSLookupError, *_kinds("CannotResolveHostError"))
_TIMED_OUT: _Kinds = (twisted_error.TimeoutError, *_kinds("DownloadTimeoutError"))

# Scrapy's middlewares that would do the reader's work twice (it vets every hop itself, and
# its retries know Retry-After and its budgets).
_META = {"dont_redirect": True, "dont_retry": True, "handle_httpstatus_all": True}


class ScrapyTransport:
    """GETs through ``crawler``'s engine; ``user_agent``, when given, is sent in place of
    the one Scrapy's middleware would set."""

    def __init__(self, crawler: Crawler, *, user_agent: str | None = None) -> None:
        self._crawler = crawler
        self._headers = {} if user_agent is None else {"User-Agent": user_agent}

    async def get(
        self, url: str, headers: Mapping[str, str], *, proxy: str | None = None
    ) -> ScrapyResponse:
        meta: dict[str, object] = dict(_META)
        if proxy is not None:  # the run's (sitemap_config.proxy): Scrapy's HttpProxyMiddleware
            meta["proxy"] = proxy
        try:
            request = Request(
                url, headers={**self._headers, **headers}, meta=meta, dont_filter=True
            )
            response = await self._download(request)
        except IgnoreRequest as exc:  # a middleware's choice: asking again changes nothing
            raise FetchError(
                f"Scrapy's downloader dropped the request ({exc or type(exc).__name__})", url=url
            ) from exc
        except Exception as exc:  # noqa: BLE001 - Twisted's faults, a middleware's: the fetch's
            raise _transport_error(url, exc) from _cause(exc)
        return ScrapyResponse(response)

    async def _download(self, request: Request) -> Response:
        engine = self._crawler.engine
        if engine is None:
            raise RuntimeError("the crawler has no engine: read sitemaps from start()")
        download_async = getattr(engine, "download_async", None)  # Scrapy 2.14 and newer
        if download_async is not None:
            response: Response = await download_async(request)
            return response
        return await maybe_deferred_to_future(engine.download(request))


class ScrapyResponse:
    """A Scrapy response seen through :class:`~._transport.TransportResponse`."""

    __slots__ = ("_body", "_headers", "_response")

    def __init__(self, response: Response) -> None:
        self._response = response
        self._body: bytes | None = response.body
        headers: CIMultiDict[str] = CIMultiDict()
        for name, values in response.headers.items():
            headers[name.decode("latin-1")] = ", ".join(v.decode("latin-1") for v in values)
        # Scrapy may have undone a Content-Encoding already: the length is what arrived.
        headers["Content-Length"] = str(len(response.body))
        self._headers = headers

    @property
    def status(self) -> int:
        return self._response.status

    @property
    def reason(self) -> str | None:
        try:
            return HTTPStatus(self._response.status).phrase
        except ValueError:
            return None

    @property
    def headers(self) -> Mapping[str, str]:
        return self._headers

    @property
    def final_url(self) -> str:
        return self._response.url

    @property
    def peer(self) -> str | None:
        if self._response.meta.get("proxy"):
            return None  # the proxy's address: the guard judges the target by its name
        address = self._response.ip_address
        return None if address is None else str(address)

    async def chunks(self) -> AsyncIterator[bytes]:
        body = self._body or b""
        for start in range(0, len(body), CHUNK):
            yield body[start : start + CHUNK]

    def close(self, *, reuse: bool = True) -> None:
        self._body = None  # Scrapy's connection pool decides about the connection


def _transport_error(url: str, exc: Exception) -> TransportError:
    if isinstance(exc, _REFUSED):
        what = "could not connect (connection refused)"
    elif isinstance(exc, _NO_NAME):
        what = f"the host name does not resolve ({exc})"
    elif isinstance(exc, _TIMED_OUT):
        what = "timed out (Scrapy's DOWNLOAD_TIMEOUT)"
    else:
        what = str(exc) or type(exc).__name__
    return TransportError(f"{what} (through Scrapy's downloader)", url=url)


def _cause(exc: Exception) -> BaseException:
    """What :func:`~._network.could_not_connect` recognises, for Twisted's words for it."""
    if isinstance(exc, _REFUSED):
        return ConnectionRefusedError(str(exc))
    if isinstance(exc, _NO_NAME):
        return socket.gaierror(str(exc))
    return exc
