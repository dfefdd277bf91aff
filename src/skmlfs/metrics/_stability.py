"""Stability of a selection over perturbed training sets (``docs/methods/metrics.md#stability``).

A selector run ``M`` times (on the folds of a cross-validation, on bootstrap samples, with
other seeds) gives ``M`` feature subsets of ``d`` features, written as the ``M × d`` 0/1
matrix ``Z`` (row ``i`` = run ``i``, ``Z[i, f] = 1`` when run ``i`` selected feature ``f``).

* :func:`nogueira_stability` — the estimator Φ̂ of Nogueira, Sechidis and Brown, "On the
  stability of feature selection algorithms", *JMLR* 18 (2018) 174, Definition 4, with its
  asymptotic variance (their Theorem 9) and the normal confidence interval built from it.
  It is defined for subsets of any (also varying) sizes.
* :func:`kuncheva_index` — L. I. Kuncheva, "A stability index for feature selection",
  *Proc. AIAC* (2007) 390–395: the consistency index of two subsets of equal size, averaged
  over all pairs of runs. For runs of one common size it equals Φ̂ (both correct the
  expected overlap of random subsets of that size).

Both are computed from ``Z`` as a sparse matrix (dense or sparse input): column means, one
sparse matrix–vector product and one sparse ``Z Zᵀ``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

import numpy as np
import scipy.sparse as sp
from scipy.stats import norm

__all__ = ["StabilityEstimate", "kuncheva_index", "nogueira_stability", "selection_matrix"]


class StabilityEstimate(NamedTuple):
    """Φ̂ with its estimated variance and a ``1 − alpha`` confidence interval."""

    stability: float
    variance: float
    lower: float
    upper: float


def selection_matrix(
    selections: Iterable[Any], n_features: int, *, sparse: bool = False
) -> np.ndarray | sp.csr_matrix:
    """The ``M × d`` 0/1 matrix of a sequence of selections.

    Parameters
    ----------
    selections : iterable
        One entry per run: an array of selected feature indices, or a boolean support
        mask of length ``n_features`` (as ``SelectorMixin.get_support()`` returns).
    n_features : int
        ``d``, the number of features the runs chose from.
    sparse : bool, default=False
        Return a CSR matrix (for many features: memory of the selected entries only).

    Returns
    -------
    ndarray or scipy.sparse.csr_matrix of shape (M, d), dtype int8
    """
    if isinstance(n_features, bool) or int(n_features) != n_features or n_features < 1:
        raise ValueError(f"n_features must be a positive integer, got {n_features!r}.")
    d = int(n_features)
    cols: list[np.ndarray] = []
    for i, s in enumerate(selections):
        s = np.asarray(s)
        if s.dtype == bool:
            if s.shape != (d,):
                raise ValueError(
                    f"selection {i} is a mask of shape {s.shape}; expected ({d},)."
                )
            idx = np.flatnonzero(s)
        else:
            idx = s.ravel()
            if idx.size and (not np.issubdtype(idx.dtype, np.integer)):
                raise ValueError(
                    f"selection {i} holds {idx.dtype} values; give feature indices (integers) "
                    "or a boolean mask."
                )
            bad = idx[(idx < 0) | (idx >= d)]
            if bad.size:
                raise ValueError(
                    f"selection {i} has feature index {int(bad[0])} outside 0..{d - 1}."
                )
            if np.unique(idx).size != idx.size:
                raise ValueError(f"selection {i} names a feature more than once.")
        cols.append(np.sort(idx.astype(np.intp)))
    if not cols:
        raise ValueError("no selections given.")
    indptr = np.concatenate([[0], np.cumsum([c.size for c in cols])])
    indices = np.concatenate(cols) if indptr[-1] else np.zeros(0, dtype=np.intp)
    Z = sp.csr_matrix(
        (np.ones(indices.size, dtype=np.int8), indices, indptr), shape=(len(cols), d)
    )
    return Z if sparse else Z.toarray()


def _check_Z(Z: Any) -> sp.csr_matrix:
    """``Z`` validated, as a CSR matrix of float 0/1 (selections are sparse: one pass over
    a dense ``Z`` to convert it, then products that touch the selected entries only)."""
    if sp.issparse(Z):
        Zc = sp.csr_matrix(Z)
        values = Zc.data
    else:
        arr = np.asarray(Z)
        if arr.ndim != 2:
            raise ValueError(
                f"Z must be a 2-D (runs × features) 0/1 matrix, got {arr.ndim} dimensions."
            )
        values = arr
        Zc = None
    if values.dtype != bool and np.any((values != 0) & (values != 1)):
        raise ValueError("Z must hold only 0 and 1 (selected or not); it holds other values.")
    if Zc is None:
        Zc = sp.csr_matrix(arr)
    M, d = Zc.shape
    if M < 2:
        raise ValueError(f"stability needs at least 2 runs (rows of Z), got {M}.")
    if d < 1:
        raise ValueError("Z has no features (columns).")
    Zc = Zc.astype(np.float64)
    Zc.eliminate_zeros()
    return Zc


def nogueira_stability(Z: Any, *, alpha: float = 0.05) -> StabilityEstimate:
    """Stability estimator Φ̂ of Nogueira, Sechidis and Brown (2018), with its variance.

    With ``p̂_f`` the fraction of runs that selected feature ``f``, ``k̄ = Σ_f p̂_f`` the mean
    subset size and ``s_f² = M/(M−1) · p̂_f (1 − p̂_f)`` the unbiased variance of column
    ``f`` (Definition 4):

        Φ̂(Z) = 1 − (1/d Σ_f s_f²) / ((k̄/d)(1 − k̄/d)).

    It is 1 when every run selects the same subset, about 0 for subsets drawn at random,
    and may be negative. The variance (Theorem 9) is ``v = 4/M² Σ_i (φ_i − φ̄)²`` with

        φ_i = [ (1/d) Σ_f z_if p̂_f − k_i k̄/d² + Φ̂/2 · (2 k_i k̄/d² − k_i/d − k̄/d + 1) ]
              / ((k̄/d)(1 − k̄/d)),

    ``k_i`` the size of subset ``i``; the interval is ``Φ̂ ± z_{1−α/2} √v``.

    Parameters
    ----------
    Z : array-like of shape (M, d)
        0/1 (or boolean) matrix, one row per run (see :func:`selection_matrix`); ``M ≥ 2``.
    alpha : float, default=0.05
        The interval covers ``1 − alpha``.

    Returns
    -------
    StabilityEstimate
        ``(stability, variance, lower, upper)``. All NaN when every run selects nothing or
        every feature (``k̄ ∈ {0, d}``): the measure is undefined there (no subset could
        differ from another by chance either).
    """
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}.")
    Z = _check_Z(Z)
    M, d = Z.shape
    p = np.asarray(Z.mean(axis=0)).ravel()
    k = np.asarray(Z.sum(axis=1)).ravel()
    kbar = float(p.sum())
    denom = (kbar / d) * (1.0 - kbar / d)
    if denom <= 0.0:
        nan = float("nan")
        return StabilityEstimate(nan, nan, nan, nan)
    stab = 1.0 - (M / (M - 1)) * float(np.mean(p * (1.0 - p))) / denom
    phi = (
        (Z @ p) / d
        - k * kbar / d**2
        + stab / 2.0 * (2.0 * k * kbar / d**2 - k / d - kbar / d + 1.0)
    ) / denom
    var = 4.0 / M**2 * float(np.sum((phi - phi.mean()) ** 2))
    half = float(norm.ppf(1.0 - alpha / 2.0)) * np.sqrt(var)
    return StabilityEstimate(stab, var, stab - half, stab + half)


def kuncheva_index(Z: Any) -> float:
    """Kuncheva's consistency index averaged over all pairs of runs.

    For two subsets ``A``, ``B`` of the same size ``k`` out of ``d`` features sharing
    ``r`` features, ``I_C(A, B) = (r d − k²) / (k (d − k))``: 1 for identical subsets, about
    0 for random ones. The result is the mean over the ``M (M − 1) / 2`` pairs of rows.

    Parameters
    ----------
    Z : array-like of shape (M, d)
        0/1 (or boolean) matrix, one row per run, every row with the same number of ones.

    Returns
    -------
    float
        NaN when ``k`` is 0 or ``d`` (the index is undefined there).

    Raises
    ------
    ValueError
        If the runs select subsets of different sizes (the index is not defined for them;
        :func:`nogueira_stability` is).
    """
    Z = _check_Z(Z)
    M, d = Z.shape
    sizes = np.asarray(Z.sum(axis=1)).ravel()
    if np.any(sizes != sizes[0]):
        raise ValueError(
            "Kuncheva's index needs subsets of one size; the runs selected "
            f"{sorted(set(int(s) for s in sizes))} features (use nogueira_stability)."
        )
    kk = float(sizes[0])
    if kk == 0 or kk == d:
        return float("nan")
    r = (Z @ Z.T).toarray()[np.triu_indices(M, k=1)]
    return float(np.mean((r * d - kk**2) / (kk * (d - kk))))
