"""The package's version, read by the report page and ``--version``.

Its one source is Cargo.toml: the build (maturin) writes it into the distribution's
metadata, read here. A test keeps the compiled module's own version equal to it.
"""

from __future__ import annotations

from importlib import metadata

try:
    __version__ = metadata.version("sitemap-reader")
except metadata.PackageNotFoundError:  # imported from a checkout that was never installed
    __version__ = "0+unknown"
