"""Per-dataset ranks of methods (Demšar 2006, §3.2.2; docs/methods/statistics.md#friedman)."""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.stats import rankdata

from ._common import as_score_matrix, check_bool

__all__ = ["average_ranks", "rank_matrix"]


def rank_matrix(scores: Any, greater_is_better: bool, *, decimals: int | None = None) -> np.ndarray:
    """Rank the methods on every dataset, 1 = best, ties sharing the mean rank.

    Following Demšar (2006, §3.2.2) and docs/methods/statistics.md#friedman, each row
    (dataset) is ranked independently; methods with equal scores receive the
    average of the ranks they would span.

    Parameters
    ----------
    scores : array-like of shape (n_datasets, n_methods)
        Performance of each method on each dataset.
    greater_is_better : bool
        ``True`` for scores (accuracy, F1), ``False`` for losses (Hamming loss,
        ranking loss, coverage), so that rank 1 is always the best method.
    decimals : int, optional
        Round the scores to this many decimals before ranking. Published tables
        rank the printed values (e.g. two methods at ``0.038`` tie in SCLS
        Table 3); exact float comparison would break such ties.

    Returns
    -------
    ndarray of shape (n_datasets, n_methods)
        Ranks in ``[1, k]``; each row sums to ``k (k + 1) / 2``.

    Raises
    ------
    ValueError
        If ``scores`` is not 2-D, has ``N < 2`` or ``k < 2``, or contains NaN.
    """
    a = as_score_matrix(scores)
    gib = check_bool(greater_is_better, "greater_is_better")
    if decimals is not None:
        a = np.round(a, decimals)
    return rankdata(-a if gib else a, method="average", axis=1)


def average_ranks(
    scores: Any, greater_is_better: bool, *, decimals: int | None = None
) -> np.ndarray:
    """Average rank ``R_j`` of each method over the datasets (Demšar 2006, §3.2.2).

    Parameters
    ----------
    scores, greater_is_better, decimals
        See :func:`rank_matrix`.

    Returns
    -------
    ndarray of shape (n_methods,)
        ``R_j = (1/N) Σ_i r_i^j`` (SCLS §4.1); lower is better.
    """
    return rank_matrix(scores, greater_is_better, decimals=decimals).mean(axis=0)
