"""The protocol's per-document limits from the command line: --max-bytes, --max-urls and
--cut-at-max-urls on dump, tree and check, and the one line said when both limits meet."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sitemap_reader._cli import main
from tests.support.http_site import urlset

URLS = 3_000  # about 160 kB: a big document in small, at limits cut to its size


@pytest.fixture
def big(tmp_path: Path) -> str:
    path = tmp_path / "big.xml"
    path.write_text(urlset(*(f"https://example.com/p/{i:06d}" for i in range(URLS))))
    return str(path)


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str], list[str]]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out.splitlines(), err.splitlines()


def test_both_limits_met_in_one_document_say_one_line(
    big: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Cut at its size after more URLs than --max-urls: one problem says both, and never
    "all were read" beside "cut"."""
    status, out, err = _run(
        capsys, "dump", "--format", "txt", "--max-bytes", "64k", "--max-urls", "100", big
    )

    assert status == 0
    assert 100 < len(out) < URLS
    problems = [line for line in err if line.endswith("]")]
    assert problems == [
        (
            f"sitemap-reader: {big}: cut at 64 KB (decompressed) after {len(out):,} entries; "
            "the document lists more than the 100 entries a sitemap may hold [too-large]"
        )
    ]
    assert not any("all were read" in line for line in err)


def test_max_urls_reports_and_reads_all(big: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = _run(capsys, "dump", "--format", "txt", "--max-urls", "100", big)

    assert (status, len(out)) == (0, URLS)
    assert (
        f"sitemap-reader: {big}: 3,000 entries, 2,900 more than the limit of 100 a sitemap may "
        "hold; all were read [too-many-urls]"
    ) in err


def test_too_many_urls_in_a_document_that_breaks_off_are_not_all_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """More URLs than --max-urls, then broken XML: not "all were read"."""
    path = tmp_path / "broken.xml"
    whole = urlset(*(f"https://example.com/p/{i}" for i in range(150)))
    path.write_text(whole.replace("</urlset>", "<url><loc>&bad;</loc></url></urlset>"))

    status, out, err = _run(capsys, "dump", "--format", "txt", "--max-urls", "100", str(path))

    assert (status, len(out)) == (0, 150)
    assert (
        f"sitemap-reader: {path}: 150 entries, 50 more than the limit of 100 a sitemap may "
        "hold; read up to where it ended [too-many-urls]"
    ) in err
    assert not any("all were read" in line for line in err)


def test_cut_at_max_urls_stops_there(big: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = _run(
        capsys, "dump", "--format", "txt", "--max-urls", "100", "--cut-at-max-urls", big
    )

    assert status == 0
    assert out == [f"https://example.com/p/{i:06d}" for i in range(100)]
    assert (
        f"sitemap-reader: {big}: more than 100 entries: the document was cut there "
        "[too-many-urls]" in err
    )


def test_tree_takes_the_document_limits(big: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(capsys, "tree", "--max-urls", "10", "--cut-at-max-urls", big)

    assert status == 0
    assert out[0] == f"{big}  urlset  10 URLs  [partial]"


def test_check_takes_the_document_limits(big: str, capsys: pytest.CaptureFixture[str]) -> None:
    """check --max-bytes: the cut document is a too-large finding (P302) that names both
    limits, and fails the check."""
    status, out, _ = _run(
        capsys, "check", "--format", "json", "--max-bytes", "64k", "--max-urls", "100", big
    )

    findings = [json.loads(line) for line in out][:-1]  # the last line: the summary
    assert status == 1
    assert [(f["code"], f["url"]) for f in findings] == [("P302", big)]
    assert "the document lists more than the 100 entries" in findings[0]["message"]


@pytest.mark.parametrize(
    ("option", "value", "cause"),
    [
        ("--max-bytes", "lots", "'lots' is not a size (try 500M or 20G)"),
        ("--max-urls", "0", "0 is less than 1"),
    ],
)
def test_a_bad_limit_is_a_usage_error(
    big: str, option: str, value: str, cause: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit:
        main(["dump", option, value, big])
    assert exit.value.code == 2
    assert f"argument {option}: {cause}" in capsys.readouterr().err
