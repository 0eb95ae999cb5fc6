"""sitemap-reader: read the Sitemaps protocol from the crawler's side.

The one public surface: everything a user needs is importable from here.
"""

from __future__ import annotations

from ._config import (
    DEFAULT_CONFIG,
    DEFAULT_LIMITS,
    MAX_BYTES_PER_SITEMAP,
    MAX_LOC_LENGTH,
    MAX_URLS_PER_SITEMAP,
    WELL_KNOWN_PATHS,
    Limits,
    ReaderConfig,
    RetryPolicy,
    ScopePolicy,
    Timeouts,
)
from ._core._dates import parse_datetime
from ._core._parser import SitemapParser
from ._errors import (
    FetchError,
    HTTPStatusError,
    LimitExceeded,
    ParseError,
    SitemapReaderError,
    TransportError,
    UnsafeXMLError,
)
from ._io._walk import Progress
from ._models import (
    Alternate,
    ChangeFreq,
    Entry,
    Event,
    Format,
    Image,
    News,
    Problem,
    SitemapRef,
    SitemapVisited,
    Status,
    Video,
)
from ._reader import SitemapReader
from ._serialize import entry_to_dict
from ._sync import collect_urls_sync, entries_sync, walk_sync

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_CONFIG",
    "DEFAULT_LIMITS",
    "MAX_BYTES_PER_SITEMAP",
    "MAX_LOC_LENGTH",
    "MAX_URLS_PER_SITEMAP",
    "WELL_KNOWN_PATHS",
    "Alternate",
    "ChangeFreq",
    "Entry",
    "Event",
    "FetchError",
    "Format",
    "HTTPStatusError",
    "Image",
    "LimitExceeded",
    "Limits",
    "News",
    "ParseError",
    "Problem",
    "Progress",
    "ReaderConfig",
    "RetryPolicy",
    "ScopePolicy",
    "SitemapParser",
    "SitemapReader",
    "SitemapReaderError",
    "SitemapRef",
    "SitemapVisited",
    "Status",
    "Timeouts",
    "TransportError",
    "UnsafeXMLError",
    "Video",
    "__version__",
    "collect_urls_sync",
    "entries_sync",
    "entry_to_dict",
    "parse_datetime",
    "walk_sync",
]

# Present the public names as sitemap_reader.X in reprs, docs and tracebacks (as httpx does).
for _name in __all__:
    if not _name.startswith("__"):
        _obj = globals()[_name]
        if getattr(_obj, "__module__", "").startswith("sitemap_reader."):
            try:
                _obj.__module__ = __name__
            except (AttributeError, TypeError):
                pass


def __dir__() -> list[str]:
    return __all__
