"""``check`` over extensions in variant namespaces and look-alikes, from a loopback site: the
finding names the variant met and the namespace it stands for, the extension is checked as
under the real one, and a look-alike is a finding, not silence."""

from __future__ import annotations

from pytest_aiohttp.plugin import AiohttpServer

import sitemap_reader as sr
from tests.support.check import NOW
from tests.support.http_site import FAST, SITEMAP_NS, serve, xml

IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"
HTTPS_IMAGE = "https://www.google.com/schemas/sitemap-image/1.1"
XHTML11 = "http://www.w3.org/TR/xhtml11/xhtml11_schema.html"


def _urlset(declared: str, *blocks: str) -> str:
    inner = "".join(f"<url>{block}</url>\n" for block in blocks)
    return f'<?xml version="1.0"?>\n<urlset xmlns="{SITEMAP_NS}"{declared}>\n{inner}</urlset>\n'


async def _check(aiohttp_server: AiohttpServer, body: str) -> tuple[str, list[sr.Finding]]:
    s = await serve(aiohttp_server)
    s.add("/sitemap.xml", xml(body))
    checker = sr.Checker(sr.CheckOptions(now=NOW))
    async with sr.SitemapReader(FAST) as reader:
        found = [f async for f in reader.check(s.a("/sitemap.xml"), checker=checker)]
    return s.a("/sitemap.xml"), found


async def test_the_finding_names_each_variant(aiohttp_server: AiohttpServer) -> None:
    """Images under https and alternates under the XHTML 1.1 schema page, on many entries:
    one P304 finding for the document naming both variants, and the images are checked as
    images (the one without a loc is X501)."""
    blocks = [
        f"<loc>https://example.com/{i}</loc>"
        f"<image:image><image:loc>https://example.com/{i}.jpg</image:loc></image:image>"
        f'<xhtml:link rel="alternate" hreflang="en" href="https://example.com/{i}"/>'
        f'<xhtml:link rel="alternate" hreflang="x-default" href="https://example.com/{i}"/>'
        for i in range(20)
    ]
    blocks.append(
        "<loc>https://example.com/bare</loc><image:image><image:title>t</image:title></image:image>"
    )
    body = _urlset(f' xmlns:image="{HTTPS_IMAGE}" xmlns:xhtml="{XHTML11}"', *blocks)
    url, found = await _check(aiohttp_server, body)
    [namespace] = [f for f in found if f.code == "P304"]
    assert namespace.url == url and namespace.count == 1
    assert f"{HTTPS_IMAGE!r}, not {IMAGE_NS!r}" in namespace.message
    assert f"{XHTML11!r}, not 'http://www.w3.org/1999/xhtml'" in namespace.message
    assert [f.code for f in found if f.code == "X501"] == ["X501"]


async def test_a_look_alike_is_a_finding(aiohttp_server: AiohttpServer) -> None:
    """Images in a namespace named like the image extension's but none of them (a wrong
    version) are an X508 finding that counts them and names the namespace."""
    wrong = "http://www.google.com/schemas/sitemap-image/1.0"
    image = "<image:image><image:loc>https://example.com/i.jpg</image:loc></image:image>"
    blocks = [f"<loc>https://example.com/{i}</loc>{image}" for i in range(3)]
    _, found = await _check(aiohttp_server, _urlset(f' xmlns:image="{wrong}"', *blocks))
    [looks] = [f for f in found if f.code == "X508"]
    assert looks.count == 3
    assert f"<image> in the namespace {wrong!r}" in looks.message
    assert not [f for f in found if f.code == "P304"]


async def test_the_real_namespaces_give_no_finding(aiohttp_server: AiohttpServer) -> None:
    """The same images under the real namespace: no P304, no X508."""
    image = "<image:image><image:loc>https://example.com/i.jpg</image:loc></image:image>"
    body = _urlset(f' xmlns:image="{IMAGE_NS}"', f"<loc>https://example.com/a</loc>{image}")
    _, found = await _check(aiohttp_server, body)
    assert not [f for f in found if f.code in ("P304", "X508")]
