"""pytest configuration: Hypothesis settings sized for a small CI machine, shared fixtures."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

from tests.support.helpers import CORPUS

# No per-example deadline: a 2-core CI runner under load is slow in bursts, and a flaky
# deadline failure says nothing about the parser.
settings.register_profile(
    "sitemap-reader",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile("sitemap-reader")


@pytest.fixture(params=[True, False], ids=["fast", "exact"])
def fast(request: pytest.FixtureRequest) -> bool:
    """Run an XML test on both paths: the scanner (fast) and expat alone (exact)."""
    return bool(request.param)


@pytest.fixture(params=["rust", "python"])
def zlib_core(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run a gzip or deflate test on both inflaters: the compiled core's (src/inflate.rs)
    and Python's zlib, the pure core's (``_core._codings``)."""
    from sitemap_reader._core import _codings

    if request.param == "python":
        monkeypatch.setattr(_codings, "compiled_inflater", lambda: None)
    elif _codings.compiled_inflater() is None:
        pytest.skip("the compiled core is not in use")
    return str(request.param)


def pytest_configure(config: pytest.Config) -> None:
    """Under CI a missing corpus fails the run: skipping its tests would pass in silence."""
    ci = os.environ.get("CI", "").lower() in ("true", "1", "yes")
    if ci and not (CORPUS / "MANIFEST.tsv").is_file():
        raise pytest.UsageError(
            f"CI is set but the real-world corpus is missing at {CORPUS}: "
            "its tests would be skipped, so the run fails instead"
        )
