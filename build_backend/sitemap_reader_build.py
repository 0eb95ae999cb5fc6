"""The build backend (PEP 517, PEP 660): maturin where Rust is, the pure-Python core elsewhere.

pyproject.toml names this module with ``backend-path``, so it comes with the source tree and
needs nothing installed first. With ``cargo`` on the PATH, every hook hands over to maturin,
which compiles the extension; without it, the wheel is the pure-Python package, tagged
``py3-none-any`` and written by ``_pure_wheel`` with the standard library alone, so that a
machine without Rust neither needs a toolchain nor downloads one (maturin's own fallback
fetches a whole Rust toolchain when ``cargo`` is missing, which is what this avoids).

``SITEMAP_READER_BUILD`` forces either way: ``pure`` builds the pure wheel even where Rust is,
``compiled`` insists on maturin (and fails with a clear message without ``cargo``).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import _pure_wheel

BUILD_ENV = "SITEMAP_READER_BUILD"
# What the compiled build needs, asked for only when it is the one chosen (the static
# requires in pyproject.toml name nothing of the kind, so pip fetches no maturin otherwise).
MATURIN = "maturin>=1.9.4,<2"

ConfigSettings = Mapping[str, Any] | None


class BuildChoiceError(RuntimeError):
    """``SITEMAP_READER_BUILD`` holds an unknown value, or asks for maturin without cargo."""


def compiled_build() -> bool:
    """Whether this build hands over to maturin: forced by ``SITEMAP_READER_BUILD``, or
    else whether ``cargo`` is on the PATH (the test maturin itself makes)."""
    forced = os.environ.get(BUILD_ENV, "").strip().lower()
    if forced in ("", "auto"):
        return shutil.which("cargo") is not None
    if forced == "pure":
        return False
    if forced == "compiled":
        if shutil.which("cargo") is None:
            raise BuildChoiceError(
                f"{BUILD_ENV}=compiled, but there is no cargo on the PATH: install Rust "
                f"(https://rustup.rs) or unset {BUILD_ENV} to build the pure-Python core"
            )
        return True
    raise BuildChoiceError(f"{BUILD_ENV}={forced!r}: expected pure, compiled or auto")


def _maturin() -> Any:
    # Never let maturin download a toolchain of its own: the choice above was made.
    os.environ["MATURIN_NO_INSTALL_RUST"] = "1"
    import maturin

    return maturin


def _why_pure() -> str:
    forced = os.environ.get(BUILD_ENV, "").strip().lower() == "pure"
    return f"{BUILD_ENV}=pure" if forced else "no cargo on the PATH"


def _say(what: str) -> None:
    # pip shows a backend's output with -v; the choice is the first thing to look for.
    print(f"sitemap-reader: {what}", flush=True)


def get_requires_for_build_wheel(config_settings: ConfigSettings = None) -> list[str]:
    return [MATURIN] if compiled_build() else []


def get_requires_for_build_editable(config_settings: ConfigSettings = None) -> list[str]:
    return get_requires_for_build_wheel(config_settings)


def get_requires_for_build_sdist(config_settings: ConfigSettings = None) -> list[str]:
    return [MATURIN]  # the sdist takes the crate: maturin lists its files (cargo package)


def prepare_metadata_for_build_wheel(
    metadata_directory: str, config_settings: ConfigSettings = None
) -> str:
    if compiled_build():
        name: str = _maturin().prepare_metadata_for_build_wheel(metadata_directory, config_settings)
        return name
    return _pure_wheel.write_dist_info(Path.cwd(), Path(metadata_directory))


def prepare_metadata_for_build_editable(
    metadata_directory: str, config_settings: ConfigSettings = None
) -> str:
    return prepare_metadata_for_build_wheel(metadata_directory, config_settings)


def build_wheel(
    wheel_directory: str,
    config_settings: ConfigSettings = None,
    metadata_directory: str | None = None,
) -> str:
    if compiled_build():
        _say("cargo found: building the compiled core with maturin")
        name: str = _maturin().build_wheel(wheel_directory, config_settings, metadata_directory)
        return name
    _say(f"building the pure-Python core ({_why_pure()})")
    return _pure_wheel.build(Path.cwd(), Path(wheel_directory))


def build_editable(
    wheel_directory: str,
    config_settings: ConfigSettings = None,
    metadata_directory: str | None = None,
) -> str:
    if compiled_build():
        _say("cargo found: building the compiled core into the tree with maturin")
        name: str = _maturin().build_editable(wheel_directory, config_settings, metadata_directory)
        return name
    _say(f"an editable install of the pure-Python core ({_why_pure()})")
    return _pure_wheel.build(Path.cwd(), Path(wheel_directory), editable=True)


def build_sdist(sdist_directory: str, config_settings: ConfigSettings = None) -> str:
    if shutil.which("cargo") is None:
        raise BuildChoiceError(
            "an sdist is made by maturin from the crate's manifest, which needs cargo: "
            "install Rust (https://rustup.rs), or build a wheel instead"
        )
    name: str = _maturin().build_sdist(sdist_directory, config_settings)
    return name
