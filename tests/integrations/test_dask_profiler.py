"""read_sites and dask's worker profiler, on a real LocalCluster (in-process workers).

On Python 3.11 the profiler's ``sys._current_frames()`` can deadlock a worker
(python/cpython#106883), so read_sites stops it on the cluster's workers, and on the workers
that join later; elsewhere, or when asked to keep it, it stays. The workers run in this
process, so the test decides which Python the worker believes it runs by patching
``_profiler_deadlocks``, which the worker asks.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest

pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

import dask
from dask.base import compute
from distributed import Client, LocalCluster, Worker

import sitemap_reader.dask
from sitemap_reader.dask import read_sites
from tests.support.http_site import FAST, Served, ThreadedServer, text, urlset, xml

CONFIG = dataclasses.replace(FAST, allow_private=False)
URLS = 30


@pytest.fixture(scope="module")
def site() -> Iterator[Served]:
    with ThreadedServer() as s:
        s.add("/robots.txt", text(f"Sitemap: {s.a('/sitemap.xml')}\n"))
        s.add("/sitemap.xml", xml(urlset(*(s.a(f"/p/{n}") for n in range(URLS)))))
        yield s


@pytest.fixture
def cluster() -> Iterator[tuple[LocalCluster, Client]]:
    """A cluster of its own per test, as dask starts one by default: the profiler on."""
    with (
        dask.config.set({"distributed.worker.profile.enabled": True}),
        LocalCluster(
            n_workers=1,
            processes=False,
            threads_per_worker=1,
            dashboard_address=None,  # in-process workers talk over inproc://: no socket
        ) as cluster,
        Client(cluster) as client,
    ):
        yield cluster, client


def _profiling(dask_worker: Worker) -> bool:
    callback = dask_worker.periodic_callbacks.get("profile")
    return callback is not None and callback.is_running()


def _read(site: Served, *, keep_profiler: bool = False) -> int:
    entries, problems = read_sites([site.a("/")], config=CONFIG, keep_profiler=keep_profiler)
    got, found = compute(entries, problems)
    assert found.empty
    return len(got)


def test_read_sites_stops_the_profiler_of_every_worker_on_python_3_11(
    cluster: tuple[LocalCluster, Client], site: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sitemap_reader.dask, "_profiler_deadlocks", lambda: True)
    local, client = cluster
    assert set(client.run(_profiling).values()) == {True}  # dask's default: on

    assert _read(site) == URLS
    assert set(client.run(_profiling).values()) == {False}

    local.scale(2)  # a worker that joins after the read gets the plugin too
    client.wait_for_workers(2)
    assert list(client.run(_profiling).values()) == [False, False]
    assert _read(site) == URLS


@pytest.mark.parametrize(
    ("deadlocks", "keep"),
    [(False, False), (True, True)],
    ids=["python-without-the-deadlock", "keep_profiler"],
)
def test_read_sites_keeps_the_profiler_elsewhere_or_when_asked(
    cluster: tuple[LocalCluster, Client],
    site: Served,
    monkeypatch: pytest.MonkeyPatch,
    deadlocks: bool,
    keep: bool,
) -> None:
    monkeypatch.setattr(sitemap_reader.dask, "_profiler_deadlocks", lambda: deadlocks)
    _, client = cluster
    assert _read(site, keep_profiler=keep) == URLS
    assert set(client.run(_profiling).values()) == {True}
