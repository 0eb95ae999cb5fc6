"""The report page of ``check --report``: one self-contained HTML file.

No script, no stylesheet or font to fetch, no image but inline SVG (:mod:`._charts`): the
page opens offline and makes no request. It shows the counts by severity, the charts
(lastmods by month, URLs per sitemap, findings per sitemap unless every document has as
many), the findings by code, what the sampled pages answered (``--sample``), the sitemap tree with each document's status, and every finding
under its document. Long runs are bounded: at most ``MAX_ROWS`` documents in the tree and
findings in the list (the counts stay whole).

It reads from a phone's width to a desk's without scrolling sideways: under 640 px the
tables become cards (a media query), long URLs break anywhere, and on a desk the tables of
the findings by document share one set of column widths, so they line up.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import datetime
from html import escape

from .._base._version import __version__
from ._charts import hbars, histogram
from ._checker import Checker, DocumentRow
from ._codes import CODES, Finding, Severity
from ._sample import percent
from ._text import by_document

MAX_ROWS = 2_000
MAX_NAMED = 3  # sources named in the title; more are listed under it
MAX_BARS = 25  # sitemaps in a chart; the rest share one bar
MAX_MONTHS = 120  # months in the lastmod histogram; earlier ones share its first bin
_SEVERITIES = ("error", "warning", "notice")
# Columns as (class, heading): the stylesheet sizes each class (col.severity, ...), the
# unclassed ones share what is left.
_CODE_COLUMNS = [
    ("severity", "severity"),
    ("code", "code"),
    ("name", "name"),
    ("n", "findings"),
    ("occurrences", "occurrences"),
    ("", "what"),
    ("", "fix"),
]
# One set of columns for every document's table, so that they line up down the page.
_SAMPLE_COLUMNS = [
    ("severity", "severity"),
    ("code", "code"),
    ("name", "name"),
    ("n", "pages"),
    ("occurrences", "share"),
    ("", "of all listed URLs (95% interval)"),
]
_FINDING_COLUMNS = [("severity", "severity"), ("code", "code"), ("line", "line"), ("", "finding")]
_CSP = (
    '<meta http-equiv="Content-Security-Policy" '
    "content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">"
)

_CSS = """
*{box-sizing:border-box}
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1b1b1b;
background:#f6f7f9}
main{max-width:1100px;margin:0 auto;padding:12px}
h1{font-size:1.35rem;margin:.4rem 0;overflow-wrap:anywhere}h2{font-size:1.1rem;margin:1.4rem 0 .5rem}
.meta{color:#555;font-size:.85rem;overflow-wrap:anywhere}
.cards{display:flex;flex-wrap:wrap;gap:8px;margin:.8rem 0}
.card{flex:1 1 130px;background:#fff;border-radius:8px;padding:10px 12px;
box-shadow:0 1px 2px #0002}
.card b{display:block;font-size:1.6rem}
.error{color:#c62828}.warning{color:#ef6c00}.notice{color:#1565c0}.ok{color:#2e7d32}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(280px,1fr));gap:10px}
figure{margin:0;background:#fff;border-radius:8px;padding:8px;box-shadow:0 1px 2px #0002}
figcaption{font-weight:600;margin-bottom:4px}
.panel{background:#fff;border-radius:8px;box-shadow:0 1px 2px #0002}
table{border-collapse:collapse;width:100%;font-size:.9rem;table-layout:fixed}
th,td{text-align:left;padding:5px 8px;border-bottom:1px solid #eee;vertical-align:top;
overflow-wrap:anywhere}
col.severity{width:6.2rem}col.code{width:4.4rem}col.name{width:12rem}col.n{width:5.2rem}
col.occurrences{width:7.4rem}col.line{width:4rem}
li{overflow-wrap:anywhere}.url{word-break:break-all}
.note{color:#555;font-size:.9rem;margin:.3rem 0}
.badge{display:inline-block;border-radius:4px;padding:0 5px;font-size:.8rem;color:#fff;
background:#555}
.badge.error,.badge.failed{background:#c62828}.badge.warning,.badge.partial{background:#ef6c00}
.badge.notice{background:#1565c0}.badge.ok{background:#2e7d32}
ul.tree{list-style:none;padding:6px 10px 6px 1rem;margin:0}ul.tree ul{list-style:none;padding-left:1.1rem;
border-left:1px dashed #bbb}
.tree li{margin:3px 0}.tree small{white-space:nowrap}
details{background:#fff;border-radius:8px;margin:6px 0;padding:6px 10px;
box-shadow:0 1px 2px #0002}
summary{cursor:pointer;overflow-wrap:anywhere}
.chart text{fill:#333;font-family:system-ui,sans-serif}
/* A phone: each table row becomes a card, its short cells side by side, the others each on
   a line named by its column (data-label), so no table is wider than the screen and nothing
   scrolls sideways. In the codes' cards the counts start a line of their own (tr::before). */
@media (max-width:640px){
table,tbody{display:block;width:auto}
thead,colgroup{display:none}
tr{display:flex;flex-wrap:wrap;align-items:baseline;padding:6px 0;border-bottom:1px solid #ddd}
td{flex:1 0 100%;border:0;padding:2px 10px}
td.inline{flex:0 0 auto;padding-right:4px}
td[data-label]::before{content:attr(data-label) ": ";color:#555;font-weight:600}
#codes tr::before,#sample tr::before{content:"";order:1;flex-basis:100%}
#codes td[data-label],#sample td[data-label]{order:2}
}
"""


def render_report(
    checker: Checker, findings: Sequence[Finding], sources: Sequence[str], when: datetime
) -> str:
    """The report page of a check run: ``checker`` after ``close()``, and its findings."""
    by_severity = Counter(f.severity.value for f in findings)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        # No request may leave the page: everything is inline, and the policy says so.
        _CSP,
        f"<title>sitemap check: {escape(_named(sources))}</title>",
        f"<style>{_CSS}</style></head><body><main>",
        f"<h1>Sitemap check: {escape(_named(sources))}</h1>",
        (
            f'<p class="meta">{when:%Y-%m-%d %H:%M UTC} · sitemap-reader '
            f"{escape(__version__)} · {len(checker.documents):,} documents · "
            f"{checker.entries:,} URLs</p>"
        ),
        _sources(sources),
        _cards(by_severity, checker),
        "<h2>Charts</h2>",
        '<div class="charts">',
        _figure("lastmod", "Lastmods by month", histogram("lastmods by month", _months(checker))),
        _figure("urls", "URLs per sitemap", hbars("URLs per sitemap", _urls(checker.documents))),
        _findings_chart(_per_document(findings)),
        "</div>",
        "<h2>Findings by code</h2>",
        _codes_table(findings),
        _sample(checker),
        "<h2>Sitemap tree</h2>",
        _tree(checker.documents),
        "<h2>Findings by document</h2>",
        _by_document(findings),
        "</main></body></html>",
    ]
    return "\n".join(parts) + "\n"


def _named(sources: Sequence[str]) -> str:
    """The sources for the title: a few by name, else the first and how many more (a check
    of 60 files would fill a phone's first screens with the heading)."""
    if len(sources) <= MAX_NAMED:
        return ", ".join(sources)
    return f"{sources[0]} and {len(sources) - 1:,} more"


def _sources(sources: Sequence[str]) -> str:
    if len(sources) <= MAX_NAMED:
        return ""
    items = "".join(f"<li>{_url(source)}</li>" for source in sources)
    return (
        f'<details class="sources"><summary>{len(sources):,} sources</summary>'
        f"<ul>{items}</ul></details>"
    )


def _cards(by_severity: Counter[str], checker: Checker) -> str:
    cards = [
        f'<div class="card {s}" id="count-{s}"><b>{by_severity[s]:,}</b>{s}s</div>'
        for s in _SEVERITIES
    ]
    cards.append(f'<div class="card ok"><b>{checker.entries:,}</b>URLs read</div>')
    return f'<div class="cards">{"".join(cards)}</div>'


def _figure(key: str, caption: str, svg: str) -> str:
    if 'data-scale="log"' in svg:
        caption += " (log scale)"
    return f'<figure id="chart-{key}"><figcaption>{escape(caption)}</figcaption>{svg}</figure>'


def _findings_chart(rows: list[tuple[str, list[tuple[str, int]]]]) -> str:
    """The findings per sitemap, unless every document has as many: equal bars say nothing
    that a sentence does not (and one sitemap's lone bar even less)."""
    totals = {sum(n for _, n in parts) for _, parts in rows}
    if len(totals) > 1:
        return _figure("findings", "Findings per sitemap", hbars("findings per sitemap", rows))
    if not rows:
        note = "No findings."
    else:
        each = totals.pop()
        note = (
            f"{len(rows):,} {'document has' if len(rows) == 1 else 'documents have'} "
            f"{each:,} finding{'' if each == 1 else 's'}{' each' if len(rows) > 1 else ''}: "
            "see Findings by document."
        )
    return (
        '<figure id="chart-findings"><figcaption>Findings per sitemap</figcaption>'
        f'<p class="note">{note}</p></figure>'
    )


def _months(checker: Checker) -> list[tuple[str, int]]:
    """Every month from the first lastmod's to the last one's, empty months included."""
    counts = checker.lastmods
    if not counts:
        return []
    first, last = min(counts), max(counts)
    months = []
    year, month = int(first[:4]), int(first[5:7])
    while True:
        key = f"{year:04d}-{month:02d}"
        months.append((key, counts.get(key, 0)))
        if key >= last:
            break
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    if len(months) > MAX_MONTHS:
        head, months = months[:-MAX_MONTHS], months[-MAX_MONTHS:]
        months[0] = (f"before {months[1][0]}", months[0][1] + sum(n for _, n in head))
    return months


def _top(rows: list[tuple[str, list[tuple[str, int]]]]) -> list[tuple[str, list[tuple[str, int]]]]:
    rows.sort(key=lambda row: -sum(n for _, n in row[1]))
    if len(rows) <= MAX_BARS:
        return rows
    rest = rows[MAX_BARS - 1 :]
    merged: Counter[str] = Counter()
    for _, row_parts in rest:
        for kind, n in row_parts:
            merged[kind] += n
    kinds = [kind for kind in ("", *_SEVERITIES) if merged[kind]]
    return [
        *rows[: MAX_BARS - 1],
        (f"{len(rest):,} other sitemaps", [(k, merged[k]) for k in kinds]),
    ]


def _urls(documents: Sequence[DocumentRow]) -> list[tuple[str, list[tuple[str, int]]]]:
    return _top([(d.url, [("", d.entries)]) for d in documents if d.entries])


def _per_document(findings: Sequence[Finding]) -> list[tuple[str, list[tuple[str, int]]]]:
    counts: dict[str, Counter[str]] = {}
    for item in findings:
        counts.setdefault(item.url or "(the run)", Counter())[item.severity.value] += 1
    return _top([(url, [(s, c[s]) for s in _SEVERITIES]) for url, c in counts.items()])


def _codes_table(findings: Sequence[Finding]) -> str:
    if not findings:
        return '<p class="ok">No findings: nothing to fix.</p>'
    seen: Counter[str] = Counter()
    occurrences: Counter[str] = Counter()
    for item in findings:
        seen[item.code] += 1
        occurrences[item.code] += item.count
    rows = []
    for code in sorted(seen, key=lambda c: (-CODES[c].severity.rank, c)):
        entry = CODES[code]
        rows.append(
            f"<tr>{_head(entry.severity, code)}<td class=inline>{escape(entry.name)}</td>"
            f'<td class=inline data-label="findings">{seen[code]:,}</td>'
            f'<td class=inline data-label="occurrences">{occurrences[code]:,}</td>'
            f'<td data-label="what">{escape(entry.summary)}</td>'
            f'<td data-label="fix">{escape(entry.fix)}</td></tr>'
        )
    return _table("codes", _CODE_COLUMNS, rows)


def _sample(checker: Checker) -> str:
    """The sampled pages (``--sample``): what was drawn and asked, then a row per finding
    with its count and the share of all listed URLs it stands for. Nothing without one."""
    sample = checker.sample
    if sample is None:
        return ""
    seed = checker.options.seed
    drawn = (
        f"{sample.drawn:,} of {sample.listed:,} listed URLs drawn"
        f"{'' if seed is None else f' (seed {seed})'}, {sample.asked:,} fetched"
    )
    if sample.disallowed:
        drawn += f", {sample.disallowed:,} left out: robots.txt disallows them"
    parts = ["<h2>Sampled pages</h2>", f'<p class="meta" id="sample-drawn">{escape(drawn)}.</p>']
    if not sample.lines:
        parts.append('<p class="ok">Every sampled page answered 200, indexable, as listed.</p>')
        return "\n".join(parts)
    rows = []
    for line in sample.lines:
        entry = CODES[line.code]
        estimate = (
            "exact: every listed URL was fetched"
            if line.exact
            else f"about {percent(line.share)} ({percent(line.low)} to {percent(line.high)})"
        )
        rows.append(
            f"<tr>{_head(entry.severity, line.code)}<td class=inline>{escape(line.name)}</td>"
            f'<td class=inline data-label="pages">{line.hits:,}</td>'
            f'<td class=inline data-label="share">{percent(line.share)}</td>'
            f'<td data-label="of all listed URLs">{escape(estimate)}</td></tr>'
        )
    parts.append(_table("sample", _SAMPLE_COLUMNS, rows))
    return "\n".join(parts)


def _head(severity: Severity, code: str) -> str:
    """A finding's first two cells, side by side on a phone too: its badge and its code."""
    return (
        f'<td class=inline><span class="badge {severity}">{severity}</span></td>'
        f"<td class=inline>{code}</td>"
    )


def _table(key: str, columns: list[tuple[str, str]], rows: list[str]) -> str:
    """A table whose columns (class, heading) have the widths the stylesheet gives their
    class, so every table built with the same columns lines up with the others."""
    cols = "".join(f'<col class="{name}">' if name else "<col>" for name, _ in columns)
    heads = "".join(f"<th>{heading}</th>" for _, heading in columns)
    ident = f' id="{key}"' if key else ""
    return (
        f'<div class="panel"><table{ident}><colgroup>{cols}</colgroup>'
        f"<thead><tr>{heads}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


def _tree(documents: Sequence[DocumentRow]) -> str:
    if not documents:
        return "<p>No document was read.</p>"
    shown = documents[:MAX_ROWS]
    keys = {d.url for d in shown} | {d.named for d in shown}
    children: dict[str, list[DocumentRow]] = {}
    roots = []
    for doc in shown:
        if doc.source and doc.source in keys:
            children.setdefault(doc.source, []).append(doc)
        else:
            roots.append(doc)

    def item(doc: DocumentRow, depth: int) -> str:
        kids = children.get(doc.url, [])
        if doc.named != doc.url:
            kids = kids + children.get(doc.named, [])
        inner = "".join(item(kid, depth + 1) for kid in kids) if depth < 50 else ""
        return f"<li>{_describe(doc)}{f'<ul>{inner}</ul>' if inner else ''}</li>"

    more = len(documents) - len(shown)
    tail = f"<p>{more:,} more documents are not shown.</p>" if more > 0 else ""
    body = "".join(item(root, 0) for root in roots)
    return f'<div class="panel"><ul class="tree" id="tree">{body}</ul></div>{tail}'


def _describe(doc: DocumentRow) -> str:
    status = doc.status.value
    bits = [f'<span class="badge {status}">{status}</span>', _url(doc.url)]
    if doc.format is not None:
        bits.append(f"<small>{doc.format}</small>")
    if doc.http_status is not None:
        bits.append(f"<small>HTTP {doc.http_status}</small>")
    if doc.entries:
        bits.append(f"<small>{doc.entries:,} URLs</small>")
    for severity in Severity:
        n = doc.findings[severity]
        if n:
            bits.append(f'<small class="{severity}">{n:,} {severity}</small>')
    return " ".join(bits)


def _url(url: str) -> str:
    # Broken anywhere, so that a long one starts beside its badge instead of under it.
    return f'<span class="url">{escape(url)}</span>'


def _line(line: int | None) -> str:
    # No label on an empty cell: a phone would show "line:" with nothing after it.
    return "<td></td>" if line is None else f'<td class=inline data-label="line">{line}</td>'


def _by_document(findings: Sequence[Finding]) -> str:
    if not findings:
        return "<p>None.</p>"
    out = []
    for url, items in by_document(findings[:MAX_ROWS]).items():
        rows = [
            f"<tr>{_head(f.severity, f.code)}{_line(f.line)}<td>{escape(f.message)}</td></tr>"
            for f in items
        ]
        table = _table("", _FINDING_COLUMNS, rows)
        out.append(
            f"<details open><summary>{_url(url or '(the run)')} ({len(items):,})</summary>"
            f"{table}</details>"
        )
    more = len(findings) - MAX_ROWS
    if more > 0:
        out.append(f"<p>{more:,} more findings are not shown (see --format json).</p>")
    return "".join(out)
