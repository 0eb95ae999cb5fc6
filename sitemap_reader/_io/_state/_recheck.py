"""The recheck sample's byte budget: which skippable children a run asks again by default.

-- docs/incremental.md, "The recheck sample". Asking a child again costs what its server
sends back: a child whose server answers conditional requests costs a 304 (no body) when it
is unchanged; any other costs its whole size. So, per source and run
(``Incremental.recheck`` None), the children its index lastmods would skip are taken the
longest unchecked first, in two lanes:

* **answering**: a child whose last response carried a validator (ETag, Last-Modified) and
  whose server answers conditional requests: it answered one with 304 itself, or another
  document of the source did and none answered with its whole body again. Up to
  ``RECHECK_ANSWERING`` a run, at no cost in the budget. While the server is unknown, one
  child with a validator a run is asked to find out (it costs its size if the server
  ignores validators, once: the answer is recorded);
* **costly**: every other child costs its size at its last read. The source earns a credit
  of ``RECHECK_SHARE`` of its size (its documents' sizes at their last reads) a run, carried
  over to the next; children are taken in order while their sizes fit it (the first that
  does not fit waits for more credit: the rotation is never reordered by size). After
  ``RECHECK_EVERY - 1`` runs in a row that took none, the next child is taken whatever it
  costs. The credit is capped at ``RECHECK_EVERY`` runs' worth; what the sample received
  is taken from it after the run (never below zero).

So a site with many children spends the share on average (a child larger than it waits
for the credit of several runs), a site of a few large children gets one every
``RECHECK_EVERY`` runs, and every child is reached: within about ``1 / RECHECK_SHARE`` runs
whatever the site's size.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..._base._config import RECHECK_ANSWERING, RECHECK_EVERY, RECHECK_SHARE

MIN_COST = 1_024  # bytes: what asking any child costs at least (a request and its headers)


@dataclass(frozen=True, slots=True)
class Candidate:
    """A child a run may skip on its index lastmod, as its last reads left it."""

    url: str
    bytes: int  # its size as received at its last read
    validated: bool  # that response carried an ETag or a Last-Modified
    # Its last conditional request: answered 304 (True), with its whole body again
    # (False: the server ignores validators), or none yet (None).
    answers: bool | None = None


@dataclass(frozen=True, slots=True)
class Server:
    """What the source's documents said of conditional requests (any of them)."""

    answers: bool = False  # one answered 304
    ignores: bool = False  # one answered with its whole, unchanged body


@dataclass(frozen=True, slots=True)
class Credit:
    """A source's recheck budget, carried from run to run (bytes)."""

    bytes: int = 0
    idle: int = 0  # runs in a row that took no costly child while one waited


@dataclass(frozen=True, slots=True)
class Sample:
    """The children one run asks again, and what its credit becomes once it is known what
    they cost (:meth:`after`)."""

    urls: tuple[str, ...]
    have: int  # the credit of this run: the carried one and this run's share
    cap: int  # the most credit carried to the next run
    took_costly: bool  # a costly child was taken (or none waited)
    idle: int  # the idle runs before this one

    def after(self, spent: int) -> Credit:
        """The credit carried to the next run, the sample having received ``spent`` bytes."""
        return Credit(
            bytes=max(0, min(self.cap, self.have - spent)),
            idle=0 if self.took_costly else self.idle + 1,
        )


def choose(candidates: Iterable[Candidate], *, size: int, credit: Credit, server: Server) -> Sample:
    """The sample of a source of ``size`` bytes from ``candidates`` (the longest unchecked
    first), with ``credit`` carried from its last run."""
    share = int(size * RECHECK_SHARE)
    have = credit.bytes + share
    known = server.answers and not server.ignores
    taken: list[str] = []
    answering = probes = 0
    planned = 0  # the costly children's expected bytes
    first: Candidate | None = None  # the first costly child
    stopped = took = False
    for child in candidates:
        validated = child.validated and child.answers is not False
        if validated and (child.answers or known):
            if answering < RECHECK_ANSWERING:  # expected to answer 304: never costed by size
                taken.append(child.url)
                answering += 1
            continue
        if validated and not (probes or server.ignores) and answering < RECHECK_ANSWERING:
            taken.append(child.url)  # a probe: does this server answer 304?
            answering += 1
            probes = 1
            continue
        if not stopped:
            first = first or child
            cost = max(child.bytes, MIN_COST)
            if planned + cost <= have:
                taken.append(child.url)
                planned += cost
                took = True
            else:
                stopped = True  # the rotation's order stands: the rest wait too
        if stopped and answering >= RECHECK_ANSWERING:
            break
    if first is not None and not took and credit.idle + 1 >= RECHECK_EVERY:
        taken.append(first.url)  # the progress guarantee: one child every RECHECK_EVERY runs
        took = True
    return Sample(
        urls=tuple(taken),
        have=have,
        cap=share * RECHECK_EVERY,
        took_costly=took or first is None,
        idle=credit.idle,
    )
