"""Extensions under the namespaces generators really write: read, and said once.

Image, video, news and hreflang elements under a variant of their namespace (https for
http, a trailing slash, the XHTML 1.1 schema's page for XHTML's, or several of these) are
read as under the real one, with one `namespace` Problem a document naming each variant;
an element that looks like an extension's in no extension's namespace is counted
(`invalid-extension`), never dropped without a word. Both paths (the `fast` fixture).
"""

from __future__ import annotations

import re

import pytest

from sitemap_reader import Alternate, Entry, Image, Problem
from tests.support.helpers import (
    CORPUS,
    IMAGE_NS,
    NEWS_NS,
    VIDEO_NS,
    XHTML_NS,
    entries,
    kinds,
    needs_corpus,
    parse,
    problem,
    urlset,
)

XHTML11 = "http://www.w3.org/TR/xhtml11/xhtml11_schema.html"

_IMAGE = "<image:image><image:loc>https://example.com/1.jpg</image:loc></image:image>"
_VIDEO = (
    "<video:video><video:thumbnail_loc>https://example.com/t.jpg</video:thumbnail_loc>"
    "<video:title>T</video:title><video:description>D</video:description>"
    "<video:content_loc>https://example.com/v.mp4</video:content_loc></video:video>"
)
_NEWS = (
    "<news:news><news:publication><news:name>Daily</news:name>"
    "<news:language>en</news:language></news:publication>"
    "<news:publication_date>2024-01-02</news:publication_date>"
    "<news:title>Headline</news:title></news:news>"
)
_LINK = '<xhtml:link rel="alternate" hreflang="de" href="https://example.com/de"/>'
# prefix -> (the real namespace, an element of it, what the entry holds once it is read)
_EXTENSIONS = {
    "image": (IMAGE_NS, _IMAGE, lambda e: e.images),
    "video": (VIDEO_NS, _VIDEO, lambda e: e.videos),
    "news": (NEWS_NS, _NEWS, lambda e: e.news),
    "xhtml": (XHTML_NS, _LINK, lambda e: e.alternates),
}


def _spellings(real: str) -> list[str]:
    rest = real.removeprefix("http://")
    found = [f"https://{rest}", f"http://{rest}/", f"https://{rest}/"]
    if real == XHTML_NS:
        rest = XHTML11.removeprefix("http://")
        found += [XHTML11, f"https://{rest}", f"https://{rest}/"]
    return found


_VARIANTS = [
    (prefix, variant)
    for prefix, (real, _, _) in _EXTENSIONS.items()
    for variant in _spellings(real)
]


def _doc(*blocks: str, **declared: str) -> bytes:
    extra = "".join(f' xmlns:{prefix}="{uri}"' for prefix, uri in declared.items())
    return urlset(*blocks, extra=extra).encode()


def _url(i: int, *inner: str) -> str:
    return f"<url><loc>https://example.com/{i}</loc>{''.join(inner)}</url>"


@pytest.mark.parametrize(("prefix", "variant"), _VARIANTS)
def test_a_variant_namespace_is_read_and_reported(fast: bool, prefix: str, variant: str) -> None:
    """Under a variant, the extension's record is the one its real namespace gives, and one
    `namespace` Problem names the variant and the real namespace."""
    real, element, held = _EXTENSIONS[prefix]
    [expected] = entries(parse(_doc(_url(1, element), **{prefix: real}), fast=fast))
    events = parse(_doc(_url(1, element), **{prefix: variant}), fast=fast)
    [entry] = entries(events)
    assert held(entry) == held(expected) and held(entry)
    assert kinds(events) == ["namespace"]
    message = problem(events, "namespace").message
    assert f"{variant!r}, not {real!r}" in message


def test_one_warning_a_document_naming_every_variant(fast: bool) -> None:
    """Many entries under two variants give one Problem, naming both in the order met."""
    image = "https://www.google.com/schemas/sitemap-image/1.1"
    blocks = [_url(i, _IMAGE, _LINK) for i in range(200)]
    events = parse(_doc(*blocks, image=image, xhtml=XHTML11), fast=fast)
    found = entries(events)
    assert len(found) == 200
    assert all(e.images == (Image("https://example.com/1.jpg"),) for e in found)
    assert all(e.alternates == (Alternate("de", "https://example.com/de"),) for e in found)
    assert kinds(events) == ["namespace"]
    message = problem(events, "namespace").message
    assert message.index(image) < message.index(XHTML11)
    assert f"{image!r}, not {IMAGE_NS!r}" in message
    assert f"{XHTML11!r}, not {XHTML_NS!r}" in message


def test_a_variant_declared_on_the_element_is_read(fast: bool) -> None:
    """A variant declared where it is used, not on the root, is read and reported too."""
    variant = "https://www.google.com/schemas/sitemap-image/1.1/"
    image = f'<image:image xmlns:image="{variant}"><image:loc>https://example.com/1.jpg</image:loc></image:image>'
    events = parse(_doc(_url(1, image)), fast=fast)
    [entry] = entries(events)
    assert entry.images == (Image("https://example.com/1.jpg"),)
    assert variant in problem(events, "namespace").message


def test_a_variant_root_and_a_variant_extension(fast: bool) -> None:
    """The root's variant keeps its own Problem, first; the extensions' comes at the end."""
    doc = urlset(
        _url(1, _IMAGE),
        ns="https://www.sitemaps.org/schemas/sitemap/0.9",
        extra=' xmlns:image="https://www.google.com/schemas/sitemap-image/1.1"',
    )
    events = parse(doc.encode(), fast=fast)
    root, entry, extensions = events
    assert isinstance(root, Problem) and "<urlset>" in root.message
    assert isinstance(entry, Entry) and entry.images
    assert isinstance(extensions, Problem) and "extension" in extensions.message
    assert kinds(events) == ["namespace", "namespace"]


def test_the_real_namespaces_report_nothing(fast: bool) -> None:
    """The real namespaces, and elements of other extensions (mobile), give no Problem."""
    mobile = "http://www.google.com/schemas/sitemap-mobile/1.0"
    declared = {prefix: real for prefix, (real, _, _) in _EXTENSIONS.items()}
    block = _url(1, _IMAGE, _VIDEO, _NEWS, _LINK, "<mobile:mobile/>", "<foo:bar>x</foo:bar>")
    events = parse(_doc(block, mobile=mobile, foo="urn:foo", **declared), fast=fast)
    [entry] = entries(events)
    assert [len(found) for found in (entry.images, entry.videos, entry.news, entry.alternates)] == [
        1
    ] * 4
    assert kinds(events) == []


@pytest.mark.parametrize(
    ("declared", "block", "said"),
    [
        # an image extension's shape in an unknown namespace
        (
            {"foo": "http://example.org/images"},
            "<foo:image><foo:loc>https://example.com/1.jpg</foo:loc></foo:image>",
            "<image> in the namespace 'http://example.org/images'",
        ),
        # a namespace named like an extension's that is none of them (a wrong version)
        (
            {"image": "http://www.google.com/schemas/sitemap-image/1.2"},
            _IMAGE,
            "<image> in the namespace 'http://www.google.com/schemas/sitemap-image/1.2'",
        ),
        (
            {"v": "https://www.google.com/schemas/sitemap-video/2.0"},
            "<v:clip><v:title>T</v:title></v:clip>",
            "<clip> in the namespace 'https://www.google.com/schemas/sitemap-video/2.0'",
        ),
        # an image with its prefix forgotten: in the sitemap's namespace
        (
            {},
            "<image><loc>https://example.com/1.jpg</loc></image>",
            "<image> in the namespace 'http://www.sitemaps.org/schemas/sitemap/0.9'",
        ),
        # an hreflang link in an unknown namespace
        (
            {"h": "http://www.w3.org/1999/html"},
            '<h:link rel="alternate" hreflang="de" href="https://example.com/de"/>',
            "<link> in the namespace 'http://www.w3.org/1999/html'",
        ),
    ],
)
def test_a_look_alike_is_reported_not_dropped(
    fast: bool, declared: dict[str, str], block: str, said: str
) -> None:
    """An element that looks like an extension's in no extension's namespace is not read,
    and each is counted as an invalid extension quoting the first."""
    events = parse(_doc(_url(1, block), _url(2, block), **declared), fast=fast)
    found = entries(events)
    assert [e.loc for e in found] == ["https://example.com/1", "https://example.com/2"]
    assert all(not (e.images or e.videos or e.news or e.alternates) for e in found)
    assert kinds(events) == ["invalid-extension"]
    message = problem(events, "invalid-extension").message
    assert message.startswith("2 ") and said in message


@needs_corpus
def test_a_real_image_sitemap_under_https_keeps_its_images(fast: bool) -> None:
    """The corpus's Yoast image sitemap, its image namespace rewritten to https as some
    generators write it, gives the very entries of the original and one warning."""
    data = (CORPUS / "ext/highriskshop.com__post-sitemap.xml").read_bytes()
    declared = f'xmlns:image="{IMAGE_NS}"'.encode()
    assert data.count(declared) == 1
    https = re.sub(rb"xmlns:image=\"http:", b'xmlns:image="https:', data)
    original = parse(data, fast=fast)
    events = parse(https, fast=fast)
    assert entries(events) == entries(original)
    assert sum(len(e.images) for e in entries(events)) == 197
    assert kinds(events) == [*kinds(original), "namespace"]
