"""Local files and stdin: a sitemap, or a robots.txt whose Sitemap: lines are followed.

A collaborator the walk (:class:`~._walker.Walk`) holds: it reads what a user's local
source holds, as the walk reads a fetched document, and leaves budgets, bodies and the
queue to the walk, which passes them in.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from typing import BinaryIO

from ..._base._config import ReaderConfig, ScopePolicy
from ..._base._models import Format, Problem, ProblemKind, SitemapRef, Status
from ..._base._run import Progress
from ..._core._formats._robots import looks_like_robots, sitemap_urls
from ..._core._parser import SitemapParser
from ..._core._walk._jobs import Job
from ..._core._walk._scope import Scope, origin_of
from .._http._response import CHUNK, FetchResult
from .._state._holdback import Hashed
from .._state._incremental import Tracker
from ._body import SitemapBody
from ._outbox import Outbox
from ._reports import visited

ROBOTS_MAX_BYTES = 512_000  # -- RFC 9309 section 2.5: crawlers MUST parse at least 500 KiB
READ = 1_048_576  # bytes a read of a file asks for, past its first chunk


# What the walk lends: refused(job) reports a job a budget keeps from being read (True), the
# body that reads a sitemap's bytes into events, and follow(), which queues a robots.txt's
# sitemaps and returns the budget problems that refused some.
Refuse = Callable[[Job], Awaitable[bool]]
MakeBody = Callable[[Job], SitemapBody]
Follow = Callable[[Job, Sequence[SitemapRef], str, str], Awaitable[list[Problem]]]


class LocalFiles:
    """How the walk reads a local source (a path, a ``file:`` URL, ``-`` for stdin)."""

    def __init__(
        self,
        config: ReaderConfig,
        progress: Progress,
        outbox: Outbox,
        tracker: Tracker | None,
        *,
        refuse: Refuse,
        body: MakeBody,
        follow: Follow,
    ) -> None:
        self._config = config
        self._progress = progress
        self._outbox = outbox
        self._tracker = tracker
        self._refuse = refuse
        self._body = body
        self._follow = follow

    async def read(self, job: Job) -> None:
        """Read ``job``'s file as a sitemap, or as a robots.txt if it is one."""
        name = job.url
        if await self._refuse(job):
            return
        # With a base URL the file stands there, as if fetched from it; without, it has no
        # location: nothing to resolve against, no scope for its entries.
        config = self._config
        base = config.base_url
        body = self._body(job)
        parser = SitemapParser(
            base or name,
            limits=config.limits,
            resolve_relative=bool(base and config.resolve_relative),
            lines=body.writes_lines,
        )
        body.begin(parser, Scope(base, config.scope) if base else Scope("", ScopePolicy.OFF))
        tracker = self._tracker
        hashed = None if tracker is None else Hashed(body)
        try:
            stream: BinaryIO = (
                sys.stdin.buffer if name == "-" else await asyncio.to_thread(open, name, "rb")
            )
        except OSError as exc:
            problem = Problem(
                kind=ProblemKind.UNREADABLE,
                url=name,
                message=f"cannot read the file: {exc.strerror or exc}",
            )
            await self._outbox.emit([problem], root=job.root)
            await self._outbox.report(
                visited(job, Status.FAILED, final_url=name, problems=(problem,)), root=job.root
            )
            return
        size = 0
        try:
            data = await asyncio.to_thread(stream.read, CHUNK)
            if os.path.basename(name).lower() == "robots.txt" or looks_like_robots(data):
                rest = await asyncio.to_thread(stream.read, ROBOTS_MAX_BYTES - len(data))
                await self._local_robots(job, data + rest, base or name)
                return
            # Past the first chunk, up to READ at a time: each read is a hop to a thread and
            # back, and the body parses a large piece a chunk at a time. read1 gives a pipe's
            # bytes as they come instead of waiting for READ of them.
            more = getattr(stream, "read1", stream.read)
            while data:
                size += len(data)
                self._progress.bytes += len(data)
                if not await (hashed or body).chunk(data):
                    break
                data = await asyncio.to_thread(more, READ)
            await (hashed or body).finish()
        except OSError as exc:
            problem = Problem(
                kind=ProblemKind.UNREADABLE,
                url=name,
                message=f"reading the file failed: {exc.strerror or exc}",
            )
            body.problems.append(problem)
            await self._outbox.emit([problem], root=job.root)
        finally:
            if stream is not sys.stdin.buffer:
                stream.close()
        result = FetchResult(url=name, final_url=base or name, bytes=size, attempts=1, read=True)
        report = body.report(result)
        await self._outbox.emit(body.late_problems, root=job.root)  # said at the end (no fetch)
        if tracker is not None and tracker.changes:  # local files join the change feed, no more
            assert hashed is not None
            settled = body.settle(result, report, hashed.hexdigest())
            report = replace(report, lastmods=settled.lastmods)
        elif tracker is not None:
            tracker.discard(job.key)  # kept for a remote document's record only
        await self._outbox.report(report, root=job.root)

    async def _local_robots(self, job: Job, data: bytes, final: str) -> None:
        """A local robots.txt (by its name or its lines): its Sitemap: lines are followed, as
        a site's are; relative ones resolve against the base URL, if there is one."""
        found = sitemap_urls(data, final)
        problems = list(found.problems)
        if not found.refs:
            problems.append(
                Problem(
                    kind=ProblemKind.NO_SITEMAP,
                    url=job.url,
                    message="the robots.txt names no sitemap",
                )
            )
        await self._outbox.emit(problems, root=job.root)
        base = self._config.base_url
        problems += await self._follow(job, found.refs, final, origin_of(base) if base else "")
        report = visited(
            job,
            Status.OK,
            final_url=final,
            format=Format.ROBOTS,
            bytes=len(data),
            children=len(found.refs),
            problems=tuple(problems),
        )
        await self._outbox.report(report, root=job.root)
