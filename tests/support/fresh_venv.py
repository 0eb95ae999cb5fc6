"""A fresh virtual environment on a PATH without Rust, as a user's machine without a toolchain.

The installs are local and quick: ``pip install --no-index --no-deps`` of one file, so
nothing can be fetched (no maturin, no toolchain: an install that asked for one fails), and
the project's dependencies come from the running environment instead. They are not copied
in (that is minutes of downloads and compiling on a 2-core machine): after the install, a
``.pth`` file names this environment's site-packages as a plain path, appended after the
fresh one's own, so the package under test is always the one just installed (its
``.pth``-file tricks, such as the editable install's, are not run from there).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

# README's main job and what it prints, as the release workflow checks it on each platform.
from check_wheel import EXAMPLE, README_JOB_URLS

__all__ = ["EXAMPLE", "README_JOB_URLS", "ROOT", "FreshVenv", "make_venv", "path_without_rust"]

ROOT = Path(__file__).resolve().parents[2]
# A hang guard: a pure install takes seconds; the bar for one is two minutes.
INSTALL_TIMEOUT = 120
# What pip and the build backend would otherwise take from the calling environment.
_DROPPED = ("SITEMAP_READER_PURE", "SITEMAP_READER_BUILD", "PYTHONPATH", "VIRTUAL_ENV", "PIP_")


def path_without_rust() -> list[str]:
    """The PATH's folders that hold neither ``cargo`` nor ``rustc`` (nor ``~/.cargo/bin``)."""
    cargo_home = str(Path.home() / ".cargo" / "bin")
    return [
        folder
        for folder in os.environ.get("PATH", "").split(os.pathsep)
        if folder
        and folder != cargo_home
        and not any(shutil.which(tool, path=folder) for tool in ("cargo", "rustc"))
    ]


@dataclass(frozen=True)
class FreshVenv:
    """A virtual environment made with ``--without-pip``, run on a PATH without Rust."""

    root: Path

    @property
    def bin(self) -> Path:
        return self.root / ("Scripts" if os.name == "nt" else "bin")

    @property
    def python(self) -> Path:
        return self.bin / ("python.exe" if os.name == "nt" else "python")

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(_DROPPED)}
        env["PATH"] = os.pathsep.join([str(self.bin), *path_without_rust()])
        # Where rustup and cargo would look, pointed at nothing.
        env["CARGO_HOME"] = env["RUSTUP_HOME"] = str(self.root / "no-rust")
        env["PIP_NO_INDEX"] = "1"  # nothing from the network, whatever the command says
        return env

    def run(self, *args: str | Path) -> subprocess.CompletedProcess[str]:
        """Run in the environment's folder: from the checkout, ``python -c`` would import
        the package from there, not the one installed."""
        return subprocess.run(
            [str(a) for a in args],
            cwd=self.root,
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=INSTALL_TIMEOUT,
            check=False,
        )

    def pip_install(self, *args: str | Path) -> subprocess.CompletedProcess[str]:
        """This environment's pip (``--python``) installing into the fresh one, verbosely,
        so that the build backend's choice shows in the output."""
        return self.run(
            sys.executable,
            "-m",
            "pip",
            "--python",
            self.python,
            "install",
            "-v",
            "--no-index",
            "--no-deps",
            "--ignore-installed",
            "--no-cache-dir",
            *args,
        )

    def borrow_dependencies(self) -> None:
        """Make the running environment's packages importable, after the fresh one's own."""
        site = self.run(
            self.python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"
        )
        folders = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
        (Path(site.stdout.strip()) / "_borrowed_dependencies.pth").write_text(
            "".join(f"{folder}\n" for folder in sorted(folders)), encoding="utf-8"
        )


def make_venv(path: Path) -> FreshVenv:
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(path)],
        check=True,
        timeout=INSTALL_TIMEOUT,
        env={k: v for k, v in os.environ.items() if not k.startswith(_DROPPED)},
    )
    return FreshVenv(path)
