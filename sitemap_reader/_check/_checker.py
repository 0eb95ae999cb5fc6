"""Findings from a walk's events: the heart of ``check`` (pure: events in, findings out).

A :class:`Checker` is fed what the walk yields (``Entry``, ``Problem``, ``SitemapVisited``)
and returns :class:`Finding` records: each problem the reader met, mapped to a code; what a
document's report tells (HTTP status, redirects, Content-Type, gzip, time, nesting, scope);
and the checks of :mod:`._lint` over the entries. It also keeps what a report page shows:
one :class:`DocumentRow` per document and lastmods counted by month (bounded: a row per
document, a count per month).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone

from yarl import URL

from .._base._models import (
    Entry,
    Event,
    Format,
    Problem,
    ProblemKind,
    SitemapVisited,
    Status,
    Trust,
)
from .._base._words import plural
from .._core._walk._scope import (
    NOT_HTTP,
    OTHER_HOST,
    OTHER_PORT,
    OTHER_SCHEME,
    OUTSIDE_FOLDER,
    ROBOTS,
)
from ._codes import Finding, Severity, finding
from ._lint import DocumentLint, LintOptions, SiteLint
from ._sample import PageAnswer, Reservoir, SampleSummary, sample_findings

# The reader's problem kinds -> the check's codes (names of ._codes.CODES).
KIND_CODES: dict[ProblemKind, str] = {
    ProblemKind.NAMESPACE: "namespace",
    ProblemKind.INVALID_LOC: "invalid-loc",
    ProblemKind.MISSING_LOC: "invalid-loc",
    ProblemKind.RELATIVE_LOC: "relative-loc",
    ProblemKind.RELATIVE_LOC_RESOLVED: "relative-loc",
    ProblemKind.LOC_TOO_LONG: "loc-too-long",
    ProblemKind.INVALID_LASTMOD: "invalid-lastmod",
    ProblemKind.INVALID_CHANGEFREQ: "invalid-changefreq",
    ProblemKind.INVALID_PRIORITY: "invalid-priority",
    ProblemKind.INVALID_EXTENSION: "invalid-extension",
    ProblemKind.IMAGE_MISSING_LOC: "image-missing-loc",
    ProblemKind.SEVERAL_LOCS: "several-locs",
    ProblemKind.UNCLOSED_ENTRY: "unclosed-entry",
    ProblemKind.CUT_ENTRY: "cut-entry",
    ProblemKind.REPEATED_ELEMENT: "repeated-element",
    ProblemKind.ENCODING: "invalid-bytes",
    ProblemKind.UNKNOWN_ENCODING: "invalid-bytes",
    ProblemKind.TOO_MANY_URLS: "too-many-urls",
    ProblemKind.HTML: "html",
    ProblemKind.UNKNOWN_FORMAT: "not-a-sitemap",
    ProblemKind.EMPTY: "not-a-sitemap",
    ProblemKind.NOT_WELL_FORMED: "not-well-formed",
    ProblemKind.MERGE_CONFLICT: "merge-conflict",
    ProblemKind.TRUNCATED: "truncated",
    ProblemKind.UNSAFE_XML: "unsafe-xml",
    ProblemKind.TOO_LARGE: "too-large",
    ProblemKind.TOKEN_TOO_LARGE: "too-big-value",
    ProblemKind.TOO_NESTED: "too-big-value",
    ProblemKind.GZIP_ERROR: "gzip-corrupt",
    ProblemKind.CONTENT_ENCODING: "content-encoding",
    ProblemKind.HTTP_STATUS: "http-status",
    ProblemKind.NETWORK: "network",
    ProblemKind.REDIRECT: "redirect-failed",
    ProblemKind.PRIVATE_ADDRESS: "private-address",
    ProblemKind.DEADLINE: "incomplete",
    ProblemKind.MAX_SITEMAPS: "incomplete",
    ProblemKind.MAX_SITEMAPS_PER_SITE: "incomplete",
    ProblemKind.MAX_ENTRIES: "incomplete",
    ProblemKind.MAX_TOTAL_BYTES: "incomplete",
    ProblemKind.ROBOTS_UNAVAILABLE: "robots-unavailable",
    ProblemKind.NO_SITEMAP: "no-sitemap",
    ProblemKind.OUT_OF_SCOPE: "child-out-of-scope",
    ProblemKind.ROBOTS_DISALLOWED: "robots-disallowed-url",
    ProblemKind.ROBOTS_DISALLOWED_SITEMAP: "robots-disallowed-sitemap",
    ProblemKind.SITEMAP_NOT_IN_ROBOTS: "sitemap-not-in-robots",
    ProblemKind.ROBOTS_RULES_DROPPED: "robots-rules-dropped",
    ProblemKind.TOO_DEEP: "too-deep",
    ProblemKind.CYCLE: "cycle",
    ProblemKind.DUPLICATE: "sitemap-named-twice",
    ProblemKind.UNREADABLE: "unreadable",
    ProblemKind.ERROR: "other",  # an exception no kind names: a bug of the reader
    ProblemKind.WORKER_LOST: "other",  # a parse worker of the reader died: the reader's fault, not the site's
    # The change feed's (--changes), which check does not run: said as they are if met.
    ProblemKind.SHRINK_HELD: "other",
    ProblemKind.SHRINK_CONFIRMED: "other",
    # The caller's follow rules, not the site: check judges the site, so it never says it.
    ProblemKind.NOTHING_FOLLOWED: "other",
}
# Problems of the caller's own choices, which no finding reports.
_CALLERS = frozenset({ProblemKind.NOTHING_FOLLOWED})
# Kinds a robots.txt's report carries with another meaning there.
_ROBOTS_CODES = {
    ProblemKind.INVALID_LOC: "robots-invalid-sitemap",
    ProblemKind.RELATIVE_LOC_RESOLVED: "robots-relative-sitemap",
}
# Said once in the stream but not always in a document's report.
_STREAM_ONLY = frozenset(
    {
        ProblemKind.NO_SITEMAP,
        ProblemKind.DEADLINE,
        ProblemKind.MAX_SITEMAPS,
        ProblemKind.MAX_SITEMAPS_PER_SITE,
        ProblemKind.MAX_ENTRIES,
        ProblemKind.MAX_TOTAL_BYTES,
    }
)
# What the owner of a sitemap changes to keep its URLs, by the reason they were dropped
# (the words of SitemapVisited.dropped).
_SCOPE_FIXES = {
    OUTSIDE_FOLDER: "move the sitemap up to the folder that holds its URLs (the site's root "
    "holds them all), or name it in the site's robots.txt",
    OTHER_HOST: "list only URLs of the sitemap's own host, or name the sitemap in the "
    "robots.txt of the host its URLs are on (cross-submission)",
    OTHER_SCHEME: "write the URLs with the sitemap's own scheme (http or https), or name the "
    "sitemap in the robots.txt of the origin its URLs are on",
    OTHER_PORT: "write the URLs with the sitemap's own port, or name the sitemap in the "
    "robots.txt of the origin its URLs are on",
    NOT_HTTP: "list only http(s) URLs",
}
_FETCH_FAULTS = frozenset({ProblemKind.HTTP_STATUS, ProblemKind.NETWORK, ProblemKind.REDIRECT})
_XML_FORMATS = frozenset({Format.URLSET, Format.SITEMAPINDEX})
_GZIP_TYPES = frozenset(
    {
        "application/gzip",
        "application/x-gzip",
        "application/x-gunzip",
        "application/gzip-compressed",
    }
)
_READ = frozenset({Status.OK, Status.PARTIAL})


@dataclass(frozen=True, slots=True)
class CheckOptions:
    """What ``check`` judges by: a response slower than ``slow`` seconds is reported; the
    memory bounds of the checks across sitemaps (see docs/check.md); ``now`` for tests.
    ``sample``: how many listed pages to draw and fetch (0: none is fetched), drawn with
    ``seed`` (None: a new draw each run)."""

    slow: float = 5.0
    max_doc_urls: int = 100_000
    max_tracked_urls: int = 250_000
    max_hreflang_pages: int = 50_000
    now: datetime | None = None
    sample: int = 0
    seed: int | None = 0

    def __post_init__(self) -> None:
        if self.sample < 0:
            raise ValueError(f"sample={self.sample}: give 0 (no page fetched) or more")

    def lint(self) -> LintOptions:
        return LintOptions(
            max_doc_urls=self.max_doc_urls,
            max_tracked_urls=self.max_tracked_urls,
            max_hreflang_pages=self.max_hreflang_pages,
            now=self.now,
        )


@dataclass(slots=True)
class DocumentRow:
    """One document as the report page shows it."""

    url: str  # where it was read (after redirects)
    status: Status
    named: str = ""  # the URL as named
    source: str = ""
    depth: int = 0
    format: Format | None = None
    http_status: int | None = None
    entries: int = 0
    bytes: int = 0
    findings: Counter[Severity] = field(default_factory=Counter)


class Checker:
    """Feed it a walk's events; it returns findings (see the module docstring)."""

    def __init__(self, options: CheckOptions | None = None) -> None:
        self.options = options = options or CheckOptions()
        self._now = options.now or datetime.now(timezone.utc)
        self._lint = options.lint()
        self._site = SiteLint(self._lint)
        self._open: dict[str, DocumentLint] = {}  # documents being read, by their URL
        self._said: set[tuple[str, str]] = set()  # stream problems said once
        self._robots: set[str] = set()
        self._silent: set[str] = set()  # robots.txt files read whole that name no sitemap
        self.documents: list[DocumentRow] = []
        self._rows: dict[str, DocumentRow] = {}
        self.lastmods: Counter[str] = Counter()  # "YYYY-MM" -> entries
        self.counts: Counter[tuple[Severity, str]] = Counter()  # (severity, code) -> findings
        self.entries = 0
        # The listed pages drawn for --sample as entries stream by, and what they answered.
        self.reservoir = Reservoir(options.sample, options.seed) if options.sample else None
        self.sample: SampleSummary | None = None

    # -- feeding ---------------------------------------------------------------------------

    def feed(self, events: Iterable[Event]) -> list[Finding]:
        out: list[Finding] = []
        for event in events:
            if type(event) is Entry:
                self._entry(event)
            elif type(event) is SitemapVisited:
                out += self._visited(event)
            elif type(event) is Problem:
                out += self._stream_problem(event)
        return self._count(out)

    def close(self) -> list[Finding]:
        """The findings that need the whole run (and those of documents never reported)."""
        out: list[Finding] = []
        for lint in self._open.values():
            out += lint.findings()
        self._open.clear()
        out += self._site.findings()
        return self._count(out)

    def sampled(self, answers: list[PageAnswer]) -> list[Finding]:
        """The findings of the drawn pages' answers (``SitemapReader.check_sample`` fetches
        them), each with the share of all listed URLs it stands for."""
        listed = self.entries if self.reservoir is None else self.reservoir.seen
        found, self.sample = sample_findings(answers, listed)
        return self._count(found)

    def _count(self, findings: list[Finding]) -> list[Finding]:
        for item in findings:
            self.counts[item.severity, item.code] += 1
            row = self._rows.get(item.url)
            if row is not None:
                row.findings[item.severity] += 1
        return findings

    # -- events ----------------------------------------------------------------------------

    def _entry(self, entry: Entry) -> None:
        self.entries += 1
        lint = self._open.get(entry.sitemap)
        if lint is None:
            lint = self._open[entry.sitemap] = DocumentLint(entry.sitemap, self._lint, self._now)
        lint.add(entry)
        self._site.add(entry)
        if self.reservoir is not None:
            self.reservoir.offer(entry.loc)
        if entry.lastmod is not None:
            self.lastmods[entry.lastmod.strftime("%Y-%m")] += 1

    def _stream_problem(self, problem: Problem) -> list[Finding]:
        if problem.kind not in _STREAM_ONLY:
            return []  # the document's report carries it
        key = (problem.kind, problem.url)
        if key in self._said:
            return []
        self._said.add(key)
        return [_from_problem(problem, problem.url, KIND_CODES[problem.kind])]

    def _visited(self, report: SitemapVisited) -> list[Finding]:
        url = report.final_url or report.url
        row = DocumentRow(
            url=url,
            status=report.status,
            named=report.url,
            source=report.source,
            depth=report.depth,
            format=report.format,
            http_status=report.http_status,
            entries=report.entries,
            bytes=report.bytes,
        )
        if report.status is not Status.MISSING or report.format is Format.ROBOTS:
            self.documents.append(row)
            self._rows.setdefault(url, row)
            self._rows.setdefault(report.url, row)
        out: list[Finding] = []
        lint = self._open.pop(url, None)
        if lint is not None:
            out += lint.findings()
        if report.format is Format.ROBOTS:
            self._robots.add(url)
            if report.status is Status.OK and not report.children:
                self._silent.update((url, report.url))
            out += self._robots_report(report, url)
        else:
            out += self._document(report, url)
        return out

    def _robots_report(self, report: SitemapVisited, url: str) -> Iterator[Finding]:
        if report.status is Status.MISSING:
            yield finding(
                "robots-missing",
                url,
                f"robots.txt answered HTTP {report.http_status}; sitemaps were looked for at "
                "the well-known paths",
            )
        for problem in report.problems:
            if problem.kind in _STREAM_ONLY:
                continue
            name = _ROBOTS_CODES.get(problem.kind) or KIND_CODES.get(problem.kind, "other")
            if problem.line is not None:
                # A robots.txt's problems start with their line, which the finding carries.
                problem = replace(
                    problem, message=problem.message.removeprefix(f"line {problem.line}: ")
                )
            yield _from_problem(problem, url, name)

    def _named_by_robots(self, report: SitemapVisited) -> bool:
        source = report.source
        return bool(source) and (source in self._robots or URL(source).path.endswith("robots.txt"))

    def _document(self, report: SitemapVisited, url: str) -> Iterator[Finding]:
        status = report.status
        if status is Status.MISSING:
            return  # a probed well-known path that is not there: no news
        by_robots = self._named_by_robots(report)
        if status is Status.DUPLICATE:
            yield finding(
                "sitemap-named-twice",
                report.source or url,
                f"names {report.url}, which this run reads already from another place",
            )
            return
        fetch_fault = None
        if by_robots and status is Status.FAILED:
            fetch_fault = next((p for p in report.problems if p.kind in _FETCH_FAULTS), None)
            if fetch_fault is not None:
                yield finding(
                    "robots-sitemap-unreachable",
                    report.source,
                    f"the Sitemap: line names {report.url}, which cannot be read: "
                    f"{fetch_fault.message}",
                )
        for problem in report.problems:
            if problem is fetch_fault or problem.kind in _STREAM_ONLY or problem.kind in _CALLERS:
                continue
            name = KIND_CODES.get(problem.kind, "other")
            yield _from_problem(problem, url, name)
        yield from self._http(report, url, by_robots)
        if report.depth == 0 and report.source in self._silent and status in _READ:
            yield finding(
                "sitemap-not-in-robots",
                report.source,
                f"names no sitemap; {url} was found at a well-known path",
            )
        trust = report.lastmods
        if trust is not None and trust.verdict is Trust.UNTRUSTED:
            yield finding(
                "lastmod-untrusted",
                url,
                f"its lastmods are not trusted: {'; '.join(trust.reasons) or 'see the state file'}",
            )
        if status not in _READ:
            return
        yield from self._content(report, url)

    def _http(self, report: SitemapVisited, url: str, by_robots: bool) -> Iterator[Finding]:
        hops = report.redirects
        if hops:
            chain = " -> ".join([report.url, *(f"{target} ({code})" for code, target in hops)])
            if by_robots:
                yield finding(
                    "robots-sitemap-redirected",
                    report.source,
                    f"the Sitemap: line names {report.url}, which redirects: {chain}",
                )
            name = "redirect" if len(hops) == 1 else "redirect-chain"
            yield finding(name, report.url, f"redirects: {chain}", count=len(hops))
        elapsed = report.elapsed
        if elapsed is not None and elapsed > self.options.slow:
            yield finding(
                "slow-response",
                url,
                f"the response took {elapsed:.1f} s (more than {self.options.slow:g} s)",
            )

    def _content(self, report: SitemapVisited, url: str) -> Iterator[Finding]:
        fmt = report.format
        media = (report.content_type or "").split(";", 1)[0].strip().lower()
        is_url = url.lower().startswith(("http://", "https://"))
        gz_name = URL(url).path.lower().endswith(".gz") if is_url else url.endswith(".gz")
        transport_gzip = "gzip" in (report.content_encoding or "").lower()
        if is_url and fmt is not None and fmt is not Format.HTML:
            wrong = _content_type_fault(media, fmt, report.gzipped)
            if wrong:
                yield finding("content-type", url, wrong)
        declared = gz_name or media in _GZIP_TYPES
        if declared and not report.gzipped and not transport_gzip and fmt is not None:
            said = "named .gz" if gz_name else f"served as {media}"
            yield finding("gzip-not-gzip", url, f"{said}, but the body is not gzip")
        elif report.gzipped and not declared:
            yield finding(
                "gzip-undeclared",
                url,
                "the body is a gzip file, but the name does not end in .gz"
                + (f" and it is served as {media}" if media else ""),
            )
        encoding = report.encoding
        if encoding is not None and encoding.replace("_", "-").lower() not in ("utf-8", "utf8"):
            yield finding("encoding", url, f"the document is in {encoding}, not UTF-8")
        if fmt is Format.SITEMAPINDEX and report.depth >= 1:
            yield finding(
                "index-of-index",
                report.source or url,
                f"names {url}, which is itself a sitemap index: indexes may not be nested",
            )
        # robots.txt's drops (--robots obey) are no scope's: its problem says them (R108).
        dropped = {why: n for why, n in report.dropped if why != ROBOTS}
        if dropped:
            total = sum(dropped.values())
            examples = dict(report.dropped_examples)
            why = "; ".join(
                f"{n:,} {reason}" + (f", such as {examples[reason]}" if reason in examples else "")
                for reason, n in sorted(dropped.items())
            )
            yield finding(
                "url-out-of-scope",
                url,
                f"{plural(total, 'URL')} outside the sitemap's location dropped ({why})",
                count=total,
                fix="; ".join(dict.fromkeys(_SCOPE_FIXES[r] for r in sorted(dropped))),
            )
        if (
            fmt in (Format.URLSET, Format.TEXT)
            and report.status is Status.OK
            and not report.entries
            and not dropped
            and not report.problems
        ):
            yield finding("empty-sitemap", url, "the sitemap lists no URL")


def _from_problem(problem: Problem, url: str, name: str) -> Finding:
    """The finding of a problem the reader reported while reading ``url``."""
    message = problem.message
    if name == "other":
        message = f"{message} [{problem.kind}]"
    fix = None
    if name == "not-well-formed" and problem.line is not None:
        fix = f"escape & as &amp; and < as &lt; in values, and fix the XML at line {problem.line}"
    return finding(name, url, message, line=problem.line, count=problem.count or 1, fix=fix)


def _content_type_fault(media: str, fmt: Format, gzipped: bool) -> str | None:
    """What is wrong with Content-Type ``media`` for a body of ``fmt``; None: nothing."""
    if not media:
        return "the response has no Content-Type"
    if gzipped:
        ok = media in _GZIP_TYPES or media == "application/octet-stream" or "xml" in media
        expected = "application/gzip"
    elif fmt in _XML_FORMATS or fmt in (Format.RSS, Format.ATOM):
        ok = media.endswith(("/xml", "+xml"))
        expected = "application/xml"
    elif fmt is Format.TEXT:
        ok = media == "text/plain"
        expected = "text/plain"
    else:
        return None
    if ok:
        return None
    return f"served as {media}, but the body is {'gzip' if gzipped else fmt}: use {expected}"
