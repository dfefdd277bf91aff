"""``mlfs demo``: what feature selection buys, on data the project generates itself
(the tour: :mod:`skmlfs.cli._run.demo`)."""

from __future__ import annotations

import argparse

HELP = "run the main job on a generated dataset: select features, compare scores"
RUN = "skmlfs.cli._run.demo:run"


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seed", type=int, default=0, help="seed of the generated data (0)")
    parser.add_argument("--samples", type=int, default=600, help="patterns to generate (600)")
    parser.add_argument("--features", type=int, default=300, help="features to generate (300)")
    parser.add_argument("--labels", type=int, default=6, help="labels to generate (6)")
    parser.add_argument("-k", type=int, default=None,
                        help="features to select (default ceil(sqrt(#training patterns)), "
                             "the SCLS paper's choice)")
    parser.add_argument("--plot", default=None, metavar="PNG",
                        help="also write the curve Hamming loss vs number of selected "
                             "features (SCLS order and random order) to this PNG file")
