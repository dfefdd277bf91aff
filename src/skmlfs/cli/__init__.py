"""The ``mlfs`` command.

Each subcommand lives in its own private module exposing ``register(subparsers)``; the
module is imported only when its command runs, so ``mlfs --help`` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import sys

__all__ = ["main"]

# name -> (module, one-line help). Order = order in --help.
_COMMANDS = {
    "demo": ("_demo", "run the main job on a generated dataset: select features, compare scores"),
    "info": ("_info", "print the statistics table (Table 1 of the SCLS paper) of dataset files"),
    "select": ("_select", "rank and select features of a dataset with one method"),
    "evaluate": ("_evaluate", "compare selection methods with a learner over repeated splits"),
    "benchmark": ("_benchmark", "run an experiment file (resumable) and write its report"),
    "report": ("_report", "tables and figures from a results database"),
    "transform": ("_transform", "write a dataset reduced to the selected features (ARFF+XML/CSV)"),
    "fetch": ("_fetch", "download standard datasets by name (emotions, scene, ...) into a cache"),
    "methods": ("_methods", "list the selectors, learners and discretizers, with their papers"),
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
    from .. import __version__

    parser.add_argument("--version", action="version", version=f"scikit-mlfs {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, help_) in _COMMANDS.items():
        p = sub.add_parser(name, help=help_, description=help_)
        p.set_defaults(_module=module)
        _import(module).register(p)
    return parser


def _import(module: str):
    return importlib.import_module(f"{__name__}.{module}")


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``mlfs`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return 0
    from ._messages import print_error, warnings_for_the_command_line

    try:
        # Warnings as one "warning: ..." line each; advice in flags, not Python arguments.
        with warnings_for_the_command_line():
            return int(_import(args._module).run(args) or 0)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except (ValueError, FileNotFoundError, OSError) as exc:
        # User errors (bad file, bad option): one clear line, no traceback.
        print_error(args.command, exc)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
