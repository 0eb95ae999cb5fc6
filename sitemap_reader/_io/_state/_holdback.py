"""The incremental hold-back: wrappers around any body that hash it, and hold it back.

With a state store, every document read is recorded with the digest of its body as
received. A sitemap whose last digest is known is held back (spooled) until its body is
in: the same bytes again mean unchanged, and the wrapped body never sees them; other bytes
are passed on as if they had just arrived.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from .._http._response import CHUNK, Body, Response

if TYPE_CHECKING:
    from tempfile import SpooledTemporaryFile

SPOOL_IN_MEMORY = 1_048_576  # a held-back body past this many bytes goes to a temporary file


class Hashed:
    """Passes a body on to ``inner``, hashing it as it goes (BLAKE2b-128)."""

    def __init__(self, inner: Body) -> None:
        self._inner = inner
        self._digest = hashlib.blake2b(digest_size=16)
        self.same = False  # the body was the one recorded (never, unless held back)

    def hexdigest(self) -> str:
        return self._digest.hexdigest()

    def redirect(self, target: str) -> bool:
        return self._inner.redirect(target)

    def start(self, response: Response, attempt: int) -> bool:
        if not self._inner.start(response, attempt):
            return False
        self._digest = hashlib.blake2b(digest_size=16)  # a retry hashes from the start
        return True

    async def chunk(self, data: bytes) -> bool:
        self._digest.update(data)
        return await self._inner.chunk(data)

    async def finish(self) -> bool:
        return await self._inner.finish()

    def release(self) -> None:
        """Drop what is held (after the fetch, whatever its outcome)."""


class HoldBack(Hashed):
    """Holds a body back until its digest is known; passes it on only if it is not
    ``recorded``, the digest of the last read. At most ``max_bytes`` are held."""

    def __init__(self, inner: Body, recorded: str, max_bytes: int) -> None:
        super().__init__(inner)
        self._recorded = recorded
        self._max_bytes = max_bytes
        self._spool: SpooledTemporaryFile[bytes] | None = None

    def start(self, response: Response, attempt: int) -> bool:
        if not super().start(response, attempt):
            return False
        if self._spool is None:
            # Imported here: only a run with a state file holds bodies back, and tempfile
            # (with shutil and random) would cost every start.
            from tempfile import SpooledTemporaryFile

            # Closed by release() once the fetch is over, whatever its outcome.
            self._spool = SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY)  # noqa: SIM115
        self._spool.seek(0)
        self._spool.truncate()
        return True

    async def chunk(self, data: bytes) -> bool:
        spool = self._spool
        assert spool is not None
        self._digest.update(data)
        spool.write(data)
        return spool.tell() < self._max_bytes

    async def finish(self) -> bool:
        spool = self._spool
        assert spool is not None
        if self.hexdigest() == self._recorded:
            self.same = True
            return True  # whole when it was recorded
        inner = self._inner
        spool.seek(0)
        while (data := spool.read(CHUNK)) and await inner.chunk(data):
            pass
        return await inner.finish()

    def release(self) -> None:
        if self._spool is not None:
            self._spool.close()
            self._spool = None
