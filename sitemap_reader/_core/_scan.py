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

_W = rb"[ \t\r\n]*"
# Character data expat accepts as is: no markup, no CR (expat rewrites it), no control
# characters, and only the five predefined entity references. No ">" either: "]]>" is not
# allowed in character data (XML 1.0 section 2.4), so a value with ">" is expat's to judge.
_T = (
    rb"([^<>&\x00-\x08\x0b-\x1f]*"
    rb"(?:&(?:amp|lt|gt|quot|apos);[^<>&\x00-\x08\x0b-\x1f]*)*)"
)


def _field(name: bytes) -> bytes:
    return rb"<" + name + _W + rb">" + _T + rb"</" + name + _W + rb">" + _W


_IMAGE = (
    rb"<image:image" + _W + rb">" + _W + _field(b"image:loc") + rb"</image:image" + _W + rb">" + _W
)
_URL = re.compile(
    _W
    + rb"<url"
    + _W
    + rb">"
    + _W
    + _field(b"loc")
    + rb"(?:"
    + _field(b"lastmod")
    + rb")?(?:"
    + _field(b"changefreq")
    + rb")?(?:"
    + _field(b"priority")
    + rb")?((?:"
    + _IMAGE
    + rb")*)</url"
    + _W
    + rb">"
)
_IMAGE_LOC = re.compile(rb"<image:loc" + _W + rb">" + _T + rb"</image:loc")
_SITEMAP = re.compile(
    _W
    + rb"<sitemap"
    + _W
    + rb">"
    + _W
    + _field(b"loc")
    + rb"(?:"
    + _field(b"lastmod")
    + rb")?</sitemap"
    + _W
    + rb">"
)
_URL_END = re.compile(rb"</url" + _W + rb">")
_SITEMAP_END = re.compile(rb"</sitemap" + _W + rb">")

# What the document must start with for the scanner to take over after the root tag:
# an optional BOM and declaration, comments, processing instructions and white space (no
# DOCTYPE: it could declare defaults), then an unprefixed root start tag.
PROLOG = re.compile(
    rb"(?:\xef\xbb\xbf)?(?:<\?xml(?P<decl>[^>]*)\?>)?"
    rb"(?:[ \t\r\n]+|<!--(?:[^-]|-(?!-))*-->|<\?(?!xml)[^?]*(?:\?(?!>)[^?]*)*\?>)*"
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


def _text(raw: bytes) -> str:
    """Decode one value the way expat would deliver it, stripped; ValueError when it can't.

    U+FFFE and U+FFFF are not XML characters, so they are expat's to report: the scanner
    refuses whole chunks that hold them (see ``Scanner.feed``)."""
    value = raw.decode("utf-8")  # UnicodeDecodeError is a ValueError
    if "&" in value:
        value = (
            value.replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", '"')
            .replace("&apos;", "'")
            .replace("&amp;", "&")
        )
    return value.strip()


class Scanner:
    """Consumes simple blocks; gives back the bytes expat must read from where it stops."""

    __slots__ = ("_buf", "_col", "_doc", "_end", "_images", "_index", "_limit", "_lines", "_re")

    def __init__(self, doc: Document, *, index: bool, images: bool) -> None:
        self._doc = doc
        self._index = index
        self._images = images and not index
        self._re = _SITEMAP if index else _URL
        self._end = _SITEMAP_END if index else _URL_END
        self._limit = min(BLOCK_MAX, doc.limits.max_token_bytes)
        self._buf = b""
        self._lines = 0  # line breaks consumed, as expat counts them
        self._col = 0  # characters consumed since the last of them

    def feed(self, data: bytes) -> bytes | None:
        """Take ``data``; None while the scanner goes on, else the bytes to give expat."""
        buf = self._buf + data if self._buf else data
        if b"\xef\xbf\xbe" in buf or b"\xef\xbf\xbf" in buf:  # U+FFFE, U+FFFF
            self._buf = b""
            return self._filler() + buf
        pos = 0
        match = self._re.match
        doc = self._doc
        give_up = False
        while True:
            m = match(buf, pos)
            if m is None:
                break
            if m.end() - pos > self._limit:
                give_up = True  # as in _can_wait: a value or tag this long is expat's to judge
                break
            try:
                if self._index:
                    loc, lastmod = m.group(1, 2)
                    ok = emit_ref(doc, _text(loc), None if lastmod is None else _text(lastmod))
                else:
                    loc, lastmod, changefreq, priority, image_run = m.group(1, 2, 3, 4, 5)
                    images: list[Image] | tuple[()] = ()
                    if image_run:
                        if not self._images:  # the prefix is unbound, or bound elsewhere
                            raise ValueError("image blocks without the image namespace")
                        images = [Image(_text(raw)) for raw in _IMAGE_LOC.findall(image_run)]
                        if not all(image.loc for image in images):
                            raise ValueError("an image without a loc: the exact path reports it")
                    ok = emit_entry(
                        doc,
                        _text(loc),
                        None if lastmod is None else _text(lastmod),
                        None if changefreq is None else _text(changefreq),
                        None if priority is None else _text(priority),
                        images,
                    )
            except ValueError:
                give_up = True
                break
            pos = m.end()
            if not ok:
                return None  # the document was cut; the parser reads no more
        if pos:
            self._consumed(buf[:pos])
        rest = buf[pos:]
        if give_up or not self._can_wait(rest):
            self._buf = b""
            return self._filler() + rest
        self._buf = rest
        return None

    def finish(self) -> bytes:
        """End of input: everything not consumed goes to expat."""
        rest, self._buf = self._buf, b""
        return self._filler() + rest

    def _can_wait(self, rest: bytes) -> bool:
        """True when ``rest`` may still become a block the scanner takes."""
        if len(rest) > self._limit or self._end.search(rest) is not None:
            return False
        head = rest.lstrip(b" \t\r\n")[:9]
        opening = b"<sitemap" if self._index else b"<url"
        return head.startswith(opening) or opening.startswith(head)

    def _consumed(self, seg: bytes) -> None:
        lf = seg.count(b"\n")
        cr = seg.count(b"\r")
        breaks = lf + cr - seg.count(b"\r\n") if cr else lf
        if breaks:
            self._lines += breaks
            last = max(seg.rfind(b"\n"), seg.rfind(b"\r"))
            self._col = len(seg[last + 1 :].decode("utf-8"))
        else:
            self._col += len(seg.decode("utf-8"))

    def _filler(self) -> bytes:
        filler = b"\n" * self._lines + b" " * self._col
        self._lines = self._col = 0
        return filler
