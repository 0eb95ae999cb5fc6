"""The urlset tokenizer: the compiled one (``sitemap_reader._native``) against its Python
reference (``_core._xml._urlscan``) and against ``SitemapParser`` itself.

Both tokenizers keep one contract (the tests parametrized over ``py``/``rust``), return
the same texts for the same bytes however they are split (generated documents of the
benchmarks' three shapes, hypothesis-built ones with the values' awkward spellings,
truncated ones, every corpus urlset), and the locs the compiled one reads are, through
the Python core's own loc check, the locs of the entries ``SitemapParser`` yields.
"""

from __future__ import annotations

import gzip
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitemap_reader import DEFAULT_LIMITS, Entry, Format, SitemapParser
from sitemap_reader._core._doc import Document
from sitemap_reader._core._xml import _tokenizer as _native_scan
from sitemap_reader._core._xml._urlscan import PyUrlsetScanner
from tests.support.helpers import (
    CORPUS,
    IMAGE_NS,
    SITEMAP_NS,
    URL,
    bytewise,
    cut_at,
    needs_corpus,
    random_splits,
    sized,
    whole,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import _generate  # found through the path set above

COMPILED = _native_scan.UrlsetScanner if _native_scan.COMPILED else None
needs_compiled = pytest.mark.skipif(
    COMPILED is None, reason=f"the compiled core is not in use ({_native_scan.describe()})"
)

Fields = tuple[str, str | None, str | None, str | None]


def _rust() -> Callable[..., Any]:
    assert COMPILED is not None  # (the tests that call this are marked needs_compiled)
    return COMPILED


Outcome = tuple[list[Fields], str | None]  # the records, the kind of the fault (or None)


def scan(make: Callable[..., Any], pieces: Sequence[bytes], **kw: Any) -> Outcome:
    scanner = make(**kw)
    records: list[Fields] = []
    for piece in pieces:
        records += scanner.feed(piece)
    records += scanner.close()
    error = scanner.error
    return records, None if error is None else error[0]


@pytest.fixture(params=["py", "rust"])
def make(request: pytest.FixtureRequest) -> Callable[..., Any]:
    if request.param == "py":
        return PyUrlsetScanner
    if COMPILED is None:
        pytest.skip(f"the compiled core is not in use ({_native_scan.describe()})")
    return COMPILED


def _urlset(body: str, root: str = f'<urlset xmlns="{SITEMAP_NS}">') -> bytes:
    end = "</" + root[1:].split()[0].rstrip(">") + ">"
    return f'<?xml version="1.0" encoding="UTF-8"?>\n{root}\n{body}\n{end}\n'.encode()


# -- the contract, on both ----------------------------------------------------------------


def test_the_fields_of_each_url(make: Callable[..., Any]) -> None:
    doc = _urlset(
        "<url><loc> https://example.com/a </loc><lastmod>2024-01-02</lastmod>"
        "<changefreq>weekly</changefreq><priority>0.5</priority></url>"
        "<url><priority>1</priority></url>",
        f'<urlset xmlns="{SITEMAP_NS}" xmlns:image="{IMAGE_NS}">',
    )
    assert scan(make, [doc]) == (
        [("https://example.com/a", "2024-01-02", "weekly", "0.5"), ("", None, None, "1")],
        None,
    )


def test_references_are_decoded_once_and_cdata_read_as_it_is(make: Callable[..., Any]) -> None:
    doc = _urlset(
        "<url><loc>https://e.com/?a=1&amp;amp;b&#61;2&#x26;</loc></url>"
        "<url><loc><![CDATA[https://e.com/?a=1&amp;b=<2>]]></loc></url>"
        "<url><loc>https://e.com/<b>bold</b>?<!-- c -->x</loc></url>"
    )
    records, error = scan(make, [doc])
    assert [r[0] for r in records] == [
        "https://e.com/?a=1&amp;b=2&",
        "https://e.com/?a=1&amp;b=<2>",
        "https://e.com/bold?x",  # markup inside a value: its text still counts
    ]
    assert error is None


def test_only_the_sitemap_namespace_gives_fields(make: Callable[..., Any]) -> None:
    doc = _urlset(
        f'<sm:url><sm:loc>https://e.com/a</sm:loc><image:image xmlns:image="{IMAGE_NS}">'
        "<image:loc>https://e.com/i.png</image:loc></image:image>"
        '<o:loc xmlns:o="urn:other">https://e.com/other</o:loc></sm:url>',
        f'<sm:urlset xmlns:sm="{SITEMAP_NS}">',
    )
    assert scan(make, [doc]) == ([("https://e.com/a", None, None, None)], None)


def test_a_doctype_is_tolerated_and_an_entity_never_expanded(make: Callable[..., Any]) -> None:
    body = "<url><loc>https://e.com/a</loc></url>"
    doctype = b'<!DOCTYPE urlset PUBLIC "-//x//EN" "sitemap.dtd">\n'
    assert scan(make, [doctype + _urlset(body)[39:]]) == (
        [("https://e.com/a", None, None, None)],
        None,
    )
    # (after the XML declaration, which must come first)
    assert scan(make, [doctype + _urlset(body)]) == ([], "syntax")
    bomb = b'<!DOCTYPE urlset [<!ENTITY e "https://e.com/x">]>'
    assert scan(make, [bomb + _urlset("<url><loc>&e;</loc></url>")[39:]]) == ([], "entity")


def test_a_cut_document_keeps_its_whole_urls(make: Callable[..., Any]) -> None:
    doc = _urlset("<url><loc>https://e.com/a</loc></url><url><loc>https://e.com/b</loc></url>")
    cut = doc[: doc.index(b"/b<") + 3]
    assert scan(make, [cut]) == ([("https://e.com/a", None, None, None)], "truncated")


@pytest.mark.parametrize(
    ("doc", "kind"),
    [
        (b"<sitemapindex/>", "not-urlset"),
        (b"", "syntax"),
        (_urlset("<url><loc>&nbsp;</loc></url>"), "reference"),
        (_urlset("<url><loc>a</url>"), "syntax"),
        (_urlset("<p:url/>"), "namespace"),
    ],
)
def test_a_fault_ends_the_document(make: Callable[..., Any], doc: bytes, kind: str) -> None:
    assert scan(make, [doc]) == ([], kind)


def test_feeding_after_close_is_a_mistake(make: Callable[..., Any]) -> None:
    scanner = make()
    scanner.feed(_urlset("<url><loc>https://e.com/a</loc></url>"))
    assert scanner.close() == []
    assert scanner.close() == []
    with pytest.raises(RuntimeError, match=r"feed\(\) called after close\(\)"):
        scanner.feed(b"<url/>")


# -- the compiled one against the reference --------------------------------------------------

_SHAPES = {
    "plain": _generate.plain_sitemap,
    "mixed": _generate.mixed_sitemap,
    "cdata": _generate.exact_sitemap,  # values in CDATA, video and news blocks
}


@needs_compiled
@pytest.mark.parametrize("shape", sorted(_SHAPES))
@pytest.mark.parametrize("seed", range(3))
def test_the_benchmark_shapes_read_alike_in_any_split(shape: str, seed: int) -> None:
    doc = _SHAPES[shape](300, seed=seed)
    expected = scan(PyUrlsetScanner, [doc])
    assert len(expected[0]) == 300 and expected[1] is None
    for pieces in (
        whole(doc),
        sized(doc, 65_536),
        sized(doc, 7),
        random_splits(doc, seed, parts=40),
    ):
        assert scan(_rust(), pieces) == expected


@needs_compiled
def test_a_small_document_reads_alike_byte_by_byte() -> None:
    doc = _generate.exact_sitemap(3, seed=1)
    assert scan(_rust(), bytewise(doc)) == scan(PyUrlsetScanner, [doc])


@needs_compiled
def test_a_document_cut_anywhere_keeps_the_same_urls() -> None:
    # Every cut point of a small CDATA document (video, news, alternates). The kinds of the
    # faults differ at some cuts (a cut in the prolog is "syntax" to one and "truncated" to
    # the other): making the problems the same is the rest of issue 20.
    doc = _generate.exact_sitemap(4, seed=2)
    for cut in range(len(doc) + 1):
        got, want = scan(_rust(), [doc[:cut]]), scan(PyUrlsetScanner, [doc[:cut]])
        assert got[0] == want[0], cut
        assert (got[1] is None) == (want[1] is None), (cut, got[1], want[1])


@needs_compiled
def test_two_threads_read_two_documents_at_once() -> None:
    # The bindings release the GIL around the work: each thread's scanner must still read
    # its own document right (correctness only; the speed is the benchmark's).
    docs = [_generate.mixed_sitemap(2_000, seed=s) for s in (3, 4)]
    expected = [scan(_rust(), [doc]) for doc in docs]
    with ThreadPoolExecutor(max_workers=2) as pool:
        got = list(pool.map(lambda doc: scan(_rust(), sized(doc, 4_096)), docs))
    assert got == expected


_TEXT = st.sampled_from(
    [
        "https://example.com/a",
        "https://example.com/caf\u00e9?q=1&amp;r=2",
        "  padded  ",
        "",
        "2024-03-05T10:20:30+02:00",
        "weekly",
        "0.5",
        "\u65e5\u672c",
        "1 &lt; 2 &gt; 0",
        "\ufeffbom",
    ]
)


@st.composite
def _value(draw: st.DrawFn) -> str:
    text = draw(_TEXT)
    shape = draw(st.sampled_from(["plain", "cdata", "refs", "cr", "markup"]))
    if shape == "cdata":
        return f"<![CDATA[{text.replace('&amp;', '&').replace('&lt;', '<').replace('&gt;', '>')}]]>"
    if shape == "refs":
        return (
            text.replace("&amp;", "\0")
            .replace("a", "&#97;")
            .replace("e", "&#x65;")
            .replace("\0", "&amp;")
        )
    if shape == "cr":
        return f"\r\n{text}\r"
    if shape == "markup":
        return f"<!-- a > b -->{text}<?pi x > y?>"
    return text


@st.composite
def _document(draw: st.DrawFn) -> bytes:
    urls = []
    for _ in range(draw(st.integers(0, 6))):
        children = []
        for _ in range(draw(st.integers(0, 5))):
            name = draw(st.sampled_from(["loc", "lastmod", "changefreq", "priority", "other"]))
            value = draw(_value())
            if draw(st.booleans()):
                children.append(f"<{name}>{value}</{name}>")
            else:
                children.append(f"<image:image><image:{name}>{value}</image:{name}></image:image>")
        urls.append("<url>" + "".join(children) + "</url>")
    root = f'<urlset xmlns="{SITEMAP_NS}" xmlns:image="{IMAGE_NS}">'
    return _urlset("\n".join(urls), root)


@needs_compiled
@settings(max_examples=300, deadline=None)
@given(_document(), st.lists(st.integers(0, 10_000), max_size=6), st.integers(0, 10_000))
def test_generated_documents_read_alike_in_any_split(
    doc: bytes, cuts: list[int], cut_off: int
) -> None:
    expected = scan(PyUrlsetScanner, [doc])
    assert expected[1] is None
    assert scan(_rust(), cut_at(doc, cuts)) == expected
    # Cut off anywhere: the same whole urls are kept, and both say it was cut.
    short = doc[: cut_off % (len(doc) + 1)]
    got, want = scan(_rust(), cut_at(short, cuts)), scan(PyUrlsetScanner, [short])
    assert got[0] == want[0]
    assert (got[1] is None) == (want[1] is None)


# -- the compiled one against SitemapParser ------------------------------------------------


def _parser_locs(data: bytes) -> list[str]:
    parser = SitemapParser(URL)  # (the fast path: the same events as the exact one)
    events = parser.feed(data) + parser.close()
    return [e.loc for e in events if isinstance(e, Entry)]


def _checked_locs(records: list[Fields]) -> list[str]:
    # The Python core's own check of a raw loc (``_records.emit_entry`` calls it).
    doc = Document(URL, DEFAULT_LIMITS, False)
    return [loc for loc in (doc.check_loc(r[0]) for r in records) if loc is not None]


@needs_compiled
@pytest.mark.parametrize("shape", sorted(_SHAPES))
def test_the_locs_are_the_entries_of_the_python_parser(shape: str) -> None:
    doc = _SHAPES[shape](2_000, seed=7)
    records, error = scan(_rust(), sized(doc, 65_536))
    assert error is None
    assert _checked_locs(records) == _parser_locs(doc) != []


def _corpus_urlsets() -> list[Path]:
    found = []
    for path in sorted(CORPUS.rglob("*.xml*")) if CORPUS.is_dir() else []:
        parser = SitemapParser(URL)
        parser.feed(path.read_bytes()[:65_536])  # (the root decides it)
        if parser.format is Format.URLSET:
            found.append(path)
    return found


@needs_corpus
@needs_compiled
def test_every_corpus_urlset_reads_alike() -> None:
    paths = _corpus_urlsets()
    assert len(paths) >= 15, paths  # the corpus has this many urlsets, broken ones included
    for path in paths:
        data = path.read_bytes()
        if data[:2] == b"\x1f\x8b":
            data = gzip.decompress(data)  # the Python side inflates; the tokenizer reads XML
        name = str(path.relative_to(CORPUS))
        records, error = scan(_rust(), sized(data, 65_536))
        assert (records, error) == scan(_rust(), random_splits(data, 5, parts=50)), name
        reference = scan(PyUrlsetScanner, [data])
        assert records == reference[0], name
        assert (error is None) == (reference[1] is None), (name, error, reference[1])
        # Up to a fault, the entries the Python parser keeps (it keeps the prefix too).
        assert _checked_locs(records) == _parser_locs(data), name
