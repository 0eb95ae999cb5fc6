"""Raw field text -> records. The one place values are validated, shared by both XML paths.

The exact path (expat) and the fast scanner call these same functions with the same
stripped strings, so they cannot disagree on a record or a tally.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..._base._models import (
    Alternate,
    ChangeFreq,
    Entry,
    Image,
    News,
    ProblemKind,
    SitemapRef,
    Video,
)
from ..._base._words import shorten
from .._dates import parse_datetime
from .._doc import Document

_CHANGEFREQ = {c.value: c for c in ChangeFreq}
_NO: tuple[()] = ()


def note_repeated(doc: Document, key: str, value: str, line: int, column: int) -> None:
    """A field given twice in one record (two ``<lastmod>``): the last value is the record's,
    and the repeat is counted (``repeated-element``) with its value and where its start tag
    is."""
    doc.note(ProblemKind.REPEATED_ELEMENT, f"<{key}> {shorten(value)}", line, column)


def note_more_loc(doc: Document, value: str, line: int, column: int) -> None:
    """A further ``<loc>`` in one record: a record of its own, without fields, emitted after
    it; counted (``several-locs``) with its value and where its start tag is."""
    doc.note(ProblemKind.SEVERAL_LOCS, shorten(value), line, column)


def said(loc: str | None, index: bool) -> str:
    """A record as a problem quotes it: its loc."""
    if loc is None:
        return f"a <{'sitemap' if index else 'url'}> without a <loc>"
    return shorten(loc)


def note_unclosed(doc: Document, loc: str | None, index: bool, line: int, column: int) -> None:
    """A record another one starts in, at ``line`` and ``column`` (its end tag missing, or
    records nested): emitted as it stands, counted (``unclosed-entry``) with its loc."""
    doc.note(ProblemKind.UNCLOSED_ENTRY, said(loc, index), line, column)


def emit_entry(
    doc: Document,
    loc_raw: str,
    lastmod_raw: str | None,
    changefreq_raw: str | None,
    priority_raw: str | None,
    images: Sequence[Image] = _NO,
    videos: Sequence[Video] = _NO,
    news: Sequence[News] = _NO,
    alternates: Sequence[Alternate] = _NO,
) -> bool:
    """Validate one ``<url>`` and emit it; False when the document is cut (max_urls)."""
    loc = doc.check_loc(loc_raw)
    if loc is None:
        return True
    # The hottest function of the parser: count_entry and _priority are inlined for their
    # common case (under the limit; a usual priority value).
    if doc.entries < doc.limits.max_urls:
        doc.entries += 1
    elif not doc.count_entry():
        return False
    lastmod = changefreq = priority = None
    if lastmod_raw:
        lastmod = parse_datetime(lastmod_raw)
        if lastmod is None:
            doc.note(ProblemKind.INVALID_LASTMOD, shorten(lastmod_raw))
    if changefreq_raw:
        changefreq = _CHANGEFREQ.get(changefreq_raw) or _CHANGEFREQ.get(changefreq_raw.lower())
        if changefreq is None:
            doc.note(ProblemKind.INVALID_CHANGEFREQ, shorten(changefreq_raw))
    if priority_raw:
        priority = _PRIORITIES.get(priority_raw)
        if priority is None:
            priority = _priority(priority_raw)
            if priority is None:
                doc.note(ProblemKind.INVALID_PRIORITY, shorten(priority_raw))
    if images or videos or news or alternates:
        doc.out.append(
            Entry(
                loc,
                lastmod,
                changefreq,
                priority,
                doc.url,
                tuple(images),
                tuple(videos),
                tuple(news),
                tuple(alternates),
            )
        )
    else:
        doc.out.append(Entry(loc, lastmod, changefreq, priority, doc.url))
    return True


def emit_ref(doc: Document, loc_raw: str, lastmod_raw: str | None) -> bool:
    """Validate one index ``<sitemap>`` and emit it; False when the document is cut."""
    loc = doc.check_loc(loc_raw)
    if loc is None:
        return True
    if not doc.count_entry():
        return False
    lastmod = None
    if lastmod_raw:
        lastmod = parse_datetime(lastmod_raw)
        if lastmod is None:
            doc.note(ProblemKind.INVALID_LASTMOD, shorten(lastmod_raw))
    doc.out.append(SitemapRef(loc, lastmod, doc.url))
    return True


# The values generators write, parsed once: float() per entry is most of this field's cost.
_PRIORITIES = {f"{tenth / 10:.1f}": tenth / 10 for tenth in range(11)}
_PRIORITIES.update({"0": 0.0, "1": 1.0})


def _priority(raw: str) -> float | None:
    known = _PRIORITIES.get(raw)
    if known is not None:
        return known
    try:
        value = float(raw)
    except ValueError:
        return None
    return value if 0.0 <= value <= 1.0 else None  # NaN fails both comparisons
