"""One test per attack (docs/architecture.md, "Limits and attacks"): entity expansion, external entities and DTDs, gzip
bombs, oversized tokens, and feedparser's habit of opening paths. Remote content never makes
the parser raise, expand, resolve or read anything."""

from __future__ import annotations

import io
import tracemalloc
import zlib
from pathlib import Path
from typing import Any

import feedparser
import pytest

from sitemap_reader import Event, Format, Limits, Problem, SitemapParser
from sitemap_reader._core._doc import Document
from sitemap_reader._core._formats._feed import parse_feed
from tests.support.helpers import (
    SITEMAP_NS,
    URL,
    bomb_stream,
    entries,
    fatal,
    kinds,
    locs,
    parse,
    parse_chunks,
    sized,
)

SECRET = "TOPSECRET-6f1c2a"


@pytest.fixture
def secret_file(tmp_path: Path) -> Path:
    """A local file whose contents must never show up in any event."""
    path = tmp_path / "secret.txt"
    path.write_text(SECRET + "\n")
    return path


def _assert_fatal(events: list[Event], kind: str) -> Problem:
    """The last event is a fatal Problem of ``kind``; return it."""
    last = fatal(events)
    assert last is not None and last.kind == kind, events
    return last


# -- entities -------------------------------------------------------------------------------

BILLION_LAUGHS = (
    '<?xml version="1.0"?>\n<!DOCTYPE urlset [\n <!ENTITY lol "lol">\n'
    + "".join(
        f' <!ENTITY lol{i} "{("&lol" + str(i - 1) + ";") * 10 if i > 1 else "&lol;" * 10}">\n'
        for i in range(1, 10)
    )
    + f']>\n<urlset xmlns="{SITEMAP_NS}"><url><loc>https://example.com/&lol9;</loc></url></urlset>\n'
).encode()


def test_billion_laughs_is_refused_unexpanded(fast: bool) -> None:
    """Nested entity declarations end the document with `unsafe-xml`; nothing is expanded."""
    for chunks in (None, 1, 64):
        events = parse(BILLION_LAUGHS, chunks, fast=fast)
        _assert_fatal(events, "unsafe-xml")
        assert entries(events) == []
        assert "lollol" not in repr(events)
        assert len(repr(events)) < 1000


def test_xxe_local_file_is_never_read(fast: bool, secret_file: Path) -> None:
    """An external entity naming a local file is refused (`unsafe-xml`); its contents never appear."""
    doc = (
        f'<?xml version="1.0"?>\n<!DOCTYPE urlset [<!ENTITY xxe SYSTEM "{secret_file.as_uri()}">]>\n'
        f'<urlset xmlns="{SITEMAP_NS}"><url><loc>https://example.com/&xxe;</loc></url></urlset>\n'
    ).encode()
    for chunks in (None, 1):
        events = parse(doc, chunks, fast=fast)
        assert "'xxe'" in _assert_fatal(events, "unsafe-xml").message
        assert SECRET not in repr(events)


def test_parameter_entity_from_a_local_dtd_is_refused(fast: bool, tmp_path: Path) -> None:
    """A parameter entity pulling in an external DTD is refused before anything is loaded."""
    dtd = tmp_path / "evil.dtd"
    dtd.write_text(f'<!ENTITY leak "{SECRET}">\n')
    doc = (
        f'<?xml version="1.0"?>\n<!DOCTYPE urlset [<!ENTITY % p SYSTEM "{dtd.as_uri()}"> %p;]>\n'
        f'<urlset xmlns="{SITEMAP_NS}"><url><loc>https://example.com/&leak;</loc></url></urlset>\n'
    ).encode()
    events = parse(doc, fast=fast)
    _assert_fatal(events, "unsafe-xml")
    assert SECRET not in repr(events)


def test_external_dtd_is_never_loaded_and_its_entities_refused(fast: bool, tmp_path: Path) -> None:
    """A DOCTYPE naming an external DTD is not loaded; an entity it would declare ends the
    document (`unsafe-xml`) rather than being silently dropped from the loc."""
    dtd = tmp_path / "evil.dtd"
    dtd.write_text(f'<!ENTITY leak "{SECRET}">\n')
    doc = (
        f'<?xml version="1.0"?>\n<!DOCTYPE urlset SYSTEM "{dtd.as_uri()}">\n'
        f'<urlset xmlns="{SITEMAP_NS}"><url><loc>https://example.com/ok</loc></url>\n'
        "<url><loc>https://example.com/&leak;</loc></url></urlset>\n"
    ).encode()
    events = parse(doc, fast=fast)
    assert locs(events) == ["https://example.com/ok"]  # never "https://example.com/"
    _assert_fatal(events, "unsafe-xml")
    assert SECRET not in repr(events)


def test_unparsed_entity_is_refused(fast: bool, secret_file: Path) -> None:
    """An unparsed (NDATA) entity declaration is refused too."""
    doc = (
        f'<?xml version="1.0"?>\n<!DOCTYPE urlset [<!NOTATION n SYSTEM "x">'
        f'<!ENTITY u SYSTEM "{secret_file.as_uri()}" NDATA n>]>\n'
        f'<urlset xmlns="{SITEMAP_NS}"><url><loc>https://example.com/</loc></url></urlset>\n'
    ).encode()
    events = parse(doc, fast=fast)
    _assert_fatal(events, "unsafe-xml")
    assert entries(events) == []


def test_a_doctype_without_declarations_is_tolerated(fast: bool) -> None:
    """A bare DOCTYPE (some generators write one) is harmless and the document is read."""
    doc = f'<?xml version="1.0"?>\n<!DOCTYPE urlset>\n<urlset xmlns="{SITEMAP_NS}"><url><loc>https://a.org/</loc></url></urlset>'
    events = parse(doc.encode(), fast=fast)
    assert locs(events) == ["https://a.org/"]
    assert fatal(events) is None


@pytest.mark.parametrize("junk", [b"", b"<script>track()</script>\n"], ids=["plain", "after-junk"])
def test_xxe_in_a_feed_is_refused(secret_file: Path, junk: bytes) -> None:
    """Feeds are refused the same way, also when read leniently after junk (feedparser never sees them)."""
    doc = (
        junk
        + (
            f'<?xml version="1.0"?>\n<!DOCTYPE rss [<!ENTITY xxe SYSTEM "{secret_file.as_uri()}">]>\n'
            '<rss version="2.0"><channel><title>T</title>'
            "<item><link>https://example.com/&xxe;</link></item></channel></rss>\n"
        ).encode()
    )
    events = parse(doc)
    _assert_fatal(events, "unsafe-xml")
    assert SECRET not in repr(events)
    assert entries(events) == []


# -- sizes ----------------------------------------------------------------------------------


def test_gzip_bomb_generator_is_what_it_claims() -> None:
    """The bomb helper really inflates to prefix + fill (checked on a small one)."""
    data = b"".join(bomb_stream(b"<x>", b"\0", 4 << 20))
    inflated = zlib.decompressobj(wbits=31).decompress(data)
    assert inflated[:3] == b"<x>" and len(inflated) == 3 + (4 << 20)
    assert inflated.count(0) == 4 << 20


@pytest.mark.parametrize(
    ("prefix", "fill"),
    [
        (b"", b"\0"),  # a classic: one gigabyte of zeros (read as text)
        (
            f'<?xml version="1.0"?><urlset xmlns="{SITEMAP_NS}">'
            "<url><loc>https://example.com/</loc></url>".encode(),
            b" ",
        ),  # a sitemap that goes on with white space forever
    ],
    ids=["zeros", "xml-whitespace"],
)
@pytest.mark.usefixtures("zlib_core")
def test_gzip_bomb_is_cut_at_max_bytes_in_bounded_memory(prefix: bytes, fill: bytes) -> None:
    """A 1 GiB gzip bomb fed in 64 KiB chunks stops at Limits.max_bytes (`too-large`) with a small peak."""
    max_bytes = 16 << 20
    parser = SitemapParser(URL, limits=Limits(max_bytes=max_bytes))
    events: list[Event] = []
    fed = 0
    tracemalloc.start()
    try:
        for chunk in bomb_stream(prefix, fill, 1 << 30):
            events += parser.feed(chunk)
            fed += len(chunk)
            if parser.ended:
                break
        events += parser.close()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    _assert_fatal(events, "too-large")
    assert parser.bytes_read == max_bytes
    assert fed < 1 << 20  # it stopped long before the end of the compressed stream
    assert peak < 20 << 20, f"peak {peak:,} bytes"
    assert locs(events) == (["https://example.com/"] if prefix else [])


def test_plain_document_over_max_bytes_is_cut() -> None:
    """Uncompressed input is capped the same way, keeping the entries before the cap."""
    doc = b"".join(b"https://example.com/%d\n" % i for i in range(1000))
    events = parse(doc, 4096, limits=Limits(max_bytes=1000))
    _assert_fatal(events, "too-large")
    assert len(entries(events)) == sum(1 for line in doc[:1000].split(b"\n")[:-1])


def _streamed(
    prefix: bytes, fill: bytes, total: int, suffix: bytes, **kw: Any
) -> tuple[list[Event], int]:
    """Feed ``prefix``, ``total`` bytes of ``fill`` in 64 KiB chunks and ``suffix``; return the
    events and the peak of traced memory."""
    parser = SitemapParser(URL, **kw)
    chunk = fill * (65_536 // len(fill))
    tracemalloc.start()
    try:
        events = parser.feed(prefix)
        sent = 0
        while sent < total and not parser.ended:
            events += parser.feed(chunk)
            sent += len(chunk)
        events += parser.feed(suffix) + parser.close()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return events, peak


HEAD = f'<?xml version="1.0"?>\n<urlset xmlns="{SITEMAP_NS}">\n<url><loc>https://example.com/first</loc></url>\n'.encode()


@pytest.mark.parametrize(
    ("opening", "closing"),
    [
        (b"<url><loc>https://example.com/", b"</loc></url>"),  # a huge text node
        (b"<url><loc><![CDATA[", b"]]></loc></url>"),  # a huge CDATA section
        (b"<!--", b"-->"),  # a comment that never ends
        (b'<url data="', b'"/>'),  # an attribute value that never ends
    ],
    ids=["text", "cdata", "comment", "attribute"],
)
def test_huge_token_ends_the_document(fast: bool, opening: bytes, closing: bytes) -> None:
    """A token over max_token_bytes, streamed in chunks, ends the document (`token-too-large`) in bounded memory."""
    events, peak = _streamed(
        HEAD + opening,
        b"x",
        8 << 20,
        closing + b"</urlset>",
        fast=fast,
        limits=Limits(max_bytes=1 << 30),
    )
    assert locs(events) == ["https://example.com/first"]
    assert "1,048,576" in _assert_fatal(events, "token-too-large").message
    assert peak < 12 << 20, f"peak {peak:,} bytes"


def test_huge_text_node_verdict_does_not_depend_on_the_split(fast: bool) -> None:
    """The token limit gives the same events (line number included) fed whole or in pieces."""
    doc = HEAD + b"<url><loc>https://example.com/" + b"x\n" * 3000 + b"</loc></url></urlset>"
    limits = Limits(max_token_bytes=1000)
    runs = [parse(doc, chunks, fast=fast, limits=limits) for chunks in (None, 7, 100, 4096)]
    assert all(run == runs[0] for run in runs)
    assert _assert_fatal(runs[0], "token-too-large").message.endswith("at line 4")


def test_long_white_space_between_elements_is_fine(fast: bool) -> None:
    """Megabytes of white space between entries (1C-Bitrix files have them) are not a token."""
    events, _ = _streamed(
        HEAD, b" \n", 4 << 20, b"<url><loc>https://example.com/last</loc></url></urlset>", fast=fast
    )
    assert locs(events) == ["https://example.com/first", "https://example.com/last"]
    assert fatal(events) is None


@pytest.mark.parametrize("depth", [256, 257])
def test_nesting_deeper_than_256_ends_the_document(fast: bool, depth: int) -> None:
    """Expat keeps every open element: nesting is cut past libxml2's 256 levels, the entries
    before kept (and the one cut, its <loc> read: cut-entry); 256 levels are read (and cost
    nothing)."""
    extra = depth - 2  # inside urlset and url
    data = (
        HEAD
        + b"<url><loc>https://example.com/a</loc>"
        + b"<x>" * extra
        + b"</x>" * extra
        + b"</url></urlset>"
    )
    events = parse(data, fast=fast)
    problem = fatal(events)
    if depth <= 256:
        assert problem is None
        assert locs(events) == ["https://example.com/first", "https://example.com/a"]
    else:
        assert problem is not None and problem.kind == "too-nested"
        assert "nested more than 256 deep" in problem.message
        assert locs(events) == ["https://example.com/first", "https://example.com/a"]
        assert kinds(events) == ["cut-entry", "too-nested"]


# -- misuse and feedparser ------------------------------------------------------------------


def test_feed_after_close_raises() -> None:
    """Feeding a closed parser is a programming error: RuntimeError, not a Problem."""
    parser = SitemapParser(URL)
    parser.feed(b"https://example.com/a\n")
    parser.close()
    with pytest.raises(RuntimeError):
        parser.feed(b"more")
    assert parser.close() == []


def test_a_document_that_is_a_path_yields_nothing_of_that_file(secret_file: Path) -> None:
    """Bytes that name an existing file are content, never a path to open."""
    rss = secret_file.with_suffix(".rss")
    rss.write_text(
        f'<rss version="2.0"><channel><item><link>https://example.com/{SECRET}</link></item></channel></rss>'
    )
    for target in (secret_file, rss):
        events = parse(str(target).encode())
        assert SECRET not in repr(events)
        assert kinds(events) == ["relative-loc"]  # the path read as one (relative) text line


def test_parse_feed_never_opens_a_path(secret_file: Path) -> None:
    """The feed step, given bytes that spell a file's path, does not read the file."""
    rss = secret_file.with_suffix(".rss")
    rss.write_text(
        f'<rss version="2.0"><channel><item><link>https://example.com/{SECRET}</link></item></channel></rss>'
    )
    doc = Document(URL, Limits(), False)
    parse_feed(str(rss).encode(), Format.RSS, doc)
    assert SECRET not in repr(doc.take())


def test_feedparser_only_ever_gets_a_byte_stream(monkeypatch: pytest.MonkeyPatch) -> None:
    """feedparser.parse is called with a file object over bytes, never a str or bytes it could open."""
    calls: list[object] = []
    original = feedparser.parse

    def spy(source: object, *args: Any, **kwargs: Any) -> Any:
        calls.append(source)
        return original(source, *args, **kwargs)

    monkeypatch.setattr(feedparser, "parse", spy)
    feed = (
        b'<?xml version="1.0"?><rss version="2.0"><channel><title>T</title>'
        b"<item><link>https://example.com/1</link></item></channel></rss>"
    )
    for chunks in (None, 5):
        assert locs(parse_chunks(sized(feed, chunks or len(feed)))) == ["https://example.com/1"]
    assert len(calls) == 2
    assert all(isinstance(source, io.BytesIO) for source in calls)
