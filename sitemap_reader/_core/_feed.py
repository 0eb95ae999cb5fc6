"""RSS 2.0, RSS 1.0 (RDF) and Atom 0.3/1.0 through feedparser.

feedparser reads a whole document, so feeds are the one format buffered (capped by
``Limits.max_feed_bytes``). It is given a file object over bytes only: given a ``str`` that
looks like a URL it downloads it, and given anything that names a file it opens it
(``feedparser/api.py``, ``_open_resource``): bytes such as ``b"/etc/passwd"`` would be read
as a path.
"""

from __future__ import annotations

import calendar
import io
import warnings
from datetime import datetime, timezone
from typing import Any

import feedparser

from .._models import Entry, Format
from ._dates import parse_datetime
from ._doc import Document


def parse_feed(data: bytes, fmt: Format, doc: Document) -> None:
    """Emit one Entry per feed item: its link (else a permalink guid) and its date."""
    if b"<!ENTITY" in data:
        # The expat pass refuses declarations, but a feed read leniently (after junk before
        # its root) never went through it; feedparser must not expand them either.
        doc.fail("unsafe-xml", "the feed declares entities; it was not read")
        return
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # feedparser warns about things we report ourselves
            parsed = feedparser.parse(
                io.BytesIO(data), sanitize_html=False, resolve_relative_uris=False
            )
    except Exception as exc:  # noqa: BLE001 -- a third party's fault must not escape for content
        # e.g. UnicodeDecodeError for a declared encoding name that is not UTF-8 itself.
        doc.fail("not-well-formed", f"the feed could not be read: {exc!r}")
        return
    if parsed.get("bozo") and not parsed.entries:
        doc.fail("not-well-formed", f"the feed could not be read: {parsed.get('bozo_exception')}")
        return
    prefer_updated = fmt is Format.ATOM
    for item in parsed.entries:
        raw = _link(item)
        if raw is None:
            doc.note("missing-loc", "a feed item without a link")
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
            doc.note("invalid-lastmod", repr(str(raw)[:80]))
        return value
    return None
