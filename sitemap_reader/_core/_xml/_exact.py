"""The exact path: the urlset and sitemapindex state machine, expat's element events -> records.

The XML reader (``._document``) starts it once expat has read a urlset or sitemapindex root; its
bound methods are then expat's element handlers. It keeps the record being read (one
``<url>`` or index ``<sitemap>``, at depth 2), captures the text of the fields it knows (at
depth 3, or anywhere inside an extension container), and hands each closed container to
its builder in ``._extensions``. Records are validated and emitted by ``._records``, the
functions the compiled scanner's judged blocks go to as well.

A malformed record loses nothing it holds, and each repair is counted: its first ``<loc>``
is the record's (with its fields), each further one a record of its own without fields
(``several-locs``); a record another one starts in (its end tag missing, or records
nested) is emitted as it stands, and the new one is read at its depth (``unclosed-entry``);
a record the end of the document cuts is emitted when its ``<loc>`` had closed
(``cut-entry``, ``keep_cut``); a field given twice (two ``<lastmod>``) keeps the last one,
counted (``repeated-element``). The compiled block scanner repairs the blocks it reads the
same way, its notes made by the same ``._records`` functions; a record whose end tag is
missing and a record cut by the end, it hands to expat, and this repairs them.

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
    note_lookalike,
)
from ._records import emit_entry, emit_ref, note_more_loc, note_repeated, note_unclosed, said

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
        "_inner",
        "_item",
        "_item_key",
        "_key",
        "_key_depth",
        "_key_line",
        "_key_start",
        "_level",
        "_levels",
        "_loc_line",
        "_more",
        "_more_at",
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
        self._level = 2  # the depth records start at (deeper once one ran into another)
        self._inner = 3  # the depth of their fields
        self._levels: list[int] = []  # the levels of records another one ran into
        self._loc_line = 0  # the line of the record's <loc>
        self._more: list[str] = []  # its further <loc> values (see the module docstring)
        # (line, column) of the last such <loc>, or of a field given twice
        self._more_at: tuple[int, int] = (0, 0)
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
        item = self._item
        if item is None:
            if depth == self._level and key == self._item_key:
                self._item = {}
            return
        if self._key is not None:
            return  # markup inside a captured value: its text still counts
        if self._sub is None:
            if depth != self._inner:
                return
            field = self._fields.get(key)
            if field is not None:
                if field in item:  # a further <loc>, or a field given twice: said where
                    parser = self._parser
                    self._more_at = (parser.CurrentLineNumber, parser.CurrentColumnNumber)
                self._capture(field, depth)
            elif key == self._item_key:
                self._ran_into(item, depth)
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
            note_lookalike(self.doc, *name.rpartition(" ")[::2])

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
            if self._levels and depth < self._level:
                self._left(depth)
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
                if key != "loc":
                    if key in item:  # the last one is kept, as it always was
                        note_repeated(self.doc, key, value, *self._more_at)
                    item[key] = value
                elif "loc" not in item:
                    item[key] = value
                    self._loc_line = self._key_line
                else:
                    self._more.append(value)
                    note_more_loc(self.doc, value, *self._more_at)
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
        if depth == self._level:
            self._item = None
            self.closed = self._parser.CurrentByteIndex
            if not self._emit(item):
                raise Stop

    def _ran_into(self, item: dict[str, Any], depth: int) -> None:
        """A record starts inside the one being read: that one is emitted as it stands, and
        the new one is read at this depth (see the module docstring)."""
        parser = self._parser
        line, column = parser.CurrentLineNumber, parser.CurrentColumnNumber
        note_unclosed(self.doc, item.get("loc"), self._index, line, column)
        self._item = None
        if not self._emit(item):
            raise Stop
        self._levels.append(self._level)
        self._level = depth
        self._inner = depth + 1
        self._item = {}

    def _left(self, depth: int) -> None:
        """The end tag of a record another one ran into: records start one level up again."""
        self._level = level = self._levels.pop()
        self._inner = level + 1
        if depth == 2:  # (the scanner may go on after it: see ._document._settled)
            self.closed = self._parser.CurrentByteIndex

    def keep_cut(self) -> None:
        """The document ended (a cut, a fault, a limit) inside a record: it is emitted with
        what closed before the end, when its ``<loc>`` did (``cut-entry``)."""
        item, self._item = self._item, None
        self._sub = None
        if item is None or "loc" not in item:
            return
        self.doc.note(ProblemKind.CUT_ENTRY, said(item.get("loc"), self._index), self._loc_line)
        self._emit(item)  # (False: the entry limit cut the document; nothing more to do)

    # -- records -----------------------------------------------------------------------

    def _close(self, sub: dict[str, Any]) -> None:
        """An extension container closed: its record joins the entry's."""
        spec = self._spec
        assert spec is not None
        self._sub = None
        record = spec.build(sub, self.doc)
        if record is not None:
            self._found[spec.slot].append(record)

    def _emit(self, item: dict[str, Any]) -> bool:
        """Emit a record, then its further locs each as one of its own (see the module
        docstring); False once the document is cut (max_urls)."""
        doc = self.doc
        if self._index:
            ok = emit_ref(doc, item.get("loc", ""), item.get("lastmod"))
        else:
            images, videos, news, alternates = self._found
            if images or videos or news or alternates:
                self._found = ([], [], [], [])
            ok = emit_entry(
                doc,
                item.get("loc", ""),
                item.get("lastmod"),
                item.get("changefreq"),
                item.get("priority"),
                images,
                videos,
                news,
                alternates,
            )
        if self._more:
            more, self._more = self._more, []
            for loc in more:
                if not ok:
                    break
                if self._index:
                    ok = emit_ref(doc, loc, None)
                else:
                    ok = emit_entry(doc, loc, None, None, None)
        return ok

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
