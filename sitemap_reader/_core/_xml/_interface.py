"""The interface between the cores: everything the compiled core is given, and is told.

The compiled ``sitemap_reader._native`` imports nothing of the package. What it builds
with crosses here, declared once: ``INTERFACE``, read by attribute in Rust
(``src/pyface.rs``), made into one ``_native.Interface`` at import and given to every
block scanner; and ``ScannedDocument``, the attributes of a ``Document`` the scanner reads
and writes (a test traces it to hold the two together). The other way, the compiled core
exports the numbers and names it was built with (``KINDS``, ``SLOTS``, ``RECORDS``,
``CHANGEFREQS``); ``mismatch`` compares them with the package's, so that a build of the
extension that differs from this code fails at import, naming what differs, rather than
reading records wrongly.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from datetime import tzinfo
from typing import Any, NamedTuple, Protocol

from ..._base._config import Limits
from ..._base._models import (
    Alternate,
    ChangeFreq,
    Entry,
    Event,
    Image,
    News,
    ProblemKind,
    SitemapRef,
    Video,
)
from .._dates import DATE_ALONE
from ._extensions import (
    ALTERNATES,
    CONTAINERS,
    CORE,
    IMAGE,
    IMAGES,
    LOOKALIKE,
    NEWS,
    NEWS_ITEMS,
    OTHER,
    REPEATED,
    VIDEO,
    VIDEOS,
    XHTML,
    Container,
    alternate_of,
    note_lookalike,
)
from ._records import emit_entry, emit_ref, note_more_loc, note_repeated, note_unclosed


class ScannedDocument(Protocol):
    """What the block scanner reads of the ``Document`` it is given, and nothing else:
    ``url`` and ``limits`` when it is made (of the limits, ``max_urls``,
    ``max_loc_length`` and ``max_token_bytes``), ``entries`` read and written around each
    run, ``out`` appended to, ``fail`` called once a panic was caught."""

    url: str
    limits: Limits
    entries: int
    out: list[Event]

    def fail(self, kind: ProblemKind, message: str) -> None: ...


# The names above, for the test that traces what the compiled core reads.
DOCUMENT_READS = frozenset({"url", "limits", "entries", "out", "fail"})
LIMITS_READS = frozenset({"max_urls", "max_loc_length", "max_token_bytes"})


class Interface(NamedTuple):
    """What the compiled core builds with: ``_native.Interface(INTERFACE)``. (Immutable and
    read by name, as a frozen dataclass would be; a named tuple's class costs less to make
    at import, which the start of every command pays.)"""

    # The record classes it fills past their __init__ (src/pyslots.rs).
    entry: type[Entry]
    sitemap_ref: type[SitemapRef]
    image: type[Image]
    alternate: type[Alternate]
    video: type[Video]
    news: type[News]
    changefreq: type[ChangeFreq]  # called with each of CHANGEFREQS' words
    # The zone of a date written alone ("2024-05-01"): midnight UTC, told apart from
    # "...T00:00:00Z" (in ``timezone.utc``) for check's V420 (``_dates.DATE_ALONE``).
    date_alone: tzinfo
    # What judges the fields of a block it does not judge exactly as Python.
    emit_entry: Callable[..., bool]
    emit_ref: Callable[..., bool]
    build_image: Callable[[dict[str, Any], Any], Image | None]
    alternate_of: Callable[..., Alternate | None]
    # What counts a field given twice (repeated-element) and a look-alike of an extension's
    # element (invalid-extension) in a block it reads.
    note_repeated: Callable[[Any, str, str, int, int], None]
    note_lookalike: Callable[[Any, str, str], None]
    # ... and a further <loc> in a record (several-locs), a record of its own
    note_more_loc: Callable[[Any, str, int, int], None]
    # ... and a record another one starts in (unclosed-entry), before it is judged
    note_unclosed: Callable[[Any, str | None, bool, int, int], None]
    # The containers whose fields it reads and Python builds (or, a video or news whose
    # values it judges itself, it builds: src/block/extend.rs), by (kind, local name); and
    # the fields of which every value is kept (the others: the last).
    containers: Mapping[tuple[int, str], Container]
    repeated: frozenset[str]
    error_kind: ProblemKind  # a caught panic's problem


INTERFACE = Interface(
    entry=Entry,
    sitemap_ref=SitemapRef,
    image=Image,
    alternate=Alternate,
    video=Video,
    news=News,
    changefreq=ChangeFreq,
    date_alone=DATE_ALONE,
    emit_entry=emit_entry,
    emit_ref=emit_ref,
    build_image=CONTAINERS[(IMAGE, "image")].build,
    alternate_of=alternate_of,
    note_repeated=note_repeated,
    note_lookalike=note_lookalike,
    note_more_loc=note_more_loc,
    note_unclosed=note_unclosed,
    containers={
        key: spec
        for key, spec in CONTAINERS.items()
        if key != (IMAGE, "image")  # (the block reader reads images itself: build_image)
    },
    repeated=REPEATED,
    error_kind=ProblemKind.ERROR,
)

# The package's numbers for the names the compiled core exports.
_KINDS = {
    "core": CORE,
    "image": IMAGE,
    "video": VIDEO,
    "news": NEWS,
    "xhtml": XHTML,
    "other": OTHER,
    "lookalike": LOOKALIKE,
}
_SLOTS = {"images": IMAGES, "videos": VIDEOS, "news": NEWS_ITEMS, "alternates": ALTERNATES}
_RECORDS = (Entry, SitemapRef, Image, Alternate, Video, News)


def mismatch(native: Any) -> str | None:
    """What differs between the compiled core ``native`` and this package, or None."""
    for what, theirs, ours, where in (
        ("element kind", native.KINDS, _KINDS, "_extensions"),
        ("extension slot", native.SLOTS, _SLOTS, "_extensions' slots"),
    ):
        said = _numbers(what, theirs, ours, where)
        if said is not None:
            return said
    fields: Mapping[str, tuple[str, ...]] = native.RECORDS
    for cls in _RECORDS:
        built = tuple(fields.get(cls.__name__, ()))
        declared = tuple(f.name for f in dataclasses.fields(cls))
        if built != declared:
            return (
                f"it builds {cls.__name__} with the fields {', '.join(built) or 'none'}; "
                f"the dataclass has {', '.join(declared)} (_base/_models.py)"
            )
    words = tuple(native.CHANGEFREQS)
    if sorted(words) != sorted(c.value for c in ChangeFreq):
        return f"its changefreq words are {', '.join(words)}; ChangeFreq has others"
    return None


def _numbers(
    what: str, theirs: Mapping[str, int], ours: Mapping[str, int], where: str
) -> str | None:
    for name, number in theirs.items():
        if name not in ours:
            return f"it knows the {what} {name!r} ({number}), which the package does not"
        if ours[name] != number:
            return f"the {what} {name!r} is {number} there, {ours[name]} in {where}"
    return None
