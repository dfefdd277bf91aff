"""``mlfs select``: rank and select the features of one dataset."""

from __future__ import annotations

import argparse

from ._options import (
    add_budget_options,
    add_data_options,
    add_dataset_argument,
    add_output_options,
)

HELP = "rank and select features of a dataset with one method"
RUN = "skmlfs.cli._run.select:run"


def register(parser: argparse.ArgumentParser) -> None:
    add_dataset_argument(parser)
    parser.add_argument(
        "--method", "-m", default="scls",
        help="selection method: scls (default), ami, mdmr, gics, relieff-ml, memetic, ... "
        "(`mlfs methods` lists them all)",
    )
    add_budget_options(parser)
    parser.add_argument(
        "--out", "-o", metavar="FILE",
        help="write the ranking table (every ranked feature) to FILE: .csv, .tsv, .json or "
        ".parquet (by its extension)",
    )
    parser.add_argument(
        "--full-ranking", action="store_true",
        help="print every ranked feature (default: the selected ones; methods that weight "
        "every feature rank them all)",
    )
    add_data_options(parser)
    add_output_options(parser)
