"""Parameter-sensitivity studies declared in an experiment (RLEFS paper, Fig. 6).

A selector table with ``sensitivity = "alpha"`` and ``variants = { alpha = [...] }`` (the
other parameters fixed in the table, usually restricted with ``datasets``,
``n_features_to_select`` and ``learners``) is a sensitivity study: its cells are left out
of the comparison tables and drawn as one figure per (dataset, learner): each metric
against the value of the varied parameter, one panel per parameter.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["plot_sensitivity", "split_sensitivity"]


def _identity(v: Any) -> dict:
    if isinstance(v, str):
        try:
            v = json.loads(v)
        except ValueError:
            return {}
    return v if isinstance(v, dict) else {}


def split_sensitivity(df: Any) -> tuple[Any, Any]:
    """``(cells of the comparison, cells of sensitivity studies)``; the latter gain the
    columns ``parameter`` and ``value``."""
    if "selector" not in df or df.empty:
        return df, df.iloc[0:0]
    ids = [_identity(v) for v in df["selector"]]
    par = [(i.get("options") or {}).get("sensitivity") for i in ids]
    mask = np.array([p is not None for p in par], dtype=bool)
    if not mask.any():
        return df, df.iloc[0:0]
    vals = [(i.get("params") or {}).get(p) if p else None for i, p in zip(ids, par,
                                                                         strict=True)]
    sens = df[mask].assign(parameter=[p for p, m in zip(par, mask, strict=True) if m],
                           value=[v for v, m in zip(vals, mask, strict=True) if m])
    return df[~mask], sens


def plot_sensitivity(sens: Any, metrics: list[str], out_dir: str | os.PathLike) -> list[Path]:
    """One PNG per (dataset, learner), ``sensitivity_<dataset>_<learner>.png``: per varied
    parameter a panel of grouped bars (one per metric, mean over splits and budgets)
    against the parameter's values."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out: list[Path] = []
    if sens is None or sens.empty:
        return out
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    metrics = [m for m in metrics if m in sens]
    for (ds, lr), g in sens.groupby(["dataset", "learner"], sort=False):
        params = list(dict.fromkeys(g["parameter"]))
        fig, axes = plt.subplots(1, len(params), figsize=(4 * len(params), 3.6), sharey=True,
                                 squeeze=False)
        for ax, p in zip(axes[0], params, strict=True):
            h = g[g["parameter"] == p]
            values = sorted(set(h["value"]), key=float)
            xs = np.arange(len(values))
            w = 0.8 / max(1, len(metrics))
            for j, m in enumerate(metrics):
                y = [h[h["value"] == v][m].mean() for v in values]
                ax.bar(xs + (j - (len(metrics) - 1) / 2) * w, y, w, label=m.replace("_", " "))
            ax.set_xticks(xs, [f"{float(v):g}" for v in values])
            ax.set_xlabel(p.rstrip("_"))
            ax.grid(alpha=0.3, axis="y")
        axes[0][0].set_ylabel(f"test value ({lr})")
        axes[0][0].legend(fontsize=8)
        fig.suptitle(f"parameter sensitivity on {ds} (the others fixed)")
        fig.tight_layout()
        slug = "".join(c if c.isalnum() or c in "._-" else "_" for c in f"{ds}_{lr}")
        path = Path(out_dir) / f"sensitivity_{slug}.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        out.append(path)
    return out
