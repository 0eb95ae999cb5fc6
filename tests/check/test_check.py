"""``check``: every code produced by a loopback site (or a file) made for it, a clean site
producing none, and the registry kept in step with the problem kinds and the docs (docs/check.md)."""

from __future__ import annotations

import asyncio
import dataclasses
import gzip
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from pytest_aiohttp.plugin import AiohttpServer

import sitemap_reader as sr
from sitemap_reader._check._checker import KIND_CODES
from sitemap_reader._check._hreflang import is_hreflang
from tests.support.check import NOW, images, loc, urls, video
from tests.support.http_site import (
    FAST,
    Handler,
    Served,
    closed_port,
    html,
    redirect,
    serve,
    sitemapindex,
    slow,
    status,
    text,
    xml,
)


@dataclasses.dataclass
class Setup:
    sources: tuple[str, ...]
    config: sr.ReaderConfig = FAST
    state: bool = False  # with a state file (in the test's tmp_path)
    options: sr.CheckOptions = dataclasses.field(default_factory=lambda: sr.CheckOptions(now=NOW))


CASES: dict[str, Callable[[Served], Setup]] = {}


def case(code: str) -> Callable[[Callable[[Served], Setup]], Callable[[Served], Setup]]:
    def register(make: Callable[[Served], Setup]) -> Callable[[Served], Setup]:
        CASES[code] = make
        return make

    return register


def good(s: Served, path: str = "/sitemap.xml") -> None:
    s.add(path, xml(urls(loc(s, "/page"))))


def limits(**kw: Any) -> sr.ReaderConfig:
    return dataclasses.replace(FAST, limits=dataclasses.replace(FAST.limits, **kw))


# -- robots.txt ------------------------------------------------------------------------------


@case("R101")
def _(s: Served) -> Setup:
    s.add("/robots.txt", text("Sitemap: /sitemap.xml\n"))
    good(s)
    return Setup((s.a("/"),))


@case("R102")
def _(s: Served) -> Setup:
    s.add("/robots.txt", text("Sitemap: ftp://example.com/sitemap.xml\n"))
    good(s)
    return Setup((s.a("/"),))


@case("R103")
def _(s: Served) -> Setup:
    s.add("/robots.txt", text(f"Sitemap: {s.a('/missing.xml')}\n"))
    return Setup((s.a("/"),))


@case("R104")
def _(s: Served) -> Setup:
    s.add("/robots.txt", text(f"Sitemap: {s.a('/old.xml')}\n"))
    s.add("/old.xml", redirect("/sitemap.xml"))
    good(s)
    return Setup((s.a("/"),))


@case("R105")
def _(s: Served) -> Setup:
    return Setup((s.a("/"),))  # no robots.txt, nothing at the well-known paths


@case("R106")
def _(s: Served) -> Setup:
    s.add("/robots.txt", status(503))
    return Setup((s.a("/"),))


@case("R107")
def _(s: Served) -> Setup:
    good(s)  # found by probing
    return Setup((s.a("/"),))


REPORT = dataclasses.replace(FAST, robots=sr.RobotsPolicy.REPORT)  # check's CLI default


@case("R108")
def _(s: Served) -> Setup:
    s.add("/robots.txt", text(f"User-agent: *\nDisallow: /search/\nSitemap: {s.a('/s.xml')}\n"))
    s.add("/s.xml", xml(urls(loc(s, "/page"), loc(s, "/search/shoes"))))
    return Setup((s.a("/"),), config=REPORT)


@case("R109")
def _(s: Served) -> Setup:
    s.add(
        "/robots.txt", text(f"User-agent: *\nDisallow: /feeds/\nSitemap: {s.a('/feeds/s.xml')}\n")
    )
    good(s, "/feeds/s.xml")
    return Setup((s.a("/"),), config=REPORT)


@case("R110")
def _(s: Served) -> Setup:
    s.add("/robots.txt", text("User-agent: *\nDisallow: /admin/\n"))
    good(s)  # at /sitemap.xml, found by probing
    return Setup((s.a("/"),))


@case("R111")
def _(s: Served) -> Setup:
    wild = "".join(f"Disallow: /*?id={i}$\n" for i in range(501))  # one past the bound
    s.add("/robots.txt", text(f"User-agent: *\n{wild}Sitemap: {s.a('/s.xml')}\n"))
    good(s, "/s.xml")
    return Setup((s.a("/"),), config=REPORT)


# -- HTTP ------------------------------------------------------------------------------------


@case("H201")
def _(s: Served) -> Setup:
    s.add("/index.xml", xml(sitemapindex(s.a("/gone.xml"))))
    return Setup((s.a("/index.xml"),))


@case("H202")
def _(s: Served) -> Setup:
    return Setup((f"http://127.0.0.1:{closed_port()}/sitemap.xml",))


@case("H203")
def _(s: Served) -> Setup:
    s.add("/r.xml", redirect("/sitemap.xml"))
    good(s)
    return Setup((s.a("/r.xml"),))


@case("H204")
def _(s: Served) -> Setup:
    s.add("/r1.xml", redirect("/r2.xml"))
    s.add("/r2.xml", redirect("/sitemap.xml"))
    good(s)
    return Setup((s.a("/r1.xml"),))


@case("H205")
def _(s: Served) -> Setup:
    s.add("/loop1.xml", redirect("/loop2.xml"))
    s.add("/loop2.xml", redirect("/loop1.xml"))
    return Setup((s.a("/loop1.xml"),))


@case("H206")
def _(s: Served) -> Setup:
    s.add("/sitemap.xml", xml(urls(loc(s, "/page")), content_type="text/html"))
    return Setup((s.a("/sitemap.xml"),))


@case("H207")
def _(s: Served) -> Setup:
    good(s, "/sitemap.xml.gz")  # plain XML under a .gz name
    return Setup((s.a("/sitemap.xml.gz"),))


@case("H208")
def _(s: Served) -> Setup:
    s.add("/sitemap.xml", xml(gzip.compress(urls(loc(s, "/page")).encode(), mtime=0)))
    return Setup((s.a("/sitemap.xml"),))


@case("H209")
def _(s: Served) -> Setup:
    s.add("/sitemap.xml", slow(xml(urls(loc(s, "/page"))), 0.3))
    return Setup((s.a("/sitemap.xml"),), options=sr.CheckOptions(slow=0.1, now=NOW))


@case("H210")
def _(s: Served) -> Setup:
    async def handle(request: web.Request) -> web.StreamResponse:
        return web.Response(
            body=b"x", content_type="application/xml", headers={"Content-Encoding": "compress"}
        )

    s.add("/sitemap.xml", handle)
    return Setup((s.a("/sitemap.xml"),))


@case("H211")
def _(s: Served) -> Setup:
    # robots.txt on 127.0.0.1 (the source: trusted) names a sitemap on localhost, which
    # resolves to a loopback address: the guard refuses it.
    s.add("/robots.txt", text(f"Sitemap: {s.b('/sitemap.xml')}\n"))
    return Setup((s.a("/"),), config=dataclasses.replace(FAST, allow_private=False))


@case("H212")
def _(s: Served) -> Setup:
    data = gzip.compress(urls(loc(s, "/page")).encode() * 50, mtime=0)
    corrupt = data[:40] + bytes(reversed(data[40:]))
    s.add("/sitemap.xml.gz", xml(corrupt, content_type="application/gzip"))
    return Setup((s.a("/sitemap.xml.gz"),))


# -- the protocol ------------------------------------------------------------------------------


@case("P301")
def _(s: Served) -> Setup:
    s.add("/sitemap.xml", xml(urls(*(loc(s, f"/p{i}") for i in range(3)))))
    return Setup((s.a("/sitemap.xml"),), config=limits(max_urls=2))


@case("P302")
def _(s: Served) -> Setup:
    s.add("/sitemap.xml", xml(urls(*(loc(s, f"/p{i}") for i in range(30)))))
    return Setup((s.a("/sitemap.xml"),), config=limits(max_bytes=600))


@case("P303")
def _(s: Served) -> Setup:
    s.add("/index.xml", xml(sitemapindex(s.a("/index2.xml"))))
    s.add("/index2.xml", xml(sitemapindex(s.a("/sitemap.xml"))))
    good(s)
    return Setup((s.a("/index.xml"),))


@case("P304")
def _(s: Served) -> Setup:
    s.add("/sitemap.xml", xml(urls(loc(s, "/page"), ns=None)))
    return Setup((s.a("/sitemap.xml"),))


@case("P305")
def _(s: Served) -> Setup:
    s.add("/sitemap.xml", xml(urls(loc(s, "/page"), f"<loc>{s.a('/a?b=1&c=2')}</loc>")))
    return Setup((s.a("/sitemap.xml"),))


@case("P326")
def _(s: Served) -> Setup:
    s.add("/sitemap.xml", xml(conflicted(s)))
    return Setup((s.a("/sitemap.xml"),))


def conflicted(s: Served) -> str:
    """A urlset committed in the middle of a merge: git's markers around two records."""
    ours, theirs = f"<url>{loc(s, '/b')}</url>", f"<url>{loc(s, '/c')}</url>"
    markers = f"<<<<<<< HEAD\n{ours}\n=======\n{theirs}\n>>>>>>> feature\n</urlset>"
    return urls(loc(s, "/a")).replace("</urlset>", markers)


@case("P327")
def _(s: Served) -> Setup:
    s.add("/sitemap.xml", xml(urls(loc(s, "/page") + loc(s, "/other"))))
    return Setup((s.a("/sitemap.xml"),))


@case("P328")
def _(s: Served) -> Setup:
    body = sitemapindex(s.a("/s1.xml"), s.a("/s2.xml")).replace("</sitemap>", "", 1)
    s.add("/index.xml", xml(body))
    good(s, "/s1.xml")
    good(s, "/s2.xml")
    return Setup((s.a("/index.xml"),))


@case("P340")
def _(s: Served) -> Setup:
    twice = "<lastmod>2024-05-01T10:00:00Z</lastmod><lastmod>2024-05-02T10:00:00Z</lastmod>"
    s.add("/sitemap.xml", xml(urls(loc(s, "/page", twice))))
    return Setup((s.a("/sitemap.xml"),))


@case("P329")
def _(s: Served) -> Setup:
    body = sitemapindex(s.a("/s1.xml"), (s.a("/s2.xml"), "2024-01-01"))
    s.add("/index.xml", xml(body[: body.index("<lastmod>2024") + len("<lastmod>20")]))
    good(s, "/s1.xml")
    good(s, "/s2.xml")
    return Setup((s.a("/index.xml"),))


@case("P306")
def _(s: Served) -> Setup:
    s.add("/sitemap.xml", xml(urls(loc(s, "/a page"))))
    return Setup((s.a("/sitemap.xml"),))


@case("P307")
def _(s: Served) -> Setup:
    body = urls(loc(s, "/caf\u00e9"), decl="ISO-8859-1").encode("latin-1")
    s.add("/sitemap.xml", xml(body))
    return Setup((s.a("/sitemap.xml"),))


@case("P308")
def _(s: Served) -> Setup:
    s.add("/sitemap.txt", text(f"{s.a('/page')}\n{s.a('/x')}\xff\n".encode("latin-1")))
    return Setup((s.a("/sitemap.txt"),))


@case("P309")
def _(s: Served) -> Setup:
    s.add("/sitemap.xml", xml(urls(loc(s, "/page"), loc(s, "/" + "x" * 2100))))
    return Setup((s.a("/sitemap.xml"),))


@case("P310")
def _(s: Served) -> Setup:
    s.add("/sitemap.xml", xml(urls(loc(s, "/page"), "<loc>/relative</loc>")))
    return Setup((s.a("/sitemap.xml"),))


@case("P311")
def _(s: Served) -> Setup:
    s.add("/sitemap.xml", xml(urls(loc(s, "/page"), "<loc>ftp://example.com/f</loc>")))
    return Setup((s.a("/sitemap.xml"),))


@case("P312")
def _(s: Served) -> Setup:
    s.add("/dir/sitemap.xml", xml(urls(loc(s, "/dir/page"), loc(s, "/elsewhere"))))
    return Setup((s.a("/dir/sitemap.xml"),))


@case("P313")
def _(s: Served) -> Setup:
    s.add("/index.xml", xml(sitemapindex(s.b("/sitemap.xml"))))
    return Setup((s.a("/index.xml"),))


@case("P314")
def _(s: Served) -> Setup:
    s.add("/sitemap.xml", xml(urls(loc(s, "/page"), loc(s, "/page"))))
    return Setup((s.a("/sitemap.xml"),))


@case("P315")
def _(s: Served) -> Setup:
    s.add("/index.xml", xml(sitemapindex(s.a("/s1.xml"), s.a("/s2.xml"))))
    good(s, "/s1.xml")
    good(s, "/s2.xml")
    return Setup((s.a("/index.xml"),))


@case("P316")
def _(s: Served) -> Setup:
    s.add("/index.xml", xml(sitemapindex(s.a("/sitemap.xml"), s.a("/sitemap.xml"))))
    good(s)
    return Setup((s.a("/index.xml"),))


@case("P317")
def _(s: Served) -> Setup:
    s.add("/sitemap.xml", xml(urls(loc(s, "/page")).replace("</urlset>", "")))
    return Setup((s.a("/sitemap.xml"),))


@case("P318")
def _(s: Served) -> Setup:
    s.add("/sitemap.xml", html())
    return Setup((s.a("/sitemap.xml"),))


@case("P319")
def _(s: Served) -> Setup:
    s.add("/sitemap.xml", xml('<?xml version="1.0"?>\n<catalog><item/></catalog>\n'))
    return Setup((s.a("/sitemap.xml"),))


@case("P320")
def _(s: Served) -> Setup:
    body = '<?xml version="1.0"?>\n<!DOCTYPE urlset [<!ENTITY e "x">]>\n<urlset/>\n'
    s.add("/sitemap.xml", xml(body))
    return Setup((s.a("/sitemap.xml"),))


@case("P321")
def _(s: Served) -> Setup:
    s.add("/a.xml", xml(sitemapindex(s.a("/b.xml"))))
    s.add("/b.xml", xml(sitemapindex(s.a("/a.xml"))))
    return Setup((s.a("/a.xml"),))


@case("P322")
def _(s: Served) -> Setup:
    s.add("/i0.xml", xml(sitemapindex(s.a("/i1.xml"))))
    s.add("/i1.xml", xml(sitemapindex(s.a("/i2.xml"))))
    s.add("/i2.xml", xml(sitemapindex(s.a("/sitemap.xml"))))
    good(s)
    return Setup((s.a("/i0.xml"),), config=limits(max_depth=1))


@case("P323")
def _(s: Served) -> Setup:
    s.add("/sitemap.xml", xml(urls(loc(s, "/page"), loc(s, "/" + "y" * 300))))
    return Setup((s.a("/sitemap.xml"),), config=limits(max_token_bytes=200))


@case("P324")
def _(s: Served) -> Setup:
    s.add("/sitemap.xml", xml(urls()))
    return Setup((s.a("/sitemap.xml"),))


@case("P325")
def _(s: Served) -> Setup:
    return Setup((str(Path(__file__).parent / "no-such-dir" / "sitemap.xml"),))


# -- values ------------------------------------------------------------------------------------


@case("V401")
def _(s: Served) -> Setup:
    s.add("/sitemap.xml", xml(urls(loc(s, "/page", "<lastmod>yesterday</lastmod>"))))
    return Setup((s.a("/sitemap.xml"),))


@case("V402")
def _(s: Served) -> Setup:
    s.add("/sitemap.xml", xml(urls(loc(s, "/page", "<lastmod>2030-01-01</lastmod>"))))
    return Setup((s.a("/sitemap.xml"),))


@case("V403")
def _(s: Served) -> Setup:
    stamp = "<lastmod>2024-05-01T10:00:00Z</lastmod>"
    s.add("/sitemap.xml", xml(urls(*(loc(s, f"/p{i}", stamp) for i in range(12)))))
    return Setup((s.a("/sitemap.xml"),))


@case("V404")
def _(s: Served) -> Setup:
    s.add("/sitemap.xml", xml(urls(loc(s, "/page", "<changefreq>sometimes</changefreq>"))))
    return Setup((s.a("/sitemap.xml"),))


@case("V405")
def _(s: Served) -> Setup:
    s.add("/sitemap.xml", xml(urls(loc(s, "/page", "<priority>2.5</priority>"))))
    return Setup((s.a("/sitemap.xml"),))


@case("V406")
def _(s: Served) -> Setup:
    # The index says its children last changed in 2023; their entries say 2024: stale.
    children = [(s.a(f"/c{i}.xml"), "2023-01-01") for i in range(4)]
    s.add("/index.xml", xml(sitemapindex(*children)))
    for i in range(4):
        stamp = "<lastmod>2024-03-01</lastmod>"
        s.add(f"/c{i}.xml", xml(urls(loc(s, f"/c{i}-a", stamp), loc(s, f"/c{i}-b", stamp))))
    return Setup((s.a("/index.xml"),), state=True)


@case("V420")
def _(s: Served) -> Setup:
    s.add("/sitemap.xml", xml(urls(loc(s, "/page", "<lastmod>2024-05-01</lastmod>"))))
    return Setup((s.a("/sitemap.xml"),))


# -- extensions ----------------------------------------------------------------------------------


@case("X501")
def _(s: Served) -> Setup:
    image = "<image:image><image:caption>no loc</image:caption></image:image>"
    s.add("/sitemap.xml", xml(urls(loc(s, "/page", image))))
    return Setup((s.a("/sitemap.xml"),))


@case("X502")
def _(s: Served) -> Setup:
    video = f"<video:video><video:title>t</video:title><video:content_loc>{s.a('/v.mp4')}</video:content_loc></video:video>"
    s.add("/sitemap.xml", xml(urls(loc(s, "/page", video))))
    return Setup((s.a("/sitemap.xml"),))


def _news(title: str = "<news:title>t</news:title>", date: str = "2024-05-31") -> str:
    return (
        "<news:news><news:publication><news:name>N</news:name>"
        f"<news:language>en</news:language></news:publication>"
        f"<news:publication_date>{date}</news:publication_date>{title}</news:news>"
    )


@case("X503")
def _(s: Served) -> Setup:
    s.add("/sitemap.xml", xml(urls(loc(s, "/page", _news(title="")))))
    return Setup((s.a("/sitemap.xml"),))


@case("X504")
def _(s: Served) -> Setup:
    s.add("/news.xml", xml(urls(*(loc(s, f"/n{i}", _news()) for i in range(1_001)))))
    return Setup((s.a("/news.xml"),))


@case("X505")
def _(s: Served) -> Setup:
    s.add("/news.xml", xml(urls(loc(s, "/n", _news(date="2024-01-01")))))
    return Setup((s.a("/news.xml"),))


def _alt(s: Served, lang: str, path: str) -> str:
    return f'<xhtml:link rel="alternate" hreflang="{lang}" href="{s.a(path)}"/>'


@case("X506")
def _(s: Served) -> Setup:
    alts = _alt(s, "en", "/en") + _alt(s, "fr", "/fr")
    s.add("/sitemap.xml", xml(urls(loc(s, "/en", alts), loc(s, "/fr", alts))))
    return Setup((s.a("/sitemap.xml"),))


@case("X507")
def _(s: Served) -> Setup:
    # /en names /fr as its French page; /fr does not name /en back.
    en = _alt(s, "en", "/en") + _alt(s, "fr", "/fr") + _alt(s, "x-default", "/en")
    fr = _alt(s, "fr", "/fr") + _alt(s, "de", "/de") + _alt(s, "x-default", "/fr")
    s.add("/sitemap.xml", xml(urls(loc(s, "/en", en), loc(s, "/fr", fr))))
    return Setup((s.a("/sitemap.xml"),))


@case("X508")
def _(s: Served) -> Setup:
    video = (
        f"<video:video><video:thumbnail_loc>{s.a('/t.jpg')}</video:thumbnail_loc>"
        "<video:title>t</video:title><video:description>d</video:description>"
        f"<video:content_loc>{s.a('/v.mp4')}</video:content_loc>"
        "<video:duration>long</video:duration></video:video>"
    )
    s.add("/sitemap.xml", xml(urls(loc(s, "/page", video))))
    return Setup((s.a("/sitemap.xml"),))


@case("X509")
def _(s: Served) -> Setup:
    # "us" is a country code, not a language: the usual mistake for en-US.
    alts = _alt(s, "us", "/us") + _alt(s, "x-default", "/us")
    s.add("/sitemap.xml", xml(urls(loc(s, "/us", alts))))
    return Setup((s.a("/sitemap.xml"),))


@case("X520")
def _(s: Served) -> Setup:
    s.add("/sitemap.xml", xml(urls(loc(s, "/page", images(1_001, s.a("/i"))))))
    return Setup((s.a("/sitemap.xml"),))


@case("X521")
def _(s: Served) -> Setup:
    # /en names its German and default pages, not itself.
    alts = _alt(s, "de", "/de") + _alt(s, "x-default", "/de")
    s.add("/sitemap.xml", xml(urls(loc(s, "/en", alts))))
    return Setup((s.a("/sitemap.xml"),))


@case("X522")
def _(s: Served) -> Setup:
    s.add("/sitemap.xml", xml(urls(loc(s, "/watch", video(s.a("/watch"))))))
    return Setup((s.a("/sitemap.xml"),))


@case("X523")
def _(s: Served) -> Setup:
    long_title = video(s.a("/v.mp4"), title="t" * 101)
    s.add("/sitemap.xml", xml(urls(loc(s, "/watch", long_title))))
    return Setup((s.a("/sitemap.xml"),))


# -- the sampled pages (check --sample; tests/check/test_sample.py has the rest) ------------------


def sampled(s: Served, handler: Handler) -> Setup:
    """A sitemap listing one page, served by ``handler``, and a sample that draws it."""
    s.add("/page", handler)
    s.add("/sitemap.xml", xml(urls(loc(s, "/page"))))
    return Setup((s.a("/sitemap.xml"),), options=sr.CheckOptions(now=NOW, sample=1))


@case("S701")
def _(s: Served) -> Setup:
    return sampled(s, redirect("/elsewhere"))


@case("S702")
def _(s: Served) -> Setup:
    return sampled(s, status(410))


@case("S703")
def _(s: Served) -> Setup:
    return sampled(s, status(502))


@case("S704")
def _(s: Served) -> Setup:
    async def cut(request: web.Request) -> web.StreamResponse:
        """An HTML page whose connection is reset inside its head, at every attempt."""
        response = web.StreamResponse(headers={"Content-Type": "text/html"})
        response.content_length = 1000
        await response.prepare(request)
        await response.write(b"<html><head><title>cut")
        await asyncio.sleep(0.05)
        assert request.transport is not None
        request.transport.abort()
        return response

    return sampled(s, cut)


@case("S705")
def _(s: Served) -> Setup:
    return sampled(s, html('<html><head><meta name="robots" content="noindex"></head></html>'))


@case("S706")
def _(s: Served) -> Setup:
    return sampled(s, html(f'<html><head><link rel="canonical" href="{s.a("/")}"></head>'))


# -- the check itself ----------------------------------------------------------------------------


@case("C601")
def _(s: Served) -> Setup:
    s.add("/index.xml", xml(sitemapindex(s.a("/s1.xml"), s.a("/s2.xml"))))
    good(s, "/s1.xml")
    good(s, "/s2.xml")
    return Setup((s.a("/index.xml"),), config=limits(max_sitemaps=2))


@case("C602")
def _(s: Served) -> Setup:
    s.add("/sitemap.xml", xml(urls(*(loc(s, f"/p{i}") for i in range(3)))))
    return Setup((s.a("/sitemap.xml"),), options=sr.CheckOptions(max_doc_urls=1, now=NOW))


# -- running them --------------------------------------------------------------------------------


async def check(setup: Setup, tmp_path: Path | None = None) -> list[sr.Finding]:
    checker = sr.Checker(setup.options)
    state = tmp_path / "state.sqlite" if setup.state and tmp_path is not None else None
    async with sr.SitemapReader(setup.config, state=state) as reader:
        return [f async for f in reader.check(*setup.sources, checker=checker)]


NEVER_PRODUCED = {"C699"}  # the fallback for a problem kind without a code: none exists


def test_every_code_has_a_case() -> None:
    """Each code of the registry is produced by a case below (but the fallback)."""
    assert set(CASES) == set(sr.CODES) - NEVER_PRODUCED


@pytest.mark.parametrize("code", sorted(CASES))
async def test_code_is_produced(aiohttp_server: AiohttpServer, tmp_path: Path, code: str) -> None:
    """The site made for ``code`` produces a finding of that code, with its registered
    severity and name, and a message that says what to change."""
    s = await serve(aiohttp_server)
    found = await check(CASES[code](s), tmp_path)
    mine = [f for f in found if f.code == code]
    assert mine, f"{code} not among {[(f.code, f.message) for f in found]}"
    entry = sr.CODES[code]
    for item in mine:
        assert (item.name, item.severity) == (entry.name, entry.severity)
        if code in FITTED:
            assert ". Fix: " in item.message and item.message.endswith(".")
        else:
            assert item.message.endswith(f"Fix: {entry.fix}.")
        assert item.count >= 1


# Codes whose fix is fitted to the finding (its line, the reason its URLs were dropped).
FITTED = {"P305", "P312"}


async def test_line_and_document_are_reported(aiohttp_server: AiohttpServer) -> None:
    """A fault with a known place names the document and the line (the bad & is on line 4),
    and its fix gives that line; the registry's fix, with no line to give, names none."""
    s = await serve(aiohttp_server)
    (found,) = [f for f in await check(CASES["P305"](s)) if f.code == "P305"]
    assert found.url == s.a("/sitemap.xml")
    assert found.line == 4
    assert found.severity is sr.Severity.ERROR
    assert found.message.endswith(
        ". Fix: escape & as &amp; and < as &lt; in values, and fix the XML at line 4."
    )
    assert "line given" not in sr.CODES["P305"].fix and "line" not in sr.CODES["P305"].fix


@pytest.mark.parametrize(
    ("other_host", "why", "fix"),
    [
        (
            False,
            "outside-folder",
            (
                "move the sitemap up to the folder that holds its URLs (the site's root holds them "
                "all), or name it in the site's robots.txt"
            ),
        ),
        (
            True,
            "other-host",
            (
                "list only URLs of the sitemap's own host, or name the sitemap in the robots.txt of "
                "the host its URLs are on (cross-submission)"
            ),
        ),
    ],
)
async def test_out_of_scope_names_a_dropped_url_and_a_fix_for_its_reason(
    aiohttp_server: AiohttpServer, other_host: bool, why: str, fix: str
) -> None:
    """Issue 29: the finding named no URL, and told an other-host sitemap to move up to the
    site's root (which keeps no URL of another host)."""
    s = await serve(aiohttp_server)
    dropped = s.b("/dir/page") if other_host else s.a("/elsewhere")
    s.add("/dir/sitemap.xml", xml(urls(loc(s, "/dir/page"), f"<loc>{dropped}</loc>")))
    found = [f for f in await check(Setup((s.a("/dir/sitemap.xml"),))) if f.code == "P312"]
    assert [f.message for f in found] == [
        (f"1 URL outside the sitemap's location dropped (1 {why}, such as {dropped}). Fix: {fix}.")
    ]


async def test_robots_fault_names_the_robots_txt(aiohttp_server: AiohttpServer) -> None:
    """A relative Sitemap: line is the robots.txt's to fix, at its line."""
    s = await serve(aiohttp_server)
    (found,) = [f for f in await check(CASES["R101"](s)) if f.code == "R101"]
    assert (found.url, found.line) == (s.a("/robots.txt"), 1)


async def test_counts_are_kept(aiohttp_server: AiohttpServer) -> None:
    """Tolerated faults are one finding per document, with their count."""
    s = await serve(aiohttp_server)
    body = urls(*(loc(s, "/p", "<priority>9</priority>") for _ in range(5)))
    s.add("/sitemap.xml", xml(body))
    found = {f.code: f for f in await check(Setup((s.a("/sitemap.xml"),)))}
    assert found["V405"].count == 5
    assert found["P314"].count == 4  # the same URL four more times
    assert found["P314"].message.startswith("4 URLs are listed more than once in this sitemap")


async def test_one_finding_is_worded_in_the_singular(aiohttp_server: AiohttpServer) -> None:
    """A count of one reads "1 URL is", not "1 URLs are"."""
    s = await serve(aiohttp_server)
    (found,) = [f for f in await check(CASES["P314"](s)) if f.code == "P314"]
    assert found.count == 1
    assert found.message.startswith("1 URL is listed more than once in this sitemap (first: ")


def clean_site(s: Served) -> Setup:
    """A site that does everything right: robots.txt, an index, two urlsets, hreflang sets."""
    s.add("/robots.txt", text(f"User-agent: *\nAllow: /\nSitemap: {s.a('/sitemap_index.xml')}\n"))
    s.add(
        "/sitemap_index.xml",
        xml(sitemapindex((s.a("/pages.xml"), "2024-05-01"), (s.a("/intl.xml"), "2024-04-01"))),
    )
    pages = [
        loc(
            s,
            f"/page-{i}",
            f"<lastmod>2024-0{1 + i % 5}-{10 + i:02d}T08:00:00Z</lastmod>"
            "<changefreq>weekly</changefreq><priority>0.5</priority>",
        )
        for i in range(12)
    ]
    s.add("/pages.xml", xml(urls(*pages)))
    alts = _alt(s, "en", "/en/") + _alt(s, "fr", "/fr/") + _alt(s, "x-default", "/en/")
    s.add("/intl.xml", xml(urls(loc(s, "/en/", alts), loc(s, "/fr/", alts))))
    return Setup((s.a("/"),))


async def test_clean_site_has_no_findings(aiohttp_server: AiohttpServer) -> None:
    """A site without faults produces no finding at all (and every URL was read)."""
    s = await serve(aiohttp_server)
    checker = sr.Checker(sr.CheckOptions(now=NOW))
    setup = clean_site(s)
    async with sr.SitemapReader(FAST) as reader:
        found = [f async for f in reader.check(*setup.sources, checker=checker)]
    assert found == []
    assert checker.entries == 14
    assert {d.status for d in checker.documents} == {sr.Status.OK}


def test_sync_wrapper_returns_findings(tmp_path: Path) -> None:
    """check_sync over a local file: the same findings, as a list."""
    path = tmp_path / "sitemap.xml"
    path.write_text(urls("<loc>https://example.com/a</loc>", "<loc>/rel</loc>"))
    found = sr.check_sync(str(path))
    assert [(f.code, f.url) for f in found] == [("P310", str(path))]


# -- the registry ----------------------------------------------------------------------------------


def test_every_problem_kind_has_a_code() -> None:
    """Each kind the reader reports maps to a registered code; to 'other' only the reader's
    own faults (a bug, a parse worker that died), the change feed's, which a check never
    meets (it runs no change feed), and the caller's follow rules', which it never reports."""
    unmapped = {
        sr.ProblemKind.ERROR,
        sr.ProblemKind.WORKER_LOST,
        sr.ProblemKind.SHRINK_HELD,
        sr.ProblemKind.SHRINK_CONFIRMED,
        sr.ProblemKind.NOTHING_FOLLOWED,  # the caller's follow rules: check never says it
    }
    for kind in sr.ProblemKind:
        name = KIND_CODES.get(kind)
        assert name is not None, kind
        assert (name == "other") == (kind in unmapped), kind
    names = {c.name for c in sr.CODES.values()}
    assert set(KIND_CODES.values()) <= names


def test_codes_are_well_formed() -> None:
    """Codes are a letter and three digits, unique names, each with what it means, a fix
    and an example (what check --explain prints)."""
    names = [c.name for c in sr.CODES.values()]
    assert len(names) == len(set(names))
    for code, entry in sr.CODES.items():
        assert re.fullmatch(r"[RHPVXSC]\d{3}", code) and entry.code == code
        assert entry.summary and entry.fix and entry.meaning and entry.example


CHECK_PAGE = Path(__file__).resolve().parents[2] / "docs" / "check.md"


def test_docs_table_is_the_registry() -> None:
    """The docs' table of codes lists each code with its name and severity, in order."""
    text = CHECK_PAGE.read_text(encoding="utf-8")
    section = text.split("\n## The codes\n", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([A-Z]\d{3})` \| `([a-z0-9-]+)` \| (\w+) \|", section, re.MULTILINE)
    assert rows == [(c.code, c.name, c.severity.value) for c in sr.CODES.values()]


@pytest.mark.parametrize("kind", ["error", "warning", "notice"])
def test_severity_ranks(kind: str) -> None:
    assert sr.Severity(kind).rank == {"error": 2, "warning": 1, "notice": 0}[kind]


# -- findings read from the problems' fields ------------------------------------------------------


async def test_merge_conflict_markers_have_their_own_code(aiohttp_server: AiohttpServer) -> None:
    """git's conflict markers are said as such, at their line, not as a bad escape."""
    s = await serve(aiohttp_server)
    found = await check(CASES["P326"](s))
    (conflict,) = [f for f in found if f.code == "P326"]
    assert "P305" not in {f.code for f in found}
    assert conflict.line == 4  # the declaration, <urlset>, the first record, then the marker
    assert "merge-conflict marker" in conflict.message and "&amp;" not in conflict.message


async def test_an_image_without_loc_after_a_bad_video_date(aiohttp_server: AiohttpServer) -> None:
    """Both faults are found: the image without loc is not hidden behind the first example
    of the malformed extension values (the video date that came before it)."""
    s = await serve(aiohttp_server)
    video = (
        f"<video:video><video:thumbnail_loc>{s.a('/t.jpg')}</video:thumbnail_loc>"
        "<video:title>t</video:title><video:description>d</video:description>"
        f"<video:content_loc>{s.a('/v.mp4')}</video:content_loc>"
        "<video:publication_date>yesterday</video:publication_date></video:video>"
    )
    image = "<image:image><image:caption>no loc</image:caption></image:image>"
    s.add("/sitemap.xml", xml(urls(loc(s, "/v", video), loc(s, "/i", image))))
    found = {f.code: f for f in await check(Setup((s.a("/sitemap.xml"),)))}
    assert {"X501", "X508"} <= set(found)
    assert "yesterday" in found["X508"].message and found["X508"].count == 1
    assert found["X501"].count == 1


@pytest.mark.parametrize(
    ("lang", "valid"),
    [
        ("us", False),  # a country, not a language
        ("uk", True),  # Ukrainian (the country is gb)
        ("en_US", False),
        ("english", False),
        ("zz", False),
        ("en", True),
        ("EN-gb", True),
        ("zh-Hant-TW", True),
        ("es-419", True),
        ("yue-HK", True),
        ("x-default", True),
    ],
)
def test_hreflang_values_are_bcp47_with_an_iso639_language(lang: str, valid: bool) -> None:
    assert is_hreflang(lang) is valid


async def test_an_hreflang_of_us_is_flagged(aiohttp_server: AiohttpServer) -> None:
    s = await serve(aiohttp_server)
    (found,) = [f for f in await check(CASES["X509"](s)) if f.code == "X509"]
    assert found.count == 1 and "'us'" in found.message


async def test_messages_do_not_repeat_their_names(aiohttp_server: AiohttpServer) -> None:
    """ "P319 not-a-sitemap: not a sitemap: ..." said its name twice; so did P305."""
    s = await serve(aiohttp_server)
    s.add("/noise.txt", text("just words\nno URL here\n"))
    found = await check(Setup((s.a("/noise.txt"),)))
    found += await check(CASES["P305"](s))
    for item in found:
        assert not item.message.lower().startswith(item.name.replace("-", " ")), item


async def test_one_instant_says_all_when_all_share_it(aiohttp_server: AiohttpServer) -> None:
    s = await serve(aiohttp_server)
    (found,) = [f for f in await check(CASES["V403"](s)) if f.code == "V403"]
    assert found.message.startswith("all 12 lastmods are 2024-05-01T10:00:00+00:00"), found
