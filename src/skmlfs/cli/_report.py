"""``mlfs report``: paper-style tables and figures from a results database."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("db", help="results database written by 'mlfs benchmark' (any experiment: "
                   "one grid or a file with parts)")
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


def run(args: argparse.Namespace) -> int:
    import sqlite3

    from ..experiments import StoreError
    from ._common import check_export_paths

    check_export_paths(args.export)  # before the work, not after it
    if args.alpha is not None and not 0 < args.alpha < 1:
        raise ValueError(f"--alpha {args.alpha}: a significance level between 0 and 1")
    if args.decimals is not None and args.decimals < 0:
        raise ValueError(f"--decimals {args.decimals}: a count of decimals (0 or more)")
    db = Path(args.db)
    if not db.exists():
        raise FileNotFoundError(f"results database {db} does not exist")
    try:
        return _run(args, db)
    except sqlite3.DatabaseError as exc:  # anything the store's own checks did not catch
        raise StoreError(f"{db}: {exc}") from None


def _run(args: argparse.Namespace, db: Path) -> int:
    from ..experiments import ResultStore
    from ..experiments.report import write_report

    out = Path(args.out) if args.out else db.with_suffix("")
    opts = {k: v for k, v in (
        ("k", args.k), ("learner", args.learner), ("control", args.control),
        ("alpha", args.alpha), ("decimals", args.decimals),
        ("all_cells", args.all_cells or None),
        ("formats", [f.strip() for f in args.format.split(",") if f.strip()]
         if args.format else None),
    ) if v is not None}
    files = write_report(db, out, figures=not args.no_figures,
                         experiment_file=args.experiment, **opts)
    if args.export:
        with ResultStore(db, readonly=True) as store:
            for target in args.export:
                print(f"exported {store.export(target)}", file=sys.stderr)
    print(f"report: {files[-1]} ({len(files)} files)")
    return 0
