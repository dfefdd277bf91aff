"""MCLS: manifold-based constraint Laplacian score (Huang, Jiang & Sun 2018).

Definitions, the choices left open and ours: ``docs/methods/graph.md#mcls``. The paper was
not retrievable; the steps follow the authors' public MATLAB code (cited there).
"""

from __future__ import annotations

from numbers import Integral
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.optimize import minimize
from scipy.sparse.csgraph import connected_components
from scipy.sparse.linalg import splu
from sklearn.utils.sparsefuncs import mean_variance_axis
from sklearn.utils.validation import validate_data

from .._progress import report_step
from .._validation import check_labels, resolve_n_features
from ._base import POSITIVE, BaseSelector, Number, check_magnitude, degenerate_selection
from ._graph_mcdm import varying_features

__all__ = [
    "MCLS",
    "label_manifold",
    "lle_weights",
    "pkn_graph",
]

_EPS = np.finfo(np.float64).eps
_MARGIN = 1e-10


def _neighbors(Z: Any, k: int, block: int = 256) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` nearest other rows of ``Z``: squared Euclidean distances and indices,
    ties to the lowest index (a row is never its own neighbour).

    Distances ``‖a‖² + ‖b‖² − 2a·b`` in row blocks (sparse ``Z`` stays sparse); exact for
    integer-valued data, so sparse and dense input give the same neighbours there.
    """
    n = Z.shape[0]
    if sp.issparse(Z):
        sq = np.asarray(Z.multiply(Z).sum(axis=1)).ravel()
    else:
        Z = np.asarray(Z)
        sq = np.einsum("ij,ij->i", Z, Z)
    dist = np.empty((n, k))
    idx = np.empty((n, k), dtype=np.intp)
    for s in range(0, n, block):
        e = min(n, s + block)
        G = Z[s:e] @ Z.T
        G = G.toarray() if sp.issparse(G) else np.asarray(G)
        D = np.maximum(sq[s:e, None] + sq[None, :] - 2.0 * G, 0.0)
        D[np.arange(e - s), np.arange(s, e)] = np.inf
        # the k smallest, with every row tied with the k-th kept, then a stable sort of
        # (distance, index) so that ties go to the lowest index
        kth = np.partition(D, k - 1, axis=1)[:, k - 1 : k]
        rows, cols = np.nonzero(D <= kth)  # at least k per row (more where tied)
        vals = D[rows, cols]
        order = np.lexsort((cols, vals, rows))
        rows, cols, vals = rows[order], cols[order], vals[order]
        first = np.searchsorted(rows, np.arange(e - s))
        take = (first[:, None] + np.arange(k)).ravel()
        idx[s:e] = cols[take].reshape(e - s, k)
        dist[s:e] = vals[take].reshape(e - s, k)
    return dist, idx


def pkn_graph(Z: Any, k: int, neighbors: tuple | None = None) -> sp.csr_matrix:
    """Probabilistic k-nearest-neighbour affinity (Nie et al.'s ``constructW_PKN``),
    symmetrised.

    For row ``i`` with squared distances ``d_1 ≤ … ≤ d_{k+1}`` to its ``k + 1`` nearest
    other rows, ``W_ij = (d_{k+1} − d_j) / (k·d_{k+1} − Σ_{h≤k} d_h + ε)`` for those
    rows (0 for the ``(k+1)``-th), then ``(W + Wᵀ)/2``. ``docs/methods/graph.md#mcls``.
    ``neighbors``: the ``(d², idx)`` of :func:`_neighbors` with ``k + 1``, if known.
    """
    n = Z.shape[0]
    d2, idx = neighbors if neighbors is not None else _neighbors(Z, k + 1)
    last = d2[:, -1:]
    w = (last - d2) / (k * last - d2[:, :k].sum(axis=1, keepdims=True) + _EPS)
    W = sp.csr_matrix((w.ravel(), idx.ravel(), np.arange(0, n * (k + 1) + 1, k + 1)), shape=(n, n))
    return ((W + W.T) * 0.5).tocsr()


def _local_grams(X: Any, sets: np.ndarray) -> np.ndarray:
    """Gram matrices ``G[b] = X[sets[b]] X[sets[b]]ᵀ`` of row sets (sparse: row products)."""
    m, s = sets.shape
    if sp.issparse(X):
        a = np.repeat(sets, s, axis=1).ravel()
        b = np.tile(sets, (1, s)).ravel()
        g = np.asarray(X[a].multiply(X[b]).sum(axis=1)).ravel()
        return g.reshape(m, s, s)
    V = np.asarray(X)[sets.ravel()].reshape(m, s, -1)
    return np.einsum("bkd,bld->bkl", V, V)


def lle_weights(
    X: Any, k: int, reg: float = 1e-3, idx: np.ndarray | None = None, block: int = 512
) -> sp.csr_matrix:
    """Locally linear reconstruction weights of every row from its ``k`` nearest rows
    (ML²'s ``estimate_top_struct``): ``Z = (N − x)(N − x)ᵀ + reg·tr(Z)·I``, ``Z w = 1``,
    ``w / Σw``; uniform ``1/k`` where ``tr(Z) = 0`` (every neighbour equal to the row).

    ``Z`` comes from the Gram matrix of ``{x} ∪ N`` (``Z_ab = G_ab − G_a0 − G_b0 + G_00``),
    so a sparse ``X`` is never densified; rows are processed in blocks.
    """
    n = X.shape[0]
    if idx is None:
        idx = _neighbors(X, k)[1]
    idx = idx[:, :k]
    data = np.empty((n, k))
    for s in range(0, n, block):
        e = min(n, s + block)
        sets = np.concatenate([np.arange(s, e)[:, None], idx[s:e]], axis=1)
        G = _local_grams(X, sets)
        g0 = G[:, 1:, :1]
        Z = G[:, 1:, 1:] - g0 - np.swapaxes(g0, 1, 2) + G[:, :1, :1]
        tr = np.trace(Z, axis1=1, axis2=2)
        Z = Z + (reg * tr)[:, None, None] * np.eye(k)
        Z[tr <= 0] = np.eye(k)  # every neighbour equals the row: uniform weights
        w = np.linalg.solve(Z, np.ones((e - s, k, 1)))[..., 0]
        data[s:e] = w / w.sum(axis=1, keepdims=True)
    return sp.csr_matrix((data.ravel(), idx.ravel(), np.arange(0, n * k + 1, k)), shape=(n, n))


def _kkt_residual(M: sp.spmatrix, u: np.ndarray, lower: np.ndarray, lam: float) -> float:
    """Largest violation of the optimality conditions of ``min uᵀMu`` under the bounds:
    the gradient ``2Mu`` must vanish on free coordinates and point into the bound on
    active ones; infeasibility counts too."""
    g = 2.0 * (M @ u)
    at = np.where(lower, u <= lam + 1e-12, u >= -lam - 1e-12)
    wrong = np.where(lower, -g, g)  # a positive value would lower the objective
    viol = np.where(at, np.maximum(wrong, 0.0), np.abs(g))
    infeas = np.where(lower, lam - u, u + lam)
    return float(max(viol.max(initial=0.0), infeas.max(initial=0.0), 0.0))


def _bqp_active_set(
    M: sp.csc_matrix,
    lower: np.ndarray,
    lam: float,
    max_iter: int,
    active: np.ndarray | None = None,
) -> tuple[np.ndarray, int, bool]:
    """Primal-dual active-set method (Hintermüller, Ito & Kunisch 2002) for one label:
    fix the active coordinates at their bound, solve ``M_FF u_F = −M_FA u_A`` for the free
    ones (sparse LU), re-select the active set from ``u − Mu``; stops when it repeats."""
    bound = np.where(lower, lam, -lam)
    active = np.ones(bound.size, dtype=bool) if active is None else active
    u = bound.copy()
    for it in range(1, max_iter + 1):
        u = bound.copy()
        free = ~active
        if free.any():
            Mf = M[:, free]
            # M is symmetric positive semi-definite: a symmetric fill-reducing order and
            # diagonal pivots keep the factor ~40x sparser than the default column order
            try:
                lu = splu(
                    Mf[free].tocsc(),
                    permc_spec="MMD_AT_PLUS_A",
                    diag_pivot_thresh=0.0,
                    options={"SymmetricMode": True},
                )
            except RuntimeError:
                # M is only semi-definite: a free block can be exactly singular (patterns
                # with identical neighbourhoods, e.g. duplicated rows). Its minimiser is then
                # not unique; report no convergence and let the caller's L-BFGS-B finish
                return u, it, False
            u[free] = lu.solve(-(Mf[~free].T @ bound[~free]))
        g = M @ u
        # a margin against degenerate coordinates (at the bound with a zero multiplier),
        # between which the active set would otherwise flip forever
        new = np.where(lower, u - g <= lam + _MARGIN, u - g >= -lam - _MARGIN)
        if np.array_equal(new, active):
            return u, it, True
        active = new
    return u, max_iter, False


def _bqp_lbfgsb(
    M: sp.spmatrix, lower: np.ndarray, lam: float, u0: np.ndarray, tol: float, max_iter: int
) -> np.ndarray:
    """L-BFGS-B for one label from a feasible start (the fallback of the active-set method)."""
    bounds = np.column_stack([np.where(lower, lam, -np.inf), np.where(lower, np.inf, -lam)])

    def fun(u):
        Mu = M @ u
        return float(u @ Mu), 2.0 * Mu

    res = minimize(
        fun,
        u0,
        jac=True,
        method="L-BFGS-B",
        bounds=bounds,
        options={"maxiter": max_iter, "ftol": 0.0, "gtol": tol, "maxcor": 30},
    )
    return res.x


def label_manifold(
    W: sp.spmatrix, Y: np.ndarray, lam: float = 1.0, tol: float = 1e-10, max_iter: int = 100
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Numerical labels of ML² (Hou, Geng & Zhang 2016), the code's ``build_label_manifold``.

    For each label ``j``: ``min_u uᵀ M u`` with ``M = (I − W)ᵀ(I − W)``, subject to
    ``u_i ≥ λ`` where ``y_ij = 1`` and ``u_i ≤ −λ`` where ``y_ij = 0`` — a quadratic
    programme with bounds only, solved exactly by a primal-dual active-set method (sparse
    LU of the free block); a label whose active set has not settled after ``max_iter``
    steps (it can cycle) is solved by L-BFGS-B from there and polished by the active-set
    method from the set L-BFGS-B ends on. The minimisers are then pinned
    (:func:`_pin_shift`).

    Returns
    -------
    U : ndarray of shape (n_samples, n_labels)
    n_iter : ndarray of int, shape (n_labels,)
        Active-set steps per label; negative where the active set cycled and the label was
        finished by L-BFGS-B followed by ``|n|`` active-set steps from its final set.
    kkt : ndarray of float, shape (n_labels,)
        Largest violation of the optimality conditions per label (:func:`_kkt_residual`).
    """
    n, q = Y.shape
    IW = sp.identity(n, format="csr") - W
    M = (IW.T @ IW).tocsc()
    pos = np.asarray(Y, dtype=bool)
    U = np.empty((n, q))
    n_iter = np.empty(q, dtype=np.intp)
    report_step(0, q, "label")  # the loop starts: its rate is timed from here
    for j in range(q):  # q independent programmes; each is sparse linear algebra
        u, it, ok = _bqp_active_set(M, pos[:, j], lam, max_iter)
        if not ok:
            # the active set cycles: a few hundred L-BFGS-B steps from the feasible
            # projection, then the active-set method from the set they end on (exact when
            # that set is right), repeated from L-BFGS-B's point while it is not
            v = np.where(pos[:, j], np.maximum(u, lam), np.minimum(u, -lam))
            for _ in range(20):
                v = _bqp_lbfgsb(M, pos[:, j], lam, v, tol, 300)
                near = np.where(pos[:, j], v <= lam + 1e-9, v >= -lam - 1e-9)
                u, it, ok = _bqp_active_set(M, pos[:, j], lam, 20, near)
                if ok:
                    break
            if not ok:
                u = v
            it = -it
        U[:, j] = u
        n_iter[j] = it
        report_step(j + 1, q, "label")  # the programmes are most of a long fit
    kkt = np.array([_kkt_residual(M, U[:, j], pos[:, j], lam) for j in range(q)])
    return _pin_shift(U, W, pos, lam), n_iter, kkt


def _pin_shift(U: np.ndarray, W: sp.spmatrix, pos: np.ndarray, lam: float) -> np.ndarray:
    """The one minimiser the code's programme leaves open: rows of ``W`` sum to 1, so
    ``(I − W)`` maps a constant on each connected component of the graph to 0 and the
    minimisers form segments ``U + t·1_c``. Each (component, label) is shifted to the
    middle of its feasible segment (to the bound when the label is constant there)."""
    _, comp = connected_components(W, directed=True, connection="weak")
    U = U.copy()
    big = np.inf
    for c in np.unique(comp):
        rows = comp == c
        Uc, Pc = U[rows], pos[rows]
        t_lo = lam - np.where(Pc, Uc, big).min(axis=0)  # keeps positives >= lam
        t_hi = -lam - np.where(Pc, -big, Uc).max(axis=0)  # keeps negatives <= -lam
        t = np.where(
            np.isfinite(t_lo) & np.isfinite(t_hi),
            0.5 * (t_lo + t_hi),
            np.where(np.isfinite(t_lo), t_lo, t_hi),
        )
        U[rows] = Uc + t
    return U


def _row_normalize(Z: Any) -> Any:
    """Rows scaled to unit L2 norm (``max(‖row‖², 1e-14)``, Cai's ``NormalizeFea``)."""
    if sp.issparse(Z):
        norms = np.asarray(Z.multiply(Z).sum(axis=1)).ravel()
        return sp.diags(np.maximum(norms, 1e-14) ** -0.5) @ Z
    norms = np.einsum("ij,ij->i", Z, Z)
    return Z * (np.maximum(norms, 1e-14) ** -0.5)[:, None]


def _quad_forms(X: Any, W: sp.spmatrix) -> np.ndarray:
    """``diag(XᵀWX)`` for every column of ``X`` (sparse X stays sparse)."""
    WX = W @ X
    if sp.issparse(X):
        return np.asarray(sp.csr_matrix(X).multiply(WX).sum(axis=0)).ravel()
    return np.einsum("ij,ij->j", X, np.asarray(WX))


def laplacian_score(X: Any, W: sp.spmatrix) -> np.ndarray:
    """One minus the Laplacian score (He, Cai & Niyogi 2005), Cai's ``LaplacianScore.m``:
    ``(x̃ᵀWx̃) / (x̃ᵀDx̃)`` with ``x̃ = x − (xᵀD1 / 1ᵀD1)·1``; 0 where ``x̃ᵀDx̃ < 10⁻¹²``."""
    deg = np.asarray(W.sum(axis=1)).ravel()
    total = deg.sum()
    if total <= 0:
        return np.zeros(X.shape[1])
    t1 = np.asarray(X.T @ deg).ravel()
    dprime = _quad_forms(X, sp.diags(deg)) - t1 * t1 / total
    lprime = _quad_forms(X, W) - t1 * t1 / total
    ok = dprime >= 1e-12
    return np.where(ok, lprime / np.where(ok, dprime, 1.0), 0.0)


def knn_constraint_ratio(X: Any, k: int, idx: np.ndarray | None = None) -> np.ndarray:
    """``xᵀL_M x / xᵀL_C x`` per feature: the Laplacians of the symmetric binary k-NN graph
    and of its complement (the code's dense ``ones − W``), the latter as
    ``n·Σ(x − x̄)² − xᵀL_M x`` (no ``n × n`` matrix)."""
    n = X.shape[0]
    if idx is None:
        idx = _neighbors(X, k)[1]
    idx = idx[:, :k]
    A = sp.csr_matrix((np.ones(n * k), idx.ravel(), np.arange(0, n * k + 1, k)), shape=(n, n))
    A = A.maximum(A.T).tocsr()
    deg = np.asarray(A.sum(axis=1)).ravel()
    local = _quad_forms(X, sp.diags(deg)) - _quad_forms(X, A)
    if sp.issparse(X):
        _, var = mean_variance_axis(sp.csc_matrix(X), axis=0)
    else:
        var = X.var(axis=0)
    total = n * n * np.asarray(var)  # ½ Σ_ij (x_i − x_j)²
    nonlocal_ = total - local
    ok = nonlocal_ > 0
    return np.where(ok, local / np.where(ok, nonlocal_, 1.0), 0.0)


class MCLS(BaseSelector):
    """Manifold-based constraint Laplacian score (Huang, Jiang & Sun 2018).

    Following the authors' code (``docs/methods/graph.md#mcls``):

    1. ``W``: probabilistic k-NN affinity of the samples (:func:`pkn_graph`);
    2. numerical labels ``U`` of the label manifold (ML²): locally linear reconstruction
       weights of the samples (:func:`lle_weights`) and the bound-constrained quadratic
       programme of :func:`label_manifold`;
    3. ``W_U``: probabilistic k-NN affinity of the row-normalised ``U``;
    4. constraint Laplacian score ``s_f`` = one minus the Laplacian score of the
       row-normalised features on the graph ``W ∘ W_U`` (:func:`laplacian_score`);
    5. ``c_f = xᵀL_M x / xᵀL_C x`` on the binary k-NN graph and its complement
       (:func:`knn_constraint_ratio`);
    6. features by decreasing ``s_f · c_f``.

    Parameters
    ----------
    n_features_to_select : int, float, str or None, default=None
        Count, fraction, budget string, or ``None`` for ⌈√n_samples⌉.
    n_neighbors : int, default=5
        ``k`` of every neighbour graph (the code's ``knear``; its example uses 5).
    lam : float, default=1.0
        Margin ``λ`` of the label-manifold constraints (the code: 1).
    reg : float, default=1e-3
        Regularisation of the local reconstruction systems, times their trace.
    tol : float, default=1e-10
        Tolerance of the L-BFGS-B fallback of the label-manifold programmes.
    max_iter : int, default=100
        Active-set steps per label before the L-BFGS-B fallback.

    Attributes
    ----------
    selection_order_ : ndarray of int
        Every feature by decreasing score (ties: lowest index); constant features last.
    ranking_ : ndarray of shape (n_features,)
        scikit-learn's ranking, as ``RFE``'s: 1 for the selected features, then 2, 3,
        ... along ``selection_order_``.
    scores_ : ndarray of shape (n_features,)
        ``s_f · c_f``; ``-inf`` for constant features.
    laplacian_scores_ : ndarray of shape (n_features,)
        ``s_f``.
    constraint_ratios_ : ndarray of shape (n_features,)
        ``c_f``.
    label_manifold_ : ndarray of shape (n_samples, n_labels)
        ``U``.
    n_iter_ : ndarray of int, shape (n_labels,)
        Active-set steps of each label's programme (negative: after the L-BFGS-B
        fallback, see :func:`label_manifold`).
    kkt_residuals_ : ndarray of float, shape (n_labels,)
        Largest violation of each programme's optimality conditions (0 at the optimum).

    Notes
    -----
    Sparse ``X`` stays sparse (neighbour searches, quadratic forms); the local
    reconstruction makes one block of neighbour rows dense at a time. Time
    ``O(n²·d)`` for the neighbour searches (``O(n·nnz(X))`` sparse), ``O(n·k²·d)`` for the
    reconstructions, ``O(iterations·n·k²·q)`` for the label manifold; memory ``O(n·k·q)``.
    """

    _parameter_constraints: dict = {
        **BaseSelector._parameter_constraints,
        "n_neighbors": [Number(Integral, 1, None, closed="left")],
        "lam": [POSITIVE],
        "reg": [POSITIVE],
        "tol": [POSITIVE],
        "max_iter": [Number(Integral, 1, None, closed="left")],
        "verbose": ["verbose"],
    }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.selector_tags.scores_meaning = (
            "mcls_score",
            "Laplacian score times constraint ratio, s_f * c_f (higher first; -inf: constant)",
        )
        tags.selector_tags.orders_all_features = True
        return tags

    def __init__(
        self,
        n_features_to_select: Any = None,
        n_neighbors: int = 5,
        lam: float = 1.0,
        reg: float = 1e-3,
        tol: float = 1e-10,
        max_iter: int = 100,
        *,
        verbose: int = 0,
    ):
        self.n_features_to_select = n_features_to_select
        self.verbose = verbose
        self.n_neighbors = n_neighbors
        self.lam = lam
        self.reg = reg
        self.tol = tol
        self.max_iter = max_iter

    def _fit(self, X: Any, Y: Any) -> MCLS:
        X = validate_data(self, X, accept_sparse=["csr"], dtype="numeric", ensure_all_finite=True)
        Yd = check_labels(Y, X.shape[0], warn_empty=True)
        if degenerate_selection(self, X):
            return self
        check_magnitude(X, "MCLS", "forms squared distances between samples")
        n, d = X.shape
        k = int(self.n_neighbors)
        if n < k + 2:
            raise ValueError(
                f"MCLS needs more than n_neighbors + 1 = {k + 1} training samples for its "
                f"(k + 1)-nearest-neighbour graphs; got {n}. Lower n_neighbors."
            )
        X = sp.csr_matrix(X, dtype=np.float64) if sp.issparse(X) else np.asarray(X, np.float64)
        budget = resolve_n_features(self.n_features_to_select, n, d)
        varying = varying_features(X)
        # one search serves the three graphs of X (k + 1 for PKN, the first k otherwise)
        nbrs = _neighbors(X, k + 1)
        W = pkn_graph(X, k, nbrs)
        U, n_iter, kkt = label_manifold(
            lle_weights(X, k, float(self.reg), nbrs[1]),
            Yd,
            float(self.lam),
            float(self.tol),
            int(self.max_iter),
        )
        W_u = pkn_graph(_row_normalize(U), k)
        s = laplacian_score(_row_normalize(X), W.multiply(W_u).tocsr())
        c = knn_constraint_ratio(X, k, nbrs[1])
        score = np.where(varying, s * c, -np.inf)
        var_idx = np.flatnonzero(varying)
        order = var_idx[np.argsort(-np.round(score[var_idx], 12), kind="stable")]
        ranking = np.concatenate([order, np.flatnonzero(~varying)]).astype(np.intp)
        self.laplacian_scores_ = s
        self.constraint_ratios_ = c
        self.label_manifold_ = U
        self.n_iter_ = n_iter
        self.kkt_residuals_ = kkt
        self._set_order(ranking, k=budget, n_samples=n, scores=score)
        return self
