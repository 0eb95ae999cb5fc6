"""The import boundaries between the package's layers, read from its source with ``ast``.

Every import statement counts, at module level, under ``TYPE_CHECKING`` or inside a
function (a lazy import is still a dependency). Three rules:

* no import points up: a module imports only its own layer and the layers below it;
* no module imports another module's private (``_``-prefixed) names: what is shared has a
  name without an underscore;
* the command line is a client of the public API: it imports ``sitemap_reader``'s public
  names, its own modules, and the few glue names of docs/architecture.md's glue table
  (``CLI_GLUE``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import sitemap_reader
from tests.support.doc_tables import names, table

PACKAGE = Path(sitemap_reader.__file__).parent

# Each layer and the layers right below it; a layer may import any layer reachable from it.
# _core: the loose modules (documents, codings, charsets, dates, sniffing) under the other
# formats, under the XML reader (which hands feeds to _formats), under the parser that routes
# between them; the walk's judgements use the loose modules only.
BELOW: dict[str, tuple[str, ...]] = {
    "_base": (),
    "_native": (),  # the compiled extension: it imports nothing of the package
    "_core": ("_base", "_native"),
    "_core._formats": ("_core",),
    "_core._xml": ("_core._formats",),
    "_core._parser": ("_core._xml",),
    "_core._walk": ("_core",),
    "_check": ("_core._parser", "_core._walk"),
    "_io._http": ("_core._parser", "_core._walk"),
    "_io._state": ("_io._http",),
    "_io._walk": ("_io._state",),
    "_api": ("_check", "_io._walk"),
    "_output": ("_api",),
    "public": ("_output",),
    "_cli": (),  # a client: see CLI_GLUE
    "__main__": ("_cli",),
}

# What the command line may import besides sitemap_reader's public names and its own modules:
# the glue table of docs/architecture.md ("The boundary rules"), read from the page, so that the
# page is the list.
CLI_GLUE: dict[str, frozenset[str]] = {
    names(module)[0]: frozenset(names(taken))
    for module, taken, _why in table("Module | Names | Why the command line needs it")
}


def module_name(path: Path) -> str:
    parts = ("sitemap_reader", *path.relative_to(PACKAGE).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}
# Modules of the package that are no Python source: the compiled extension (and its stub).
EXTENSIONS = frozenset({"sitemap_reader._native"})


def layer_of(module: str) -> str:
    """The layer of a module of the package, named as in ``BELOW``."""
    parts = module.split(".")[1:]
    if not parts or parts[0] in ("dask", "dlt", "scrapy"):
        return "public"
    if parts[0] in ("_core", "_io") and len(parts) > 1 and f"{parts[0]}.{parts[1]}" in BELOW:
        return f"{parts[0]}.{parts[1]}"
    if parts[0] == "_io":  # the folder's own __init__: no code, its lowest layer
        return "_io._http"
    return parts[0]


def may_import(layer: str) -> set[str]:
    """``layer`` and every layer below it."""
    seen = {layer}
    todo = [layer]
    while todo:
        for lower in BELOW[todo.pop()]:
            if lower not in seen:
                seen.add(lower)
                todo.append(lower)
    return seen


@dataclass(frozen=True)
class Import:
    importer: str
    line: int
    module: str  # the module of the package imported from
    name: str | None  # the name taken from it; None for the module itself

    def __str__(self) -> str:
        taken = f" ({self.name})" if self.name else ""
        return f"{self.importer}:{self.line} imports {self.module}{taken}"


def _package_of(module: str) -> str:
    return module if MODULES[module].name == "__init__.py" else module.rsplit(".", 1)[0]


def imports_of(module: str) -> Iterator[Import]:
    """Every import of the package's own modules or names by ``module``."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    aliases: dict[str, str] = {}  # local name -> module of the package it stands for
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "sitemap_reader":
                    aliases[alias.asname or alias.name] = alias.name
                    yield Import(module, node.lineno, alias.name, None)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = _package_of(module).split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            if target.split(".")[0] != "sitemap_reader":
                continue
            for alias in node.names:
                submodule = f"{target}.{alias.name}"
                if submodule in MODULES or submodule in EXTENSIONS:
                    aliases[alias.asname or alias.name] = submodule
                    yield Import(module, node.lineno, submodule, None)
                else:
                    yield Import(module, node.lineno, target, alias.name)
    # A name reached through an imported module (``_options.config``) is an import of it too.
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
        ):
            yield Import(module, node.lineno, aliases[node.value.id], node.attr)


ALL_IMPORTS = [found for module in MODULES for found in imports_of(module)]


def _private(name: str | None) -> bool:
    return name is not None and name.startswith("_") and not name.startswith("__")


def test_every_module_has_a_layer() -> None:
    assert {layer_of(module) for module in MODULES} <= set(BELOW)
    assert len(MODULES) > 50  # the package's source was found


def test_no_import_points_up() -> None:
    upward = [
        str(found)
        for found in ALL_IMPORTS
        if layer_of(found.importer) != "_cli"
        and layer_of(found.module) not in may_import(layer_of(found.importer))
    ]
    assert not upward, "\n".join(upward)


def test_no_module_imports_another_modules_private_names() -> None:
    private = [
        str(found)
        for found in ALL_IMPORTS
        if found.module != found.importer and found.module in MODULES and _private(found.name)
    ]
    assert not private, "\n".join(private)


def _cli_may_take(found: Import) -> bool:
    if found.module == "sitemap_reader":
        return found.name is None or found.name in sitemap_reader.__all__
    if layer_of(found.module) == "_cli":
        return True
    glue = CLI_GLUE.get(found.module.removeprefix("sitemap_reader."))
    return glue is not None and (found.name is None or found.name in glue)


def test_the_command_line_uses_the_public_api_and_the_listed_glue() -> None:
    cli = [found for found in ALL_IMPORTS if layer_of(found.importer) == "_cli"]
    assert any(found.module == "sitemap_reader" for found in cli)
    outside = [str(found) for found in cli if not _cli_may_take(found)]
    assert not outside, "\n".join(outside)


def test_the_glue_list_is_in_use() -> None:
    """A glue name the command line stopped using leaves the list (it stays short)."""
    used = {
        (found.module.removeprefix("sitemap_reader."), found.name)
        for found in ALL_IMPORTS
        if layer_of(found.importer) == "_cli"
    }
    unused = [
        f"{module}.{name}"
        for module, names in CLI_GLUE.items()
        for name in names
        if (module, name) not in used
    ]
    assert not unused, unused


def test_the_glue_table_names_each_module_once() -> None:
    """One row a module, one module a row: two rows of one module would merge unseen."""
    rows = table("Module | Names | Why the command line needs it")
    assert [len(names(module)) for module, _, _ in rows] == [1] * len(rows)
    assert len(CLI_GLUE) == len(rows)


@pytest.mark.parametrize(
    ("source", "broken"),
    [
        ("from .._io._walk._outbox import Outbox\n", "upward"),
        ("from ..._output._table import _pa\n", "private"),
        ("def f():\n    from ..dask import read_dask\n", "upward"),
    ],
)
def test_the_rules_catch_a_violation(
    source: str, broken: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A planted import in a core module is found (the checks read what they claim to)."""
    planted = tmp_path / "planted.py"
    planted.write_text(source, encoding="utf-8")
    module = (
        "sitemap_reader._core._doc" if broken != "private" else "sitemap_reader._core._xml._records"
    )
    monkeypatch.setitem(MODULES, module, planted)
    found = list(imports_of(module))
    assert found
    if broken == "upward":
        assert any(layer_of(f.module) not in may_import(layer_of(module)) for f in found)
    else:
        assert any(_private(f.name) for f in found)


# -- the tests mirror the code: test modules share code only through tests/support ----------

TESTS = Path(__file__).resolve().parents[1]


def _test_modules_imported(path: Path) -> list[str]:
    """The test modules (``test_*``) ``path`` imports, by their dotted names."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        found += [n for n in names if n.startswith("tests.") and ".test_" in n]
    return found


def test_no_test_module_imports_another() -> None:
    """What two test modules share lives in tests/support/, never in a test module."""
    imports = {
        str(path.relative_to(TESTS)): _test_modules_imported(path)
        for path in sorted(TESTS.rglob("*.py"))
    }
    assert {name: found for name, found in imports.items() if found} == {}


def test_the_test_folders_mirror_the_layers() -> None:
    """tests/ has a folder per layer (and support, integrations, project), no test at its top."""
    folders = {p.name for p in TESTS.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    assert {"base", "core", "check", "io", "api", "output", "cli", "support"} <= folders
    assert sorted(p.name for p in TESTS.glob("test_*.py")) == []
