"""Sitemap documents for the differential tests of the XML reader's paths (hypothesis).

``documents`` mixes the plain blocks the fast paths take with every shape they must hand
over to expat (CDATA, comments, entities and character references, attributes, other field
orders, image blocks with and without their namespace, extension namespaces as generators
spell them, elements shaped like an extension's in another namespace, invalid UTF-8, a stray
``&``, CR inside values, unknown elements, several ``<loc>``, a field given twice, records
left open or nested), in UTF-8 and in other encodings, then damages some of them; ``cases`` adds a split and limits. ``realistic_documents`` are undamaged
urlsets in the mix real sites serve.
"""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import strategies as st

from sitemap_reader import Limits
from tests.support.helpers import IMAGE_NS, NEWS_NS, SITEMAP_NS, VIDEO_NS, XHTML_NS, cut_at

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
    (and, with ``cr``, between carriage returns, which expat rewrites, or after a comment
    or a processing instruction)."""
    shapes = ["plain", "plain", "plain", "pad", "cdata", "ref"]
    shape = draw(st.sampled_from([*shapes, "cr", "comment"] if cr else shapes))
    if shape == "pad":
        return draw(_WS) + text + draw(_WS)
    if shape == "cdata":
        return f"<![CDATA[{text.replace('&amp;', '&')}]]>"
    if shape == "ref":
        return text.replace("a", "&#97;").replace("e", "&#x65;").replace("/", "&#47;", 1)
    if shape == "cr":
        return "\r" + text + "\r"
    if shape == "comment":  # (expat hands on the text on both sides)
        return draw(st.sampled_from(["<!-- c -->", "<?pi x?>", "<!---->"])) + text
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


def https_of(uri: str) -> str:
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
        uri = https_of(uri)
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
                "<loc>https://example.com/again</loc>",  # several-locs
                "<lastmod>2024-02-02</lastmod>",  # repeated-element, when the block has one
                "<url><loc>https://example.com/inner</loc></url>",  # a record in a record
                # ... records beside it and deeper, and what may come between them
                (
                    "<url><lastmod>2024-03-03</lastmod><loc>https://example.com/in2</loc></url>"
                    "\n<!-- c --><url><loc>https://example.com/in3</loc><url><loc>"
                    "https://example.com/in4</loc></url></url><foo/>"
                ),
                # an extension's shape in another namespace (declared or not: see documents)
                "<foo:image><foo:loc>https://example.com/f.jpg</foo:loc></foo:image>",
                "<image><loc>https://example.com/u.jpg</loc></image>",  # (the prefix forgotten)
                '<foo:link rel="alternate" hreflang="de" href="https://example.com/de"/>',
                # comments and instructions, well-formed or not (expat's rules)
                "<!-- c -- d -->",
                "<!-- c --->",
                "<?xml-stylesheet href='x'?>",
                "<?a:b x?>",
                "<?xml x?>",
                "<!-- c\n --><?pi\r\n?>",
                # elements a record ignores (mobile's and sm's namespaces: see documents)
                "<mobile:mobile/>",
                "<mobile:mobile type='pc'></mobile:mobile>",
                "<foo><loc>https://example.com/deep</loc><!-- x --><url/>&amp;</foo>",
                "<foo q:a='1'/>",
                "<mobile:mobile xsi:type='pc' xml:lang='en'><x xsi:nil='true'/></mobile:mobile>",
                "<foo><zz:x/></foo>",
                "<sm:loc>https://example.com/sm</sm:loc>",  # the sitemap's own namespace
                "<sm:extra>x</sm:extra>",
                # what a link or an image holds besides its own (read, or not, by the exact path)
                (
                    '<xhtml:link rel="alternate" hreflang="de" href="https://example.com/de">'
                    "<!-- c --><x>t</x></xhtml:link>"
                ),
                (
                    "<image:image><foo a='1'>x<b/></foo><image:loc>https://example.com/i.jpg"
                    "</image:loc><bar><image:title>t</image:title></bar></image:image>"
                ),
                # a variant declared where it is used
                (
                    f'<image:image xmlns:image="{https_of(IMAGE_NS)}">'
                    "<image:loc>https://example.com/v.jpg</image:loc></image:image>"
                ),
            ]
        )
    )
    attrs = draw(st.sampled_from(["", "", "", "", "", ' id="1"', " a='&amp;'"]))
    end = f"</url{draw(st.sampled_from(['', ' ']))}>"
    if draw(st.integers(0, 15)) == 0:
        end = ""  # an unclosed record: the next one runs into it
    return f"<url{attrs}>{ws}{inner}{extra}{ws}{end}"


@st.composite
def _sitemap_block(draw: st.DrawFn) -> str:
    ws = draw(_WS)
    inner = f"<loc>{draw(_value(draw(_LOC)))}</loc>"
    if draw(st.booleans()):
        lastmod = f"<lastmod>{draw(_value(draw(_LASTMOD)))}</lastmod>"
        inner = lastmod + ws + inner if draw(st.integers(0, 4)) == 0 else inner + ws + lastmod
    extra = draw(
        st.sampled_from(
            [
                *("", "", "", "<!-- c -->", "<x/>", "<?pi x?>", "<!-- c -- -->"),
                "<x a='1'><loc>https://example.com/deep.xml</loc></x>",
                "<image:image><image:loc>https://example.com/i</image:loc></image:image>",
                "<loc>https://example.com/more.xml</loc>",  # several-locs
                "<lastmod>2024-02-02</lastmod>",  # repeated-element, when the block has one
                "<sitemap><loc>https://example.com/inner.xml</loc></sitemap>",  # nested
                (
                    "<sitemap><loc>https://example.com/in2.xml</loc></sitemap> <sitemap>"
                    "<sitemap><loc>https://example.com/in3.xml</loc></sitemap></sitemap>"
                ),
            ]
        )
    )
    end = "</sitemap>" if draw(st.integers(0, 9)) else ""  # (unclosed: the next runs into it)
    return f"<sitemap>{ws}{inner}{extra}{ws}{end}"


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
# What may stand between blocks besides white space.
_GAP = st.sampled_from(
    [
        *("", "", "", "<!-- gap -->", "<?pi?>", "<!-- a\r\n -->\n", "<!-- a -- b -->"),
        # white space longer than a block may be under the small token limits below
        "\r\n" + " " * 130 + "\r\n\t\r",
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
    if draw(st.integers(0, 2)) == 0:
        attrs += ' xmlns:mobile="http://www.google.com/schemas/sitemap-mobile/1.0"'
    if draw(st.integers(0, 4)) == 0:
        attrs += f' xmlns:sm="{draw(st.sampled_from([SITEMAP_NS, https_of(SITEMAP_NS)]))}"'
    if is_index and draw(st.integers(0, 2)) == 0:
        attrs += f' xmlns:image="{draw(_spelling(IMAGE_NS))}"'
    blocks = draw(
        st.lists(_sitemap_block() if is_index else _url_block(prefixes), min_size=0, max_size=8)
    )
    root = "sitemapindex" if is_index else "urlset"
    sep = draw(_WS) + draw(_GAP)
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


_MOBILE_NS = "http://www.google.com/schemas/sitemap-mobile/1.0"


@st.composite
def realistic_documents(draw: st.DrawFn) -> bytes:
    """An undamaged urlset of realistic blocks, in UTF-8, under the usual or other prefixes,
    in some with a comment or a ``<mobile:mobile/>`` in every block; in one of two
    documents of five blocks or more, one of them only expat may read."""
    prefixes = {
        "xhtml": draw(st.sampled_from(["xhtml", "xhtml", "xhtml", "x"])),
        "image": draw(st.sampled_from(["image", "image", "image", "img"])),
    }
    blocks = draw(st.lists(_realistic_block(prefixes), min_size=1, max_size=30))
    if len(blocks) >= 5 and draw(st.booleans()):  # one block only expat may read
        odd = draw(st.integers(0, len(blocks) - 1))
        blocks[odd] = blocks[odd].replace("<loc>", "<loc id='odd'>", 1)
    # what some generators write in every block: a comment, Google's old <mobile:mobile/>
    extra = draw(st.sampled_from(["", "", "", "<!-- generated -->", "<mobile:mobile/>"]))
    blocks = [block.replace("<lastmod>", extra + "<lastmod>", 1) for block in blocks]
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{SITEMAP_NS}" '
        f'xmlns:{prefixes["xhtml"]}="{XHTML_NS}" xmlns:{prefixes["image"]}="{IMAGE_NS}" '
        f'xmlns:mobile="{_MOBILE_NS}">\n' + "\n".join(blocks) + "\n</urlset>\n"
    ).encode()


# -- documents of valid values: what the compiled core builds itself ----------------------

_CLEAN_LASTMOD = st.sampled_from(
    [
        "2024-03-05",
        "2024-02-29",
        "2023-12-31T23:59:59Z",
        "2024-03-05T10:20:30+02:00",
        "2024-03-05T10:20:30-05:30",
        "2024-03-05T00:00:00+00:00",
        "2024-03-05T10:20:30-00:00",
        "",
    ]
)
_CLEAN_FREQ = st.sampled_from(["daily", "Weekly", "NEVER", "hourly", "always", "monthly", ""])
_CLEAN_PRIORITY = st.sampled_from(["0.0", "0.1", "0.5", "0.8", "1.0", "0", "1", ""])
# White space str.strip() takes off that XML does not call white space, and a BOM it keeps.
_PAD = st.sampled_from(["", " ", "\n\t", "\r\n ", "\u3000", "\u00a0", "\u0085 ", "\ufeff"])


@st.composite
def _clean_text(draw: st.DrawFn, text: str) -> str:
    shape = draw(st.sampled_from(["plain", "plain", "pad", "cdata", "ref", "cr"]))
    if shape == "pad":
        return draw(_PAD) + text + draw(_PAD)
    if shape == "cdata":
        return f"<![CDATA[{text.replace('&amp;', '&')}]]>"
    if shape == "ref":
        return text.replace("e", "&#x65;").replace("a", "&#97;", 1)
    if shape == "cr":
        return "\r\n" + text + "\r"
    return text


@st.composite
def _clean_block(draw: st.DrawFn, prefixes: dict[str, str]) -> str:
    ws = draw(st.sampled_from(["", "\n  ", "\r\n\t"]))
    loc = "https://example.com/" + "".join(draw(st.lists(_PATH_PIECES, max_size=3)))
    inner = [f"<loc>{draw(_clean_text(loc))}</loc>"]
    for name, values in (
        ("lastmod", _CLEAN_LASTMOD),
        ("changefreq", _CLEAN_FREQ),
        ("priority", _CLEAN_PRIORITY),
    ):
        if draw(st.booleans()):
            inner.append(f"<{name}>{draw(_clean_text(draw(values)))}</{name}>")
    if draw(st.integers(0, 3)) == 0:  # what the compiled core skips
        inner.append(draw(st.sampled_from(["<!-- c -->", "<?pi x?>", "<foo a='1'><b/>x</foo>"])))
    inner = draw(st.permutations(inner))
    x, img = prefixes["xhtml"], prefixes["image"]
    for _ in range(draw(st.integers(0, 3))):
        lang = draw(st.sampled_from(["de", " fr-CA ", "x-default", "", "EN"]))
        href = "https://example.com/" + draw(st.sampled_from(["de/", "fr", "caf\u00e9", "a&amp;b"]))
        attrs = [f'rel="{draw(st.sampled_from(["alternate", "alternate", " Alternate "]))}"']
        attrs += [f'hreflang="{lang}"', f"href='{href}'"]
        if draw(st.integers(0, 3)) == 0:
            attrs.append('media="only screen and (max-width: 640px)"')
        attrs = draw(st.permutations(attrs))
        end = draw(st.sampled_from(["/>", " />", f"></{x}:link>"]))
        inner.append(f"<{x}:link " + " ".join(attrs) + end)
    for _ in range(draw(st.integers(0, 2))):
        fields = [f"<{img}:loc>{draw(_clean_text('https://example.com/i.jpg'))}</{img}:loc>"]
        names = st.sampled_from(["title", "caption", "geo_location", "license"])
        fields += [
            f"<{img}:{name}>{draw(_clean_text(draw(_TITLE)))}</{img}:{name}>"
            for name in draw(st.lists(names, unique=True))
        ]
        inner.append(
            f"<{img}:image>{ws}" + ws.join(draw(st.permutations(fields))) + f"{ws}</{img}:image>"
        )
    return f"<url>{ws}" + ws.join(inner) + f"{ws}</url>"


@st.composite
def clean_documents(draw: st.DrawFn) -> bytes:
    """A urlset (or, one time in four, an index) of valid values in every shape the
    compiled core builds itself: any field order, CDATA, references, CR LF, pads that
    only ``str.strip()`` strips, alternates with media, images with every field."""
    prefixes = {
        "xhtml": draw(st.sampled_from(["xhtml", "x", "h"])),
        "image": draw(st.sampled_from(["image", "img", "i"])),
    }
    if draw(st.integers(0, 3)) == 0:
        blocks = [
            f"<sitemap><loc>{draw(_clean_text(f'https://example.com/s{i}.xml'))}</loc>"
            f"<lastmod>{draw(_CLEAN_LASTMOD)}</lastmod></sitemap>"
            for i in range(draw(st.integers(1, 12)))
        ]
        body = f'<sitemapindex xmlns="{SITEMAP_NS}">\n' + "\n".join(blocks) + "\n</sitemapindex>"
    else:
        blocks = draw(st.lists(_clean_block(prefixes), min_size=1, max_size=20))
        body = (
            f'<urlset xmlns="{SITEMAP_NS}" xmlns:{prefixes["xhtml"]}="{XHTML_NS}" '
            f'xmlns:{prefixes["image"]}="{IMAGE_NS}">\n' + "\n".join(blocks) + "\n</urlset>\n"
        )
    return ('<?xml version="1.0" encoding="UTF-8"?>\n' + body).encode()
