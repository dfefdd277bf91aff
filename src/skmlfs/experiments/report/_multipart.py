"""The report of a multi-part experiment: sections declared in ``[report]``.

``[[report.section]]`` tables, in order (every kind takes ``title``, ``text``, ``parts``
= the parts whose cells it uses (default all), ``datasets`` (order and filter; default
the order the file declares them in) and ``metrics`` (default the experiment's)):

* ``kind = "compare"``: one table per metric, datasets × ``methods`` (display name →
  learner glob). A glob with ``*`` is a tuned family: the member with the best mean
  ``tune_metric`` per dataset is used for every metric (its name after the glob's prefix
  is shown as a subscript). ``paper`` (metric → dataset → one value per method) prints
  the paper's value beside ours; ``prefer`` (part names) says which part's cells are used
  when several parts have a (dataset, learner): the first where all its splits are stored
  (a family is taken from one part only); ``ranks`` (lists of parts) adds an average-rank
  row over the datasets whose every method comes from those parts. A note lists the
  (dataset, method) results taken from other parts than the first of ``prefer``.
* ``kind = "table"``: mean (± std with ``std = true``) of ``metric`` for ``learners``
  (globs) × datasets (``rows = "learners"`` or ``"datasets"``).
* ``kind = "curve"``: a PNG ``file`` of a metric against ``x``, a parameter (``a__b``
  nested) of the learners in ``series`` (label → glob): one panel per dataset and metric
  (``lines = "series"``) or one panel per metric with a line per dataset
  (``lines = "datasets"``); ``errorbars``, ``normalize`` (each line over its maximum),
  ``xlabel``; plus a table of the plotted means (``tables = "wide"``: per metric and
  dataset, series × ``x`` values with a "mean over x" column and the best series of a
  column in bold). ``reference`` (label → learner glob) prints those learners' means under
  each wide table, from the first part of ``prefer`` (default: the section's parts, then the
  others) that stores them. ``ranks = true``: per metric, the average rank of the series
  over the ``x`` values they all have, per dataset (1 = best, ties shared, means rounded to
  the printed decimals first). ``times = true``: the mean fit time per split of each series
  over its ``x`` values.
* ``kind = "parts"``: the same learners under the protocols of several ``parts`` (e.g.
  one 80/20 split against 5-fold CV): which learners each part holds per dataset, and
  ``metric`` (mean, ± std over several splits) of every (dataset, learner) stored in at
  least two of them, a column per part (``learners``: globs, default all).
* ``kind = "bars"``: a PNG ``file`` of grouped bars, datasets × ``series`` (label →
  learner name), one panel per metric, with the std as error bars; plus its table.
* ``kind = "include"``: the text of ``file`` (relative to the experiment file).
* ``kind = "grid"``: the whole one-grid report of one ``part`` (module :mod:`._partgrid`).
"""

from __future__ import annotations

import json
import os
import platform
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import rankdata

from .._build import _param as _build_param
from .._build import glob_match
from .._store import part_cells, part_experiments
from ._direction import greater_is_better
from ._format import MISSING, NumberFormat, format_number
from ._grid import runs_section
from ._section import Rendered, ReportContext, ReportSection
from ._stored import build_sections

__all__ = ["SECTION_KEYS", "Bars", "Compare", "Curve", "Parts", "Table",
           "write_parts_report"]

_COMMON = {"kind", "title", "text", "parts", "datasets", "metrics"}
SECTION_KEYS = {
    "compare": _COMMON | {"methods", "tune_metric", "paper", "prefer", "ranks"},
    "table": _COMMON | {"learners", "metric", "rows", "std"},
    "curve": _COMMON | {"file", "x", "series", "lines", "errorbars", "normalize", "xlabel",
                        "ranks", "tables", "reference", "prefer", "times"},
    "parts": _COMMON | {"learners", "metric"},
    "bars": _COMMON | {"file", "series"},
}
_NEED = {"compare": ["methods"], "table": ["learners", "metric"],
         "curve": ["file", "x", "series"], "bars": ["file", "series"],
         "parts": ["parts", "metric"]}


class _PartSection(ReportSection):
    """A section of a multi-part report (its cells come from several parts)."""

    KIND = ""

    def check(self, metrics: set[str] | None) -> None:
        s, kind = self.options, self.KIND
        if kind == "curve":
            for k in ("ranks", "times"):
                if not isinstance(s.get(k, False), bool):
                    raise self.fail(k, "true or false.")
            if s.get("tables", "long") not in ("long", "wide"):
                raise self.fail("tables", f"'long' or 'wide'; got {s['tables']!r}.")
            ref = s.get("reference", {})
            if not isinstance(ref, Mapping) or not all(
                    isinstance(g, str) for g in ref.values()):
                raise self.fail("reference", "a table label -> learner glob.")
            if ref and s.get("tables", "long") != "wide":
                raise self.fail("reference", "printed under wide tables only: add tables = "
                                "\"wide\".")
        if self.parts is not None:
            for p in list(s.get("parts", [])) + list(s.get("prefer", [])) + [
                x for r in (s.get("ranks", []) if kind == "compare" else []) for x in r
            ]:
                if p not in self.parts:
                    raise self.fail(None, f"unknown part {p!r}; parts: "
                                    f"{', '.join(self.parts)}.")
        n = len(s.get("methods", {}))
        for m, rows in s.get("paper", {}).items():
            for ds, vals in rows.items():
                if len(vals) != n:
                    raise self.fail(f"paper.{m}.{ds}", f"{len(vals)} values for {n} methods.")

    def sec(self) -> dict:
        return {"kind": self.KIND, **self.options}

    def render(self, ctx: ReportContext) -> Rendered:
        data, labels = ctx.extra["data"], ctx.extra["labels"]
        sec, dec, out, figures = self.sec(), ctx.decimals, ctx.out, ctx.figures
        kind = self.KIND
        if kind == "compare":
            md = _compare(sec, data, labels, dec)
        elif kind == "table":
            md = _table(sec, data, labels, dec)
        elif kind == "curve":
            md = _curve(sec, data, labels, dec, out, figures)
        elif kind == "bars":
            md = _bars(sec, data, labels, dec, out, figures)
        else:
            md = _parts_section(sec, data, labels, dec)
        files = []
        if figures and kind in ("curve", "bars") and (out / sec["file"]).exists():
            files.append(out / sec["file"])
        return Rendered(md, files)


def _part_section(kind: str, doc: str) -> type:
    opts = {k: f"see the '{kind}' section of docs/experiment_file.md"
            for k in sorted(SECTION_KEYS[kind] - {"kind"})}
    return type(kind.capitalize(), (_PartSection,), {
        "__doc__": doc, "KIND": kind, "OPTIONS": opts, "REQUIRED": tuple(_NEED[kind]),
        "__module__": __name__})


Compare = _part_section("compare", "Datasets × methods per metric, tuned families, the "
                        "paper's values, average ranks.")
Table = _part_section("table", "One metric, learners × data sets.")
Curve = _part_section("curve", "A metric against a learner parameter: figure and tables.")
Parts = _part_section("parts", "The same learners under the protocols of several parts.")
Bars = _part_section("bars", "Grouped bars, data sets × series, one panel per metric.")


# --------------------------------------------------------------------------- helpers
def _fmt(x: Any, d: int = 3) -> str:
    return format_number(x, d, leading_zero=False)  # the OCC paper's style: ".123"


def _match(names: Sequence[str], glob: str | Sequence[str]) -> list[str]:
    """Names matching ``glob`` (``*`` only; see :func:`~._build.glob_match`) or any of a
    list of globs."""
    globs = [glob] if isinstance(glob, str) else list(glob)
    return sorted(n for n in names if any(glob_match(n, g) for g in globs))


def _param(spec: Any, path: str) -> Any:
    d = json.loads(spec) if isinstance(spec, str) else spec
    try:
        return _build_param(d["params"], path)
    except KeyError:
        return None


class _Data:
    """The cells of every part, with per-part and per-(dataset, learner) summaries."""

    def __init__(self, frames: Mapping[str, Any], metrics: Sequence[str],
                 order: Sequence[str] = (), info: Mapping[str, Mapping] | None = None,
                 meta: Mapping[str, str] | None = None):
        import pandas as pd

        self.metrics = list(metrics)
        self.order = {d: i for i, d in enumerate(dict.fromkeys(order))}  # as declared
        self.info = dict(info or {})  # dataset -> its stored statistics (n_features, ...)
        self.meta = dict(meta or {})  # the store's meta: the metrics' directions
        parts = []
        for p, df in frames.items():
            df = df.copy()
            df["part"] = p
            parts.append(df)
        self.df = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
        self.parts = list(frames)

    def rows(self, parts: Sequence[str] | None = None):
        if not len(self.df):
            return self.df
        return self.df[self.df["part"].isin(parts or self.parts)]

    def datasets(self, sec: Mapping) -> list[str]:
        have = list(dict.fromkeys(self.rows(sec.get("parts"))["dataset"])) if len(
            self.df) else []
        want = sec.get("datasets")
        if want:
            return [d for d in want if d in have]
        return sorted(have, key=lambda d: self.order.get(d, len(self.order)))  # stable

    def summary(self, parts: Sequence[str] | None = None):
        """Mean, std (ddof 0), split count, fit time of each (dataset, learner): cells of
        the first listed part that has the pair."""
        df = self.rows(parts)
        if not len(df):
            return None
        order = {p: i for i, p in enumerate(parts or self.parts)}
        df = df.assign(_o=df["part"].map(order))
        first = df.groupby(["dataset", "learner"])["_o"].transform("min")
        df = df[df["_o"] == first]
        cols = [m for m in self.metrics if m in df] + ["fit_time"]
        g = df.groupby(["dataset", "learner"])
        out = g[cols].mean().join(g[cols].std(ddof=0).add_suffix("_std"))
        out["n_splits"] = g.size()
        out["learner_spec"] = g["learner_spec"].first()
        out["part"] = g["part"].first()
        return out


# --------------------------------------------------------------------------- sections
def _compare(sec, data: _Data, labels, dec) -> list[str]:
    methods = dict(sec["methods"])
    metrics = sec.get("metrics", data.metrics)
    prefer = list(sec.get("prefer") or sec.get("parts") or data.parts)
    df = data.rows(prefer)
    if not len(df):
        return []
    nsplit = df.groupby(["part", "dataset"])["split"].nunique()
    cnt = df.groupby(["part", "dataset", "learner"]).size()
    dss = data.datasets(dict(sec, parts=prefer))
    tune = sec.get("tune_metric", metrics[0])
    chosen: dict = {}  # (ds, method) -> (part, learner)
    for ds in dss:
        for m, glob in methods.items():
            for p in prefer:
                if (p, ds) not in nsplit.index:
                    continue
                sub = cnt.loc[p].loc[ds] if ds in cnt.loc[p].index.get_level_values(0) else None
                if sub is None:
                    continue
                full = [lr for lr in _match(list(sub.index), glob)
                        if sub[lr] >= nsplit[(p, ds)]]
                if not full:
                    continue
                if len(full) > 1 or "*" in glob:
                    rows = df[(df["part"] == p) & (df["dataset"] == ds)
                              & df["learner"].isin(full)]
                    means = rows.groupby("learner")[tune].mean().round(12).sort_index()
                    gib = greater_is_better(tune, data.meta)
                    lr = str(means.idxmax() if gib else means.idxmin())
                else:
                    lr = full[0]
                chosen[(ds, m)] = (p, lr)
                break
    means = df.groupby(["part", "dataset", "learner"])[list(metrics)].mean()
    paper = sec.get("paper", {})
    L: list[str] = []
    if sec.get("title"):
        L.append(f"\n## {sec['title']}\n")
    if sec.get("text"):
        L.append(sec["text"].strip() + "\n")
    names = list(methods)
    for metric in metrics:
        L.append(f"\n### {labels.get(metric, metric)}\n")
        L.append("| dataset | " + " | ".join(names) + " |")
        L.append("|" + "---|" * (len(names) + 1))
        for ds in dss:
            ours = [means.loc[(*chosen[(ds, m)][:1], ds, chosen[(ds, m)][1]), metric]
                    if (ds, m) in chosen else np.nan for m in names]
            if not np.isfinite(ours).any():
                continue
            # best = largest sign·value
            sign = 1.0 if greater_is_better(metric, data.meta) else -1.0
            best = sign * np.nanmax(sign * np.round(ours, dec))
            pv = paper.get(metric, {}).get(ds)
            cells = []
            for i, m in enumerate(names):
                p_s = ""
                if pv is not None:
                    ps = _fmt(pv[i], dec)
                    pbest = max(pv) if sign > 0 else min(pv)
                    p_s = f" ({'**' + ps + '**' if pv[i] == pbest else ps})"
                if not np.isfinite(ours[i]):
                    cells.append(f"—{p_s}")
                    continue
                s = _fmt(ours[i], dec)
                if round(ours[i], dec) == best:
                    s = f"**{s}**"
                sub = ""
                glob = methods[m]
                if "*" in glob and metric == tune:
                    sub = f" <sub>{chosen[(ds, m)][1][len(glob.split('*')[0]):]}</sub>"
                cells.append(f"{s}{p_s}{sub}")
            L.append(f"| {ds} | " + " | ".join(cells) + " |")
        seen: list = []
        for rparts in sec.get("ranks", [[prefer[0]]]):
            ok = [ds for ds in dss if all((ds, m) in chosen and chosen[(ds, m)][0] in rparts
                                          for m in names)]
            if not ok or ok in seen:  # a row over the same data sets as another: once
                continue
            seen.append(ok)
            sign = 1.0 if greater_is_better(metric, data.meta) else -1.0
            ro = np.mean([rankdata(-sign * np.round(
                [means.loc[(chosen[(ds, m)][0], ds, chosen[(ds, m)][1]), metric]
                 for m in names], dec)) for ds in ok], axis=0)
            pok = [ds for ds in ok if ds in paper.get(metric, {})]
            rp = (np.mean([rankdata(-sign * np.asarray(paper[metric][ds])) for ds in pok],
                          axis=0)
                  if len(pok) == len(ok) else None)
            cells = [f"{a:.2f}" + (f" ({b:.2f})" if rp is not None else "")
                     for a, b in zip(ro, rp if rp is not None else ro, strict=True)]
            L.append(f"| avg. rank ({len(ok)} data sets of {', '.join(rparts)}) | "
                     + " | ".join(cells) + " |")
    other = sorted((ds, m, p, lr) for (ds, m), (p, lr) in chosen.items() if p != prefer[0])
    if other:
        L.append(f"\nResults not from part `{prefer[0]}` (the first part where every split "
                 "of the cell is stored):\n")
        L.append("| dataset | method | part used | learner |\n|---|---|---|---|")
        for ds, m, p, lr in other:
            L.append(f"| {ds} | {m} | {p} | {lr} |")
    return L


def _table(sec, data: _Data, labels, dec) -> list[str]:
    sm = data.summary(sec.get("parts"))
    if sm is None:
        return []
    metric = sec["metric"]
    dss = data.datasets(sec)
    have = list(dict.fromkeys(sm.index.get_level_values(1)))
    lrs = list(dict.fromkeys(lr for g in sec["learners"] for lr in _match(have, g)))
    std = bool(sec.get("std", False))

    def fmt(v):  # seconds as seconds (e.g. 12.35), not as a score (".123")
        return f"{v:.2f}" if metric.endswith("_time") and np.isfinite(v) else _fmt(v, dec)

    def cell(ds, lr):
        if (ds, lr) not in sm.index:
            return MISSING
        v = fmt(sm.loc[(ds, lr), metric])
        return f"{v} ± {fmt(sm.loc[(ds, lr), metric + '_std'])}" if std else v

    L = [f"\n## {sec['title']}\n"] if sec.get("title") else []
    if sec.get("text"):
        L.append(sec["text"].strip() + "\n")
    L.append(f"{labels.get(metric, metric)}, mean{' ± std' if std else ''} over the "
             "splits:\n")
    if sec.get("rows", "learners") == "datasets":
        L.append("| dataset | " + " | ".join(lrs) + " |")
        L.append("|" + "---|" * (len(lrs) + 1))
        L += [f"| {ds} | " + " | ".join(cell(ds, lr) for lr in lrs) + " |" for ds in dss]
    else:
        L.append("| learner | " + " | ".join(dss) + " |")
        L.append("|" + "---|" * (len(dss) + 1))
        L += [f"| {lr} | " + " | ".join(cell(ds, lr) for ds in dss) + " |" for lr in lrs]
    return L


def _points(sec, sm, ds, glob) -> list[tuple[float, str]]:
    pts = []
    for lr in _match(list(sm.loc[ds].index) if ds in sm.index.get_level_values(0) else [],
                     glob):
        x = _param(sm.loc[(ds, lr), "learner_spec"], sec["x"])
        if isinstance(x, (int, float)) and not isinstance(x, bool):
            pts.append((float(x), lr))
    return sorted(pts)


def _plot_section_start(sec, data: _Data):
    """What a curve or bars section starts from: ``(summary, metrics, datasets, series,
    heading lines)``, or None when none of its parts is stored."""
    sm = data.summary(sec.get("parts"))
    if sm is None:
        return None
    L = [f"\n## {sec['title']}\n"] if sec.get("title") else []
    if sec.get("text"):
        L.append(sec["text"].strip() + "\n")
    return sm, sec.get("metrics", data.metrics[:1]), data.datasets(sec), dict(sec["series"]), L


def _curve(sec, data: _Data, labels, dec, out: Path, figures: bool) -> list[str]:
    start = _plot_section_start(sec, data)
    if start is None:
        return []
    sm, metrics, dss, series, L = start
    lines_by_ds = sec.get("lines", "series") == "datasets"
    if figures:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        ncol = 1 if lines_by_ds else max(1, len(dss))
        fig, axes = plt.subplots(len(metrics), ncol, figsize=(3.4 * ncol + 2, 3.0 * len(
            metrics)), squeeze=False)
        for r, metric in enumerate(metrics):
            for c in range(ncol):
                ax = axes[r, c]
                for ds in (dss if lines_by_ds else [dss[c]] if dss else []):
                    for lab, glob in series.items():
                        pts = _points(sec, sm, ds, glob)
                        if not pts:
                            continue
                        xs = [p[0] for p in pts]
                        ys = np.array([sm.loc[(ds, p[1]), metric] for p in pts])
                        es = np.array([sm.loc[(ds, p[1]), metric + "_std"] for p in pts])
                        if sec.get("normalize"):
                            es, ys = es / ys.max(), ys / ys.max()
                        name = (ds if len(series) == 1 else f"{ds}: {lab}") if lines_by_ds \
                            else lab
                        if sec.get("errorbars"):
                            ax.errorbar(xs, ys, yerr=es, marker="o", ms=4, capsize=3,
                                        label=name)
                        else:
                            ax.plot(xs, ys, "o-", ms=4, label=name)
                ax.set_xlabel(sec.get("xlabel", sec["x"]))
                if c == 0:
                    norm = " / its maximum" if sec.get("normalize") else " (mean)"
                    ax.set_ylabel(f"{labels.get(metric, metric)}{norm}")
                if r == 0 and not lines_by_ds and dss:
                    ax.set_title(dss[c])
                if r == 0 and c == 0:
                    ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(out / sec["file"], dpi=110)
        plt.close(fig)
        L.append(f"![{sec['file']}]({sec['file']})\n")
    ref = _curve_references(sec, data) if sec.get("reference") else None
    for metric in metrics:
        if sec.get("tables", "long") == "wide":
            L += _curve_wide(sec, data, sm, metric, dss, series, labels, dec, ref)
        else:
            L.append(f"\n{labels.get(metric, metric)}, mean over the splits, by "
                     f"`{sec['x']}`:\n")
            L.append("| dataset | series | values (x: mean) |\n|---|---|---|")
            for ds in dss:
                for lab, glob in series.items():
                    pts = _points(sec, sm, ds, glob)
                    if pts:
                        vals = ", ".join(f"{x:g}: {_fmt(sm.loc[(ds, lr), metric], dec)}"
                                         for x, lr in pts)
                        L.append(f"| {ds} | {lab} | {vals} |")
        if sec.get("ranks"):
            L += _curve_ranks(sec, data, sm, metric, dss, series, labels, dec)
    if sec.get("times"):
        L += _curve_times(sec, sm, dss, series)
    return L


def _curve_references(sec, data: _Data):
    """``(summary, {label: glob})`` of the reference learners: each (data set, learner)
    from the first part of ``prefer`` (default: the section's parts, then the others)."""
    prefer = list(dict.fromkeys(list(sec.get("prefer") or sec.get("parts") or [])
                                + data.parts))
    return data.summary(prefer), dict(sec["reference"])


def _curve_wide(sec, data: _Data, sm, metric, dss, series, labels, dec, ref) -> list[str]:
    """Per data set, series × ``x`` values, a mean over the ``x`` values every series has,
    the best of each column in bold, then the reference learners' means."""
    sign = 1.0 if greater_is_better(metric, data.meta) else -1.0
    x = sec["x"]
    L = [f"\n{labels.get(metric, metric)}, mean over the splits (best series of a column "
         f"in bold; the mean is over the `{x}` values every series has):\n"]
    for ds in dss:
        pts = {lab: dict(_points(sec, sm, ds, glob)) for lab, glob in series.items()}
        pts = {lab: p for lab, p in pts.items() if p}
        if not pts:
            continue
        xs = sorted(set().union(*pts.values()))
        common = sorted(set.intersection(*(set(p) for p in pts.values())))
        vals = {lab: [sm.loc[(ds, p[v]), metric] if v in p else np.nan for v in xs]
                + [np.mean([sm.loc[(ds, p[v]), metric] for v in common])
                   if common else np.nan] for lab, p in pts.items()}
        cols = np.array(list(vals.values()), dtype=float)  # series × (xs + mean)
        with np.errstate(invalid="ignore"):
            best = [np.nanmax(sign * np.round(c, dec)) if np.isfinite(c).any() else np.nan
                    for c in cols.T]
        info = data.info.get(ds, {})
        stats = (f" (d = {info['n_features']}, q = {info['n_labels']})"
                 if {"n_features", "n_labels"} <= set(info) else "")
        L.append(f"**{ds}**{stats}\n")
        L.append("| series | " + " | ".join(f"{x}={v:g}" for v in xs)
                 + f" | mean over {x} |")
        L.append("|" + "---|" * (len(xs) + 2))
        for lab, row in vals.items():
            cells = [("**{}**" if np.isfinite(v) and sign * round(v, dec) == b else "{}")
                     .format(_fmt(v, dec)) for v, b in zip(row, best, strict=True)]
            L.append(f"| {lab} | " + " | ".join(cells) + " |")
        if ref is not None and ref[0] is not None:
            rsm, globs = ref
            have = [lr for d, lr in rsm.index if d == ds]
            found = [(lab, lr) for lab, g in globs.items() for lr in _match(have, g)]
            if found:
                L.append("\nReference (mean over the splits): " + ", ".join(
                    f"{lab} {_fmt(rsm.loc[(ds, lr), metric], dec)} (`{lr}`, part "
                    f"`{rsm.loc[(ds, lr), 'part']}`)" for lab, lr in found) + ".")
        L.append("")
    return L


def _curve_times(sec, sm, dss, series) -> list[str]:
    """Mean fit time per split of each series over its ``x`` values, per data set."""
    L = [f"\nMean fit time per split over the `{sec['x']}` values (s; one core, the "
         "machine may have been shared):\n", "| dataset | " + " | ".join(series) + " |",
         "|" + "---|" * (len(series) + 1)]
    for ds in dss:
        ts = [[sm.loc[(ds, lr), "fit_time"] for _, lr in _points(sec, sm, ds, g)]
              for g in series.values()]
        if any(ts):
            L.append(f"| {ds} | " + " | ".join(f"{np.mean(t):.2f}" if t else MISSING
                                               for t in ts) + " |")
    return L


def _curve_ranks(sec, data, sm, metric, dss, series, labels, dec) -> list[str]:
    """Average rank of the series over the x values every series has, per dataset."""
    sign = 1.0 if greater_is_better(metric, data.meta) else -1.0
    L = [f"\nAverage rank of the series over the `{sec['x']}` values ("
         f"{labels.get(metric, metric)}; 1 = best, ties shared, means rounded to {dec} "
         "decimals first):\n", "| dataset | " + " | ".join(series) + " |",
         "|" + "---|" * (len(series) + 1)]
    for ds in dss:
        pts = {lab: dict(_points(sec, sm, ds, glob)) for lab, glob in series.items()}
        xs = sorted(set.intersection(*(set(v) for v in pts.values()))) if pts else []
        if not xs:
            continue
        r = np.mean([rankdata([-sign * round(float(sm.loc[(ds, pts[lab][x]), metric]), dec)
                               for lab in series]) for x in xs], axis=0)
        L.append(f"| {ds} | " + " | ".join(f"{v:.2f}" for v in r) + " |")
    return L


def _parts_section(sec, data: _Data, labels, dec) -> list[str]:
    """The same learners under several parts' protocols, side by side."""
    parts, metric = list(sec["parts"]), sec["metric"]
    sms = {p: data.summary([p]) for p in parts}
    sms = {p: sm for p, sm in sms.items() if sm is not None}
    if not sms:
        return []
    L = [f"\n## {sec['title']}\n"] if sec.get("title") else []
    if sec.get("text"):
        L.append(sec["text"].strip() + "\n")
    globs = sec.get("learners", ["*"])
    held = {p: {ds: _match([lr for d, lr in sm.index if d == ds], globs)
                for ds in dict.fromkeys(sm.index.get_level_values(0))}
            for p, sm in sms.items()}
    dss = data.datasets(sec)
    L.append("Learners stored per data set and part:\n")
    L.append("| dataset | " + " | ".join(sms) + " |")
    L.append("|" + "---|" * (len(sms) + 1))
    for ds in dss:
        L.append(f"| {ds} | " + " | ".join(", ".join(held[p].get(ds, [])) or MISSING
                                           for p in sms) + " |")

    def cell(p, ds, lr):
        sm = sms[p]
        if (ds, lr) not in sm.index:
            return MISSING
        v = _fmt(sm.loc[(ds, lr), metric], dec)
        if sm.loc[(ds, lr), "n_splits"] > 1:
            v += f" ± {_fmt(sm.loc[(ds, lr), metric + '_std'], dec)}"
        return v

    rows = [(ds, lr) for ds in dss for lr in dict.fromkeys(
        x for p in sms for x in held[p].get(ds, []))
        if sum(lr in held[p].get(ds, []) for p in sms) >= 2]
    if rows:
        L.append(f"\n{labels.get(metric, metric)} of the learners stored in several parts "
                 "(mean, ± std over the splits when there are several):\n")
        L.append("| dataset | learner | " + " | ".join(
            f"{p} ({int(sms[p]['n_splits'].max())} split"
            f"{'s' if sms[p]['n_splits'].max() > 1 else ''})" for p in sms) + " |")
        L.append("|---|---|" + "---|" * len(sms))
        L += [f"| {ds} | {lr} | " + " | ".join(cell(p, ds, lr) for p in sms) + " |"
              for ds, lr in rows]
    return L


def _bars(sec, data: _Data, labels, dec, out: Path, figures: bool) -> list[str]:
    start = _plot_section_start(sec, data)
    if start is None:
        return []
    sm, metrics, dss, series, L = start

    def val(ds, lr, col):
        return sm.loc[(ds, lr), col] if (ds, lr) in sm.index else np.nan

    if figures and dss:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(1, len(metrics), figsize=(4.5 * len(metrics), 3.4),
                                 squeeze=False)
        w = 0.8 / max(1, len(series))
        for ax, metric in zip(axes[0], metrics, strict=True):
            for i, (lab, lr) in enumerate(series.items()):
                x = np.arange(len(dss)) + (i - (len(series) - 1) / 2) * w
                ax.bar(x, [val(ds, lr, metric) for ds in dss], w,
                       yerr=[val(ds, lr, metric + "_std") for ds in dss], capsize=2,
                       label=lab)
            ax.set_xticks(np.arange(len(dss)), dss)
            ax.set_title(labels.get(metric, metric))
        axes[0, 0].legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(out / sec["file"], dpi=110)
        plt.close(fig)
        L.append(f"![{sec['file']}]({sec['file']})\n")
    for metric in metrics:
        L.append(f"\n{labels.get(metric, metric)}, mean ± std over the splits:\n")
        L.append("| series | " + " | ".join(dss) + " |")
        L.append("|" + "---|" * (len(dss) + 1))
        for lab, lr in series.items():
            L.append(f"| {lab} | " + " | ".join(
                f"{_fmt(val(ds, lr, metric), dec)} ± {_fmt(val(ds, lr, metric + '_std'), dec)}"
                for ds in dss) + " |")
    return L


# --------------------------------------------------------------------------- report
def write_parts_report(store: Any, out_dir: str | os.PathLike, ep: Any, *,
                       figures: bool = True, cell_ids: Mapping[str, list[str]] | None = None,
                       command: str | None = None) -> list[Path]:
    """Write ``README.md`` (the declared sections), the PNG figures and
    ``results_folds.csv`` (every cell of every part) of a multi-part experiment.

    Parameters
    ----------
    store : ResultStore
    out_dir : folder (created)
    ep : :class:`~skmlfs.experiments._parts.ExperimentParts`
    figures : draw the PNG figures
    cell_ids : per part, the cells to use (default: as last planned in the store)
    command : the command line shown in the header
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    ids = cell_ids if cell_ids is not None else part_cells(store, ep)
    names = part_experiments(store, ep)
    frames = {p: store.to_frame(cell_ids=ids[p]) for p, _ in ep.parts if ids.get(p)}
    rep = ep.report
    metrics = [m.name for m in ep.checked["main"].metrics]
    order = [d.name for p, _ in ep.parts for d in ep.checked[p].datasets]
    info = {}
    for ds in dict.fromkeys(order):
        v = store.get_meta(f"dataset:{ds}")
        if v:
            info[ds] = json.loads(v)
    meta = dict(store._conn.execute("SELECT key, value FROM meta").fetchall())
    data = _Data(frames, metrics, order, info, meta)
    labels = dict(rep.get("labels", {}))
    dec = int(rep.get("decimals", 3))
    L = [f"# {rep.get('title', ep.name)}\n"]
    L.append(f"Generated by `{command or 'mlfs benchmark ' + str(ep.source)}` (Python "
             f"{platform.python_version()}, {os.cpu_count()} cores). Parts: "
             + ", ".join(f"`{p}` ({len(f)} cells)" for p, f in frames.items()) + ".\n")
    if rep.get("intro"):
        L.append(rep["intro"].strip() + "\n")
    written: list[Path] = []
    ctx = ReportContext(frame=data.df, meta=meta, out=out, fmt=NumberFormat(dec),
                        figures=figures, missing_rank=rep.get("missing_rank", "drop"),
                        extra={"data": data, "labels": labels, "multipart": True,
                               "base_dir": ep.base_dir, "source": ep.source,
                               # what a `grid` section reads: a part's cells and names
                               "store": store, "cell_ids": ids,
                               "part_names": names})
    for s in build_sections(rep.get("section", []), source=str(ep.source)):
        r = s.render(ctx)
        L += r.markdown
        written += r.files
    if len(data.df):
        L.append("\n## Compute\n")
        L.append("| part | cells | fit time (s, sum) | predict time (s, sum) |")
        L.append("|---|---|---|---|")
        for p in frames:
            r = data.rows([p])
            L.append(f"| {p} | {len(r)} | {r['fit_time'].sum():.0f} | "
                     f"{r['predict_time'].sum():.0f} |")
        L.append("\n" + runs_section(store.runs(), {p: names.get(p, []) for p in frames},
                                     "### Runs", "part"))
        every = dict.fromkeys(m.name for p, _ in ep.parts for m in ep.checked[p].metrics)
        # method, budget and learner name a cell: without them a row cannot be told apart
        cols = ["part", "dataset", "method", "k", "n_selected", "learner", "split",
                *[m for m in every if m in data.df],
                "selection_time", "fit_time", "predict_time", "n_train", "n_test", "seed",
                "protocol"]
        cols = [c for c in cols if c in data.df]
        csv = out / "results_folds.csv"
        data.df[cols].to_csv(csv, index=False, float_format="%.6g")
        written.append(csv)
    readme = out / "README.md"
    readme.write_text("\n".join(L) + "\n", encoding="utf-8")
    written.append(readme)
    return written
