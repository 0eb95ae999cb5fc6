"""The compiled core (the Rust crate at the repository root, built by maturin).

Internal: reach it through ``sitemap_reader._core._xml._tokenizer``, which falls back to the
Python reference when this module is missing or ``SITEMAP_READER_PURE=1`` is set.
"""

from typing import Final, final

__all__ = ["TextScanner", "UrlsetScanner", "__version__", "build_profile"]

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

@final
class TextScanner:
    """The byte work of a plain-text sitemap: ``feed(bytes)`` in any split, then ``close()``.

    Each call returns the lines it completed, in order, as (kind, text): 0, a UTF-8 line,
    stripped; 1, a line that is not UTF-8, stripped, its bytes outside ``!``..``~``
    percent-encoded; 2, a line over ``max_line_bytes`` (text ""), counted once however it
    was split. Blank lines are left out; a BOM is skipped at the start only. ``feed``
    after ``close`` raises RuntimeError.
    """

    def __new__(cls, *, max_line_bytes: int) -> TextScanner: ...
    def feed(self, data: bytes) -> list[tuple[int, str]]: ...
    def close(self) -> list[tuple[int, str]]: ...
    @property
    def lines(self) -> int:
        """Lines that held something, so far."""
    @property
    def urlish(self) -> bool:
        """Whether a line looked like a URL (absolute http(s), or a path), or was too long."""
    @property
    def error(self) -> tuple[str, int, str] | None:
        """("internal", 0, message) once a panic was caught (a bug), else None."""
