"""The change feed's key of a URL: the first 8 bytes of its BLAKE2b digest (of its UTF-8,
digest size 8) as a signed 64-bit integer, what the state store indexes instead of the text
(``_io/_state/_runs.py``). The compiled core hashes a run's URLs with the GIL released
(``_native.run_keys``, the ``blake2`` crate); the pure core with ``hashlib``. Both give the
same keys: a state file written by one is read by the other."""

from __future__ import annotations

import sys
from array import array
from collections.abc import Callable
from functools import cache
from hashlib import blake2b

from ._pure import pure_requested


def key(loc: str) -> int:
    """The URL's key (a lone surrogate is encoded as ``surrogatepass`` does)."""
    digest = blake2b(loc.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "little", signed=True)


def pure_keys(locs: list[str]) -> array[int]:
    """``key`` of each URL, inline (a call per URL costs a third more)."""
    digest, number = blake2b, int.from_bytes
    try:
        return array(
            "q",
            [
                number(digest(loc.encode(), digest_size=8).digest(), "little", signed=True)
                for loc in locs
            ],
        )
    except UnicodeEncodeError:  # a lone surrogate in one of them
        return array("q", map(key, locs))


@cache
def _compiled() -> Callable[[list[str]], bytes] | None:
    """``_native.run_keys``, None on the pure core (chosen at the first run hashed)."""
    if pure_requested():
        return None
    try:
        from .. import _native
    except ImportError:
        return None
    return _native.run_keys


def keys(locs: list[str]) -> array[int]:
    """Each URL's key ('q', aligned with ``locs``), on the core that runs."""
    compiled = _compiled()
    if compiled is None:
        return pure_keys(locs)
    try:
        packed = compiled(locs)
    except UnicodeEncodeError:  # a lone surrogate: hashed as the pure core does
        return pure_keys(locs)
    values = array("q")
    values.frombytes(packed)
    if sys.byteorder == "big":  # pragma: no cover - the packed keys are little-endian
        values.byteswap()
    return values
