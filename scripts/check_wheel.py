"""Install one built file of the release set into a new virtual environment and try it.

    python scripts/check_wheel.py FILE --core rust|python [--tests]

The release workflow (.github/workflows/release.yml) runs it on each platform before
anything is uploaded: README's main job (``sitemap-reader dump examples/sitemap.xml``) must
print its four URLs, ``sitemap-reader --version`` must name the expected core, and with
``--tests`` the core's test suite runs against the installed package (from a copy of
``tests/`` without the source package beside it, so that the wheel is what is imported).
Dependencies come from the package index. Standard library only: it runs before anything
else is installed, on Linux, macOS and Windows.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "sitemap.xml"
README_JOB_URLS = [
    "https://www.example.com/",
    "https://www.example.com/products/teapot?colour=blue&size=large",
    "https://www.example.com/about",
    "https://www.example.com/blog/2026/sitemaps-from-the-crawler-side",
]
# The suites that run against the installed package: the records, the parser on both of its
# paths and the corpus-free command line need no network and no optional service.
SUITES = ("tests/base", "tests/core")


def _bin(venv: Path, name: str) -> Path:
    return venv / ("Scripts" if os.name == "nt" else "bin") / name


def _run(*args: str | Path, cwd: Path, env: dict[str, str]) -> str:
    done = subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        sys.exit(f"{' '.join(map(str, args))} failed:\n{done.stdout}{done.stderr}")
    return done.stdout


def check(file: Path, core: str, tests: bool, work: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SITEMAP_READER_")}
    subprocess.run([sys.executable, "-m", "venv", str(work / "venv")], check=True)
    python = _bin(work / "venv", "python")
    wanted = f"{file.resolve()}[test]" if tests else str(file.resolve())
    _run(python, "-m", "pip", "install", "--quiet", wanted, cwd=work, env=env)

    version = _run(_bin(work / "venv", "sitemap-reader"), "--version", cwd=work, env=env)
    if f"(core: {core}" not in version:
        sys.exit(f"{file.name}: expected the {core} core, got {version.strip()!r}")
    job: list[str | Path] = [
        _bin(work / "venv", "sitemap-reader"),
        "dump",
        EXAMPLE,
        "--format",
        "txt",
    ]
    urls = _run(*job, cwd=work, env=env).splitlines()
    if urls != README_JOB_URLS:
        sys.exit(f"{file.name}: README's job printed {urls!r}")
    print(f"{file.name}: {version.strip()}; README's job printed its {len(urls)} URLs")
    if not tests:
        return
    # The tests without the source package: the installed one is the one they import.
    copy = work / "checkout"
    for name in ("tests", "examples", "docs"):
        shutil.copytree(ROOT / name, copy / name)
    shutil.copy2(ROOT / "pyproject.toml", copy / "pyproject.toml")
    env["CI"] = "false"  # the corpus of real sitemaps is not part of the repository
    _run(python, "-m", "pytest", "-q", "-p", "no:cacheprovider", *SUITES, cwd=copy, env=env)
    print(f"{file.name}: {', '.join(SUITES)} passed against the installed package")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file", type=Path, help="a wheel or the sdist")
    parser.add_argument("--core", choices=("rust", "python"), required=True)
    parser.add_argument("--tests", action="store_true", help="run the core's tests too")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        check(options.file, options.core, options.tests, Path(work))


if __name__ == "__main__":
    main()
