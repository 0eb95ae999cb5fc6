"""Which plain-text handler runs: the compiled one, or its Python reference.

As for the XML sitemaps (``.._xml._core_choice``): the compiled ``sitemap_reader._native``
unless ``SITEMAP_READER_PURE`` is set or it cannot be imported. Chosen at the first text
document, not at import: a run that reads only XML never loads the extension for this.
"""

from __future__ import annotations

from functools import cache

from .._doc import Document
from .._pure import PURE_ENV, pure_requested
from ._text import TextHandler
from ._textnative import NativeTextHandler, TextScannerType


@cache
def _choose() -> tuple[TextScannerType | None, str]:
    if pure_requested():
        return None, f"python, {PURE_ENV}"
    try:
        from ... import _native
    except ImportError:
        return None, "python, no compiled core"
    return _native.TextScanner, f"rust, {_native.build_profile}"


def text_handler(doc: Document) -> TextHandler | NativeTextHandler:
    """A handler for the plain-text sitemap ``doc``."""
    scanner, _ = _choose()
    return TextHandler(doc) if scanner is None else NativeTextHandler(doc, scanner)


def describe() -> str:
    """Which text handler runs, as ``.._xml._core_choice.describe()`` says the core."""
    return f"text: {_choose()[1]}"
