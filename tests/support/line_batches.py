"""What ``SitemapReader.line_batches`` gives for a run, as a library user reads it, in this
process or (``python -m tests.support.line_batches``) in another one, such as one running
the pure core (``SITEMAP_READER_PURE=1``): tests/api/test_line_batches.py compares them."""

from __future__ import annotations

import asyncio
import base64
import json
import sys
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import cast

import sitemap_reader as sr
from sitemap_reader._core._xml._core_choice import COMPILED


@dataclass(frozen=True)
class Transcript:
    """A run's lines (the plan's header first), their counts, the reports and problems."""

    data: bytes
    written: int
    in_scope: int
    progress_entries: int
    reports: list[tuple[str, str, int]]  # (url, status, entries) in the order they came
    problems: list[str]  # their kinds
    compiled: bool  # which core read it


def plan_of(fmt: str, since: str | None, strict: bool) -> sr.LinePlan:
    when = None if since is None else sr.Since(datetime.fromisoformat(since), not strict)
    return sr.LinePlan(fmt, when)


async def transcript(
    source: str, plan: sr.LinePlan, max_entries: int | None = None, state: str | None = None
) -> Transcript:
    limits = sr.Limits(max_concurrency=1)  # (one document at a time: the same order)
    if max_entries is not None:
        limits = sr.Limits(max_concurrency=1, max_entries=max_entries)
    config = sr.ReaderConfig(limits=limits, allow_private=True)
    data = bytearray(plan.header)
    written = in_scope = 0
    reports: list[tuple[str, str, int]] = []
    problems: list[str] = []
    async with sr.SitemapReader(config, state=state) as reader:
        async for batch in reader.line_batches(source, plan=plan):
            assert isinstance(cast(object, batch), sr.Batch)
            for event in batch:
                if type(event) is sr.Lines:
                    data += event.data
                    written += event.written
                    in_scope += event.in_scope
                elif type(event) is sr.SitemapVisited:
                    reports.append((event.url, event.status.value, event.entries))
                elif type(event) is sr.Problem:
                    problems.append(event.kind.value)
                else:  # no Entry: every entry comes as lines
                    raise AssertionError(f"line_batches gave {event!r}")
        progress = reader.progress.entries
    return Transcript(bytes(data), written, in_scope, progress, reports, problems, COMPILED)


def main() -> None:
    """``python -m tests.support.line_batches SOURCE FORMAT SINCE|- STRICT MAX|-``: the
    transcript as JSON on stdout (the lines in base64)."""
    source, fmt, since, strict, most = sys.argv[1:]
    plan = plan_of(fmt, None if since == "-" else since, strict == "1")
    got = asyncio.run(transcript(source, plan, None if most == "-" else int(most)))
    out = asdict(got)
    out["data"] = base64.b64encode(got.data).decode("ascii")
    json.dump(out, sys.stdout)


def from_json(text: str) -> Transcript:
    read = json.loads(text)
    read["data"] = base64.b64decode(read["data"])
    read["reports"] = [tuple(report) for report in read["reports"]]
    return Transcript(**read)


if __name__ == "__main__":
    main()
