"""``mlfs report``: paper-style tables and figures from a results database."""

from __future__ import annotations

import argparse
import sqlite3
import sys
from pathlib import Path

from ...experiments import COMPRESSED_SUFFIXES, ResultStore, StoreError, readable_store
from ...experiments.report import write_report
from .common import check_export_paths


def run(args: argparse.Namespace) -> int:
    check_export_paths(args.export)  # before the work, not after it
    if args.alpha is not None and not 0 < args.alpha < 1:
        raise ValueError(f"--alpha {args.alpha}: a significance level between 0 and 1")
    if args.decimals is not None and args.decimals < 0:
        raise ValueError(f"--decimals {args.decimals}: a count of decimals (0 or more)")
    db = Path(args.db)
    if not db.exists():
        raise FileNotFoundError(f"results database {db} does not exist")
    # a shipped store is compressed (.db.xz): read from a temporary decompressed copy
    out = Path(args.out) if args.out else _without_suffixes(db)
    try:
        with readable_store(db) as plain:
            return _run(args, plain, out)
    except sqlite3.DatabaseError as exc:  # anything the store's own checks did not catch
        raise StoreError(f"{db}: {exc}") from None


def _without_suffixes(db: Path) -> Path:
    """``runs/x.db`` → ``runs/x``; ``x.db.xz`` → ``x``."""
    stem = db.with_suffix("") if db.suffix.lower() in COMPRESSED_SUFFIXES else db
    return stem.with_suffix("")


def _run(args: argparse.Namespace, db: Path, out: Path) -> int:
    opts = {k: v for k, v in (
        ("k", args.k), ("learner", args.learner), ("control", args.control),
        ("alpha", args.alpha), ("decimals", args.decimals),
        ("missing_rank", args.missing_rank),
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
