"""Bar charts as inline SVG strings, for the report page (no library, no script).

Each chart scales to its container (a ``viewBox`` and ``width="100%"``), so it reads on a
phone's width. Every bar is a ``<rect class="bar">`` carrying its value in ``data-value``.
A bar's length is proportional to its value, except in a histogram whose small bins would
vanish beside its largest one: that one is drawn on a log scale (``data-scale="log"`` on the
``<svg>``, powers of ten marked on its axis), so a month of 3 still shows beside a month of
30,000. A horizontal bar is never shorter than ``MIN_WIDTH``, its count written beside it.
A test reads the page back and checks both.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from html import escape

WIDTH = 400  # the viewBox's width; the page scales it
MIN_BAR = 4  # a linear histogram's smallest non-empty bar, in viewBox units, or it goes log
MIN_WIDTH = 2  # a horizontal bar's least length: 71 URLs beside 30,412 is still a bar
_COLOURS = {"error": "#c62828", "warning": "#ef6c00", "notice": "#1565c0", "": "#2e7d32"}


def _svg(height: float, title: str, body: list[str], *, scale: str = "linear") -> str:
    return (
        f'<svg class="chart" viewBox="0 0 {WIDTH} {height:.0f}" width="100%" role="img" '
        f'aria-label="{escape(title)}" data-scale="{scale}" xmlns="http://www.w3.org/2000/svg">'
        f"<title>{escape(title)}</title>{''.join(body)}</svg>"
    )


def log_scale(bins: Sequence[tuple[str, int]], plot: float) -> bool:
    """Whether a linear scale would draw some non-empty bin under ``MIN_BAR`` tall."""
    counts = [count for _, count in bins if count > 0]
    return bool(counts) and plot * min(counts) / max(counts) < MIN_BAR


def histogram(title: str, bins: Sequence[tuple[str, int]], *, height: int = 220) -> str:
    """Vertical bars, one per bin (label, count), labels under some of them, each count above
    its bar where it fits; a log scale when a linear one would hide the small bins."""
    if not bins:
        return _empty(title)
    top = max(count for _, count in bins) or 1
    left, bottom, plot = 48, 30, height - 40
    base = height - bottom
    log = log_scale(bins, plot)

    def size(count: int) -> float:
        # log10(1 + n): 0 stays at 0 and 1 is still a visible bar.
        return plot * (math.log10(1 + count) / math.log10(1 + top) if log else count / top)

    step = (WIDTH - left - 8) / len(bins)
    room = max(len(name) for name, _ in bins) * 7 + 8  # a label's width, about
    every = max(1, math.ceil(room / step))  # labels that do not overlap
    body = [_axis(left, base, top, plot, size if log else None)]
    for i, (label, count) in enumerate(bins):
        h = size(count)
        x = left + i * step
        body.append(
            f'<rect class="bar" data-label="{escape(label)}" data-value="{count}" '
            f'x="{x + step * 0.1:.2f}" y="{base - h:.2f}" width="{step * 0.8:.2f}" '
            f'height="{h:.2f}" fill="{_COLOURS[""]}"><title>{escape(label)}: {count:,}'
            "</title></rect>"
        )
        if count and len(f"{count:,}") * 6 + 2 <= step:
            body.append(
                f'<text class="value" x="{x + step / 2:.1f}" y="{base - h - 3:.1f}" '
                f'font-size="10" text-anchor="middle">{count:,}</text>'
            )
        if i % every == 0:
            body.append(
                f'<text x="{x + step / 2:.1f}" y="{base + 16}" font-size="12" '
                f'text-anchor="middle">{escape(label)}</text>'
            )
    return _svg(height, title, body, scale="log" if log else "linear")


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
            w = max(plot * count / top, MIN_WIDTH)
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


def _axis(left: int, base: int, top: int, plot: int, size: Callable[[int], float] | None) -> str:
    """The base line, 0 and the top value; on a log scale (``size``) the powers of ten
    between them too, with a faint line across, as that scale cannot be read without."""
    marks = [(0, 0.0), (top, float(plot))]
    if size is not None:
        marks += [(10**k, size(10**k)) for k in range(len(str(top)) - 1) if 10**k < top]
    out = [f'<line x1="{left}" y1="{base}" x2="{WIDTH - 4}" y2="{base}" stroke="#999"/>']
    for value, h in sorted(marks):
        y = base - h
        if 0 < value < top:
            if h < 16 or plot - h < 14:
                continue  # it would print over 0 or the top value
            out.append(
                f'<line x1="{left}" y1="{y:.1f}" x2="{WIDTH - 4}" y2="{y:.1f}" stroke="#e3e3e3"/>'
            )
        out.append(
            f'<text x="{left - 4}" y="{y + (4 if value else 0):.1f}" font-size="12" '
            f'text-anchor="end">{value:,}</text>'
        )
    return "".join(out)


def _empty(title: str) -> str:
    return _svg(40, title, ['<text x="8" y="24" font-size="13" fill="#666">nothing to show</text>'])


def _cut(label: str, limit: int = 60) -> str:
    return label if len(label) <= limit else "…" + label[-(limit - 1) :]
