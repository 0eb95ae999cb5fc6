"""The sitemap extensions: which elements they are, and their values -> Image, Video, News, Alternate.

Google's image, video and news extensions are containers (``<image:image>``, ...) whose
children carry one value each; ``CONTAINERS`` says, for each, which child element holds
which field of the record and how the record is built from the captured text. An
``<xhtml:link rel="alternate">`` is one empty element: ``alternate`` reads its attributes.

A malformed value is left out of its record and counted (``invalid-extension``); the
record itself is kept, except an image without its ``<image:loc>`` (``image-missing-loc``).

Each extension is known by its namespace, also as generators misspell it (``EXT_VARIANTS``:
https, a trailing slash, the XHTML 1.1 schema's page): read as the real one, and reported.
An element that only looks like an extension's (``lookalike``) is not read but counted.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final, NamedTuple

from ..._base._models import Alternate, Image, News, ProblemKind, Video
from ..._base._words import shorten
from .._dates import parse_datetime
from .._doc import Document

IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"
VIDEO_NS = "http://www.google.com/schemas/sitemap-video/1.1"
NEWS_NS = "http://www.google.com/schemas/sitemap-news/0.9"
XHTML_NS = "http://www.w3.org/1999/xhtml"

# Element kinds, from the namespace. CORE is the sitemap namespace as the root has it;
# LOOKALIKE a namespace no extension has that names one ("sitemap-image"...), OTHER the rest.
CORE, IMAGE, VIDEO, NEWS, XHTML, OTHER, LOOKALIKE = range(7)
_REAL = {IMAGE_NS: IMAGE, VIDEO_NS: VIDEO, NEWS_NS: NEWS, XHTML_NS: XHTML}
# The page of the XHTML 1.1 schema, which some generators write for XHTML's namespace.
_XHTML11 = "http://www.w3.org/TR/xhtml11/xhtml11_schema.html"


def _spellings(uri: str) -> list[str]:
    """``uri`` as generators write it: with https for http, a trailing slash, or both."""
    rest = uri.removeprefix("http://")
    return [scheme + rest + end for scheme in ("http://", "https://") for end in ("", "/")]


# Namespace variants real files give the extensions -> the real one: read as it, reported.
EXT_VARIANTS = {
    variant: real
    for real, written in [*((ns, ns) for ns in _REAL), (XHTML_NS, _XHTML11)]
    for variant in _spellings(written)
    if variant != real
}
EXT_NS = _REAL | {variant: _REAL[real] for variant, real in EXT_VARIANTS.items()}
# What an extension's namespace says, and the local names of its elements: a namespace or
# an element that looks like an extension's but is none is reported, never dropped silently.
_LOOKALIKE_WORDS = ("sitemap-image", "sitemap-video", "sitemap-news")
_LOOKALIKE_LOCALS = frozenset({"image", "video", "news"})
ALTERNATE = (XHTML, "link")


def kind_of(uri: str) -> int:
    """The element kind of an extension's namespace ``uri`` (OTHER or LOOKALIKE if none)."""
    kind = EXT_NS.get(uri)
    if kind is not None:
        return kind
    return LOOKALIKE if any(word in uri for word in _LOOKALIKE_WORDS) else OTHER


def lookalike(kind: int, local: str, attrs: Mapping[str, str]) -> bool:
    """True for a child of a ``<url>`` in no extension's namespace that looks like one's:
    an ``<x:image>``, ``<x:video>``, ``<x:news>``, an ``<x:link hreflang>`` (in another
    namespace, or the sitemap's: the prefix forgotten), or anything in a namespace named
    like an extension's."""
    return kind == LOOKALIKE or (
        kind in (OTHER, CORE)
        and (local in _LOOKALIKE_LOCALS or (local == "link" and "hreflang" in attrs))
    )


def lookalike_note(uri: str, local: str) -> str:
    """The example an unread look-alike element is counted with (``invalid-extension``)."""
    said = f"the namespace {uri!r}" if uri else "no namespace"
    return f"a <{local}> in {said}, which is no extension's, was not read"


def note_lookalike(doc: Document, uri: str, local: str) -> None:
    """Count a look-alike met as a child of a ``<url>`` (``invalid-extension``): the exact
    path's, and the compiled scanner's for the blocks it reads."""
    doc.note(ProblemKind.INVALID_EXTENSION, lookalike_note(uri, local))


# Where each record goes among an entry's extensions (Entry's order: images, videos, ...).
IMAGES: Final = 0
VIDEOS: Final = 1
NEWS_ITEMS: Final = 2
ALTERNATES: Final = 3
# Fields of which every value is kept (the others: the last one).
REPEATED = frozenset({"tags"})

Value = Any
Convert = Callable[[str | None, Document], Value]


class Container(NamedTuple):
    """One extension container: its fields, its builder and where its records go."""

    fields: Mapping[tuple[int, str], str]  # (kind, local name) of a child -> field name
    build: Callable[[dict[str, Any], Document], Value]  # None: no record
    slot: int


def _text(raw: str | None, doc: Document) -> str | None:
    return raw or None


def _date(raw: str | None, doc: Document) -> Value:
    if not raw:
        return None
    value = parse_datetime(raw)
    if value is None:
        doc.note(ProblemKind.INVALID_EXTENSION, f"date {shorten(raw)}")
    return value


def _number(kind: type[int | float]) -> Convert:
    def convert(raw: str | None, doc: Document) -> Value:
        if not raw:
            return None
        try:
            value = kind(raw)
        except ValueError:
            doc.note(ProblemKind.INVALID_EXTENSION, f"number {shorten(raw)}")
            return None
        return value if value >= 0 else None  # NaN fails the comparison: no value

    return convert


_YES = {"yes": True, "true": True, "no": False, "false": False}


def _flag(raw: str | None, doc: Document) -> bool | None:
    if not raw:
        return None
    value = _YES.get(raw.lower())
    if value is None:
        doc.note(ProblemKind.INVALID_EXTENSION, f"yes/no value {shorten(raw)}")
    return value


# Each record's fields, in the model's order, and how its text is read. Malformed values
# are counted in this order, so the first example a tally quotes is the same every time.
_VIDEO_VALUES: tuple[tuple[str, Convert], ...] = (
    ("thumbnail_loc", _text),
    ("title", _text),
    ("description", _text),
    ("content_loc", _text),
    ("player_loc", _text),
    ("duration", _number(int)),
    ("expiration_date", _date),
    ("rating", _number(float)),
    ("view_count", _number(int)),
    ("publication_date", _date),
    ("family_friendly", _flag),
    ("requires_subscription", _flag),
    ("live", _flag),
    ("uploader", _text),
    ("category", _text),
)
_NEWS_VALUES: tuple[tuple[str, Convert], ...] = (
    ("publication_name", _text),
    ("publication_language", _text),
    ("publication_date", _date),
    ("title", _text),
    ("keywords", _text),
    ("genres", _text),
)


_NAMED_BY = ("title", "caption", "license", "geo_location")


def _image(sub: dict[str, Any], doc: Document) -> Image | None:
    # Built by hand: a quarter of the entries of a large WordPress sitemap carry images.
    loc = sub.get("loc")
    if not loc:
        # The example says which image: by what it does hold.
        said = next((f"{name} {shorten(sub[name])}" for name in _NAMED_BY if sub.get(name)), None)
        doc.note(ProblemKind.IMAGE_MISSING_LOC, said or "one with no title or caption")
        return None
    return Image(
        loc,
        sub.get("caption") or None,
        sub.get("title") or None,
        sub.get("geo_location") or None,
        sub.get("license") or None,
    )


def _video(sub: dict[str, Any], doc: Document) -> Video:
    values = {name: convert(sub.get(name), doc) for name, convert in _VIDEO_VALUES}
    return Video(**values, tags=tuple(t for t in sub.get("tags", ()) if t))


def _news(sub: dict[str, Any], doc: Document) -> News:
    return News(**{name: convert(sub.get(name), doc) for name, convert in _NEWS_VALUES})


CONTAINERS: dict[tuple[int, str], Container] = {
    (IMAGE, "image"): Container(
        {(IMAGE, name): name for name in ("loc", "caption", "title", "geo_location", "license")},
        _image,
        IMAGES,
    ),
    (VIDEO, "video"): Container(
        {(VIDEO, name): name for name, _ in _VIDEO_VALUES} | {(VIDEO, "tag"): "tags"},
        _video,
        VIDEOS,
    ),
    (NEWS, "news"): Container(
        # <news:name> and <news:language> stand inside <news:publication>: read there.
        {
            (NEWS, "name"): "publication_name",
            (NEWS, "language"): "publication_language",
            (NEWS, "publication_date"): "publication_date",
            (NEWS, "title"): "title",
            (NEWS, "keywords"): "keywords",
            (NEWS, "genres"): "genres",
        },
        _news,
        NEWS_ITEMS,
    ),
}


def alternate(attrs: dict[str, str], doc: Document) -> Alternate | None:
    """The ``<xhtml:link>`` of these attributes, or None unless it is a usable alternate."""
    if (attrs.get("rel") or "").strip().lower() != "alternate":
        return None
    return alternate_of(attrs.get("hreflang"), attrs.get("href"), attrs.get("media"), doc)


def alternate_of(
    hreflang: str | None, href: str | None, media: str | None, doc: Document
) -> Alternate | None:
    """The alternate (rel="alternate") of these attribute values, or None if unusable."""
    href = (href or "").strip()
    if not href:
        return None
    loc = doc.check_loc(href)
    if loc is None:
        return None
    return Alternate((hreflang or "").strip() or None, loc, media or None)
