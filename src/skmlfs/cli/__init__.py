"""The ``mlfs`` command.

Each subcommand has a parser module here (``_select.py``, ...: its help line ``HELP``, its
arguments ``register(parser)`` and ``RUN``, the ``"module:function"`` that does the work)
that imports the standard library alone, and a module under :mod:`skmlfs.cli._run` that
does the work with ordinary module-level imports. :func:`main` imports the latter only
when its command runs (:func:`skmlfs.cli._dispatch.load`, the one deferred import of the
command line), so that ``mlfs --help`` and an argument error answer at once.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import threading
from collections.abc import Iterator

from .. import __version__
from . import (
    _benchmark,
    _demo,
    _evaluate,
    _fetch,
    _info,
    _merge,
    _methods,
    _report,
    _select,
    _transform,
)
from ._dispatch import load
from ._messages import print_error, warnings_for_the_command_line

__all__ = ["main"]

# name -> parser module. Order = order in --help.
_COMMANDS = {
    "demo": _demo,
    "info": _info,
    "select": _select,
    "evaluate": _evaluate,
    "benchmark": _benchmark,
    "report": _report,
    "merge": _merge,
    "transform": _transform,
    "fetch": _fetch,
    "methods": _methods,
}

_DESCRIPTION = """\
scikit-mlfs: feature selection for multi-label data.

Typical use:
  mlfs demo                                   # no input needed: a 10-second tour
  mlfs info data/emotions.arff                # what is in a dataset
  mlfs select data/enron.arff --method scls -k 20 --out ranking.csv
  mlfs evaluate data/enron.arff --methods scls,ami,mdmr --learner mlnb --repeats 10
  mlfs benchmark experiments/scls_paper.toml  # a whole paper's comparison, resumable
  mlfs report runs/scls_paper.db              # tables + CD diagrams from the results
  mlfs merge runs/all.db machine1.db machine2.db  # results computed apart, in one database
  mlfs fetch emotions                         # download a standard dataset, then use its name
  mlfs select my.csv --label-prefix y_ -k 20 --save model.joblib
  mlfs transform new.csv --model model.joblib --write new_reduced.arff  # no labels needed
  mlfs methods                                # every method name, with its paper

Datasets: Mulan ARFF (+ XML label file beside it), MEKA ARFF, sparse ARFF, MATLAB .mat.
A dataset can also be given by name (e.g. "emotions") when MLFS_DATASETS points to a
folder holding mulan/<name>/ subfolders.
Tables: CSV, TSV, Parquet, with the label columns named by --labels a,b,c or --label-prefix.
Names are looked up in $MLFS_DATASETS, then in the cache of 'mlfs fetch' ($MLFS_DATA_HOME,
default ~/scikit_mlfs_data).
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mlfs", description=_DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--version", action="version", version=f"scikit-mlfs {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module in _COMMANDS.items():
        p = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.register(p)
        p.set_defaults(_run=module.RUN)
    return parser


@contextlib.contextmanager
def _termination_as_interrupt() -> Iterator[list[int]]:
    """Within the block a SIGTERM stops the command as Ctrl-C does (``kill PID``, a batch
    scheduler's time limit, ``docker stop``): a run stores what it finished, logs itself
    as interrupted and says how to resume, instead of dying between two cells. Yields
    the list the handler appends to, so that the exit code can say which signal came. A
    SIGTERM handled or ignored by the caller's process is left as it is."""
    got: list[int] = []
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL):
        yield got
        return

    def stop(signum: int, frame: object) -> None:
        got.append(signum)
        if len(got) == 1:  # once: `timeout` signals the command, then its process group
            raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    try:
        yield got
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``mlfs`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return 0
    with _termination_as_interrupt() as terminated:
        try:
            # Warnings as one "warning: ..." line each; advice in flags, not Python
            # arguments.
            with warnings_for_the_command_line():
                return int(load(args._run)(args) or 0)
        except KeyboardInterrupt:
            if terminated:  # the shell's code for a process ended by SIGTERM
                print("\nterminated", file=sys.stderr)
                return 128 + signal.SIGTERM
            print("\ninterrupted", file=sys.stderr)
            return 130
        except (ValueError, FileNotFoundError, OSError) as exc:
            # User errors (bad file, bad option): one clear line, no traceback.
            print_error(args.command, exc)
            return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
