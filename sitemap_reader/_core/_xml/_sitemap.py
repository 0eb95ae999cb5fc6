"""The urlset and sitemapindex state machine: expat's element events -> Entry and SitemapRef.

The XML reader (``._xml``) starts it once expat has read a urlset or sitemapindex root; its
bound methods are then expat's element handlers. It keeps the record being read (one
``<url>`` or index ``<sitemap>``, at depth 2), captures the text of the fields it knows (at
depth 3, or anywhere inside an extension container), and hands each closed container to
its builder in ``._extensions``. Records are validated and emitted by ``._records``, the
functions the fast scanner calls too.

These are the parser's hottest functions: they read attributes of their own object only,
and character data reaches Python only while a value is captured.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..._base._models import Alternate, Image, News, ProblemKind, Video
from .._doc import Document
from .._halt import MAX_ELEMENT_DEPTH, Stop, TooDeep
from ._extensions import (
    ALTERNATE,
    ALTERNATES,
    CONTAINERS,
    CORE,
    EXT_VARIANTS,
    REPEATED,
    Container,
    alternate,
    kind_of,
    lookalike,
    lookalike_note,
)
from ._records import emit_entry, emit_ref

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"

# Namespaces real files give the sitemap elements: read as the real one, reported.
SITEMAP_LIKE = frozenset(
    {
        SITEMAP_NS,
        "https://www.sitemaps.org/schemas/sitemap/0.9",
        "http://www.google.com/schemas/sitemap/0.84",
        "http://www.google.com/schemas/sitemap/0.9",
        "http://www.sitemaps.org/schemas/sitemap/0.9/",
        "",
    }
)

# Which child of a record is captured as text, and under what key.
_URL_FIELDS = {
    (CORE, "loc"): "loc",
    (CORE, "lastmod"): "lastmod",
    (CORE, "changefreq"): "changefreq",
    (CORE, "priority"): "priority",
}
_SITEMAP_FIELDS = {(CORE, "loc"): "loc", (CORE, "lastmod"): "lastmod"}

# An entry's extensions as they are read, in the order of ._extensions' slots.
_Found = tuple[list[Image], list[Video], list[News], list[Alternate]]


class SitemapMachine:
    """Reads the records of a urlset or sitemapindex; see the module docstring."""

    __slots__ = (
        "_fields",
        "_found",
        "_index",
        "_item",
        "_item_key",
        "_key",
        "_key_depth",
        "_key_line",
        "_key_start",
        "_names",
        "_parser",
        "_root_ns",
        "_spec",
        "_sub",
        "_sub_depth",
        "_sub_fields",
        "_text",
        "_text_len",
        "closed",
        "depth",
        "doc",
    )

    def __init__(self, doc: Document, parser: Any, root: str, *, index: bool) -> None:
        """Take over ``parser``'s element events after the start tag of the root ``root``
        (expat's name for it: "namespace local")."""
        self.doc = doc
        self._parser = parser
        self._index = index
        ns, _, local = root.rpartition(" ")
        self._root_ns = ns
        if ns != SITEMAP_NS:
            said = f"the namespace {ns!r}" if ns else "no namespace"
            doc.report(
                ProblemKind.NAMESPACE,
                f"<{local}> has {said}, not {SITEMAP_NS!r}; read as a sitemap all the same",
            )
        self._names: dict[str, tuple[int, str]] = {}  # expat's name -> (kind, local name)
        self.depth = 1  # the root is open
        self._item_key = (CORE, "sitemap" if index else "url")  # the elements of a record
        self._fields = _SITEMAP_FIELDS if index else _URL_FIELDS
        # The record being read, and the extension container open inside it.
        self._item: dict[str, Any] | None = None
        self._sub: dict[str, Any] | None = None
        self._spec: Container | None = None
        self._sub_fields: Mapping[tuple[int, str], str] = {}
        self._sub_depth = 0
        self._found: _Found = ([], [], [], [])
        # Text capture: the key, the element depth that opened it, the pieces.
        self._key: str | None = None
        self._key_depth = 0
        self._key_line = 0
        self._key_start = 0  # expat's offset of the start tag of the value being captured
        self._text: list[str] = []
        self._text_len = 0
        self.closed = -1  # expat's offset of the end tag of the last record
        parser.StartElementHandler = self._start
        parser.EndElementHandler = self._end
        parser.CharacterDataHandler = None

    # -- expat callbacks ---------------------------------------------------------------

    def _name(self, name: str) -> tuple[int, str]:
        ns, _, local = name.rpartition(" ")
        kind = CORE if ns == self._root_ns or ns in SITEMAP_LIKE else kind_of(ns)
        real = EXT_VARIANTS.get(ns)
        if real is not None:
            self.doc.variants.setdefault(ns, real)
        self._names[name] = (kind, local)
        return kind, local

    def _start(self, name: str, attrs: dict[str, str]) -> None:
        depth = self.depth = self.depth + 1
        if depth > MAX_ELEMENT_DEPTH:
            raise TooDeep(self._parser.CurrentLineNumber)
        key = self._names.get(name) or self._name(name)
        if self._item is None:
            if depth == 2 and key == self._item_key:
                self._item = {}
            return
        if self._key is not None:
            return  # markup inside a captured value: its text still counts
        if self._sub is None:
            if depth != 3:
                return
            field = self._fields.get(key)
            if field is not None:
                self._capture(field, depth)
            elif not self._index:
                self._extension(key, attrs, depth, name)
            return
        field = self._sub_fields.get(key)
        if field is not None:
            self._capture(field, depth)

    def _extension(
        self, key: tuple[int, str], attrs: dict[str, str], depth: int, name: str
    ) -> None:
        """An element of a ``<url>`` that is none of its fields: maybe an extension's."""
        spec = CONTAINERS.get(key)
        if spec is not None:
            self._sub = {}
            self._spec = spec
            self._sub_fields = spec.fields
            self._sub_depth = depth
        elif key == ALTERNATE:
            link = alternate(attrs, self.doc)
            if link is not None:
                self._found[ALTERNATES].append(link)
        elif lookalike(*key, attrs):
            self.doc.note(ProblemKind.INVALID_EXTENSION, lookalike_note(*name.rpartition(" ")[::2]))

    def _capture(self, field: str, depth: int) -> None:
        parser = self._parser
        parser.CharacterDataHandler = self._chars  # pyexpat flushed what came before
        self._key = field
        self._key_depth = depth
        self._key_line = parser.CurrentLineNumber
        self._key_start = parser.CurrentByteIndex
        self._text = []
        self._text_len = 0

    def _chars(self, data: str) -> None:
        if self._key is not None:
            self._text.append(data)
            self._text_len += len(data)
            if self._text_len > self.doc.limits.max_token_bytes:
                self._value_too_long()
                raise Stop

    def _end(self, name: str) -> None:
        depth = self.depth
        self.depth = depth - 1
        item = self._item
        if item is None:
            return
        key = self._key
        if key is not None:
            if depth != self._key_depth:
                return
            self._key = None
            self._parser.CharacterDataHandler = None  # the value's text was flushed to _chars
            value = "".join(self._text).strip()
            sub = self._sub
            if sub is None:
                item[key] = value
            elif key in REPEATED:
                sub.setdefault(key, []).append(value)
            else:
                sub[key] = value
            return
        sub = self._sub
        if sub is not None:
            if depth == self._sub_depth:
                self._close(sub)
            return
        if depth == 2:
            self._item = None
            self.closed = self._parser.CurrentByteIndex
            if self._index:
                self._emit_ref(item)
            else:
                self._emit_entry(item)

    # -- records -----------------------------------------------------------------------

    def _close(self, sub: dict[str, Any]) -> None:
        """An extension container closed: its record joins the entry's."""
        spec = self._spec
        assert spec is not None
        self._sub = None
        record = spec.build(sub, self.doc)
        if record is not None:
            self._found[spec.slot].append(record)

    def _emit_entry(self, item: dict[str, Any]) -> None:
        images, videos, news, alternates = self._found
        if images or videos or news or alternates:
            self._found = ([], [], [], [])
        if not emit_entry(
            self.doc,
            item.get("loc", ""),
            item.get("lastmod"),
            item.get("changefreq"),
            item.get("priority"),
            images,
            videos,
            news,
            alternates,
        ):
            raise Stop

    def _emit_ref(self, item: dict[str, Any]) -> None:
        if not emit_ref(self.doc, item.get("loc", ""), item.get("lastmod")):
            raise Stop

    # -- faults ------------------------------------------------------------------------

    def overran(self, error_index: int) -> bool:
        """True, once reported, when expat's fault at ``error_index`` falls past the end of
        a value over ``max_token_bytes``.

        Expat hands on no text of a run of character data it finds a fault in ("xx]]>"),
        so whether a long value was seen before the fault depends on the split. Judged on
        the value's extent in the document instead, the verdict does not: text handed on
        (_chars) never outgrows the extent it came from.
        """
        if self._key is None or error_index - self._key_start <= self.doc.limits.max_token_bytes:
            return False
        self._value_too_long()
        return True

    def _value_too_long(self) -> None:
        # The line it starts on: where expat flushes text depends on the chunking.
        self.doc.fail(
            ProblemKind.TOKEN_TOO_LARGE,
            f"a <{self._key}> value over {self.doc.limits.max_token_bytes:,} characters "
            f"at line {self._key_line}",
            line=self._key_line,
        )
