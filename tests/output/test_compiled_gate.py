"""The checks the lines path makes between the parser and the writer, made by the crate on
its own records (``LineWriter.write_passing``: the seam a compiled parser writes lines
through) against the Python statements of the same rules, each held once per core: the
scope's fast test (``ScopeFilter.fast``, ``Gate::in_scope``), the entry budget and
``--since`` (``Since.keeps``, ``Gate::recent``). The crate reads their parameters by
attribute from the Python objects (the ``ScopeFilter``, the ``Since``)."""

from __future__ import annotations

import io
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sitemap_reader import ChangeFreq, Entry, ScopePolicy, Since
from sitemap_reader._core._walk._scope import Scope
from sitemap_reader._output._lines import python_entry_writer
from tests.support.lines import FORMATS, line_writer, native

native()
OFF = Scope("", ScopePolicy.OFF).filter()  # (its prefixes are None: every URL passes)

SITEMAPS = ["https://e.com/blog/s.xml", "https://e.com/s.xml", "http://e.com:8080/a/b/s.xml"]
VOUCHED = ["", "https://e.com", "https://cdn.e.com"]
_pieces = st.sampled_from(
    ["https://e.com", "http://e.com:8080", "https://cdn.e.com", "https://e.co", "https://x.org"]
)
_paths = st.lists(
    st.sampled_from(["/blog", "/a", "/b", "/.", "/..", "/%2e", "/%2E", "/x\t", "/\n", "/é", "/"]),
    max_size=4,
).map("".join)
_locs = st.builds(str.__add__, _pieces, _paths)


def _writer(fmt: str = "txt") -> Any:
    return line_writer(fmt)


@given(
    sitemap=st.sampled_from(SITEMAPS),
    policy=st.sampled_from(list(ScopePolicy)),
    vouched=st.sampled_from(VOUCHED),
    locs=st.lists(_locs, min_size=1, max_size=8),
)
def test_the_crates_fast_scope_test_is_the_scope_filters(
    sitemap: str, policy: ScopePolicy, vouched: str, locs: list[str]
) -> None:
    """Both cores hold the scope's fast test: the crate's gate, given the walk's
    ``ScopeFilter`` (it reads its ``prefixes``), passes exactly what ``ScopeFilter.fast``
    passes; what it passes the full check passes; and ``all_pass`` says the fast test
    passes every URL of a batch only when it does."""
    check = Scope(sitemap, policy, vouched).filter()
    for loc in locs:
        passed = _writer().write_passing([Entry(loc)], scope=check, since=None)
        assert passed is not None
        assert passed[1] == check.fast(loc), loc
        if passed[1]:
            assert check.check(loc) is None, loc
    assert check.all_pass(locs) <= all(check.fast(loc) for loc in locs)
    if check.all_pass(locs):
        entries = [Entry(loc) for loc in locs]
        assert _writer().write_passing(entries, scope=check, since=None) == (
            "".join(f"{loc}\n" for loc in locs).encode(),
            len(locs),
            len(locs),
            len(locs),
        )


# Any text after a scheme and host: the characters the fast test looks at, and others.
_tails = st.text(alphabet=st.sampled_from("/.%2eE\t\n\r aZ9?#:@é\u2028"), max_size=12)
_any_locs = st.builds(str.__add__, _pieces, _tails) | st.text(max_size=20)


@given(
    sitemap=st.sampled_from(SITEMAPS),
    policy=st.sampled_from(list(ScopePolicy)),
    vouched=st.sampled_from(VOUCHED),
    loc=_any_locs,
)
def test_the_fast_scope_tests_agree_on_any_text(
    sitemap: str, policy: ScopePolicy, vouched: str, loc: str
) -> None:
    """The two statements of the fast test give the same verdict on any string."""
    check = Scope(sitemap, policy, vouched).filter()
    passed = _writer().write_passing([Entry(loc)], scope=check, since=None)
    assert passed is not None
    assert passed[1] == check.fast(loc), loc


_UTC_DAYS = st.integers(min_value=-3, max_value=3)
_offsets = st.integers(min_value=-86_399, max_value=86_399).map(
    lambda s: timezone(timedelta(seconds=s))
)
_lastmods = st.none() | st.builds(
    lambda day, minutes, micro, tz: (
        (datetime(2024, 5, 10, 12, tzinfo=timezone.utc) + timedelta(days=day, minutes=minutes))
        .replace(microsecond=micro)
        .astimezone(tz)
    ),
    _UTC_DAYS,
    st.integers(min_value=-1440, max_value=1440),
    st.sampled_from([0, 1, 999_999]),
    _offsets,
)


@pytest.mark.parametrize("fmt", FORMATS)
@given(
    lastmods=st.lists(_lastmods, max_size=10),
    since=_lastmods.filter(lambda d: d is not None),
    undated=st.booleans(),
    room=st.integers(min_value=0, max_value=12),
)
def test_the_budget_and_since_keep_what_the_walk_and_dump_keep(
    fmt: str, lastmods: list[datetime | None], since: datetime, undated: bool, room: int
) -> None:
    """Entries in scope: the first ``room`` kept (the walk's cut), then those ``Since.keeps``
    keeps (the Python statement of ``--since``: the crate's ``Gate::recent`` agrees with it
    on every lastmod and offset), written as the Python writer writes what is left."""
    entries = [
        Entry(f"https://e.com/{i}", lastmod, ChangeFreq.DAILY, 0.5, "https://e.com/s.xml")
        for i, lastmod in enumerate(lastmods)
    ]
    budget = entries[:room]
    rule = Since(since, undated)
    kept = [e for e in budget if rule.keeps(e.lastmod)]
    text = io.StringIO()
    write = python_entry_writer(fmt, text)
    text.seek(0)
    text.truncate()
    write(kept)
    scope = Scope("https://e.com/s.xml", ScopePolicy.STRICT).filter()
    passed = _writer(fmt).write_passing(entries, scope=scope, since=rule, room=room)
    assert passed == (text.getvalue().encode(), len(budget), len(budget), len(kept))


def test_several_documents_are_refused() -> None:
    entries = [Entry("https://e.com/a", sitemap="a"), Entry("https://e.com/b", sitemap="b")]
    with pytest.raises(ValueError, match="one document"):
        _writer().write_passing(entries, scope=OFF, since=None)


def test_a_naive_since_is_refused() -> None:
    """A lastmod is aware: ``Since`` refuses a naive instant, and the crate, which reads
    ``when`` by attribute, refuses one it is handed all the same."""
    naive = datetime(2024, 5, 1)
    with pytest.raises(ValueError, match="aware"):
        Since(naive)

    @dataclass
    class Naive:
        when: datetime = naive
        keep_undated: bool = True

    with pytest.raises(ValueError, match="aware"):
        _writer().write_passing([Entry("https://e.com/a")], scope=OFF, since=Naive())
