"""Which core reads the XML sitemaps: the compiled one or the exact path alone.

The compiled ``sitemap_reader._native`` is used unless ``SITEMAP_READER_PURE`` is set
(to anything but "" or "0") or it cannot be imported (a build without Rust, a platform
with no wheel): then the Python code, with no error (an extension that imports but does
not match the package is one: ``_interface``). That import alone decides
``COMPILED``, and with it ``new_scanner``, the fast path of ``XmlHandler``
(``._document``): the compiled ``BlockScanner``, or None on the pure core, where expat
and the exact path (``._exact``) read every document whole. A fallback must be
correct, not fast: the pure core has no scanner of its own to keep in step with the
compiled one. The compiled scanner is given one ``_native.Interface``, made here at import
from ``._interface.INTERFACE`` (the package's record classes and record functions, since
``_native`` imports nothing of the package), once the numbers and fields the extension
was built with were found to be the package's.

``describe()`` says what runs, for ``sitemap-reader --version``.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any, Protocol

from .._doc import Document
from .._pure import PURE_ENV, pure_requested
from ._interface import INTERFACE, mismatch


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
        start: tuple[int, int],
        namespaces: dict[str, str],
    ) -> BlockScanner: ...


def _compiled_block_scanner(native: ModuleType, interface: Any) -> NewScanner:
    block_scanner = native.BlockScanner

    def new_scanner(
        doc: Document,
        *,
        index: bool,
        kinds: dict[str, int],
        read: Callable[[bytes, int | None], bool],
        settled: Callable[[int], bool],
        start: tuple[int, int],
        namespaces: dict[str, str],
    ) -> BlockScanner:
        scanner: BlockScanner = block_scanner(
            doc,
            index=index,
            kinds=kinds,
            read=read,
            settled=settled,
            start=start,
            namespaces=namespaces,
            interface=interface,
            lines=doc.lines,
        )
        return scanner

    return new_scanner


def _interface(native: ModuleType) -> Any:
    """The compiled core's ``Interface``, made once; ImportError, naming what differs, for
    a build of the extension that does not match this package (built from another
    commit): it would read records wrongly, and falling back would hide it."""
    said = mismatch(native)
    if said is None:
        try:
            return native.Interface(INTERFACE)
        except (TypeError, ValueError, AttributeError) as exc:
            said = str(exc)
    raise ImportError(
        f"sitemap_reader._native does not match this package: {said}. Rebuild it "
        f"(pip install -e .), or set {PURE_ENV}=1 to read without it."
    )


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
new_scanner: NewScanner | None = (
    None if _NATIVE is None else _compiled_block_scanner(_NATIVE, _interface(_NATIVE))
)
# The class of the runs of compiled records a scanner made with ``lines`` puts in a
# document's output (``_native.Entries``); None without the compiled core, which puts none.
ENTRIES: type | None = None if _NATIVE is None else _NATIVE.Entries


def describe() -> str:
    """The core, as ``--version`` prints it (short: argparse wraps it)."""
    return f"core: {_WHICH}"
