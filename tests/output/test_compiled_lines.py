"""The compiled writer of entry lines (``_native.LineWriter``) against the Python writer,
byte for byte: on every entry of the corpus and on generated records of every shape; and
what it declines (values the parser never makes) written by the Python writer instead."""

from __future__ import annotations

import sys
import zoneinfo
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone
from typing import Any
from xml.sax.saxutils import escape

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sitemap_reader import Alternate, ChangeFreq, Entry, Image, LinePlan, News, Video
from sitemap_reader._core._xml._core_choice import COMPILED
from sitemap_reader._output._compiled import CSV_COMPILED
from tests.support.helpers import (
    CORPUS,
    IMAGE_NS,
    NEWS_NS,
    VIDEO_NS,
    XHTML_NS,
    needs_corpus,
    parse,
    urlset,
)
from tests.support.lines import (
    FORMATS,
    RECORDS,
    line_writer,
    native,
    python_bytes,
    spy_on_line_writer,
)

_native = native()

compiled = line_writer


def assert_same(entries: Sequence[Entry], formats: Sequence[str] = FORMATS) -> None:
    for fmt in formats:
        if fmt == "csv" and not CSV_COMPILED:
            continue
        written = compiled(fmt).write(entries)
        assert written is not None, f"{fmt}: the compiled writer declined {entries!r}"
        assert written == python_bytes(fmt, [entries]), fmt


@needs_corpus
def test_every_corpus_entry_is_written_as_the_python_writer_writes_it() -> None:
    """Each corpus document's entries, one batch a document, in the three formats; the corpus
    holds every shape, which is counted so that none goes untested."""
    shapes = dict.fromkeys(("images", "videos", "news", "alternates", "non-ascii"), 0)
    documents = 0
    for path in sorted(CORPUS.rglob("*")):
        if not path.is_file() or path.name in ("MANIFEST.tsv", "README.md"):
            continue
        entries = [e for e in parse(path.read_bytes()) if type(e) is Entry]
        if not entries:
            continue
        documents += 1
        try:
            assert_same(entries)
        except AssertionError as exc:
            raise AssertionError(f"{path.name}: {exc}") from None
        for entry in entries:
            for name in ("images", "videos", "news", "alternates"):
                shapes[name] += bool(getattr(entry, name))
            shapes["non-ascii"] += not entry.loc.isascii()
    assert documents > 10 and all(shapes.values()), (documents, shapes)


# -- generated records ---------------------------------------------------------------------

# Every plane, control characters and all; no surrogate (a lone one: see below).
_any_text = st.text(st.characters(exclude_categories=["Cs"]), max_size=12)
_chars = st.sampled_from(',"\r\n\t\x00\x01\x1f\x7f\\/é€😀\u2028\U0010ffff ')
_text = st.one_of(_any_text, st.text(_chars, max_size=6), st.just(""))
_maybe_text = st.none() | _text


def _offsets() -> st.SearchStrategy[timezone]:
    seconds = st.integers(min_value=-86_399, max_value=86_399)
    whole = st.sampled_from([0, 3600, -18_000, 19_800, 20_700, -34_200, 50_400, -43_200])
    return st.builds(lambda s: timezone(timedelta(seconds=s)), seconds | whole)


_dates = st.none() | st.builds(
    lambda d, tz: d.replace(tzinfo=tz),
    st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31, 23, 59, 59)),
    _offsets() | st.just(timezone.utc),
)
# (2**49 + 0.25 lies halfway between two shortest spellings: CPython writes the even one)
_floats = (
    st.none()
    | st.floats()
    | st.sampled_from([0.0, -0.0, 1e-05, 1e16, 5e-324, 0.1, 2**49 + 0.25, 2**49 + 0.75])
)
_ints = st.none() | st.integers(min_value=-(2**63), max_value=2**63 - 1)
_flags = st.none() | st.booleans()
_images = st.builds(Image, _text, _maybe_text, _maybe_text, _maybe_text, _maybe_text)
_videos = st.builds(
    Video,
    _maybe_text,
    _maybe_text,
    _maybe_text,
    _maybe_text,
    _maybe_text,
    _ints,
    _dates,
    _floats,
    _ints,
    _dates,
    _flags,
    _flags,
    _flags,
    _maybe_text,
    _maybe_text,
    st.lists(_text, max_size=3).map(tuple),
)
_news = st.builds(News, _maybe_text, _maybe_text, _dates, _maybe_text, _maybe_text, _maybe_text)
_alternates = st.builds(Alternate, _maybe_text, _text, _maybe_text)


def _records(records: st.SearchStrategy[Any]) -> st.SearchStrategy[tuple[Any, ...]]:
    return st.lists(records, max_size=3).map(tuple)


_entries = st.builds(
    Entry,
    _text,
    _dates,
    st.none() | st.sampled_from(list(ChangeFreq)),
    _floats,
    st.sampled_from(["https://e.com/s.xml", "/srv/a,b.xml", "-", 'q"uote\r\n']) | _text,
    _records(_images),
    _records(_videos),
    _records(_news),
    _records(_alternates),
)


@given(st.lists(_entries, max_size=6))
def test_generated_entries_are_written_as_the_python_writer_writes_them(
    entries: list[Entry],
) -> None:
    """Any text (every plane, control characters, quotes, line ends), any float (NaN, the
    infinities, -0.0, subnormals), dates of every year and every offset of whole seconds,
    integers of 64 bits, every extension with any of its fields, several sitemaps a batch."""
    assert_same(entries)


# XML's characters (no other control character, no surrogate, no U+FFFE or U+FFFF).
_xml_text = st.text(
    st.characters(blacklist_categories=["Cs"], blacklist_characters="\ufffe\uffff").filter(
        lambda c: c >= " " or c in "\t\n\r"
    ),
    max_size=10,
)
_w3c = st.builds(
    "{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}{}{}".format,
    st.integers(1, 9999),
    st.integers(1, 12),
    st.integers(1, 28),
    st.integers(0, 23),
    st.integers(0, 59),
    st.integers(0, 59),
    st.sampled_from(["", ".5", ".123456", ".1234567"]),
    st.sampled_from(["Z", "+00:00", "-05:00", "+05:45", "+14:00", "-12:00"]),
) | st.sampled_from(["2024", "2024-05", "2024-05-01", "not a date"])
_number = st.sampled_from(["0.5", "1", "1.0", "0.000001", "1e-7", "0.30000000000000004", "x"])


@st.composite
def _url_blocks(draw: st.DrawFn) -> str:
    def text() -> str:
        return escape(draw(_xml_text), {'"': "&quot;"})  # (some go in an attribute)

    parts = [f"<loc>https://e.com/{text()}</loc>", f"<lastmod>{draw(_w3c)}</lastmod>"]
    parts += [f"<changefreq>{draw(st.sampled_from(list(ChangeFreq))).value}</changefreq>"]
    parts += [f"<priority>{draw(_number)}</priority>"]
    if draw(st.booleans()):
        parts.append(
            f"<image:image><image:loc>https://e.com/{text()}.jpg</image:loc>"
            f"<image:title>{text()}</image:title><image:caption>{text()}</image:caption>"
            "</image:image>"
        )
    if draw(st.booleans()):
        parts.append(
            f"<video:video><video:title>{text()}</video:title>"
            f"<video:duration>{draw(_number)}</video:duration>"
            f"<video:rating>{draw(_number)}</video:rating>"
            f"<video:publication_date>{draw(_w3c)}</video:publication_date>"
            f"<video:live>{draw(st.sampled_from(['yes', 'no', 'maybe']))}</video:live>"
            f"<video:tag>{text()}</video:tag></video:video>"
        )
    if draw(st.booleans()):
        parts.append(
            f"<news:news><news:publication><news:name>{text()}</news:name></news:publication>"
            f"<news:publication_date>{draw(_w3c)}</news:publication_date>"
            f"<news:title><![CDATA[{draw(_xml_text).replace(']]>', '')}]]></news:title>"
            "</news:news>"
        )
    if draw(st.booleans()):
        parts.append(
            f'<xhtml:link rel="alternate" hreflang="{text()}" href="https://e.com/{text()}"/>'
        )
    return "<url>" + "".join(parts) + "</url>"


_EXTENSIONS = (
    f' xmlns:image="{IMAGE_NS}" xmlns:video="{VIDEO_NS}" xmlns:news="{NEWS_NS}"'
    f' xmlns:xhtml="{XHTML_NS}"'
)


@given(st.lists(_url_blocks(), min_size=1, max_size=5))
def test_entries_of_generated_documents_are_written_as_the_python_writer_writes_them(
    blocks: list[str],
) -> None:
    """Documents with every field and extension, any of XML's characters escaped or in
    CDATA, W3C dates of every form, numbers good and bad: what the parser reads of them."""
    document = urlset(*blocks, extra=_EXTENSIONS).encode("utf-8")
    entries = [e for e in parse(document) if type(e) is Entry]
    assert len(entries) == len(blocks)
    assert_same(entries)


def test_the_sitemap_is_written_per_entry_whatever_the_batch() -> None:
    """A batch may list entries of several documents: each line names its own."""
    entries = [Entry(f"https://e.com/{i}", sitemap=f"https://e.com/{i // 2}.xml") for i in range(5)]
    assert_same(entries)
    assert compiled("txt").write([]) == b""


def test_a_short_batch_after_a_long_one_is_written_alone() -> None:
    """The compiled writer keeps its buffer's room from one batch to the next on a thread
    (growing one from nothing had glibc consolidate its free lists at every doubling): what
    it returns holds the last batch's lines only."""
    long = [
        Entry(f"https://e.com/{'x' * 300}/{i}", sitemap="https://e.com/s.xml") for i in range(400)
    ]
    short = [Entry("https://e.com/a", sitemap="https://e.com/s.xml")]
    for fmt in FORMATS:
        if fmt == "csv" and not CSV_COMPILED:
            continue
        writer = compiled(fmt)
        assert writer.write(long) == python_bytes(fmt, [long]), fmt
        assert writer.write(short) == python_bytes(fmt, [short]), fmt
        assert writer.write([]) == b"", fmt


# -- the one choice of writer: LinePlan, what dump and line_batches write with --------------------


def header(fmt: str) -> bytes:
    return b"loc,lastmod,changefreq,priority,sitemap\n" if fmt == "csv" else b""


def plan_bytes(fmt: str, batches: Sequence[Sequence[Entry]]) -> bytes:
    """What a ``LinePlan`` writes for ``batches``, header first, as ``dump`` writes it."""
    plan = LinePlan(fmt)
    return plan.header + b"".join(plan.encode(list(batch)) for batch in batches)


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_line_plan_writes_with_the_compiled_writer_the_same_bytes(
    fmt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under the compiled core, a ``LinePlan`` hands every batch to the crate, and its header
    and lines are the Python writer's bytes."""
    if not COMPILED:
        pytest.skip("the compiled core is off here (SITEMAP_READER_PURE)")
    if fmt == "csv" and not CSV_COMPILED:
        pytest.skip(f"csv stays Python's on {sys.version_info[:2]} (a NUL is refused there)")
    calls = spy_on_line_writer(monkeypatch)
    batches = [
        [Entry('https://e.com/é,"x"', datetime(2024, 5, 1, tzinfo=timezone.utc))],
        [Entry(f"https://e.com/{i}", priority=i / 10, sitemap="s") for i in range(3)],
    ]
    assert plan_bytes(fmt, batches) == header(fmt) + python_bytes(fmt, batches)
    assert calls.objects == [1, 3] and calls.runs == []


# -- what the compiled writer declines --------------------------------------------------------

_PLAIN = Entry("https://e.com/a", sitemap="https://e.com/s.xml")
_NAIVE = datetime(2024, 5, 1, 9, 0)


class _Text(str):
    pass


UNFIT: dict[str, Entry] = {
    "an int priority": Entry("https://e.com/a", priority=1),  # type: ignore[arg-type]
    "a bool priority": Entry("https://e.com/a", priority=True),  # type: ignore[arg-type]
    "a naive lastmod": Entry("https://e.com/a", _NAIVE),
    "a zoneinfo lastmod": Entry(
        "https://e.com/a", _NAIVE.replace(tzinfo=zoneinfo.ZoneInfo("Europe/Paris"))
    ),
    "an offset with microseconds": Entry(
        "https://e.com/a", _NAIVE.replace(tzinfo=timezone(timedelta(microseconds=1)))
    ),
    "a str subclass": Entry(_Text("https://e.com/a")),
    "images in a list": Entry("https://e.com/a", images=[Image("https://e.com/i")]),  # type: ignore[arg-type]
    "a duration past 64 bits": Entry("https://e.com/a", videos=(Video(duration=2**63),)),
    "a bool view count": Entry("https://e.com/a", videos=(Video(view_count=True),)),  # type: ignore[arg-type]
    "an int rating": Entry("https://e.com/a", videos=(Video(rating=4),)),  # type: ignore[arg-type]
}


@pytest.mark.parametrize("name", list(UNFIT))
def test_a_value_the_parser_never_makes_is_left_to_the_python_writer(name: str) -> None:
    """The compiled writer declines the batch (None; csv and txt read only the fields they
    write), and a ``LinePlan`` hands it to the Python writer: the same bytes, in their place
    between the batches the crate wrote."""
    assert compiled("jsonl").write([_PLAIN, UNFIT[name]]) is None
    for fmt in FORMATS:
        batches = [[_PLAIN], [_PLAIN, UNFIT[name]], [_PLAIN]]
        assert plan_bytes(fmt, batches) == header(fmt) + python_bytes(fmt, batches)


def test_a_lone_surrogate_fails_as_it_does_in_the_python_writer() -> None:
    """A str may hold a lone surrogate, which UTF-8 cannot write: the compiled writer declines
    it and the Python writer raises UnicodeEncodeError, as the pure core does."""
    entry = Entry("https://e.com/\ud800")
    assert compiled("jsonl").write([entry]) is None
    with pytest.raises(UnicodeEncodeError):
        plan_bytes("jsonl", [[_PLAIN], [entry]])


def test_txt_reads_only_the_loc() -> None:
    """A value txt does not write does not stop the crate from writing it."""
    assert compiled("txt").write([UNFIT["a naive lastmod"]]) == b"https://e.com/a\n"
    assert compiled("txt").write([UNFIT["a str subclass"]]) is None


def test_another_record_type_is_declined() -> None:
    """Exact types only: an Entry subclass (whatever it overrides) is the Python writer's."""

    class Mine(Entry):
        __slots__ = ()

    assert compiled("txt").write([Mine("https://e.com/a")]) is None
    assert compiled("txt").write([_PLAIN]) == b"https://e.com/a\n"


def test_an_unknown_format_is_refused() -> None:
    with pytest.raises(ValueError, match="parquet"):
        _native.LineWriter("parquet", RECORDS, ChangeFreq)
