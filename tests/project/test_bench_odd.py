"""The whole-process benchmark by shape (benchmarks/bench_odd.py): each shape it times is
what it says (one thing added to every block or to the root) and, on the compiled core, read
by the block scanner, not by expat: the figures of docs/performance.md are of that reader."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

from _generate import plain_sitemap  # found through the path set above
from bench_odd import SHAPES

from sitemap_reader import Entry, Problem, ProblemKind
from tests.support.compiled import compiled_events, needs_compiled
from tests.support.helpers import parse

URLS = 300


@needs_compiled
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_each_shape_is_the_scanners(shape: str) -> None:
    plain = plain_sitemap(URLS, seed=3)
    doc = SHAPES[shape](plain)
    assert (doc == plain) == (shape == "plain")
    events, taken, _ = compiled_events([doc[i : i + 65_536] for i in range(0, len(doc), 65_536)])
    assert events == parse(doc, fast=False)
    assert sum(isinstance(e, Entry) for e in events) == URLS
    # all blocks but, under a namespace variant, the first that uses it (expat's, where the
    # exact path records the variant)
    assert taken == URLS - (shape == "image-https")
    namespace = [e for e in events if isinstance(e, Problem) and e.kind == ProblemKind.NAMESPACE]
    assert len(namespace) == (shape == "image-https")
