"""What a fetch hands on and reports, apart from the fetching (``._fetch``), so that the
bodies, the local files and the walk need none of the HTTP machinery (aiohttp, tenacity) until
a run fetches: the chunk size, a response's head (:class:`Response`), the :class:`Body` that
receives it, and how the fetch ended (:class:`FetchResult`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from ..._base._errors import FetchError, LimitExceeded

CHUNK = 65_536  # bytes handed to the parser at a time (docs/architecture.md, "Chunks")


@dataclass(frozen=True, slots=True)
class Response:
    """What is known of a response before its body: passed to ``Body.start``."""

    url: str  # as requested
    final_url: str  # after redirects
    status: int
    etag: str | None
    last_modified: str | None
    content_type: str | None
    content_length: int | None = None  # as sent (compressed, for a .gz file)
    # All of them, looked up case-insensitively (check --sample reads X-Robots-Tag, Link).
    headers: Mapping[str, str] = field(default_factory=dict)


class Body(Protocol):
    """Receives one response body; may be restarted by a retry."""

    def start(self, response: Response, attempt: int) -> bool:
        """A body begins (again, when ``attempt`` > 1). False: don't read it."""

    async def chunk(self, data: bytes) -> bool:
        """The next piece; False: stop reading (a limit was reached)."""

    async def finish(self) -> bool:
        """The body was read to its end (or a handler stopped it). False: the document was
        cut there (it ends before its end), so the server may have counted short."""

    def redirect(self, target: str) -> bool:
        """A redirect to ``target`` is about to be followed; False: stop, request nothing more."""


@dataclass(slots=True)
class FetchResult:
    """How one fetch ended."""

    url: str
    final_url: str | None = None
    status: int | None = None
    bytes: int = 0  # body bytes received in the last attempt, as sent
    attempts: int = 0
    error: FetchError | LimitExceeded | None = None
    read: bool = False  # the body was passed to the handler to its end (or its stop)
    etag: str | None = None
    last_modified: str | None = None
    # What `check` reports of the last attempt: the hops ((status, target) each), the
    # headers that say what the body is, and the time spent waiting on the network.
    redirects: tuple[tuple[int, str], ...] = ()
    content_type: str | None = None
    content_encoding: str | None = None
    elapsed: float | None = None  # seconds
