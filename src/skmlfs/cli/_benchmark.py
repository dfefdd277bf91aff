"""``mlfs benchmark``: run an experiment file (resumable), then write its report."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("experiment", help="experiment TOML file (see skmlfs.experiments)")
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
        "(starts a LocalCluster on this machine)",
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


def run(args: argparse.Namespace) -> int:
    from ..experiments import ResultStore, load_experiment, run_experiment

    spec = load_experiment(args.experiment)
    db = Path(args.db) if args.db else Path("runs") / f"{spec.name}.db"
    out = Path(args.out) if args.out else db.with_suffix("")
    verbose = not args.quiet
    with ResultStore(db, synchronous="FULL" if args.durable else "NORMAL") as store:
        summary = run_experiment(
            spec, store, n_jobs=args.jobs, dask=args.dask,
            progress=False if args.quiet else None, verbose=verbose,
        )
        for target in args.export:
            p = store.export(target)
            if verbose:
                print(f"exported {p}", file=sys.stderr)
    if not args.no_report:
        from ..experiments._report import write_report

        files = write_report(
            db, out, figures=not args.no_figures, cell_ids=summary.cell_ids,
            experiment=spec.name, **_report_options(spec),
        )
        print(f"report: {files[-1]}")
    return 1 if summary.n_failed_tasks else 0


def _report_options(spec) -> dict:
    opts = {}
    for key in ("control", "decimals", "alpha"):
        if key in spec.report:
            opts[key] = spec.report[key]
    return opts
