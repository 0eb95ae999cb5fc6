"""The exception tree. Programmer mistakes raise ValueError/TypeError/RuntimeError instead.

    SitemapReaderError
    ├── ParseError            bad remote content (url, line, offset where known)
    │   └── UnsafeXMLError    a DTD entity or external reference (defusedxml's refusal)
    ├── LimitExceeded         a configured limit was reached (bytes, entries, depth, ...)
    ├── FetchError            a document could not be fetched (url)
    │   ├── RedirectError     a redirect that cannot be followed (loop, no Location, too many)
    │   ├── HTTPStatusError   an HTTP status that is not success (status)
    │   ├── TransportError    timeouts, resets, DNS, refused connections
    │   ├── ContentEncodingError  a Content-Encoding that cannot be undone here
    │   └── AddressRefused    the SSRF guard: a host that resolves to a private address
    └── StateError            a state file that cannot be used (path): corrupted, foreign, newer
        └── StateLocked       another run holds the state file (pid)

The core never raises these for remote content: it turns faults into a fatal
:class:`~sitemap_reader.Problem`. Each class carries the :class:`ProblemKind` it is
reported as (``kind``), so the walk maps an exception to its problem without a ladder of
isinstance. They exist for callers who ask for exceptions (``Problem`` ->
``raise_for_problem``) and for the I/O layer.
``StateError`` is about a local file, never remote content: it stops the run.
"""

from __future__ import annotations

from ._models import ProblemKind


class SitemapReaderError(Exception):
    """Base of every error this package raises on purpose."""

    kind: ProblemKind = ProblemKind.ERROR  # how the walk reports it

    def __init__(self, message: str, *, url: str | None = None) -> None:
        super().__init__(message)
        self.url = url


class ParseError(SitemapReaderError):
    """A document is not what it claims to be, or is not well-formed."""

    kind = ProblemKind.NOT_WELL_FORMED

    def __init__(
        self,
        message: str,
        *,
        url: str | None = None,
        line: int | None = None,
        offset: int | None = None,
    ) -> None:
        super().__init__(message, url=url)
        self.line = line
        self.offset = offset


class UnsafeXMLError(ParseError):
    """The XML declares entities or references external ones; it is refused, never expanded."""

    kind = ProblemKind.UNSAFE_XML


class LimitExceeded(SitemapReaderError):
    """A configured limit (bytes, entries, depth, sitemaps, time) was reached."""

    def __init__(
        self, message: str, *, url: str | None = None, kind: ProblemKind = ProblemKind.TOO_LARGE
    ) -> None:
        super().__init__(message, url=url)
        self.kind = kind  # the limit's kind: DEADLINE, MAX_TOTAL_BYTES, TOO_LARGE, ...


class FetchError(SitemapReaderError):
    """A document could not be fetched."""

    kind = ProblemKind.NETWORK


class RedirectError(FetchError):
    """A redirect that cannot be followed: no Location, not http(s), a loop, too many."""

    kind = ProblemKind.REDIRECT


class HTTPStatusError(FetchError):
    """The server answered with a status that is not a success."""

    kind = ProblemKind.HTTP_STATUS

    def __init__(
        self,
        message: str,
        *,
        url: str | None = None,
        status: int,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message, url=url)
        self.status = status
        self.retry_after = retry_after  # seconds the server asked to wait (Retry-After)

    @property
    def retryable(self) -> bool:
        """408, 429 and 5xx are worth another try; other 4xx are final."""
        return self.status in (408, 429) or self.status >= 500


class TransportError(FetchError):
    """Connection refused or reset, DNS failure, timeout: worth another try."""


class ContentEncodingError(FetchError):
    """The body has a Content-Encoding this reader cannot undo: unknown, or its library is
    not installed here. Not retried: asking again brings the same coding."""

    kind = ProblemKind.CONTENT_ENCODING


class AddressRefused(FetchError):
    """The SSRF guard refused a host the documents named: it resolves to a loopback,
    private, link-local or otherwise special address (``ReaderConfig.allow_private``)."""

    kind = ProblemKind.PRIVATE_ADDRESS

    def __init__(self, message: str, *, url: str | None = None, host: str, address: str) -> None:
        super().__init__(message, url=url)
        self.host = host
        self.address = address


class StateError(SitemapReaderError):
    """A state file (``--state``) cannot be used: not SQLite, another application's database,
    damaged, or written by a newer sitemap-reader. The file is left as it was."""

    def __init__(self, message: str, *, path: str) -> None:
        super().__init__(message)
        self.path = path


class StateLocked(StateError):
    """Another run holds the state file: one run at a time per file. ``pid`` is the process
    that holds it, as its lock file says (None when it could not be read)."""

    def __init__(self, message: str, *, path: str, pid: int | None) -> None:
        super().__init__(message, path=path)
        self.pid = pid


def kind_of(error: Exception) -> ProblemKind:
    """The problem an exception is reported as: its class says; anything else is a bug."""
    if isinstance(error, SitemapReaderError):
        return error.kind
    return ProblemKind.ERROR
