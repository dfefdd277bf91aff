"""Search histories of wrapper selectors stored with the cells, as tables and convergence
curves (issue #14: one search per metric, fitness per evaluation, drawn per dataset)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["check_record", "plot_search_histories", "search_histories", "search_records"]


def search_histories(df: Any):
    """Long table of the stored search histories: one row per (dataset, method, split,
    evaluation) with the best fitness found so far (``best_loss``; accuracies negated).

    ``df`` is :meth:`ResultStore.to_frame <skmlfs.experiments.ResultStore.to_frame>`; the
    history is read from ``info["selector"]["history"]`` of the cells (several cells of one
    search — its budgets and learners — carry the same history: it is taken once).
    """
    import pandas as pd

    rows = []
    if "info" not in df:
        return pd.DataFrame(columns=["dataset", "method", "split", "evaluation", "best_loss"])
    seen = set()
    for ds, meth, split, info in zip(df["dataset"], df["method"], df["split"], df["info"],
                                     strict=True):
        hist = ((info or {}).get("selector") or {}).get("history") if isinstance(
            info, dict) else None
        key = (ds, meth, int(split))
        if not hist or key in seen:
            continue
        seen.add(key)
        rows.extend((ds, meth, int(split), i + 1, float(v)) for i, v in enumerate(hist))
    return pd.DataFrame(rows, columns=["dataset", "method", "split", "evaluation", "best_loss"])


def plot_search_histories(
    df: Any, out_dir: str | os.PathLike, *, methods: Any = None
) -> list[Path]:
    """One PNG per dataset, ``convergence_<dataset>.png``: the mean over splits (± std) of
    the best fitness after each evaluation, one line per search (method). Returns the files
    written (none when no cell holds a history)."""
    from ..plots import metric_curves

    h = search_histories(df)
    out = []
    if h.empty:
        return out
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    for ds, g in h.groupby("dataset", sort=False):
        curves = {}
        order = [m for m in (methods or []) if m in set(g["method"])]
        order += [m for m in dict.fromkeys(g["method"]) if m not in order]
        for m in order:
            # searches of different splits may stop after different numbers of
            # evaluations: average over the splits that reached each evaluation
            t = g[g["method"] == m].pivot(index="evaluation", columns="split",
                                          values="best_loss")
            x = t.index.to_numpy(float)
            curves[m] = (x, np.nanmean(t.to_numpy(), axis=1),
                         np.nan_to_num(np.nanstd(t.to_numpy(), axis=1)))
        slug = "".join(c if c.isalnum() or c in "._-" else "_" for c in str(ds))
        p = Path(out_dir) / f"convergence_{slug}.png"
        fig = metric_curves(curves, "fitness evaluations",
                             "best fitness (lower is better; accuracies negated)", p,
                             title=f"{ds}: search convergence")
        try:
            import matplotlib.pyplot as plt

            plt.close(fig)
        except Exception:  # noqa: BLE001 — Agg figures need no closing
            pass
        out.append(p)
    return out


# --------------------------------------------------------------------------- records
def check_record(rec: Any, key: str) -> None:
    """Validate a selector's ``record`` option (``ValueError`` naming ``key``)."""
    if not isinstance(rec, Mapping) or not rec:
        raise ValueError(f"{key}: a table {{ low_labels = [0.5, 0.25], success = true }}.")
    bad = set(rec) - {"low_labels", "success"}
    if bad:
        raise ValueError(f"{key}: unknown key(s) {sorted(bad)}; allowed: low_labels, success.")
    fr = rec.get("low_labels", [0.5])
    if (isinstance(fr, str) or not hasattr(fr, "__len__") or not fr
            or not all(isinstance(f, (int, float)) and not isinstance(f, bool) and 0 < f <= 1
                       for f in fr)):
        raise ValueError(f"{key}.low_labels: a list of fractions in (0, 1].")
    if not isinstance(rec.get("success", False), bool):
        raise ValueError(f"{key}.success: true or false.")


def low_label_count(fraction: float, q: int) -> int:
    """How many least accurate labels a fraction names: ``max(1, floor(fraction q))``."""
    return max(1, int(np.floor(fraction * q + 1e-9)))


def search_records(hist: Mapping, record: Mapping) -> dict:
    """What a wrapper's ``history_`` adds to its cell under the ``record`` option.

    ``low_labels``: for each fraction ``f``, the mean inner-holdout accuracy of the
    ``max(1, floor(f q))`` least accurate labels of the population's best subset after
    every evaluation (from ``history_["best_label_accuracy"]``; the memetic paper's
    Fig. 4). ``success_ratio`` (``success = true``): the share of offspring whose inner
    loss is below their parent's (``history_["reproductions"]``; Fig. 6), ``None``
    without offspring.
    """
    out: dict[str, Any] = {}
    if "low_labels" in record and "best_label_accuracy" in hist:
        acc = np.sort(np.asarray(hist["best_label_accuracy"], dtype=float), axis=1)
        out["low_labels"] = {
            str(float(f)): [round(float(x), 8) for x in
                            acc[:, :low_label_count(float(f), acc.shape[1])].mean(axis=1)]
            for f in record["low_labels"]
        }
    if record.get("success") and "reproductions" in hist:
        reps = hist["reproductions"]
        child = np.asarray(reps["child_loss"], dtype=float)
        out["success_ratio"] = (float(np.mean(child < np.asarray(reps["parent_loss"])))
                                if child.size else None)
    return out
