"""Corpus benchmark: every file of the real-world corpus, sitemap-reader beside lxml loc-only.

    python benchmarks/bench_corpus.py [--repeat R] [--chunk BYTES] [--json FILE]

The corpus directory is ``../shared/corpus`` next to the repository (as the tests find it), or
``$SITEMAP_READER_CORPUS``. Every file is read into memory first; each reader then parses
all of them, best of R passes, in this one process (both readers alike):

* ``sitemap-reader``: a ``SitemapParser`` fed 64 KiB chunks of the file's bytes as they
  would arrive (it sniffs gzip, feeds, text and robots itself), counting entries;
* ``lxml``: ``iterparse`` over ``<url>`` and ``<sitemap>`` in any namespace, reading
  ``<loc>`` and clearing as it goes, after one gunzip: no checks, no records.

lxml reads XML only, and stops at the first well-formedness error. So the ratio is taken
over the files both read to the end with the same count of URLs (the ``compared`` line);
the files only sitemap-reader reads (text sitemaps, robots.txt, broken and recovered XML,
feeds) are timed on their own line. URLs/s is each reader's URLs over its time.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = Path(os.environ.get("SITEMAP_READER_CORPUS") or HERE.parents[1] / "shared" / "corpus")
CHUNK = 65_536


@dataclass(frozen=True)
class File:
    name: str  # relative to the corpus
    data: bytes


def corpus_files(root: Path) -> list[File]:
    """Every file under ``root`` but its MANIFEST.tsv and README.md, sorted by name."""
    skip = {"MANIFEST.tsv", "README.md"}
    return [
        File(str(path.relative_to(root)), path.read_bytes())
        for path in sorted(root.rglob("*"))
        if path.is_file() and path.name not in skip
    ]


def sitemap_reader_count(file: File, chunk: int = CHUNK) -> int:
    """Entries sitemap-reader finds in ``file`` (index children count too: they are URLs
    lxml's loc-only read counts)."""
    from sitemap_reader import Entry, SitemapParser, SitemapRef

    parser = SitemapParser("https://corpus.invalid/" + file.name)
    data = file.data
    n = 0
    for start in range(0, len(data), chunk):
        for event in parser.feed(data[start : start + chunk]):
            if type(event) is Entry or type(event) is SitemapRef:
                n += 1
    for event in parser.close():
        if type(event) is Entry or type(event) is SitemapRef:
            n += 1
    return n


def handovers() -> tuple[int, int]:
    """Blocks the compiled scanner handed to expat so far, and documents whose rest it left
    to expat alone; (0, 0) on the pure core, which has no scanner."""
    from sitemap_reader._core._xml import _core_choice

    if not _core_choice.COMPILED:
        return (0, 0)
    from sitemap_reader import _native

    return _native.handovers()


def lxml_count(file: File) -> int | None:
    """``<loc>``s of ``<url>``/``<sitemap>`` elements lxml finds; None if it cannot read it."""
    from lxml import etree

    data = file.data
    try:
        if data[:2] == b"\x1f\x8b":
            data = gzip.decompress(data)
        n = 0
        for _, element in etree.iterparse(
            io.BytesIO(data), events=("end",), tag=("{*}url", "{*}sitemap")
        ):
            if element.findtext("{*}loc"):
                n += 1
            element.clear(keep_tail=True)
        return n
    except (etree.XMLSyntaxError, OSError, EOFError):
        return None


def best_of(
    repeat: int, run: Callable[[], object], clock: Callable[[], float] = time.perf_counter
) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = clock()
        run()
        best = min(best, clock() - start)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--chunk", type=int, default=CHUNK)
    parser.add_argument("--json", metavar="FILE", help="also write the results here")
    args = parser.parse_args()
    if not (CORPUS / "MANIFEST.tsv").is_file():
        print(f"no corpus at {CORPUS} (set SITEMAP_READER_CORPUS)", file=sys.stderr)
        return 2
    files = corpus_files(CORPUS)
    ours: dict[str, int] = {}
    handed: dict[str, tuple[int, int]] = {}  # file -> blocks handed to expat, rest left
    for f in files:
        before = handovers()
        ours[f.name] = sitemap_reader_count(f, args.chunk)
        after = handovers()
        handed[f.name] = (after[0] - before[0], after[1] - before[1])
    floor = {f.name: lxml_count(f) for f in files}
    both = [f for f in files if floor[f.name] is not None and floor[f.name] == ours[f.name]]
    only = [f for f in files if f not in both]

    def read_all(chosen: list[File], reader: Callable[[File], object]) -> Callable[[], object]:
        return lambda: [reader(f) for f in chosen]

    ours_s = best_of(args.repeat, read_all(both, lambda f: sitemap_reader_count(f, args.chunk)))
    floor_s = best_of(args.repeat, read_all(both, lxml_count))
    only_s = best_of(args.repeat, read_all(only, lambda f: sitemap_reader_count(f, args.chunk)))
    urls = sum(ours[f.name] for f in both)
    mib = sum(len(f.data) for f in both) / 2**20
    print(f"corpus: {CORPUS.name}, {len(files)} files; compared: {len(both)} files, {mib:.1f} MiB")
    rows = [
        ("sitemap-reader", ours_s, urls),
        ("lxml loc-only", floor_s, urls),
        ("sitemap-reader, the rest", only_s, sum(ours[f.name] for f in only)),
    ]
    for label, seconds, count in rows:
        print(
            f"{label:26} {seconds * 1000:9.1f} ms {count:>9,} URLs {count / seconds:>12,.0f} URLs/s"
        )
    print(f"sitemap-reader / lxml loc-only over the compared files: {ours_s / floor_s:.2f}x")
    for f in only:
        print(f"  not compared: {f.name} (sitemap-reader {ours[f.name]}, lxml {floor[f.name]})")
    blocks = sum(b for b, _ in handed.values())
    stops = sum(s for _, s in handed.values())
    print(
        f"handed to expat by the compiled scanner: {blocks:,} blocks in "
        f"{sum(b > 0 for b, _ in handed.values())} files; the rest of {stops} documents"
    )
    for name, (b, s) in handed.items():
        if b or s:
            print(f"  {name}: {b:,} blocks" + (", then the rest" if s else ""))
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "files": len(files),
                    "compared": len(both),
                    "urls": urls,
                    "sitemap_reader_s": ours_s,
                    "lxml_s": floor_s,
                    "ratio": ours_s / floor_s,
                    "rest_s": only_s,
                    "handed_blocks": blocks,
                    "handed_rest": stops,
                },
                indent=2,
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
