"""Where ``dump`` puts its records: stdout, or an ``-o`` file written whole or not at all
and only by a run that read something; and how a failed write is told.

An ``-o`` file that cannot be written (its directory missing, a directory) is found before
anything is read (exit status 2); a write that fails later (a full device, a file too
large) ends the run (exit status 1) and leaves the ``-o`` file as it was. Both are an
:class:`OutputError`, told in one line. A closed stdout pipe stays a BrokenPipeError: the
reader went away, which is no error.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from typing import TypeVar

_T = TypeVar("_T")


class OutputError(Exception):
    """The records cannot be written: ``status`` 2 when found before the run (a usage
    error), 1 when a write failed during it (a full device, a file too large)."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status


def opened(make: Callable[[str], _T], path: str) -> _T:
    """``make(path)``, the maker of a file written whole (a :class:`Replacement` or a
    ParquetSink); an OSError, for a path that cannot be written, as an OutputError
    naming it, of status 2."""
    try:
        return make(path)
    except FileNotFoundError:
        folder = os.path.dirname(os.path.abspath(path))
        reason = f"the directory {folder} does not exist"
    except OSError as exc:
        reason = exc.strerror or str(exc)
    raise OutputError(f"cannot write -o {path}: {reason}", status=2)


@contextlib.contextmanager
def writing(name: str) -> Iterator[None]:
    """An OSError writing to ``name`` as an OutputError naming it (a BrokenPipeError left
    as it is)."""
    try:
        yield
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise OutputError(f"cannot write {name}: {exc.strerror or exc}") from None


@contextlib.contextmanager
def stdout_writing() -> Iterator[None]:
    """Writes to stdout: as :func:`writing`, and stdout dropped when one fails."""
    try:
        with writing("stdout"):
            yield
    except (BrokenPipeError, OutputError):
        drop_stdout()
        raise


def drop_stdout() -> None:
    """stdout can take no more (a closed pipe, a full device): point it at the null device,
    so the flushes still to come (ours, the interpreter's at exit) drop what waits instead of
    failing again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def left_as_it_was(path: str, quiet: bool) -> None:
    """Say that ``path`` was not replaced, as nothing was read."""
    if not quiet:
        print(f"sitemap-reader: nothing was read: {path} was left as it was", file=sys.stderr)
