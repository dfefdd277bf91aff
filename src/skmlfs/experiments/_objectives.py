"""Optimiser convergence stored with the cells: the objective per iteration of selectors
that minimise one (RLEFS Eq. 11 + the λ penalty, MIFS, RALM-FS), as a table and as one
figure per dataset (RLEFS paper, Fig. 7)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["objective_curves", "plot_objectives"]


def _find(info: Any) -> list[float] | None:
    """The ``objective`` list in a cell's selector info (also inside a tuned selector's
    refitted best estimator)."""
    if not isinstance(info, dict):
        return None
    if isinstance(info.get("objective"), list):
        return info["objective"]
    for v in info.values():
        got = _find(v)
        if got:
            return got
    return None


def objective_curves(df: Any):
    """Long table (dataset, method, learner, split, iteration, objective) of the objectives
    stored in ``info["selector"]`` (taken once per selector fit: a selector tuned per learner
    has one fit per learner)."""
    import pandas as pd

    cols = ["dataset", "method", "learner", "split", "iteration", "objective"]
    if "info" not in df:
        return pd.DataFrame(columns=cols)
    rows, seen = [], set()
    for ds, m, lr, split, rid, info in zip(df["dataset"], df["method"], df["learner"],
                                           df["split"], df.get("ranking_id", df["method"]),
                                           df["info"], strict=True):
        obj = _find((info or {}).get("selector")) if isinstance(info, dict) else None
        key = (ds, m, int(split), rid)
        if not obj or key in seen:
            continue
        seen.add(key)
        rows.extend((ds, m, lr, int(split), i, float(v)) for i, v in enumerate(obj))
    return pd.DataFrame(rows, columns=cols)


def plot_objectives(df: Any, out_dir: str | os.PathLike, *, methods: Any = None) -> list[Path]:
    """One PNG per dataset, ``objective_<dataset>.png``: the objective after each iteration
    (log scale), one panel per (method, learner it was tuned for) with one line per split.
    Returns the files written (none when no cell holds an objective).

    A panel per optimiser because their objectives differ by orders of magnitude (RALM-FS
    near 10⁷, RLEFS near 1 on the same data): on one axis the smaller curves flatten out,
    and one legend entry per split and method hides the axes.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = objective_curves(df)
    out: list[Path] = []
    if t.empty:
        return out
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    for ds, g in t.groupby("dataset", sort=False):
        order = [m for m in (methods or []) if m in set(g["method"])]
        order += [m for m in dict.fromkeys(g["method"]) if m not in order]
        panels = [(m, lr) for m in order
                  for lr in dict.fromkeys(g.loc[g["method"] == m, "learner"])]
        ncols = min(3, len(panels))
        nrows = -(-len(panels) // ncols)
        fig, axes = plt.subplots(nrows, ncols, figsize=(3.6 * ncols + 0.6, 2.9 * nrows + 0.5),
                                 squeeze=False)
        for ax, (m, lr) in zip(list(axes.flat)[: len(panels)], panels, strict=True):
            h = g[(g["method"] == m) & (g["learner"] == lr)]
            for i, (split, c) in enumerate(h.groupby("split", sort=True)):
                y = c.sort_values("iteration")["objective"].to_numpy()
                ax.semilogy(np.arange(len(y)), np.maximum(y, np.finfo(float).tiny), lw=1.2,
                            alpha=0.85, color=plt.cm.viridis(i / max(1, h["split"].nunique())),
                            label=f"split {split}")
            ax.set_title(f"{m} ({lr})" if g["learner"].nunique() > 1 else str(m), fontsize=9)
            ax.set_xlabel("iteration", fontsize=8)
            ax.set_ylabel("objective", fontsize=8)
            ax.tick_params(which="both", labelsize=7)
            ax.grid(alpha=0.3)
        for ax in list(axes.flat)[len(panels):]:
            ax.set_visible(False)
        n_splits = g["split"].nunique()
        fig.suptitle(f"{ds}: optimiser convergence"
                     + (f" (one line per split, {n_splits} splits)" if n_splits > 1 else ""),
                     fontsize=10)
        fig.tight_layout()
        slug = "".join(c if c.isalnum() or c in "._-" else "_" for c in str(ds))
        p = Path(out_dir) / f"objective_{slug}.png"
        fig.savefig(p, dpi=110)
        plt.close(fig)
        out.append(p)
    return out
