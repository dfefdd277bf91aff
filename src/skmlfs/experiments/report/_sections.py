"""The generic sections of a report (short names in
:data:`skmlfs.experiments._registry.SECTIONS`)."""

from __future__ import annotations

import numbers
from pathlib import Path
from typing import Any

import numpy as np

from .._histories import plot_search_histories, search_histories
from .._objectives import plot_objectives
from .._sensitivity import plot_sensitivity
from ._compute import DEFAULT_WORKERS, workers_section
from ._format import MISSING, format_seconds
from ._grid import (
    _curves_block,
    _figure_section,
    _memory_section,
    _metric_table_block,
    _overview,
    _paired_tests_block,
    _rank_gaps,
    _ranked_only,
    _runtime_figure,
    _runtime_section,
    _selection_times,
    _table_files,
    _time_breakdown,
    _versions_line,
    runs_section,
)
from ._section import Rendered, ReportContext, ReportSection
from ._tuning import tuning_section
from ._views import _stability_sections, included, stability_frame

__all__ = [
    "Curves", "Failures", "Include", "Memory", "MetricTables", "Objectives", "Overview",
    "PairedTests", "RunTime", "RunTimeFigure", "Runs", "SearchConvergence", "Sensitivity",
    "Stability", "Summary", "Tuning", "Versions", "Workers",
]


class Overview(ReportSection):
    """Title, the experiments' descriptions and the setup table (data sets, splits,
    budgets, methods)."""

    def render(self, ctx: ReportContext) -> Rendered:
        names = ctx.experiments
        title = ctx.extra.get("title") or (
            f"Results: {names[0]}" if len(names) == 1 else "Results")
        md = [f"# {title}\n"]
        for nm in names:
            desc = ctx.meta.get(f"description:{nm}")
            if desc:
                md.append(f"{desc}\n")
        md.append(_overview(ctx.frame, ctx.meta, ctx.extra.get("k"), ctx.datasets,
                                  ctx.methods))
        return Rendered(md)


class Summary(ReportSection):
    """One table of the whole comparison, printed after the overview: per compared method
    (a row), its average rank over the data sets for every metric (the ranks of the metric
    tables below), the mean of those ranks, the mean stability Φ̂ over the data sets
    (each averaged over its budgets) with its average rank, and the selection time (s per
    split, the mean over the data sets). Rows sorted by the mean rank."""

    OPTIONS = {"title": "the heading (default 'Summary: average ranks over the data sets')"}

    def render(self, ctx: ReportContext) -> Rendered:
        import pandas as pd

        tables = [t for t in ctx.tables if t.avg_ranks is not None]
        if not tables:
            return Rendered()
        cols: dict[str, Any] = {}
        for t in tables:
            arrow = "↑" if t.greater_is_better else "↓"
            name = t.metric.replace("_", " ") + f" {arrow}" + (
                f" ({t.learner})" if t.learner else "")
            cols[name] = t.avg_ranks
        ranks = pd.DataFrame(cols)
        methods = [m for m in ctx.methods if m in ranks.index] + [
            m for m in ranks.index if m not in ctx.methods]
        ranks = ranks.reindex(methods)
        mean_rank = ranks.mean(axis=1)
        gaps = _rank_gaps(tables[0])
        sf = stability_frame(ctx.frame, ctx.meta, ctx.alpha)
        stab = rank = None
        if not sf.empty:
            wide = _ranked_only(
                sf.groupby(["dataset", "method"])["stability"].mean().unstack("method"),
                tables[0])
            stab = wide.mean(axis=0)
            rank = wide.rank(axis=1, ascending=False, method="average").mean(axis=0)
        times = _ranked_only(_selection_times(ctx.frame, ctx.datasets, methods),
                             tables[0]).mean(axis=0)
        fmt = ctx.fmt

        def f(v: Any) -> str:
            return MISSING if v is None or not np.isfinite(v) else fmt(v)

        head = list(ranks.columns) + ["mean rank"]
        if stab is not None:
            head += ["stability Φ̂", "stability rank"]
        head.append("selection time (s)")
        md = [f"## {self.options.get('title', 'Summary: average ranks over the data sets')}\n",
              f"Average rank of each method over the {len(tables[0].ranks)} data set(s) "
              + ("(a method without a value on a data set ranked last there; "
                 if tables[0].missing_rank == "last" else "with every method (")
              + "1 = best; the metric tables below), their mean, the "
              "selection stability Φ̂ (mean over the data sets of its mean over the budgets; "
              "rank 1 = most stable) and the selection time per split (mean over the data "
              "sets). Sorted by the mean rank.\n",
              "| method | " + " | ".join(head) + " |", "|---|" + "---|" * len(head)]
        for m in mean_rank.sort_values(kind="stable").index:
            row = [f(ranks.at[m, c]) for c in ranks.columns] + [f(mean_rank[m])]
            if stab is not None:
                row += [f(stab.get(m, np.nan)), f(rank.get(m, np.nan))]
            row.append(format_seconds(times.get(m, np.nan)))
            md.append(f"| {m} | " + " | ".join(row) + " |")
        if gaps:
            md.append("\nStability and selection time are means over the data sets where "
                      "the method has a value; none on: " + "; ".join(
                          f"{ds} ({', '.join(ms)})" for ds, ms in gaps) + ".")
        md.append("")
        return Rendered(["\n".join(md)])


class Include(ReportSection):
    """Hand-written Markdown kept across regenerations: ``file`` (relative to the
    experiment file), under ``title`` when given; in a single-grid report ``at`` places it
    after the overview (``"start"``, the default) or after every generated section
    (``"end"``)."""

    OPTIONS = {"file": "the Markdown file", "title": "a heading above it",
               "at": "'start' or 'end' (single-grid reports)"}
    REQUIRED = ("file",)

    def check(self, metrics: set[str] | None) -> None:
        if self.options.get("at", "start") not in ("start", "end"):
            raise self.fail("at", "must be 'start' or 'end'.")
        if not isinstance(self.options["file"], str):
            raise self.fail("file", "a path (relative to the experiment file).")

    @property
    def at(self) -> str:
        return self.options.get("at", "start")

    def render(self, ctx: ReportContext) -> Rendered:
        if not ctx.extra.get("multipart"):
            return Rendered(included({"include": [{**self.options, "at": "start"}]}, "start"))
        # a multi-part report: in place, the file read relative to the experiment file
        p = Path(ctx.extra.get("base_dir") or ".") / self.options["file"]
        if not p.exists():
            raise self.fail("file", f"no file {p}.")
        md = [f"\n## {self.options['title']}\n"] if self.options.get("title") else []
        return Rendered(md + ["\n" + p.read_text(encoding="utf-8")])


class _PerTable(ReportSection):
    """A section that renders a block for each metric table (:meth:`for_table`)."""

    def for_table(self, table: Any, ctx: ReportContext) -> Rendered:
        raise NotImplementedError

    def render(self, ctx: ReportContext) -> Rendered:
        r = Rendered()
        for t in ctx.tables:
            r += self.for_table(t, ctx)
        return r


class PairedTests(_PerTable):
    """Per metric table: the Wilcoxon signed-rank tests of the control against every
    other method (R⁺/R⁻ over the data sets) and the paired t-test win/tie/loss counts
    per data set (``tables/<metric>_wilcoxon.csv``, ``_wtl.csv``)."""

    def for_table(self, table: Any, ctx: ReportContext) -> Rendered:
        return _paired_tests_block(table, ctx)


class Curves(_PerTable):
    """Per metric table: the critical-difference diagram and, for methods with several
    budgets, the metric against the number of selected features per data set."""

    def for_table(self, table: Any, ctx: ReportContext) -> Rendered:
        return _curves_block(table, ctx)


class MetricTables(ReportSection):
    """Per metric (and learner): mean ± std table with the best marked, average ranks,
    the Friedman / Iman–Davenport test with the critical difference (Nemenyi, or
    Bonferroni–Dunn against the control), the declared sections' lines under each
    table, then that table's :class:`PairedTests` and :class:`Curves` (``paired_tests``,
    ``curves``: false leaves them out)."""

    OPTIONS = {"paired_tests": "the Wilcoxon and win/tie/loss tests (true)",
               "curves": "the CD diagram and budget curves (true)"}

    def check(self, metrics: set[str] | None) -> None:
        for k in self.OPTIONS:
            if not isinstance(self.options.get(k, True), bool):
                raise self.fail(k, "true or false.")

    def render(self, ctx: ReportContext) -> Rendered:
        r = Rendered()
        for t in ctx.tables:
            r += _metric_table_block(t, ctx)
            tests = (_paired_tests_block(t, ctx) if self.options.get("paired_tests", True)
                     else Rendered())
            r.markdown += tests.markdown
            r.files += tests.files + _table_files(t, ctx)  # the old order of the written files
            if self.options.get("curves", True):
                r += _curves_block(t, ctx)
        return r


class SearchConvergence(ReportSection):
    """Wrapper searches: best fitness per evaluation, one figure per data set, and
    ``tables/convergence.csv``."""

    def render(self, ctx: ReportContext) -> Rendered:
        r = Rendered()
        if ctx.figures and "info" in ctx.frame:
            _figure_section(
                r.markdown, r.files,
                plot_search_histories(ctx.frame, ctx.out / "figures", methods=ctx.methods),
                "Search convergence", "Best fitness (a loss; accuracies negated) after "
                "each evaluation, mean ± std over the splits.")

        h = search_histories(ctx.frame) if "info" in ctx.frame else None
        if h is not None and not h.empty:  # the curves' numbers, figures or not
            p = ctx.out / "tables" / "convergence.csv"
            h.to_csv(p, index=False, float_format="%.6g")
            r.files.append(p)
        return r


class Stability(ReportSection):
    """Selection stability over the splits (Nogueira's Φ̂ with its ``1 − alpha``
    interval, Kuncheva's index) per data set × selector × budget."""

    OPTIONS = {"alpha": "level of the confidence interval (0.05)"}

    def check(self, metrics: set[str] | None) -> None:
        a = self.options.get("alpha", 0.05)
        if isinstance(a, bool) or not isinstance(a, numbers.Real) or not 0 < a < 1:
            raise self.fail("alpha", f"a number in (0, 1); got {a!r}.")

    def render(self, ctx: ReportContext) -> Rendered:
        ranked = [t for t in ctx.tables if t.ranks is not None]
        md, files = _stability_sections(ctx.frame, ctx.meta, ctx.out, ctx.datasets,
                                        ctx.methods, ctx.decimals,
                                        self.options.get("alpha", 0.05),
                                        ranked[0] if ranked else None)
        return Rendered(md, files)


class Sensitivity(ReportSection):
    """Declared parameter-sensitivity studies: one figure per study."""

    def render(self, ctx: ReportContext) -> Rendered:
        r = Rendered()
        sens = ctx.extra.get("sensitivity")
        if ctx.figures and sens is not None and len(sens):
            mets = [c for c in sens.columns if c in {t.metric for t in ctx.tables}]
            _figure_section(
                r.markdown, r.files, plot_sensitivity(sens, mets, ctx.out / "figures"),
                "Parameter sensitivity", "Test values with one parameter varied over its "
                "grid, the others fixed (mean over splits and budgets).")
        return r


class Objectives(ReportSection):
    """Optimisers' objective per iteration (selectors that record it)."""

    def render(self, ctx: ReportContext) -> Rendered:
        r = Rendered()
        if ctx.figures and "info" in ctx.frame:
            _figure_section(
                r.markdown, r.files,
                plot_objectives(ctx.frame, ctx.out / "figures", methods=ctx.methods),
                "Optimiser convergence", "Objective after each iteration of the selector "
                "fits (tuned selectors: the refit at the chosen setting).")
        return r


class Tuning(ReportSection):
    """The settings the inner searches chose, per data set × method."""

    def render(self, ctx: ReportContext) -> Rendered:
        full = ctx.state.get("full", ctx.frame)  # reference cells were tuned too
        return Rendered([tuning_section(full, ctx.datasets, ctx.methods)])


class RunTime(ReportSection):
    """Selection time per split, and the time per data set × method split into
    selection, learner fits and predictions."""

    def render(self, ctx: ReportContext) -> Rendered:
        return Rendered([_runtime_section(ctx.frame, ctx.datasets, ctx.methods),
                         _time_breakdown(ctx.frame, ctx.datasets, ctx.methods)])


class RunTimeFigure(ReportSection):
    """``figures/runtime.png``: the selection time per method and data set."""

    def render(self, ctx: ReportContext) -> Rendered:
        if not ctx.figures:
            return Rendered()
        p = _runtime_figure(ctx.frame, ctx.out, ctx.datasets, ctx.methods)
        if p is None:
            return Rendered()
        return Rendered([f"![selection time per method](figures/{p.name})\n"], [p])


class Workers(ReportSection):
    """The wall time of the experiment on more workers (a Dask cluster), projected from
    the task times the store measured: per data set and in all, with the longest task."""

    OPTIONS = {"workers": "the worker counts of the table (default [1, 2, 8, 32, 128])"}

    def check(self, metrics: set[str] | None) -> None:
        w = self.options.get("workers", list(DEFAULT_WORKERS))
        if (not isinstance(w, list) or not w or any(
                isinstance(x, bool) or not isinstance(x, numbers.Integral) or x < 1
                for x in w)):
            raise self.fail("workers", f"a list of positive integers; got {w!r}.")

    def render(self, ctx: ReportContext) -> Rendered:
        # every cell, the reference methods included: they are part of the run's cost
        full = ctx.state.get("full", ctx.frame)
        md = workers_section(full, ctx.datasets,
                             self.options.get("workers", list(DEFAULT_WORKERS)))
        return Rendered([md] if md else [])


class Memory(ReportSection):
    """Peak resident memory per data set × method."""

    def render(self, ctx: ReportContext) -> Rendered:
        return Rendered([_memory_section(ctx.frame, ctx.datasets, ctx.methods)])


class Runs(ReportSection):
    """The run log summed per experiment."""

    def render(self, ctx: ReportContext) -> Rendered:
        return Rendered([runs_section(ctx.runs, {n: [n] for n in ctx.experiments},
                                            "## Runs")])


class Failures(ReportSection):
    """The first lines of the recorded task failures."""

    def render(self, ctx: ReportContext) -> Rendered:
        fails = ctx.failures
        if fails is None or not len(fails):
            return Rendered()
        # a failed task that a later run computed (after a fix, or a transient error) is
        # history, not a gap in the tables: count it, list only what is still missing
        n_all = len(fails)
        frame = ctx.frame
        if frame is not None and len(frame):
            done = set(zip(frame["dataset"], frame["split"].astype(int), frame["method"],
                           strict=True))
            # the store's failures are shared by the parts of a file: a split this grid
            # does not have (a 10-holdout part's split 5 beside 5 folds) is another part's
            splits = set(zip(frame["dataset"], frame["split"].astype(int), strict=True))
            ours = [(d, int(sp_)) in splits for d, sp_ in
                    zip(fails["dataset"], fails["split"], strict=True)]
            fails = fails[ours]
            n_all = len(fails)
            missing = [(d, int(sp_), m) not in done for d, sp_, m in
                       zip(fails["dataset"], fails["split"], fails["method"], strict=True)]
            fails = fails[missing]
        recomputed = n_all - len(fails)
        note = (f" ({recomputed} of {n_all} recorded since computed by a later run)"
                if recomputed else "")
        if not len(fails):
            return Rendered([f"## Failures\n\nNone missing{note}.\n"])
        md = [f"## Failures\n\n{len(fails)} task failure(s) without cells{note}; "
              "first lines:\n"]
        for _, r in fails.head(20).iterrows():
            md.append(f"- {r['dataset']} split {r['split']} {r['method']}: "
                      f"`{r['error'].splitlines()[0]}`")
        md.append("")
        return Rendered(md)


class Versions(ReportSection):
    """The software versions that computed the cells."""

    def render(self, ctx: ReportContext) -> Rendered:
        return Rendered([_versions_line(ctx.frame)])
