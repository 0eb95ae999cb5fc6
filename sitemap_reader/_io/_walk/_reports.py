"""The one way a job's :class:`SitemapVisited` report is made (and a child's, left unread): what its naming told (URL,
source, depth, the index's lastmod, its order), what the response said of itself (given a
:class:`FetchResult`), and what the reading found (the caller's fields)."""

from __future__ import annotations

from typing import Any

from ..._base._models import SitemapRef, SitemapVisited, Status
from ..._core._walk._jobs import Job
from .._http._response import FetchResult


def visited(
    job: Job, status: Status, result: FetchResult | None = None, **found: Any
) -> SitemapVisited:
    """The report of ``job``'s document; ``found`` names the fields the reading knows
    (and may say otherwise than ``result``, e.g. ``final_url`` for a local file)."""
    said: dict[str, Any] = {}
    if result is not None:
        said = {
            "final_url": result.final_url,
            "http_status": result.status,
            "bytes": result.bytes,
            "redirects": result.redirects,
            "content_type": result.content_type,
            "content_encoding": result.content_encoding,
            "elapsed": result.elapsed,
        }
    return SitemapVisited(
        url=job.url,
        status=status,
        source=job.source,
        depth=job.depth,
        lastmod=job.lastmod,
        order=job.order,
        **(said | found),
    )


def child_report(
    ref: SitemapRef, depth: int, status: Status, order: int, not_followed: str | None = None
) -> SitemapVisited:
    """The report of a child its index named and the walk did not read for it: a duplicate,
    or one the caller chose not to fetch (``not_followed``, ``ReaderConfig.follow``)."""
    return SitemapVisited(
        url=ref.loc,
        status=status,
        source=ref.source,
        depth=depth,
        lastmod=ref.lastmod,
        order=order,
        not_followed=not_followed,
    )
