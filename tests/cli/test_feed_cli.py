"""The change feed's safety and lastmod trust through the CLI: ``tree --changes``, the
shrink guard on stderr and in ``state show``, the verdicts in ``tree`` and ``state show``,
the summary line saying a source was distrusted, ``--trust-lastmod``/``--shrink-guard``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sitemap_reader._cli import main
from tests.support.cli import main_captured as cli
from tests.support.http_site import ThreadedServer, serve_index, urlset, xml


def test_tree_changes_counts_what_changed_per_sitemap(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = str(tmp_path / "state.sqlite")
    with ThreadedServer() as s:
        serve_index(s, {"a": 3, "b": 3}, index_lastmod="2024-03-01", entry_lastmod="2024-03-01")
        code, first, err = cli(capsys, "tree", s.a("/"), "--state", state, "--changes")
        cli(capsys, "dump", s.a("/"), "--state", state, "--changes")  # the feed taken
        serve_index(s, {"a": 3, "b": 2}, index_lastmod="2024-04-01", entry_lastmod="2024-04-01")
        _, second, _ = cli(capsys, "tree", s.a("/"), "--state", state, "--changes")
    assert code == 0
    assert f"{s.a('/a.xml')}  urlset  3 URLs" in first and "3 new, 0 modified, 0 removed" in first
    assert err.startswith("sitemap-reader: 6 changes from 3 sitemaps")
    b = next(line for line in second.splitlines() if s.a("/b.xml") in line)
    assert b.endswith("0 new, 2 modified, 1 removed")
    assert "lastmods trusted" in b


def test_tree_changes_leaves_the_changes_to_the_next_dump(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A look with tree takes nothing from the feed a pipeline reads with dump --changes."""
    state = str(tmp_path / "state.sqlite")
    with ThreadedServer() as s:
        serve_index(s, {"a": 2, "b": 3}, index_lastmod="2024-03-01", entry_lastmod="2024-03-01")
        cli(capsys, "dump", s.a("/"), "--state", state, "--changes")
        serve_index(s, {"a": 2, "b": 2}, index_lastmod="2024-04-01", entry_lastmod="2024-04-01")
        _, looked, _ = cli(capsys, "tree", s.a("/"), "--state", state, "--changes")
        _, again, _ = cli(capsys, "tree", s.a("/"), "--state", state, "--changes")
        _, out, _ = cli(capsys, "dump", s.a("/"), "--state", state, "--changes")
        _, after, _ = cli(capsys, "dump", s.a("/"), "--state", state, "--changes")
    for tree in (looked, again):
        b = next(line for line in tree.splitlines() if s.a("/b.xml") in line)
        assert b.endswith("0 new, 2 modified, 1 removed")
    changes = sorted((r["change"], r["loc"]) for r in map(json.loads, out.splitlines()))
    # (a's entries moved their lastmods too)
    assert [c for c, _ in changes] == ["modified"] * 4 + ["removed"]
    assert changes[-1][1] == s.a("/p/b2")
    assert after == ""  # the dump took them


def test_the_shrink_guard_on_stderr_and_in_state_show(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = str(tmp_path / "state.sqlite")
    with ThreadedServer() as s:
        serve_index(s, {"a": 2, "b": 10}, index_lastmod="2024-03-01", entry_lastmod="2024-03-01")
        cli(capsys, "dump", s.a("/"), "--state", state, "--changes")
        serve_index(s, {"a": 2, "b": 1}, index_lastmod="2024-04-01", entry_lastmod="2024-04-01")
        _, out, err = cli(capsys, "dump", s.a("/"), "--state", state, "--changes")
        _, shown, _ = cli(capsys, "state", "show", state)
        _, records, _ = cli(capsys, "state", "show", state, "--format", "jsonl")
        _, off, _ = cli(
            capsys, "dump", s.a("/"), "--state", state, "--changes", "--shrink-guard", "off"
        )
    assert [json.loads(line)["change"] for line in out.splitlines()] == ["modified"] * 3
    assert f"{s.a('/b.xml')}: lists 1 URLs where its last complete read listed 10" in err
    assert "[shrink-held]" in err
    assert (
        f"held back: {s.a('/b.xml')} (sitemap) lists 1 URLs, 10 at its last complete read" in shown
    )
    b = next(json.loads(line) for line in records.splitlines() if s.a("/b.xml") in line)
    assert b["held"] == {"before": 10, "now": 1}
    assert b["lastmods"]["verdict"] == "trusted"
    assert len(off.splitlines()) == 9  # the guard off: the removals go out


def test_the_summary_says_a_source_was_distrusted_and_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A lying index (lastmods frozen in 2023, entries of 2024): the next run says so, and
    ``--trust-lastmod always`` skips its children all the same."""
    state, always = str(tmp_path / "auto.sqlite"), str(tmp_path / "always.sqlite")
    with ThreadedServer() as s:
        serve_index(s, {"a": 2, "b": 2}, index_lastmod="2023-01-01", entry_lastmod="2024-03-01")
        cli(capsys, "dump", s.a("/"), "--state", state)
        cli(capsys, "dump", s.a("/"), "--state", always, "--trust-lastmod", "always")
        _, _, err = cli(capsys, "dump", s.a("/"), "--state", state, "--format", "txt")
        _, tree, _ = cli(capsys, "tree", s.a("/"), "--state", state)
        _, skipped, err_always = cli(
            capsys, "dump", s.a("/"), "--state", always, "--trust-lastmod", "always"
        )
        _, shown, _ = cli(capsys, "state", "show", state)
    assert (
        f"sitemap-reader: the lastmods of {s.a('/')} were distrusted (2 index lastmods older "
        "than the newest entry of their sitemap)" in err
    )
    assert "distrusted" not in err_always and "2 sitemaps unchanged" in err_always
    assert skipped == ""
    assert "~ lastmods untrusted (1 index lastmods older than the newest entry" in tree
    assert f"source {s.a('/')}: lastmods untrusted (2 index lastmods older" in shown


def test_the_new_options_need_a_state_file(capsys: pytest.CaptureFixture[str]) -> None:
    for option in (["--trust-lastmod", "never"], ["--shrink-guard", "0.3"]):
        with pytest.raises(SystemExit) as exc:
            main(["dump", "http://127.0.0.1:9/", *option])
        assert exc.value.code == 2
        assert "need --state" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["dump", "http://127.0.0.1:9/", "--state", "x", "--shrink-guard", "2"])
    assert "not between 0 and 1" in capsys.readouterr().err


def test_the_first_dump_changes_after_plain_state_runs_prints_exactly_what_changed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``dump --state`` without ``--changes``, a change on the site (b loses a page and
    gains one, a's lastmods move), then ``dump --state --changes``: it prints those changes
    and no others (b's unchanged pages are not new), and the next run prints nothing."""
    state = str(tmp_path / "state.sqlite")
    with ThreadedServer() as s:
        serve_index(s, {"a": 2, "b": 3}, index_lastmod="2024-03-01", entry_lastmod="2024-03-01")
        code, plain, _ = cli(capsys, "dump", s.a("/"), "--state", state, "--format", "txt")
        serve_index(s, {"a": 2, "b": 3}, index_lastmod="2024-04-01", entry_lastmod="2024-04-01")
        b = [{"loc": s.a(f"/p/b{i}"), "lastmod": "2024-03-01"} for i in range(2)]
        s.add("/b.xml", xml(urlset(*b, {"loc": s.a("/p/new"), "lastmod": "2024-04-01"})))
        _, out, _ = cli(capsys, "dump", s.a("/"), "--state", state, "--changes", "--format", "txt")
        _, after, _ = cli(capsys, "dump", s.a("/"), "--state", state, "--changes")
    assert code == 0 and len(plain.splitlines()) == 5
    assert sorted(out.splitlines()) == [
        f"modified\t{s.a('/p/a0')}",
        f"modified\t{s.a('/p/a1')}",
        f"new\t{s.a('/p/new')}",
        f"removed\t{s.a('/p/b2')}",
    ]
    assert after == ""
