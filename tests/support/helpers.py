"""Shared helpers for the core tests: drive a SitemapParser over chunked bytes, build documents.

Every run through :func:`parse_chunks` also checks the parser's event contract (at most one
fatal Problem, and it comes last), so no test can pass on a parser that breaks it.
"""

from __future__ import annotations

import gzip
import itertools
import os
import random
import sys
import zlib
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import brotli
import pytest

from sitemap_reader import Entry, Event, Problem, SitemapParser, SitemapRef

if sys.version_info >= (3, 14):
    from compression import zstd
else:
    from backports import zstd

URL = "https://example.com/dir/sitemap.xml"
SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"
VIDEO_NS = "http://www.google.com/schemas/sitemap-video/1.1"
NEWS_NS = "http://www.google.com/schemas/sitemap-news/0.9"
XHTML_NS = "http://www.w3.org/1999/xhtml"

# The corpus directory sits next to the checkout by default: <parent>/shared/corpus
# (docs/contributing.md, "The corpus").
# SITEMAP_READER_CORPUS points elsewhere (the test that CI refuses to run without it uses it).
CORPUS = Path(
    os.environ.get("SITEMAP_READER_CORPUS")
    or Path(__file__).resolve().parents[3] / "shared" / "corpus"
)
needs_corpus = pytest.mark.skipif(
    not (CORPUS / "MANIFEST.tsv").is_file(),
    reason=f"the real-world corpus is not checked out next to the repository ({CORPUS})",
)


# -- driving the parser ----------------------------------------------------------------


def parse_chunks(pieces: Iterable[bytes], *, url: str = URL, **kw: Any) -> list[Event]:
    """Feed ``pieces`` one by one, then close; return every event, contract checked."""
    parser = SitemapParser(url, **kw)
    events: list[Event] = []
    for piece in pieces:
        events += parser.feed(piece)
    events += parser.close()
    check_contract(events)
    return events


def parse(data: bytes, chunks: int | None = None, **kw: Any) -> list[Event]:
    """Parse ``data`` whole, or in chunks of ``chunks`` bytes."""
    return parse_chunks(whole(data) if chunks is None else sized(data, chunks), **kw)


def check_contract(events: Sequence[Event]) -> None:
    """At most one fatal Problem, always the last event."""
    fatal = [i for i, e in enumerate(events) if isinstance(e, Problem) and e.fatal]
    assert len(fatal) <= 1, events
    if fatal:
        assert fatal[0] == len(events) - 1, events


# -- splitting -------------------------------------------------------------------------


def whole(data: bytes) -> list[bytes]:
    return [data]


def bytewise(data: bytes) -> list[bytes]:
    return [data[i : i + 1] for i in range(len(data))]


def sized(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


def two_way_splits(data: bytes) -> Iterator[list[bytes]]:
    """``[data[:i], data[i:]]`` for every ``i`` in ``range(len(data) + 1)`` (docs/architecture.md, "Chunks")."""
    for i in range(len(data) + 1):
        yield [data[:i], data[i:]]


def cut_at(data: bytes, positions: Iterable[int]) -> list[bytes]:
    """``data`` cut at ``positions`` (any order, taken modulo ``len(data) + 1``)."""
    cuts = sorted(p % (len(data) + 1) for p in positions)
    return [data[a:b] for a, b in itertools.pairwise([0, *cuts, len(data)])]


def random_splits(data: bytes, seed: int, *, parts: int = 3) -> list[bytes]:
    """``data`` cut into ``parts`` pieces at seeded random positions (empty pieces allowed)."""
    rng = random.Random(seed)
    return cut_at(data, (rng.randint(0, len(data)) for _ in range(parts - 1)))


def every_split(data: bytes) -> Iterator[list[bytes]]:
    """``data`` whole, byte by byte, in two at every position, and in five at seeded random ones."""
    yield whole(data)
    yield bytewise(data)
    yield from two_way_splits(data)
    for seed in range(10):
        yield random_splits(data, seed, parts=5)


def gz(data: bytes) -> bytes:
    """Deterministic gzip (mtime 0), so compressed fixtures never change between runs."""
    return gzip.compress(data, mtime=0)


def encode(data: bytes, coding: str) -> bytes:
    """``data`` in a content coding: gzip, deflate (zlib-wrapped, as HTTP says), deflate-raw
    (what some servers send as deflate), br or zstd."""
    if coding == "gzip":
        return gz(data)
    if coding == "deflate":
        return zlib.compress(data)
    if coding == "br":
        return bytes(brotli.compress(data, quality=5))  # Apache's default, and fast
    if coding == "zstd":
        return zstd.compress(data)
    assert coding == "deflate-raw", coding
    raw = zlib.compressobj(wbits=-15)
    return raw.compress(data) + raw.flush()


# -- looking at events ----------------------------------------------------------------


def entries(events: Iterable[Event]) -> list[Entry]:
    return [e for e in events if isinstance(e, Entry)]


def refs(events: Iterable[Event]) -> list[SitemapRef]:
    return [e for e in events if isinstance(e, SitemapRef)]


def locs(events: Iterable[Event]) -> list[str]:
    return [e.loc for e in events if isinstance(e, (Entry, SitemapRef))]


def problems(events: Iterable[Event]) -> list[Problem]:
    return [e for e in events if isinstance(e, Problem)]


def kinds(events: Iterable[Event]) -> list[str]:
    return [e.kind for e in events if isinstance(e, Problem)]


def problem(events: Iterable[Event], kind: str) -> Problem:
    """The one Problem of ``kind`` (fails when there is none, or several)."""
    found = [e for e in problems(events) if e.kind == kind]
    assert len(found) == 1, f"expected one {kind!r} problem in {list(events)!r}"
    return found[0]


def fatal(events: Sequence[Event]) -> Problem | None:
    last = events[-1] if events else None
    return last if isinstance(last, Problem) and last.fatal else None


# -- building documents ---------------------------------------------------------------


def urlset(*blocks: str, ns: str | None = SITEMAP_NS, extra: str = "", decl: bool = True) -> str:
    """A urlset document around ``blocks`` (each a ``<url>...</url>`` string)."""
    xmlns = f' xmlns="{ns}"' if ns is not None else ""
    head = '<?xml version="1.0" encoding="UTF-8"?>\n' if decl else ""
    return f"{head}<urlset{xmlns}{extra}>\n" + "\n".join(blocks) + "\n</urlset>\n"


def index(*blocks: str, ns: str | None = SITEMAP_NS) -> str:
    """A sitemapindex document around ``blocks`` (each a ``<sitemap>...</sitemap>`` string)."""
    xmlns = f' xmlns="{ns}"' if ns is not None else ""
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex{xmlns}>\n'
        + "\n".join(blocks)
        + "\n</sitemapindex>\n"
    )


def url_block(loc: str, **fields: str) -> str:
    """``<url><loc>..</loc>`` plus ``fields`` as child elements, in the given order."""
    inner = "".join(f"<{k}>{v}</{k}>" for k, v in fields.items())
    return f"<url><loc>{loc}</loc>{inner}</url>"


def sitemap_block(loc: str, lastmod: str | None = None) -> str:
    last = f"<lastmod>{lastmod}</lastmod>" if lastmod is not None else ""
    return f"<sitemap><loc>{loc}</loc>{last}</sitemap>"


def damaged_midway(data: bytes, coding: str) -> bytes:
    """``data`` in ``coding`` (br or zstd), compressed in two halves with a flush between,
    the second half's first header made invalid: a fault that each library detects where it
    is, after the first half. zstd: the block type set to the reserved 3. br: a metadata
    meta-block whose reserved bit is set."""
    half = len(data) // 2
    if coding == "zstd":
        z = zstd.ZstdCompressor()
        first = z.compress(data[:half]) + z.flush(zstd.ZstdCompressor.FLUSH_BLOCK)
        second = bytearray(z.compress(data[half:]) + z.flush(zstd.ZstdCompressor.FLUSH_FRAME))
        second[0] |= 0b110
    else:
        assert coding == "br", coding
        b = brotli.Compressor(quality=5)
        first = b.process(data[:half]) + b.flush()
        second = bytearray(b.process(data[half:]) + b.finish())
        second[0] = 0b1110  # ISLAST 0, MNIBBLES 0 (metadata), reserved bit 1
    return bytes(first + second)


def bomb_stream(
    prefix: bytes, fill: bytes, total: int, *, coding: str = "gzip", chunk: int = 65_536
) -> Iterator[bytes]:
    """A ``coding`` stream of ``prefix`` and then ``total`` bytes of ``fill``, made lazily.

    gzip and deflate (zlib or raw): after a full flush deflate starts afresh, so one MiB of ``fill`` always
    compresses to the same bytes and the stream is that block repeated. br and zstd: each MiB
    is compressed as it comes, at the fastest level (a few milliseconds). Nothing near
    ``total`` is ever held. The stream has no end (no trailer): a reader must stop long
    before it anyway.
    """
    block = fill * ((1 << 20) // len(fill))
    pieces: Iterable[bytes]
    if coding in ("gzip", "deflate", "deflate-raw"):
        comp = zlib.compressobj(9, zlib.DEFLATED, {"gzip": 31, "deflate": 15}.get(coding, -15))
        head = comp.compress(prefix) + comp.flush(zlib.Z_FULL_FLUSH)
        repeat = comp.compress(block) + comp.flush(zlib.Z_FULL_FLUSH)
        pieces = itertools.chain([head], itertools.repeat(repeat, total // len(block)))
    else:
        assert coding in ("br", "zstd"), coding
        step = (
            brotli.Compressor(quality=1).process
            if coding == "br"
            else zstd.ZstdCompressor(1).compress
        )
        pieces = (
            step(piece)
            for piece in itertools.chain([prefix], itertools.repeat(block, total // len(block)))
        )
    buf = b""
    for piece in pieces:
        buf += piece
        while len(buf) >= chunk:
            yield buf[:chunk]
            buf = buf[chunk:]
    yield buf


def mixed(base: str, n: int, *, broken_at: int | None = None) -> str:
    """A urlset as multilingual, image-rich sites write it; ``broken_at``: an unclosed tag
    there (not well-formed), so the document ends in a fatal problem."""
    head = (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset '
        f'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="{XHTML_NS}" '
        f'xmlns:image="{IMAGE_NS}" xmlns:news="{NEWS_NS}">\n'
    )
    out = [head]
    for i in range(n):
        if i == broken_at:
            out.append("<url><loc>unclosed</url>\n")
        loc = f"{base}/p/{i}/caf\u00e9?a=1&amp;b=2"
        out.append(f"<url><loc>{loc}</loc><lastmod>2024-0{1 + i % 9}-1{i % 10}</lastmod>")
        if i % 3:
            out.append(f"<changefreq>weekly</changefreq><priority>0.{i % 10}</priority>")
        if i % 4 == 1:
            out.append(
                f'<xhtml:link rel="alternate" hreflang="de" href="{base}/de/p/{i}"/>'
                f"<xhtml:link hreflang='fr' href='{base}/fr/p/{i}' rel='alternate'/>"
            )
        if i % 5 == 2:
            out.append(
                f"<image:image><image:loc>{base}/i/{i}.jpg</image:loc>"
                f"<image:title>T\u00eate &quot;{i}&quot;</image:title></image:image>"
            )
        if i % 50 == 7:
            out.append(
                "<news:news><news:publication><news:name>N</news:name>"
                "<news:language>en</news:language></news:publication>"
                "<news:publication_date>2024-05-01T10:00:00+02:00</news:publication_date>"
                f"<news:title>Story {i}</news:title></news:news>"
            )
        if i == 11:
            out.append("<lastmod>not a date</lastmod>")  # a tolerated problem
        out.append("</url>\n")
    out.append("</urlset>\n")
    return "".join(out)
