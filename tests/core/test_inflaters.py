"""The two inflaters of gzip and deflate held to each other: the compiled core's
(``_native.Inflater``, src/inflate.rs, behind ``_codings.Inflating``) and Python's zlib
(``_codings.Gunzip`` / ``Inflate``, the pure core's).

Hypothesis builds streams (random and sitemap-like payloads; gzip of one or several members,
maybe followed by zero padding or junk; zlib-wrapped and raw deflate), damages some (cut,
bytes flipped, junk appended) and splits them at random points: both must give the same bytes
joined (before a fault, the pure core's may be a prefix: see ``both``), the same fault in the
same words (or none) and the same ``complete``, in pieces of at most ``STEP`` (also made small,
so that pieces fill it often); the compiled core's outcome is the same as fed whole. A gzip
bomb of 1 GiB of zeros, inflated whole, costs each core a bounded peak, and the compiled
core inflates with the GIL released.
"""

from __future__ import annotations

import sys
import threading
import zlib
from collections.abc import Sequence
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sitemap_reader._base._errors import CodingError
from sitemap_reader._core import _codings
from sitemap_reader._core._codings import STEP, Decoder, Gunzip, Inflate, Inflating
from tests.support.helpers import bomb_stream, cut_at

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from bench_inflate import bomb_run  # found through the path set above

NEW = _codings.compiled_inflater()
pytestmark = pytest.mark.skipif(NEW is None, reason="the compiled core is not in use")


def python(coding: str) -> Decoder:
    return Gunzip() if coding == "gzip" else Inflate()


def rust(coding: str) -> Decoder:
    assert NEW is not None
    return Inflating(coding, NEW)


Outcome = tuple[bytes, str | None, bool]


def run(decoder: Decoder, chunks: Sequence[bytes]) -> Outcome:
    """What ``decoder`` gives for ``chunks``: the bytes joined, the fault, ``complete``."""
    out: list[bytes] = []
    fault = None
    try:
        for chunk in chunks:
            for piece in decoder.feed(chunk):
                assert 0 < len(piece) <= STEP
                out.append(piece)
    except CodingError as exc:
        assert exc.coding == decoder.name
        fault = str(exc)
    return b"".join(out), fault, decoder.complete


def both(coding: str, chunks: Sequence[bytes]) -> Outcome:
    """The compiled core's outcome, held to the pure core's: the same fault and the same
    ``complete``, and the same bytes, but that before a fault the pure core may hand on a
    prefix of them: CPython's zlib drops all that a failing call decoded, and replaying the
    call a byte at a time (``_codings._salvage``) cannot get back what the failing byte
    completed; the compiled core keeps everything decoded before the fault."""
    compiled, pure = run(rust(coding), chunks), run(python(coding), chunks)
    assert compiled[1:] == pure[1:]
    if compiled[1] is None:
        assert compiled[0] == pure[0]
    else:
        assert compiled[0].startswith(pure[0])
    return compiled


def compress(data: bytes, wbits: int, level: int) -> bytes:
    c = zlib.compressobj(level, zlib.DEFLATED, wbits)
    return c.compress(data) + c.flush()


SITEMAPISH = st.lists(st.integers(0, 10**6), max_size=400).map(
    lambda ns: b"".join(b"<url><loc>https://example.com/%d</loc></url>\n" % n for n in ns)
)
PAYLOADS = st.one_of(st.binary(max_size=3000), SITEMAPISH)


@st.composite
def streams(draw: st.DrawFn) -> tuple[str, bytes]:
    """A coding and a stream in it, well formed or damaged."""
    level = draw(st.sampled_from([0, 1, 6, 9]))
    wrapping = draw(st.sampled_from(["gzip", "zlib", "raw"]))
    if wrapping == "gzip":
        members = draw(st.lists(PAYLOADS, min_size=1, max_size=3))
        stream = b"".join(compress(m, 31, level) for m in members)
        stream += draw(st.sampled_from([b"", b"\0" * 7, b"\x1f", b"\x1f\x8b", b"junk"]))
    else:
        stream = compress(draw(PAYLOADS), 15 if wrapping == "zlib" else -15, level)
    damage = draw(st.sampled_from(["none", "cut", "flip", "append"]))
    if damage == "cut":
        stream = stream[: draw(st.integers(0, len(stream)))]
    elif damage == "flip" and stream:
        data = bytearray(stream)
        for _ in range(draw(st.integers(1, 3))):
            at = draw(st.integers(0, len(data) - 1))
            data[at] ^= draw(st.integers(1, 255))
        stream = bytes(data)
    elif damage == "append":
        stream += draw(st.binary(min_size=1, max_size=20))
    return ("gzip" if wrapping == "gzip" else "deflate"), stream


@given(
    streams(),
    st.lists(st.integers(0, 100_000), max_size=8),
    st.sampled_from([1, 7, 64, STEP]),
)
def test_both_inflaters_agree_on_any_stream_in_any_split(
    case: tuple[str, bytes], cuts: list[int], step: int
) -> None:
    """And the split does not change the outcome, whatever the step."""
    coding, stream = case
    with mock.patch.object(_codings, "STEP", step):
        assert both(coding, cut_at(stream, cuts)) == both(coding, [stream])


@pytest.mark.parametrize("wrapping", ["gzip", "zlib", "raw"])
def test_both_inflaters_agree_on_a_stream_cut_at_every_byte(wrapping: str) -> None:
    """Each prefix of a stream, fed whole and in two halves: the bytes inflated so far, no
    fault, not complete (but the whole stream)."""
    data = b"".join(b"<url><loc>https://example.com/%d</loc></url>\n" % i for i in range(40))
    coding = "gzip" if wrapping == "gzip" else "deflate"
    stream = compress(data, {"gzip": 31, "zlib": 15, "raw": -15}[wrapping], 6)
    for cut in range(len(stream) + 1):
        prefix = stream[:cut]
        out, fault, complete = both(coding, [prefix])
        assert both(coding, cut_at(prefix, [cut // 2])) == (out, fault, complete)
        assert data.startswith(out) and fault is None
        assert complete == (cut == len(stream))


@pytest.mark.parametrize(
    ("coding", "stream", "fault"),
    [
        ("gzip", b"<urlset>", "incorrect header check"),
        ("gzip", b"\x1f\x8b\x07" + bytes(20), "unknown compression method"),
        ("gzip", b"\x1f\x8b\x08\xe0" + bytes(20), "unknown header flags set"),
        ("deflate", b"\x78\x9c\xff\xff", "invalid block type"),
        ("deflate", b"\x07\xff", "invalid block type"),  # raw: no zlib header
        ("deflate", b"\x78\xbb" + bytes(8), "Error 2 while decompressing data"),  # FDICT
    ],
)
def test_faults_in_the_same_words(coding: str, stream: bytes, fault: str) -> None:
    out, said, complete = both(coding, [stream])
    assert out == b"" and not complete
    assert said is not None and said.endswith(fault)


def test_what_decoded_before_a_fault_comes_out_first() -> None:
    """A second member whose deflate data is damaged: the first member whole, then the part
    of the second before the damage, then the fault, in any split."""
    first = b"<url><loc>https://example.com/a</loc></url>\n" * 2000
    second = bytearray(compress(first, 31, 6))
    second[len(second) // 2] ^= 0xFF
    stream = compress(first, 31, 6) + bytes(second)
    whole = both("gzip", [stream])
    assert whole[0].startswith(first) and len(whole[0]) > len(first)
    assert whole[1] is not None and not whole[2]
    for size in (1, 100, 4096):
        assert both("gzip", [stream[i : i + size] for i in range(0, len(stream), size)]) == whole


def test_before_a_fault_the_pure_core_may_hand_on_less(monkeypatch: pytest.MonkeyPatch) -> None:
    """The one difference ``both`` allows, in a raw fixed-Huffman block found by hypothesis:
    with a step of one byte, the literal 0x12 waits in zlib's state when a piece fills the
    step, and the call that writes it goes on to the invalid code after it. CPython's zlib
    drops that call's output; the compiled core hands the literal on. The same fault
    follows on both."""
    monkeypatch.setattr(_codings, "STEP", 1)
    stream = b"c``d``b``ddd`f```e``a``fdf\xe3\xe0\xe6\x13\x1aS\x02\x00"
    compiled, fault, complete = both("deflate", [stream])
    pure = run(python("deflate"), [stream])[0]
    assert compiled == pure + b"\x12"
    assert fault is not None and fault.endswith("invalid literal/length code") and not complete
    assert run(rust("deflate"), [stream[i : i + 1] for i in range(len(stream))])[0] == compiled


@pytest.mark.parametrize("pure", ["", "1"], ids=["rust", "python"])
def test_a_gzip_bomb_costs_each_core_a_bounded_peak(pure: str) -> None:
    """1 GiB of zeros inflated whole in a fresh process (``benchmarks/bench_inflate.py``'s
    run): all of it, by the core asked for, for a peak RSS (VmHWM) that rose by less than
    8 MiB. (Not tracemalloc: it sees Python's allocations only, not the compiled core's.)"""
    name, out, _, grew_kib = bomb_run(pure)
    assert name == ("Gunzip" if pure else "Inflating")
    assert out == 1 << 30
    assert grew_kib < 8 * 1024, f"{name}: the peak grew {grew_kib} KiB"


@pytest.mark.parametrize("step", [1, 5, 64])
@pytest.mark.parametrize("wrapping", ["gzip", "zlib", "raw"])
def test_output_held_in_zlib_comes_out_whatever_the_split(
    wrapping: str, step: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A piece that fills the step may leave output in zlib's state after the input is used
    (the rest of a match): it comes out before the feed ends, so a cut stream gives the same
    bytes fed whole or byte by byte, on both cores (found by the inflate_split fuzz target)."""
    monkeypatch.setattr(_codings, "STEP", step)
    data = b"".join(b"<url><loc>https://example.com/%d</loc></url>\n" % (i % 7) for i in range(60))
    coding = "gzip" if wrapping == "gzip" else "deflate"
    stream = compress(data, {"gzip": 31, "zlib": 15, "raw": -15}[wrapping], 9)
    for cut in range(len(stream) + 1):
        whole = both(coding, [stream[:cut]])
        assert both(coding, [stream[i : i + 1] for i in range(cut)]) == whole, cut


def test_the_compiled_inflater_releases_the_gil() -> None:
    """A Python thread runs while the compiled core inflates: each pull runs detached from the
    interpreter, so a parse thread inflating leaves the GIL to the event loop. With the
    switch interval made huge, the GIL changes hands only when its holder lets it go
    (``tests/io/test_parse_threads.py`` shows the check telling a held GIL)."""
    assert NEW is not None
    inflater = NEW("gzip", step=STEP)
    inflater.push(b"".join(bomb_stream(b"", b"\0", 64 << 20)))
    ran: list[bool] = []
    inflating = [True]
    go = threading.Event()

    def watch() -> None:
        go.wait(timeout=60)
        ran.append(inflating[0])

    before = sys.getswitchinterval()
    sys.setswitchinterval(1_000.0)
    try:
        watcher = threading.Thread(target=watch, name="gil-watcher")
        watcher.start()
        go.set()  # it wants the GIL from here; only a release before the join gives it
        pieces = 0
        while inflater.pull() is not None:
            pieces += 1
        inflating[0] = False
        watcher.join(timeout=60)
    finally:
        sys.setswitchinterval(before)
    assert pieces == (64 << 20) // STEP
    assert ran == [True]
