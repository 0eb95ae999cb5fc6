"""Problem kinds: one enum, the docs' table of kinds (docs/problems.md), and each exception's kind."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from sitemap_reader import (
    AddressRefused,
    ContentEncodingError,
    FetchError,
    HTTPStatusError,
    LimitExceeded,
    ParseError,
    Problem,
    ProblemKind,
    RedirectError,
    SitemapReaderError,
    TransportError,
    UnsafeXMLError,
    WorkerLost,
    raise_for_problem,
)
from sitemap_reader._base import _errors
from sitemap_reader._base._errors import _CONTENT, CodingError, kind_of

PROBLEMS_PAGE = Path(__file__).resolve().parents[2] / "docs" / "problems.md"


def documented_kinds() -> set[str]:
    """Every `word` in the first column of the docs' table of kinds."""
    text = PROBLEMS_PAGE.read_text(encoding="utf-8")
    table = text[text.index("| kind | meaning |") :]
    table = table[: table.index("\n\n")]
    kinds: set[str] = set()
    for row in table.splitlines()[2:]:
        first = row.split("|")[1]
        kinds.update(re.findall(r"`([a-z0-9-]+)`", first))
    return kinds


def test_the_docs_table_lists_every_kind_and_no_other() -> None:
    assert documented_kinds() == {kind.value for kind in ProblemKind}


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
        (CodingError("gzip", "incorrect header check"), ProblemKind.GZIP_ERROR),
        (WorkerLost("died", url="u"), ProblemKind.WORKER_LOST),
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


@pytest.mark.parametrize("kind", list(ProblemKind), ids=str)
def test_every_kind_raises_an_error_of_the_tree_that_keeps_the_problem(kind: ProblemKind) -> None:
    problem = Problem(
        kind=kind, url="https://example.com/s.xml", message="what happened", fatal=True
    )
    with pytest.raises(SitemapReaderError) as caught:
        raise_for_problem(problem)
    error = caught.value
    assert (error.kind, error.url, str(error)) == (kind, problem.url, problem.message)
    assert kind_of(error) is kind
    assert isinstance(error, ParseError) == (kind in {ProblemKind.UNSAFE_XML} | _CONTENT)


def test_the_fetch_layers_words_are_read_back() -> None:
    status = Problem(
        kind=ProblemKind.HTTP_STATUS, url="https://example.com/s.xml", message="HTTP 503 Busy"
    )
    with pytest.raises(HTTPStatusError) as caught:
        raise_for_problem(status)
    assert caught.value.status == 503 and caught.value.retryable
    said = "not fetched: intranet is at 10.0.0.7, a private address; ..."
    refused = Problem(kind=ProblemKind.PRIVATE_ADDRESS, url="http://intranet/s.xml", message=said)
    with pytest.raises(AddressRefused) as refusal:
        raise_for_problem(refused)
    assert (refusal.value.host, refusal.value.address) == ("intranet", "10.0.0.7")


def test_the_docstring_draws_every_class_of_the_tree() -> None:
    tree = _errors.__doc__ or ""
    drawn = set(
        re.findall(r"^[\s│├└─]*(\w+)", tree[tree.index("SitemapReaderError") :], re.MULTILINE)
    )
    defined = {
        name
        for name, obj in vars(_errors).items()
        if isinstance(obj, type) and issubclass(obj, SitemapReaderError)
    }
    assert defined <= drawn
