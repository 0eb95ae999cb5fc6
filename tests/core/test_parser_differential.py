"""The compiled core's scanner against the exact expat path: same documents, same events,
any split.

Hypothesis builds sitemap documents (urlset and index) that mix the plain blocks the scanner
takes with every shape it must hand over to expat (CDATA, comments, entities and character
references, attributes, other field orders, image blocks with and without their namespace,
extension namespaces as generators spell them (https, a trailing slash), elements shaped
like an extension's in another namespace, invalid UTF-8, a stray ``&``, CR inside values,
unknown elements), in UTF-8 and in other
encodings (Latin-1, GBK, Shift_JIS, UTF-16), then damages some of them
(truncation, junk bytes), and reads them under default or deliberately small limits.
``fast=True`` fed at random split points must give exactly the events of ``fast=False`` fed
whole, Problem messages (with their line and column) included. The documents include the
malformed entries the exact path repairs (several ``<loc>``, records left open or nested,
records cut by the end), which every fast path must hand to it.

The pure-Python core has no scanner: the exact path is all it runs, so the tests that hold
the scanner to it are skipped there (``needs_compiled``) and the exact path's own
independence of the split runs on both cores. ``test_compiled_core.py`` adds the compiled
core's own tests (records it builds itself, every corpus file).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import event, example, given, settings
from hypothesis import strategies as st

from sitemap_reader import Entry, Image, Limits, Problem, ProblemKind, SitemapRef
from tests.support.compiled import compiled_events, needs_compiled
from tests.support.documents import cases, https_of, realistic_documents
from tests.support.helpers import (
    IMAGE_NS,
    NEWS_NS,
    SITEMAP_NS,
    VIDEO_NS,
    XHTML_NS,
    cut_at,
    entries,
    parse,
    parse_chunks,
    whole,
)

# -- the tests -------------------------------------------------------------------------

_PLAIN = (
    f'<?xml version="1.0"?>\n<urlset xmlns="{SITEMAP_NS}">\n'
    "<url><loc>https://example.com/a</loc><lastmod>2024-01-01</lastmod></url>\n"
).encode()
_DEFAULT = Limits()


def _after_plain(tail: bytes, limits: Limits = _DEFAULT) -> tuple[bytes, list[bytes], Limits]:
    """A case that starts with a block the scanner takes, split right after it."""
    return _PLAIN + tail, [_PLAIN, tail], limits


@needs_compiled
@settings(max_examples=400)
@given(cases())
# Each of these once gave different events on the two paths (regressions):
@example(_after_plain(b"<url><loc>]]>https://example.com/</loc></url></urlset>"))
@example(
    (
        (
            f'<urlset xmlns="{SITEMAP_NS}"><url><loc>https://example.com/</loc>'
            "<image:image><image:loc>https://example.com/i</image:loc></image:image></url></urlset>"
        ).encode(),
        [],
        _DEFAULT,
    )
)
@example(
    _after_plain(
        b"<url><loc>https://x.org/" + b"y" * 50 + b"</loc></url>", Limits(max_token_bytes=40)
    )
)
@example(  # alternates under a root that declares no image prefix
    (
        (
            f'<urlset xmlns="{SITEMAP_NS}" xmlns:xhtml="{XHTML_NS}"><url><loc>https://x.org/</loc>'
            '<xhtml:link rel="alternate" hreflang="de" href="https://x.org/de"/></url></urlset>'
        ).encode(),
        [],
        _DEFAULT,
    )
)
@example(  # a tab (expat: a space) and a control character (expat: an error) in an hreflang
    (
        (
            f'<urlset xmlns="{SITEMAP_NS}" xmlns:xhtml="{XHTML_NS}">'
            + "".join(
                f'<url><loc>https://x.org/{i}</loc><xhtml:link rel="alternate" hreflang="{lang}"'
                ' href="https://x.org/e"/></url>'
                for i, lang in enumerate(["en\tUS", "de", "e\x01"])
            )
            + "</urlset>"
        ).encode(),
        [],
        _DEFAULT,
    )
)
# ... and these are handovers the scanner must get right:
@example(  # a variant namespace on the root over plain blocks, then a look-alike
    (
        doc := (
            f'<urlset xmlns="{SITEMAP_NS}" xmlns:image="{https_of(IMAGE_NS)}/" xmlns:foo="urn:f">'
            "<url><loc>https://x.org/</loc><image:image><image:loc>https://x.org/i</image:loc>"
            "</image:image></url><url><loc>https://x.org/2</loc></url>"
            "<url><loc>https://x.org/3</loc><foo:image><foo:loc>https://x.org/f</foo:loc>"
            "</foo:image></url></urlset>"
        ).encode(),
        cut_at(doc, [60, 140]),
        _DEFAULT,
    )
)
@example(  # a look-alike in a block the scanner would take but for it
    (
        doc := (
            f'<urlset xmlns="{SITEMAP_NS}" xmlns:foo="urn:f"><url><loc>https://x.org/</loc>'
            "<foo:image><foo:loc>https://x.org/f</foo:loc></foo:image></url></urlset>"
        ).encode(),
        whole(doc),
        _DEFAULT,
    )
)
@example(_after_plain(b"<url><loc>https://example.com/b&c</loc></url></urlset>"))
@example(_after_plain(b"<url>\r\n<loc>https://x.org/\r</loc></url></urlset>"))
@example(_after_plain(b"<url><loc>https://x.org/\xff</loc></url></urlset>"))
@example(_after_plain(b"<url><loc>https://x.org/</loc></url><url><loc>https://exa"))
# ... and the malformed entries the exact path repairs (several-locs, unclosed-entry, cut-entry):
@example(_after_plain(b"<url><loc>https://x.org/1</loc><loc>https://x.org/2</loc></url></urlset>"))
@example(
    _after_plain(b"<url><loc>https://x.org/1</loc><url><loc>https://x.org/2</loc></url></url>")
)
@example(_after_plain(b"<url><loc>https://x.org/1</loc>\n<url><loc>https://x.org/2</loc></url>"))
@example(_after_plain(b"<url><loc>https://x.org/1</loc><lastmod>2024-01-01</lastmod><lastm"))
@example(
    (
        doc := (
            f'<sitemapindex xmlns="{SITEMAP_NS}"><sitemap><loc>https://x.org/1</loc></sitemap>'
            "<sitemap><loc>https://x.org/2</loc><loc>https://x.org/3</loc>"
            "<sitemap><loc>https://x.org/4</loc></sitemap></sitemapindex>"
        ).encode(),
        cut_at(doc, [80, 150]),
        _DEFAULT,
    )
)
def test_fast_path_equals_exact_path(case: tuple[bytes, list[bytes], Limits]) -> None:
    """The scanner, fed at random split points, gives the exact path's events, messages included."""
    data, pieces, limits = case
    pieces = pieces or [data]
    assert b"".join(pieces) == data
    exact = parse(data, fast=False, limits=limits)
    fast, scanned = _scanned(pieces, limits)
    assert fast == exact
    assert repr(fast) == repr(exact)  # (a datetime's offset, which == ignores, is in it)
    assert parse_chunks(whole(data), fast=True, limits=limits) == exact
    event(f"records read by the scanner: {_share(scanned, len(_records_of(fast)))}")


_LATE_FLUSH = (  # a value over the limit, then a fault before pyexpat hands the text on
    b"<urlset><url><loc><![CDATA[https://example.com/" + b"x" * 50 + b"]]></lastmod></url></urlset>"
)


@settings(max_examples=100)
@given(cases())
@example((_LATE_FLUSH, [_LATE_FLUSH[:80], _LATE_FLUSH[80:]], Limits(max_token_bytes=40)))
def test_exact_path_ignores_splits(case: tuple[bytes, list[bytes], Limits]) -> None:
    """The exact path alone gives the same events however the input is split."""
    data, pieces, limits = case
    assert parse_chunks(pieces, fast=False, limits=limits) == parse(data, fast=False, limits=limits)


def _records_of(events: list[Any]) -> list[Any]:
    return [e for e in events if isinstance(e, (Entry, SitemapRef))]


def _scanned(pieces: list[bytes], limits: Limits = _DEFAULT) -> tuple[list[Any], int]:
    """The fast path's events for ``pieces``, and how many records the scanner took."""
    events, taken, _ = compiled_events(pieces, limits)
    return events, taken


def _between_plain(block: str, root: str = "") -> bytes:
    """A urlset holding ``block`` between two plain blocks (the root's start tag with the
    attributes ``root``)."""
    plain = "<url><loc>https://example.com/p</loc></url>"
    return f'<urlset xmlns="{SITEMAP_NS}"{root}>{plain}\n{block}\n{plain}</urlset>'.encode()


def _read_between_plain(block: str, root: str = "") -> tuple[list[Any], int]:
    """The fast path's events for ``block`` between two plain blocks, after asserting they
    are the exact path's; and how many records the scanner took."""
    doc = _between_plain(block, root)
    fast, taken = _scanned([doc])
    assert fast == parse(doc, fast=False)
    return fast, taken


def _same_wherever_cut(block: str, root: str, fast: list[Any], step: int) -> None:
    """The fast path gives ``fast`` for ``block`` between two plain blocks, cut at every
    ``step``-th byte."""
    doc = _between_plain(block, root)
    for at in range(1, len(doc), step):
        assert _scanned(cut_at(doc, [at]))[0] == fast, at


def _share(part: int, total: int) -> str:
    """A bucket for ``hypothesis.event``: what share of the records ``part`` is."""
    if not total:
        return "no records"
    share = part / total
    return "all" if share == 1 else "none" if share == 0 else f"{int(share * 4) * 25}%+"


@needs_compiled
def test_scanner_reads_most_of_realistic_documents() -> None:
    """On documents in the mix real sites serve, the scanner reads most records of most
    documents, and the events are the exact path's whatever the split."""
    shares: list[float] = []

    @settings(max_examples=150, derandomize=True, database=None)
    @given(realistic_documents(), st.lists(st.integers(0, 1 << 20), max_size=4))
    def read(data: bytes, cuts: list[int]) -> None:
        exact = parse(data, fast=False)
        fast, scanned = _scanned(cut_at(data, cuts))
        assert fast == exact
        total = len(_records_of(fast))
        event(f"records read by the scanner: {_share(scanned, total)}")
        shares.append(scanned / total if total else 1.0)

    read()
    mostly = sum(share >= 0.8 for share in shares)
    assert mostly >= 0.9 * len(shares), sorted(shares)[:10]


@needs_compiled
def test_scanner_takes_plain_blocks() -> None:
    """Plain blocks (image ones with the namespace declared) are the scanner's, not expat's."""
    doc = (
        f'<?xml version="1.0"?>\n<urlset xmlns="{SITEMAP_NS}" xmlns:image="{IMAGE_NS}">\n'
        + "".join(
            f"<url><loc>https://example.com/{i}</loc><lastmod>2024-01-0{i + 1}</lastmod>"
            f"<image:image><image:loc>https://example.com/{i}.jpg</image:loc></image:image></url>\n"
            for i in range(5)
        )
        + "</urlset>\n"
    ).encode()
    fast, taken = _scanned([doc])
    assert taken == 5
    assert fast == parse(doc, fast=False)
    assert entries(fast)[4].images == (Image("https://example.com/4.jpg"),)


@needs_compiled
def test_scanner_checks_extension_namespaces_for_free() -> None:
    """Variants and look-alikes of the extensions' namespaces cost ordinary documents no
    block: the real namespaces and an unrelated one (mobile) leave every block to the
    scanner; a variant on the root leaves expat the first block that uses it (where the
    exact path records it); a look-alike is the scanner's, counted as the exact path counts
    it (``invalid-extension``)."""
    image = "<image:image><image:loc>https://example.com/i.jpg</image:loc></image:image>"
    foo = "<foo:image><foo:loc>https://example.com/f.jpg</foo:loc></foo:image>"

    def doc(image_ns: str, *looks: int) -> bytes:
        blocks = "".join(
            f"<url><loc>https://example.com/{i}</loc>{image}{foo if i in looks else ''}</url>\n"
            for i in range(6)
        )
        return (
            f'<urlset xmlns="{SITEMAP_NS}" xmlns:image="{image_ns}" xmlns:foo="urn:foo" '
            f'xmlns:mobile="http://www.google.com/schemas/sitemap-mobile/1.0">\n{blocks}</urlset>'
        ).encode()

    variant = "https://www.google.com/schemas/sitemap-image/1.1"
    for data, scanned, reported in (
        (doc(IMAGE_NS), 6, False),
        (doc(IMAGE_NS, 2, 4), 6, False),
        (doc(variant), 5, True),
        (doc(variant, 1), 5, True),
    ):
        fast, taken = _scanned([data])
        assert taken == scanned
        assert fast == parse(data, fast=False)
        kinds = [e.kind for e in fast if isinstance(e, Problem)]
        assert (ProblemKind.NAMESPACE in kinds) == reported
        assert all(e.images == (Image("https://example.com/i.jpg"),) for e in entries(fast))


@needs_compiled
@pytest.mark.parametrize("codec", ["shift_jis", "utf-16-be"])
def test_scanner_takes_transcoded_blocks(codec: str) -> None:
    """A document in another encoding reaches the scanner as UTF-8: its plain blocks are the
    scanner's too (UTF-16 from "\\0<", without a byte-order mark)."""
    doc = (
        f'<?xml version="1.0" encoding="{codec}"?>\n<urlset xmlns="{SITEMAP_NS}">\n'
        + "".join(f"<url><loc>https://example.com/\u65e5\u672c/{i}</loc></url>\n" for i in range(5))
        + "</urlset>\n"
    ).encode(codec)
    fast, taken = _scanned([doc])
    assert taken == 5
    assert fast == parse(doc, fast=False)
    assert entries(fast)[4].loc == "https://example.com/\u65e5\u672c/4"


@needs_compiled
@pytest.mark.parametrize(
    ("block", "scanned"),
    [
        ("<url><loc><![CDATA[https://example.com/x]]></loc></url>", 3),
        ("<url><loc>https://example.com/&#120;</loc></url>", 3),
        ("<url><lastmod>2024-01-01</lastmod><loc>https://example.com/x</loc></url>", 3),
        ("<url><!-- c -- d --><loc>https://example.com/x</loc></url>", 1),
        ("<url><?pi:x?><loc>https://example.com/x</loc></url>", 1),
        ("<url><?\u00e9 x?><loc>https://example.com/x</loc></url>", 2),
        ('<url id="1"><loc>https://example.com/x</loc></url>', 2),
        ("<url><loc>https://example.com/&#0;</loc></url>", 1),
        (
            "<url><loc>https://example.com/x</loc><img:image><img:loc>i</img:loc></img:image></url>",
            1,
        ),
    ],
    ids=[
        *("cdata", "charref", "order", "bad-comment", "bad-instruction", "non-ascii-instruction"),
        *("attribute", "bad-charref", "unbound-prefix"),
    ],
)
def test_scanner_hands_over_what_it_cannot_take(block: str, scanned: int) -> None:
    """The scanner takes the blocks it can read; expat reads the odd one, and the scanner
    goes on after it (a fault in it, though, ends the document where expat says)."""
    assert _read_between_plain(block)[1] == scanned


@needs_compiled
@pytest.mark.parametrize(
    ("block", "scanned", "where"),
    [
        (
            "<url><loc>https://example.com/x</loc><url><loc>https://example.com/y</loc></url></url>",
            4,
            (2, 37),
        ),
        (
            (
                "<url><loc>https://example.com/x</loc>\n <url><loc>https://example.com/y</loc></url>"
                "<!-- c -->\n<url><lastmod>bad</lastmod><url><loc>https://example.com/z</loc>"
                "</url></url>\n</url>"
            ),
            5,
            (3, 1),
        ),
        # the end tag missing: the root's end tag is a fault, and the rest expat's
        (
            "<url><loc>https://example.com/x</loc>\n<url><loc>https://example.com/y</loc></url>",
            1,
            (3, 0),
        ),
    ],
    ids=["nested", "siblings-and-deeper", "end-tag-missing"],
)
def test_a_record_inside_a_record_is_the_scanners(
    block: str, scanned: int, where: tuple[int, int]
) -> None:
    """A record another one starts in, which the exact path emits as it stood when the
    next one started (``unclosed-entry``), is read by the scanner when the record's own end
    tag closes it: the same records, and the same problem (count, line, column, example),
    wherever the input is cut."""
    fast, taken = _read_between_plain(block)
    assert taken == scanned
    noted = next(e for e in fast if isinstance(e, Problem))
    assert noted.kind == ProblemKind.UNCLOSED_ENTRY
    assert (noted.line, noted.column, noted.example) == (*where, "'https://example.com/x'")
    _same_wherever_cut(block, "", fast, 3)
    index = (
        f'<sitemapindex xmlns="{SITEMAP_NS}"><sitemap><loc>https://example.com/1</loc>'
        "<sitemap><loc>https://example.com/2</loc></sitemap></sitemap></sitemapindex>"
    ).encode()
    for at in range(1, len(index)):
        assert _scanned(cut_at(index, [at])) == (parse(index, fast=False), 2), at


@needs_compiled
def test_what_a_record_run_into_notes_comes_before_its_unclosed_entry() -> None:
    """The problems of a record the next one ran into come in the exact path's order: what
    its extensions note when they close, then ``unclosed-entry`` where the next one starts
    (the differential fuzz, seed 35, found them the other way round)."""
    block = (
        "<url><loc>https://example.com/x</loc><image:image><image:title>t</image:title>"
        "</image:image><url><loc>https://example.com/y</loc></url></url>"
    )
    root = f' xmlns:image="{IMAGE_NS}"'
    fast, taken = _read_between_plain(block, root)
    assert taken == 4
    kinds = [e.kind for e in fast if isinstance(e, Problem)]
    assert kinds == [ProblemKind.IMAGE_MISSING_LOC, ProblemKind.UNCLOSED_ENTRY]
    _same_wherever_cut(block, root, fast, 3)


_MOBILE_NS = "http://www.google.com/schemas/sitemap-mobile/1.0"


@needs_compiled
@pytest.mark.parametrize(
    "block",
    [
        "<url><!-- c --><loc>https://example.com/x</loc></url>",
        "<url><loc>https://example.com/<!-- c -->x<?p?></loc><?pi a b?></url>",
        "<!-- before -->\n<?pi?><url><loc>https://example.com/x</loc><!---->\r\n</url>",
        "<url><loc>https://example.com/x</loc><mobile:mobile/></url>",
        "<url><mobile:mobile type='pc'>\n</mobile:mobile><loc>https://example.com/x</loc></url>",
        "<url><loc>https://example.com/x</loc><foo a='&amp;'><loc>y</loc><url/>t</foo></url>",
        "<url><loc>https://example.com/x</loc><image:loc>y</image:loc><xsi:x/></url>",
    ],
    ids=[
        *("comment", "in-a-value", "between-blocks", "mobile", "mobile-open", "unknown"),
        "extension-or-other-namespace",
    ],
)
def test_scanner_takes_comments_instructions_and_elements_a_record_ignores(block: str) -> None:
    """Comments and processing instructions (in and between blocks), and elements the
    exact path reads nothing of (Google's old ``<mobile:mobile/>``, unknown ones with their
    content) are the scanner's: it checks what expat checks of them and skips them."""
    root = (
        f' xmlns:mobile="{_MOBILE_NS}" xmlns:image="{IMAGE_NS}" '
        'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"'
    )
    fast, taken = _read_between_plain(block, root)
    assert taken == 3
    assert entries(fast)[1].loc == "https://example.com/x"


@needs_compiled
@pytest.mark.parametrize(
    ("root", "block", "scanned"),
    [
        # a prefix bound to the sitemap's own namespace: its elements are the exact path's
        (f'xmlns:sm="{SITEMAP_NS}"', "<url><sm:loc>https://example.com/x</sm:loc></url>", 2),
        # a reference in a prefix's namespace: its elements are expat's
        ('xmlns:o="urn:&#111;"', "<url><loc>https://example.com/x</loc><o:x/></url>", 2),
    ],
    ids=["sitemap-namespace", "reference"],
)
def test_scanner_leaves_expat_what_the_exact_path_reads_or_counts(
    root: str, block: str, scanned: int
) -> None:
    assert _read_between_plain(block, " " + root)[1] == scanned


@needs_compiled
@pytest.mark.parametrize(
    ("root", "block", "example"),
    [
        (
            'xmlns:im="http://example.com/sitemap-image/1.1"',
            "<url><loc>https://example.com/x</loc><im:x a='1'><im:loc>y</im:loc></im:x></url>",
            "a <x> in the namespace 'http://example.com/sitemap-image/1.1'",
        ),
        (
            'xmlns:o="urn:o"',
            "<url><loc>https://example.com/x</loc><o:image/><o:link hreflang='de'/></url>",
            "a <image> in the namespace 'urn:o'",
        ),
        (
            "",
            (
                "<url><image><loc>https://example.com/i.jpg</loc></image>"
                "<loc>https://example.com/x</loc><link href='https://example.com/'/></url>"
            ),
            f"a <image> in the namespace {SITEMAP_NS!r}",
        ),
    ],
    ids=["lookalike-namespace", "lookalike-elements", "prefix-forgotten"],
)
def test_a_lookalike_is_the_scanners_and_counted_as_the_exact_path_counts_it(
    root: str, block: str, example: str
) -> None:
    """An element that only looks like an extension's, as a child of a ``<url>`` (in a
    namespace named like one's, an ``<image>``, ``<video>``, ``<news>`` or an ``<x:link
    hreflang>`` in another namespace or none), is read by the scanner: skipped, and counted
    (``invalid-extension``) with the exact path's example, wherever the input is cut."""
    fast, taken = _read_between_plain(block, " " + root if root else "")
    assert taken == 3
    (noted,) = (e for e in fast if isinstance(e, Problem))
    assert noted.kind == ProblemKind.INVALID_EXTENSION
    assert noted.example == f"{example}, which is no extension's, was not read"
    _same_wherever_cut(block, " " + root, fast, 5)


@needs_compiled
@pytest.mark.parametrize(
    ("block", "scanned"),
    [
        (
            (
                "<url><loc>https://example.com/x</loc><xhtml:link rel='alternate' hreflang='de' "
                "href='https://example.com/de'>\n<!-- generator --><?pi x?>\n</xhtml:link></url>"
            ),
            3,
        ),
        (
            (
                "<url><loc>https://example.com/x</loc><image:image><!-- c --><foo a='1'>t<b/></foo>"
                "<image:loc>https://example.com/i.jpg</image:loc><image:image/></image:image></url>"
            ),
            3,
        ),
        # an image's field inside another element of the image: the exact path's
        (
            (
                "<url><loc>https://example.com/x</loc><image:image><foo><image:loc>"
                "https://example.com/i.jpg</image:loc></foo></image:image></url>"
            ),
            2,
        ),
    ],
    ids=["comment-in-link", "element-in-image", "field-deeper-in-image"],
)
def test_what_a_link_or_an_image_holds_besides_its_own_is_the_scanners(
    block: str, scanned: int
) -> None:
    """Comments, instructions and elements inside an ``<xhtml:link>``, and elements inside an
    ``<image:image>`` (with no image field in them), which the exact path reads nothing of,
    are skipped by the scanner, wherever the input is cut."""
    root = f' xmlns:image="{IMAGE_NS}" xmlns:xhtml="{XHTML_NS}"'
    fast, taken = _read_between_plain(block, root)
    assert taken == scanned
    assert entries(fast)[1].images or entries(fast)[1].alternates
    _same_wherever_cut(block, root, fast, 5)


@needs_compiled
@pytest.mark.parametrize(
    ("block", "scanned"),
    [
        (
            (
                "<url><loc>https://example.com/x</loc><mobile:mobile xsi:type='pc' "
                'xml:lang="en"><x xsi:nil="true"/></mobile:mobile></url>'
            ),
            3,
        ),
        # a prefix no one declared: expat refuses it, where the exact path says
        ("<url><loc>https://example.com/x</loc><mobile:mobile q:type='pc'/></url>", 1),
    ],
    ids=["bound", "unbound"],
)
def test_prefixed_attributes_on_a_skipped_element_are_the_scanners(
    block: str, scanned: int
) -> None:
    """An element the exact path reads nothing of may have attributes under a prefix the
    root declares (``xsi:type``) or ``xml`` (``xml:lang``): the scanner skips it."""
    root = f' xmlns:mobile="{_MOBILE_NS}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"'
    fast, taken = _read_between_plain(block, root)
    assert taken == scanned
    _same_wherever_cut(block, root, fast, 5)


@needs_compiled
@pytest.mark.parametrize(
    ("doctype", "scanned"),
    [
        ("<!DOCTYPE urlset>", 3),
        ('<!DOCTYPE urlset SYSTEM "http://example.com/sitemap.dtd">\r\n<!-- c -->', 3),
        ("<!DOCTYPE urlset PUBLIC '-//X//DTD Sitemap//EN' 'http://example.com/s.dtd' >", 3),
        # an internal subset may declare defaults and entities: expat reads the document
        ("<!DOCTYPE urlset [<!ATTLIST url id CDATA 'x'>]>", 0),
        ("<!DOCTYPE urlset SYSTEM 'a' junk>", 0),  # (expat's fault)
    ],
    ids=["bare", "system", "public", "internal-subset", "malformed"],
)
def test_a_doctype_without_an_internal_subset_leaves_the_blocks_to_the_scanner(
    doctype: str, scanned: int
) -> None:
    """A DOCTYPE is tolerated and never read (expat reads the prolog, with no entity
    expanded or DTD loaded); without an internal subset the scanner reads the blocks after
    it, with the exact path's events wherever the input is cut, a reference to an entity
    the DTD might declare included (expat's to refuse)."""
    blocks = "\n".join(f"<url><loc>https://example.com/{i}</loc></url>" for i in range(3))
    doc = f'<?xml version="1.0"?>\n{doctype}\n<urlset xmlns="{SITEMAP_NS}">\n{blocks}\n</urlset>'
    data = doc.encode()
    fast, taken = _scanned([data])
    assert taken == scanned
    assert fast == parse(data, fast=False)
    for at in range(1, len(data), 3):
        assert _scanned(cut_at(data, [at]))[0] == fast, at
    unsafe = data.replace(b"/1</loc>", b"/1&ent;</loc>")
    exact = parse(unsafe, fast=False)
    assert _scanned([unsafe])[0] == exact
    assert isinstance(exact[-1], Problem) and exact[-1].fatal


@needs_compiled
@pytest.mark.parametrize("index", [False, True], ids=["urlset", "index"])
@pytest.mark.parametrize(
    "limits", [Limits(), Limits(max_urls=3, cut_at_max_urls=True)], ids=["default", "cut"]
)
def test_a_further_loc_is_the_scanners_and_a_record_of_its_own(index: bool, limits: Limits) -> None:
    """A further ``<loc>`` in a record (``several-locs``) is read by the scanner: the first
    is the record's, with its fields, each further one a record of its own after it, counted
    with the exact path's example, line and column, and cut by ``max_urls`` where the exact
    path cuts, wherever the input is cut."""
    record = "sitemap" if index else "url"
    blocks = [
        f"<{record}><loc>https://example.com/0</loc></{record}>",
        (
            f"<{record}><loc>https://example.com/1</loc><lastmod>2024-01-01</lastmod>\r\n"
            f"  <loc> https://example.com/\u00e9 </loc><loc>https://example.com/3</loc></{record}>"
        ),
        f"<{record}><loc>https://example.com/4</loc></{record}>",
    ]
    root = "sitemapindex" if index else "urlset"
    body = "\n".join(blocks)
    data = f'<{root} xmlns="{SITEMAP_NS}">\n{body}\n</{root}>'.encode()
    exact = parse(data, fast=False, limits=limits)
    fast, taken = _scanned([data], limits)
    assert fast == exact
    assert taken == len(_records_of(exact))
    assert [e.loc for e in _records_of(exact)] == [
        f"https://example.com/{c}" for c in ("0", "1", "\u00e9", "3", "4")
    ][: 3 if limits.cut_at_max_urls else 5]
    (noted,) = (e for e in exact if isinstance(e, Problem) and e.kind == ProblemKind.SEVERAL_LOCS)
    assert (noted.line, noted.column, noted.example) == (4, 2, "'https://example.com/\u00e9'")
    for at in range(1, len(data), 4):
        assert _scanned(cut_at(data, [at]), limits)[0] == exact, at


@needs_compiled
def test_a_reference_in_the_default_namespace_leaves_the_document_to_the_exact_path() -> None:
    """Expat decodes it, and a prefix bound to the same namespace makes the sitemap's own
    elements: ``<p:loc>`` is a ``<loc>`` here."""
    doc = (
        b'<urlset xmlns="urn:&#97;" xmlns:p="urn:a"><url><loc>https://example.com/a</loc>'
        b"<p:loc>https://example.com/b</p:loc></url><url><loc>https://example.com/c</loc></url>"
        b"</urlset>"
    )
    fast, taken = _scanned([doc])
    assert taken == 0
    assert fast == parse(doc, fast=False)
    assert [e.loc for e in entries(fast)] == [f"https://example.com/{c}" for c in "abc"]


@needs_compiled
def test_namespace_variants_are_reported_as_the_exact_path_reports_them() -> None:
    """Two variants met in either order, in blocks the scanner takes and blocks expat reads:
    the one namespace problem, its variants in the order the exact path met them."""
    image = "<im:image><im:loc>https://example.com/i.jpg</im:loc></im:image>"
    link = "<x:link rel='alternate' hreflang='de' href='https://example.com/de'/>"
    root = (
        f'<urlset xmlns="{SITEMAP_NS}" xmlns:im="{https_of(IMAGE_NS)}" '
        'xmlns:x="http://www.w3.org/TR/xhtml11/xhtml11_schema.html">'
    )
    odd = link.replace("<x:link", "<x:link type='t'")  # (a block the scanner leaves expat)
    for order in ([image, link], [link, image], [image + link], [odd, image]):
        blocks = "".join(
            f"<url><loc>https://example.com/{i}</loc>{ext}{ext}</url>\n"
            for i, ext in enumerate(["", *order, *order, ""])
        )
        doc = (root + blocks + "</urlset>").encode()
        exact = parse(doc, fast=False)
        for cut in range(0, len(doc), 7):
            fast, _ = _scanned([doc[:cut], doc[cut:]])
            assert fast == exact
        (problem,) = (
            e for e in exact if isinstance(e, Problem) and e.kind == ProblemKind.NAMESPACE
        )
        assert "extension elements have the namespace" in problem.message
        assert " and " in problem.message  # (both, in the order met)


@needs_compiled
def test_scanner_reads_what_generators_write() -> None:
    """Alternates (attributes in any order, either quote), images with their other fields,
    CDATA, references, video and news, under the prefixes the root declares: the
    scanner's, with the exact path's records."""
    blocks = [
        (
            "<url><loc><![CDATA[https://example.com/a?x=1&y=2]]></loc>"
            "<lastmod> 2024-03-05 </lastmod><changefreq><![CDATA[weekly]]></changefreq></url>"
        ),
        (
            "<url>\n <loc>https://example.com/caf&#xE9;&amp;b</loc>\n"
            " <x:link rel='alternate' hreflang='de' href='https://example.com/de/?a=1&amp;b=2'/>\n"
            ' <x:link href="https://example.com/fr/" rel="alternate" hreflang="fr" ></x:link>\n'
            ' <x:link rel="canonical" href="https://example.com/"/>\n</url>'
        ),
        (
            "<url><priority>0.8</priority><loc>https://example.com/c</loc>"
            "<img:image><img:title>A &lt;b&gt; title</img:title><img:loc>https://example.com/c.jpg"
            "</img:loc><img:caption><![CDATA[Caf\u00e9 & co]]></img:caption>"
            "<img:geo_location>Paris</img:geo_location><img:license>https://example.com/l"
            "</img:license></img:image><img:image><img:title>no loc</img:title></img:image></url>"
        ),
        (
            "<url><loc>https://example.com/v</loc><video:video><video:title>V</video:title>"
            "<video:player_loc allow_embed='yes'>https://example.com/p</video:player_loc>"
            "<video:duration>61</video:duration><video:tag>a</video:tag><video:tag>b</video:tag>"
            "</video:video><news:news><news:publication><news:name>N</news:name>"
            "<news:language>en</news:language></news:publication>"
            "<news:publication_date>2024-03-05</news:publication_date>"
            "<news:title>T</news:title></news:news><mobile:mobile/></url>"
        ),
    ]
    doc = (
        f'<?xml version="1.0"?>\n<urlset xmlns="{SITEMAP_NS}" xmlns:x="{XHTML_NS}" '
        f'xmlns:img=\'{IMAGE_NS}\' xmlns:video="{VIDEO_NS}" xmlns:news="{NEWS_NS}" '
        'xmlns:mobile="http://www.google.com/schemas/sitemap-mobile/1.0">\n'
        + "\n".join(blocks)
        + "\n</urlset>\n"
    ).encode()
    fast, taken = _scanned([doc])
    # All of them, the last with an element of a namespace no extension has
    # (<mobile:mobile/>), which the exact path reads nothing of and the scanner skips.
    assert taken == len(blocks)
    assert fast == parse(doc, fast=False)
    assert parse_chunks(cut_at(doc, range(7, len(doc), 13)), fast=True) == fast
    first, second, third, fourth = entries(fast)
    assert first.loc == "https://example.com/a?x=1&y=2"
    assert second.loc == "https://example.com/caf\u00e9&b"
    assert [(a.hreflang, a.href) for a in second.alternates] == [
        ("de", "https://example.com/de/?a=1&b=2"),
        ("fr", "https://example.com/fr/"),
    ]
    assert [(i.title, i.caption, i.geo_location) for i in third.images] == [
        ("A <b> title", "Caf\u00e9 & co", "Paris")
    ]
    assert fourth.videos[0].tags == ("a", "b")
    assert fourth.news[0].publication_name == "N"


@needs_compiled
@pytest.mark.parametrize(
    "block",
    [
        (
            "<url><loc> https://example.com/a </loc><lastmod>\t2024-03-05 </lastmod>"
            "<changefreq> Weekly</changefreq><priority> 1.5 </priority></url>"
        ),
        "<url><loc>https://example.com/a?b=1&amp;c=2</loc><lastmod></lastmod></url>",
        "<url><loc>https://exa\rmple.com/a\r\n</loc><changefreq>daily\r</changefreq></url>",
        "<url><loc><![CDATA[ https://example.com/c ]]></loc><priority>2</priority></url>",
        (
            "<url><loc>https://example.com/i</loc><image:image><image:loc> https://example.com/1.jpg"
            "\n</image:loc></image:image>\n<image:image>\t<image:loc>https://example.com/2.jpg"
            "</image:loc>\n</image:image>\n</url>"
        ),
        (
            "<url><loc>https://example.com/i</loc><image:image><image:loc> </image:loc>"
            "</image:image></url>"
        ),
        (
            "<url><loc>https://example.com/i</loc><image:image><image:loc>https://example.com/"
            "?a=1&amp;b=2</image:loc></image:image><image:image><image:loc>https://exa\rmple.com/"
            "</image:loc></image:image></url>"
        ),
        (
            "<url><loc>https://example.com/i</loc><image:image><image:loc><![CDATA["
            "https://example.com/3.jpg]]></image:loc></image:image></url>"
        ),
    ],
    ids=[
        "spaces",
        "reference",
        "cr",
        "cdata",
        "images",
        "image-no-loc",
        "image-ref-cr",
        "image-cdata",
    ],
)
def test_plain_values_read_as_any_value(block: str) -> None:
    """The scanner strips a plain value (no markup, reference or CR) and images of a plain
    loc without the general decoding: what it gives is the exact path's, whatever the
    values, the dropped ones and the tallies' first examples, and wherever the text is cut."""
    doc = (
        f'<urlset xmlns="{SITEMAP_NS}" xmlns:image="{IMAGE_NS}">\n'
        f"<url><loc>https://example.com/p</loc></url>\n{block}\n</urlset>\n"
    ).encode()
    fast, taken = _scanned([doc])
    assert taken == 2
    assert fast == parse(doc, fast=False)
    for at in range(1, len(doc), 7):
        assert parse_chunks(cut_at(doc, [at]), fast=True) == fast


@needs_compiled
def test_alternates_read_as_any_alternate() -> None:
    """The alternates generators write (rel, hreflang, href in that order) are built in
    one pass: the same records and tallies as any other alternate's, every value odd."""
    links = [
        ("de", "https://example.com/de/"),
        (" fr ", " https://example.com/fr/ "),
        ("", "https://example.com/none/"),
        ("  ", "https://example.com/blank/"),
        ("it", ""),
        ("es", "   "),
        ("pt", "/pt/"),
        ("nl", "https://example.com/nl/?a=1&amp;b=2"),
        ("x-default", "ftp://example.com/"),
    ]
    block = (
        "<url><loc>https://example.com/</loc>\n"
        + "".join(
            f'  <xhtml:link rel="alternate" hreflang="{lang}" href="{href}"/>\n'
            for lang, href in links
        )
        + "</url>"
    )
    doc = (
        f'<urlset xmlns="{SITEMAP_NS}" xmlns:xhtml="{XHTML_NS}">\n{block}\n{block}\n</urlset>\n'
    ).encode()
    fast, taken = _scanned([doc])
    assert taken == 2
    assert fast == parse(doc, fast=False)
    assert [(a.hreflang, a.href) for a in entries(fast)[0].alternates] == [
        ("de", "https://example.com/de/"),
        ("fr", "https://example.com/fr/"),
        (None, "https://example.com/none/"),
        (None, "https://example.com/blank/"),
        ("nl", "https://example.com/nl/?a=1&b=2"),
    ]
    assert [p.kind for p in fast if isinstance(p, Problem)] == [
        ProblemKind.RELATIVE_LOC,
        ProblemKind.INVALID_LOC,
    ]


@needs_compiled
def test_an_odd_block_costs_that_block_only() -> None:
    """One block only expat may read (an attribute on it) near the top: the scanner takes every
    other block; a fault further on is reported at expat's line and column."""
    plain = "<url>\n  <loc>https://example.com/{}</loc>\n</url>\n"
    odd = "<url id='odd'><loc>https://example.com/odd</loc></url>\n"
    body = plain.format(0) + odd + "".join(plain.format(i) for i in range(1, 50))
    doc = f'<urlset xmlns="{SITEMAP_NS}">\n{body}</urlset>\n'.encode()
    fast, taken = _scanned([doc])
    assert taken == 50
    assert len(entries(fast)) == 51
    assert fast == parse(doc, fast=False)
    broken = doc.replace(b"/49</loc>", b"/49</lo>")
    fast = parse_chunks(cut_at(broken, [100, 300]), fast=True)
    assert fast == parse(broken, fast=False)
    fault = fast[-1]
    assert isinstance(fault, Problem) and fault.fatal
    assert "line 151, column 31" in fault.message  # where expat alone puts it


@needs_compiled
def test_white_space_between_blocks_is_the_scanners_however_long() -> None:
    """White space between blocks over a block's 64 KiB bound (as in a file of the corpus,
    urlset/white-siberia.ru) is consumed by the scanner: every block is its own,
    nothing goes to expat, and the lines and columns after it are still expat's: a fault
    further on is where expat alone puts it, wherever the input is cut (in a CR LF too)."""
    from sitemap_reader import _native

    gap = "\r\n" + " " * 70_000 + "\r\n\t\r" + "\n" * 3
    blocks = gap.join(f"<url><loc>https://example.com/{i}</loc></url>" for i in range(4))
    doc = f'<urlset xmlns="{SITEMAP_NS}">{gap}{blocks}{gap}</urlset>\n'.encode()
    before = _native.handovers()
    fast, taken = _scanned([doc])
    assert _native.handovers() == before  # (no block, no rest handed over)
    assert taken == 4
    assert fast == parse(doc, fast=False)
    broken = doc.replace(b"/3</loc>", b"/3</lo>")
    exact = parse(broken, fast=False)
    fault = exact[-1]
    assert isinstance(fault, Problem) and "line 21, column 33" in fault.message
    crs = [i for i, b in enumerate(broken) if b == ord("\r")]
    for at in [*crs, *(i + 1 for i in crs), 40_000, len(broken) - 30]:
        fast, taken = _scanned(cut_at(broken, [at]))
        assert fast == exact, at
        assert taken == 3, at


@needs_compiled
@pytest.mark.parametrize(
    "prolog",
    ["", "\ufeff<?xml version='1.0'?>\r\n<!-- a\r b\n -->\r\n<?pi \u00e9?>\n  "],
    ids=["none", "bom-comment-instruction"],
)
@pytest.mark.parametrize("index", [False, True], ids=["urlset", "index"])
def test_a_field_given_twice_is_the_scanners_and_noted_where_expat_notes_it(
    prolog: str, index: bool
) -> None:
    """A field given twice (two ``<lastmod>``; an image's field, which nothing notes) is read
    by the scanner: the last value counts, and ``repeated-element`` has the exact path's
    count, first example, line and column (in characters, after a byte-order mark, CR LF and
    lone CRs), wherever the input is cut."""
    record, loc = ("sitemap", "https://example.com/s{}.xml") if index else ("url", None)
    loc = loc or "https://example.com/{}"
    blocks = [
        "<{r}><loc>" + loc + "</loc></{r}>",
        "<{r}>\r <lastmod>2024-01-01</lastmod>\r\n<loc>" + loc + "\u00e9</loc>"
        " <lastmod> \u65e5 2024-01-02 </lastmod></{r}>",
        "<{r}><loc>" + loc + "</loc><lastmod>x</lastmod><lastmod>y</lastmod>\n"
        "<lastmod>2024-03-03</lastmod></{r}>",
    ]
    if not index:
        blocks.append(
            "<url><changefreq>daily</changefreq><loc>https://example.com/{}</loc>"
            "<priority>0.5</priority><image:image><image:loc>https://example.com/a.jpg</image:loc>"
            "<image:loc>https://example.com/b.jpg</image:loc></image:image>"
            "<changefreq>weekly</changefreq><priority>0.7</priority></url>"
        )
    body = "\n".join(b.format(i, r=record) for i, b in enumerate(blocks))
    root = "sitemapindex" if index else "urlset"
    doc = (
        f'{prolog}<{root} xmlns="{SITEMAP_NS}" xmlns:image="{IMAGE_NS}">\n{body}\n</{root}>'
    ).encode()
    exact = parse(doc, fast=False)
    fast, taken = _scanned([doc])
    assert taken == len(blocks)
    assert fast == exact
    (repeated,) = (
        e for e in fast if isinstance(e, Problem) and e.kind == ProblemKind.REPEATED_ELEMENT
    )
    assert repeated.count == (3 if index else 5)
    assert repeated.example == "<lastmod> '\u65e5 2024-01-02'"
    assert (repeated.line, repeated.column) == (10 if prolog else 5, 39 if index else 34)
    for at in range(1, len(doc), 3):
        assert _scanned(cut_at(doc, [at]))[0] == exact, at


@needs_compiled
@pytest.mark.parametrize(("every", "scanned"), [(1, 0), (10, 630)])
def test_expat_reads_alone_once_most_blocks_are_odd(every: int, scanned: int) -> None:
    """Block after odd block, expat reads the rest of the document alone (faster than one
    block at a time); a tenth of odd blocks does not stop the scanner."""
    blocks = [
        f"<url id='odd'><loc>https://example.com/{i}</loc></url>"
        if i % every == 0
        else f"<url><loc>https://example.com/{i}</loc></url>"
        for i in range(700)
    ]
    doc = f'<urlset xmlns="{SITEMAP_NS}">\n' + "\n".join(blocks) + "\n</urlset><x/>"
    fast, taken = _scanned(cut_at(doc.encode(), [5_000, 20_000]))
    assert taken == scanned
    assert len(entries(fast)) == 700
    assert fast == parse(doc.encode(), fast=False)  # the junk after the root too
