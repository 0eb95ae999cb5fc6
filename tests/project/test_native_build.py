"""The compiled core as it is built and chosen: one version, the fallback, the wheel.

Under CI (``CI=true``) the compiled core must be the one in use unless
``SITEMAP_READER_PURE`` opts out: a build that silently lost it would otherwise pass on
the Python reference. ``.ci/run`` builds a wheel and an sdist and names them in
``SITEMAP_READER_WHEEL`` and ``SITEMAP_READER_SDIST`` for the tests of their contents.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

import sitemap_reader
from sitemap_reader._core._pure import pure_requested
from sitemap_reader._core._xml import _core_choice

ROOT = Path(__file__).resolve().parents[2]
CI = os.environ.get("CI", "").lower() in ("true", "1", "yes")
PURE = pure_requested()


def _python(code: str, **env: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout.strip()


def test_the_version_has_one_source() -> None:
    cargo = (ROOT / "Cargo.toml").read_text(encoding="utf-8")
    match = re.search(r'^version = "([^"]+)"', cargo, re.MULTILINE)
    assert match is not None
    assert sitemap_reader.__version__ == match[1]  # (maturin writes it into the metadata)
    if _core_choice.COMPILED:
        from sitemap_reader import _native

        # A stale extension from an older build would show here.
        assert _native.__version__ == match[1]


@pytest.mark.skipif(PURE, reason="SITEMAP_READER_PURE opts out of the compiled core")
def test_the_compiled_core_is_in_use_under_ci() -> None:
    if not CI and not _core_choice.COMPILED:
        pytest.skip(f"not built here ({_core_choice.describe()}): pip install -e . builds it")
    assert _core_choice.COMPILED, _core_choice.describe()
    assert "core: rust" in _python("import sitemap_reader._cli as c; c.main(['--version'])")


def test_the_environment_variable_selects_the_python_core() -> None:
    code = "from sitemap_reader._core._xml import _core_choice as n\n"
    code += "print(n.COMPILED, n.describe(), n.new_scanner, n.ENTRIES)"
    want = "False core: python, SITEMAP_READER_PURE None None"
    assert _python(code, SITEMAP_READER_PURE="1") == want


def test_a_missing_extension_falls_back_to_python_without_an_error() -> None:
    # sys.modules[name] = None makes "import name" raise ImportError, as a missing file does.
    code = (
        "import sys; sys.modules['sitemap_reader._native'] = None\n"
        "from sitemap_reader import SitemapParser\n"
        "from sitemap_reader._core._xml import _core_choice as n\n"
        "p = SitemapParser('https://e.com/sitemap.xml')\n"
        "ns = b'http://www.sitemaps.org/schemas/sitemap/0.9'\n"
        "doc = b'<urlset xmlns=\"' + ns + b'\"><url><loc>https://e.com/</loc></url></urlset>'\n"
        "events = p.feed(doc) + p.close()\n"
        "print(n.COMPILED, [e.loc for e in events], n.new_scanner, n.ENTRIES)"
    )
    want = "False ['https://e.com/'] None None"
    assert _python(code, SITEMAP_READER_PURE="") == want
    version = "import sys; sys.modules['sitemap_reader._native'] = None\n"
    version += "import sitemap_reader._cli as c; c.main(['--version'])"
    assert "core: python, no compiled core" in _python(version, SITEMAP_READER_PURE="")


def _artifact(variable: str) -> Path:
    value = os.environ.get(variable)
    if not value:
        if CI:
            pytest.fail(f"CI is set but {variable} names no built file (.ci/run sets it)")
        pytest.skip(f"{variable} names no built file (.ci/run builds one)")
    return Path(value)


def test_the_wheel_holds_every_module_the_stub_and_the_extension() -> None:
    wheel = _artifact("SITEMAP_READER_WHEEL")
    names = set(zipfile.ZipFile(wheel).namelist())
    sources = {
        p.relative_to(ROOT).as_posix()
        for p in (ROOT / "sitemap_reader").rglob("*")
        if p.suffix in (".py", ".pyi") or p.name == "py.typed"
    }
    assert sources - names == set()
    assert [n for n in names if re.fullmatch(r"sitemap_reader/_native\.abi3\.so", n)]
    assert "-cp310-abi3-" in wheel.name  # one wheel for CPython 3.10 and later


def test_the_sdist_holds_the_crate() -> None:
    sdist = _artifact("SITEMAP_READER_SDIST")
    with tarfile.open(sdist) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    tracked = ["Cargo.toml", "Cargo.lock", "pyproject.toml", "sitemap_reader/__init__.py"]
    tracked += [p.relative_to(ROOT).as_posix() for p in (ROOT / "src").rglob("*.rs")]
    assert set(tracked) - names == set()
