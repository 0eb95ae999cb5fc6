"""Parse benchmark: sitemap-reader beside the bare parsers and the reference readers.

    python benchmarks/bench_parse.py [--urls N] [--repeat R] [--full] [--json FILE]
    python benchmarks/bench_parse.py --profile plain   # where sitemap-reader's time goes

Generates (and caches in ``benchmarks/.data/``) a plain, a mixed and a CDATA sitemap of N URLs,
each also gzipped (see ``_generate.py``), then times the readers on each document, best of
R, every reader in fresh interpreters so that its peak memory is its own.

The floor is lxml's iterparse over ``<url>`` elements reading ``<loc>`` and clearing as it
goes; "x floor" is a reader's time over the floor's on the same document. Every reader is
handed the document as bytes in memory (the gzip file for ``.gz``) and must return its URLs;
the count is printed so that no reader is measured doing nothing. "lxml iterparse, every
field" is the same C parser made to hand Python every field sitemap-reader reads (alternates'
attributes, extensions' fields) as plain tuples, nothing checked and no record built: what a
full read costs before any of sitemap-reader's work. No network is used: the
reference readers read from memory or, advertools, from a local file.

sitemap-reader, the bare parsers and Scrapy get R runs, spread over ``--rounds`` children
that take turns with the other readers. The slower reference readers run in one child (the
first round) and stop short of R runs where another would take them past ``--budget``
seconds. By default the reference readers run on the uncompressed documents only (on a
``.gz`` they do the same work after one gunzip), and the traced run for tracemalloc (three
to five times a timed one) is made on ``plain`` for every reader and on ``exact`` for
sitemap-reader and the bare parsers only. ``--full`` runs both everywhere.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import os
import platform
import resource
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

# Only the constants: the parent process must stay small (see ``measure``).
from _generate import DEFAULT_BASE, DEFAULT_URLS, SITEMAP_NS

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = HERE / ".data"  # generated documents (git-ignored)
CHUNK = 65_536  # what the reader feeds the parser in production
SITEMAP_URL = DEFAULT_BASE + "/sitemap.xml"
SITEMAP_NS_TAG = "{" + SITEMAP_NS + "}"
CHILD_TIMEOUT = 900.0
COUNT_TOLERANCE = 0.01  # a reader 1% off the document's URL count did not read it all
DOCS = ("plain", "plain.gz", "mixed", "mixed.gz", "exact", "exact.gz")
EXTRA_DOCS = ("plain-xsl", "plain-xsl.gz")  # plain behind an <?xml-stylesheet?> line
# sitemap-reader/floor time, at most: issue 20 asks 0.5x of every shape of the compiled core
# (issue 13 had asked 1.25x of the Python one, issue 2 2.8x of the CDATA one, "exact")
AIMS = {"plain": 0.5, "mixed": 0.5, "exact": 0.5}

Runner = Callable[[], int | None]  # one parse; the URLs it returned (None: not counted)


@dataclass(frozen=True)
class Doc:
    name: str  # "plain", "plain.gz", ...
    path: Path
    gz: bool
    xml_bytes: int  # decompressed size
    file_bytes: int
    urls: int


@dataclass(frozen=True)
class Reader:
    key: str
    label: str
    reference: bool  # a third-party reader the aims compare against
    plain_only: bool = False  # the exact-path variant: shown on the uncompressed plain docs
    # R runs spread over the rounds; else one child, within the budget. For sitemap-reader,
    # the bare parsers and Scrapy, the one reference reader near sitemap-reader's speed.
    spread: bool = True


READERS = (
    Reader("sitemap-reader", "sitemap-reader (fast=True)", reference=False),
    # The fast path with the compiled core (when built) and with SITEMAP_READER_PURE=1.
    Reader("sitemap-reader-pure", "sitemap-reader (pure Python)", reference=False),
    Reader("sitemap-reader-exact", "sitemap-reader (fast=False)", False, plain_only=True),
    Reader("expat", "expat, no handlers", reference=False),
    Reader("lxml", "lxml iterparse loc (floor)", reference=False),
    Reader("lxml-all", "lxml iterparse, every field", reference=False),
    Reader("scrapy", "Scrapy Sitemap", reference=True),
    Reader("usp", "ultimate-sitemap-parser", reference=True, spread=False),
    Reader("advertools", "advertools sitemap_to_df", reference=True, spread=False),
    Reader("trafilatura", "trafilatura sitemaps", reference=True, spread=False),
)
FLOOR = "lxml"


@dataclass
class Result:
    doc: str
    reader: str
    label: str
    seconds: float | None = None  # best wall time of the timed runs
    cpu_seconds: float | None = None  # process CPU time of that run
    times: list[float] = field(default_factory=list)  # every timed run, all rounds
    cpu_times: list[float] = field(default_factory=list)
    counts: list[int] = field(default_factory=list)
    urls_read: int | None = None
    urls_per_s: float | None = None
    mb_per_s: float | None = None
    x_floor: float | None = None
    x_floor_cpu: float | None = None  # the same on CPU time: steadier on a busy machine
    rss_peak_mib: float | None = None  # the child's ru_maxrss after the timed runs
    rss_base_mib: float | None = None  # the same once imports were done and the input read
    hwm_mib: float | None = None  # VmHWM (Linux), a cross-check of ru_maxrss
    tracemalloc_peak_mib: float | None = None
    child_seconds: float | None = None  # the whole child: start-up, imports, traced run
    valid: bool = True  # the reader returned the document's URLs
    skipped: str | None = None
    note: str | None = None


# -- readers (built in the child, so their imports are neither timed nor shared) ---------


def _sitemap_reader(data: bytes, fast: bool, chunk: int, *, pure: bool = False) -> Runner:
    # The core is chosen at import: the variable must be set (or cleared) before it.
    if pure:
        os.environ["SITEMAP_READER_PURE"] = "1"
    else:
        os.environ.pop("SITEMAP_READER_PURE", None)
    from sitemap_reader import Entry, SitemapParser

    def run() -> int:
        # The parser sniffs gzip itself: it gets the file's bytes as they would arrive.
        parser = SitemapParser(SITEMAP_URL, fast=fast)
        n = 0
        for start in range(0, len(data), chunk):
            for event in parser.feed(data[start : start + chunk]):
                if isinstance(event, Entry):
                    n += 1
        for event in parser.close():
            if isinstance(event, Entry):
                n += 1
        if parser.fatal is not None:
            raise RuntimeError(str(parser.fatal))
        return n

    return run


def _expat(data: bytes, gz: bool, chunk: int) -> Runner:
    import pyexpat
    import zlib

    def run() -> None:
        # Namespace processing on, as sitemap-reader sets expat up; no handlers at all.
        parser = pyexpat.ParserCreate(namespace_separator=" ")
        inflate = zlib.decompressobj(wbits=31) if gz else None
        for start in range(0, len(data), chunk):
            piece = data[start : start + chunk]
            parser.Parse(piece if inflate is None else inflate.decompress(piece), False)
        parser.Parse(b"", True)

    return run


def _lxml(data: bytes, gz: bool) -> Runner:
    import gzip
    from io import BytesIO

    from lxml import etree

    url_tag, loc_tag = SITEMAP_NS_TAG + "url", SITEMAP_NS_TAG + "loc"

    def run() -> int:
        xml = gzip.decompress(data) if gz else data
        n = 0
        for _, element in etree.iterparse(BytesIO(xml), events=("end",), tag=url_tag):
            if element.findtext(loc_tag):
                n += 1
            # Clearing alone, without also deleting the emptied siblings, is the cheaper
            # variant: the floor is the fastest honest loc-only read.
            element.clear(keep_tail=True)
        return n

    return run


def _lxml_all(data: bytes, gz: bool) -> Runner:
    """What the floor costs when it must read every field sitemap-reader reads: lxml's C
    parser, then Python for each child of each ``<url>`` (its text, or an alternate's
    attributes, or an extension's fields), kept as plain tuples, nothing checked."""
    import gzip
    from io import BytesIO

    from lxml import etree

    url_tag = SITEMAP_NS_TAG + "url"
    link_tag = "{http://www.w3.org/1999/xhtml}link"

    def run() -> int:
        xml = gzip.decompress(data) if gz else data
        n = 0
        for _, element in etree.iterparse(BytesIO(xml), events=("end",), tag=url_tag):
            fields: dict[str, str | None] = {}
            alternates: list[tuple[str | None, ...]] = []
            extensions: list[tuple[str, dict[str, str | None]]] = []
            for child in element:
                tag = child.tag
                if not isinstance(tag, str):
                    continue  # a comment or processing instruction
                if tag == link_tag:
                    get = child.get
                    alternates.append((get("rel"), get("hreflang"), get("href"), get("media")))
                elif len(child):  # an extension's container: its fields at any depth
                    extensions.append((tag, {e.tag: e.text for e in child.iterdescendants()}))
                else:
                    fields[tag] = child.text
            if fields.get(SITEMAP_NS_TAG + "loc"):
                n += 1
            element.clear(keep_tail=True)
        return n

    return run


def _scrapy(data: bytes, gz: bool) -> Runner:
    from scrapy.utils.gz import gunzip
    from scrapy.utils.sitemap import Sitemap

    def run() -> int:
        body = gunzip(data) if gz else data  # what SitemapSpider does with a gzip body
        return sum(1 for entry in Sitemap(body) if entry.get("loc"))

    return run


def _usp(data: bytes, gz: bool) -> Runner:
    import gzip

    from usp.tree import sitemap_from_str

    def run() -> int:
        # usp's one in-memory entry point takes text; its fetcher gunzips and decodes first.
        xml = gzip.decompress(data) if gz else data
        sitemap = sitemap_from_str(xml.decode("utf-8"))
        return sum(1 for page in sitemap.all_pages() if page.url)

    return run


def _advertools(path: Path) -> Runner:
    import logging

    import advertools

    logging.getLogger().setLevel(logging.WARNING)  # it sets INFO on import

    def run() -> int:
        # sitemap_to_df reads only through urlopen: a file:// URL is local, no network.
        # It gunzips a name ending in .xml.gz itself.
        return len(advertools.sitemap_to_df(path.as_uri()))

    return run


def _trafilatura(data: bytes, gz: bool) -> Runner:
    import gzip

    from courlan import get_hostinfo  # trafilatura's own dependency
    from trafilatura.sitemaps import SitemapObject
    from trafilatura.utils import decode_file

    domain, base = get_hostinfo(SITEMAP_URL)
    assert domain is not None

    def run() -> int:
        # sitemap_search() with its fetch replaced by the bytes. The gunzip is done here:
        # trafilatura's own refuses output over MAX_FILE_SIZE (20 MB by default), as its
        # download refuses such a document; decode_file is what fetch_url then applies.
        sitemap = SitemapObject(base, domain, [])
        sitemap.current_url = SITEMAP_URL
        sitemap.content = decode_file(gzip.decompress(data) if gz else data)
        sitemap.process()
        return len(sitemap.urls)

    return run


def _build(key: str, path: Path, data: bytes, chunk: int) -> Runner:
    gz = path.suffix == ".gz"
    builders: dict[str, Callable[[], Runner]] = {
        "sitemap-reader": lambda: _sitemap_reader(data, True, chunk),
        "sitemap-reader-pure": lambda: _sitemap_reader(data, True, chunk, pure=True),
        "sitemap-reader-exact": lambda: _sitemap_reader(data, False, chunk),
        "expat": lambda: _expat(data, gz, chunk),
        "lxml": lambda: _lxml(data, gz),
        "lxml-all": lambda: _lxml_all(data, gz),
        "scrapy": lambda: _scrapy(data, gz),
        "usp": lambda: _usp(data, gz),
        "advertools": lambda: _advertools(path),
        "trafilatura": lambda: _trafilatura(data, gz),
    }
    return builders[key]()


# -- the child: one reader, one document -------------------------------------------------


def _maxrss_mib() -> float:
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss / (1 << 20) if sys.platform == "darwin" else rss / 1024  # bytes vs KiB


def _hwm_mib() -> float | None:
    # VmHWM belongs to this process image alone; ru_maxrss starts from the parent's RSS
    # at the fork (Linux keeps it across exec), so the two disagree if the parent is big.
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return None


def child(
    key: str, path: Path, repeat: int, budget: float, chunk: int, trace: bool
) -> dict[str, Any]:
    data = path.read_bytes()
    try:
        run = _build(key, path, data, chunk)
    except ImportError as exc:
        return {"skipped": f"not installed (no module {exc.name or exc!s})"}
    out: dict[str, Any] = {"rss_base_mib": _maxrss_mib(), "times": [], "cpu": [], "counts": []}
    # Another run only while the total, judged by the last run, stays within the budget.
    while len(out["times"]) < repeat and (
        not out["times"] or sum(out["times"]) + out["times"][-1] <= budget
    ):
        gc.collect()  # each run starts free of the previous one's garbage
        cpu, start = time.process_time(), time.perf_counter()
        count = run()
        out["times"].append(time.perf_counter() - start)
        out["cpu"].append(time.process_time() - cpu)
        out["counts"].append(count)
    # Read before the traced run: tracemalloc's own bookkeeping would inflate it.
    out["rss_peak_mib"] = _maxrss_mib()
    out["hwm_mib"] = _hwm_mib()
    if trace:
        gc.collect()
        tracemalloc.start()
        run()
        out["tracemalloc_peak_mib"] = tracemalloc.get_traced_memory()[1] / (1 << 20)
        tracemalloc.stop()
    return out


def profile(path: Path, chunk: int, top: int = 25) -> None:
    """Print where sitemap-reader's time goes on one document (one run, warmed up)."""
    import cProfile
    import pstats

    run = _sitemap_reader(path.read_bytes(), True, chunk)
    run()  # warm up: first-use costs (imports, regex compiles) are not the steady state
    profiler = cProfile.Profile()
    profiler.runcall(run)
    print(
        f"cProfile of sitemap-reader (fast=True) on {path.name}, {chunk:,}-byte chunks "
        f"({_git_state()}, sources {_source_tag(ROOT / 'sitemap_reader')}):"
    )
    pstats.Stats(profiler).sort_stats("tottime").print_stats(top)


def generate(urls: int, seed: int, name: str, path: Path) -> None:
    """Write one document (run in a child: the parent never holds one)."""
    import _generate

    if name.endswith(".gz"):
        data = _generate.gzipped(path.with_suffix("").read_bytes())
    elif name == "plain":
        data = _generate.plain_sitemap(urls, seed=seed, base_url=DEFAULT_BASE)
    elif name == "exact":
        data = _generate.exact_sitemap(urls, seed=seed, base_url=DEFAULT_BASE)
    elif name == "mixed":
        data = _generate.mixed_sitemap(urls, seed=seed, base_url=DEFAULT_BASE)
    else:
        data = _generate.plain_sitemap(
            urls, seed=seed, base_url=DEFAULT_BASE, stylesheet="/main-sitemap.xsl"
        )
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)  # a run killed midway leaves no half-written document


# -- the parent ----------------------------------------------------------------------------


def _source_tag(*paths: Path) -> str:
    digest = hashlib.sha256()
    for path in paths:
        for file in sorted(path.rglob("*.py")) if path.is_dir() else [path]:
            digest.update(file.read_bytes())
    return digest.hexdigest()[:10]


def _git_state() -> str:
    try:
        head = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(ROOT), "status", "--porcelain", "--", "sitemap_reader"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+uncommitted changes" if dirty else "")


def _python(*args: str) -> list[str]:
    return [sys.executable, str(Path(__file__).resolve()), *args]


def make_docs(urls: int, seed: int, names: Sequence[str]) -> list[Doc]:
    DATA.mkdir(exist_ok=True)
    # Cached documents are keyed by the generator's source: editing it regenerates them.
    tag = _source_tag(HERE / "_generate.py")
    docs: list[Doc] = []
    for name in names:
        kind = name.removesuffix(".gz")
        xml_path = DATA / f"{kind}-{urls}-{seed}-{tag}.xml"
        path = xml_path.with_name(xml_path.name + ".gz") if name.endswith(".gz") else xml_path
        for todo, target in ((kind, xml_path), (name, path)):
            if not target.exists():
                args = ["--generate", todo, str(target), "--urls", str(urls), "--seed", str(seed)]
                subprocess.run(_python(*args), check=True)
        docs.append(
            Doc(name, path, path != xml_path, xml_path.stat().st_size, path.stat().st_size, urls)
        )
    return docs


def measure(
    reader: Reader, doc: Doc, repeat: int, budget: float, chunk: int, trace: bool
) -> Result:
    """Run one reader on one document in a fresh interpreter.

    The parent holds no document and imports no parser, so that the child's ru_maxrss,
    which Linux starts from the parent's RSS at the fork, is the child's own."""
    result = Result(doc.name, reader.key, reader.label)
    cmd = _python("--child", reader.key, str(doc.path), "--repeat", str(repeat))
    # The budget spares only the slow reference readers: the others always get R runs.
    cmd += ["--budget", str(float("inf") if reader.spread else budget), "--chunk", str(chunk)]
    if not trace:
        cmd.append("--no-tracemalloc")
    started = time.perf_counter()
    try:
        proc = subprocess.run(
            cmd, check=False, capture_output=True, text=True, timeout=CHILD_TIMEOUT
        )
    except subprocess.TimeoutExpired:
        result.skipped = f"timed out after {CHILD_TIMEOUT:.0f} s"
        return result
    result.child_seconds = time.perf_counter() - started
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        result.skipped = f"failed (exit {proc.returncode}): {tail}"
        return result
    out = json.loads(lines[-1])
    if "skipped" in out:
        result.skipped = out["skipped"]
        return result
    result.times, result.cpu_times = out["times"], out["cpu"]
    result.counts = [c for c in out["counts"] if c is not None]
    result.rss_base_mib = out["rss_base_mib"]
    result.rss_peak_mib = out["rss_peak_mib"]
    result.hwm_mib = out["hwm_mib"]
    result.tracemalloc_peak_mib = out.get("tracemalloc_peak_mib")
    return result


def merge(first: Result, later: Result) -> Result:
    """One reader's results from several rounds (several children) as one."""
    if first.skipped is not None or later.skipped is not None:
        first.skipped = first.skipped or later.skipped
        return first
    first.times += later.times
    first.cpu_times += later.cpu_times
    first.counts += later.counts
    peaks = [v for v in (first.rss_peak_mib, later.rss_peak_mib) if v is not None]
    first.rss_peak_mib = max(peaks, default=None)
    hwms = [v for v in (first.hwm_mib, later.hwm_mib) if v is not None]
    first.hwm_mib = max(hwms, default=None)
    first.child_seconds = (first.child_seconds or 0) + (later.child_seconds or 0)
    return first


def finish(result: Result, doc: Doc) -> None:
    """The figures derived from the raw runs, and the checks on them."""
    if result.skipped is not None or not result.times:
        return
    best = min(range(len(result.times)), key=result.times.__getitem__)
    result.seconds = result.times[best]
    result.cpu_seconds = result.cpu_times[best]
    result.urls_per_s = doc.urls / result.seconds
    result.mb_per_s = doc.xml_bytes / result.seconds / 1e6
    counts = result.counts
    if counts:
        result.urls_read = counts[-1]
        if len(set(counts)) > 1 or abs(counts[-1] - doc.urls) > COUNT_TOLERANCE * doc.urls:
            result.valid = False
            result.note = f"returned {counts} URLs, expected {doc.urls:,}: not comparable"
    peak, hwm = result.rss_peak_mib, result.hwm_mib
    if peak is not None and hwm is not None and peak - hwm > 1:
        result.note = (result.note + "; " if result.note else "") + (
            f"ru_maxrss {peak:.0f} MiB > VmHWM {hwm:.0f} MiB: the parent's RSS leaked into it"
        )


def _fmt(value: float | None, spec: str, unit: str = "") -> str:
    return "-" if value is None else format(value, spec) + unit


def print_table(doc: Doc, results: list[Result]) -> None:
    size = f"{doc.xml_bytes / 1e6:.1f} MB XML"
    if doc.gz:
        size = f"{doc.file_bytes / 1e6:.1f} MB gzip -> {size}"
    print(f"\n{doc.name}: {doc.urls:,} URLs, {size}")
    head = (
        f"  {'reader':<28} {'runs':>4} {'seconds':>7} {'(CPU)':>6} {'URLs/s':>8} {'MB/s':>5} "
        f"{'x floor':>7} {'URLs read':>9} {'RSS peak':>8} {'(base)':>6} {'tracemalloc':>11}"
    )
    print(head)
    print("  " + "-" * (len(head) - 2))
    for r in results:
        if r.skipped is not None:
            print(f"  {r.label:<28} skipped: {r.skipped}")
            continue
        read = "-" if r.urls_read is None else f"{r.urls_read:,}"
        print(
            f"  {r.label:<28} {len(r.times):>4} {_fmt(r.seconds, '7.3f')} "
            f"{_fmt(r.cpu_seconds, '6.2f')} {_fmt(r.urls_per_s, '8,.0f')} "
            f"{_fmt(r.mb_per_s, '5.1f')} {_fmt(r.x_floor, '6.2f', 'x'):>7} {read:>9} "
            f"{_fmt(r.rss_peak_mib, '4.0f', ' MiB'):>8} {_fmt(r.rss_base_mib, '6.0f')} "
            f"{_fmt(r.tracemalloc_peak_mib, '7.1f', ' MiB'):>11}" + ("" if r.valid else " !")
        )
        if r.note:
            print(f"  {'':<28} ! {r.note}")


def _marginal(ratio: float) -> str:
    # Best-of-R timings on a shared machine move by more than this from run to run.
    return " (within 10%: marginal)" if 0.9 < ratio < 1.1 else ""


def check_aims(docs: Sequence[str], results: list[Result]) -> list[str]:
    """The issue's aims, one line each: met or NOT met, with the figures."""
    by = {(r.doc, r.reader): r for r in results if r.seconds is not None and r.valid}
    lines: list[str] = []
    for doc in docs:
        own = by.get((doc, "sitemap-reader"))
        limit = AIMS.get(doc.removesuffix(".gz"))
        if own is None or own.seconds is None:
            continue
        if limit is not None and own.x_floor is not None:
            verdict = "met" if own.x_floor <= limit else "NOT met"
            verdict += _marginal(own.x_floor / limit)
            cpu = "" if own.x_floor_cpu is None else f" ({own.x_floor_cpu:.2f}x on CPU time)"
            lines.append(
                f"{doc}: {own.x_floor:.2f}x the lxml floor{cpu} (aim <= {limit}x): {verdict}"
            )
        for reader in READERS:
            ref = by.get((doc, reader.key))
            if reader.reference and ref is not None and ref.seconds is not None:
                speedup = ref.seconds / own.seconds
                verdict = "faster" if speedup > 1 else "NOT faster"
                cpu = ""
                if ref.cpu_seconds and own.cpu_seconds:
                    cpu = f", {ref.cpu_seconds / own.cpu_seconds:.2f}x on CPU time"
                lines.append(
                    f"{doc}: {verdict} than {reader.label} ({speedup:.2f}x{cpu})"
                    + _marginal(speedup)
                )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--urls", type=int, default=DEFAULT_URLS, help="URLs per document")
    ap.add_argument("--repeat", type=int, default=5, help="timed runs per reader, best kept")
    ap.add_argument(
        "--budget",
        type=float,
        default=6.0,
        help="seconds: no further run of usp, advertools, trafilatura past this (default 6)",
    )
    ap.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="spread the runs of the faster readers over this many children (default 3)",
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--chunk", type=int, default=CHUNK, help="bytes per feed() (64 KiB)")
    ap.add_argument("--docs", default=",".join(DOCS), help=f"any of {DOCS + EXTRA_DOCS}")
    ap.add_argument("--readers", default=",".join(r.key for r in READERS))
    ap.add_argument(
        "--full", action="store_true", help="reference readers and tracemalloc on .gz too"
    )
    ap.add_argument("--no-tracemalloc", action="store_true", help="skip the traced run")
    ap.add_argument("--json", type=Path, metavar="FILE", help="also write the results here")
    ap.add_argument(
        "--profile",
        metavar="DOC",
        help="instead: cProfile sitemap-reader (fast=True) on DOC, top functions by own time",
    )
    ap.add_argument("--child", nargs=2, metavar=("READER", "PATH"), help=argparse.SUPPRESS)
    ap.add_argument("--child-profile", metavar="PATH", help=argparse.SUPPRESS)
    ap.add_argument("--generate", nargs=2, metavar=("DOC", "PATH"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args.child:
        key, path = args.child
        trace = not args.no_tracemalloc
        out = child(key, Path(path), args.repeat, args.budget, args.chunk, trace)
        print(json.dumps(out))
        return 0
    if args.generate:
        generate(args.urls, args.seed, args.generate[0], Path(args.generate[1]))
        return 0

    if args.profile:
        if args.profile not in DOCS + EXTRA_DOCS:
            ap.error(f"--profile takes one of {DOCS + EXTRA_DOCS}")
        (doc,) = make_docs(args.urls, args.seed, [args.profile])
        # In a child as well: the parent stays free of parsers and documents.
        return subprocess.run(_python("--child-profile", str(doc.path)), check=False).returncode
    if args.child_profile:
        profile(Path(args.child_profile), args.chunk)
        return 0

    names = [n.strip() for n in args.docs.split(",") if n.strip()]
    keys = [k.strip() for k in args.readers.split(",") if k.strip()]
    if min(args.repeat, args.urls, args.chunk, args.rounds) < 1:
        ap.error("--repeat, --urls, --chunk and --rounds must be at least 1")
    if set(names) - set(DOCS + EXTRA_DOCS) or set(keys) - {r.key for r in READERS}:
        ap.error("unknown document or reader; see --help")

    started = time.perf_counter()
    state = f"{_git_state()}, sources {_source_tag(ROOT / 'sitemap_reader')}"
    print(
        f"sitemap-reader parse benchmark ({state})\nPython {platform.python_version()}, "
        f"{platform.machine()}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}; "
        f"best of {args.repeat} in {args.rounds} rounds (usp, advertools, trafilatura: one, "
        f"within {args.budget:g} s), {args.chunk:,}-byte chunks, each reader in fresh processes"
    )
    docs = make_docs(args.urls, args.seed, names)

    def traced(reader: Reader, doc: Doc) -> bool:
        if args.no_tracemalloc:
            return False
        if args.full:
            return True
        # The traced run costs three to five timed ones for the Python-heavy readers.
        return not (doc.gz or reader.plain_only or (reader.reference and doc.name == "exact"))

    results: list[Result] = []
    for doc in docs:
        readers = [
            reader
            for reader in READERS
            if reader.key in keys
            and not (reader.plain_only and (doc.gz or not doc.name.startswith("plain")))
            and not (reader.reference and doc.gz and not args.full)
        ]
        # The runs of sitemap-reader and the bare parsers are spread over rounds, each a
        # fresh child, interleaved with the other readers: a busy spell on the machine then
        # slows some runs of every reader rather than all runs of one. The slow reference
        # readers run in the first round only.
        merged: dict[str, Result] = {}
        for round_ in range(args.rounds):
            for reader in readers:
                runs = args.repeat // args.rounds + (round_ < args.repeat % args.rounds)
                if not reader.spread:
                    runs = args.repeat if round_ == 0 else 0
                if runs == 0:
                    continue
                key = reader.key
                trace = traced(reader, doc) and key not in merged
                result = measure(reader, doc, runs, args.budget, args.chunk, trace)
                merged[key] = merge(merged[key], result) if key in merged else result
        doc_results = list(merged.values())
        for r in doc_results:
            finish(r, doc)
        floor = next((r for r in doc_results if r.reader == FLOOR and r.seconds), None)
        for r in doc_results:
            if floor is not None and floor.seconds and r.seconds is not None:
                r.x_floor = r.seconds / floor.seconds
                if floor.cpu_seconds and r.cpu_seconds is not None:
                    r.x_floor_cpu = r.cpu_seconds / floor.cpu_seconds
        print_table(doc, doc_results)
        results += doc_results

    print(
        "\nseconds: best wall time (CPU: that run's process time). URLs/s and MB/s: the\n"
        "document's URLs and decompressed bytes over it. RSS peak: the child's ru_maxrss\n"
        "after the timed runs, interpreter, imports and input bytes included; (base): the\n"
        "same before the first run. tracemalloc: Python allocations only (not libxml2's or\n"
        "expat's own buffers), peak of one extra untimed run."
    )
    if not args.full:
        print(
            "Reference readers ran on the uncompressed documents only; tracemalloc on plain,\n"
            "and on exact for sitemap-reader and the bare parsers (--full: everywhere)."
        )
    aims = check_aims(names, results)
    if aims:
        print("\nAims:")
        for line in aims:
            print("  " + line)
    print(f"\n({time.perf_counter() - started:.0f} s in all, load {os.getloadavg()[0]:.1f})")

    if args.json:
        report = {
            "source": state,
            "python": platform.python_version(),
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
            "args": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
            "documents": [{**asdict(d), "path": d.path.name} for d in docs],
            "results": [asdict(r) for r in results],
            "aims": aims,
        }
        tmp = args.json.with_name(args.json.name + ".tmp")
        tmp.write_text(json.dumps(report, indent=2) + "\n")
        os.replace(tmp, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
