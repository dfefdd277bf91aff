"""MLCFS: multi-label correlation-based feature selection (Jungjit et al. 2013).

**[ASSUMPTION]** (``docs/methods/info.md#mlcfs``): the original paper was not retrievable.
This is the most defensible reading — Hall's (1999) CFS merit with the feature–class
correlation averaged over the labels, searched greedily forward::

    merit(S) = k · r̄_fl / sqrt(k + k(k − 1) · r̄_ff),   k = |S|
    r̄_fl = mean_{f∈S, l∈L} |corr(f, l)|,   r̄_ff = mean_{f≠g∈S} |corr(f, g)|

``corr`` is Pearson's correlation (0 for a constant column). Each step adds the feature
maximising ``merit(S ∪ {f})`` (ties → lowest index) until the budget is reached (no
merit-based early stopping, as the SCLS experiments use a fixed budget). The label-weighting
of the "two extensions" paper is not implemented.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import validate_data

from .._progress import report_step
from .._validation import check_labels, resolve_n_features
from ..info import _cache
from ._base import (
    TIE_RTOL,
    BaseInfoSelector,
    argmax_tol,
    degenerate_selection,
    refuse_row_blocks,
    scale_huge_columns,
)

__all__ = ["MLCFS"]


def _col_stats(X) -> tuple[np.ndarray, np.ndarray]:
    n = X.shape[0]
    mu = np.asarray(X.mean(axis=0)).ravel()
    if sp.issparse(X):
        ex2 = np.asarray(X.multiply(X).sum(axis=0)).ravel() / n
    else:
        ex2 = np.einsum("ij,ij->j", X, X) / n
    sd = np.sqrt(np.maximum(ex2 - mu**2, 0.0))
    return mu, sd


def _label_corr_sums(X, mu, sd, Y, mu_y, sd_y, budget: float = 2**23) -> np.ndarray:
    """``Σ_l |corr(f, l)|`` for every feature, over label blocks (no ``d × q`` table).

    A pair whose product ``Σ_rows x_f y_l`` is zero (no row where both are non-zero) has
    ``cov = −μ_f μ_l``, so ``|corr| = |μ_f| |μ_l| / (σ_f σ_l)``: summed over all labels in
    closed form, ``(|μ_f|/σ_f) Σ_l |μ_l|/σ_l``. Only the pairs of the sparse products
    ``Y_blockᵀ X`` (rows where both are non-zero) are corrected; blocks of labels keep at
    most ``budget`` multiply–adds each. Dense ``X``: dense blocks of ``d × budget/d``.
    Equal to ``_abs_corr(...).sum(axis=1)`` up to rounding (and to ``min(·, 1)`` on the
    zero pairs, which Cauchy–Schwarz bounds by 1 in exact arithmetic).
    """
    n, d = X.shape
    Yc = sp.csc_matrix(Y, dtype=np.float64)
    q = Yc.shape[1]
    ok_x, ok_y = sd > 0, sd_y > 0
    a_x = np.where(ok_x, np.abs(mu) / np.where(ok_x, sd, 1.0), 0.0)
    a_y = np.where(ok_y, np.abs(mu_y) / np.where(ok_y, sd_y, 1.0), 0.0)
    if not sp.issparse(X):
        out = np.zeros(d)
        width = max(1, int(budget) // max(1, d))
        for j0 in range(0, q, width):
            j1 = min(j0 + width, q)
            B = Yc[:, j0:j1]
            out += _abs_corr(X, mu, sd, B, mu_y[j0:j1], sd_y[j0:j1]).sum(axis=1)
        return out
    Xr = sp.csr_matrix(X, dtype=np.float64)
    out = a_x * a_y.sum()  # every pair as a zero pair
    row_nnz = np.diff(Xr.indptr).astype(np.float64)
    flops = np.zeros(q)
    nzc = np.flatnonzero(np.diff(Yc.indptr))
    if nzc.size:
        flops[nzc] = np.add.reduceat(row_nnz[Yc.indices], Yc.indptr[nzc])
    cum = np.concatenate([[0.0], np.cumsum(flops)])
    j0 = 0
    while j0 < q:
        j1 = int(np.searchsorted(cum, cum[j0] + budget, side="right")) - 1
        j1 = min(max(j1, j0 + 1), q)
        P = (Yc[:, j0:j1].T.tocsr() @ Xr).tocoo()  # (labels, features): co-occurring pairs
        l, f = P.row + j0, P.col
        cov = P.data / n - mu[f] * mu_y[l]
        den = sd[f] * sd_y[l]
        pos = den > 0
        r = np.where(pos, np.minimum(np.abs(cov) / np.where(pos, den, 1.0), 1.0), 0.0)
        out += np.bincount(f, weights=r - a_x[f] * a_y[l], minlength=d)
        j0 = j1
    return out


def _abs_corr(X, mu, sd, B, mu_b, sd_b) -> np.ndarray:
    """``|corr(X_f, B_j)|`` for all pairs from ``XᵀB`` (sparse X stays sparse)."""
    n = X.shape[0]
    XtB = X.T @ B
    XtB = np.asarray(XtB.toarray() if sp.issparse(XtB) else XtB, dtype=np.float64)
    cov = XtB / n - np.outer(mu, mu_b)
    den = np.outer(sd, sd_b)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(den > 0, cov / np.where(den > 0, den, 1.0), 0.0)
    return np.minimum(np.abs(r), 1.0)


class MLCFS(BaseInfoSelector):
    """Multi-label CFS (Jungjit, Michaelis, Freitas & Cinatl 2013) — an assumed reading.

    Greedy forward maximisation of the CFS merit averaged over labels (module docstring).
    Writing ``r_f = mean_l |corr(f, l)|``, the merit of ``S ∪ {f}`` is
    ``(Σ_{g∈S} r_g + r_f) / sqrt(k + 2 (P_S + Σ_{s∈S} |corr(f, s)|))`` with ``P_S`` the sum of
    ``|corr|`` over the pairs of ``S``; each step costs one column of correlations (one
    product with ``X``).

    Parameters
    ----------
    n_features_to_select : int, float or None, default=None
        Count, fraction, or ``None`` for ⌈√n_samples⌉.
    discretizer : None, "auto" or transformer, default=None
        ``None``: Pearson correlation on the features as given. ``"auto"`` / a transformer:
        discretize first, as :class:`~skmlfs.selection.SCLS` does (the SCLS experiments fed
        LAIM-discretized numeric features to all methods).
    verbose : int, default=0
        Progress of the fit on stderr (steps done, criterion or objective, elapsed time):
        0 none, 1 a line every few seconds, 2 or more every step.

    Attributes
    ----------
    selection_order_ : ndarray of int
        Selected features in the order they were picked.
    ranking_ : ndarray of shape (n_features,)
        scikit-learn's ranking, as ``RFE``'s: 1 for the selected features, then 2, 3,
        ... along ``selection_order_``.
    scores_ : ndarray of shape (n_features,)
        ``merit(S)`` right after each feature was added, by feature (NaN if never added).
    step_scores_ : ndarray of float
        ``merit(S)`` after each step, ``scores_[selection_order_]``.
    label_correlation_ : ndarray of shape (n_features,)
        ``r_f = mean_l |corr(f, l)|``.
    """

    #: what row-block input would need (the message of the error it raises)
    _row_blocks_need = (
        "its Pearson correlations use X in memory (column means and squares, XᵀY and "
        "Xᵀx_s are sums over rows that row-block sources could count, but MLCFS does not "
        "count over them)"
    )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.selector_tags.scores_meaning = (
            "merit_after_add",
            "merit(S) of the selected set right after the feature was added (NaN: never added)",
        )
        return tags

    def __init__(self, n_features_to_select: Any = None, discretizer: Any = None, *,
                 categorical_features: Any = None,
                 verbose: int = 0):
        super().__init__(n_features_to_select=n_features_to_select, discretizer=discretizer)
        self.verbose = verbose
        self.categorical_features = categorical_features

    def _fit(self, X: Any, Y: Any) -> MLCFS:
        refuse_row_blocks(self, X)
        X = validate_data(
            self, X, accept_sparse=["csr", "csc"], dtype="numeric", ensure_all_finite=True
        )
        Y = check_labels(Y, X.shape[0], warn_empty=True, accept_sparse=True)
        if degenerate_selection(self, X):
            self.label_correlation_ = np.zeros(X.shape[1])
            return self
        # correlations are scale-invariant; huge columns are scaled down exactly first
        Xd = scale_huge_columns(self._discretize(X, Y))
        Xd = (
            sp.csc_matrix(Xd, dtype=np.float64)
            if sp.issparse(Xd)
            else np.asarray(Xd, dtype=np.float64)
        )
        d = Xd.shape[1]
        k = resolve_n_features(self.n_features_to_select, X.shape[0], d)
        q = Y.shape[1]
        mu, sd = _col_stats(Xd)
        if d * q <= _cache.FULL_BLOCK_PAIRS:  # the library's one policy (InfoCache's)
            Yf = (Y.toarray() if sp.issparse(Y) else Y).astype(np.float64)
            mu_y, sd_y = _col_stats(Yf)
            r = _abs_corr(Xd, mu, sd, Yf, mu_y, sd_y).mean(axis=1)
        else:  # label sums over label blocks: no d × q table
            Yf = sp.csc_matrix(Y, dtype=np.float64)
            mu_y, sd_y = _col_stats(Yf)
            r = _label_corr_sums(Xd, mu, sd, Yf, mu_y, sd_y) / q
        sum_r = 0.0
        pair_sum = 0.0
        corr_to_sel = np.zeros(d)  # Σ_{s∈S} |corr(f, s)|
        available = np.ones(d, dtype=bool)
        ranking, scores = [], []
        for step in range(k):
            kk = step + 1
            merit = (sum_r + r) / np.sqrt(kk + 2.0 * (pair_sum + corr_to_sel))
            merit = np.where(available, merit, -np.inf)
            # the library's tie rule: merits equal up to rounding go to the lowest index
            f = int(argmax_tol(merit, rtol=TIE_RTOL))
            ranking.append(f)
            scores.append(float(merit[f]))
            report_step(kk, k, "feature", merit=scores[-1])
            available[f] = False
            sum_r += r[f]
            pair_sum += corr_to_sel[f]
            if kk < k:
                col = Xd[:, [f]]
                corr_to_sel += _abs_corr(Xd, mu, sd, col, mu[[f]], sd[[f]])[:, 0]
        self._set_order(ranking, k=k, n_samples=X.shape[0], step_scores=scores)
        self.label_correlation_ = r
        return self

    def _select(self, cache, k):  # pragma: no cover - fit is overridden
        raise NotImplementedError
