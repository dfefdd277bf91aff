"""The report of a single-grid experiment: the frame of generic sections around the
declared ones."""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .._sensitivity import split_sensitivity
from .._spec import STORED_REPORT_KEYS
from ._format import NumberFormat
from ._grid import _choice, _read_store, metric_tables
from ._section import Rendered, ReportContext
from ._stored import frame_sections, stored_sections

__all__ = ["render_report", "write_report"]


def write_report(db: Any, out_dir: str | os.PathLike, **options: Any) -> list[Path]:
    """Write tables and figures of a results store (or DataFrame) into ``out_dir``.

    Files: ``README.md`` (everything, with the figures embedded), ``tables/<metric>.md``,
    ``.tex`` and ``.csv``, ``figures/cd_<metric>.png``, ``figures/curves_<metric>_<dataset>.png``
    (only for methods with several budgets), ``figures/runtime.png``. The options are those
    of :func:`render_report`.

    Returns
    -------
    list of Path
        The files written.
    """
    done = render_report(db, out_dir, **options)
    p = Path(out_dir) / "README.md"
    p.write_text("\n".join(done.markdown), encoding="utf-8")
    return [*done.files, p]


def render_report(
    db: Any,
    out_dir: str | os.PathLike,
    *,
    formats: Sequence[str] = ("md", "latex", "csv"),
    figures: bool = True,
    k: int | None = None,
    learner: str | None = None,
    control: str | None = None,
    alpha: float | None = None,
    decimals: int | None = None,
    cell_ids: Sequence[str] | None = None,
    experiment: str | None = None,
    title: str | None = None,
    all_cells: bool = False,
    columns: str | None = None,
    sections: Sequence[Any] | None = None,
    leave_out: Sequence[type] = (),
    missing_rank: str | None = None,
) -> Rendered:
    """The single-grid report of a results store (or DataFrame): its tables and figures
    written into ``out_dir``, its Markdown returned (:func:`write_report` writes it as
    ``README.md``; a multi-part report embeds it, see ``kind = "grid"``).

    Parameters
    ----------
    db : path, ResultStore or DataFrame
    out_dir : path
    formats : subset of {"md", "latex", "csv"}
    figures : bool, default=True
    k, learner : optional
        See :func:`metric_tables`.
    control : str, optional
        Method compared with the others (Bonferroni–Dunn); default the experiment's
        ``[report] control``, else Nemenyi (all pairs).
    alpha, decimals : optional
        Significance level and printed decimals; default the experiment's ``[report]``
        values (read from the file text its run stored), else 0.05 and 3.
    cell_ids : optional
        Report only these cells (``mlfs benchmark`` passes the cells of its experiment).
        Default: the cells of the latest run of ``experiment`` (of every experiment in the
        store when not given), so cells of earlier versions of an experiment file (other
        budgets, selectors, ...) are left out.
    experiment : str or list of str, optional
        Name(s) of the experiment(s) whose stored order of datasets/methods is used.
    all_cells : bool, default=False
        Report every cell of the store (``cell_ids`` not given).
    sections : list of ReportSection, optional
        The experiment's declared sections (default: those the run stored for
        ``experiment``, or for every experiment in the store).
    title : str, optional
        Heading of README.md (default: the experiment's ``[report] title``, else
        ``Results: <name>``).
    columns : {"selectors", "learners"}, optional
        Default: the experiment's ``[report] columns``, else ``"selectors"``. What the
        table columns (and ranks, tests) compare: the selection methods (one table per
        learner), or the learners (``"learners"``: for experiments whose
        methods are learner variants, e.g. plain vs feature-weighted ML-kNN; the
        selector and k are then part of the column name when they vary).
    missing_rank : {"drop", "last"}, optional
        What a method without a value on a data set gets in the ranks (see
        :func:`metric_tables`); default the experiment's ``[report] missing_rank``, else
        ``"drop"``.
    leave_out : sequence of section classes, optional
        Frame sections not rendered (e.g. the run log, which a multi-part report prints
        once for every part).

    Returns
    -------
    Rendered
        The Markdown blocks and the files written (tables, figures).
    """
    bad = set(formats) - {"md", "latex", "csv"}
    if bad:
        for f in sorted(bad):
            _choice("table format", f, ["md", "latex", "csv"], where="use")
    if hasattr(db, "columns"):
        import pandas as pd

        df, meta, fails, runs = db, {}, pd.DataFrame(), pd.DataFrame()
    else:
        df, meta, fails, runs = _read_store(db, cell_ids, experiment, all_cells)
    if df.empty:
        raise ValueError("the results store holds no cell to report.")

    df, sens = split_sensitivity(df)
    if isinstance(experiment, str):
        names = [experiment]
    elif experiment:
        names = list(experiment)
    else:
        names = [key.split(":", 1)[1] for key in meta if key.startswith("order:")]
    stored = _stored_options(meta, names)  # the experiment's [report], as it ran
    alpha = stored.get("alpha", 0.05) if alpha is None else alpha
    decimals = int(stored.get("decimals", 3)) if decimals is None else decimals
    columns = stored.get("columns", "selectors") if columns is None else columns
    title = title or stored.get("title")
    missing_rank = stored.get("missing_rank", "drop") if missing_rank is None else missing_rank
    if columns not in ("selectors", "learners"):
        raise ValueError(f"columns must be 'selectors' or 'learners'; got {columns!r}.")
    declared = list(sections) if sections is not None else stored_sections(meta, names)
    # the sections take their cells out of the compared tables: seed runs first (they
    # are not even in the "full" frame of the tuning table), folding last
    state: dict[str, Any] = {}
    for s in sorted(declared, key=lambda s: s.STAGE):
        if s.STAGE >= 1 and "full" not in state:
            state["full"] = df
        df = s.prepare(df, state)
    state.setdefault("full", df)
    if columns == "learners":  # learners become the compared methods
        col = df["learner"].astype(str)
        if df["method"].nunique() > 1:
            col = df["method"].astype(str) + " + " + col
        df = df.assign(method=col, learner="-")
    ds_pref: list[str] = []
    m_pref: list[str] = []
    for nm in names:
        o = meta.get(f"order:{nm}")
        if o:
            o = json.loads(o)
            ds_pref += [d for d in o["datasets"] if d not in ds_pref]
            key = "learners" if columns == "learners" and "learners" in o else "methods"
            m_pref += [m for m in o[key] if m not in m_pref]
    for s in declared:  # e.g. the folded names, in the order of their first variant
        m_pref = s.order_methods(m_pref)
    # what the caller names must exist: a typo is an error with a suggestion, not a
    # silently different report
    if k is not None:
        ks = sorted({int(v) for v in df["k"].dropna()})
        if int(k) not in ks:
            raise ValueError(
                f"-k {k}: no cell with k = {k} in the results; their budgets: "
                f"{', '.join(map(str, ks))} (without -k: each method's only budget, or the "
                "mean over its budgets)"
            )
    if learner is not None:
        learner = _choice("learner", learner, list(dict.fromkeys(df["learner"].astype(str))))
    if control is not None:
        control = _choice("control method", control,
                          list(dict.fromkeys([*m_pref, *df["method"].astype(str)])))
    if control is None:
        for nm in names:
            c = meta.get(f"control:{nm}")
            if c:
                control = c
    out = Path(out_dir)
    (out / "tables").mkdir(parents=True, exist_ok=True)
    if figures:
        (out / "figures").mkdir(parents=True, exist_ok=True)
    ctx = ReportContext(
        frame=df, meta=meta, out=out, fmt=NumberFormat(decimals), runs=runs, failures=fails,
        figures=figures, alpha=alpha, control=control, missing_rank=missing_rank,
        datasets=ds_pref, methods=m_pref,
        experiments=names, state=state,
        extra={"k": k, "learner": learner, "formats": list(formats), "title": title,
               "sensitivity": sens, "declared": declared},
    )
    ctx.tables = metric_tables(
        df, k=k, learner=learner, datasets=ds_pref, methods=m_pref, decimals=decimals,
        alpha=alpha, control=control, meta=meta, missing_rank=missing_rank,
    )
    done = Rendered()
    for s in frame_sections(declared):
        if not isinstance(s, tuple(leave_out)):
            done += s.render(ctx)
    return done


def _stored_options(meta: Mapping[str, str], names: Sequence[str]) -> dict:
    """``alpha``, ``decimals``, ``columns``, ``title`` and ``missing_rank`` of the
    ``[report]`` of the one
    experiment reported, read from the file text its run stored ({} when not one)."""
    if len(names) != 1 or not meta.get(f"experiment:{names[0]}"):
        return {}
    try:
        rep = tomllib.loads(meta[f"experiment:{names[0]}"]).get("report", {})
    except tomllib.TOMLDecodeError:  # a spec given as a dict: stored as JSON
        try:
            rep = json.loads(meta[f"experiment:{names[0]}"]).get("report", {})
        except (ValueError, AttributeError):
            return {}
    return {k: rep[k] for k in STORED_REPORT_KEYS if k in rep}
