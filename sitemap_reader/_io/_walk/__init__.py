"""The walk over a site: workers, the frontier, one document's body, parse processes, threads."""

from __future__ import annotations
