"""BMFS, MGFS and MFS-MCDM: the feature-ranking filters of Hashemi, Dowlatshahi &
Nezamabadi-pour (2020, 2021).

Definitions, the choices the papers leave open and ours: ``docs/methods/graph.md``.

* :class:`BMFS` — bipartite matching of features to labels on the correlation-distance
  matrix (``docs/methods/graph.md#bmfs``);
* :class:`MGFS` — PageRank on the complete graph of features weighted by the Euclidean
  distance of their rows of the correlation-distance matrix
  (``docs/methods/graph.md#mgfs``);
* :class:`MFSMCDM` — TOPSIS over the ridge-regression coefficients of the features (the
  alternatives) for the labels (the criteria), labels weighted by their entropy
  (``docs/methods/graph.md#mfs-mcdm``).

BMFS and MGFS share :func:`correlation_distance`, computed from one ``Xᵀ(Y − Ȳ)``
product (sparse ``X`` stays sparse). All three order every feature (the selector tag
``orders_all_features``); a feature constant on the training data is never a vertex, match or
alternative: it is ranked after every varying feature (lowest index first) with score 0
(BMFS: the lowest rank scores).
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import Any

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
from scipy.optimize import linear_sum_assignment
from sklearn.metrics import pairwise_distances_chunked
from sklearn.metrics.pairwise import euclidean_distances
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.sparsefuncs import mean_variance_axis, min_max_axis
from sklearn.utils.validation import validate_data

from .._validation import check_labels, resolve_n_features
from ._base import (
    POSITIVE,
    BaseSelector,
    Number,
    check_magnitude,
    degenerate_selection,
    scale_huge_columns,
)

__all__ = ["BMFS", "MFSMCDM", "MGFS", "correlation_distance", "varying_features"]

# Sort keys are rounded to this many decimals before the (stable) sort, so that values
# equal in exact arithmetic but computed through different products (sparse or dense X)
# tie, and ties go to the lowest feature index.
_DECIMALS = 12


def varying_features(X: Any) -> np.ndarray:
    """Boolean mask of the columns of ``X`` that take at least two distinct values."""
    if X.shape[0] == 0:
        return np.zeros(X.shape[1], dtype=bool)
    if sp.issparse(X):
        lo, hi = min_max_axis(sp.csc_matrix(X), axis=0)
    else:
        lo, hi = X.min(axis=0), X.max(axis=0)
    return np.asarray(hi) > np.asarray(lo)


def _center_scale(X: Any) -> tuple[np.ndarray, np.ndarray]:
    """Column means and population standard deviations (sparse X stays sparse)."""
    if sp.issparse(X):
        mu, var = mean_variance_axis(sp.csc_matrix(X), axis=0)
    else:
        mu, var = X.mean(axis=0), X.var(axis=0)
    return np.asarray(mu, dtype=np.float64), np.sqrt(np.maximum(var, 0.0))


def correlation_distance(X: Any, Y: Any) -> np.ndarray:
    """Correlation-distance matrix ``CDM[f, j] = 1 − r(X_f, Y_j)`` (MGFS Eq. 1, BMFS §3).

    ``r`` is Pearson's correlation, computed from one product ``Xᵀ(Y − Ȳ)`` (exactly
    centred on the label side, so a sparse ``X`` is never densified) divided by
    ``n·σ_f·σ_j``. Where ``r`` is undefined — a constant feature or label column — it is
    taken as 0 (distance 1); the authors' MATLAB code sets the NaN *distance* to 0
    instead (``docs/methods/graph.md#the-correlation-distance-matrix``).

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n_samples, n_features)
    Y : ndarray of shape (n_samples, n_labels)

    Returns
    -------
    ndarray of shape (n_features, n_labels), values in ``[0, 2]``
    """
    n = X.shape[0]
    Y = np.asarray(Y, dtype=np.float64)
    mu_y, sd_y = _center_scale(Y)
    _, sd_x = _center_scale(X)
    cov = X.T @ (Y - mu_y)
    cov = np.asarray(cov, dtype=np.float64) / n
    den = np.outer(sd_x, sd_y)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(den > 0, cov / np.where(den > 0, den, 1.0), 0.0)
    return 1.0 - np.clip(r, -1.0, 1.0)


def _prepare(est: BaseSelector, X: Any, Y: Any, *, scale: bool = True):
    """Validated float ``X`` (CSC if sparse), dense labels, varying-feature mask; ``None``
    when :func:`degenerate_selection` applies."""
    X = validate_data(est, X, accept_sparse=["csr", "csc"], dtype="numeric", ensure_all_finite=True)
    Yd = check_labels(Y, X.shape[0], warn_empty=True)
    if degenerate_selection(est, X):
        return None
    if scale:  # correlations are scale-invariant: huge columns come down exactly
        X = scale_huge_columns(X)
    X = sp.csc_matrix(X, dtype=np.float64) if sp.issparse(X) else np.asarray(X, np.float64)
    return X, Yd, varying_features(X)


def _full_ranking(key: np.ndarray, varying: np.ndarray) -> np.ndarray:
    """Varying features by decreasing ``key`` (ties: lowest index), then constant ones."""
    var_idx = np.flatnonzero(varying)
    order = np.argsort(-np.round(key[var_idx], _DECIMALS), kind="stable")
    return np.concatenate([var_idx[order], np.flatnonzero(~varying)]).astype(np.intp)


def _sum_distances(C: np.ndarray) -> np.ndarray:
    """``Σ_g ‖C_f − C_g‖₂`` for every row ``f``, in row blocks (O(d) extra memory per block)."""
    out = np.empty(C.shape[0])
    start = 0
    for block in pairwise_distances_chunked(C, metric="euclidean", n_jobs=None):
        out[start : start + block.shape[0]] = block.sum(axis=1)
        start += block.shape[0]
    return out


# ------------------------------------------------------------------------------ BMFS
class BMFS(BaseSelector):
    """Bipartite matching-based feature selection (Hashemi, Dowlatshahi & Nezamabadi-pour
    2021).

    Features (left vertices) and labels (right vertices) form a complete bipartite graph
    whose edge costs are the correlation distances ``CDM[f, j] = 1 − r(f, j)``
    (:func:`correlation_distance`). Each round, a minimum-cost matching of the remaining
    features to the labels (the Hungarian problem, solved by
    :func:`scipy.optimize.linear_sum_assignment`) picks ``min(q, remaining)`` features;
    they are appended to the ranking in decreasing *weighted correlation distance*
    ``WCD_f = Σ_g ‖(CDM_f − CDM_g) ∘ p‖₂`` (``p_j`` the frequency of label ``j``), and
    removed; rounds repeat until every varying feature is ranked.
    ``docs/methods/graph.md#bmfs``.

    Parameters
    ----------
    n_features_to_select : int, float, str or None, default=None
        Count, fraction, budget string, or ``None`` for ⌈√n_samples⌉.
    order : {"distance", "label_frequency"}, default="distance"
        How the features matched in one round are ordered. ``"distance"``: by decreasing
        weighted correlation distance (the paper). ``"label_frequency"``: by decreasing
        frequency of the label each was matched to (the authors' public code, in which the
        weighted distance is computed but unused).

    Attributes
    ----------
    selection_order_ : ndarray of int
        Every feature, best first: matching round, then ``order`` within the round;
        constant features last.
    ranking_ : ndarray of shape (n_features,)
        scikit-learn's ranking, as ``RFE``'s: 1 for the selected features, then 2, 3,
        ... along ``selection_order_``.
    scores_ : ndarray of shape (n_features,)
        Borda score ``n_features − position in selection_order_`` (the ranking is lexicographic —
        round, then order — so no single per-feature value sorts it).
    round_ : ndarray of int, shape (n_features,)
        Matching round of each feature (0 first); -1 for constant features.
    matched_label_ : ndarray of int, shape (n_features,)
        Label each feature was matched to; -1 for constant features.
    weighted_distance_ : ndarray of shape (n_features,)
        ``WCD_f`` (0 for constant features).
    correlation_distance_ : ndarray of shape (n_features, n_labels)
        ``CDM``.

    Examples
    --------
    >>> import numpy as np
    >>> from skmlfs.selection import BMFS
    >>> X = np.array([[0, 1, 2], [1, 0, 2], [1, 1, 0], [0, 0, 1]])
    >>> Y = np.array([[0, 1], [1, 0], [1, 1], [0, 0]])
    >>> BMFS(n_features_to_select=2).fit(X, Y).selection_order_.tolist()
    [0, 1, 2]
    """

    _parameter_constraints: dict = {
        **BaseSelector._parameter_constraints,
        "order": [StrOptions({"distance", "label_frequency"})],
    }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.selector_tags.scores_meaning = (
            "borda",
            "n_features minus the position in the ranking (matching round, then order within it)",
        )
        tags.selector_tags.orders_all_features = True
        return tags

    def __init__(self, n_features_to_select: Any = None, order: str = "distance"):
        self.n_features_to_select = n_features_to_select
        self.order = order

    def _fit(self, X: Any, Y: Any) -> BMFS:
        prep = _prepare(self, X, Y)
        if prep is None:
            return self
        X, Yd, varying = prep
        n, d = X.shape
        k = resolve_n_features(self.n_features_to_select, n, d)
        cdm = correlation_distance(X, Yd)
        freq = Yd.mean(axis=0, dtype=np.float64)
        var_idx = np.flatnonzero(varying)
        # rounded so that the sparse and dense products (equal up to the last bits) give the
        # same optimal matching where several are optimal
        cost = np.round(cdm[var_idx], _DECIMALS)
        wcd = np.zeros(d)
        wcd[var_idx] = _sum_distances(cost * freq)
        key = np.round(wcd, _DECIMALS - 3)  # sums of up to d distances: coarser rounding
        rounds = np.full(d, -1, dtype=np.intp)
        labels = np.full(d, -1, dtype=np.intp)
        ranked: list[np.ndarray] = []
        remaining = np.arange(var_idx.size)
        r = 0
        while remaining.size:
            rows, cols = linear_sum_assignment(cost[remaining])
            feats = var_idx[remaining[rows]]
            if self.order == "distance":
                # decreasing weighted distance, ties to the lowest feature index
                within = np.lexsort((feats, -key[feats]))
            else:
                # decreasing label frequency; ties to the lowest label index (MATLAB's
                # stable sort of -p in the authors' code)
                within = np.lexsort((cols, -freq[cols]))
            ranked.append(feats[within])
            rounds[feats] = r
            labels[feats] = cols
            remaining = np.delete(remaining, rows)
            r += 1
        ranking = np.concatenate([*ranked, np.flatnonzero(~varying)]).astype(np.intp)
        scores = np.empty(d)
        scores[ranking] = d - np.arange(d, dtype=np.float64)
        self.round_ = rounds
        self.matched_label_ = labels
        self.weighted_distance_ = wcd
        self.correlation_distance_ = cdm
        self._set_order(ranking, k=k, n_samples=n, scores=scores)
        return self


# ------------------------------------------------------------------------------ MGFS
def pagerank(
    W: np.ndarray, damping: float = 0.85, tol: float = 1e-10, max_iter: int = 1000
) -> tuple[np.ndarray, int, np.ndarray]:
    """PageRank of the weighted graph with adjacency ``W`` by power iteration (MGFS Eq. 3).

    ``x ← α Pᵀx + (α·Σ_{s dangling} x_s + 1 − α)/m`` with ``P = D⁻¹W`` (each vertex splits
    its rank over its edges in proportion to their weights) and dangling vertices (no
    weight) spreading theirs uniformly, from ``x = 1/m``, until ``‖Δx‖₁ < tol``.

    Returns
    -------
    x : ndarray of shape (m,), sums to 1
    n_iter : int
    residuals : ndarray of float, ``‖Δx‖₁`` of every iteration
    """
    m = W.shape[0]
    strength = W.sum(axis=1)
    dangling = strength <= 0
    inv = np.where(dangling, 0.0, 1.0 / np.where(dangling, 1.0, strength))
    x = np.full(m, 1.0 / m)
    residuals = []
    it = 0
    for it in range(1, max_iter + 1):  # noqa: B007 (the count is returned)
        new = damping * (W.T @ (x * inv))
        new += (damping * x[dangling].sum() + 1.0 - damping) / m
        new /= new.sum()  # keeps the rounding from drifting
        res = float(np.abs(new - x).sum())
        residuals.append(res)
        x = new
        if res < tol:
            break
    return x, it, np.asarray(residuals)


class MGFS(BaseSelector):
    """Multi-label graph-based feature selection via PageRank (Hashemi, Dowlatshahi &
    Nezamabadi-pour 2020).

    The correlation-distance matrix ``CDM`` (features × labels,
    :func:`correlation_distance`) places each feature at a point of ``R^q``; the
    Feature–Label Graph is the complete graph of the features weighted by the Euclidean
    distances of these points, and features are ranked by their PageRank in it
    (:func:`pagerank`). ``docs/methods/graph.md#mgfs``.

    Parameters
    ----------
    n_features_to_select : int, float, str or None, default=None
        Count, fraction, budget string, or ``None`` for ⌈√n_samples⌉.
    damping : float, default=0.85
        PageRank's damping (follow) probability ``α`` (MATLAB ``centrality``'s default,
        used by the authors' code).
    tol : float, default=1e-10
        Stop when the L1 change of the rank vector falls below ``tol``.
    max_iter : int, default=1000
        Power iterations at most.

    Attributes
    ----------
    selection_order_ : ndarray of int
        Every feature by decreasing PageRank (ties: lowest index); constant features last.
    ranking_ : ndarray of shape (n_features,)
        scikit-learn's ranking, as ``RFE``'s: 1 for the selected features, then 2, 3,
        ... along ``selection_order_``.
    scores_ : ndarray of shape (n_features,)
        PageRank of each feature (sums to 1 over the varying features; 0 for constant ones).
    correlation_distance_ : ndarray of shape (n_features, n_labels)
    n_iter_ : int
        Power iterations run.
    residuals_ : ndarray of float
        ``‖Δx‖₁`` at each iteration (decreasing geometrically, by at least ``α`` per step).

    Notes
    -----
    The graph is dense: ``O(d²)`` memory (8·d² bytes, 27 MB for bibtex's 1,836 features,
    3.2 GB for 20,000) and ``O(n·d·q + d²·q + d²·iterations)`` time.

    Examples
    --------
    >>> import numpy as np
    >>> from skmlfs.selection import MGFS
    >>> X = np.array([[0, 1, 2], [1, 0, 2], [1, 1, 0], [0, 0, 1]])
    >>> Y = np.array([[0, 1], [1, 0], [1, 1], [0, 0]])
    >>> MGFS(n_features_to_select=2).fit(X, Y).selection_order_.shape
    (3,)
    """

    _parameter_constraints: dict = {
        **BaseSelector._parameter_constraints,
        "damping": [Number(Real, 0, 1, closed="left")],
        "tol": [POSITIVE],
        "max_iter": [Number(Integral, 1, None, closed="left")],
    }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.selector_tags.scores_meaning = (
            "pagerank",
            "PageRank of the feature in the correlation-distance graph (higher first)",
        )
        tags.selector_tags.orders_all_features = True
        return tags

    def __init__(
        self,
        n_features_to_select: Any = None,
        damping: float = 0.85,
        tol: float = 1e-10,
        max_iter: int = 1000,
    ):
        self.n_features_to_select = n_features_to_select
        self.damping = damping
        self.tol = tol
        self.max_iter = max_iter

    def _fit(self, X: Any, Y: Any) -> MGFS:
        prep = _prepare(self, X, Y)
        if prep is None:
            return self
        X, Yd, varying = prep
        n, d = X.shape
        k = resolve_n_features(self.n_features_to_select, n, d)
        cdm = correlation_distance(X, Yd)
        var_idx = np.flatnonzero(varying)
        C = np.round(cdm[var_idx], _DECIMALS)

        W = euclidean_distances(C, C)
        np.fill_diagonal(W, 0.0)
        pr, n_iter, residuals = pagerank(
            W, float(self.damping), float(self.tol), int(self.max_iter)
        )
        scores = np.zeros(d)
        scores[var_idx] = pr
        self.correlation_distance_ = cdm
        self.n_iter_ = int(n_iter)
        self.residuals_ = residuals
        self._set_order(
            _full_ranking(scores * var_idx.size, varying), k=k, n_samples=n, scores=scores
        )
        return self


# -------------------------------------------------------------------------- MFS-MCDM
def ridge_coefficients(X: Any, Y: np.ndarray, alpha: float) -> np.ndarray:
    """``(XᵀX + αI)⁻¹ XᵀY`` (MFS-MCDM's decision matrix), through the smaller Gram matrix.

    With ``d ≤ n`` the ``d × d`` system; otherwise the equal ``Xᵀ(XXᵀ + αI)⁻¹Y``
    (``n × n``). Both are symmetric positive definite for ``α > 0`` (Cholesky).
    """
    n, d = X.shape
    Y = np.asarray(Y, dtype=np.float64)
    if d <= n:
        G = X.T @ X
        G = G.toarray() if sp.issparse(G) else np.asarray(G)
        G[np.diag_indices(d)] += alpha
        XtY = np.asarray(X.T @ Y)
        return sla.solve(G, XtY, assume_a="pos")
    K = X @ X.T
    K = K.toarray() if sp.issparse(K) else np.asarray(K)
    K[np.diag_indices(n)] += alpha
    return np.asarray(X.T @ sla.solve(K, Y, assume_a="pos"))


def label_entropy_weights(Y: np.ndarray) -> np.ndarray:
    """Label weights ``w_j = H(y_j) / Σ_l H(y_l)`` (binary entropies, bits); uniform when
    every label is constant."""
    p = np.asarray(Y, dtype=np.float64).mean(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = -(np.where(p > 0, p * np.log2(p), 0.0) + np.where(p < 1, (1 - p) * np.log2(1 - p), 0.0))
    total = h.sum()
    return h / total if total > 0 else np.full(h.size, 1.0 / h.size)


def topsis(M: np.ndarray, weights: np.ndarray, *, normalize: bool = True) -> np.ndarray:
    """TOPSIS relative closeness of the alternatives (rows of ``M``), every criterion a
    benefit (MFS-MCDM Eqs. 5-10).

    ``R = M`` divided column-wise by ``‖M_·j‖₂`` (when ``normalize``; zero columns stay
    0), ``V = R·diag(w)``, ideal ``A⁺_j = max_i V_ij``, anti-ideal ``A⁻_j = min_i V_ij``,
    ``S±_i = ‖V_i − A±‖₂``, closeness ``S⁻_i / (S⁺_i + S⁻_i)`` (0 where both are 0).
    """
    M = np.asarray(M, dtype=np.float64)
    if normalize:
        norm = np.sqrt((M * M).sum(axis=0))
        M = M / np.where(norm > 0, norm, 1.0)
    V = M * np.asarray(weights, dtype=np.float64)
    s_plus = np.sqrt(((V - V.max(axis=0)) ** 2).sum(axis=1))
    s_minus = np.sqrt(((V - V.min(axis=0)) ** 2).sum(axis=1))
    tot = s_plus + s_minus
    return np.where(tot > 0, s_minus / np.where(tot > 0, tot, 1.0), 0.0)


class MFSMCDM(BaseSelector):
    """Multi-label feature selection using multi-criteria decision making (MFS-MCDM;
    Hashemi, Dowlatshahi & Nezamabadi-pour 2020).

    Features are the alternatives and labels the criteria of a decision problem. The
    decision matrix is the ridge-regression coefficient matrix
    ``D = (XᵀX + αI)⁻¹XᵀY`` (:func:`ridge_coefficients`), the criteria are weighted by the
    labels' entropies (:func:`label_entropy_weights`), and features are ranked by their
    TOPSIS closeness to the ideal alternative (:func:`topsis`).
    ``docs/methods/graph.md#mfs-mcdm``.

    Parameters
    ----------
    n_features_to_select : int, float, str or None, default=None
        Count, fraction, budget string, or ``None`` for ⌈√n_samples⌉.
    alpha : float, default=10.0
        Ridge penalty ``λ`` (the authors' code: 10).
    normalize : bool, default=True
        TOPSIS's vector normalisation of each criterion column (standard TOPSIS). The
        authors' ``Topsis.m`` has it commented out (``False``).
    label_weights : {"entropy", "uniform"}, default="entropy"
        Criterion weights. The authors' ``Topsis.m`` computes the entropy-weighted matrix
        and then overwrites it with a unit-weighted one (``"uniform"``).

    Attributes
    ----------
    selection_order_ : ndarray of int
        Every feature by decreasing closeness (ties: lowest index); constant features last.
    ranking_ : ndarray of shape (n_features,)
        scikit-learn's ranking, as ``RFE``'s: 1 for the selected features, then 2, 3,
        ... along ``selection_order_``.
    scores_ : ndarray of shape (n_features,)
        TOPSIS closeness in ``[0, 1]`` (0 for constant features).
    coef_ : ndarray of shape (n_features, n_labels)
        The decision matrix ``D`` (0 rows for constant features).
    label_weights_ : ndarray of shape (n_labels,)

    Notes
    -----
    Dense Gram matrix of the smaller side: ``O(min(n, d)²)`` memory and
    ``O(n·d·min(n, d) + min(n, d)³)`` time (sparse ``X`` is multiplied as sparse).

    Examples
    --------
    >>> import numpy as np
    >>> from skmlfs.selection import MFSMCDM
    >>> X = np.array([[0, 1, 2], [1, 0, 2], [1, 1, 0], [0, 0, 1]])
    >>> Y = np.array([[0, 1], [1, 0], [1, 1], [0, 0]])
    >>> MFSMCDM(n_features_to_select=2).fit(X, Y).selection_order_.shape
    (3,)
    """

    _parameter_constraints: dict = {
        **BaseSelector._parameter_constraints,
        "alpha": [POSITIVE],
        "normalize": ["boolean"],
        "label_weights": [StrOptions({"entropy", "uniform"})],
    }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.selector_tags.scores_meaning = (
            "topsis_closeness",
            "TOPSIS closeness to the ideal solution, in [0, 1] (higher first)",
        )
        tags.selector_tags.orders_all_features = True
        return tags

    def __init__(
        self,
        n_features_to_select: Any = None,
        alpha: float = 10.0,
        normalize: bool = True,
        label_weights: str = "entropy",
    ):
        self.n_features_to_select = n_features_to_select
        self.alpha = alpha
        self.normalize = normalize
        self.label_weights = label_weights

    def _fit(self, X: Any, Y: Any) -> MFSMCDM:
        # ridge coefficients are not scale-invariant: no rescaling, refuse overflowing X
        prep = _prepare(self, X, Y, scale=False)
        if prep is None:
            return self
        X, Yd, varying = prep
        check_magnitude(X, "MFS-MCDM", "forms the Gram matrix XᵀX of its ridge regression")
        n, d = X.shape
        k = resolve_n_features(self.n_features_to_select, n, d)
        var_idx = np.flatnonzero(varying)
        # a constant column would act as an intercept of the (uncentred) regression
        Xv = X[:, var_idx]
        D = np.zeros((d, Yd.shape[1]))
        D[var_idx] = ridge_coefficients(Xv, Yd, float(self.alpha))
        if self.label_weights == "entropy":
            w = label_entropy_weights(Yd)
        else:
            w = np.ones(Yd.shape[1])
        scores = np.zeros(d)
        scores[var_idx] = topsis(D[var_idx], w, normalize=bool(self.normalize))
        self.coef_ = D
        self.label_weights_ = w
        self._set_order(_full_ranking(scores, varying), k=k, n_samples=n, scores=scores)
        return self
