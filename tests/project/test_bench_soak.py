"""The soak benchmark's accounting, on a tiny faulty site for about three seconds."""

from __future__ import annotations

import asyncio
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import _faulty_site  # found through the path set above
import bench_soak

# Seed 0 draws every fault category within the first 20 requests after the reference run.
SETTINGS = bench_soak.Settings(
    seconds=3.0,
    seed=0,
    sitemaps=8,
    min_urls=30,
    max_urls=120,
    fault_rate=0.25,
    read_timeout=0.3,
    connect_timeout=0.5,
    attempts=12,  # at a 25% rate a document is lost with odds of 6e-8
    backoff=0.01,
    max_backoff=0.1,
)


def test_soak_accounts_for_every_request_fault_and_url() -> None:
    """Runs under faults deliver the fault-free set, and requests and faults add up."""
    summary = asyncio.run(bench_soak.soak(SETTINGS, out=None))
    runs = summary["per_run"]
    assert len(runs) == summary["runs"] >= 2

    # The reference run found every URL the generator wrote.
    expected = summary["site"]["urls"]
    assert summary["reference"]["urls"] == expected == sum(SETTINGS.site().sizes())

    # Every request the reader sent reached the server, run by run.
    assert all(r["sent"] == r["seen"] > 0 for r in runs)
    server = summary["server"]
    assert server["not_found"] == 0
    assert server["requests"] == summary["reference"]["requests"] + summary["requests"]["seen"]

    # The faults the server counted are the seeded ones for the requests it numbered.
    first = summary["reference"]["requests"]
    predicted = Counter(
        fault[0]
        for n in range(first, server["requests"])
        if (fault := _faulty_site.fault_for(SETTINGS.seed, n, SETTINGS.fault_rate)) is not None
    )
    assert summary["faults"]["by_kind"] == dict(sorted(predicted.items()))
    assert server["faults"] == dict(predicted)
    assert all(n > 0 for n in summary["faults"]["by_category"].values())
    assert summary["faults"]["total"] == sum(r["faults"] for r in runs) > 0

    # After retries, every run delivered exactly the fault-free set.
    urls = summary["urls"]
    assert urls["runs_with_losses"] == 0
    assert urls["missing"] == urls["duplicates"] == urls["unexpected"] == 0
    assert all(r["delivered"] == expected and r["missing"] == 0 for r in runs)
    assert summary["problems"] == {}
    assert set(summary["statuses"]) == {"ok"}

    # Nothing is left behind by a run: no descriptor, no task.
    assert summary["fds"]["max"] == summary["fds"]["first"]
    assert summary["tasks_left"] == 0
