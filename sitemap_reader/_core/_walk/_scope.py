"""Which page URLs a sitemap may list, and which sitemaps an index may name (pure).

-- https://www.sitemaps.org/protocol.html#location: "all URLs listed in the Sitemap must
use the same protocol (http, in this example) and reside on the same host as the Sitemap"
and "the location of a Sitemap file determines the set of URLs that can be included".
-- https://www.sitemaps.org/protocol.html#submit_robots (cross-submission): a robots.txt
vouches for its whole origin, for the sitemaps it names wherever they are stored, and for
the sitemaps reached from them through indexes (docs/configuration.md, "Which URLs are kept").

Checks are string prefix tests on a normalised form, with yarl only for URLs that do not
pass the fast test as written (a capitalised host, an explicit default port, ...).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from yarl import URL

from ..._base._config import ScopePolicy

# Why a URL was dropped; the words the per-sitemap report counts by.
OTHER_HOST = "other-host"
OTHER_SCHEME = "other-scheme"
OTHER_PORT = "other-port"
OUTSIDE_FOLDER = "outside-folder"
NOT_HTTP = "not-http"
ROBOTS = "robots"  # robots.txt disallows it (ReaderConfig.robots obey): no scope's reason


def origin_of(url: str) -> str:
    """``scheme://host[:port]`` normalised (lower case, default port dropped), or ''."""
    try:
        parsed = URL(url)
        # (yarl decodes the host lazily: an invalid punycode label, "xn--a", raises here)
        if parsed.scheme not in ("http", "https") or not parsed.host:
            return ""
        return str(parsed.origin())
    except (ValueError, TypeError):
        return ""


def folder_of(url: str) -> str:
    """The location prefix a sitemap at ``url`` vouches for: origin plus its folder."""
    try:
        parsed = URL(url)
    except (ValueError, TypeError):
        return ""
    path = parsed.raw_path or "/"
    return origin_of(url) + path[: path.rfind("/") + 1]


def _split(url: str) -> tuple[str, str, int | None, str] | None:
    try:
        parsed = URL(url)
        host = parsed.host  # may raise: see origin_of
        if parsed.scheme not in ("http", "https") or not host:
            return None
        return parsed.scheme, host.lower().rstrip("."), parsed.port, parsed.raw_path or "/"
    except (ValueError, TypeError):
        return None


@dataclass(frozen=True, slots=True)
class Scope:
    """What one sitemap may list.

    Args:
        sitemap_url: the sitemap's final URL (after redirects); '' for a local file.
        policy: STRICT, HOST or OFF.
        vouched: the origin of the robots.txt that vouches for this sitemap, or ''.
    """

    sitemap_url: str
    policy: ScopePolicy
    vouched: str = ""

    @property
    def folder(self) -> str:
        return folder_of(self.sitemap_url)

    def check(self, url: str) -> str | None:
        """None when ``url`` may be listed; else why not (one of the reason words)."""
        if self.policy is ScopePolicy.OFF or not self.sitemap_url:
            return None
        return _check(url, self.sitemap_url, self.policy, self.vouched)

    def check_child(self, url: str) -> str | None:
        """For an index: None when it may name the sitemap ``url``; else why not.

        A child must be on the index's own origin or on the vouching origin (any folder).
        """
        if self.policy is ScopePolicy.OFF or not self.sitemap_url:
            return None
        if self.policy is ScopePolicy.HOST:
            return _check(url, self.sitemap_url, self.policy, self.vouched)
        origin = origin_of(url)
        if not origin:
            return NOT_HTTP
        if origin in (origin_of(self.sitemap_url), self.vouched):
            return None
        return _why_not(url, self.sitemap_url)

    def filter(self) -> ScopeFilter:
        """A fast, stateful checker for the many page URLs of one sitemap."""
        return ScopeFilter(self)


class ScopeFilter:
    """``check(url)`` for many URLs: prefix tests on the strings, yarl only when they fail;
    ``all_pass(urls)`` for a whole batch at once. Both go through :meth:`fast`, the one
    Python statement of the fast test (the crate's is ``Gate::in_scope``, given
    :attr:`prefixes` by attribute and checked against :meth:`fast` in
    tests/output/test_compiled_gate.py)."""

    __slots__ = ("_off", "_prefix", "_prefixes", "_scope")

    def __init__(self, scope: Scope) -> None:
        self._scope = scope
        self._off = scope.policy is ScopePolicy.OFF or not scope.sitemap_url
        prefixes = []
        if not self._off:
            if scope.policy is ScopePolicy.STRICT:
                prefixes.append(scope.folder)
            else:
                prefixes.append(origin_of(scope.sitemap_url) + "/")
            if scope.vouched:
                prefixes.append(scope.vouched + "/")
        self._prefixes = tuple(p for p in prefixes if p)
        # The one prefix every other starts with, if there is one: a folder inside the
        # vouched origin (or the same one, a sitemap at the root) is passed by the origin.
        short = min(self._prefixes, key=len, default="")
        self._prefix = short if all(p.startswith(short) for p in self._prefixes) else ""

    @property
    def prefixes(self) -> tuple[str, ...] | None:
        """What the fast test passes: a URL starting with one of these that cannot leave
        its folder (None: scope is off, every URL passes). The crate's gate reads it."""
        return None if self._off else self._prefixes

    def fast(self, text: str) -> bool:
        """The fast test: True when scope is off, or ``text`` starts with one of the
        prefixes and holds nothing that may make it leave its folder; False says nothing
        (only :meth:`check` can tell)."""
        return self._off or (text.startswith(self._prefixes) and not _may_leave(text))

    def check(self, url: str) -> str | None:
        if self.fast(url):
            return None
        return self._scope.check(url)

    def all_pass(self, urls: list[str]) -> bool:
        """True when :meth:`fast` passes every one of ``urls``, told by one fast test of
        their joined text and two counts instead of a test a URL; False says nothing
        (check them one by one)."""
        if self._off:
            return True
        prefix = self._prefix
        if not prefix or not urls:
            return not urls
        joined = " ".join(urls)
        gaps = len(urls) - 1
        # No URL holds the separator, so each of the gaps is followed by the next URL: that
        # each one starts with the prefix every prefix starts with is then a count, and the
        # fast test of the joined text says the first does. What may make a URL leave its
        # folder cannot span a separator: found in the joined text if in any one URL.
        return (
            joined.count(" ") == gaps and joined.count(" " + prefix) == gaps and self.fast(joined)
        )


# What makes a URL leave the folder its text starts with, once a fetcher has read it: a dot
# segment (RFC 3986 section 5.2.4; "%2e" is a dot, section 6.2.2.2), or a tab or line break
# that a fetcher removes (WHATWG URL; yarl too), which can make one: "/dir/.\t./admin".
_MAY_LEAVE = re.compile(r"/(?:\.|%2[Ee])|[\t\n\r]").search


def _may_leave(text: str) -> bool:
    """Whether ``_MAY_LEAVE`` finds anything in ``text``, by substring searches first: the
    regex tries every position (about 1.4 us for a 100-character URL), they scan in C."""
    return (
        "/." in text
        or "\t" in text
        or "\n" in text
        or "\r" in text
        or ("/%2" in text and _MAY_LEAVE(text) is not None)
    )


def _check(url: str, sitemap_url: str, policy: ScopePolicy, vouched: str) -> str | None:
    if vouched and origin_of(url) == vouched:
        return None
    if policy is ScopePolicy.HOST:
        mine, theirs = _split(url), _split(sitemap_url)
        if mine is None:
            return NOT_HTTP
        if theirs is not None and mine[1] == theirs[1]:
            return None
        if vouched:
            home = _split(vouched)
            if home is not None and mine[1] == home[1]:
                return None
        return OTHER_HOST
    return _why_not(url, sitemap_url)


def _why_not(url: str, sitemap_url: str) -> str | None:
    """The sitemaps.org location rule: same scheme, host and port, within the folder."""
    mine, theirs = _split(url), _split(sitemap_url)
    if mine is None:
        return NOT_HTTP
    if theirs is None:
        return OTHER_HOST
    if mine[1] != theirs[1]:
        return OTHER_HOST
    if mine[0] != theirs[0]:
        return OTHER_SCHEME
    if mine[2] != theirs[2]:
        return OTHER_PORT
    folder = theirs[3][: theirs[3].rfind("/") + 1]
    if not mine[3].startswith(folder):
        return OUTSIDE_FOLDER
    return None
