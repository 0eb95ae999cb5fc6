"""``dump --format jsonl|csv|txt`` under the compiled core writes its lines with the crate,
and they are the bytes the pure core writes (``SITEMAP_READER_PURE=1``): on a local file,
to stdout and to ``-o FILE``, and on a site served on 127.0.0.1."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from sitemap_reader import Entry, SitemapRef
from sitemap_reader._core._pure import PURE_ENV
from sitemap_reader._core._xml._core_choice import COMPILED
from sitemap_reader._output._compiled import CSV_COMPILED
from tests.support.cli import main_captured, run_cli
from tests.support.documents import documents
from tests.support.helpers import CORPUS, needs_corpus, parse
from tests.support.http_site import (
    ThreadedServer,
    reset_after,
    sequence,
    sitemapindex,
    text,
    urlset,
    xml,
)
from tests.support.lines import Spied, native, python_bytes, spy_on_line_writer

native()
pytestmark = pytest.mark.skipif(not COMPILED, reason=f"the compiled core is off ({PURE_ENV})")

FORMATS = [
    "jsonl",
    pytest.param("csv", marks=pytest.mark.skipif(not CSV_COMPILED, reason="csv stays Python's")),
    "txt",
]
NAMESPACES = (
    'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
    'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" '
    'xmlns:video="http://www.google.com/schemas/sitemap-video/1.1" '
    'xmlns:news="http://www.google.com/schemas/sitemap-news/0.9" '
    'xmlns:xhtml="http://www.w3.org/1999/xhtml"'
)


def rich_urlset(base: str, n: int = 40) -> str:
    """A urlset with every field and extension, text that JSON escapes and csv quotes, dates
    in several offsets and with fractions, and every kind of priority."""
    urls = []
    for i in range(n):
        parts = [f"<loc>{base}/p/{i}?a=1&amp;b=%22x,y%22&amp;q=caf\u00e9\u2028\U0001f600</loc>"]
        if i % 2:
            parts.append(f"<lastmod>2024-05-{1 + i % 28:02d}T10:{i % 60:02d}:07.25+05:30</lastmod>")
        elif i % 3:
            parts.append(f"<lastmod>20{10 + i % 15}-01-0{1 + i % 9}</lastmod>")
        parts.append(f"<changefreq>{('daily', 'weekly', 'never')[i % 3]}</changefreq>")
        parts.append(f"<priority>{('0.5', '1.0', '0.000001', '0.8')[i % 4]}</priority>")
        if i % 4 == 0:
            parts.append(
                f"<image:image><image:loc>{base}/i/{i}.jpg</image:loc>"
                f'<image:title>A "quoted" title\ttab \u00fc</image:title>'
                "<image:caption>line one\nline two</image:caption></image:image>"
            )
        if i % 5 == 0:
            parts.append(
                f"<video:video><video:thumbnail_loc>{base}/t/{i}.jpg</video:thumbnail_loc>"
                "<video:title>V</video:title><video:description>d \\ back</video:description>"
                f"<video:duration>{i * 7}</video:duration><video:rating>4.25</video:rating>"
                "<video:view_count>12345</video:view_count>"
                "<video:publication_date>2023-02-03T04:05:06-08:00</video:publication_date>"
                "<video:family_friendly>yes</video:family_friendly><video:live>no</video:live>"
                "<video:tag>a</video:tag><video:tag>b,c</video:tag></video:video>"
            )
        if i % 6 == 0:
            parts.append(
                "<news:news><news:publication><news:name>The Times</news:name>"
                "<news:language>en</news:language></news:publication>"
                "<news:publication_date>2024-05-01T09:00:00Z</news:publication_date>"
                "<news:title>Headline \u201cquoted\u201d</news:title></news:news>"
            )
        if i % 3 == 1:
            parts += [
                f'<xhtml:link rel="alternate" hreflang="de" href="{base}/de/{i}"/>',
                (
                    f'<xhtml:link rel="alternate" hreflang="x-default" href="{base}/{i}" '
                    'media="only screen and (max-width: 640px)"/>'
                ),
            ]
        urls.append("<url>" + "".join(parts) + "</url>")
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset {NAMESPACES}>'
        + "".join(urls)
        + "</urlset>\n"
    )


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Spied:
    """What the real LineWriter wrote in this process."""
    return spy_on_line_writer(monkeypatch)


def pure_run(monkeypatch: pytest.MonkeyPatch, *argv: str) -> tuple[int, bytes, str]:
    """``dump ARGV`` by the pure core, in a subprocess: its exit status, stdout, stderr."""
    with monkeypatch.context() as env:
        env.setenv(PURE_ENV, "1")
        done = run_cli("dump", *argv)
    return done.returncode, done.stdout, done.stderr.decode("utf-8")


def pure_dump(monkeypatch: pytest.MonkeyPatch, *argv: str) -> bytes:
    """``dump ARGV``'s stdout from the pure core, in a subprocess."""
    code, out, err = pure_run(monkeypatch, *argv)
    assert code == 0, err
    return out


@pytest.mark.parametrize("fmt", FORMATS)
def test_dump_of_a_file_writes_the_pure_cores_bytes(
    fmt: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    counted: Spied,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """To stdout and to -o FILE, every entry through the crate, the bytes of the pure core;
    a compiled run in a subprocess writes them too, on a stdout set to latin-1 as well."""
    path = tmp_path / "rich.xml"
    path.write_text(rich_urlset("https://shop.invalid"), encoding="utf-8")
    expected = pure_dump(monkeypatch, str(path), "--format", fmt)
    assert len(expected.splitlines()) == 40 + (fmt == "csv")

    code, out, _ = main_captured(capsys, "dump", str(path), "--format", fmt)
    assert code == 0
    assert out.encode("utf-8") == expected
    assert counted.total == 40
    # Plain entries as the walk's lines, those with a video or news (built by Python) as
    # records: both, in document order (the bytes above).
    assert counted.runs and counted.objects

    target = tmp_path / "out"
    code, out, _ = main_captured(capsys, "dump", str(path), "--format", fmt, "-o", str(target))
    assert code == 0 and out == ""
    assert target.read_bytes() == expected
    assert counted.total == 80

    compiled = run_cli("dump", str(path), "--format", fmt)
    assert compiled.returncode == 0 and compiled.stdout == expected
    # The crate writes UTF-8, and so does dump whatever stdout's own encoding is.
    latin = run_cli("dump", str(path), "--format", fmt, env={"PYTHONIOENCODING": "latin-1"})
    assert latin.returncode == 0 and latin.stdout == expected


@pytest.mark.parametrize("fmt", FORMATS)
def test_dump_of_a_site_writes_the_pure_cores_bytes(
    fmt: str,
    capsys: pytest.CaptureFixture[str],
    counted: Spied,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A site read through robots.txt and an index of three sitemaps: the same lines as the
    pure core's (the documents finish in any order: compared line by line, sorted), and one
    sitemap read alone, the same bytes."""
    with ThreadedServer() as s:
        s.add("/robots.txt", text(f"Sitemap: {s.a('/index.xml')}\n"))
        s.add("/index.xml", xml(sitemapindex(*(s.a(f"/s{i}.xml") for i in range(3)))))
        for i in range(3):
            s.add(f"/s{i}.xml", xml(rich_urlset(s.a(f"/{i}"), n=30 + i)))
        expected = pure_dump(monkeypatch, s.a("/"), "--format", fmt)
        code, out, _ = main_captured(capsys, "dump", s.a("/"), "--format", fmt)
        assert code == 0
        assert sorted(out.encode("utf-8").splitlines()) == sorted(expected.splitlines())
        assert out.startswith("loc,") == (fmt == "csv")
        assert counted.total == 93

        one = pure_dump(monkeypatch, s.a("/s1.xml"), "--format", fmt, "--since", "2024-05-10")
        code, out, _ = main_captured(
            capsys, "dump", s.a("/s1.xml"), "--format", fmt, "--since", "2024-05-10"
        )
        assert code == 0 and out.encode("utf-8") == one
        assert 0 < len(one.splitlines()) < 31  # --since kept some, in the crate's lines


def scoped_urlset(s: Any, n: int = 60) -> str:
    """Entries the scope's fast test passes, between others on another host (dropped), with
    a dot segment or an encoded one (only the full check can tell), dated and not."""
    locs: list[str | dict[str, str]] = []
    for i in range(n):
        if i % 7 == 3:
            loc = s.b(f"/other/{i}")
        elif i % 11 == 5:
            loc = s.a(f"/a/../p/{i}")
        elif i % 13 == 4:
            loc = s.a(f"/a/%2E%2e/p/{i}")
        else:
            loc = s.a(f"/p/{i}")
        if i % 4 == 0:
            locs.append(loc)
        else:
            locs.append({"loc": loc, "lastmod": f"2024-05-{1 + i % 28:02d}"})
    return urlset(*locs)


def summary(stderr: str) -> str:
    """The run's summary line, its time left out (the rest is counts)."""
    (line,) = (line for line in stderr.splitlines() if " read in " in line)
    return line.rsplit(" in ", 1)[0]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(
    "options",
    [
        (),
        ("--since", "2024-05-10"),
        ("--since", "2024-05-10", "--since-strict"),
        ("--max-entries", "25"),
        ("--max-entries", "25", "--since", "2024-05-10"),
    ],
    ids=["all", "since", "since-strict", "budget", "budget-since"],
)
def test_the_walks_lines_pass_the_scope_the_budget_and_since_as_records_do(
    fmt: str,
    options: tuple[str, ...],
    capsys: pytest.CaptureFixture[str],
    counted: Spied,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Entries written as lines by the walk meet the scope (the fast test, then the full one
    for what it cannot pass), the entry budget cut inside a run and ``--since``: the pure
    core's bytes, exit status and counts."""
    with ThreadedServer() as s:
        s.add("/s.xml", xml(scoped_urlset(s)))
        expected = pure_run(monkeypatch, s.a("/s.xml"), "--format", fmt, *options)
        code, out, err = main_captured(capsys, "dump", s.a("/s.xml"), "--format", fmt, *options)
    assert (code, out.encode("utf-8")) == expected[:2]
    assert summary(err) == summary(expected[2])
    assert "dropped as out of scope" in summary(err)
    assert counted.runs  # (the lines path ran, beside the records the full check kept)
    assert counted.total == len(out.splitlines()) - (fmt == "csv")


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_body_cut_once_and_read_again_is_written_once(
    fmt: str,
    capsys: pytest.CaptureFixture[str],
    counted: Spied,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A reset mid-body after some lines were written: the retry reads the document again,
    as records, and passes on only what was not written: every entry once, in order."""
    with ThreadedServer() as s:
        body = scoped_urlset(s, n=400)
        cut = body.index("</url>", len(body) // 2) + 6
        s.add("/s.xml", sequence(reset_after(body, cut), xml(body)))
        s.add("/whole.xml", xml(body))
        expected = pure_dump(monkeypatch, s.a("/whole.xml"), "--format", fmt)
        code, out, _ = main_captured(capsys, "dump", s.a("/s.xml"), "--format", fmt)
        assert s.count("/s.xml") == 2
    assert code == 0
    assert out.encode("utf-8") == expected.replace(b"/whole.xml", b"/s.xml")
    assert counted.runs and counted.objects  # lines before the cut, records after it


def reference_lines(path: Path, fmt: str) -> bytes | None:
    """What the Python writer writes for the records the parser makes of ``path`` read as
    ``dump`` reads a file (its absolute path as the sitemap), csv header included; None for
    a document that names other sitemaps (``dump`` would fetch them)."""
    name = os.path.abspath(path)  # (as the command line names a file: links not resolved)
    events = parse(path.read_bytes(), url=name)
    if any(type(e) is SitemapRef for e in events):
        return None
    entries = [e for e in events if type(e) is Entry]
    head = b"loc,lastmod,changefreq,priority,sitemap\n" if fmt == "csv" else b""
    return head + python_bytes(fmt, [entries])


@needs_corpus
def test_dump_of_every_corpus_file_writes_the_python_writers_bytes(
    capsys: pytest.CaptureFixture[str], counted: Spied
) -> None:
    """Each corpus file through ``dump`` (the walk's lines where the compiled core read the
    entries, records elsewhere) against the Python writer on the parser's records."""
    documents = 0
    for path in sorted(CORPUS.rglob("*")):
        # (robots.txt files and indexes name real hosts: no test reads those)
        if not path.is_file() or path.name in ("MANIFEST.tsv", "README.md"):
            continue
        if path.parent.name == "robots" or reference_lines(path, "txt") is None:
            continue
        for fmt in ("jsonl", "csv", "txt") if CSV_COMPILED else ("jsonl", "txt"):
            expected = reference_lines(path, fmt)
            _, out, _ = main_captured(capsys, "dump", str(path), "--format", fmt, "-q")
            assert out.encode("utf-8") == expected, f"{path.name} as {fmt}"
        documents += 1
    assert documents > 10
    assert counted.runs and counted.objects  # both paths ran


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=documents())
def test_dump_of_generated_documents_writes_the_python_writers_bytes(
    data: bytes, capsys: pytest.CaptureFixture[str]
) -> None:
    """Generated urlsets with every extension under varied prefixes, damaged or cut (and
    indexes, left out), read by ``dump`` as jsonl: the Python writer's bytes for the parser's records."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "doc.xml"
        path.write_bytes(data)
        expected = reference_lines(path, "jsonl")
        if expected is not None:  # (an index: dump would fetch what it names)
            _, out, _ = main_captured(capsys, "dump", str(path), "--format", "jsonl", "-q")
            assert out.encode("utf-8") == expected
