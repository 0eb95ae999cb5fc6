"""``check --explain CODE`` and ``check --codes``: the registry of check's codes told from the
command line, as text or JSON lines; an unknown code is a usage error that suggests others."""

from __future__ import annotations

import json

import pytest

import sitemap_reader as sr
from sitemap_reader._cli import main
from tests.support.cli import run_cli

CHECK_USAGE = (
    "usage: sitemap-reader check [OPTIONS] [SOURCE ...]\n"
    "       sitemap-reader check --explain CODE | --codes [--format json]"
)


def _ok(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(["check", *argv]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    return out


def _usage_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as exit:
        main(["check", *argv])
    out, err = capsys.readouterr()
    assert (exit.value.code, out) == (2, "")
    return err


def test_explain_gives_name_meaning_fix_and_example(capsys: pytest.CaptureFixture[str]) -> None:
    out = _ok(capsys, "--explain", "P305")

    assert out == (
        "P305 not-well-formed (error): the XML is not well-formed (often a bad escape)\n"
        "\n"
        "What it means:\n"
        "  The XML breaks a rule of XML, most often an unescaped & in a URL. Parsers stop at "
        "the\n"
        "  error; the entries after it are lost.\n"
        "\n"
        "How to fix it:\n"
        "  Escape & as &amp; and < as &lt; in values, and fix the XML where it breaks.\n"
        "\n"
        "Example:\n"
        "  <loc>https://example.com/?a=1&b=2</loc>\n"
    )


@pytest.mark.parametrize("word", ["too-many-urls", "p301", " P301 "])
def test_explain_takes_the_code_or_its_name(word: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert _ok(capsys, "--explain", word).startswith("P301 too-many-urls (error): ")


def test_explain_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    told = json.loads(_ok(capsys, "--explain", "R105", "--format", "json"))

    code = sr.CODES["R105"]
    assert told == {
        "code": "R105",
        "name": "no-sitemap",
        "severity": "error",
        "summary": code.summary,
        "meaning": code.meaning,
        "fix": code.fix,
        "example": code.example,
    }


def test_codes_lists_every_code_in_order(capsys: pytest.CaptureFixture[str]) -> None:
    lines = _ok(capsys, "--codes").splitlines()

    assert [line.split()[0] for line in lines] == list(sr.CODES)
    assert lines[0].split(None, 3) == [
        "R101",
        "warning",
        "robots-relative-sitemap",
        "a Sitemap: line is relative",
    ]
    width = {line.index(code.summary) for line, code in zip(lines, sr.CODES.values(), strict=True)}
    assert len(width) == 1  # the summaries line up in one column


def test_codes_as_json_lines(capsys: pytest.CaptureFixture[str]) -> None:
    rows = [json.loads(line) for line in _ok(capsys, "--codes", "--format", "json").splitlines()]

    assert [row["code"] for row in rows] == list(sr.CODES)
    for row in rows:
        assert set(row) == {"code", "name", "severity", "summary", "meaning", "fix", "example"}
        assert all(row.values())


@pytest.mark.parametrize(
    ("word", "said"),
    [
        (
            "P3011",
            (
                "--explain: no code 'P3011': did you mean P311 invalid-loc, P301 too-many-urls or "
                "P340 repeated-element?"
            ),
        ),
        (
            "too-many-url",
            "did you mean P301 too-many-urls, X504 news-too-many or X520 image-too-many?",
        ),
        ("Z999", "--explain: no code 'Z999' (check --codes lists them)"),
    ],
)
def test_an_unknown_code_is_a_usage_error_suggesting_close_ones(
    word: str, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    err = _usage_error(capsys, "--explain", word)

    assert err.startswith(f"{CHECK_USAGE}\nsitemap-reader check: error: --explain: no code ")
    assert said in err
    assert err.count("\n") == 3  # the usage (two lines) and one error line


def test_explain_and_codes_read_no_source(capsys: pytest.CaptureFixture[str]) -> None:
    err = _usage_error(capsys, "--explain", "P301", "https://example.com/")
    assert err.endswith("error: --explain and --codes read no SOURCE\n")
    err = _usage_error(capsys, "--explain", "P301", "--codes")
    assert "argument --codes: not allowed with argument --explain" in err


def test_explain_from_the_console_script() -> None:
    """The same text through ``python -m sitemap_reader``, exit 0, nothing on stderr."""
    done = run_cli("check", "--explain", "H204")

    assert (done.returncode, done.stderr) == (0, b"")
    assert done.stdout.decode().startswith("H204 redirect-chain (warning): ")
