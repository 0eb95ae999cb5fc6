"""``sitemap-reader tree``: the sitemap hierarchy, one line per document with its counts,
lastmod, status and problems, drawn once the walk is done."""

from __future__ import annotations

import argparse
import sys
from typing import IO

import sitemap_reader as sr

from . import _options, _output
from ._console import READ, Console, Tally
from ._run import run_walk


def register(commands: _options.Commands) -> None:
    tree = commands.add_parser(
        "tree",
        help="print the sitemap hierarchy with counts, lastmod, status and problems",
    )
    tree.add_argument("sources", nargs="+", metavar="SOURCE")
    _options.add_reading_options(tree)
    _options.add_state_options(tree)
    tree.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    config = _options.config(args)
    console = Console(args.quiet, args.no_progress)
    reports: list[sr.SitemapVisited] = []

    def handle(batch: list[sr.Event], tally: Tally) -> None:
        for event in batch:
            if type(event) is sr.SitemapVisited:
                reports.append(event)
                tally.visited(event)

    tally = run_walk(args, config, console, handle)
    with _output.stdout_writing():
        print_tree(reports, sys.stdout)
        sys.stdout.flush()  # the tree before the summary, when both go to one terminal
    if tally.progress is not None:
        tally.written = tally.progress.entries  # the URLs the tree counted (none written)
    console.summary(tally)
    return tally.exit_status


def print_tree(reports: list[sr.SitemapVisited], out: IO[str]) -> None:
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
    elif report.status in READ:
        parts.append(f"{report.entries:,} URLs")
    dropped = sum(n for _, n in report.dropped)
    if dropped:
        parts.append(f"{dropped:,} dropped")
    if report.lastmod is not None:
        parts.append(f"lastmod {report.lastmod.date().isoformat()}")
    parts.append(f"[{report.status}]")
    return "  ".join(parts)
