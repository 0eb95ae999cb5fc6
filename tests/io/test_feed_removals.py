"""The change feed never cries wolf: removals come only from complete reads of valid documents.

A loopback site (robots.txt -> index -> two children of 3 URLs) is read with the change feed,
then misbehaves once (the served files are changed: an error, a cut, a web page, bytes that
are no sitemap, another format, a budget of the run), then recovers. The run that saw the
misbehaviour must report no URL removed, and the run after the recovery must report nothing:
each case on a leaf, an index and robots.txt, on a SQLite state file, through the library
and through the CLI (``dump --state FILE --changes``).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from sitemap_reader import EntryChange, Incremental, Limits, walk_sync
from sitemap_reader._cli import main
from tests.support.http_site import (
    FAST,
    Handler,
    Served,
    ThreadedServer,
    html,
    reset_after,
    sitemapindex,
    status,
    text,
    text_sitemap,
    urlset,
    xml,
)

Changes = set[tuple[str, str]]

# -- the site ---------------------------------------------------------------------------------


def robots(s: Served) -> str:
    return f"User-agent: *\nSitemap: {s.a('/index.xml')}\n"


def index(s: Served) -> str:
    # No lastmods: every child is asked again each run (its bytes decide), so a child's
    # misbehaviour is always seen.
    return sitemapindex(s.a("/a.xml"), s.a("/b.xml"))


def child(s: Served, name: str) -> str:
    return urlset(*[s.a(f"/p/{name}{i}") for i in (1, 2, 3)])


def serve_site(s: Served) -> None:
    s.add("/robots.txt", text(robots(s)))
    s.add("/index.xml", xml(index(s)))
    s.add("/a.xml", xml(child(s, "a")))
    s.add("/b.xml", xml(child(s, "b")))


def cut(body: str, marker: str, nth: int, into: int) -> str:
    """``body`` cut ``into`` characters past the ``nth`` (1-based) ``marker``."""
    at = -1
    for _ in range(nth):
        at = body.index(marker, at + 1)
    return body[: at + into]


# -- the ways a site misbehaves once ------------------------------------------------------------


@dataclass(frozen=True)
class Fault:
    """One misbehaviour: which served file becomes what, and the run's limits."""

    path: str
    handler: Callable[[Served], Handler]
    limits: Limits | None = None  # a budget or limit of the faulty run (library only)


JUNK = "Service temporarily unavailable, please come back later\n"
FAULTS: dict[str, Fault] = {
    # robots.txt
    "robots-500": Fault("/robots.txt", lambda s: status(500)),
    "robots-web-page": Fault("/robots.txt", lambda s: html()),
    "robots-cut-at-its-size-limit": Fault(
        "/robots.txt", lambda s: text("# padding\n" * 60_000 + robots(s))
    ),
    # the index
    "index-503": Fault("/index.xml", lambda s: status(503)),
    "index-404": Fault("/index.xml", lambda s: status(404)),
    "index-web-page": Fault("/index.xml", lambda s: html()),
    "index-cut-in-its-second-sitemap": Fault(
        "/index.xml", lambda s: xml(cut(index(s), "<sitemap>", 2, 12))
    ),
    "index-not-a-sitemap": Fault("/index.xml", lambda s: text(JUNK)),
    "index-in-another-format": Fault("/index.xml", lambda s: text(text_sitemap(s.a("/p/a1")))),
    # a leaf
    "child-500": Fault("/b.xml", lambda s: status(500)),
    "child-404": Fault("/b.xml", lambda s: status(404)),
    "child-web-page": Fault("/b.xml", lambda s: html()),
    "child-cut-in-its-second-loc": Fault(
        "/b.xml", lambda s: xml(cut(child(s, "b"), "<loc>", 2, 8))
    ),
    "child-not-a-sitemap": Fault("/b.xml", lambda s: xml(JUNK, content_type="text/plain")),
    "child-in-another-format": Fault("/b.xml", lambda s: text(text_sitemap(s.a("/p/b1")))),
    "child-connection-reset": Fault(
        "/b.xml", lambda s: reset_after(child(s, "b"), len(child(s, "b")) // 2)
    ),
}
BUDGETS: dict[str, Fault] = {
    "max-urls-cuts-every-document": Fault(
        "/b.xml", lambda s: xml(child(s, "b")), Limits(max_urls=1, cut_at_max_urls=True)
    ),
    "max-entries-cuts-a-child": Fault(
        "/b.xml", lambda s: xml(child(s, "b")), Limits(max_entries=4)
    ),
    "max-sitemaps-leaves-children-unread": Fault(
        "/b.xml", lambda s: xml(child(s, "b")), Limits(max_sitemaps=2)
    ),
    "max-total-bytes": Fault("/b.xml", lambda s: xml(child(s, "b")), Limits(max_total_bytes=600)),
    "max-bytes-of-a-document": Fault(
        "/b.xml",
        lambda s: xml(child(s, "b") + "<!--" + "x" * 2_000 + "-->"),
        Limits(max_bytes=1_500),
    ),
}


# -- two ways to run ----------------------------------------------------------------------------


def with_library(s: Served, path: Path, limits: Limits | None, guard: float = 0.5) -> Changes:
    config = dataclasses.replace(FAST, incremental=Incremental(changes=True, shrink_guard=guard))
    if limits is not None:
        config = dataclasses.replace(config, limits=limits)
    events = walk_sync(s.a("/"), config=config, state=path)
    return {(e.change.value, e.loc) for e in events if type(e) is EntryChange}


def with_cli(
    capsys: pytest.CaptureFixture[str],
) -> Callable[[Served, Path, Limits | None], Changes]:
    def run(s: Served, path: Path, limits: Limits | None) -> Changes:
        argv = ["dump", s.a("/"), "--state", str(path), "--changes", "--quiet"]
        if limits is not None:
            argv += ["--max-sitemaps", str(limits.max_sitemaps)]
        capsys.readouterr()
        main(argv)
        lines = capsys.readouterr().out.splitlines()
        return {(r["change"], r["loc"]) for r in map(json.loads, lines)}

    return run


def every_url(s: Served) -> Changes:
    return {("new", s.a(f"/p/{n}{i}")) for n in "ab" for i in (1, 2, 3)}


def misbehave_once(
    run: Callable[[Served, Path, Limits | None], Changes], fault: Fault, tmp_path: Path
) -> None:
    path = tmp_path / "state.sqlite"
    with ThreadedServer() as s:
        serve_site(s)
        assert run(s, path, None) == every_url(s)
        s.add(fault.path, fault.handler(s))

        during = run(s, path, fault.limits)

        serve_site(s)
        after = run(s, path, None)
    assert not {c for c in during if c[0] == "removed"}, during
    assert during == set()
    assert after == set(), "the recovery reported what the faulty run got wrong"


@pytest.mark.parametrize("name", [*FAULTS, *BUDGETS])
def test_library_removes_nothing_on_a_faulty_read(name: str, tmp_path: Path) -> None:
    misbehave_once(with_library, {**FAULTS, **BUDGETS}[name], tmp_path)


@pytest.mark.parametrize("name", [*FAULTS, "max-sitemaps-leaves-children-unread"])
def test_cli_removes_nothing_on_a_faulty_read(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    misbehave_once(with_cli(capsys), {**FAULTS, **BUDGETS}[name], tmp_path)


def test_a_partial_read_adds_and_only_a_complete_read_removes(tmp_path: Path) -> None:
    """What a cut read did get says new and modified; the removal of what it did not reach
    waits for a complete read, which says it (once) when the site really dropped it."""
    path = tmp_path / "state.sqlite"
    with ThreadedServer() as s:
        serve_site(s)
        with_library(s, path, None)
        changed = urlset({"loc": s.a("/p/b1"), "lastmod": "2024-05-01"}, s.a("/p/b0"), s.a("/p/b3"))
        s.add("/b.xml", xml(cut(changed, "<loc>", 3, 8)))  # cut inside /p/b3's loc

        during = with_library(s, path, None)

        s.add("/b.xml", xml(changed))  # b2 is gone for real
        s.add("/index.xml", xml(sitemapindex(s.a("/b.xml"))))  # and so is a.xml
        after = with_library(s, path, None, guard=0)  # 7 URLs to 3: past the shrink guard
    assert during == {("modified", s.a("/p/b1")), ("new", s.a("/p/b0"))}
    assert after == {("removed", s.a(f"/p/{u}")) for u in ("b2", "a1", "a2", "a3")}
