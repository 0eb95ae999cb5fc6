"""Content codings undone incrementally under a bound: a bomb costs one step of output at a time.

One class per coding behind one small interface (:class:`Decoder`): ``feed`` compressed bytes,
iterate over decompressed pieces of at most about :data:`STEP` bytes, stop iterating whenever
the consumer has had enough (a size limit). The consumer, not the decoder, bounds the total.

- gzip (:func:`gunzip`): a file of several members (what ``cat a.gz b.gz`` makes, and some
  generators write) is read member after member. The parser uses it for ``.gz`` files too.
- deflate (:func:`inflate`): the zlib wrapping HTTP specifies, or the raw deflate some servers
  send instead, told apart by the zlib header.

  Both are inflated by the compiled core when it runs (``_native.Inflater``, flate2 on
  zlib-rs, with the GIL released: :class:`Inflating`), else by Python's zlib
  (:class:`Gunzip`, :class:`Inflate`, the pure core's): the same pieces joined, the same
  faults in the same words, the same ``complete``.
- br (:class:`Unbrotli`): the Brotli package (1.2 or newer bounds its output).
- zstd (:class:`Unzstd`): ``compression.zstd`` (Python 3.14), else backports.zstd.
- several codings (``Content-Encoding: gzip, br``): :class:`Stacked`, undone last first.

:func:`decoder_for` reads a ``Content-Encoding`` value; :func:`accept_encoding` says what this
machine can undo, for ``Accept-Encoding``.
"""

from __future__ import annotations

import importlib
import sys
import zlib
from collections.abc import Callable, Iterator, Sequence
from functools import cache
from types import ModuleType
from typing import Protocol

from .._base._errors import CodingError, ContentEncodingError
from ._pure import pure_requested

GZIP_MAGIC = b"\x1f\x8b"
# Decompressed bytes handed on at a time: the memory a bomb can cost. The parser's chunk
# (``_http._response.CHUNK``): a larger piece was only cut into chunks again, and its large
# blocks, once freed, stayed in the allocator's heap (about 2 MB of a 1M-URL site's peak RSS).
STEP = 65_536
MAX_STACKED = 3  # codings undone one over another; real servers stack two at most
# Compressed bytes given to brotli or zstd at a time. Neither can copy its state, so the
# output of a call that fails is lost: small calls keep what decoded before a fault.
SLICE = 512


class Decoder(Protocol):
    """One content coding (or a stack of them), undone as the bytes arrive."""

    @property
    def name(self) -> str:
        """The coding as ``Content-Encoding`` names it."""

    def feed(self, data: bytes) -> Iterator[bytes]:
        """Decompress ``data``; the caller may stop iterating at any time (a cut).
        Raises :class:`CodingError` after the pieces decoded before the fault."""

    @property
    def complete(self) -> bool:
        """True when the stream ended where it should (not cut midway)."""


class _Zlib:
    """What gzip and deflate share: zlib's decompressobj, a bounded step at a time."""

    __slots__ = ("_dec",)
    name = ""

    def __init__(self, wbits: int) -> None:
        self._dec = zlib.decompressobj(wbits=wbits)

    def _inflate(self, buf: bytes) -> Iterator[bytes]:
        """Inflate ``buf`` until it is used up or the stream ends (the rest is then in
        ``self._dec.unused_data``)."""
        dec = self._dec
        full = False
        # A full piece may leave output in zlib's state with the input used up (the rest of a
        # match): drained before returning, or what came out would depend on the chunking.
        while (buf or full) and not dec.eof:
            before = dec.copy()
            try:
                out = dec.decompress(buf, STEP)
            except zlib.error as exc:
                # zlib drops all the output of a call that fails. Replay its input a byte at a
                # time from the state before it, so what decoded before the fault is handed on
                # whatever the chunking: records before a fault stand
                # (docs/architecture.md, "Records before a fault stand").
                yield from _salvage(before, buf)
                raise CodingError(self.name, str(exc)) from exc
            if out:
                yield out
            full = len(out) == STEP
            buf = dec.unconsumed_tail

    @property
    def complete(self) -> bool:
        return self._dec.eof


class Gunzip(_Zlib):
    """gzip, member after member."""

    __slots__ = ("_garbage", "_pending")
    name = "gzip"

    def __init__(self) -> None:
        super().__init__(31)
        self._pending = b""  # bytes after a member's end that may start another member
        self._garbage = False

    def feed(self, data: bytes) -> Iterator[bytes]:
        buf = data
        while buf and not self._garbage:
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
            yield from self._inflate(buf)
            buf = self._dec.unused_data if self._dec.eof else b""


class Inflate(_Zlib):
    """deflate: zlib-wrapped (RFC 1950, what HTTP specifies) or raw (RFC 1951, what some
    servers send), told apart by the zlib header's check bits, as browsers do."""

    __slots__ = ("_head",)
    name = "deflate"

    def __init__(self) -> None:
        super().__init__(15)
        self._head: bytes | None = b""  # None once the wrapping is known

    def feed(self, data: bytes) -> Iterator[bytes]:
        if self._head is not None:
            data = self._head + data
            if len(data) < 2:
                self._head = data
                return
            self._head = None
            cmf, flg = data[0], data[1]
            if cmf & 0x0F != 8 or cmf >> 4 > 7 or (cmf << 8 | flg) % 31:
                self._dec = zlib.decompressobj(wbits=-15)  # no zlib header: raw deflate
        yield from self._inflate(data)  # anything after the stream's end is ignored


class Inflater(Protocol):
    """``_native.Inflater`` (src/inflate.rs, see ``_native.pyi``)."""

    def push(self, data: bytes, /) -> None: ...
    def pull(self) -> bytes | None: ...
    @property
    def complete(self) -> bool: ...
    @property
    def fault(self) -> str | None: ...


class NewInflater(Protocol):
    def __call__(self, coding: str, /, *, step: int) -> Inflater: ...


class Inflating:
    """gzip or deflate on the compiled core: the bytes go to Rust, each piece (at most
    :data:`STEP` bytes) is inflated when the consumer asks for it, so a bomb costs one
    step at a time there too; the pieces before a fault come out before its error."""

    __slots__ = ("_inflater", "name")

    def __init__(self, name: str, new: NewInflater) -> None:
        self.name = name
        self._inflater = new(name, step=STEP)

    def feed(self, data: bytes) -> Iterator[bytes]:
        inflater = self._inflater
        inflater.push(data)
        while (piece := inflater.pull()) is not None:
            yield piece
        if (fault := inflater.fault) is not None:
            raise CodingError(self.name, fault)

    @property
    def complete(self) -> bool:
        return self._inflater.complete


@cache
def compiled_inflater() -> NewInflater | None:
    """The compiled core's inflater, None on the pure core (``SITEMAP_READER_PURE``, or no
    extension). Chosen at the first gzip or deflate stream, as the text handler is."""
    if pure_requested():
        return None
    try:
        from .. import _native
    except ImportError:
        return None
    return _native.Inflater


def gunzip() -> Decoder:
    """A gzip decoder on the core that runs."""
    new = compiled_inflater()
    return Gunzip() if new is None else Inflating("gzip", new)


def inflate() -> Decoder:
    """A deflate decoder on the core that runs."""
    new = compiled_inflater()
    return Inflate() if new is None else Inflating("deflate", new)


class _Sliced:
    """What br and zstd share: the input goes in slices of :data:`SLICE` bytes, and the
    library's error comes out as a :class:`CodingError`."""

    __slots__ = ("_error",)
    name = ""

    def __init__(self, error: type[Exception]) -> None:
        self._error = error

    def feed(self, data: bytes) -> Iterator[bytes]:
        view = memoryview(data)
        try:
            for at in range(0, len(view), SLICE):
                yield from self._feed(view[at : at + SLICE])
        except self._error as exc:
            raise CodingError(self.name, str(exc)) from exc

    def _feed(self, data: memoryview) -> Iterator[bytes]:
        raise NotImplementedError


class Unbrotli(_Sliced):
    """br (RFC 7932)."""

    __slots__ = ("_dec",)
    name = "br"

    def __init__(self, brotli: ModuleType) -> None:
        super().__init__(brotli.error)
        self._dec = brotli.Decompressor()

    def _feed(self, data: memoryview) -> Iterator[bytes]:
        dec = self._dec
        if dec.is_finished():
            return  # anything after the stream's end is ignored
        # The limit is a soft one: the buffer grows by blocks and stops once past it (a
        # limit of 16 KiB gives pieces of up to 32 KiB, one of 32 KiB up to 96 KiB), so a
        # quarter of a step keeps each piece under STEP. What the limit held back (input,
        # or output already in the decoder's window) comes out of calls with no input,
        # until one gives nothing.
        out = dec.process(data, output_buffer_limit=STEP // 4)
        while out:
            yield out
            if dec.is_finished():
                return
            out = dec.process(b"", output_buffer_limit=STEP // 4)

    @property
    def complete(self) -> bool:
        return bool(self._dec.is_finished())


class Unzstd(_Sliced):
    """zstd (RFC 8878), frame after frame (what ``zstd`` writes for concatenated inputs)."""

    __slots__ = ("_dec", "_zstd")
    name = "zstd"

    def __init__(self, zstd: ModuleType) -> None:
        super().__init__(zstd.ZstdError)
        self._zstd = zstd
        self._dec = zstd.ZstdDecompressor()

    def _feed(self, data: memoryview) -> Iterator[bytes]:
        buf: bytes | memoryview = data
        while buf:
            if self._dec.eof:
                self._dec = self._zstd.ZstdDecompressor()  # the next frame
            out = self._dec.decompress(buf, STEP)
            while True:
                if out:
                    yield out
                if self._dec.eof or self._dec.needs_input:
                    break
                out = self._dec.decompress(b"", STEP)  # input held back: drain it
            buf = self._dec.unused_data if self._dec.eof else b""

    @property
    def complete(self) -> bool:
        return bool(self._dec.eof)


class Stacked:
    """Several codings, applied in the order ``Content-Encoding`` lists them: undone last
    first, each piece passed on through the rest before the next is made."""

    __slots__ = ("_decoders", "name")

    def __init__(self, name: str, decoders: Sequence[Decoder]) -> None:
        self.name = name
        self._decoders = tuple(decoders)  # in the order they are undone

    def feed(self, data: bytes) -> Iterator[bytes]:
        return self._through(0, data)

    def _through(self, level: int, data: bytes) -> Iterator[bytes]:
        if level == len(self._decoders):
            yield data
            return
        for piece in self._decoders[level].feed(data):
            yield from self._through(level + 1, piece)

    @property
    def complete(self) -> bool:
        return all(decoder.complete for decoder in self._decoders)


# coding -> (the module it needs, what provides that module, how to make its decoder)
if sys.version_info >= (3, 14):
    _ZSTD = ("compression.zstd", "Python's standard library")
else:
    _ZSTD = ("backports.zstd", "the backports.zstd package")
_CODINGS: dict[str, tuple[str, str, Callable[[ModuleType], Decoder]]] = {
    "gzip": ("zlib", "the standard library", lambda _: gunzip()),
    "deflate": ("zlib", "the standard library", lambda _: inflate()),
    "br": ("brotli", "the Brotli package", Unbrotli),
    "zstd": (*_ZSTD, Unzstd),
}
_ALIASES = {"x-gzip": "gzip"}  # RFC 9110 section 8.4.1.3


@cache
def _library(module: str) -> ModuleType | None:
    """``module``, imported once; None when this machine does not have it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        return None


@cache
def accept_encoding() -> str:
    """The codings this machine can undo, for ``Accept-Encoding``."""
    return ", ".join(
        coding for coding, (module, _, _) in _CODINGS.items() if _library(module) is not None
    )


def decoder_for(content_encoding: str) -> Decoder | None:
    """The decoder of a ``Content-Encoding`` value: None for none (or identity).

    Raises :class:`ContentEncodingError` (no URL: the caller knows it) for a coding not known here, one whose library this
    machine lacks, or more than :data:`MAX_STACKED` of them.
    """
    codings = [_ALIASES.get(c, c) for c in _names(content_encoding)]
    if not codings:
        return None
    if len(codings) > MAX_STACKED:
        raise ContentEncodingError(
            f"the body's Content-Encoding stacks {len(codings)} codings "
            f"({', '.join(codings)}); at most {MAX_STACKED} are undone"
        )
    decoders = [_one(coding) for coding in reversed(codings)]
    if len(decoders) == 1:
        return decoders[0]
    return Stacked(", ".join(codings), decoders)


def _names(content_encoding: str) -> list[str]:
    return [
        name
        for part in content_encoding.split(",")
        if (name := part.strip().lower()) and name != "identity"
    ]


def _one(coding: str) -> Decoder:
    known = _CODINGS.get(coding)
    if known is None:
        raise ContentEncodingError(
            f"the body's Content-Encoding is {coding!r}, which this reader does not decode "
            f"(it decodes {', '.join(_CODINGS)})"
        )
    module, provider, make = known
    library = _library(module)
    if library is None:
        raise ContentEncodingError(
            f"the body's Content-Encoding is {coding!r}, which needs the module {module} "
            f"({provider}): it is not installed here"
        )
    return make(library)


def _salvage(dec: zlib._Decompress, data: bytes) -> Iterator[bytes]:
    """The output ``dec`` gives for ``data`` fed byte by byte, up to the byte that fails."""
    for i in range(len(data)):
        piece = data[i : i + 1]
        full = False
        while (piece or full) and not dec.eof:  # (drained as in ``_Zlib._inflate``)
            try:
                out = dec.decompress(piece, STEP)
            except zlib.error:
                return
            if out:
                yield out
            full = len(out) == STEP
            piece = dec.unconsumed_tail
