"""One document's body: streamed through a parser, entries scoped, children queued, reported.

A :class:`SitemapBody` gets what it needs when it is made (its job, the run's frontier
and outbox, the settings) and holds nothing of the walk: the fetcher drives it through
the ``Body`` protocol (or a file is fed to it), then :meth:`SitemapBody.report` says how
the read ended. With a state store it also keeps the children it named and stages its
entries for the change feed instead of emitting them; hashing and holding the body back
are the wrappers' of ``_holdback``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from ..._base._config import ReaderConfig, RobotsPolicy
from ..._base._errors import HTTPStatusError, LimitExceeded, kind_of
from ..._base._lines import Lines
from ..._base._models import (
    Entry,
    Event,
    Format,
    Problem,
    ProblemKind,
    SitemapRef,
    SitemapState,
    SitemapVisited,
    Status,
)
from ..._base._words import plural
from ..._core._parser import SitemapParser
from ..._core._walk._jobs import Job, JobKind, normalise
from ..._core._walk._judge import (
    Refusal,
    Refusals,
    judge_child,
    judge_follow,
    judge_hop,
    judge_landing,
)
from ..._core._walk._scope import ROBOTS, Scope, ScopeFilter
from ..._core._walk._trust import LastmodStats, lastmod_stamps
from ..._core._xml._core_choice import ENTRIES
from .._http._response import CHUNK, FetchResult, Response
from .._state._incremental import ENTRY_FORMATS, Settled, Tracker
from ._frontier import Frontier, Pushed
from ._lines import LineMaker, RobotsSaid, write_entries, write_run
from ._outbox import Outbox
from ._pool import ParsePool, RemoteParser
from ._reports import child_report, visited
from ._robots import Disallowed, RobotsBook, RobotsFilter, sitemap_problems
from ._threads import ParseThreads

# What a document that is no sitemap ends with: a probed path that is a web page is no news.
NOT_A_SITEMAP = frozenset({ProblemKind.HTML, ProblemKind.UNKNOWN_FORMAT, ProblemKind.EMPTY})
# Lines of a text document that were dropped for what they hold, not for where they point.
DROPPED_LINES = frozenset(
    {
        ProblemKind.INVALID_LOC,
        ProblemKind.RELATIVE_LOC,
        ProblemKind.LOC_TOO_LONG,
        ProblemKind.ENCODING,
    }
)


@dataclass(frozen=True, slots=True)
class Settings:
    """What the bodies of one run share."""

    config: ReaderConfig
    tracker: Tracker | None = None  # with a state store
    defer: bool = False  # discovery: a leaf sitemap is handed out unread
    pool: ParsePool | None = None  # ReaderConfig.workers: sitemaps parsed in workers
    threads: ParseThreads | None = None  # ReaderConfig.parse_threads: the others, in threads
    lines: LineMaker | None = None  # line_batches: entries written as lines (see ._lines)
    robots: RobotsBook | None = None  # ReaderConfig.robots obey: the rules read so far


class SitemapBody:
    """Streams one sitemap body through a parser, applies scope, queues index children."""

    def __init__(self, job: Job, frontier: Frontier, outbox: Outbox, settings: Settings) -> None:
        self.job = job
        self._frontier = frontier
        self._outbox = outbox
        self._config = config = settings.config
        tracker = self._tracker = settings.tracker
        self.key = job.key
        self.refs: list[SitemapRef] = []  # kept with a store only
        # With a store: the lastmods it carries, for the verdict on them.
        self.stats = None if tracker is None else LastmodStats()
        self.staging = tracker is not None and tracker.changes  # entries withheld: the feed's
        self.keeping = tracker is not None and tracker.keeper is not None  # entries kept
        self.parser: SitemapParser | RemoteParser | None = None
        self._pool = settings.pool  # None in discovery: its leaves are not read
        self._threads = settings.threads
        # Entries passed on are written as lines (line_batches); compiled runs are asked
        # for only where nothing else reads an entry: no store (its lastmod statistics).
        plan = self._plan = settings.lines
        self._lines = plan if tracker is None and plan and plan.compiled else None
        self.scope = Scope(job.url, config.scope, job.vouched)
        self._filter: ScopeFilter = self.scope.filter()
        book = settings.robots
        self._robots = None if book is None else RobotsFilter(book)
        self._obey = config.robots is RobotsPolicy.OBEY
        # The URLs robots.txt disallows: for the agent (left out when obeyed, else kept and
        # counted) and for "*" when another group decides for the agent (counted).
        self._disallowed = (Disallowed(), Disallowed())
        self.lineage: tuple[str, ...] = (*job.ancestors, normalise(job.url))
        self.emitted = 0  # parser events passed on, across attempts
        self._skip = 0
        self.entries = 0
        self.children = 0
        self.dropped: dict[str, int] = {}
        self.dropped_examples: dict[str, str] = {}  # the first URL dropped for each reason
        self.not_followed = Refusals()  # what the caller's follow rules made of its children
        self.problems: list[Problem] = []
        self.late_problems: list[Problem] = []
        self.refused: Status | None = None
        self.cut = False  # a budget of the run (entries, sitemaps) ran out inside this document
        self.unlisted: tuple[ProblemKind, int] | None = None  # children refused, not reported
        self.defer = settings.defer and job.kind is not JobKind.LOCAL
        self.deferred = False  # discovery: a leaf, left unread
        self.size: int | None = None  # Content-Length, as the server said
        self._passed = {normalise(job.url)}  # where this job has been: its URL and its hops

    @property
    def writes_lines(self) -> bool:
        """Whether this body's parser may return compiled runs for it to write as lines: on
        a first attempt only (a retry skips what was passed on, counted in records, and
        reads them as records)."""
        return self._lines is not None and self.emitted == 0

    # -- the Body protocol ---------------------------------------------------------------------

    def redirect(self, target: str) -> bool:
        """Vet a redirect before it is followed, so no request goes where nothing is read.

        Every attempt retraces the hops; those this job already passed are let through.
        """
        key = normalise(target)
        if key in self._passed:
            return True
        refusal = judge_hop(self.job, target, key, self._frontier) or self._disallowed_hop(target)
        if refusal is not None:
            self._refuse(refusal)
            return False
        self._frontier.mark(key)
        self._passed.add(key)
        self.lineage = (*self.lineage, key)
        return True

    def start(self, response: Response, attempt: int) -> bool:
        final = response.final_url
        self.size = response.content_length
        refusal = judge_landing(self.job, final)
        if refusal is not None:
            self._refuse(refusal)
            return False
        config = self._config
        pool = self._pool
        remote = None
        if pool is not None and self.job.kind is JobKind.SITEMAP:
            remote = pool.parser(final, config, response.content_type)
        self.begin(
            remote
            or SitemapParser(
                final,
                limits=config.limits,
                resolve_relative=config.resolve_relative,
                content_type=response.content_type,  # a text sitemap's charset
                lines=self.writes_lines,
            ),
            Scope(final, config.scope, self.job.vouched),
        )
        return True

    def begin(self, parser: SitemapParser | RemoteParser, scope: Scope) -> None:
        if isinstance(self.parser, RemoteParser):
            self.parser.release()  # a retry: the worker forgets the first attempt
        self.parser = parser
        self.scope = scope
        self._filter = scope.filter()
        self._skip = self.emitted  # a retry re-reads from the start: pass nothing twice

    async def chunk(self, data: bytes) -> bool:
        if len(data) <= CHUNK:
            return await self._parse(data)
        # A fast server hands over a whole body at once: parse it a piece at a time, so a
        # budget that runs out stops the parsing too, not only the reading.
        for start in range(0, len(data), CHUNK):
            if not await self._parse(data[start : start + CHUNK]):
                return False
        return True

    async def _parse(self, data: bytes) -> bool:
        parser = self.parser
        assert parser is not None
        if isinstance(parser, RemoteParser):
            events = await parser.feed(data)
        elif self._threads is not None:
            events = await self._threads.call(parser.feed, data)
        else:
            events = parser.feed(data)
        if self.defer and parser.format in ENTRY_FORMATS:
            self.deferred = True  # a leaf: what its first bytes held is read with the rest
            return False
        if events:
            await self._handle(events)
        return not (parser.ended or self.cut)

    async def finish(self) -> bool:
        parser = self.parser
        assert parser is not None
        if not (self.cut or self.deferred):  # a document not read to its end: no verdict
            if isinstance(parser, RemoteParser):
                events = await parser.close()
            elif self._threads is not None:
                events = await self._threads.call(parser.close)
            else:
                events = parser.close()
            if self.defer and parser.format in ENTRY_FORMATS:
                self.deferred = True  # a short leaf, its format known only at its end
                return True
            await self._handle(events)
        fatal = parser.fatal
        return not (type(fatal) is Problem and fatal.kind == ProblemKind.TRUNCATED)

    async def replay(self, state: SitemapState) -> None:
        """An unchanged document names what it named last time: queue those again, through
        the usual checks (depth, scope, cycles, duplicates)."""
        self.scope = Scope(state.final_url, self._config.scope, self.job.vouched)
        final = normalise(state.final_url)
        if final not in self._passed:  # it was redirected: the target is read too
            self._passed.add(final)
            self._frontier.mark(final)
            self.lineage = (*self.lineage, final)
        if state.children:
            await self._handle(list(state.children))

    def settle(self, result: FetchResult, report: SitemapVisited, digest: str) -> Settled:
        """Record this read in the store if it was complete (else drop what was staged)."""
        tracker = self._tracker
        assert tracker is not None
        return tracker.settle(
            self.key,
            lastmod=self.job.lastmod,
            result=result,
            status=report.status,
            fmt=report.format,
            entries=report.entries,
            digest=digest,
            children=[recorded(ref) for ref in self.refs],
            valid=not self.junk(report),
            root=self.job.root,
            stats=self.stats,
        )

    def junk(self, report: SitemapVisited) -> bool:
        """A text document whose every line was dropped: an error page or other bytes read
        as a text sitemap, which proves nothing about what the sitemap lists."""
        return (
            report.format is Format.TEXT
            and report.entries == 0
            and any(p.kind in DROPPED_LINES for p in report.problems)
        )

    # -- events ------------------------------------------------------------------------------

    async def _handle(self, events: list[Event]) -> None:
        if self._skip:
            if len(events) <= self._skip:
                self._skip -= len(events)
                return
            events = events[self._skip :]
            self._skip = 0
        self.emitted += len(events)
        runs = [] if self._lines is None else [e for e in events if type(e) is ENTRIES]
        # (what a retry skips counts records: a run of compiled ones counts its entries)
        self.emitted += sum(len(cast(Any, run)) - 1 for run in runs)
        progress = self._outbox.progress
        room = self._config.limits.max_entries - progress.entries
        locs = [] if runs else [e.loc for e in events if type(e) is Entry]
        stamps: list[int | None] | None = None
        if (
            len(locs) == len(events)
            and self._filter.all_pass(locs)
            and (self._robots is None or self._robots.all_allowed())
        ):
            out, entries = events, len(events)  # a leaf's entries, all in scope: passed whole
            if self.stats is not None:  # their lastmods as integers, for the store too
                stamps = lastmod_stamps(cast(list[Entry], events))
                self.stats.add_stamps(stamps, cast(list[Entry], events))
        else:
            out, entries = self._sort(events, room)
        if entries > room:
            out = self._cut(out, room)
            entries = max(room, 0)
        self.entries += entries
        progress.entries += entries
        if self.keeping and entries:  # kept for the change feed, this run's or a later one's
            assert self._tracker is not None
            if out is events and stamps is not None:  # passed whole: the stamps line up
                self._tracker.stage(self.key, cast(list[Entry], out), stamps)
            else:
                self._tracker.stage(self.key, [e for e in out if type(e) is Entry])
            if self.staging:  # the change feed: entries go to the store, not out
                out = [e for e in out if type(e) is not Entry]
        if self._plan is not None and entries:
            out = self._as_lines(out)
        await self._outbox.emit(out, root=self.job.root)

    def _as_lines(self, out: list[Event]) -> list[Event]:
        """``out`` with each run of ``Entry`` records in it written as one ``Lines``."""
        plan = self._plan
        assert plan is not None
        lined: list[Event] = []
        run: list[Entry] = []
        for event in out:
            if type(event) is Entry:
                run.append(event)
                continue
            if run:
                lined.append(cast(Event, write_entries(plan, run)))
                run = []
            lined.append(event)
        if run:
            lined.append(cast(Event, write_entries(plan, run)))
        return lined

    def _sort(self, events: list[Event], room: int) -> tuple[list[Event], int]:
        """The events to pass on, one by one: entries in scope (the others counted as
        dropped), index children queued, problems kept, compiled runs written as lines
        within the ``room`` the budget leaves; and how many entries passed."""
        check = self._filter.check
        robots = None if self._robots is None else self._robots.judge
        out: list[Event] = []
        dropped = self.dropped
        stats = self.stats
        entries = 0
        for event in events:
            if type(event) is Entry:
                if stats is not None:
                    stats.add(event.lastmod, bool(event.news))
                why = check(event.loc)
                if why is None and robots is not None:
                    why = self._judge(robots(event.loc), event.loc)
                if why is None:
                    out.append(event)
                    entries += 1
                elif why in dropped:
                    dropped[why] += 1
                else:
                    dropped[why] = 1
                    self.dropped_examples[why] = event.loc
            elif type(event) is SitemapRef:
                self.children += 1
                if stats is not None:
                    stats.add(event.lastmod)
                if self._tracker is not None:
                    # Every child named, followed or not: one left unread (the caller's
                    # follow rules) stays named in the store, so its URLs are not removed.
                    self.refs.append(event)
                for outcome in self._child(event):
                    if type(outcome) is Problem:
                        self.problems.append(outcome)
                    out.append(outcome)  # a problem, or the report of a duplicate or skip
            elif type(event) is ENTRIES:
                entries += self._write(cast(Any, event), room - entries, out)
            else:
                assert isinstance(event, Problem)
                self.problems.append(event)
                if not (
                    self.job.kind is JobKind.PROBE and event.fatal and event.kind in NOT_A_SITEMAP
                ):
                    out.append(event)  # a probed path that is a web page is no news
        return out, entries

    def _judge(self, judged: tuple[bool, bool], loc: str) -> str | None:
        """Count ``loc`` as robots.txt disallows it (for the agent, for "*"), the rule of the
        first found; ROBOTS when it is left out."""
        agent, anyone = judged
        if not (agent or anyone):
            return None
        first = [said and d.add(loc) for d, said in zip(self._disallowed, judged, strict=True)]
        if any(first):  # the rule is found for the first alone (it costs a second match)
            assert self._robots is not None
            rules = self._robots.rules(loc)
            for disallowed, is_first, rule in zip(self._disallowed, first, rules, strict=True):
                if is_first:
                    disallowed.rule = rule or ""
        return ROBOTS if agent and self._obey else None  # (a drop: the caller counts it)

    def _write(self, run: Any, room: int, out: list[Event]) -> int:
        """A compiled run (``_native.Entries``) as lines onto ``out``; returns the entries
        passed. The crate judges the entries by the scope's fast test and robots.txt (the
        rules of the first entry's origin: ``RobotsGate``); an entry it cannot judge is an
        ``Entry`` again for the usual check, and once ``room`` is spent the rest are, for
        the budget's cut."""
        plan = self._lines
        assert plan is not None
        robots = self._robots
        gate = None
        if robots is not None and len(run) and not robots.all_allowed():
            gate = robots.gate(run.objects(0, 1)[0].loc, self._obey)
        entries, start, stop = 0, 0, len(run)
        while start < stop:
            if room - entries <= 0:
                more, passed = self._sort(run.objects(start, stop), 0)
                out.extend(more)
                return entries + passed
            lines, start, said = write_run(plan, run, start, self._filter, room - entries, gate)
            if said is not None:
                self._count_robots(said)
            if lines.in_scope:
                out.append(cast(Event, lines))
                entries += lines.in_scope
            if start < stop and room - entries > 0:  # only the full check can tell
                more, passed = self._sort(run.objects(start, start + 1), 0)
                out.extend(more)
                entries += passed
                start += 1
        return entries

    def _count_robots(self, said: RobotsSaid) -> None:
        """Count what the crate found robots.txt disallows in a run, as :meth:`_judge` counts
        one URL: the rule of the first found, and the agent's left out when obeyed."""
        robots = self._robots
        assert robots is not None
        for disallowed, (count, first), k in zip(self._disallowed, said, (0, 1), strict=True):
            if count and first is not None and disallowed.add(first, count):
                disallowed.rule = robots.rules(first)[k] or ""
        count, first = said[0]
        if self._obey and count and first is not None:
            if ROBOTS in self.dropped:
                self.dropped[ROBOTS] += count
            else:
                self.dropped[ROBOTS] = count
                self.dropped_examples[ROBOTS] = first

    def _child(self, ref: SitemapRef) -> tuple[Problem | SitemapVisited, ...]:
        """Queue an index child; else a Problem saying why not, or the report of a child
        not followed (the caller's choice) or of a duplicate.

        Once the site's sitemap budget is spent the index is cut: every child it names
        further would be refused, and a hostile index may name millions. The children of
        the piece read so far are reported skipped (tree lists them), the budget said once.
        """
        job, frontier = self.job, self._frontier
        depth = job.depth + 1
        spent = frontier.spent(job.root)
        if spent is not None:
            self._outbox.progress.not_read += 1
            self.cut = True
            said = frontier.budget_problem(spent, ref.loc, job.root)
            order = frontier.left_unread()
            unread = None if order is None else child_report(ref, depth, Status.SKIPPED, order)
            if unread is None:
                self.unlisted = (spent, 1 if self.unlisted is None else self.unlisted[1] + 1)
            return tuple(event for event in (said, unread) if event is not None)
        problem = judge_child(
            ref,
            depth=depth,
            max_depth=self._config.limits.max_depth,
            scope=self.scope,
            lineage=self.lineage,
        )
        if problem is not None:
            return (problem,)
        why = judge_follow(self._config.follow, ref, depth)
        if why is not None:
            self.not_followed.refused(why)
            return (
                child_report(ref, depth, Status.SKIPPED, frontier.pass_over(), not_followed=why),
            )
        self.not_followed.followed += 1
        pushed = frontier.push(
            Job(
                url=ref.loc,
                kind=JobKind.SITEMAP,
                root=job.root,
                source=ref.source,
                depth=depth,
                vouched=job.vouched,
                ancestors=self.lineage,
                lastmod=ref.lastmod,
                parent_scope=self.scope,
            )
        )
        if pushed is not Pushed.DUPLICATE:  # queued (spent() above said the budget had room)
            return ()
        # Named again (by this index or another): read once per run, reported, no problem.
        return (child_report(ref, depth, Status.DUPLICATE, frontier.named),)

    def _cut(self, out: list[Event], room: int) -> list[Event]:
        """The run's entry budget ends here: keep ``room`` entries of ``out``, stop reading."""
        self.cut = True
        kept: list[Event] = []
        for event in out:
            if type(event) is Entry:
                if room <= 0:
                    continue
                room -= 1
            elif type(cast(object, event)) is Lines:  # written within the room left there
                room -= cast(Lines, event).in_scope
            kept.append(event)
        problem = self._frontier.budget_problem(
            ProblemKind.MAX_ENTRIES, self.job.url, self.job.root
        )
        if problem is not None:
            self.problems.append(problem)
            kept.append(problem)
        return kept

    def _disallowed_hop(self, target: str) -> Refusal | None:
        """With ``--robots obey``, a redirect to a URL robots.txt disallows for the agent is
        not followed, as a sitemap it disallows is not fetched (``_robots_reads``)."""
        robots = self._robots
        if not self._obey or robots is None or not robots.judge(target)[0]:
            return None
        rule = robots.rules(target)[0]
        return Refusal(
            Status.SKIPPED,
            Problem(
                kind=ProblemKind.ROBOTS_DISALLOWED_SITEMAP,
                url=self.job.url,
                message=f"redirects to {target}, which robots.txt disallows, by {rule}: not "
                "followed (--robots obey), so the URLs and sitemaps it lists are unknown",
            ),
        )

    def nothing_followed(self) -> Problem | None:
        """The problem saying the caller's follow rules refused every child this index
        names (kept with its problems), or None."""
        problem = self.not_followed.problem(self.scope.sitemap_url or self.job.url)
        if problem is not None:
            self.problems.append(problem)
        return problem

    def robots_problems(self, status: Status) -> list[Problem]:
        """What robots.txt disallows here (ReaderConfig.robots obey or report): the page URLs
        it lists, for the agent and for "*", and the sitemap's own URL."""
        if self._robots is None:
            return []
        url = self.scope.sitemap_url or self.job.url
        agent, anyone = self._disallowed
        said = [
            agent.problem(url, " (left out: --robots obey)" if self._obey else ""),
            anyone.problem(url, " to other crawlers (user-agent: *)"),
        ]
        problems = [p for p in said if p is not None]
        if status in (Status.OK, Status.PARTIAL) and self.job.kind is not JobKind.LOCAL:
            problems += sitemap_problems(url, self._robots.rules(url))
        return problems

    def _refuse(self, refusal: Refusal) -> None:
        self.refused = refusal.status
        self.problems.append(refusal.problem)
        self.late_problems.append(refusal.problem)

    # -- the outcome --------------------------------------------------------------------------

    def _cut_status(self) -> Status:
        """A document not read to its end: partial once it was recognised as a sitemap (what
        came before the fault stands), failed while nothing in it was (a cut root tag, a
        corrupt gzip header): the one rule the summary, ``tree`` and the exit status follow."""
        parser = self.parser
        if parser is None or parser.format in (None, Format.UNKNOWN, Format.HTML):
            return Status.FAILED
        return Status.PARTIAL

    def report(self, result: FetchResult) -> SitemapVisited:
        job, parser = self.job, self.parser
        if isinstance(parser, RemoteParser):
            parser.release()  # read to its end or not, the worker needs it no more
        error = result.error
        status = Status.OK
        if self.refused is not None:
            status = self.refused
        elif error is not None:
            if (
                job.kind is JobKind.PROBE
                and isinstance(error, HTTPStatusError)
                and error.status < 500
            ):
                status = Status.MISSING
            else:
                status = self._cut_status()
                problem = Problem(
                    kind=kind_of(error), url=error.url or job.url, message=str(error), fatal=True
                )
                self.problems.append(problem)
                if not isinstance(error, LimitExceeded) or self._frontier.budget_problem(
                    error.kind, job.url, job.root
                ):
                    self.late_problems.append(problem)  # a budget is said once a run
        elif self.cut:
            status = Status.PARTIAL
        elif parser is not None and parser.fatal is not None:
            fatal = parser.fatal
            assert isinstance(fatal, Problem)
            if fatal.kind in NOT_A_SITEMAP:
                status = Status.MISSING if job.kind is JobKind.PROBE else Status.FAILED
            else:
                status = self._cut_status()
        elif parser is None and result.status == 304:
            status = Status.UNCHANGED
        self._outbox.progress.dropped += sum(self.dropped.values())
        if self.unlisted is not None:  # said in the report alone: the stream said the budget
            kind, count = self.unlisted
            self.problems.append(
                Problem(
                    kind=kind,
                    url=job.url,
                    message=f"not read, nor listed one by one: {plural(count, 'more sitemap')} "
                    "it names (the sitemap budget is spent)",
                    count=count,
                )
            )
        said = self.nothing_followed()
        if said is not None:
            self.late_problems.append(said)
        disallowed = self.robots_problems(status)
        self.problems += disallowed
        self.late_problems += disallowed
        return visited(
            job,
            status,
            result,
            format=None if parser is None else parser.format,
            entries=self.entries,
            children=self.children,
            dropped=tuple(sorted(self.dropped.items())),
            dropped_examples=tuple(sorted(self.dropped_examples.items())),
            problems=tuple(self.problems),
            gzipped=parser is not None and parser.gzipped,
            encoding=None if parser is None else parser.encoding,
        )


class BytesBody:
    """Collects a small body (robots.txt), keeping at most ``limit`` bytes."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.data = bytearray()

    def start(self, response: Response, attempt: int) -> bool:
        self.data.clear()
        return True

    async def chunk(self, data: bytes) -> bool:
        self.data.extend(data[: self.limit - len(self.data)])
        return len(self.data) < self.limit

    async def finish(self) -> bool:
        return True

    def redirect(self, target: str) -> bool:
        return True


def recorded(ref: SitemapRef) -> SitemapRef:
    """A child as the store keeps it: under its dedupe key, which is the store's key too."""
    return SitemapRef(loc=normalise(ref.loc), lastmod=ref.lastmod, source=ref.source)
