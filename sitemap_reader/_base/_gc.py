"""Fewer cyclic garbage collections while a process of ours reads records (the command
line's run, a parse worker): a context manager, for processes the package owns only.

A run makes millions of small records and frees nearly all of them by reference counting:
they hold no cycles. CPython's collector still runs whenever 700 more containers live than
before, and each pass walks the records in flight (a batch of entries, their tuples) and,
every hundredth pass, every object of the process (the imported modules). Measured on the
command line reading a 200,000-URL site of the mixed shape: 0.6 to 0.9 s of its 4.5 s went
to collections that found a few hundred objects. With the objects made before the run
frozen (modules, classes: never garbage) and a young generation of 100,000, they cost
about 0.02 s. Cyclic garbage (a fetch's retry state, a caught exception's traceback) would
then wait for the rare automatic collections and pile up over a long run (a 5,000,000-URL
site's peak RSS grew by a quarter): the run calls the function the block gives at each
document's end, which collects once ``SETTLE`` containers were kept since the last time.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Callable, Iterator

YOUNG = 100_000  # containers allocated (less those freed) between two collections
# At a document's end, a collection runs if this many containers were kept since the last:
# what a document leaves in cycles (a fetch's retry state, an exception's traceback) is
# freed then, not at the rare automatic collections, where it would pile up over a long run.
SETTLE = 5_000


@contextlib.contextmanager
def few_collections() -> Iterator[Callable[[], None]]:
    """Collect less often inside the block; the collector is as it was after it. The block
    gets a function to call when a document is done (see SETTLE)."""
    threshold = gc.get_threshold()
    gc.freeze()  # what exists now (imports, the configuration) is never walked again
    gc.set_threshold(max(threshold[0], YOUNG), *threshold[1:])
    try:
        yield _settle
    finally:
        gc.set_threshold(*threshold)
        gc.unfreeze()


def _settle() -> None:
    if gc.get_count()[0] > SETTLE:
        gc.collect()
