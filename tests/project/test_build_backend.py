"""The build backend (build_backend/): maturin where cargo is, the pure-Python core elsewhere.

Installs run for real, into fresh virtual environments on a PATH without Rust and with no
package index (tests/support/fresh_venv.py): an install that asked for maturin, or for a
toolchain, would fail there. The release set's own wheels are tests/project/test_dist.py's.
"""

from __future__ import annotations

import email.parser
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import _pure_wheel
import pytest
import sitemap_reader_build

from tests.support.fresh_venv import EXAMPLE, README_JOB_URLS, ROOT, make_venv
from tests.support.wheels import CI, cargo_version, normal_metadata

needs_tomllib = pytest.mark.skipif(
    sys.version_info < (3, 11),
    reason="on 3.10 the isolated build needs tomli from the index, which these installs forbid",
)


def _path_with_cargo(tmp_path: Path, cargo: bool) -> str:
    """A PATH of one folder, holding an executable ``cargo`` or not."""
    folder = tmp_path / ("with-cargo" if cargo else "without-cargo")
    folder.mkdir()
    if cargo:
        (folder / "cargo").write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
        (folder / "cargo").chmod(0o755)
    return str(folder)


@pytest.mark.parametrize(
    ("cargo", "variable", "wants_maturin"),
    [
        (True, None, True),
        (False, None, False),
        (True, "auto", True),
        (True, "pure", False),
        (True, " Pure ", False),
        (False, "pure", False),
        (True, "compiled", True),
    ],
)
def test_maturin_is_asked_for_only_where_the_compiled_core_is_built(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    cargo: bool,
    variable: str | None,
    wants_maturin: bool,
) -> None:
    monkeypatch.setenv("PATH", _path_with_cargo(tmp_path, cargo))
    if variable is None:
        monkeypatch.delenv(sitemap_reader_build.BUILD_ENV, raising=False)
    else:
        monkeypatch.setenv(sitemap_reader_build.BUILD_ENV, variable)
    want = [sitemap_reader_build.MATURIN] if wants_maturin else []
    assert sitemap_reader_build.get_requires_for_build_wheel() == want
    assert sitemap_reader_build.get_requires_for_build_editable() == want


@pytest.mark.parametrize(
    ("variable", "message"),
    [
        ("compiled", "SITEMAP_READER_BUILD=compiled, but there is no cargo on the PATH"),
        ("rust", "SITEMAP_READER_BUILD='rust': expected pure, compiled or auto"),
    ],
)
def test_a_choice_that_cannot_be_kept_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variable: str, message: str
) -> None:
    monkeypatch.setenv("PATH", _path_with_cargo(tmp_path, cargo=False))
    monkeypatch.setenv(sitemap_reader_build.BUILD_ENV, variable)
    with pytest.raises(sitemap_reader_build.BuildChoiceError) as raised:
        sitemap_reader_build.get_requires_for_build_wheel()
    assert str(raised.value).startswith(message)


def _tree_with_leftovers(tmp_path: Path) -> Path:
    """A copy of what the pure build reads, plus what an earlier build leaves in a tree: a
    compiled extension and Python's caches, none of which may ride along."""
    tree = tmp_path / "tree"
    for name in ("pyproject.toml", "Cargo.toml", "README.md"):
        tree.mkdir(exist_ok=True)
        shutil.copy2(ROOT / name, tree / name)
    shutil.copytree(
        ROOT / "sitemap_reader",
        tree / "sitemap_reader",
        ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyc"),
    )
    (tree / "sitemap_reader" / "_native.abi3.so").write_bytes(b"\x7fELF stale")
    (tree / "sitemap_reader" / "__pycache__").mkdir()
    (tree / "sitemap_reader" / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"")
    return tree


def test_the_variable_forces_the_pure_wheel_where_cargo_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = _tree_with_leftovers(tmp_path)
    monkeypatch.setenv("PATH", _path_with_cargo(tmp_path, cargo=True))
    monkeypatch.setenv(sitemap_reader_build.BUILD_ENV, "pure")
    monkeypatch.chdir(tree)  # a PEP 517 hook runs in the source tree
    name = sitemap_reader_build.build_wheel(str(tmp_path / "out"))
    assert name == f"sitemap_reader-{cargo_version()}-py3-none-any.whl"
    wheel = zipfile.ZipFile(tmp_path / "out" / name)
    files = {
        p.relative_to(tree).as_posix()
        for p in (tree / "sitemap_reader").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".so"
    }
    info = f"sitemap_reader-{cargo_version()}.dist-info"
    assert set(wheel.namelist()) == files | {
        f"{info}/{n}" for n in ("METADATA", "WHEEL", "entry_points.txt", "RECORD")
    }
    assert {"sitemap_reader/py.typed", "sitemap_reader/_native.pyi"} <= files
    tags = email.parser.Parser().parsestr(wheel.read(f"{info}/WHEEL").decode())
    assert (tags["Tag"], tags["Root-Is-Purelib"]) == ("py3-none-any", "true")
    assert wheel.testzip() is None


def test_the_wheels_record_holds_every_file_and_its_hash(tmp_path: Path) -> None:
    """pip refuses a wheel whose RECORD is wrong; installing one checks the whole of it."""
    name = _pure_wheel.build(ROOT, tmp_path)
    wheel = zipfile.ZipFile(tmp_path / name)
    info = f"sitemap_reader-{cargo_version()}.dist-info"
    record = wheel.read(f"{info}/RECORD").decode().splitlines()
    listed = {line.split(",")[0]: line for line in record}
    assert set(listed) == set(wheel.namelist())
    assert listed[f"{info}/RECORD"] == f"{info}/RECORD,,"
    for member in wheel.namelist():
        if member != f"{info}/RECORD":
            data = wheel.read(member)
            assert listed[member] == _pure_wheel._record_line(member, data).strip()


def test_the_pure_metadata_is_maturins(tmp_path: Path) -> None:
    """The same distribution either way: maturin's own metadata for this tree, field by
    field (requirements compared by what they mean: maturin rewrites their spelling)."""
    maturin = shutil.which("maturin")
    if maturin is None or shutil.which("cargo") is None:  # maturin reads the crate with cargo
        if CI:
            pytest.fail("CI is set but maturin or cargo is missing (scripts/dist-requirements.txt)")
        pytest.skip("no maturin or no cargo here")
    where = str(tmp_path / "m")
    done = subprocess.run(
        [maturin, "pep517", "write-dist-info", "--metadata-directory", where, "-i", sys.executable],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    theirs = tmp_path / "m" / done.stdout.strip().splitlines()[-1]
    ours = tmp_path / "p" / _pure_wheel.write_dist_info(ROOT, tmp_path / "p")
    assert ours.name == theirs.name
    for name in ("METADATA", "entry_points.txt"):
        assert (ours / name).is_file()
    assert normal_metadata((ours / "METADATA").read_text("utf-8")) == normal_metadata(
        (theirs / "METADATA").read_text("utf-8")
    )
    assert (ours / "entry_points.txt").read_text() == (theirs / "entry_points.txt").read_text()


@needs_tomllib
def test_a_machine_without_cargo_installs_the_pure_core_and_fetches_nothing(
    tmp_path: Path,
) -> None:
    """README's first command on a machine without Rust: ``pip install .``, then the job."""
    venv = make_venv(tmp_path / "venv")
    done = venv.pip_install(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    output = done.stdout + done.stderr  # pip shows the backend's output on stderr
    assert "sitemap-reader: building the pure-Python core" in output
    assert "maturin" not in output.lower()
    assert "puccinialin" not in output.lower()
    venv.borrow_dependencies()
    where = venv.run(venv.python, "-c", "import sitemap_reader; print(sitemap_reader.__file__)")
    assert Path(where.stdout.strip()).is_relative_to(venv.root)
    version = venv.run(venv.bin / "sitemap-reader", "--version")
    assert version.stdout.strip() == (
        f"sitemap-reader {cargo_version()} (core: python, no compiled core)"
    )
    job = venv.run(venv.bin / "sitemap-reader", "dump", EXAMPLE, "--format", "txt")
    assert (job.returncode, job.stdout.splitlines()) == (0, README_JOB_URLS), job.stderr


@needs_tomllib
def test_the_pure_editable_install_imports_the_tree(tmp_path: Path) -> None:
    """README's second command without Rust: ``pip install -e .`` (PEP 660) of the pure core."""
    venv = make_venv(tmp_path / "venv")
    done = venv.pip_install("-e", ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "sitemap-reader: an editable install of the pure-Python core" in done.stderr
    venv.borrow_dependencies()
    code = "import sitemap_reader as s; print(s.__file__); print(s.__version__)"
    where, version = venv.run(venv.python, "-c", code).stdout.splitlines()
    assert Path(where) == ROOT / "sitemap_reader" / "__init__.py"
    assert version == cargo_version()


def test_no_sdist_without_cargo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", _path_with_cargo(tmp_path, cargo=False))
    with pytest.raises(sitemap_reader_build.BuildChoiceError, match="needs cargo"):
        sitemap_reader_build.build_sdist(str(tmp_path))
    assert os.listdir(tmp_path) == ["without-cargo"]
