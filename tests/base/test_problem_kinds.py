"""Problem kinds: one enum, the README's table of kinds, and each exception's kind."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from sitemap_reader import (
    AddressRefused,
    FetchError,
    HTTPStatusError,
    LimitExceeded,
    ParseError,
    Problem,
    ProblemKind,
    SitemapReaderError,
    TransportError,
    UnsafeXMLError,
)
from sitemap_reader._base._errors import ContentEncodingError, RedirectError, kind_of

README = Path(__file__).resolve().parents[2] / "README.md"


def readme_kinds() -> set[str]:
    """Every `word` in the first column of the README's table of kinds."""
    text = README.read_text(encoding="utf-8")
    table = text[text.index("| kind | meaning |") :]
    table = table[: table.index("\n\n")]
    kinds: set[str] = set()
    for row in table.splitlines()[2:]:
        first = row.split("|")[1]
        kinds.update(re.findall(r"`([a-z0-9-]+)`", first))
    return kinds


def test_the_readme_table_lists_every_kind_and_no_other() -> None:
    assert readme_kinds() == {kind.value for kind in ProblemKind}


def test_a_kind_reads_as_its_word() -> None:
    problem = Problem(
        kind=ProblemKind.NOT_WELL_FORMED, url="https://example.com/s.xml", message="bad"
    )
    assert problem.kind == "not-well-formed"
    assert str(problem) == "https://example.com/s.xml: bad [not-well-formed]"
    assert f"{problem.kind}" == "not-well-formed"
    assert json.dumps({"kind": problem.kind}) == '{"kind": "not-well-formed"}'


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        (HTTPStatusError("404", url="u", status=404), ProblemKind.HTTP_STATUS),
        (TransportError("reset", url="u"), ProblemKind.NETWORK),
        (FetchError("cut", url="u"), ProblemKind.NETWORK),
        (RedirectError("loop", url="u"), ProblemKind.REDIRECT),
        (ContentEncodingError("x-snappy", url="u"), ProblemKind.CONTENT_ENCODING),
        (AddressRefused("no", url="u", host="h", address="10.0.0.1"), ProblemKind.PRIVATE_ADDRESS),
        (LimitExceeded("late", kind=ProblemKind.DEADLINE), ProblemKind.DEADLINE),
        (ParseError("bad"), ProblemKind.NOT_WELL_FORMED),
        (UnsafeXMLError("entity"), ProblemKind.UNSAFE_XML),
        (SitemapReaderError("?"), ProblemKind.ERROR),
        (ValueError("a bug"), ProblemKind.ERROR),
    ],
)
def test_each_exception_carries_its_kind(error: Exception, kind: ProblemKind) -> None:
    assert kind_of(error) is kind


def test_a_problem_is_built_by_keyword_and_carries_its_facts() -> None:
    """Fields are keyword-only; line, column, count and example are data, not text, and
    str() still says what it always said."""
    with pytest.raises(TypeError):
        Problem(ProblemKind.NOT_WELL_FORMED, "u", "bad")  # type: ignore[misc]
    problem = Problem(
        kind=ProblemKind.INVALID_LASTMOD,
        url="https://example.com/s.xml",
        message="2 lastmod values were not dates and were left out (first: 'soon')",
        count=2,
        example="'soon'",
    )
    assert (problem.line, problem.column, problem.count, problem.example) == (
        None,
        None,
        2,
        "'soon'",
    )
    assert str(problem) == f"https://example.com/s.xml: {problem.message} [invalid-lastmod]"
