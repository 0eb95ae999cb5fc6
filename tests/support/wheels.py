"""Reading built distributions: the package's one version, and core metadata compared by meaning."""

from __future__ import annotations

import email.parser
import os
import re
from typing import Any

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.support.fresh_venv import ROOT

# Under CI a test that cannot find what .ci/run builds or installs fails instead of skipping.
CI = os.environ.get("CI", "").lower() in ("true", "1", "yes")
# Where a requirement's marker is evaluated: what it means on each Python the package
# supports, with each extra asked for (maturin writes python_version as python_full_version).
_PYTHONS = ("3.10", "3.11", "3.13", "3.14")


def cargo_version() -> str:
    """Cargo.toml's version: the package's one version (pyproject.toml takes it as dynamic)."""
    cargo = (ROOT / "Cargo.toml").read_text(encoding="utf-8")
    match = re.search(r'^version = "([^"]+)"', cargo, re.MULTILINE)
    assert match is not None
    return match[1]


def _requirement(line: str, extras: list[str]) -> tuple[Any, ...]:
    req = Requirement(line)
    when = tuple(
        req.marker is None
        or req.marker.evaluate({"python_version": v, "python_full_version": f"{v}.0", "extra": e})
        for v in _PYTHONS
        for e in ["", *extras]
    )
    return canonicalize_name(req.name), tuple(sorted(req.extras)), str(req.specifier), when


def normal_metadata(text: str) -> dict[str, Any]:
    """A METADATA file's fields and body, with each requirement reduced to its meaning."""
    message = email.parser.Parser().parsestr(text)
    fields: dict[str, Any] = {}
    for key in {k for k in message if k != "Requires-Dist"}:
        fields[key] = sorted(message.get_all(key) or [])
    extras = fields.get("Provides-Extra", [])
    fields["Requires-Dist"] = sorted(
        _requirement(line, extras) for line in message.get_all("Requires-Dist") or []
    )
    fields["body"] = message.get_payload()
    return fields
