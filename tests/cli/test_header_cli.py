"""``--header 'Name: value'`` on the command line: sent with every request of ``dump``,
``tree`` and ``check``; a malformed one is a usage error that never echoes the text."""

from __future__ import annotations

import pytest

from sitemap_reader._cli import main
from tests.support.cli import main_captured as cli
from tests.support.http_site import ThreadedServer, serve_index

SECRET = "Bearer s3cret-token"


@pytest.mark.parametrize("command", ["dump", "tree", "check"])
def test_each_reading_command_sends_the_headers(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with ThreadedServer() as s:
        serve_index(s, {"a": 2})
        code, out, err = cli(
            capsys,
            command,
            "--header",
            "X-Crawl-Id: run-7",
            "--header",
            f"Authorization:  {SECRET}",  # the spaces after ':' are not the value's
            s.a("/"),
        )
        sent = [h.headers for h in s.site.hits]
    assert code == 0, err
    assert [h["X-Crawl-Id"] for h in sent] == ["run-7"] * 3
    assert [h["Authorization"] for h in sent] == [SECRET] * 3
    assert "s3cret" not in out + err


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (SECRET, "expected 'Name: value', and there is no ':'"),
        (f"Bearer s3cret: {SECRET}", "a header name is letters, digits and"),
        ("Accept-Encoding: identity", "the Accept-Encoding header is the reader's own"),
    ],
)
def test_a_bad_header_is_a_usage_error_that_hides_the_text(
    text: str, says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit:
        main(["dump", "--header", text, "https://example.com/"])
    err = capsys.readouterr().err
    assert exit.value.code == 2
    assert f"argument --header: {says}" in err
    assert "s3cret" not in err
