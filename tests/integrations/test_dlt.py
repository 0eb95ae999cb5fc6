"""sitemap_reader.dlt: real dlt pipelines into a real DuckDB file, from a loopback site.

Each test serves a site on 127.0.0.1 from a thread of this process, loads it with
``dlt.pipeline(destination=duckdb)`` in a temporary directory, changes the files between
runs, and reads the tables back with dlt's SQL client.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

# dlt sends usage telemetry to its vendor by default: the tests talk to 127.0.0.1 only.
os.environ["RUNTIME__DLTHUB_TELEMETRY"] = "false"

try:
    import dlt
except ImportError as exc:  # pragma: no cover - the test extra installs dlt
    if os.environ.get("CI", "").lower() in ("true", "1", "yes"):
        raise ImportError(
            f"CI is set but dlt cannot be imported ({exc}): install '.[test]'"
        ) from exc
    pytest.skip(
        f"dlt cannot be imported ({exc}): pip install 'sitemap-reader[dlt]'",
        allow_module_level=True,
    )

from dlt.pipeline.exceptions import PipelineStepFailed

from sitemap_reader import EntryChange, StateError, StateLocked, walk_sync
from sitemap_reader.dlt import STATE_FILE, _Done, sitemaps
from tests.support.http_site import (
    FAST,
    Served,
    ThreadedServer,
    gated,
    sitemapindex,
    status,
    urlset,
    xml,
)

ROOT = Path(__file__).resolve().parents[2]
CONFIG = dataclasses.replace(FAST, allow_private=False)  # the site named is trusted, as in use


@pytest.fixture
def served() -> Iterator[Served]:
    with ThreadedServer() as served:
        yield served


class Site:
    """An index of two sitemaps whose URLs (path -> lastmod) a test can change."""

    def __init__(self, served: Served) -> None:
        self.served = served
        self.maps: dict[str, dict[str, str]] = {
            "/s1.xml": {"/a": "2026-01-01", "/b": "2026-01-02", "/c": "2026-01-03"},
            "/s2.xml": {"/d": "2026-02-01", "/e": "2026-02-02"},
        }
        served.add("/index.xml", xml(sitemapindex(*(served.a(p) for p in self.maps))))
        self.publish()

    def publish(self) -> None:
        for path, urls in self.maps.items():
            items = [{"loc": self.served.a(u), "lastmod": m} for u, m in urls.items()]
            self.served.add(path, xml(urlset(*items)))

    @property
    def source(self) -> str:
        return self.served.a("/index.xml")

    def rows(self) -> dict[str, tuple[datetime, str]]:
        """What the entries table should hold: loc -> (lastmod, sitemap)."""
        return {
            self.served.a(u): (_utc(m), self.served.a(path))
            for path, urls in self.maps.items()
            for u, m in urls.items()
        }


def _utc(day: str) -> datetime:
    return datetime.fromisoformat(day).replace(tzinfo=timezone.utc)


def _pipeline(tmp_path: Path, name: str = "crawl") -> Any:
    return dlt.pipeline(
        pipeline_name=name,
        pipelines_dir=str(tmp_path / "pipelines"),
        destination=dlt.destinations.duckdb(str(tmp_path / f"{name}.duckdb")),
        dataset_name="sitemaps",
    )


def _run(pipeline: Any, *args: Any, **kwargs: Any) -> dict[str, int]:
    """One load of ``sitemaps(*args)``; the rows it loaded per table."""
    kwargs.setdefault("config", CONFIG)
    pipeline.run(sitemaps(*args, **kwargs))
    normalized = pipeline.last_trace.last_normalize_info  # None: a run that only loaded
    counts = {} if normalized is None else normalized.row_counts
    return {table: n for table, n in counts.items() if not table.startswith("_dlt")}


def _table(pipeline: Any) -> dict[str, tuple[datetime | None, str]]:
    with pipeline.sql_client() as client:
        rows = client.execute_sql("SELECT loc, lastmod, sitemap FROM entries")
    return {loc: (lastmod and lastmod.astimezone(timezone.utc), sm) for loc, lastmod, sm in rows}


def _causes(error: BaseException | None) -> Iterator[BaseException]:
    """``error`` and the chain of exceptions that caused it (dlt wraps what a source raises)."""
    while error is not None:
        yield error
        error = error.__cause__


def _changes(pipeline: Any) -> dict[str, str]:
    with pipeline.sql_client() as client:
        return dict(client.execute_sql("SELECT loc, change FROM entries"))


def test_loads_the_site_then_only_its_changes_then_nothing(served: Served, tmp_path: Path) -> None:
    site = Site(served)
    pipeline = _pipeline(tmp_path)

    assert _run(pipeline, [site.source]) == {"entries": 5}
    assert _table(pipeline) == site.rows()

    del site.maps["/s1.xml"]["/b"]  # removed
    site.maps["/s2.xml"]["/f"] = "2026-02-03"  # new
    site.maps["/s2.xml"]["/d"] = "2026-03-01"  # lastmod moved
    site.publish()
    # The three changes and nothing else: the removal is a row too (a hard delete).
    assert _run(pipeline, [site.source]) == {"entries": 3}
    assert _table(pipeline) == site.rows()
    a = served.a
    assert _changes(pipeline) == {
        a("/a"): "new",
        a("/c"): "new",
        a("/d"): "modified",
        a("/e"): "new",
        a("/f"): "new",
    }

    assert _run(pipeline, [site.source]) == {}  # unchanged: no row loaded
    assert pipeline.last_trace.last_normalize_info.row_counts == {}  # dlt's state neither
    assert _table(pipeline) == site.rows()
    # The state file is the pipeline's, beside dlt's own files.
    assert (Path(pipeline.working_dir) / STATE_FILE).is_file()


def test_problems_land_in_their_table_beside_the_entries(served: Served, tmp_path: Path) -> None:
    served.add("/index.xml", xml(sitemapindex(served.a("/good.xml"), served.a("/gone.xml"))))
    served.add("/good.xml", xml(urlset(served.a("/a"), "not a url", served.a("/b"))))
    served.add("/gone.xml", status(404))
    pipeline = _pipeline(tmp_path)

    counts = _run(pipeline, served.a("/index.xml"))

    assert counts["entries"] == 2
    with pipeline.sql_client() as client:
        problems = client.execute_sql("SELECT url, kind, fatal, count FROM problems ORDER BY url")
    assert [tuple(row) for row in problems] == [
        (served.a("/gone.xml"), "http-status", True, None),
        (served.a("/good.xml"), "invalid-loc", False, 1),
    ]
    assert counts["problems"] == 2
    assert set(_table(pipeline)) == {served.a("/a"), served.a("/b")}


def _failing(site: Site, when: Any) -> Any:
    """A source whose extraction stops at the first event of its walk that ``when`` picks."""

    def fail(item: Any) -> Any:
        if when(item):
            raise RuntimeError("the pipeline stops here")
        return item

    source = sitemaps([site.source], config=CONFIG)
    source.resources["walk"].add_map(fail)
    return source


def test_a_run_that_fails_after_the_walk_loses_no_change(served: Served, tmp_path: Path) -> None:
    """The feed is acknowledged only once dlt has its rows: a run that failed after the
    reader handed the changes out hands them out again next time."""
    site = Site(served)
    pipeline = _pipeline(tmp_path)
    _run(pipeline, [site.source])
    del site.maps["/s1.xml"]["/b"]
    site.maps["/s2.xml"]["/f"] = "2026-02-03"
    site.publish()

    # The walk's last item comes once the reader is done: every change was handed out.
    with pytest.raises(Exception, match="the pipeline stops here"):
        pipeline.run(_failing(site, lambda item: isinstance(item, _Done)))
    assert served.a("/b") in _table(pipeline)  # nothing of that run was loaded

    assert _run(pipeline, [site.source]) == {"entries": 2}  # /b removed, /f new
    assert _table(pipeline) == site.rows()
    assert _run(pipeline, [site.source]) == {}


def test_a_walk_stopped_midway_loses_no_change(served: Served, tmp_path: Path) -> None:
    """A walk stopped once its changes are pending (the sitemaps recorded, nothing handed
    out): the next run must not acknowledge the feed for the last load, which the stopped
    run already did, or it would drop the stopped run's changes with it."""
    site = Site(served)
    pipeline = _pipeline(tmp_path)
    _run(pipeline, [site.source])
    site.maps["/s2.xml"]["/f"] = "2026-02-03"
    site.publish()
    assert _run(pipeline, [site.source]) == {"entries": 1}  # /f: pending until acknowledged
    del site.maps["/s1.xml"]["/b"]
    site.maps["/s2.xml"]["/d"] = "2026-03-01"
    site.publish()

    # dlt maps each event of a batch: the first change stops the walk.
    with pytest.raises(Exception, match="the pipeline stops here"):
        pipeline.run(_failing(site, lambda item: isinstance(item, EntryChange)))

    assert _run(pipeline, [site.source]) == {"entries": 2}  # /b removed, /d modified
    assert _table(pipeline) == site.rows()
    assert _run(pipeline, [site.source]) == {}


def test_a_fresh_machine_replaces_the_table(served: Served, tmp_path: Path) -> None:
    """dlt restores its state from the destination, but not the state file beside the
    pipeline: a new feed starts and the table is replaced by its read, so the URLs that
    left the site meanwhile leave the table too."""
    site = Site(served)
    _run(_pipeline(tmp_path), [site.source])
    shutil.rmtree(tmp_path / "pipelines")  # the machine is gone; the destination stays
    del site.maps["/s1.xml"]["/b"]
    site.publish()

    pipeline = _pipeline(tmp_path)
    assert _run(pipeline, [site.source]) == {"entries": 4}
    assert _table(pipeline) == site.rows()
    assert _run(pipeline, [site.source]) == {}  # and incremental again from there


def test_a_state_file_of_another_feed_is_not_trusted(served: Served, tmp_path: Path) -> None:
    """A state file that the destination does not know (here: a pipeline whose tables and
    state were dropped) starts a new feed, and the table gets every URL again."""
    site = Site(served)
    state = tmp_path / "feed.sqlite"
    first = _pipeline(tmp_path, "first")
    _run(first, [site.source], state=state)
    assert _run(first, [site.source], state=state) == {}  # its feed acknowledged, empty

    other = _pipeline(tmp_path, "other")  # a new pipeline, the same state file
    assert _run(other, [site.source], state=state) == {"entries": 5}
    assert _table(other) == site.rows()


def test_the_problems_alone_leave_the_changes_for_the_entries(
    served: Served, tmp_path: Path
) -> None:
    """A run that loads only ``problems`` reads the site, and its changes wait for the next
    run that loads ``entries``."""
    site = Site(served)
    pipeline = _pipeline(tmp_path)
    pipeline.run(sitemaps([site.source], config=CONFIG).with_resources("problems"))
    assert served.count("/s1.xml") == 1  # read

    assert _run(pipeline, [site.source]) == {"entries": 5}
    assert _table(pipeline) == site.rows()


def test_the_shortcuts_reach_the_reader(served: Served, tmp_path: Path) -> None:
    served.add("/s.xml", xml(urlset(served.a("/a"), served.b("/elsewhere"))))
    pipeline = _pipeline(tmp_path)

    counts = _run(pipeline, served.a("/s.xml"), user_agent="test-loader/1.0")
    assert counts["entries"] == 1  # strict scope: the other host's URL is left out
    assert served.site.headers("/s.xml")[0]["User-Agent"] == "test-loader/1.0"

    other = _pipeline(tmp_path, "other")
    assert _run(other, served.a("/s.xml"), scope="off") == {"entries": 2}


def test_a_state_file_in_use_stops_the_run(served: Served, tmp_path: Path) -> None:
    site = Site(served)
    state = tmp_path / "feed.sqlite"
    pipeline = _pipeline(tmp_path)
    _run(pipeline, [site.source], state=state)
    gate = threading.Event()
    served.add("/held.xml", gated(xml(urlset(served.a("/h"))), gate, timeout=30))
    # Another run on the same file, waiting for its second sitemap: it holds the file.
    holder = walk_sync(served.a("/s1.xml"), served.a("/held.xml"), config=CONFIG, state=state)
    try:
        next(holder)
        with pytest.raises(PipelineStepFailed) as failed:
            _run(pipeline, [site.source], state=state)
        locked = [c for c in _causes(failed.value) if isinstance(c, StateLocked)]
        assert len(locked) == 1 and Path(locked[0].path) == state
    finally:
        gate.set()
        holder.close()


def test_no_telemetry_leaves_the_machine(served: Served, tmp_path: Path) -> None:
    """dlt's anonymous tracker gets no endpoint: it sends nothing anywhere."""
    from dlt.common.runtime import anon_tracker

    _run(_pipeline(tmp_path), served.a("/nothing.xml"))
    assert anon_tracker._ANON_TRACKER_ENDPOINT is None


def test_a_sitemap_that_fails_removes_nothing(served: Served, tmp_path: Path) -> None:
    """A bad day on the site (a sitemap answering 500) is a problem row, and the table keeps
    every URL that sitemap listed."""
    site = Site(served)
    pipeline = _pipeline(tmp_path)
    _run(pipeline, [site.source])
    before = _table(pipeline)
    served.add("/s1.xml", status(500))

    counts = _run(pipeline, [site.source])

    assert "entries" not in counts and counts["problems"] == 1
    assert _table(pipeline) == before


def test_a_replacing_run_gets_a_failed_sitemap_back_next_time(
    served: Served, tmp_path: Path
) -> None:
    """On a fresh machine the table is replaced by what was read: a sitemap failing then is
    missing from it until the next run, which reads it, as docs/dlt.md says."""
    site = Site(served)
    _run(_pipeline(tmp_path), [site.source])
    shutil.rmtree(tmp_path / "pipelines")
    served.add("/s1.xml", status(500))

    pipeline = _pipeline(tmp_path)
    assert _run(pipeline, [site.source])["entries"] == 2
    assert set(_table(pipeline)) == {served.a("/d"), served.a("/e")}

    site.publish()  # /s1.xml is back
    assert _run(pipeline, [site.source]) == {"entries": 3}
    assert _table(pipeline) == site.rows()


def test_the_docs_example_runs(served: Served, tmp_path: Path) -> None:
    """docs/dlt.md's first example as written, on the loopback site, run as a script in a
    temporary directory (dlt's default places: the working directory and DLT_DATA_DIR)."""
    import duckdb

    site = Site(served)
    page = (ROOT / "docs" / "dlt.md").read_text(encoding="utf-8")
    example = page.split("```python\n", 1)[1].split("```", 1)[0]
    assert example.count("https://www.example.com/") == 1
    script = tmp_path / "example.py"
    script.write_text(example.replace("https://www.example.com/", site.source), encoding="utf-8")
    env = {**os.environ, "DLT_DATA_DIR": str(tmp_path / "dlt"), "PYTHONPATH": str(ROOT)}

    done = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )

    assert done.returncode == 0, done.stderr
    assert "(5,)" in done.stdout  # the example's count of the entries
    with duckdb.connect(str(tmp_path / "sitemaps.duckdb"), read_only=True) as db:
        locs = db.execute("SELECT loc FROM crawl.entries").fetchall()
    assert {loc for (loc,) in locs} == set(site.rows())
    assert (tmp_path / "dlt" / "pipelines" / "sitemaps" / STATE_FILE).is_file()


def test_a_state_file_it_did_not_make_is_refused_and_kept(served: Served, tmp_path: Path) -> None:
    """A state file of `dump --state` (or any other program) named by ``state=`` is not
    taken over: a new feed would start by removing it."""
    site = Site(served)
    state = tmp_path / "cli.sqlite"
    for _ in walk_sync(site.source, config=CONFIG, state=state):
        pass
    before = state.read_bytes()
    pipeline = _pipeline(tmp_path)

    with pytest.raises(PipelineStepFailed) as failed:
        _run(pipeline, [site.source], state=state)

    refused = [c for c in _causes(failed.value) if isinstance(c, StateError)]
    assert len(refused) == 1 and Path(refused[0].path) == state
    assert "cli.sqlite.dlt.json" in str(refused[0])
    assert state.read_bytes() == before


# dlt says so with logging's deprecated Logger.warn.
@pytest.mark.filterwarnings("ignore:The 'warn' method is deprecated:DeprecationWarning")
def test_a_package_not_loaded_yet_is_loaded_by_the_next_run(served: Served, tmp_path: Path) -> None:
    """A run stopped after dlt extracted its rows and before it loaded them (a crash, a
    destination down): dlt's next run loads that package and reads nothing; the run after
    reads the site again, the feed given up, and loads only what changed since."""
    site = Site(served)
    pipeline = _pipeline(tmp_path)
    _run(pipeline, [site.source])
    del site.maps["/s1.xml"]["/b"]
    site.maps["/s2.xml"]["/f"] = "2026-02-03"
    site.publish()
    pipeline.extract(sitemaps([site.source], config=CONFIG))
    pipeline.normalize()  # the package waits here, not loaded
    reads = served.count("/s1.xml")

    assert _run(pipeline, [site.source]) == {}  # nothing normalized: the package is loaded
    assert served.count("/s1.xml") == reads  # and the site not read
    assert _table(pipeline) == site.rows()

    site.maps["/s2.xml"]["/d"] = "2026-03-01"
    site.publish()
    assert _run(pipeline, [site.source]) == {"entries": 1}
    assert _table(pipeline) == site.rows()
