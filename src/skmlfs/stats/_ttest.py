"""Paired t-tests on per-split results and win/tie/loss counts (memetic paper).

See docs/methods/statistics.md#paired-t-test.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats as sst

from ._common import check_alpha, check_bool, check_finite, readonly

__all__ = ["PairedTTestResult", "WinTieLossResult", "paired_ttest", "win_tie_loss"]


def _ttest_last_axis(diff: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two-sided paired t statistic and p-value of ``diff`` along the last axis.

    ``scipy.stats.ttest_rel`` returns NaN when all differences are equal; we make
    that explicit: identical runs (all differences 0) are a tie (t = 0, p = 1),
    and a constant non-zero difference is a certain one (t = ±inf, p = 0).
    """
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        res = sst.ttest_rel(diff, np.zeros_like(diff), axis=-1)
    t = np.asarray(res.statistic, dtype=float)
    p = np.asarray(res.pvalue, dtype=float)
    mean = diff.mean(axis=-1)
    spread = np.ptp(diff, axis=-1)
    # Differences that agree to rounding error have no variance to test against.
    const = spread <= 1e-12 * np.maximum(np.abs(diff).max(axis=-1), 1e-300)
    t = np.where(const, np.where(mean == 0, 0.0, np.copysign(np.inf, mean)), t)
    p = np.where(const, np.where(mean == 0, 1.0, 0.0), p)
    return t, p


def _as_runs(x: Any, name: str) -> np.ndarray:
    a = np.asarray(x, dtype=float)
    if a.ndim == 1:
        a = a[None, :]
    if a.ndim != 2:
        raise ValueError(
            f"{name} must have shape (n_runs,) or (n_datasets, n_runs); got shape {a.shape}."
        )
    if a.shape[1] < 2:
        raise ValueError(f"{name} needs at least 2 runs per dataset; got {a.shape[1]}.")
    check_finite(a, name)
    return a


@dataclass(frozen=True)
class PairedTTestResult:
    """Per-dataset two-sided paired t-tests of method ``a`` against ``b``.

    Attributes
    ----------
    statistic : ndarray of shape (n_datasets,)
        ``t = mean(a − b) / (sd(a − b) / sqrt(n_runs))``.
    pvalue : ndarray of shape (n_datasets,)
        Two-sided p-values (``df = n_runs − 1``).
    mean_difference : ndarray of shape (n_datasets,)
        ``mean(a − b)`` over the runs.
    df : int
    t_critical : float
        ``t_{1 − α/2}(df)``: 2.262 for 10 runs, 2.776 for 5
        (docs/methods/statistics.md#paired-t-test).
    alpha : float
    significant : ndarray of shape (n_datasets,), bool
        ``pvalue <= alpha``.
    outcome : ndarray of shape (n_datasets,), str
        ``"win"`` / ``"tie"`` / ``"loss"`` for ``a``: a win is a significant
        difference in the metric's favourable direction.
    """

    statistic: np.ndarray
    pvalue: np.ndarray
    mean_difference: np.ndarray
    df: int
    t_critical: float
    alpha: float
    significant: np.ndarray
    outcome: np.ndarray


def paired_ttest(
    a_runs: Any, b_runs: Any, greater_is_better: bool, *, alpha: float = 0.05
) -> PairedTTestResult:
    """Two-sided paired t-test per dataset on paired per-split results.

    See docs/methods/statistics.md#paired-t-test.

    The memetic paper compares methods on each dataset over the 10 paired
    80/20 holdout runs at α = 0.05. Computed with ``scipy.stats.ttest_rel``
    along the runs axis, for all datasets at once.

    Parameters
    ----------
    a_runs, b_runs : array-like of shape (n_runs,) or (n_datasets, n_runs)
        Metric value of each method on each split; column ``r`` of both arrays
        must come from the same split.
    greater_is_better : bool
        Direction of the metric (decides win vs loss).
    alpha : float, default=0.05

    Returns
    -------
    PairedTTestResult

    Raises
    ------
    ValueError
        For mismatched shapes, fewer than 2 runs, NaN, or ``alpha`` outside (0, 1).
    """
    a = _as_runs(a_runs, "a_runs")
    b = _as_runs(b_runs, "b_runs")
    if a.shape != b.shape:
        raise ValueError(
            f"a_runs and b_runs must have the same shape; got {a.shape} and {b.shape}."
        )
    gib = check_bool(greater_is_better, "greater_is_better")
    alpha = check_alpha(alpha)
    diff = a - b
    t, p = _ttest_last_axis(diff)
    df = a.shape[1] - 1
    sig = p <= alpha
    better = (t > 0) if gib else (t < 0)
    outcome = np.where(sig, np.where(better, "win", "loss"), "tie")
    return PairedTTestResult(
        statistic=readonly(t),
        pvalue=readonly(p),
        mean_difference=readonly(diff.mean(axis=1)),
        df=df,
        t_critical=float(sst.t.ppf(1.0 - alpha / 2.0, df)),
        alpha=alpha,
        significant=readonly(sig),
        outcome=readonly(outcome),
    )


@dataclass(frozen=True)
class WinTieLossResult:
    """Win/tie/loss counts of paired t-tests between all methods (memetic paper, Tables 8–11).

    Attributes
    ----------
    names : tuple of str
        Method names (``k``).
    dataset_names : tuple of str
        Dataset names (``N``).
    outcome : ndarray of shape (k, k, N), int
        ``+1`` if method ``i`` is significantly better than ``j`` on a dataset,
        ``−1`` if significantly worse, ``0`` otherwise (and on the diagonal).
    wins, ties, losses : ndarray of shape (N, k), int
        Per dataset and method, the number of the ``k − 1`` other methods it
        beats / ties / loses to: the paper's ``a/b/c`` with ``a + b + c = k − 1``.
    alpha : float
    """

    names: tuple[str, ...]
    dataset_names: tuple[str, ...]
    outcome: np.ndarray
    wins: np.ndarray
    ties: np.ndarray
    losses: np.ndarray
    alpha: float

    @property
    def totals(self) -> np.ndarray:
        """``(k, 3)`` array of wins, ties, losses summed over the datasets."""
        return np.stack(
            [self.wins.sum(axis=0), self.ties.sum(axis=0), self.losses.sum(axis=0)], axis=1
        )

    def as_frame(self, total: bool = True) -> Any:
        """Table of ``"a/b/c"`` strings, datasets × methods, as the memetic paper prints.

        Parameters
        ----------
        total : bool, default=True
            Append a ``"Total"`` row summed over the datasets.

        Returns
        -------
        pandas.DataFrame
        """
        import pandas as pd

        w, t, lo = self.wins, self.ties, self.losses
        rows = [[f"{w[i, j]}/{t[i, j]}/{lo[i, j]}" for j in range(w.shape[1])]
                for i in range(w.shape[0])]  # fmt: skip
        index = list(self.dataset_names)
        if total:
            tot = self.totals
            rows.append([f"{a}/{b}/{c}" for a, b, c in tot])
            index.append("Total")
        return pd.DataFrame(rows, index=index, columns=list(self.names))


def win_tie_loss(
    runs: Mapping[str, Any] | np.ndarray,
    greater_is_better: bool,
    *,
    alpha: float = 0.05,
    names: Sequence[str] | None = None,
    dataset_names: Sequence[str] | None = None,
) -> WinTieLossResult:
    """Pairwise paired t-tests between all methods, counted as win/tie/loss.

    See docs/methods/statistics.md#paired-t-test.

    Reproduces the ``a/b/c`` tables of the memetic paper: on every dataset each
    method is compared with each other one by a two-sided paired t-test over
    the runs (:func:`paired_ttest`) and the significant wins, non-significant
    ties and significant losses are counted (``a + b + c = k − 1``).

    Parameters
    ----------
    runs : mapping name -> array of shape (N, n_runs), or array of shape (k, N, n_runs)
        Per-split metric values; run ``r`` is the same split for all methods.
    greater_is_better : bool
        Direction of the metric.
    alpha : float, default=0.05
    names : sequence of str, optional
        Method names for an array input (default ``"0"``, ``"1"``, ...).
    dataset_names : sequence of str, optional
        Default ``"0"``, ``"1"``, ...

    Returns
    -------
    WinTieLossResult

    Raises
    ------
    ValueError
        For inconsistent shapes, fewer than 2 methods or 2 runs, or NaN.
    """
    if isinstance(runs, Mapping):
        if names is not None:
            raise ValueError("give method names either as the keys of runs or as names, not both.")
        names = [str(n) for n in runs]
        shapes = {n: np.shape(v) for n, v in runs.items()}
        if len(set(shapes.values())) > 1:
            raise ValueError(f"all methods need the same (n_datasets, n_runs) shape; got {shapes}.")
        arr = np.asarray([np.asarray(v, dtype=float) for v in runs.values()])
    else:
        arr = np.asarray(runs, dtype=float)
    if arr.ndim == 2:  # a single dataset: (k, n_runs)
        arr = arr[:, None, :]
    if arr.ndim != 3:
        raise ValueError(
            f"runs must have shape (n_methods, n_datasets, n_runs); got shape {arr.shape}."
        )
    k, n, r = arr.shape
    if k < 2:
        raise ValueError(f"win_tie_loss needs at least 2 methods; got {k}.")
    if r < 2:
        raise ValueError(f"paired t-tests need at least 2 runs per dataset; got {r}.")
    check_finite(arr, "runs")
    gib = check_bool(greater_is_better, "greater_is_better")
    alpha = check_alpha(alpha)
    names = tuple(str(x) for x in (names if names is not None else range(k)))
    dnames = tuple(str(x) for x in (dataset_names if dataset_names is not None else range(n)))
    if len(names) != k:
        raise ValueError(f"{len(names)} names for {k} methods.")
    if len(dnames) != n:
        raise ValueError(f"{len(dnames)} dataset names for {n} datasets.")

    diff = arr[:, None, :, :] - arr[None, :, :, :]  # (k, k, N, R)
    t, p = _ttest_last_axis(diff)
    sign = np.sign(t) if gib else -np.sign(t)
    outcome = np.where(p <= alpha, sign, 0.0).astype(np.int8)
    idx = np.arange(k)
    outcome[idx, idx, :] = 0
    wins = (outcome == 1).sum(axis=1).T
    losses = (outcome == -1).sum(axis=1).T
    ties = (k - 1) - wins - losses
    return WinTieLossResult(
        names=names,
        dataset_names=dnames,
        outcome=readonly(outcome),
        wins=readonly(wins),
        ties=readonly(ties),
        losses=readonly(losses),
        alpha=alpha,
    )
