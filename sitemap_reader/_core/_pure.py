"""Whether the compiled core may run: ``SITEMAP_READER_PURE`` (set to anything but "" or
"0") asks for the pure-Python reference everywhere, as when the extension is missing."""

from __future__ import annotations

import os

PURE_ENV = "SITEMAP_READER_PURE"


def pure_requested() -> bool:
    return os.environ.get(PURE_ENV, "") not in ("", "0")
