"""The one run loop of every command that reads: a reader over the sources, the console around
it, each batch of events handed to the command, and the run's counts returned for the summary."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import sys
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import cast

import sitemap_reader as sr

from .._api._sync import run_blocking
from .._base._gc import few_collections
from ._console import Console, Tally
from ._options import open_state
from ._signals import cancelled_by_sigterm


def run_walk(
    args: argparse.Namespace,
    config: sr.ReaderConfig,
    console: Console,
    handle: Callable[[sr.Batch, Tally], None],
    lines: sr.LinePlan | None = None,
    after: Callable[[sr.SitemapReader], Awaitable[None]] | None = None,
) -> Tally:
    """Walk ``args.sources`` (with ``args.state``, if given) under ``config``, calling
    ``handle(batch, tally)`` for each batch of events as it comes; with ``lines``, the
    entries come as ``Lines`` it wrote (``SitemapReader.line_batches``: ``dump``); then
    ``after(reader)`` on the same reader (``check --sample`` fetches its pages there)."""
    state = open_state(args)

    async def walk() -> Tally:
        tally = Tally()
        with cancelled_by_sigterm(), console.library_warnings():
            async with contextlib.AsyncExitStack() as stack:
                reader = await _entered(stack, config, state, args.quiet)
                console.start(reader)
                done = 0  # documents finished
                try:
                    batches = cast(
                        "AsyncGenerator[sr.Batch, None]",
                        reader.walk_batches(*args.sources)
                        if lines is None
                        else reader.line_batches(*args.sources, plan=lines),
                    )
                    async with contextlib.aclosing(batches):  # closed here, not at exit
                        async for batch in batches:
                            handle(batch, tally)
                            if reader.progress.done != done:
                                done = reader.progress.done
                                document_done()
                    if after is not None:
                        await after(reader)
                finally:
                    console.stop()
                tally.progress = reader.progress
        return tally

    with few_collections() as document_done:  # the process is ours: its collector is tuned
        return run_blocking(walk, refuse="the command line blocks: run it outside an event loop")


async def _entered(
    stack: contextlib.AsyncExitStack, config: sr.ReaderConfig, state: str | None, quiet: bool
) -> sr.SitemapReader:
    """The run's reader, entered. Told to wait for another run holding the state file, it
    says so before it waits (else it looks hung)."""
    wait = config.incremental.wait
    if state is not None and wait:
        at_once = dataclasses.replace(config.incremental, wait=0.0)
        try:
            return await stack.enter_async_context(
                sr.SitemapReader(dataclasses.replace(config, incremental=at_once), state=state)
            )
        except sr.StateLocked as locked:
            if not quiet:
                who = "another run" if locked.pid is None else f"process {locked.pid}"
                print(
                    f"sitemap-reader: the state file {state} is in use by {who}: waiting up "
                    f"to {wait:g}s for it to end",
                    file=sys.stderr,
                )
    return await stack.enter_async_context(sr.SitemapReader(config, state=state))
