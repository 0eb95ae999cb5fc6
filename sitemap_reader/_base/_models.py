"""Records and events: everything the core emits and the walk reports.

A leaf module: it imports nothing from the package. Every record is a frozen, slotted
dataclass whose fields keep the protocol's names (``loc``, ``lastmod``, ...), so records,
JSON output and docs speak one language. Absent values stay ``None`` (the protocol's
default priority of 0.5 is the consumer's business) and collections are tuples.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime

_SETATTR = object.__setattr__


class ChangeFreq(str, enum.Enum):
    """The protocol's ``<changefreq>`` values."""

    ALWAYS = "always"
    HOURLY = "hourly"
    DAILY = "daily"
    WEEKLY = "weekly"
    MONTHLY = "monthly"
    YEARLY = "yearly"
    NEVER = "never"

    def __str__(self) -> str:
        return self.value


class Format(str, enum.Enum):
    """What a document turned out to be."""

    URLSET = "urlset"
    SITEMAPINDEX = "sitemapindex"
    TEXT = "text"
    RSS = "rss"
    ATOM = "atom"
    HTML = "html"  # a web page where a sitemap was expected (soft 404)
    ROBOTS = "robots"  # a robots.txt (in walk reports)
    UNKNOWN = "unknown"  # XML with another root, or nothing at all

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True)
class Event:
    """Base of everything a :class:`SitemapParser` returns. Don't subclass outside the package."""


@dataclass(frozen=True, slots=True)
class Image:
    """``<image:image>`` (http://www.google.com/schemas/sitemap-image/1.1)."""

    loc: str
    caption: str | None = None
    title: str | None = None
    geo_location: str | None = None
    license: str | None = None

    # Written out as Entry's is (see there): a large sitemap holds tens of thousands.
    def __init__(
        self,
        loc: str,
        caption: str | None = None,
        title: str | None = None,
        geo_location: str | None = None,
        license: str | None = None,
    ) -> None:
        _set = _SETATTR
        _set(self, "loc", loc)
        _set(self, "caption", caption)
        _set(self, "title", title)
        _set(self, "geo_location", geo_location)
        _set(self, "license", license)


@dataclass(frozen=True, slots=True)
class Video:
    """``<video:video>`` (http://www.google.com/schemas/sitemap-video/1.1)."""

    thumbnail_loc: str | None = None
    title: str | None = None
    description: str | None = None
    content_loc: str | None = None
    player_loc: str | None = None
    duration: int | None = None  # seconds
    expiration_date: datetime | None = None
    rating: float | None = None
    view_count: int | None = None
    publication_date: datetime | None = None
    family_friendly: bool | None = None
    requires_subscription: bool | None = None
    live: bool | None = None
    uploader: str | None = None
    category: str | None = None
    tags: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class News:
    """``<news:news>`` (http://www.google.com/schemas/sitemap-news/0.9)."""

    publication_name: str | None = None
    publication_language: str | None = None
    publication_date: datetime | None = None
    title: str | None = None
    keywords: str | None = None
    genres: str | None = None


@dataclass(frozen=True, slots=True)
class Alternate:
    """``<xhtml:link rel="alternate" hreflang=".." href="..">`` (http://www.w3.org/1999/xhtml)."""

    hreflang: str | None
    href: str
    media: str | None = None

    # Written out as Entry's is (see there): a multilingual sitemap holds several an entry.
    def __init__(self, hreflang: str | None, href: str, media: str | None = None) -> None:
        _set = _SETATTR
        _set(self, "hreflang", hreflang)
        _set(self, "href", href)
        _set(self, "media", media)


@dataclass(frozen=True, slots=True)
class Entry(Event):
    """One page URL a sitemap lists.

    ``sitemap`` is the URL of the document the entry came from (its final URL after
    redirects), the absolute path of a local file, or ``-`` for stdin.
    """

    loc: str
    lastmod: datetime | None = None  # always timezone-aware
    changefreq: ChangeFreq | None = None
    priority: float | None = None
    sitemap: str = ""
    images: tuple[Image, ...] = ()
    videos: tuple[Video, ...] = ()
    news: tuple[News, ...] = ()
    alternates: tuple[Alternate, ...] = ()

    # Written out because it is the hottest line of the parser: the __init__ that
    # dataclass(frozen=True) generates looks object.__setattr__ up once per field and costs
    # about twice as much. Same signature, same defaults; dataclass keeps an explicit one.
    def __init__(
        self,
        loc: str,
        lastmod: datetime | None = None,
        changefreq: ChangeFreq | None = None,
        priority: float | None = None,
        sitemap: str = "",
        images: tuple[Image, ...] = (),
        videos: tuple[Video, ...] = (),
        news: tuple[News, ...] = (),
        alternates: tuple[Alternate, ...] = (),
    ) -> None:
        _set = _SETATTR
        _set(self, "loc", loc)
        _set(self, "lastmod", lastmod)
        _set(self, "changefreq", changefreq)
        _set(self, "priority", priority)
        _set(self, "sitemap", sitemap)
        _set(self, "images", images)
        _set(self, "videos", videos)
        _set(self, "news", news)
        _set(self, "alternates", alternates)


@dataclass(frozen=True, slots=True)
class SitemapRef(Event):
    """A sitemap named by an index (``<sitemap><loc>``) or by a robots.txt ``Sitemap:`` line.

    ``lastmod`` is when the index says the child last changed; ``source`` is the URL of the
    index or robots.txt that named it.
    """

    loc: str
    lastmod: datetime | None = None
    source: str = ""


class ProblemKind(str, enum.Enum):
    """Every ``Problem.kind``: a short stable word, the table of docs/problems.md in code.

    A ``str`` enum, so kinds compare equal to their words and JSON output is unchanged.
    """

    # The document's content: tolerated (the entry or value left out) ...
    NAMESPACE = "namespace"
    INVALID_LOC = "invalid-loc"
    RELATIVE_LOC = "relative-loc"
    LOC_TOO_LONG = "loc-too-long"
    MISSING_LOC = "missing-loc"
    RELATIVE_LOC_RESOLVED = "relative-loc-resolved"
    INVALID_LASTMOD = "invalid-lastmod"
    INVALID_CHANGEFREQ = "invalid-changefreq"
    INVALID_PRIORITY = "invalid-priority"
    INVALID_EXTENSION = "invalid-extension"
    IMAGE_MISSING_LOC = "image-missing-loc"
    ENCODING = "encoding"
    TOO_MANY_URLS = "too-many-urls"
    # ... or kept from a malformed entry: its further <loc>s, an entry another one ran
    # into, an entry the end of the document cut, a field given twice (the last one kept).
    SEVERAL_LOCS = "several-locs"
    UNCLOSED_ENTRY = "unclosed-entry"
    CUT_ENTRY = "cut-entry"
    REPEATED_ELEMENT = "repeated-element"
    # ... or ending the document.
    HTML = "html"
    UNKNOWN_FORMAT = "unknown-format"
    EMPTY = "empty"
    NOT_WELL_FORMED = "not-well-formed"
    MERGE_CONFLICT = "merge-conflict"  # not well-formed: git's conflict markers in the file
    TRUNCATED = "truncated"
    UNSAFE_XML = "unsafe-xml"
    TOO_LARGE = "too-large"
    TOKEN_TOO_LARGE = "token-too-large"
    TOO_NESTED = "too-nested"
    GZIP_ERROR = "gzip-error"
    UNKNOWN_ENCODING = "unknown-encoding"
    # The fetch.
    HTTP_STATUS = "http-status"
    NETWORK = "network"
    REDIRECT = "redirect"
    CONTENT_ENCODING = "content-encoding"
    PRIVATE_ADDRESS = "private-address"
    # Budgets of the run.
    DEADLINE = "deadline"
    MAX_SITEMAPS = "max-sitemaps"
    MAX_SITEMAPS_PER_SITE = "max-sitemaps-per-site"
    MAX_ENTRIES = "max-entries"
    MAX_TOTAL_BYTES = "max-total-bytes"
    # Discovery and the walk.
    ROBOTS_UNAVAILABLE = "robots-unavailable"
    NO_SITEMAP = "no-sitemap"
    OUT_OF_SCOPE = "out-of-scope"
    # Page URLs robots.txt disallows (ReaderConfig.robots): left out when obeyed, else
    # counted; a sitemap whose own URL it disallows (not fetched when obeyed); and a
    # sitemap given directly that it does not name while it names others.
    ROBOTS_DISALLOWED = "robots-disallowed"
    ROBOTS_DISALLOWED_SITEMAP = "robots-disallowed-sitemap"
    SITEMAP_NOT_IN_ROBOTS = "sitemap-not-in-robots"
    # A robots.txt group of more rules with "*" than the matcher keeps (a bound on its cost).
    ROBOTS_RULES_DROPPED = "robots-rules-dropped"
    TOO_DEEP = "too-deep"
    CYCLE = "cycle"
    DUPLICATE = "duplicate"
    # The caller's follow rules (ReaderConfig.follow, --follow, --skip) refused every child
    # an index names: nothing below it is read.
    NOTHING_FOLLOWED = "nothing-followed"
    UNREADABLE = "unreadable"
    WORKER_LOST = "worker-lost"  # the process parsing a document died (ReaderConfig.workers)
    # The change feed's shrink guard.
    SHRINK_HELD = "shrink-held"
    SHRINK_CONFIRMED = "shrink-confirmed"
    # An exception no other kind names (a bug if it is ever seen).
    ERROR = "error"

    # Read as the word everywhere: str() and f-strings ("... [network]").
    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


@dataclass(frozen=True, slots=True, kw_only=True)
class Problem(Event):
    """Something that went wrong or was tolerated while reading ``url``.

    ``kind`` is a short stable word (see the table of kinds in docs/problems.md); ``message`` says what
    happened in words, naming the cause. A ``fatal`` problem ended its document: records
    returned before it stand, nothing after it was read. The fields after it say what the
    reader knew, for programs (``check`` reads them, never the message): ``line`` (1-based)
    and ``column`` (0-based, as expat and the message count it) where the fault is, ``count`` how many times a
    tolerated fault occurred in it (reported once a kind), and ``example`` the first value
    at fault, as quoted in the message.
    """

    kind: ProblemKind
    url: str
    message: str
    fatal: bool = False
    line: int | None = None
    column: int | None = None
    count: int | None = None
    example: str | None = None

    def __str__(self) -> str:
        return f"{self.url}: {self.message} [{self.kind}]"


class Status(str, enum.Enum):
    """How reading one document ended, in a :class:`SitemapVisited` report."""

    OK = "ok"  # read to the end
    PARTIAL = "partial"  # read in part: the records before a fault or a limit were kept
    FAILED = "failed"  # nothing could be read (HTTP error, network, not a sitemap)
    MISSING = "missing"  # a well-known path probed and not there (no problem reported)
    UNCHANGED = "unchanged"  # not fetched again: unchanged since the last run
    SKIPPED = "skipped"  # not fetched: out of scope, too deep, a budget, a disallowed site
    DUPLICATE = "duplicate"  # already read in this run (also after a redirect)
    CYCLE = "cycle"  # an index names one of its own ancestors

    def __str__(self) -> str:
        return self.value


class Trust(str, enum.Enum):
    """Whether the lastmods a site writes can be believed (:class:`LastmodTrust`)."""

    TRUSTED = "trusted"  # checked, and nothing said otherwise
    UNTRUSTED = "untrusted"  # a signal said they lie (see the reasons)
    UNKNOWN = "unknown"  # too little to judge (no lastmods, nothing checked yet)

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True)
class LastmodTrust:
    """The verdict on a sitemap's (or a whole source's) lastmods, with what it rests on.

    ``reasons`` say in words why it is not trusted (empty when it is); ``counts`` are the
    signals measured, by name (docs/incremental.md, "Lastmod trust"), in this run and, for the signals
    only a state file can show, over the runs it recorded.
    """

    verdict: Trust
    reasons: tuple[str, ...] = ()
    counts: tuple[tuple[str, int], ...] = ()

    def __str__(self) -> str:
        why = f" ({'; '.join(self.reasons)})" if self.reasons else ""
        return f"{self.verdict.value}{why}"


@dataclass(frozen=True, slots=True)
class SitemapVisited(Event):
    """The report of one document the walk met: a robots.txt, an index or a sitemap.

    ``url`` is the URL as named (by the user, a robots.txt or an index: ``source``);
    ``final_url`` the URL after redirects. ``depth`` 0 is a sitemap the user or a robots.txt
    named. ``dropped`` counts the entries left out by reason (scope), ``dropped_examples``
    gives the first URL dropped for each reason, ``problems`` holds
    what went wrong or was tolerated, ``lastmod`` is what the parent index said, and
    ``lastmods`` (with a state store) whether this document's lastmods can be trusted. The
    fields after it describe the response (see their comment).
    """

    url: str
    status: Status
    final_url: str | None = None
    source: str = ""
    depth: int = 0
    format: Format | None = None
    http_status: int | None = None
    bytes: int = 0  # as received (compressed where it was)
    entries: int = 0  # page URLs emitted (after scope)
    children: int = 0  # sitemaps an index or robots.txt named
    dropped: tuple[tuple[str, int], ...] = ()
    # The first URL dropped for each reason of ``dropped``, as (reason, URL): what a fix for
    # it must keep in scope.
    dropped_examples: tuple[tuple[str, str], ...] = ()
    problems: tuple[Problem, ...] = ()
    lastmod: datetime | None = None
    # With a state store: the verdict on this document's lastmods (None without one).
    lastmods: LastmodTrust | None = None
    # A child the caller chose not to fetch (ReaderConfig.follow; status SKIPPED): the rule
    # that refused it, in words ("matches --skip 'tag'"). None for every other document.
    not_followed: str | None = None
    # When it was named in the run (0, 1, 2...): sources in the order given, then the
    # documents robots.txt files and indexes name, each in its document order. A parent's
    # children sorted by it are in the order the parent names them, whatever order they
    # finished in.
    order: int = 0
    # What the response said of itself, for `check` (None where nothing was fetched):
    # the redirect hops as (status, target), the Content-Type and Content-Encoding headers,
    # whether the body was a gzip file (its magic bytes), the character encoding when it
    # was not UTF-8, and the seconds spent waiting on the network.
    redirects: tuple[tuple[int, str], ...] = ()
    content_type: str | None = None
    content_encoding: str | None = None
    gzipped: bool = False
    encoding: str | None = None
    elapsed: float | None = None


# -- incremental runs ---------------------------------------------------------------------------


class ChangeKind(str, enum.Enum):
    """What happened to a page URL since the last run with a change feed."""

    NEW = "new"  # listed now, by no sitemap before
    MODIFIED = "modified"  # listed before and now, and its lastmod moved
    REMOVED = "removed"  # no longer listed: its sitemap was re-read, or left its index

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True)
class EntryChange(Event):
    """One line of the change feed (``--changes``), emitted at the end of a run.

    A separate record, not an :class:`Entry`: a removed URL is listed by no sitemap, and the
    store keeps only ``loc`` and ``lastmod`` of each entry, so this record carries just those,
    with ``sitemap`` (the document that lists it now, or listed it last when removed) and
    ``change``. ``lastmod`` is the new one (the last known one when removed), in UTC.
    """

    change: ChangeKind
    loc: str
    lastmod: datetime | None = None
    sitemap: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class SitemapState:
    """What a state store remembers of one document after it was last read completely.

    ``url`` is the key: the URL as named (by the user, a robots.txt or an index), in yarl's
    normal form. ``lastmod`` is what the naming index said at that read; ``children`` are the
    sitemaps an index or robots.txt named (replayed when it is unchanged); ``tracked`` says
    the store also holds its entries for the change feed.
    """

    url: str
    final_url: str
    status: Status  # OK or PARTIAL (a content fault or a limit, the body read to its end)
    format: Format | None = None
    lastmod: datetime | None = None
    etag: str | None = None
    last_modified: str | None = None  # the Last-Modified header, as sent
    fetched_at: datetime  # when it was last read completely (UTC)
    checked_at: datetime  # last read or confirmed unchanged (304, same bytes)
    entries: int = 0
    bytes: int = 0  # as received at that read: what an unchanged run saves
    digest: str | None = None  # BLAKE2b-128 of the body as received, hex
    children: tuple[SitemapRef, ...] = ()
    tracked: bool = False
