"""Encodings over HTTP: real bytes from a loopback aiohttp server, read by the walk.

A text sitemap is read in the charset of its ``Content-Type`` (the walk hands the header to
the parser, on a first read and on a re-read held back by an incremental run); an XML
sitemap in its declared encoding, whatever the header says: each encoding of the parser's
tests (GB18030, Big5, EUC-KR, UTF-16 without a byte-order mark...) served in odd-sized writes.
"""

from __future__ import annotations

import asyncio

import pytest
from aiohttp import web
from pytest_aiohttp.plugin import AiohttpServer

from sitemap_reader import MemoryStateStore, SitemapReader, Status
from tests.support.charsets import ENCODINGS, WIDE, WIDE_FORMS
from tests.support.http_site import (
    FAST,
    Handler,
    Run,
    serve,
    sitemapindex,
    urlset,
    walk,
    xml,
)


def served_as(body: bytes, content_type: str) -> Handler:
    """200 with ``body`` and ``content_type`` as they are (charset parameter included)."""

    async def handle(request: web.Request) -> web.StreamResponse:
        return web.Response(body=body, headers={"Content-Type": content_type})

    return handle


async def test_text_sitemap_in_shift_jis_by_its_content_type(
    aiohttp_server: AiohttpServer,
) -> None:
    """`text/plain; charset=shift_jis`: the Japanese paths come out as a UTF-8 file's would."""
    s = await serve(aiohttp_server)
    pages = [s.a("/日本語/東京"), s.a("/ｶﾀｶﾅ/①"), s.a("/plain")]
    body = "\r\n".join(pages).encode("cp932")
    s.add("/list.txt", served_as(body, "text/plain; charset=shift_jis"))
    s.add("/bare.txt", served_as(body, "text/plain"))

    run = await walk(s.a("/list.txt"))
    assert run.locs == pages
    assert run.problems == []

    bare = await walk(s.a("/bare.txt"))  # no charset: UTF-8, the other lines percent-encoded
    assert bare.locs[2] == s.a("/plain") and bare.locs[0].startswith(s.a("/%93%FA"))
    assert bare.kinds == ["encoding"]


async def test_gbk_index_and_urlset(aiohttp_server: AiohttpServer) -> None:
    """An index and its child declared GBK (one served with a wrong charset) are read."""
    s = await serve(aiohttp_server)
    pages = [s.a("/中文/目录"), s.a("/中文/页面?a=1&b=2")]
    child = urlset(*pages).replace("UTF-8", "GBK").encode("gbk")
    index = sitemapindex(s.a("/child.xml")).replace("UTF-8", "GBK").encode("gbk")
    s.add("/index.xml", served_as(index, "application/xml"))
    s.add("/child.xml", served_as(child, "text/xml; charset=iso-8859-1"))  # the XML wins

    run = await walk(s.a("/index.xml"))
    assert run.locs == pages
    assert run.problems == []
    assert run.report(s.a("/child.xml")).status is Status.OK


async def test_unknown_declared_encoding_names_it(aiohttp_server: AiohttpServer) -> None:
    s = await serve(aiohttp_server)
    s.add("/x.xml", xml(urlset(s.a("/a")).replace("UTF-8", "x-mac-klingon")))
    run = await walk(s.a("/x.xml"))
    problem = run.problem("unknown-encoding")
    assert problem.fatal and problem.url == s.a("/x.xml") and "'x-mac-klingon'" in problem.message
    assert run.entries == []


async def test_a_held_back_reread_keeps_the_charset(aiohttp_server: AiohttpServer) -> None:
    """An incremental run holds an index child's body back until its digest says it changed,
    then parses it: in the charset the response named."""
    s = await serve(aiohttp_server)
    first = [s.a("/日本/1")]
    second = [s.a("/日本/1"), s.a("/日本/2")]
    s.add("/index.xml", xml(sitemapindex(s.a("/list.txt"))))
    s.add("/list.txt", served_as("\n".join(first).encode("euc_jp"), "text/plain; charset=EUC-JP"))
    store = MemoryStateStore()

    async def run() -> Run:
        async with SitemapReader(FAST, state=store) as reader:
            return Run([event async for event in reader.walk(s.a("/index.xml"))])

    assert (await run()).locs == first
    s.add("/list.txt", served_as("\n".join(second).encode("euc_jp"), "text/plain; charset=EUC-JP"))
    again = await run()
    assert again.locs == second
    assert again.problems == []


# Each encoding of the parser's tests, and UTF-16 / UTF-32 with and without a byte-order mark.
SERVED = {
    **{name: (name, codec, b"", segment) for name, (codec, segment) in ENCODINGS.items()},
    **{name: (declared, codec, bom, WIDE) for name, (declared, codec, bom) in WIDE_FORMS.items()},
}


@pytest.mark.parametrize("name", list(SERVED))
async def test_each_encoding_from_a_server(aiohttp_server: AiohttpServer, name: str) -> None:
    """An index and its urlset written in ``name`` (non-ASCII paths, served in 997-byte writes
    so multi-byte characters straddle reads) give the locs a UTF-8 site gives, without a problem."""
    declared, codec, bom, segment = SERVED[name]
    s = await serve(aiohttp_server)
    pages = [s.a(f"/{segment}/{i}") for i in range(200)]

    def written(document: str) -> bytes:
        return bom + document.replace('encoding="UTF-8"', f'encoding="{declared}"').encode(codec)

    child, index = written(urlset(*pages)), written(sitemapindex(s.a("/child.xml")))
    s.add("/index.xml", in_pieces(index))
    s.add("/child.xml", in_pieces(child))

    run = await walk(s.a("/index.xml"))
    assert run.locs == pages
    assert run.problems == []
    assert run.report(s.a("/child.xml")).status is Status.OK


def in_pieces(body: bytes, piece: int = 997) -> Handler:
    """200 with ``body`` as application/xml, ``piece`` bytes a write (an odd size, so that
    two-byte and four-byte characters are cut between writes)."""

    async def handle(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "application/xml"})
        response.content_length = len(body)
        await response.prepare(request)
        for at in range(0, len(body), piece):
            await response.write(body[at : at + piece])
            await asyncio.sleep(0.005)  # each write its own read: loopback would merge them
        return response

    return handle
