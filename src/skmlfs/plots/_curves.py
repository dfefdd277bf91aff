"""Metric-versus-budget curves and runtime bar charts."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from matplotlib import colormaps
from matplotlib.figure import Figure

from ._common import new_figure, save

__all__ = ["metric_curves", "runtime_bars"]

_MARKERS = "osD^v<>ph*X"
# A crowded figure (more lines than the default colour cycle tells apart): see metric_curves.
_CROWDED = 10
_LEGEND_ROWS = 16
_CMAP = colormaps["tab20"]
_STYLES = ("-", "--", ":", "-.")


def _curves_from_frame(
    df: Any, method_col: str, x_col: str, mean_col: str, std_col: str | None
) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray | None]]:
    missing = [c for c in (method_col, x_col, mean_col) if c not in df.columns]
    if missing:
        raise ValueError(
            f"the DataFrame lacks the column(s) {missing}; it has {list(df.columns)}. "
            "Pass method_col/x_col/mean_col/std_col to name them."
        )
    has_std = std_col is not None and std_col in df.columns
    out = {}
    for method, g in df.groupby(method_col, sort=False):
        g = g.sort_values(x_col)
        out[str(method)] = (
            g[x_col].to_numpy(float),
            g[mean_col].to_numpy(float),
            g[std_col].to_numpy(float) if has_std else None,
        )
    return out


def _curves_from_mapping(
    data: Mapping[str, Any],
) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray | None]]:
    out = {}
    for method, v in data.items():
        if not isinstance(v, tuple | list) or len(v) not in (2, 3):
            raise ValueError(
                f"curve {method!r} must be a tuple (x, mean) or (x, mean, std); got {type(v)}."
            )
        xs = np.asarray(v[0], dtype=float)
        mean = np.asarray(v[1], dtype=float)
        std = np.asarray(v[2], dtype=float) if len(v) == 3 and v[2] is not None else None
        if xs.ndim != 1 or mean.shape != xs.shape or (std is not None and std.shape != xs.shape):
            raise ValueError(
                f"curve {method!r}: x, mean (and std) must be 1-D of equal length; got shapes "
                f"{xs.shape}, {mean.shape}" + (f", {std.shape}" if std is not None else "") + "."
            )
        out[str(method)] = (xs, mean, std)
    return out


def metric_curves(
    data: Any,
    xlabel: str,
    ylabel: str,
    path: str | os.PathLike[str] | None = None,
    *,
    title: str | None = None,
    std_band: bool = True,
    method_col: str = "method",
    x_col: str = "x",
    mean_col: str = "mean",
    std_col: str | None = "std",
    figsize: tuple[float, float] = (6.0, 4.0),
    dpi: float = 150.0,
) -> Figure:
    """One line per method: a metric against the number (or share) of selected features.

    Parameters
    ----------
    data : pandas.DataFrame or mapping method -> (x, mean) or (x, mean, std)
        A long DataFrame with one row per (method, budget) and the columns named
        by ``method_col``, ``x_col``, ``mean_col`` and optionally ``std_col``;
        or a mapping from method name to arrays.
    xlabel, ylabel : str
        Axis labels, e.g. ``"number of selected features"``, ``"Hamming loss"``.
    path : str or path-like, optional
        Write the figure as PNG there.
    title : str, optional
    std_band : bool, default=True
        Shade mean ± std where a std is given.
    method_col, x_col, mean_col, std_col : str
        Column names for DataFrame input.
    figsize : (float, float), default=(6, 4)
        Inches; the PNG has ``figsize * dpi`` pixels.
    dpi : float, default=150

    Returns
    -------
    matplotlib.figure.Figure
    """
    if hasattr(data, "columns") and hasattr(data, "groupby"):
        curves = _curves_from_frame(data, method_col, x_col, mean_col, std_col)
    elif isinstance(data, Mapping):
        curves = _curves_from_mapping(data)
    else:
        raise TypeError(
            "data must be a pandas DataFrame or a mapping method -> (x, mean[, std]); "
            f"got {type(data).__name__}."
        )
    if not curves:
        raise ValueError("no curves to plot (data is empty).")
    for method, (xs, mean, std) in curves.items():
        for arr, what in ((xs, "x"), (mean, "mean"), (std, "std")):
            if arr is not None and not np.all(np.isfinite(arr)):
                raise ValueError(f"curve {method!r} has NaN/infinite {what} values.")

    # Beyond _CROWDED lines (a benchmark of every selector) the legend moves outside the
    # axes, in columns of at most _LEGEND_ROWS, the figure widens to hold it, colours come
    # from a 20-colour map with a line style per round of it, and the std bands are left
    # out: twenty overlapping bands hide the lines they belong to.
    crowded = len(curves) > _CROWDED
    ncol = -(-len(curves) // _LEGEND_ROWS)
    width = figsize[0] + (1.6 * ncol if crowded else 0.0)
    fig = new_figure(width, figsize[1] + (0.6 if crowded else 0.0), dpi)
    ax = fig.add_subplot()
    for j, (method, (xs, mean, std)) in enumerate(curves.items()):
        style: dict[str, Any] = {}
        if crowded:
            style = {"color": _CMAP(j % 20), "linestyle": _STYLES[(j // 20) % len(_STYLES)]}
        (ln,) = ax.plot(xs, mean, marker=_MARKERS[j % len(_MARKERS)], markersize=4,
                        linewidth=1.3, label=method, **style)  # fmt: skip
        if std_band and std is not None and not crowded:
            ax.fill_between(xs, mean - std, mean + std, color=ln.get_color(), alpha=0.15,
                            linewidth=0)  # fmt: skip
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.grid(True, alpha=0.3)
    if crowded:
        ax.legend(fontsize="small", frameon=False, loc="upper left", ncol=ncol,
                  bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    else:
        ax.legend(fontsize="small", frameon=False)
    fig.tight_layout()
    save(fig, path)
    return fig


def runtime_bars(
    times: Any,
    path: str | os.PathLike[str] | None = None,
    log: bool = True,
    *,
    ylabel: str = "time (s)",
    title: str | None = None,
    figsize: tuple[float, float] = (6.0, 4.0),
    dpi: float = 150.0,
) -> Figure:
    """Bar chart of run times per method, optionally grouped by dataset.

    Parameters
    ----------
    times : mapping method -> seconds, mapping method -> (mapping dataset -> seconds), or DataFrame
        One bar per method; or, per dataset, a group of bars (one per method).
        A DataFrame has datasets as rows and methods as columns.
    path : str or path-like, optional
        Write the figure as PNG there.
    log : bool, default=True
        Logarithmic time axis (run times of selectors span orders of magnitude).
    ylabel : str, default="time (s)"
    title : str, optional
    figsize : (float, float), default=(6, 4)
    dpi : float, default=150

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        For empty input, negative/NaN times, zero times with ``log=True``, or
        methods with different datasets.
    """
    methods, datasets, values = _parse_times(times)
    if not np.all(np.isfinite(values)) or np.any(values < 0):
        raise ValueError("times must be finite and non-negative.")
    if log and np.any(values <= 0):
        raise ValueError("a logarithmic axis needs positive times; pass log=False.")

    n_d, n_m = values.shape
    # grouped bars of many methods: the legend outside, one colour per method (as in
    # metric_curves), the figure widened for the legend and for many groups
    crowded = datasets is not None and n_m > _CROWDED
    ncol = -(-n_m // _LEGEND_ROWS)
    width = figsize[0]
    if crowded:
        width = min(max(figsize[0], 0.12 * n_m * n_d + 1.5), 16.0) + 1.6 * ncol
    fig = new_figure(width, figsize[1] + (0.6 if crowded else 0.0), dpi)
    ax = fig.add_subplot()
    if datasets is None:
        bars = ax.bar(np.arange(n_m), values[0], color=[f"C{j % 10}" for j in range(n_m)])
        ax.set_xticks(np.arange(n_m), methods, rotation=30 if n_m > 4 else 0,
                      ha="right" if n_m > 4 else "center")  # fmt: skip
        ax.bar_label(bars, fmt="%.3g", fontsize="x-small", padding=1)
    else:
        w = 0.8 / n_m
        centers = np.arange(n_d)
        for j, m in enumerate(methods):
            ax.bar(centers - 0.4 + (j + 0.5) * w, values[:, j], width=w, label=m,
                   **({"color": _CMAP(j % 20)} if crowded else {}))  # fmt: skip
        ax.set_xticks(centers, datasets, rotation=30 if n_d > 4 else 0,
                      ha="right" if n_d > 4 else "center")  # fmt: skip
        if crowded:
            ax.legend(fontsize="small", frameon=False, loc="upper left", ncol=ncol,
                      bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
        else:
            ax.legend(fontsize="small", frameon=False)
    if log:
        ax.set_yscale("log")
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    save(fig, path)
    return fig


def _parse_times(times: Any) -> tuple[list[str], list[str] | None, np.ndarray]:
    """Return (methods, datasets or None, values of shape (n_datasets or 1, n_methods))."""
    if hasattr(times, "columns") and hasattr(times, "index"):
        if times.size == 0:
            raise ValueError("times is empty.")
        return ([str(c) for c in times.columns], [str(i) for i in times.index],
                times.to_numpy(dtype=float))  # fmt: skip
    if not isinstance(times, Mapping) or not times:
        raise ValueError("times must be a non-empty mapping or DataFrame.")
    methods = [str(m) for m in times]
    vals = list(times.values())
    if all(isinstance(v, Mapping) for v in vals):
        datasets: Sequence[Any] = list(vals[0].keys())
        for m, v in zip(methods, vals, strict=True):
            if list(v.keys()) != list(datasets):
                raise ValueError(
                    f"method {m!r} has datasets {list(v.keys())}, expected {list(datasets)}."
                )
        arr = np.array([[float(v[d]) for v in vals] for d in datasets])
        return methods, [str(d) for d in datasets], arr
    if any(isinstance(v, Mapping) for v in vals):
        raise ValueError("mix of per-dataset mappings and single times in times.")
    try:
        arr = np.array([[float(v) for v in vals]])
    except (TypeError, ValueError):
        raise ValueError(
            "times values must be numbers (seconds) or mappings dataset -> seconds."
        ) from None
    return methods, None, arr
