"""Shrink a failing fuzz input to a small one that fails the same way.

    python -m fuzz.minimise CRASH_FILE [OUT_FILE]

Greedy delta debugging over the document (the control header is kept): drop ever smaller
runs of bytes while the input still fails with the same exception type and the same first
words of its message.
"""

from __future__ import annotations

import sys
from pathlib import Path

from .harness import HEADER, check


def failure(data: bytes) -> str | None:
    """``type: first words of the message`` of the failure, or None when ``data`` passes."""
    try:
        check(data)
    except RecursionError:
        return "RecursionError"
    except Exception as exc:  # noqa: BLE001 -- any failure is one to shrink
        words = " ".join(str(exc).split()[:4])
        return f"{type(exc).__name__}: {words}"
    return None


def minimise(data: bytes) -> bytes:
    want = failure(data)
    if want is None:
        raise ValueError("the input does not fail")
    head, doc = data[:HEADER], data[HEADER:]
    size = max(1, len(doc) // 2)
    while size >= 1:
        i = 0
        shrunk = False
        while i < len(doc):
            trial = doc[:i] + doc[i + size :]
            if failure(head + trial) == want:
                doc = trial
                shrunk = True
            else:
                i += size
        if not shrunk:
            size //= 2
    return head + doc


def main() -> None:
    data = Path(sys.argv[1]).read_bytes()
    small = minimise(data)
    print(f"{len(data)} -> {len(small)} bytes: {failure(small)}\n{small!r}")
    if len(sys.argv) > 2:
        Path(sys.argv[2]).write_bytes(small)


if __name__ == "__main__":
    main()
