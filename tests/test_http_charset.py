"""Encodings over HTTP: real bytes from a loopback aiohttp server, read by the walk.

A text sitemap is read in the charset of its ``Content-Type`` (the walk hands the header to
the parser, on a first read and on a re-read held back by an incremental run); an XML
sitemap in its declared encoding, whatever the header says.
"""

from __future__ import annotations

from aiohttp import web
from pytest_aiohttp.plugin import AiohttpServer

from sitemap_reader import MemoryStateStore, SitemapReader, Status
from tests.http_site import (
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
