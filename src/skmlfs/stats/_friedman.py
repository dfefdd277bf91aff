"""Friedman test and the Iman–Davenport F statistic (Demšar 2006, §3.2.2).

See docs/methods/statistics.md#friedman.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats as sst

from ._common import (
    as_score_matrix,
    check_alpha,
    check_bool,
    check_finite,
    check_n_datasets,
    readonly,
)
from ._ranks import rank_matrix

__all__ = ["FriedmanResult", "friedman_from_ranks", "friedman_test"]


@dataclass(frozen=True)
class FriedmanResult:
    """Outcome of the Friedman test over ``N`` datasets and ``k`` methods.

    Attributes
    ----------
    chi2 : float
        Friedman statistic ``χ²_F = 12N/(k(k+1)) [Σ_j R_j² − k(k+1)²/4]``.
    chi2_pvalue : float
        Upper tail of ``χ²`` with ``k − 1`` degrees of freedom at ``chi2``.
    ff : float
        Iman–Davenport statistic ``F_F = (N−1) χ²_F / (N(k−1) − χ²_F)``
        (``inf`` when every dataset ranks the methods identically).
    ff_pvalue : float
        Upper tail of ``F(k−1, (k−1)(N−1))`` at ``ff``.
    df : tuple of int
        ``(k − 1, (k − 1)(N − 1))``, the degrees of freedom of ``F_F``.
    f_critical : float
        ``F_{1−α}(k−1, (k−1)(N−1))`` (``scipy.stats.f.ppf``); SCLS Table 5
        prints 2.466 for ``k = 5, N = 25``.
    alpha : float
        Significance level used for ``f_critical`` and ``reject``.
    reject : bool
        ``ff > f_critical``: equal performance of all methods is rejected.
    average_ranks : ndarray of shape (k,)
        ``R_j``, 1 = best.
    n_datasets, n_methods : int
        ``N`` and ``k``.
    tie_corrected : bool
        Whether ``chi2`` was divided by the tie correction factor.
    """

    chi2: float
    chi2_pvalue: float
    ff: float
    ff_pvalue: float
    df: tuple[int, int]
    f_critical: float
    alpha: float
    reject: bool
    average_ranks: np.ndarray
    n_datasets: int
    n_methods: int
    tie_corrected: bool = False


def _chi2_from_ranks(avg: np.ndarray, n: int) -> float:
    k = avg.shape[0]
    return float(12.0 * n / (k * (k + 1)) * (np.sum(avg**2) - k * (k + 1) ** 2 / 4.0))


def _result(
    avg: np.ndarray, n: int, chi2: float, alpha: float, tie_corrected: bool
) -> FriedmanResult:
    k = avg.shape[0]
    # Rounding can push χ²_F a hair below 0 for identical average ranks.
    chi2 = max(chi2, 0.0)
    df1, df2 = k - 1, (k - 1) * (n - 1)
    denom = n * (k - 1) - chi2
    # denom == 0 happens when every dataset ranks the methods identically; the
    # tolerance absorbs the rounding of average ranks printed with 2–3 decimals.
    if denom <= 1e-9 * n * (k - 1):
        ff, ff_p = np.inf, 0.0
    else:
        ff = (n - 1) * chi2 / denom
        ff_p = float(sst.f.sf(ff, df1, df2))
    f_crit = float(sst.f.ppf(1.0 - alpha, df1, df2))
    return FriedmanResult(
        chi2=float(chi2),
        chi2_pvalue=float(sst.chi2.sf(chi2, df1)),
        ff=float(ff),
        ff_pvalue=ff_p,
        df=(df1, df2),
        f_critical=f_crit,
        alpha=alpha,
        reject=bool(ff > f_crit),
        average_ranks=readonly(avg),
        n_datasets=n,
        n_methods=k,
        tie_corrected=tie_corrected,
    )


def friedman_test(
    scores: Any,
    greater_is_better: bool,
    *,
    alpha: float = 0.05,
    decimals: int | None = None,
    tie_correction: bool = False,
) -> FriedmanResult:
    """Friedman test with the Iman–Davenport correction (Demšar 2006, §3.2.2).

    Implements docs/methods/statistics.md#friedman / SCLS §4.1::

        χ²_F = 12N / (k(k+1)) · [Σ_j R_j² − k(k+1)²/4]           ~ χ²(k − 1)
        F_F  = (N − 1) χ²_F / (N(k − 1) − χ²_F)                   ~ F(k − 1, (k − 1)(N − 1))

    Parameters
    ----------
    scores : array-like of shape (n_datasets, n_methods)
        Performance of each method on each dataset.
    greater_is_better : bool
        Direction of the metric; ranks are computed so that 1 = best.
    alpha : float, default=0.05
        Significance level of ``f_critical`` / ``reject``.
    decimals : int, optional
        Round scores before ranking (see :func:`rank_matrix`).
    tie_correction : bool, default=False
        Divide ``χ²_F`` by ``1 − Σ (t³ − t) / (N k (k² − 1))`` (sum over groups of
        ``t`` tied methods within a dataset). Demšar and the seed papers use the
        **uncorrected** statistic, which is the default; ``scipy.stats.friedmanchisquare``
        always applies the correction, so the two agree only on tie-free data
        (or with ``tie_correction=True``).

    Returns
    -------
    FriedmanResult

    Raises
    ------
    ValueError
        For a non-2-D ``scores``, ``N < 2``, ``k < 2``, NaN, or ``alpha`` outside (0, 1).

    Examples
    --------
    >>> import numpy as np
    >>> res = friedman_test(np.array([[0.1, 0.2, 0.3], [0.1, 0.3, 0.2]]), greater_is_better=False)
    >>> res.average_ranks.tolist()
    [1.0, 2.5, 2.5]
    """
    a = as_score_matrix(scores)
    alpha = check_alpha(alpha)
    tie_correction = check_bool(tie_correction, "tie_correction")
    if decimals is not None:
        a = np.round(a, decimals)
    ranks = rank_matrix(a, greater_is_better)
    n, k = ranks.shape
    avg = ranks.mean(axis=0)
    chi2 = _chi2_from_ranks(avg, n)
    if tie_correction:
        s = np.sort(a, axis=1)
        starts = np.ones_like(s, dtype=bool)
        starts[:, 1:] = s[:, 1:] != s[:, :-1]
        # Every row starts a new group, so no group of ties spans two datasets.
        first = np.flatnonzero(starts.ravel())
        t = np.diff(np.append(first, s.size)).astype(float)
        c = 1.0 - np.sum(t**3 - t) / (n * k * (k * k - 1.0))
        # c == 0 only if every dataset ties all methods: no evidence either way.
        chi2 = chi2 / c if c > 0 else 0.0
    return _result(avg, n, chi2, alpha, tie_correction)


def friedman_from_ranks(
    average_ranks: Any, n_datasets: int, *, alpha: float = 0.05
) -> FriedmanResult:
    """Friedman / Iman–Davenport statistics from published average ranks.

    Papers print only the average ranks ``R_j``; this recomputes their
    ``χ²_F`` and ``F_F`` (Demšar 2006, §3.2.2; docs/methods/statistics.md#friedman). With the SCLS
    ranking-loss ranks ``(1.04, 4.00, 2.96, 2.52, 4.48)`` and ``N = 25`` it gives
    ``F_F = 63.719`` as printed in SCLS Table 5.

    Parameters
    ----------
    average_ranks : array-like of shape (k,)
        Average rank of each method, 1 = best.
    n_datasets : int
        ``N``.
    alpha : float, default=0.05
        Significance level.

    Returns
    -------
    FriedmanResult
        Without tie correction (it needs the per-dataset ranks).

    Raises
    ------
    ValueError
        If the ranks are not 1-D with ``k >= 2`` entries in ``[1, k]``, contain
        NaN, do not sum to ``k(k+1)/2`` (up to rounding, ``0.006 k``), or ``N < 2``.
    """
    avg = np.asarray(average_ranks, dtype=float)
    if avg.ndim != 1:
        raise ValueError(f"average_ranks must be 1-D; got shape {avg.shape}.")
    k = avg.shape[0]
    if k < 2:
        raise ValueError(f"average_ranks needs at least 2 methods; got k = {k}.")
    check_finite(avg, "average_ranks")
    if np.any(avg < 1 - 1e-9) or np.any(avg > k + 1e-9):
        raise ValueError(f"average ranks must lie in [1, k = {k}]; got {avg.tolist()}.")
    total = k * (k + 1) / 2.0
    # Printed ranks carry 2–3 decimals; a larger mismatch means a misprint
    # (e.g. oCC Table 5 sums to 26.46 instead of 28) and would give a wrong χ²_F.
    if abs(avg.sum() - total) > 0.006 * k:
        raise ValueError(
            f"average ranks of k = {k} methods must sum to k(k+1)/2 = {total:g}; "
            f"got {avg.sum():.4g}. Check the ranks (is one misprinted?)."
        )
    n = check_n_datasets(n_datasets)
    alpha = check_alpha(alpha)
    return _result(avg, n, _chi2_from_ranks(avg, n), alpha, False)
