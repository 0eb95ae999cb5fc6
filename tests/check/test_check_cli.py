"""``sitemap-reader check`` as a command: formats, the report file, exit statuses, and a run
over every file of the real-world corpus (the broken ones must have errors)."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

import sitemap_reader as sr
from tests.support.check import urls
from tests.support.helpers import CORPUS, needs_corpus
from tests.support.http_site import ThreadedServer, html, redirect, status, text, xml


def run(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sitemap_reader", "check", *args],
        check=False,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    """A clean sitemap, one with a warning only, one with an error."""
    made = {
        "clean": urls("<loc>https://example.com/a</loc>", "<loc>https://example.com/b</loc>"),
        "warning": urls("<loc>https://example.com/w</loc>", "<loc>https://example.com/w</loc>"),
        "error": urls("<loc>https://example.com/a</loc>", "<loc>/relative</loc>"),
    }
    out = {}
    for name, body in made.items():
        path = out[name] = tmp_path / f"{name}.xml"
        path.write_text(body, encoding="utf-8")
    return out


def test_text_output_and_exit_status(files: dict[str, Path]) -> None:
    """Text: the document, a line per finding with code and line, the summary; exit 1 on an
    error (the default --fail-on), 0 for a clean file."""
    done = run(str(files["error"]))
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == str(files["error"])
    assert lines[1].split()[:3] == ["error", "P310", "relative-loc:"]
    assert "1 finding: 1 error, 0 warnings, 0 notices" in done.stdout
    clean = run(str(files["clean"]))
    assert (clean.returncode, clean.stdout) == (0, "0 findings: 0 errors, 0 warnings, 0 notices\n")


@pytest.mark.parametrize(
    ("name", "fail_on", "status"),
    [
        ("warning", "error", 0),
        ("warning", "warning", 1),
        ("error", "warning", 1),
        ("error", "never", 0),
        ("clean", "warning", 0),
    ],
)
def test_fail_on(files: dict[str, Path], name: str, fail_on: str, status: int) -> None:
    assert run(str(files[name]), "--fail-on", fail_on).returncode == status


def test_usage_errors_exit_2(files: dict[str, Path], tmp_path: Path) -> None:
    assert run(str(files["clean"]), "--fail-on", "sometimes").returncode == 2
    assert run().returncode == 2  # no source
    missing = tmp_path / "no-such-dir" / "report.html"
    done = run(str(files["clean"]), "--report", str(missing))
    assert done.returncode == 2 and "does not exist" in done.stderr


def test_json_lines_then_summary(files: dict[str, Path]) -> None:
    done = run(str(files["error"]), str(files["warning"]), "--format", "json")
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    *found, last = rows
    assert {(r["code"], r["url"]) for r in found} == {
        ("P310", str(files["error"])),
        ("P314", str(files["warning"])),
    }
    assert set(found[0]) == {"code", "name", "severity", "url", "line", "count", "message"}
    assert last == {
        "summary": {
            "findings": 2,
            "by_severity": {"error": 1, "warning": 1, "notice": 0},
            "by_code": {"P310": 1, "P314": 1},
            # (no P315: the two files list no URL in common)
        }
    }


def test_report_over_http(tmp_path: Path) -> None:
    """A live loopback site: the report page is written whole, with its charts and the
    tree; the findings name the redirect. Two sitemaps with one finding each: their chart
    gives way to a sentence."""
    report = tmp_path / "report.html"
    with ThreadedServer() as s:
        s.add("/robots.txt", text(f"Sitemap: {s.a('/old.xml')}\n"))
        s.add("/old.xml", redirect("/sitemap.xml"))
        s.add("/sitemap.xml", xml(urls(f"<loc>{s.a('/page')}</loc>")))
        done = run(s.a("/"), "--report", str(report), "--allow-private", "--format", "json")
    assert done.returncode == 0, done.stderr
    assert done.stderr == f"sitemap-reader: wrote the report page {report}\n"
    codes = {json.loads(line).get("code") for line in done.stdout.splitlines()}
    assert {"R104", "H203"} <= codes
    page = report.read_text(encoding="utf-8")
    assert page.count('<svg class="chart"') == 2
    assert "2 documents have 1 finding each" in page
    assert 'id="tree"' in page and "R104" in page
    assert "<script" not in page and 'http-equiv="Content-Security-Policy"' in page


@needs_corpus
def test_every_corpus_file(tmp_path: Path) -> None:
    """check over every file of the corpus finishes, and each broken file has an error.

    Remote sitemaps the files name are not fetched: one document per source.
    """
    with (CORPUS / "MANIFEST.tsv").open(encoding="utf-8") as manifest:
        rows = list(csv.DictReader(manifest, delimiter="\t"))
    paths = [str((CORPUS / row["file"]).resolve()) for row in rows]
    broken = {str((CORPUS / r["file"]).resolve()) for r in rows if r["kind"] == "broken"}
    assert len(broken) >= 10
    report = tmp_path / "corpus.html"
    done = run(
        *paths,
        "--max-sitemaps-per-site",
        "1",
        "--format",
        "json",
        "--report",
        str(report),
        timeout=600,
    )
    assert done.returncode == 1, done.stderr  # the broken files have errors
    *found, summary = [json.loads(line) for line in done.stdout.splitlines()]
    errors = {f["url"] for f in found if f["severity"] == "error"}
    assert broken <= errors, sorted(broken - errors)
    assert all(f["code"] in sr.CODES for f in found)
    assert summary["summary"]["findings"] == len(found)
    assert report.stat().st_size > 10_000


def test_text_names_a_line_once() -> None:
    """A finding whose message already starts with its line (robots.txt's) is not given the
    line a second time."""
    with ThreadedServer() as s:
        s.add("/robots.txt", text("Sitemap: /sitemap.xml\n"))
        s.add("/sitemap.xml", xml(urls(f"<loc>{s.a('/page')}</loc>")))
        done = run(s.a("/"), "--allow-private")
    (line,) = [line for line in done.stdout.splitlines() if "R101 robots-relative-sitemap:" in line]
    assert "robots-relative-sitemap: line 1: the relative Sitemap value" in line, line
    assert line.count("line 1") == 1, line


def test_sample_fetches_listed_pages_and_fail_on_applies() -> None:
    """--sample 10 over four listed pages asks each once: the 404 is an error (exit 1 by the
    default --fail-on), the redirect a warning; --fail-on never exits 0; without --sample
    no page is asked."""
    with ThreadedServer() as s:
        s.add("/ok", html("<html><head><title>ok</title></head><body></body></html>"))
        s.add("/gone", status(404))
        s.add("/moved", redirect("/ok"))
        s.add("/noindexed", html('<html><head><meta name="robots" content="noindex"></head>'))
        listed = [f"<loc>{s.a(p)}</loc>" for p in ("/ok", "/gone", "/moved", "/noindexed")]
        s.add("/sitemap.xml", xml(urls(*listed)))
        plain = run(s.a("/sitemap.xml"), "--allow-private")
        asked_without = sum(s.count(p) for p in ("/ok", "/gone", "/moved", "/noindexed"))
        done = run(s.a("/sitemap.xml"), "--allow-private", "--sample", "10", "--format", "json")
        never = run(s.a("/sitemap.xml"), "--allow-private", "--sample", "10", "--fail-on", "never")
    assert (plain.returncode, asked_without) == (0, 0), plain.stdout
    assert done.returncode == 1, done.stderr
    found = [json.loads(line) for line in done.stdout.splitlines()]
    assert {f["code"]: f["count"] for f in found if "code" in f} == {
        "S701": 1,
        "S702": 1,
        "S705": 1,
    }
    (gone,) = [f for f in found if f.get("code") == "S702"]
    assert gone["url"] == s.a("/gone") and gone["message"].startswith(
        "25.0% of the listed URLs answer 4xx: 1 of 4 sampled pages (of 4 listed URLs)"
    )
    assert never.returncode == 0 and "S701 page-redirects:" in never.stdout
