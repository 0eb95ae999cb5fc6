"""The differential fuzz script, run for a few hundred inputs so that it cannot rot, and its
detector shown to catch a default core that differs from the exact path."""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import fuzz_differential as fd  # found through the path set above

from sitemap_reader import Entry, Event, Problem, ProblemKind


def test_a_short_run_finds_no_difference(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = fd.main(["--inputs", "300", "--seed", "3", "--progress", "0",
                      "--findings", str(tmp_path)])  # fmt: skip
    out = capsys.readouterr().out
    assert status == 0, out
    assert "300 inputs in " in out and ": 0 differed" in out
    assert not list(tmp_path.iterdir())


def test_the_inputs_cover_what_the_generator_promises() -> None:
    pool = fd.the_pool()
    docs = [fd.make_case(random.Random(f"7:{i}"), pool).doc for i in range(400)]
    joined = b"\n".join(docs)
    for piece in (b"<urlset", b"<sitemapindex", b":image>", b":video>", b":news>",
                  b'hreflang="', b"<![CDATA[", b"&#", b"<!DOCTYPE", b"<!--", b"\x1f\x8b"):  # fmt: skip
        assert piece in joined, piece
    assert any(d and d.lstrip()[:4] in (b"http", b"/rel") for d in docs)  # text sitemaps


def _fast_drops_an_entry(case: fd.Case, pieces: Sequence[bytes], fast: bool) -> list[Event]:
    events = fd.read(case, pieces, fast)
    return [e for e in events if not (fast and isinstance(e, Entry) and "caf" in e.loc)]


def _fast_panics(case: fd.Case, pieces: Sequence[bytes], fast: bool) -> list[Event]:
    bug = Problem(kind=ProblemKind.ERROR, url=case.url, message="a caught panic", fatal=True)
    return [*fd.read(case, pieces, fast), *([bug] if fast else [])]


def _first_case(reader: fd.Reader) -> fd.Case:
    pool = fd.the_pool()
    for i in range(1_000):
        case = fd.make_case(random.Random(f"0:{i}"), pool)
        if fd.difference(case, reader) is not None:
            return case
    raise AssertionError("no input reached the planted difference")


def test_a_difference_is_found_shrunk_and_replayable(tmp_path: Path) -> None:
    case = _first_case(_fast_drops_an_entry)
    assert fd.difference(case) is None  # (the real reads agree)
    what = fd.difference(case, _fast_drops_an_entry)
    assert what is not None and what.startswith("fast, in chunks: event")
    small = fd.shrink(case, _fast_drops_an_entry)
    assert len(small.doc) < len(case.doc)
    assert fd.difference(small, _fast_drops_an_entry) is not None
    assert fd.Case.from_json(json.loads(json.dumps(small.to_json()))) == small


def test_a_caught_panic_counts_as_a_bug() -> None:
    case = fd.make_case(random.Random("0:1"), fd.the_pool())
    what = fd.difference(case, _fast_panics)
    assert what == "a Problem of kind error (a bug): a caught panic"
