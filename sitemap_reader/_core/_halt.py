"""How an element handler ends a document early: ``Stop``, and ``TooDeep`` past the nesting bound.

Both the XML reader's handlers (``._xml``) and the feed buffer's (``._formats._feed``) raise
them, so they sit below both: the feed buffer never imports the XML reader that drives it.
"""

from __future__ import annotations

# Expat keeps every open element (tens of bytes each), so 50 MB of "<a>" would cost 2 GB.
# No sitemap or feed nests anywhere near this deep; libxml2 stops at 256 levels too.
MAX_ELEMENT_DEPTH = 256


class Stop(Exception):
    """Raised inside a handler to stop expat at once (the document ended)."""


class TooDeep(Stop):
    """Raised by an element handler past ``MAX_ELEMENT_DEPTH``; the reader reports it."""

    def __init__(self, line: int) -> None:
        super().__init__(line)
        self.message = (
            f"elements nested more than {MAX_ELEMENT_DEPTH} deep at line {line}; "
            "read up to there and cut"
        )
