"""``sitemap-reader check``: what is wrong with a site's sitemaps, as text, JSON lines and an
HTML report page; the exit status says whether a finding reached ``--fail-on``."""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from datetime import datetime, timezone
from typing import TYPE_CHECKING

import sitemap_reader as sr

from .._base._replacement import Replacement
from . import _options, _values
from ._console import Console

if TYPE_CHECKING:
    from ._console import Tally


def register(commands: _options.Commands) -> None:
    check = _options.add_command(
        commands,
        "check",
        run,
        help="report what is wrong with the sources' sitemaps (--codes lists the codes)",
        description="Read the sources as dump does and report each finding with its code, "
        "severity, document and line. --codes lists the codes, --explain CODE tells one.",
        usage="%(prog)s [OPTIONS] [SOURCE ...]\n       %(prog)s --explain CODE | --codes "
        "[--format json]",
        epilog="exit status: 0 when no finding reaches --fail-on; 1 when one does; 2 for a "
        "usage error (an unusable state file included); 130 when interrupted (Ctrl-C), 143 on "
        "SIGTERM.",
    )
    _options.add_sources(check)
    check.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="text (default): findings grouped by document, then a summary; json: one "
        "object a finding, then one with the summary",
    )
    codes = check.add_mutually_exclusive_group()
    codes.add_argument(
        "--explain",
        metavar="CODE",
        help="tell what CODE (P301, or its name too-many-urls) means, how to fix it and an "
        "example; no source is read",
    )
    codes.add_argument(
        "--codes",
        action="store_true",
        help="list every code with its severity, name and summary (--format json: one "
        "object a code); no source is read",
    )
    check.add_argument(
        "--report",
        metavar="FILE.html",
        help="also write a self-contained HTML page: the sitemap tree, the findings and charts",
    )
    check.add_argument(
        "--fail-on",
        choices=("error", "warning", "never"),
        default="error",
        help="exit 1 when a finding of this severity or worse is found (default: error)",
    )
    check.add_argument(
        "--slow",
        type=_values.positive_duration,
        metavar="DURATION",
        help="report responses slower than this (5)",
    )
    check.add_argument(
        "--sample",
        type=_values.natural,
        default=0,
        metavar="N",
        help="also fetch a uniform random sample of at most N listed pages (politely, as the "
        "walk fetches) and report those that redirect, answer 4xx or 5xx, are marked noindex "
        "or name another URL as canonical, with the share of all listed URLs each stands for "
        "(default: 0, no page is fetched)",
    )
    check.add_argument(
        "--seed",
        type=int,
        default=0,
        metavar="SEED",
        help="the seed of --sample's draw: the same seed and sitemaps draw the same pages "
        "(default: 0)",
    )
    check.add_argument(
        "--state",
        nargs="?",
        const=True,
        metavar="FILE",
        help="use the state file FILE (as dump --state does) for its lastmod trust verdicts "
        "(V406); everything is read again",
    )
    _options.add_reading_options(check)
    check.set_defaults(
        all=False,
        max_age=None,
        trust_lastmod=None,
        shrink_guard=None,
        wait=None,
        recheck=None,
        # What robots.txt disallows is a finding (R108 to R110): the library's check reads
        # the rules the same way (ReaderConfig.robots None: _base._config.CHECK_ROBOTS).
        robots_default="report",
    )


def run(args: argparse.Namespace) -> int:
    # The checks, their outputs and the report page: for this command alone, when it runs.
    from .._check._report import render_report
    from .._check._text import summary_of, write_json_line, write_text
    from ._run import run_walk

    if args.explain is not None or args.codes:
        return _registry(args)
    args.sources = _options.sources(args)
    config = _options.config(args)
    if args.state is not None:  # a check reads everything: the state gives verdicts only
        config = dataclasses.replace(
            config, incremental=dataclasses.replace(config.incremental, read_all=True)
        )
    report_path = _report_path(args.report)
    console = Console(args.quiet, args.no_progress)  # the progress line; findings say the rest
    options = sr.CheckOptions(sample=args.sample, seed=args.seed)
    if args.slow is not None:
        options = dataclasses.replace(options, slow=args.slow)
    checker = sr.Checker(options)
    findings: list[sr.Finding] = []
    json_out = args.format == "json"
    started = datetime.now(timezone.utc)

    def emit(found: list[sr.Finding]) -> None:
        findings.extend(found)
        if json_out:
            for item in found:
                write_json_line(item, sys.stdout)
            sys.stdout.flush()

    def handle(batch: list[sr.Event], tally: Tally) -> None:
        emit(checker.feed(batch))

    async def sample(reader: sr.SitemapReader) -> None:
        emit(checker.close())  # before the pages: the sitemaps' findings are complete
        emit(await reader.check_sample(checker))

    run_walk(args, config, console, handle, after=sample)
    if json_out:
        write_json_line({"summary": summary_of(findings)}, sys.stdout)
    else:
        write_text(findings, sys.stdout)
    sys.stdout.flush()
    if report_path is not None:
        page = render_report(checker, findings, args.sources, started)
        _write_atomically(report_path, page)
        if not args.quiet:
            print(f"sitemap-reader: wrote the report page {report_path}", file=sys.stderr)
    return _exit_status(findings, args.fail_on)


def _registry(args: argparse.Namespace) -> int:
    """--explain CODE or --codes: the registry told, no source read."""
    from ._explain import lookup, write_codes, write_explained

    if args.sources or args.sites is not None:
        raise _options.UsageError("--explain and --codes read no SOURCE")
    json_out = args.format == "json"
    if args.codes:
        write_codes(sys.stdout, json_out=json_out)
    else:
        write_explained(lookup(args.explain), sys.stdout, json_out=json_out)
    return 0


def _exit_status(findings: list[sr.Finding], fail_on: str) -> int:
    if fail_on == "never":
        return 0
    rank = sr.Severity(fail_on).rank  # "error" or "warning": the choices of --fail-on
    return 1 if any(item.severity.rank >= rank for item in findings) else 0


def _report_path(path: str | None) -> str | None:
    """The report's path, checked before the run: its directory must exist."""
    if path is None:
        return None
    path = os.path.abspath(os.path.expanduser(path))
    if not os.path.isdir(os.path.dirname(path)):
        raise _options.UsageError(f"--report: the directory of {path} does not exist")
    return path


def _write_atomically(path: str, text: str) -> None:
    """The whole page or none, as ``dump -o`` writes its file (its permissions kept)."""
    file = Replacement(path, suffix=".html")
    try:
        with open(file.fd, "w", encoding="utf-8") as out:
            out.write(text)
        file.commit()
    finally:
        file.discard()
