"""The scanner's reader for the richer blocks generators write: one ``<url>`` or ``<sitemap>``.

The plain shape is matched by one expression in ``._scan``; a block of another usual shape
comes here: elements in any order up to three levels below the block (``<image:image>``
with its title and caption, ``<xhtml:link>`` alternates, ``<video:video>``, ``<news:news>``
and its ``<news:publication>``), attributes in any order and either quote, values with
CDATA sections and character or entity references, the prefixes the root declares.

Each element means here what it means to the exact path (``._sitemap``): a field of the
record, an alternate, an extension container whose fields are read at any depth within it,
or an element it ignores. Anything expat could judge otherwise (a comment, a prefix the
root does not declare, a repeated or namespaced attribute, a reference to an invalid
character, markup inside a value) makes the block the exact path's: ``read`` says None and
leaves no trace, for every value is decoded before any record function is called.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .._models import Alternate, Image, News, Video
from ._doc import Document
from ._extensions import (
    ALTERNATE,
    ALTERNATES,
    CONTAINERS,
    CORE,
    EXT_NS,
    IMAGE,
    OTHER,
    REPEATED,
    XHTML,
    alternate,
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
# Attribute values without tab or line breaks (expat turns them into spaces).
_ATTR_TEXT = {q: r"[^" + q + r"<&\t\n\r" + _CTRL + r"]*" for q in "\"'"}
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
_NS_DECL = re.compile(
    rb"[ \t\r\n]xmlns:([A-Za-z_][A-Za-z0-9_.\-]*)[ \t\r\n]*=[ \t\r\n]*(?:\"([^\"&]*)\"|'([^'&]*)')"
)

_IMAGE_SPEC = CONTAINERS[(IMAGE, "image")]
_URL_FIELDS = {(CORE, n): n for n in ("loc", "lastmod", "changefreq", "priority")}
_SITEMAP_FIELDS = {(CORE, n): n for n in ("loc", "lastmod")}


class _Odd(Exception):
    """The block holds something only expat may judge."""


def prefixes(root_attrs: bytes) -> dict[str, int]:
    """The element kind of each prefix the root start tag declares (its attribute bytes)."""
    kinds: dict[str, int] = {}
    for m in _NS_DECL.finditer(root_attrs):
        uri = (m[2] if m[2] is not None else m[3]).decode("utf-8", "replace")
        kinds[m[1].decode()] = EXT_NS.get(uri, OTHER)
    return kinds


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
    raise _Odd  # expat: "reference to invalid character number"


def _decode(raw: str) -> str:
    return _PIECE.sub(_piece, raw) if "&" in raw or "<" in raw else raw


def _value(raw: str) -> str:
    """A value as the exact path gives it: decoded, then stripped."""
    if "\r" in raw:  # line breaks as expat reads them (before references: "&#13;" stays)
        raw = raw.replace("\r\n", "\n").replace("\r", "\n")
    if "<" in raw:
        bare = raw.strip()
        # One CDATA section alone (All in One SEO writes every value so): its content. Text
        # around it is white space, which the strip takes either way.
        if bare.startswith("<![CDATA[") and bare.endswith("]]>") and bare.find("<![CDATA[", 9) < 0:
            return bare[9:-3].strip()
    elif "&" not in raw:
        return raw.strip()
    return _PIECE.sub(_piece, raw).strip()


def _attrs(raw: str) -> dict[str, str]:
    found = _ATTR.findall(raw)
    attrs = {name: double or single for name, double, single in found}
    if len(attrs) != len(found) or "xmlns" in attrs:
        raise _Odd  # expat's "duplicate attribute", or a namespace declared in the block
    if "&" in raw:
        return {name: _decode(value) for name, value in attrs.items()}
    return attrs


def _prefix(kinds: dict[str, int], kind: int) -> str | None:
    return next((prefix for prefix, k in kinds.items() if k == kind), None)


def _common(kinds: dict[str, int], *, index: bool) -> str:
    """One child of a block of the usual rich shape: a field (groups ``f``, ``v``), an
    alternate (``l``: its start tag but "/>") or an image (``i``: all but its end tag).
    Each kind's first group is never empty, so ``findall`` tells the kinds apart."""
    names = "loc|lastmod" if index else "loc|lastmod|changefreq|priority"
    field = r"<(?P<f>" + names + r")" + _WS + r">(?P<v>" + _VALUE + r")</(?P=f)" + _WS + r">"
    never = r"(?!)"  # (an extension the root does not declare: its groups never match)
    xhtml = None if index else _prefix(kinds, XHTML)
    link = never if xhtml is None else r"<" + xhtml + r":link"
    image = None if index else _prefix(kinds, IMAGE)
    image_field = never if image is None else _image_field(image, "g")
    image_open = never if image is None else r"<" + image + r":image" + _WS + r">"
    image_close = never if image is None else r"</" + image + r":image" + _WS + r">"
    return (
        r"(?:" + field
        + r"|(?P<l>" + link + _ATTRS + r")" + _WS + r"/>"
        + r"|(?P<i>" + image_open + _WS + r"(?:" + image_field + _WS + r")*)" + image_close
        + r")"
    )  # fmt: skip


def _image_field(prefix: str, g: str) -> str:
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
        "_kinds",
        "_link_len",
        "_open",
        "_usual_child",
    )

    def __init__(self, kinds: dict[str, int], *, index: bool) -> None:
        self._kinds = kinds
        self._index = index
        self._fields = _SITEMAP_FIELDS if index else _URL_FIELDS
        tag = "sitemap" if index else "url"
        self._open = re.compile(_WS + "<" + tag + _WS + ">")
        self._close = re.compile(_WS + "</" + tag + _WS + ">")
        self._usual_child = re.compile(_WS + _common(kinds, index=index))
        xhtml = _prefix(kinds, XHTML)
        self._link_len = 0 if xhtml is None else len(xhtml) + 6  # "<xhtml:link"
        image = _prefix(kinds, IMAGE)
        self._image = None if image is None else re.compile(_image_field(image, "g"))

    def match(self, buf: str, pos: int) -> tuple[int, list[Any]] | None:
        """The end of the block at ``pos`` and its children (for ``read``), if it has a
        shape read here and is complete in ``buf``."""
        m = self._open.match(buf, pos)
        if m is None:
            return None
        start = at = m.end()
        usual: list[Any] = []  # the usual shape's children, as (f, v, l, i) groups
        child = self._usual_child.match
        while True:
            item = child(buf, at)
            if item is None:
                break
            usual.append(item.group("f", "v", "l", "i"))
            at = item.end()
        m = self._close.match(buf, at)
        if m is not None:
            return m.end(), usual
        items: list[Any] = []  # another shape's children, as matches of _L1
        child = _L1.match
        at = start
        while True:
            item = child(buf, at)
            if item is None:
                break
            items.append(item)
            at = item.end()
        m = self._close.match(buf, at)
        return None if m is None or not items else (m.end(), items)

    def read(self, doc: Document, items: list[Any]) -> list[Any] | None:
        """The arguments of ``emit_entry`` (or ``emit_ref``) after ``doc``, or None when the
        block is the exact path's. Extensions are built (and their faults counted) here, in
        the document order the exact path meets them."""
        fields: dict[str, str] = {}
        plan: list[tuple[Any, Any]] = []  # the extensions: (ALTERNATE or a container, value)
        try:
            if not items or isinstance(items[0], tuple):
                self._usual(items, fields, plan)
            else:
                for item in items:
                    self._child(item, fields, plan)
        except _Odd:
            return None
        if self._index:
            return [fields.get("loc", ""), fields.get("lastmod")]
        found: tuple[list[Image], list[Video], list[News], list[Alternate]] = ([], [], [], [])
        for what, value in plan:
            if what is ALTERNATE:
                link = alternate(value, doc)
                if link is not None:
                    found[ALTERNATES].append(link)
            else:
                record = what.build(value, doc)
                if record is not None:
                    found[what.slot].append(record)
        return [
            fields.get("loc", ""),
            fields.get("lastmod"),
            fields.get("changefreq"),
            fields.get("priority"),
            *found,
        ]

    def _usual(
        self, children: list[Any], fields: dict[str, str], plan: list[tuple[Any, Any]]
    ) -> None:
        """The children of a block of the usual rich shape (see ``_child``)."""
        for field, value, link, image in children:
            if field:
                fields[field] = _value(value)
            elif link:
                plan.append((ALTERNATE, _attrs(link[self._link_len :])))
            else:
                assert self._image is not None
                sub = {name: _value(text) for name, text in self._image.findall(image)}
                plan.append((_IMAGE_SPEC, sub))

    def _key(self, name: str) -> tuple[int, str]:
        prefix, _, local = name.rpartition(":")
        if not prefix:
            return CORE, local
        kind = self._kinds.get(prefix)
        if kind is None:
            raise _Odd  # expat: "unbound prefix"
        return kind, local

    def _child(self, m: re.Match[str], fields: dict[str, str], plan: list[tuple[Any, Any]]) -> None:
        """One child of the block: a field's value goes to ``fields``; an alternate (its
        attributes) or a container (its fields) to ``plan``; anything else is ignored."""
        key = self._key(m["a"])
        attrs = _attrs(m["aa"]) if m["aa"] else {}
        value = _value(m["av"]) if m["av"] else ""
        inner = m["ai"]
        field = self._fields.get(key)
        if field is not None:
            if inner is not None:
                raise _Odd  # markup inside a value
            fields[field] = value
            return
        spec = None if self._index else CONTAINERS.get(key)
        sub: dict[str, Any] = {}
        if inner:
            for child in _L2.finditer(inner):
                self._walk(child, "b", spec.fields if spec is not None else None, sub)
        if spec is not None:
            plan.append((spec, sub))
        elif key == ALTERNATE and not self._index:
            plan.append((ALTERNATE, attrs))

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
        value = _value(m[g + "v"]) if m[g + "v"] else ""
        inner = m["bi"] if g == "b" else None
        field = None if fields is None else fields.get(key)
        if field is not None:
            if inner is not None:
                raise _Odd  # markup inside a value
            if field in REPEATED:
                sub.setdefault(field, []).append(value)
            else:
                sub[field] = value
        elif inner:
            for child in _L3.finditer(inner):
                self._walk(child, "c", fields, sub)
