"""Lines of the XML readers at a commit, tests aside: what issue 30's "line count down" is measured by.

    python benchmarks/count_reader_lines.py [COMMIT ...]     # default: HEAD

Python: every ``.py`` file of ``sitemap_reader/_core/_xml/`` (and the removed block scanner,
``_scan.py`` / ``_blocks.py`` / ``_urlscan.py``, where a commit still has them). Rust: the block
scanner (``src/block/``), the removed tokenizer (``src/urlset.rs``, ``src/names.rs``), the
records and references (``record.rs``, ``refs.rs``) and the bindings of the scanner, its
records and its interface (``py_block.rs``, ``pyslots.rs``, ``pyface.rs``); a Rust file is
counted up to its ``#[cfg(test)]`` module, and files of tests alone are left out.
"""

from __future__ import annotations

import re
import subprocess
import sys

_PYTHON = re.compile(r"^sitemap_reader/_core/(_xml/[^/]+|_scan|_blocks|_urlscan)\.py$")
_RUST = re.compile(r"^src/(block/[^/]+|urlset|names|record|refs|py_block|pyslots|pyface)\.rs$")
_TESTS_ONLY = ("proptests.rs", "tests.rs")


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], check=True, capture_output=True, text=True).stdout


def count(commit: str) -> tuple[tuple[int, int], tuple[int, int]]:
    """((Python lines, files), (Rust lines, files)) at ``commit``."""
    paths = _git("ls-tree", "-r", "--name-only", commit).splitlines()
    py = [p for p in paths if _PYTHON.match(p)]
    rs = [p for p in paths if _RUST.match(p) and not p.endswith(_TESTS_ONLY)]
    py_lines = sum(len(_git("show", f"{commit}:{p}").splitlines()) for p in py)
    rs_lines = 0
    for path in rs:
        text = _git("show", f"{commit}:{path}")
        rs_lines += len(text.split("#[cfg(test)]", 1)[0].splitlines())
    return (py_lines, len(py)), (rs_lines, len(rs))


def main(argv: list[str]) -> None:
    for commit in argv or ["HEAD"]:
        (py, py_files), (rs, rs_files) = count(commit)
        short = _git("rev-parse", "--short", commit).strip()
        print(f"{short}: Python {py:,} lines in {py_files} files, Rust {rs:,} in {rs_files}")


if __name__ == "__main__":
    main(sys.argv[1:])
