"""gzip inflated by Python's zlib (the pure core's ``Gunzip``) and by the compiled core's
``Inflater`` (``_codings.Inflating``, src/inflate.rs), alone and in a whole ``dump``.

    python benchmarks/bench_inflate.py [--urls N] [--children C] [--repeat R]

In process: each inflater as the parser and the fetcher use it (``_codings.gunzip()`` and
the class the pure core picks), fed the file in 64 KiB chunks and its pieces (at most
``STEP`` bytes) taken and dropped, on ``bench_parse.py``'s gzipped 50,000-URL urlsets
(``plain.gz``, ``mixed.gz``) and on the gzipped children of ``bench_site.py``'s
1,000,000-URL site (mixed shape, ``C`` children of 1,000,000 / C URLs, made here as that
benchmark makes them). Beside them, ``zlib.decompressobj`` alone in the same loop: the
floor of a Python inflater. MB/s of inflated bytes, best of R; every reader's output is
checked against ``gzip.decompress``. Then a gzip bomb, 1 GiB of zeros, inflated whole by each
core in a fresh process: its time and its peak RSS over the RSS before it.

Whole process: ``sitemap-reader dump FILE.gz --format txt`` on the compiled core, once as it
ships (the Rust inflater) and once with Python's zlib in its place (``compiled_inflater``
answering None in the child), taking turns, best of R, peak RSS from ``os.wait4``.
"""

from __future__ import annotations

import argparse
import gzip
import os
import platform
import subprocess
import sys
import time
import zlib
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from _bytecode import compile_package
from _generate import DEFAULT_URLS, SHAPES, gzipped
from bench_parse import _git_state, make_docs
from bench_process import Timed, measure, print_rows

HERE = Path(__file__).resolve().parent
CHUNK = 65_536  # what the parser and the fetcher are fed at a time
SITE_URLS = 1_000_000

# The command line with Python's zlib in place of the Rust inflater (the rest compiled).
_WITH_ZLIB = (
    "import sys; from sitemap_reader._core import _codings; "
    "_codings.compiled_inflater = lambda: None; "
    "from sitemap_reader._cli import entrypoint; sys.argv[0] = 'sitemap-reader'; entrypoint()"
)


def chunks(data: bytes) -> list[bytes]:
    return [data[at : at + CHUNK] for at in range(0, len(data), CHUNK)]


def zlib_alone(pieces: Sequence[bytes], step: int) -> Iterator[bytes]:
    """``zlib.decompressobj`` in a bounded loop, one member: no copy of its state, no
    salvage, no member after member (the files here have one)."""
    dec = zlib.decompressobj(wbits=31)
    for piece in pieces:
        buf = piece
        while buf:
            out = dec.decompress(buf, step)
            if out:
                yield out
            buf = dec.unconsumed_tail


def readers() -> dict[str, Callable[[Sequence[bytes]], Iterator[bytes]]]:
    from sitemap_reader._core import _codings

    new = _codings.compiled_inflater()
    if new is None:
        raise SystemExit("the compiled core is not in use: build it (pip install -e .)")

    def feed(decoder: _codings.Decoder, pieces: Sequence[bytes]) -> Iterator[bytes]:
        for piece in pieces:
            yield from decoder.feed(piece)
        assert decoder.complete

    return {
        "zlib.decompressobj alone": lambda p: zlib_alone(p, _codings.STEP),
        "Gunzip (Python's zlib, pure core)": lambda p: feed(_codings.Gunzip(), p),
        "Inflating (Rust, compiled core)": lambda p: feed(_codings.Inflating("gzip", new), p),
    }


def inflate_rates(name: str, files: Sequence[bytes], repeat: int) -> None:
    """MB/s of inflated bytes of each reader over ``files``, best of ``repeat`` rounds in
    which the readers take turns (a busy spell slows all of them)."""
    expected = sum(len(gzip.decompress(data)) for data in files)
    split = [chunks(data) for data in files]
    packed = sum(map(len, files)) / 1e6
    print(
        f"\n{name}: {len(files)} file(s), {packed:.1f} MB gzipped, {expected / 1e6:.1f} MB inflated"
    )
    print(f"  {'inflater':<36} {'best s':>7} {'MB/s':>7} {'x zlib':>7}")
    best = dict.fromkeys(readers(), float("inf"))
    for _ in range(repeat):
        for label, read in readers().items():
            started = time.perf_counter()
            out = sum(len(piece) for pieces in split for piece in read(pieces))
            best[label] = min(best[label], time.perf_counter() - started)
            if out != expected:
                raise SystemExit(f"{label}: {out:,} bytes, not {expected:,}")
    base = next(iter(best.values()))
    for label, seconds in best.items():
        rate = expected / 1e6 / seconds
        print(f"  {label:<36} {seconds:7.3f} {rate:7.0f} {base / seconds:6.2f}x")


# A gzip bomb (1 GiB of zeros) inflated whole by one core's gunzip() in a fresh process: the
# seconds, and the peak RSS (VmHWM, reset first) over the RSS before it.
_BOMB = """
import sys, time
sys.path.insert(0, sys.argv[1])
from sitemap_reader._core._codings import gunzip
from tests.support.helpers import bomb_stream

def kib(field):
    with open("/proc/self/status") as status:
        return int(next(line.split()[1] for line in status if line.startswith(field)))

chunks = list(bomb_stream(b"", b"\\0", 1 << 30))
decoder = gunzip()
before = kib("VmRSS:")
with open("/proc/self/clear_refs", "w") as clear:
    clear.write("5")
started = time.perf_counter()
out = sum(len(piece) for chunk in chunks for piece in decoder.feed(chunk))
print(type(decoder).__name__, out, time.perf_counter() - started, kib("VmHWM:") - before)
"""


def bomb_run(pure: str) -> tuple[str, int, float, int]:
    """The bomb on the pure core (``pure`` "1") or the compiled one (""): the decoder's class,
    the bytes inflated, the seconds and the peak RSS's rise in KiB."""
    from sitemap_reader._core._pure import PURE_ENV

    env = {**os.environ, PURE_ENV: pure}
    argv = [sys.executable, "-c", _BOMB, str(HERE.parent)]
    run = subprocess.run(argv, capture_output=True, env=env, check=True, timeout=600)
    name, out, seconds, grew = run.stdout.decode().split()
    return name, int(out), float(seconds), int(grew)


def bomb(pure: str) -> None:
    name, out, seconds, grew = bomb_run(pure)
    print(
        f"  {name:<12} {out:>13,} bytes in {seconds:6.2f} s, peak RSS over the start {grew:,} KiB"
    )


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--urls", type=int, default=DEFAULT_URLS, help="URLs per urlset")
    ap.add_argument("--children", type=int, default=20, help="children of the 1M-URL site")
    ap.add_argument("--repeat", type=int, default=5, help="timed runs, best kept")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if min(args.repeat, args.urls, args.children) < 1:
        ap.error("--repeat, --urls and --children must be at least 1")

    compile_package()
    started = time.perf_counter()
    print(
        f"gzip inflated: Python's zlib and the compiled core's\nPython {platform.python_version()}, "
        f"zlib {zlib.ZLIB_RUNTIME_VERSION}, {platform.machine()}, {os.cpu_count()} CPUs, "
        f"load {os.getloadavg()[0]:.1f}; commit {_git_state()}; best of {args.repeat}"
    )
    # The whole process first: a child's peak RSS (ru_maxrss) starts from this process's at
    # the fork, so nothing is held here yet (make_docs writes the files from a child).
    docs = make_docs(args.urls, args.seed, ["plain.gz", "mixed.gz"])
    python = sys.executable
    for doc in docs:
        command = ["dump", str(doc.path), "--format", "txt"]
        rust = Timed("dump, Rust inflater (as shipped)", [python, "-m", "sitemap_reader", *command])
        own = Timed("dump, Python's zlib in its place", [python, "-c", _WITH_ZLIB, *command])
        measure([own, rust], args.repeat, count=True)
        print_rows(f"whole process, {doc.name}: dump --format txt", [own, rust], own)
        if rust.lines != own.lines:
            print(f"  ! the two wrote {rust.lines} and {own.lines} lines")

    for doc in docs:
        inflate_rates(f"{doc.name} ({doc.urls:,} URLs)", [doc.path.read_bytes()], args.repeat)
    per_child = SITE_URLS // args.children
    base = "http://127.0.0.1:8080"  # (the site's pages; nothing is fetched here)
    site = [
        gzipped(SHAPES["mixed"](per_child, seed=i, base_url=f"{base}/c{i}"))
        for i in range(args.children)
    ]
    inflate_rates(f"the {SITE_URLS:,}-URL site's children (mixed)", site, args.repeat)
    del site

    print("\na gzip bomb, 1 GiB of zeros (1.06 MB gzipped), inflated whole, in a fresh process:")
    bomb("1")
    bomb("")

    print(
        "\nWhole process: x floor is over the run with Python's zlib (below 1: the run with\n"
        "the Rust inflater is faster). MB/s: inflated bytes over the best time; x zlib:\n"
        "zlib.decompressobj alone's best over the reader's (above 1: faster)."
    )
    print(f"\n({time.perf_counter() - started:.0f} s in all, load {os.getloadavg()[0]:.1f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
