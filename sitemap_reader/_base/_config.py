"""Frozen configuration: limits, timeouts, retries, pace, scope. Of the package it imports
only :mod:`._sources` (``base_url`` is checked as a source is), :mod:`._follow` (the type of
``follow``) and :mod:`._request` (headers and a proxy are checked there), which import
nothing of it.

Every object validates itself in ``__post_init__`` and is changed with
``dataclasses.replace(cfg, ...)``. The numbers quote where they come from.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from ._follow import FollowPredicate
from ._request import Headers, check_proxy, header_pairs
from ._sources import check_base_url

# -- https://www.sitemaps.org/protocol.html#index: "no more than 50,000 URLs and must be no
# larger than 50MB (52,428,800 bytes)" uncompressed, for a sitemap and for an index alike.
MAX_URLS_PER_SITEMAP = 50_000
MAX_BYTES_PER_SITEMAP = 52_428_800
# -- https://www.sitemaps.org/protocol.html#locdef: "must be less than 2,048 characters".
MAX_LOC_LENGTH = 2_048


class RobotsPolicy(str, enum.Enum):
    """Whether robots.txt's rules judge the page URLs a sitemap lists (``ReaderConfig.robots``)."""

    IGNORE = "ignore"  # every listed URL is kept (robots.txt is read for its Sitemap: lines)
    OBEY = "obey"  # the URLs it disallows for the user agent are left out, and counted
    # Every URL is kept; those it disallows for the user agent or for "*" are counted in a
    # problem, as is a sitemap whose own URL it disallows (check's default).
    REPORT = "report"

    def __str__(self) -> str:
        return self.value


# What ``ReaderConfig.robots`` None means: for a walk, and for ``check`` (the library's and
# the command line's alike), where what robots.txt disallows is a finding (R108, R109).
WALK_ROBOTS = RobotsPolicy.IGNORE
CHECK_ROBOTS = RobotsPolicy.REPORT


class ScopePolicy(str, enum.Enum):
    """Which page URLs a sitemap may vouch for (docs/configuration.md, "Which URLs are kept")."""

    STRICT = "strict"  # sitemaps.org location rule, plus robots.txt vouching / cross-submission
    HOST = "host"  # same host (any scheme, port or folder)
    OFF = "off"  # keep everything

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True, kw_only=True)
class Limits:
    """Bounds that protect the reader. All are per document unless they say otherwise."""

    max_bytes: int = MAX_BYTES_PER_SITEMAP  # decompressed bytes one document may have
    max_urls: int = MAX_URLS_PER_SITEMAP  # entries past this are reported ...
    cut_at_max_urls: bool = False  # ... and, when True, the document is cut there
    max_loc_length: int = MAX_LOC_LENGTH  # a longer <loc> is dropped and reported
    # A text node, comment, CDATA section or text line that grows past this ends the
    # document: feeding such a token chunk after chunk must not cost unbounded memory.
    max_token_bytes: int = 1_048_576
    max_feed_bytes: int = 10_485_760  # feeds are parsed whole (feedparser), so cap them lower
    max_depth: int = 10  # nested indexes; the first sitemap is depth 0, robots.txt does not count
    # -- Run-wide budgets. Reaching one stops new work: what was read is kept, the rest is
    # reported once as not read. The defaults let the largest real sites through (a few
    # thousand sitemaps, tens of millions of URLs) while a hostile one, fanning out to
    # endless indexes, is cut at a bounded cost.
    # Sitemaps one run takes on (fetched or found unchanged); robots.txt is no sitemap, nor
    # is a well-known path probed that held none: neither counts.
    max_sitemaps: int = 100_000
    max_sitemaps_per_site: int = 20_000  # the same, per source the user named
    max_entries: int = 100_000_000  # page URLs one run delivers
    max_total_bytes: int = 16 * 1024**3  # body bytes one run receives, all documents together
    max_redirects: int = 5
    max_concurrency: int = 16  # requests in flight, all hosts together
    per_host: int = 4  # requests in flight to one host

    def __post_init__(self) -> None:
        for name in (
            "max_bytes",
            "max_urls",
            "max_loc_length",
            "max_token_bytes",
            "max_feed_bytes",
            "max_sitemaps",
            "max_sitemaps_per_site",
            "max_entries",
            "max_total_bytes",
            "max_concurrency",
            "per_host",
        ):
            if getattr(self, name) < 1:
                raise ValueError(f"Limits.{name} must be at least 1")
        if self.max_depth < 0 or self.max_redirects < 0:
            raise ValueError("Limits.max_depth and Limits.max_redirects must not be negative")


@dataclass(frozen=True, slots=True, kw_only=True)
class Timeouts:
    """Seconds. ``None`` means no bound for that phase."""

    connect: float | None = 10.0
    read: float | None = 30.0  # one wait for data (headers or the next piece of a body)
    # The waits of one request added up, body included: a server trickling bytes is cut
    # here. Time a slow consumer holds a body back is not network time and does not count.
    request: float | None = 300.0
    # The whole run: no document is started past it, and reads in flight are cut. An hour
    # reads a 50-million-URL site at the measured rates; None removes the bound.
    deadline: float | None = 3600.0

    def __post_init__(self) -> None:
        for name in ("connect", "read", "request", "deadline"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise ValueError(f"Timeouts.{name} must be positive or None")


@dataclass(frozen=True, slots=True, kw_only=True)
class RetryPolicy:
    """Retries on connection errors, timeouts, 408, 429 and 5xx; never on other 4xx."""

    attempts: int = 3  # tries in all, the first included
    backoff: float = 0.5  # first wait in seconds; grows exponentially, with full jitter
    max_backoff: float = 10.0
    max_retry_after: float = 60.0  # a longer Retry-After is capped to this

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise ValueError("RetryPolicy.attempts must be at least 1")
        if self.backoff < 0 or self.max_backoff < 0 or self.max_retry_after < 0:
            raise ValueError("RetryPolicy waits must not be negative")


# -- A Crawl-delay or Retry-After longer than this is capped to it: a site that asks for an
# hour between requests does not stall a run that reads thousands of its sitemaps.
DEFAULT_MAX_DELAY = 30.0


@dataclass(frozen=True, slots=True, kw_only=True)
class Pace:
    """How often one host (host:port) is asked: the least time between the starts of two
    requests to it. Redirect hops and retries are requests; other hosts are not slowed.

    A 429 or 503 answer with ``Retry-After`` raises its host's delay to at least that for the
    rest of the run, capped by ``max_delay`` (0 turns this off) and by the retry policy's
    ``max_retry_after``. The run's deadline still ends the run: a request that its host's
    pace would start after the deadline is not made.
    """

    delay: float = 0.0  # seconds between the starts of two requests to one host, at least
    # Take robots.txt's Crawl-delay for the user agent's group (else ``*``'s) as the host's
    # delay when it is longer, capped by ``max_delay``.
    obey_crawl_delay: bool = False
    max_delay: float = DEFAULT_MAX_DELAY  # the cap of Crawl-delay and Retry-After, not of delay

    def __post_init__(self) -> None:
        for name in ("delay", "max_delay"):
            value = getattr(self, name)
            if not 0 <= value < float("inf"):
                raise ValueError(f"Pace.{name} must be a finite number of seconds, 0 or more")


# A week: a sitemap whose index lastmod has not moved is still asked again (a conditional
# request) once its last check is this old: a site whose files change while its index
# lastmods stay put is not trusted forever.
DEFAULT_MAX_AGE = 7 * 86_400.0


class TrustLastmod(str, enum.Enum):
    """When an index's lastmod may stand for a fetch (``Incremental.trust_lastmod``)."""

    ALWAYS = "always"  # a child whose index lastmod did not move is skipped
    AUTO = "auto"  # ... unless its source's lastmods were judged untrusted
    NEVER = "never"  # every child is asked again (conditionally, its bytes compared)

    def __str__(self) -> str:
        return self.value


# A sitemap or source that lists fewer than this share of the URLs of its last complete read
# holds its removals back until a later run sees the same.
DEFAULT_SHRINK_GUARD = 0.5
# The recheck sample's default (Incremental.recheck None), per source and run: children that
# answer conditional requests are asked again up to RECHECK_ANSWERING a run (a 304 has no
# body); the others by a byte budget of RECHECK_SHARE of the source's size, carried over
# from run to run, and at least one every RECHECK_EVERY runs (docs/incremental.md).
RECHECK_SHARE = 0.02
RECHECK_ANSWERING = 4
RECHECK_EVERY = 5


@dataclass(frozen=True, slots=True, kw_only=True)
class Incremental:
    """What a run with a state store fetches and emits (``SitemapReader(state=...)``).

    Without a store these have no effect, except that ``changes`` needs one.
    """

    # Seconds: past this since its last check, a child whose index lastmod is unchanged gets
    # a conditional request instead of being skipped.
    max_age: float = DEFAULT_MAX_AGE
    # Read and emit everything, as without a store (no skips, no validators), and record it.
    read_all: bool = False
    # Keep every entry's loc and lastmod in the store and emit only what changed since the
    # last run with changes on (EntryChange records), instead of Entry records.
    changes: bool = False
    # Skip a child on its index's lastmod: always, unless its source's lastmods are judged
    # untrusted (auto), or never.
    trust_lastmod: TrustLastmod = TrustLastmod.AUTO
    # With changes: a sitemap or source listing fewer than this share of the URLs of its last
    # complete read holds its removals back until a later run confirms; 0 turns it off.
    shrink_guard: float = DEFAULT_SHRINK_GUARD
    # With changes: hand the changes out but keep them pending, so that the next run with
    # changes hands them out again: a look (``tree --changes``) that takes nothing from the
    # feed a pipeline reads.
    peek: bool = False
    # Seconds a run waits for another run holding the same state file to end; past it (and
    # at once with 0) the reader raises StateLocked.
    wait: float = 0.0
    # Per source and run (with trust_lastmod auto): children it would skip on their index
    # lastmod that are asked again conditionally, the longest unchecked first, so that a
    # child that changed without its index saying so is found and the source's lastmods
    # distrusted. None: by a byte budget (RECHECK_SHARE of the source's size a run); N: N
    # children, whatever they cost; 0: none.
    recheck: int | None = None

    def __post_init__(self) -> None:
        if not self.max_age >= 0:
            raise ValueError("Incremental.max_age must not be negative")
        if not self.wait >= 0:
            raise ValueError("Incremental.wait must not be negative")
        if self.recheck is not None and self.recheck < 0:
            raise ValueError("Incremental.recheck must not be negative")
        if not isinstance(self.trust_lastmod, TrustLastmod):
            object.__setattr__(self, "trust_lastmod", TrustLastmod(self.trust_lastmod))
        if not 0 <= self.shrink_guard <= 1:
            raise ValueError("Incremental.shrink_guard must be between 0 (off) and 1")


# Where sites keep a sitemap that robots.txt does not name: the defaults of WordPress core
# (wp-sitemap.xml), Yoast and Rank Math (sitemap_index.xml), generators that write
# sitemap.xml(.gz) or sitemap.txt, and sitemap-index.xml (Astro, next-sitemap and others).
WELL_KNOWN_PATHS: tuple[str, ...] = (
    "/sitemap.xml",
    "/sitemap_index.xml",
    "/sitemap-index.xml",
    "/wp-sitemap.xml",
    "/sitemap.xml.gz",
    "/sitemap.txt",
)

DEFAULT_USER_AGENT = "sitemap-reader (+https://pypi.org/project/sitemap-reader/)"


@dataclass(frozen=True, slots=True, kw_only=True)
class ReaderConfig:
    """Everything a :class:`SitemapReader` and a :class:`SitemapParser` are told."""

    limits: Limits = field(default_factory=Limits)
    timeouts: Timeouts = field(default_factory=Timeouts)
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    pace: Pace = field(default_factory=Pace)
    scope: ScopePolicy = ScopePolicy.STRICT
    # OBEY: page URLs the site's robots.txt disallows for ``user_agent`` are left out,
    # counted by the word "robots" (SitemapVisited.dropped) and said in a problem, and a
    # sitemap whose own URL it disallows is not fetched. None: the default of what runs,
    # IGNORE for a walk, REPORT for ``SitemapReader.check`` (as for the command line's).
    robots: RobotsPolicy | None = None
    user_agent: str = DEFAULT_USER_AGENT
    # Paths tried when robots.txt names no sitemap; () turns the probing off.
    well_known_paths: tuple[str, ...] = WELL_KNOWN_PATHS
    # A relative <loc> is invalid; True resolves it against the document's URL (reported).
    resolve_relative: bool = False
    # Where local files (paths, file: URLs, stdin) stand: read as if fetched from this http(s)
    # URL, so relative locs resolve against it and scope judges their entries by it; their
    # records name it as their sitemap. None: a local file has no location, and no scope.
    base_url: str | None = None
    incremental: Incremental = field(default_factory=Incremental)
    # The SSRF guard (on when False): a host the documents name, other than the sources'
    # own, may not resolve to a loopback, private, link-local or otherwise special address.
    allow_private: bool = False
    # Worker processes that parse the sitemaps an index names (the first document of a run
    # is parsed in this one, the walk's; workers start when a second asks). 0: none.
    workers: int = 0
    # Threads that parse the documents read in this process (all but those the workers
    # take): each document's chunks go to them one call at a time, in order, while the walk
    # goes on fetching. None: one a core when the parser's core is compiled (it parses with
    # the GIL released) and there are several cores; none when it is pure Python (which
    # holds the GIL: threads would only add cost). 0: none, every document parsed on the
    # walk's event loop.
    parse_threads: int | None = None
    # Which child sitemaps an index names are fetched: called with each ChildSitemap before
    # it is queued; False leaves it unread, reported skipped (and, with a state store, not
    # taken as removed). The sources (given, or named by a robots.txt) are never judged; an
    # index whose every child it refuses gets a nothing-followed problem.
    # FollowRules is --follow/--skip; a predicate with a refusal(child) -> str | None
    # method, as FollowRules has, says in its own words why a child was refused.
    follow: FollowPredicate | None = None
    # -- Request settings, on every request of a run (robots.txt, probes, sitemaps, each
    # redirect hop). Extra headers, as (name, value) pairs (a dict is taken too); Authorization,
    # Cookie and Proxy-Authorization go to the first host only, not across a redirect to
    # another. Left out of the repr, as the proxy is: a config may be logged.
    headers: Headers = field(default=(), repr=False)
    # An http:// proxy for http and https targets, credentials in its URL. None: direct.
    proxy: str | None = field(default=None, repr=False)
    # Read HTTP_PROXY, HTTPS_PROXY, NO_PROXY and .netrc as curl does; off, so that a run does
    # not change with the environment. An explicit ``proxy`` wins over the environment's.
    trust_env: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "headers", header_pairs(self.headers))
        if self.proxy is not None:
            check_proxy(self.proxy)
        if self.follow is not None and not callable(self.follow):
            raise TypeError(f"ReaderConfig.follow must be callable, not {self.follow!r}")
        if self.workers < 0:
            raise ValueError("ReaderConfig.workers must be 0 or more")
        if self.parse_threads is not None and self.parse_threads < 0:
            raise ValueError("ReaderConfig.parse_threads must be None (auto), 0 or more")
        if not isinstance(self.scope, ScopePolicy):
            object.__setattr__(self, "scope", ScopePolicy(self.scope))
        if self.robots is not None and not isinstance(self.robots, RobotsPolicy):
            object.__setattr__(self, "robots", RobotsPolicy(self.robots))
        if not self.user_agent.strip():
            raise ValueError("ReaderConfig.user_agent must not be empty")
        for path in self.well_known_paths:
            if not path.startswith("/"):
                raise ValueError(f"well-known path {path!r} must start with '/'")
        if self.base_url is not None:
            check_base_url(self.base_url)


DEFAULT_LIMITS = Limits()
DEFAULT_TIMEOUTS = Timeouts()
DEFAULT_RETRY = RetryPolicy()
DEFAULT_INCREMENTAL = Incremental()
DEFAULT_CONFIG = ReaderConfig()
