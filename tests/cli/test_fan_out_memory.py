"""The command line's memory on a hostile fan-out, measured as the kernel counts it.

An index names 50,000 children, each an index naming 50,000 more, without end; every
document is cut when the sitemap budget is spent, so the run reads one partial document
after another. Memory must stay bounded by the work in flight, not grow with the documents
read: once, every document the compiled core left unfinished kept its reader and buffers
(a reference cycle the collector could not see), and ``dump`` peaked at 1.5 GB after 1.9 GB
read. ``tree`` keeps one report per document, which the sitemap budget bounds.

The run is bounded by bytes (``--max-total-bytes``), not by time, so a busy machine reads
the same documents, only slower. The peak is the subprocess's own (its VmHWM, see ``_RUN``).
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from sitemap_reader._core._pure import PURE_ENV
from sitemap_reader._core._xml._core_choice import COMPILED
from tests.support.hostile import fan_out, hostile_site
from tests.support.http_site import ThreadedServer

MB = 1_000_000
BOUND = 100 * MB  # the bound, for either core and either command
READ = "300M"  # about 300 documents cut: with the leak, 250 MB and more were kept

CORES = [
    pytest.param("", marks=pytest.mark.skipif(not COMPILED, reason="no compiled core")),
    pytest.param("1", id="pure"),
]


# The peak is read by the run itself as it exits: VmHWM, the high-water mark of its own
# address space. Not getrusage's ru_maxrss: exec keeps the highest RSS the process had
# before, and a child forked (or vforked) from this test process starts at this process's
# RSS, which a long test session makes hundreds of MB.
_RUN = """
import atexit, runpy, sys

def peak():
    with open("/proc/self/status") as status:
        kib = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
    sys.stderr.write(f"peak-rss-kib {kib}\\n")

atexit.register(peak)
sys.argv[0] = "sitemap-reader"
runpy.run_module("sitemap_reader", run_name="__main__", alter_sys=True)
"""


def _peak_rss(argv: list[str], pure: str) -> tuple[int, int, str]:
    """Run ``sitemap-reader ARGV``: its exit status, peak RSS in bytes and stderr."""
    env = {**os.environ, PURE_ENV: pure, "PYTHONIOENCODING": "utf-8"}
    run = subprocess.run(
        [sys.executable, "-c", _RUN, *argv],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
        timeout=300,  # a hang guard: the run's --deadline ends it long before
        check=False,
    )
    err = run.stderr.decode()
    kib = int(err.rsplit("peak-rss-kib ", 1)[1].split()[0])
    return run.returncode, kib * 1024, err


@pytest.mark.parametrize("pure", CORES)
@pytest.mark.parametrize("command", ["dump", "tree"])
def test_memory_stays_flat_on_an_endless_fan_out_of_indexes(command: str, pure: str) -> None:
    site = hostile_site()
    with ThreadedServer(site) as s:
        s.add("/fan/*", fan_out(s.a(""), "/fan/", 50_000))
        argv = [command, s.a("/fan/0.xml"), "--max-depth", "3", "--timeout", "5"]
        argv += ["--max-total-bytes", READ, "--deadline", "120", "--no-progress"]
        code, peak, err = _peak_rss(argv, pure)

    text = err
    summary = next(line for line in text.splitlines() if " read in " in line)
    assert code == 0, text[-2000:]
    assert "deadline" not in text, text[-2000:]  # cut by the byte budget, not by time
    # Enough documents were left unfinished that a leak of each would pass the bound.
    read = int(summary.split(" from ", 1)[1].split(" sitemaps", 1)[0].replace(",", ""))
    megabytes = float(summary.split(" MB read", 1)[0].rsplit(" ", 1)[1].replace(",", ""))
    assert read >= 100 and megabytes >= 250, summary
    assert peak < BOUND, f"peak RSS {peak / MB:.1f} MB: {summary}"
