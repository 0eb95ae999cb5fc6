"""The release set as scripts/build-dist writes it: the sdist, the compiled manylinux2014
wheel and the pure-Python wheel, each installed into a fresh virtual environment whose PATH
has no Rust, then put to README's main job.

``.ci/run`` builds the set and names its folder in ``SITEMAP_READER_DIST``; elsewhere these
tests skip (under ``CI=true`` they fail).
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.support.fresh_venv import EXAMPLE, README_JOB_URLS, make_venv
from tests.support.wheels import CI, cargo_version, normal_metadata

COMPILED_TAG = "cp310-abi3-manylinux2014_x86_64.manylinux_2_17_x86_64"
PURE_TAG = "py3-none-any"


def _dist() -> Path:
    value = os.environ.get("SITEMAP_READER_DIST")
    if not value:
        if CI:
            pytest.fail("CI is set but SITEMAP_READER_DIST names no folder (.ci/run sets it)")
        pytest.skip("SITEMAP_READER_DIST names no folder (scripts/build-dist DIR makes one)")
    return Path(value)


def _artifact(kind: str) -> Path:
    name = {
        "compiled": f"sitemap_reader-{cargo_version()}-{COMPILED_TAG}.whl",
        "pure": f"sitemap_reader-{cargo_version()}-{PURE_TAG}.whl",
        "sdist": f"sitemap_reader-{cargo_version()}.tar.gz",
    }[kind]
    return _dist() / name


def test_the_set_is_the_three_files() -> None:
    names = sorted(p.name for p in _dist().iterdir())
    assert names == sorted(_artifact(kind).name for kind in ("compiled", "pure", "sdist"))


def test_auditwheel_finds_the_compiled_wheel_manylinux2014() -> None:
    """glibc 2.17 and later (Debian 8, Ubuntu 14.04, RHEL 7, Amazon Linux 2), whatever the
    glibc of the machine that built it."""
    if importlib.util.find_spec("auditwheel") is None:
        if CI:
            pytest.fail("CI is set but auditwheel is missing (scripts/dist-requirements.txt)")
        pytest.skip("no auditwheel here: pip install -r scripts/dist-requirements.txt")
    shown = subprocess.run(
        [sys.executable, "-m", "auditwheel", "show", str(_artifact("compiled"))],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    said = " ".join(shown.stdout.split())
    assert 'is consistent with the following platform tag: "manylinux_2_17_x86_64"' in said


def _members(wheel: zipfile.ZipFile) -> dict[str, bytes]:
    return {name: wheel.read(name) for name in wheel.namelist()}


def test_the_pure_wheel_holds_what_the_compiled_one_holds_but_the_extension() -> None:
    compiled = _members(zipfile.ZipFile(_artifact("compiled")))
    pure = _members(zipfile.ZipFile(_artifact("pure")))
    info = f"sitemap_reader-{cargo_version()}.dist-info"
    # Only the compiled wheel has Rust in it: the extension and its crates' bill of materials.
    rust = {"sitemap_reader/_native.abi3.so", f"{info}/sboms/sitemap-reader-native.cyclonedx.json"}
    assert set(compiled) - set(pure) == rust
    assert set(pure) - set(compiled) == set()
    package = [n for n in pure if n.startswith("sitemap_reader/")]
    assert {"sitemap_reader/py.typed", "sitemap_reader/_native.pyi"} <= set(package)
    assert [n for n in package if pure[n] != compiled[n]] == []
    assert normal_metadata(pure[f"{info}/METADATA"].decode()) == normal_metadata(
        compiled[f"{info}/METADATA"].decode()
    )
    assert pure[f"{info}/entry_points.txt"] == compiled[f"{info}/entry_points.txt"]


@pytest.mark.parametrize(
    ("kind", "core"),
    [
        ("compiled", "core: rust, release"),
        ("pure", "core: python, no compiled core"),
        ("sdist", "core: python, no compiled core"),  # built on the spot, without cargo
    ],
)
def test_each_file_installs_without_rust_and_runs_readmes_job(
    tmp_path: Path, kind: str, core: str
) -> None:
    venv = make_venv(tmp_path / "venv")
    done = venv.pip_install(_artifact(kind))
    assert done.returncode == 0, done.stdout + done.stderr
    if kind == "sdist":
        assert "sitemap-reader: building the pure-Python core" in done.stderr
    venv.borrow_dependencies()
    where = venv.run(venv.python, "-c", "import sitemap_reader; print(sitemap_reader.__file__)")
    assert Path(where.stdout.strip()).is_relative_to(venv.root)
    version = venv.run(venv.bin / "sitemap-reader", "--version")
    assert version.stdout.strip() == f"sitemap-reader {cargo_version()} ({core})"
    job = venv.run(venv.bin / "sitemap-reader", "dump", EXAMPLE, "--format", "txt")
    assert (job.returncode, job.stdout.splitlines()) == (0, README_JOB_URLS), job.stderr
    assert re.search(r"^sitemap-reader: 4 URLs from 1 sitemap", job.stderr, re.MULTILINE)
