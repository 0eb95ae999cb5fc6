"""What the walk reads: one job per document, and the public :class:`Leaf` form of one.

A job carries what was known when its document was named (who named it, its depth, the
robots.txt that vouches for it, the indexes above it); the walk reads it by that. A leaf
sitemap that discovery leaves unread goes out as a :class:`Leaf`, made of plain values
only, and comes back as the same job wherever it is read.
"""

from __future__ import annotations

import enum
from dataclasses import KW_ONLY, dataclass, field
from datetime import datetime

from yarl import URL

from ..._base._config import ScopePolicy
from ..._base._models import ProblemKind
from ._scope import Scope


class JobKind(enum.Enum):
    """How a document is read."""

    ROBOTS = "robots"  # a robots.txt: its Sitemap: lines are queued
    SITEMAP = "sitemap"  # a sitemap or index over HTTP
    PROBE = "probe"  # a well-known path tried because robots.txt named no sitemap
    LOCAL = "local"  # a file, or stdin ("-")


@dataclass(frozen=True, slots=True, kw_only=True)
class Job:
    """One document to read, with what its naming told."""

    url: str  # as named (a path for a local file)
    kind: JobKind
    root: str  # the user's source it descends from
    source: str = ""  # who named it; '' for a user's source
    depth: int = 0
    vouched: str = ""  # origin of the robots.txt that vouches for it
    ancestors: tuple[str, ...] = ()  # keys of the indexes above it
    lastmod: datetime | None = None  # what its index said
    parent_scope: Scope | None = None  # the index's scope, to judge a redirected child
    refused: ProblemKind | None = None  # a source beyond a sitemap budget: reported, not read
    order: int = 0  # when it was named in the run (SitemapVisited.order), set by the frontier

    @property
    def key(self) -> str:
        """The document's key in the run (and in a state store)."""
        return self.url if self.kind is JobKind.LOCAL else normalise(self.url)


def normalise(url: str) -> str:
    """The dedupe key of a URL: yarl's normal form without the fragment."""
    try:
        return str(URL(url).with_fragment(None))
    except (ValueError, TypeError):
        return url


@dataclass(frozen=True, slots=True)
class Leaf:
    """A leaf sitemap (urlset, text, RSS, Atom) that discovery found and left unread.

    Picklable, so it can be read anywhere later (``SitemapReader.leaf_batches``, a Dask
    task): it carries what the walk knew when it was named (scope, vouching, lineage), and
    is read exactly as the whole walk would have read it.
    """

    url: str
    root: str  # the user's source it descends from
    source: str  # who named it
    depth: int
    lastmod: datetime | None  # what its index said
    # Bytes as sent (Content-Length of the sniffing request), when the server said: a
    # weight for batching leaves into tasks. None when unknown or remembered from a store.
    size: int | None = None
    # What the walk knew when it was named, to read it as the whole walk would have (left
    # out of comparisons: two leaves of one URL are one leaf).
    _: KW_ONLY
    probed: bool = field(default=False, repr=False, compare=False)  # a well-known path
    vouched: str = field(default="", repr=False, compare=False)  # see Job.vouched
    ancestors: tuple[str, ...] = field(default=(), repr=False, compare=False)
    # The index that named it, by its final URL and the scope policy it was read with: where
    # the leaf may redirect to. '' and None when no index named it.
    index_url: str = field(default="", repr=False, compare=False)
    index_policy: ScopePolicy | None = field(default=None, repr=False, compare=False)


def leaf_of(job: Job, size: int | None) -> Leaf:
    """``job`` (a sitemap or a probe) as discovery hands it out."""
    scope = job.parent_scope
    return Leaf(
        url=job.url,
        root=job.root,
        source=job.source,
        depth=job.depth,
        lastmod=job.lastmod,
        size=size,
        probed=job.kind is JobKind.PROBE,
        vouched=job.vouched,
        ancestors=job.ancestors,
        index_url="" if scope is None else scope.sitemap_url,
        index_policy=None if scope is None else scope.policy,
    )


def job_of(leaf: Leaf) -> Job:
    """The job ``leaf`` was made from (an index's scope shares its child's vouching)."""
    policy = leaf.index_policy
    return Job(
        url=leaf.url,
        kind=JobKind.PROBE if leaf.probed else JobKind.SITEMAP,
        root=leaf.root,
        source=leaf.source,
        depth=leaf.depth,
        vouched=leaf.vouched,
        ancestors=leaf.ancestors,
        lastmod=leaf.lastmod,
        parent_scope=None if policy is None else Scope(leaf.index_url, policy, leaf.vouched),
    )
