"""The records of entries written as lines (:meth:`SitemapReader.line_batches`): the
``Lines`` event and the ``--since`` rule, ``Since``, which the walk applies to the entries
it writes and the command line to the records it writes itself (the compiled core's
statement of the same rule is ``Gate::recent`` in ``src/lines/gate.rs``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True, slots=True)
class Lines:
    """Lines of entries of one document, written in a :class:`LinePlan`'s format (UTF-8):
    what :meth:`SitemapReader.line_batches` yields in place of those ``Entry`` records.

    Attributes:
        data: the lines, each ending with a line break (a csv header is not among them:
            ``LinePlan.header`` is written once, first).
        written: the entries they are (those the plan's ``since`` kept).
        in_scope: the entries of the document they stand for, ``since`` aside: what the
            run's entry budget and the document's report count.
    """

    data: bytes
    written: int
    in_scope: int


@dataclass(frozen=True, slots=True)
class Since:
    """Keep entries whose lastmod is at or after ``when`` (``dump --since``).

    Attributes:
        when: an aware datetime (a lastmod is aware; a naive one is refused: ValueError).
        keep_undated: whether an entry without a lastmod is kept (``--since-strict``
            drops them).
    """

    when: datetime
    keep_undated: bool = True

    def __post_init__(self) -> None:
        if self.when.tzinfo is None or self.when.utcoffset() is None:
            raise ValueError(f"since must be an aware datetime, not {self.when.isoformat()}")

    def keeps(self, lastmod: datetime | None) -> bool:
        """Whether an entry of this ``lastmod`` is kept: the one Python statement of the
        rule (the crate's ``Gate::recent`` is checked against it in
        tests/output/test_compiled_gate.py)."""
        return self.keep_undated if lastmod is None else lastmod >= self.when
