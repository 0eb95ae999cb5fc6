"""The package's version: one place, read by the build and by the report page."""

from __future__ import annotations

__version__ = "0.1.0"
