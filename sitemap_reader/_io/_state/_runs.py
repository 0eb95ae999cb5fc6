"""A tracked sitemap's entries as one compact row: its run (docs/incremental.md, "The change
feed").

A run is a sitemap's URLs sorted, each with its lastmod (microseconds since 1970, or None)
and its key (``_core/_keys.py``: the first 8 bytes of the URL's BLAKE2b digest as a signed
64-bit integer, hashed by the compiled core when it runs), what the store's feed tables
index instead of the text. Two URLs of one state file share a key
with odds of about n^2 / 2^65 for n URLs (3 in 10^8 at 1,000,000; 3 in 10^6 at
10,000,000); such a pair is taken for one URL by the feed (a change of one may hide a
change of the other), nothing worse. The URLs and lastmods are stored zlib-compressed:
sorted URLs share their prefixes, so a URL's text costs a few bytes. Keys are stored only once the feed
indexes the run (a run kept by a run without the feed is hashed when a feed adopts it).
"""

from __future__ import annotations

import json
import sys
import zlib
from array import array

from ..._core._keys import keys as _keys

_LEVEL = 1  # zlib's fastest: sorted URLs compress nearly as well as with 6, at a third of the time
_NONE = -(2**63)  # a lastmod of None in the stored array (no datetime maps to it)
_LINES, _JSON = (
    b"\x00",
    b"\x01",
)  # how the URLs are stored: one a line, or (a line break in one) JSON


def _little(values: array[int]) -> bytes:
    if sys.byteorder == "big":  # pragma: no cover - the file is little-endian everywhere
        values = array("q", values)
        values.byteswap()
    return values.tobytes()


def _from_little(data: bytes) -> array[int]:
    values = array("q")
    values.frombytes(data)
    if sys.byteorder == "big":  # pragma: no cover
        values.byteswap()
    return values


class Run:
    """One sitemap's entries: each URL once, sorted by URL (:meth:`of`, :meth:`normal`), or
    as a document listed them (kept by a run without the feed); their keys, computed when
    asked."""

    __slots__ = ("_keys", "lastmods", "locs")

    def __init__(
        self, locs: list[str], lastmods: list[int | None], keys: array[int] | None = None
    ) -> None:
        self.locs = locs
        self.lastmods = lastmods
        self._keys = keys

    @property
    def keys(self) -> array[int]:
        """Each URL's key ('q', aligned with ``locs``)."""
        if self._keys is None:
            self._keys = _keys(self.locs)
        return self._keys

    @classmethod
    def of(cls, listing: dict[str, int | None]) -> Run:
        """The run of ``listing`` (URL -> lastmod)."""
        locs = sorted(listing)
        return cls(locs, list(map(listing.__getitem__, locs)))

    def normal(self) -> Run:
        """This run with each URL once (its last listing) and sorted."""
        return Run.of(self.listing())

    def listing(self) -> dict[str, int | None]:
        return dict(zip(self.locs, self.lastmods, strict=True))

    def encode(self, *, keys: bool) -> bytes:
        """The stored form; ``keys``: with the URLs' keys (else hashed again when asked).

        The keys are stored as they are (random bytes do not compress), then the lastmods
        and the URLs, one a line (or in JSON if one has a line break), zlib-compressed."""
        count = len(self.locs)
        stored = _little(self.keys) if keys else b""
        stamps = array("q", [_NONE if at is None else at for at in self.lastmods])
        text = "\n".join(self.locs)
        how = _LINES
        if text.count("\n") != max(count - 1, 0):  # a URL with a line break in it
            how, text = _JSON, json.dumps(self.locs)
        packed = zlib.compress(_little(stamps) + text.encode("utf-8", "surrogatepass"), _LEVEL)
        head = how + (len(stored) // 8).to_bytes(8, "little") + count.to_bytes(8, "little")
        return head + stored + packed

    @classmethod
    def decode(cls, blob: bytes) -> Run:
        how = blob[:1]
        stored = int.from_bytes(blob[1:9], "little")
        count = int.from_bytes(blob[9:17], "little")
        at = 17 + 8 * stored
        keys = _from_little(blob[17:at]) if stored else None
        data = zlib.decompress(blob[at:])
        lastmods = [None if v == _NONE else v for v in _from_little(data[: 8 * count])]
        text = data[8 * count :].decode("utf-8", "surrogatepass")
        locs = json.loads(text) if how == _JSON else (text.split("\n") if count else [])
        return cls(locs, lastmods, keys)


EMPTY = Run([], [])
