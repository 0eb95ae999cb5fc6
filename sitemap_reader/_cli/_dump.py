"""``sitemap-reader dump``: every page URL the sources' sitemaps vouch for (or, with
``--changes``, what changed), written as jsonl, csv, txt or parquet to stdout or a file."""

from __future__ import annotations

import argparse
import io
import os
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
from ._values import since


def register(commands: _options.Commands) -> None:
    dump = _options.add_command(
        commands,
        "dump",
        run,
        help="print every page URL the sources' sitemaps vouch for",
        description="Print one record per page URL the sources' sitemaps vouch for, on "
        "stdout or in a file; problems, progress and a summary go to stderr.",
        usage="%(prog)s [OPTIONS] [SOURCE ...]",
    )
    _options.add_sources(dump)
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
        metavar="WHEN",
        type=since,
        help="keep entries whose lastmod is at or after WHEN: a date (2024-05-01) or a "
        "duration back from now (7d, 12h); entries without a lastmod are kept",
    )
    dump.add_argument(
        "--since-strict",
        action="store_true",
        help="with --since, also drop entries that have no lastmod",
    )
    _options.add_reading_options(dump)
    _options.add_state_options(dump)


def run(args: argparse.Namespace) -> int:
    config = _settle(args)
    if args.format == "parquet":
        with sr.ParquetSink(args.output) as sink:  # whole or not at all, as for -o

            def write(rows: list[Any]) -> None:
                # A batch's records come as a Batch, whose root (the SOURCE they descend
                # from, as the walk names it) fills the source column.
                sink.write(rows, source=rows.root if isinstance(rows, sr.Batch) else None)

            return _dump(args, config, None, write)
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


def _settle(args: argparse.Namespace) -> sr.ReaderConfig:
    """The sources (--sites added) and the config, or a UsageError naming what is wrong."""
    args.sources = _options.sources(args)
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
