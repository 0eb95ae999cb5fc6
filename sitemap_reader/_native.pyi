"""The compiled core (the Rust crate at the repository root, built by maturin).

Internal: reach it through ``sitemap_reader._core._xml._core_choice``, which falls back to the
Python reference when this module is missing or ``SITEMAP_READER_PURE=1`` is set.
"""

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Any, Final, Protocol, final

__all__ = [
    "CHANGEFREQS",
    "KINDS",
    "RECORDS",
    "SLOTS",
    "BlockScanner",
    "Entries",
    "Inflater",
    "Interface",
    "LineWriter",
    "RobotsRules",
    "RobotsRulesByOrigin",
    "TextScanner",
    "__version__",
    "build_profile",
    "caught_panics",
    "handovers",
    "run_keys",
]

__version__: Final[str]
build_profile: Final[str]  # "release" or "debug"

# What the compiled core was built with, which the package checks against its own at import
# (``_core/_xml/_interface.py``, ``mismatch``): the element kinds its block reader knows, by
# name; the slots among an entry's extensions it builds records for; each record class's
# fields, in the order it sets them; the changefreq words, in the order it numbers them.
KINDS: Final[dict[str, int]]
SLOTS: Final[dict[str, int]]
RECORDS: Final[dict[str, tuple[str, ...]]]
CHANGEFREQS: Final[tuple[str, ...]]

@final
class Interface:
    """What the block scanner builds with, read once by attribute from ``config``
    (``_core/_xml/_interface.Interface``): the record classes (dataclasses with slots whose
    fields are ``RECORDS``'s and whose ``__new__`` is ``object``'s, else TypeError), the
    ``changefreq`` enum, the zone of a date written alone, the record functions and the
    extension containers."""

    def __new__(cls, config: Any) -> Interface: ...

@final
class LineWriter:
    """The command line's lines of ``Entry`` records: jsonl, csv (no header) or txt, the same
    bytes as the Python writer (``sitemap_reader._output._lines``).

    ``records`` are the classes Entry, Image, Video, News and Alternate, ``changefreq`` the
    ChangeFreq enum: a record or member of another type is not taken. ``csv_quote_cr``: quote a
    field holding a carriage return, as the csv module of Python 3.13 and later does.
    """

    def __new__(
        cls,
        fmt: str,
        records: tuple[type, type, type, type, type],
        changefreq: type,
        *,
        csv_quote_cr: bool = ...,
    ) -> LineWriter:
        """ValueError for a format other than jsonl, csv or txt."""
    def write(self, entries: Iterable[object]) -> bytes | None:
        """The lines of ``entries`` as UTF-8, or None when one holds a value of a type the
        parser never makes (an int priority, a naive datetime, a lone surrogate...): the
        Python writer writes those."""
    def write_passing(
        self,
        entries: Iterable[object],
        *,
        scope: _ScopeParameters,
        since: _SinceParameters | None,
        room: int = ...,
    ) -> tuple[bytes, int, int, int] | None:
        """The lines of the entries of one document that pass what the lines path checks
        between the parser and the writer, as a compiled parser would check its records:
        the scope's fast test (``scope.prefixes``), at most ``room`` entries in scope, and
        ``since`` (``since.when``, ``since.keep_undated``; None: off). With the counts
        (read, in scope, written): reading stops at the first entry the fast test does not
        pass (only the Python scope check can tell) or past the budget. None as ``write``
        returns it; ValueError for entries that name several sitemaps or a naive
        ``since.when``."""
    def write_run(
        self,
        run: Entries,
        *,
        start: int = 0,
        scope: _ScopeParameters,
        since: _SinceParameters | None,
        room: int = ...,
        robots: _RobotsParameters | None = None,
    ) -> tuple[bytes, int, int, int, tuple[tuple[int, str | None], tuple[int, str | None]] | None]:
        """``write_passing`` on compiled records, from ``run[start]``, with no Python object
        made, and robots.txt's rules (``robots``: ``rules``, ``prefix``, ``obey``; None: off)
        judged after the scope: the lines, the index where the records judged end (the first
        the fast scope test does not pass, the first not on the rules' origin, the first past
        ``room``, or the run's end), how many of those were in scope and written, and what
        ``robots`` disallowed among them (for the agent and for ``*`` when a group names the
        agent: a count and the first loc each; with ``obey`` those for the agent are left
        out, neither in scope nor written). ValueError for a naive ``since.when``."""

class _ScopeParameters(Protocol):
    """What the gate reads of the walk's ``ScopeFilter``: its fast test's prefixes (None:
    scope is off)."""

    @property
    def prefixes(self) -> Sequence[str] | None: ...

class _RobotsParameters(Protocol):
    """What the gate reads of the walk's ``RobotsGate``."""

    @property
    def rules(self) -> RobotsRules: ...
    @property
    def prefix(self) -> str: ...
    @property
    def others(self) -> RobotsRulesByOrigin | None: ...
    @property
    def obey(self) -> bool: ...

class _SinceParameters(Protocol):
    """What the gate reads of a ``Since``."""

    @property
    def when(self) -> datetime: ...
    @property
    def keep_undated(self) -> bool: ...

@final
class Entries:
    """A run of entries of one document as the compiled core read them (a ``BlockScanner``
    made with ``lines``): ``LineWriter.write_run`` judges them and writes their lines,
    ``objects`` makes their ``Entry`` records."""

    def __len__(self) -> int: ...
    def objects(self, start: int = 0, end: int | None = None) -> list[Any]:
        """The entries from ``start`` to ``end`` (the run's end when None) as ``Entry``
        records."""

@final
class RobotsRules:
    """An origin's robots.txt parsed by the compiled core (``src/robots.rs``) as the
    package's matcher (``_core/_formats/_robots_rules.py``) parses it: the groups naming
    ``product`` (a product token in lower case; "" names none) and the ``*`` groups."""

    def __new__(cls, body: bytes, product: str) -> RobotsRules: ...
    def judge(self, url: str) -> tuple[bool, bool]:
        """Whether the rules disallow ``url`` for the agent, and for ``*`` when a group
        names the agent (else False)."""
    @property
    def allows_all(self) -> bool:
        """Whether no URL is disallowed, for the agent or for ``*``."""

@final
class RobotsRulesByOrigin:
    """The ``RobotsRules`` of every origin whose robots.txt the walk read, by origin
    (``scheme://host[:port]`` as ``origin_of`` writes it): the gate judges a loc on another
    origin than its ``prefix``'s by them (``src/lines/gate.rs``)."""

    def __new__(cls, rules: dict[str, RobotsRules]) -> RobotsRulesByOrigin: ...
    def __len__(self) -> int: ...

@final
class BlockScanner:
    """The fast path of the XML reader (the pure core has none: expat reads it all).

    ``doc`` is the ``Document`` read (what is read of it: ``_interface.ScannedDocument``);
    ``kinds`` the element kind of each prefix the root declares; ``read(bytes, at)`` gives
    expat the bytes of a block the scanner did not take, ``settled(tag_len)`` says whether
    expat closed the record there; ``interface`` what it builds with (the module imports
    nothing of the package); ``start`` where its input starts in the document, as expat
    numbers it (line from 1, column from 0 in characters); ``namespaces`` each prefix's
    namespace ("": the default one), for the look-alikes of extensions' elements Python
    counts (without it, their blocks are expat's). With ``lines``, the entries the scanner reads itself go to the
    document's output as ``Entries`` runs, not as ``Entry`` records. ``panic_for_tests`` makes the scan panic, for the test that
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
        interface: Interface,
        start: tuple[int, int],
        namespaces: dict[str, str] | None = None,
        lines: bool = False,
        panic_for_tests: bool = False,
    ) -> BlockScanner: ...
    def feed(self, data: bytes) -> bytes | None:
        """None while the scanner goes on, else the bytes to give expat (it stopped)."""
    def finish(self) -> bytes:
        """End of input: the bytes not consumed, for expat."""

@final
class Inflater:
    """gzip (member after member) or deflate (zlib-wrapped or raw, told apart by the zlib
    header) undone a bounded piece at a time, as ``_core._codings``' ``Gunzip`` and
    ``Inflate`` undo them with Python's zlib: ``push`` compressed bytes (copied), then
    ``pull`` pieces of at most ``step`` bytes until None; each pull inflates one piece with
    the GIL released. A fault ends the stream: the pieces before it come out first, then
    ``fault`` says what it was in the words of CPython's zlib errors. ValueError for a
    coding other than gzip or deflate.
    """

    def __new__(cls, coding: str, *, step: int) -> Inflater: ...
    def push(self, data: bytes) -> None:
        """Take the next compressed bytes (ignored after the end or a fault)."""
    def pull(self) -> bytes | None:
        """The next piece, or None until more bytes are pushed (or ever)."""
    @property
    def complete(self) -> bool:
        """True when the stream ended where it should (not cut midway)."""
    @property
    def fault(self) -> str | None:
        """The fault that ended the stream, else None."""

def caught_panics() -> int:
    """How many panics the compiled core caught in this process (each one a bug)."""

def handovers() -> tuple[int, int]:
    """How many blocks the scanners of this process handed to expat (the root's end tag
    is none), and how many documents' rest they left to expat alone."""

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

def run_keys(locs: list[str]) -> bytes:
    """Each URL's change-feed key (BLAKE2b, digest size 8), packed as little-endian 64-bit
    integers; UnicodeEncodeError for a URL with a lone surrogate."""
