"""The walk's parts on their own: the frontier's answers, the judgement of a child, the Leaf.

The walk's behaviour is tested end to end against real servers (test_http_walk,
test_budgets, test_discover); these pin the contracts between its parts.
"""

from __future__ import annotations

import pickle
import pickletools
from datetime import datetime, timezone

import sitemap_reader
from sitemap_reader import (
    Limits,
    Problem,
    ProblemKind,
    ReaderConfig,
    ScopePolicy,
    SitemapRef,
    Status,
)
from sitemap_reader._base._run import Progress
from sitemap_reader._core._walk._jobs import Job, JobKind, Leaf, job_of, leaf_of, normalise
from sitemap_reader._core._walk._judge import judge_child, judge_hop, judge_landing
from sitemap_reader._core._walk._scope import Scope
from sitemap_reader._io._walk._frontier import Frontier, Pushed, Refused

SITE = "https://example.com/"


def _job(url: str, *, source: str = "https://example.com/robots.txt", root: str = SITE) -> Job:
    return Job(url=url, kind=JobKind.SITEMAP, root=root, source=source)


# -- the frontier --------------------------------------------------------------------------------


def test_push_queues_a_document_once_and_refuses_past_the_budget() -> None:
    progress = Progress()
    frontier = Frontier(
        ReaderConfig(limits=Limits(max_sitemaps=10, max_sitemaps_per_site=2)), progress
    )

    assert frontier.push(_job(f"{SITE}a.xml")) is Pushed.QUEUED
    # The same document by another spelling (the fragment, the host's case) is one document.
    assert frontier.push(_job("https://EXAMPLE.com/a.xml#top")) is Pushed.DUPLICATE
    assert frontier.push(_job(f"{SITE}b.xml")) is Pushed.QUEUED
    assert frontier.push(_job(f"{SITE}c.xml")) == Refused(ProblemKind.MAX_SITEMAPS_PER_SITE)
    # Another site has its own budget.
    other = "https://example.org/"
    assert frontier.push(_job(f"{other}a.xml", root=other)) is Pushed.QUEUED

    assert (progress.queued, progress.not_read) == (3, 1)
    assert normalise(f"{SITE}b.xml") in frontier
    assert normalise(f"{SITE}c.xml") not in frontier


async def test_a_source_past_the_budget_is_queued_to_be_reported() -> None:
    """A user's source is never dropped silently: it is queued, marked refused."""
    frontier = Frontier(ReaderConfig(limits=Limits(max_sitemaps=1)), Progress())
    frontier.push(_job(f"{SITE}a.xml"))

    assert frontier.push(_job(f"{SITE}b.xml", source="")) is Pushed.QUEUED

    first, second = await frontier.next(), await frontier.next()
    assert first is not None and second is not None
    assert (first.refused, second.refused) == (None, ProblemKind.MAX_SITEMAPS)
    assert frontier.out_of_budget(second, 0) == "max-sitemaps"
    assert frontier.out_of_budget(first, 0) is None


def test_claim_takes_a_document_on_without_queueing_it() -> None:
    progress = Progress()
    frontier = Frontier(ReaderConfig(limits=Limits(max_sitemaps=1)), progress)

    assert frontier.claim(_job(f"{SITE}sitemap.xml")) is Pushed.QUEUED
    assert frontier.claim(_job(f"{SITE}sitemap.xml")) is Pushed.DUPLICATE
    assert frontier.claim(_job(f"{SITE}sitemap_index.xml")) == Refused(ProblemKind.MAX_SITEMAPS)
    assert (progress.queued, progress.not_read) == (0, 1)


def test_a_budget_is_said_once() -> None:
    progress = Progress()
    frontier = Frontier(ReaderConfig(limits=Limits(max_sitemaps_per_site=5)), progress)

    first = frontier.budget_problem(ProblemKind.MAX_SITEMAPS_PER_SITE, f"{SITE}x.xml", SITE)
    again = frontier.budget_problem(ProblemKind.MAX_SITEMAPS_PER_SITE, f"{SITE}y.xml", SITE)
    elsewhere = frontier.budget_problem(
        ProblemKind.MAX_SITEMAPS_PER_SITE, "https://b/x", "https://b/"
    )

    assert first is not None and "5 sitemaps for https://example.com/" in first.message
    assert again is None
    assert elsewhere is not None  # per site
    assert progress.budget == "max-sitemaps-per-site"


# -- judging a child ----------------------------------------------------------------------------


def _judge(loc: str, depth: int = 1, lineage: tuple[str, ...] = ()) -> Problem | None:
    index = f"{SITE}maps/index.xml"
    return judge_child(
        SitemapRef(loc, None, index),
        depth=depth,
        max_depth=3,
        scope=Scope(index, ScopePolicy.STRICT),
        lineage=(*lineage, index),
    )


def test_judge_child_by_depth_scope_and_lineage() -> None:
    assert _judge(f"{SITE}other/a.xml") is None  # an index may name its origin's sitemaps
    assert _judge(f"{SITE}maps/a.xml", depth=3) is None
    too_deep = _judge(f"{SITE}maps/a.xml", depth=4)
    out = _judge("https://elsewhere.example/a.xml")
    cycle = _judge(f"{SITE}maps/index.xml#again")

    assert too_deep is not None and too_deep.kind == "too-deep"
    assert out is not None and (out.kind, out.url) == (
        "out-of-scope",
        "https://elsewhere.example/a.xml",
    )
    assert "other-host" in out.message
    assert cycle is not None and cycle.kind == "cycle"


def test_judge_a_redirect_by_lineage_run_and_landing() -> None:
    index = f"{SITE}index.xml"
    job = Job(
        url=f"{SITE}a.xml",
        kind=JobKind.SITEMAP,
        root=SITE,
        ancestors=(index,),
        parent_scope=Scope(index, ScopePolicy.STRICT),
    )

    cycle = judge_hop(job, index, index, set())
    duplicate = judge_hop(job, f"{SITE}b.xml", f"{SITE}b.xml", {f"{SITE}b.xml"})
    away = judge_landing(job, "https://elsewhere.example/a.xml")

    assert cycle is not None and cycle.status is Status.CYCLE
    assert duplicate is not None and duplicate.status is Status.DUPLICATE
    assert judge_hop(job, f"{SITE}c.xml", f"{SITE}c.xml", set()) is None
    assert away is not None and (away.status, away.problem.kind) == (Status.SKIPPED, "out-of-scope")
    assert judge_landing(job, f"{SITE}moved/a.xml") is None
    assert judge_landing(Job(url=job.url, kind=JobKind.SITEMAP, root=SITE), "https://x/") is None


# -- the Leaf ------------------------------------------------------------------------------------


def _named_jobs() -> list[Job]:
    index = f"{SITE}maps/index.xml"
    vouched = "https://example.com"
    return [
        Job(
            url=f"{SITE}maps/a.xml.gz",
            kind=JobKind.SITEMAP,
            root=SITE,
            source=index,
            depth=2,
            vouched=vouched,
            ancestors=(f"{SITE}index.xml", index),
            lastmod=datetime(2026, 5, 1, tzinfo=timezone.utc),
            parent_scope=Scope(index, ScopePolicy.HOST, vouched),
        ),
        Job(url=f"{SITE}sitemap.xml", kind=JobKind.PROBE, root=SITE, source=f"{SITE}robots.txt"),
        # A child of a local index: its scope judges nothing.
        Job(
            url=f"{SITE}b.xml",
            kind=JobKind.SITEMAP,
            root="/srv/maps/index.xml",
            source="/srv/maps/index.xml",
            depth=1,
            ancestors=("/srv/maps/index.xml",),
            parent_scope=Scope("", ScopePolicy.OFF),
        ),
    ]


def test_a_leaf_carries_its_job_whole() -> None:
    """What the walk knew of a leaf comes back as the same job wherever it is read."""
    for job in _named_jobs():
        leaf = leaf_of(job, 1_234)
        assert job_of(pickle.loads(pickle.dumps(leaf))) == job
        assert (leaf.url, leaf.root, leaf.source, leaf.depth, leaf.lastmod, leaf.size) == (
            job.url,
            job.root,
            job.source,
            job.depth,
            job.lastmod,
            1_234,
        )


def test_a_leaf_pickles_as_public_types_only() -> None:
    """A Leaf holds plain values and public records: nothing private travels to a worker."""
    leaf = leaf_of(_named_jobs()[0], None)
    names = []
    for op, arg, _ in pickletools.genops(pickle.dumps(leaf, protocol=2)):
        if op.name == "GLOBAL":
            module, name = str(arg).split(" ")
            names.append(name)
            if module.split(".")[0] == "sitemap_reader":
                assert name in sitemap_reader.__all__, f"{module}.{name}"
    assert {"Leaf", "ScopePolicy", "datetime"} <= set(names)
    assert Leaf(leaf.url, leaf.root, leaf.source, leaf.depth, leaf.lastmod) == leaf
