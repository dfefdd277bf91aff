"""Sections that serve one paper's reproduction, named by an experiment file as
``kind = "skmlfs.experiments.report.papers:<Class>"`` with their options beside ``kind``.

* :class:`FoldOptimised`: searches run once per metric, each reported on its own metric.
* :class:`ChosenParameter`: a variant parameter chosen per data set × method (the
  ReliefF-ML paper's k), with its views, the paper's values and Wilcoxon pairs.
* :class:`PaperValues`: the paper's published values under each metric table.
* :class:`OverBudgets`: each metric summarised over the budgets (papers with curves).
* :class:`ReferenceMethods`: methods shown for reference only (every feature, ...).
* :class:`Versus`: one method against another, per data set (paired t-test).
* :class:`SeedRobustness`: the spread over seeds of a method's runs.
* :class:`SearchRecords`: recorded search statistics at given evaluations.
* :class:`Ablation`: a method's variants over a parameter against a reference method.

The options are those documented in :mod:`skmlfs.experiments.report._views`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._spec import SpecError
from ._section import Rendered, ReportContext, ReportSection
from ._util import _order
from ._views import (
    _ablation_section,
    _choose_sections,
    _records_sections,
    _reference_section,
    _seeds_sections,
    _versus_section,
    budget_rows,
    check_report_views,
    fold_name,
    fold_optimised,
    paper_rows,
    split_variant,
)

__all__ = ["Ablation", "ChosenParameter", "FoldOptimised", "OverBudgets", "PaperValues",
           "ReferenceMethods", "SearchRecords", "SeedRobustness", "Versus"]


class _AnyName(set):
    """Every name (the metric checks of a section built without the experiment)."""

    def __contains__(self, item: object) -> bool:
        return True

    def __ge__(self, other: Any) -> bool:
        return True


class _View(ReportSection):
    """A section whose options were a sub-table ``VIEW`` of ``[report]`` before 0.2.0;
    checked by the same rules."""

    VIEW = ""

    def view(self) -> Any:
        return self.options

    def check(self, metrics: set[str] | None) -> None:
        self.check_views({self.VIEW: self.view()}, metrics)

    def check_views(self, views: Mapping[str, Any], metrics: set[str] | None) -> None:
        """The checks of the former ``[report]`` sub-tables, naming this section's key."""
        try:
            check_report_views(self.source, views, metrics if metrics is not None
                               else _AnyName())
        except ValueError as exc:
            msg, rest = str(exc), None
            for old in (f"report.{self.VIEW}", "report"):
                head = f"{self.source}: {old}"
                if msg.startswith(head):
                    rest = msg[len(head):]
                    break
            raise SpecError(f"{self.source}: {self.key}{rest or ': ' + msg}") from None

    @staticmethod
    def datasets(ctx: ReportContext) -> list[str]:
        return _order(ctx.frame["dataset"].unique(), ctx.datasets)


class FoldOptimised(_View):
    """Searches with variants over ``parameter`` naming the metric they optimise: each
    variant is reported on its own metric and the variants fold into one column
    (``memetic[metric=one_error]`` → ``memetic``); the convergence figures use the
    searches of ``convergence``."""

    VIEW = "optimised"
    OPTIONS = {"parameter": "the variant parameter naming the metric",
               "convergence": "the metric whose searches the convergence figures use"}
    REQUIRED = ("parameter",)
    STAGE = 3

    def prepare(self, frame: Any, state: dict) -> Any:
        return fold_optimised(frame, self.options["parameter"],
                              self.options.get("convergence"))

    def order_methods(self, methods: list[str]) -> list[str]:
        return list(dict.fromkeys(fold_name(m, self.options["parameter"]) for m in methods))


class ChosenParameter(_View):
    """A variant ``parameter`` chosen per data set × method by the mean ``criterion``
    over the splits; views ``fixed``, ``tuned`` and those of ``views`` (name → methods
    tuned), each with the ``paper``'s values and the Wilcoxon test of ``pairs``."""

    VIEW = "choose"
    OPTIONS = {"parameter": "the variant parameter", "criterion": "the metric choosing it",
               "fixed": "the value of the 'fixed' view", "views": "view name -> methods tuned",
               "pairs": "[method, method] pairs of the Wilcoxon test over the data sets",
               "paper": "the paper's values: columns and metric -> data set -> values"}
    REQUIRED = ("parameter", "criterion", "fixed")

    def view(self) -> Any:
        return {k: v for k, v in self.options.items() if k not in ("pairs", "paper")}

    def check(self, metrics: set[str] | None) -> None:
        super().check(metrics)
        extra: dict[str, Any] = {}
        if "pairs" in self.options:
            extra["pairs"] = {"pairs": self.options["pairs"]}
        if "paper" in self.options:
            extra["paper"] = self.options["paper"]
        self.check_views(extra, metrics)

    def render(self, ctx: ReportContext) -> Rendered:
        report = {"choose": self.view(), "pairs": {"pairs": self.options.get("pairs", [])},
                  "paper": self.options.get("paper")}
        md, files = _choose_sections(ctx.frame, report, ctx.meta, ctx.out,
                                     self.datasets(ctx), ctx.decimals, ctx.alpha,
                                     ctx.methods)
        return Rendered(md, files)


class PaperValues(_View):
    """The paper's published values under each metric table: ``columns`` (the compared
    methods' names) and ``values`` (metric → data set → one value per column, or learner
    → metric → ...)."""

    VIEW = "paper"
    OPTIONS = {"columns": "the paper's methods, one per value",
               "values": "metric (or learner, then metric) -> data set -> values"}
    REQUIRED = ("columns", "values")

    def view(self) -> Any:
        return {"columns": self.options["columns"], **dict(self.options.get("values", {}))}

    def after_table(self, table: Any, ctx: ReportContext) -> str:
        return paper_rows(self.view(), table.metric, table.learner, list(table.mean.columns),
                          list(table.mean.index), ctx.decimals)


class OverBudgets(ReportSection):
    """Under each metric table, the same cells over the budgets: mean ± std (ddof = 0)
    of the per-budget values, the value at the largest budget, the mean over the data
    sets."""

    def after_table(self, table: Any, ctx: ReportContext) -> str:
        return budget_rows(ctx.frame, table.metric, table.learner, list(table.mean.columns),
                           list(table.mean.index), ctx.decimals)


class ReferenceMethods(_View):
    """``methods`` shown for reference only: out of the compared tables, one table of
    their own (data set × learner × metric)."""

    VIEW = "reference"
    OPTIONS = {"methods": "the reference methods' names"}
    REQUIRED = ("methods",)
    STAGE = 1

    def view(self) -> Any:
        return self.options["methods"]

    def check(self, metrics: set[str] | None) -> None:
        m = self.options["methods"]
        if isinstance(m, str) or not isinstance(m, list) or not all(
                isinstance(x, str) for x in m):
            raise self.fail("methods", "a list of method names.")

    def prepare(self, frame: Any, state: dict) -> Any:
        ref = frame["method"].isin(list(self.options["methods"]))
        state["reference"] = frame[ref]
        return frame[~ref]

    def render(self, ctx: ReportContext) -> Rendered:
        if not len(ctx.state.get("reference", [])):
            return Rendered()
        return Rendered([_reference_section(ctx.state["reference"], self.datasets(ctx),
                                            ctx.decimals, ctx.meta)])


class Versus(_View):
    """``method`` against ``reference`` on ``metric`` per data set: the two means, a
    paired t-test over the splits, the W/T/L totals."""

    VIEW = "versus"
    OPTIONS = {"method": "the method", "reference": "the method it is compared with",
               "metric": "the metric"}
    REQUIRED = ("method", "reference", "metric")

    def render(self, ctx: ReportContext) -> Rendered:
        return Rendered(_versus_section(ctx.frame, self.options, self.datasets(ctx), ctx.meta,
                                        ctx.decimals, ctx.alpha))


class SeedRobustness(_View):
    """Runs that differ in ``seed_offset`` only (``methods``: seed method → reference
    method) against the reference: the spread over the seeds per data set."""

    VIEW = "seeds"
    OPTIONS = {"methods": "seed method -> reference method",
               "metric": "a metric or a list (default every metric)"}
    REQUIRED = ("methods",)
    STAGE = 0

    def prepare(self, frame: Any, state: dict) -> Any:
        groups = set(self.options["methods"])
        seeds = (frame["method"].map(lambda m: split_variant(m)[0]).isin(groups)
                 | frame["learner"].map(lambda m: split_variant(m)[0]).isin(groups))
        state["seeds"] = frame[seeds]
        return frame[~seeds]

    def render(self, ctx: ReportContext) -> Rendered:
        if not len(ctx.state.get("seeds", [])):
            return Rendered()
        # the seed groups in name order, as the store keeps them (canonical JSON)
        opts = {**self.options, "methods": dict(sorted(self.options["methods"].items()))}
        return Rendered(_seeds_sections(ctx.state["seeds"], ctx.state["full"], opts,
                                        self.datasets(ctx), ctx.meta, ctx.decimals))


class SearchRecords(_View):
    """Searches run with the selector option ``record`` (out of the main tables): their
    recorded curves at the given ``evaluations``."""

    VIEW = "records"
    OPTIONS = {"methods": "the recording selectors", "evaluations": "evaluation counts"}
    REQUIRED = ("methods",)
    STAGE = 2

    def prepare(self, frame: Any, state: dict) -> Any:
        base = frame["method"].map(lambda m: split_variant(m)[0])
        keep = base.isin(self.options["methods"]) | frame["method"].isin(
            self.options["methods"])
        state["records"] = frame[keep]
        return frame[~keep]

    def render(self, ctx: ReportContext) -> Rendered:
        if not len(ctx.state.get("records", [])):
            return Rendered()
        md, files = _records_sections(ctx.state["records"], self.options, ctx.out,
                                      self.datasets(ctx), ctx.figures, ctx.decimals)
        return Rendered(md, files)


class Ablation(_View):
    """The variants of ``method`` over ``parameter`` against ``reference`` on ``metric``
    (on ``datasets`` when given): table, ``figures/ablation.png``,
    ``tables/ablation.csv``; the ablation cells leave the main tables."""

    VIEW = "ablation"
    OPTIONS = {"method": "the ablated method", "parameter": "its varied parameter",
               "reference": "the method it is compared with", "metric": "the metric",
               "datasets": "the data sets shown (default all)"}
    REQUIRED = ("method", "parameter", "reference", "metric")
    STAGE = 1

    def prepare(self, frame: Any, state: dict) -> Any:
        base = frame["method"].map(lambda m: split_variant(m)[0])
        state["ablation"] = frame[base == self.options["method"]]
        return frame[base != self.options["method"]]

    def render(self, ctx: ReportContext) -> Rendered:
        ab = self.options
        ab_df = ctx.state.get("ablation")
        if ab_df is None or not len(ab_df):
            return Rendered()
        datasets = self.datasets(ctx)
        ab_ds = [d for d in datasets if d in ab["datasets"]] if "datasets" in ab else datasets
        if "datasets" in ab:
            ab_df = ab_df[ab_df["dataset"].isin(ab["datasets"])]
        if not len(ab_df):
            return Rendered()
        md, files = _ablation_section(ab_df, ctx.frame, ab, ctx.out, ab_ds, ctx.figures,
                                      ctx.meta)
        return Rendered(md, files)


#: the ``[report]`` sub-tables of files written before 0.2.0 -> their section class
FORMER_KEYS: Mapping[str, type] = {
    "optimised": FoldOptimised, "reference": ReferenceMethods, "versus": Versus,
    "seeds": SeedRobustness, "records": SearchRecords, "ablation": Ablation,
}
