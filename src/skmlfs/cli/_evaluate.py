"""``mlfs evaluate``: compare selectors with a learner over repeated splits of one dataset."""

from __future__ import annotations

import argparse

from ._options import BUDGET, add_data_options, add_dataset_argument, add_progress_option

HELP = "compare selection methods with a learner over repeated splits"
RUN = "skmlfs.cli._run.evaluate:run"


def register(parser: argparse.ArgumentParser) -> None:
    add_dataset_argument(parser)
    parser.add_argument(
        "--methods", default="scls,ami,mdmr",
        help="comma-separated selection methods (default: scls,ami,mdmr; 'all' = no "
        "selection; `mlfs methods` lists them all)",
    )
    parser.add_argument(
        "--learner", default="mlnb",
        help="learner (default: mlnb; also mlknn, br, cc, occ, ...: see `mlfs methods`)",
    )
    parser.add_argument(
        "--protocol", choices=["holdout", "kfold", "mat"], default=None,
        help="holdout: repeated random train/test splits (default for ARFF); kfold; mat: the "
        "splits stored in a .mat file's sim_seq (default for .mat files that have them)",
    )
    parser.add_argument("--repeats", type=int, default=10, help="holdout repetitions (10)")
    parser.add_argument("--test-size", type=float, default=0.2, help="holdout test fraction (0.2)")
    parser.add_argument("--folds", type=int, default=5, help="k for --protocol kfold (5)")
    parser.add_argument(
        # --n-features: the flag's former name, kept working
        "-k", "--n-features-to-select", "--n-features", dest="k", default=None,
        type=BUDGET,
        help="features to select: a count (20), a fraction (0.1), a percentage (10%%), 'all', "
        "'sqrt' = ceil(sqrt(#patterns)) (the default), or budgets such as '5..20:5' or "
        "'1%%..5%%'",
    )
    parser.add_argument(
        "--metrics", default="hamming_loss,ranking_loss,normalized_coverage",
        help="comma-separated metrics (default: the SCLS paper's three); scikit-learn's "
        "names (f1_micro, f1_macro, accuracy, ...) are accepted too",
    )
    parser.add_argument(
        "--discretizer", default="none", metavar="NAME",
        help="none (default): the learner receives the selected columns as they are in FILE, "
        "as in make_pipeline(selector, learner); auto, laim, equal_width, equal_frequency, "
        "mean_std: discretize each training part first, so that selector and learner both "
        "see the discretized data (make_pipeline(discretizer, selector, learner); the SCLS "
        "paper's setting is auto)",
    )
    parser.add_argument(
        "--seed", type=int, default=0,
        help="random seed of the splits and of stochastic methods (marked * by `mlfs "
        "methods`) (0)",
    )
    parser.add_argument("--jobs", type=int, default=1, help="parallel workers (1)")
    parser.add_argument(
        "--out", metavar="FILE",
        help="write the per-split results to FILE: .csv, .tsv, .json or .parquet (by its "
        "extension)",
    )
    add_progress_option(parser)
    add_data_options(parser)
