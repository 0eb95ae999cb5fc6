"""A file written whole or not at all: a temporary file beside the target that takes its
place only when the writing went well.

The temporary file gets the permissions the target will keep: those of the file it
replaces, or for a new file those any new file gets here (0666 less the umask), as if it
had been written in place. (``tempfile.mkstemp`` creates 0600 files whatever the umask.)
A target that is a device or a FIFO is written to directly: there is no "whole" to keep.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import Final

PREFIX: Final = ".sitemap-reader-"  # a hidden name, so a half-written file is seldom picked up
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _CLOEXEC


class Replacement:
    """A temporary file beside ``target``, open for writing at :attr:`fd`; :meth:`commit`
    puts it in ``target``'s place, :meth:`discard` removes it (and after a commit, does
    nothing). The caller closes :attr:`fd`. A target that exists and is no regular file (a
    device such as /dev/null, a FIFO) is written in place: there is nothing to replace.

    Raises OSError at once when ``target`` cannot be written: its directory is missing or
    not writable, or it is a directory.
    """

    def __init__(self, target: str | os.PathLike[str], *, suffix: str = "") -> None:
        self.target = os.path.abspath(os.fspath(target))
        try:
            kept = os.stat(self.target)
        except FileNotFoundError:
            kept = None
        if kept is not None and stat.S_ISDIR(kept.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), os.fspath(target))
        self._temp: str | None
        self._direct = kept is not None and not stat.S_ISREG(kept.st_mode)
        if self._direct:
            # A device or a FIFO (-o /dev/null, a named pipe) is written to as it is: a file
            # renamed over it would replace the device itself (as root, /dev/null).
            self.fd, self._temp = os.open(self.target, os.O_WRONLY | _CLOEXEC), None
            return
        self.fd, self._temp = _create(os.path.dirname(self.target), suffix)
        if kept is not None and stat.S_ISREG(kept.st_mode):
            try:
                os.chmod(self._temp, stat.S_IMODE(kept.st_mode))
            except BaseException:
                os.close(self.fd)
                self.discard()
                raise

    @property
    def path(self) -> str | None:
        """The path being written: the temporary file's (None once it has been committed or
        discarded), or a device's or FIFO's own."""
        return self.target if self._direct else self._temp

    def commit(self) -> None:
        """Replace the target with the temporary file (written and closed by the caller)."""
        if self._direct:
            return  # written in place
        if self._temp is None:
            raise ValueError("the replacement was already committed or discarded")
        os.replace(self._temp, self.target)
        self._temp = None

    def discard(self) -> None:
        """Remove the temporary file, if it is still there: the target is left as it was."""
        if self._temp is not None:
            try:
                os.unlink(self._temp)
            except FileNotFoundError:
                pass
        self._temp = None


def _create(directory: str, suffix: str) -> tuple[int, str]:
    """A new file in ``directory`` with a random name, created mode 0666 (the umask applies).
    The name's bytes come from ``os.urandom``, as ``secrets`` takes them, without loading
    ``secrets`` and its hashing modules at every start."""
    for _ in range(100):
        path = os.path.join(directory, f"{PREFIX}{os.urandom(4).hex()}{suffix}")
        try:
            return os.open(path, _FLAGS, 0o666), path
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary file name", directory)
