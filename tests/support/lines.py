"""The compiled writer of entry lines (``_native.LineWriter``) and the Python writer it must
equal, for the tests that compare them (tests/output, tests/cli)."""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from sitemap_reader import Alternate, ChangeFreq, Entry, Image, News, Video
from sitemap_reader._output._compiled import CSV_QUOTES_CR
from sitemap_reader._output._lines import python_entry_writer

FORMATS = ("jsonl", "csv", "txt")
RECORDS = (Entry, Image, Video, News, Alternate)


def native() -> Any:
    """The compiled module, or the calling test skipped where it is not built."""
    return pytest.importorskip("sitemap_reader._native", reason="the crate is not built here")


def line_writer(fmt: str) -> Any:
    """A LineWriter of ``fmt``, quoting csv as this Python's csv module does."""
    return native().LineWriter(fmt, RECORDS, ChangeFreq, csv_quote_cr=CSV_QUOTES_CR)


def python_bytes(fmt: str, batches: Sequence[Sequence[Entry]]) -> bytes:
    """What the Python writer writes for ``batches`` onto a UTF-8 stream, csv header left out."""
    out = io.StringIO()
    write = python_entry_writer(fmt, out)
    out.seek(0)
    out.truncate()
    for batch in batches:
        write(list(batch))
    return out.getvalue().encode("utf-8")


@dataclass
class Spied:
    """What the real LineWriter wrote in a test: the entries of each list of ``Entry``
    records (``write``) and of each compiled run (``write_run``, the walk's lines)."""

    objects: list[int] = field(default_factory=list)
    runs: list[int] = field(default_factory=list)

    @property
    def total(self) -> int:
        return sum(self.objects) + sum(self.runs)


def spy_on_line_writer(monkeypatch: pytest.MonkeyPatch) -> Spied:
    """From now on, what the real LineWriter writes, counted (it is wrapped, not replaced:
    what it writes is what lands on the output)."""
    module = native()
    spied = Spied()
    real = module.LineWriter

    class Counted:
        def __init__(self, *args: Any, **kw: Any) -> None:
            self._real = real(*args, **kw)

        def write(self, entries: list[Entry]) -> bytes | None:
            written: bytes | None = self._real.write(entries)
            if written is not None:
                spied.objects.append(len(entries))
            return written

        def write_run(self, run: Any, **kw: Any) -> tuple[bytes, int, int, int, Any]:
            passed: tuple[bytes, int, int, int, Any] = self._real.write_run(run, **kw)
            if passed[3]:
                spied.runs.append(passed[3])
            return passed

    monkeypatch.setattr(module, "LineWriter", Counted)
    return spied
