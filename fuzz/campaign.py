"""The atheris campaign: coverage-guided, on mutated real sitemaps split at random.

    pip install atheris        # or: pip install '.[fuzz]'  (a CPython 3.8-3.12 wheel; Linux/macOS)
    python -m fuzz.campaign --runs 1000000          # from the repository root

The parent process writes the seed inputs (see ``fuzz/seeds.py``) and the libFuzzer
dictionary to a temporary directory, runs the fuzzer in a child process, and when the child
is done writes ``fuzz/RESULTS.json``: libFuzzer ends its process with ``exit()``, so the
child cannot be trusted to write anything at its end. The number of inputs is libFuzzer's
count of executed units, checked against the child's own count of callbacks (written every
``PROGRESS_EVERY`` inputs). A failing input is saved under ``fuzz/crashes/`` (not for the
repository: minimise it with ``python -m fuzz.minimise``, fix it, and keep the small input
under ``fuzz/findings/`` with a regression test in tests/project/test_fuzz.py); then no RESULTS.json
is written. ``findings_fixed`` counts the inputs under ``fuzz/findings/``, each of which must
pass every invariant before a campaign starts.

The record also says what the figures are quoted for: the ``commit`` checked out (and whether
``sitemap_reader/`` or ``fuzz/`` differed from it: ``dirty``), the ``seed_pool`` (seed inputs,
and whether the corpus was among them), the ``peak_rss_mb`` of the largest fuzzing
process, and ``checks``: how many of the inputs the harness counted got each read of
``harness.Outcome.runs`` (the child writes its tallies every ``PROGRESS_EVERY`` inputs, so
they cover all but the last few thousand).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from datetime import datetime, timezone
from importlib.metadata import version
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "RESULTS.json"
FINDINGS = HERE / "findings"
CRASHES = HERE / "crashes"
PROGRESS_EVERY = 5_000
MEMORY_EVERY = 499  # every so many inputs also get the tracemalloc check (it is slow)
RSS_LIMIT_MB = 1_024  # libFuzzer reports a process over this as a finding (-rss_limit_mb)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--runs", type=int, default=1_000_000, help="inputs to execute")
    ap.add_argument("--seconds", type=int, default=0, help="stop after this long (0: no limit)")
    ap.add_argument("--seed", type=int, default=1, help="libFuzzer's random seed")
    ap.add_argument(
        "--jobs", type=int, default=1, help="fuzzing processes, the runs shared out (seeds differ)"
    )
    ap.add_argument("--no-results", action="store_true", help="do not write RESULTS.json")
    ap.add_argument(
        "--results", type=Path, default=RESULTS, help="write the record here (a trial run)"
    )
    ap.add_argument("--worker", metavar="PROGRESS", help=argparse.SUPPRESS)
    args, rest = ap.parse_known_args()
    if args.worker:
        worker(Path(args.worker), rest)
    else:
        parent(args)


# -- the parent -------------------------------------------------------------------------------


def checkout() -> tuple[str | None, bool | None]:
    """The commit checked out, and whether the code under test or the harness differs from it
    (None, None outside a git checkout)."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=HERE, capture_output=True, text=True, check=True
        ).stdout.strip()
        changed = subprocess.run(
            ["git", "status", "--porcelain", "--", "sitemap_reader", "fuzz", ":!fuzz/RESULTS.json"],
            cwd=HERE.parent, capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip
    except (OSError, subprocess.CalledProcessError):
        return None, None
    return head, bool(changed.strip())


def parent(args: argparse.Namespace) -> None:
    from .harness import BYTEWISE_MAX, MAX_LEN, check
    from .mutate import dictionary
    from .seeds import corpus_docs, seeds

    fixed = sorted(FINDINGS.glob("*.bin"))
    for path in fixed:  # a campaign counts only findings that stay fixed
        check(path.read_bytes())
    work = Path(tempfile.mkdtemp(prefix="sitemap-reader-fuzz-"))
    seed_dir, corpus_dir = work / "seeds", work / "corpus"
    seed_dir.mkdir()
    corpus_dir.mkdir()
    pool = seeds()
    for i, data in enumerate(pool):
        (seed_dir / f"seed-{i:04d}").write_bytes(data)
    (work / "sitemap.dict").write_text(dictionary())
    CRASHES.mkdir(exist_ok=True)
    before = set(CRASHES.iterdir())
    jobs = max(1, args.jobs)
    share = -(-args.runs // jobs)  # each process runs its share; together at least --runs
    children = []
    print(f"fuzzing {args.runs:,} inputs in {jobs} process(es); logs in {work}", flush=True)
    start = time.monotonic()
    for job in range(jobs):
        progress, log = work / f"progress-{job}.json", work / f"libfuzzer-{job}.log"
        command = [
            sys.executable, "-m", "fuzz.campaign", "--worker", str(progress), "--",
            f"-runs={share}", f"-max_total_time={args.seconds}", f"-seed={args.seed + job}",
            f"-max_len={MAX_LEN}", "-timeout=10",
            f"-rss_limit_mb={RSS_LIMIT_MB}", f"-dict={work / 'sitemap.dict'}",
            f"-artifact_prefix={CRASHES}/", "-print_final_stats=1", "-reduce_inputs=0",
            str(corpus_dir), str(seed_dir),
        ]  # fmt: skip
        out = log.open("wb")
        child = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, cwd=HERE.parent)
        children.append((child, out, progress, log))
    inputs, counts = 0, []
    failed = False
    for child, out, progress, log in children:
        code = child.wait()
        out.close()
        text = log.read_text(errors="replace")
        if code != 0:
            failed = True
            print(text[-4_000:])
            print(f"a fuzzer stopped (exit {code}); its log: {log}")
            continue
        executed = re.search(r"stat::number_of_executed_units: (\d+)", text)
        if executed is None:
            sys.exit(f"no count of executed inputs in {log}")
        ran = int(executed[1])
        counted = json.loads(progress.read_text())
        # The child writes its count every PROGRESS_EVERY inputs: it must agree with libFuzzer.
        if not ran - PROGRESS_EVERY < counted["inputs"] <= ran:
            sys.exit(f"libFuzzer ran {ran:,} inputs but the harness counted {counted['inputs']:,}")
        inputs += ran
        counts.append(counted)
    seconds = time.monotonic() - start
    crashes = sorted(set(CRASHES.iterdir()) - before)
    if not any(CRASHES.iterdir()):
        CRASHES.rmdir()  # nothing found: leave no empty folder in the checkout
    if failed or crashes:
        print(f"the campaign found something; inputs: {[str(p) for p in crashes]}")
        sys.exit(1)
    commit, dirty = checkout()
    peak_rss = max(c["rss_mb"] for c in counts)
    runs = sum((Counter(c["runs"]) for c in counts), Counter())
    result = {
        "inputs": inputs,
        "seconds": round(seconds, 1),
        "findings_fixed": len(fixed),
        "tool": f"atheris {version('atheris')} (libFuzzer), Python {sys.version.split()[0]}"
        + (f", {jobs} processes" if jobs > 1 else ""),
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "commit": commit,
        "dirty": dirty,
        "seed_pool": len(pool),
        "seed_pool_corpus": bool(corpus_docs()),
        "peak_rss_mb": peak_rss,
        "checks": {
            "counted": sum(c["inputs"] for c in counts),
            "runs": dict(sorted(runs.items())),
            "memory_every": MEMORY_EVERY,
            "bytewise_max": BYTEWISE_MAX,
        },
    }
    print(
        f"{inputs:,} inputs in {seconds:,.0f} s ({inputs / seconds:,.0f}/s); peak RSS of a "
        f"fuzzing process {peak_rss:,} MB; kept/dropped by scope "
        f"{sum(c['kept'] for c in counts):,}/{sum(c['dropped'] for c in counts):,}; "
        f"reads {dict(sorted(runs.items()))}"
    )
    if not args.no_results:
        args.results.write_text(json.dumps(result, indent=2) + "\n")
        print(f"wrote {args.results}")


# -- the child: atheris itself ------------------------------------------------------------


def worker(progress: Path, libfuzzer_args: list[str]) -> None:
    import atheris

    with atheris.instrument_imports(include=["sitemap_reader"]):
        import sitemap_reader  # noqa: F401  -- instrumented for coverage, with all it imports

    from .harness import HEADER, check
    from .mutate import mutate
    from .seeds import seeds

    pool = seeds()
    tally = {"inputs": 0, "kept": 0, "dropped": 0}
    runs: Counter[str] = Counter()  # inputs that got each read (harness.Outcome.runs)
    start = time.monotonic()

    def test_one_input(data: bytes) -> None:
        tally["inputs"] += 1
        count = tally["inputs"]
        outcome = check(data, memory=count % MEMORY_EVERY == 0)
        tally["kept"] += outcome.kept
        tally["dropped"] += outcome.dropped
        runs.update(outcome.runs)
        if count % PROGRESS_EVERY == 0:
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
            state = {
                **tally,
                "runs": runs,
                "seconds": round(time.monotonic() - start, 1),
                "rss_mb": rss,
            }
            tmp = progress.with_suffix(".tmp")
            tmp.write_text(json.dumps(state))
            tmp.replace(progress)

    def custom_mutator(data: bytes, max_size: int, seed: int) -> bytes:
        rng = random.Random(seed)
        if rng.random() < 0.4 and max_size > HEADER:  # libFuzzer's own byte-level mutations
            mutated: bytes = atheris.Mutate(data[HEADER:], max_size - HEADER)
            return data[:HEADER] + mutated
        return mutate(data, rng, pool, max_size)

    atheris.Setup([sys.argv[0], *libfuzzer_args], test_one_input, custom_mutator=custom_mutator)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
