"""sitemap-reader: read the Sitemaps protocol from the crawler's side.

The one public surface: everything a user needs is importable from here.
"""

from __future__ import annotations

import contextlib
import importlib
import typing as _typing

from ._base._config import (
    DEFAULT_CONFIG,
    DEFAULT_LIMITS,
    DEFAULT_MAX_AGE,
    MAX_BYTES_PER_SITEMAP,
    MAX_LOC_LENGTH,
    MAX_URLS_PER_SITEMAP,
    WELL_KNOWN_PATHS,
    Incremental,
    Limits,
    Pace,
    ReaderConfig,
    RetryPolicy,
    RobotsPolicy,
    ScopePolicy,
    Timeouts,
    TrustLastmod,
)
from ._base._errors import (
    AddressRefused,
    ContentEncodingError,
    FetchError,
    HTTPStatusError,
    LimitExceeded,
    ParseError,
    RedirectError,
    SitemapReaderError,
    StateError,
    StateLocked,
    TransportError,
    UnsafeXMLError,
    WorkerLost,
    raise_for_problem,
)
from ._base._follow import ChildSitemap, FollowRules
from ._base._lines import Lines, Since
from ._base._models import (
    Alternate,
    ChangeFreq,
    ChangeKind,
    Entry,
    EntryChange,
    Event,
    Format,
    Image,
    LastmodTrust,
    News,
    Problem,
    ProblemKind,
    SitemapRef,
    SitemapState,
    SitemapVisited,
    Status,
    Trust,
    Video,
)
from ._base._run import Batch, Progress
from ._core._dates import parse_datetime
from ._core._parser import SitemapParser
from ._io._http._transport import Transport, TransportResponse
from ._output._lines import entry_to_dict

if _typing.TYPE_CHECKING:
    from ._api._reader import SitemapReader
    from ._api._sync import check_sync, collect_urls_sync, entries_sync, lines_sync, walk_sync
    from ._base._version import __version__
    from ._check._checker import Checker, CheckOptions
    from ._check._codes import CODES, Code, Finding, Severity
    from ._core._walk._jobs import Leaf
    from ._io._http._gate import HostGate
    from ._io._http._pace_store import LocalPace, PaceStart, PaceStore
    from ._io._state._sqlite import MemoryStateStore, SqliteStateStore, StoreSummary
    from ._io._state._store import StateStore, default_state_path
    from ._output._frames import problem_schema, read_dataframe, read_dataframe_sync
    from ._output._plan import LinePlan
    from ._output._table import (
        ParquetSink,
        entries_to_batches,
        entries_to_dataframe,
        entries_to_table,
        entry_schema,
        table_to_dataframe,
    )

# The I/O layer (aiohttp, asyncio) loads on first use (PEP 562), so that the sans-IO core
# and the records can be imported without it; so do the columnar outputs, whose pyarrow and
# pandas are optional extras (imported when a function needs them), and the checks, which
# only ``check`` needs (the command line's start). The state store (sqlite3), the pace store,
# check's codes and the version (importlib.metadata) load on first use too: a dump of a file
# with no state file uses none of them.
_LAZY = {
    "__version__": "._base._version",
    "CODES": "._check._codes",
    "Code": "._check._codes",
    "Finding": "._check._codes",
    "Severity": "._check._codes",
    "LocalPace": "._io._http._pace_store",
    "PaceStart": "._io._http._pace_store",
    "PaceStore": "._io._http._pace_store",
    "MemoryStateStore": "._io._state._sqlite",
    "SqliteStateStore": "._io._state._sqlite",
    "StoreSummary": "._io._state._sqlite",
    "StateStore": "._io._state._store",
    "default_state_path": "._io._state._store",
    "HostGate": "._io._http._gate",
    "CheckOptions": "._check._checker",
    "Checker": "._check._checker",
    "Leaf": "._core._walk._jobs",
    "LinePlan": "._output._plan",
    "ParquetSink": "._output._table",
    "SitemapReader": "._api._reader",
    "check_sync": "._api._sync",
    "collect_urls_sync": "._api._sync",
    "entries_sync": "._api._sync",
    "lines_sync": "._api._sync",
    "entries_to_batches": "._output._table",
    "entries_to_dataframe": "._output._table",
    "entries_to_table": "._output._table",
    "entry_schema": "._output._table",
    "problem_schema": "._output._frames",
    "read_dataframe": "._output._frames",
    "read_dataframe_sync": "._output._frames",
    "table_to_dataframe": "._output._table",
    "walk_sync": "._api._sync",
}


__all__ = [
    "CODES",
    "DEFAULT_CONFIG",
    "DEFAULT_LIMITS",
    "DEFAULT_MAX_AGE",
    "MAX_BYTES_PER_SITEMAP",
    "MAX_LOC_LENGTH",
    "MAX_URLS_PER_SITEMAP",
    "WELL_KNOWN_PATHS",
    "AddressRefused",
    "Alternate",
    "Batch",
    "ChangeFreq",
    "ChangeKind",
    "CheckOptions",
    "Checker",
    "ChildSitemap",
    "Code",
    "ContentEncodingError",
    "Entry",
    "EntryChange",
    "Event",
    "FetchError",
    "Finding",
    "FollowRules",
    "Format",
    "HTTPStatusError",
    "HostGate",
    "Image",
    "Incremental",
    "LastmodTrust",
    "Leaf",
    "LimitExceeded",
    "Limits",
    "LinePlan",
    "Lines",
    "LocalPace",
    "MemoryStateStore",
    "News",
    "Pace",
    "PaceStart",
    "PaceStore",
    "ParquetSink",
    "ParseError",
    "Problem",
    "ProblemKind",
    "Progress",
    "ReaderConfig",
    "RedirectError",
    "RetryPolicy",
    "RobotsPolicy",
    "ScopePolicy",
    "Severity",
    "Since",
    "SitemapParser",
    "SitemapReader",
    "SitemapReaderError",
    "SitemapRef",
    "SitemapState",
    "SitemapVisited",
    "SqliteStateStore",
    "StateError",
    "StateLocked",
    "StateStore",
    "Status",
    "StoreSummary",
    "Timeouts",
    "Transport",
    "TransportError",
    "TransportResponse",
    "Trust",
    "TrustLastmod",
    "UnsafeXMLError",
    "Video",
    "WorkerLost",
    "__version__",
    "check_sync",
    "collect_urls_sync",
    "default_state_path",
    "entries_sync",
    "entries_to_batches",
    "entries_to_dataframe",
    "entries_to_table",
    "entry_schema",
    "entry_to_dict",
    "lines_sync",
    "parse_datetime",
    "problem_schema",
    "raise_for_problem",
    "read_dataframe",
    "read_dataframe_sync",
    "table_to_dataframe",
    "walk_sync",
]

# Present the public names as sitemap_reader.X in reprs, docs and tracebacks (as httpx does).
for _name in __all__:
    if not _name.startswith("__") and _name not in _LAZY:
        _obj = globals()[_name]
        if getattr(_obj, "__module__", "").startswith("sitemap_reader."):
            try:
                _obj.__module__ = __name__
            except (AttributeError, TypeError):
                pass


def __getattr__(name: str) -> _typing.Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    if getattr(value, "__module__", "").startswith("sitemap_reader."):
        with contextlib.suppress(AttributeError, TypeError):
            value.__module__ = __name__
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
