"""The compiled core (the Rust crate at the repository root, built by maturin).

Internal: reach it through ``sitemap_reader._core._xml._tokenizer``, which falls back to the
Python reference when this module is missing or ``SITEMAP_READER_PURE=1`` is set.
"""

from collections.abc import Callable
from typing import Any, Final, final

__all__ = [
    "BlockScanner",
    "TextScanner",
    "UrlsetScanner",
    "__version__",
    "build_profile",
    "caught_panics",
]

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
class BlockScanner:
    """The fast path of the XML reader, compiled: ``_scan.Scanner``'s contract.

    ``doc`` is the ``Document`` read; ``kinds`` the element kind of each prefix the root
    declares; ``read(bytes, at)`` gives expat the bytes of a block the scanner did not
    take, ``settled(tag_len)`` says whether expat closed the record there; ``types`` the
    package's classes and record functions (``_tokenizer._TYPES``: the module imports
    nothing of the package). ``panic_for_tests`` makes the scan panic, for the test that
    a caught panic ends the document with a problem.
    """

    def __new__(
        cls,
        doc: Any,
        *,
        index: bool,
        kinds: dict[str, int],
        read: Callable[[bytes, int | None], bool],
        settled: Callable[[int], bool],
        types: tuple[Any, ...],
        panic_for_tests: bool = False,
    ) -> BlockScanner: ...
    def feed(self, data: bytes) -> bytes | None:
        """None while the scanner goes on, else the bytes to give expat (it stopped)."""
    def finish(self) -> bytes:
        """End of input: the bytes not consumed, for expat."""

def caught_panics() -> int:
    """How many panics the compiled core caught in this process (each one a bug)."""

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
