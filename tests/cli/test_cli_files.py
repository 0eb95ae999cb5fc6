"""Where ``dump`` writes, as a real process: the ``-o`` file's permissions (the umask's for a
new file, the old file's kept), an ``-o`` file replaced only by a run that read something,
an ``-o`` that cannot be written refused before the site is read, and a write that fails
(a full device, a file too large) told in one line."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.support.http_site import Served, ThreadedServer, text_sitemap, urlset, xml

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX modes, devices and limits")

FORMATS = ("jsonl", "parquet")
PREVIOUS = b"the last good output\n"


def run_cli(
    *argv: str,
    cwd: Path,
    umask: int = 0o022,
    stdout: int | None = subprocess.DEVNULL,
    preexec_fn: Callable[[], None] | None = None,
) -> tuple[int, str]:
    """``python -m sitemap_reader ARGV`` with ``umask``: its exit status and stderr."""
    done = subprocess.run(
        [sys.executable, "-m", "sitemap_reader", *argv],
        cwd=cwd,
        umask=umask,
        stdout=stdout,
        stderr=subprocess.PIPE,
        preexec_fn=preexec_fn,
        timeout=60,
        check=False,
    )
    return done.returncode, done.stderr.decode()


@pytest.fixture
def sitemap(tmp_path: Path) -> str:
    (tmp_path / "sitemap.xml").write_text(urlset("https://e.example/a", "https://e.example/b"))
    return "sitemap.xml"


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def leftovers(folder: Path) -> list[str]:
    return [p.name for p in folder.iterdir() if p.name.startswith(".sitemap-reader-")]


# -- permissions --------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("umask", [0o022, 0o002, 0o077], ids=oct)
def test_a_new_output_file_gets_the_mode_of_the_umask(
    tmp_path: Path, sitemap: str, fmt: str, umask: int
) -> None:
    status, err = run_cli("dump", sitemap, "-o", "out", "--format", fmt, cwd=tmp_path, umask=umask)

    assert status == 0, err
    assert mode(tmp_path / "out") == 0o666 & ~umask


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_replaced_output_file_keeps_its_mode(tmp_path: Path, sitemap: str, fmt: str) -> None:
    target = tmp_path / "out"
    target.write_bytes(PREVIOUS)
    target.chmod(0o640)

    status, err = run_cli("dump", sitemap, "-o", "out", "--format", fmt, cwd=tmp_path)

    assert status == 0, err
    assert target.read_bytes() != PREVIOUS
    assert mode(target) == 0o640


# -- a run that read nothing --------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_run_that_read_nothing_leaves_the_output_file_as_it_was(tmp_path: Path, fmt: str) -> None:
    target = tmp_path / "out"
    target.write_bytes(PREVIOUS)

    status, err = run_cli("dump", "missing.xml", "-o", "out", "--format", fmt, cwd=tmp_path)
    new_status, _ = run_cli("dump", "missing.xml", "-o", "new", "--format", fmt, cwd=tmp_path)

    assert status == 1 and new_status == 1
    assert target.read_bytes() == PREVIOUS
    assert not (tmp_path / "new").exists()
    assert leftovers(tmp_path) == []
    assert err.splitlines()[-1] == "sitemap-reader: nothing was read: out was left as it was"


# -- an -o that cannot be written ---------------------------------------------------------------


@pytest.fixture
def served() -> Iterator[Served]:
    with ThreadedServer() as served:
        served.add("/sitemap.xml", xml(urlset(served.a("/a"))))
        yield served


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(
    ("target", "cause"),
    [("nowhere/x.out", "the directory {dir}/nowhere does not exist"), ("adir", "Is a directory")],
    ids=["missing-directory", "a-directory"],
)
def test_an_output_that_cannot_be_written_is_refused_before_reading(
    served: Served, tmp_path: Path, fmt: str, target: str, cause: str
) -> None:
    (tmp_path / "adir").mkdir()

    status, err = run_cli(
        "dump", served.a("/sitemap.xml"), "-o", target, "--format", fmt, cwd=tmp_path
    )

    assert status == 2
    assert err.splitlines() == [
        f"sitemap-reader: cannot write -o {target}: {cause.format(dir=tmp_path)}"
    ]
    assert served.site.hits == []  # refused before the site was read
    assert os.listdir(tmp_path / "adir") == [] and leftovers(tmp_path) == []


# -- writes that fail -----------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ("jsonl", "csv"))
def test_an_output_that_is_no_regular_file_is_written_in_place(
    tmp_path: Path, sitemap: str, fmt: str
) -> None:
    # -o /dev/null must not put a regular file where the device was; a FIFO stands for
    # any such target (the test cannot risk the machine's /dev/null).
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # the writer's open does not wait
    try:
        status, err = run_cli(
            "dump", "--quiet", "--format", fmt, sitemap, "-o", "fifo", cwd=tmp_path
        )
        written = os.read(reader, 65536)
    finally:
        os.close(reader)

    assert (status, err) == (0, "")
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert b"https://e.example/b" in written
    assert leftovers(tmp_path) == []


@pytest.fixture
def big(tmp_path: Path) -> str:
    """A text sitemap of 20,000 URLs (over 500 kB as jsonl)."""
    locs = (f"https://e.example/page/{i}" for i in range(20_000))
    (tmp_path / "big.txt").write_text(text_sitemap(*locs))
    return "big.txt"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize(
    "argv", [("dump", "--format", "jsonl"), ("dump", "--format", "csv"), ("tree",)], ids=" ".join
)
def test_a_full_device_on_stdout_is_one_line_and_exit_1(
    tmp_path: Path, big: str, argv: tuple[str, ...]
) -> None:
    with open("/dev/full", "wb") as full:
        status, err = run_cli(*argv, "--quiet", big, cwd=tmp_path, stdout=full.fileno())

    assert status == 1
    assert err.splitlines() == ["sitemap-reader: cannot write stdout: No space left on device"]


def _file_size_limit() -> None:
    """In the child: files may not grow past 10 kB (EFBIG, as a full device gives ENOSPC)."""
    import resource

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG rather than death by signal
    resource.setrlimit(resource.RLIMIT_FSIZE, (10_000, 10_000))


@pytest.mark.parametrize("fmt", FORMATS)
def test_an_output_file_that_cannot_grow_is_left_as_it_was(
    tmp_path: Path, big: str, fmt: str
) -> None:
    target = tmp_path / "out"
    target.write_bytes(PREVIOUS)

    status, err = run_cli(
        "dump",
        "--quiet",
        big,
        "-o",
        "out",
        "--format",
        fmt,
        cwd=tmp_path,
        preexec_fn=_file_size_limit,
    )

    assert status == 1
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("sitemap-reader: cannot write out: ")
    assert "File too large" in lines[0]
    assert target.read_bytes() == PREVIOUS
    assert leftovers(tmp_path) == []
