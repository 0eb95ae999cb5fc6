"""The differential fuzz: the default core against the exact path on generated sitemaps.

    python benchmarks/fuzz_differential.py --inputs 1000000 --jobs 2 --seed 1

Each input is a realistic document made here from a seeded generator (urlsets and indexes
with every extension under varied prefixes and namespace variants, CDATA, references,
comments, a DOCTYPE, invalid values, other encodings, a text sitemap now and then), or a
corpus file or a made one, often damaged (a cut, random bytes, the atheris campaign's
structure-aware mutations) and sometimes gzipped. It is read by ``SitemapParser(fast=True)``
(the default core: the compiled one where it runs, else the exact path) and by
``SitemapParser(fast=False)`` (the exact expat path), each at its own random split, and
both must give the events of the exact path fed whole, Problem messages included.

A difference is a bug: in the default core, or (when the exact path read at the same cuts
differs alike: "both paths") a split dependence of the reader above both. The input, its
reading and the chunks are written to ``--findings`` as JSON, shrunk to a small document
that still differs, and a command to replay it is printed (``--replay FILE``). An exception
out of either path, or a Problem of kind ``error`` (a caught panic of the compiled core),
counts as one too. The run prints the count and the rate (inputs/s) at its end; the exit
status is 1 when anything was found.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import itertools
import json
import multiprocessing
import random
import sys
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the atheris campaign's parts (fuzz/) are reused

from fuzz.harness import LIMITS, SITEMAP_URLS, gzipped, random_chunks  # found through the path
from fuzz.mutate import mutate_doc
from fuzz.seeds import MADE, corpus_docs
from sitemap_reader import Event, Limits, Problem, ProblemKind, SitemapParser

FINDINGS = HERE / ".data" / "fuzz-findings"
BATCH = 200  # inputs a worker takes at a time

SITEMAP_NS = (
    "http://www.sitemaps.org/schemas/sitemap/0.9",
    "http://www.sitemaps.org/schemas/sitemap/0.9",
    "https://www.sitemaps.org/schemas/sitemap/0.9",
    "http://www.sitemaps.org/schemas/sitemap/0.9/",
    "http://www.google.com/schemas/sitemap/0.84",
    "http://www.google.com/schemas/sitemap/0.9",
    "http://www.example.com/not-the-sitemap-namespace",
    "",
)
# Comments, instructions and elements a record ignores, well-formed or not.
MARKUP = (
    "<!-- c -->", "<!-- c -- d -->", "<!-- c --->", "<?pi x?>", "<?xml x?>", "<?a:b?>",
    "<mobile:mobile/>", "<mobile:mobile type='pc'></mobile:mobile>", "<foo a='1'><loc>x</loc></foo>",
)  # fmt: skip
# extension -> its namespace and the spellings generators give it
EXT_NS = {
    "image": ("http://www.google.com/schemas/sitemap-image/1.1",),
    "video": ("http://www.google.com/schemas/sitemap-video/1.1",),
    "news": ("http://www.google.com/schemas/sitemap-news/0.9",),
    "xhtml": ("http://www.w3.org/1999/xhtml",),
}
EXT_VARIANTS = (
    lambda ns: ns,
    lambda ns: ns,
    lambda ns: ns,
    lambda ns: ns.replace("http://", "https://"),
    lambda ns: ns + "/",
    lambda ns: ns.upper(),
    lambda ns: "urn:other",
)
PREFIXES = {
    "image": ("image", "image", "img", "i", "ns2"),
    "video": ("video", "video", "v", "ns3"),
    "news": ("news", "news", "n", "ns4"),
    "xhtml": ("xhtml", "xhtml", "x", "html"),
}
HOSTS = ("https://example.com/dir/", "https://example.com/", "http://example.com:8080/a/b/")
PIECES = ("a", "b/", "page-1", "caf\u00e9", "\u65e5\u672c", "%20", "?q=1", "#top", "~u", "x.html")
DATES = (
    "2024-03-05", "2024-03-05T10:20:30+02:00", "2024-03-05T10:20:30Z", "2024-03-05T10:20Z",
    "2024-03-05T10:20:30.5-05:00", "2024", "2024-03", "2024-13-40", "2024-03-05 10:20",
    "junk", "", " 2024-01-02 ", "0000-01-01",
)  # fmt: skip
FREQS = ("always", "hourly", "daily", "weekly", "monthly", "yearly", "never", "Daily", "sometimes")
PRIORITIES = ("0.5", "1.0", "0", "0.0", "1", "1.5", "-0.1", "high", "nan", ".8", " 0.3 ")
NUMBERS = ("60", "0", "28800", "28801", "-1", "x", "4.5", "5.1", "1e3", "12345")
WORDS = ("T", "Grilling steaks", "caf\u00e9", "a &amp; b", "\u65e5\u672c\u8a9e", "", "yes", "no")


@dataclass(frozen=True)
class Case:
    """One input and how it is read: the document, its reading and each path's chunks."""

    doc: bytes
    url: str
    limits: Limits
    resolve_relative: bool
    fast_cuts: tuple[int, ...]
    exact_cuts: tuple[int, ...]

    def pieces(self, cuts: Sequence[int]) -> list[bytes]:
        bounds = [0, *cuts, len(self.doc)]
        return [self.doc[a:b] for a, b in itertools.pairwise(bounds)]

    def to_json(self) -> dict[str, object]:
        return {
            "doc": self.doc.hex(),
            "url": self.url,
            "limits": dataclasses.asdict(self.limits),
            "resolve_relative": self.resolve_relative,
            "fast_cuts": list(self.fast_cuts),
            "exact_cuts": list(self.exact_cuts),
        }

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Case:
        limits = data["limits"]
        assert isinstance(limits, dict)
        return cls(
            doc=bytes.fromhex(str(data["doc"])),
            url=str(data["url"]),
            limits=Limits(**limits),
            resolve_relative=bool(data["resolve_relative"]),
            fast_cuts=tuple(int(c) for c in data["fast_cuts"]),  # type: ignore[attr-defined]
            exact_cuts=tuple(int(c) for c in data["exact_cuts"]),  # type: ignore[attr-defined]
        )


# -- documents ----------------------------------------------------------------------------


class Maker:
    """Realistic sitemap documents from one seeded generator."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def pick(self, options: Sequence[str]) -> str:
        return self.rng.choice(options)

    def maybe(self, p: float) -> bool:
        return self.rng.random() < p

    def url(self) -> str:
        rng = self.rng
        if self.maybe(0.1):
            return self.pick(("/relative/a", "b.html", "", "  ", "ftp://x/f", "not a url",
                              "HTTP://EXAMPLE.COM/UP", "https://@/x", "http://[::1/",
                              "//example.com/dir/p", "https://example.com/" + "x" * 2100))  # fmt: skip
        return self.pick(HOSTS) + "".join(self.pick(PIECES) for _ in range(rng.randint(0, 4)))

    def text(self, value: str, *, url: bool = False) -> str:
        """``value`` as element content: escaped, in CDATA, with references or a comment."""
        roll = self.rng.random()
        pad = self.pick(("", "", " ", "\n  ", "\r\n\t", "\r"))
        if roll < 0.1 and "]]>" not in value:
            return f"{pad}<![CDATA[{value}]]>{pad}"
        escaped = value.replace("&", "&amp;").replace("<", "&lt;")
        if roll < 0.2 and escaped:
            i = self.rng.randrange(len(escaped) + 1)
            piece = self.pick(("&#65;", "&#x41;", "&amp;", "&lt;", "&gt;", "&quot;", "&apos;",
                               "<!-- c -->", "&#233;", "&nbsp;", "&#0;", "&", "<?pi x?>"))  # fmt: skip
            escaped = escaped[:i] + piece + escaped[i:]
        elif roll < 0.25 and url:
            escaped = escaped.replace("/", "&#47;", 1)
        return pad + escaped + pad

    def element(self, name: str, value: str, *, url: bool = False) -> str:
        attrs = ' id="1"' if self.maybe(0.03) else ""
        if self.maybe(0.03):
            return f"<{name}{attrs}/>"
        return f"<{name}{attrs}>{self.text(value, url=url)}</{name}>"

    def fields(self, p: str, names: Sequence[tuple[str, Callable[[], str]]], keep: float) -> str:
        parts = [self.element(p + name, make()) for name, make in names if self.maybe(keep)]
        if self.maybe(0.1):
            self.rng.shuffle(parts)
        return "".join(parts)

    def image(self, p: str) -> str:
        loc = self.element(p + "loc", self.url(), url=True) if self.maybe(0.9) else ""
        more = self.fields(
            p,
            [("caption", lambda: self.pick(WORDS)), ("title", lambda: self.pick(WORDS)),
             ("geo_location", lambda: "Limerick, Ireland"), ("license", self.url)],
            0.4,
        )  # fmt: skip
        return f"<{p}image>{loc}{more}</{p}image>"

    def video(self, p: str) -> str:
        body = self.fields(
            p,
            [("thumbnail_loc", self.url), ("title", lambda: self.pick(WORDS)),
             ("description", lambda: self.pick(WORDS)), ("content_loc", self.url),
             ("player_loc", self.url), ("duration", lambda: self.pick(NUMBERS)),
             ("expiration_date", lambda: self.pick(DATES)), ("rating", lambda: self.pick(NUMBERS)),
             ("view_count", lambda: self.pick(NUMBERS)),
             ("publication_date", lambda: self.pick(DATES)),
             ("family_friendly", lambda: self.pick(("yes", "no", "maybe"))),
             ("tag", lambda: self.pick(WORDS)), ("category", lambda: self.pick(WORDS)),
             ("requires_subscription", lambda: self.pick(("yes", "no"))),
             ("live", lambda: self.pick(("yes", "no", "x"))),
             ("uploader", lambda: self.pick(WORDS)), ("platform", lambda: "web mobile")],
            0.5,
        )  # fmt: skip
        if self.maybe(0.2):
            body += f'<{p}restriction relationship="allow">IE GB US CA</{p}restriction>'
        if self.maybe(0.1):
            body += f'<{p}price currency="EUR">1.99</{p}price>'
        return f"<{p}video>{body}</{p}video>"

    def news(self, p: str) -> str:
        publication = self.fields(
            p, [("name", lambda: self.pick(WORDS)), ("language", lambda: self.pick(("en", "zh-cn", "xx-yy-zz")))], 0.9
        )  # fmt: skip
        body = self.fields(
            p,
            [("publication_date", lambda: self.pick(DATES)), ("title", lambda: self.pick(WORDS)),
             ("keywords", lambda: "a, b"), ("stock_tickers", lambda: "NASDAQ:A")],
            0.7,
        )  # fmt: skip
        return f"<{p}news><{p}publication>{publication}</{p}publication>{body}</{p}news>"

    def alternate(self, p: str) -> str:
        lang = self.pick(("de", "en-GB", "x-default", "", "not a tag"))
        rel = self.pick(("alternate", "alternate", "canonical"))
        href = self.url().replace("&", "&amp;").replace('"', "&quot;")
        return f'<{p}link rel="{rel}" hreflang="{lang}" href="{href}"/>'

    def url_block(self, sm: str, prefixes: dict[str, str], depth: int = 0) -> str:
        parts = [self.element(sm + "loc", self.url(), url=True)] if self.maybe(0.95) else []
        if self.maybe(0.6):
            parts.append(self.element(sm + "lastmod", self.pick(DATES)))
        if self.maybe(0.4):
            parts.append(self.element(sm + "changefreq", self.pick(FREQS)))
        if self.maybe(0.4):
            parts.append(self.element(sm + "priority", self.pick(PRIORITIES)))
        makers = {"image": self.image, "video": self.video, "news": self.news,
                  "xhtml": self.alternate}  # fmt: skip
        for ext, p in prefixes.items():
            count = self.rng.choice((0, 0, 1, 1, 2))
            parts.extend(makers[ext](p + ":" if p else "") for _ in range(count))
        if self.maybe(0.05):
            parts.append("<unknown>x<deeper/></unknown>")
        if self.maybe(0.1):  # what the compiled reader skips (or, ill-formed, leaves expat)
            parts.append(self.pick(MARKUP))
        if depth < 5 and self.maybe(0.06):  # records in a record (unclosed-entry), some deeper
            inner = self.rng.randint(1, 3)
            parts.extend(self.url_block(sm, prefixes, depth + 1) for _ in range(inner))
        if self.maybe(0.1):
            self.rng.shuffle(parts)
        sep = self.pick(("", "\n    ", " "))
        end = "" if self.maybe(0.02) else f"</{sm}url>"  # (its end tag missing)
        return f"<{sm}url>{sep}{sep.join(parts)}{sep}{end}"

    def prolog(self) -> str:
        out = ""
        if self.maybe(0.8):
            enc = self.pick((' encoding="UTF-8"', ' encoding="utf-8"', "", " encoding='UTF-8'"))
            standalone = ' standalone="yes"' if self.maybe(0.1) else ""
            out += f'<?xml version="1.0"{enc}{standalone}?>'
        out += self.pick(("\n", "", "\r\n", "\n\n"))
        if self.maybe(0.1):
            out += '<?xml-stylesheet type="text/xsl" href="/sitemap.xsl"?>\n'
        if self.maybe(0.1):
            out += "<!-- generated by a plugin -->\n"
        if self.maybe(0.05):
            out += self.pick(('<!DOCTYPE urlset SYSTEM "sitemap.dtd">\n', "<!DOCTYPE urlset>\n",
                              '<!DOCTYPE urlset [<!ENTITY a "https://example.com/x">]>\n'))  # fmt: skip
        return out

    def root(self, name: str) -> tuple[str, str, str]:
        """(start tag, end tag, the prefix children take) of a urlset or an index."""
        ns = self.pick(SITEMAP_NS)
        prefixed = self.maybe(0.1) and ns
        p = self.pick(("sm", "s", "ns0")) + ":" if prefixed else ""
        decl = (f' xmlns:{p[:-1]}="{ns}"' if p else f' xmlns="{ns}"') if ns else ""
        return f"<{p}{name}{decl}", f"</{p}{name}>", p

    def urlset(self) -> str:
        start, end, sm = self.root("urlset")
        prefixes: dict[str, str] = {}
        for ext, spaces in EXT_NS.items():
            if self.maybe(0.5):
                prefix = self.pick(PREFIXES[ext])
                ns = self.rng.choice(EXT_VARIANTS)(spaces[0])
                if self.maybe(0.9):  # (else undeclared: a namespace fault)
                    start += f' xmlns:{prefix}="{ns}"'
                prefixes[ext] = prefix
        if self.maybe(0.05):
            start += ' xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"'
        if self.maybe(0.1):
            start += ' xmlns:mobile="http://www.google.com/schemas/sitemap-mobile/1.0"'
        blocks = [self.url_block(sm, prefixes) for _ in range(self.rng.randint(0, 6))]
        sep = self.pick(("\n", "", "\n  ", "\r\n", "\n<!-- c -->\n", "<?pi?>"))
        return f"{self.prolog()}{start}>{sep}{sep.join(blocks)}{sep}{end}{sep}"

    def index(self) -> str:
        start, end, sm = self.root("sitemapindex")
        blocks = []
        for _ in range(self.rng.randint(0, 5)):
            lastmod = self.element(sm + "lastmod", self.pick(DATES)) if self.maybe(0.5) else ""
            loc = self.element(sm + "loc", self.url(), url=True) if self.maybe(0.95) else ""
            inner = ""
            if self.maybe(0.05):  # a record in a record (unclosed-entry)
                inner = (
                    f"<{sm}sitemap>{self.element(sm + 'loc', self.url(), url=True)}</{sm}sitemap>"
                )
            blocks.append(f"<{sm}sitemap>{loc}{inner}{lastmod}</{sm}sitemap>")
        return f"{self.prolog()}{start}>\n{''.join(blocks)}\n{end}\n"

    def text_sitemap(self) -> str:
        lines = [self.url() for _ in range(self.rng.randint(1, 6))]
        return self.pick(("\n", "\r\n", "\r")).join(lines) + self.pick(("", "\n"))

    def document(self) -> bytes:
        roll = self.rng.random()
        text = (
            self.text_sitemap() if roll < 0.08 else self.index() if roll < 0.25 else self.urlset()
        )
        if self.maybe(0.05):
            text = "\ufeff" + text
        if self.maybe(0.05):  # another encoding, declared (or not: the bytes are then wrong)
            codec = self.pick(("iso-8859-1", "utf-16", "gbk", "windows-1252"))
            text = text.replace('encoding="UTF-8"', f'encoding="{codec}"', 1)
            return text.encode(codec, "replace")
        return text.encode("utf-8")


def damaged(doc: bytes, rng: random.Random, pool: Sequence[bytes]) -> bytes:
    """``doc`` as it is, or cut, with random bytes, or with the campaign's mutations."""
    roll = rng.random()
    if roll < 0.45:
        return doc
    if roll < 0.6:
        return doc[: rng.randint(0, len(doc))]
    if roll < 0.75:
        out = bytearray(doc)
        for _ in range(rng.randint(1, 4)):
            i = rng.randint(0, len(out))
            if rng.random() < 0.5 and i < len(out):
                out[i] = rng.randrange(256)
            else:
                out[i:i] = bytes([rng.randrange(256)])
        return bytes(out)
    return mutate_doc(doc, rng, pool)


def make_case(rng: random.Random, pool: Sequence[bytes]) -> Case:
    """Input number ``i``'s case, from its own generator (so it replays alone)."""
    if pool and rng.random() < 0.2:
        doc = rng.choice(pool)
        if len(doc) > 16_384:  # a window of a large file: its head, or its tail behind it
            doc = doc[:16_384] if rng.random() < 0.5 else doc[:512] + doc[-8_192:]
    else:
        doc = Maker(rng).document()
    doc = damaged(doc, rng, pool)
    if rng.random() < 0.1:
        doc = gzipped(doc, rng.choice((1, 2)), rng)

    def cuts() -> tuple[int, ...]:
        sizes = [len(p) for p in random_chunks(doc, rng)]
        ends = [sum(sizes[: i + 1]) for i in range(len(sizes) - 1)]
        return tuple(ends)

    return Case(
        doc=doc,
        url=rng.choice(SITEMAP_URLS),
        limits=rng.choice(LIMITS),
        resolve_relative=rng.random() < 0.3,
        fast_cuts=cuts(),
        exact_cuts=cuts(),
    )


def the_pool() -> list[bytes]:
    """What is mutated besides the generated documents: the campaign's made ones, the corpus."""
    return [*MADE, *corpus_docs()]


# -- reading ------------------------------------------------------------------------------

Reader = Callable[[Case, Sequence[bytes], bool], list[Event]]


def read(case: Case, pieces: Sequence[bytes], fast: bool) -> list[Event]:
    parser = SitemapParser(
        case.url, limits=case.limits, resolve_relative=case.resolve_relative, fast=fast
    )
    events: list[Event] = []
    for piece in pieces:
        events += parser.feed(piece)
    events += parser.close()
    return events


def difference(case: Case, reader: Reader = read) -> str | None:
    """What differs between the reads of ``case``, or None when they agree."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            want = reader(case, [case.doc], False)
            reads = {
                "fast": reader(case, case.pieces(case.fast_cuts), True),
                "exact": reader(case, case.pieces(case.exact_cuts), False),
            }
    except Exception as exc:  # noqa: BLE001 - an escape is a finding, whatever it is
        return f"raised {type(exc).__name__}: {exc}"
    bugs = [
        e for e in want + reads["fast"] if isinstance(e, Problem) and e.kind == ProblemKind.ERROR
    ]
    if bugs:
        return f"a Problem of kind error (a bug): {bugs[0].message}"
    for path, got in reads.items():
        if got != want:
            where = path
            if path == "fast" and reader(case, case.pieces(case.fast_cuts), False) == got:
                where = "both paths"  # at these cuts: a split dependence, not the fast path's
            for i, (a, b) in enumerate(zip(got, want, strict=False)):
                if a != b:
                    return f"{where}, in chunks: event {i}\n  got  {a!r}\n  want {b!r}"
            return f"{where}, in chunks: {len(got)} events, want {len(want)}"
    return None


def shrink(case: Case, reader: Reader = read, budget: int = 2_000) -> Case:
    """A smaller document (cuts dropped when they no longer fall inside) that still differs."""

    def without(c: Case, a: int, b: int) -> Case:
        doc = c.doc[:a] + c.doc[b:]

        def moved(cuts: tuple[int, ...]) -> tuple[int, ...]:
            return tuple(sorted({x if x <= a else max(a, x - (b - a)) for x in cuts}))

        return dataclasses.replace(
            c, doc=doc, fast_cuts=moved(c.fast_cuts), exact_cuts=moved(c.exact_cuts)
        )

    size = max(1, len(case.doc) // 2)
    while size >= 1 and budget > 0:
        start = 0
        while start < len(case.doc) and budget > 0:
            budget -= 1
            smaller = without(case, start, min(len(case.doc), start + size))
            if difference(smaller, reader) is not None:
                case = smaller
            else:
                start += size
        size //= 2
    return case


# -- the run ------------------------------------------------------------------------------


Batch = tuple[int, list[tuple[int, str, dict[str, object]]]]  # inputs run, what differed


def _batch(args: tuple[int, int, int]) -> Batch:
    seed, first, count = args
    pool = _POOL
    found = []
    for i in range(first, first + count):
        case = make_case(random.Random(f"{seed}:{i}"), pool)
        what = difference(case)
        if what is not None:
            found.append((i, what, case.to_json()))
    return count, found


_POOL: list[bytes] = []


def _init() -> None:
    _POOL[:] = the_pool()


def batches(seed: int, inputs: int) -> Iterator[tuple[int, int, int]]:
    for first in range(0, inputs, BATCH):
        yield seed, first, min(BATCH, inputs - first)


def report(i: int, what: str, data: dict[str, object], findings: Path, seed: int) -> None:
    findings.mkdir(parents=True, exist_ok=True)
    case = shrink(Case.from_json(data))
    path = findings / f"seed{seed}-input{i}.json"
    path.write_text(json.dumps({"input": i, "seed": seed, "difference": what,
                                "case": data, "shrunk": case.to_json()}, indent=1))  # fmt: skip
    print(f"\nDIFFERENCE at input {i}: {what}", flush=True)
    print(f"  shrunk to {len(case.doc)} bytes: {case.doc[:300]!r}", flush=True)
    print(f"  replay: python benchmarks/fuzz_differential.py --replay {path}", flush=True)


def run(inputs: int, seed: int, jobs: int, findings: Path, progress: int = 50_000) -> int:
    """Run ``inputs`` inputs; return how many differed."""
    start = time.perf_counter()
    done = differed = 0
    work = batches(seed, inputs)
    with contextlib.ExitStack() as stack:
        if jobs > 1:
            pool = stack.enter_context(multiprocessing.get_context("fork").Pool(jobs, _init))
            results: Iterator[Batch] = pool.imap_unordered(_batch, work)
        else:  # in this process: no pickling, and a debugger works
            _init()
            results = map(_batch, work)
        for count, found in results:
            done += count
            for i, what, data in found:
                differed += 1
                report(i, what, data, findings, seed)
            if progress and done % progress < count:
                rate = done / (time.perf_counter() - start)
                print(f"{done:,} inputs, {differed} differed, {rate:,.0f} inputs/s", flush=True)
    seconds = time.perf_counter() - start
    print(
        f"{done:,} inputs in {seconds:,.1f} s ({done / seconds:,.0f} inputs/s, {jobs} "
        f"process{'es' if jobs > 1 else ''}, seed {seed}): {differed} differed",
        flush=True,
    )
    return differed


def replay(path: Path) -> int:
    data = json.loads(path.read_text())
    for label in ("case", "shrunk"):
        case = Case.from_json(data[label])
        print(f"{label} ({len(case.doc)} bytes): {difference(case) or 'no difference'}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--inputs", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--findings", type=Path, default=FINDINGS)
    parser.add_argument(
        "--progress", type=int, default=50_000, help="print every N inputs (0: never)"
    )
    parser.add_argument("--replay", type=Path, help="read one finding again")
    args = parser.parse_args(argv)
    if args.replay:
        return replay(args.replay)
    differed = run(args.inputs, args.seed, args.jobs, args.findings, args.progress)
    return 1 if differed else 0


if __name__ == "__main__":
    sys.exit(main())
