"""The fast path: a scanner for the plain XML sitemaps that nearly every site serves.

After expat has read the prolog and the root start tag, the scanner matches whole
``<url>`` (or index ``<sitemap>``) blocks of the common, simple shape with one regular
expression each, and hands the values to the same record functions as the exact path.
At the first block it cannot take as it is (CDATA, comments, attributes, other elements or
order, character references, a stray ``&``, CR inside a value, invalid UTF-8, a block over
the size bound, the end of the root), it hands every remaining byte to expat, preceded by
white space with the line breaks and the column of what it consumed, so that expat reports
errors at the same line and column it would have reached by itself.

The exact path is its reference: a differential test feeds both the same documents, split
at random, and asserts identical events.
"""

from __future__ import annotations

import re

from .._models import Image
from ._doc import Document
from ._records import emit_entry, emit_ref

_W = r"[ \t\r\n]*"
# Character data expat accepts as is: no markup, no CR (expat rewrites it), no control
# characters, and only the five predefined entity references. No ">" either: "]]>" is not
# allowed in character data (XML 1.0 section 2.4), so a value with ">" is expat's to judge.
_T = (
    r"([^<>&\x00-\x08\x0b-\x1f]*"
    r"(?:&(?:amp|lt|gt|quot|apos);[^<>&\x00-\x08\x0b-\x1f]*)*)"
)


def _field(name: str) -> str:
    return r"<" + name + _W + r">" + _T + r"</" + name + _W + r">" + _W


_IMAGE = r"<image:image" + _W + r">" + _W + _field("image:loc") + r"</image:image" + _W + r">" + _W
_URL = re.compile(
    _W
    + r"<url"
    + _W
    + r">"
    + _W
    + _field("loc")
    + r"(?:"
    + _field("lastmod")
    + r")?(?:"
    + _field("changefreq")
    + r")?(?:"
    + _field("priority")
    + r")?((?:"
    + _IMAGE
    + r")*)</url"
    + _W
    + r">"
)
_IMAGE_LOC = re.compile(r"<image:loc" + _W + r">" + _T + r"</image:loc")
_SITEMAP = re.compile(
    _W
    + r"<sitemap"
    + _W
    + r">"
    + _W
    + _field("loc")
    + r"(?:"
    + _field("lastmod")
    + r")?</sitemap"
    + _W
    + r">"
)
_URL_END = re.compile(r"</url" + _W + r">")
_SITEMAP_END = re.compile(r"</sitemap" + _W + r">")

# What the document must start with for the scanner to take over after the root tag:
# an optional BOM and declaration, comments, processing instructions (<?xml-stylesheet?>,
# which Yoast, Rank Math and WordPress write, among them) and white space (no DOCTYPE: it
# could declare defaults), then an unprefixed root start tag.
PROLOG = re.compile(
    rb"(?:\xef\xbb\xbf)?(?:<\?xml(?P<decl>[^>]*)\?>)?"
    # (one white-space character an iteration: "(?:\s+)*" backtracks exponentially on a
    # long run of spaces before a prolog that does not match)
    rb"(?:[ \t\r\n]|<!--(?:[^-]|-(?!-))*-->|<\?(?![Xx][Mm][Ll][ \t\r\n?])[^?]*(?:\?(?!>)[^?]*)*\?>)*"
    rb"<(?P<root>[A-Za-z_][\w.\-:]*)"
    rb"(?P<attrs>(?:[ \t\r\n]+[A-Za-z_:][\w.\-:]*[ \t\r\n]*=[ \t\r\n]*(?:\"[^\"<]*\"|'[^'<]*'))*)"
    rb"[ \t\r\n]*>"
)
_ENCODING = re.compile(rb"encoding[ \t\r\n]*=[ \t\r\n]*[\"']([A-Za-z0-9._\-]+)[\"']")
_IMAGE_NS_DECL = re.compile(
    rb"xmlns:image[ \t\r\n]*=[ \t\r\n]*([\"'])http://www\.google\.com/schemas/sitemap-image/1\.1\1"
)
BLOCK_MAX = 65_536  # a longer block is left to expat


def eligible(match: re.Match[bytes]) -> tuple[bool, bool]:
    """(scanner may run, image blocks may be taken) for a document whose prolog matched."""
    root = match["root"]
    if root not in (b"urlset", b"sitemapindex"):
        return False, False
    decl = match["decl"]
    if decl:
        enc = _ENCODING.search(decl)
        if enc is not None and enc[1].lower() != b"utf-8":
            return False, False
    return True, _IMAGE_NS_DECL.search(match["attrs"]) is not None


def _unescape(value: str) -> str:
    """The five predefined entities, as expat decodes them (``&amp;`` last: once only)."""
    return (
        value.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", '"')
        .replace("&apos;", "'")
        .replace("&amp;", "&")
    )


def _text(value: str) -> str:
    return (_unescape(value) if "&" in value else value).strip()


def _complete(raw: bytes) -> int:
    """How many leading bytes of ``raw`` end on a whole UTF-8 character."""
    end = len(raw)
    for back in range(1, min(4, end) + 1):
        byte = raw[end - back]
        if byte < 0x80:
            return end  # ASCII: nothing is cut
        if byte >= 0xC0:  # a lead byte: is its sequence whole?
            need = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
            return end if back >= need else end - back
    return end  # no lead byte near the end: let the strict decoder judge


class Scanner:
    """Consumes simple blocks; gives back the bytes expat must read from where it stops.

    The bytes are decoded once per chunk (strictly: invalid UTF-8 is expat's to report), so
    the expressions run over text and values need no decoding of their own.
    """

    __slots__ = (
        "_buf",
        "_col",
        "_doc",
        "_end",
        "_images",
        "_index",
        "_limit",
        "_lines",
        "_parts",
        "_parts_len",
        "_pending",
        "_re",
    )

    def __init__(self, doc: Document, *, index: bool, images: bool) -> None:
        self._doc = doc
        self._index = index
        self._images = images and not index
        self._re = _SITEMAP if index else _URL
        self._end = _SITEMAP_END if index else _URL_END
        self._limit = min(BLOCK_MAX, doc.limits.max_token_bytes)  # in bytes, as expat counts
        self._buf = ""  # decoded, not yet consumed
        self._parts: list[str] = []  # decoded after _buf, not yet matched (see feed)
        self._parts_len = 0
        self._pending = b""  # the start of a character split across chunks
        self._lines = 0  # line breaks consumed, as expat counts them
        self._col = 0  # characters consumed since the last of them

    def feed(self, data: bytes) -> bytes | None:
        """Take ``data``; None while the scanner goes on, else the bytes to give expat."""
        raw = self._pending + data if self._pending else data
        cut = _complete(raw)
        try:
            text = raw[:cut].decode("utf-8")
        except UnicodeDecodeError:
            return self._give_up(raw)
        if "\ufffe" in text or "\uffff" in text:  # not XML characters: expat reports them
            return self._give_up(raw)
        self._pending = raw[cut:]
        if self._buf:
            # Matching the block that waits costs its length: try again only once it has
            # grown by half, or a value fed in small chunks would cost the square of it.
            self._parts.append(text)
            self._parts_len += len(text)
            if 2 * self._parts_len < len(self._buf):
                return None
            text = "".join(self._parts)
            self._parts.clear()
            self._parts_len = 0
        buf = self._buf + text if self._buf else text
        pos = 0
        match = self._re.match
        doc = self._doc
        limit = self._limit
        give_up = False
        while True:
            m = match(buf, pos)
            if m is None:
                break
            end = m.end()
            if end - pos > limit >> 2 and len(buf[pos:end].encode()) > limit:
                give_up = True  # as in _can_wait: a value or tag this long is expat's to judge
                break
            if self._index:
                loc, lastmod = m.group(1, 2)
                ok = emit_ref(doc, _text(loc), None if lastmod is None else _text(lastmod))
            else:
                loc, lastmod, changefreq, priority, image_run = m.group(1, 2, 3, 4, 5)
                images: list[Image] | tuple[()] = ()
                if image_run:
                    if not self._images:  # the prefix is unbound, or bound elsewhere
                        give_up = True
                        break
                    images = [Image(_text(value)) for value in _IMAGE_LOC.findall(image_run)]
                    if not all(image.loc for image in images):
                        give_up = True  # an image without a loc: the exact path reports it
                        break
                ok = emit_entry(
                    doc,
                    _text(loc),
                    None if lastmod is None else _text(lastmod),
                    None if changefreq is None else _text(changefreq),
                    None if priority is None else _text(priority),
                    images,
                )
            pos = end
            if not ok:
                return None  # the document was cut; the parser reads no more
        if pos:
            self._consumed(buf[:pos])
        rest = buf[pos:]
        if give_up or not self._can_wait(rest):
            self._buf = ""
            pending, self._pending = self._pending, b""
            return self._filler() + rest.encode("utf-8") + pending
        self._buf = rest
        return None

    def finish(self) -> bytes:
        """End of input: everything not consumed goes to expat."""
        rest, self._buf = self._buf + "".join(self._parts), ""
        self._parts.clear()
        pending, self._pending = self._pending, b""
        return self._filler() + rest.encode("utf-8") + pending

    def _give_up(self, raw: bytes) -> bytes:
        rest, self._buf = self._buf + "".join(self._parts), ""
        self._parts.clear()
        self._pending = b""
        # Text decoded earlier came from valid UTF-8: encoding it gives back the same bytes.
        return self._filler() + rest.encode("utf-8") + raw

    def _can_wait(self, rest: str) -> bool:
        """True when ``rest`` may still become a block the scanner takes."""
        limit = self._limit
        if len(rest) > limit >> 2 and len(rest.encode()) + len(self._pending) > limit:
            return False
        if self._end.search(rest) is not None:
            return False
        head = rest.lstrip(" \t\r\n")[:9]
        opening = "<sitemap" if self._index else "<url"
        return head.startswith(opening) or opening.startswith(head)

    def _consumed(self, seg: str) -> None:
        lf = seg.count("\n")
        cr = seg.count("\r")
        breaks = lf + cr - seg.count("\r\n") if cr else lf
        if breaks:
            self._lines += breaks
            last = max(seg.rfind("\n"), seg.rfind("\r"))
            self._col = len(seg) - last - 1
        else:
            self._col += len(seg)

    def _filler(self) -> bytes:
        filler = b"\n" * self._lines + b" " * self._col
        self._lines = self._col = 0
        return filler
