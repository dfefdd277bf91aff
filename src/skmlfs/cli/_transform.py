"""``mlfs transform``: write a dataset reduced to the selected features, by a selector
fitted now or saved by ``mlfs select --save``."""

from __future__ import annotations

import argparse

from ._options import OUT_HELP, add_budget_options, add_data_options, add_dataset_argument

HELP = "write a dataset reduced to the selected features (ARFF+XML/CSV)"
RUN = "skmlfs.cli._run.transform:run"


def register(parser: argparse.ArgumentParser) -> None:
    add_dataset_argument(parser)
    parser.add_argument("--write", "-w", metavar="FILE", help=OUT_HELP + " (required)")
    parser.add_argument(
        "--out", "-o", dest="out_deprecated", metavar="FILE",
        help="deprecated spelling of --write (-o/--out names a command's result table, e.g. "
        "the ranking of mlfs select)",
    )
    parser.add_argument(
        "--model", metavar="MODEL",
        help="a selector saved by 'mlfs select --save MODEL' (joblib; load only files you "
        "trust); its features are kept. Without --model, --method selects on FILE itself. "
        "With --model, FILE needs no labels: label columns it has (those of the model, or "
        "named by --labels / --label-prefix) are carried through, absent ones are fine.",
    )
    parser.add_argument("--method", "-m", default=None, help="selection method (default: scls)")
    add_budget_options(parser)
    parser.add_argument(
        "--save", metavar="MODEL", help="also store the fitted selector (joblib) for later use"
    )
    add_data_options(parser)
