"""Findings written out: text for a terminal (grouped by document) and JSON lines.

The JSON form is one object a finding (``code``, ``name``, ``severity``, ``url``, ``line``,
``count``, ``message``) and a last object ``{"summary": ...}`` with the counts by severity
and by code; the text form lists each document's findings under its URL, then the summary.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from typing import IO, Any

from .._base._words import plural
from ._codes import CODES, Finding, Severity


def finding_to_dict(item: Finding) -> dict[str, Any]:
    """The JSON object of a finding."""
    return {
        "code": item.code,
        "name": item.name,
        "severity": item.severity.value,
        "url": item.url,
        "line": item.line,
        "count": item.count,
        "message": item.message,
    }


def summary_of(findings: Iterable[Finding]) -> dict[str, Any]:
    """Counts by severity (each severity, zeros included) and by code."""
    by_severity = dict.fromkeys((s.value for s in Severity), 0)
    by_code: Counter[str] = Counter()
    for item in findings:
        by_severity[item.severity.value] += 1
        by_code[item.code] += 1
    return {
        "findings": sum(by_severity.values()),
        "by_severity": by_severity,
        "by_code": {code: by_code[code] for code in sorted(by_code)},
    }


def write_json_line(item: Finding | dict[str, Any], out: IO[str]) -> None:
    data = finding_to_dict(item) if isinstance(item, Finding) else item
    out.write(json.dumps(data, ensure_ascii=False) + "\n")


def by_document(findings: Iterable[Finding]) -> dict[str, list[Finding]]:
    """The findings of each document (by URL, in the order first found), errors first, then
    by line and code."""
    documents: dict[str, list[Finding]] = {}
    for item in findings:
        documents.setdefault(item.url, []).append(item)
    for items in documents.values():
        items.sort(key=lambda f: (-f.severity.rank, f.line or 0, f.code))
    return documents


def write_text(findings: list[Finding], out: IO[str]) -> None:
    """Each document's findings under its URL (errors first), then the summary."""
    for url, items in by_document(findings).items():
        out.write(f"{url or '(the run)'}\n")
        for item in items:
            line = f"line {item.line}: " if item.line is not None else ""
            out.write(f"  {item.severity.value:<7} {item.code} {item.name}: {line}{item.message}\n")
        out.write("\n")
    write_summary(summary_of(findings), out)


def write_summary(summary: dict[str, Any], out: IO[str]) -> None:
    severity = summary["by_severity"]
    out.write(
        f"{plural(summary['findings'], 'finding')}: {plural(severity['error'], 'error')}, "
        f"{plural(severity['warning'], 'warning')}, {plural(severity['notice'], 'notice')}\n"
    )
    for code, count in summary["by_code"].items():
        entry = CODES[code]
        out.write(f"  {code} {entry.name:<26} {entry.severity.value:<7} {count:,}\n")
