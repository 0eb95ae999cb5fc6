"""The options the reading commands share, their value types, and the ReaderConfig and state
file they give."""

from __future__ import annotations

import argparse
import dataclasses
import os
from datetime import datetime
from typing import Any, TypeAlias

import sitemap_reader as sr

from .._io._pool import available_cores
from .._sources import is_url

# The subparsers each command registers itself in.
Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


class UsageError(Exception):
    """Arguments that parse but do not go together: reported as argparse reports its own."""


# Resolved when used, so XDG_STATE_HOME is read at run time (sr.default_state_path()).
DEFAULT_STATE = "$XDG_STATE_HOME/sitemap-reader/state.sqlite (~/.local/state/... by default)"


def add_state_options(command: argparse.ArgumentParser) -> None:
    """--state, --all and --max-age: the incremental runs."""
    command.add_argument(
        "--state",
        nargs="?",
        const=True,  # --state alone: the default file
        metavar="FILE",
        help="remember what was read in FILE (SQLite; its directory is created) and next "
        f"time fetch and print only what changed. --state alone uses {DEFAULT_STATE}; "
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


def add_reading_options(command: argparse.ArgumentParser) -> None:
    """Scope, limits, budgets, the network and the console: every command that reads."""
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
    command.add_argument(
        "--workers",
        type=_workers,
        metavar="N",
        help="processes that parse the sitemaps an index names: a number, 'auto' (one a core "
        "when there are several) or 0 for none, all parsed in the main process (0)",
    )
    command.add_argument("-q", "--quiet", action="store_true", help="no problems, no summary")
    command.add_argument("--no-progress", action="store_true", help="no progress display")


# -- value types ---------------------------------------------------------------------------------


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


def _workers(text: str) -> int:
    if text.strip().lower() == "auto":
        cores = available_cores()
        return cores if cores > 1 else 0
    return _natural(text)


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


def date(text: str) -> datetime:
    value = sr.parse_datetime(text)
    if value is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date (try 2024-05-01)")
    return value


# -- what the options give -----------------------------------------------------------------------


def config(args: argparse.Namespace, *, changes: bool = False) -> sr.ReaderConfig:
    """The ReaderConfig of the reading and state options; ``changes``: the change feed."""
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
    settings: dict[str, Any] = {
        "limits": limits,
        "timeouts": timeouts,
        "scope": sr.ScopePolicy(args.scope),
        "resolve_relative": args.resolve_relative,
        "allow_private": args.allow_private,
    }
    if args.user_agent is not None:
        settings["user_agent"] = args.user_agent
    if args.workers is not None:
        settings["workers"] = args.workers
    if args.no_probe:
        settings["well_known_paths"] = ()
    incremental = base.incremental
    if args.max_age is not None:
        incremental = dataclasses.replace(incremental, max_age=args.max_age)
    settings["incremental"] = dataclasses.replace(incremental, read_all=args.all, changes=changes)
    if args.state is None and (args.all or args.max_age is not None or changes):
        raise UsageError("--all, --max-age and --changes need --state")
    if isinstance(args.state, str) and is_url(args.state):
        raise UsageError(
            f"--state takes a file, not {args.state!r}: write --state=FILE, or put a bare "
            "--state after the sources"
        )
    return dataclasses.replace(base, **settings)


def open_state(args: argparse.Namespace) -> str | None:
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
