"""Argument definitions shared by several commands (standard library only: building the
parser must not import the library, see :mod:`skmlfs.cli._dispatch`)."""

from __future__ import annotations

import argparse

from ._dispatch import deferred_type

#: the argparse ``type`` of ``-k``: the budget grammar of the library, imported when ``-k``
#: is given (:func:`skmlfs.cli._run.common.budget_arg`)
BUDGET = deferred_type("skmlfs.cli._run.common:budget_arg")

OUT_HELP = (
    "reduced dataset to write: .arff (Mulan ARFF + XML label file beside it; sparse when "
    "the input is sparse), .csv, .tsv or .parquet"
)


class LabelPrefix(str):
    """The value of ``--label-prefix`` (stored in ``args.labels``, so every command gets it)."""


def add_labels_option(parser: argparse.ArgumentParser) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--labels",
        metavar="SPEC",
        help="label XML file, comma-separated label names, or a MEKA-style count "
        "(n > 0: first n attributes, n < 0: last n). Default: the XML file beside the "
        "ARFF, or -C n in a MEKA @relation.",
    )
    group.add_argument(
        "--label-prefix",
        dest="labels",
        type=LabelPrefix,
        metavar="PREFIX",
        help="instead of --labels: every column (or attribute) whose name starts with PREFIX "
        "is a label, e.g. y_ (CSV/TSV/Parquet tables need --labels a,b,c or --label-prefix)",
    )


def add_dataset_argument(parser: argparse.ArgumentParser, *, many: bool = False) -> None:
    """The positional dataset argument(s) of every command that reads one with
    :func:`skmlfs.cli._run.common.load_dataset` (``many``: one or more)."""
    what = "dataset files (ARFF, .mat, CSV/TSV, Parquet) or names" if many else (
        "dataset file (ARFF, .mat, CSV/TSV, Parquet) or name")
    parser.add_argument(
        "datasets" if many else "dataset", nargs="+" if many else None, metavar="FILE",
        help=f"{what}; a name is looked up in $MLFS_DATASETS, then in the `mlfs fetch` cache",
    )


def add_data_options(parser: argparse.ArgumentParser) -> None:
    """The options of every command that reads a dataset: ``--labels`` (which attributes
    are labels), ``--missing`` and ``--label-copies`` (the loaders' ``missing=`` and
    ``label_copies=``, which the library's advice names; see ``_messages.PYTHON_TO_CLI``).
    """
    add_labels_option(parser)
    parser.add_argument(
        "--missing", choices=["warn", "ignore", "raise"], default="warn",
        help="missing feature values ('?') in an ARFF file: keep them as NaN with a warning "
        "(default), without one, or stop at the first",
    )
    parser.add_argument(
        "--label-copies", choices=["warn", "drop", "keep"], default="warn",
        help="a .mat file whose last feature columns copy its labels: warn (default), drop "
        "the copies, or keep them silently",
    )


def add_progress_option(parser: argparse.ArgumentParser) -> None:
    """``--quiet``/``-q`` of every command that runs long work: progress is a bar on a
    terminal, a line every few seconds otherwise (:mod:`skmlfs._progress`), none with -q."""
    parser.add_argument(
        "--quiet", "-q", action="store_true",
        help="no progress (otherwise a bar on a terminal, a line every few seconds on a pipe)",
    )


def add_budget_options(parser: argparse.ArgumentParser) -> None:
    """``-k`` and ``--seed`` of the commands that select once (select, transform), and
    ``--quiet`` (their progress)."""
    add_progress_option(parser)
    parser.add_argument(
        # --n-features: the flag's former name, kept working
        "-k", "--n-features-to-select", "--n-features", dest="k", default=None,
        type=BUDGET,
        help="how many features: a count (20), a fraction (0.1), a percentage (10%%), "
        "'all', or 'sqrt' for ceil(sqrt(#patterns)), the SCLS paper's budget (default)",
    )
    parser.add_argument(
        "--seed", type=int, default=0,
        help="random seed of stochastic methods (those marked * by `mlfs methods`; 0)",
    )


def add_output_options(parser: argparse.ArgumentParser) -> None:
    """``--save MODEL`` and ``--write FILE`` for ``mlfs select``."""
    parser.add_argument(
        "--save", metavar="MODEL",
        help="store the fitted selector with the feature names (joblib, e.g. model.joblib); "
        "apply it to new data with 'mlfs transform DATA --model MODEL --write OUT'",
    )
    parser.add_argument("--write", "-w", metavar="FILE", help=OUT_HELP)
