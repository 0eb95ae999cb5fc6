"""Incremental gunzip under a bound: a gzip bomb costs at most one step of output at a time.

``zlib.decompressobj(wbits=31)`` reads one gzip member; a file of several members (what
``cat a.gz b.gz`` makes, and some generators write) is read member after member.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator

GZIP_MAGIC = b"\x1f\x8b"
STEP = 262_144  # decompressed bytes handed on at a time: the memory a bomb can cost


class GzipError(Exception):
    """The bytes are not a valid gzip stream (the message is zlib's)."""


class Gunzip:
    """Feed compressed bytes, iterate over decompressed pieces of at most ``STEP`` bytes."""

    __slots__ = ("_dec", "_garbage", "_pending")

    def __init__(self) -> None:
        self._dec = zlib.decompressobj(wbits=31)
        self._pending = b""  # bytes after a member's end that may start another member
        self._garbage = False

    def feed(self, data: bytes) -> Iterator[bytes]:
        """Decompress ``data``; the caller may stop iterating at any time (a cut)."""
        if self._garbage:
            return
        buf = data
        while buf:
            if self._dec.eof:
                buf = self._pending + buf
                self._pending = b""
                if len(buf) < 2:
                    self._pending = buf
                    return
                if buf[:2] != GZIP_MAGIC:
                    # Zero padding or junk after the last member: gzip(1) ignores it too.
                    self._garbage = True
                    return
                self._dec = zlib.decompressobj(wbits=31)
            before = self._dec.copy()
            try:
                out = self._dec.decompress(buf, STEP)
            except zlib.error as exc:
                # zlib drops all the output of a call that fails. Replay its input a byte at a
                # time from the state before it, so what decoded before the fault is handed on
                # whatever the chunking: records before a fault stand (DESIGN.md).
                yield from _salvage(before, buf)
                raise GzipError(str(exc)) from exc
            if out:
                yield out
            buf = self._dec.unused_data if self._dec.eof else self._dec.unconsumed_tail

    @property
    def complete(self) -> bool:
        """True when the stream ended at the end of a member (not cut midway)."""
        return self._dec.eof


def _salvage(dec: zlib._Decompress, data: bytes) -> Iterator[bytes]:
    """The output ``dec`` gives for ``data`` fed byte by byte, up to the byte that fails."""
    for i in range(len(data)):
        piece = data[i : i + 1]
        while piece and not dec.eof:
            try:
                out = dec.decompress(piece, STEP)
            except zlib.error:
                return
            if out:
                yield out
            piece = dec.unconsumed_tail
