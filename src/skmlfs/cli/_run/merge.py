"""``mlfs merge``: add the cells, rankings, task resources, run log and failures of other
results databases to one (:meth:`skmlfs.experiments.ResultStore.merge`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from ...experiments import ResultStore, readable_store


def run(args: argparse.Namespace) -> int:
    db = Path(args.db)
    sources = [Path(s) for s in args.sources]
    for s in sources:  # every input checked before the first is merged
        if not s.exists():
            raise FileNotFoundError(f"results database {s} does not exist")
    with ResultStore(db) as store:
        for s in sources:
            with readable_store(s, tmp_dir=db.parent) as plain:
                got = store.merge(plain)
            print(f"{s}: {_summary(got)}")
        print(f"{db}: {store.n_cells()} cells")
    return 0


def _summary(got: dict[str, int]) -> str:
    line = f"{got['cells']} cells and {got['rankings']} rankings added"
    kept = got["cells_kept"] + got["rankings_kept"]
    if kept:
        line += (f"; {got['cells_kept']} cells and {got['rankings_kept']} rankings were "
                 "already there and kept")
        differ = got["cells_differ"] + got["rankings_differ"]
        if differ:
            line += (f" ({got['cells_differ']} cells and {got['rankings_differ']} rankings "
                     "with other values: computed twice, e.g. on other processors)")
    extra = [f"{got[k]} {k}" for k in ("runs", "failures") if got[k]]
    if extra:
        line += "; run log: " + ", ".join(extra)
    return line
