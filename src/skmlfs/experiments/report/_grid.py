"""Paper-style reports of a results store: tables (Markdown, LaTeX, CSV) and PNG figures.

For each metric: a table datasets × methods of mean ± std over the splits (sample std,
``ddof=1``), the best method of each dataset marked (bold; ranks use the printed values,
so equal printed values tie, as in the papers), an average-rank row, and the Friedman /
Iman–Davenport test with a critical-difference diagram (:mod:`skmlfs.stats`,
:mod:`skmlfs.plots`), the Wilcoxon signed-rank tests of the control method against each
other one (R⁺/R⁻ as SCLS Table 6), and paired t-test win/tie/loss counts per dataset (the
memetic paper's a/b/c). Figures: CD diagram per metric, metric versus number of features per
dataset (when a method has several budgets), and selection time per method.
"""

from __future__ import annotations

import difflib
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import rankdata

from ...stats import (
    critical_difference,
    friedman_test,
    rank_matrix,
    wilcoxon_signed_rank,
    win_tie_loss,
)
from .._registry import normalize_name
from .._spec import MISSING_RANK, ProtocolSpec
from .._store import _NON_METRIC, ResultStore
from ._direction import greater_is_better
from ._format import MISSING, format_number, format_seconds, format_wall
from ._section import Rendered
from ._util import _close, _order

__all__ = ["MetricTable", "metric_tables", "wilcoxon_table", "win_tie_loss_table"]


@dataclass
class MetricTable:
    """One metric's table: ``mean``/``std``/``n`` (datasets × methods DataFrames), the
    best-mask, per-dataset ranks and average ranks (over complete rows).

    ``partial`` marks the means over fewer splits than the data set's (a task of the
    method failed or was stopped on the others): shown, but neither marked best, ranked
    nor tested, since they average other test sets than the rest of the row.
    """

    metric: str
    learner: str | None
    greater_is_better: bool
    mean: Any
    std: Any
    n: Any
    best: Any
    ranks: Any
    avg_ranks: Any
    decimals: int
    friedman: Any = None
    cd: float | None = None
    cd_test: str | None = None
    per_split: Any = None
    missing_rank: str = "drop"
    partial: Any = None
    splits: Any = None  # per data set, its splits: those where any method has a value

    @property
    def comparable(self) -> Any:
        """``mean`` without the partial means: the values ranks and tests compare."""
        return self.mean if self.partial is None else self.mean.mask(self.partial)

    def split_count(self, dataset: Any, method: str) -> str:
        """``"n/N"``: the splits a method's mean covers of the data set's."""
        return f"{int(self.n.at[dataset, method])}/{int(self.splits[dataset])}"

    def is_partial(self, dataset: Any, method: str) -> bool:
        return self.partial is not None and bool(self.partial.at[dataset, method])


# --------------------------------------------------------------------------- helpers
def _choice(what: str, value: str, available: Sequence[str],
            where: str = "the results have") -> str:
    """``value`` if the results have it (any case, with or without ``-``, ``_``, ``+``:
    :func:`~skmlfs.experiments._registry.normalize_name`), else a ``ValueError`` with the
    closest name and the list, as for unknown method names everywhere else."""
    if value in available:
        return value
    same = [a for a in available if normalize_name(a) == normalize_name(value)]
    if len(same) == 1:
        return same[0]
    close = difflib.get_close_matches(value, list(available), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise ValueError(
        f"unknown {what} {value!r}{hint}; {where}: {', '.join(available)}."
    )


def _slug(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", s).strip("_") or "x"


def _tex(s: str) -> str:
    return (
        s.replace("\\", r"\textbackslash{}").replace("_", r"\_").replace("%", r"\%")
        .replace("&", r"\&").replace("#", r"\#")
    )


def _repeated_budgets(df):
    """Mask of the rows of (dataset, method, k) points that repeat a smaller budget.

    When a selector returns fewer than ``k`` features on some split (it ran out of usable,
    e.g. non-constant, features), the cells of budget ``k`` evaluate the same features as a
    smaller budget. Such points are left out of curves and of averages over budgets; a
    method's smallest budget is always kept (there is no smaller one it repeats).
    """
    import pandas as pd

    if df.empty or "n_selected" not in df.columns:
        return pd.Series(False, index=df.index)
    short = (df["n_selected"] < df["k"]).groupby(
        [df["dataset"], df["method"], df["k"]]
    ).transform("any")
    smallest = df["k"] == df.groupby(["dataset", "method"])["k"].transform("min")
    return short & ~smallest


def _select(df, k, learner):
    """Rows of one learner; per (dataset, method, split) one value per metric.

    ``k=None``: a method with one budget uses it; with several, each split's values are
    averaged over the budgets first, leaving out budgets that repeat a smaller one
    (:func:`_repeated_budgets`). ``k=int``: only that budget (methods with a single
    budget, such as the ``all`` baseline, keep theirs).
    """
    if learner is not None:
        df = df[df["learner"] == learner]
    if k is not None:
        single = df.groupby(["dataset", "method"])["k"].transform("nunique") == 1
        df = df[(df["k"] == k) | single]
    else:
        df = df[~_repeated_budgets(df)]
    return df


# --------------------------------------------------------------------------- tables
def metric_tables(
    results: Any,
    metrics: Sequence[str] | None = None,
    *,
    k: int | None = None,
    learner: str | None = None,
    datasets: Sequence[str] = (),
    methods: Sequence[str] = (),
    decimals: int = 3,
    alpha: float = 0.05,
    control: str | None = None,
    meta: dict | None = None,
    missing_rank: str = "drop",
) -> list[MetricTable]:
    """Aggregate a results DataFrame into one :class:`MetricTable` per metric (and learner).

    Parameters
    ----------
    results : DataFrame
        :meth:`ResultStore.to_frame` or :func:`evaluate` output.
    metrics : list of str, optional
        Default: every metric column.
    k, learner : optional
        Restrict to one budget / learner (see :func:`_select`); with several learners and
        ``learner=None`` one table per learner is made.
    datasets, methods : sequences of str
        Preferred row/column order (others follow alphabetically).
    decimals : int, default=3
        Printed decimals; ranks and best marks use the rounded means.
    alpha : float, default=0.05
    control : str, optional
        Compare every method with this one (Bonferroni–Dunn CD, as SCLS Fig. 1); default
        all pairs (Nemenyi CD).
    missing_rank : {"drop", "last"}, default="drop"
        A data set where a method has no value (it failed or was stopped on every split):
        ``"drop"`` ranks over the data sets where every method has a value (the complete
        blocks the Friedman test assumes); ``"last"`` keeps the data set, the methods
        without a value sharing the last ranks there (a method that cannot run on a data
        set loses to every method that can). A data set without any value is left out
        either way.
    """
    if missing_rank not in MISSING_RANK:
        raise ValueError(f"missing_rank must be one of {MISSING_RANK}; got {missing_rank!r}.")
    meta = meta or {}
    df = results
    if metrics is None:
        metrics = [c for c in df.columns if c not in _NON_METRIC and df[c].dtype.kind == "f"]
    learners = [learner] if learner is not None else list(dict.fromkeys(df["learner"]))
    out = []
    for lrn in learners:
        sub = _select(df, k, lrn)
        if sub.empty:
            raise ValueError(f"no results for learner={lrn!r}, k={k!r}.")
        ds_order = _order(sub["dataset"].unique(), datasets)
        m_order = _order(sub["method"].unique(), methods)
        for metric in metrics:
            gib = greater_is_better(metric, meta)
            per_split = sub.groupby(["dataset", "method", "split"])[metric].mean()
            g = per_split.groupby(["dataset", "method"])
            mean = g.mean().unstack("method").reindex(index=ds_order, columns=m_order)
            std = g.std(ddof=1).unstack("method").reindex(index=ds_order, columns=m_order)
            n = g.count().unstack("method").reindex(index=ds_order, columns=m_order)
            # the data set's splits are those where any method has a value; a mean over
            # fewer averages other test sets, so it is shown but not compared
            splits = (per_split.dropna().reset_index().groupby("dataset")["split"]
                      .nunique().reindex(ds_order))
            partial = n.lt(splits, axis=0) & n.gt(0)
            shown = mean.round(decimals).mask(partial)
            best_val = shown.max(axis=1) if gib else shown.min(axis=1)
            best = shown.eq(best_val, axis=0) & shown.notna()
            complete = _rank_rows(shown, gib, missing_rank)
            ranks = avg = None
            fr = cd = None
            cd_test = None
            if complete.shape[1] >= 2 and complete.shape[0] >= 1:
                import pandas as pd

                vals = complete.to_numpy()
                if complete.shape[0] >= 2:
                    rk = rank_matrix(vals, gib)
                else:
                    rk = rankdata(-vals if gib else vals, method="average", axis=1)
                ranks = pd.DataFrame(rk, index=complete.index, columns=complete.columns)
                avg = ranks.mean(axis=0)
                if complete.shape[0] >= 2:
                    fr = friedman_test(vals, gib, alpha=alpha)
                    cd_test = "bonferroni-dunn" if control in complete.columns else "nemenyi"
                    cd = critical_difference(
                        complete.shape[1], complete.shape[0], alpha, cd_test
                    )
            out.append(
                MetricTable(
                    metric, lrn if len(learners) > 1 else None, gib, mean, std, n, best,
                    ranks, avg, decimals, fr, cd, cd_test,
                    per_split.unstack("method").reindex(columns=m_order), missing_rank,
                    partial, splits,
                )
            )
    return out


def _rank_rows(shown: Any, greater_is_better: bool, missing_rank: str) -> Any:
    """The rows (data sets) ranked, as values whose ranks are the table's ranks."""
    if missing_rank == "drop":
        return shown.dropna(axis=0, how="any")
    rows = shown.dropna(axis=0, how="all")
    if not rows.isna().to_numpy().any():
        return rows
    # any value worse than every value of the table ranks the missing methods last, tied
    v = rows.to_numpy(dtype=float)
    worst = np.nanmin(v) - 1.0 if greater_is_better else np.nanmax(v) + 1.0
    return rows.fillna(worst)


def _arrow(t: MetricTable) -> str:
    return "↑" if t.greater_is_better else "↓"


def table_markdown(t: MetricTable) -> str:
    cols = list(t.mean.columns)
    lines = [
        "| Dataset | " + " | ".join(cols) + " |",
        "|---|" + "---|" * len(cols),
    ]
    d = t.decimals
    for ds in t.mean.index:
        cells = []
        for m in cols:
            mu, sd = t.mean.at[ds, m], t.std.at[ds, m]
            s = (MISSING if not np.isfinite(mu)
                 else f"{format_number(mu, d)} ± {format_number(sd, d)}")
            if t.best.at[ds, m]:
                s = f"**{s}** ✓"
            elif t.is_partial(ds, m):
                s += f" ({t.split_count(ds, m)})"
            cells.append(s)
        lines.append(f"| {ds} | " + " | ".join(cells) + " |")
    if t.avg_ranks is not None:
        lines.append(
            "| Avg. rank | "
            + " | ".join(
                format_number(t.avg_ranks[m], 2) if m in t.avg_ranks.index else MISSING
                for m in cols
            )
            + " |"
        )
        note = rank_note(t)
        if note:
            lines.append("\n" + note)
    return "\n".join(lines) + "\n"


def _rank_gaps(t: MetricTable) -> list[tuple[str, list[str]]]:
    """The data sets where a method has no value (failed or stopped on every split) and
    those methods."""
    if t.ranks is None:
        return []
    missing = t.comparable.isna()
    return [(str(ds), [str(m) for m in t.mean.columns[missing.loc[ds].to_numpy()]])
            for ds in t.mean.index if missing.loc[ds].any()]


def _ranked_only(wide: Any, t: MetricTable | None) -> Any:
    """``wide`` (data sets × methods) without the values the ranks of ``t`` do not use:
    a method's value on a data set where its mean is partial (stopped on some splits, it
    would look fast or stable beside complete runs) or missing. Every per-data-set view
    beside the metric tables (the summary, the stability table) masks through this."""
    wide = wide.copy()
    if t is None:
        return wide
    for ds, ms in _rank_gaps(t):
        if ds in wide.index:
            wide.loc[ds, wide.columns.intersection(ms)] = np.nan
    return wide


def _partial_note(t: MetricTable) -> str:
    """The sentence naming the means over fewer splits than their data set's ("" if none)."""
    if t.partial is None or not t.partial.to_numpy().any():
        return ""
    where = "; ".join(
        f"{ds} ({', '.join(f'{m} {t.split_count(ds, m)}' for m in ms)})"
        for ds in t.mean.index
        if (ms := [m for m in t.mean.columns if t.is_partial(ds, m)]))
    return ("A mean marked (n/N) covers n of the data set's N splits (the method failed or "
            "was stopped on the others): it averages other test sets than the rest of its "
            f"row, so it counts as no value in the ranks and tests: {where}.")


def rank_note(t: MetricTable) -> str:
    """The sentences under a rank table that name the data sets with a missing method and
    say what the ranks did with them, and the means over fewer splits than their data
    set's ("" when every value is there)."""
    gaps = _rank_gaps(t)
    ranked = "; ".join(f"{ds} (no {', '.join(ms)})" for ds, ms in gaps if ds in t.ranks.index)
    out = [(ds, ms) for ds, ms in gaps if ds not in t.ranks.index]
    if t.missing_rank == "drop":
        s = (f"Ranks over the {len(t.ranks)} data sets where every method has a value; "
             "left out: " + "; ".join(f"{ds} (no {', '.join(ms)})" for ds, ms in out)
             + ".") if out else ""
    else:
        s = f"Ranks over {len(t.ranks)} data sets"
        if ranked:
            s += f"; a method without a value shares the last ranks there: {ranked}"
        if out:
            s += f"; left out (no value at all): {', '.join(ds for ds, _ in out)}"
        s = s + "." if gaps else ""
    return " ".join(x for x in (s, _partial_note(t)) if x)


def table_latex(t: MetricTable) -> str:
    cols = list(t.mean.columns)
    d = t.decimals
    name = _tex(t.metric.replace("_", " "))
    out = [
        r"\begin{table}[t]",
        r"\centering",
        rf"\caption{{{name} ({'higher' if t.greater_is_better else 'lower'} is better; "
        r"mean $\pm$ std over the splits; best in bold).}",
        r"\begin{tabular}{l" + "c" * len(cols) + "}",
        r"\toprule",
        "Dataset & " + " & ".join(_tex(c) for c in cols) + r" \\",
        r"\midrule",
    ]
    for ds in t.mean.index:
        cells = []
        for m in cols:
            mu, sd = t.mean.at[ds, m], t.std.at[ds, m]
            if not np.isfinite(mu):
                cells.append("--")
                continue
            s = f"{format_number(mu, d)} $\\pm$ {format_number(sd, d)}"
            if t.is_partial(ds, m):
                s += f" ({t.split_count(ds, m)})"
            cells.append(rf"\textbf{{{s}}}" if t.best.at[ds, m] else s)
        out.append(f"{_tex(str(ds))} & " + " & ".join(cells) + r" \\")
    if t.avg_ranks is not None:
        out.append(r"\midrule")
        out.append(
            "Avg. rank & "
            + " & ".join(
                f"{t.avg_ranks[m]:.2f}" if m in t.avg_ranks.index else "--" for m in cols
            )
            + r" \\"
        )
    out += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(out) + "\n"


def table_csv(t: MetricTable, path: Path) -> None:
    import pandas as pd

    cols = list(t.mean.columns)
    data = {"dataset": list(t.mean.index)}
    for m in cols:
        data[f"{m}_mean"] = t.mean[m].to_numpy()
        data[f"{m}_std"] = t.std[m].to_numpy()
    data["best"] = [";".join(c for c in cols if t.best.at[ds, c]) for ds in t.mean.index]
    # means over fewer splits than the data set's, as "method:n/N" (not ranked)
    data["partial"] = [";".join(f"{c}:{t.split_count(ds, c)}" for c in cols
                                if t.is_partial(ds, c)) for ds in t.mean.index]
    df = pd.DataFrame(data)
    if t.avg_ranks is not None:
        row = {"dataset": "avg_rank", "best": "", "partial": ""}
        for m in cols:
            row[f"{m}_mean"] = t.avg_ranks.get(m, np.nan)
            row[f"{m}_std"] = np.nan
        df = pd.concat([df, pd.DataFrame([row])], ignore_index=True)
    df.to_csv(path, index=False, float_format="%.6g")


# --------------------------------------------------------------------------- pairwise tests
def wilcoxon_table(t: MetricTable, control: str, alpha: float = 0.05) -> Any:
    """Wilcoxon signed-rank tests of ``control`` against every other method (SCLS Table 6).

    Uses the datasets on which every method has a result and the printed (rounded) means,
    so values that are equal in the table are tied (zero differences, Demšar 2006 §3.1.3).

    Parameters
    ----------
    t : MetricTable
    control : str
        The proposed method (a column of ``t.mean``).
    alpha : float, default=0.05

    Returns
    -------
    DataFrame or None
        One row per compared method: ``R+`` (rank sum where the compared method is
        better), ``R-``, ``total``, ``T``, ``p``, ``verdict`` from the control's point of
        view ("win"/"tie"/"loss"); ``None`` with fewer than 2 complete datasets.
    """
    import pandas as pd

    if control not in t.mean.columns:
        raise ValueError(f"control {control!r} is not a method of the {t.metric} table.")
    complete = t.comparable.dropna(axis=0, how="any")
    if complete.shape[0] < 2:
        return None
    rows = []
    for m in complete.columns:
        if m == control:
            continue
        r = wilcoxon_signed_rank(
            complete[control].to_numpy(), complete[m].to_numpy(), t.greater_is_better,
            alpha=alpha, decimals=t.decimals,
        )
        rows.append({
            "method": m, "R+": r.r_plus, "R-": r.r_minus, "total": r.total_rank,
            "T": r.statistic, "p": r.pvalue, "verdict": r.verdict, "N": complete.shape[0],
        })
    return pd.DataFrame(rows).set_index("method")


def win_tie_loss_table(t: MetricTable, alpha: float = 0.05) -> Any:
    """Paired t-test win/tie/loss counts ``a/b/c`` per dataset and method (memetic paper).

    On each dataset the methods with a value on every one of its splits are compared with
    each other by a two-sided paired t-test over the splits
    (:func:`skmlfs.stats.win_tie_loss`); a method without (it failed or was stopped on
    some split, or on all) sits the data set out, shown as missing. A dataset is used
    when at least two methods qualify on at least 2 splits.

    Returns
    -------
    DataFrame or None
        ``"a/b/c"`` strings, datasets × methods, with a ``Total`` row (sums over the data
        sets each method took part in); ``None`` when no dataset qualifies.
    """
    import pandas as pd

    ps = t.per_split
    if ps is None:
        return None
    methods = list(t.mean.columns)
    rows, index, totals = [], [], np.zeros((len(methods), 3), dtype=int)
    for ds in t.mean.index:
        if ds not in ps.index.get_level_values(0):
            continue
        # the methods with a value on every split of the data set; one without (no
        # value, or a partial one) sits this data set out ("–") instead of emptying it
        block = ps.loc[ds].reindex(columns=methods)
        have = [m for m in methods
                if not t.is_partial(ds, m) and block[m].notna().any()]
        block = block[have].dropna(axis=0, how="any")
        if block.shape[0] < 2 or len(have) < 2:
            continue
        res = win_tie_loss(
            block.to_numpy().T[:, None, :], t.greater_is_better, alpha=alpha,
            names=have, dataset_names=[str(ds)],
        )
        tot = dict(zip(have, res.totals, strict=True))
        for i, m in enumerate(methods):
            totals[i] += tot.get(m, 0)
        rows.append(["/".join(str(v) for v in tot[m]) if m in tot else MISSING
                     for m in methods])
        index.append(ds)
    if not rows:
        return None
    rows.append([f"{a}/{b}/{c}" for a, b, c in totals])
    index.append("Total")
    return pd.DataFrame(rows, index=index, columns=methods)


def _wilcoxon_markdown(w: Any, control: str, alpha: float) -> str:
    lines = [
        f"Wilcoxon signed-rank test, {control} against each method (α = {alpha}; R⁺ = rank "
        f"sum where the other method is better, R⁻ where {control} is better; N = "
        f"{int(w['N'].iloc[0])} datasets):\n",
        "| vs | R⁺/total | R⁻ | T | p | verdict |",
        "|---|---|---|---|---|---|",
    ]
    for m, r in w.iterrows():
        lines.append(
            f"| {m} | {r['R+']:g}/{r['total']:g} | {r['R-']:g} | {r['T']:g} | {r['p']:.3g} | "
            f"{r['verdict']} |"
        )
    return "\n".join(lines) + "\n"


def _wtl_markdown(w: Any, alpha: float) -> str:
    cols = list(w.columns)
    lines = [
        f"Paired t-tests over the splits (α = {alpha}): a/b/c = number of the other methods "
        "a method beats / ties / loses to on each dataset, among the methods with a value "
        f"on every split of it ({MISSING}: a method that sits the data set out):\n",
        "| Dataset | " + " | ".join(cols) + " |",
        "|---|" + "---|" * len(cols),
    ]
    for ds, r in w.iterrows():
        name = f"**{ds}**" if ds == "Total" else str(ds)
        lines.append(f"| {name} | " + " | ".join(r.tolist()) + " |")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- report
def _read_store(db: Any, cell_ids=None, experiment=None, all_cells=False):
    store = db if isinstance(db, ResultStore) else ResultStore(db, readonly=True)
    try:
        meta = dict(store._conn.execute("SELECT key, value FROM meta").fetchall())
        if cell_ids is None and not all_cells:
            # the cells of the latest run of each experiment (``cells:<name>``, rewritten by
            # every run): cells left over from an earlier version of the file are not mixed in
            names = [experiment] if isinstance(experiment, str) else list(experiment or ())
            keys = [f"cells:{e}" for e in names] if names else [
                k for k in meta if k.startswith("cells:")
            ]
            lists = [json.loads(meta[k]) for k in keys if k in meta]
            if lists:
                cell_ids = [c for ids in lists for c in ids]
        df = store.to_frame(cell_ids=cell_ids)
        fails = store.failures()
        stats = store.task_stats()
        runs = store.runs()
    finally:
        if store is not db:
            store.close()
    if len(df) and len(stats) and "ranking_id" in df:  # the reported tasks' resources
        peak = stats.set_index("task_id")["peak_rss_mb"]
        df = df.assign(peak_rss_mb=df["ranking_id"].map(peak).astype(float))
    return df, meta, fails, runs



def _figure_section(md: list, written: list, files: list, heading: str, intro: str) -> None:
    """Append a report section of figures (nothing when no figure was drawn)."""
    if not files:
        return
    md.append(f"## {heading}\n\n{intro}\n")
    for f in files:
        written.append(f)
        md.append(f"![{heading.lower()}](figures/{f.name})\n")


def _table_names(t: MetricTable) -> tuple[str, str]:
    """``(stem, heading)`` of a metric table: file names and its README heading."""
    stem = _slug(t.metric + (f"_{t.learner}" if t.learner else ""))
    heading = f"{t.metric.replace('_', ' ')} {_arrow(t)}" + (
        f" — learner {t.learner}" if t.learner else ""
    )
    return stem, heading


def _metric_table_block(t: MetricTable, ctx: Any) -> Rendered:
    """One metric's table (README and ``tables/<stem>.md/.tex/.csv``), its Friedman line
    and the declared sections' lines under it."""
    alpha, control = ctx.alpha, ctx.control
    _, heading = _table_names(t)
    body = table_markdown(t)
    md = [f"## {heading}\n", body, _stats_line(t, alpha, control)]
    for s in ctx.extra.get("declared", []):  # the paper's values, over the budgets, ...
        extra = s.after_table(t, ctx)
        if extra is not None:
            md.append(extra)
    return Rendered(md, [])


def _table_files(t: MetricTable, ctx: Any) -> list[Path]:
    out, formats = ctx.out, ctx.extra.get("formats", ("md",))
    stem, heading = _table_names(t)
    written = []
    if "md" in formats:
        p = out / "tables" / f"{stem}.md"
        p.write_text(f"# {heading}\n\n{table_markdown(t)}", encoding="utf-8")
        written.append(p)
    if "latex" in formats:
        p = out / "tables" / f"{stem}.tex"
        p.write_text(table_latex(t), encoding="utf-8")
        written.append(p)
    if "csv" in formats:
        p = out / "tables" / f"{stem}.csv"
        table_csv(t, p)
        written.append(p)
    return written


def _paired_tests_block(t: MetricTable, ctx: Any) -> Rendered:
    """The Wilcoxon signed-rank tests of the control (or of the first of two methods)
    and the paired t-test win/tie/loss counts of one metric table."""
    out, alpha, control = ctx.out, ctx.alpha, ctx.control
    formats = ctx.extra.get("formats", ("md",))
    stem, _ = _table_names(t)
    r = Rendered()
    ctrl = control if control in t.mean.columns else (
        t.mean.columns[0] if t.mean.shape[1] == 2 else None
    )
    if ctrl is not None:
        wil = wilcoxon_table(t, ctrl, alpha)
        if wil is not None:
            r.markdown.append(_wilcoxon_markdown(wil, ctrl, alpha))
            if "csv" in formats:
                p = out / "tables" / f"{stem}_wilcoxon.csv"
                wil.to_csv(p, float_format="%.6g")
                r.files.append(p)
    wtl = win_tie_loss_table(t, alpha)
    if wtl is not None:
        r.markdown.append(_wtl_markdown(wtl, alpha))
        if "csv" in formats:
            p = out / "tables" / f"{stem}_wtl.csv"
            wtl.to_csv(p, index_label="dataset")
            r.files.append(p)
    return r


def _curves_block(t: MetricTable, ctx: Any) -> Rendered:
    """The CD diagram and the metric-versus-budget curves of one metric table."""
    if not ctx.figures:
        return Rendered()
    stem, heading = _table_names(t)
    files = _figures_for(t, ctx.frame, ctx.out, stem, ctx.control, ctx.extra.get("k"))
    md = [f"![CD diagram, {heading}](figures/{f.name})\n" for f in files
          if f.name.startswith(f"cd_{stem}.")]
    md += [f"![{heading} versus number of features](figures/{f.name})\n" for f in files
           if f.name.startswith(f"curves_{stem}__")]
    return Rendered(md, files)


def _protocol_text(sub, info: Mapping) -> str:
    """How the cells ``sub`` of one data set were split. The data set's stored statistics
    are those of the last experiment that planned it: another part of a file may split the
    same data set otherwise, so the cells' own protocol wins where it says everything."""
    stored = info.get("protocol")
    if "protocol" not in sub or not len(sub):
        return stored or "?"
    try:
        ident = json.loads(sub["protocol"].iloc[0])
        own = ProtocolSpec(**ident)
    except (TypeError, ValueError):
        return stored or str(sub["protocol"].iloc[0])
    if own.kind != "mat":  # the identity holds every field of the label
        return own.label()
    if stored and stored.startswith("stored sim_seq splits"):
        return stored
    return ProtocolSpec(**ident, n_splits=int(sub["split"].nunique())).label()


def _overview(df, meta, k, ds_pref=(), m_pref=()) -> str:
    lines = ["## Setup\n"]
    rows = []
    for ds in _order(df["dataset"].unique(), ds_pref):
        info = meta.get(f"dataset:{ds}")
        info = json.loads(info) if info else {}
        sub = df[df["dataset"] == ds]
        ks = sorted(sub["k"].unique())
        rows.append(
            f"| {ds} | {info.get('n_samples', '?')} | {info.get('n_features', '?')} | "
            f"{info.get('n_labels', '?')} | {_protocol_text(sub, info)} | "
            f"{sub['split'].nunique()} | {', '.join(str(x) for x in ks)} |"
        )
    lines.append("| Dataset | patterns | features | labels | protocol | splits | budgets k |")
    lines.append("|---|---|---|---|---|---|---|")
    lines += rows
    methods = ", ".join(_order(df["method"].unique(), m_pref))
    learners = ", ".join(df["learner"].unique())
    lines.append("")
    lines.append(
        f"Methods: {methods}. Learner(s): {learners}. {len(df)} cells. Values are mean ± "
        "sample std over the splits"
        + (
            "; a method with several budgets is averaged over them first"
            if k is None and (df.groupby(["dataset", "method"])["k"].nunique() > 1).any()
            else ""
        )
        + ". ✓ marks the best printed value of each dataset; ranks use the printed values.\n"
    )
    rep = df[_repeated_budgets(df)]
    if not rep.empty:
        n = rep.groupby(["dataset", "method"])["k"].nunique()
        per_ds = [
            f"{ds}: " + ", ".join(
                f"{m} {n[ds, m]}" for m in _order(n[ds].index, m_pref)
            )
            for ds in _order(n.index.get_level_values(0).unique(), ds_pref)
        ]
        lines.append(
            f"{int(n.sum())} budget(s) left out of the curves and of the averages over "
            "budgets, because the selector returned fewer than k features on some split "
            "(the point repeats a smaller budget): " + "; ".join(per_ds) + ".\n"
        )
    return "\n".join(lines) + "\n"


def _stats_line(t: MetricTable, alpha: float, control) -> str:
    if t.friedman is None:
        return "_Friedman test needs at least 2 datasets with every method._\n"
    f = t.friedman
    ff = "∞" if not math.isfinite(f.ff) else f"{f.ff:.3f}"
    verdict = "rejected" if f.reject else "not rejected"
    test = "Bonferroni–Dunn vs " + str(control) if t.cd_test == "bonferroni-dunn" else "Nemenyi"
    return (
        f"Friedman (Iman–Davenport) F_F = {ff}, critical F({f.df[0]}, {f.df[1]}) at α = "
        f"{alpha} is {f.f_critical:.3f}: equal performance {verdict} (N = {f.n_datasets}, "
        f"k = {f.n_methods}). CD ({test}, α = {alpha}) = {t.cd:.3f}.\n"
    )


def _figures_for(t: MetricTable, df, out: Path, stem: str, control, k) -> list[Path]:
    from ...plots import cd_diagram, metric_curves

    written = []
    if t.cd is not None and t.avg_ranks is not None:
        p = out / "figures" / f"cd_{stem}.png"
        fig = cd_diagram(
            {m: float(r) for m, r in t.avg_ranks.items()},
            t.cd,
            p,
            title=t.metric.replace("_", " ") + (
                f" (Bonferroni–Dunn vs {control})" if t.cd_test == "bonferroni-dunn"
                else " (Nemenyi)"
            ),
            control=control if t.cd_test == "bonferroni-dunn" else None,
        )
        _close(fig)
        written.append(p)
    sub = df if t.learner is None else df[df["learner"] == t.learner]
    for ds in t.mean.index:
        d = sub[sub["dataset"] == ds]
        nk = d.groupby("method")["k"].nunique()
        multi = nk[nk > 1].index
        if len(multi) == 0:
            continue
        d = d[d["method"].isin(multi)]
        d = d[~_repeated_budgets(d)]  # a budget the selector could not fill is no new point
        per = d.groupby(["method", "k", "split"])[t.metric].mean().groupby(["method", "k"])
        # one split (train/test files): no spread, a std of 0 (not NaN)
        curves = per.mean().rename("mean").to_frame().join(
            per.std(ddof=1).fillna(0.0).rename("std"))
        curves = curves.reset_index().rename(columns={"k": "x"})
        order = {m: i for i, m in enumerate(t.mean.columns)}
        curves = curves.sort_values(["method", "x"], key=lambda s: s.map(order)
                                    if s.name == "method" else s)
        # a curve over some of the splits says so, as its mean in the table does
        curves["method"] = [f"{m} ({t.split_count(ds, m)})" if t.is_partial(ds, m) else m
                            for m in curves["method"]]
        p = out / "figures" / f"curves_{stem}__{_slug(str(ds))}.png"
        fig = metric_curves(
            curves, "number of selected features", f"{t.metric.replace('_', ' ')} {_arrow(t)}",
            p, title=str(ds),
        )
        _close(fig)
        written.append(p)
    return written


def _selection_times(df, ds_pref, m_pref):
    per = df.groupby(["dataset", "method", "split"])["selection_time"].first()
    tab = per.groupby(["dataset", "method"]).mean().unstack("method")
    return tab.reindex(
        index=_order(tab.index, ds_pref), columns=_order(tab.columns, m_pref)
    )


def _runtime_section(df, ds_pref, m_pref) -> str:
    tab = _selection_times(df, ds_pref, m_pref)
    cols = list(tab.columns)
    lines = [
        "## Selection time (s, mean per split)\n",
        "| Dataset | " + " | ".join(cols) + " |",
        "|---|" + "---|" * len(cols),
    ]
    for ds in tab.index:
        lines.append(
            f"| {ds} | " + " | ".join(format_seconds(tab.at[ds, m]) for m in cols) + " |"
        )
    return "\n".join(lines) + "\n"


def _time_breakdown(df, ds_pref, m_pref) -> str:
    """Seconds per dataset × method, summed over splits, budgets and learners: the
    selection (once per split; tuning included), the learners' fits (their own tuning
    included) and predictions."""
    df = df.assign(**{c: np.nan for c in ("selection_time", "fit_time", "predict_time")
                      if c not in df})  # a frame given by the caller may lack some
    sel = df.groupby(["dataset", "method", "split"])["selection_time"].first()
    sel = sel.groupby(["dataset", "method"]).sum(min_count=1)
    rest = df.groupby(["dataset", "method"])[["fit_time", "predict_time"]].sum(min_count=1)
    tab = rest.assign(selection_time=sel)
    lines = ["## Time per dataset × method (s, summed over splits, budgets and learners)\n",
             "| Dataset | method | selection (with its tuning) | learner fits (with their "
             "tuning) | prediction |", "|---|---|---|---|---|"]
    for ds in _order(tab.index.get_level_values(0).unique(), ds_pref):
        for m in _order(tab.loc[ds].index, m_pref):
            r = tab.loc[(ds, m)]
            lines.append(f"| {ds} | {m} | {format_seconds(r['selection_time'])} | "
                         f"{format_seconds(r['fit_time'])} | {format_seconds(r['predict_time'])} |")
    return "\n".join(lines) + "\n"


def _memory_section(df, ds_pref, m_pref) -> str:
    """Peak resident memory per dataset × method: the largest over the splits of the
    process's peak during the task (MB); '' when the store recorded none."""
    if "peak_rss_mb" not in df or not df["peak_rss_mb"].notna().any():
        return ""
    tab = df.groupby(["dataset", "method"])["peak_rss_mb"].max().unstack("method")
    tab = tab.reindex(index=_order(tab.index, ds_pref), columns=_order(tab.columns, m_pref))
    cols = list(tab.columns)
    lines = ["## Peak memory (MB, largest over the splits of the task process's peak)\n",
             "| Dataset | " + " | ".join(cols) + " |", "|---|" + "---|" * len(cols)]
    for ds, row in tab.iterrows():
        lines.append(f"| {ds} | " + " | ".join(
            format_number(v, 0) for v in row.to_numpy(float)) + " |")
    return "\n".join(lines) + "\n"


def runs_section(runs, groups: Mapping[str, Sequence[str]], heading: str,
                 what: str = "experiment") -> str:
    """The run log summed per experiment (or part: ``groups`` maps a row label to the
    experiment names it covers; empty: every experiment in the log); '' when the store
    recorded no run (older stores)."""
    if runs is None or not len(runs):
        return ""
    groups = groups or {n: [n] for n in dict.fromkeys(runs["experiment"])}
    lines = [f"{heading}\n", "The runs that computed cells (a resumed experiment has "
             "several), wall time summed over them; interrupted: stopped by Ctrl-C or an "
             "error (a killed run is not logged).\n",
             f"| {what} | runs | wall time | cells computed | backend | first start (UTC) "
             "| interrupted |", "|---|---|---|---|---|---|---|"]
    for label, names in groups.items():
        r = runs[runs["experiment"].isin(list(names))]
        if not len(r):
            continue
        stopped = int(r["interrupted"].sum())
        lines.append(
            f"| {label} | {len(r)} | {format_wall(r['seconds'].sum())} | "
            f"{int(r['n_computed'].sum())} | {', '.join(dict.fromkeys(r['backend']))} | "
            f"{r['started'].min().replace('T', ' ').rstrip('Z')} | "
            f"{f'yes ({stopped} of {len(r)})' if stopped else 'no'} |")
    return "\n".join(lines) + "\n" if len(lines) > 4 else ""


def _runtime_figure(df, out: Path, ds_pref, m_pref) -> Path | None:
    from ...plots import runtime_bars

    tab = _selection_times(df, ds_pref, m_pref).fillna(0.0)
    if tab.empty:
        return None
    tab = tab.clip(lower=1e-5)  # the "all" baseline takes ~0 s; keep the log axis valid
    p = out / "figures" / "runtime.png"
    fig = runtime_bars(tab, p, log=True, ylabel="selection time per split (s)",
                       title="Feature selection time", figsize=(max(6.0, 1.2 * len(tab)), 4.0))
    _close(fig)
    return p


def _versions_line(df) -> str:
    """The software that computed the cells: each combination with its number of cells,
    most cells first, and a warning when the cells come from more than one version or
    source state of scikit-mlfs (a store resumed across code changes: regenerating it
    with one version may change those cells)."""
    vs = df["versions"].dropna() if "versions" in df else []
    if not len(vs):
        return ""
    counts = vs.value_counts()
    parts = []
    for v, n in counts.items():
        d = json.loads(v)
        parts.append(f"{n:,} cells: " + ", ".join(f"{k} {d[k]}" for k in sorted(d)))
    line = "Software: " + " | ".join(parts) + "\n"
    own = {(json.loads(v).get("skmlfs"), json.loads(v).get("source")) for v in counts.index}
    if len(own) > 1:
        names = ", ".join(f"{a}" + (f" ({b})" if b else "") for a, b in sorted(own, key=str))
        line += (f"\n**The cells come from {len(own)} versions of scikit-mlfs** ({names}): "
                 "the store was resumed across code changes, and a run of one version "
                 "may give other values where a method changed in between (CHANGELOG.md).\n")
    return line
