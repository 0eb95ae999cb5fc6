"""The walk over a site: workers, the frontier, one document's body, worker processes."""

from __future__ import annotations
