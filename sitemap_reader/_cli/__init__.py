"""The command line: ``sitemap-reader dump``, ``tree``, ``check`` and ``state show``; this
module parses the arguments, hands them to the command they name and turns its outcome into an
exit status.

A thin client of the public API: it imports the public names of ``sitemap_reader``, plus the
glue the package shares (``run_blocking``, the checks of ``_sources``, the writers beside
``entry_to_dict``, ``Replacement``, the check outputs and report page, ``plural``). stdout carries records only; problems, progress and the summary go to
stderr. Exit status: 0 when a source was read (even in part) or found unchanged, and when the
reader of stdout went away (``| head``); 1 when none could be, or the records could not be
written (``check``: 1 when a finding reaches ``--fail-on``); 2 for a usage error (a state file
or an ``-o`` file that cannot be used included); 130 on Ctrl-C, 143 on SIGTERM. A usage error
prints the command's own one-line usage and one error line.

The layout: ``_dump``, ``_tree``, ``_check`` and ``_state`` hold one command each (``register``
its parser, ``run`` it); ``_options`` declares the options they share and builds the config;
``_run`` is the one loop that drives a walk for any command; ``_console`` writes progress,
problems and the summary; ``_explain`` tells check's codes (``check --explain``,
``--codes``); ``_output`` is where ``dump``'s records go (stdout, or ``-o``
written whole) and how a failed write is told; ``_signals`` makes SIGTERM stop a run as
Ctrl-C does. Registering a command loads no more than its options need: what it runs with
(the walk, ``check``'s findings and report page) is imported in its ``run``, so each command
loads what it uses and a local dump loads no HTTP machinery (``tests/cli/test_cli_startup.py``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import sitemap_reader as sr

from . import _check, _dump, _signals, _state, _tree
from ._options import UsageError
from ._output import OutputError, drop_stdout


class _Version(argparse.Action):
    """``--version``, naming the cores that run (the compiled one is far faster, so a report
    must say which it was); the chooser (``_core_choice``) is imported only when asked for."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS) -> None:
        super().__init__(
            option_strings,
            dest,
            nargs=0,
            default=argparse.SUPPRESS,
            help="show program's version number and exit",
        )

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        from .._core._xml import _core_choice

        print(f"{parser.prog} {sr.__version__} ({_core_choice.describe()})")
        parser.exit()


def main(argv: Sequence[str] | None = None) -> int:
    parser = _build_parser()
    args, unknown = parser.parse_known_args(argv)
    command: argparse.ArgumentParser = args.parser  # the one named last: its usage, its help
    if unknown:  # said by the command, as its other errors are
        command.error(f"unrecognized arguments: {' '.join(unknown)}")
    if args.run is None:  # no command, or a command with no action
        command.print_help(sys.stderr)
        return 2
    try:
        return int(args.run(args))
    except UsageError as exc:
        command.error(str(exc))
    except sr.StateError as exc:
        print(f"sitemap-reader: {exc}", file=sys.stderr)
        return 2
    except OutputError as exc:
        print(f"sitemap-reader: {exc}", file=sys.stderr)
        return exc.status
    except KeyboardInterrupt:
        status, line = _signals.interrupted()
        print(line, file=sys.stderr)
        return status
    except BrokenPipeError:
        # The reader of stdout went away (| head): not an error of ours.
        drop_stdout()
        return 0


def entrypoint() -> None:
    _signals.stop_on_sigterm()
    sys.exit(main(sys.argv[1:]))


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sitemap-reader",
        description="Read a site's sitemaps (robots.txt, indexes, XML, text, feeds, gzip) "
        "and print one record per page URL.",
        epilog="Each command's --help gives its options and exit statuses.",
    )
    parser.add_argument("--version", action=_Version)
    parser.set_defaults(run=None, parser=parser)  # each command (or action) sets its own
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")
    for command in (_dump, _tree, _check, _state):
        command.register(commands)
    return parser
