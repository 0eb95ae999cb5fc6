"""The terminal side of a run, on stderr: the live progress line, one line per problem, and
the closing summary of what a run counted (:class:`Tally`).

One rule counts documents everywhere (summary, ``tree``, exit status): robots.txt is no
sitemap; a sitemap is *read* when it was read to its end or in part (``partial``: it was
recognised as a sitemap, then cut), *failed* when nothing recognisable could be read.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import os
import sys
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import sitemap_reader as sr

from .._base._log import logger as package_logger
from .._base._words import plural

READ = (sr.Status.OK, sr.Status.PARTIAL)
_SITEMAP_FORMATS = (
    sr.Format.URLSET,
    sr.Format.SITEMAPINDEX,
    sr.Format.TEXT,
    sr.Format.RSS,
    sr.Format.ATOM,
)
# Warnings about how a site's generator writes every document, the same for each: said once
# a run, with the count of documents, not once per document.
_ONCE_A_RUN = frozenset({sr.ProblemKind.NAMESPACE})
REDRAW = 0.1  # seconds between redraws of the progress line (10 a second at most)
# Why URLs were dropped (SitemapVisited.dropped) that --scope host would keep: on the
# sitemap's host, in another folder, scheme or port.
_SAME_HOST = ("outside-folder", "other-scheme", "other-port")
_ROBOTS = "robots"  # ... and the word robots.txt's drops are counted by (--robots obey)


def human_size(n: int) -> str:
    """``512 bytes``, ``5.0 kB``, ``2.1 MB``, ``1.3 GB`` (powers of 1000)."""
    if n >= 1_000_000_000:
        return f"{n / 1e9:,.1f} GB"
    if n >= 1_000_000:
        return f"{n / 1e6:,.1f} MB"
    return f"{n / 1e3:,.1f} kB" if n >= 1_000 else plural(n, "byte")


def reasons(counts: dict[str, int] | tuple[tuple[str, int], ...]) -> str:
    """Counts by reason, most first: ``2 other-host, 1 outside-folder``."""
    pairs = counts.items() if isinstance(counts, dict) else counts
    return ", ".join(f"{n:,} {why}" for why, n in sorted(pairs, key=lambda p: (-p[1], p[0])))


@dataclasses.dataclass
class Tally:
    written: int = 0
    read: int = 0  # sitemaps read in whole or in part
    partial: int = 0  # of those, read in part
    failed: int = 0
    dropped: dict[str, int] = dataclasses.field(default_factory=dict)  # by reason
    unchanged: int = 0  # sitemaps (not robots.txt) unchanged since the last run
    not_followed: int = 0  # children left unread by --follow/--skip
    # By reason: the first URL dropped, and the sitemap that listed it.
    examples: dict[str, tuple[str, str]] = dataclasses.field(default_factory=dict)
    robots: bool = False  # a robots.txt was read: it vouched for the sitemaps it named
    progress: Any = None

    def visited(self, report: sr.SitemapVisited) -> None:
        if report.not_followed is not None:
            self.not_followed += 1
            return
        for why, n in report.dropped:
            self.dropped[why] = self.dropped.get(why, 0) + n
        for why, url in report.dropped_examples:
            self.examples.setdefault(why, (url, report.final_url or report.url))
        if report.format is sr.Format.ROBOTS:
            self.robots = self.robots or report.status is sr.Status.OK
            return
        if report.status in READ and report.format in _SITEMAP_FORMATS:
            self.read += 1
            self.partial += report.status is sr.Status.PARTIAL
        elif report.status is sr.Status.UNCHANGED:
            self.unchanged += 1
        elif report.status is sr.Status.FAILED:
            self.failed += 1

    @property
    def exit_status(self) -> int:
        """0 when a source was read (even in part) or found unchanged, else 1."""
        return 0 if self.read or self.unchanged else 1


@dataclasses.dataclass
class _Said:
    """A warning said once a run: the first document it was given for, and how many."""

    url: str
    documents: int = 1


class Console:
    def __init__(
        self, quiet: bool, no_progress: bool, *, feed: bool = False, rules: str = ""
    ) -> None:
        self.quiet = quiet
        self.feed = feed  # records are changes (--changes), not URLs
        self.rules = rules  # the options that chose the children read ("--skip")
        self.live = not quiet and not no_progress and sys.stderr.isatty()
        self.problems = 0
        self._once: dict[tuple[str, str], _Said] = {}
        self._task: asyncio.Task[None] | None = None
        self._started = time.monotonic()
        self._shown = ""  # the progress line on screen, '' when none is

    def start(self, reader: sr.SitemapReader) -> None:
        self._started = time.monotonic()
        if self.live:
            self._task = asyncio.ensure_future(self._refresh(reader))

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None
        self._clear()

    # -- the progress line -----------------------------------------------------------------

    async def _refresh(self, reader: sr.SitemapReader) -> None:
        while True:
            await asyncio.sleep(REDRAW)
            line = self.progress_line(reader.progress, time.monotonic() - self._started)
            line = line[: _columns() - 1]  # one terminal row: a wrapped line is not redrawn
            if line != self._shown:
                sys.stderr.write(f"\r{line}\x1b[K")
                sys.stderr.flush()
                self._shown = line

    @staticmethod
    def progress_line(p: sr.Progress, elapsed: float) -> str:
        """``[3/8 sitemaps] 51,081 URLs · 11.5k/s · 2.1 MB · 0:04``."""
        done = p.sitemaps_done
        known = max(p.sitemaps, done)
        rate = p.entries / elapsed if elapsed > 0 else 0.0
        return (
            f"[{done:,}/{known:,} sitemaps] {p.entries:,} URLs · {_rate(rate)}/s"
            f" · {human_size(p.bytes)} · {_clock(elapsed)}"
        )

    def _clear(self) -> None:
        if self._shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()
            self._shown = ""

    # -- problems ------------------------------------------------------------------------

    def problem(self, problem: sr.Problem) -> None:
        self.problems += 1
        if problem.kind in _ONCE_A_RUN and not problem.fatal:
            said = self._once.get((problem.kind, problem.message))
            if said is None:
                self._once[(problem.kind, problem.message)] = _Said(problem.url)
            else:
                said.documents += 1
            return  # said with its count at the end
        if self.quiet:
            return
        self._clear()
        sys.stderr.write(f"sitemap-reader: {problem.url}: {problem.message} [{problem.kind}]\n")

    @contextlib.contextmanager
    def library_warnings(self) -> Iterator[None]:
        """While a run lasts, the library's warnings on stderr (its package logger has only a
        NullHandler): those that are no problem of a document, such as a Crawl-delay that is
        no number. The WARNING of a document that failed or was read in part (it carries
        ``report``) is left out: its problem has a line of its own already."""
        logger = package_logger()
        handler = _Warnings(self)
        logger.addHandler(handler)
        try:
            yield
        finally:
            logger.removeHandler(handler)

    def say(self, line: str) -> None:
        """One line on stderr, the progress line cleared first."""
        self._clear()
        sys.stderr.write(f"{line}\n")

    def _say_once_a_run(self) -> None:
        for (kind, message), said in self._once.items():
            others = said.documents - 1
            more = f" and {plural(others, 'other document')}" if others else ""
            sys.stderr.write(f"sitemap-reader: {said.url}{more}: {message} [{kind}]\n")
        self._once.clear()

    # -- the summary ---------------------------------------------------------------------

    def summary(self, tally: Tally) -> None:
        if self.quiet:
            return
        self._clear()
        self._say_once_a_run()
        elapsed = time.monotonic() - self._started
        p = tally.progress
        what = "change" if self.feed else "URL"
        read = plural(tally.read, "sitemap")
        if tally.partial:
            read += f" ({tally.partial:,} partial)"
        parts = [f"{plural(tally.written, what)} from {read}"]
        if tally.unchanged:
            saved = p.bytes_saved if p is not None else 0
            parts.append(
                f"{plural(tally.unchanged, 'sitemap')} unchanged since the last run"
                f" ({human_size(saved)} not fetched again)"
            )
        if tally.failed:
            parts.append(f"{tally.failed:,} failed")
        if tally.not_followed:
            parts.append(f"{plural(tally.not_followed, 'sitemap')} skipped by {self.rules}")
        # robots.txt's drops (--robots obey) are counted apart from the scope's.
        scoped = {why: n for why, n in tally.dropped.items() if why != _ROBOTS}
        dropped = sum(scoped.values())
        if dropped:
            parts.append(f"{plural(dropped, 'URL')} dropped as out of scope ({reasons(scoped)})")
        if tally.dropped.get(_ROBOTS):
            parts.append(
                f"{plural(tally.dropped[_ROBOTS], 'URL')} dropped as disallowed by robots.txt "
                "(robots)"
            )
        if self.problems:
            parts.append(plural(self.problems, "problem"))
        if p is not None and p.bytes:
            parts.append(f"{human_size(p.bytes)} read")
        sys.stderr.write(f"sitemap-reader: {', '.join(parts)} in {elapsed:.1f} s\n")
        if dropped and p is not None and not p.entries:
            hint = widen(tally)
            if hint:
                sys.stderr.write(f"sitemap-reader: every URL read was out of scope: {hint}\n")
        for source, why in ({} if p is None else p.distrusted).items():
            sys.stderr.write(
                f"sitemap-reader: the lastmods of {source} were distrusted ({why}): "
                "its sitemaps were asked again, not skipped on their index lastmod\n"
            )
        if p is not None and p.budget is not None:
            left = f"; {plural(p.not_read, 'sitemap')} named but not read" if p.not_read else ""
            sys.stderr.write(
                f"sitemap-reader: stopped early: the {p.budget} budget was reached{left}\n"
            )


class _Warnings(logging.Handler):
    """The library's warnings as Python's last-resort handler printed them before the
    package had a NullHandler: the message alone (see Console.library_warnings)."""

    def __init__(self, console: Console) -> None:
        super().__init__(logging.WARNING)
        self._console = console

    def emit(self, record: logging.LogRecord) -> None:
        if hasattr(record, "report"):
            return  # a document that failed or was cut: the console said its problem
        try:
            self._console.say(record.getMessage())
        except OSError:  # a broken stderr must not end the run from a log call
            self.handleError(record)


def widen(tally: Tally) -> str:
    """What would keep the URLs a run dropped as out of scope, fitted to the reasons it
    counted ('' when nothing would: URLs that are no http(s) URL)."""
    ways = []
    same = [why for why in _SAME_HOST if why in tally.dropped]
    if same:
        url, sitemap = tally.examples.get(same[0], ("", ""))
        such = f" (such as {url})" if url else ""
        way = f"--scope host keeps every URL on the sitemap's host{such}"
        if not tally.robots and sitemap:
            way += (
                f", or give the site's root ({_origin(sitemap)}/) as the source: its "
                "robots.txt vouches for the whole site when it names the sitemap"
            )
        ways.append(way)
    if "other-host" in tally.dropped:
        url, _ = tally.examples.get("other-host", ("", ""))
        where = f" ({_origin(url)}/)" if url else ""
        such = f" (such as {url})" if url else ""
        ways.append(
            f"--scope off keeps the URLs on other hosts{such}, and so does reading the "
            f"sitemap through their host's robots.txt{where} when it names the sitemap"
        )
    return "; ".join(ways)


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def _columns() -> int:
    try:
        columns = os.get_terminal_size(sys.stderr.fileno()).columns
    except (OSError, ValueError):
        columns = 0
    return columns or 80  # a terminal that does not say its size (0) gets the usual width


def _rate(per_second: float) -> str:
    """``850``, ``11.5k``, ``1.2M``."""
    if per_second >= 1e6:
        return f"{per_second / 1e6:.1f}M"
    return f"{per_second / 1e3:.1f}k" if per_second >= 1e3 else f"{per_second:.0f}"


def _clock(seconds: float) -> str:
    """``0:04``, ``12:30``, ``1:02:03``."""
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02}:{secs:02}" if hours else f"{minutes}:{secs:02}"
