"""``sitemap-reader tree``: the sitemap hierarchy, one line per document with its counts,
lastmod, status and problems (and, for a child not followed, the rule that skipped it),
drawn once the walk is done."""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Sequence
from typing import IO

import sitemap_reader as sr

from .._base._words import plural
from . import _options, _output
from ._console import READ, Console, Tally, reasons

# Reports of a document read under another report (or not at all): no children of theirs.
_NOT_READ_HERE = (sr.Status.DUPLICATE, sr.Status.CYCLE, sr.Status.SKIPPED)


def register(commands: _options.Commands) -> None:
    tree = _options.add_command(
        commands,
        "tree",
        run,
        help="print the sitemap hierarchy with counts, lastmod, status and problems",
        description="Read the sources as dump does, then print their sitemap hierarchy: "
        "one line per document (robots.txt, index, sitemap) with its format, URL or child "
        "counts, URLs dropped, lastmod and status, and its problems below it; with "
        "--changes, how many of its URLs are new, modified or removed (the changes stay for "
        "the next dump --changes).",
        usage="%(prog)s [OPTIONS] [SOURCE ...]",
    )
    _options.add_sources(tree)
    _options.add_reading_options(tree)
    _options.add_state_options(tree)


def run(args: argparse.Namespace) -> int:
    from ._run import run_walk  # the walk's machinery: when a command runs, not for --help

    args.sources = _options.sources(args)
    # A look at the feed: what it counts stays pending for the next dump --changes.
    config = _options.config(args, changes=args.changes, peek=True)
    console = Console(
        args.quiet, args.no_progress, feed=args.changes, rules=_options.rules_named(args)
    )
    reports: list[sr.SitemapVisited] = []
    # --changes: per sitemap (as the feed names it), how many URLs changed, by kind.
    changed: dict[str, Counter[str]] = {}
    problems: list[sr.Problem] = []

    def handle(batch: list[sr.Event], tally: Tally) -> None:
        for event in batch:
            if type(event) is sr.SitemapVisited:
                reports.append(event)
                tally.visited(event)
            elif type(event) is sr.EntryChange:
                changed.setdefault(event.sitemap, Counter())[event.change.value] += 1
                tally.written += 1
            elif type(event) is sr.Problem:
                problems.append(event)  # drawn in the tree, counted in the summary
                console.problems += 1

    tally = run_walk(args, config, console, handle)
    with _output.stdout_writing():
        print_tree(reports, sys.stdout, problems, changed if args.changes else None)
        sys.stdout.flush()  # the tree before the summary, when both go to one terminal
    if tally.progress is not None and not args.changes:
        tally.written = tally.progress.entries  # the URLs the tree counted (none written)
    console.summary(tally)
    return tally.exit_status


def print_tree(
    reports: list[sr.SitemapVisited],
    out: IO[str],
    problems: Sequence[sr.Problem] = (),
    changed: dict[str, Counter[str]] | None = None,
) -> None:
    """Draw ``reports`` as a tree: roots in the order given, each document's children in
    the order it names them (``SitemapVisited.order``), whatever order they finished in.
    ``problems`` no document's report holds (a site with no sitemap) come last; with
    ``changed`` (--changes), each sitemap's change counts."""
    children: dict[str, list[sr.SitemapVisited]] = {}
    keys = set()
    for report in reports:
        keys.add(report.url)
        if report.final_url:
            keys.add(report.final_url)
    roots = []
    for report in sorted(reports, key=lambda r: r.order):  # stable: ties keep arrival order
        if report.source and report.source in keys:
            children.setdefault(report.source, []).append(report)
        else:
            roots.append(report)

    # A document's children hang under the one report that read it, drawn once: the reports
    # of a duplicate or a cycle name a document read elsewhere, and drawing its children
    # there again would follow the site's cycles without end. A stack, not recursion: the
    # depth of the drawing is the site's, not Python's.
    expanded: set[str] = set()
    stack = [(root, "", True, True) for root in reversed(roots)]
    while stack:
        report, prefix, last, top = stack.pop()
        branch = "" if top else ("└── " if last else "├── ")
        line = _describe(report)
        if changed is not None and report.format not in (None, sr.Format.ROBOTS):
            counts = changed.get(report.final_url or report.url) or Counter()
            line += "  " + ", ".join(f"{counts[k]:,} {k}" for k in ("new", "modified", "removed"))
        out.write(f"{prefix}{branch}{line}\n")
        inner = prefix + ("" if top else ("    " if last else "│   "))
        if report.not_followed is not None:
            out.write(f"{inner}  - not followed: {report.not_followed}\n")
        for problem in report.problems:
            out.write(f"{inner}  ! {_problem(problem, report)}\n")
        if report.lastmods is not None and report.lastmods.reasons:
            out.write(f"{inner}  ~ lastmods {report.lastmods}\n")
        if report.status in _NOT_READ_HERE:
            continue
        names = {report.url, report.final_url or report.url}
        if names & expanded:
            continue
        expanded |= names
        kids = children.get(report.final_url or report.url, [])
        if report.final_url and report.final_url != report.url:
            kids = sorted(kids + children.get(report.url, []), key=lambda r: r.order)
        last_kid = len(kids) - 1
        stack.extend((kids[i], inner, i == last_kid, False) for i in reversed(range(len(kids))))

    drawn = {problem for report in reports for problem in report.problems}
    for problem in problems:
        if problem not in drawn:
            out.write(f"! {_problem(problem, None)}\n")


def _problem(problem: sr.Problem, report: sr.SitemapVisited | None) -> str:
    """``kind: message``, with the URL when it is not the document's own (an index's child
    not read, a redirect's target)."""
    if report is not None and problem.url in (report.url, report.final_url):
        return f"{problem.kind}: {problem.message}"
    return f"{problem.kind}: {problem.url}: {problem.message}"


def _describe(report: sr.SitemapVisited) -> str:
    parts = [report.url]
    if report.final_url and report.final_url != report.url:
        parts.append(f"-> {report.final_url}")
    if report.format is not None:
        parts.append(str(report.format))
    if report.format in (sr.Format.SITEMAPINDEX, sr.Format.ROBOTS):
        parts.append(plural(report.children, "sitemap"))
    elif report.status in READ:
        parts.append(plural(report.entries, "URL"))
    dropped = sum(n for _, n in report.dropped)
    if dropped:
        parts.append(f"{dropped:,} dropped ({reasons(report.dropped)})")
    if report.lastmod is not None:
        parts.append(f"lastmod {report.lastmod.date().isoformat()}")
    parts.append(f"[{report.status}]")
    if report.lastmods is not None:
        parts.append(f"lastmods {report.lastmods.verdict}")
    return "  ".join(parts)
