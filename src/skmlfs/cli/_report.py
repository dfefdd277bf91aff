"""``mlfs report``: paper-style tables and figures from a results database."""

from __future__ import annotations

import argparse

HELP = "tables and figures from a results database"
RUN = "skmlfs.cli._run.report:run"


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("db", help="results database written by 'mlfs benchmark' (any experiment: "
                   "one grid or a file with parts); .xz, .gz or .bz2 files are read as they are")
    p.add_argument("--out", help="output folder; default: the database path without .db")
    p.add_argument(
        "--format", default=None,
        help="table formats, comma-separated among md, latex, csv (default all)",
    )
    p.add_argument("--no-figures", action="store_true", help="tables only")
    p.add_argument(
        "-k", type=int, default=None,
        help="report one feature budget (default: each method's only budget, or the mean "
        "over its budgets)",
    )
    p.add_argument("--learner", help="report one learner (default: one table per learner)")
    p.add_argument(
        "--control", help="method compared with all others (Bonferroni-Dunn CD); default "
        "all pairs (Nemenyi), or the experiment's [report] control",
    )
    p.add_argument("--alpha", type=float, default=None,
                   help="significance level (default: the experiment's [report] alpha, or 0.05)")
    p.add_argument("--decimals", type=int, default=None,
                   help="printed decimals (default: the experiment's [report] decimals, or 3)")
    p.add_argument(
        "--missing-rank", choices=("drop", "last"), default=None,
        help="a method without a value on a data set (failed or stopped there): 'drop' "
        "ranks over the data sets where every method has a value, 'last' ranks it last "
        "there (default: the experiment's [report] missing_rank, or 'drop')",
    )
    p.add_argument(
        "--all-cells", action="store_true",
        help="report every cell in the database (default: the cells of the latest run of "
        "each experiment in it, leaving out those of earlier versions of its file)",
    )
    p.add_argument(
        "--experiment", metavar="FILE",
        help="the experiment file of a store with parts written before stores kept it",
    )
    p.add_argument("--export", metavar="FILE", action="append", default=[],
                   help="also export every cell to FILE (.csv or .parquet); repeatable")
