"""Under CI (``CI=true``) a missing corpus fails the run instead of skipping its tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _pytest(tmp_path: Path, ci: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CI": ci, "SITEMAP_READER_CORPUS": str(tmp_path / "no-corpus")}
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests/core/test_dates.py",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_ci_without_the_corpus_fails_the_run(tmp_path: Path) -> None:
    done = _pytest(tmp_path, "true")
    assert done.returncode != 0
    assert "corpus is missing" in done.stderr + done.stdout


def test_outside_ci_a_missing_corpus_only_skips(tmp_path: Path) -> None:
    done = _pytest(tmp_path, "")
    assert done.returncode == 0, done.stdout + done.stderr
