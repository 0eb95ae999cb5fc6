"""``sitemap-reader state show``: what a state file (``--state``) holds, as text or jsonl."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

import sitemap_reader as sr

from .._base._words import plural
from . import _options
from ._console import human_size


def register(commands: _options.Commands) -> None:
    state = _options.add_command(
        commands,
        "state",
        None,  # an action is needed: alone, its help is printed
        help="inspect a state file (--state)",
        description="Inspect a state file, the SQLite file --state keeps between runs.",
        epilog=None,
    )
    actions = state.add_subparsers(title="actions", metavar="ACTION")
    show = _options.add_command(
        actions,
        "show",
        run,
        help="list what a state file holds",
        description="List the documents a state file holds, with their counts, lastmod, "
        "validators and when they were read.",
        epilog="exit status: 0 when the file was listed, and when stdout is closed early "
        "(| head); 1 when there is no state file there; 2 for a usage error or a file that "
        "is no state file; 130 when interrupted (Ctrl-C).",
    )
    show.add_argument(
        "file",
        nargs="?",
        metavar="FILE",
        help=f"the state file (default: {_options.DEFAULT_STATE}; a directory: its state.sqlite)",
    )
    show.add_argument(
        "--format",
        choices=("text", "jsonl"),
        default="text",
        help="text (default): a summary line, then one line per document; jsonl: one JSON "
        "object per document",
    )


def run(args: argparse.Namespace) -> int:
    """``state show``: a summary line, then one line per document (or one JSON object)."""
    path = _options.state_file(args.file or sr.default_state_path())
    if not os.path.isfile(path):
        print(f"sitemap-reader: no state file at {path}", file=sys.stderr)
        return 1
    with sr.SqliteStateStore(path) as store:
        out = sys.stdout
        verdicts = dict(store.verdicts("sitemap"))
        holds = {(h.scope, h.url): h for h in store.holds()}
        if args.format == "jsonl":
            for state in store.states():
                record = _state_dict(state)
                trust = verdicts.get(state.url)
                record["lastmods"] = None if trust is None else _trust_dict(trust)
                held = holds.get(("sitemap", state.url))
                record["held"] = None if held is None else {"before": held.before, "now": held.now}
                out.write(json.dumps(record, ensure_ascii=False) + "\n")
            return 0
        summary = store.summary()
        states = list(store.states())
        out.write(
            f"{path}: schema {summary.schema}, {plural(summary.documents, 'document')}"
            f" ({plural(sum(s.entries for s in states), 'URL')} at their last reads,"
            f" {human_size(sum(s.bytes for s in states))})"
        )
        if summary.tracked_urls or summary.pending:
            out.write(
                f"; change feed: {plural(summary.tracked_urls, 'URL')} tracked,"
                f" {plural(summary.pending, 'change')} not yet delivered"
            )
        if summary.held:
            out.write(f"; {plural(summary.held, 'removal')} held back by a source's shrink guard")
        if summary.forgotten:
            out.write(f"; {plural(summary.forgotten, 'document')} forgotten (left their index)")
        out.write("\n")
        for held in holds.values():
            out.write(
                f"held back: {held.url} ({held.scope}) lists {held.now:,} URLs, {held.before:,}"
                f" at its last complete read, since {held.since:%Y-%m-%d %H:%M:%S}Z: its "
                "removals wait for a later run to see the same\n"
            )
        for source, trust in store.verdicts("source"):
            out.write(f"source {source}: lastmods {trust}\n")
        for state in states:
            line = _describe_state(state)
            trust = verdicts.get(state.url)
            if trust is not None:
                line += f"  lastmods {trust.verdict}"
            out.write(line + "\n")
    return 0


def _trust_dict(trust: sr.LastmodTrust) -> dict[str, Any]:
    return {
        "verdict": trust.verdict.value,
        "reasons": list(trust.reasons),
        "counts": dict(trust.counts),
    }


def _describe_state(state: sr.SitemapState) -> str:
    parts = [state.url]
    if state.final_url != state.url:
        parts.append(f"-> {state.final_url}")
    parts.append(str(state.format) if state.format is not None else "?")
    if state.format in (sr.Format.SITEMAPINDEX, sr.Format.ROBOTS):
        parts.append(plural(len(state.children), "sitemap"))
    else:
        parts.append(plural(state.entries, "URL"))
    parts.append(plural(state.bytes, "byte"))
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
