"""Incremental runs from a test: a reader over a state store, and a server's validators."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from sitemap_reader import Incremental, Progress, ReaderConfig, SitemapReader, StateStore
from tests.support.http_site import FAST, Run


@dataclass
class Validated:
    """A handler serving ``body`` with an ETag and/or Last-Modified, answering 304 to a
    matching conditional request unless ``honour`` is False (a server that ignores them);
    it logs the validators each request carried."""

    body: str
    etag: str | None = None
    last_modified: str | None = None
    honour: bool = True
    seen: list[tuple[str | None, str | None]] = field(default_factory=list)

    async def __call__(self, request: web.Request) -> web.StreamResponse:
        none_match = request.headers.get("If-None-Match")
        since = request.headers.get("If-Modified-Since")
        self.seen.append((none_match, since))
        headers = {}
        if self.etag:
            headers["ETag"] = self.etag
        if self.last_modified:
            headers["Last-Modified"] = self.last_modified
        matches = (self.etag is not None and none_match == self.etag) or (
            self.last_modified is not None and since == self.last_modified
        )
        if self.honour and matches:
            return web.Response(status=304, headers=headers)
        return web.Response(
            body=self.body.encode(), content_type="application/xml", headers=headers
        )


def config(**incremental: Any) -> ReaderConfig:
    # No recheck sample unless asked: these tests pin which documents the rules skip.
    return dataclasses.replace(FAST, incremental=Incremental(**{"recheck": 0, **incremental}))


async def run(store: StateStore, *sources: str, **incremental: Any) -> tuple[Run, Progress]:
    """One walk with ``store``; every event, and the reader's counters."""
    async with SitemapReader(config(**incremental), state=store) as reader:
        events = [event async for event in reader.walk(*sources)]
    return Run(events), reader.progress
