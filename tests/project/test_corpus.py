"""The real-world corpus directory (docs/contributing.md, "The corpus"; its MANIFEST.tsv): every file
parses without an exception and independently of chunking; the well-formed ones give exactly
the manifest's count (and, for XML, exactly the locs lxml finds); each broken one fails in the
specific, sensible way documented beside its test."""

from __future__ import annotations

import csv
import hashlib
import random
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import pytest

from sitemap_reader import ChangeFreq, Event, Format, SitemapParser
from tests.support.helpers import (
    CORPUS,
    check_contract,
    entries,
    fatal,
    kinds,
    locs,
    needs_corpus,
    problem,
    refs,
    sized,
)

pytestmark = needs_corpus

CHUNK = 65_536  # what the I/O layer feeds (iter_chunked(64 KiB))


def _manifest() -> list[dict[str, str]]:
    if not (CORPUS / "MANIFEST.tsv").is_file():
        return []
    with (CORPUS / "MANIFEST.tsv").open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


MANIFEST = {row["file"]: row for row in _manifest()}
ON_DISK = (
    sorted(
        str(p.relative_to(CORPUS))
        for p in CORPUS.rglob("*")
        if p.is_file() and p.name not in ("README.md", "MANIFEST.tsv")
    )
    if CORPUS.is_dir()
    else []
)
# A placeholder keeps the parametrised tests visible (and skipped, with the reason) when the
# corpus is absent, instead of an "empty parameter set".
FILES = ON_DISK or ["<corpus absent>"]


def _url(name: str) -> str:
    """A plausible URL for a corpus file: its site, its original file name."""
    site, _, original = name.split("/", 1)[1].partition("__")
    host = site if "." in site else f"{site}.example"
    return f"https://{host}/{original}"


def _read(name: str) -> bytes:
    return (CORPUS / name).read_bytes()


def _parse(data: bytes, chunks: Sequence[bytes] | None = None, **kw: Any) -> list[Event]:
    parser = SitemapParser(kw.pop("url"), **kw)
    events: list[Event] = []
    for piece in chunks if chunks is not None else sized(data, CHUNK):
        events += parser.feed(piece)
    return events + parser.close()


def _events(name: str) -> list[Event]:
    """The events of a corpus file at the production chunk size."""
    return _parse(_read(name), url=_url(name))


@dataclass(frozen=True)
class _Summary:
    records: int
    kinds: tuple[str, ...]
    fatal: bool
    locs_digest: str


def _summarize(events: list[Event]) -> _Summary:
    return _Summary(
        len(entries(events)) + len(refs(events)),
        tuple(kinds(events)),
        fatal(events) is not None,
        _digest(locs(events)),
    )


def _digest(values: list[str]) -> str:
    return hashlib.sha256("\n".join(values).encode("utf-8", "surrogatepass")).hexdigest()


# The big files are parsed once for two tests: a summary (not millions of records) is kept.
_SUMMARIES: dict[str, _Summary] = {}


def _summary(name: str) -> _Summary:
    if name not in _SUMMARIES:
        _SUMMARIES[name] = _summarize(_events(name))
    return _SUMMARIES[name]


def test_manifest_matches_the_files_on_disk() -> None:
    """Every file on disk has a manifest row and every row a file, so the tests cover them all."""
    assert set(MANIFEST) == set(ON_DISK)


@pytest.mark.parametrize("name", FILES)
def test_parses_without_exception_whatever_the_chunking(name: str) -> None:
    """At 64 KiB chunks and at a few random chunk sizes the file parses, with identical events."""
    data = _read(name)
    reference = _events(name)
    check_contract(reference)
    _SUMMARIES[name] = _summarize(reference)
    rng = random.Random(name)
    # Big (or gzipped, so big once inflated) files get one odd chunk size; small ones several,
    # down to a few bytes.
    sizes = (
        [rng.randint(1000, 300_000)]
        if len(data) > 200_000 or data[:2] == b"\x1f\x8b"
        else [
            rng.randint(1, 50),
            rng.randint(51, 5000),
            rng.randint(5001, 100_000),
        ]
    )
    for size in sizes:
        assert _parse(data, sized(data, size), url=_url(name)) == reference, size


@pytest.mark.parametrize("name", FILES)
def test_the_fast_path_and_the_exact_path_agree_on_real_files(name: str) -> None:
    """Real generators' output (stylesheets, CRLF, odd namespaces) gives the scanner and
    expat alone the very same events, problems included."""
    data = _read(name)
    assert _parse(data, url=_url(name), fast=False) == _events(name)


# -- well-formed files: exact counts --------------------------------------------------------


def _counted() -> list[str]:
    """Files whose manifest count is what a correct reader must yield."""
    skip = {"text/941hm.com__sitemap.txt"}  # GBK, not UTF-8: see its own test
    return [
        name
        for name, row in MANIFEST.items()
        if row["kind"] in ("urlset", "index", "ext", "text") and name not in skip
    ] or ["<corpus absent>"]


def _lxml_locs(data: bytes) -> list[str]:
    """The <loc> of each <url> (or index <sitemap>) of the root, as lxml reads it."""
    from lxml import etree

    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True)
    root = etree.fromstring(data, parser)
    ns = etree.QName(root).namespace  # the root's namespace, whatever it is (as we read it)
    item = etree.QName(ns, "url" if etree.QName(root).localname == "urlset" else "sitemap").text
    loc = etree.QName(ns, "loc").text
    return [
        (child.text or "").strip()
        for element in root
        if element.tag == item
        for child in element
        if child.tag == loc
    ]


@pytest.mark.parametrize("name", _counted())
def test_well_formed_files_yield_the_manifest_count(name: str) -> None:
    """A well-formed urlset, index or UTF-8 text file yields exactly url_count records (for XML,
    exactly the locs lxml reads, in order) and no fatal Problem."""
    summary = _summary(name)
    assert summary.records == int(MANIFEST[name]["url_count"])
    assert not summary.fatal
    assert "invalid-loc" not in summary.kinds and "relative-loc" not in summary.kinds
    if not name.startswith("text/"):
        data = _read(name)
        expected = _lxml_locs(zlib.decompress(data, wbits=31) if name.endswith(".gz") else data)
        if summary.locs_digest != _digest(expected):
            assert locs(_events(name)) == expected  # shows the difference


def test_gbk_text_file_keeps_every_line_percent_encoded() -> None:
    """The GBK text file: its non-UTF-8 lines are percent-encoded (`encoding`), and the one line
    that is not a URL ("http:/") is dropped, so url_count - 1 entries come out."""
    name = "text/941hm.com__sitemap.txt"
    events = _events(name)
    assert len(entries(events)) == int(MANIFEST[name]["url_count"]) - 1
    assert problem(events, "encoding").message.startswith("66 ")
    assert "'http:/'" in problem(events, "invalid-loc").message
    assert all(e.loc.isascii() for e in entries(events) if "%" in e.loc)


@pytest.mark.parametrize(
    "name", [n for n, row in MANIFEST.items() if row["kind"] == "feed"] or ["-"]
)
def test_feeds(name: str) -> None:
    """Feeds yield one entry per item with an absolute link (otafest's are all relative)."""
    events = _events(name)
    expected = int(MANIFEST[name]["url_count"])
    if name == "feed/otafest.com__sitemap.rss":
        assert entries(events) == []
        assert problem(events, "relative-loc").message.startswith(f"{expected} ")
        resolved = _parse(_read(name), url=_url(name), resolve_relative=True)
        assert len(entries(resolved)) == expected
        assert all(loc.startswith("https://otafest.com/") for loc in locs(resolved))
    else:
        assert len(entries(events)) == expected
        assert fatal(events) is None


def test_robots_files_are_not_sitemaps() -> None:
    """robots.txt read as a sitemap gives no entries and is no sitemap: none of its lines is
    a URL, so it ends with `unknown-format` alone (not a tally of every line it dropped)."""
    for name, row in MANIFEST.items():
        if row["kind"] == "robots":
            events = _events(name)
            assert entries(events) == [], name
            assert kinds(events) == ["unknown-format"], name


def test_extensions_from_real_files() -> None:
    """Real extension files carry their images, alternates, news and video through."""
    highrisk = entries(_events("ext/highriskshop.com__post-sitemap.xml"))
    assert sum(len(e.images) for e in highrisk) == 197  # MANIFEST: 197 <image:image>
    assert max(len(e.images) for e in highrisk) > 1 and min(len(e.images) for e in highrisk) == 0
    jest = entries(_events("ext/jestjs.io__sitemap.xml"))
    assert sum(len(e.alternates) for e in jest) == 2720  # MANIFEST: 2,720 hreflang alternates
    news = entries(_events("ext/equalsmoney.com__sitemap-news.xml"))
    assert all(e.news and e.news[0].publication_name for e in news)
    [video_page] = entries(_events("ext/azurite.com.au__video-sitemap.xml"))
    assert video_page.videos[0].content_loc and video_page.videos[0].duration


def test_index_lastmod_with_a_trailing_newline() -> None:
    """boibazar's index writes "<lastmod>...\\n</lastmod>": still a date."""
    refs_ = refs(_events("index/boibazar.com__sitemap.xml"))
    assert len(refs_) == 6 and all(isinstance(r.lastmod, datetime) for r in refs_)
    assert all(r.lastmod is not None and r.lastmod.tzinfo is not None for r in refs_)


# -- broken files: one behaviour each ---------------------------------------------------------


def _broken(name: str, **kw: Any) -> list[Event]:
    name = f"broken/{name}"
    return _events(name) if not kw else _parse(_read(name), url=_url(name), **kw)


def test_broken_unescaped_ampersand() -> None:
    """1-29.github.io: the & in the very first <loc> (line 5) ends the document there, so no
    entry precedes it; the Problem names the place."""
    events = _broken("1-29.github.io__sitemap.xml")
    assert entries(events) == []
    last = fatal(events)
    assert (
        last is not None and last.kind == "not-well-formed" and "line 5, column 53" in last.message
    )


def test_broken_relative_hugo_child() -> None:
    """18f-hugo en/sitemap.xml: relative locs and hrefs are dropped; resolved on request they
    give all 13 pages (and their alternates)."""
    assert entries(_broken("18f-hugo__en-sitemap.xml")) == []
    resolved = entries(_broken("18f-hugo__en-sitemap.xml", resolve_relative=True))
    assert len(resolved) == 13
    assert all(loc.startswith("https://18f-hugo.example/") for loc in locs(resolved))
    assert any(e.alternates for e in resolved)


def test_broken_relative_hugo_index() -> None:
    """18f-hugo sitemap.xml: an index of two relative children, resolved on request."""
    assert refs(_broken("18f-hugo__sitemap.xml")) == []
    assert locs(_broken("18f-hugo__sitemap.xml", resolve_relative=True)) == [
        "https://18f-hugo.example/fr/sitemap.xml",
        "https://18f-hugo.example/en/sitemap.xml",
    ]


def test_broken_wrong_root() -> None:
    """941hm.com: root <sitemap> (no sitemapindex around it) is an unknown format, no records."""
    events = _broken("941hm.com__sitemap.xml")
    assert len(events) == 1
    last = fatal(events)
    assert last is not None and last.kind == "unknown-format"


def test_broken_bom_and_no_namespace() -> None:
    """ask.9939.com: a BOM and no namespace are tolerated: all 470 entries, one `namespace`
    Problem, and the capitalised <changefreq>Always</changefreq> read as ALWAYS."""
    events = _broken("ask.9939.com__sitemap.xml")
    assert len(entries(events)) == 470
    assert kinds(events) == ["namespace"]
    assert ChangeFreq.ALWAYS in {e.changefreq for e in entries(events)}


def test_broken_root_relative_index() -> None:
    """curtismethod: all 17 children root-relative: dropped, or resolved against the index URL."""
    assert refs(_broken("curtismethod__sitemap_index.xml")) == []
    resolved = refs(_broken("curtismethod__sitemap_index.xml", resolve_relative=True))
    assert len(resolved) == 17
    assert all(r.loc.startswith("https://curtismethod.example/") for r in resolved)


def test_broken_unclosed_cdata() -> None:
    """lemire: a CDATA section never closes (line 120). The entries before it stand (resolved
    here, as their locs are relative), then a fatal `not-well-formed` at line 120."""
    events = _broken("lemire__attachment-sitemap.xml", resolve_relative=True)
    assert (
        0
        < len(entries(events))
        < int(MANIFEST["broken/lemire__attachment-sitemap.xml"]["url_count"])
    )
    last = fatal(events)
    assert last is not None and last.kind == "not-well-formed" and "line 120" in last.message
    plain = _broken("lemire__attachment-sitemap.xml")
    assert kinds(plain)[-1] == "not-well-formed" and "relative-loc" in kinds(plain)


def test_broken_https_namespace() -> None:
    """ncbi: the https:// namespace is reported (`namespace`) and all 5 entries read."""
    events = _broken("ncbi__sitemap_000.xml")
    assert len(entries(events)) == 5
    assert kinds(events) == ["namespace"]


def test_broken_xml_named_html() -> None:
    """saint-gilles: named .html but an XML sitemapindex: routed by its bytes (an index, not
    `html`); its relative children resolve on request."""
    parser = SitemapParser("https://saint-gilles.example/sitemap.html", resolve_relative=True)
    events = (
        parser.feed(_read("broken/saint-gilles-vieux-marche.net__sitemap.html")) + parser.close()
    )
    assert parser.format is Format.SITEMAPINDEX
    assert len(refs(events)) == 2
    assert "html" not in kinds(events)


def test_broken_script_before_feed() -> None:
    """turbocosta: <script> tags before the XML declaration; the RSS behind them is read
    leniently (a non-fatal `not-well-formed`), its 4 items' relative links resolve on request."""
    events = _broken("turbocosta__category-blog-feed.xml", resolve_relative=True)
    assert len(entries(events)) == 4
    assert not problem(events, "not-well-formed").fatal
    assert fatal(events) is None


def test_broken_cut_root_start_tag() -> None:
    """white-siberia part2: the root start tag is cut inside its namespace; nothing after it can
    be trusted as XML, so the document fails at once (line 1) with no records."""
    events = _broken("white-siberia.ru__sitemap-iblock-55.part2.xml")
    assert entries(events) == []
    last = fatal(events)
    assert last is not None and last.kind == "not-well-formed" and "line 1," in last.message


def test_broken_merge_conflict_markers() -> None:
    """zawadi-intel: git conflict markers before the root: not-well-formed at line 3, no records."""
    events = _broken("zawadi-intel__sitemap.xml")
    assert entries(events) == []
    last = fatal(events)
    assert last is not None and last.kind == "not-well-formed" and "line 3," in last.message


def test_every_broken_file_has_a_test() -> None:
    """Each file in broken/ is covered by one of the tests above (update both together)."""
    covered = {
        "1-29.github.io__sitemap.xml",
        "18f-hugo__en-sitemap.xml",
        "18f-hugo__sitemap.xml",
        "941hm.com__sitemap.xml",
        "ask.9939.com__sitemap.xml",
        "curtismethod__sitemap_index.xml",
        "lemire__attachment-sitemap.xml",
        "ncbi__sitemap_000.xml",
        "saint-gilles-vieux-marche.net__sitemap.html",
        "turbocosta__category-blog-feed.xml",
        "white-siberia.ru__sitemap-iblock-55.part2.xml",
        "zawadi-intel__sitemap.xml",
    }
    assert {n.split("/", 1)[1] for n, r in MANIFEST.items() if r["kind"] == "broken"} == covered


def test_a_utc_aware_lastmod_somewhere() -> None:
    """Dates from the corpus come out timezone-aware (the IISH index has 121 of them)."""
    refs_ = refs(_events("index/search.iisg.amsterdam__sitemapIndex.xml"))
    assert len(refs_) == 121
    assert all(r.lastmod is None or r.lastmod.tzinfo is not None for r in refs_)
    assert any(
        r.lastmod is not None and r.lastmod > datetime(2000, 1, 1, tzinfo=timezone.utc)
        for r in refs_
    )
