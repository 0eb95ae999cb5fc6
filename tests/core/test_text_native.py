"""The compiled plain-text handler against its Python reference: same events, any split.

Hypothesis builds text sitemaps (absolute, relative and broken URLs, prose, blank and
white-space lines, CRLF/CR/LF line ends, a BOM at the start or later, bytes that are not
UTF-8, lines over the bound, a cut end) and reads them under default or small limits
(``max_token_bytes``, ``max_urls`` with and without the cut, ``max_loc_length``,
``max_bytes``), with and without ``resolve_relative``. ``SitemapParser`` with the compiled
handler, fed whole, at every two-way split and byte by byte, must give exactly the events
of the reference fed whole; the corpus' text files too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any
from unittest import mock

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from sitemap_reader import Entry, Event, Format, Limits, Problem, ProblemKind, SitemapParser
from sitemap_reader._core import _parser
from sitemap_reader._core._doc import Document
from sitemap_reader._core._formats import _textcore
from sitemap_reader._core._formats._text import TextHandler
from sitemap_reader._core._formats._textnative import NativeTextHandler
from tests.support.helpers import CORPUS, bytewise, needs_corpus, two_way_splits

URL = "https://example.com/dir/sitemap.txt"
SCANNER, WHICH = _textcore._choose()
needs_compiled = pytest.mark.skipif(
    SCANNER is None, reason=f"the compiled core is not in use ({WHICH})"
)
pytestmark = needs_compiled


def _native(doc: Document) -> NativeTextHandler:
    assert SCANNER is not None
    return NativeTextHandler(doc, SCANNER)


@contextmanager
def _handler(make: Callable[[Document], Any]) -> Iterator[None]:
    """SitemapParser with this text handler (the chooser's pick swapped for one read)."""
    with mock.patch.object(_parser, "text_handler", make):
        yield


def read(make: Callable[[Document], Any], pieces: Sequence[bytes], **kw: Any) -> list[Event]:
    with _handler(make):
        parser = SitemapParser(URL, **kw)
        events: list[Event] = []
        for piece in pieces:
            events += parser.feed(piece)
        events += parser.close()
    assert parser.format in (Format.TEXT, None) or not pieces
    return events


def assert_same(doc: bytes, *, splits: bool = True, **kw: Any) -> list[Event]:
    expected = read(TextHandler, [doc], **kw)
    assert read(_native, [doc], **kw) == expected
    if splits:
        for pieces in two_way_splits(doc):
            assert read(_native, pieces, **kw) == expected, pieces
        assert read(_native, bytewise(doc), **kw) == expected
    return expected


# -- documents ---------------------------------------------------------------------------

_LINE = st.one_of(
    st.sampled_from(
        [
            "https://example.com/dir/a",
            "http://example.com/dir/b?x=1&y=2",
            "HTTPS://EXAMPLE.COM/dir/C",
            "https://example.com/dir/caf\u00e9",
            "https://other.example/x",
            "https://@/x",
            "http://[::1/",
            "/dir/relative",
            "relative/path",
            "//example.com/dir/z",
            "/a path with spaces",
            '/quote"d',
            "ftp://example.com/f",
            "not a url",
            "User-agent: *",
            "# a comment",
            "",
            "\ufeffhttps://example.com/dir/bom-later",
        ]
    ),
    st.text(st.characters(codec="utf-8", exclude_characters="\r\n"), max_size=12),
)
_BYTES = st.sampled_from([b"\xff", b"\xe9", b"\xc3", b"\xe6\x97", b"\x81\x40", b"\x00"])
_PAD = st.sampled_from(["", " ", "\t", "  \t", "\x0b", "\x0c"])
_END = st.sampled_from([b"\n", b"\r\n", b"\r", b"\n\n", b"\r\n\r\n"])


@st.composite
def _line(draw: st.DrawFn) -> bytes:
    text = draw(_PAD) + draw(_LINE) + draw(_PAD)
    raw = text.encode()
    if draw(st.integers(0, 5)) == 0:  # bytes that are not UTF-8, somewhere in the line
        at = draw(st.integers(0, len(raw)))
        raw = raw[:at] + draw(_BYTES) + raw[at:]
    if draw(st.integers(0, 7)) == 0:  # a long line (over the small bounds)
        raw += b"https://example.com/" + b"x" * draw(st.integers(30, 120))
    return raw + draw(_END)


@st.composite
def text_docs(draw: st.DrawFn) -> bytes:
    doc = b"".join(draw(st.lists(_line(), min_size=1, max_size=8)))
    if draw(st.booleans()):
        doc = b"\xef\xbb\xbf" + doc
    if draw(st.integers(0, 3)) == 0:
        doc = doc[: draw(st.integers(1, len(doc)))]  # cut anywhere
    # A first significant "<" routes the document to the XML reader (_sniff.route): not a
    # text document, which this generator makes.
    assume(not doc.removeprefix(b"\xef\xbb\xbf").lstrip(b" \t\r\n").startswith(b"<"))
    return doc


_LIMITS = st.sampled_from(
    [
        Limits(),
        Limits(max_token_bytes=48),
        Limits(max_token_bytes=48, max_urls=2),
        Limits(max_urls=2, cut_at_max_urls=True),
        Limits(max_token_bytes=64, max_loc_length=30, max_urls=3, cut_at_max_urls=True),
        Limits(max_bytes=120, max_token_bytes=48),  # cut mid-line: the handler aborted
    ]
)


@settings(max_examples=150, deadline=None)
@given(text_docs(), _LIMITS, st.booleans())
def test_generated_documents_read_alike_at_every_split(
    doc: bytes, limits: Limits, resolve_relative: bool
) -> None:
    assert_same(doc, limits=limits, resolve_relative=resolve_relative)


# -- what the generator makes rare ------------------------------------------------------


@pytest.mark.parametrize(
    "doc",
    [
        b"https://example.com/dir/a\r\nhttps://example.com/dir/b\rhttps://example.com/dir/c\n",
        b"\xef\xbb\xbf\xef\xbb\xbfhttps://example.com/dir/a\n",
        b"\n\n \t \x0b\x0c\r\n",  # white space only: no line holds anything
        b"not a url\nnor this\n\xff\xfe\n",  # no sitemap: unknown-format alone
        b"/a\n/b\nx\n",  # paths: a sitemap whose URLs are relative
        b"https://example.com/dir/\xe9\xff \x80\n",
        b"x" * 200 + b"\nhttps://example.com/dir/a\n" + b"y" * 200,
    ],
)
@pytest.mark.parametrize("resolve_relative", [False, True])
def test_hand_made_documents(doc: bytes, resolve_relative: bool) -> None:
    assert_same(doc, limits=Limits(max_token_bytes=100), resolve_relative=resolve_relative)


def test_max_urls_cut_ends_the_read_at_the_same_line() -> None:
    doc = b"".join(b"https://example.com/dir/%d\n" % i for i in range(10))
    events = assert_same(doc, limits=Limits(max_urls=4, cut_at_max_urls=True))
    assert events[-1] == Problem(
        kind=ProblemKind.TOO_MANY_URLS,
        url=URL,
        message="more than 4 entries: the document was cut there",
        fatal=True,
    )
    assert len(events) == 5


def test_a_charset_from_the_content_type_is_decoded_first() -> None:
    # (Not ISO-8859-1: a label servers add unasked is judged on the first chunk, so that
    # read depends on the split before the text handler is reached.)
    doc = "https://example.com/dir/caf\u00e9\n/\u00e9\n".encode("iso-8859-15")
    events = assert_same(doc, content_type="text/plain; charset=iso-8859-15")
    assert [e.loc for e in events if isinstance(e, Entry)] == ["https://example.com/dir/caf\u00e9"]


# -- the corpus -------------------------------------------------------------------------


@needs_corpus
@pytest.mark.parametrize("path", sorted((CORPUS / "text").glob("*")), ids=lambda p: p.name)
def test_corpus_text_files(path: Any) -> None:
    data = path.read_bytes()
    # Every split of a small file; chunks of a few sizes of a large one (as the reader's).
    if len(data) <= 4096:
        assert_same(data)
    else:
        expected = assert_same(data, splits=False)
        for size in (1, 7, 4096, 65536):
            pieces = [data[i : i + size] for i in range(0, len(data), size)]
            assert read(_native, pieces) == expected


# -- the contract of the bindings -------------------------------------------------------


def test_a_scanner_after_close_refuses_more() -> None:
    assert SCANNER is not None
    scanner = SCANNER(max_line_bytes=10)
    assert scanner.feed(b"a\nb") == [(0, "a")]
    assert scanner.close() == [(0, "b")]
    assert (scanner.lines, scanner.urlish, scanner.error) == (2, False, None)
    with pytest.raises(RuntimeError, match="after close"):
        scanner.feed(b"c")
    assert scanner.close() == []


def test_the_chooser_falls_back_to_the_reference_when_asked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SITEMAP_READER_PURE", "1")
    _textcore._choose.cache_clear()
    try:
        assert _textcore.describe() == "text: python, SITEMAP_READER_PURE"
        handler = _textcore.text_handler(Document(URL, Limits(), False))
        assert isinstance(handler, TextHandler)
    finally:
        _textcore._choose.cache_clear()
    monkeypatch.delenv("SITEMAP_READER_PURE")
    assert isinstance(_textcore.text_handler(Document(URL, Limits(), False)), NativeTextHandler)
