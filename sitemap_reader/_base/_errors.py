"""The exception tree. Programmer mistakes raise ValueError/TypeError/RuntimeError instead.

    SitemapReaderError        anything else a problem names (no-sitemap, cycle, ...)
    ├── ParseError            bad remote content (url, line, offset where known)
    │   ├── UnsafeXMLError    a DTD entity or external reference (defusedxml's refusal)
    │   └── CodingError       not a valid gzip/deflate/br/zstd stream (coding; kept inside)
    ├── LimitExceeded         a configured limit was reached (bytes, entries, depth, ...)
    ├── FetchError            a document could not be fetched or read (url)
    │   ├── RedirectError     a redirect that cannot be followed (loop, no Location, too many)
    │   ├── HTTPStatusError   an HTTP status that is not success (status)
    │   ├── TransportError    timeouts, resets, DNS, refused connections
    │   ├── ContentEncodingError  a Content-Encoding that cannot be undone here
    │   ├── AddressRefused    the SSRF guard: a host that resolves to a private address
    │   └── WorkerLost        the process parsing a document died (ReaderConfig.workers)
    └── StateError            a state file that cannot be used (path): corrupted, foreign, newer
        └── StateLocked       another run holds the state file (pid)

A walk never raises these for remote content: the I/O layer raises them inside, and the
walk turns each into a :class:`~sitemap_reader.Problem` (each class carries the
:class:`ProblemKind` it is reported as, ``kind``, so no ladder of isinstance maps one to the
other). A caller who wants an exception instead asks :func:`raise_for_problem`.
``StateError`` is about a local file, never remote content: it is raised to the caller and
stops the run. ``CodingError`` never leaves the package: the parser and the fetch catch it.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from ._models import Problem, ProblemKind


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


class CodingError(ParseError):
    """The bytes are not a valid stream of ``coding`` (the message is the library's)."""

    kind = ProblemKind.GZIP_ERROR

    def __init__(self, coding: str, message: str) -> None:
        super().__init__(message)
        self.coding = coding


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


class WorkerLost(FetchError):
    """The worker process parsing a document died; what it sent before is kept."""

    kind = ProblemKind.WORKER_LOST


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


# The problems of a document's content (the rest of the family takes its class by its kind).
_CONTENT = frozenset(
    {
        ProblemKind.NAMESPACE,
        ProblemKind.INVALID_LOC,
        ProblemKind.RELATIVE_LOC,
        ProblemKind.LOC_TOO_LONG,
        ProblemKind.MISSING_LOC,
        ProblemKind.RELATIVE_LOC_RESOLVED,
        ProblemKind.INVALID_LASTMOD,
        ProblemKind.INVALID_CHANGEFREQ,
        ProblemKind.INVALID_PRIORITY,
        ProblemKind.INVALID_EXTENSION,
        ProblemKind.SEVERAL_LOCS,
        ProblemKind.UNCLOSED_ENTRY,
        ProblemKind.CUT_ENTRY,
        ProblemKind.REPEATED_ELEMENT,
        ProblemKind.ENCODING,
        ProblemKind.HTML,
        ProblemKind.UNKNOWN_FORMAT,
        ProblemKind.EMPTY,
        ProblemKind.NOT_WELL_FORMED,
        ProblemKind.TRUNCATED,
        ProblemKind.GZIP_ERROR,
        ProblemKind.UNKNOWN_ENCODING,
    }
)
_LIMITS = frozenset(
    {
        ProblemKind.TOO_MANY_URLS,
        ProblemKind.TOO_LARGE,
        ProblemKind.TOKEN_TOO_LARGE,
        ProblemKind.TOO_NESTED,
        ProblemKind.TOO_DEEP,
        ProblemKind.DEADLINE,
        ProblemKind.MAX_SITEMAPS,
        ProblemKind.MAX_SITEMAPS_PER_SITE,
        ProblemKind.MAX_ENTRIES,
        ProblemKind.MAX_TOTAL_BYTES,
    }
)
_FETCH: dict[ProblemKind, type[FetchError]] = {
    ProblemKind.NETWORK: TransportError,
    ProblemKind.REDIRECT: RedirectError,
    ProblemKind.CONTENT_ENCODING: ContentEncodingError,
    ProblemKind.WORKER_LOST: WorkerLost,
    ProblemKind.ROBOTS_UNAVAILABLE: FetchError,
    ProblemKind.UNREADABLE: FetchError,
}
# The words the fetch layer writes (_status_error, Guard.refusal): read back, not guessed.
_STATUS = re.compile(r"\bHTTP (\d{3})\b")
_REFUSED = re.compile(r"(\S+) is at (\S+?),")


def raise_for_problem(problem: Problem) -> None:
    """Raise the exception ``problem`` stands for: the class its kind belongs to, with the
    problem's message and URL (and ``kind``, the problem's own).

    Every problem it is given raises; pass only ``problem.fatal`` ones to stop on a document
    that failed, and not on a value that was left out::

        async for event in reader.walk(url):
            if isinstance(event, Problem) and event.fatal:
                raise_for_problem(event)
    """
    raise error_for(problem)


def error_for(problem: Problem) -> SitemapReaderError:
    """The exception :func:`raise_for_problem` raises for ``problem``."""
    kind, url, message = problem.kind, problem.url, problem.message
    error: SitemapReaderError
    if kind is ProblemKind.UNSAFE_XML:
        error = UnsafeXMLError(message, url=url)
    elif kind in _CONTENT:
        error = ParseError(message, url=url)
    elif kind in _LIMITS:
        error = LimitExceeded(message, url=url, kind=kind)
    elif kind is ProblemKind.HTTP_STATUS:
        status = _STATUS.search(message)
        error = HTTPStatusError(message, url=url, status=int(status[1]) if status else 0)
    elif kind is ProblemKind.PRIVATE_ADDRESS:
        refused = _REFUSED.search(message)
        host, address = (refused[1], refused[2]) if refused else (urlsplit(url).hostname, "")
        error = AddressRefused(message, url=url, host=host or "", address=address)
    elif kind in _FETCH:
        error = _FETCH[kind](message, url=url)
    else:  # a problem of the walk (no-sitemap, out-of-scope, cycle, shrink-held, ...)
        error = SitemapReaderError(message, url=url)
    error.kind = kind
    return error
