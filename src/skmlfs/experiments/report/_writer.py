"""One writer for every store: single-grid experiments and files with parts."""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path
from typing import Any

from .._parts import load_parts, parts_from_dict
from .._store import ResultStore
from ._multipart import write_parts_report
from ._single import write_report as write_grid

__all__ = ["write_report"]


def _multipart_names(meta: dict) -> list[str]:
    return [k.split(":", 1)[1] for k in meta if k.startswith("parts:")]


def write_report(db: Any, out_dir: str | os.PathLike, *, experiment_file: Any = None,
                 figures: bool = True, command: str | None = None, **options: Any
                 ) -> list[Path]:
    """Write the report of a results store (or a results DataFrame) into ``out_dir``.

    A store of a file with parts (``[[part]]``) gets the sections its ``[report]``
    declares; any other store (or frame) the single-grid report: the overview, the metric
    tables with ranks, Friedman test and CD diagrams, the paired tests, curves, the
    declared sections, run time and memory, runs and failures. Both are lists of
    :class:`~skmlfs.experiments.report.ReportSection` rendered with one number format
    and one rule for metric directions.

    Parameters
    ----------
    db : path, ResultStore or DataFrame
    out_dir : path
    experiment_file : path, optional
        A multi-part experiment file, for a store written before the store kept the file
        it ran.
    figures : bool, default=True
    command : str, optional
        The command line shown in a multi-part report's header.
    **options
        Of the single-grid report: ``formats``, ``k``, ``learner``, ``control``,
        ``alpha``, ``decimals``, ``cell_ids``, ``experiment``, ``title``, ``all_cells``,
        ``columns``, ``sections`` (:func:`skmlfs.experiments.report._grid.write_report`).

    Returns
    -------
    list of Path
        The files written, README.md last.
    """
    if hasattr(db, "columns"):
        return write_grid(db, out_dir, figures=figures, **options)

    store = db if isinstance(db, ResultStore) else ResultStore(db, readonly=True)
    try:
        meta = dict(store._conn.execute("SELECT key, value FROM meta").fetchall())
        names = _multipart_names(meta)
        if not names and experiment_file is None:
            return write_grid(store, out_dir, figures=figures, **options)

        if experiment_file is not None:
            # the report reads the store alone: the data files need not be here
            ep = load_parts(experiment_file, check_files=False)
        else:
            if len(names) > 1:
                raise ValueError(f"{store.path}: the store holds several experiments with "
                                 f"parts ({', '.join(names)}); report one with its file.")
            raw = meta.get(f"parts_file:{names[0]}")
            if raw is None:
                raise ValueError(
                    f"{store.path}: the multi-part experiment {names[0]!r} was run before "
                    "the store kept its file; give the experiment file (mlfs report DB "
                    "--experiment FILE).")
            f = json.loads(raw)
            path = Path(f["path"])
            ep = parts_from_dict(tomllib.loads(f["text"]), source=str(path),
                                 base_dir=str(path.resolve().parent), check_files=False)
            object.__setattr__(ep, "text", f["text"])
        bad = set(options) - {"formats"}
        if bad:
            raise ValueError(f"options of the single-grid report ({', '.join(sorted(bad))}) "
                             f"do not apply to the multi-part experiment {ep.name!r}.")
        return write_parts_report(store, out_dir, ep, figures=figures,
                                  command=command or f"mlfs report {store.path}")
    finally:
        if store is not db:
            store.close()
