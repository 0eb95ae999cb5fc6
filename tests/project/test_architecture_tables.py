"""docs/architecture.md's tables of files hold what the repository holds, as the layer
rules hold the imports (tests/project/test_layers.py, which also reads the command line's
glue table).

* "Where each module is tested" names every module of the package (``_cli``'s included);
* the crate's table ("The compiled core") names every Rust file, one row or name each;
* "Where the crate is tested" covers every Rust file, by its name or a ``*`` pattern;

and every file those tables name exists, so a module or a file added, renamed or removed
without the page fails here.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.support.doc_tables import ROOT, names, table

PACKAGE = ROOT / "sitemap_reader"
# Named in the tables, made by the build (maturin), so absent from a fresh clone.
BUILT = frozenset({"sitemap_reader/_native.abi3.so"})
# Where the crate's Rust files live; cargo's build folders (target/) are left out.
RUST_FOLDERS = ("src", "benches", "fuzz")


def _holds_code(init: Path) -> bool:
    """Whether a package's ``__init__.py`` holds more than its docstring and
    ``from __future__ import annotations``: a folder alone needs no row, code does."""
    body = ast.parse(init.read_text(encoding="utf-8")).body
    rest = [
        node
        for node in body
        if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))
        and not (isinstance(node, ast.ImportFrom) and node.module == "__future__")
    ]
    return bool(rest)


def package_modules(package: Path = PACKAGE) -> set[str]:
    """The package's module files, relative to it: every ``.py`` and ``.pyi``, but a
    package's ``__init__.py`` only when it holds code."""
    found = set()
    for path in [*package.rglob("*.py"), *package.rglob("*.pyi")]:
        if "__pycache__" in path.parts:
            continue
        if path.name == "__init__.py" and path.parent != package and not _holds_code(path):
            continue
        found.add(path.relative_to(package).as_posix())
    return found


def rust_files(root: Path = ROOT) -> set[str]:
    """The crate's Rust files (the cargo-fuzz crate's included), relative to the root."""
    return {
        path.relative_to(root).as_posix()
        for folder in RUST_FOLDERS
        for path in (root / folder).rglob("*.rs")
        if "target" not in path.relative_to(root).parts
    }


def first_column(header: str) -> list[str]:
    return [name for row in table(header) for name in names(row[0])]


MODULE_TABLE = "Module | Its job | Tested by"
CRATE_TABLE = "File | What it holds"
CRATE_TESTS_TABLE = "File | What it holds | Tested by"


def _missing(named: list[str], root: Path) -> list[str]:
    return [
        name
        for name in named
        if not any(root.glob(name))
        and f"{root.relative_to(ROOT).as_posix()}/{name}".lstrip("./") not in BUILT
    ]


def test_the_module_table_names_every_module() -> None:
    named = first_column(MODULE_TABLE)
    assert sorted(package_modules() - set(named)) == []
    assert [name for name in named if named.count(name) > 1] == []


def test_every_module_the_table_names_exists() -> None:
    assert _missing(first_column(MODULE_TABLE), PACKAGE) == []


def test_the_command_lines_modules_are_in_the_table() -> None:
    """Every module of ``_cli`` (its ``__init__``, which holds ``main``, included)."""
    cli = {path.relative_to(PACKAGE).as_posix() for path in (PACKAGE / "_cli").glob("*.py")}
    assert "_cli/__init__.py" in cli
    assert sorted(cli - set(first_column(MODULE_TABLE))) == []


def test_the_crate_table_names_every_rust_file() -> None:
    named = first_column(CRATE_TABLE)
    assert "src/lib.rs" in rust_files()
    assert sorted(rust_files() - set(named)) == []
    assert [name for name in named if named.count(name) > 1] == []


def test_every_file_the_crate_table_names_exists() -> None:
    assert _missing(first_column(CRATE_TABLE), ROOT) == []


def test_the_crates_tests_cover_every_rust_file() -> None:
    """A row may name its files by a pattern (``src/block/*.rs``); each must match one."""
    named = first_column(CRATE_TESTS_TABLE)
    covered = {path.relative_to(ROOT).as_posix() for name in named for path in ROOT.glob(name)}
    assert sorted(rust_files() - covered) == []
    assert _missing(named, ROOT) == []


@pytest.mark.parametrize(
    ("planted", "found_by"),
    [
        ("sitemap_reader/_core/_xml/_planted.py", package_modules),
        ("sitemap_reader/_cli/_planted.py", package_modules),
        ("src/block/planted.rs", rust_files),
        ("fuzz/fuzz_targets/planted.rs", rust_files),
    ],
)
def test_a_new_file_is_seen(planted: str, found_by: object, tmp_path: Path) -> None:
    """The checks see a file the page does not name: a copy of the tree with one more."""
    for folder in ("sitemap_reader", *RUST_FOLDERS):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix in (".py", ".pyi", ".rs") and "target" not in path.parts:
                copy = tmp_path / path.relative_to(ROOT)
                copy.parent.mkdir(parents=True, exist_ok=True)
                copy.write_bytes(path.read_bytes())
    (tmp_path / planted).write_text('"""A module no table names."""\nX = 1\n', encoding="utf-8")
    if found_by is package_modules:
        new = package_modules(tmp_path / "sitemap_reader") - package_modules()
        assert new == {planted.removeprefix("sitemap_reader/")}
        assert not new <= set(first_column(MODULE_TABLE))
    else:
        new = rust_files(tmp_path) - rust_files()
        assert new == {planted}
        assert not new <= set(first_column(CRATE_TABLE))


def test_a_name_without_a_file_is_seen() -> None:
    """A table naming a file that is gone (a module renamed) is caught by ``_missing``."""
    assert _missing(["_core/_xml/_tokenizer.py", "_core/_xml/_exact.py"], PACKAGE) == [
        "_core/_xml/_tokenizer.py"
    ]
    assert _missing(["_native.abi3.so"], PACKAGE) == []  # built, not in git
