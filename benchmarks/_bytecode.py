"""The package's bytecode, written before a benchmark starts fresh interpreters.

``pip install .`` compiles every module to ``__pycache__`` as it installs, so a user's
command starts from bytecode. A checkout installed with ``pip install -e`` writes the
bytecode on first import, unless ``PYTHONDONTWRITEBYTECODE`` is set (as it is on some
machines, CI's among them): then every process compiles the package from source again,
which cost a process about 40 ms here (2026-12-02: importing the command line took 0.18 s
from source, 0.14 s from bytecode). The readers it is
measured against are installed packages, with their bytecode. Compiling the package first
measures what a user runs, whatever the machine sets.
"""

from __future__ import annotations

import compileall
import importlib.util
from pathlib import Path


def compile_package(name: str = "sitemap_reader") -> Path:
    """Write the bytecode of every module of ``name`` (found without importing it, so the
    caller's own memory stays clean); the package's folder."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"{name} is not installed: pip install -e . first")
    folder = Path(next(iter(spec.submodule_search_locations)))
    # py_compile writes whatever sys.dont_write_bytecode says: that flag governs imports only.
    if not compileall.compile_dir(folder, quiet=1):
        raise SystemExit(f"{folder}: a module did not compile")
    return folder
