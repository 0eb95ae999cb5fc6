"""Which core reads the XML sitemaps: the compiled one or the exact path alone.

The compiled ``sitemap_reader._native`` is used unless ``SITEMAP_READER_PURE`` is set
(to anything but "" or "0") or it cannot be imported (a build without Rust, a platform
with no wheel): then the Python code, with no error. That import alone decides
``COMPILED``, and with it ``new_scanner``, the fast path of ``XmlHandler``
(``._document``): the compiled ``BlockScanner``, or None on the pure core, where expat
and the exact path (``._exact``) read every document whole. A fallback must be
correct, not fast: the pure core has no scanner of its own to keep in step with the
compiled one. The compiled scanner is given the package's record classes and record
functions, since ``_native`` imports nothing of the package: a block it does not judge
exactly as Python goes to ``emit_entry`` / ``emit_ref``, an odd block to expat.

``describe()`` says what runs, for ``sitemap-reader --version``.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from types import ModuleType
from typing import Protocol

from ..._base._models import (
    Alternate,
    ChangeFreq,
    Entry,
    Image,
    News,
    ProblemKind,
    SitemapRef,
    Video,
)
from .._doc import Document
from .._pure import PURE_ENV, pure_requested
from ._extensions import CONTAINERS, IMAGE, REPEATED, alternate_of
from ._records import emit_entry, emit_ref


class BlockScanner(Protocol):
    """The fast path's scanner, ``_native.BlockScanner`` (see ``_native.pyi``)."""

    def feed(self, data: bytes, /) -> bytes | None: ...
    def finish(self) -> bytes: ...


class NewScanner(Protocol):
    def __call__(
        self,
        doc: Document,
        *,
        index: bool,
        kinds: dict[str, int],
        read: Callable[[bytes, int | None], bool],
        settled: Callable[[int], bool],
    ) -> BlockScanner: ...


# What the compiled scanner builds with, in the order it takes them (src/py_block.rs).
_TYPES = (
    Entry,
    SitemapRef,
    Image,
    Alternate,
    tuple(
        ChangeFreq(word)
        for word in ("always", "hourly", "daily", "weekly", "monthly", "yearly", "never")
    ),
    datetime,
    timezone,
    timedelta,
    timezone.utc,
    emit_entry,
    emit_ref,
    ProblemKind.ERROR,
    CONTAINERS[(IMAGE, "image")].build,
    alternate_of,
    # The containers Python builds from the fields the compiled core reads (images are
    # built in Rust): their element, each field's (kind, local name, name, repeated),
    # their builder and their slot among an entry's extensions.
    tuple(
        (
            kind,
            local,
            tuple((k, n, name, name in REPEATED) for (k, n), name in spec.fields.items()),
            spec.build,
            spec.slot,
        )
        for (kind, local), spec in CONTAINERS.items()
        if kind != IMAGE
    ),
    # The records the compiled core builds of a video or news container whose values it
    # judges itself (src/block/extend.rs); the builders above take any other.
    Video,
    News,
)


def _compiled_block_scanner(native: ModuleType) -> NewScanner:
    block_scanner = native.BlockScanner

    def new_scanner(
        doc: Document,
        *,
        index: bool,
        kinds: dict[str, int],
        read: Callable[[bytes, int | None], bool],
        settled: Callable[[int], bool],
    ) -> BlockScanner:
        scanner: BlockScanner = block_scanner(
            doc,
            index=index,
            kinds=kinds,
            read=read,
            settled=settled,
            types=_TYPES,
            lines=doc.lines,
        )
        return scanner

    return new_scanner


def _import_native() -> tuple[ModuleType | None, str]:
    """The extension, or None when ``SITEMAP_READER_PURE`` is set or it does not import;
    and what runs, as ``describe()`` says it."""
    if pure_requested():
        return None, f"python, {PURE_ENV}"
    try:
        from ... import _native
    except ImportError:
        return None, "python, no compiled core"
    return _native, f"rust, {_native.build_profile}"


_NATIVE, _WHICH = _import_native()
COMPILED = _NATIVE is not None
# None on the pure core: the exact path reads every document.
new_scanner: NewScanner | None = None if _NATIVE is None else _compiled_block_scanner(_NATIVE)
# The class of the runs of compiled records a scanner made with ``lines`` puts in a
# document's output (``_native.Entries``); None without the compiled core, which puts none.
ENTRIES: type | None = None if _NATIVE is None else _NATIVE.Entries


def describe() -> str:
    """The core, as ``--version`` prints it (short: argparse wraps it)."""
    return f"core: {_WHICH}"
