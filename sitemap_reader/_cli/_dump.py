"""``sitemap-reader dump``: every page URL the sources' sitemaps vouch for (or, with
``--changes``, what changed), written as jsonl, csv, txt or parquet to stdout or a file."""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
from collections.abc import Callable
from typing import IO, Any, cast

import sitemap_reader as sr

from .._base._replacement import Replacement
from .._output._lines import change_writer
from . import _options, _output
from ._console import Console, Tally
from ._values import since

RECORDS = (sr.Entry, sr.EntryChange)  # what is written; the other events go to stderr


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
        return _to_parquet(args, config)
    if args.output:
        return _to_file(args, config)
    return _to_stdout(args, config)


def _to_parquet(args: argparse.Namespace, config: sr.ReaderConfig) -> int:
    path: str = args.output
    with _output.opened(sr.ParquetSink, path) as sink:  # whole or not at all, as for -o

        def write(rows: list[Any]) -> None:
            # A batch's records come as a Batch, whose root (the SOURCE they descend
            # from, as the walk names it) fills the source column.
            sink.write(rows, source=rows.root if isinstance(rows, sr.Batch) else None)

        code = _dump(args, config, write, path)
        if code:
            sink.abort()
            _output.left_as_it_was(path, args.quiet)
        else:
            with _output.writing(path):
                sink.close()
    return code


def _to_file(args: argparse.Namespace, config: sr.ReaderConfig) -> int:
    path: str = args.output
    file = _output.opened(Replacement, path)
    # Closed by hand: after a failed write, closing fails again, and that is no news.
    out = open(file.fd, "w", encoding="utf-8", newline="")  # noqa: SIM115
    try:
        code = _dump(args, config, _writer(args, config, out, path), path, out.flush)
        with _output.writing(path):
            out.close()
        if code:
            _output.left_as_it_was(path, args.quiet)
        else:
            file.commit()
    finally:
        with contextlib.suppress(OSError):  # a failed write: what waits goes with the file
            out.close()
        file.discard()
    return code


def _to_stdout(args: argparse.Namespace, config: sr.ReaderConfig) -> int:
    out = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8", newline="", write_through=False)
    try:
        return _dump(args, config, _writer(args, config, out, "stdout"), "stdout", out.flush)
    except (BrokenPipeError, _output.OutputError):  # what waits for stdout is lost
        _output.drop_stdout()
        raise
    finally:
        out.flush()
        out.detach()


Write = Callable[[list[Any]], None]  # records: parquet rows, the change feed
Put = Callable[[bytes], object]  # lines: the reader's (line_batches), onto a byte stream


def _writer(
    args: argparse.Namespace, config: sr.ReaderConfig, out: IO[str], name: str
) -> Write | Put:
    """The writer of the change feed as text (the csv header written at once), or of the
    lines the reader writes, onto ``out``'s bytes."""
    if config.incremental.changes:
        with _output.writing(name):
            return change_writer(args.format, out)
    buffer: IO[bytes] = out.buffer  # type: ignore[attr-defined]
    return buffer.write


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
    write: Write | Put,
    name: str,
    flush: Callable[[], None] | None = None,
) -> int:
    """Run the walk, passing its records (``write``: parquet, the change feed) or its
    entries' lines (a ``Put``: jsonl, csv and txt) to ``write`` (then ``flush``), which
    write to ``name``; returns the exit status."""
    from ._run import run_walk  # the walk's machinery: when a command runs, not for --help

    feed = config.incremental.changes
    since = None if args.since is None else sr.Since(args.since, not args.since_strict)
    console = Console(args.quiet, args.no_progress, feed=feed, rules=_options.rules_named(args))
    if args.format == "parquet" or feed:
        handle = _records(cast(Write, write), since, console, name)
        plan = None
    else:
        plan = sr.LinePlan(args.format, since)
        put = cast(Put, write)
        handle = _lines(put, console, name)
        if plan.header:  # (csv's header row)
            with _output.writing(name):
                put(plan.header)
    tally = run_walk(args, config, console, handle, plan)
    if flush is not None:
        with _output.writing(name):
            flush()
    console.summary(tally)
    return tally.exit_status


def _lines(put: Put, console: Console, name: str) -> Callable[[sr.Batch, Tally], None]:
    """What takes each batch of ``line_batches``: the lines written, the rest told."""

    def handle(batch: sr.Batch, tally: Tally) -> None:
        for event in batch:
            kind: type = type(event)
            if kind is sr.Lines:
                lines: sr.Lines = event  # type: ignore[assignment]
                tally.written += lines.written
                if lines.data:
                    with _output.writing(name):
                        put(lines.data)
            elif kind is sr.Problem:
                console.problem(event)  # type: ignore[arg-type]
            else:
                tally.visited(event)  # type: ignore[arg-type]

    return handle


def _records(
    write: Write, since: sr.Since | None, console: Console, name: str
) -> Callable[[sr.Batch, Tally], None]:
    """What takes each batch of ``walk_batches``: the records kept by ``since`` written,
    the other events told."""

    def kept(record: Any) -> bool:
        return (
            since is None
            or since.keeps(record.lastmod)
            # when a URL went away says nothing of its lastmod
            or getattr(record, "change", None) is sr.ChangeKind.REMOVED
        )

    def handle(batch: sr.Batch, tally: Tally) -> None:
        # The records in one pass (a leaf's batch holds nothing else), the other events
        # in a second one when there are any; the root is kept for the parquet source.
        records: list[Any] = sr.Batch([e for e in batch if type(e) in RECORDS], batch.root)
        if len(records) < len(batch):
            for event in batch:
                if type(event) is sr.Problem:
                    console.problem(event)
                elif type(event) not in RECORDS:
                    tally.visited(event)  # type: ignore[arg-type]
        if since is not None:
            records = sr.Batch(filter(kept, records), batch.root)
        if records:
            tally.written += len(records)
            with _output.writing(name):
                write(records)

    return handle
