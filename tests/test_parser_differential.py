"""The fast scanner against the exact expat path: same documents, same events, any split.

Hypothesis builds sitemap documents (urlset and index) that mix the plain blocks the scanner
takes with every shape it must hand over to expat (CDATA, comments, entities and character
references, attributes, other field orders, image blocks with and without their namespace,
invalid UTF-8, a stray ``&``, CR inside values, unknown elements), in UTF-8 and in other
encodings (Latin-1, GBK, Shift_JIS, UTF-16), then damages some of them
(truncation, junk bytes), and reads them under default or deliberately small limits.
``fast=True`` fed at random split points must give exactly the events of ``fast=False`` fed
whole, Problem messages (with their line and column) included.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sitemap_reader import Image, Limits
from sitemap_reader._core import _records, _scan

from .helpers import IMAGE_NS, SITEMAP_NS, cut_at, entries, parse, parse_chunks, whole

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
def _value(draw: st.DrawFn, text: str) -> str:
    """``text`` as it may be written in XML: plain, padded, in CDATA, or with references."""
    shape = draw(st.sampled_from(["plain", "plain", "plain", "pad", "cdata", "ref", "cr"]))
    if shape == "pad":
        return draw(_WS) + text + draw(_WS)
    if shape == "cdata":
        return f"<![CDATA[{text.replace('&amp;', '&')}]]>"
    if shape == "ref":
        return text.replace("a", "&#97;").replace("e", "&#x65;").replace("/", "&#47;", 1)
    if shape == "cr":
        return "\r" + text + "\r"
    return text


@st.composite
def _url_block(draw: st.DrawFn, image_ns: bool) -> str:
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
    for _ in range(draw(st.integers(0, 2))):
        img = draw(_value(draw(_LOC)))
        prefix = "image" if image_ns or draw(st.booleans()) else "img"
        inner += f"{ws}<{prefix}:image>{ws}<{prefix}:loc>{img}</{prefix}:loc>{ws}</{prefix}:image>"
    extra = draw(
        st.sampled_from(
            [
                "",
                "",
                "",
                "<!-- c -->",
                "<foo>bar</foo>",
                "<?pi x?>",
                '<video:video xmlns:video="v"/>',
            ]
        )
    )
    attrs = draw(st.sampled_from(["", "", "", ' id="1"', " a='&amp;'"]))
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
    image_ns = not is_index and draw(st.booleans())
    attrs = ns + (f' xmlns:image="{IMAGE_NS}"' if image_ns else "")
    if draw(st.integers(0, 6)) == 0:
        attrs += ' xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"'
    blocks = draw(
        st.lists(_sitemap_block() if is_index else _url_block(image_ns), min_size=0, max_size=8)
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
# ... and these are handovers the scanner must get right:
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
    assert parse_chunks(pieces, fast=True, limits=limits) == exact
    assert parse_chunks(whole(data), fast=True, limits=limits) == exact


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
    "block",
    [
        "<url><loc><![CDATA[https://example.com/x]]></loc></url>",
        "<url><!-- c --><loc>https://example.com/x</loc></url>",
        "<url><loc>https://example.com/&#120;</loc></url>",
        '<url id="1"><loc>https://example.com/x</loc></url>',
        "<url><lastmod>2024-01-01</lastmod><loc>https://example.com/x</loc></url>",
        "<url><loc>https://example.com/x</loc><image:image><image:loc>i</image:loc></image:image></url>",
    ],
    ids=["cdata", "comment", "charref", "attribute", "order", "undeclared-image"],
)
def test_scanner_hands_over_what_it_cannot_take(
    monkeypatch: pytest.MonkeyPatch, block: str
) -> None:
    """At the first block of another shape the scanner stops, and expat reads from there on."""
    taken = _count_scanned(monkeypatch)
    plain = "<url><loc>https://example.com/p</loc></url>"
    doc = f'<urlset xmlns="{SITEMAP_NS}">{plain}{block}{plain}</urlset>'.encode()
    fast = parse(doc, fast=True)
    assert taken[0] == 1  # the first plain block only; expat read the rest
    assert fast == parse(doc, fast=False)
