"""Content codings (issue 15): gzip, deflate (zlib and raw), br, zstd and stacks of them, undone
by the project's decoders (``_core/_codings.py``) under the same bound, over a real aiohttp
server on 127.0.0.1, gzip and deflate on either core's inflater. Bombs and cut streams in each
coding are in test_hostile.py; the two inflaters held to each other in test_inflaters.py.
"""

from __future__ import annotations

import asyncio
import dataclasses
import sys

import pytest
from aiohttp import web
from pytest_aiohttp.plugin import AiohttpServer

from sitemap_reader import ContentEncodingError, Entry, Status
from sitemap_reader._base._errors import CodingError
from sitemap_reader._core._codings import STEP, Decoder, accept_encoding, decoder_for
from tests.support.helpers import bomb_stream, bytewise, damaged_midway, encode, sized
from tests.support.http_site import Handler, Served, serve, urlset, walk, xml

# Every test here runs on both inflaters of gzip and deflate (the compiled core's and Python's).
pytestmark = pytest.mark.usefixtures("zlib_core")

CODINGS = ["gzip", "deflate", "deflate-raw", "br", "zstd"]
DOCUMENT = b"".join(b"<url><loc>https://example.com/%d</loc></url>\n" % i for i in range(20_000))


def header(coding: str) -> str:
    """What ``Content-Encoding`` says for a coding of :func:`tests.support.helpers.encode`."""
    return coding.removesuffix("-raw")  # raw deflate is sent as deflate


def stacked(data: bytes, content_encoding: str) -> bytes:
    """``data`` in the codings ``content_encoding`` lists, applied in its order."""
    for coding in content_encoding.split(", "):
        data = encode(data, coding)
    return data


def decode(decoder: Decoder, pieces: list[bytes]) -> bytes:
    return b"".join(out for piece in pieces for out in decoder.feed(piece))


def decoder(content_encoding: str) -> Decoder:
    found = decoder_for(content_encoding)
    assert found is not None
    return found


# -- the decoders (sans-IO) ------------------------------------------------------------------


@pytest.mark.parametrize("coding", CODINGS)
@pytest.mark.parametrize("size", [None, 1, 4096], ids=["whole", "bytewise", "4k"])
def test_each_coding_decodes_whatever_the_chunking(coding: str, size: int | None) -> None:
    data = encode(DOCUMENT, coding)
    pieces = [data] if size is None else bytewise(data) if size == 1 else sized(data, size)
    dec = decoder(header(coding))
    assert decode(dec, pieces) == DOCUMENT
    assert dec.complete


@pytest.mark.parametrize("content_encoding", ["gzip, br", "deflate, zstd", "br, gzip, zstd"])
def test_stacked_codings_are_undone_last_first(content_encoding: str) -> None:
    dec = decoder(content_encoding)
    assert dec.name == content_encoding
    data = stacked(DOCUMENT, content_encoding)
    assert decode(dec, sized(data, 1000)) == DOCUMENT
    assert dec.complete


@pytest.mark.parametrize("coding", ["gzip", "zstd"])
def test_members_and_frames_one_after_another(coding: str) -> None:
    """``cat a.gz b.gz`` and ``cat a.zst b.zst`` are one stream each."""
    half = len(DOCUMENT) // 2
    data = encode(DOCUMENT[:half], coding) + encode(DOCUMENT[half:], coding)
    dec = decoder(coding)
    assert decode(dec, sized(data, 999)) == DOCUMENT
    assert dec.complete


@pytest.mark.parametrize("coding", ["gzip", "deflate", "br", "zstd"])
def test_a_bomb_comes_out_a_bounded_step_at_a_time(coding: str) -> None:
    """256 MiB of spaces: every piece is at most STEP, and the caller can stop at any one."""
    dec = decoder(coding)
    out = 0
    for chunk in bomb_stream(b"<urlset>", b" ", 256 << 20, coding=coding):
        for piece in dec.feed(chunk):
            assert len(piece) <= STEP
            out += len(piece)
        if out > 64 << 20:
            break
    assert out > 64 << 20
    assert not dec.complete


@pytest.mark.parametrize("coding", CODINGS)
def test_a_cut_stream_is_not_complete(coding: str) -> None:
    data = encode(DOCUMENT, coding)
    dec = decoder(header(coding))
    out = decode(dec, [data[: len(data) // 2]])
    assert DOCUMENT.startswith(out)
    assert not dec.complete


@pytest.mark.parametrize("coding", ["gzip", "deflate"])
def test_a_wrong_check_value_raises_after_the_whole_output(coding: str) -> None:
    data = bytearray(encode(DOCUMENT, coding))
    data[-8 if coding == "gzip" else -4] ^= 0xFF  # the CRC-32 / Adler-32 at the end
    dec = decoder(coding)
    out: list[bytes] = []
    with pytest.raises(CodingError, match="incorrect data check") as caught:
        out.extend(dec.feed(bytes(data)))
    assert caught.value.coding == coding
    assert b"".join(out) == DOCUMENT


@pytest.mark.parametrize("coding", ["br", "zstd"])
def test_a_fault_keeps_what_decoded_before_it(coding: str) -> None:
    """Fed in one piece, a stream damaged after its first half raises after handing on that
    half, less at most the block (128 KiB) decoded in the same slice as the fault."""
    dec = decoder(coding)
    out: list[bytes] = []
    with pytest.raises(CodingError) as caught:
        out.extend(dec.feed(damaged_midway(DOCUMENT, coding)))
    assert caught.value.coding == coding
    kept = b"".join(out)
    assert DOCUMENT.startswith(kept)
    assert len(DOCUMENT) // 2 - 131_072 < len(kept) <= len(DOCUMENT) // 2


@pytest.mark.parametrize(
    ("content_encoding", "says"),
    [
        ("compress", "'compress', which this reader does not decode"),
        ("gzip, x-custom", "'x-custom', which this reader does not decode"),
        ("gzip, gzip, gzip, gzip", "stacks 4 codings"),
    ],
)
def test_codings_that_cannot_be_undone(content_encoding: str, says: str) -> None:
    with pytest.raises(ContentEncodingError, match=says):
        decoder_for(content_encoding)


def test_no_coding_identity_and_aliases() -> None:
    assert decoder_for("") is None
    assert decoder_for(" identity ") is None
    assert decoder(" X-GZIP ").name == "gzip"
    assert decoder("identity, Br").name == "br"
    assert accept_encoding() == "gzip, deflate, br, zstd"  # the test extra installs both


# -- over HTTP -------------------------------------------------------------------------------


def coded(
    data: bytes, content_encoding: str, *, piece: int = 1000
) -> tuple[Handler, list[str | None]]:
    """``data`` sent as it is, ``piece`` bytes a write, labelled ``Content-Encoding``; and
    the ``Accept-Encoding`` of each request it answered."""
    asked: list[str | None] = []

    async def handle(request: web.Request) -> web.StreamResponse:
        asked.append(request.headers.get("Accept-Encoding"))
        response = web.StreamResponse(
            headers={"Content-Type": "application/xml", "Content-Encoding": content_encoding}
        )
        response.content_length = len(data)
        await response.prepare(request)
        for at in range(0, len(data), piece):
            await response.write(data[at : at + piece])
        return response

    return handle, asked


def plain_entries(entries: list[Entry]) -> list[Entry]:
    return [dataclasses.replace(e, sitemap="") for e in entries]


def document(s: Served) -> str:
    return urlset(
        *(
            {"loc": s.a(f"/page/{i}"), "lastmod": f"2024-05-{i % 28 + 1:02d}", "priority": "0.5"}
            for i in range(3000)
        )
    )


@pytest.mark.parametrize(
    "coding", [*CODINGS, "gzip, br", "deflate, zstd"], ids=lambda c: c.replace(", ", "+")
)
async def test_each_coding_is_read_as_the_plain_document(
    aiohttp_server: AiohttpServer, coding: str
) -> None:
    """The same urlset served plain and in ``coding``: the same entries, no problem, one
    request, and the request asked for every coding this machine decodes."""
    s = await serve(aiohttp_server)
    body = document(s).encode()
    handler, asked = coded(stacked(body, coding), ", ".join(map(header, coding.split(", "))))
    s.add("/plain.xml", xml(body))
    s.add("/coded.xml", handler)

    plain = await walk(s.a("/plain.xml"))
    run = await walk(s.a("/coded.xml"))

    assert len(plain.entries) == 3000
    assert plain_entries(run.entries) == plain_entries(plain.entries)
    assert run.problems == []
    assert run.report(s.a("/coded.xml")).status is Status.OK
    assert asked == ["gzip, deflate, br, zstd"]


@pytest.mark.parametrize(
    ("content_encoding", "says"),
    [
        ("compress", "'compress', which this reader does not decode"),
        ("x-snappy", "'x-snappy', which this reader does not decode"),
        ("gzip, gzip, gzip, gzip", "stacks 4 codings"),
    ],
)
async def test_a_coding_that_cannot_be_undone_is_final(
    aiohttp_server: AiohttpServer, content_encoding: str, says: str
) -> None:
    """A coding not known here fails its document at once, naming the coding and the URL,
    without a retry; the sitemap beside it is read."""
    s = await serve(aiohttp_server)
    s.add("/odd.xml", coded(b"whatever the bytes", content_encoding)[0])
    s.add("/fine.xml", xml(urlset(s.a("/page/1"))))

    run = await walk(s.a("/odd.xml"), s.a("/fine.xml"))

    problem = run.problem("content-encoding")
    assert problem.fatal and problem.url == s.a("/odd.xml")
    assert says in problem.message
    assert run.report(s.a("/odd.xml")).status is Status.FAILED
    assert s.count("/odd.xml") == 1  # not retried
    assert run.locs == [s.a("/page/1")]


async def test_a_corrupt_stream_is_a_network_fault_naming_its_coding(
    aiohttp_server: AiohttpServer,
) -> None:
    """A zstd stream damaged midway: the entries before the damage are kept, and the problem
    says which coding was corrupt."""
    s = await serve(aiohttp_server)
    s.add("/sitemap.xml", coded(damaged_midway(document(s).encode(), "zstd"), "zstd")[0])

    run = await walk(s.a("/sitemap.xml"))

    problem = run.problems[-1]
    assert problem.fatal and problem.kind == "network"
    assert "the zstd Content-Encoding stream is corrupt" in problem.message
    assert 0 < len(run.locs) < 3000
    assert run.locs == [s.a(f"/page/{i}") for i in range(len(run.locs))]


# A machine without Brotli: the import of brotli fails in a fresh interpreter, as it would
# where the package is not installed, and the command line reads a br body from the server.
_WITHOUT_BROTLI = (
    "import sys; sys.modules['brotli'] = None; "
    "from sitemap_reader._cli import main; sys.exit(main(sys.argv[1:]))"
)


async def test_a_coding_whose_library_is_missing(aiohttp_server: AiohttpServer) -> None:
    """Without Brotli, br is not asked for, and a br body sent anyway fails its document
    once (no retry) with a problem naming the coding, the module it needs and the URL."""
    s = await serve(aiohttp_server)
    handler, asked = coded(encode(urlset(s.a("/page/1")).encode(), "br"), "br")
    s.add("/sitemap.xml", handler)

    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        _WITHOUT_BROTLI,
        "dump",
        s.a("/sitemap.xml"),
        "--allow-private",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    stdout, stderr = await asyncio.wait_for(process.communicate(), 60)

    assert process.returncode == 1, stderr
    assert stdout == b""
    message = stderr.decode()
    assert s.a("/sitemap.xml") in message
    assert "Content-Encoding is 'br', which needs the module brotli" in message
    assert "[content-encoding]" in message
    assert s.count("/sitemap.xml") == 1
    assert asked == ["gzip, deflate, zstd"]
