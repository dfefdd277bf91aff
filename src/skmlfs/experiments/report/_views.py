"""Checks and renderers behind the paper sections (:mod:`.papers`) and the stability
section: what each section's options mean is documented on its class and in
docs/experiment_file.md#report.

:func:`check_report_views` validates the options by the names they had as sub-tables of
``[report]`` before 0.2.0 (``choose``, ``pairs``, ``paper``, ``ablation``, ``versus``,
``seeds``, ``records``, ``stability``, ...); the section classes call it and name their
own key in the error. Stores written before 0.2.0 hold those sub-tables, translated into
sections by :func:`~._stored.translate_former`.
"""

from __future__ import annotations

import json
import math
import numbers
import re
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import wilcoxon

from ...metrics import kuncheva_index, nogueira_stability, selection_matrix
from ...stats import paired_ttest, wilcoxon_signed_rank
from .._store import _NON_METRIC
from ._direction import greater_is_better
from ._format import MISSING, format_number
from ._grid import _ranked_only
from ._util import _close, _order

__all__ = ["REPORT_VIEW_KEYS", "check_report_views", "stability_frame"]

REPORT_VIEW_KEYS = {"optimised", "choose", "pairs", "paper", "ablation", "versus",
                    "include", "records", "reference", "over_budgets", "seeds",
                    "stability"}
_VARIANT = re.compile(r"^(?P<base>.*)\[(?P<label>[^\[\]]*)\]$")


# --------------------------------------------------------------------------- validation
def check_report_views(source: str, report: Mapping[str, Any], metric_names: set[str]) -> None:
    """Validate the report-view sub-tables of ``[report]``; ``ValueError`` naming the key."""

    def fail(key: str, msg: str) -> ValueError:
        return ValueError(f"{source}: report.{key}: {msg}")

    def table(key: str, required: Sequence[str], allowed: set[str]) -> Mapping | None:
        t = report.get(key)
        if t is None:
            return None
        if not isinstance(t, Mapping):
            raise fail(key, "must be a table.")
        for k in t:
            if k not in allowed and not (key == "paper" and (k in metric_names or (
                    isinstance(t[k], Mapping) and set(t[k]) <= metric_names))):
                raise fail(f"{key}.{k}", f"unknown key; allowed: {', '.join(sorted(allowed))}"
                           + (" and the metric names" if key == "paper" else "") + ".")
        for k in required:
            if k not in t:
                raise fail(key, f"missing {k!r}.")
        return t

    opt = table("optimised", ["parameter"], {"parameter", "convergence"})
    if opt is not None and "convergence" in opt and opt["convergence"] not in metric_names:
        raise fail("optimised.convergence", f"{opt['convergence']!r} is not a metric column.")
    ch = table("choose", ["parameter", "criterion", "fixed"],
               {"parameter", "criterion", "fixed", "views"})
    if ch is not None:
        if ch["criterion"] not in metric_names:
            raise fail("choose.criterion", f"{ch['criterion']!r} is not a metric column.")
        views = ch.get("views", {})
        if not isinstance(views, Mapping) or not all(
            isinstance(v, Sequence) and not isinstance(v, str) for v in views.values()
        ):
            raise fail("choose.views", "a table view name -> list of the methods tuned.")
        if {"fixed", "tuned"} & set(views):
            raise fail("choose.views", "'fixed' and 'tuned' are always made; use other names.")
    pr = table("pairs", ["pairs"], {"test", "pairs"})
    if pr is not None:
        if pr.get("test", "wilcoxon") != "wilcoxon":
            raise fail("pairs.test", "only 'wilcoxon' (over the datasets) is supported.")
        ok = isinstance(pr["pairs"], Sequence) and all(
            isinstance(p, Sequence) and not isinstance(p, str) and len(p) == 2
            and all(isinstance(x, str) for x in p) for p in pr["pairs"]
        )
        if not ok or not pr["pairs"]:
            raise fail("pairs.pairs", "a list of [method, method] pairs.")
    pa = table("paper", ["columns"], {"columns"})
    if pa is not None:
        cols = pa["columns"]
        if not isinstance(cols, Sequence) or isinstance(cols, str) or not cols:
            raise fail("paper.columns", "a list of the compared methods' names.")
        for m, rows in _paper_tables(pa):
            if not isinstance(rows, Mapping):
                raise fail(f"paper.{m}", "a table dataset -> list of values.")
            for ds, vals in rows.items():
                if not isinstance(vals, Sequence) or len(vals) != len(cols) or not all(
                    isinstance(v, numbers.Real) for v in vals
                ):
                    raise fail(f"paper.{m}.{ds}", f"{len(cols)} numbers (one per column).")
    if not isinstance(report.get("over_budgets", False), bool):
        raise fail("over_budgets", "must be true or false.")
    ref = report.get("reference")
    if ref is not None and (isinstance(ref, str) or not isinstance(ref, Sequence) or not all(
            isinstance(x, str) for x in ref)):
        raise fail("reference", "a list of method names.")
    inc = report.get("include")
    if inc is not None:
        if not isinstance(inc, Sequence) or isinstance(inc, str):
            raise fail("include", "an array of tables { file, at, title }.")
        for i, t in enumerate(inc):
            if not isinstance(t, Mapping) or "file" not in t:
                raise fail(f"include[{i}]", "a table with 'file'.")
            bad = set(t) - {"file", "at", "title"}
            if bad:
                raise fail(f"include[{i}].{sorted(bad)[0]}", "unknown key; allowed: at, file, "
                           "title.")
            if t.get("at", "start") not in ("start", "end"):
                raise fail(f"include[{i}].at", "must be 'start' or 'end'.")
    ab = table("ablation", ["method", "parameter", "reference", "metric"],
               {"method", "parameter", "reference", "metric", "datasets"})
    if ab is not None and ab["metric"] not in metric_names:
        raise fail("ablation.metric", f"{ab['metric']!r} is not a metric column.")
    if ab is not None and "datasets" in ab and not _names(ab["datasets"]):
        raise fail("ablation.datasets", "a non-empty list of data set names.")
    vs = report.get("versus")
    for i, v in enumerate([vs] if isinstance(vs, Mapping) else vs or []):
        key = "versus" if isinstance(vs, Mapping) else f"versus[{i}]"
        if not isinstance(v, Mapping):
            raise fail(key, "a table (or a list of tables) {method, reference, metric}.")
        bad = set(v) - {"method", "reference", "metric"}
        if bad or len(v) != 3:
            raise fail(key, "exactly the keys method, reference and metric.")
        if v["metric"] not in metric_names:
            raise fail(f"{key}.metric", f"{v['metric']!r} is not a metric column.")
    se = table("seeds", ["methods"], {"methods", "metric"})
    if se is not None:
        ms = se["methods"]
        if not isinstance(ms, Mapping) or not ms or not all(
                isinstance(v, str) for v in ms.values()):
            raise fail("seeds.methods", "a table seed method -> reference method.")
        met = se.get("metric", [])
        for m in [met] if isinstance(met, str) else met:
            if m not in metric_names:
                raise fail("seeds.metric", f"{m!r} is not a metric column.")
    st = report.get("stability")
    if st is not None and not isinstance(st, bool):
        st = table("stability", [], {"alpha"})
        a = st.get("alpha", 0.05)
        if isinstance(a, bool) or not isinstance(a, numbers.Real) or not 0 < a < 1:
            raise fail("stability.alpha", f"a number in (0, 1); got {a!r}.")
    rc = table("records", ["methods"], {"methods", "evaluations"})
    if rc is not None:
        if not _names(rc["methods"]):
            raise fail("records.methods", "a non-empty list of selector names.")
        ev = rc.get("evaluations", [])
        if isinstance(ev, str) or not isinstance(ev, Sequence) or not all(
                isinstance(e, int) and not isinstance(e, bool) and e >= 1 for e in ev):
            raise fail("records.evaluations", "a list of evaluation counts (>= 1).")


def _names(v: Any) -> bool:
    return (isinstance(v, Sequence) and not isinstance(v, str) and len(v) > 0
            and all(isinstance(x, str) for x in v))


# --------------------------------------------------------------------------- helpers
def _paper_tables(paper: Mapping[str, Any]):
    """``(name, dataset -> values)`` of every metric table of ``paper``: ``<metric>``, or
    ``<learner>.<metric>`` (named ``"<learner>.<metric>"``) for per-learner tables."""
    for m, rows in paper.items():
        if m == "columns":
            continue
        if isinstance(rows, Mapping) and rows and all(
            isinstance(v, Mapping) for v in rows.values()
        ):
            for metric, sub in rows.items():
                yield f"{m}.{metric}", sub
        else:
            yield m, rows


def budget_rows(df: Any, metric: str, learner: str | None, methods: Sequence[str],
                datasets: Sequence[str], decimals: int) -> str:
    """Markdown table of ``metric`` over the budgets per dataset × method (see the module
    doc, ``over_budgets``); '' when no method has several budgets."""
    sub = df if learner is None else df[df["learner"] == learner]
    per_k = sub.groupby(["dataset", "method", "k"])[metric].mean()  # over the splits
    if per_k.groupby(["dataset", "method"]).size().max() < 2:
        return ""
    # the budgets are the whole grid, not a sample of it: population std (ddof = 0)
    lines = ["Over the budgets: mean ± std (ddof = 0) of the per-budget values, [the value "
             "at the largest budget]:\n",
             "| Dataset | " + " | ".join(methods) + " |", "|---|" + "---|" * len(methods)]
    means: dict = {}
    for ds in datasets:
        cells = []
        for m in methods:
            try:
                v = per_k.loc[(ds, m)].sort_index()
            except KeyError:
                cells.append(MISSING)
                continue
            means.setdefault(m, []).append(float(v.mean()))
            sd = float(v.std(ddof=0)) if len(v) > 1 else float("nan")
            cells.append(f"{format_number(v.mean(), decimals)} ± "
                         + (MISSING if math.isnan(sd) else f"{format_number(sd, decimals)}")
                         + f" [{format_number(v.iloc[-1], decimals)}]")
        lines.append(f"| {ds} | " + " | ".join(cells) + " |")
    lines.append("| mean | " + " | ".join(
        format_number(np.mean(means[m]), decimals) if m in means else MISSING
        for m in methods) + " |")
    return "\n".join(lines) + "\n"


def paper_rows(paper: Mapping[str, Any], metric: str, learner: str | None,
               methods: Sequence[str], datasets: Sequence[str], decimals: int) -> str:
    """Markdown table of the paper's values of ``metric`` (for ``learner`` when the paper
    table is given per learner) for ``methods`` × ``datasets``, with their mean over the
    datasets listed; '' when the paper gives none."""
    rows = dict(_paper_tables(paper))
    table = rows.get(f"{learner}.{metric}") if learner else None
    table = table if table is not None else rows.get(metric)
    if not table:
        return ""
    cols = list(paper["columns"])
    shown = [d for d in datasets if d in table]
    if not shown:
        return ""

    def val(ds: str, m: str) -> float:
        return float(table[ds][cols.index(m)]) if m in cols else float("nan")

    lines = ["The paper's values (same datasets; – = not given):\n",
             "| Dataset | " + " | ".join(methods) + " |", "|---|" + "---|" * len(methods)]
    for ds in shown + ["mean"]:
        vals = [val(ds, m) if ds != "mean" else float(np.mean([val(d, m) for d in shown]))
                for m in methods]
        lines.append(f"| {ds} | " + " | ".join(
            MISSING if math.isnan(v) else f"{format_number(v, decimals)}" for v in vals) + " |")
    return "\n".join(lines) + "\n"


def split_variant(name: str) -> tuple[str, dict[str, str]]:
    """``"ML-kNN-WF[k=5]"`` → ``("ML-kNN-WF", {"k": "5"})`` (no brackets: no variants)."""
    m = _VARIANT.match(str(name))
    if not m:
        return str(name), {}
    params = {}
    for part in m.group("label").split(","):
        k, _, v = part.partition("=")
        params[k.strip()] = v.strip()
    return m.group("base"), params


def _join(base: str, params: Mapping[str, str]) -> str:
    return f"{base}[{','.join(f'{k}={v}' for k, v in params.items())}]" if params else base


def _value_key(v: str) -> Any:
    try:
        return (0, float(v), "")
    except ValueError:
        return (1, 0.0, v)


def _fmt_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _metric_columns(df: Any) -> list[str]:
    return [c for c in df.columns if c not in _NON_METRIC and df[c].dtype.kind == "f"]


# --------------------------------------------------------------------------- preparing
def fold_name(name: str, parameter: str) -> str:
    """``"memetic[metric=one_error]"`` → ``"memetic"`` (other variant labels are kept)."""
    base, params = split_variant(name)
    if params.pop(parameter, None) is None:
        return str(name)
    return _join(base, params)


def fold_optimised(df: Any, parameter: str, convergence: str | None = None) -> Any:
    """Each variant ``base[parameter=<metric>]`` keeps only its metric's value, and the
    variants of a base become one method ``base`` (one row per dataset, split, k,
    learner), whose selection time is the mean over the folded searches. The history kept
    for the convergence figures is that of the ``convergence`` metric's search (default:
    the first metric column)."""
    metrics = _metric_columns(df)
    rows = df.copy()
    target = []
    names = []
    for m in rows["method"]:
        base, params = split_variant(m)
        t = params.pop(parameter, None)
        target.append(t)
        names.append(_join(base, params) if t is not None else m)
    target = np.asarray(target, dtype=object)
    if not any(t is not None for t in target):
        return df
    for c in metrics:
        other = np.array([t is not None and t != c for t in target])
        rows.loc[other, c] = np.nan
    rows["method"] = names
    if "selection_time" in rows:  # a folded method's run time: the mean of its searches
        rows["selection_time"] = rows.groupby(
            ["dataset", "split", "method", "k", "learner"], sort=False, dropna=False
        )["selection_time"].transform("mean")
    first = convergence or (metrics[0] if metrics else None)
    rows["_order"] = [0 if t == first else 1 for t in target]
    rows = rows.sort_values("_order", kind="stable").drop(columns="_order")
    keys = ["dataset", "split", "method", "k", "learner"]
    out = rows.groupby(keys, sort=False, dropna=False).first().reset_index()
    return out.sort_values(["dataset", "method", "k", "learner", "split"]).reset_index(drop=True)


def included(report: Mapping[str, Any], at: str) -> list[str]:
    """Markdown of the ``include`` files placed ``at`` ("start" or "end"), read now."""
    md = []
    for t in report.get("include") or ():
        if t.get("at", "start") != at:
            continue
        if t.get("title"):
            md.append(f"## {t['title']}\n")
        p = Path(t["file"])
        if not p.is_file():  # moved since the run: say so rather than fail the report
            warnings.warn(f"report include: no file {p}; left out.", stacklevel=2)
            md.append(f"_(included file {p.name} not found)_\n")
            continue
        md.append(p.read_text(encoding="utf-8").rstrip() + "\n")
    return md


# --------------------------------------------------------------------------- sections
def _reference_section(ref: Any, datasets: Sequence[str], decimals: int, meta) -> str:
    metrics = _metric_columns(ref)
    per = ref.groupby(["dataset", "method", "learner", "split"])[metrics].mean()
    g = per.groupby(["dataset", "method", "learner"])
    mu, sd = g.mean(), g.std(ddof=1)
    cols = [(lr, m) for lr in sorted(ref["learner"].astype(str).unique()) for m in metrics]
    lines = ["## Reference methods (not compared)\n",
             "Mean ± std over the splits (a method with several budgets averaged over them "
             "first); left out of the ranks and tests above.\n",
             "| Dataset | method | " + " | ".join(
                 f"{lr} {m} {'↑' if greater_is_better(m, meta) else '↓'}" for lr, m in cols) + " |",
             "|---|---|" + "---|" * len(cols)]
    for ds in _order(mu.index.get_level_values(0).unique(), datasets):
        for meth in mu.loc[ds].index.get_level_values(0).unique():
            cells = []
            for lr, m in cols:
                key = (ds, meth, lr)
                if key not in mu.index or np.isnan(mu.loc[key, m]):
                    cells.append(MISSING)
                    continue
                s = sd.loc[key, m]
                cells.append(f"{format_number(mu.loc[key, m], decimals)} ± "
                             + (MISSING if np.isnan(s) else f"{format_number(s, decimals)}"))
            lines.append(f"| {ds} | {meth} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def chosen_values(df: Any, parameter: str, criterion: str, gib: bool) -> dict:
    """``{(dataset, base): value}``: the variant value with the best mean ``criterion``
    over the splits (ties → the smaller value for losses, the larger for scores)."""
    out = {}
    means = df.groupby(["dataset", "method"])[criterion].mean()
    best: dict = {}
    for (ds, method), v in means.items():
        base, params = split_variant(method)
        if parameter not in params:
            continue
        key = (float(v), _value_key(params[parameter]))
        cur = best.get((ds, base))
        if cur is None or (key > cur[0] if gib else key < cur[0]):
            best[(ds, base)] = (key, params[parameter])
    for k, (_, val) in best.items():
        out[k] = val
    return out


def _choose_sections(df, report, meta, out, datasets, decimals, alpha, m_order):
    ch = report["choose"]
    par, crit = ch["parameter"], ch["criterion"]
    fixed = _fmt_value(ch["fixed"])
    views = {"fixed": [], "tuned": None, **{k: list(v) for k, v in ch.get("views", {}).items()}}
    chosen = chosen_values(df, par, crit, greater_is_better(crit, meta))
    metrics = [c for c in _metric_columns(df)]
    bases = list(dict.fromkeys(
        split_variant(m)[0] for m in _order(df["method"].unique(), m_order)
        if par in split_variant(m)[1]
    ))
    paper = report.get("paper") or {}
    pairs = (report.get("pairs") or {}).get("pairs", [])
    md = [f"## {par} chosen per dataset × method ({crit}, mean over the splits)\n",
          f"Views: **fixed** ({par} = {fixed} everywhere), **tuned** ({par} with the best mean "
          f"{crit} over the grid, per dataset × method, chosen on the same splits that are "
          "reported)" + "".join(f", **{v}** (tuned: {', '.join(t)}; the others at "
                                f"{par} = {fixed})" for v, t in views.items()
                                if v not in ("fixed", "tuned")) +
          ". Cells: mean ± std (ddof = 1) over the splits; bold: the better of each "
          "compared pair; *paper*: the published values.\n"]
    per_split = df.groupby(["dataset", "method", "split"])[metrics].mean()
    results: dict = {}
    for view, tuned in views.items():
        md.append(f"### View: {view}\n")
        means: dict = {}
        for metric in metrics:
            gib = greater_is_better(metric, meta)
            md.append(f"#### {metric} {'↑' if gib else '↓'}\n")
            md.append("| dataset | " + " | ".join(bases) + " |")
            md.append("|---|" + "---|" * len(bases))
            for ds in datasets:
                cells = []
                for b in bases:
                    val = chosen.get((ds, b), fixed) if (
                        tuned is None or b in tuned) else fixed
                    name = _join(b, {par: val})
                    try:
                        v = per_split.loc[(ds, name), metric].to_numpy()
                    except KeyError:
                        cells.append(MISSING)
                        continue
                    mu = float(np.mean(v))
                    sd = float(np.std(v, ddof=1)) if v.size > 1 else float("nan")
                    means.setdefault(metric, {}).setdefault(ds, {})[b] = mu
                    cells.append(f"{format_number(mu, decimals)} ± "
                                 f"{format_number(sd, decimals)} ({par}={val})")
                for a, b in pairs:  # bold the better of each pair
                    row = means.get(metric, {}).get(ds, {})
                    if a in row and b in row and round(row[a] - row[b], 12) != 0:
                        j = bases.index(a if (row[a] > row[b]) == gib else b)
                        cells[j] = f"**{cells[j]}**"
                md.append(f"| {ds} | " + " | ".join(cells) + " |")
                prow = (paper.get(metric) or {}).get(ds)
                if prow is not None:
                    pc = list(paper["columns"])
                    md.append("| *paper* | " + " | ".join(
                        MISSING if b not in pc or math.isnan(prow[pc.index(b)])
                        else f"{format_number(prow[pc.index(b)], decimals)}" for b in bases) + " |")
            md.append("")
        if pairs:
            md.append(_pairs_markdown(means, pairs, meta, alpha, view))
            if paper:
                md.append(_direction_markdown(means, pairs, paper, meta, view))
        results[view] = means
    files = []
    out.mkdir(parents=True, exist_ok=True)
    p = out / "results.json"
    p.write_text(json.dumps(_results_json(df, meta, chosen, par, metrics), indent=1),
                 encoding="utf-8")
    files.append(p)
    md.append("Per-split values and run times: [results.json](results.json).\n")
    return md, files


def _pairs_markdown(means, pairs, meta, alpha, view) -> str:
    lines = [f"Wilcoxon signed-rank test over the datasets ({view}; α = {alpha}; "
             "better / worse / ties count datasets; R⁺ = rank sum where the second method is "
             "better, R⁻ where the first is):\n",
             "| comparison | metric | first better | second better | ties | R⁺ | R⁻ | "
             "p (exact) | p (scipy, zsplit) | verdict |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for a, b in pairs:
        for metric, byds in means.items():
            ds = [d for d, row in byds.items() if a in row and b in row]
            if len(ds) < 2:
                continue
            gib = greater_is_better(metric, meta)
            x = np.array([byds[d][a] for d in ds])
            y = np.array([byds[d][b] for d in ds])
            d = np.round(x - y, 12)
            wins = int(np.sum(d > 0) if gib else np.sum(d < 0))
            ties = int(np.sum(d == 0))
            r = wilcoxon_signed_rank(x, y, gib, alpha=alpha, decimals=12)
            try:
                p_sc = float(wilcoxon(x, y, zero_method="zsplit").pvalue)
            except ValueError:  # every difference zero
                p_sc = float("nan")
            verdict = {"win": f"R ({a} better)", "loss": f"R ({b} better)", "tie": "NR"}
            lines.append(f"| {a} vs {b} | {metric} | {wins} | {len(ds) - wins - ties} | "
                         f"{ties} | {r.r_plus:g} | {r.r_minus:g} | {r.pvalue:.3g} | "
                         f"{p_sc:.3g} | {verdict[r.verdict]} |")
    return "\n".join(lines) + "\n"


def _direction_markdown(means, pairs, paper, meta, view) -> str:
    cols = list(paper["columns"])
    lines = [f"Direction of each pair's difference against the paper's ({view}; "
             "dataset × pair):\n",
             "| metric | same as paper | opposite | we tie | paper ties or unreadable |",
             "|---|---|---|---|---|"]
    for metric, byds in means.items():
        same = opp = tie = na = 0
        for ds, row in byds.items():
            pv = (paper.get(metric) or {}).get(ds)
            for a, b in pairs:
                if a not in row or b not in row:
                    continue
                if pv is None or a not in cols or b not in cols or any(
                    math.isnan(pv[cols.index(x)]) for x in (a, b)
                ):
                    na += 1
                    continue
                theirs = np.sign(round(pv[cols.index(a)] - pv[cols.index(b)], 6))
                ours = np.sign(round(row[a] - row[b], 12))
                if theirs == 0:
                    na += 1
                elif ours == 0:
                    tie += 1
                elif ours == theirs:
                    same += 1
                else:
                    opp += 1
        lines.append(f"| {metric} | {same} | {opp} | {tie} | {na} |")
    return "\n".join(lines) + "\n"


def _results_json(df, meta, chosen, par, metrics) -> dict:
    res: dict = {}
    for ds, g in df.groupby("dataset", sort=False):
        info = meta.get(f"dataset:{ds}")
        entry: dict = {"dataset": json.loads(info) if info else {}}
        times = g[["selection_time", "fit_time", "predict_time"]].fillna(0.0)
        entry["seconds_cells"] = float(times.to_numpy().sum())
        if "peak_rss_mb" in g and g["peak_rss_mb"].notna().any():  # None: not recorded
            entry["peak_rss_mb"] = float(g["peak_rss_mb"].max())
        else:
            entry["peak_rss_mb"] = None
        entry["chosen"] = {b: v for (d, b), v in chosen.items() if d == ds}
        vals: dict = {}
        for method, gm in g.groupby("method", sort=False):
            gm = gm.sort_values("split")
            vals[method] = {
                "splits": [int(s) for s in gm["split"]],
                **{m: [float(x) for x in gm[m]] for m in metrics},
                "seconds": float(gm[["fit_time", "predict_time"]].to_numpy().sum()),
            }
        entry["values"] = vals
        res[str(ds)] = entry
    return {"parameter": par, "results": res}


def _ablation_section(ab_df, df, ab, out, datasets, figures, meta):
    par, metric, ref = ab["parameter"], ab["metric"], ab["reference"]
    gib = greater_is_better(metric, meta)
    vals: dict = {}
    for (ds, method), g in ab_df.groupby(["dataset", "method"]):
        v = split_variant(method)[1].get(par)
        if v is not None:
            vals.setdefault(ds, {})[v] = g.groupby("split")[metric].mean()
    levels = sorted({v for d in vals.values() for v in d}, key=_value_key)
    rows = [d for d in datasets if d in vals] + sorted(set(vals) - set(datasets))
    md = [f"## Ablation: {ab['method']} with constant {par} versus {ref} ({metric})\n",
          f"Mean {metric} over the splits for each value of {par}, and the reference method "
          "on the same splits.\n",
          "| dataset | " + " | ".join(f"{par} = {v}" for v in levels) + f" | {ref} | "
          f"{ref} best? |",
          "|---|" + "---|" * (len(levels) + 2)]
    csv_rows = []
    curves = {}
    for ds in rows:
        const = [float(vals[ds][v].mean()) if v in vals[ds] else float("nan") for v in levels]
        splits = sorted({s for v in vals[ds].values() for s in v.index})
        r = df[(df["dataset"] == ds) & (df["method"] == ref) & df["split"].isin(splits)]
        refv = float(r.groupby("split")[metric].mean().mean()) if len(r) else float("nan")
        md.append(f"| {ds} | " + " | ".join(f"{c:.4f}" for c in const) + f" | {refv:.4f} | "
                  + (MISSING if math.isnan(refv) else
                     ("yes" if _beats(refv, const, gib) else "no")) + " |")
        for v in levels:
            for s, x in vals[ds].get(v, {}).items():
                csv_rows.append((ds, int(s), v, float(x)))
        curves[ds] = (const, refv)
    md.append("")
    files = []
    (out / "tables").mkdir(parents=True, exist_ok=True)
    p = out / "tables" / "ablation.csv"
    with open(p, "w", encoding="utf-8") as fh:
        fh.write(f"dataset,split,{par},{metric}\n")
        for r in csv_rows:
            fh.write(f"{r[0]},{r[1]},{r[2]},{r[3]:.6f}\n")
    files.append(p)
    if figures and curves:
        from ...plots import new_figure, save  # matplotlib

        fig = new_figure(3.6 * len(curves), 3.2, 130)
        x = [float(v[1]) if v[0] == 0 else i for i, v in enumerate(map(_value_key, levels))]
        for i, (ds, (const, refv)) in enumerate(curves.items()):
            ax = fig.add_subplot(1, len(curves), i + 1)
            ax.plot(x, const, "k:", marker="o", label=f"constant {par}")
            ax.axhline(refv, color="tab:red", lw=1.5, label=ref)
            ax.set_title(str(ds))
            ax.set_xlabel(par)
            ax.set_ylabel(metric)
            ax.grid(True, alpha=0.3)
            if i == 0:
                ax.legend(fontsize="x-small", frameon=False)
        fig.tight_layout()
        (out / "figures").mkdir(parents=True, exist_ok=True)
        p = out / "figures" / "ablation.png"
        save(fig, p)
        _close(fig)
        files.append(p)
        md.append("![ablation](figures/ablation.png)\n")
    return md, files


def _versus_section(df, v, datasets, meta, decimals, alpha) -> list[str]:
    a, b, metric = v["method"], v["reference"], v["metric"]
    gib = greater_is_better(metric, meta)
    md = [f"## {a} vs {b} on {metric.replace('_', ' ')}\n",
          f"Mean {metric} over the splits both ran (the better in bold), and a two-sided "
          f"paired t-test over those splits (α = {alpha}; W/T/L from {a}'s side).\n",
          f"| dataset | {a} | {b} | {a} vs {b} |", "|---|---|---|---|"]
    higher, not_higher, wtl = 0, [], [0, 0, 0]
    for ds in datasets:
        d = df[(df["dataset"] == ds) & df["method"].isin([a, b])]
        tab = d.pivot_table(index="split", columns="method", values=metric, aggfunc="mean")
        if a not in tab or b not in tab:
            continue
        tab = tab[[a, b]].dropna()
        if not len(tab):
            continue
        ma, mb = float(tab[a].mean()), float(tab[b].mean())
        better = ma > mb if gib else ma < mb
        higher += better
        if not better:
            not_higher.append(str(ds))
        cells = [f"{format_number(x, decimals)}" for x in (ma, mb)]
        if ma != mb:
            cells[0 if better else 1] = f"**{cells[0 if better else 1]}**"
        if len(tab) >= 2:
            r = paired_ttest(tab[a].to_numpy()[None, :], tab[b].to_numpy()[None, :],
                             gib, alpha=alpha)
            o = str(r.outcome[0])
            wtl[("win", "tie", "loss").index(o)] += 1
            p = float(r.pvalue[0])
            test = f"{o[0].upper()} (p={p:.3f})" if np.isfinite(p) else o[0].upper()
        else:
            test = MISSING
        md.append(f"| {ds} | {cells[0]} | {cells[1]} | {test} |")
    n = higher + len(not_higher)
    word = "higher" if gib else "lower"
    md += ["", f"{a} has the {word} mean on {higher} of {n} data sets"
           + (f" (not on: {', '.join(not_higher)})" if not_higher else "")
           + f"; significant wins/ties/losses: {wtl[0]}/{wtl[1]}/{wtl[2]}.\n"]
    return md


def _seeds_sections(sdf, full, se, datasets, meta, decimals) -> list[str]:
    """The ``seeds`` view: one table per metric (see the module doc)."""
    groups = dict(se["methods"])
    met = se.get("metric", _metric_columns(sdf))
    metrics = [met] if isinstance(met, str) else list(met)
    # a group is a selector (its cells' learner is the other coordinate) or a learner
    sel_base = sdf["method"].map(lambda m: split_variant(m)[0])
    is_sel = sel_base.isin(groups)
    sdf = sdf.assign(
        group=np.where(is_sel, sel_base, sdf["learner"].map(lambda m: split_variant(m)[0])),
        seed=np.where(is_sel, sdf["method"], sdf["learner"]),
        other=np.where(is_sel, sdf["learner"], sdf["method"]), by_selector=is_sel)
    keys = ["dataset", "group", "other", "k"]
    rows = list(sdf.groupby(keys, sort=False))
    rows.sort(key=lambda r: (list(datasets).index(r[0][0]) if r[0][0] in datasets
                             else len(datasets), list(groups).index(r[0][1])))
    md = []
    for metric in metrics:
        gib = greater_is_better(metric, meta)
        md += [f"## Seed sensitivity: {metric.replace('_', ' ')}\n",
               "Each seed's value is its mean over the splits; mean ± std (ddof = 0) and "
               "min … max over the seeds; *reference*: the reference method's mean over the "
               "splits with the same learner (or selector) and budget; *better*: seeds "
               f"with a {'higher' if gib else 'lower'} value than the reference; *shared*: "
               "features two seeds both select, mean (min–max) over the pairs of seeds "
               "and the splits.\n",
               "| dataset | seeds | with | k | reference | value | mean ± std over the "
               "seeds | min … max | better | shared |",
               "|---|---|---|---|---|---|---|---|---|---|"]
        for (ds, grp, other, k), g in rows:
            v = g.groupby("seed")[metric].mean().to_numpy(dtype=float)
            ref_name = groups[grp]
            col, other_col = (("method", "learner") if g["by_selector"].iloc[0]
                              else ("learner", "method"))
            ref = full[(full["dataset"] == ds) & (full[col] == ref_name)
                       & (full[other_col] == other) & (full["k"] == k)][metric]
            r = float(ref.mean()) if len(ref) else float("nan")
            better = int(np.sum(v > r) if gib else np.sum(v < r))
            shared = MISSING
            if g["by_selector"].iloc[0]:
                sizes = []
                for _, sp_ in g.drop_duplicates(["seed", "split"]).groupby("split"):
                    sets = [set(f) for f in sp_["features"]]
                    sizes += [len(a & b) for i, a in enumerate(sets) for b in sets[i + 1:]]
                if sizes:
                    shared = (f"{np.mean(sizes):.1f} ({min(sizes)}–{max(sizes)}) of "
                              f"{int(k)}")
            md.append(
                f"| {ds} | {grp} | {other} | {int(k)} | {ref_name} | "
                + (MISSING if math.isnan(r) else f"{format_number(r, decimals)}")
                + f" | {format_number(v.mean(), decimals)} ± "
                f"{format_number(v.std(ddof=0), decimals)} | "
                f"{format_number(v.min(), decimals)} … {format_number(v.max(), decimals)} | "
                + (MISSING if math.isnan(r) else f"{better} of {v.size}") + f" | {shared} |")
        md.append("")
    return md


def stability_frame(df: Any, meta: Mapping, alpha: float = 0.05) -> Any:
    """Φ̂ (with its interval) and Kuncheva's index per dataset × selector × budget.

    The selections are the ``features`` of each split's cells (one per split: the
    learners of a split share it). A group with fewer than two splits is left out.
    """
    import pandas as pd

    sel = df.drop_duplicates(["dataset", "method", "k", "split"])
    rows = []
    for (ds, method, k), g in sel.groupby(["dataset", "method", "k"], sort=False):
        if len(g) < 2:
            continue
        info = meta.get(f"dataset:{ds}")
        d = (json.loads(info) if isinstance(info, str) else info or {}).get("n_features")
        if not d:
            d = 1 + max((max(f) for f in g["features"] if len(f)), default=0)
        Z = selection_matrix([np.asarray(f, dtype=np.intp) for f in g["features"]], int(d),
                             sparse=True)
        est = nogueira_stability(Z, alpha=alpha)
        try:
            kun = kuncheva_index(Z)
        except ValueError:  # subsets of different sizes: Kuncheva's index is undefined
            kun = float("nan")
        rows.append({"dataset": ds, "method": method, "k": int(k), "splits": len(g),
                     "stability": est.stability, "lower": est.lower, "upper": est.upper,
                     "variance": est.variance, "kuncheva": kun})
    return pd.DataFrame(rows, columns=["dataset", "method", "k", "splits", "stability",
                                       "lower", "upper", "variance", "kuncheva"])


def _stability_sections(df, meta, out, datasets, m_order, decimals, alpha, table=None):
    """The ``stability`` view: Φ̂ over the budgets per dataset × selector, and its CSV.

    ``table`` (a ranked :class:`MetricTable`): where its mean is partial (a method stopped
    on some of the data set's splits), Φ̂ over those splits is shown marked ``(n/N)`` and,
    like the mean, left out of the mean and the ranks (fewer subsets than the row's)."""
    sf = stability_frame(df, meta, alpha)
    if sf.empty:
        return [], []
    (out / "tables").mkdir(parents=True, exist_ok=True)
    path = out / "tables" / "stability.csv"
    sf.to_csv(path, index=False, float_format="%.6g")
    methods = _order(sf["method"].unique(), m_order)
    wide = sf.groupby(["dataset", "method"])["stability"].mean().unstack("method")
    wide = wide.reindex(index=[d for d in datasets if d in wide.index], columns=methods)
    ranked = _ranked_only(wide, table)
    ranks = ranked.rank(axis=1, ascending=False, method="average").mean(axis=0)

    def f(v: float) -> str:
        return MISSING if not np.isfinite(v) else f"{format_number(v, decimals)}"

    md = ["## Selection stability\n",
          "Nogueira, Sechidis and Brown's Φ̂ of the subsets the splits selected (1 = the same "
          "subset on every split, about 0 = no more overlap than random subsets of the same "
          "sizes), averaged over the budgets; per budget, with its "
          f"{100 * (1 - alpha):g} % confidence interval and Kuncheva's index, in "
          "`tables/stability.csv`. Average rank: 1 = most stable.\n",
          "| dataset | " + " | ".join(methods) + " |",
          "|---|" + "---|" * len(methods)]
    masked = wide.notna() & ranked.isna()  # shown, but not ranked: the partial values
    partial = []
    for ds, r in wide.iterrows():
        cells = []
        for m in methods:
            s = f(r[m])
            if masked.at[ds, m]:
                s += f" ({table.split_count(ds, m)})"
                partial.append(f"{ds} ({m} {table.split_count(ds, m)})")
            cells.append(s)
        md.append(f"| {ds} | " + " | ".join(cells) + " |")
    md.append("| **mean** | " + " | ".join(f(ranked[m].mean()) for m in methods) + " |")
    md.append("| **average rank** | " + " | ".join(f(ranks[m]) for m in methods) + " |")
    if partial:
        md.append("\nA value marked (n/N) is Φ̂ over the n of the data set's N splits where "
                  "the method finished: it is left out of the mean and the ranks, as its "
                  "metrics are: " + "; ".join(partial) + ".")
    md.append("")
    return md, [path]


def _record(info: Any, key: str) -> Any:
    return ((info or {}).get("selector") or {}).get(key) if isinstance(info, dict) else None


def _records_sections(rdf, rc, out, datasets, figures, decimals):
    """The ``records`` view: low-label curves at chosen evaluations, success ratios."""
    # one search per (dataset, method, split): its budgets/learners carry the same record
    rdf = rdf.drop_duplicates(["dataset", "method", "split"])
    curves: dict = {}  # dataset -> method -> fraction -> list of per-split arrays
    success: dict = {}
    for ds, meth, info in zip(rdf["dataset"], rdf["method"], rdf["info"], strict=True):
        for f, v in (_record(info, "low_labels") or {}).items():
            curves.setdefault(ds, {}).setdefault(meth, {}).setdefault(f, []).append(
                np.asarray(v, dtype=float))
        r = _record(info, "success_ratio")
        if r is not None:
            success.setdefault(ds, {}).setdefault(meth, []).append(float(r))
    present = list(dict.fromkeys(rdf["method"]))  # in the view's order
    methods = [m for m in rc["methods"] if m in present]
    methods += [m for m in present if m not in methods]
    md: list[str] = []
    files: list[Path] = []
    fr = sorted({f for d in curves.values() for m in d.values() for f in m},
                key=float, reverse=True)
    if curves:
        evals = [int(e) for e in rc.get("evaluations", [])]
        cols = [(m, f) for f in fr for m in methods]
        md += ["## Convergence on the least accurate labels\n",
               "Mean inner-holdout accuracy of the least accurate labels (the share of the "
               "labels in the column, at least one) of the population's best subset after "
               "each evaluation, mean over the splits (searches run with `record`); "
               "*last*: each search's final evaluation.\n",
               "| dataset | evaluation | " + " | ".join(
                   f"{m} low {float(f):.0%}" for m, f in cols) + " |",
               "|---|---|" + "---|" * len(cols)]
        for ds in [d for d in datasets if d in curves] + sorted(set(curves) - set(datasets)):
            for e in evals + ["last"]:
                vals = []
                for m, f in cols:
                    arrs = curves[ds].get(m, {}).get(f, [])
                    xs = [a[-1] if e == "last" else a[e - 1] for a in arrs
                          if e == "last" or len(a) >= e]
                    vals.append(f"{format_number(np.mean(xs), decimals)}" if xs else MISSING)
                md.append(f"| {ds} | {e} | " + " | ".join(vals) + " |")
        md.append("")
        if figures:
            from ...plots import metric_curves
            (out / "figures").mkdir(parents=True, exist_ok=True)
            for ds, per in curves.items():
                data = {}
                for m, f in cols:
                    arrs = per.get(m, {}).get(f, [])
                    if not arrs:
                        continue
                    n = max(len(a) for a in arrs)
                    mat = np.full((len(arrs), n), np.nan)
                    for i, a in enumerate(arrs):
                        mat[i, : len(a)] = a
                    data[f"{m} low {float(f):.0%}"] = (np.arange(1, n + 1), np.nanmean(mat, 0))
                slug = "".join(c if c.isalnum() or c in "._-" else "_" for c in str(ds))
                p = out / "figures" / f"low_labels_{slug}.png"
                _close(metric_curves(data, "fitness evaluations", "accuracy", p,
                                     title=f"{ds}: least accurate labels", std_band=False))
                files.append(p)
                md.append(f"![{ds}: least accurate labels](figures/{p.name})\n")
    if success:
        md += ["## Reproduction success ratio\n",
               "Share of offspring whose inner-holdout loss is below their parent's, mean "
               "over the splits (searches run with `record = { success = true }`).\n",
               "| dataset | " + " | ".join(methods) + " |", "|---|" + "---|" * len(methods)]
        for ds in [d for d in datasets if d in success] + sorted(set(success) - set(datasets)):
            md.append(f"| {ds} | " + " | ".join(
                f"{np.mean(success[ds][m]):.3f}" if success[ds].get(m) else MISSING
                for m in methods) + " |")
        md.append("")
    return md, files


def _beats(ref: float, const: Sequence[float], gib: bool) -> bool:
    c = [x for x in const if not math.isnan(x)]
    if not c:
        return False
    return ref > max(c) if gib else ref < min(c)
