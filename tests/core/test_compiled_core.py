"""The compiled core (``_native.BlockScanner``) against the exact expat path, the pure-Python
core's only reader: same documents, same events, any split.

The differential module (``test_parser_differential.py``) runs its documents (every
extension under varied prefixes and namespace spellings, CDATA, references, comments, odd
blocks, invalid values, damaged and cut documents, small limits); this one realistic and
clean documents, every split of small ones, and every corpus file. Events are compared as records and
as their ``repr`` (a datetime's offset, which ``==`` ignores, is in it).
"""

from __future__ import annotations

import dataclasses
import gc
import itertools
import sys
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from sitemap_reader import Entry, Limits, ProblemKind, SitemapRef
from sitemap_reader._core._dates import DATE_ALONE
from sitemap_reader._core._doc import Document
from sitemap_reader._core._xml import _core_choice
from sitemap_reader._core._xml._extensions import CORE, IMAGE, LOOKALIKE, OTHER, XHTML
from sitemap_reader._core._xml._interface import INTERFACE
from sitemap_reader._core._xml._prolog import FRESH, prefixes
from tests.support.compiled import compiled_events, needs_compiled
from tests.support.documents import clean_documents, documents, realistic_documents
from tests.support.helpers import (
    CORPUS,
    IMAGE_NS,
    NEWS_NS,
    SITEMAP_NS,
    XHTML_NS,
    cut_at,
    needs_corpus,
    parse,
    parse_chunks,
    sized,
    urlset,
)

pytestmark = needs_compiled

if _core_choice.COMPILED:
    from sitemap_reader import _native


def _same(got: list[Any], want: list[Any]) -> None:
    assert got == want
    assert repr(got) == repr(want)


_LIMITS = st.sampled_from(
    [
        Limits(),
        Limits(max_urls=3),
        Limits(max_urls=2, cut_at_max_urls=True),
        Limits(max_loc_length=30),
    ]
)


@settings(max_examples=300, deadline=None)
@given(
    realistic_documents(),
    st.lists(st.integers(0, 1 << 20), max_size=8),
    st.integers(0, 1 << 20) | st.none(),
    _LIMITS,
)
def test_compiled_core_on_realistic_documents_cut_and_limited(
    data: bytes, cuts: list[int], end: int | None, limits: Limits
) -> None:
    """Documents of which the compiled core builds most records itself, sometimes cut short
    (a truncated document keeps its prefix) and read under limits it must count against."""
    if end is not None:
        data = data[: end % (len(data) + 1)]
    pieces = cut_at(data, cuts)
    exact = parse(data, fast=False, limits=limits)
    compiled, _, built = compiled_events(pieces, limits)
    _same(compiled, exact)
    event(f"records the compiled core built: {'some' if built else 'none'}")


@settings(max_examples=300, deadline=None)
@given(clean_documents(), st.lists(st.integers(0, 1 << 20), max_size=8), _LIMITS)
def test_compiled_core_builds_valid_records_as_python_does(
    data: bytes, cuts: list[int], limits: Limits
) -> None:
    pieces = cut_at(data, cuts)
    exact = parse(data, fast=False, limits=limits)
    compiled, _, built = compiled_events(pieces, limits)
    _same(compiled, exact)
    records = sum(isinstance(e, (Entry, SitemapRef)) for e in compiled)
    event(
        f"records the compiled core built: {'all' if built == records else 'some' if built else 'none'}"
    )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(documents(), clean_documents()).filter(lambda d: len(d) <= 900))
def test_compiled_core_at_every_split(data: bytes) -> None:
    exact = parse(data, fast=False)
    for at in range(len(data) + 1):
        _same(compiled_events([data[:at], data[at:]])[0], exact)


def _corpus_files() -> list[str]:
    if not CORPUS.is_dir():
        return ["<corpus absent>"]
    return sorted(
        str(p.relative_to(CORPUS))
        for p in CORPUS.rglob("*")
        if p.is_file() and p.name not in ("README.md", "MANIFEST.tsv")
    )


@needs_corpus
@pytest.mark.parametrize("name", _corpus_files())
def test_every_corpus_file_reads_alike(name: str) -> None:
    data = (CORPUS / name).read_bytes()
    url = "https://example.com/" + name.rsplit("/", 1)[-1]
    exact = parse(data, fast=False, url=url)
    _same(parse_chunks(sized(data, 65_536), fast=True, url=url), exact)
    rng = __import__("random").Random(name)
    for _ in range(3):
        cuts = sorted(rng.randrange(len(data) + 1) for _ in range(rng.randint(1, 40)))
        _same(parse_chunks(cut_at(data, cuts), fast=True, url=url), exact)


def test_values_of_every_common_shape_are_built_as_python_builds_them() -> None:
    blocks = "".join(
        f"<url><loc> https://example.com/{i} </loc><lastmod>{date}</lastmod>"
        f"<changefreq>{freq}</changefreq><priority>{prio}</priority></url>\n"
        for i, (date, freq, prio) in enumerate(
            itertools.product(
                [
                    "2024-02-29",
                    "2024-03-05T10:20:30Z",
                    "2024-03-05T10:20:30-05:30",
                    "2023-12-31T23:59:59+00:00",
                ],
                ["daily", "WEEKLY", "Never"],
                ["0.0", "0.3", "1", "1.0"],
            )
        )
    )
    data = f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{blocks}</urlset>'.encode()
    compiled, _, built = compiled_events([data])
    exact = parse(data, fast=False)
    _same(compiled, exact)
    assert built == 48
    offsets = {e.lastmod.utcoffset() for e in compiled if isinstance(e, Entry) and e.lastmod}
    assert offsets == {timedelta(0), timedelta(hours=-5, minutes=-30)}
    # UTC's own object, as Python's; a date alone (2024-02-29, the only value at hour 0) in
    # DATE_ALONE, which check's V420 reads. (Zones compare by offset: told apart by "is".)
    at_zero = [
        e.lastmod
        for e in compiled
        if isinstance(e, Entry) and e.lastmod and not e.lastmod.utcoffset()
    ]
    assert all((d.tzinfo is DATE_ALONE) is (d.hour == 0) for d in at_zero)
    assert all((d.tzinfo is timezone.utc) is (d.hour != 0) for d in at_zero)
    assert {d.hour for d in at_zero} == {0, 10, 23}


_VIDEO = "http://www.google.com/schemas/sitemap-video/1.1"
_NEWS = "http://www.google.com/schemas/sitemap-news/0.9"
# (field, value, whether the core builds the record itself): any value Python notes or
# reads by rules of its own (a sign, an underscore, a digit beyond ASCII, a word beyond
# ASCII, a rarer date shape) makes the container Python's.
_VIDEO_VALUES = [
    ("duration", "60", True),
    ("duration", "0042", True),
    ("duration", "", True),
    ("duration", "-1", False),
    ("duration", "1_000", False),
    ("duration", "\u0663", False),
    ("duration", "123456789012345678901234", False),
    ("view_count", "x", False),
    ("rating", "4.5", True),
    ("rating", ".5", True),
    ("rating", "5.", True),
    ("rating", "1e3", False),
    ("rating", "nan", False),
    ("rating", "-0.0", False),
    ("family_friendly", "Yes", True),
    ("requires_subscription", "FALSE", True),
    ("live", "maybe", False),
    ("live", "\u0130", False),
    ("publication_date", "2024-03-05T10:20:30+02:00", True),
    ("expiration_date", "2024-03-05T10:20Z", False),
    ("expiration_date", "junk", False),
    ("title", " T &amp; <![CDATA[x]]> ", True),
    ("tag", "", True),
]


def test_videos_and_news_of_plain_values_are_built_by_the_core() -> None:
    blocks = []
    for i, (field, value, _) in enumerate(_VIDEO_VALUES):
        blocks.append(
            f"<url><loc>https://example.com/v{i}</loc><video:video>"
            f"<video:title>first</video:title><video:tag>a</video:tag>"
            f"<video:{field}>{value}</video:{field}><video:tag>b</video:tag>"
            f"</video:video></url>"
        )
    for i, date in enumerate(["2024-01-01", "", "2024-01-01 10:00"]):
        blocks.append(
            f"<url><loc>https://example.com/n{i}</loc><news:news><news:publication>"
            f"<news:name>N</news:name><news:language>en</news:language></news:publication>"
            f"<news:publication_date>{date}</news:publication_date><news:title>T</news:title>"
            f"</news:news></url>"
        )
    data = (
        f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
        f'xmlns:video="{_VIDEO}" xmlns:news="{_NEWS}">{"".join(blocks)}</urlset>'
    ).encode()
    exact = parse(data, fast=False)
    for cut in (len(data), 400, 1234):
        compiled, taken, built = compiled_events([data[:cut], data[cut:]])
        _same(compiled, exact)
        assert taken == len(blocks)
        assert built == sum(plain for *_, plain in _VIDEO_VALUES) + 2
    entries = [e for e in exact if isinstance(e, Entry)]
    assert entries[0].videos[0].duration == 60
    assert entries[0].videos[0].tags == ("a", "b")
    assert entries[-3].news[0].publication_name == "N"
    assert sum(isinstance(e, Entry) for e in exact) == len(blocks)


_INTERFACE = _native.Interface(INTERFACE) if _core_choice.COMPILED else None


def _scanner(doc: Document, **kw: Any) -> Any:
    return _native.BlockScanner(
        doc,
        index=False,
        kinds=kw.pop("kinds", {}),
        read=lambda data, at: True,
        settled=lambda tag: True,
        interface=kw.pop("interface", _INTERFACE),
        start=(1, 0),
        **kw,
    )


@dataclass(frozen=True, slots=True)
class _Made:
    """A record class the compiled builder must refuse: it makes its objects itself."""

    loc: str
    lastmod: object
    source: str

    def __new__(cls, *args: object, **kwargs: object) -> _Made:  # noqa: PYI034
        return super().__new__(cls)


@dataclass(frozen=True)
class _NoSlots:
    loc: str
    lastmod: object
    source: str


@pytest.mark.parametrize(
    ("cls", "said"), [(_Made, "has a __new__ of its own"), (_NoSlots, "is no slot of")]
)
def test_the_record_builder_refuses_a_class_it_cannot_fill(cls: type, said: str) -> None:
    """The compiled core fills a record's slots past its ``__init__``: only a class whose
    objects ``object.__new__`` makes, and whose fields are slots, may be given to it."""
    with pytest.raises(TypeError, match=said):
        _native.Interface(INTERFACE._replace(sitemap_ref=cls))


def test_records_built_past_init_are_whole_frozen_dataclasses() -> None:
    doc = Document("https://example.com/s.xml", Limits(), False)
    kinds = prefixes(b' xmlns:xhtml="http://www.w3.org/1999/xhtml"')
    scanner = _scanner(doc, kinds=kinds)
    data = (
        b"<url><loc>https://example.com/a</loc><lastmod>2024-05-01</lastmod>"
        b'<xhtml:link rel="alternate" hreflang="de" href="https://example.com/de"/></url>'
    )
    assert scanner.feed(data) is None
    scanner.feed(b"<url><loc>https://example.com/b</loc></url>")
    entry = next(e for e in doc.out if isinstance(e, Entry))
    assert entry == Entry(
        loc="https://example.com/a",
        lastmod=datetime(2024, 5, 1, tzinfo=timezone.utc),
        sitemap="https://example.com/s.xml",
        alternates=entry.alternates,
    )
    assert [(a.hreflang, a.href) for a in entry.alternates] == [("de", "https://example.com/de")]
    assert hash(entry) == hash(dataclasses.replace(entry))  # every field set: hashable
    with pytest.raises(dataclasses.FrozenInstanceError):
        entry.loc = "https://example.com/z"  # type: ignore[misc]


@pytest.mark.parametrize(
    "lastmod",
    [
        "2024-05-01",
        "2024-05-01T10:20:30Z",
        "2024-05-01T10:20:30.5+02:00",
        "2024-05-01T10:20:30.000001-05:30",
        "2024-05-01T23:59:59.999999+14:00",
        "0999-01-01T00:00:00-12:00",
        "2024-02-29T12:00+00:00",
        "2024-05-01T10:20:30+0545",
        "9999-12-31T23:59:59Z",
    ],
)
def test_the_compiled_core_makes_each_datetime_as_the_python_core_does(lastmod: str) -> None:
    """The compiled core makes a date through the datetime module's C constructor: the same
    instant, offset and UTC object as the Python core's records (a date alone:
    the same DATE_ALONE object)."""
    data = urlset(f"<url><loc>https://example.com/a</loc><lastmod>{lastmod}</lastmod></url>")
    compiled = [e for e in parse(data.encode(), fast=True) if isinstance(e, Entry)]
    python = [e for e in parse(data.encode(), fast=False) if isinstance(e, Entry)]
    assert len(compiled) == 1 and compiled == python
    made, expected = compiled[0].lastmod, python[0].lastmod
    assert made is not None and expected is not None
    assert (made, made.utcoffset(), made.isoformat()) == (
        expected,
        expected.utcoffset(),
        expected.isoformat(),
    )
    if not made.utcoffset():
        assert made.tzinfo is (DATE_ALONE if len(lastmod) == 10 else timezone.utc)
        assert made.tzinfo is expected.tzinfo


def _sharing_block(i: int, lastmod: str) -> str:
    return (
        f"<url><loc>https://example.com/{i}</loc><lastmod>{lastmod}</lastmod>"
        '<xhtml:link rel="alternate" hreflang="de-AT" media="only screen"'
        f' href="https://example.com/de/{i}"/>'
        f"<image:image><image:loc>https://example.com/{i}.png</image:loc>"
        "<image:license>https://example.com/licence</image:license>"
        "<image:geo_location>Wien, Österreich</image:geo_location></image:image>"
        "<news:news><news:publication><news:name>Die Zeitung</news:name>"
        "<news:language>de</news:language></news:publication>"
        f"<news:publication_date>2024-05-01</news:publication_date><news:title>T{i}</news:title>"
        "</news:news></url>"
    )


def test_the_compiled_core_makes_a_repeated_value_once_a_document() -> None:
    """Records are immutable, so the values a document repeats are made once and shared:
    a datetime per lastmod, a time zone per offset, a str per short hreflang, media,
    licence, place, publication name and language (each object made is work, and memory
    for whoever keeps the records)."""
    data = urlset(
        _sharing_block(1, "2024-05-01T10:00:00+02:00"),
        _sharing_block(2, "2024-05-02T11:00:00+02:00"),
        _sharing_block(3, "2024-05-01T10:00:00+02:00"),
        extra=f' xmlns:xhtml="{XHTML_NS}" xmlns:image="{IMAGE_NS}" xmlns:news="{NEWS_NS}"',
    ).encode()
    events, taken, built = compiled_events([data])
    entries = [e for e in events if isinstance(e, Entry)]
    assert (len(entries), taken, built) == (3, 3, 3)  # every record the compiled core's
    assert entries == [e for e in parse(data, fast=False) if isinstance(e, Entry)]
    first, second, third = entries
    assert first.lastmod is third.lastmod and first.lastmod is not second.lastmod
    assert first.lastmod is not None and second.lastmod is not None
    assert first.lastmod.tzinfo is second.lastmod.tzinfo
    for other in (second, third):
        assert other.alternates[0].hreflang is first.alternates[0].hreflang
        assert other.alternates[0].media is first.alternates[0].media
        assert other.images[0].license is first.images[0].license
        assert other.images[0].geo_location is first.images[0].geo_location
        assert other.news[0].publication_name is first.news[0].publication_name
        assert other.news[0].publication_language is first.news[0].publication_language


def test_the_records_the_compiled_core_makes_are_left_out_of_the_collector() -> None:
    """A record's values are immutable and never refer back to it: no record is part of a
    cycle, so the compiled core takes its records out of the collector's lists, which
    otherwise walks every record a caller keeps at each run (a tenth of a parse that keeps
    its entries)."""
    data = urlset(
        _sharing_block(1, "2024-05-01T10:00:00+02:00"),
        extra=f' xmlns:xhtml="{XHTML_NS}" xmlns:image="{IMAGE_NS}" xmlns:news="{NEWS_NS}"',
    ).encode()
    events, _taken, built = compiled_events([data])
    (entry,) = (e for e in events if isinstance(e, Entry))
    assert built == 1
    records = [entry, *entry.alternates, *entry.images, *entry.news]
    assert [type(r).__name__ for r in records] == ["Entry", "Alternate", "Image", "News"]
    assert not any(gc.is_tracked(r) for r in records)
    index = f"<sitemapindex xmlns='{SITEMAP_NS}'><sitemap><loc>https://e.com/a</loc></sitemap></sitemapindex>"
    refs = [e for e in compiled_events([index.encode()])[0] if isinstance(e, SitemapRef)]
    assert len(refs) == 1 and not gc.is_tracked(refs[0])


def test_a_panic_is_a_problem_counted_as_a_bug() -> None:
    doc = Document("https://example.com/s.xml", Limits(), False)
    before = _native.caught_panics()
    scanner = _scanner(doc, panic_for_tests=True)
    assert scanner.feed(b"<url><loc>https://example.com/a</loc></url>") is None
    assert _native.caught_panics() == before + 1
    assert doc.fatal is not None and doc.fatal.kind == ProblemKind.ERROR
    assert "a caught panic: the panic asked for by a test" in doc.fatal.message
    assert scanner.feed(b"<url><loc>https://example.com/b</loc></url>") is None  # (no more)
    assert doc.out == []


def test_a_long_feed_lets_other_threads_run() -> None:
    """The scan of a chunk runs with the GIL released: another thread makes progress while
    the main thread is inside one ``feed()``, which it could not if the GIL were held.

    A switch interval of minutes keeps the interpreter from taking the GIL from the main
    thread, so the other thread runs only when the main thread lets go of it: in
    ``time.sleep`` before the feed, and, inside the feed, only where the scanner detaches.
    It hands the GIL back at once (``time.sleep(0)``) each time it counted."""
    doc = Document("https://example.com/s.xml", Limits(max_urls=10**9), False)
    scanner = _scanner(doc)
    block = "<url><loc>https://example.com/{}</loc><lastmod>2024-01-01</lastmod></url>\n"
    data = "".join(block.format(i) for i in range(200_000)).encode()
    # (a first feed in the process lets go of the GIL once or twice, attached, as it sets
    # up what it caches: done here, before the count)
    _scanner(Document(doc.url, Limits(), False)).feed(data[:1000])
    count = [0]
    stop = threading.Event()

    def other() -> None:
        while not stop.is_set():
            count[0] += 1
            time.sleep(0)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(300.0)
    thread = threading.Thread(target=other)
    try:
        thread.start()
        while count[0] == 0:
            time.sleep(0.001)
        before = count[0]
        same = count[0]  # (no switch between two statements of the main thread)
        assert scanner.feed(data) is None
        during = count[0] - before
    finally:
        stop.set()
        sys.setswitchinterval(interval)
        thread.join()
    assert same == before
    assert len(doc.out) == 200_000 and doc.entries == 200_000
    assert during > 0
    assert doc.out[0] == Entry(
        "https://example.com/0", datetime(2024, 1, 1, tzinfo=timezone.utc), sitemap=doc.url
    )


def test_describe_names_the_compiled_core() -> None:
    assert _core_choice.describe().startswith("core: rust, ")
    assert _core_choice.new_scanner is not None
    assert sys.modules.get("sitemap_reader._native") is not None


_FUZZED_HEAD = (
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
    ' xmlns:video="http://www.google.com/schemas/sitemap-video/1.1"'
    ' xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">\n'
    "<url><loc>https://example.com/a</loc></url>"
)


def _news_with(inner: str) -> str:
    return (
        "\n<url><loc>https://example.com/b</loc><news:news><news:publication>"
        + inner
        + "<news:name>N</news:name></news:publication><news:title>T</news:title>"
        "</news:news></url>"
    )


@pytest.mark.parametrize(
    ("middle", "taken"),
    [
        # names quick-xml lets through and expat refuses, in elements the block ignores
        # (the differential fuzz: an empty element named by a control character)
        (_news_with("<\x10/>"), 1),
        (_news_with("<news:\x10ame/>"), 1),
        (_news_with("<news:/>"), 1),
        (_news_with("<x></>"), 1),
        (_news_with("<x></y>"), 1),
        (_news_with('<x></x a="">'), 1),
        # between blocks, white space only (the block-split fuzz: a U+FEFF there)
        ("\ufeff\r\n<url><loc>https://example.com/b</loc></url>", 2),
        ("x\n<url><loc>https://example.com/b</loc></url>", 2),
        ("&amp;<url><loc>https://example.com/b</loc></url>", 2),
        ("&bogus;<url><loc>https://example.com/b</loc></url>", 1),
        ("<![CDATA[]]>\n<url><loc>https://example.com/b</loc></url>", 2),
        ("\n<url><loc>https://example.com/b</loc></url>", 3),
    ],
)
def test_what_the_fuzzers_found_is_read_as_expat_reads_it(middle: str, taken: int) -> None:
    """A block with a name expat refuses, or after text between blocks, is expat's at any
    split (``taken``: the blocks the compiled core takes, before a fatal error if any)."""
    text = f"{_FUZZED_HEAD}{middle}\n<url><loc>https://example.com/c</loc></url></urlset>"
    data_bytes = text.encode()
    exact = parse(data_bytes, fast=False)
    for at in range(len(data_bytes) + 1):
        pieces = [data_bytes[:at], data_bytes[at:]]
        compiled, took, _ = compiled_events(pieces)
        _same(compiled, exact)
        assert took == taken, at


# -- memory --------------------------------------------------------------------------------


@pytest.mark.parametrize("end", ["left", "abort", "close"])
def test_a_document_left_unfinished_is_freed_with_its_reader(end: str) -> None:
    """The scanner holds the reader's bound methods and the reader holds the scanner: a
    cycle the collector breaks only if the scanner takes part in collection. A document cut
    or dropped half-way (a budget, a deadline, a cancelled walk) must not keep its reader,
    its scanner and their buffers for the life of the process."""
    import gc
    import weakref

    from sitemap_reader import SitemapParser
    from sitemap_reader._core._xml._document import XmlHandler

    body = urlset(*(f"https://x.example.invalid/{i}" for i in range(2_000))).encode()
    parser = SitemapParser("https://x.example.invalid/s.xml")
    parser.feed(body[: len(body) // 2])
    handler = parser._handler
    assert isinstance(handler, XmlHandler) and handler._scanner is not None  # scanning
    if end == "abort":
        handler.abort()
    elif end == "close":
        parser.close()
    gone = weakref.ref(handler)
    del parser, handler
    gc.collect()
    assert gone() is None


def test_the_roots_prefixes_are_classed_as_the_exact_path_classes_their_namespaces() -> None:
    """As ``SitemapMachine._name``: the sitemap's own namespace (the root's, or one of its
    spellings) is CORE, a variant its extension's kind marked FRESH (its first block is
    expat's), a look-alike LOOKALIKE; a namespace with a reference is not decoded here."""
    attrs = (
        b' xmlns="urn:root" xmlns:r="urn:root" xmlns:s="https://www.sitemaps.org/schemas/sitemap/0.9"'
        b' xmlns:i="https://www.google.com/schemas/sitemap-image/1.1"'
        b" xmlns:x='http://www.w3.org/TR/xhtml11/xhtml11_schema.html'"
        b' xmlns:l="http://example.com/sitemap-image" xmlns:m="urn:mobile"'
        b' xmlns:h="http://www.w3.org/1999/xhtml" xmlns:e="urn:&#97;"'
    )
    assert prefixes(attrs) == {
        "r": CORE,
        "s": CORE,
        "i": IMAGE | FRESH,
        "x": XHTML | FRESH,
        "l": LOOKALIKE,
        "m": OTHER,
        "h": XHTML,
    }
    assert prefixes(b' xmlns="urn:&#97;" xmlns:a="urn:a"') is None


@needs_corpus
def test_a_corpus_file_with_mobile_elements_in_every_block_is_the_scanners() -> None:
    """The corpus's most common odd block until issue 30: Google's old ``<mobile:mobile/>``
    in each of hebdenbridgetimes.co.uk's 74 blocks, which expat read after 64 of them."""
    data = (CORPUS / "ext" / "hebdenbridgetimes.co.uk__articles-sitemap.xml").read_bytes()
    events, taken, _ = compiled_events(sized(data, 65_536))
    assert events == parse(data, fast=False)
    assert taken == sum(isinstance(e, Entry) for e in events) == 74
