"""The report's "Tuned parameters" section (issue #14): what the nested tuning of each
(dataset, method, learner) chose, read from the cells' stored ``info``.

Selector tuning (``tune`` on a selector; with ``tune_with = "learner"`` once per learner)
is stored under ``info["selector"]``, a learner's own tuning (e.g. the SVM's C, per budget
or at the largest) under ``info["learner"]``; each holds ``best_params`` and
``inner_scores`` (every scored setting with its mean inner-CV score).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ._util import _order

__all__ = ["tuning_section"]


def _fmt(params: dict) -> str:
    return ", ".join(f"{k.split('__')[-1]} = {v:g}" if isinstance(v, float)
                     else f"{k.split('__')[-1]} = {v}" for k, v in sorted(params.items()))


def _part(info: Any, key: str) -> dict | None:
    if isinstance(info, str):
        info = json.loads(info)
    sub = (info or {}).get(key) if isinstance(info, dict) else None
    return sub if isinstance(sub, dict) and "best_params" in sub else None


def tuning_rows(df: Any) -> list[dict]:
    """One row per (dataset, method, learner, split) with a tuned selector or learner:
    the selector's chosen setting, its inner score and number of scored settings, and
    the learner's chosen parameters at each budget (ascending)."""
    if "info" not in df:
        return []
    rows = []
    for (ds, m, lr, sp), g in df.sort_values("k").groupby(
            ["dataset", "method", "learner", "split"], sort=False):
        sel = [_part(i, "selector") for i in g["info"]]
        lrn = [_part(i, "learner") for i in g["info"]]
        if not any(sel) and not any(lrn):
            continue
        s = next((x for x in reversed(sel) if x), None)  # the fit at the largest budget
        scores = [r["mean"] for r in (s or {}).get("inner_scores", [])]
        rows.append({
            "dataset": ds, "method": m, "learner": lr, "split": int(sp),
            "selector": _fmt(s["best_params"]) if s else "",
            "selector_score": max(scores) if scores else None,
            "n_scored": len(scores) if s else None,
            "learner_by_budget": [(int(k), _fmt(x["best_params"]) if x else "")
                                  for k, x in zip(g["k"], lrn, strict=True)],
        })
    return rows


def tuning_section(df: Any, ds_order: Sequence[str], m_order: Sequence[str]) -> str:
    """Markdown of :func:`tuning_rows` ('' when nothing was tuned); a learner setting that
    is the same at every budget is printed once."""
    rows = tuning_rows(df)
    if not rows:
        return ""
    ds_rank = {d: i for i, d in enumerate(_order({r["dataset"] for r in rows}, ds_order))}
    m_rank = {m: i for i, m in enumerate(_order({r["method"] for r in rows}, m_order))}
    rows.sort(key=lambda r: (ds_rank[r["dataset"]], m_rank[r["method"]], r["learner"],
                             r["split"]))
    lines = ["## Tuned parameters\n",
             "Chosen by the inner cross-validation of each cell's training part. Selector: "
             "the setting chosen (for the largest budget), its inner-CV score and the number "
             "of settings scored; learner: its chosen parameters per budget (k), once when "
             "the same at every budget.\n",
             "| Dataset | split | method | learner | selector setting | inner score | "
             "settings scored | learner parameters (k: value) |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        per = r["learner_by_budget"]
        vals = {v for _, v in per}
        lp = next(iter(vals)) if len(vals) == 1 else "; ".join(f"{k}: {v}" for k, v in per)
        sc = "" if r["selector_score"] is None else f"{r['selector_score']:.4f}"
        lines.append(f"| {r['dataset']} | {r['split']} | {r['method']} | {r['learner']} | "
                     f"{r['selector']} | {sc} | {r['n_scored'] or ''} | {lp} |")
    return "\n".join(lines) + "\n"
