"""The scanner's reader for the blocks generators write: one ``<url>`` or ``<sitemap>``.

The usual shape (the fields in the protocol's order, then images and alternates) is matched
by one expression, ``BlockReader.rich`` (``plain`` where every field is plain text), which
``._scan`` tries first; a block of another usual shape comes here whole: elements in any
order up to three levels below the block (``<image:image>`` with its title and caption,
``<xhtml:link>`` alternates, ``<video:video>``, ``<news:news>`` and its
``<news:publication>``), attributes in any order and either quote, values with CDATA
sections and character or entity references, the prefixes the root declares.

Each element means here what it means to the exact path (``._sitemap``): a field of the
record, an alternate, an extension container whose fields are read at any depth within it,
or an element it ignores. Anything expat could judge otherwise (a comment, a prefix the
root does not declare, a repeated or namespaced attribute, a reference to an invalid
character, markup inside a value, a repeated field, a record inside the record) makes the
block the exact path's: ``read`` says None and
leaves no trace, for every value is decoded before any record function is called.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..._base._models import Alternate, Image
from .._doc import Document
from ._extensions import (
    ALTERNATE,
    ALTERNATES,
    CONTAINERS,
    CORE,
    IMAGE,
    REPEATED,
    XHTML,
    alternate,
    alternate_of,
    lookalike,
)

_WS = r"[ \t\r\n]*"
_CTRL = r"\x00-\x08\x0b\x0c\x0e-\x1f"
_NAME = r"(?:[A-Za-z_][A-Za-z0-9_.\-]*:)?[A-Za-z_][A-Za-z0-9_.\-]*"
_REF = r"&(?:amp|lt|gt|quot|apos|#[0-9]{1,7}|#x[0-9a-fA-F]{1,6});"
# "]]>" ends a CDATA section: its content is "]" only where "]>" does not follow.
_CDATA = r"<!\[CDATA\[[^\]" + _CTRL + r"]*(?:\](?!\]>)[^\]" + _CTRL + r"]*)*\]\]>"
# A value: text (no ">": "]]>" is not allowed in it), references and CDATA sections. Each
# loop's alternatives start with different characters, so a failing match never backtracks
# more than linearly.
_TEXT = r"[^<>&" + _CTRL + r"]*"
_VALUE = _TEXT + r"(?:(?:" + _REF + r"|" + _CDATA + r")" + _TEXT + r")*"
# A plain value: no markup, no reference, no CR (expat's to rewrite): field_value strips it.
_PLAIN = r"[^<>&\r" + _CTRL + r"]*"
# Attribute values without tab or line breaks (expat turns them into spaces).
_ATTR_TEXT = {q: r"[^" + q + r"<&\t\n\r" + _CTRL + r"]*" for q in "\"'"}
_ATTR_VALUE_DQ = _ATTR_TEXT['"'] + r"(?:" + _REF + _ATTR_TEXT['"'] + r")*"
_ATTR_VALUE = "|".join(q + _ATTR_TEXT[q] + r"(?:" + _REF + _ATTR_TEXT[q] + r")*" + q for q in "\"'")
_ATTR_NAME = r"[A-Za-z_][A-Za-z0-9_.\-]*"  # (prefixed ones are expat's to resolve)
_ATTRS = r"(?:[ \t\r\n]+" + _ATTR_NAME + _WS + r"=" + _WS + r"(?:" + _ATTR_VALUE + r"))*"
_ATTR = re.compile(
    r"[ \t\r\n]+(" + _ATTR_NAME + r")" + _WS + r"=" + _WS + r"(?:\"([^\"]*)\"|'([^']*)')"
)


def _element(g: str, children: str | None) -> str:
    """One element: empty, a value, or (with ``children``) elements and white space.

    Its groups: ``g`` the name, ``g + "a"`` the attributes, ``g + "v"`` the value, and
    ``g + "i"`` the children."""
    close = r"</(?P=" + g + r")" + _WS + r">"
    body = r"/>|>(?P<" + g + r"v>" + _VALUE + r")" + close
    if children is not None:
        body += r"|>(?P<" + g + r"i>(?:" + _WS + children + r")*" + _WS + r")" + close
    start = r"<(?P<" + g + r">" + _NAME + r")(?P<" + g + r"a>" + _ATTRS + r")" + _WS
    return start + r"(?:" + body + r")"


_LEAF = _element("c", None)
_MIDDLE = _element("b", _LEAF)
_L1 = re.compile(_WS + _element("a", _MIDDLE))  # a child of the block
_L2 = re.compile(_WS + _MIDDLE)
_L3 = re.compile(_WS + _LEAF)

_PIECE = re.compile(r"<!\[CDATA\[(.*?)\]\]>|&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);", re.DOTALL)
_NAMED = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}
_IMAGE_SPEC = CONTAINERS[(IMAGE, "image")]
_image = _IMAGE_SPEC.build
_URL_FIELDS = {(CORE, n): n for n in ("loc", "lastmod", "changefreq", "priority")}
_SITEMAP_FIELDS = {(CORE, n): n for n in ("loc", "lastmod")}


class Odd(Exception):
    """The block holds something only expat may judge."""


def _piece(m: re.Match[str]) -> str:
    cdata = m[1]
    if cdata is not None:
        return cdata
    ref = m[2]
    if ref[0] != "#":
        return _NAMED[ref]
    code = int(ref[1:]) if ref[1] != "x" else int("0" + ref[1:], 0)
    if (
        0x20 <= code <= 0xD7FF
        or code in (0x9, 0xA, 0xD)
        or 0xE000 <= code <= 0xFFFD
        or 0x10000 <= code <= 0x10FFFF
    ):
        return chr(code)
    raise Odd  # expat: "reference to invalid character number"


def _decode(raw: str) -> str:
    return _PIECE.sub(_piece, raw) if "&" in raw or "<" in raw else raw


def field_value(raw: str) -> str:
    """A value as the exact path gives it: decoded, then stripped."""
    if "<" not in raw:
        if "&" not in raw and "\r" not in raw:
            return raw.strip()
    elif (
        raw.startswith("<![CDATA[")  # one CDATA section alone, as All in One SEO writes
        and raw.endswith("]]>")
        and raw.find("<![CDATA[", 9) < 0
        and "\r" not in raw
    ):
        return raw[9:-3].strip()
    if "\r" in raw:  # line breaks as expat reads them (before references: "&#13;" stays)
        raw = raw.replace("\r\n", "\n").replace("\r", "\n")
    return _PIECE.sub(_piece, raw).strip() if "&" in raw or "<" in raw else raw.strip()


def _attrs(raw: str) -> dict[str, str]:
    found = _ATTR.findall(raw)
    attrs = {name: double or single for name, double, single in found}
    if len(attrs) != len(found) or "xmlns" in attrs:
        raise Odd  # expat's "duplicate attribute", or a namespace declared in the block
    if "&" in raw:
        return {name: _decode(value) for name, value in attrs.items()}
    return attrs


def _prefix(kinds: dict[str, int], kind: int) -> str | None:
    return next((prefix for prefix, k in kinds.items() if k == kind), None)


def _rich(image: str | None, *, index: bool, plain: bool = False) -> str:
    """The usual rich block: its fields in the protocol's order (groups 1 to 4), images of
    a loc only (group 5, their values found again by ``image_locs``), then the rest up to
    its end tag (group 6, read by ``_items``). The index's block has none but 1 and 2.
    With ``plain``, only fields of a plain value."""
    value = _PLAIN if plain else _VALUE

    def field(name: str) -> str:
        return r"(?:<" + name + _WS + r">(" + value + r")</" + name + _WS + r">" + _WS + r")"

    tag = "sitemap" if index else "url"
    fields = field("loc") + field("lastmod") + "?"
    run = r"()()()()"  # (the index's: its groups numbered as a <url>'s)
    if not index:
        fields += field("changefreq") + "?" + field("priority") + "?"
        images = r"()"
        if image is not None:
            # Images of a plain loc. Each loop here runs up to a given character, so that
            # an image of another shape (a title, a reference, CDATA) fails at once: Python
            # looks back for that character only. The lookahead keeps what matched (Python
            # never takes a lookahead back): a block that does not end where expected fails
            # in linear time.
            one = (
                r"<" + image + r":image" + _WS + r">" + _WS + r"<" + image + r":loc" + _WS + r">"
                + _PLAIN + r"</" + image + r":loc" + _WS + r">" + _WS + r"</" + image
                + r":image" + _WS + r">" + _WS
            )  # fmt: skip
            images = r"(?=((?:" + one + r")*))\5"
        run = images + r"([^<]*(?:<(?!/url" + _WS + r">)[^<]*)*)"
    return _WS + r"<" + tag + _WS + r">" + _WS + fields + run + r"</" + tag + _WS + r">"


def _image_field(prefix: str, g: str) -> str:
    """A field of an image (group ``g`` its name, ``g + "v"`` its value)."""
    fields = "loc|title|caption|geo_location|license"
    return (
        r"<" + prefix + r":(?P<" + g + r">" + fields + r")" + _WS + r">(?P<" + g + r"v>"
        + _VALUE + r")</" + prefix + r":(?P=" + g + r")" + _WS + r">"
    )  # fmt: skip


class BlockReader:
    """Reads whole blocks of one document (its prefixes known); see the module docstring."""

    __slots__ = (
        "_close",
        "_fields",
        "_image",
        "_index",
        "_items",
        "_kinds",
        "_open",
        "_record",
        "image_locs",
        "plain",
        "rich",
    )

    def __init__(self, kinds: dict[str, int], *, index: bool) -> None:
        self._kinds = kinds
        self._index = index
        self._fields = _SITEMAP_FIELDS if index else _URL_FIELDS
        tag = "sitemap" if index else "url"
        self._record = (CORE, tag)
        self._open = re.compile(_WS + "<" + tag + _WS + ">")
        self._close = re.compile(_WS + "</" + tag + _WS + ">")
        xhtml = _prefix(kinds, XHTML)
        image = _prefix(kinds, IMAGE)
        # The usual block (see _rich), the scanner's first tries: ``plain`` where
        # ``field_value`` only strips every value, the most common by far, else ``rich``.
        self.plain = re.compile(_rich(image, index=index, plain=True))
        self.rich = re.compile(_rich(image, index=index))
        # One alternate or image of the rest of a rich block (its groups 5 and 6): an
        # alternate as generators write it (groups 1, 2: hreflang, href), another (3:
        # attributes), or an image (4: its fields). ``split`` gives them with what lies
        # between.
        never = r"(?!)"  # (an extension the root does not declare)
        link = never if xhtml is None else r"<" + xhtml + r":link"
        # (hreflang as _ATTR_TEXT allows it: expat turns tabs and line breaks in an attribute
        # into spaces and refuses control characters, so those blocks are the general shape's)
        canonical = link + r"[ \t\r\n]+rel=\"alternate\"[ \t\r\n]+hreflang=\"("
        canonical += _ATTR_TEXT['"'] + r")\""
        canonical += r"[ \t\r\n]+href=(?:\"(" + _ATTR_VALUE_DQ + r")\")" + _WS + r"/>"
        image_item = never + r"()()()"  # (as many groups as an image's below)
        if image is not None:
            field = _image_field(image, "n")
            image_item = r"<" + image + r":image" + _WS + r">(" + _WS + r"(?:" + field + _WS
            image_item += r")*)</" + image + r":image" + _WS + r">"
        self._items = re.compile(
            canonical + r"|" + link + r"(" + _ATTRS + r")" + _WS + r"/>|" + image_item
        )
        self._image = None if image is None else re.compile(_image_field(image, "n"))
        # (the locs of group 5 of ``plain`` and ``rich``: plain values)
        loc = r"<" + (image or "") + r":loc" + _WS + r">(" + _PLAIN + r")<"
        self.image_locs = re.compile(loc).findall

    def _split(self, rest: str) -> list[Any] | None:
        """The rest of a rich block split by ``_items``, or None unless it holds alternates,
        images and white space only."""
        parts = self._items.split(rest)
        return None if "".join(parts[::7]).strip(" \t\r\n") else parts

    def extensions(self, doc: Document, rest: str) -> list[list[Any]] | None:
        """The arguments of ``emit_entry`` after the fields, for a block ``rich`` matched
        with more than its fields and images of a loc only (``rest``: groups 5 and 6), or
        None when the block is another shape's or the exact path's."""
        parts = self._split(rest)
        return None if parts is None else self._rest(doc, rest, parts)

    def match(
        self, buf: str, pos: int, rich: re.Match[str] | None = None
    ) -> tuple[int, Any] | None:
        """The end of the block at ``pos`` and what ``read`` needs, if it has a shape read
        here and is complete in ``buf`` (``rich``: the match of ``rich`` there, if known)."""
        if rich is None:
            rich = self.rich.match(buf, pos)
        if rich is not None:
            rest = rich[5] + rich[6]
            parts = self._split(rest) if rest else None
            if not rest or parts is not None:
                return rich.end(), (rich, rest, parts)
        m = self._open.match(buf, pos)
        if m is None:
            return None
        items: list[Any] = []  # another shape's children, as matches of _L1
        child = _L1.match
        at = m.end()
        while True:
            item = child(buf, at)
            if item is None:
                break
            items.append(item)
            at = item.end()
        m = self._close.match(buf, at)
        return None if m is None else (m.end(), items)

    def _read_rich(
        self, doc: Document, m: re.Match[str], rest: str, parts: list[str | None] | None
    ) -> list[Any] | None:
        try:
            if self._index:
                loc, lastmod = m.group(1, 2)
                return [field_value(loc), None if lastmod is None else field_value(lastmod)]
            loc, lastmod, changefreq, priority = m.group(1, 2, 3, 4)
            args: list[Any] = [
                field_value(loc),
                None if lastmod is None else field_value(lastmod),
                None if changefreq is None else field_value(changefreq),
                None if priority is None else field_value(priority),
            ]
        except Odd:
            return None
        if parts is None:
            return args
        found = self._rest(doc, rest, parts)
        return None if found is None else args + found

    def _rest(self, doc: Document, rest: str, parts: list[Any]) -> list[list[Any]] | None:
        """The extensions of the rest of a rich block (``parts``: ``rest`` split), or None
        when the block is the exact path's."""
        try:
            if "&#" not in rest and parts[3::7].count(None) * 7 == len(parts) - 1:
                # Nothing here can make the block the exact path's (no character reference,
                # no attribute dictionary to check): the records are built in one pass.
                return self._records(parts, doc)
            steps = self._steps(parts)
        except Odd:
            return None
        return self._extensions(steps, doc)

    def _records(self, parts: list[Any], doc: Document) -> list[list[Any]]:
        """The images and alternates of a rich block of canonical alternates and images
        without character references (``parts``: as for ``_steps``), in document order."""
        images: list[Image] = []
        alternates: list[Alternate] = []
        image_field = self._image
        check_loc = doc.check_loc
        for hreflang, href, image in zip(parts[1::7], parts[2::7], parts[4::7], strict=True):
            if href is not None:
                # alternate_of, written out: most records of a multilingual sitemap
                href = (_decode(href) if "&" in href else href).strip()
                loc = check_loc(href) if href else None
                if loc is not None:
                    alternates.append(Alternate(hreflang.strip() or None, loc))
            else:
                assert image_field is not None
                sub = {name: field_value(text) for name, text in image_field.findall(image)}
                record = _image(sub, doc)
                if record is not None:
                    images.append(record)
        return [images, [], [], alternates]

    def _steps(self, parts: list[Any]) -> list[tuple[Any, ...]]:
        """The alternates and images of a rich block (``parts``: the rest split by
        ``_items``), decoded before any record function is called."""
        steps: list[tuple[Any, ...]] = []
        image_field = self._image
        for hreflang, href, attrs, image in zip(
            parts[1::7], parts[2::7], parts[3::7], parts[4::7], strict=True
        ):
            if href is not None:
                steps.append((None, hreflang, _decode(href) if "&" in href else href))
            elif attrs is not None:
                steps.append((ALTERNATE, _attrs(attrs)))
            else:
                assert image_field is not None
                sub = {name: field_value(text) for name, text in image_field.findall(image)}
                steps.append((_IMAGE_SPEC, sub))
        return steps

    def _extensions(self, steps: list[tuple[Any, ...]], doc: Document) -> list[list[Any]]:
        """The images, videos, news and alternates of these steps, in document order: a
        canonical alternate (None, hreflang, href), an alternate's attributes (ALTERNATE,
        attrs), or a container's fields (its Container, sub)."""
        found: list[list[Any]] = [[], [], [], []]
        for step in steps:
            what = step[0]
            if what is None:
                record = alternate_of(step[1], step[2], None, doc)
                if record is not None:
                    found[ALTERNATES].append(record)
            elif what is ALTERNATE:
                record = alternate(step[1], doc)
                if record is not None:
                    found[ALTERNATES].append(record)
            else:
                record = what.build(step[1], doc)
                if record is not None:
                    found[what.slot].append(record)
        return found

    def read(self, doc: Document, found: Any) -> list[Any] | None:
        """The arguments of ``emit_entry`` (or ``emit_ref``) after ``doc`` for a block
        ``match`` found, or None when the block is the exact path's. Extensions are built
        (and their faults counted) here, in the document order the exact path meets them."""
        if isinstance(found, tuple):
            return self._read_rich(doc, *found)
        fields: dict[str, str] = {}
        items: list[re.Match[str]] = found
        plan: list[tuple[Any, ...]] = []  # the extensions: (ALTERNATE or a container, value)
        try:
            for item in items:
                self._child(item, fields, plan)
        except Odd:
            return None
        if self._index:
            return [fields.get("loc", ""), fields.get("lastmod")]
        return [
            fields.get("loc", ""),
            fields.get("lastmod"),
            fields.get("changefreq"),
            fields.get("priority"),
            *self._extensions(plan, doc),
        ]

    def _key(self, name: str) -> tuple[int, str]:
        prefix, _, local = name.rpartition(":")
        if not prefix:
            return CORE, local
        kind = self._kinds.get(prefix)
        if kind is None:
            raise Odd  # expat: "unbound prefix"
        return kind, local

    def _child(self, m: re.Match[str], fields: dict[str, str], plan: list[tuple[Any, ...]]) -> None:
        """One child of the block: a field's value goes to ``fields``; an alternate (its
        attributes) or a container (its fields) to ``plan``; anything else is ignored but
        what looks like an extension's element (``._extensions.lookalike``)."""
        key = self._key(m["a"])
        attrs = _attrs(m["aa"]) if m["aa"] else {}
        value = field_value(m["av"]) if m["av"] else ""
        inner = m["ai"]
        field = self._fields.get(key)
        if field is not None:
            if inner is not None or field in fields:
                raise Odd  # markup inside a value; a repeated field (several-locs, ...)
            fields[field] = value
            return
        if key == self._record:
            raise Odd  # a record inside a record (unclosed-entry)
        spec = None if self._index else CONTAINERS.get(key)
        sub: dict[str, Any] = {}
        if inner:
            for child in _L2.finditer(inner):
                self._walk(child, "b", spec.fields if spec is not None else None, sub)
        if spec is not None:
            plan.append((spec, sub))
        elif self._index:
            return
        elif key == ALTERNATE:
            plan.append((ALTERNATE, attrs))
        elif lookalike(*key, attrs):
            raise Odd  # the exact path counts it (invalid-extension); nothing was built yet

    def _walk(
        self,
        m: re.Match[str],
        g: str,
        fields: Mapping[tuple[int, str], str] | None,
        sub: dict[str, Any],
    ) -> None:
        """A descendant of a child of the block. Inside a container (``fields``), its value
        goes to ``sub`` when it is one of the container's fields, at any depth as on the
        exact path; elsewhere only its well-formedness matters."""
        key = self._key(m[g])
        if m[g + "a"]:
            _attrs(m[g + "a"])
        value = field_value(m[g + "v"]) if m[g + "v"] else ""
        inner = m["bi"] if g == "b" else None
        field = None if fields is None else fields.get(key)
        if field is not None:
            if inner is not None:
                raise Odd  # markup inside a value
            if field in REPEATED:
                sub.setdefault(field, []).append(value)
            else:
                sub[field] = value
        elif inner:
            for child in _L3.finditer(inner):
                self._walk(child, "c", fields, sub)
