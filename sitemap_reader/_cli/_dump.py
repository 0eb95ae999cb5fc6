"""``sitemap-reader dump``: every page URL the sources' sitemaps vouch for (or, with
``--changes``, what changed), written as jsonl, csv, txt or parquet to stdout or a file."""

from __future__ import annotations

import argparse
import io
import os
import stat
import sys
import tempfile
from collections.abc import Callable
from datetime import datetime
from typing import IO, Any

import sitemap_reader as sr

from .._serialize import change_writer, entry_writer
from . import _options
from ._console import Console, Tally
from ._run import run_walk


def register(commands: _options.Commands) -> None:
    dump = commands.add_parser(
        "dump",
        help="print every page URL the sources' sitemaps vouch for",
        description="Print one record per page URL. SOURCE: a site root "
        "(https://example.com/), a robots.txt, sitemap or index URL, a local file, or - "
        "for stdin.",
    )
    dump.add_argument("sources", nargs="*", metavar="SOURCE")
    dump.add_argument(
        "--sites",
        metavar="FILE",
        help="also read the sites listed in FILE (- for stdin): one a line, blank lines and "
        "# comments skipped. All are read in one run, sharing its per-host limit; its "
        "budgets count them all, so a long list may need --deadline none and a larger "
        "--max-sitemaps",
    )
    dump.add_argument(
        "--format",
        choices=("jsonl", "csv", "txt", "parquet"),
        default="jsonl",
        help="jsonl (default): one JSON object a line; csv: a header row and the scalar "
        "columns; txt: one loc a line; parquet: every field as typed columns, with the "
        "source (needs -o FILE and pyarrow: pip install 'sitemap-reader[parquet]')",
    )
    dump.add_argument("-o", "--output", metavar="FILE", help="write records here, not stdout")
    dump.add_argument(
        "--since",
        metavar="DATE",
        type=_options.date,
        help="keep entries whose lastmod is at or after DATE (entries without one are kept)",
    )
    dump.add_argument(
        "--since-strict",
        action="store_true",
        help="with --since, also drop entries that have no lastmod",
    )
    dump.add_argument(
        "--changes",
        action="store_true",
        help="with --state: print only what changed since the last --changes run, each "
        'record with "change": new, modified or removed',
    )
    _options.add_reading_options(dump)
    _options.add_state_options(dump)
    dump.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    config = _settle(args)
    if args.format == "parquet":
        with sr.ParquetSink(args.output) as sink:  # whole or not at all, as for -o

            def write(rows: list[Any]) -> None:
                # A batch's records come as a Batch, whose root (the SOURCE they descend
                # from, as the walk names it) fills the source column.
                sink.write(rows, source=rows.root if isinstance(rows, sr.Batch) else None)

            return _dump(args, config, None, write)
    if args.output and _special(args.output):
        # A device or a pipe (-o /dev/null, a FIFO) is written to as it is: a temporary file
        # renamed over it would replace the device itself.
        with open(args.output, "w", encoding="utf-8", newline="") as out:
            return _dump(args, config, out)
    if args.output:
        directory = os.path.dirname(os.path.abspath(args.output))
        fd, temp = tempfile.mkstemp(prefix=".sitemap-reader-", dir=directory)
        try:
            with open(fd, "w", encoding="utf-8", newline="") as out:
                code = _dump(args, config, out)
            os.replace(temp, args.output)  # whole or not at all
        except BaseException:
            os.unlink(temp)
            raise
        return code
    out = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8", newline="", write_through=False)
    try:
        return _dump(args, config, out)
    finally:
        try:
            out.flush()
        finally:
            out.detach()


def _special(path: str) -> bool:
    """Whether ``path`` names something other than a regular file (a device, a FIFO)."""
    try:
        return not stat.S_ISREG(os.stat(path).st_mode) and not os.path.isdir(path)
    except OSError:
        return False  # not there yet: made whole, as any file


def _settle(args: argparse.Namespace) -> sr.ReaderConfig:
    """The sources (--sites added) and the config, or a UsageError naming what is wrong."""
    if args.sites is not None:
        if args.sites == "-" and "-" in args.sources:
            raise _options.UsageError("stdin is read once: --sites - and the SOURCE - together")
        args.sources = [*args.sources, *_site_lines(args.sites)]
    if not args.sources:
        raise _options.UsageError("the following arguments are required: SOURCE (or --sites FILE)")
    config = _options.config(args, changes=args.changes)
    if args.since_strict and args.since is None:
        raise _options.UsageError("--since-strict needs --since")
    if args.format == "parquet":
        if not args.output:
            raise _options.UsageError("--format parquet writes a file: give it with -o FILE")
        if args.changes:
            raise _options.UsageError("--changes writes jsonl, csv or txt, not parquet")
        try:
            sr.entry_schema()
        except ImportError as exc:  # pyarrow is an optional extra: say which
            raise _options.UsageError(str(exc)) from None
    return config


def _site_lines(path: str) -> list[str]:
    """The sites of a --sites file: one a line; blank lines and # comments skipped."""
    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8") as file:
                text = file.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise _options.UsageError(f"cannot read the --sites file {path}: {exc}") from None
    stripped = (line.strip() for line in text.splitlines())
    return [line for line in stripped if line and not line.startswith("#")]


def _dump(
    args: argparse.Namespace,
    config: sr.ReaderConfig,
    out: IO[str] | None,
    write: Callable[[list[Any]], None] | None = None,
) -> int:
    feed = config.incremental.changes
    if write is None:
        assert out is not None
        write = change_writer(args.format, out) if feed else entry_writer(args.format, out)
    since: datetime | None = args.since
    # Entries with no lastmod pass --since unless --since-strict.
    undated = not args.since_strict
    console = Console(args.quiet, args.no_progress, feed=feed)

    def handle(batch: sr.Batch, tally: Tally) -> None:
        records: list[Any] = sr.Batch((), batch.root)  # the root, for the parquet source
        for event in batch:
            kind = type(event)
            if kind is sr.Entry or kind is sr.EntryChange:
                lastmod = event.lastmod  # type: ignore[attr-defined]
                if (
                    since is None
                    or (undated if lastmod is None else lastmod >= since)
                    # when a URL went away says nothing of its lastmod
                    or getattr(event, "change", None) is sr.ChangeKind.REMOVED
                ):
                    records.append(event)
            elif kind is sr.Problem:
                console.problem(event)  # type: ignore[arg-type]
            else:
                tally.visited(event)  # type: ignore[arg-type]
        if records:
            tally.written += len(records)
            write(records)

    tally = run_walk(args, config, console, handle)
    if out is not None:
        out.flush()
    console.summary(tally)
    return tally.exit_status
