"""sitemap_reader.dask on a real LocalCluster (2 worker processes) against loopback sites.

The sites are served from threads of this process on 127.0.0.1, one server (port) each, so
each has its own robots.txt: a large one (an index of 8 leaves), small ones (a urlset cut
short, a well-known path, an index of a text list, a feed and a missing child) and two that
fail (robots.txt answering 503, a port where nothing listens). The reference is what one
machine reads without Dask: ``read_dataframe_sync`` and ``walk_sync`` over the same sites.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import subprocess
import sys
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import pytest

pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

import dask
import dask.bag as db
import pandas as pd
from dask.base import compute
from distributed import Client, LocalCluster, Scheduler, Worker, get_task_stream

import sitemap_reader.dask
from sitemap_reader import (
    ChildSitemap,
    FollowRules,
    Pace,
    Problem,
    read_dataframe_sync,
    walk_sync,
)
from sitemap_reader._io._http._pace_store import PaceBook
from sitemap_reader.dask import problem_schema, read_sites
from tests.support.http_site import (
    FAST,
    Flights,
    Served,
    ThreadedServer,
    closed_port,
    gz_file,
    rss,
    sitemapindex,
    slow,
    status,
    text,
    text_sitemap,
    urlset,
    xml,
)

# The SSRF guard stays on: it trusts the sites named, which is all the reads need.
CONFIG = dataclasses.replace(FAST, allow_private=False)
LARGE_LEAVES = 8
LARGE_URLS = 2_500  # per leaf


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    with (
        LocalCluster(
            n_workers=2,
            processes=True,
            threads_per_worker=1,
            dashboard_address="127.0.0.1:0",
            host="127.0.0.1",
        ) as cluster,
        Client(cluster) as client,
    ):
        yield client


@dataclass
class Sites:
    large: Served
    small: list[Served]
    failing: str  # robots.txt answers 503, forever
    refused: str  # nothing listens

    @property
    def urls(self) -> list[str]:
        return [self.large.a("/"), *(s.a("/") for s in self.small), self.failing, self.refused]

    def leaf_paths(self) -> list[str]:
        return [f"/maps/part-{i}.xml" + (".gz" if i % 2 else "") for i in range(LARGE_LEAVES)]

    def leaf_counts(self) -> list[int]:
        return [self.large.count(path) for path in self.leaf_paths()]


def _large(s: Served) -> None:
    s.add("/robots.txt", text(f"User-agent: *\nSitemap: {s.a('/maps/index.xml')}\n"))
    leaves = [s.a(f"/maps/part-{i}.xml") + (".gz" if i % 2 else "") for i in range(LARGE_LEAVES)]
    s.add("/maps/index.xml", xml(sitemapindex(*((loc, "2026-05-01") for loc in leaves))))
    for i in range(LARGE_LEAVES):
        body = urlset(
            *(
                {"loc": s.a(f"/p/{i}/{n}"), "lastmod": f"2026-04-{1 + n % 28:02d}"}
                for n in range(LARGE_URLS)
            )
        )
        if i % 2:
            s.add(f"/maps/part-{i}.xml.gz", gz_file(body))
        else:
            s.add(f"/maps/part-{i}.xml", xml(body))


def _cut_short(s: Served) -> None:
    """One urlset named by robots.txt, cut in the middle of a <url>: a problem of its read."""
    s.add("/robots.txt", text(f"Sitemap: {s.a('/sitemap.xml')}\n"))
    body = urlset(*(s.a(f"/a/{n}") for n in range(40)))
    s.add("/sitemap.xml", xml(body[: body.index(s.a("/a/30")) - 10]))


def _probed(s: Served) -> None:
    """No robots.txt: found at the first well-known path."""
    s.add("/sitemap.xml", xml(urlset(*(s.a(f"/b/{n}") for n in range(25)))))


def _mixed(s: Served) -> None:
    """An index of a text list, a feed and a child that is gone (a problem of discovery)."""
    s.add("/robots.txt", text(f"Sitemap: {s.a('/index.xml')}\n"))
    s.add("/index.xml", xml(sitemapindex(s.a("/list.txt"), s.a("/feed.rss"), s.a("/gone.xml"))))
    s.add("/list.txt", text(text_sitemap(*(s.a(f"/t/{n}") for n in range(10)))))
    s.add("/feed.rss", xml(rss(s.a("/news/1"), s.a("/news/2"))))
    s.add("/gone.xml", status(404))


@pytest.fixture(scope="module")
def sites() -> Iterator[Sites]:
    with ExitStack() as stack:
        served = [stack.enter_context(ThreadedServer()) for _ in range(5)]
        _large(served[0])
        _cut_short(served[1])
        _probed(served[2])
        _mixed(served[3])
        served[4].add("/robots.txt", status(503))
        yield Sites(served[0], served[1:4], served[4].a("/"), f"http://127.0.0.1:{closed_port()}/")


def _sorted(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.sort_values(["source", "sitemap", "loc"], ignore_index=True)


def _more(now: list[int], before: list[int]) -> list[int]:
    return [n - b for n, b in zip(now, before, strict=True)]


def _problem_rows(frame: pd.DataFrame) -> Counter[tuple[str, str, str, bool]]:
    return Counter(zip(frame.site, frame.url, frame.kind, frame.fatal, strict=True))


def _semaphore_acquires(client: Client) -> int:
    """Leases the cluster's scheduler has handed out so far (every name): the scheduler
    calls read_sites makes for politeness."""

    def count(dask_scheduler: Scheduler) -> int:
        extension = dask_scheduler.extensions["semaphores"]
        return sum(extension.metrics["acquire_total"].values())

    return int(client.run_on_scheduler(count))


def test_union_of_partitions_is_the_single_machine_read(client: Client, sites: Sites) -> None:
    """The partitions together hold exactly what one machine reads, problems included; the
    read is lazy, each document is downloaded once by computing both frames together, and
    sites on hosts of their own cost the scheduler no politeness call at all."""
    index, leaves = sites.large.count("/maps/index.xml"), sites.leaf_counts()
    acquired = _semaphore_acquires(client)
    entries, problems = read_sites(sites.urls, config=CONFIG, sites_per_task=1)

    # Nothing is read before the frames are computed; a partition per host.
    assert sites.large.count("/maps/index.xml") == index
    assert _more(sites.leaf_counts(), leaves) == [0] * LARGE_LEAVES
    assert entries.npartitions == problems.npartitions == len(sites.urls)

    with get_task_stream(client) as stream:
        partitions = [entries.get_partition(i) for i in range(entries.npartitions)]
        *parts, problem_frame = compute(*partitions, problems)
    assert sites.large.count("/maps/index.xml") == index + 1
    assert _more(sites.leaf_counts(), leaves) == [1] * LARGE_LEAVES
    assert _semaphore_acquires(client) == acquired  # no host shared: nothing coordinated

    reference = read_dataframe_sync(*sites.urls, config=CONFIG)
    together = pd.concat(parts, ignore_index=True)
    assert len(together) == LARGE_LEAVES * LARGE_URLS + 30 + 25 + 10 + 2
    pd.testing.assert_frame_equal(_sorted(together), _sorted(reference))
    # Document order holds within each sitemap.
    order = {sm: list(rows["loc"]) for sm, rows in together.groupby("sitemap", sort=False)}
    assert order == {sm: list(rows["loc"]) for sm, rows in reference.groupby("sitemap", sort=False)}
    # Each partition holds one site's rows: a host lives in one partition.
    assert all(part.source.nunique() <= 1 for part in parts)
    ran = [t for t in stream.data if str(t["key"]).startswith("sitemap-reader-sites-")]
    assert len(ran) == len(sites.urls)

    # Problems: the same (site, url, kind, fatal) rows as per-site walks give.
    expected: Counter[tuple[str, str, str, bool]] = Counter()
    for site in sites.urls:
        for event in walk_sync(site, config=CONFIG):
            if isinstance(event, Problem):
                expected[(site, event.url, event.kind, event.fatal)] += 1
    assert _problem_rows(problem_frame) == expected
    assert list(problem_frame.columns) == problem_schema().names
    failed = problem_frame[problem_frame.kind == "robots-unavailable"]
    assert sorted(failed.site) == sorted([sites.failing, sites.refused])
    mixed = sites.small[2]
    assert (mixed.a("/"), mixed.a("/gone.xml"), "http-status", True) in expected
    cut = sites.small[0]
    assert any(site == cut.a("/") and kind == "truncated" for site, _, kind, _ in expected)


def _gzipped(child: ChildSitemap) -> bool:
    return child.url.endswith(".gz")  # the .gz leaves (the index robots.txt names is a source)


@pytest.mark.parametrize(
    "follow",
    [
        FollowRules(skip=(r"part-\d+\.xml$",)),
        _gzipped,
        lambda child: child.url.endswith(".gz"),  # cloudpickled
    ],
    ids=["rules", "function", "lambda"],
)
def test_follow_travels_to_the_workers(client: Client, sites: Sites, follow: object) -> None:
    """ReaderConfig.follow goes with the config to the discovery tasks on the workers: the
    leaves it refuses are never requested, at discovery or after."""
    config = dataclasses.replace(CONFIG, follow=follow)  # type: ignore[arg-type]
    before = sites.leaf_counts()

    with get_task_stream(client) as stream:
        entries, _ = read_sites([sites.large.a("/")], config=config)
        got = entries.compute()

    assert {t["worker"] for t in stream.data} <= set(client.scheduler_info()["workers"])
    assert any(str(t["key"]).startswith("sitemap-reader-sites-") for t in stream.data)
    gzipped = [i % 2 for i in range(LARGE_LEAVES)]
    assert _more(sites.leaf_counts(), before) == gzipped
    assert len(got) == sum(gzipped) * LARGE_URLS
    assert set(got.sitemap) == {sites.large.a(p) for p in sites.leaf_paths() if p.endswith(".gz")}


def test_to_parquet_lands_the_dataset_reading_each_leaf_once(
    client: Client, sites: Sites, tmp_path: Path
) -> None:
    """``to_parquet`` of both frames, computed together, writes every row and problem and
    downloads each leaf once; a Bag of sites reads as the list does."""
    bag = db.from_sequence(sites.urls, npartitions=2)
    entries, problems = read_sites(bag, config=CONFIG)
    before = sites.leaf_counts()

    compute(
        entries.to_parquet(tmp_path / "entries", compute=False, write_index=False),
        problems.to_parquet(tmp_path / "problems", compute=False, write_index=False),
    )

    assert _more(sites.leaf_counts(), before) == [1] * LARGE_LEAVES
    landed = pd.read_parquet(tmp_path / "entries", dtype_backend="pyarrow")
    reference = read_dataframe_sync(*sites.urls, config=CONFIG)
    pd.testing.assert_frame_equal(
        _sorted(landed), _sorted(reference), check_dtype=False, check_index_type=False
    )
    landed_problems = pd.read_parquet(tmp_path / "problems", dtype_backend="pyarrow")
    assert set(landed_problems.site) >= {sites.failing, sites.refused}


def test_incremental_state_per_site_fetches_only_what_changed(
    client: Client, tmp_path: Path
) -> None:
    """With ``state_dir``, a second run fetches only the leaf whose index lastmod moved and
    gives only its entries; each site has a state file of its own."""
    lastmods = ["2026-05-01"] * 4
    with ThreadedServer() as s:

        def publish(version: int) -> None:
            s.add("/robots.txt", text(f"Sitemap: {s.a('/index.xml')}\n"))
            s.add(
                "/index.xml",
                xml(sitemapindex(*((s.a(f"/leaf-{i}.xml"), lastmods[i]) for i in range(4)))),
            )
            for i in range(4):
                locs = [s.a(f"/{i}/{n}") for n in range(50)]
                if i == 2 and version:
                    locs.append(s.a("/2/new"))
                s.add(f"/leaf-{i}.xml", xml(urlset(*locs)))

        publish(0)
        first, _ = read_sites([s.a("/")], config=CONFIG, state_dir=tmp_path)
        assert len(first.compute()) == 200
        files = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.sqlite"))
        assert len(files) == 1 and files[0].endswith("/site.sqlite")

        lastmods[2] = "2026-05-02"
        publish(1)
        hits = len(s.site.hits)
        second, problems = read_sites([s.a("/")], config=CONFIG, state_dir=tmp_path)
        changed, problem_frame = compute(second, problems)

        assert sorted(changed["loc"]) == sorted(
            [*(s.a(f"/2/{n}") for n in range(50)), s.a("/2/new")]
        )
        assert problem_frame.empty
        # The site's store skips the three leaves whose index lastmods did not move and
        # reads the changed one once.
        fetched = Counter(h.path for h in s.site.hits[hits:])
        assert {p: n for p, n in fetched.items() if p.startswith("/leaf-")} == {"/leaf-2.xml": 1}


def test_request_headers_travel_to_every_task(client: Client) -> None:
    """The config's headers, pickled to the workers, reach discovery's and the leaf tasks'
    requests alike (credentials too: all on one host)."""
    config = dataclasses.replace(
        CONFIG, headers=(("X-Trace", "dask-1"), ("Authorization", "Bearer d4sk"))
    )
    with ThreadedServer() as s:
        s.add("/robots.txt", text(f"Sitemap: {s.a('/index.xml')}\n"))
        s.add("/index.xml", xml(sitemapindex(*(s.a(f"/leaf-{i}.xml") for i in range(3)))))
        for i in range(3):
            s.add(f"/leaf-{i}.xml", xml(urlset(s.a(f"/{i}"))))
        entries, problems = read_sites([s.a("/")], config=config)
        rows, problem_rows = compute(entries, problems)
        assert sorted(rows["loc"]) == [s.a(f"/{i}") for i in range(3)] and problem_rows.empty
        leaves = [h for h in s.site.hits if h.path.startswith("/leaf-")]
        assert {h.path for h in leaves} == {f"/leaf-{i}.xml" for i in range(3)}
        assert {h.path for h in s.site.hits} >= {"/robots.txt", "/index.xml"}
        for hit in s.site.hits:
            assert hit.headers["X-Trace"] == "dask-1", hit.path
            assert hit.headers["Authorization"] == "Bearer d4sk", hit.path


def test_sites_as_series_and_bad_input(client: Client, sites: Sites) -> None:
    """A pandas Series is read like a list (repeats and blanks dropped); a site that is not
    an http(s) URL, or the change feed, is refused."""
    small = [s.a("/") for s in sites.small]
    entries, _ = read_sites(pd.Series([*small, small[0], "  "]), config=CONFIG, sites_per_task=1)
    assert entries.npartitions == 3  # a task per site (each on a host of its own)
    assert len(entries.compute()) == 30 + 25 + 10 + 2

    with pytest.raises(ValueError, match="not an http"):
        read_sites(["/etc/sitemap.xml"], config=CONFIG)
    feed = dataclasses.replace(
        CONFIG, incremental=dataclasses.replace(CONFIG.incremental, changes=True)
    )
    with pytest.raises(ValueError, match="change feed"):
        read_sites(small, config=feed)


SHARED_SITES = 4  # on one host: one server, a path prefix each
SHARED_LEAVES = 3  # per site
SHARED_URLS = 50  # per leaf


@pytest.fixture
def one_host() -> Iterator[tuple[Served, Flights]]:
    """Four sites on one host (127.0.0.1:port), each an index of three slow leaves; every
    request is logged with its start and end."""
    flights = Flights()
    with ThreadedServer() as s:
        for k in range(SHARED_SITES):
            leaves = [f"/s{k}/leaf-{j}.xml" for j in range(SHARED_LEAVES)]
            s.add(f"/s{k}/index.xml", flights.around(xml(sitemapindex(*map(s.a, leaves)))))
            for leaf in leaves:
                body = urlset(*(s.a(f"{leaf}/{n}") for n in range(SHARED_URLS)))
                s.add(leaf, flights.around(slow(xml(body), 0.15)))
        yield s, flights


# Each task's reader sends two at a time to a host: per_host=1 is what bounds it below that.
TWO_EACH = dataclasses.replace(CONFIG, limits=dataclasses.replace(CONFIG.limits, per_host=2))


def test_a_hosts_sites_share_one_partition_and_its_bound(
    client: Client, one_host: tuple[Served, Flights]
) -> None:
    """Four sites of one host are one partition, however small ``sites_per_task``: the
    host's bound is that task's, asked of no one else; without ``per_host`` the reader's
    own limit is the only one."""
    s, flights = one_host
    sites = [s.a(f"/s{k}/index.xml") for k in range(SHARED_SITES)]
    acquired = _semaphore_acquires(client)

    entries, problems = read_sites(sites, config=TWO_EACH, per_host=1, sites_per_task=1)
    assert entries.npartitions == 1
    rows, problem_frame = compute(entries, problems)

    assert len(rows) == SHARED_SITES * SHARED_LEAVES * SHARED_URLS and problem_frame.empty
    assert Counter(f.path for f in flights.log) == {
        path: 1
        for k in range(SHARED_SITES)
        for path in (f"/s{k}/index.xml", *(f"/s{k}/leaf-{j}.xml" for j in range(SHARED_LEAVES)))
    }
    assert flights.most_at_once() == 1
    assert _semaphore_acquires(client) == acquired

    flights.log.clear()
    entries, _ = read_sites(sites, config=TWO_EACH, per_host=None)
    assert len(entries.compute()) == SHARED_SITES * SHARED_LEAVES * SHARED_URLS
    assert flights.most_at_once() == 2


def test_per_host_holds_on_a_local_scheduler(one_host: tuple[Served, Flights]) -> None:
    """Without a distributed cluster the tasks are threads of this process: the bound
    holds the same way."""
    s, flights = one_host
    sites = [s.a(f"/s{k}/index.xml") for k in range(SHARED_SITES)]

    with dask.config.set(scheduler="threads", num_workers=3):
        entries, _ = read_sites(sites, config=TWO_EACH, per_host=1, sites_per_task=1)
        rows = entries.compute()

    assert len(rows) == SHARED_SITES * SHARED_LEAVES * SHARED_URLS
    assert flights.most_at_once() == 1


CDN_LEAVES = 4  # per site, all on the one shared host
CDN_URLS = 20  # per leaf


@dataclass
class SharedHost:
    sites: list[Served]  # two sites, each on its own host
    cdn: Served  # the host both sites' sitemaps are on
    flights: Flights  # the CDN's requests

    @property
    def urls(self) -> list[str]:
        return [site.a("/") for site in self.sites]

    @property
    def lease(self) -> str:
        return f"sitemap-reader:host:127.0.0.1:{self.cdn.a('/').rsplit(':', 1)[1].strip('/')}"


@pytest.fixture
def shared_host() -> Iterator[SharedHost]:
    """Two sites whose robots.txt names an index on a third host (a CDN), of leaves there
    too, answered slowly; the CDN's requests are logged."""
    flights = Flights()
    with ThreadedServer() as cdn, ThreadedServer() as one, ThreadedServer() as two:
        for k, site in enumerate((one, two)):
            leaves = [cdn.a(f"/s{k}/leaf-{j}.xml") for j in range(CDN_LEAVES)]
            site.add("/robots.txt", text(f"Sitemap: {cdn.a(f'/s{k}/index.xml')}\n"))
            cdn.add(f"/s{k}/index.xml", flights.around(xml(sitemapindex(*leaves))))
            for j in range(CDN_LEAVES):
                body = urlset(*(site.a(f"/{j}/{n}") for n in range(CDN_URLS)))
                cdn.add(f"/s{k}/leaf-{j}.xml", flights.around(slow(xml(body), 0.1)))
        yield SharedHost([one, two], cdn, flights)


def _scheduler_leases(client: Client, name: str) -> tuple[int, int]:
    """The acquires and releases of the lease ``name`` so far."""

    def count(dask_scheduler: Scheduler) -> tuple[int, int]:
        metrics = dask_scheduler.extensions["semaphores"].metrics
        return metrics["acquire_total"][name], metrics["release_total"][name]

    acquires, releases = client.run_on_scheduler(count)
    return int(acquires), int(releases)


def _on_two_workers(client: Client, read: Callable[[], pd.DataFrame]) -> pd.DataFrame:
    """``read()`` until its partitions ran on both workers (bounded): on a busy machine
    the scheduler may give one worker every task. Each try must hold what is asserted."""
    for _ in range(4):
        with get_task_stream(client) as stream:
            rows = read()
        if len({t["worker"] for t in stream.data if "sitemap-reader-" in str(t["key"])}) == 2:
            return rows
    raise AssertionError("the partitions never ran on both workers")


def test_a_host_shared_by_two_partitions_is_bounded_as_one(
    client: Client, shared_host: SharedHost
) -> None:
    """Two partitions (on both workers) read sitemaps on one CDN host: the CDN never has
    more than ``per_host`` requests in flight, each partition leasing the host once from
    the scheduler for its five requests; with the bound lifted, the two add up past it."""
    cdn, flights = shared_host, shared_host.flights
    before = _scheduler_leases(client, cdn.lease)
    total = _semaphore_acquires(client)

    def read(per_host: int | None) -> Callable[[], pd.DataFrame]:
        def once() -> pd.DataFrame:
            flights.log.clear()
            entries, problems = read_sites(
                cdn.urls, config=TWO_EACH, per_host=per_host, sites_per_task=1
            )
            rows, problem_frame = compute(entries, problems)
            assert len(rows) == 2 * CDN_LEAVES * CDN_URLS and problem_frame.empty
            assert Counter(f.path for f in flights.log) == {
                path: 1
                for k in range(2)
                for path in (
                    f"/s{k}/index.xml",
                    *(f"/s{k}/leaf-{j}.xml" for j in range(CDN_LEAVES)),
                )
            }
            if per_host is not None:
                assert flights.most_at_once() == 2
            return rows

        return once

    runs = 0
    for _ in range(4):
        runs += 1
        with get_task_stream(client) as stream:
            read(2)()
        if len({t["worker"] for t in stream.data if "sitemap-reader-" in str(t["key"])}) == 2:
            break
    # One acquire and one release per partition and run, not one per request (5 each).
    acquires, releases = _scheduler_leases(client, cdn.lease)
    assert (acquires - before[0], releases - before[1]) == (2 * runs, 2 * runs)
    assert _semaphore_acquires(client) - total == 2 * runs  # and nothing else asked

    _on_two_workers(client, read(None))
    assert flights.most_at_once() > 2


PACE = 0.4  # seconds between two starts to the host
# A start's way to the server, less the next one's, at most: only a lower bound on the gaps
# is asserted, this much below PACE.
JITTER = 0.15


def _start_gaps(flights: Flights) -> list[float]:
    starts = sorted(f.start for f in flights.log)
    return [later - earlier for earlier, later in itertools.pairwise(starts)]


def test_the_pace_holds_across_partitions_on_a_shared_host(
    client: Client, shared_host: SharedHost
) -> None:
    """Both partitions' requests to the shared CDN start at least the delay apart, the
    handover of its lease included; with the host not leased (``per_host=None``), the
    two partitions' paces each hold alone and their requests come closer than that."""
    cdn, flights = shared_host, shared_host.flights
    config = dataclasses.replace(CONFIG, pace=Pace(delay=PACE))

    def read(per_host: int | None) -> Callable[[], pd.DataFrame]:
        def once() -> pd.DataFrame:
            flights.log.clear()
            entries = read_sites(cdn.urls, config=config, per_host=per_host, sites_per_task=1)[0]
            rows = entries.compute()
            assert len(rows) == 2 * CDN_LEAVES * CDN_URLS
            assert len(flights.log) == 2 * (1 + CDN_LEAVES)
            return rows

        return once

    _on_two_workers(client, read(2))
    assert min(_start_gaps(flights)) >= PACE - JITTER

    _on_two_workers(client, read(None))
    assert min(_start_gaps(flights)) < PACE - JITTER


def test_a_crawl_delay_paces_the_sites_sitemaps(client: Client) -> None:
    """robots.txt's Crawl-delay, read in the partition's task, spaces its sitemaps."""
    flights = Flights()
    with ThreadedServer() as s:
        leaves = [f"/leaf-{j}.xml" for j in range(3)]
        robots = f"User-agent: *\nCrawl-delay: {PACE}\nSitemap: {s.a('/i.xml')}\n"
        s.add("/robots.txt", text(robots))
        s.add("/i.xml", xml(sitemapindex(*map(s.a, leaves))))
        for leaf in leaves:  # slow: two requests unpaced would overlap
            s.add(leaf, flights.around(slow(xml(urlset(s.a(f"{leaf}/1"))), 0.05)))
        config = dataclasses.replace(CONFIG, pace=Pace(obey_crawl_delay=True))

        entries, _ = read_sites([s.a("/")], config=config)
        rows = entries.compute()

    assert len(rows) == 3 and len(flights.log) == 3
    assert min(_start_gaps(flights)) >= PACE - JITTER


def test_a_shared_host_leased_elsewhere_past_the_deadline_is_a_problem(
    shared_host: SharedHost,
) -> None:
    """On dask's threads scheduler (the lease is this process's), a partition whose CDN host
    another holder keeps past the run's deadline gives a ``deadline`` problem naming the
    CDN's index and host; the sites' own robots.txt were read, and a site of the same
    partition that needs no CDN still gives its entries."""
    cdn = shared_host
    host = cdn.lease.removeprefix("sitemap-reader:host:")
    lease = sitemap_reader.dask._host_lease(host)
    assert lease.acquire(timeout=0)  # another partition holds the CDN
    config = dataclasses.replace(
        CONFIG, timeouts=dataclasses.replace(CONFIG.timeouts, deadline=1.0)
    )
    try:
        with ThreadedServer() as own:
            own.add("/sitemap.xml", xml(urlset(own.a("/a"), own.a("/b"))))
            sites = [cdn.urls[0], own.a("/sitemap.xml")]
            with dask.config.set(scheduler="threads"):
                entries, problems = read_sites(sites, config=config, sites_per_task=2)
                rows, problem_frame = compute(entries, problems)
    finally:
        lease.release()

    assert sorted(rows["loc"]) == [own.a("/a"), own.a("/b")]
    assert cdn.flights.log == []  # nothing was sent to the CDN
    assert cdn.sites[0].count("/robots.txt") == 1
    [problem] = problem_frame.itertuples()
    assert (problem.site, problem.url, problem.kind) == (
        cdn.urls[0],
        cdn.cdn.a("/s0/index.xml"),
        "deadline",
    )
    assert f"waiting for a turn at {host}" in problem.message


def _gate(own: frozenset[str] = frozenset()) -> sitemap_reader.dask._PartitionGate:
    return sitemap_reader.dask._PartitionGate(2, own, PaceBook())


async def test_a_lease_is_asked_once_while_its_host_is_in_use(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No cluster here: the lease is this process's. Five requests at a shared host ask
    for its lease once; it goes back ``LINGER`` after the last leaves, and is asked again
    only when the host is wanted after that. A host of the partition's own is never
    leased."""
    monkeypatch.setattr(sitemap_reader.dask, "LINGER", 0.05)
    host = f"shared-{uuid.uuid4().hex}:80"  # process-wide: a name of this test's own
    lease = sitemap_reader.dask._host_lease(host)
    gate = _gate(frozenset({"own:80"}))

    async def request() -> None:
        assert await gate.enter(host, 5.0)
        await asyncio.sleep(0.01)
        gate.leave(host)

    await asyncio.gather(*(request() for _ in range(5)))
    assert gate.leases_taken == 1
    assert not lease.acquire(timeout=0)  # held through the linger
    await asyncio.sleep(0.2)
    assert lease.acquire(timeout=5)  # given back
    lease.release()

    await request()
    assert await gate.enter("own:80", 1.0)
    gate.leave("own:80")
    assert gate.leases_taken == 2
    await gate.close()
    assert lease.acquire(timeout=5)
    lease.release()


async def test_a_lease_wait_ends_at_the_deadline_and_the_late_lease_goes_back() -> None:
    """A request still waiting for a lease another partition holds when the run's deadline
    comes is refused; the lease its wait gets later is given back at the task's end."""
    host = f"held-{uuid.uuid4().hex}:80"
    lease = sitemap_reader.dask._host_lease(host)
    assert lease.acquire(timeout=0)  # another partition holds it
    gate = _gate()

    assert not await gate.enter(host, 0.1)

    lease.release()  # the other partition is done: the wait under way gets it
    await gate.close()
    assert lease.acquire(timeout=5)
    lease.release()


def test_per_host_must_be_positive(client: Client, sites: Sites) -> None:
    with pytest.raises(ValueError, match="per_host must be at least 1, not 0"):
        read_sites(sites.urls, config=CONFIG, per_host=0)


def test_the_knobs_of_the_old_partitioning_warn_that_they_do_nothing(
    client: Client, sites: Sites
) -> None:
    """batch_small and leaves_per_task are accepted, say they have no effect, and change
    nothing of the read."""
    small = [s.a("/") for s in sites.small]
    expected, _ = read_sites(small, config=CONFIG)
    with pytest.warns(DeprecationWarning, match="batch_small has no effect"):
        entries, _ = read_sites(small, config=CONFIG, batch_small=2)
    assert sorted(entries.compute()["loc"]) == sorted(expected.compute()["loc"])
    with pytest.warns(DeprecationWarning, match="leaves_per_task has no effect"):
        entries, _ = read_sites(small, config=CONFIG, leaves_per_task=3)
    assert sorted(entries.compute()["loc"]) == sorted(expected.compute()["loc"])


def _profiling(dask_worker: Worker) -> bool:
    return "profile" in dask_worker.periodic_callbacks


def test_worker_processes_lose_the_profiler_on_python_3_11_only(
    client: Client, sites: Sites
) -> None:
    """The worker processes ask their own Python (tests/integrations/test_dask_profiler.py
    covers both answers, the workers that join later and keep_profiler)."""
    entries, _ = read_sites([sites.small[1].a("/")], config=CONFIG)
    assert len(entries.compute()) == 25
    assert list(client.run(_profiling).values()) == [sys.version_info[:2] != (3, 11)] * 2


def test_import_sitemap_reader_needs_no_dask() -> None:
    """``import sitemap_reader`` (and its reader) never imports dask."""
    code = "import sys, sitemap_reader; sitemap_reader.SitemapReader; print('dask' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_partitions_keep_a_hosts_sites_together() -> None:
    """Partitions of about ``sites_per_task`` sites, a host's sites never split, even when
    they are more than that."""
    from sitemap_reader.dask import _partitions

    sites = [
        "https://a.example/",
        "https://b.example/",
        "https://a.example/blog/sitemap.xml",
        "https://c.example/",
        "https://a.example:8443/",
        "http://a.example/",
        "https://b.example/news.xml",
        "https://b.example/more.xml",
    ]

    assert _partitions(sites, 2) == [
        ("https://a.example/", "https://a.example/blog/sitemap.xml"),
        ("https://b.example/", "https://b.example/news.xml", "https://b.example/more.xml"),
        ("https://c.example/", "https://a.example:8443/"),
        ("http://a.example/",),
    ]
    by_host = [sites[i] for i in (0, 2, 1, 6, 7, 3, 4, 5)]
    assert _partitions(sites, 16) == [tuple(by_host)]
