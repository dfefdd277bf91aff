"""The sections of a stored experiment, and the frame every single-grid report has."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from .._spec import build_sections
from ._sections import (
    Failures,
    Include,
    Memory,
    MetricTables,
    Objectives,
    Overview,
    Runs,
    RunTime,
    RunTimeFigure,
    SearchConvergence,
    Sensitivity,
    Summary,
    Tuning,
    Versions,
)

__all__ = ["build_sections", "frame_sections", "stored_sections", "translate_former"]


def translate_former(views: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The sections of a ``[report]`` table written before 0.2.0 (its sub-tables
    ``choose``, ``paper``, ``over_budgets``, ...), in the order that report printed
    them."""
    p = "skmlfs.experiments.report.papers:"
    out: list[dict[str, Any]] = []
    if views.get("over_budgets"):
        out.append({"kind": p + "OverBudgets"})
    if views.get("paper") and not views.get("choose"):
        paper = dict(views["paper"])
        out.append({"kind": p + "PaperValues", "columns": paper.pop("columns"),
                    "values": paper})
    if views.get("choose"):
        t = {"kind": p + "ChosenParameter", **views["choose"]}
        if views.get("pairs"):
            t["pairs"] = views["pairs"]["pairs"]
        if views.get("paper"):
            t["paper"] = views["paper"]
        out.append(t)
    if views.get("reference"):
        out.append({"kind": p + "ReferenceMethods", "methods": list(views["reference"])})
    vs = views.get("versus")
    for v in [vs] if isinstance(vs, Mapping) else vs or []:
        out.append({"kind": p + "Versus", **v})
    if views.get("seeds"):
        out.append({"kind": p + "SeedRobustness", **views["seeds"]})
    st = views.get("stability")
    if st:
        out.append({"kind": "stability", **(st if isinstance(st, Mapping) else {})})
    if views.get("records"):
        out.append({"kind": p + "SearchRecords", **views["records"]})
    if views.get("ablation"):
        out.append({"kind": p + "Ablation", **views["ablation"]})
    if views.get("optimised"):
        out.append({"kind": p + "FoldOptimised", **views["optimised"]})
    for t in views.get("include") or ():
        out.append({"kind": "include", **t})
    return out


def stored_sections(meta: Mapping[str, str], names: Sequence[str]) -> list[Any]:
    """The sections the runs of ``names`` stored (``report:<name>``: a list of section
    tables; a store written before 0.2.0 holds the former ``[report]`` sub-tables,
    translated by :func:`translate_former`)."""
    out = []
    for nm in names:
        raw = meta.get(f"report:{nm}")
        if not raw:
            continue
        v = json.loads(raw)
        tables = translate_former(v) if isinstance(v, Mapping) else v
        out += build_sections(tables, source=f"the stored report of {nm}")
    return out


def frame_sections(declared: Sequence[Any]) -> list[Any]:
    """Every section of a single-grid report in print order: the overview, the summary
    table when declared, the included text placed at the start, the metric tables, the
    search convergence, the declared sections, the run time, tuning and run log, the
    failures, the text placed at the end and the software versions. A declared section of
    one of these classes replaces the default one (same place, its options)."""

    frame = [Overview, MetricTables, SearchConvergence, Sensitivity, Objectives, Tuning,
             RunTime, Memory, Runs, RunTimeFigure, Failures, Versions]
    # a declared frame section (e.g. `kind = "metrics"` with `paired_tests = false`)
    # takes the place of the default one instead of printing twice
    given = {type(s): s for s in declared if type(s) in frame}
    start = [s for s in declared if isinstance(s, Include) and s.at == "start"]
    end = [s for s in declared if isinstance(s, Include) and s.at == "end"]
    summary = [s for s in declared if isinstance(s, Summary)]  # right under the overview
    middle = [s for s in declared if not isinstance(s, (Include, Summary))
              and type(s) not in given]
    made = {c: given.get(c) or c() for c in frame}
    return [made[Overview], *summary, *start, made[MetricTables], made[SearchConvergence], *middle,
            *(made[c] for c in frame[3:-1]), *end, made[Versions]]
