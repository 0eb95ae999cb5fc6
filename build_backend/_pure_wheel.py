"""The pure-Python wheel (``py3-none-any``), written with the standard library alone.

It holds what maturin's wheel holds but the compiled extension: every file of the package
(``py.typed`` and ``_native.pyi`` included), the same metadata from pyproject.toml's
``[project]`` table and the same version, Cargo.toml's (the package's one version source).
tests/project/test_pure_build.py compares the two wheels file by file and field by field.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pyproject.toml's build requirements bring tomli on 3.10 alone
    import tomli as tomllib

PACKAGE = "sitemap_reader"
TAG = "py3-none-any"
# Never in a wheel: Python's caches, and compiled extensions (a pure wheel has none; one
# left in the tree by an earlier compiled build must not ride along).
_SKIPPED_DIRS = frozenset({"__pycache__"})
_SKIPPED_SUFFIXES = (".pyc", ".pyo", ".so", ".pyd", ".dylib")
# Zip entries carry a date: a fixed one (or SOURCE_DATE_EPOCH) makes the wheel reproducible.
_EPOCH = (1980, 1, 1, 0, 0, 0)


def _load(path: Path) -> dict[str, Any]:
    with path.open("rb") as file:
        table: dict[str, Any] = tomllib.load(file)
    return table


def project_table(root: Path) -> dict[str, Any]:
    table: dict[str, Any] = _load(root / "pyproject.toml")["project"]
    return table


def version(root: Path) -> str:
    """Cargo.toml's ``[package] version``: the one maturin gives the distribution."""
    found: str = _load(root / "Cargo.toml")["package"]["version"]
    return found


def _dist_name(name: str) -> str:
    # The wheel's file and .dist-info names (the binary distribution format's escaping).
    return re.sub(r"[-_.]+", "_", name).lower()


def _requirement(spec: str, extra: str | None) -> str:
    if extra is None:
        return spec
    requirement, _, marker = spec.partition(";")
    if marker.strip():
        return f"{requirement.strip()} ; ({marker.strip()}) and extra == '{extra}'"
    return f"{requirement.strip()} ; extra == '{extra}'"


def _readme(root: Path, project: dict[str, Any]) -> tuple[str, str] | None:
    readme = project.get("readme")
    if readme is None:
        return None
    if isinstance(readme, str):
        path = root / readme
        kinds = {".md": "text/markdown", ".rst": "text/x-rst"}
        return path.read_text(encoding="utf-8"), kinds.get(path.suffix.lower(), "text/plain")
    text = readme.get("text") or (root / readme["file"]).read_text(encoding="utf-8")
    return text, readme["content-type"]


def metadata(root: Path) -> str:
    """The core metadata (METADATA), version 2.4 as maturin writes it."""
    project = project_table(root)
    if set(project.get("dynamic", [])) - {"version"}:
        raise ValueError(f"only the version may be dynamic: {project['dynamic']}")
    lines = ["Metadata-Version: 2.4", f"Name: {project['name']}", f"Version: {version(root)}"]
    lines += [f"Classifier: {c}" for c in project.get("classifiers", [])]
    lines += [f"Requires-Dist: {_requirement(r, None)}" for r in project.get("dependencies", [])]
    extras: dict[str, list[str]] = project.get("optional-dependencies", {})
    for extra in sorted(extras):
        lines += [f"Requires-Dist: {_requirement(r, extra)}" for r in extras[extra]]
    lines += [f"Provides-Extra: {extra}" for extra in sorted(extras)]
    if "description" in project:
        lines.append(f"Summary: {project['description']}")
    if project.get("keywords"):
        lines.append(f"Keywords: {','.join(project['keywords'])}")
    for field, key in (("Author", "authors"), ("Maintainer", "maintainers")):
        people = project.get(key, [])
        names = [p["name"] for p in people if "name" in p and "email" not in p]
        emails = [
            f"{p['name']} <{p['email']}>" if "name" in p else p["email"]
            for p in people
            if "email" in p
        ]
        if names:
            lines.append(f"{field}: {', '.join(names)}")
        if emails:
            lines.append(f"{field}-email: {', '.join(emails)}")
    license_ = project.get("license")
    if isinstance(license_, str):
        lines.append(f"License-Expression: {license_}")
    if "requires-python" in project:
        lines.append(f"Requires-Python: {project['requires-python']}")
    lines += [f"Project-URL: {k}, {v}" for k, v in project.get("urls", {}).items()]
    readme = _readme(root, project)
    if readme is None:
        return "\n".join(lines) + "\n"
    text, kind = readme
    if kind == "text/markdown":
        kind = "text/markdown; charset=UTF-8; variant=GFM"
    lines.append(f"Description-Content-Type: {kind}")
    return "\n".join(lines) + "\n\n" + text + "\n"  # maturin ends the body so too


def entry_points(project: dict[str, Any]) -> str:
    groups: dict[str, dict[str, str]] = dict(project.get("entry-points", {}))
    if project.get("scripts"):
        groups["console_scripts"] = project["scripts"]
    if project.get("gui-scripts"):
        groups["gui_scripts"] = project["gui-scripts"]
    return "\n".join(
        f"[{group}]\n" + "".join(f"{k}={v}\n" for k, v in targets.items())
        for group, targets in groups.items()
    )


def package_files(root: Path) -> Iterator[Path]:
    """The package's files as they go into the wheel, in a stable order."""
    for folder, dirs, files in os.walk(root / PACKAGE):
        dirs[:] = sorted(d for d in dirs if d not in _SKIPPED_DIRS)
        for name in sorted(files):
            if not name.endswith(_SKIPPED_SUFFIXES):
                yield Path(folder) / name


def _dist_info_files(root: Path) -> dict[str, bytes]:
    project = project_table(root)
    files = {
        "METADATA": metadata(root).encode("utf-8"),
        "WHEEL": (
            "Wheel-Version: 1.0\n"
            "Generator: sitemap-reader build_backend\n"
            "Root-Is-Purelib: true\n"
            f"Tag: {TAG}\n"
        ).encode(),
    }
    points = entry_points(project)
    if points:
        files["entry_points.txt"] = points.encode("utf-8")
    return files


def _dist_info(root: Path) -> str:
    return f"{_dist_name(project_table(root)['name'])}-{version(root)}.dist-info"


def write_dist_info(root: Path, directory: Path) -> str:
    """``prepare_metadata_for_build_wheel``: the .dist-info folder alone."""
    name = _dist_info(root)
    (directory / name).mkdir(parents=True, exist_ok=True)
    for file, data in _dist_info_files(root).items():
        (directory / name / file).write_bytes(data)
    return name


def _record_line(path: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}\n"


def _date() -> tuple[int, int, int, int, int, int]:
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if not epoch:
        return _EPOCH
    import time

    stamp = time.gmtime(max(int(epoch), 315532800))  # a zip holds no date before 1980
    return (stamp.tm_year, stamp.tm_mon, stamp.tm_mday, stamp.tm_hour, stamp.tm_min, stamp.tm_sec)


def build(root: Path, directory: Path, *, editable: bool = False) -> str:
    """Write the wheel into ``directory``; return its file name.

    An editable wheel (PEP 660) holds, instead of the package, a ``.pth`` file naming the
    source root, as maturin's editable wheel does: the tree is imported where it is.
    """
    project = project_table(root)
    dist = f"{_dist_name(project['name'])}-{version(root)}"
    contents: list[tuple[str, bytes]] = []
    if editable:
        contents.append((f"{PACKAGE}.pth", f"{root.resolve()}\n".encode()))
    else:
        contents += [(p.relative_to(root).as_posix(), p.read_bytes()) for p in package_files(root)]
    info = _dist_info(root)
    for file, data in _dist_info_files(root).items():
        contents.append((f"{info}/{file}", data))
    record = "".join(_record_line(name, data) for name, data in contents)
    contents.append((f"{info}/RECORD", (record + f"{info}/RECORD,,\n").encode()))

    directory.mkdir(parents=True, exist_ok=True)
    wheel = f"{dist}-{TAG}.whl"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in contents:
            entry = zipfile.ZipInfo(name, date_time=_date())
            entry.external_attr = 0o644 << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(entry, data)
    (directory / wheel).write_bytes(buffer.getvalue())
    return wheel
