"""Encodings: every document reaches its format handler as UTF-8.

The encoding is sniffed from the first bytes, in the order of XML 1.0 appendix F: a
byte-order mark, then ``<`` in UTF-16 or UTF-32 without one (``<\\0`` / ``\\0<``), then the
XML declaration's ``encoding=``; a document that is not XML (a text sitemap) takes the
charset of its ``Content-Type`` instead. A document in UTF-8 (by far the most common) passes
through untouched: it pays for a look at its first bytes only. Any other encoding Python has
a codec for is decoded with an incremental decoder as the bytes stream in, so a character
split across chunks decodes right, and re-encoded as UTF-8.

The declaration's ``encoding="..."`` is then blanked with as many spaces: expat (which
otherwise knows only UTF-8, UTF-16, ISO-8859-1, US-ASCII and single-byte codecs), the
scanner and feedparser all see one consistent UTF-8 document without a word about the
encoding, and every later character keeps its line and column. (Overriding the encoding in
expat instead, with ``ParserCreate(encoding=...)``, would leave the declaration for the
scanner and feedparser to misread, and tie this to one consumer.)

Bytes the codec cannot decode become, in XML, a character XML forbids (U+0001): expat
reports it as ``not-well-formed`` (invalid token) at the line and column it would give to
the same fault in UTF-8, after the entries before it, as with any other fault. A character
cut by the end of the input becomes a cut UTF-8 character, which expat reports as it does
a UTF-8 document cut there. In a text sitemap, undecodable bytes come out as they came, so
the line is percent-encoded and counted (``encoding``), as for a line that is not UTF-8.
"""

from __future__ import annotations

import codecs
import functools
import re
from dataclasses import dataclass
from encodings import normalize_encoding
from typing import Literal

from .._base._models import ProblemKind
from ._doc import Document

_UTF8_BOM = b"\xef\xbb\xbf"
# (prefix, codec); UTF-32 before UTF-16: "FF FE 00 00" is a UTF-32 mark, not UTF-16 and a NUL.
_BOMS = (
    (b"\x00\x00\xfe\xff", "utf-32"),
    (b"\xff\xfe\x00\x00", "utf-32"),
    (b"\xfe\xff", "utf-16"),
    (b"\xff\xfe", "utf-16"),
)
_NO_BOM = (
    (b"\x00\x00\x00<", "utf-32-be"),
    (b"<\x00\x00\x00", "utf-32-le"),
    (b"\x00<", "utf-16-be"),
    (b"<\x00", "utf-16-le"),
)
_WS = " \t\r\n"
_SPACES = re.compile(rb"[ \t\r\n]*")
_SPACES_TEXT = re.compile(r"[ \t\r\n]*")
_DECL_WINDOW = 1_024  # a declaration not closed within this is expat's to judge
_ENCODING = re.compile(r"[ \t\r\n]+encoding[ \t\r\n]*=[ \t\r\n]*([\"'])([^\"'<>]*)\1")
# Labels browsers decode with a superset (WHATWG Encoding Standard): files declared so hold
# the superset's characters (Windows wrote them), and decoding as browsers do gives the URL a
# browser would request. The supersets decode the declared set's bytes alike, but for a few
# punctuation marks (Shift_JIS: 6, GB2312: 2), which they decode as browsers do.
_SUPERSETS = {
    **dict.fromkeys(("gb2312", "gbk", "x_gbk", "cp936", "csgb2312"), "gb18030"),
    **dict.fromkeys(
        ("shift_jis", "sjis", "x_sjis", "windows_31j", "ms_kanji", "csshiftjis"), "cp932"
    ),
    **dict.fromkeys(("euc_kr", "ks_c_5601_1987", "windows_949", "cseuckr"), "cp949"),
    "x_euc_jp": "euc_jp",
}
# Codecs Python has that are no encoding of a document (they would raise other errors).
_NOT_CHARSETS = frozenset({"idna", "punycode", "undefined", "unicode-escape", "raw-unicode-escape"})
# What markup is written with: a codec must decode these bytes as ASCII to read a declaration.
_MARKUP = bytes([9, 10, 13, *range(0x20, 0x7F)]).replace(b"\\", b"").replace(b"~", b"")
_ESCAPE = "sitemap_reader.escape"  # undecodable bytes kept as U+DC00 + byte, and back
_MARK = "sitemap_reader.mark"  # (in XML) each becomes U+0001, which expat refuses
_ESCAPED = re.compile("[\udc00-\udcff]")
_CUT = b"\xc3"  # a UTF-8 lead byte without its continuation: a character cut by the end


def _escape(exc: UnicodeError) -> tuple[str | bytes, int]:
    if isinstance(exc, UnicodeDecodeError):
        return "".join(chr(0xDC00 + b) for b in exc.object[exc.start : exc.end]), exc.end
    if isinstance(exc, UnicodeEncodeError):
        chars = exc.object[exc.start : exc.end]
        if all(0xDC00 <= ord(c) <= 0xDCFF for c in chars):
            return bytes(ord(c) - 0xDC00 for c in chars), exc.end
    raise exc


def _mark(exc: UnicodeError) -> tuple[str | bytes, int]:
    # One mark a character, not one a run: a run cut by a chunk's end would become two.
    if isinstance(exc, UnicodeEncodeError):
        return b"\x01" * (exc.end - exc.start), exc.end
    raise exc


codecs.register_error(_ESCAPE, _escape)
codecs.register_error(_MARK, _mark)


def content_charset(content_type: str | None) -> str | None:
    """The ``charset`` parameter of a ``Content-Type`` value, if it has one."""
    if not content_type:
        return None
    for param in content_type.split(";")[1:]:
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset":
            return value.strip().strip("\"'").strip() or None
    return None


@functools.lru_cache(maxsize=64)
def codec_for(label: str) -> str | None:
    """The Python codec that reads ``label``, or None when there is none."""
    key = normalize_encoding(label.strip().lower())
    name = _SUPERSETS.get(key, key)
    try:
        found = codecs.lookup(name).name
        b"<\0\0\0".decode(found)  # LookupError for a bytes-to-bytes codec (rot13, base64, ...)
    except LookupError:
        return None
    except UnicodeError:
        pass  # a text codec all the same
    return None if found in _NOT_CHARSETS else found


# Labels a server sends by default, whatever the file holds: a hint, not a declaration.
_SERVER_DEFAULTS = frozenset({"latin-1", "iso8859-1", "cp1252", "ascii"})


def _utf8_or_ascii(head: bytes | bytearray) -> bool:
    """``head`` reads as UTF-8 (a character cut at its end allowed)."""
    try:
        codecs.getincrementaldecoder("utf-8")().decode(bytes(head))
    except UnicodeDecodeError:
        return False
    return True


@functools.lru_cache(maxsize=64)
def _ascii_compatible(codec: str) -> bool:
    try:
        return _MARKUP.decode(codec) == _MARKUP.decode("ascii")
    except UnicodeError:
        return False


def _declaration(body: str, *, final: bool) -> tuple[int, int, str] | Literal[False] | None:
    """The declaration's ``encoding="..."`` in ``body``: (start, end, label); False when
    there is none; None while the characters so far cannot tell.

    ``body`` is the document from its first character that is not white space; the answer
    depends on its first ``_DECL_WINDOW`` characters only, so not on how input was split.
    """
    if len(body) < 6:
        return None if "<?xml"[: len(body)] == body[:5] and not final else False
    if not body.startswith("<?xml") or body[5] not in _WS:
        return False
    end = body.find("?>", 0, _DECL_WINDOW)
    if end < 0:
        return None if len(body) < _DECL_WINDOW and not final else False
    found = _ENCODING.search(body, 5, end)
    return False if found is None else (found.start(), found.end(), found[2])


@dataclass(frozen=True, slots=True)
class _Plan:
    codec: str | None  # None: the bytes are UTF-8 and pass through
    blank: tuple[int, int] | None = None  # (UTF-8 only) the span of an encoding to blank


class Decoding:
    """Between a document's bytes and its format handler: hands on UTF-8.

    ``feed()`` returns the UTF-8 to route and read (empty while the first bytes are
    looked at); once ``settled``, the rest of the document is UTF-8 and may bypass this.
    An encoding no codec reads ends the document (``unknown-encoding``) when the XML
    declares it; a ``Content-Type`` charset no codec reads is reported and the text is
    read as UTF-8.
    """

    __slots__ = ("_decoder", "_doc", "_head", "_hint", "_raw", "_strict", "codec", "settled")

    def __init__(self, doc: Document, content_type: str | None = None) -> None:
        self._doc = doc
        self._hint = content_charset(content_type)
        self._raw = bytearray()  # the first bytes, held until the encoding is known
        self._decoder: codecs.IncrementalDecoder | None = None
        self._head: str | None = ""  # decoded text held until its declaration is judged
        self._strict = True  # XML (a fault is the parser's to report), not a text sitemap
        self.settled = False
        self.codec: str | None = None  # the codec decoding the document; None: UTF-8

    def feed(self, data: bytes) -> bytes:
        if self._decoder is not None:
            return self._decode(data, final=False)
        if self.settled:
            return data
        raw = self._raw
        if raw:
            raw += data
        head = raw or data  # (the first chunk is looked at where it is: no copy)
        plan = self._sniff(head, final=False)
        if plan is None:
            if not raw:
                raw += data
            return b""
        return self._start(plan, bytes(head) if head is raw else data)

    def close(self) -> bytes:
        """End of input: what was held, and the end of a character cut short."""
        if self._decoder is not None:
            return self._decode(b"", final=True)
        if self.settled:
            return b""
        plan = self._sniff(self._raw, final=True)
        assert plan is not None
        head = self._start(plan, bytes(self._raw))
        return head if self._decoder is None else head + self._decode(b"", final=True)

    def _start(self, plan: _Plan, head: bytes) -> bytes:
        self._raw = bytearray()
        if plan.codec is not None and not self._doc.ended:
            self.codec = plan.codec
            self._decoder = codecs.getincrementaldecoder(plan.codec)(_ESCAPE)
            return self._decode(head, final=False)
        self.settled = True
        if self._doc.ended:
            return b""
        if plan.blank is None:
            return head
        start, end = plan.blank
        return head[:start] + b" " * (end - start) + head[end:]

    def _sniff(self, head: bytes | bytearray, *, final: bool) -> _Plan | None:
        """The plan for the document that starts with ``head``; None: more bytes are needed."""
        if len(head) < 4 and not final:
            return None
        for prefix, wide in (*_BOMS, *_NO_BOM):
            if head.startswith(prefix):
                return _Plan(wide)
        mark = head.startswith(_UTF8_BOM)
        spaces = _SPACES.match(head, 3 if mark else 0)
        assert spaces is not None  # (it matches nothing too)
        first = spaces.end()  # where the white space (and a UTF-8 mark) before the body ends
        limit = self._doc.limits.max_token_bytes
        if first == len(head) and not final and first <= limit:
            return None
        if first > limit or head[first : first + 1] != b"<":
            return self._text(head, utf8_mark=mark)  # not XML, as the parser routes it
        found = _declaration(head[first : first + _DECL_WINDOW].decode("latin-1"), final=final)
        if found is None:
            return None
        if found is False:
            return _Plan(None)
        start, end, label = found
        blank = (first + start, first + end)
        codec = codec_for(label)
        if mark or codec == "utf-8":
            # A UTF-8 mark wins over a declaration (appendix F); and "utf8" is Python's
            # name, not expat's. Expat would follow the declaration (and fail on the first
            # byte that is not ASCII), so it is blanked unless it says UTF-8 as expat does.
            return _Plan(None, None if label.lower() == "utf-8" else blank)
        if codec is None:
            self._doc.fail(
                ProblemKind.UNKNOWN_ENCODING,
                f"the document declares the encoding {label!r}, which no codec here "
                "reads; it was not read",
            )
            return _Plan(None)
        if not _ascii_compatible(codec):
            # The declaration was read as ASCII, so it cannot be right (UTF-16 without a mark
            # or "<\0"); the bytes are read as UTF-8, as when nothing is declared.
            return _Plan(None, blank)
        return _Plan(codec)

    def _text(self, head: bytes | bytearray, *, utf8_mark: bool) -> _Plan:
        """A text sitemap: the ``Content-Type`` charset, if any, says how to read it."""
        self._strict = False
        hint = self._hint
        if hint is None or utf8_mark:
            return _Plan(None)
        codec = codec_for(hint)
        if codec is None:
            self._doc.report(
                ProblemKind.UNKNOWN_ENCODING,
                f"the Content-Type names the charset {hint!r}, which no codec here reads; "
                "read as UTF-8",
            )
            return _Plan(None)
        if codec in _SERVER_DEFAULTS and _utf8_or_ascii(head):
            # Servers add these labels to text/plain unasked (Apache's AddDefaultCharset):
            # bytes that read as UTF-8 are taken as UTF-8, as browsers' sniffers would.
            return _Plan(None)
        if codec in ("utf-16", "utf-32"):
            # Without a mark (a mark was seen first): the byte order of a first character
            # that is ASCII, as a URL's is (Python's decoder would refuse to guess).
            codec += "-be" if head[:1] == b"\0" else "-le"
        return _Plan(None if codec == "utf-8" else codec)

    def _decode(self, data: bytes, *, final: bool) -> bytes:
        decoder = self._decoder
        assert decoder is not None
        text = decoder.decode(data)
        # At the end: the bytes the decoder held (a character cut short), as escapes.
        tail = decoder.decode(b"", True) if final else ""
        if self._head is not None:
            judged = self._judge(self._head + text + tail, final=final)
            if judged is None:
                return b""
            text = judged[: -len(tail)] if tail else judged  # (blanking keeps every length)
        out = text.encode("utf-8", _MARK if self._strict else _ESCAPE)
        if not tail:
            return out
        if not self._strict:
            return out + tail.encode("utf-8", _ESCAPE)
        cut = _CUT if _ESCAPED.search(tail) else b""
        return out + tail.encode("utf-8", "ignore") + cut

    def _judge(self, head: str, *, final: bool) -> str | None:
        """Hold decoded text until it shows what it is (XML or text) and its declaration."""
        limit = self._doc.limits.max_token_bytes
        spaces = _SPACES_TEXT.match(head)
        assert spaces is not None
        first = spaces.end()
        if first == len(head) and not final and first <= limit:
            self._head = head
            return None
        self._strict = self._strict and head[first : first + 1] == "<" and first <= limit
        if self._strict:
            found = _declaration(head[first : first + _DECL_WINDOW], final=final)
            if found is None:
                self._head = head
                return None
            if found is not False:
                start, end, _ = found
                head = head[: first + start] + " " * (end - start) + head[first + end :]
        self._head = None
        return head
