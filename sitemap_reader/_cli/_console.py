"""The terminal side of a run, on stderr: the live progress line, one line per problem, and
the closing summary of what a run counted (:class:`Tally`)."""

from __future__ import annotations

import asyncio
import dataclasses
import sys
import time
from typing import Any

import sitemap_reader as sr

READ = (sr.Status.OK, sr.Status.PARTIAL)
_SITEMAP_FORMATS = (
    sr.Format.URLSET,
    sr.Format.SITEMAPINDEX,
    sr.Format.TEXT,
    sr.Format.RSS,
    sr.Format.ATOM,
)


@dataclasses.dataclass
class Tally:
    written: int = 0
    read: int = 0  # sitemap documents read in whole or part
    failed: int = 0
    sitemaps: int = 0
    dropped: int = 0
    problems: int = 0
    unchanged: int = 0  # sitemaps (not robots.txt) unchanged since the last run
    progress: Any = None

    def visited(self, report: sr.SitemapVisited) -> None:
        if report.format is sr.Format.ROBOTS:
            return
        if report.status in READ and report.format in _SITEMAP_FORMATS:
            self.read += 1
        if report.status is sr.Status.UNCHANGED:
            self.unchanged += 1
        if report.status is sr.Status.FAILED:
            self.failed += 1
        if report.status not in (sr.Status.MISSING, sr.Status.DUPLICATE):
            self.sitemaps += 1
        self.dropped += sum(n for _, n in report.dropped)

    @property
    def exit_status(self) -> int:
        """0 when a source was read (even in part) or found unchanged, else 1."""
        return 0 if self.read or self.unchanged else 1


class Console:
    def __init__(self, quiet: bool, no_progress: bool, *, feed: bool = False) -> None:
        self.quiet = quiet
        self.feed = feed  # records are changes (--changes), not URLs
        self.live = not quiet and not no_progress and sys.stderr.isatty()
        self.problems = 0
        self._task: asyncio.Task[None] | None = None
        self._started = time.monotonic()
        self._width = 0

    def start(self, reader: sr.SitemapReader) -> None:
        self._started = time.monotonic()
        if self.live:
            self._task = asyncio.ensure_future(self._refresh(reader))

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None
            self._clear()

    async def _refresh(self, reader: sr.SitemapReader) -> None:
        while True:
            await asyncio.sleep(0.25)
            p = reader.progress
            elapsed = max(time.monotonic() - self._started, 1e-9)
            line = (
                f"sitemaps {p.done:,} done, {p.queued + p.active:,} queued, {p.failed:,} failed"
                f" | {p.entries:,} URLs | {p.bytes / 1e6:,.1f} MB | {p.entries / elapsed:,.0f} URLs/s"
            )
            self._clear()
            sys.stderr.write(line)
            sys.stderr.flush()
            self._width = len(line)

    def _clear(self) -> None:
        if self._width:
            sys.stderr.write("\r" + " " * self._width + "\r")
            self._width = 0

    def problem(self, problem: sr.Problem) -> None:
        self.problems += 1
        if self.quiet:
            return
        self._clear()
        sys.stderr.write(f"sitemap-reader: {problem.url}: {problem.message} [{problem.kind}]\n")

    def summary(self, tally: Tally) -> None:
        if self.quiet:
            return
        elapsed = time.monotonic() - self._started
        p = tally.progress
        what = "changes" if self.feed else "URLs"
        parts = [f"{tally.written:,} {what} from {tally.read:,} sitemaps"]
        if tally.unchanged:
            saved = p.bytes_saved if p is not None else 0
            parts.append(
                f"{tally.unchanged:,} sitemaps unchanged since the last run"
                f" ({_size(saved)} not fetched again)"
            )
        if tally.failed:
            parts.append(f"{tally.failed:,} failed")
        if tally.dropped:
            parts.append(f"{tally.dropped:,} URLs dropped as out of scope")
        if self.problems:
            parts.append(f"{self.problems:,} problems")
        if p is not None and p.bytes:
            parts.append(f"{_size(p.bytes)} fetched")
        sys.stderr.write(f"sitemap-reader: {', '.join(parts)} in {elapsed:.1f} s\n")
        for source, why in ({} if p is None else p.distrusted).items():
            sys.stderr.write(
                f"sitemap-reader: the lastmods of {source} were distrusted ({why}): "
                "its sitemaps were asked again, not skipped on their index lastmod\n"
            )
        if p is not None and p.budget is not None:
            left = f"; {p.not_read:,} sitemaps named but not read" if p.not_read else ""
            sys.stderr.write(
                f"sitemap-reader: stopped early: the {p.budget} budget was reached{left}\n"
            )


def _size(n: int) -> str:
    if n >= 1_000_000:
        return f"{n / 1e6:,.1f} MB"
    return f"{n / 1e3:,.1f} kB" if n >= 1_000 else f"{n:,} bytes"
