"""Instructions, not seconds: SitemapParser on bench_parse's documents under callgrind.

    python benchmarks/bench_instructions.py [--urls N] [--docs plain,mixed,exact] [--python PY]

A busy machine moves wall-clock figures by 10 to 50%; valgrind's instruction count for the
same interpreter, document and code is the same from run to run, whatever else runs. So a
change that must not slow the parser (a move of modules, a new check) is measured here,
before and after, with ``--python`` naming the other checkout's interpreter: the child runs
from the directory the package is imported from, so each side reads its own code. The
count includes the interpreter's start and the package's import (a few percent of a
50,000-URL document); the document is fed in 64 KiB chunks as the reader does.

``--keep DIR`` keeps each run's callgrind file there (``DIR/<doc>-<n>.callgrind``, n the
interpreter's place in ``--python``), to see where the instructions go:
``callgrind_annotate --inclusive=yes FILE``. Each checkout's
bytecode is written first (``_bytecode.py``), so that no count includes compiling it.

Needs valgrind (Debian's package). The documents are bench_parse's, generated on first use.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_parse import CHUNK, DATA, SITEMAP_URL, generate

CHILD = """
import sys
from sitemap_reader import Entry, SitemapParser
data = open(sys.argv[1], "rb").read()
parser, urls = SitemapParser(sys.argv[2]), 0
for start in range(0, len(data), int(sys.argv[3])):
    urls += sum(type(e) is Entry for e in parser.feed(data[start:start + int(sys.argv[3])]))
urls += sum(type(e) is Entry for e in parser.close())
print(urls)
"""
_COLLECTED = re.compile(r"Collected : (\d+)")


def document(name: str, urls: int) -> Path:
    """bench_parse's document ``name`` of ``urls`` URLs (seed 0), made if missing."""
    DATA.mkdir(exist_ok=True)
    found = sorted(DATA.glob(f"{name}-{urls}-0-*.xml"))
    if found:
        return found[0]
    path = DATA / f"{name}-{urls}-0-instructions.xml"
    generate(urls, 0, name, path)
    return path


def instructions(python: str, path: Path, cwd: Path, keep: Path | None) -> tuple[int, int]:
    """(instructions, URLs read) of one parse of ``path`` by ``python`` under callgrind; its
    callgrind file is moved to the file ``keep`` when given."""
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={tmp}/out",
                python,
                "-c",
                CHILD,
                str(path),
                SITEMAP_URL,
                str(CHUNK),
            ],
            capture_output=True,
            text=True,
            check=True,
            cwd=cwd,
            timeout=3600,
        )
        if keep is not None:
            shutil.move(f"{tmp}/out", keep)
    found = _COLLECTED.search(done.stderr)
    if found is None:
        raise SystemExit(f"callgrind printed no count:\n{done.stderr[-2000:]}")
    return int(found[1]), int(done.stdout.split()[-1])


def _home(python: str) -> Path:
    """The directory whose sitemap_reader ``python`` imports (the child runs from there)."""
    code = "import pathlib, sitemap_reader; print(pathlib.Path(sitemap_reader.__file__).parents[1])"
    return Path(
        subprocess.run(
            [python, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            cwd=tempfile.gettempdir(),
        ).stdout.strip()
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--urls", type=int, default=50_000)
    parser.add_argument("--docs", default="plain,mixed,exact")
    parser.add_argument("--python", action="append", help="an interpreter to count (repeatable)")
    parser.add_argument("--keep", type=Path, metavar="DIR", help="keep the callgrind files here")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (apt-get install valgrind)")
    pythons = args.python or [sys.executable]
    homes = [_home(python) for python in pythons]
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
    for python in pythons:  # each checkout's bytecode, as pip install . writes it
        code = "import sys; sys.path.insert(0, sys.argv[1]); from _bytecode import compile_package; compile_package()"
        subprocess.run([python, "-c", code, str(HERE)], check=True, cwd=tempfile.gettempdir())
    print(f"{'document':10} " + " ".join(f"{home!s:>40}" for home in homes))
    for name in args.docs.split(","):
        path = document(name, args.urls)
        counts = [
            instructions(python, path, home, args.keep and args.keep / f"{name}-{i}.callgrind")
            for i, (python, home) in enumerate(zip(pythons, homes, strict=True))
        ]
        assert len({urls for _, urls in counts}) == 1, counts  # every side read it all
        base = counts[0][0]
        cells = [f"{n:>26,} ({n / base - 1:+.1%})" for n, _ in counts]
        print(f"{name:10} " + " ".join(f"{cell:>40}" for cell in cells))


if __name__ == "__main__":
    main()
