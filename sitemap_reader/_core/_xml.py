"""XML sitemaps: urlset and sitemapindex through expat, with every extension; feeds routed on.

Expat is driven directly (pyexpat) rather than through xml.sax: the SAX layer costs more
per element than the rest of the work together. The protections are defusedxml's: any
entity declaration or external reference raises defusedxml's own exceptions from inside the
parse, so nothing is ever expanded or resolved, and parameter entities are never parsed. A
DOCTYPE with no declarations is harmless and tolerated (real sitemaps carry them).

A root of rss, RDF or feed switches the handler to buffering the raw bytes (capped) for
:mod:`._feed`; expat keeps running over them as the safety pass before feedparser sees them.
"""

from __future__ import annotations

import pyexpat
from pyexpat import errors as expat_errors
from typing import Any

from defusedxml import EntitiesForbidden, ExternalReferenceForbidden

from .._models import (
    Alternate,
    Format,
    Image,
    News,
    Video,
)
from ._dates import parse_datetime
from ._doc import Document
from ._feed import parse_feed
from ._records import emit_entry, emit_ref
from ._scan import PROLOG, Scanner, eligible
from ._util import shorten

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"
VIDEO_NS = "http://www.google.com/schemas/sitemap-video/1.1"
NEWS_NS = "http://www.google.com/schemas/sitemap-news/0.9"
XHTML_NS = "http://www.w3.org/1999/xhtml"

# Namespaces real files give the sitemap elements: read as the real one, reported.
_SITEMAP_LIKE = frozenset(
    {
        SITEMAP_NS,
        "https://www.sitemaps.org/schemas/sitemap/0.9",
        "http://www.google.com/schemas/sitemap/0.84",
        "http://www.google.com/schemas/sitemap/0.9",
        "http://www.sitemaps.org/schemas/sitemap/0.9/",
        "",
    }
)

_FEED_ROOTS = {"rss": Format.RSS, "RDF": Format.RSS, "feed": Format.ATOM}
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
_SNIFF_BYTES = 65_536  # how far junk before a feed's root is looked through
_FEED_MARKERS = ((b"<rss", Format.RSS), (b"<rdf:rdf", Format.RSS), (b"<feed", Format.ATOM))
_HTML_WINDOW = 4_096  # how far "<html" is looked for (it wins over a feed's marker)

# Element kinds, from the namespace. CORE is the sitemap namespace as the root has it.
_CORE, _IMAGE, _VIDEO, _NEWS, _XHTML, _OTHER = range(6)
_EXT_NS = {IMAGE_NS: _IMAGE, VIDEO_NS: _VIDEO, NEWS_NS: _NEWS, XHTML_NS: _XHTML}

# Which child of which container is captured as text, and under what key.
_URL_FIELDS = {
    (_CORE, "loc"): "loc",
    (_CORE, "lastmod"): "lastmod",
    (_CORE, "changefreq"): "changefreq",
    (_CORE, "priority"): "priority",
}
_IMAGE_FIELDS = {
    (_IMAGE, name): name for name in ("loc", "caption", "title", "geo_location", "license")
}
_VIDEO_FIELDS = {
    (_VIDEO, name): name
    for name in (
        "thumbnail_loc",
        "title",
        "description",
        "content_loc",
        "player_loc",
        "duration",
        "expiration_date",
        "rating",
        "view_count",
        "publication_date",
        "family_friendly",
        "requires_subscription",
        "live",
        "uploader",
        "category",
        "tag",
    )
}
_NEWS_FIELDS = {
    (_NEWS, "name"): "publication_name",
    (_NEWS, "language"): "publication_language",
    (_NEWS, "publication_date"): "publication_date",
    (_NEWS, "title"): "title",
    (_NEWS, "keywords"): "keywords",
    (_NEWS, "genres"): "genres",
}
_SITEMAP_FIELDS = {(_CORE, "loc"): "loc", (_CORE, "lastmod"): "lastmod"}

# Containers: what an element opens inside the current container.
_C_URL, _C_IMAGE, _C_VIDEO, _C_NEWS, _C_SITEMAP = range(5)
_FIELDS_OF = {
    _C_URL: _URL_FIELDS,
    _C_IMAGE: _IMAGE_FIELDS,
    _C_VIDEO: _VIDEO_FIELDS,
    _C_NEWS: _NEWS_FIELDS,
    _C_SITEMAP: _SITEMAP_FIELDS,
}
# Expat's errors at the end of input that mean "the document stops early".
_NO_ELEMENTS = expat_errors.codes[expat_errors.XML_ERROR_NO_ELEMENTS]
_TRUNCATION_CODES = frozenset(
    expat_errors.codes[message]
    for message in (
        expat_errors.XML_ERROR_NO_ELEMENTS,
        expat_errors.XML_ERROR_UNCLOSED_TOKEN,
        expat_errors.XML_ERROR_UNCLOSED_CDATA_SECTION,
        expat_errors.XML_ERROR_PARTIAL_CHAR,
    )
)
_YES = {"yes": True, "true": True, "no": False, "false": False}
# Expat holds an unfinished token (a comment, a tag, a declaration) whole in memory. Its size
# is checked each time the document offset crosses a multiple of this, so the verdict depends
# on the bytes alone, never on how they were split into chunks.
_TOKEN_CHECK = 65_536
# Expat keeps every open element (tens of bytes each), so 50 MB of "<a>" would cost 2 GB.
# No sitemap or feed nests anywhere near this deep; libxml2 stops at 256 levels too.
MAX_ELEMENT_DEPTH = 256


class _Stop(Exception):
    """Raised inside a handler to stop expat at once (the document ended)."""


class XmlHandler:
    """Reads one XML document into ``doc``; see the module docstring."""

    def __init__(self, doc: Document, *, fast: bool = True) -> None:
        self.doc = doc
        self.fast = fast  # allow the scanner; the exact path alone when False
        self._prolog: bytearray | None = bytearray()
        self._scanner: Scanner | None = None
        self.format: Format | None = None
        self._root_ns: str | None = None
        self._root_name = self._root_local = ""
        self._names: dict[str, tuple[int, str]] = {}
        self._depth = 0
        self._item_key = (_CORE, "")  # (kind, name) of the elements that hold a record
        # The entry (or index child) being read, and the extension container inside it.
        self._item: dict[str, Any] | None = None
        self._sub: dict[str, Any] | None = None
        self._sub_kind = -1
        self._sub_depth = 0
        self._images: list[Image] = []
        self._videos: list[Video] = []
        self._news: list[News] = []
        self._alternates: list[Alternate] = []
        # Text capture: the key, the element depth that opened it, the pieces.
        self._key: str | None = None
        self._key_depth = 0
        self._key_line = 0
        self._key_start = 0  # expat's offset of the start tag of the value being captured
        self._text: list[str] = []
        self._text_len = 0
        self._raw: bytearray | None = bytearray()  # kept until the root says "feed"
        self._item_end = -1  # where the last feed item's end tag starts, in _raw
        self._expat_failed = False
        self._pending: tuple[str, str] | None = None  # (kind, message) of an undecided fault
        self._fed = 0  # bytes given to expat
        self._held = 0  # bytes of an unfinished token expat held after the last Parse()
        self._backlog = bytearray()  # input held back from expat meanwhile (see _expat)
        self._scanned = 0  # bytes given to the scanner
        self._shift = 0  # document offset minus expat's offset (what the scanner took)
        self._parser = self._make_parser()

    # -- expat set-up ------------------------------------------------------------------

    def _make_parser(self) -> Any:
        p = pyexpat.ParserCreate(namespace_separator=" ")
        p.buffer_text = True
        p.buffer_size = 65_536
        p.SetParamEntityParsing(pyexpat.XML_PARAM_ENTITY_PARSING_NEVER)
        if hasattr(p, "SetReparseDeferralEnabled"):  # expat >= 2.6
            # Deferral makes expat's position after a Parse() depend on the earlier calls;
            # the token bound below keeps re-scanning an unfinished token cheap instead.
            p.SetReparseDeferralEnabled(False)
        p.StartElementHandler = self._start
        p.EndElementHandler = self._end
        # Set only while a value is captured (see _capture): most character data in a
        # sitemap is white space between tags, and each call would cost a Python frame.
        p.CharacterDataHandler = None
        p.EntityDeclHandler = _forbid_entity
        p.UnparsedEntityDeclHandler = _forbid_unparsed
        p.ExternalEntityRefHandler = _forbid_external
        p.SkippedEntityHandler = self._skipped
        return p

    # -- input -------------------------------------------------------------------------

    def feed(self, data: bytes) -> None:
        if self._raw is not None:
            # The cap holds while the root is undecided (_pending) too, so the buffer never
            # passes it and the verdict at the cap is the same whatever the split.
            room = self.doc.limits.max_feed_bytes - len(self._raw)
            if len(data) > room:
                self.feed(data[:room])  # read up to the cap as any chunk, whatever the split
                if self._pending is not None:
                    self._decide_pending(final=True)  # no more bytes will be looked at
                if self.doc.ended:
                    return
                if self._raw is None:  # the root is not a feed's: the cap does not apply
                    self.feed(data[room:])
                    return
                # Input held back from expat is read first: a fault in it comes before the cut,
                # as it does when the same bytes came in one chunk.
                self.abort()
                self.doc.fail(
                    "too-large",
                    f"a feed over {self.doc.limits.max_feed_bytes:,} bytes: read up to there",
                )
                return
            self._raw.extend(data)
            if self._pending is not None:
                self._decide_pending(final=False)
                return
        if self._prolog is not None:
            self._feed_prolog(data)
        elif self._scanner is not None:
            self._scanned += len(data)
            handover = self._scanner.feed(data)
            if handover is not None:
                self._handover(handover)
        elif not self._expat_failed:
            self._parse(data, False)

    def _feed_prolog(self, data: bytes) -> None:
        """Hold bytes until the root start tag is complete; then expat reads up to its end,
        and the scanner (the fast path) takes over where the document allows it."""
        prolog = self._prolog
        assert prolog is not None
        prolog.extend(data)
        match = PROLOG.match(prolog) if b">" in data else None
        if match is None:
            if len(prolog) >= _SNIFF_BYTES or _declares(prolog):
                self._prolog = None  # a DOCTYPE, CDATA or a long prolog: expat alone
                self._parse(bytes(prolog), False)
            return
        self._prolog = None
        split = match.end()
        self._parse(bytes(prolog[:split]), False)
        rest = bytes(prolog[split:])
        if self._pending is not None:
            self._decide_pending(final=False)
            return
        take, images = eligible(match)
        if (
            self.fast
            and take
            and not self._expat_failed
            and self.format in (Format.URLSET, Format.SITEMAPINDEX)
        ):
            self._scanner = Scanner(
                self.doc, index=self.format is Format.SITEMAPINDEX, images=images
            )
            self._scanned += len(rest)
            handover = self._scanner.feed(rest)
            if handover is not None:
                self._handover(handover)
            return
        if not self._expat_failed:
            self._parse(rest, False)

    def _handover(self, rest: bytes) -> None:
        """The scanner stopped: expat reads ``rest`` (filler, then what was not consumed)."""
        self._scanner = None
        self._shift = self._scanned - len(rest)
        if not self._expat_failed and not self.doc.ended:
            self._parse(rest, False)

    def close(self) -> None:
        if self._prolog is not None:
            prolog, self._prolog = self._prolog, None
            if not self._expat_failed:
                self._parse(bytes(prolog), False)
        if self._scanner is not None:
            self._handover(self._scanner.finish())
        if self._pending is not None:
            self._decide_pending(final=True)
        if not self._expat_failed and not self.doc.ended:
            self._parse(b"", True)
            if self._pending is not None:  # the root came in input expat held until the end
                self._decide_pending(final=True)
        if self._raw is not None and self.format in (Format.RSS, Format.ATOM):
            self._finish_feed()
        elif self.format is None and not self.doc.ended:
            self.doc.fail("empty", "the document has no root element")

    def abort(self) -> None:
        """The document was cut (a limit): keep what was read, parse a buffered feed."""
        # What came before the cut but waits (see Scanner.feed and _expat) is read first.
        if self._scanner is not None:
            # All of it: bytes the scanner still waits on may hold a fault expat would have
            # seen before the cut on the exact path.
            self._handover(self._scanner.finish())
        if self._backlog and not self._expat_failed:
            data, self._held = bytes(self._backlog), 0
            self._backlog.clear()
            self._parse(data, False)
        if self._pending is not None:
            self._decide_pending(final=True)  # on the bytes before the cut, however they came
        if self._raw is not None and self.format in (Format.RSS, Format.ATOM):
            if not self._expat_failed:  # else the item ends are not known past the fault
                self._trim_feed()
            self._finish_feed()

    def _parse(self, data: bytes, final: bool) -> None:
        try:
            self._expat(data, final)
        except _Stop:
            self._expat_failed = True
        except pyexpat.ExpatError as exc:
            self._expat_failed = True
            self._on_expat_error(exc, final)
        except EntitiesForbidden as exc:
            self._expat_failed = True
            self._raw = None
            self.doc.fail(
                "unsafe-xml",
                f"the document declares the entity {exc.name!r}; entities are never "
                "expanded, so it was not read further",
            )
        except ExternalReferenceForbidden as exc:
            self._expat_failed = True
            self._raw = None
            self.doc.fail(
                "unsafe-xml",
                f"the document references an external entity ({exc.sysid!r}); "
                "it was not resolved and the document was not read further",
            )
        except (LookupError, ValueError) as exc:  # after defusedxml's: they are ValueErrors
            # pyexpat's handler for a declared encoding expat lacks raises these: a name
            # Python does not know (LookupError), or a multi-byte one such as GBK (ValueError).
            self._expat_failed = True
            fault = f"the declared encoding cannot be read ({exc})"
            if self.format is None and self._raw is not None and not final:
                self._pending = ("not-well-formed", fault)  # a feed behind it is still read
                self._decide_pending(final=False)
            else:
                self._raw = None
                self.doc.fail("not-well-formed", fault)

    def _expat(self, data: bytes, final: bool) -> None:
        """``Parse(data, final)``, failing at the first check point where expat holds an
        unfinished token over ``max_token_bytes`` (see ``_TOKEN_CHECK``)."""
        parser = self._parser
        if self._backlog or (self._held and not final):
            # Each Parse() re-scans an unfinished token from its start (expat < 2.6, or with
            # deferral off): hold the input back until as much has come as expat holds, so
            # that a token fed in small chunks costs time linear in its size, not quadratic.
            self._backlog += data
            if not final and len(self._backlog) < self._held:
                return
            data = bytes(self._backlog)
            self._backlog.clear()
        while True:
            room = _TOKEN_CHECK - (self._fed + self._shift) % _TOKEN_CHECK
            if len(data) < room:
                self._fed += len(data)
                parser.Parse(data, final)
                self._held = self._fed - parser.CurrentByteIndex
                return
            piece, data = data[:room], data[room:]
            self._fed += room
            parser.Parse(piece, final and not data)
            held = self._held = self._fed - parser.CurrentByteIndex
            limit = self.doc.limits.max_token_bytes
            if held > limit and self.format not in (Format.RSS, Format.ATOM):
                # (a feed is buffered whole and capped by max_feed_bytes instead)
                self.doc.fail(
                    "token-too-large",
                    f"an unfinished comment, tag or declaration over {limit:,} bytes "
                    f"at line {parser.CurrentLineNumber}",
                )
                raise _Stop

    def _on_expat_error(self, exc: pyexpat.ExpatError, final: bool) -> None:
        try:
            # pyexpat still holds text read before the fault (it hands text on at events and
            # at the end of each Parse call); turning buffering off hands it on now, so a
            # value already over max_token_bytes is reported whatever the chunking was.
            self._parser.buffer_text = False
        except _Stop:
            return
        if self._key is not None and (
            self._parser.ErrorByteIndex - self._key_start > self.doc.limits.max_token_bytes
        ):
            # Expat hands on no text of a run of character data it finds a fault in ("xx]]>"),
            # so whether a long value was seen before the fault depends on the split. Judged on
            # the value's extent in the document instead, the verdict does not: text handed
            # on (_chars) never outgrows the extent it came from.
            self._value_too_long()
            return
        where = f"line {exc.lineno}, column {exc.offset}"
        after_root = self._depth == 0 and self.format is not None
        if after_root:
            # Past the root, expat's verdict depends on where the bytes were split
            # ("<a/>m/": "junk after document element" at "m" when "m" ends a chunk, else
            # "invalid token" at "/"), so no position or words of expat's are quoted.
            where = f"after the </{self._root_local}> that ends the document"
        if self.format in (Format.RSS, Format.ATOM):
            # feedparser reads what it can of a broken feed at close(); a cut one keeps only
            # the items that closed before the cut, and the cut is reported.
            if final and exc.code in _TRUNCATION_CODES and not after_root:
                self._trim_feed()
                self.doc.fail(
                    "truncated",
                    f"the {self.format} feed ends before its root element closes ({where}); "
                    "the items before the cut were kept",
                )
            else:
                fault = "content" if after_root else exc_text(exc)
                self.doc.report(
                    "not-well-formed",
                    f"not well-formed XML: {fault} at {where}; read leniently as a feed",
                )
            return
        if (
            self.format is None
            and self._raw is not None
            and not (final and exc.code == _NO_ELEMENTS)
        ):
            # (at the end too: whether expat sees a fault in the prolog before the end of the
            # input depends on the split, "<?a?>>" + "<rss" against "<?a?>><rss")
            self._pending = ("not-well-formed", f"not well-formed XML: {exc_text(exc)} at {where}")
            self._decide_pending(final=final)
            return
        self._raw = None
        code = exc.code
        if after_root:
            self.doc.fail("not-well-formed", f"not well-formed XML: content {where}")
        elif final and self.format is not None and code in _TRUNCATION_CODES:
            self.doc.fail(
                "truncated",
                f"the document ends before its <{self.format}> closes ({where}); "
                "the entries before the cut were kept",
            )
        elif self.format is None and final and code == _NO_ELEMENTS:
            self.doc.fail("empty", "the document has no root element")
        else:
            self.doc.fail("not-well-formed", f"not well-formed XML: {exc_text(exc)} at {where}")

    # -- expat callbacks ---------------------------------------------------------------

    def _name(self, name: str) -> tuple[int, str]:
        ns, _, local = name.rpartition(" ")
        kind = _CORE if ns == self._root_ns or ns in _SITEMAP_LIKE else _EXT_NS.get(ns, _OTHER)
        self._names[name] = (kind, local)
        return kind, local

    def _start(self, name: str, attrs: dict[str, str]) -> None:
        depth = self._depth = self._depth + 1
        if depth > MAX_ELEMENT_DEPTH:
            self._too_deep()
        if depth == 1:
            self._root(name)
            return
        key = self._names.get(name) or self._name(name)
        item = self._item
        if item is None:
            if depth == 2 and key == self._item_key:
                self._item = {}
            return
        if self._key is not None:
            return  # markup inside a captured value: its text still counts
        sub = self._sub
        if sub is None:
            if depth != 3:
                return
            fields = _URL_FIELDS if self.format is Format.URLSET else _SITEMAP_FIELDS
            field = fields.get(key)
            if field is not None:
                self._capture(field, depth)
            elif self.format is Format.URLSET:
                self._open_ext(key, attrs, depth)
            return
        if key[0] == _NEWS and key[1] == "publication":
            return  # its name and language are read one level down
        field = _FIELDS_OF[self._sub_kind].get(key)
        if field is not None:
            self._capture(field, depth)

    def _root(self, name: str) -> None:
        ns, _, local = name.rpartition(" ")
        self._root_ns = ns
        self._root_name, self._root_local = name, local
        if local in ("urlset", "sitemapindex"):
            self.format = Format.URLSET if local == "urlset" else Format.SITEMAPINDEX
            self._item_key = (_CORE, "url" if local == "urlset" else "sitemap")
            self._raw = None
            if ns != SITEMAP_NS:
                said = f"the namespace {ns!r}" if ns else "no namespace"
                self.doc.report(
                    "namespace",
                    f"<{local}> has {said}, not {SITEMAP_NS!r}; read as a sitemap all the same",
                )
        elif local in _FEED_ROOTS:
            self.format = _FEED_ROOTS[local]
            self._parser.StartElementHandler = self._feed_start
            self._parser.EndElementHandler = self._feed_end
            self._parser.CharacterDataHandler = None
        elif local.lower() == "html":
            self._html()
            raise _Stop
        else:
            # Maybe junk before a feed (an injected <script>): decided once more bytes came.
            self._pending = (
                "unknown-format",
                f"the root element <{local}> is not urlset, sitemapindex, rss or feed",
            )
            raise _Stop

    def _decide_pending(self, *, final: bool) -> None:
        """Broken XML before any sitemap root: an HTML page, a feed behind junk, or a fault.

        Decided on the first 64 KiB (or at the end), so the answer never depends on how the
        input was split into chunks.
        """
        assert self._pending is not None and self._raw is not None
        head = bytes(self._raw[:_SNIFF_BYTES]).lower()
        if _looks_like_html(head):
            self._pending = None
            self._html()
            return
        for marker, fmt in _FEED_MARKERS:
            if marker in head:
                if not final and len(head) < _HTML_WINDOW:
                    return  # "<html" may still come, and would win: wait, whatever the split
                kind, fault = self._pending
                self._pending = None
                self.format = fmt
                self.doc.report(
                    "not-well-formed",
                    f"{fault}; the {fmt} root comes later: read leniently as a feed",
                )
                return
        if final or len(self._raw) >= _SNIFF_BYTES:
            kind, fault = self._pending
            self._pending = None
            self.format = Format.UNKNOWN
            self._raw = None
            self.doc.fail(kind, fault)

    def _html(self) -> None:
        self.format = Format.HTML
        self._raw = None
        self.doc.fail(
            "html", "an HTML page, not a sitemap (a missing sitemap answered with a page?)"
        )

    def _skipped(self, name: str, is_parameter_entity: bool) -> None:
        """A reference to an entity an external DTD may declare: expat skips it silently,
        which would change the value (``https://a/&x;`` -> ``https://a/``), so refuse it."""
        if self.format in (Format.RSS, Format.ATOM):
            return  # feedparser reads the bytes itself (RSS 0.91's DTD names HTML entities)
        self._raw = None
        self.doc.fail(
            "unsafe-xml",
            f"the document uses the entity {name!r} of an external DTD, which is never read; "
            "it was not read further",
        )
        raise _Stop

    def _capture(self, field: str, depth: int) -> None:
        self._parser.CharacterDataHandler = self._chars  # pyexpat flushed what came before
        self._key = field
        self._key_depth = depth
        self._key_line = self._parser.CurrentLineNumber
        self._key_start = self._parser.CurrentByteIndex
        self._text = []
        self._text_len = 0

    def _open_ext(self, key: tuple[int, str], attrs: dict[str, str], depth: int) -> None:
        kind, local = key
        if kind == _IMAGE and local == "image":
            self._sub, self._sub_kind = {}, _C_IMAGE
        elif kind == _VIDEO and local == "video":
            self._sub, self._sub_kind = {"tag": []}, _C_VIDEO
        elif kind == _NEWS and local == "news":
            self._sub, self._sub_kind = {}, _C_NEWS
        elif kind == _XHTML and local == "link":
            self._alternate(attrs)
            return
        else:
            return
        self._sub_depth = depth

    def _chars(self, data: str) -> None:
        if self._key is not None:
            self._text.append(data)
            self._text_len += len(data)
            if self._text_len > self.doc.limits.max_token_bytes:
                self._value_too_long()
                raise _Stop

    def _value_too_long(self) -> None:
        # The line it starts on: where expat flushes text depends on the chunking.
        self.doc.fail(
            "token-too-large",
            f"a <{self._key}> value over {self.doc.limits.max_token_bytes:,} characters "
            f"at line {self._key_line}",
        )

    def _end(self, name: str) -> None:
        depth = self._depth
        self._depth = depth - 1
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
            elif key == "tag":
                sub["tag"].append(value)
            else:
                sub[key] = value
            return
        if self._sub is not None:
            if depth == self._sub_depth:
                self._close_ext()
            return
        if depth == 2:
            self._item = None
            if self.format is Format.URLSET:
                self._emit_entry(item)
            else:
                self._emit_ref(item)

    # -- records -----------------------------------------------------------------------

    def _emit_entry(self, item: dict[str, Any]) -> None:
        images, videos, news, alternates = self._images, self._videos, self._news, self._alternates
        if images or videos or news or alternates:
            self._images, self._videos, self._news, self._alternates = [], [], [], []
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
            raise _Stop

    def _emit_ref(self, item: dict[str, Any]) -> None:
        if not emit_ref(self.doc, item.get("loc", ""), item.get("lastmod")):
            raise _Stop

    def _close_ext(self) -> None:
        sub, kind = self._sub, self._sub_kind
        self._sub = None
        assert sub is not None
        if kind == _C_IMAGE:
            loc = sub.get("loc")
            if loc:
                self._images.append(
                    Image(
                        loc,
                        sub.get("caption") or None,
                        sub.get("title") or None,
                        sub.get("geo_location") or None,
                        sub.get("license") or None,
                    )
                )
            else:
                self.doc.note("invalid-extension", "an <image:image> without <image:loc>")
        elif kind == _C_VIDEO:
            self._videos.append(self._video(sub))
        else:
            self._news.append(
                News(
                    sub.get("publication_name") or None,
                    sub.get("publication_language") or None,
                    self._date(sub.get("publication_date")),
                    sub.get("title") or None,
                    sub.get("keywords") or None,
                    sub.get("genres") or None,
                )
            )

    def _video(self, sub: dict[str, Any]) -> Video:
        return Video(
            thumbnail_loc=sub.get("thumbnail_loc") or None,
            title=sub.get("title") or None,
            description=sub.get("description") or None,
            content_loc=sub.get("content_loc") or None,
            player_loc=sub.get("player_loc") or None,
            duration=self._number(sub.get("duration"), int),
            expiration_date=self._date(sub.get("expiration_date")),
            rating=self._number(sub.get("rating"), float),
            view_count=self._number(sub.get("view_count"), int),
            publication_date=self._date(sub.get("publication_date")),
            family_friendly=self._flag(sub.get("family_friendly")),
            requires_subscription=self._flag(sub.get("requires_subscription")),
            live=self._flag(sub.get("live")),
            uploader=sub.get("uploader") or None,
            category=sub.get("category") or None,
            tags=tuple(t for t in sub["tag"] if t),
        )

    def _date(self, raw: str | None) -> Any:
        if not raw:
            return None
        value = parse_datetime(raw)
        if value is None:
            self.doc.note("invalid-extension", f"date {shorten(raw)}")
        return value

    def _number(self, raw: str | None, kind: type[int | float]) -> Any:
        if not raw:
            return None
        try:
            value = kind(raw)
        except ValueError:
            self.doc.note("invalid-extension", f"number {shorten(raw)}")
            return None
        return value if value >= 0 else None  # NaN fails the comparison: no value

    def _flag(self, raw: str | None) -> bool | None:
        if not raw:
            return None
        value = _YES.get(raw.lower())
        if value is None:
            self.doc.note("invalid-extension", f"yes/no value {shorten(raw)}")
        return value

    def _alternate(self, attrs: dict[str, str]) -> None:
        href = (attrs.get("href") or "").strip()
        if (attrs.get("rel") or "").strip().lower() != "alternate" or not href:
            return
        loc = self.doc.check_loc(href)
        if loc is None:
            return
        self._alternates.append(
            Alternate(
                (attrs.get("hreflang") or "").strip() or None, loc, attrs.get("media") or None
            )
        )

    def _feed_start(self, name: str, attrs: dict[str, str]) -> None:
        self._depth += 1
        if self._depth > MAX_ELEMENT_DEPTH:
            self._too_deep()

    def _too_deep(self) -> None:
        self.doc.fail(
            "too-nested",
            f"elements nested more than {MAX_ELEMENT_DEPTH} deep at line "
            f"{self._parser.CurrentLineNumber}; read up to there and cut",
        )
        self.abort()  # a feed: its items before the fault are parsed
        self._raw = None
        raise _Stop

    def _feed_end(self, name: str) -> None:
        self._depth -= 1
        if name == self._root_name:
            self._depth = 0  # (a feed's start tags are not counted: only its root's end is)
        elif name in _FEED_ITEMS:
            self._item_end = self._parser.CurrentByteIndex  # feeds have no scanner: no shift

    def _trim_feed(self) -> None:
        """Cut the buffered feed after the last item that closed: never hand on a partial one."""
        raw = self._raw
        if raw is not None:
            end = raw.find(b">", self._item_end) + 1 if self._item_end >= 0 else 0
            if end and raw[:2] == b"\xff\xfe":
                end += 1  # UTF-16LE: the ">" is followed by its zero byte
            del raw[end:]

    def _finish_feed(self) -> None:
        raw, self._raw = self._raw, None
        if raw is not None and self.format is not None:
            parse_feed(bytes(raw), self.format, self.doc)


def _declares(prolog: bytearray) -> bool:
    """True when the prolog holds a "<!" that is no comment's "<!--" (DOCTYPE, CDATA, ...).

    A "<!" or "<!-" at the very end may still become "<!--": it is judged when the next
    bytes come, so the verdict does not depend on where the input was split.
    """
    end = len(prolog)
    if prolog.endswith(b"<!"):
        end -= 2
    elif prolog.endswith(b"<!-"):
        end -= 3
    return b"<!" in prolog[:end].replace(b"<!--", b"")


def _looks_like_html(head: bytes) -> bool:
    stripped = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    return stripped.startswith((b"<!doctype html", b"<html")) or b"<html" in head[:_HTML_WINDOW]


def exc_text(exc: pyexpat.ExpatError) -> str:
    return expat_errors.messages[exc.code] if exc.code else str(exc)


def _forbid_entity(
    name: str,
    is_parameter_entity: bool,
    value: str | None,
    base: str | None,
    sysid: str | None,
    pubid: str | None,
    notation_name: str | None,
) -> None:
    raise EntitiesForbidden(name, value, base, sysid, pubid, notation_name)


def _forbid_unparsed(
    name: str, base: str | None, sysid: str | None, pubid: str | None, notation_name: str | None
) -> None:
    raise EntitiesForbidden(name, None, base, sysid, pubid, notation_name)


def _forbid_external(context: str, base: str | None, sysid: str | None, pubid: str | None) -> int:
    raise ExternalReferenceForbidden(context, base, sysid, pubid)
