"""One fuzz input -> every invariant of the sans-IO parser.

An input is a 4-byte control header followed by the document. The header picks what the
document is read as (the sitemap's URL, the limits, ``resolve_relative``, a gzip wrapping)
and seeds where it is split, so the fuzzer mutates the split points along with the bytes
and every finding replays exactly from its input file.

The invariants (:func:`check`); any breach raises :class:`Finding`, and any exception out of
``feed()``/``close()`` propagates as it is (the parser must never raise for content):

1. the event contract: only Entry, SitemapRef and Problem; at most one fatal Problem, last;
2. the same events as the reference (the exact, expat path, the input whole) in random chunks
   on one path (the fast scanner for an odd split seed, expat for an even one) and, on the
   other path, byte by byte (documents up to ``BYTEWISE_MAX`` bytes) and gzipped in one or
   two members (a quarter of the header values);
3. every Entry and SitemapRef loc (and hreflang href) is an http(s) URL with a host and at
   most ``max_loc_length`` characters;
4. scope: each entry the walk's STRICT filter keeps is, by an oracle that shares no code with
   it (urllib.parse and RFC 3986 normalisation), on the sitemap's scheme, host and port and
   under its folder once dot segments are removed; each index child kept is on its origin;
5. memory: when the caller asks (the campaign: one input in ``campaign.MEMORY_EVERY``), the
   tracemalloc peak of a parse is under a bound linear in the bytes read.

:attr:`Outcome.runs` names the reads an input got, so a campaign can count them.
"""

from __future__ import annotations

import gzip
import io
import itertools
import random
import re
import tracemalloc
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlsplit

import feedparser

from sitemap_reader import (
    Entry,
    Event,
    Limits,
    Problem,
    ScopePolicy,
    SitemapParser,
    SitemapRef,
)
from sitemap_reader._core._formats import _feed
from sitemap_reader._core._walk._scope import Scope

HEADER = 4  # control bytes before the document
MAX_LEN = 4096  # inputs the campaign generates (libFuzzer -max_len): small keeps it fast

# Where the document is said to come from: the scope each entry is judged against.
SITEMAP_URLS = (
    "https://example.com/dir/sitemap.xml",
    "https://example.com/dir/sitemap.xml",  # twice: the one the seeds' URLs are rewritten to
    "http://example.com:8080/a/b/sitemap.xml",
    "https://example.com/sitemap.xml",
)
_BASE = Limits(max_bytes=262_144, max_feed_bytes=131_072)  # a gzip bomb stays cheap
LIMITS = (
    _BASE,
    _BASE,
    replace(_BASE, max_urls=3, max_loc_length=60, max_token_bytes=300, max_feed_bytes=1_500),
    replace(_BASE, max_urls=2, cut_at_max_urls=True, max_bytes=1_000, max_token_bytes=120),
)
BYTEWISE_MAX = 256  # inputs up to this size are also fed one byte at a time
MEMORY_SLACK = 2_000_000  # tracemalloc peak allowed over the linear part (bytes)
MEMORY_FACTOR = 64  # ... and per byte read (feedparser builds a tree of the whole feed)


class Finding(AssertionError):
    """An invariant does not hold for an input."""


@dataclass(frozen=True)
class Case:
    """What a fuzz input asks for: the document and how to read it."""

    doc: bytes
    url: str
    limits: Limits
    resolve_relative: bool
    gzip_members: int  # 0: plain only; 1 or 2: also read gzipped in that many members
    split_seed: int


class _FeedparserOncePerInput:
    """feedparser with its results kept for the input being checked.

    feedparser is a pure function of the bytes it is given, and by far the slowest step
    (a third of a second per hundred feeds): one input reads the same feed three or four
    times. The key is the bytes, so a parse that hands feedparser other bytes than the
    reference did is still parsed, and still compared.
    """

    def __init__(self, real: Any) -> None:
        self.real = real
        self.results: dict[bytes, Any] = {}

    def parse(self, stream: io.BytesIO, **kw: Any) -> Any:
        data = stream.getvalue()
        result = self.results.get(data)
        if result is None:
            result = self.results[data] = self.real.parse(io.BytesIO(data), **kw)
        return result


_FEEDPARSER = _FeedparserOncePerInput(feedparser)


def decode(data: bytes) -> Case:
    head = data[:HEADER].ljust(HEADER, b"\0")
    flags = head[0]
    return Case(
        doc=data[HEADER:],
        url=SITEMAP_URLS[flags & 3],
        limits=LIMITS[(flags >> 2) & 3],
        resolve_relative=bool(flags & 16),
        gzip_members=(0, 0, 0, 0, 0, 0, 1, 2)[flags >> 5],  # a quarter: the gzip run costs
        split_seed=int.from_bytes(head[1:], "big"),
    )


# -- driving the parser -------------------------------------------------------------------


def run(case: Case, pieces: Sequence[bytes], *, fast: bool) -> list[Event]:
    parser = SitemapParser(
        case.url, limits=case.limits, resolve_relative=case.resolve_relative, fast=fast
    )
    events: list[Event] = []
    for piece in pieces:
        events += parser.feed(piece)
    events += parser.close()
    return events


def random_chunks(data: bytes, rng: random.Random) -> list[bytes]:
    """``data`` cut at 1 to 8 random places, or into runs of 1 to 7 bytes."""
    if len(data) <= 2048 and rng.random() < 0.1:
        size = rng.randint(1, 7)
        return [data[i : i + size] for i in range(0, len(data), size)]
    cuts = sorted(rng.randint(0, len(data)) for _ in range(rng.randint(1, 8)))
    bounds = [0, *cuts, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(bounds)]


def gzipped(doc: bytes, members: int, rng: random.Random) -> bytes:
    if members == 1 or len(doc) < 2:
        return gzip.compress(doc, mtime=0)
    cut = rng.randint(1, len(doc) - 1)
    return gzip.compress(doc[:cut], mtime=0) + gzip.compress(doc[cut:], mtime=0)


def _same(label: str, got: list[Event], want: list[Event]) -> None:
    if got == want:
        return
    for i, (a, b) in enumerate(zip(got, want, strict=False)):
        if a != b:
            raise Finding(f"{label}: event {i} differs:\n  got  {a!r}\n  want {b!r}")
    raise Finding(f"{label}: {len(got)} events, want {len(want)}: {got[-3:]!r} / {want[-3:]!r}")


@dataclass
class Outcome:
    """What one input gave, for the campaign's tallies."""

    events: list[Event]
    kept: int  # entries the scope filter kept
    dropped: int  # entries it dropped
    # The reads compared with the reference (the exact path, whole), each as "how, path":
    # "chunks fast", "bytes exact", "gzip fast", ...; and "memory" when that was checked.
    runs: tuple[str, ...] = ()


def check(data: bytes, *, memory: bool = False) -> Outcome:
    """Run every invariant on one input (see the module docstring); raise Finding on a breach.

    Warnings are errors meanwhile (as under pytest): a warning out of the parser is raised.
    feedparser's results are kept for the input (see _FeedparserOncePerInput) meanwhile.
    """
    namespace = vars(_feed)  # (parse_feed calls feedparser.parse through this name)
    namespace["feedparser"] = _FEEDPARSER
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            return _check(data, memory)
    finally:
        namespace["feedparser"] = _FEEDPARSER.real
        _FEEDPARSER.results.clear()


def _check(data: bytes, memory: bool) -> Outcome:
    case = decode(data)
    doc = case.doc
    rng = random.Random(case.split_seed)
    # The exact path read whole is the reference; the other runs change the path and the
    # split at once (a differential test of the scanner and a split test in one run).
    reference = run(case, [doc], fast=False)
    check_events(reference, case)
    fast = bool(case.split_seed & 1)
    path, other = ("fast", "exact") if fast else ("exact", "fast")
    runs = [f"chunks {path}"]
    _same(f"random chunks, fast={fast}", run(case, random_chunks(doc, rng), fast=fast), reference)
    if len(doc) <= BYTEWISE_MAX:
        bytewise = [doc[i : i + 1] for i in range(len(doc))]
        _same(f"byte by byte, fast={not fast}", run(case, bytewise, fast=not fast), reference)
        runs.append(f"bytes {other}")
    if case.gzip_members and doc[:2] != b"\x1f\x8b":  # (a gzip in a gzip is read as text)
        packed = gzipped(doc, case.gzip_members, rng)
        _same(
            f"gzip in {case.gzip_members} member(s), chunked",
            run(case, random_chunks(packed, rng), fast=not fast),
            reference,
        )
        runs.append(f"gzip {other}")
    if memory:
        check_memory(case)
        runs.append("memory")
    kept, dropped = check_scope(reference, case)
    return Outcome(reference, kept, dropped, tuple(runs))


# -- the invariants on one list of events ---------------------------------------------------


def check_events(events: list[Event], case: Case) -> None:
    fatal = [i for i, e in enumerate(events) if isinstance(e, Problem) and e.fatal]
    if len(fatal) > 1 or (fatal and fatal[0] != len(events) - 1):
        raise Finding(f"a fatal Problem that is not the one last event: {events[-3:]!r}")
    limit = case.limits.max_loc_length
    for event in events:
        if isinstance(event, Entry):
            _check_loc(event.loc, limit, "Entry.loc")
            for alternate in event.alternates:
                _check_loc(alternate.href, limit, "Alternate.href")
        elif isinstance(event, SitemapRef):
            _check_loc(event.loc, limit, "SitemapRef.loc")
        elif not isinstance(event, Problem):
            raise Finding(f"an event of an unknown type: {event!r}")


def _check_loc(loc: str, limit: int, what: str) -> None:
    if len(loc) > limit:
        raise Finding(f"{what} of {len(loc)} characters, over max_loc_length={limit}: {loc[:80]!r}")
    try:
        parts = urlsplit(loc)
        host = parts.hostname
    except ValueError as exc:
        raise Finding(f"{what} is no URL urllib can split ({exc}): {loc!r}") from None
    if parts.scheme.lower() not in ("http", "https") or not host:
        raise Finding(f"{what} is not an http(s) URL with a host: {loc!r}")


def check_scope(events: list[Event], case: Case) -> tuple[int, int]:
    """What the walk's STRICT filter keeps, judged by the independent oracle."""
    scope = Scope(case.url, ScopePolicy.STRICT, "")
    page_filter = scope.filter()
    home = normalise(case.url)
    assert home is not None
    folder = home[3][: home[3].rfind("/") + 1]
    kept = dropped = 0
    for event in events:
        if isinstance(event, Entry):
            if page_filter.check(event.loc) is not None:
                dropped += 1
                continue
            kept += 1
            mine = normalise(event.loc)
            if mine is None or mine[:3] != home[:3] or not mine[3].startswith(folder):
                raise Finding(
                    f"the scope filter kept {event.loc!r} for a sitemap at {case.url!r}; "
                    f"it names {mine!r}, outside {home[:3]!r} {folder!r}"
                )
        elif isinstance(event, SitemapRef) and scope.check_child(event.loc) is None:
            mine = normalise(event.loc)
            if mine is None or mine[:3] != home[:3]:
                raise Finding(
                    f"the scope let an index at {case.url!r} name {event.loc!r} ({mine!r})"
                )
    return kept, dropped


# -- the scope oracle: RFC 3986 normalisation, written apart from the code under test ---------

_UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_PCT = re.compile(r"%([0-9A-Fa-f]{2})")
_DEFAULT_PORTS = {"http": 80, "https": 443}
_C0_AND_SPACE = "".join(map(chr, range(0x21)))


def _decode_unreserved(text: str) -> str:
    """-- RFC 3986 section 6.2.2.2: %XX of an unreserved character is that character."""

    def one(m: re.Match[str]) -> str:
        byte = int(m[1], 16)
        return chr(byte) if byte in _UNRESERVED else m[0].upper()

    return _PCT.sub(one, text)


def _remove_dot_segments(path: str) -> str:
    """-- RFC 3986 section 5.2.4, as the section writes it."""
    out: list[str] = []
    while path:
        if path.startswith("../"):
            path = path[3:]
        elif path.startswith(("./", "/./")):
            path = path[2:]
        elif path == "/.":
            path = "/"
        elif path.startswith("/../"):
            path = path[3:]
            if out:
                out.pop()
        elif path == "/..":
            path = "/"
            if out:
                out.pop()
        elif path in (".", ".."):
            path = ""
        else:
            start = 1 if path.startswith("/") else 0
            end = path.find("/", start)
            end = len(path) if end < 0 else end
            out.append(path[:end])
            path = path[end:]
    return "".join(out)


def normalise(url: str) -> tuple[str, str, int, str] | None:
    """(scheme, host, port, path) of the resource ``url`` names; None for no http(s) URL.

    What a fetcher does first is done here too: white space at the ends and tabs and line
    breaks anywhere are removed (WHATWG URL, which yarl follows), then RFC 3986's syntax-based
    normalisation (case, percent-encoding of unreserved characters, dot segments).
    """
    url = re.sub(r"[\t\n\r]", "", url).strip(_C0_AND_SPACE)
    try:
        parts = urlsplit(url)
        port = parts.port
        host = parts.hostname
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not host:
        return None
    host = _decode_unreserved(host).lower().rstrip(".")
    if not host.isascii():
        try:
            host = host.encode("idna").decode("ascii").lower()
        except UnicodeError:
            return None
    path = _remove_dot_segments(_decode_unreserved(parts.path)) or "/"
    return scheme, host, _DEFAULT_PORTS[scheme] if port is None else port, path


# -- memory -----------------------------------------------------------------------------


def check_memory(case: Case) -> None:
    """The parse's tracemalloc peak, under a bound linear in the bytes it read."""
    tracemalloc.start()
    try:
        parser = SitemapParser(case.url, limits=case.limits, resolve_relative=case.resolve_relative)
        for piece in random_chunks(case.doc, random.Random(case.split_seed)):
            parser.feed(piece)
        parser.close()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    read = max(parser.bytes_read, len(case.doc))
    bound = MEMORY_SLACK + MEMORY_FACTOR * read
    if peak > bound:
        raise Finding(f"a parse of {read:,} bytes peaked at {peak:,} bytes (bound {bound:,})")
