"""Declared encodings: documents in any encoding Python reads give the UTF-8 document's events.

Each document is written once as text, then encoded as declared (or with a byte-order mark,
or sniffed from ``<\\0``); its events, on the fast and the exact path, whole, byte by byte
and split in two at every position, must equal those of the same text in UTF-8, Problem
messages (with their line and column) included. Faults in the bytes are compared the same
way: an invalid sequence is reported where expat reports an invalid UTF-8 byte at the same
character, and a character cut by the end as a UTF-8 character cut there.
"""

from __future__ import annotations

from typing import Any

import pytest

from sitemap_reader import Event, Problem, SitemapParser
from tests.support.charsets import ENCODINGS, WIDE, WIDE_FORMS
from tests.support.helpers import (
    IMAGE_NS,
    SITEMAP_NS,
    URL,
    entries,
    every_split,
    fatal,
    gz,
    kinds,
    locs,
    parse,
    parse_chunks,
    problem,
)


# (declared name, codec that writes the bytes, a non-ASCII path segment in its repertoire)
def document(segment: str, declared: str = "UTF-8") -> str:
    """A urlset whose every part a chunk boundary or a path hand-over could break."""
    return (
        f'<?xml version="1.0" encoding="{declared}"?>\n'
        f'<urlset xmlns="{SITEMAP_NS}" xmlns:image="{IMAGE_NS}">\n'
        f"<url><loc>https://example.com/{segment}</loc><lastmod>2024-03-05</lastmod></url>\n"
        f"<url><loc>https://example.com/{segment}?q=1&amp;r=2</loc>"
        f"<image:image><image:loc>https://example.com/{segment}.jpg</image:loc></image:image>"
        "</url>\n"
        f"<!-- {segment} -->\n"
        f"<url><loc><![CDATA[https://example.com/cdata/{segment}]]></loc></url>\n"
        f"<url><loc>https://example.com/{segment}/end</loc><priority>0.5</priority></url>\n"
        "</urlset>\n"
    )


def encoded(name: str) -> tuple[bytes, str]:
    """(the document in encoding ``name``, the same text as UTF-8 would declare it)."""
    if name in WIDE_FORMS:
        declared, codec, bom = WIDE_FORMS[name]
        return bom + document(WIDE, declared).encode(codec), document(WIDE)
    codec, segment = ENCODINGS[name]
    return document(segment, name).encode(codec), document(segment)


ALL = [*ENCODINGS, *WIDE_FORMS]


def same_everywhere(data: bytes, reference: list[Event], **kw: Any) -> None:
    """``data`` gives ``reference`` however it is split."""
    for pieces in every_split(data):
        assert parse_chunks(pieces, **kw) == reference, [len(piece) for piece in pieces]


# -- each encoding ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ALL)
def test_document_reads_as_its_utf8_twin(fast: bool, name: str) -> None:
    """Every encoding gives the UTF-8 document's events, however the bytes are split."""
    data, utf8 = encoded(name)
    reference = parse(utf8.encode(), fast=fast)
    segment = WIDE if name in WIDE_FORMS else ENCODINGS[name][1]
    # The locs are what a UTF-8 document gives: the characters themselves, not escapes.
    assert locs(reference) == [
        f"https://example.com/{segment}",
        f"https://example.com/{segment}?q=1&r=2",
        f"https://example.com/cdata/{segment}",
        f"https://example.com/{segment}/end",
    ]
    assert entries(reference)[1].images[0].loc == f"https://example.com/{segment}.jpg"
    assert kinds(reference) == []
    same_everywhere(data, reference, fast=fast)
    assert parse(gz(data), fast=fast) == reference


def test_a_utf8_document_is_never_decoded() -> None:
    """The common case pays nothing: once its first bytes are seen, a UTF-8 document passes
    through untouched, while a GBK one goes through the decoder (the scanner reads both:
    see test_parser_differential)."""
    utf8 = SitemapParser(URL)
    utf8.feed(document("a").encode()[:100])
    assert utf8._decoding is None
    gbk = SitemapParser(URL)
    assert len(entries(gbk.feed(encoded("GBK")[0]))) == 4
    assert gbk._decoding is not None


def test_index_in_shift_jis(fast: bool) -> None:
    """A sitemapindex is decoded as a urlset is."""
    text = (
        '<?xml version="1.0" encoding="Shift_JIS"?>\n'
        f'<sitemapindex xmlns="{SITEMAP_NS}">\n'
        "<sitemap><loc>https://example.com/地図/1.xml</loc><lastmod>2024-01-01</lastmod></sitemap>\n"
        "<sitemap><loc>https://example.com/地図/2.xml</loc></sitemap>\n</sitemapindex>\n"
    )
    reference = parse(text.replace("Shift_JIS", "UTF-8").encode(), fast=fast)
    assert locs(reference) == ["https://example.com/地図/1.xml", "https://example.com/地図/2.xml"]
    same_everywhere(text.encode("shift_jis"), reference, fast=fast)


@pytest.mark.parametrize(
    ("declared", "text", "codec"),
    [
        ("Shift_JIS", "①/～", "cp932"),  # Windows' Shift_JIS, as browsers decode it
        ("GB2312", "镕", "gbk"),  # a GBK character in a file labelled GB2312
        ("EUC-KR", "똠", "cp949"),  # a UHC syllable EUC-KR lacks
    ],
)
def test_labels_are_read_with_the_superset_browsers_use(
    fast: bool, declared: str, text: str, codec: str
) -> None:
    """Files labelled with a legacy CJK name hold the Windows superset's characters."""
    data = document(text, declared).encode(codec)
    assert parse(data, fast=fast) == parse(document(text).encode(), fast=fast)


@pytest.mark.parametrize("label", ["utf8", "UTF8", "Utf-8"])
def test_utf8_spelled_as_python_spells_it(fast: bool, label: str) -> None:
    """ "utf8" is no name expat knows: the document is read as UTF-8 all the same."""
    data = document("日本", label).encode()
    assert parse(data, fast=fast) == parse(document("日本").encode(), fast=fast)


def test_a_utf8_byte_order_mark_wins_over_the_declaration(fast: bool) -> None:
    """A UTF-8 mark before a declaration of another encoding: the bytes are UTF-8."""
    data = b"\xef\xbb\xbf" + document("café", "ISO-8859-1").encode()
    assert parse(data, fast=fast) == parse(document("café").encode(), fast=fast)


def test_utf16_declared_on_single_bytes_reads_as_utf8(fast: bool) -> None:
    """A declaration read as ASCII that names UTF-16 cannot be right: the bytes are UTF-8."""
    data = document("café", "UTF-16").encode()
    assert parse(data, fast=fast) == parse(document("café").encode(), fast=fast)


# -- faults ---------------------------------------------------------------------------------------


def _twin_fault(name: str, bad: bytes) -> tuple[bytes, bytes]:
    """(the document in ``name`` with ``bad`` in its third loc, its UTF-8 twin with 0xFF there)."""
    data, utf8 = encoded(name)
    mark = "/end</loc>"
    at = data.index(mark.encode(ENCODINGS[name][0] if name in ENCODINGS else WIDE_FORMS[name][1]))
    twin_at = utf8.encode().index(mark.encode())
    return data[:at] + bad + data[at:], utf8.encode()[:twin_at] + b"\xff" + utf8.encode()[twin_at:]


@pytest.mark.parametrize(
    ("name", "bad"),
    [
        ("GBK", b"\x81\x20"),  # a lead byte without its trail byte
        ("Shift_JIS", b"\x81\x7f"),  # 0x7F is never a trail byte
        ("Big5", b"\xff\xff"),
        ("EUC-KR", b"\xc7"),
        ("utf-16le", b"\x00\xd8"),  # a high surrogate without its low one
        ("utf-16be-bom", b"\xdc\x00"),  # a low surrogate alone
    ],
)
def test_invalid_bytes_are_reported_where_expat_reports_them(
    fast: bool, name: str, bad: bytes
) -> None:
    """Entries before the fault are kept; the fault is expat's `not-well-formed` at the line
    and column an invalid byte at the same character of the UTF-8 twin gets."""
    data, twin = _twin_fault(name, bad)
    reference = parse(twin, fast=fast)
    assert len(entries(reference)) == 3
    last = fatal(reference)
    assert last is not None and last.kind == "not-well-formed"
    assert "invalid token" in last.message and "line 7" in last.message
    same_everywhere(data, reference, fast=fast)


@pytest.mark.parametrize(
    "data",
    [
        # ASCII declared, then two bytes ASCII has not: read leniently as a feed (the
        # declaration is broken), where the marks end in a value the problem quotes
        b'<?xml encoding="ascii"?><feed<entry<link href="\xba\xbc">',
        # the same in an RSS item's link, under a label Python reads as ASCII
        (
            b'<?xml version="1.0" encoding="us"?><rss version="2.0"><channel><item>'
            b"<link>http://e.com/\x97\xa5</link></item></channel></rss>"
        ),
        # UTF-32 without a byte-order mark, then a NUL and a run of four-byte units that
        # are no character
        '<?x?><s:urlset xmlns:s="e" l="" m="" x=""><![CDA'.encode("utf-32le")
        + b"\x00\x00\x00\x00\x00\x00a\x00\x008\x000",
    ],
    ids=["ascii-feed", "us-rss", "utf-32-cut"],
)
def test_a_run_of_undecodable_characters_reads_alike_however_split(fast: bool, data: bytes) -> None:
    """Each character the document's encoding cannot give becomes one mark, not each run:
    a run a chunk's end cuts in two would otherwise give two marks (found by the
    differential fuzz, seed 33)."""
    same_everywhere(data, parse(data, fast=fast))


@pytest.mark.parametrize("name", ["GBK", "utf-16le", "utf-32be"])
def test_a_character_cut_by_the_end(fast: bool, name: str) -> None:
    """Bytes ending inside a character: `truncated` at the place a cut UTF-8 character gets."""
    data, utf8 = encoded(name)
    segment = WIDE if name in WIDE_FORMS else ENCODINGS[name][1]
    codec = ENCODINGS[name][0] if name in ENCODINGS else WIDE_FORMS[name][1]
    at = data.index(f"/{segment}/end".encode(codec)) + len("/x".encode(codec)) - 1
    twin_at = utf8.encode().index(f"/{segment}/end".encode()) + 2
    reference = parse(utf8.encode()[:twin_at], fast=fast)
    assert len(entries(reference)) == 3 and fatal(reference).kind == "truncated"  # type: ignore[union-attr]
    same_everywhere(data[:at], reference, fast=fast)


@pytest.mark.parametrize("label", ["x-no-such-encoding", "rot13", "idna", "undefined"])
def test_unknown_encoding(fast: bool, label: str) -> None:
    """A declared name no codec reads ends the document with a problem naming it."""
    data = document("a", label).encode()
    for chunks in (None, 1, 16):
        events = parse(data, chunks, fast=fast)
        assert len(events) == 1
        last = fatal(events)
        assert last is not None and last.kind == "unknown-encoding" and last.url == URL
        assert repr(label) in last.message


@pytest.mark.parametrize(("label", "cause"), [("GBK", "multi-byte"), ("x-no-such", "unknown")])
def test_a_declaration_too_long_to_judge_is_left_to_expat(
    fast: bool, label: str, cause: str
) -> None:
    """A declaration not closed within its first 1,024 characters is not read for its encoding;
    expat's refusal of one it cannot read is reported, naming why."""
    data = document("a", label).encode().replace(b"<?xml ", b"<?xml" + b" " * 1_100, 1)
    for chunks in (None, 1, 16):
        events = parse(data, chunks, fast=fast)
        assert len(events) == 1
        last = fatal(events)
        assert last is not None and last.kind == "not-well-formed"
        assert "the declared encoding cannot be read" in last.message and cause in last.message


# -- text sitemaps and the Content-Type charset ----------------------------------------------------

LINES = ["https://example.com/日本語/東京", "https://example.com/b", "https://example.com/ｶﾀｶﾅ"]


@pytest.mark.parametrize(
    ("charset", "codec"),
    [
        ("shift_jis", "cp932"),
        ("EUC-JP", "euc_jp"),
        ('"utf-16"', "utf-16"),
        ("utf-16be", "utf-16-be"),
    ],
)
def test_text_sitemap_in_its_content_type_charset(charset: str, codec: str) -> None:
    """A text sitemap is read in the charset its Content-Type names, however it is split."""
    data = "\r\n".join(LINES).encode(codec)
    content_type = f"text/plain; charset={charset}"
    reference = parse("\r\n".join(LINES).encode())
    assert locs(reference) == LINES
    same_everywhere(data, reference, content_type=content_type)


def test_text_sitemap_without_a_charset_is_utf8() -> None:
    """No charset: UTF-8, and a line in another encoding is percent-encoded, as before."""
    data = "\n".join(LINES).encode("shift_jis")
    events = parse(data, content_type="text/plain")
    assert locs(events)[1] == "https://example.com/b"
    assert locs(events)[0].startswith("https://example.com/%93%FA")
    assert problem(events, "encoding").message.startswith("2 ")


def test_text_sitemap_bytes_its_charset_cannot_read() -> None:
    """Undecodable bytes in a text sitemap: that line is percent-encoded and counted."""
    data = "\n".join(LINES).encode("shift_jis").replace(b"/b", b"/\x81\x7fb")
    events = parse(data, content_type="text/plain; charset=Shift_JIS")
    assert locs(events) == [LINES[0], "https://example.com/%81%7Fb", LINES[2]]
    assert problem(events, "encoding").message.startswith("1 ")


@pytest.mark.parametrize("charset", ["ISO-8859-1", "windows-1252", "us-ascii"])
def test_a_server_default_charset_does_not_garble_utf8(charset: str) -> None:
    """Servers label text/plain ISO-8859-1 unasked: bytes that read as UTF-8 stay UTF-8."""
    data = "\n".join(LINES).encode()
    events = parse(data, content_type=f"text/plain; charset={charset}")
    assert locs(events) == LINES
    assert not [e for e in events if isinstance(e, Problem)]


def test_a_server_default_charset_reads_what_is_not_utf8() -> None:
    """Bytes that are not UTF-8 under an ISO-8859-1 label are read in it."""
    lines = ["https://example.com/café", "https://example.com/b"]
    data = "\n".join(lines).encode("latin-1")
    assert locs(parse(data, content_type="text/plain; charset=iso-8859-1")) == lines


def test_unknown_content_type_charset_is_reported_and_read_as_utf8() -> None:
    data = "\n".join(LINES).encode()
    events = parse(data, content_type="text/plain; charset=x-klingon")
    assert locs(events) == LINES
    found = problem(events, "unknown-encoding")
    assert not found.fatal and "'x-klingon'" in found.message


def test_content_type_charset_does_not_apply_to_xml(fast: bool) -> None:
    """XML says its own encoding: a charset in the Content-Type is not used for it."""
    data = document("日本").encode()
    assert parse(data, fast=fast, content_type="application/xml; charset=shift_jis") == parse(
        data, fast=fast
    )


@pytest.mark.parametrize(
    ("value", "charset"),
    [
        ("text/plain; charset=Shift_JIS", "Shift_JIS"),
        ('text/plain;charset="utf-8"', "utf-8"),
        ("text/plain; format=flowed; CHARSET = gbk ", "gbk"),
        ("text/plain", None),
        ("text/plain; charset=", None),
        (None, None),
    ],
)
def test_content_charset(value: str | None, charset: str | None) -> None:
    from sitemap_reader._core._charset import content_charset

    assert content_charset(value) == charset


# -- the fixtures ----------------------------------------------------------------------------------


def test_the_documents_are_not_utf8() -> None:
    """Every fixture really is in another encoding, else the tests above would prove nothing."""
    for name in ALL:
        with pytest.raises(UnicodeDecodeError):
            encoded(name)[0].decode("utf-8")
