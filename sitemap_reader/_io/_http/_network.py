"""The walk's way to the network, opened at its first request: a run over local files alone
never loads aiohttp, tenacity and the rest of the HTTP machinery (``._fetch``), which was a
third of the command line's start."""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..._base._errors import TransportError
from ._response import Body, FetchResult

if TYPE_CHECKING:
    from ._fetch import Fetcher


class LazyFetcher:
    """A :class:`Fetcher` made by ``open`` when the walk first fetches, then used throughout."""

    def __init__(self, open: Callable[[], Fetcher]) -> None:
        self._open = open
        self._fetcher: Fetcher | None = None

    @property
    def bytes(self) -> int:
        """Body bytes of the run, all documents (the max_total_bytes budget)."""
        return 0 if self._fetcher is None else self._fetcher.bytes

    def slow(self, url: str, seconds: float) -> None:
        """``Fetcher.slow``; before the first request no pace has begun: nothing to slow."""
        if self._fetcher is not None:
            self._fetcher.slow(url, seconds)

    @property
    def can_head(self) -> bool:
        """``Fetcher.can_head`` (the fetcher is made if it was not yet)."""
        return self._made().can_head

    async def get(
        self,
        url: str,
        body: Body,
        *,
        headers: dict[str, str] | None = None,
        head: bool = False,
    ) -> FetchResult:
        """GET (or HEAD) ``url`` into ``body`` (``Fetcher.get``)."""
        return await self._made().get(url, body, headers=headers, head=head)

    def _made(self) -> Fetcher:
        if self._fetcher is None:  # no await before it is set: one Fetcher per walk
            self._fetcher = self._open()
        return self._fetcher


def could_not_connect(error: Exception) -> bool:
    """True when ``error`` is a connection that never opened (refused, no route, no name)."""
    if not isinstance(error, TransportError):
        return False
    if isinstance(error.__cause__, (ConnectionRefusedError, socket.gaierror)):
        return True  # any transport's way of saying so
    # A TransportError comes from a fetch: with aiohttp's transport, aiohttp is loaded by now.
    from ._aiohttp import could_not_connect as from_aiohttp

    return from_aiohttp(error)
