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
from collections.abc import Iterator
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
from distributed import Client, LocalCluster, Worker, get_task_stream

import sitemap_reader.dask
from sitemap_reader import (
    ChildSitemap,
    FollowRules,
    Leaf,
    Pace,
    Problem,
    read_dataframe_sync,
    walk_sync,
)
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


def test_union_of_partitions_is_the_single_machine_read(client: Client, sites: Sites) -> None:
    """The partitions together hold exactly what one machine reads, problems included; the
    large site's leaves are separate tasks on both workers; the read is lazy and each leaf
    is downloaded once by computing both frames together."""
    index, leaves = sites.large.count("/maps/index.xml"), sites.leaf_counts()
    entries, problems = read_sites(sites.urls, config=CONFIG, batch_small=4)

    # Discovery ran (robots.txt, the index, the first bytes of each leaf); no leaf was read.
    assert sites.large.count("/maps/index.xml") == index + 1
    assert _more(sites.leaf_counts(), leaves) == [1] * LARGE_LEAVES
    # A partition per large-site leaf, and one for the small sites' four leaves.
    assert entries.npartitions == LARGE_LEAVES + 1

    with get_task_stream(client) as stream:
        partitions = [entries.get_partition(i) for i in range(entries.npartitions)]
        *parts, problem_frame = compute(*partitions, problems)
    assert _more(sites.leaf_counts(), leaves) == [2] * LARGE_LEAVES  # and one more: the read

    reference = read_dataframe_sync(*sites.urls, config=CONFIG)
    together = pd.concat(parts, ignore_index=True)
    assert len(together) == LARGE_LEAVES * LARGE_URLS + 30 + 25 + 10 + 2
    pd.testing.assert_frame_equal(_sorted(together), _sorted(reference))
    # Document order holds within each leaf sitemap.
    order = {sm: list(rows["loc"]) for sm, rows in together.groupby("sitemap", sort=False)}
    assert order == {sm: list(rows["loc"]) for sm, rows in reference.groupby("sitemap", sort=False)}

    # Each of the large site's leaves is alone in a partition, and their tasks ran on both
    # workers: no task held the whole site.
    large = {sites.large.a(p) for p in sites.leaf_paths()}
    holding = [set(part.sitemap) & large for part in parts]
    assert sorted(len(h) for h in holding if h) == [1] * LARGE_LEAVES
    ran = [t for t in stream.data if str(t["key"]).startswith("sitemap-reader-leaves-")]
    assert len(ran) == LARGE_LEAVES + 1
    assert len({t["worker"] for t in ran}) == 2

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
    assert any(str(t["key"]).startswith("sitemap-reader-discover-") for t in stream.data)
    gzipped = [i % 2 for i in range(LARGE_LEAVES)]
    assert _more(sites.leaf_counts(), before) == [2 * g for g in gzipped]
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
    gives only its entries; each site and leaf has a state file of its own."""
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
        first, _ = read_sites([s.a("/")], config=CONFIG, state_dir=tmp_path, batch_small=2)
        assert len(first.compute()) == 200
        files = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.sqlite"))
        assert len(files) == 5 and files[-1].endswith("/tree.sqlite")
        assert sum("/leaves/" in f for f in files) == 4

        lastmods[2] = "2026-05-02"
        publish(1)
        hits = len(s.site.hits)
        second, problems = read_sites([s.a("/")], config=CONFIG, state_dir=tmp_path)
        changed, problem_frame = compute(second, problems)

        assert sorted(changed["loc"]) == sorted(
            [*(s.a(f"/2/{n}") for n in range(50)), s.a("/2/new")]
        )
        assert problem_frame.empty
        # Discovery's store remembers the four leaves: none is sniffed again. Their reads
        # decide from their own states: three skipped by their unchanged index lastmods, the
        # changed one read once.
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
        entries, problems = read_sites([s.a("/")], config=config, batch_small=1)
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
    entries, _ = read_sites(pd.Series([*small, small[0], "  "]), config=CONFIG, batch_small=1)
    assert entries.npartitions == 4  # a task per leaf of the three sites (1, 1 and 2 leaves)
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


def test_per_host_bounds_the_requests_to_a_host_across_the_cluster(
    client: Client, one_host: tuple[Served, Flights]
) -> None:
    """Sites sharing a host share its turns: with ``per_host=2`` the server never answers
    more than two requests at once, though tasks on both workers read it; without the
    cluster-wide bound each task's own two at a time add up past it."""
    s, flights = one_host
    sites = [s.a(f"/s{k}/index.xml") for k in range(SHARED_SITES)]
    # Each task's reader sends two at a time to a host: the bound alone no longer holds
    # once two tasks run at once.
    config = dataclasses.replace(CONFIG, limits=dataclasses.replace(CONFIG.limits, per_host=2))

    def read(per_host: int | None) -> tuple[pd.DataFrame, pd.DataFrame]:
        entries, problems = read_sites(  # two tasks of each stage
            sites, config=config, per_host=per_host, sites_per_task=2, batch_small=SHARED_LEAVES
        )
        rows, problem_frame = compute(entries, problems)
        return rows, problem_frame

    # The scheduler chooses the workers: on a busy machine it may give one worker every task
    # (3 tries were seen to fail so under load). Bounded tries until both ran some; each try
    # must hold the bound anyway.
    for _ in range(8):
        flights.log.clear()
        with get_task_stream(client) as stream:
            rows, problem_frame = read(2)
        assert len(rows) == SHARED_SITES * SHARED_LEAVES * SHARED_URLS and problem_frame.empty
        # Each index once; each leaf twice (its first bytes in discovery, then its read).
        assert Counter(Counter(f.path for f in flights.log).values()) == Counter(
            {1: SHARED_SITES, 2: SHARED_SITES * SHARED_LEAVES}
        )
        assert flights.most_at_once() == 2
        ran = [t for t in stream.data if str(t["key"]).startswith("sitemap-reader-")]
        assert {str(t["key"]).split("-")[2] for t in ran} == {"discover", "leaves"}
        if len({t["worker"] for t in ran}) == 2:
            break
    assert len({t["worker"] for t in ran}) == 2

    flights.log.clear()
    rows, _ = read(None)

    assert len(rows) == SHARED_SITES * SHARED_LEAVES * SHARED_URLS
    assert flights.most_at_once() > 2


def test_per_host_holds_on_a_local_scheduler(one_host: tuple[Served, Flights]) -> None:
    """Without a distributed cluster the tasks are threads of this process: the bound is
    this process's, and holds across three of them at once."""
    s, flights = one_host
    sites = [s.a(f"/s{k}/index.xml") for k in range(SHARED_SITES)]
    config = dataclasses.replace(CONFIG, limits=dataclasses.replace(CONFIG.limits, per_host=2))

    with dask.config.set(scheduler="threads", num_workers=3):
        entries, _ = read_sites(sites, config=config, per_host=2, sites_per_task=1, batch_small=1)
        rows = entries.compute()

    assert len(rows) == SHARED_SITES * SHARED_LEAVES * SHARED_URLS
    assert flights.most_at_once() == 2


PACE = 0.4  # seconds between two starts to the host
# A start's answer from the pace's actor, and then its request's way to the server, less
# the next one's, at most: only a lower bound on the gaps is asserted, this much below PACE.
JITTER = 0.15


def _start_gaps(flights: Flights) -> list[float]:
    starts = sorted(f.start for f in flights.log)
    return [later - earlier for earlier, later in itertools.pairwise(starts)]


@pytest.fixture
def paced_host() -> Iterator[tuple[Served, Flights]]:
    """Three sites on one host, each an index of one leaf; every request logged."""
    flights = Flights()
    with ThreadedServer() as s:
        for k in range(3):
            leaf = s.a(f"/s{k}/leaf.xml")
            s.add(f"/s{k}/index.xml", flights.around(xml(sitemapindex(leaf))))
            s.add(f"/s{k}/leaf.xml", flights.around(xml(urlset(f"{leaf}/1", f"{leaf}/2"))))
        yield s, flights


def test_the_pace_spaces_a_hosts_requests_across_the_cluster(
    client: Client, paced_host: tuple[Served, Flights], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tasks on both workers read sites of one host: its requests start at least the
    delay apart, whichever task sends them. With a pace of each task's own, the two
    workers' requests come closer together than that."""
    s, flights = paced_host
    sites = [s.a(f"/s{k}/index.xml") for k in range(3)]
    config = dataclasses.replace(CONFIG, pace=Pace(delay=PACE))

    def read() -> pd.DataFrame:
        entries, _ = read_sites(sites, config=config, sites_per_task=1, batch_small=1)
        return entries.compute()

    # The scheduler chooses the workers: on a busy machine it may give one worker every task.
    # A few tries (bounded) until both ran some; each try's requests must be paced anyway.
    for _ in range(3):
        flights.log.clear()
        with get_task_stream(client) as stream:
            rows = read()
        assert len(rows) == 3 * 2 and len(flights.log) == 3 * 3  # index, leaf's head, leaf
        assert min(_start_gaps(flights)) >= PACE - JITTER
        workers = {t["worker"] for t in stream.data if "sitemap-reader-" in str(t["key"])}
        if len(workers) == 2:
            break
    assert len(workers) == 2

    flights.log.clear()
    monkeypatch.setattr(sitemap_reader.dask, "_shared_book", lambda config: None)
    assert len(read()) == 3 * 2

    assert min(_start_gaps(flights)) < PACE - JITTER


def test_a_crawl_delay_found_by_discovery_paces_the_leaf_tasks(client: Client) -> None:
    """robots.txt's Crawl-delay, read by the discovery task, spaces the requests of the
    leaf tasks (whose readers never read robots.txt) on both workers."""
    flights = Flights()
    with ThreadedServer() as s:
        leaves = [f"/leaf-{j}.xml" for j in range(3)]
        robots = f"User-agent: *\nCrawl-delay: {PACE}\nSitemap: {s.a('/i.xml')}\n"
        s.add("/robots.txt", text(robots))
        s.add("/i.xml", xml(sitemapindex(*map(s.a, leaves))))
        for leaf in leaves:  # slow: two leaf tasks unpaced would overlap
            s.add(leaf, flights.around(slow(xml(urlset(s.a(f"{leaf}/1"))), 0.05)))
        config = dataclasses.replace(CONFIG, pace=Pace(obey_crawl_delay=True))

        entries, _ = read_sites([s.a("/")], config=config, batch_small=1)
        flights.log.clear()  # the leaf tasks' requests only
        rows = entries.compute()

    assert len(rows) == 3 and len(flights.log) == 3
    assert min(_start_gaps(flights)) >= PACE - JITTER


async def test_a_cancelled_wait_gives_back_the_turn_it_gets() -> None:
    """A request cancelled while it waits for a turn (its run stopped) cannot call off the
    blocking wait under way: the turn that wait gets is given back, and the host's one turn
    is free again."""
    from sitemap_reader.dask import _ClusterGate

    gate = _ClusterGate(1)  # no cluster here: this process's semaphore
    host = f"cancelled-{uuid.uuid4().hex}:80"  # process-wide: a name of this test's own
    assert await gate.enter(host, None)
    waiting = asyncio.create_task(gate.enter(host, None))
    for _ in range(10):  # until it waits on its thread
        await asyncio.sleep(0)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting

    gate.leave(host)

    assert await gate.enter(host, 5.0)
    gate.leave(host)


def test_per_host_must_be_positive(client: Client, sites: Sites) -> None:
    with pytest.raises(ValueError, match="per_host must be at least 1, not 0"):
        read_sites(sites.urls, config=CONFIG, per_host=0)


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


def test_plan_splits_a_site_of_few_large_leaves() -> None:
    """Batching goes by leaf count and by bytes: three 1 MB leaves are three tasks, three
    small ones of another site share one, and unknown sizes count as small."""
    from sitemap_reader.dask import _Found, _plan

    def leaves(site: str, sizes: list[int | None]) -> tuple[Leaf, ...]:
        return tuple(Leaf(f"{site}{i}.xml", site, "", 0, None, size=n) for i, n in enumerate(sizes))

    big = _Found("http://a/", leaves("http://a/", [1_000_000] * 3), ())
    small = _Found("http://b/", leaves("http://b/", [10_000, None, 5_000]), ())
    tiny = _Found("http://c/", leaves("http://c/", [None]), ())

    parts = _plan([big, small, tiny], batch_small=8, leaves_per_task=1)

    assert [[(site, len(ls)) for site, ls in part] for part in parts] == [
        [("http://a/", 1)],
        [("http://a/", 1)],
        [("http://a/", 1)],
        [("http://b/", 3), ("http://c/", 1)],
    ]
