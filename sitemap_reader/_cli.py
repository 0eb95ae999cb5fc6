"""The command line: ``sitemap-reader dump``, ``tree`` and ``state show``.

A thin client of the public API (it imports ``sitemap_reader`` only). stdout carries
records only; problems, progress and the summary go to stderr. Exit status: 0 when a
source was read (even in part) or found unchanged, 1 when none could be, 2 for a usage
error (a state file that cannot be used included).
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import dataclasses
import functools
import io
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import IO, Any

import sitemap_reader as sr

_encode = json.encoder.encode_basestring  # C-accelerated: quotes and escapes a str
_READ = (sr.Status.OK, sr.Status.PARTIAL)
_SITEMAP_FORMATS = (
    sr.Format.URLSET,
    sr.Format.SITEMAPINDEX,
    sr.Format.TEXT,
    sr.Format.RSS,
    sr.Format.ATOM,
)


def main(argv: Sequence[str] | None = None) -> int:
    parser = _build_parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "run"):
        parser.print_help(sys.stderr)
        return 2
    try:
        if getattr(args, "sites", None) is not None:  # dump --sites FILE
            if args.sites == "-" and "-" in args.sources:
                raise ValueError("stdin is read once: --sites - and the SOURCE - together")
            args.sources = [*args.sources, *_site_lines(args.sites)]
        if hasattr(args, "sources") and not args.sources:
            raise ValueError("the following arguments are required: SOURCE (or --sites FILE)")
        config = _config(args) if hasattr(args, "scope") else sr.DEFAULT_CONFIG
    except ValueError as exc:
        parser.error(str(exc))
    try:
        return int(args.run(args, config))
    except sr.StateError as exc:
        print(f"sitemap-reader: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("sitemap-reader: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader of stdout went away (| head): not an error of ours.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


def entrypoint() -> None:
    sys.exit(main(sys.argv[1:]))


# -- arguments --------------------------------------------------------------------------------


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sitemap-reader",
        description="Read a site's sitemaps (robots.txt, indexes, XML, text, feeds, gzip) "
        "and print one record per page URL.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {sr.__version__}")
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")

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
        type=_date,
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
    _common(dump)
    _incremental(dump)
    dump.set_defaults(run=_run_dump)

    tree = commands.add_parser(
        "tree",
        help="print the sitemap hierarchy with counts, lastmod, status and problems",
    )
    tree.add_argument("sources", nargs="+", metavar="SOURCE")
    _common(tree)
    _incremental(tree)
    tree.set_defaults(run=_run_tree)

    state = commands.add_parser("state", help="inspect a state file (--state)")
    actions = state.add_subparsers(title="actions", metavar="ACTION")
    show = actions.add_parser(
        "show",
        help="list what a state file holds",
        description="List the documents a state file holds, with their counts, lastmod, "
        f"validators and when they were read. FILE defaults to {_DEFAULT_STATE}.",
    )
    show.add_argument("file", nargs="?", metavar="FILE")
    show.add_argument("--format", choices=("text", "jsonl"), default="text")
    show.set_defaults(run=_run_state_show)
    return parser


# Resolved when used, so XDG_STATE_HOME is read at run time (sr.default_state_path()).
_DEFAULT_STATE = "$XDG_STATE_HOME/sitemap-reader/state.sqlite (~/.local/state/... by default)"


def _incremental(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--state",
        nargs="?",
        const=True,  # --state alone: the default file
        metavar="FILE",
        help="remember what was read in FILE (SQLite; its directory is created) and next "
        f"time fetch and print only what changed. --state alone uses {_DEFAULT_STATE}; "
        "a directory gets state.sqlite inside it",
    )
    command.add_argument(
        "--all",
        action="store_true",
        help="with --state: read and print everything, changed or not (and record it)",
    )
    command.add_argument(
        "--max-age",
        type=_duration,
        metavar="AGE",
        help="with --state: ask again (conditionally) for a sitemap whose index lastmod is "
        "unchanged once its last check is older than AGE: 90s, 30m, 12h, 7d (7d)",
    )


def _common(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--scope",
        choices=[p.value for p in sr.ScopePolicy],
        default=sr.ScopePolicy.STRICT.value,
        help="strict: the sitemaps.org location rule plus robots.txt vouching (default); "
        "host: same host only; off: keep everything",
    )
    command.add_argument("--max-depth", type=_natural, metavar="N", help="nested index depth (10)")
    command.add_argument(
        "--concurrency", type=_positive, metavar="N", help="requests in flight, all hosts (16)"
    )
    command.add_argument(
        "--per-host", type=_positive, metavar="N", help="requests in flight to one host (4)"
    )
    command.add_argument(
        "--timeout", type=_seconds, metavar="SECONDS", help="per request, body included (300)"
    )
    budgets = command.add_argument_group(
        "budgets of the run", "reaching one stops new work; what was read is kept"
    )
    budgets.add_argument(
        "--deadline",
        type=_deadline,
        default=_KEEP,
        metavar="SECONDS",
        help="the whole run; 'none' for no bound (3600)",
    )
    budgets.add_argument(
        "--max-sitemaps", type=_positive, metavar="N", help="documents in all (100,000)"
    )
    budgets.add_argument(
        "--max-sitemaps-per-site",
        type=_positive,
        metavar="N",
        help="documents per source (20,000)",
    )
    budgets.add_argument(
        "--max-entries", type=_positive, metavar="N", help="URLs in all (100,000,000)"
    )
    budgets.add_argument(
        "--max-total-bytes",
        type=_size_arg,
        metavar="SIZE",
        help="body bytes in all: 500M, 20G (16G)",
    )
    command.add_argument(
        "--allow-private",
        action="store_true",
        help="let documents send the reader to loopback, private and link-local addresses "
        "(the SSRF guard; the sources' own hosts are always allowed)",
    )
    command.add_argument("--user-agent", metavar="UA", help="the User-Agent header")
    command.add_argument(
        "--no-probe",
        action="store_true",
        help="do not try well-known sitemap paths when robots.txt names none",
    )
    command.add_argument(
        "--resolve-relative",
        action="store_true",
        help="resolve relative <loc> values against the sitemap URL instead of dropping them",
    )
    command.add_argument("-q", "--quiet", action="store_true", help="no problems, no summary")
    command.add_argument("--no-progress", action="store_true", help="no progress display")


def _natural(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} is negative")
    return value


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a positive number")
    return value


_KEEP: Any = object()  # an option left out: the config's default stands


def _deadline(text: str) -> float | None:
    return None if text.strip().lower() == "none" else _seconds(text)


_SIZES = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4}


def _size_arg(text: str) -> int:
    """Bytes, from '1000000', '500k', '500M' or '20G' (powers of 1024)."""
    number, unit = (text[:-1], text[-1].lower()) if text[-1:].isalpha() else (text, "")
    try:
        value = int(float(number) * _SIZES[unit])
    except (KeyError, ValueError):
        raise argparse.ArgumentTypeError(f"{text!r} is not a size (try 500M or 20G)") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a positive size")
    return value


def _seconds(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text} is not a positive number of seconds")
    return value


_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800}


def _duration(text: str) -> float:
    """Seconds, from '3600', '90s', '30m', '12h', '7d' or '2w'."""
    number, unit = (text[:-1], text[-1].lower()) if text[-1:].isalpha() else (text, "s")
    try:
        value = float(number) * _UNITS[unit]
    except (KeyError, ValueError):
        raise argparse.ArgumentTypeError(f"{text!r} is not a duration (try 12h or 7d)") from None
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"{text} is negative")
    return value


def _date(text: str) -> datetime:
    value = sr.parse_datetime(text)
    if value is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date (try 2024-05-01)")
    return value


def _site_lines(path: str) -> list[str]:
    """The sites of a --sites file: one a line; blank lines and # comments skipped."""
    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8") as file:
                text = file.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read the --sites file {path}: {exc}") from None
    stripped = (line.strip() for line in text.splitlines())
    return [line for line in stripped if line and not line.startswith("#")]


def _config(args: argparse.Namespace) -> sr.ReaderConfig:
    base = sr.DEFAULT_CONFIG
    limits = base.limits
    if args.max_depth is not None:
        limits = dataclasses.replace(limits, max_depth=args.max_depth)
    if args.concurrency is not None:
        limits = dataclasses.replace(limits, max_concurrency=args.concurrency)
    if args.per_host is not None:
        limits = dataclasses.replace(limits, per_host=args.per_host)
    for name in ("max_sitemaps", "max_sitemaps_per_site", "max_entries", "max_total_bytes"):
        if getattr(args, name) is not None:
            limits = dataclasses.replace(limits, **{name: getattr(args, name)})
    timeouts = base.timeouts
    if args.timeout is not None:
        timeouts = dataclasses.replace(timeouts, request=args.timeout)
    if args.deadline is not _KEEP:
        timeouts = dataclasses.replace(timeouts, deadline=args.deadline)
    changes: dict[str, Any] = {
        "limits": limits,
        "timeouts": timeouts,
        "scope": sr.ScopePolicy(args.scope),
        "resolve_relative": args.resolve_relative,
        "allow_private": args.allow_private,
    }
    if args.user_agent is not None:
        changes["user_agent"] = args.user_agent
    if args.no_probe:
        changes["well_known_paths"] = ()
    feed = bool(getattr(args, "changes", False))  # dump only
    incremental = base.incremental
    if args.max_age is not None:
        incremental = dataclasses.replace(incremental, max_age=args.max_age)
    changes["incremental"] = dataclasses.replace(incremental, read_all=args.all, changes=feed)
    if args.state is None and (args.all or args.max_age is not None or feed):
        raise ValueError("--all, --max-age and --changes need --state")
    if isinstance(args.state, str) and args.state.lower().startswith(("http://", "https://")):
        raise ValueError(
            f"--state takes a file, not {args.state!r}: write --state=FILE, or put a bare "
            "--state after the sources"
        )
    if getattr(args, "since_strict", False) and args.since is None:
        raise ValueError("--since-strict needs --since")
    if getattr(args, "format", None) == "parquet":  # dump only
        if not args.output:
            raise ValueError("--format parquet writes a file: give it with -o FILE")
        if feed:
            raise ValueError("--changes writes jsonl, csv or txt, not parquet")
        try:
            sr.entry_schema()
        except ImportError as exc:  # pyarrow is an optional extra: say which
            raise ValueError(str(exc)) from None
    return dataclasses.replace(base, **changes)


def _open_state(args: argparse.Namespace) -> str | None:
    """The state file's path, its directory made; None without --state."""
    if args.state is None:
        return None
    if args.state is True:
        path = sr.default_state_path()
    else:
        path = os.path.abspath(os.path.expanduser(args.state))
    if os.path.isdir(path):
        path = os.path.join(path, os.path.basename(sr.default_state_path()))
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
    except OSError as exc:
        raise sr.StateError(
            f"cannot make the directory of the state file {path}: {exc.strerror or exc}",
            path=path,
        ) from exc
    return path


# -- dump ---------------------------------------------------------------------------------------


def _run_dump(args: argparse.Namespace, config: sr.ReaderConfig) -> int:
    if args.format == "parquet":
        # One SOURCE names the source column, as the walk names it (a local file by its
        # absolute path). With several, no record says which one an entry descends from,
        # so it is left null.
        source = args.sources[0] if len(args.sources) == 1 else None
        if source not in (None, "-") and not source.lower().startswith(("http://", "https://")):
            source = os.path.abspath(source)
        with sr.ParquetSink(args.output) as sink:  # whole or not at all, as for -o
            return _dump(args, config, None, functools.partial(sink.write, source=source))
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


def _dump(
    args: argparse.Namespace,
    config: sr.ReaderConfig,
    out: IO[str] | None,
    write: Callable[[list[Any]], None] | None = None,
) -> int:
    feed = config.incremental.changes
    if write is None:
        assert out is not None
        write = _change_writer(args.format, out) if feed else _writer(args.format, out)
    since: datetime | None = args.since
    # Entries with no lastmod pass --since unless --since-strict.
    undated = not args.since_strict
    console = _Console(args.quiet, args.no_progress, feed=feed)
    state = _open_state(args)

    async def run() -> _Tally:
        tally = _Tally()
        async with sr.SitemapReader(config, state=state) as reader:
            console.start(reader)
            try:
                async for batch in reader.walk_batches(*args.sources):
                    records: list[Any] = []
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
            finally:
                console.stop()
            tally.progress = reader.progress
        return tally

    tally = asyncio.run(run())
    if out is not None:
        out.flush()
    console.summary(tally)
    return 0 if tally.read or tally.unchanged else 1


def _change_writer(fmt: str, out: IO[str]) -> Callable[[list[sr.EntryChange]], None]:
    """The change feed: loc, lastmod, sitemap and change (the store keeps no other field)."""
    if fmt == "txt":

        def write_txt(changes: list[sr.EntryChange]) -> None:
            out.write("".join([f"{c.change.value}\t{c.loc}\n" for c in changes]))

        return write_txt
    if fmt == "csv":
        rows = csv.writer(out, lineterminator="\n")
        rows.writerow(("loc", "lastmod", "sitemap", "change"))

        def write_csv(changes: list[sr.EntryChange]) -> None:
            rows.writerows(
                (c.loc, "" if c.lastmod is None else _iso(c.lastmod), c.sitemap, c.change.value)
                for c in changes
            )

        return write_csv

    def write_jsonl(changes: list[sr.EntryChange]) -> None:
        out.write("".join([_change_line(c) for c in changes]))

    return write_jsonl


def _writer(fmt: str, out: IO[str]) -> Callable[[list[sr.Entry]], None]:
    if fmt == "txt":

        def write_txt(entries: list[sr.Entry]) -> None:
            out.write("".join([e.loc + "\n" for e in entries]))

        return write_txt
    if fmt == "csv":
        rows = csv.writer(out, lineterminator="\n")
        rows.writerow(("loc", "lastmod", "changefreq", "priority", "sitemap"))

        def write_csv(entries: list[sr.Entry]) -> None:
            rows.writerows(
                (
                    e.loc,
                    _iso(e.lastmod) if e.lastmod is not None else "",
                    e.changefreq.value if e.changefreq is not None else "",
                    repr(e.priority) if e.priority is not None else "",
                    e.sitemap,
                )
                for e in entries
            )

        return write_csv

    def write_jsonl(entries: list[sr.Entry]) -> None:
        out.write("".join([_json_line(e) for e in entries]))

    return write_jsonl


_ISO: dict[datetime, str] = {}


def _iso(value: datetime) -> str:
    # Sitemaps repeat a few dates many times, and parse_datetime hands back one object each.
    text = _ISO.get(value)
    if text is None:
        if len(_ISO) > 4_096:  # bounded: with distinct dates it only costs memory
            _ISO.clear()
        text = _ISO[value] = value.isoformat()
    return text


def _json_line(e: sr.Entry) -> str:
    """One JSON object, as json.dumps(entry_to_dict(e), ensure_ascii=False) writes it.

    Written out by hand for the shapes nearly every entry has (no extension, or images
    with a loc alone): json.dumps of a dict costs several times as much per line."""
    images = e.images
    if e.videos or e.news or e.alternates or (images and not all(map(_bare, images))):
        return json.dumps(sr.entry_to_dict(e), ensure_ascii=False) + "\n"
    lastmod = "null" if e.lastmod is None else '"' + _iso(e.lastmod) + '"'
    changefreq = "null" if e.changefreq is None else '"' + e.changefreq.value + '"'
    priority = "null" if e.priority is None else repr(e.priority)
    tail = ""
    if images:
        tail = (
            ', "images": [' + ", ".join(['{"loc": ' + _encode(i.loc) + "}" for i in images]) + "]"
        )
    return (
        f'{{"loc": {_encode(e.loc)}, "lastmod": {lastmod}, "changefreq": {changefreq}, '
        f'"priority": {priority}, "sitemap": {_encode(e.sitemap)}{tail}}}\n'
    )


def _bare(image: sr.Image) -> bool:
    return (
        image.caption is None
        and image.title is None
        and image.geo_location is None
        and image.license is None
    )


def _change_line(c: sr.EntryChange) -> str:
    lastmod = "null" if c.lastmod is None else '"' + _iso(c.lastmod) + '"'
    return (
        f'{{"loc": {_encode(c.loc)}, "lastmod": {lastmod}, "sitemap": {_encode(c.sitemap)}, '
        f'"change": "{c.change.value}"}}\n'
    )


# -- tree ---------------------------------------------------------------------------------------


def _run_tree(args: argparse.Namespace, config: sr.ReaderConfig) -> int:
    console = _Console(args.quiet, args.no_progress)
    state = _open_state(args)

    async def run() -> tuple[list[sr.SitemapVisited], _Tally]:
        tally = _Tally()
        reports: list[sr.SitemapVisited] = []
        async with sr.SitemapReader(config, state=state) as reader:
            console.start(reader)
            try:
                async for batch in reader.walk_batches(*args.sources):
                    for event in batch:
                        if type(event) is sr.SitemapVisited:
                            reports.append(event)
                            tally.visited(event)
            finally:
                console.stop()
            tally.progress = reader.progress
        return reports, tally

    reports, tally = asyncio.run(run())
    _print_tree(reports, sys.stdout)
    sys.stdout.flush()  # the tree before the summary, when both go to one terminal
    if tally.progress is not None:
        tally.written = tally.progress.entries  # the URLs the tree counted (none written)
    console.summary(tally)
    return 0 if tally.read or tally.unchanged else 1


# -- state show ----------------------------------------------------------------------------------


def _run_state_show(args: argparse.Namespace, config: sr.ReaderConfig) -> int:
    path = args.file or sr.default_state_path()
    if not os.path.isfile(path):
        print(f"sitemap-reader: no state file at {path}", file=sys.stderr)
        return 1
    with sr.SqliteStateStore(path) as store:
        out = sys.stdout
        if args.format == "jsonl":
            for state in store.states():
                out.write(json.dumps(_state_dict(state), ensure_ascii=False) + "\n")
            return 0
        summary = store.summary()
        states = list(store.states())
        out.write(
            f"{path}: schema {summary.schema}, {summary.documents:,} documents"
            f" ({sum(s.entries for s in states):,} URLs at their last reads,"
            f" {sum(s.bytes for s in states) / 1e6:,.1f} MB)"
        )
        if summary.tracked_urls or summary.pending:
            out.write(
                f"; change feed: {summary.tracked_urls:,} URLs tracked,"
                f" {summary.pending:,} changes not yet delivered"
            )
        if summary.forgotten:
            out.write(f"; {summary.forgotten:,} documents forgotten (left their index)")
        out.write("\n")
        for state in states:
            out.write(_describe_state(state) + "\n")
    return 0


def _describe_state(state: sr.SitemapState) -> str:
    parts = [state.url]
    if state.final_url != state.url:
        parts.append(f"-> {state.final_url}")
    parts.append(str(state.format) if state.format is not None else "?")
    if state.format in (sr.Format.SITEMAPINDEX, sr.Format.ROBOTS):
        parts.append(f"{len(state.children):,} sitemaps")
    else:
        parts.append(f"{state.entries:,} URLs")
    parts.append(f"{state.bytes:,} bytes")
    if state.lastmod is not None:
        parts.append(f"lastmod {state.lastmod.isoformat()}")
    if state.etag:
        parts.append(f"etag {state.etag}")
    if state.last_modified:
        parts.append(f"last-modified {state.last_modified!r}")
    parts.append(f"read {state.fetched_at:%Y-%m-%d %H:%M:%S}Z")
    if state.checked_at != state.fetched_at:
        parts.append(f"checked {state.checked_at:%Y-%m-%d %H:%M:%S}Z")
    if state.tracked:
        parts.append("tracked")
    parts.append(f"[{state.status}]")
    return "  ".join(parts)


def _state_dict(state: sr.SitemapState) -> dict[str, Any]:
    return {
        "url": state.url,
        "final_url": state.final_url,
        "status": state.status.value,
        "format": None if state.format is None else state.format.value,
        "lastmod": None if state.lastmod is None else state.lastmod.isoformat(),
        "etag": state.etag,
        "last_modified": state.last_modified,
        "fetched_at": state.fetched_at.isoformat(),
        "checked_at": state.checked_at.isoformat(),
        "entries": state.entries,
        "bytes": state.bytes,
        "digest": state.digest,
        "children": [
            {"loc": c.loc, "lastmod": None if c.lastmod is None else c.lastmod.isoformat()}
            for c in state.children
        ],
        "tracked": state.tracked,
    }


def _print_tree(reports: list[sr.SitemapVisited], out: IO[str]) -> None:
    children: dict[str, list[sr.SitemapVisited]] = {}
    keys = set()
    for report in reports:
        keys.add(report.url)
        if report.final_url:
            keys.add(report.final_url)
    roots = []
    for report in reports:
        if report.source and report.source in keys:
            children.setdefault(report.source, []).append(report)
        else:
            roots.append(report)

    def show(report: sr.SitemapVisited, prefix: str, last: bool, top: bool) -> None:
        branch = "" if top else ("└── " if last else "├── ")
        out.write(f"{prefix}{branch}{_describe(report)}\n")
        inner = prefix + ("" if top else ("    " if last else "│   "))
        for problem in report.problems:
            out.write(f"{inner}  ! {problem.kind}: {problem.message}\n")
        kids = children.get(report.final_url or report.url, [])
        if report.final_url and report.final_url != report.url:
            kids = kids + children.get(report.url, [])
        for i, kid in enumerate(kids):
            show(kid, inner, i == len(kids) - 1, False)

    for root in roots:
        show(root, "", True, True)


def _describe(report: sr.SitemapVisited) -> str:
    parts = [report.url]
    if report.final_url and report.final_url != report.url:
        parts.append(f"-> {report.final_url}")
    if report.format is not None:
        parts.append(str(report.format))
    if report.format in (sr.Format.SITEMAPINDEX, sr.Format.ROBOTS):
        parts.append(f"{report.children:,} sitemaps")
    elif report.status in _READ:
        parts.append(f"{report.entries:,} URLs")
    dropped = sum(n for _, n in report.dropped)
    if dropped:
        parts.append(f"{dropped:,} dropped")
    if report.lastmod is not None:
        parts.append(f"lastmod {report.lastmod.date().isoformat()}")
    parts.append(f"[{report.status}]")
    return "  ".join(parts)


# -- stderr: problems, progress, summary --------------------------------------------------------


@dataclasses.dataclass
class _Tally:
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
        if report.status in _READ and report.format in _SITEMAP_FORMATS:
            self.read += 1
        if report.status is sr.Status.UNCHANGED:
            self.unchanged += 1
        if report.status is sr.Status.FAILED:
            self.failed += 1
        if report.status not in (sr.Status.MISSING, sr.Status.DUPLICATE):
            self.sitemaps += 1
        self.dropped += sum(n for _, n in report.dropped)


class _Console:
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

    def summary(self, tally: _Tally) -> None:
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
        if p is not None and p.budget is not None:
            left = f"; {p.not_read:,} sitemaps named but not read" if p.not_read else ""
            sys.stderr.write(
                f"sitemap-reader: stopped early: the {p.budget} budget was reached{left}\n"
            )


def _size(n: int) -> str:
    if n >= 1_000_000:
        return f"{n / 1e6:,.1f} MB"
    return f"{n / 1e3:,.1f} kB" if n >= 1_000 else f"{n:,} bytes"


if __name__ == "__main__":  # pragma: no cover
    entrypoint()
