"""The fast path: a scanner for the XML sitemaps sites serve, expat reading only what it must.

After expat has read the prolog and the root start tag, the scanner matches whole
``<url>`` (or index ``<sitemap>``) blocks: the usual shape (fields in the protocol's
order, then alternates and images) with one regular expression, the others (video, news,
attributes in any order... : see ``._blocks``) with a few more, and hands the values to the
same record functions as the exact path.
A block it cannot take as it is (a comment, another namespace, a value over the size
bound...) is expat's: expat reads it, preceded by white space with the line breaks and the
column of what the scanner consumed since expat last read, so that it reports errors at
the line and column it would have reached by itself, up to the end tag after which its
state machine says the record closed; the scanner goes on from there. Invalid UTF-8 or
the end of the input hands every remaining byte to expat.

The exact path is its reference: a differential test feeds both the same documents, split
at random, and asserts identical events.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..._base._models import Image
from .._doc import Document
from ._blocks import BlockReader, Odd, field_value
from ._records import emit_entry, emit_ref

_W = r"[ \t\r\n]*"
_URL_END = re.compile(r"</url" + _W + r">")
_SITEMAP_END = re.compile(r"</sitemap" + _W + r">")

BLOCK_MAX = 65_536  # a longer block is left to expat
# After this many blocks left to expat, if they are half of all, expat reads the rest alone.
_ODD_BLOCKS = 64


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
    """Consumes the blocks it can read; expat reads the others, and what it must from where
    the scanner stops for good (``feed`` and ``finish`` give those bytes back).

    The bytes are decoded once per chunk (strictly: invalid UTF-8 is expat's to report), so
    the expressions run over text and values need no decoding of their own. A block the
    scanner cannot take goes to expat through ``read`` (bytes, and where they start in the
    scanner's input when a filler stands for what it consumed since expat last read), up to
    the end tag after which ``settled`` says expat closed the record: the scanner goes on
    from there.
    """

    __slots__ = (
        "_at",
        "_block",
        "_blocks",
        "_buf",
        "_col",
        "_doc",
        "_end",
        "_index",
        "_limit",
        "_lines",
        "_mark",
        "_odd",
        "_parts",
        "_parts_len",
        "_pending",
        "_read",
        "_settled",
        "_total",
    )

    def __init__(
        self,
        doc: Document,
        *,
        index: bool,
        kinds: dict[str, int],
        read: Callable[[bytes, int | None], bool],
        settled: Callable[[int], bool],
    ) -> None:
        self._doc = doc
        self._index = index
        self._end = _SITEMAP_END if index else _URL_END
        self._blocks = BlockReader(kinds, index=index)
        self._read = read
        self._settled = settled
        self._limit = min(BLOCK_MAX, doc.limits.max_token_bytes)  # in bytes, as expat counts
        self._buf = ""  # decoded, not yet consumed
        self._parts: list[str] = []  # decoded after _buf, not yet matched (see feed)
        self._parts_len = 0
        self._pending = b""  # the start of a character split across chunks
        self._total = 0  # bytes fed
        self._lines = 0  # line breaks consumed since expat last read, as expat counts them
        self._col = 0  # characters consumed since the last of them
        self._block = False  # expat is reading a block the scanner did not take
        self._odd = 0  # blocks expat read
        self._mark = 0  # where in the chunk's text the consumed stretch not yet counted starts
        self._at: tuple[int, int] | None = None  # (a place in that text, its input offset)

    def feed(self, data: bytes) -> bytes | None:
        """Take ``data``; None while the scanner goes on, else the bytes to give expat."""
        self._total += len(data)
        raw = self._pending + data if self._pending else data
        cut = _complete(raw)
        try:
            text = raw[:cut].decode("utf-8")
        except UnicodeDecodeError:
            return self._give_up(raw)
        if "\ufffe" in text or "\uffff" in text:  # not XML characters: expat reports them
            return self._give_up(raw)
        self._pending = raw[cut:]
        if self._buf and not self._block:
            # Matching the block that waits costs its length: try again only once it has
            # grown by half, or a value fed in small chunks would cost the square of it.
            self._parts.append(text)
            self._parts_len += len(text)
            if 2 * self._parts_len < len(self._buf):
                return None
            text = "".join(self._parts)
            self._parts.clear()
            self._parts_len = 0
        return self._run(self._buf + text if self._buf else text)

    def _run(self, buf: str) -> bytes | None:
        """Consume what ``buf`` (all the text not consumed) allows; as ``feed``."""
        pos = self._mark = 0
        self._at = None
        blocks = self._blocks
        plain = blocks.plain.match
        match = blocks.rich.match
        image_locs = blocks.image_locs
        index = self._index
        doc = self._doc
        limit = self._limit
        stop = self._last_end(buf)
        while True:
            if self._block:
                pos = self._through_block(buf, pos)
                if pos < 0:
                    return b""  # expat ended the document
                if self._block:
                    break
                continue
            while True:  # the usual blocks, the most common by far
                m = plain(buf, pos, stop)
                if m is not None:  # (the most common: values that field_value only strips)
                    loc, lastmod, changefreq, priority, images, rest = m.group(1, 2, 3, 4, 5, 6)
                    loc = loc.strip()
                    lastmod = lastmod and lastmod.strip()
                    changefreq = changefreq and changefreq.strip()
                    priority = priority and priority.strip()
                else:
                    m = match(buf, pos, stop)
                    if m is None:
                        break
                    loc, lastmod, changefreq, priority, images, rest = m.group(1, 2, 3, 4, 5, 6)
                    try:
                        loc = field_value(loc)
                        lastmod = None if lastmod is None else field_value(lastmod)
                        changefreq = None if changefreq is None else field_value(changefreq)
                        priority = None if priority is None else field_value(priority)
                    except Odd:
                        break  # a reference to an invalid character: see below
                end = m.end()
                if end - pos > limit >> 2 and len(buf[pos:end].encode()) > limit:
                    break  # as in _can_wait: so long a block is expat's (see below)
                if index:
                    ok = emit_ref(doc, loc, lastmod)
                elif rest:  # alternates, images of another shape...
                    more = blocks.extensions(doc, images + rest)
                    if more is None:
                        break  # another shape, or the exact path's: see below
                    ok = emit_entry(doc, loc, lastmod, changefreq, priority, *more)
                elif images:
                    locs = [raw.strip() for raw in image_locs(images)]  # (plain values)
                    if not all(locs):
                        break  # an image without its loc: see below
                    images = [Image(image) for image in locs]
                    ok = emit_entry(doc, loc, lastmod, changefreq, priority, images)
                else:
                    ok = emit_entry(doc, loc, lastmod, changefreq, priority)
                pos = end
                if not ok:
                    return None  # the document was cut; the parser reads no more
            if m is not None:  # (a whole block the loop did not take: no need to wait)
                found = blocks.match(buf, pos, m)
            elif self._can_wait(buf, pos):
                break  # (no block is whole before an end tag: no other shape is tried)
            else:
                found = blocks.match(buf, pos)
            if found is not None:
                end, block = found
                args = None
                if not (end - pos > limit >> 2 and len(buf[pos:end].encode()) > limit):
                    args = blocks.read(doc, block)
                if args is None:
                    handover = self._odd_block(buf, pos)
                    if handover is not None:
                        return handover
                    continue
                ok = emit_ref(doc, *args) if self._index else emit_entry(doc, *args)
                pos = end
                if not ok:
                    return None
                continue
            handover = self._odd_block(buf, pos)
            if handover is not None:
                return handover
        if not self._block:
            self._consumed(buf[self._mark : pos])
        self._buf = buf[pos:]
        return None

    def _last_end(self, buf: str) -> int:
        """Where the last end tag of a block in ``buf`` ends (0 without one). The blocks
        the scanner matches end there at the latest, and the one cut at the end of ``buf``
        is not tried: a match that fails costs many times one that does not, for each
        optional part is tried again without the others."""
        tag = "</sitemap" if self._index else "</url"
        at = len(buf)
        while True:
            at = buf.rfind(tag, 0, at)
            if at < 0:
                return 0
            end = self._end.match(buf, at)
            if end is not None:
                return end.end()

    def finish(self) -> bytes:
        """End of input: everything not consumed goes to expat."""
        if self._parts:  # a block waits on more text than came (see feed): try it now
            text = "".join(self._parts)
            self._parts.clear()
            self._parts_len = 0
            handover = self._run(self._buf + text)
            if handover is not None:
                return handover
        rest, self._buf = self._buf, ""  # (_parts is empty here)
        pending, self._pending = self._pending, b""
        return self._filler() + rest.encode("utf-8") + pending

    def _give_up(self, raw: bytes) -> bytes:
        rest, self._buf = self._buf + "".join(self._parts), ""
        self._parts.clear()
        self._pending = b""
        # Text decoded earlier came from valid UTF-8: encoding it gives back the same bytes.
        return self._filler() + rest.encode("utf-8") + raw

    def _can_wait(self, buf: str, pos: int) -> bool:
        """True when what follows ``pos`` may still become a block the scanner takes."""
        if self._end.search(buf, pos) is not None:
            return False
        limit = self._limit
        if len(buf) - pos > limit >> 2 and len(buf[pos:].encode()) + len(self._pending) > limit:
            return False
        head = buf[pos : pos + 64].lstrip(" \t\r\n")[:9]
        opening = "<sitemap" if self._index else "<url"
        return head.startswith(opening) or opening.startswith(head)

    # -- a block for expat --------------------------------------------------------------

    def _odd_block(self, buf: str, pos: int) -> bytes | None:
        """The block at ``pos`` is expat's: None once it reads it (``_enter``), or, when
        most blocks so far were odd, the bytes it reads from there on, alone: expat reads a
        document faster whole than one block at a time."""
        self._odd += 1
        if self._odd < _ODD_BLOCKS or 2 * self._odd <= self._doc.entries:
            self._enter(buf, pos)
            return None
        self._consumed(buf[self._mark : pos])
        self._buf = ""
        pending, self._pending = self._pending, b""
        return self._filler() + buf[pos:].encode("utf-8") + pending

    def _enter(self, buf: str, pos: int) -> None:
        """Expat reads from ``pos`` on, up to the end of the block there."""
        self._consumed(buf[self._mark : pos])
        self._mark = pos
        self._block = True

    def _through_block(self, buf: str, pos: int) -> int:
        """Give expat the text from ``pos`` to the next end tag of a record (or all of it
        but what may start one); where the scanner stands then, -1 once the document ended."""
        m = self._end.search(buf, pos)
        if m is None:
            stop = len(buf)
            lt = buf.rfind("<", pos)
            if lt >= 0 and stop - lt < 64 and ">" not in buf[lt:]:
                stop = lt  # maybe the start of the end tag: kept for the next chunk
            if stop > pos and not self._send(buf, pos, stop):
                return -1
            self._mark = stop
            return stop
        stop = m.end()
        if not self._send(buf, pos, stop):
            return -1
        self._mark = stop
        if self._settled(stop - m.start()):
            self._block = False
        return stop

    def _send(self, buf: str, start: int, stop: int) -> bool:
        at = None
        filler = self._filler()
        if filler:  # expat is told where the text after it stands in the input
            at = self._offset(buf, start) - len(filler)
        return self._read(filler + buf[start:stop].encode("utf-8"), at)

    def _offset(self, buf: str, i: int) -> int:
        """Where ``buf[i]`` stands in the scanner's input, in bytes."""
        known = self._at
        if known is None:
            known = (0, self._total - len(self._pending) - len(buf.encode("utf-8")))
        j, offset = known
        offset += len(buf[j:i].encode("utf-8"))
        self._at = (i, offset)
        return offset

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
