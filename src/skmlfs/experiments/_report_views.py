"""Report parts declared in an experiment's ``[report]`` table (issue #14).

Generic mechanisms the paper reproductions need beyond the per-metric tables of
:func:`~skmlfs.experiments.write_report`; each is a sub-table of ``[report]``:

``optimised = { parameter = "metric", convergence = "multilabel_accuracy" }``
    Methods with variants over a parameter that names the metric they optimise (one
    wrapper search per metric): each variant is reported on its own metric only, and the
    variants fold into one column (``memetic[metric=one_error]`` → ``memetic``). The
    convergence figures use the searches of ``convergence``.
``choose = { parameter = "k", criterion = "hamming_loss", fixed = 10, views = {...} }``
    A variant parameter chosen per dataset × method by the mean of ``criterion`` over the
    splits (ties → the smaller value when lower is better, the larger otherwise). Views:
    ``fixed`` (``fixed`` everywhere), ``tuned`` (chosen everywhere), and one per entry of
    ``views`` (name → methods tuned; the others at ``fixed``). Each view: mean ± std tables
    with the chosen value, the paper's values (``paper``), and the ``pairs`` test.
``pairs = { test = "wilcoxon", pairs = [[a, b], ...] }``
    Wilcoxon signed-rank test over the datasets of the per-dataset means of each pair
    (``a`` against ``b``; R⁺ = rank sum where ``b`` is better, Demšar 2006), per metric and
    view; with ``paper``, how often the direction of ``a`` vs ``b`` agrees with the paper.
``paper = { columns = [...], <metric> = { <dataset> = [...] } }``
    The paper's published values, one per column (``nan``: unreadable), printed beside ours
    (in the ``choose`` views, else as a table after each metric table); a sub-table
    ``<learner> = { <metric> = {...} }`` holds one learner's values.
``include = [{ file = "discussion.md", at = "start" | "end", title = "..." }, ...]``
    Hand-written text kept across regenerations: each file (relative to the experiment
    file) is copied into README.md after the overview (``at = "start"``, the default) or
    after every generated section (``"end"``), under ``title`` when given.
``reference = ["ALL", ...]``
    Methods shown for reference only (e.g. every feature, no selection): their cells leave
    the compared tables (ranks, tests) and get one table, dataset × learner × metric,
    mean ± std over the splits and budgets.
``over_budgets = true``
    After each metric table, the same cells summarised over the budgets, as papers with
    budget curves report them: mean ± std (ddof = 0) over the budgets (of the split
    means), the value at the largest budget in brackets, and the mean over the datasets.
``ablation = { method = ..., parameter = ..., reference = ..., metric = ... }``
    The variants of ``method`` over ``parameter`` (e.g. a constant |Z|/|L| = p) against the
    ``reference`` method on ``metric``: table, ``figures/ablation.png`` and
    ``tables/ablation.csv``; the ablation cells leave the main tables. ``datasets`` (a
    list of names) limits the section to those data sets.
``versus = { method = ..., reference = ..., metric = ... }``
    ``method`` against ``reference`` on ``metric`` per dataset: the two means over the
    splits both ran, a two-sided paired t-test over those splits (W/T/L from ``method``'s
    side at ``alpha``), and a summary line (higher mean on how many data sets, the W/T/L
    totals). A list of such tables gives one section each.
``records = { methods = [...], evaluations = [50, 150] }``
    Searches run with the selector option ``record`` (extra copies of a comparison's
    searches, kept out of the main tables): the mean over the splits of each
    ``low_labels`` curve at the given evaluations and at the last one, drawn as
    ``figures/low_labels_<dataset>.png``, and the mean ``success_ratio`` per dataset.

``seeds = { methods = { <seeds> = <reference>, ... }, metric = ... }``
    Seed sensitivity: ``<seeds>`` names a selector or learner whose variants differ in
    the option ``seed_offset`` only (leaving the main tables); per dataset × seed group ×
    the learner (or selector) it ran with × budget: the ``<reference>`` method's mean
    over the splits, the mean ± std (ddof = 0) over the seeds of the per-seed means over
    the splits, their min … max, how many seeds beat the reference and, for selectors,
    the size of the intersection of two seeds' selected sets (mean, min–max over the
    pairs and splits). ``metric``: a metric name or a list (default: every metric).

``stability = true`` (or ``{ alpha = 0.05 }``)
    Selection stability over the splits, per dataset × selector × budget, from the
    features each split's selection kept (``skmlfs.metrics``): Nogueira, Sechidis and
    Brown's Φ̂ with its ``1 − alpha`` confidence interval and Kuncheva's index (undefined,
    "–", where the splits' subsets differ in size). One table, datasets × selectors, of Φ̂
    averaged over the budgets, with the mean over the datasets and the average rank (1 =
    most stable); every (dataset, selector, budget) value with its interval in
    ``tables/stability.csv``.

Also written for every experiment with wrapper histories: ``tables/convergence.csv`` (the
best fitness per evaluation), and, with ``choose``, ``results.json`` (per-split values and
run times per dataset and method).
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

__all__ = ["REPORT_VIEW_KEYS", "check_report_views", "prepare", "sections", "stability_frame"]

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
                cells.append("–")
                continue
            means.setdefault(m, []).append(float(v.mean()))
            sd = float(v.std(ddof=0)) if len(v) > 1 else float("nan")
            cells.append(f"{v.mean():.{decimals}f} ± "
                         + ("–" if math.isnan(sd) else f"{sd:.{decimals}f}")
                         + f" [{v.iloc[-1]:.{decimals}f}]")
        lines.append(f"| {ds} | " + " | ".join(cells) + " |")
    lines.append("| mean | " + " | ".join(
        f"{np.mean(means[m]):.{decimals}f}" if m in means else "–" for m in methods) + " |")
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
            "–" if math.isnan(v) else f"{v:.{decimals}f}" for v in vals) + " |")
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


def _direction(metric: str, meta: Mapping) -> bool:
    from ._report import _metric_direction

    return _metric_direction(metric, dict(meta))


def _metric_columns(df: Any) -> list[str]:
    from ._store import _NON_METRIC

    return [c for c in df.columns if c not in _NON_METRIC and df[c].dtype.kind == "f"]


# --------------------------------------------------------------------------- preparing
def prepare(df: Any, report: Mapping[str, Any]) -> tuple[Any, dict]:
    """Apply ``optimised`` and take the seed, reference, ablation and record cells out;
    returns ``(df, state)`` where ``state`` keeps what :func:`sections` needs (those
    cells, the full frame without the seed runs)."""
    state: dict[str, Any] = {}
    if report.get("seeds"):  # the seed runs appear in their view only, not even in "full"
        groups = set(report["seeds"]["methods"])
        seeds = (df["method"].map(lambda m: split_variant(m)[0]).isin(groups)
                 | df["learner"].map(lambda m: split_variant(m)[0]).isin(groups))
        state["seeds"] = df[seeds]
        df = df[~seeds]
    state["full"] = df
    if report.get("reference"):
        ref = df["method"].isin(list(report["reference"]))
        state["reference"] = df[ref]
        df = df[~ref]
    ab, rc = report.get("ablation"), report.get("records")
    base = df["method"].map(lambda m: split_variant(m)[0]) if ab or rc else None
    if ab:
        state["ablation"] = df[base == ab["method"]]
        df, base = df[base != ab["method"]], base[base != ab["method"]]
    if rc:
        keep = base.isin(rc["methods"]) | df["method"].isin(rc["methods"])
        state["records"] = df[keep]
        df = df[~keep]
    opt = report.get("optimised")
    if opt:
        df = fold_optimised(df, opt["parameter"], opt.get("convergence"))
    return df, state


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


def resolve_includes(report: Mapping[str, Any], base_dir: str | None) -> dict:
    """``report`` with each ``include`` file made absolute against ``base_dir`` (the
    experiment file's folder), so that ``mlfs report`` on the store finds it; a missing
    file is an error naming it. Without ``base_dir`` (a spec from a dict) the paths are
    left as given."""
    if not report.get("include") or base_dir is None:
        return dict(report)
    files = []
    for t in report["include"]:
        p = Path(base_dir) / t["file"]
        if not p.is_file():
            raise ValueError(f"report.include: no file {p}.")
        files.append({**t, "file": str(p.resolve())})
    return {**report, "include": files}


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
def sections(df: Any, state: Mapping, report: Mapping[str, Any], meta: Mapping, out: Path,
             *, figures: bool = True, ds_order: Sequence[str] = (),
             m_order: Sequence[str] = (), decimals: int = 4,
             alpha: float = 0.05) -> tuple[list[str], list[Path]]:
    """Markdown sections and files of the declared report views (see the module doc)."""
    md: list[str] = []
    files: list[Path] = []
    from ._report import _order

    datasets = _order(df["dataset"].unique(), ds_order)
    if report.get("choose"):
        m, f = _choose_sections(df, report, meta, out, datasets, decimals, alpha, m_order)
        md += m
        files += f
    if len(state.get("reference", [])):
        md.append(_reference_section(state["reference"], datasets, decimals, meta))
    vs = report.get("versus")
    for v in [vs] if isinstance(vs, Mapping) else vs or []:
        md += _versus_section(df, v, datasets, meta, decimals, alpha)
    if report.get("seeds") and len(state.get("seeds", [])):
        md += _seeds_sections(state["seeds"], state["full"], report["seeds"], datasets,
                              meta, decimals)
    if report.get("stability"):
        st = report["stability"]
        alpha_st = st.get("alpha", 0.05) if isinstance(st, Mapping) else 0.05
        m, f = _stability_sections(df, meta, out, datasets, m_order, decimals, alpha_st)
        md += m
        files += f
    if report.get("records") and len(state.get("records", [])):
        m, f = _records_sections(state["records"], report["records"], out, datasets,
                                 figures, decimals)
        md += m
        files += f
    if report.get("ablation") and len(state.get("ablation", [])):
        ab = report["ablation"]
        ab_ds = [d for d in datasets if d in ab["datasets"]] if "datasets" in ab else datasets
        ab_df = state["ablation"]
        if "datasets" in ab:
            ab_df = ab_df[ab_df["dataset"].isin(ab["datasets"])]
        if len(ab_df):
            m, f = _ablation_section(ab_df, df, ab, out, ab_ds, figures, meta)
            md += m
            files += f
    from ._histories import search_histories

    h = search_histories(df) if "info" in df else None
    if h is not None and not h.empty:
        (out / "tables").mkdir(parents=True, exist_ok=True)
        p = out / "tables" / "convergence.csv"
        h.to_csv(p, index=False, float_format="%.6g")
        files.append(p)
    return md, files


def _reference_section(ref: Any, datasets: Sequence[str], decimals: int, meta) -> str:
    from ._report import _order

    metrics = _metric_columns(ref)
    per = ref.groupby(["dataset", "method", "learner", "split"])[metrics].mean()
    g = per.groupby(["dataset", "method", "learner"])
    mu, sd = g.mean(), g.std(ddof=1)
    cols = [(lr, m) for lr in sorted(ref["learner"].astype(str).unique()) for m in metrics]
    lines = ["## Reference methods (not compared)\n",
             "Mean ± std over the splits (a method with several budgets averaged over them "
             "first); left out of the ranks and tests above.\n",
             "| Dataset | method | " + " | ".join(
                 f"{lr} {m} {'↑' if _direction(m, meta) else '↓'}" for lr, m in cols) + " |",
             "|---|---|" + "---|" * len(cols)]
    for ds in _order(mu.index.get_level_values(0).unique(), datasets):
        for meth in mu.loc[ds].index.get_level_values(0).unique():
            cells = []
            for lr, m in cols:
                key = (ds, meth, lr)
                if key not in mu.index or np.isnan(mu.loc[key, m]):
                    cells.append("–")
                    continue
                s = sd.loc[key, m]
                cells.append(f"{mu.loc[key, m]:.{decimals}f} ± "
                             + ("–" if np.isnan(s) else f"{s:.{decimals}f}"))
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
    chosen = chosen_values(df, par, crit, _direction(crit, meta))
    metrics = [c for c in _metric_columns(df)]
    from ._report import _order

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
            gib = _direction(metric, meta)
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
                        cells.append("–")
                        continue
                    mu = float(np.mean(v))
                    sd = float(np.std(v, ddof=1)) if v.size > 1 else float("nan")
                    means.setdefault(metric, {}).setdefault(ds, {})[b] = mu
                    cells.append(f"{mu:.{decimals}f} ± {sd:.{decimals}f} ({par}={val})")
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
                        "–" if b not in pc or math.isnan(prow[pc.index(b)])
                        else f"{prow[pc.index(b)]:.{decimals}f}" for b in bases) + " |")
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
    from scipy.stats import wilcoxon

    from ..stats import wilcoxon_signed_rank

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
            gib = _direction(metric, meta)
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
    gib = _direction(metric, meta)
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
                  + ("–" if math.isnan(refv) else
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
        from ..plots._common import new_figure, save

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
        from ._report import _close

        _close(fig)
        files.append(p)
        md.append("![ablation](figures/ablation.png)\n")
    return md, files


def _versus_section(df, v, datasets, meta, decimals, alpha) -> list[str]:
    from ..stats import paired_ttest

    a, b, metric = v["method"], v["reference"], v["metric"]
    gib = _direction(metric, meta)
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
        cells = [f"{x:.{decimals}f}" for x in (ma, mb)]
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
            test = "–"
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
        gib = _direction(metric, meta)
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
            shared = "–"
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
                + ("–" if math.isnan(r) else f"{r:.{decimals}f}")
                + f" | {v.mean():.{decimals}f} ± {v.std(ddof=0):.{decimals}f} | "
                f"{v.min():.{decimals}f} … {v.max():.{decimals}f} | "
                + ("–" if math.isnan(r) else f"{better} of {v.size}") + f" | {shared} |")
        md.append("")
    return md


def stability_frame(df: Any, meta: Mapping, alpha: float = 0.05) -> Any:
    """Φ̂ (with its interval) and Kuncheva's index per dataset × selector × budget.

    The selections are the ``features`` of each split's cells (one per split: the
    learners of a split share it). A group with fewer than two splits is left out.
    """
    import pandas as pd

    from ..metrics import kuncheva_index, nogueira_stability, selection_matrix

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


def _stability_sections(df, meta, out, datasets, m_order, decimals, alpha):
    """The ``stability`` view: Φ̂ over the budgets per dataset × selector, and its CSV."""
    from ._report import _order

    sf = stability_frame(df, meta, alpha)
    if sf.empty:
        return [], []
    (out / "tables").mkdir(parents=True, exist_ok=True)
    path = out / "tables" / "stability.csv"
    sf.to_csv(path, index=False, float_format="%.6g")
    methods = _order(sf["method"].unique(), m_order)
    wide = sf.groupby(["dataset", "method"])["stability"].mean().unstack("method")
    wide = wide.reindex(index=[d for d in datasets if d in wide.index], columns=methods)
    ranks = wide.rank(axis=1, ascending=False, method="average").mean(axis=0)

    def f(v: float) -> str:
        return "–" if not np.isfinite(v) else f"{v:.{decimals}f}"

    md = ["## Selection stability\n",
          "Nogueira, Sechidis and Brown's Φ̂ of the subsets the splits selected (1 = the same "
          "subset on every split, about 0 = no more overlap than random subsets of the same "
          "sizes), averaged over the budgets; per budget, with its "
          f"{100 * (1 - alpha):g} % confidence interval and Kuncheva's index, in "
          "`tables/stability.csv`. Average rank: 1 = most stable.\n",
          "| dataset | " + " | ".join(methods) + " |",
          "|---|" + "---|" * len(methods)]
    for ds, r in wide.iterrows():
        md.append(f"| {ds} | " + " | ".join(f(r[m]) for m in methods) + " |")
    md.append("| **mean** | " + " | ".join(f(wide[m].mean()) for m in methods) + " |")
    md.append("| **average rank** | " + " | ".join(f(ranks[m]) for m in methods) + " |")
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
                    vals.append(f"{np.mean(xs):.{decimals}f}" if xs else "–")
                md.append(f"| {ds} | {e} | " + " | ".join(vals) + " |")
        md.append("")
        if figures:
            from ..plots import metric_curves
            from ._report import _close

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
                f"{np.mean(success[ds][m]):.3f}" if success[ds].get(m) else "–"
                for m in methods) + " |")
        md.append("")
    return md, files


def _beats(ref: float, const: Sequence[float], gib: bool) -> bool:
    c = [x for x in const if not math.isnan(x)]
    if not c:
        return False
    return ref > max(c) if gib else ref < min(c)
