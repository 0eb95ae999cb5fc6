"""Records and the public surface: frozen, hashable records; a pinned ``__all__``; and a core
that imports no I/O."""

from __future__ import annotations
import __future__

import dataclasses
import subprocess
import sys
import types
from datetime import datetime, timezone
from typing import Any

import pytest

import sitemap_reader
from sitemap_reader import (
    Alternate,
    ChangeFreq,
    Entry,
    Event,
    Format,
    Image,
    News,
    Problem,
    ProblemKind,
    SitemapRef,
    Video,
)

RECORDS = [
    Entry("https://example.com/", datetime(2024, 1, 1, tzinfo=timezone.utc), ChangeFreq.DAILY, 0.5),
    SitemapRef("https://example.com/s.xml", None, "https://example.com/index.xml"),
    Problem(kind=ProblemKind.TRUNCATED, url="https://example.com/s.xml", message="cut", fatal=True),
    Image("https://example.com/i.jpg", "caption"),
    Video(title="t", tags=("a", "b")),
    News(publication_name="The Times"),
    Alternate("de", "https://example.com/de/"),
]


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: type(r).__name__)
def test_records_are_frozen(record: Any) -> None:
    """Assigning to any field of a record raises FrozenInstanceError."""
    field = dataclasses.fields(record)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(record, field, "changed")


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: type(r).__name__)
def test_records_are_hashable_and_slotted(record: Any) -> None:
    """Records hash by value (so they dedupe in sets) and carry no per-instance __dict__."""
    twin = dataclasses.replace(record)
    assert twin == record and twin is not record
    assert hash(twin) == hash(record)
    assert len({record, twin}) == 1
    assert not hasattr(record, "__dict__")


def test_entry_with_extensions_is_hashable() -> None:
    """Extensions are tuples of frozen records, so a full Entry hashes too."""
    entry = Entry(
        "https://example.com/",
        images=(Image("https://example.com/1.jpg"),),
        videos=(Video(tags=("x",)),),
        news=(News(title="t"),),
        alternates=(Alternate("fr", "https://example.com/fr/"),),
    )
    assert {entry: 1}[dataclasses.replace(entry)] == 1


def test_entry_init_matches_its_fields() -> None:
    """Entry's hand-written __init__ keeps the dataclass signature: same order and defaults."""
    names = [f.name for f in dataclasses.fields(Entry)]
    assert names == [
        "loc", "lastmod", "changefreq", "priority", "sitemap",
        "images", "videos", "news", "alternates",
    ]  # fmt: skip
    entry = Entry("https://example.com/")
    assert [getattr(entry, n) for n in names[1:]] == [None, None, None, "", (), (), (), ()]
    positional = Entry(*(getattr(RECORDS[0], n) for n in names))
    assert positional == RECORDS[0]
    assert Entry(loc="https://example.com/", priority=0.5) == Entry(
        "https://example.com/", None, None, 0.5
    )


def test_events_share_one_base() -> None:
    """Everything the parser emits is an Event; the extension records are not."""
    assert all(isinstance(r, Event) for r in RECORDS[:3])
    assert not any(isinstance(r, Event) for r in RECORDS[3:])


def test_enums_print_as_their_values() -> None:
    """ChangeFreq and Format print as the protocol's words (for JSON and messages)."""
    assert str(ChangeFreq.WEEKLY) == "weekly"
    assert str(Format.SITEMAPINDEX) == "sitemapindex"
    assert ChangeFreq("never") is ChangeFreq.NEVER


def test_problem_str_names_url_and_kind() -> None:
    """A Problem prints as 'URL: message [kind]'."""
    assert str(RECORDS[2]) == "https://example.com/s.xml: cut [truncated]"


# -- the public surface ---------------------------------------------------------------------


def _public_names() -> set[str]:
    return (
        {
            name
            for name, value in vars(sitemap_reader).items()
            if not name.startswith("_")
            and not isinstance(value, (types.ModuleType, __future__._Feature))
        }
        | {"__version__"}
        | set(sitemap_reader._LAZY)
    )  # loaded on first use (PEP 562)


def _isort_key(name: str) -> tuple[int, str]:
    # ruff's RUF022 order: CONSTANTS, then Classes, then everything else
    return (0 if name.isupper() else 1 if name[:1].isupper() else 2, name)


def test_all_is_the_public_surface_and_sorted() -> None:
    """__all__ lists exactly the public names, once each, in ruff's isort-style order."""
    assert set(sitemap_reader.__all__) == _public_names()
    assert len(set(sitemap_reader.__all__)) == len(sitemap_reader.__all__)
    assert sitemap_reader.__all__ == sorted(sitemap_reader.__all__, key=_isort_key)
    assert dir(sitemap_reader) == sorted(sitemap_reader.__all__)  # dir() sorts __dir__()


# The public surface, name by name: adding, removing or renaming one is a decision, not an
# accident of a refactor (the test above only checks __all__ against the module itself).
PUBLIC_NAMES = [
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


def test_all_is_pinned() -> None:
    """__all__ is exactly the pinned list of public names."""
    assert sitemap_reader.__all__ == PUBLIC_NAMES


def test_public_objects_present_themselves_as_sitemap_reader() -> None:
    """Public classes and functions show as sitemap_reader.X, not the private module."""
    for name in sitemap_reader.__all__:
        value = getattr(sitemap_reader, name)
        if isinstance(value, (type, types.FunctionType)):
            assert value.__module__ == "sitemap_reader", name


# -- the import boundary (docs/architecture.md, "Import direction") ------------------------------

_CORE_ALONE = """
import importlib.util, sys, types
# Stand in for the package __init__, so that only what the core itself imports is loaded.
spec = importlib.util.find_spec("sitemap_reader")
package = types.ModuleType("sitemap_reader")
package.__path__ = list(spec.submodule_search_locations)
sys.modules["sitemap_reader"] = package
import sitemap_reader._core._parser, sitemap_reader._core._walk._judge
print("\\n".join(sys.modules))
"""

_CORE_VIA_PACKAGE = "import sys, sitemap_reader._core._parser; print('\\n'.join(sys.modules))"


def _modules_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True, timeout=60
    ).stdout
    return set(out.split())


def test_core_imports_no_io() -> None:
    """The sans-IO core, imported on its own, loads no aiohttp, asyncio, sqlite3 or _io layer."""
    modules = _modules_after(_CORE_ALONE)
    assert {"sitemap_reader._core._parser", "sitemap_reader._core._walk._jobs"} <= modules
    for banned in (
        "aiohttp",
        "asyncio",
        "sqlite3",
        "sitemap_reader._io",
        "sitemap_reader._api._reader",
    ):
        assert banned not in modules, banned


def test_importing_the_core_through_the_package_loads_no_aiohttp() -> None:
    """`import sitemap_reader._core._parser` leaves aiohttp and asyncio unloaded."""
    modules = _modules_after(_CORE_VIA_PACKAGE)
    assert "aiohttp" not in modules
    assert "asyncio" not in modules
