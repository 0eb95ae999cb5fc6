"""What every format handler shares: the document's name, its limits, its output and its tally.

Tolerated faults (a bad lastmod, a relative loc, ...) are counted per kind and reported as
one Problem per kind when the document ends, not one per entry: a 50,000-URL file with a
broken generator must not bury its records under 50,000 Problems.
"""

from __future__ import annotations

from dataclasses import replace

from .._base._config import Limits
from .._base._models import Entry, Event, Problem, ProblemKind, SitemapRef
from .._base._urls import has_scheme, is_http_url, is_reference, resolve
from .._base._words import byte_size, plural, shorten

# kind -> the words a tally message uses for it: for one, for more than one
_TALLY_WORDS = {
    ProblemKind.INVALID_LOC: (
        "value that is not an absolute http(s) URL was dropped",
        "values that are not an absolute http(s) URL were dropped",
    ),
    ProblemKind.RELATIVE_LOC: (
        "relative URL was dropped (the protocol wants absolute ones)",
        "relative URLs were dropped (the protocol wants absolute ones)",
    ),
    ProblemKind.RELATIVE_LOC_RESOLVED: (
        "relative URL was resolved against the document's URL",
        "relative URLs were resolved against the document's URL",
    ),
    ProblemKind.LOC_TOO_LONG: (
        "URL longer than the limit was dropped",
        "URLs longer than the limit were dropped",
    ),
    ProblemKind.MISSING_LOC: (
        "entry without a <loc> was dropped",
        "entries without a <loc> were dropped",
    ),
    ProblemKind.INVALID_LASTMOD: (
        "lastmod value was not a date and was left out",
        "lastmod values were not dates and were left out",
    ),
    ProblemKind.INVALID_CHANGEFREQ: (
        "changefreq value was not one of the protocol's and was left out",
        "changefreq values were not one of the protocol's and were left out",
    ),
    ProblemKind.INVALID_PRIORITY: (
        "priority value was not a number from 0.0 to 1.0 and was left out",
        "priority values were not numbers from 0.0 to 1.0 and were left out",
    ),
    ProblemKind.ENCODING: (
        "line was not UTF-8; its other bytes were percent-encoded",
        "lines were not UTF-8; their other bytes were percent-encoded",
    ),
    ProblemKind.INVALID_EXTENSION: (
        "extension value was malformed and was left out",
        "extension values were malformed and were left out",
    ),
    ProblemKind.IMAGE_MISSING_LOC: (
        "<image:image> without <image:loc> was left out",
        "<image:image> elements without <image:loc> were left out",
    ),
    ProblemKind.SEVERAL_LOCS: (
        "further <loc> in an entry was kept as an entry of its own, without the entry's fields",
        (
            "further <loc> elements in entries were kept as entries of their own, without the "
            "entries' fields"
        ),
    ),
    ProblemKind.UNCLOSED_ENTRY: (
        (
            "entry was still open when the next one started (its end tag missing, or entries "
            "nested); it was kept as it stood"
        ),
        (
            "entries were still open when the next one started (their end tags missing, or "
            "entries nested); they were kept as they stood"
        ),
    ),
    ProblemKind.CUT_ENTRY: (
        "entry cut by the end of the document was kept with the fields read before the cut",
        "entries cut by the end of the document were kept with the fields read before the cut",
    ),
    ProblemKind.REPEATED_ELEMENT: (
        (
            "field was given more than once in an entry (the schema allows one); the last one "
            "was kept"
        ),
        (
            "fields were given more than once in entries (the schema allows one); the last "
            "ones were kept"
        ),
    ),
}


# kind -> how a tally message says where its first example is, when it is not at its line
# (``{line}``; ``{column}`` follows when known).
_WHERE = {
    ProblemKind.UNCLOSED_ENTRY: ", the next one starting at line {line}",
    ProblemKind.CUT_ENTRY: ", its <loc> at line {line}",
}


class Document:
    """The state of one document being read, shared by the parser and its format handler."""

    __slots__ = (
        "ended",
        "entries",
        "fatal",
        "limits",
        "lines",
        "out",
        "resolve_relative",
        "tally",
        "url",
        "variants",
    )

    def __init__(self, url: str, limits: Limits, resolve_relative: bool) -> None:
        self.url = url
        self.limits = limits
        self.resolve_relative = resolve_relative
        self.out: list[Event] = []
        # kind -> [count, first example, its line, its column (None where not known)]
        self.tally: dict[ProblemKind, list[object]] = {}
        self.entries = 0
        self.ended = False  # no more input is read (a fatal problem, a cut, or close)
        self.fatal: Problem | None = None
        # The compiled scanner may put the entries it read itself in ``out`` as runs of its
        # own records (``_native.Entries``), for dump's line writer (``SitemapParser``'s
        # ``lines``); the other handlers and the pure core never do.
        self.lines = False
        # Extension namespaces read as the real one (as written -> the real one), in the
        # order met: reported once, when the document ends, however many elements had them.
        self.variants: dict[str, str] = {}

    def note(
        self, kind: ProblemKind, example: str, line: int | None = None, column: int | None = None
    ) -> None:
        """Count one tolerated fault; the first example (and where it is, when the reader
        knows) is kept for the message."""
        slot = self.tally.get(kind)
        if slot is None:
            self.tally[kind] = [1, example, line, column]
        else:
            slot[0] += 1  # type: ignore[operator]

    def report(
        self, kind: ProblemKind, message: str, *, line: int | None = None, column: int | None = None
    ) -> None:
        """A tolerated, document-level fault reported once (a wrong namespace, say)."""
        self.out.append(Problem(kind=kind, url=self.url, message=message, line=line, column=column))

    def fail(
        self, kind: ProblemKind, message: str, *, line: int | None = None, column: int | None = None
    ) -> None:
        """End the document: what was emitted stands, nothing after this is read."""
        if self.ended:
            return
        self.ended = True
        self.fatal = Problem(
            kind=kind, url=self.url, message=message, fatal=True, line=line, column=column
        )

    def check_loc(self, raw: str) -> str | None:
        """The loc to emit for ``raw`` (already stripped), or None when it must be dropped."""
        # The common case without a regex: "http(s)://" and a host character (is_http_url),
        # in a URL with none of the characters that can leave the authority without a host
        # ("http://user@/", "http://[") or make it unsplittable ("http://a]b/").
        head = raw[8:9] if raw[:8] == "https://" else raw[7:8] if raw[:7] == "http://" else ""
        if (
            head
            and head not in "/?#:"
            and not head.isspace()
            and len(raw) <= self.limits.max_loc_length
            and "@" not in raw
            and "[" not in raw
            and "]" not in raw
        ):
            return raw
        if len(raw) > self.limits.max_loc_length:
            self.note(ProblemKind.LOC_TOO_LONG, f"{len(raw)} characters: {shorten(raw, 60)}")
            return None
        if is_http_url(raw):
            return raw
        return self._invalid(raw)

    def _invalid(self, raw: str) -> str | None:
        """Not an absolute http(s) URL: resolve a relative one when asked, else drop it."""
        if is_http_url(raw):
            return raw
        if not raw:
            self.note(ProblemKind.MISSING_LOC, "an empty <loc>")
            return None
        if (has_scheme(raw) and not raw.startswith("//")) or not is_reference(raw):
            self.note(ProblemKind.INVALID_LOC, shorten(raw))
            return None
        if self.resolve_relative and is_http_url(self.url):
            resolved = resolve(self.url, raw)
            if resolved is not None and len(resolved) > self.limits.max_loc_length:
                # Resolving adds the base and percent-encodes: judge the URL it gives.
                self.note(
                    ProblemKind.LOC_TOO_LONG, f"{len(resolved)} characters: {shorten(resolved, 60)}"
                )
                return None
            if resolved is not None:
                self.note(
                    ProblemKind.RELATIVE_LOC_RESOLVED, f"{shorten(raw)} -> {shorten(resolved)}"
                )
                return resolved
        self.note(ProblemKind.RELATIVE_LOC, shorten(raw))
        return None

    def count_entry(self) -> bool:
        """Count one entry; False when it falls past ``max_urls`` and the document is cut."""
        self.entries += 1
        if self.entries > self.limits.max_urls:
            if self.limits.cut_at_max_urls:
                self.entries -= 1
                self.fail(
                    ProblemKind.TOO_MANY_URLS,
                    f"more than {plural(self.limits.max_urls, 'entry', 'entries')}: the document "
                    "was cut there",
                )
                return False
            if self.entries == self.limits.max_urls + 1:
                self.note(ProblemKind.TOO_MANY_URLS, "")
        return True

    def emit(self, event: Entry | SitemapRef) -> None:
        self.out.append(event)

    def finish(self) -> None:
        """Report the extension namespace variants met, the tally, then the fatal problem
        if any (it stays the last event)."""
        self.ended = True
        if self.fatal is not None and self.fatal.kind == ProblemKind.TOO_LARGE:
            self._merge_too_many()
        if self.variants:
            said = " and ".join(
                f"{written!r}, not {real!r}" for written, real in self.variants.items()
            )
            ones = "ones" if len(self.variants) > 1 else "one"
            message = f"extension elements have the namespace {said}; read as the real {ones}"
            self.out.append(Problem(kind=ProblemKind.NAMESPACE, url=self.url, message=message))
            self.variants.clear()
        for kind, (count, example, line, column) in self.tally.items():
            assert isinstance(count, int) and isinstance(example, str)
            assert line is None or isinstance(line, int)
            assert column is None or isinstance(column, int)
            if kind == ProblemKind.TOO_MANY_URLS:
                excess = self.entries - self.limits.max_urls
                read = "all were read" if self.fatal is None else "read up to where it ended"
                message = (
                    f"{self.entries:,} entries, {excess:,} more than the limit of "
                    f"{self.limits.max_urls:,} a sitemap may hold; {read}"
                )
                count, example = self.entries, ""  # the entries it holds, as check counts them
            else:
                one, many = _TALLY_WORDS.get(kind, (kind, kind))
                words = one if count == 1 else many
                where = ""
                if line is not None:
                    where = _WHERE.get(kind, " at line {line}").format(line=line)
                    if column is not None:
                        where += f", column {column}"
                message = f"{count:,} {words} (first: {example}{where})"
            self.out.append(
                Problem(
                    kind=kind,
                    url=self.url,
                    message=message,
                    line=line,
                    column=column,
                    count=count,
                    example=example or None,
                )
            )
        self.tally.clear()
        if self.fatal is not None:
            self.out.append(self.fatal)

    def _merge_too_many(self) -> None:
        """A document cut at its size after more entries than a sitemap may hold: one
        Problem says both, as "all were read" beside "cut" would contradict it."""
        if self.tally.pop(ProblemKind.TOO_MANY_URLS, None) is None:
            return
        assert self.fatal is not None
        message = (
            f"cut at {byte_size(self.limits.max_bytes)} (decompressed) after "
            f"{plural(self.entries, 'entry', 'entries')}; the document lists more than the "
            f"{plural(self.limits.max_urls, 'entry', 'entries')} a sitemap may hold"
        )
        self.fatal = replace(self.fatal, message=message, count=self.entries)

    def take(self) -> list[Event]:
        out = self.out
        self.out = []
        return out
