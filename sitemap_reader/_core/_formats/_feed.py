"""Feeds: RSS 2.0, RSS 1.0 (RDF) and Atom 0.3/1.0, buffered, then read through feedparser.

feedparser reads a whole document, so feeds are the one format buffered (capped by
``Limits.max_feed_bytes``). The XML reader keeps the raw bytes in a ``FeedBuffer`` until the
root says whether they are a feed's; expat keeps running over them as the safety pass (the
buffer's handlers note where each item ends, so that a cut feed is handed on whole items
only) before feedparser sees them.

feedparser is given a file object over bytes only: given a ``str`` that looks like a URL it
downloads it, and given anything that names a file it opens it (``feedparser/api.py``,
``_open_resource``): bytes such as ``b"/etc/passwd"`` would be read as a path.
"""

from __future__ import annotations

import calendar
import io
import warnings
from datetime import datetime, timezone
from typing import Any

from ..._base._models import Entry, Format, ProblemKind
from .._dates import parse_datetime
from .._doc import Document
from .._halt import MAX_ELEMENT_DEPTH, TooDeep

# The elements that hold one feed item, as expat names them ("namespace local").
_FEED_ITEMS = frozenset(
    {
        "item",  # RSS 0.9x and 2.0
        "http://purl.org/rss/1.0/ item",
        "http://my.netscape.com/rdf/simple/0.9/ item",
        "http://www.w3.org/2005/Atom entry",
        "http://purl.org/atom/ns# entry",  # Atom 0.3
    }
)


class FeedBuffer:
    """The raw bytes of a document that may be a feed, kept from its first byte.

    ``follow`` makes its handlers expat's once the root is a feed's: they count the depth
    and note where the last item closed, which is all ``trim`` needs.
    """

    __slots__ = ("_item_end", "_parser", "_root_name", "depth", "raw")

    def __init__(self) -> None:
        self.raw = bytearray()
        self.depth = 0
        self._item_end = -1  # where the last item's end tag starts, in raw
        self._parser: Any = None
        self._root_name = ""

    def follow(self, parser: Any, root: str) -> None:
        """Take ``parser``'s element events after the start tag of the feed's root."""
        self._parser = parser
        self._root_name = root
        self.depth = 1
        parser.StartElementHandler = self._start
        parser.EndElementHandler = self._end
        parser.CharacterDataHandler = None

    def _start(self, name: str, attrs: dict[str, str]) -> None:
        self.depth += 1
        if self.depth > MAX_ELEMENT_DEPTH:
            raise TooDeep(self._parser.CurrentLineNumber)

    def _end(self, name: str) -> None:
        self.depth -= 1
        if name == self._root_name:
            self.depth = 0  # (a feed's start tags are not counted: only its root's end is)
        elif name in _FEED_ITEMS:
            self._item_end = self._parser.CurrentByteIndex  # feeds have no scanner: no shift

    def trim(self) -> None:
        """Cut the buffer after the last item that closed: never hand on a partial one."""
        raw = self.raw  # (UTF-8, as ._charset hands every document on)
        end = raw.find(b">", self._item_end) + 1 if self._item_end >= 0 else 0
        del raw[end:]

    def parse(self, fmt: Format, doc: Document) -> None:
        """Read the buffered feed into ``doc``."""
        parse_feed(bytes(self.raw), fmt, doc)


# Loaded with the first feed (_feedparser), not at the top: with its HTTP client, feedparser
# is a tenth of the command line's start, and most runs read no feed. A module-level name, so
# that a harness may stand in for it (fuzz/harness.py).
feedparser: Any = None


def _feedparser() -> Any:
    global feedparser
    if feedparser is None:
        import feedparser as module

        feedparser = module
    return feedparser


def parse_feed(data: bytes, fmt: Format, doc: Document) -> None:
    """Emit one Entry per feed item: its link (else a permalink guid) and its date."""
    if b"<!ENTITY" in data:
        # The expat pass refuses declarations, but a feed read leniently (after junk before
        # its root) never went through it; feedparser must not expand them either.
        doc.fail(ProblemKind.UNSAFE_XML, "the feed declares entities; it was not read")
        return
    parse = _feedparser().parse
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # feedparser warns about things we report ourselves
            parsed = parse(io.BytesIO(data), sanitize_html=False, resolve_relative_uris=False)
    except Exception as exc:  # noqa: BLE001 -- a third party's fault must not escape for content
        # e.g. UnicodeDecodeError for a declared encoding name that is not UTF-8 itself.
        doc.fail(ProblemKind.NOT_WELL_FORMED, f"the feed could not be read: {exc!r}")
        return
    if parsed.get("bozo") and not parsed.entries:
        doc.fail(
            ProblemKind.NOT_WELL_FORMED,
            f"the feed could not be read: {parsed.get('bozo_exception')}",
        )
        return
    prefer_updated = fmt is Format.ATOM
    for item in parsed.entries:
        raw = _link(item)
        if raw is None:
            doc.note(ProblemKind.MISSING_LOC, "a feed item without a link")
            continue
        loc = doc.check_loc(raw.strip())
        if loc is None:
            continue
        if not doc.count_entry():
            return
        doc.out.append(Entry(loc, _date(item, prefer_updated, doc), None, None, doc.url))


def _link(item: Any) -> str | None:
    links = item.get("links", ())
    # feedparser gives a list of dicts, unless an element of that name stood in the item:
    # then its text (<links>...</links>).
    for link in links if isinstance(links, list) else ():
        if (
            isinstance(link, dict)
            and link.get("rel", "alternate") == "alternate"
            and link.get("href")
        ):
            return str(link["href"])
    link = item.get("link")
    if link and isinstance(link, str):  # (a dict when a <links> element took "links")
        return link
    # RSS: <guid> is the item's URL unless isPermaLink="false"; feedparser says which.
    if item.get("guidislink") and item.get("id"):
        return str(item["id"])
    return None


def _date(item: Any, prefer_updated: bool, doc: Document) -> datetime | None:
    keys = ("updated", "published") if prefer_updated else ("published", "updated")
    for key in keys:
        # dict.get, not item.get: FeedParserDict answers "updated" with "published" and a
        # DeprecationWarning (an exception where warnings are errors, as under pytest).
        raw = dict.get(item, key)
        if not raw:
            continue
        value = parse_datetime(str(raw))
        if value is None:
            parsed = dict.get(item, key + "_parsed")
            if parsed is not None:
                try:
                    value = datetime.fromtimestamp(calendar.timegm(parsed), tz=timezone.utc)
                except (ValueError, OverflowError, OSError):
                    value = None  # feedparser parsed a date no datetime holds (year -1)
        if value is None:
            doc.note(ProblemKind.INVALID_LASTMOD, repr(str(raw)[:80]))
        return value
    return None
