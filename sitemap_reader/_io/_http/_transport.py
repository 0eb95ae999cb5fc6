"""The transport: the one GET the walk asks of the network, so that a host framework (Scrapy's
downloader) can carry the requests. What stays with the reader, whichever transport is used:
the SSRF guard, redirects (a transport must not follow them: the reader vets every hop),
timeouts, retries, byte budgets and Content-Encoding (``._fetch``). The default transport is
aiohttp's (``._aiohttp``); this module needs neither aiohttp nor anything else."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Protocol


class TransportResponse(Protocol):
    """One response, its head read and its body not yet.

    ``headers`` are looked up case-insensitively; a header sent more than once is its values
    joined by ``", "`` (RFC 9110, section 5.3). ``peer`` is the address the response came
    from, for the SSRF guard to check; None when unknown or when it is a proxy's (the guard
    then judges the target by its name alone).
    """

    @property
    def status(self) -> int: ...

    @property
    def reason(self) -> str | None: ...

    @property
    def headers(self) -> Mapping[str, str]: ...

    @property
    def final_url(self) -> str: ...

    @property
    def peer(self) -> str | None: ...

    def chunks(self) -> AsyncIterator[bytes]:
        """The body as sent (Content-Encoding not undone), a piece at a time. A fault midway
        raises :class:`~sitemap_reader.TransportError` (after yielding what came before)."""
        ...

    def close(self, *, reuse: bool = True) -> None:
        """Done with the response, read or not. ``reuse`` False: the document ended where the
        body did yet was cut, so the server may have sent more than it counted and the
        connection should not carry another request."""
        ...


class Transport(Protocol):
    """Carries the reader's GET requests: pass one as ``SitemapReader(transport=...)``.

    ``get`` sends one GET of ``url`` with ``headers`` (the reader's: the run's
    ``ReaderConfig.headers``, Accept-Encoding, conditional headers; the transport adds its
    own, such as a User-Agent) through ``proxy`` (the run's ``ReaderConfig.proxy`` or the
    environment's, credentials in its URL; None: none of the reader's) and returns once the
    response's head is in, without following a redirect. A network fault raises
    :class:`~sitemap_reader.TransportError` (the reader retries it); an HTTP error status is
    a response like any other. The reader bounds each call with its timeouts (it cancels
    a call that runs over) and never closes a transport it was given.
    """

    async def get(
        self, url: str, headers: Mapping[str, str], *, proxy: str | None = None
    ) -> TransportResponse: ...


class HeadTransport(Transport, Protocol):
    """A transport that can also send HEAD requests (``check --sample`` asks a page's head
    before its body). ``head`` is ``get`` with the HEAD method: the same contract, and a
    response without a body. A transport without it is asked GET alone."""

    async def head(
        self, url: str, headers: Mapping[str, str], *, proxy: str | None = None
    ) -> TransportResponse: ...


def content_length(headers: Mapping[str, str]) -> int | None:
    """The Content-Length the headers declare, None when absent or not a number."""
    value = headers.get("Content-Length")
    if value is None:
        return None
    value = value.split(",")[0].strip()  # the same length sent twice is still one
    return int(value) if value.isdigit() else None
