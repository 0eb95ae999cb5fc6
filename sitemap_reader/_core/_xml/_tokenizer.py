"""Which urlset tokenizer runs: the compiled one or its Python reference.

The compiled ``sitemap_reader._native`` is used unless ``SITEMAP_READER_PURE`` is set
(to anything but "" or "0") or it cannot be imported (a build without Rust, a platform
with no wheel): then ``._urlscan``, with no error. Both keep one contract (see
``sitemap_reader/_native.pyi``).

It is not the reader's core yet: ``SitemapParser`` keeps the Python parser until the
compiled one yields the same records and problems. ``describe()`` says what
would run, for ``sitemap-reader --version``.
"""

from __future__ import annotations

from typing import Protocol

from .._pure import PURE_ENV, pure_requested
from ._urlscan import Fault, Fields, PyUrlsetScanner


class Scanner(Protocol):
    def feed(self, data: bytes, /) -> list[Fields]: ...
    def close(self) -> list[Fields]: ...
    @property
    def error(self) -> Fault | None: ...


class ScannerType(Protocol):
    def __call__(self, *, max_token_bytes: int = ...) -> Scanner: ...


def _choose() -> tuple[ScannerType, str]:
    if pure_requested():
        return PyUrlsetScanner, f"python, {PURE_ENV}"
    try:
        from ... import _native
    except ImportError:
        return PyUrlsetScanner, "python, no compiled core"
    return _native.UrlsetScanner, f"rust, {_native.build_profile}"


UrlsetScanner, _WHICH = _choose()
COMPILED = UrlsetScanner is not PyUrlsetScanner


def describe() -> str:
    """The cores, as ``--version`` prints them (short: argparse wraps it)."""
    return f"core: python; tokenizer: {_WHICH}"
