"""A dlt source fed by this reader's change feed: :func:`sitemaps`.

    import dlt
    from sitemap_reader.dlt import sitemaps

    pipeline = dlt.pipeline("sitemaps", destination="duckdb", dataset_name="crawl")
    pipeline.run(sitemaps(["https://www.example.com/"]))

Two resources. ``entries``: one row per URL the sitemaps list (``loc``, ``lastmod``,
``sitemap``, ``change``), merged on ``loc``; the reader's change feed drives it, so a run
loads only the URLs that are new, modified or removed since the last load, and a removed
URL's row carries ``removed = true``, dlt's hard-delete hint, which deletes it from the
table. ``problems``: what went wrong on the way (:class:`~sitemap_reader.Problem`), appended.

The feed's state is a SQLite state file beside the pipeline (in its working directory, or
``state=``); dlt's own state, which lives in the destination, keeps a token naming that file
and the run whose feed dlt extracted. A file that is missing or is not the one the
destination knows (a fresh machine, a dropped pipeline) starts a new feed, and that run
replaces the table instead of merging into it. Needs dlt (``pip install
'sitemap-reader[dlt]'``); ``import sitemap_reader`` never imports it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import uuid
from collections.abc import AsyncGenerator, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from . import (
    ChangeKind,
    EntryChange,
    Problem,
    ReaderConfig,
    RobotsPolicy,
    ScopePolicy,
    SitemapReader,
    SqliteStateStore,
    StateError,
)
from ._api._sync import iterate_blocking

try:
    import dlt
except ImportError as exc:  # pragma: no cover - the extra is installed where tests run
    raise ImportError(
        f"sitemap_reader.dlt needs dlt: pip install 'sitemap-reader[dlt]' ({exc})"
    ) from exc

__all__ = ["ENTRY_COLUMNS", "PROBLEM_COLUMNS", "STATE_FILE", "sitemaps"]

# The state file's name in the pipeline's working directory, when ``state`` names none.
STATE_FILE = "sitemap-reader-feed.sqlite"

# Declared, not inferred: a first load whose lastmods are all null still makes the column.
ENTRY_COLUMNS: dict[str, Any] = {
    "loc": {"data_type": "text", "nullable": False},
    "lastmod": {"data_type": "timestamp", "nullable": True},
    "sitemap": {"data_type": "text", "nullable": True},
    "change": {"data_type": "text", "nullable": False},
    # dlt's hard delete: a merged row with removed = true deletes its loc from the table.
    "removed": {"data_type": "bool", "nullable": False, "hard_delete": True},
}
PROBLEM_COLUMNS: dict[str, Any] = {
    "url": {"data_type": "text", "nullable": False},
    "kind": {"data_type": "text", "nullable": False},
    "message": {"data_type": "text", "nullable": False},
    "fatal": {"data_type": "bool", "nullable": False},
    "line": {"data_type": "bigint", "nullable": True},
    "column": {"data_type": "bigint", "nullable": True},
    "count": {"data_type": "bigint", "nullable": True},
    "example": {"data_type": "text", "nullable": True},
}

# Keys of the source's dlt state (stored in the destination with each load).
_TOKEN = "feed_token"  # names the state file whose feed the entries table holds
_EXTRACTED = "feed_extracted"  # the last run whose feed dlt extracted: acknowledged next run


@dataclass(frozen=True, slots=True)
class _Done:
    """The walk's last item: run ``run`` handed every change out."""

    run: int


@dataclass(frozen=True, slots=True)
class _Mark:
    """What the file beside the state file says: which feed it holds (``token``), and the
    run whose changes it handed out and keeps pending (``peeked``; None while a walk is
    under way, or after one that did not end)."""

    token: str
    peeked: int | None


@dlt.source(name="sitemaps")
def sitemaps(
    sources: str | Sequence[str],
    config: ReaderConfig | None = None,
    *,
    user_agent: str | None = None,
    scope: ScopePolicy | str | None = None,
    robots: RobotsPolicy | str | None = None,
    state: str | os.PathLike[str] | None = None,
) -> Any:
    """The sitemaps of ``sources`` as a dlt source: resources ``entries`` and ``problems``.

    Args:
        sources: what to read, as for :class:`~sitemap_reader.SitemapReader`: site roots,
            robots.txt URLs, sitemap or index URLs.
        config: the reader's :class:`~sitemap_reader.ReaderConfig` (limits, timeouts,
            retries, pace, follow rules, the incremental policy); its change feed is
            turned on here.
        user_agent: a shortcut for ``config.user_agent``.
        scope: a shortcut for ``config.scope`` (a ``ScopePolicy`` or its word).
        robots: a shortcut for ``config.robots`` (a ``RobotsPolicy`` or its word).
        state: the reader's state file; by default ``sitemap-reader-feed.sqlite`` in the
            pipeline's working directory. One file per source and pipeline.
    """
    config = _config(config, user_agent=user_agent, scope=scope, robots=robots)
    names = (sources,) if isinstance(sources, str) else tuple(sources)
    if not names:
        raise ValueError("sitemaps() needs at least one source")
    path = None if state is None else Path(os.fspath(state))

    @dlt.resource(name="walk", selected=False)
    def walk() -> Iterator[Any]:
        yield from _walk(names, config, path)

    @dlt.transformer(
        data_from=walk,
        name="entries",
        primary_key="loc",
        write_disposition="merge",
        columns=ENTRY_COLUMNS,
    )
    def entries(events: Any) -> Iterator[list[dict[str, Any]]]:
        if isinstance(events, _Done):
            # Extracted whole: once dlt has committed this state (with the rows), the next
            # run acknowledges the feed to the state file.
            dlt.current.source_state()[_EXTRACTED] = events.run
            return
        rows = [_entry_row(e) for e in events if isinstance(e, EntryChange)]
        if rows:
            yield rows

    @dlt.transformer(
        data_from=walk, name="problems", write_disposition="append", columns=PROBLEM_COLUMNS
    )
    def problems(events: Any) -> Iterator[list[dict[str, Any]]]:
        if isinstance(events, _Done):
            return
        rows = [_problem_row(e) for e in events if isinstance(e, Problem)]
        if rows:
            yield rows

    return walk, entries, problems


def _config(
    config: ReaderConfig | None,
    *,
    user_agent: str | None,
    scope: ScopePolicy | str | None,
    robots: RobotsPolicy | str | None,
) -> ReaderConfig:
    config = config or ReaderConfig()
    if user_agent is not None:
        config = replace(config, user_agent=user_agent)
    if scope is not None:
        config = replace(config, scope=ScopePolicy(scope))
    if robots is not None:
        config = replace(config, robots=RobotsPolicy(robots))
    # peek: the feed stays pending in the state file until dlt has the rows (the next run
    # acknowledges it), so a run that fails after the walk loses no change.
    incremental = replace(config.incremental, changes=True, peek=True)
    return replace(config, incremental=incremental)


def _walk(names: tuple[str, ...], config: ReaderConfig, path: Path | None) -> Iterator[Any]:
    """The walk's event batches, then a :class:`_Done`, on the feed the destination knows."""
    dlt_state = dlt.current.source_state()
    if path is None:
        path = Path(dlt.current.pipeline().working_dir) / STATE_FILE
    mark = _read_mark(path)
    if mark is None and path.exists():
        # Not a file this source made (another program's, or `dump --state`'s): a new feed
        # would start by removing it, so it is refused and left as it is.
        raise StateError(
            f"the state file {path} has no readable {_mark_path(path).name} beside it, so "
            "this dlt source did not make it: give sitemaps(state=...) a path of its own",
            path=str(path),
        )
    token = dlt_state.get(_TOKEN)
    extracted: int = dlt_state.get(_EXTRACTED, 0)
    if mark is None or mark.token != token or not path.exists():
        # A state file of no feed or of another one (a fresh machine, a dropped pipeline):
        # a new feed reports every URL as new and none removed, so the table is replaced
        # by this read, and the rows of URLs that left the site go with it.
        _remove_store(path)
        token = dlt_state[_TOKEN] = uuid.uuid4().hex
        extracted = dlt_state[_EXTRACTED] = 0
        # (dlt applies hard deletes to merges only, and warns of the hint on a replace.)
        removed = {**ENTRY_COLUMNS["removed"], "hard_delete": False}
        dlt.current.source().resources["entries"].apply_hints(
            write_disposition="replace", columns={**ENTRY_COLUMNS, "removed": removed}
        )
        mark = None
    # The pending feed is exactly what dlt extracted only if the run that handed it out is
    # the one dlt committed; otherwise it is handed out again (merging twice is harmless).
    acknowledge = mark is not None and mark.peeked == extracted > 0
    _write_mark(path, _Mark(token, None))  # the walk below adds to the pending feed
    handed = False  # whether the walk handed a change out

    async def batches() -> AsyncGenerator[list[Any], None]:
        store = SqliteStateStore(path)
        try:
            async with SitemapReader(config, state=store) as reader:
                if acknowledge:
                    store.delivered()  # the last run's feed is in dlt's hands
                async for batch in reader.walk_batches(*names):
                    yield batch
        finally:
            store.close()

    for batch in iterate_blocking(batches):
        handed = handed or any(isinstance(event, EntryChange) for event in batch)
        yield batch
    # A run that handed nothing out leaves nothing to acknowledge, and keeps the number of
    # the last: dlt's state stays as it was, so an unchanged site loads no row at all.
    run = extracted + 1 if handed else extracted
    _write_mark(path, _Mark(token, run))
    yield _Done(run)


def _mark_path(path: Path) -> Path:
    return path.with_name(path.name + ".dlt.json")


def _read_mark(path: Path) -> _Mark | None:
    try:
        data = json.loads(_mark_path(path).read_text(encoding="utf-8"))
        return _Mark(str(data["token"]), data["peeked"])
    except (FileNotFoundError, ValueError, KeyError, TypeError):
        return None  # none, or not ours: the state file is not trusted either


def _write_mark(path: Path, mark: _Mark) -> None:
    target = _mark_path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".tmp")
    partial.write_text(json.dumps(dataclasses.asdict(mark)), encoding="utf-8")
    os.replace(partial, target)  # never half a mark


def _remove_store(path: Path) -> None:
    """The state file of an old feed, with SQLite's journal files beside it."""
    for name in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        with contextlib.suppress(FileNotFoundError):
            name.unlink()


def _entry_row(change: EntryChange) -> dict[str, Any]:
    return {
        "loc": change.loc,
        "lastmod": change.lastmod,
        "sitemap": change.sitemap or None,
        "change": change.change.value,
        "removed": change.change is ChangeKind.REMOVED,
    }


def _problem_row(problem: Problem) -> dict[str, Any]:
    return {
        "url": problem.url,
        "kind": problem.kind.value,
        "message": problem.message,
        "fatal": problem.fatal,
        "line": problem.line,
        "column": problem.column,
        "count": problem.count,
        "example": problem.example,
    }
