"""A read as pandas DataFrames: the entries, and the problems met on the way.

:func:`read_dataframe` is advertools' ``sitemap_to_df`` with this project's scope, limits,
retries and guard. Its entries frame has :func:`~._table.entry_schema`'s columns; with
``problems=True`` it also returns a frame of :func:`problem_schema`, the one
``sitemap_reader.dask.read_sites`` returns too, so a failed sitemap is never lost in
silence. The reader (aiohttp) is imported by the read alone: the schema costs pyarrow only.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal, overload

from .._base._models import Entry, Problem
from ._table import (
    PENDING_ENTRIES,
    entry_schema,
    record_batch,
    require_pandas,
    require_pyarrow,
    source_column,
)
from ._table import table_to_dataframe as _to_frame

if TYPE_CHECKING:
    import os

    import aiohttp
    import pandas as pd
    import pyarrow as pa

    from .._api._reader import Source
    from .._base._config import ReaderConfig
    from .._io._state._store import StateStore

    Frames = tuple[pd.DataFrame, pd.DataFrame]
    State = StateStore | str | os.PathLike[str] | None


@functools.lru_cache(maxsize=1)
def problem_schema() -> pa.Schema:
    """The Arrow schema of a problems frame: one row per problem of a read.

    ``site`` (the SOURCE it descends from, as the ``source`` column of the entries names
    it), ``url`` (the document or child it concerns), ``kind`` (the table of kinds in docs/problems.md:
    ``http-status``, ``truncated``, ``robots-unavailable``, ...), ``message`` and ``fatal``
    (the document ended there: a failed sitemap, in advertools' words an ``errors`` row).

    Raises:
        ImportError: pyarrow is not installed (the message names the extra).
    """
    pa = require_pyarrow()
    s = pa.string()
    return pa.schema(
        [
            pa.field("site", s, nullable=False),
            pa.field("url", s, nullable=False),
            pa.field("kind", s, nullable=False),
            pa.field("message", s, nullable=False),
            pa.field("fatal", pa.bool_(), nullable=False),
        ]
    )


def problem_frame(rows: Sequence[tuple[str, Problem]]) -> pd.DataFrame:
    """``(site, problem)`` pairs as a DataFrame of :func:`problem_schema` (ArrowDtypes)."""
    pa = require_pyarrow()
    s = pa.string()
    columns = [
        pa.array([site for site, _ in rows], s),
        pa.array([p.url for _, p in rows], s),
        pa.array([p.kind for _, p in rows], s),
        pa.array([p.message for _, p in rows], s),
        pa.array([p.fatal for _, p in rows], pa.bool_()),
    ]
    return _to_frame(pa.Table.from_arrays(columns, schema=problem_schema()))


@overload
async def read_dataframe(
    *sources: Source,
    config: ReaderConfig | None = ...,
    state: State = ...,
    session: aiohttp.ClientSession | None = ...,
    problems: Literal[False] = ...,
) -> pd.DataFrame: ...
@overload
async def read_dataframe(
    *sources: Source,
    config: ReaderConfig | None = ...,
    state: State = ...,
    session: aiohttp.ClientSession | None = ...,
    problems: Literal[True],
) -> Frames: ...
@overload
async def read_dataframe(
    *sources: Source,
    config: ReaderConfig | None = ...,
    state: State = ...,
    session: aiohttp.ClientSession | None = ...,
    problems: bool,
) -> pd.DataFrame | Frames: ...
async def read_dataframe(
    *sources: Source,
    config: ReaderConfig | None = None,
    state: State = None,
    session: aiohttp.ClientSession | None = None,
    problems: bool = False,
) -> pd.DataFrame | Frames:
    """Every entry the sources' sitemaps vouch for, as one pandas DataFrame; with
    ``problems=True``, the pair ``(entries, problems)``.

    The entries have :func:`entry_schema`'s columns, with the dtypes of
    :func:`table_to_dataframe`; ``source`` says which of ``sources`` each row was read
    for. Each source is walked in turn with one :class:`SitemapReader` (``config``,
    ``state`` and ``session`` as there: scope, limits, retries and incremental runs
    apply), so a sitemap that two sources reach gives rows for both. Problems never
    raise: what could be read is returned, and the problems frame (:func:`problem_schema`:
    ``site``, ``url``, ``kind``, ``message``, ``fatal``) says what could not be and why,
    one row per problem, in the order they were met; it is empty, with those columns and
    dtypes, after a clean read. Entries are converted in batches as they come; the frames
    are the only things that grow.

    Raises:
        ImportError: pandas or pyarrow is not installed (the message names the extra).
        ValueError: no source, or ``config.incremental.changes`` (the change feed has no
            entries).
    """
    from .._api._reader import SitemapReader

    if not sources:
        raise ValueError("give at least one source")
    require_pandas()  # fail before any fetch
    pa = require_pyarrow()
    if config is not None and config.incremental.changes:
        raise ValueError("read_dataframe reads entries; the change feed needs SitemapReader.walk")
    batches: list[Any] = []
    met: list[tuple[str, Problem]] = []

    def convert(entries: list[Entry], root: str | None) -> None:
        batches.append(record_batch(entries, source_column(pa, [(root, len(entries))])))

    async with SitemapReader(config, session=session, state=state) as reader:
        for source in sources:
            # One source a walk, so every batch of this walk has the same root.
            pending: list[Entry] = []
            root: str | None = None
            async for batch in reader.walk_batches(source):
                root = batch.root
                entries = [e for e in batch if type(e) is Entry]
                if len(entries) < len(batch):  # reports and problems: rare beside entries
                    met += [(batch.root or "", e) for e in batch if type(e) is Problem]
                pending += entries
                if (
                    len(pending) >= PENDING_ENTRIES
                ):  # as columns, a row takes a fraction of an Entry
                    convert(pending, root)
                    pending = []
            if pending:
                convert(pending, root)
    frame = _to_frame(pa.Table.from_batches(batches, schema=entry_schema()))
    return (frame, problem_frame(met)) if problems else frame


@overload
def read_dataframe_sync(
    *sources: Source,
    config: ReaderConfig | None = ...,
    state: State = ...,
    problems: Literal[False] = ...,
) -> pd.DataFrame: ...
@overload
def read_dataframe_sync(
    *sources: Source,
    config: ReaderConfig | None = ...,
    state: State = ...,
    problems: Literal[True],
) -> Frames: ...
@overload
def read_dataframe_sync(
    *sources: Source,
    config: ReaderConfig | None = ...,
    state: State = ...,
    problems: bool,
) -> pd.DataFrame | Frames: ...
def read_dataframe_sync(
    *sources: Source,
    config: ReaderConfig | None = None,
    state: State = None,
    problems: bool = False,
) -> pd.DataFrame | Frames:
    """Blocking :func:`read_dataframe`, for scripts and notebooks (advertools'
    ``sitemap_to_df`` job). Inside a running event loop (a notebook) the read runs on a
    thread and loop of its own while the caller waits; ``await read_dataframe(...)`` there
    keeps the loop free."""
    from .._api._sync import run_blocking

    return run_blocking(
        lambda: read_dataframe(*sources, config=config, state=state, problems=problems)
    )
