"""Bar charts as inline SVG strings, for the report page (no library, no script).

Each chart scales to its container (a ``viewBox`` and ``width="100%"``), so it reads on a
phone's width. Every bar is a ``<rect class="bar">`` carrying its value in ``data-value``,
and its length is proportional to it: a test reads the page back and checks both.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

WIDTH = 400  # the viewBox's width; the page scales it
_COLOURS = {"error": "#c62828", "warning": "#ef6c00", "notice": "#1565c0", "": "#2e7d32"}


def _svg(height: float, title: str, body: list[str]) -> str:
    return (
        f'<svg class="chart" viewBox="0 0 {WIDTH} {height:.0f}" width="100%" role="img" '
        f'aria-label="{escape(title)}" xmlns="http://www.w3.org/2000/svg">'
        f"<title>{escape(title)}</title>{''.join(body)}</svg>"
    )


def histogram(title: str, bins: Sequence[tuple[str, int]], *, height: int = 220) -> str:
    """Vertical bars, one per bin (label, count), labels under some of them."""
    if not bins:
        return _empty(title)
    top = max(count for _, count in bins) or 1
    left, bottom, plot = 48, 30, height - 40
    step = (WIDTH - left - 8) / len(bins)
    room = max(len(name) for name, _ in bins) * 7 + 8  # a label's width, about
    every = max(1, math.ceil(room / step))  # labels that do not overlap
    body = [_axis(left, height - bottom, top, plot)]
    for i, (label, count) in enumerate(bins):
        h = plot * count / top
        x = left + i * step
        body.append(
            f'<rect class="bar" data-label="{escape(label)}" data-value="{count}" '
            f'x="{x + step * 0.1:.2f}" y="{height - bottom - h:.2f}" width="{step * 0.8:.2f}" '
            f'height="{h:.2f}" fill="{_COLOURS[""]}"><title>{escape(label)}: {count:,}'
            "</title></rect>"
        )
        if i % every == 0:
            body.append(
                f'<text x="{x + step / 2:.1f}" y="{height - bottom + 16}" font-size="12" '
                f'text-anchor="middle">{escape(label)}</text>'
            )
    return _svg(height, title, body)


def hbars(
    title: str,
    rows: Sequence[tuple[str, Sequence[tuple[str, int]]]],
) -> str:
    """Horizontal bars, one row per (label, parts), each part (severity or "", count) stacked."""
    if not rows:
        return _empty(title)
    top = max(sum(n for _, n in parts) for _, parts in rows) or 1
    row_h, label_h = 30, 13
    height = len(rows) * row_h + 8
    plot = WIDTH - 60
    body = []
    for i, (label, parts) in enumerate(rows):
        y = 4 + i * row_h
        body.append(
            f'<text x="2" y="{y + 10}" font-size="12" class="label">{escape(_cut(label))}</text>'
        )
        x = 2.0
        for kind, count in parts:
            if not count:
                continue
            w = plot * count / top
            body.append(
                f'<rect class="bar" data-label="{escape(label)}" data-kind="{kind}" '
                f'data-value="{count}" x="{x:.2f}" y="{y + label_h}" width="{w:.2f}" '
                f'height="12" fill="{_COLOURS[kind]}"><title>{escape(label)}: {count:,} '
                f"{escape(kind)}</title></rect>"
            )
            x += w
        total = sum(n for _, n in parts)
        body.append(f'<text x="{x + 4:.1f}" y="{y + label_h + 10}" font-size="12">{total:,}</text>')
    return _svg(height, title, body)


def _axis(left: int, base: int, top: int, plot: int) -> str:
    return (
        f'<line x1="{left}" y1="{base}" x2="{WIDTH - 4}" y2="{base}" stroke="#999"/>'
        f'<text x="{left - 4}" y="{base - plot + 4}" font-size="12" text-anchor="end">'
        f"{top:,}</text>"
        f'<text x="{left - 4}" y="{base}" font-size="12" text-anchor="end">0</text>'
    )


def _empty(title: str) -> str:
    return _svg(40, title, ['<text x="8" y="24" font-size="13" fill="#666">nothing to show</text>'])


def _cut(label: str, limit: int = 60) -> str:
    return label if len(label) <= limit else "…" + label[-(limit - 1) :]
