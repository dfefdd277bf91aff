"""``mlfs benchmark``: run an experiment file (resumable), then write its report."""

from __future__ import annotations

import argparse

HELP = "run an experiment file (resumable) and write its report"
RUN = "skmlfs.cli._run.benchmark:run"


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "experiment",
        help="experiment TOML file (schema: docs/experiment_file.md); experiments/ holds "
        "one per paper",
    )
    p.add_argument(
        "--db", help="results database (SQLite); default runs/<experiment name>.db. "
        "Re-running the same command resumes: finished cells are not recomputed."
    )
    p.add_argument("--out", help="report folder; default: the database path without .db")
    p.add_argument(
        "-j", "--jobs", type=int, default=1,
        help="parallel workers (joblib processes, or Dask workers with --dask local); "
        "-1 = all cores (default 1 = serial)",
    )
    p.add_argument(
        "--dask", metavar="ADDRESS",
        help="run on a Dask cluster: a scheduler address (tcp://host:8786) or 'local' "
        "(starts a LocalCluster on this machine). Workers read the dataset files "
        "themselves at the paths this machine resolves (shared file system); only this "
        'process writes the database. Needs pip install "scikit-mlfs[distributed]"',
    )
    p.add_argument(
        "--seed", type=int, default=None,
        help="override the experiment file's seed (its splits and every stochastic method "
        "left unseeded); a new seed gives new cells in the database",
    )
    p.add_argument(
        "--time-limit", metavar="DURATION",
        help="override the file's time_limit: how long one task (one selector on one "
        "split, with its learners) may take, e.g. '30 min', '2 h', 3600 (seconds) or "
        "'none'. A stopped task is reported as a failure and not retried under the same "
        "or a shorter limit; cell ids do not depend on it",
    )
    p.add_argument(
        "--datasets", metavar="NAMES",
        help="run only these data sets of the file (comma-separated names): a reduced run, "
        "e.g. to check a long experiment end to end; its cells are those of the full run "
        "(use another --db and --out so that a full report is not overwritten)",
    )
    p.add_argument(
        "--selectors", metavar="NAMES",
        help="run only these selectors of the file (comma-separated names; of every part "
        "of a file with [[part]] tables)",
    )
    p.add_argument(
        "--add-selector", metavar="NAME=MODULE:CLASS", action="append", default=[],
        help="add your own selector to the file's grid under NAME, e.g. "
        "mine=mypkg.selectors:MySelector (any scikit-learn selector with "
        "n_features_to_select; importable by the workers, e.g. installed or on "
        "PYTHONPATH); repeatable. It is run and reported beside every selector of the file "
        "(of every part of a file with [[part]] tables)",
    )
    p.add_argument(
        "--parts", metavar="NAMES",
        help="multi-part files ([[part]] tables): comma-separated parts to run (default "
        "all); the report uses every part stored",
    )
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar or messages")
    p.add_argument("--no-report", action="store_true", help="only run; write no report")
    p.add_argument("--no-figures", action="store_true", help="report tables only")
    p.add_argument(
        "--export", metavar="FILE", action="append", default=[],
        help="also export every cell to FILE (.csv or .parquet); repeatable",
    )
    p.add_argument(
        "--durable", action="store_true",
        help="fsync every cell (SQLite synchronous=FULL): survives power loss, not only "
        "the death of the process",
    )
