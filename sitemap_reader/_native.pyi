"""The compiled core (the Rust crate at the repository root, built by maturin).

Internal: reach it through ``sitemap_reader._core._xml._tokenizer``, which falls back to the
Python reference when this module is missing or ``SITEMAP_READER_PURE=1`` is set.
"""

from typing import Final, final

__all__ = ["UrlsetScanner", "__version__", "build_profile"]

__version__: Final[str]
build_profile: Final[str]  # "release" or "debug"

@final
class UrlsetScanner:
    """A sans-IO tokenizer of plain urlsets: ``feed(bytes)`` in any split, then ``close()``.

    Each call returns the ``<url>`` records it completed, as (loc, lastmod, changefreq,
    priority) texts: references decoded once, line ends normalised, stripped; a missing
    ``<loc>`` is "". Neither raises for the content: the first fault ends the document
    and ``error`` says what it was. ``feed`` after ``close`` raises RuntimeError.
    """

    def __new__(cls, *, max_token_bytes: int = ...) -> UrlsetScanner:
        """``max_token_bytes`` (1 MiB by default, as ``Limits``) bounds what is held."""
    def feed(self, data: bytes) -> list[tuple[str, str | None, str | None, str | None]]: ...
    def close(self) -> list[tuple[str, str | None, str | None, str | None]]: ...
    @property
    def error(self) -> tuple[str, int, str] | None:
        """(kind, byte offset, message) of the fault that ended the document, or None."""
