"""The checks ``check`` makes over records, beyond what the parser reports (pure, no I/O).

:class:`DocumentLint` looks at the entries of one document as they stream (values, escaping,
extensions and their limits, duplicates, a lastmod stamped on one instant or given as a date
alone); :class:`SiteLint` at the entries of
the whole run (the same URL in several sitemaps, hreflang alternates that do not name each
other back). Memory is bounded: a document's duplicates are tracked up to
``max_doc_urls`` URLs; the run's up to ``max_tracked_urls`` URLs and ``max_hreflang_pages``
pages with alternates (a notice says so when a bound is reached: the checks go on over what
was tracked). URLs are tracked by their 64-bit hash, never by their text; hreflang pages keep
their URLs (interned: the pages of one set name the same alternates).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta

from .._base._models import Entry, News, Video
from .._base._words import plural, shorten
from .._core._dates import written_as_date
from ._codes import Finding, finding
from ._hreflang import is_hreflang

# Characters a URL must percent-encode (RFC 3986 section 2; sitemaps.org "Entity escaping"):
# controls, space, <>"{}|\^` and anything not ASCII.
_UNESCAPED = re.compile(r'[\x00-\x20\x7f-\U0010ffff<>"{}|\\^`]').search
NEWS_MAX = 1_000  # news entries a news sitemap may hold (Google News)
NEWS_MAX_AGE = timedelta(days=2)  # how old a news sitemap's articles may be
FUTURE_SLACK = timedelta(days=1)  # time zones and clock skew: a lastmod within a day is fine
ONE_INSTANT_MIN = 10  # lastmods needed before "one instant for most URLs" is judged
IMAGES_MAX = 1_000  # <image:image> one <url> may hold (Google's image extension)
VIDEO_TITLE_MAX = 100  # characters of <video:title> (Google's video extension)
VIDEO_DESCRIPTION_MAX = 2_048  # characters of <video:description>


@dataclass(frozen=True, slots=True)
class LintOptions:
    """Bounds and clock of the checks (``now`` for tests; None: the current time)."""

    max_doc_urls: int = 100_000
    max_tracked_urls: int = 250_000
    max_hreflang_pages: int = 50_000
    now: datetime | None = None


def needs_escaping(loc: str) -> bool:
    """True when ``loc`` holds a character a URL must percent-encode."""
    return _UNESCAPED(loc) is not None


def video_missing(video: Video) -> tuple[str, ...]:
    """The required fields ``video`` lacks (Google's video sitemap)."""
    missing = [
        name
        for name, value in (
            ("thumbnail_loc", video.thumbnail_loc),
            ("title", video.title),
            ("description", video.description),
        )
        if not value
    ]
    if not (video.content_loc or video.player_loc):
        missing.append("content_loc or player_loc")
    return tuple(missing)


def news_missing(news: News) -> tuple[str, ...]:
    """The required fields ``news`` lacks (Google News sitemap)."""
    return tuple(
        name
        for name, value in (
            ("publication name", news.publication_name),
            ("publication language", news.publication_language),
            ("publication_date", news.publication_date),
            ("title", news.title),
        )
        if not value
    )


def date_only(lastmod: datetime) -> bool:
    """True when ``lastmod`` was written as a date alone ("2024-05-01"): both cores parse it
    to midnight in ``_dates.DATE_ALONE``, where "2024-05-01T00:00:00Z" is midnight in UTC
    itself, a time of day given."""
    return written_as_date(lastmod)


def video_too_long(video: Video) -> str | None:
    """What of ``video`` is longer than Google allows, in words; None when nothing is."""
    over = [
        f"a {name} of {len(value):,} characters (at most {limit:,})"
        for name, value, limit in (
            ("title", video.title, VIDEO_TITLE_MAX),
            ("description", video.description, VIDEO_DESCRIPTION_MAX),
        )
        if value is not None and len(value) > limit
    ]
    return " and ".join(over) or None


def lacks_self(entry: Entry) -> bool:
    """True when ``entry`` has hreflang alternates and none of them is the page itself."""
    hrefs = [a.href for a in entry.alternates if a.hreflang]
    return bool(hrefs) and entry.loc not in hrefs


def lacks_x_default(entry: Entry) -> bool:
    """True when ``entry`` has hreflang alternates and none is ``x-default``."""
    langs = [a.hreflang.lower() for a in entry.alternates if a.hreflang]
    return bool(langs) and "x-default" not in langs


class Majority:
    """The value most entries share, in constant memory (Misra-Gries with ``k`` counters).

    Each estimate is at most the true count and at least the true count less n/k; so a
    value whose estimate is over half of n is held by over half of the values.
    """

    __slots__ = ("_counters", "_k", "n")

    def __init__(self, k: int = 32) -> None:
        self._k = k
        self._counters: dict[object, int] = {}
        self.n = 0

    def add(self, value: object) -> None:
        self.n += 1
        counters = self._counters
        if value in counters:
            counters[value] += 1
        elif len(counters) < self._k:
            counters[value] = 1
        else:
            for key in list(counters):
                counters[key] -= 1
                if not counters[key]:
                    del counters[key]

    def top(self) -> tuple[object, int] | None:
        """The value with the highest estimate and that estimate."""
        if not self._counters:
            return None
        value = max(self._counters, key=self._counters.__getitem__)
        return value, self._counters[value]


class _Tally:
    """Counts per check name with the first example, reported once per document."""

    __slots__ = ("counts",)

    def __init__(self) -> None:
        self.counts: dict[str, list[object]] = {}

    def note(self, name: str, example: str) -> None:
        slot = self.counts.get(name)
        if slot is None:
            self.counts[name] = [1, example]
        else:
            slot[0] += 1  # type: ignore[operator]


# What each per-entry finding says of one and of several: "1 URL is", "2 URLs are".
_WORDS = {
    "duplicate-url": ("URL is listed", "URLs are listed", "more than once in this sitemap"),
    "loc-not-escaped": ("URL holds", "URLs hold", "characters that must be percent-encoded"),
    "lastmod-future": ("lastmod value is", "lastmod values are", "in the future"),
    "video-missing-field": ("video lacks", "videos lack", "a required field"),
    "news-missing-field": ("news entry lacks", "news entries lack", "a required field"),
    "news-old": (
        "news entry was",
        "news entries were",
        "published more than two days ago",
    ),
    "hreflang-invalid": (
        "hreflang value is",
        "hreflang values are",
        "no language tag (an ISO 639 language, then a script or region)",
    ),
    "hreflang-no-x-default": (
        "URL has",
        "URLs have",
        "hreflang alternates but no x-default",
    ),
    "lastmod-date-only": (
        "lastmod value gives",
        "lastmod values give",
        "a date but no time of day",
    ),
    "image-too-many": ("URL has", "URLs have", f"over {IMAGES_MAX:,} images"),
    "hreflang-no-self": (
        "URL has",
        "URLs have",
        "hreflang alternates but none pointing to itself",
    ),
    "video-content-is-page": (
        "video has",
        "videos have",
        "the page's own URL as content_loc",
    ),
    "video-text-too-long": (
        "video has",
        "videos have",
        "a title or description longer than allowed",
    ),
}


class DocumentLint:
    """The per-entry checks of one document."""

    def __init__(self, url: str, options: LintOptions, now: datetime) -> None:
        self.url = url
        self._options = options
        self._now = now
        self._tally = _Tally()
        self._seen: set[int] = set()
        self._bounded = False
        self._lastmods = Majority()
        self.entries = 0
        self.news = 0

    def add(self, entry: Entry) -> None:
        self.entries += 1
        loc = entry.loc
        note = self._tally.note
        key = hash(loc)
        if key in self._seen:
            note("duplicate-url", loc)
        elif len(self._seen) < self._options.max_doc_urls:
            self._seen.add(key)
        else:
            self._bounded = True
        if needs_escaping(loc):
            note("loc-not-escaped", shorten(loc))
        lastmod = entry.lastmod
        if lastmod is not None:
            self._lastmods.add(lastmod)
            if lastmod > self._now + FUTURE_SLACK:
                note("lastmod-future", f"{lastmod.isoformat()} on {loc}")
            if date_only(lastmod):
                note("lastmod-date-only", f"{lastmod.date().isoformat()} on {loc}")
        if len(entry.images) > IMAGES_MAX:
            note("image-too-many", f"{len(entry.images):,} on {loc}")
        for video in entry.videos:
            missing = video_missing(video)
            if missing:
                note("video-missing-field", f"{loc} lacks {', '.join(missing)}")
            if video.content_loc == loc:
                note("video-content-is-page", loc)
            too_long = video_too_long(video)
            if too_long is not None:
                note("video-text-too-long", f"{too_long} on {loc}")
        for news in entry.news:
            self.news += 1
            missing = news_missing(news)
            if missing:
                note("news-missing-field", f"{loc} lacks {', '.join(missing)}")
            date = news.publication_date
            if date is not None and date < self._now - NEWS_MAX_AGE:
                note("news-old", f"{loc} published {date.isoformat()}")
        if entry.alternates:
            if lacks_x_default(entry):
                note("hreflang-no-x-default", loc)
            if lacks_self(entry):
                note("hreflang-no-self", loc)
            for alternate in entry.alternates:
                lang = alternate.hreflang
                if lang is not None and not is_hreflang(lang):
                    note("hreflang-invalid", f"{lang!r} on {loc}")

    def findings(self) -> Iterator[Finding]:
        url = self.url
        for name, (count, example) in self._tally.counts.items():
            assert isinstance(count, int)
            one, several, rest = _WORDS[name]
            words = f"{one if count == 1 else several} {rest}"
            yield finding(name, url, f"{count:,} {words} (first: {example})", count=count)
        if self.news > NEWS_MAX:
            yield finding(
                "news-too-many",
                url,
                f"{self.news:,} news entries, {self.news - NEWS_MAX:,} over the limit of "
                f"{NEWS_MAX:,}",
                count=self.news - NEWS_MAX,
            )
        top = self._lastmods.top()
        n = self._lastmods.n
        if top is not None and n >= ONE_INSTANT_MIN and top[1] * 2 > n:
            when, count = top
            assert isinstance(when, datetime)
            yield finding(
                "lastmod-one-instant",
                url,
                f"{_share(count, n)} lastmods are {when.isoformat()}: the time the "
                "sitemap was made, not when each page changed",
                count=count,
            )
        if self._bounded:
            yield finding(
                "check-bounded",
                url,
                f"duplicates were looked for among the first {self._options.max_doc_urls:,} "
                "URLs of this sitemap only",
            )


def _share(count: int, n: int) -> str:
    """How many of ``n`` values ``count`` (a lower bound, see Majority) says share one."""
    return f"all {n:,}" if count == n else f"at least {count:,} of {n:,}"


@dataclass(slots=True)
class _Page:
    doc: int  # index in SiteLint._docs
    alternates: frozenset[str]


class SiteLint:
    """The checks across the documents of a run: duplicates and hreflang reciprocity."""

    def __init__(self, options: LintOptions) -> None:
        self._options = options
        self._docs: list[str] = []
        self._doc_index: dict[str, int] = {}
        self._first: dict[int, int] = {}  # hash of a loc -> the document that listed it first
        self._across: dict[int, list[object]] = {}  # document -> [count, example, other doc]
        self._pages: dict[str, _Page] = {}
        self._bounded: set[str] = set()

    def _doc(self, url: str) -> int:
        index = self._doc_index.get(url)
        if index is None:
            index = self._doc_index[url] = len(self._docs)
            self._docs.append(url)
        return index

    def add(self, entry: Entry) -> None:
        doc = self._doc(entry.sitemap)
        key = hash(entry.loc)
        first = self._first.get(key)
        if first is None:
            if len(self._first) < self._options.max_tracked_urls:
                self._first[key] = doc
            else:
                self._bounded.add("urls")
        elif first != doc:
            slot = self._across.get(doc)
            if slot is None:
                self._across[doc] = [1, entry.loc, first]
            else:
                slot[0] += 1  # type: ignore[operator]
        if entry.alternates:
            self._add_page(entry, doc)

    def _add_page(self, entry: Entry, doc: int) -> None:
        if entry.loc in self._pages:
            return
        if len(self._pages) >= self._options.max_hreflang_pages:
            self._bounded.add("hreflang")
            return
        intern = sys.intern
        hrefs = frozenset(intern(a.href) for a in entry.alternates if a.hreflang)
        self._pages[intern(entry.loc)] = _Page(doc, hrefs)

    def findings(self) -> Iterator[Finding]:
        docs = self._docs
        for doc, (count, example, first) in self._across.items():
            assert isinstance(count, int) and isinstance(first, int)
            yield finding(
                "duplicate-url-across",
                docs[doc],
                f"{plural(count, 'URL')} also listed by another sitemap (first: {example}, "
                f"listed by {docs[first]})",
                count=count,
            )
        yield from self._reciprocity()
        if "urls" in self._bounded:
            yield finding(
                "check-bounded",
                docs[0] if docs else "",
                "URLs listed by several sitemaps were looked for among the first "
                f"{self._options.max_tracked_urls:,} distinct URLs of the run only",
            )
        if "hreflang" in self._bounded:
            yield finding(
                "check-bounded",
                docs[0] if docs else "",
                "hreflang reciprocity was checked over the first "
                f"{self._options.max_hreflang_pages:,} pages with alternates only",
            )

    def _reciprocity(self) -> Iterator[Finding]:
        """Page P names H as an alternate and H was read with alternates: H must name P."""
        pages = self._pages
        found: dict[int, list[object]] = {}  # document -> [count, example]
        for loc, page in pages.items():
            for href in page.alternates:
                if href == loc:
                    continue
                other = pages.get(href)
                if other is None or loc in other.alternates:
                    continue  # not read (within what was read), or reciprocal
                slot = found.get(page.doc)
                if slot is None:
                    found[page.doc] = [1, f"{loc} names {href}, which does not name it back"]
                else:
                    slot[0] += 1  # type: ignore[operator]
        for doc, (count, example) in found.items():
            assert isinstance(count, int)
            yield finding(
                "hreflang-not-reciprocal",
                self._docs[doc],
                f"{count:,} hreflang alternates are not reciprocal (first: {example})",
                count=count,
            )
