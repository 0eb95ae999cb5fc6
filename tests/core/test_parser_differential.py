"""The fast scanner against the exact expat path: same documents, same events, any split.

Hypothesis builds sitemap documents (urlset and index) that mix the plain blocks the scanner
takes with every shape it must hand over to expat (CDATA, comments, entities and character
references, attributes, other field orders, image blocks with and without their namespace,
extension namespaces as generators spell them (https, a trailing slash), elements shaped
like an extension's in another namespace, invalid UTF-8, a stray ``&``, CR inside values,
unknown elements), in UTF-8 and in other
encodings (Latin-1, GBK, Shift_JIS, UTF-16), then damages some of them
(truncation, junk bytes), and reads them under default or deliberately small limits.
``fast=True`` fed at random split points must give exactly the events of ``fast=False`` fed
whole, Problem messages (with their line and column) included.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from unittest import mock

import pytest
from hypothesis import event, example, given, settings
from hypothesis import strategies as st

from sitemap_reader import Entry, Image, Limits, Problem, ProblemKind, SitemapRef
from sitemap_reader._core._xml import _records, _scan
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

# -- values -----------------------------------------------------------------------------

_PATH_PIECES = st.sampled_from(
    ["a", "b/", "page-1", "caf\u00e9", "\u65e5\u672c", "%20", "?q=1", "&amp;x=2", "#top", "~u", "+"]
)
_LOC = st.one_of(
    st.lists(_PATH_PIECES, max_size=4).map(lambda p: "https://example.com/" + "".join(p)),
    st.sampled_from(
        ["/relative", "", "  ", "ftp://example.com/f", "not a url", "HTTP://EXAMPLE.COM/UP"]
    ),
)
_LASTMOD = st.sampled_from(
    ["2024-03-05", "2024-03-05T10:20:30+02:00", "2024-03-05 10:20", "2024", "junk", "", " 2024-01 "]
)
_CHANGEFREQ = st.sampled_from(["daily", "Weekly", "NEVER", "sometimes", ""])
_PRIORITY = st.sampled_from(["0.5", "1.0", "0", "1.5", "-0.1", "high", "nan", ""])
_WS = st.sampled_from(["", " ", "\n", "\n  ", "\t", "\r\n", "\r\n\t\t"])


@st.composite
def _value(draw: st.DrawFn, text: str, *, cr: bool = True) -> str:
    """``text`` as it may be written in XML: plain, padded, in CDATA, or with references
    (and, with ``cr``, between carriage returns, which expat rewrites)."""
    shapes = ["plain", "plain", "plain", "pad", "cdata", "ref"]
    shape = draw(st.sampled_from([*shapes, "cr"] if cr else shapes))
    if shape == "pad":
        return draw(_WS) + text + draw(_WS)
    if shape == "cdata":
        return f"<![CDATA[{text.replace('&amp;', '&')}]]>"
    if shape == "ref":
        return text.replace("a", "&#97;").replace("e", "&#x65;").replace("/", "&#47;", 1)
    if shape == "cr":
        return "\r" + text + "\r"
    return text


_LANG = st.sampled_from(["de", "fr-CA", "x-default", "", "EN"])
# (a tab, a line break or a control character in an attribute: expat rewrites or refuses them)
_ANY_LANG = st.one_of(_LANG, st.sampled_from(["en\tUS", "\nde", "en\x01"]))
_TITLE = st.sampled_from(["A title", "Caf\u00e9 &amp; cr\u00e8me", "1 &lt; 2", "", "  pad  "])


@st.composite
def _alternate(draw: st.DrawFn, prefix: str, langs: st.SearchStrategy[str] = _ANY_LANG) -> str:
    """An ``<xhtml:link>``: attributes in any order, either quote, sometimes not an alternate."""
    attrs = [
        ("rel", draw(st.sampled_from(["alternate", "alternate", "Alternate", "canonical"]))),
        ("hreflang", draw(langs)),
        ("href", draw(_LOC).replace("&", "&amp;").replace("&amp;amp;", "&amp;")),
    ]
    if draw(st.integers(0, 5)) == 0:
        attrs.append(("media", "only screen and (max-width: 640px)"))
    if draw(st.integers(0, 5)) == 0:
        del attrs[draw(st.integers(0, len(attrs) - 1))]
    draw(st.randoms()).shuffle(attrs)
    text = ""
    for name, value in attrs:
        quote = draw(st.sampled_from(['"', "'"]))
        text += f" {name}={quote}{value}{quote}"
    end = draw(st.sampled_from(["/>", " />", "></" + prefix + ":link>"]))
    return f"<{prefix}:link{text}{end}"


@st.composite
def _image(draw: st.DrawFn, prefix: str, *, cr: bool = True) -> str:
    """An ``<image:image>`` with its loc (mostly) and some of its other fields, any order."""
    fields = [("loc", draw(_value(draw(_LOC), cr=cr)))] if draw(st.integers(0, 6)) else []
    fields += [
        (name, draw(_value(draw(_TITLE), cr=cr)))
        for name in ("title", "caption", "geo_location", "license")
        if draw(st.integers(0, 2)) == 0
    ]
    if draw(st.integers(0, 4)) == 0:
        draw(st.randoms()).shuffle(fields)
    ws = draw(_WS)
    inner = ws.join(f"<{prefix}:{k}>{v}</{prefix}:{k}>" for k, v in fields)
    return f"<{prefix}:image>{ws}{inner}{ws}</{prefix}:image>"


@st.composite
def _video(draw: st.DrawFn, prefix: str) -> str:
    p = prefix
    tags = "".join(f"<{p}:tag>{t}</{p}:tag>" for t in draw(st.lists(_TITLE, max_size=2)))
    return (
        f"<{p}:video><{p}:thumbnail_loc>{draw(_value(draw(_LOC)))}</{p}:thumbnail_loc>"
        f"<{p}:title>{draw(_value(draw(_TITLE)))}</{p}:title>"
        f"<{p}:player_loc allow_embed='yes'>https://example.com/p</{p}:player_loc>"
        f"<{p}:duration>{draw(st.sampled_from(['60', '-1', 'x', '']))}</{p}:duration>"
        f"<{p}:family_friendly>{draw(st.sampled_from(['yes', 'No', 'maybe']))}</{p}:family_friendly>"
        f"{tags}</{p}:video>"
    )


@st.composite
def _news(draw: st.DrawFn, prefix: str) -> str:
    p = prefix
    return (
        f"<{p}:news><{p}:publication><{p}:name>{draw(_value(draw(_TITLE)))}</{p}:name>"
        f"<{p}:language>en</{p}:language></{p}:publication>"
        f"<{p}:publication_date>{draw(_LASTMOD)}</{p}:publication_date>"
        f"<{p}:title>{draw(_value(draw(_TITLE)))}</{p}:title></{p}:news>"
    )


def _https(uri: str) -> str:
    return uri.replace("http://", "https://", 1)


@st.composite
def _spelling(draw: st.DrawFn, uri: str) -> str:
    """An extension's namespace as generators write it: mostly right, else with https, a
    trailing slash or both (XHTML's also as the XHTML 1.1 schema's page)."""
    if uri == XHTML_NS and draw(st.integers(0, 5)) == 0:
        uri = "http://www.w3.org/TR/xhtml11/xhtml11_schema.html"
    elif draw(st.integers(0, 2)):
        return uri
    if draw(st.booleans()):
        uri = _https(uri)
    return uri + draw(st.sampled_from(["", "/"]))


# Namespaces the look-alike elements of _url_block's extras are bound to now and then: none
# of the extensions', one named like an image extension's.
_FOO_NS = st.sampled_from(
    ["http://example.org/foo", "http://www.google.com/schemas/sitemap-image/1.2"]
)

# The extensions, the prefix each is usually declared with and another one generators use.
_EXTENSIONS: dict[str, tuple[str, tuple[str, ...], Callable[[str], st.SearchStrategy[str]]]] = {
    "image": (IMAGE_NS, ("image", "image", "img"), _image),
    "xhtml": (XHTML_NS, ("xhtml", "xhtml", "x"), _alternate),
    "video": (VIDEO_NS, ("video", "v"), _video),
    "news": (NEWS_NS, ("news", "n"), _news),
}


@st.composite
def _url_block(draw: st.DrawFn, prefixes: dict[str, str]) -> str:
    """A ``<url>``: its fields, some extensions (with the prefixes the root declares, or
    now and then with one it does not), and now and then a shape only expat may read."""
    loc = draw(_value(draw(_LOC)))
    fields = [("loc", loc)]
    for name, values in (
        ("lastmod", _LASTMOD),
        ("changefreq", _CHANGEFREQ),
        ("priority", _PRIORITY),
    ):
        if draw(st.booleans()):
            fields.append((name, draw(_value(draw(values)))))
    if draw(st.integers(0, 5)) == 0:
        draw(st.randoms()).shuffle(fields)  # another field order
    ws = draw(_WS)
    inner = ws.join(f"<{k}>{v}</{k}>" for k, v in fields)
    for ext, (_, usual, block) in _EXTENSIONS.items():
        for _ in range(
            draw(st.integers(0, 3 if ext == "xhtml" else 2)) if draw(st.booleans()) else 0
        ):
            prefix = prefixes.get(ext) or usual[0]
            if draw(st.integers(0, 9)) == 0:
                prefix = "zz"  # declared nowhere
            inner += ws + draw(block(prefix))
    extra = draw(
        st.sampled_from(
            [
                *([""] * 6),
                "<!-- c -->",
                "<foo>bar</foo>",
                "<foo a='1'><bar>x</bar></foo>",
                "<?pi x?>",
                '<video:video xmlns:video="v"/>',
                "<loc>https://example.com/<b>x</b></loc>",
                # an extension's shape in another namespace (declared or not: see documents)
                "<foo:image><foo:loc>https://example.com/f.jpg</foo:loc></foo:image>",
                "<image><loc>https://example.com/u.jpg</loc></image>",  # (the prefix forgotten)
                '<foo:link rel="alternate" hreflang="de" href="https://example.com/de"/>',
                # a variant declared where it is used
                (
                    f'<image:image xmlns:image="{_https(IMAGE_NS)}">'
                    "<image:loc>https://example.com/v.jpg</image:loc></image:image>"
                ),
            ]
        )
    )
    attrs = draw(st.sampled_from(["", "", "", "", "", ' id="1"', " a='&amp;'"]))
    return f"<url{attrs}>{ws}{inner}{extra}{ws}</url{draw(st.sampled_from(['', ' ']))}>"


@st.composite
def _sitemap_block(draw: st.DrawFn) -> str:
    ws = draw(_WS)
    inner = f"<loc>{draw(_value(draw(_LOC)))}</loc>"
    if draw(st.booleans()):
        lastmod = f"<lastmod>{draw(_value(draw(_LASTMOD)))}</lastmod>"
        inner = lastmod + ws + inner if draw(st.integers(0, 4)) == 0 else inner + ws + lastmod
    extra = draw(st.sampled_from(["", "", "", "<!-- c -->", "<x/>"]))
    return f"<sitemap>{ws}{inner}{extra}{ws}</sitemap>"


_PROLOG = st.sampled_from(
    [
        "",
        '<?xml version="1.0" encoding="UTF-8"?>\n',
        "<?xml version='1.0' encoding='utf-8'?>\r\n",
        '<?xml version="1.0"?>',
        '\ufeff<?xml version="1.0" encoding="UTF-8"?>\n',
        '<?xml version="1.0" encoding="UTF-8"?>\n<!-- generator -->\n',
        '<?xml version="1.0"?>\n<?xml-stylesheet type="text/xsl" href="s.xsl"?>\n',
        '<?xml version="1.0" encoding="ISO-8859-1"?>\n',
        '<?xml version="1.0"?>\n<!DOCTYPE urlset>\n',
        '<?xml version="1.0" encoding="windows-1252"?>\n',
        '<?xml version="1.0" encoding="GBK"?>\n',
        '<?xml version="1.0" encoding="Shift_JIS"?>\n',
        '<?xml version="1.0" encoding="UTF-16"?>\n',
    ]
)
# The codec each declaration's documents are written in (UTF-8 when none is named here).
_CODECS = {
    "ISO-8859-1": "latin-1",
    "windows-1252": "latin-1",
    "GBK": "gbk",
    "Shift_JIS": "shift_jis",
    "UTF-16": "utf-16",
}
_NS = st.sampled_from(
    [
        f' xmlns="{SITEMAP_NS}"',
        f' xmlns="{SITEMAP_NS}"',
        ' xmlns="https://www.sitemaps.org/schemas/sitemap/0.9"',
        ' xmlns="http://example.org/other"',
        "",
    ]
)
# Bytes that matter to one of the two paths when dropped in at random.
_JUNK = st.sampled_from(
    [
        *(b"&", b"<", b">", b"]]>", b"\r", b"\t", b"\x00", b"\x0b", b"\xff", b"\xc3"),
        *(b"\xef\xbf\xbe", b"\xc2\x85", b"&#0;", b"&#xD;", b"&nbsp;", b"<url>", b"</url>"),
        *(b"<![CDATA[", b"<!--", b"-->", b"<?", b"?>", b"<!DOCTYPE x>", b'<!ENTITY e "x">'),
    ]
)


@st.composite
def documents(draw: st.DrawFn) -> bytes:
    """A urlset or index document, sometimes damaged."""
    is_index = draw(st.booleans())
    prolog = draw(_PROLOG)
    ns = draw(_NS)
    prefixes = {}  # the extensions the root declares, and with which prefix
    attrs = ns
    for ext, (uri, usual, _) in _EXTENSIONS.items():
        if not is_index and draw(st.booleans()):
            prefixes[ext] = prefix = draw(st.sampled_from(usual))
            quote = draw(st.sampled_from(['"', "'"]))
            attrs += f" xmlns:{prefix}={quote}{draw(_spelling(uri))}{quote}"
    if not is_index and draw(st.booleans()):
        attrs += f' xmlns:foo="{draw(_FOO_NS)}"'
    if draw(st.integers(0, 6)) == 0:
        attrs += ' xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"'
    blocks = draw(
        st.lists(_sitemap_block() if is_index else _url_block(prefixes), min_size=0, max_size=8)
    )
    root = "sitemapindex" if is_index else "urlset"
    sep = draw(_WS)
    text = f"{prolog}<{root}{attrs}>{sep}" + sep.join(blocks) + f"{sep}</{root}>{draw(_WS)}"
    codec = next((c for name, c in _CODECS.items() if f'"{name}"' in prolog), "utf-8")
    data = text.encode(codec, "replace")
    # Damage: junk bytes dropped in, and/or the end cut off.
    for _ in range(draw(st.integers(0, 2)) if draw(st.booleans()) else 0):
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(_JUNK) + data[at:]
    if draw(st.integers(0, 3)) == 0:
        data = data[: draw(st.integers(0, len(data)))]
    return data


@st.composite
def _split(draw: st.DrawFn, data: bytes) -> list[bytes]:
    return cut_at(data, draw(st.lists(st.integers(0, len(data)), max_size=4)))


# Small token limits make both paths meet the size checks on small documents.
_LIMITS = st.sampled_from(
    [
        Limits(),
        Limits(),
        Limits(max_token_bytes=40),
        Limits(max_token_bytes=120),
        Limits(max_urls=3),
        Limits(max_urls=2, cut_at_max_urls=True),
        Limits(max_loc_length=30),
    ]
)


@st.composite
def cases(draw: st.DrawFn) -> tuple[bytes, list[bytes], Limits]:
    """A document, a way to split it, and the limits to read it under."""
    data = draw(documents())
    return data, draw(_split(data)), draw(_LIMITS)


# -- the tests -------------------------------------------------------------------------

_PLAIN = (
    f'<?xml version="1.0"?>\n<urlset xmlns="{SITEMAP_NS}">\n'
    "<url><loc>https://example.com/a</loc><lastmod>2024-01-01</lastmod></url>\n"
).encode()
_DEFAULT = Limits()


def _after_plain(tail: bytes, limits: Limits = _DEFAULT) -> tuple[bytes, list[bytes], Limits]:
    """A case that starts with a block the scanner takes, split right after it."""
    return _PLAIN + tail, [_PLAIN, tail], limits


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
            f'<urlset xmlns="{SITEMAP_NS}" xmlns:image="{_https(IMAGE_NS)}/" xmlns:foo="urn:f">'
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
def test_fast_path_equals_exact_path(case: tuple[bytes, list[bytes], Limits]) -> None:
    """The scanner, fed at random split points, gives the exact path's events, messages included."""
    data, pieces, limits = case
    pieces = pieces or [data]
    assert b"".join(pieces) == data
    exact = parse(data, fast=False, limits=limits)
    fast, scanned = _scanned(pieces, limits)
    assert fast == exact
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
    """The fast path's events for ``pieces``, and how many records the scanner emitted."""
    taken = [0]

    def counting(original: Callable[..., bool]) -> Callable[..., bool]:
        def wrapper(doc: Any, *args: Any) -> bool:
            before = len(doc.out)  # (a dropped loc makes no record)
            try:
                return original(doc, *args)
            finally:
                taken[0] += len(doc.out) - before

        return wrapper

    with (
        mock.patch.object(_scan, "emit_entry", counting(_records.emit_entry)),
        mock.patch.object(_scan, "emit_ref", counting(_records.emit_ref)),
    ):
        events = parse_chunks(pieces, fast=True, limits=limits)
    return events, taken[0]


def _share(part: int, total: int) -> str:
    """A bucket for ``hypothesis.event``: what share of the records ``part`` is."""
    if not total:
        return "no records"
    share = part / total
    return "all" if share == 1 else "none" if share == 0 else f"{int(share * 4) * 25}%+"


@st.composite
def _realistic_block(draw: st.DrawFn, prefixes: dict[str, str]) -> str:
    """A ``<url>`` as generators write it: loc and lastmod, changefreq and priority on some,
    hreflang alternates on a third, images with a title or caption on a third, CDATA on
    some sites' values."""
    cdata = draw(st.integers(0, 3)) == 0
    ws = draw(st.sampled_from(["", "\n  ", "\n\t\t", "\r\n  "]))

    def value(text: str) -> str:
        return f"<![CDATA[{text.replace('&amp;', '&')}]]>" if cdata else text

    path = "".join(draw(st.lists(_PATH_PIECES, max_size=3)))
    loc = f"https://example.com/{path}"
    inner = [f"<loc>{value(loc)}</loc>", f"<lastmod>{draw(_LASTMOD)}</lastmod>"]
    if draw(st.booleans()):
        inner += [
            f"<changefreq>{value(draw(_CHANGEFREQ))}</changefreq>",
            f"<priority>{value(draw(_PRIORITY))}</priority>",
        ]
    if draw(st.integers(0, 2)) == 0:
        inner += [
            draw(_alternate(prefixes["xhtml"], _LANG)) for _ in range(draw(st.integers(2, 6)))
        ]
    if draw(st.integers(0, 2)) == 0:
        inner += [draw(_image(prefixes["image"], cr=False)) for _ in range(draw(st.integers(1, 3)))]
    return f"<url>{ws}" + ws.join(inner) + f"{ws}</url>"


@st.composite
def realistic_documents(draw: st.DrawFn) -> bytes:
    """An undamaged urlset of realistic blocks, in UTF-8, under the usual or other prefixes;
    in one of two documents of five blocks or more, one of them only expat may read."""
    prefixes = {
        "xhtml": draw(st.sampled_from(["xhtml", "xhtml", "xhtml", "x"])),
        "image": draw(st.sampled_from(["image", "image", "image", "img"])),
    }
    blocks = draw(st.lists(_realistic_block(prefixes), min_size=1, max_size=30))
    if len(blocks) >= 5 and draw(st.booleans()):  # one block only expat may read
        odd = draw(st.integers(0, len(blocks) - 1))
        blocks[odd] = blocks[odd].replace("<loc>", "<!-- odd --><loc>", 1)
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{SITEMAP_NS}" '
        f'xmlns:{prefixes["xhtml"]}="{XHTML_NS}" xmlns:{prefixes["image"]}="{IMAGE_NS}">\n'
        + "\n".join(blocks)
        + "\n</urlset>\n"
    ).encode()


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


def _count_scanned(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the records the scanner emits (it calls the record functions by these names)."""
    taken = [0]

    def counting(original: Callable[..., bool]) -> Callable[..., bool]:
        def wrapper(*args: Any, **kwargs: Any) -> bool:
            taken[0] += 1
            return original(*args, **kwargs)

        return wrapper

    monkeypatch.setattr(_scan, "emit_entry", counting(_records.emit_entry))
    monkeypatch.setattr(_scan, "emit_ref", counting(_records.emit_ref))
    return taken


def test_scanner_takes_plain_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Plain blocks (image ones with the namespace declared) are the scanner's, not expat's."""
    taken = _count_scanned(monkeypatch)
    doc = (
        f'<?xml version="1.0"?>\n<urlset xmlns="{SITEMAP_NS}" xmlns:image="{IMAGE_NS}">\n'
        + "".join(
            f"<url><loc>https://example.com/{i}</loc><lastmod>2024-01-0{i + 1}</lastmod>"
            f"<image:image><image:loc>https://example.com/{i}.jpg</image:loc></image:image></url>\n"
            for i in range(5)
        )
        + "</urlset>\n"
    ).encode()
    fast = parse(doc, fast=True)
    assert taken[0] == 5
    assert fast == parse(doc, fast=False)
    assert taken[0] == 5  # the exact path never calls the scanner
    assert entries(fast)[4].images == (Image("https://example.com/4.jpg"),)


def test_scanner_checks_extension_namespaces_for_free(monkeypatch: pytest.MonkeyPatch) -> None:
    """Variants and look-alikes of the extensions' namespaces cost ordinary documents no
    block: the real namespaces and an unrelated one (mobile) leave every block to the
    scanner; a variant on the root leaves the document to expat, a look-alike its block."""
    taken = _count_scanned(monkeypatch)
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

    for data, scanned in (
        (doc(IMAGE_NS), 6),
        (doc(IMAGE_NS, 2, 4), 4),
        (doc("https://www.google.com/schemas/sitemap-image/1.1"), 0),
    ):
        taken[0] = 0
        fast = parse(data, fast=True)
        assert taken[0] == scanned
        assert fast == parse(data, fast=False)
        assert all(e.images == (Image("https://example.com/i.jpg"),) for e in entries(fast))


@pytest.mark.parametrize("codec", ["shift_jis", "utf-16-be"])
def test_scanner_takes_transcoded_blocks(monkeypatch: pytest.MonkeyPatch, codec: str) -> None:
    """A document in another encoding reaches the scanner as UTF-8: its plain blocks are the
    scanner's too (UTF-16 from "\\0<", without a byte-order mark)."""
    taken = _count_scanned(monkeypatch)
    doc = (
        f'<?xml version="1.0" encoding="{codec}"?>\n<urlset xmlns="{SITEMAP_NS}">\n'
        + "".join(f"<url><loc>https://example.com/\u65e5\u672c/{i}</loc></url>\n" for i in range(5))
        + "</urlset>\n"
    ).encode(codec)
    fast = parse(doc, fast=True)
    assert taken[0] == 5
    assert fast == parse(doc, fast=False)
    assert entries(fast)[4].loc == "https://example.com/\u65e5\u672c/4"


@pytest.mark.parametrize(
    ("block", "scanned"),
    [
        ("<url><loc><![CDATA[https://example.com/x]]></loc></url>", 3),
        ("<url><loc>https://example.com/&#120;</loc></url>", 3),
        ("<url><lastmod>2024-01-01</lastmod><loc>https://example.com/x</loc></url>", 3),
        ("<url><!-- c --><loc>https://example.com/x</loc></url>", 2),
        ('<url id="1"><loc>https://example.com/x</loc></url>', 2),
        ("<url><loc>https://example.com/&#0;</loc></url>", 1),
        (
            "<url><loc>https://example.com/x</loc><img:image><img:loc>i</img:loc></img:image></url>",
            1,
        ),
    ],
    ids=["cdata", "charref", "order", "comment", "attribute", "bad-charref", "unbound-prefix"],
)
def test_scanner_hands_over_what_it_cannot_take(
    monkeypatch: pytest.MonkeyPatch, block: str, scanned: int
) -> None:
    """The scanner takes the blocks it can read; expat reads the odd one, and the scanner
    goes on after it (a fault in it, though, ends the document where expat says)."""
    taken = _count_scanned(monkeypatch)
    plain = "<url><loc>https://example.com/p</loc></url>"
    doc = f'<urlset xmlns="{SITEMAP_NS}">{plain}\n{block}\n{plain}</urlset>'.encode()
    fast = parse(doc, fast=True)
    assert taken[0] == scanned
    assert fast == parse(doc, fast=False)


def test_scanner_reads_what_generators_write(monkeypatch: pytest.MonkeyPatch) -> None:
    """Alternates (attributes in any order, either quote), images with their other fields,
    CDATA, references, video and news, under the prefixes the root declares: all the
    scanner's, with the exact path's records."""
    taken = _count_scanned(monkeypatch)
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
    fast = parse(doc, fast=True)
    assert taken[0] == len(blocks)
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
def test_plain_values_read_as_any_value(monkeypatch: pytest.MonkeyPatch, block: str) -> None:
    """The scanner strips a plain value (no markup, reference or CR) and images of a plain
    loc without the general decoding: what it gives is the exact path's, whatever the
    values, the dropped ones and the tallies' first examples, and wherever the text is cut."""
    taken = _count_scanned(monkeypatch)
    doc = (
        f'<urlset xmlns="{SITEMAP_NS}" xmlns:image="{IMAGE_NS}">\n'
        f"<url><loc>https://example.com/p</loc></url>\n{block}\n</urlset>\n"
    ).encode()
    fast = parse(doc, fast=True)
    assert taken[0] == 2
    assert fast == parse(doc, fast=False)
    for at in range(1, len(doc), 7):
        assert parse_chunks(cut_at(doc, [at]), fast=True) == fast


def test_alternates_read_as_any_alternate(monkeypatch: pytest.MonkeyPatch) -> None:
    """The alternates generators write (rel, hreflang, href in that order) are built in
    one pass: the same records and tallies as any other alternate's, every value odd."""
    taken = _count_scanned(monkeypatch)
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
    fast = parse(doc, fast=True)
    assert taken[0] == 2
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


def test_an_odd_block_costs_that_block_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """One block only expat may read (a comment in it) near the top: the scanner takes every
    other block; a fault further on is reported at expat's line and column."""
    taken = _count_scanned(monkeypatch)
    plain = "<url>\n  <loc>https://example.com/{}</loc>\n</url>\n"
    odd = "<url><!-- c --><loc>https://example.com/odd</loc></url>\n"
    body = plain.format(0) + odd + "".join(plain.format(i) for i in range(1, 50))
    doc = f'<urlset xmlns="{SITEMAP_NS}">\n{body}</urlset>\n'.encode()
    fast = parse(doc, fast=True)
    assert taken[0] == 50
    assert len(entries(fast)) == 51
    assert fast == parse(doc, fast=False)
    broken = doc.replace(b"/49</loc>", b"/49</lo>")
    fast = parse_chunks(cut_at(broken, [100, 300]), fast=True)
    assert fast == parse(broken, fast=False)
    fault = fast[-1]
    assert isinstance(fault, Problem) and fault.fatal
    assert "line 151, column 31" in fault.message  # where expat alone puts it


@pytest.mark.parametrize(("every", "scanned"), [(1, 0), (10, 630)])
def test_expat_reads_alone_once_most_blocks_are_odd(
    monkeypatch: pytest.MonkeyPatch, every: int, scanned: int
) -> None:
    """Block after odd block, expat reads the rest of the document alone (faster than one
    block at a time); a tenth of odd blocks does not stop the scanner."""
    taken = _count_scanned(monkeypatch)
    blocks = [
        f"<url><!-- c --><loc>https://example.com/{i}</loc></url>"
        if i % every == 0
        else f"<url><loc>https://example.com/{i}</loc></url>"
        for i in range(700)
    ]
    doc = f'<urlset xmlns="{SITEMAP_NS}">\n' + "\n".join(blocks) + "\n</urlset><x/>"
    fast = parse_chunks(cut_at(doc.encode(), [5_000, 20_000]), fast=True)
    assert taken[0] == scanned
    assert len(entries(fast)) == 700
    assert fast == parse(doc.encode(), fast=False)  # the junk after the root too
