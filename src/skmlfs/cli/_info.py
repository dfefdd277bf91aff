"""``mlfs info``: the statistics table of dataset files."""

from __future__ import annotations

import argparse

from ._options import add_data_options, add_dataset_argument

HELP = "print the statistics table (Table 1 of the SCLS paper) of dataset files"
RUN = "skmlfs.cli._run.info:run"


def register(parser: argparse.ArgumentParser) -> None:
    parser.epilog = (
        "Columns: Patterns (|W| in Table 1 of the SCLS paper), Features (|F|), Type, Labels "
        "(|L|), Cardinality (mean number of labels per pattern), Density (Cardinality / "
        "Labels), Label sets (distinct label combinations)."
    )
    add_dataset_argument(parser, many=True)
    add_data_options(parser)
