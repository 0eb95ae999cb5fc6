"""The options the reading commands share (their value types are ``_values``'), the sources
they name, and the ReaderConfig and state file they give."""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar

import sitemap_reader as sr

from .._base._cores import available_cores
from .._base._sources import check_source, is_url
from ._values import (
    AGE_DURATIONS,
    KEEP,
    PACE_DURATIONS,
    REQUEST_DURATIONS,
    RUN_DURATIONS,
    age,
    base_url,
    deadline,
    header,
    natural,
    pattern,
    pause,
    positive,
    positive_duration,
    proxy,
    share,
    size,
    wait,
)

# The subparsers each command registers itself in.
Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


class UsageError(Exception):
    """Arguments that parse but do not go together: reported as argparse reports its own."""


# Resolved when used, so XDG_STATE_HOME is read at run time (sr.default_state_path()).
DEFAULT_STATE = "$XDG_STATE_HOME/sitemap-reader/state.sqlite (~/.local/state/... by default)"

# The exit statuses of the commands that read, as their --help ends.
EXIT_STATUS = (
    "exit status: 0 when a source was read (even in part) or found unchanged since the last "
    "run, and when stdout is closed early (| head); 1 when no source could be read or the "
    "records could not be written; 2 for a usage error (an unusable state file or -o file "
    "included); 130 when interrupted (Ctrl-C), 143 on SIGTERM."
)


def add_command(
    commands: Commands,
    name: str,
    run: Callable[[argparse.Namespace], int] | None,
    *,
    help: str,
    description: str,
    usage: str | None = None,
    epilog: str | None = EXIT_STATUS,
) -> argparse.ArgumentParser:
    """A command's parser, remembered in its namespace so errors print its own usage."""
    command = commands.add_parser(
        name, help=help, description=description, usage=usage, epilog=epilog
    )
    command.set_defaults(run=run, parser=command)
    return command


def add_sources(command: argparse.ArgumentParser) -> None:
    """SOURCE..., --sites and --base-url: what a reading command reads."""
    command.add_argument(
        "sources",
        nargs="*",
        metavar="SOURCE",
        help="a site root (https://example.com/: its robots.txt, then well-known paths), a "
        "robots.txt, sitemap or index URL, a local file (a path or a file: URL; a robots.txt "
        "has its Sitemap: lines followed), or - for stdin",
    )
    command.add_argument(
        "--sites",
        metavar="FILE",
        help="also read the sites listed in FILE (- for stdin): one a line, blank lines and "
        "# comments skipped. All are read in one run, sharing its per-host limit; its "
        "budgets count them all, so a long list may need --deadline none and a larger "
        "--max-sitemaps",
    )
    command.add_argument(
        "--base-url",
        type=base_url,
        metavar="URL",
        help="read local files as if fetched from URL: relative locs resolve against it "
        "(--resolve-relative), --scope judges their entries by it, and their records "
        "name it as their sitemap",
    )


def sources(args: argparse.Namespace) -> list[str]:
    """The sources of the command line and --sites, each checked; UsageError otherwise."""
    found: list[str] = list(args.sources)
    if isinstance(args.state, str) and is_url(args.state):
        # "--state URL": --state takes an optional FILE, and no state file is a URL: the URL
        # is the source, the state file the default one.
        found.insert(0, args.state)
        args.state = True
    if args.sites is not None:
        if args.sites == "-" and "-" in found:
            raise UsageError("stdin is read once: --sites - and the SOURCE - together")
        found += _site_lines(args.sites)
    if not found:
        raise UsageError("the following arguments are required: SOURCE (or --sites FILE)")
    try:
        for source in found:
            check_source(source)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return found


def _site_lines(path: str) -> list[str]:
    """The sites of a --sites file: one a line; blank lines and # comments skipped."""
    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8") as file:
                text = file.read()
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise UsageError(f"cannot read the --sites file {path}: {reason}") from None
    stripped = (line.strip() for line in text.splitlines())
    return [line for line in stripped if line and not line.startswith("#")]


def add_state_options(command: argparse.ArgumentParser) -> None:
    """--state and the options of incremental runs (--all, --max-age, --changes, ...)."""
    command.add_argument(
        "--state",
        nargs="?",
        const=True,  # --state alone: the default file
        metavar="FILE",
        help="remember what was read in FILE (SQLite; its directory is created) and next "
        f"time fetch and print only what changed. --state alone uses {DEFAULT_STATE}; "
        "a directory gets state.sqlite inside it; a URL after --state is a SOURCE",
    )
    command.add_argument(
        "--all",
        action="store_true",
        help="with --state: read and print everything, changed or not (and record it)",
    )
    command.add_argument(
        "--max-age",
        type=age,
        metavar="AGE",
        help="with --state: ask again (conditionally) for a sitemap whose index lastmod is "
        f"unchanged once its last check is older than AGE: {AGE_DURATIONS} (7d)",
    )
    command.add_argument(
        "--changes",
        action="store_true",
        help="with --state: only what changed since the last dump --changes: dump prints each "
        'URL with "change": new, modified or removed; tree counts them per sitemap and leaves '
        "them to the next dump",
    )
    command.add_argument(
        "--trust-lastmod",
        choices=[t.value for t in sr.TrustLastmod],
        help="with --state: when a sitemap whose index lastmod did not move is skipped: "
        "always, never, or auto (default): unless its source's lastmods were judged untrusted",
    )
    command.add_argument(
        "--shrink-guard",
        type=share,
        metavar="SHARE",
        help="with --changes: a sitemap or source listing fewer than SHARE of the URLs of its "
        "last complete read holds its removals back until a later run sees the same; "
        "0 or off: no guard (0.5)",
    )
    command.add_argument(
        "--recheck",
        type=natural,
        metavar="N",
        help="with --state: per source, ask again (conditionally) N of the sitemaps that their "
        "index lastmod would skip, the longest unchecked first, to catch an index whose "
        "lastmods lie; 0: none (default: up to 4 that answer 304, the others within 2%% of "
        "the site's bytes a run on average, at least one every 5 runs)",
    )
    command.add_argument(
        "--wait",
        type=wait,
        metavar="DURATION",
        help="with --state: when another run holds the state file, wait up to DURATION for "
        f"it to end instead of exiting 2 at once: {RUN_DURATIONS}",
    )


# The budgets given as a count or a size: each option sets the Limits field of its name.
_BUDGETS: tuple[tuple[str, Callable[[str], int], str, str], ...] = (
    ("max_sitemaps", positive, "N", "sitemaps in all, robots.txt not counted (100,000)"),
    ("max_sitemaps_per_site", positive, "N", "sitemaps per source (20,000)"),
    ("max_entries", positive, "N", "URLs in all (100,000,000)"),
    ("max_total_bytes", size, "SIZE", "body bytes in all: 500M, 20G (16G)"),
)


# The per-document limits given as a count or a size, as the budgets are.
_DOCUMENT_LIMITS: tuple[tuple[str, Callable[[str], int], str, str], ...] = (
    ("max_bytes", size, "SIZE", "decompressed bytes: 500k, 100M; a larger one is cut (50M)"),
    ("max_urls", positive, "N", "entries; more are reported, and read (50,000)"),
)


def add_reading_options(command: argparse.ArgumentParser) -> None:
    """Scope, the children followed, limits, pace, budgets, the network and the console:
    every command that reads."""
    command.add_argument(
        "--scope",
        choices=[p.value for p in sr.ScopePolicy],
        default=sr.ScopePolicy.STRICT.value,
        help="strict: the sitemaps.org location rule plus robots.txt vouching (default); "
        "host: same host only; off: keep everything",
    )
    command.add_argument(
        "--robots",
        choices=[p.value for p in sr.RobotsPolicy],
        help="obey: leave out the page URLs the site's robots.txt disallows for the user "
        "agent (counted as 'robots'), and do not fetch a sitemap it disallows; report: keep "
        "and fetch them, and say what it disallows (check's default); ignore: keep them "
        "(the default of the other commands). With obey or report, a sitemap given directly "
        "has its site's robots.txt read too",
    )
    command.add_argument("--max-depth", type=natural, metavar="N", help="nested index depth (10)")
    command.add_argument(
        "--concurrency", type=positive, metavar="N", help="requests in flight, all hosts (16)"
    )
    command.add_argument(
        "--per-host", type=positive, metavar="N", help="requests in flight to one host (4)"
    )
    command.add_argument(
        "--delay",
        type=pause,
        metavar="DURATION",
        help=f"the least time between the starts of two requests to one host: {PACE_DURATIONS} (0)",
    )
    command.add_argument(
        "--obey-crawl-delay",
        action="store_true",
        help="wait at least robots.txt's Crawl-delay (of the group naming the user agent, else "
        "*) between the requests to its host",
    )
    command.add_argument(
        "--max-delay",
        type=pause,
        metavar="DURATION",
        help="the cap of a Crawl-delay, and of a 429 or 503's Retry-After that slows its host "
        "for the rest of the run (30s)",
    )
    command.add_argument(
        "--timeout",
        type=positive_duration,
        metavar="DURATION",
        help=f"per request, body included: {REQUEST_DURATIONS} (300)",
    )
    document = command.add_argument_group(
        "limits of one document", "the protocol's; a document past one is reported"
    )
    for name, kind, metavar, text in _DOCUMENT_LIMITS:
        document.add_argument(f"--{name.replace('_', '-')}", type=kind, metavar=metavar, help=text)
    document.add_argument(
        "--cut-at-max-urls",
        action="store_true",
        help="stop reading a document at --max-urls entries (by default all are read)",
    )
    budgets = command.add_argument_group(
        "budgets of the run", "reaching one stops new work; what was read is kept"
    )
    budgets.add_argument(
        "--deadline",
        type=deadline,
        default=KEEP,
        metavar="DURATION",
        help=f"the whole run: {RUN_DURATIONS}; none for no bound (1h)",
    )
    for name, kind, metavar, text in _BUDGETS:
        budgets.add_argument(f"--{name.replace('_', '-')}", type=kind, metavar=metavar, help=text)
    command.add_argument(
        "--follow",
        action="append",
        type=pattern,
        metavar="REGEX",
        help="fetch a sitemap an index names only if its URL matches REGEX (Python re.search; "
        "repeatable: any may match); the sources, and the sitemaps a robots.txt names, are "
        "always read",
    )
    command.add_argument(
        "--skip",
        action="append",
        type=pattern,
        metavar="REGEX",
        help="do not fetch a sitemap an index names whose URL matches REGEX (repeatable; never "
        "a source); it is reported skipped, and with --state its URLs are kept, not taken as "
        "removed",
    )
    command.add_argument(
        "--allow-private",
        action="store_true",
        help="let documents send the reader to loopback, private and link-local addresses "
        "(the SSRF guard; the sources' own hosts are always allowed)",
    )
    command.add_argument("--user-agent", metavar="UA", help="the User-Agent header")
    command.add_argument(
        "--header",
        type=header,
        action="append",
        metavar="'NAME: VALUE'",
        help="send this header with every request (robots.txt, probes, sitemaps, redirect "
        "hops); repeatable. Authorization, Cookie and Proxy-Authorization are not sent on "
        "after a redirect to another host, and are masked in messages",
    )
    command.add_argument(
        "--proxy",
        type=proxy,
        metavar="URL",
        help="send every request through this http proxy, for http and https targets "
        "(http://[user:password@]host:port); the SSRF guard still judges the targets",
    )
    command.add_argument(
        "--trust-env",
        action="store_true",
        help="use HTTP_PROXY, HTTPS_PROXY, NO_PROXY and .netrc as curl does (off: a run does "
        "not change with the environment); --proxy wins over them",
    )
    command.add_argument(
        "--no-probe",
        action="store_true",
        help="do not try well-known sitemap paths when robots.txt names none",
    )
    command.add_argument(
        "--resolve-relative",
        action="store_true",
        help="resolve relative <loc> values against the sitemap URL (a local file's: "
        "--base-url) instead of dropping them",
    )
    command.add_argument(
        "--workers",
        type=_workers,
        metavar="N",
        help="processes that parse the sitemaps an index names: a number, 'auto' (one a core "
        "when there are several) or 0 for none, all parsed in the main process (0)",
    )
    command.add_argument(
        "--parse-threads",
        type=_parse_threads,
        metavar="N",
        help="threads that parse sitemaps in the main process: a number, 0 for none, or "
        "'auto' (one a core where dump writes its lines from the compiled core's records; "
        "none elsewhere: records built for Python hold the GIL, so threads gain little) "
        "(auto)",
    )
    command.add_argument("-q", "--quiet", action="store_true", help="no problems, no summary")
    command.add_argument("--no-progress", action="store_true", help="no progress display")


def _workers(text: str) -> int:
    if _is_auto(text):
        cores = available_cores()
        return cores if cores > 1 else 0
    return natural(text)


def _parse_threads(text: str) -> int | None:
    return None if _is_auto(text) else natural(text)


def _is_auto(text: str) -> bool:
    return text.strip().lower() == "auto"


# -- what the options give -----------------------------------------------------------------------


def config(
    args: argparse.Namespace, *, changes: bool = False, peek: bool = False
) -> sr.ReaderConfig:
    """The ReaderConfig of the reading and state options; ``changes``: the change feed,
    ``peek``: looked at, not taken (Incremental.peek)."""
    base = sr.DEFAULT_CONFIG
    limits = _given(
        base.limits,
        max_depth=args.max_depth,
        max_concurrency=args.concurrency,
        per_host=args.per_host,
        **{name: getattr(args, name) for name, *_ in _BUDGETS + _DOCUMENT_LIMITS},
    )
    if args.cut_at_max_urls:
        limits = dataclasses.replace(limits, cut_at_max_urls=True)
    timeouts = _given(base.timeouts, request=args.timeout)
    pace = _given(base.pace, delay=args.delay, max_delay=args.max_delay)
    if args.deadline is not KEEP:
        timeouts = dataclasses.replace(timeouts, deadline=args.deadline)
    settings: dict[str, Any] = {
        "limits": limits,
        "timeouts": timeouts,
        "pace": dataclasses.replace(pace, obey_crawl_delay=args.obey_crawl_delay),
        "scope": sr.ScopePolicy(args.scope),
        # --robots left out: check sets its own default (report), the others keep all.
        "robots": sr.RobotsPolicy(args.robots or getattr(args, "robots_default", "ignore")),
        "resolve_relative": args.resolve_relative,
        "allow_private": args.allow_private,
        "headers": tuple(args.header or ()),
        "proxy": args.proxy,
        "trust_env": args.trust_env,
        "parse_threads": args.parse_threads,  # None (left out, or auto): the config decides
    }
    if args.user_agent is not None:
        settings["user_agent"] = args.user_agent
    if args.header:
        settings["headers"] = tuple(args.header)
    if args.workers is not None:
        settings["workers"] = args.workers
    if args.no_probe:
        settings["well_known_paths"] = ()
    if args.base_url is not None:
        settings["base_url"] = args.base_url
    if args.follow or args.skip:
        settings["follow"] = sr.FollowRules(
            follow=tuple(args.follow or ()), skip=tuple(args.skip or ())
        )
    incremental = _given(
        base.incremental,
        max_age=args.max_age,
        trust_lastmod=args.trust_lastmod,
        shrink_guard=args.shrink_guard,
        wait=args.wait,
        recheck=args.recheck,
    )
    settings["incremental"] = dataclasses.replace(
        incremental, read_all=args.all, changes=changes, peek=peek
    )
    tuned = {args.trust_lastmod, args.shrink_guard, args.wait, args.recheck} != {None}
    if args.state is None and (args.all or args.max_age is not None or changes or tuned):
        raise UsageError(
            "--all, --max-age, --changes, --trust-lastmod, --shrink-guard, --recheck and --wait "
            "need --state"
        )
    return dataclasses.replace(base, **settings)


def rules_named(args: argparse.Namespace) -> str:
    """The options that choose children, as the summary names them ('' when neither)."""
    return " and ".join(f"--{name}" for name in ("follow", "skip") if getattr(args, name))


if TYPE_CHECKING:
    from _typeshed import DataclassInstance

_R = TypeVar("_R", bound="DataclassInstance")


def _given(record: _R, **values: Any) -> _R:
    """``record`` with the values an option gave (None: the option was not given)."""
    return dataclasses.replace(record, **{k: v for k, v in values.items() if v is not None})


def open_state(args: argparse.Namespace) -> str | None:
    """The state file's path, its directory made; None without --state."""
    if args.state is None:
        return None
    if args.state is True:
        path = sr.default_state_path()
    else:
        path = os.path.abspath(os.path.expanduser(args.state))
    path = state_file(path)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
    except OSError as exc:
        raise sr.StateError(
            f"cannot make the directory of the state file {path}: {exc.strerror or exc}",
            path=path,
        ) from exc
    return path


def state_file(path: str) -> str:
    """``path``, or for a directory the state.sqlite inside it (--state and state show)."""
    if os.path.isdir(path):
        return os.path.join(path, os.path.basename(sr.default_state_path()))
    return path
