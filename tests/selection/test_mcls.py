"""MCLS (issue #26) against hand-worked examples and straightforward implementations of
the steps of the authors' code (``docs/methods/graph.md#mcls``)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import minimize

from skmlfs.experiments._registry import resolve
from skmlfs.selection import MCLS
from skmlfs.selection._mcls import (
    _bqp_active_set,
    _pin_shift,
    _row_normalize,
    knn_constraint_ratio,
    label_manifold,
    laplacian_score,
    lle_weights,
    pkn_graph,
)


# ----------------------------------------------------------------- straightforward references
def _sq_dists(Z):
    Z = np.asarray(Z, dtype=float)
    return np.array([[float(np.sum((a - b) ** 2)) for b in Z] for a in Z])


def _knn(D2, i, m):
    d = D2[i].copy()
    d[i] = np.inf
    return np.argsort(d, kind="stable")[:m]


def ref_pkn(Z, k):
    D2 = _sq_dists(Z)
    n = D2.shape[0]
    W = np.zeros((n, n))
    for i in range(n):
        nb = _knn(D2, i, k + 1)
        di = D2[i, nb]
        for h in range(k + 1):
            W[i, nb[h]] = (di[k] - di[h]) / (k * di[k] - di[:k].sum() + np.finfo(float).eps)
    return (W + W.T) / 2


def ref_lle(X, k, reg=1e-3):
    X = np.asarray(X, dtype=float)
    D2 = _sq_dists(X)
    n = X.shape[0]
    W = np.zeros((n, n))
    for i in range(n):
        nb = _knn(D2, i, k)
        z = X[nb] - X[i]
        Z = z @ z.T
        Z = Z + np.eye(k) * reg * np.trace(Z)
        w = np.linalg.solve(Z, np.ones(k))
        W[i, nb] = w / w.sum()
    return W


def ref_laplacian_score(X, W):
    """Cai's LaplacianScore.m, literally (1 − score; D' < 1e-12 → 0)."""
    X = np.asarray(X, dtype=float)
    d = W.sum(axis=1)
    out = np.zeros(X.shape[1])
    for f in range(X.shape[1]):
        x = X[:, f]
        t = d @ x
        dp = x @ (d * x) - t * t / d.sum()
        lp = x @ W @ x - t * t / d.sum()
        out[f] = lp / dp if dp >= 1e-12 else 0.0
    return out


def ref_constraint_ratio(X, k):
    """The code's dense binary k-NN graph, its complement ``ones − W`` and the two
    Laplacian quadratic forms per feature."""
    X = np.asarray(X, dtype=float)
    D2 = _sq_dists(X)
    n = X.shape[0]
    A = np.zeros((n, n))
    for i in range(n):
        A[i, _knn(D2, i, k)] = 1.0
    A = np.maximum(A, A.T)
    C = np.ones((n, n)) - A
    LM = np.diag(A.sum(axis=1)) - A
    LC = np.diag(C.sum(axis=1)) - C
    return np.array(
        [(X[:, f] @ LM @ X[:, f]) / (X[:, f] @ LC @ X[:, f]) for f in range(X.shape[1])]
    )


def _load(dataset_path, name):
    from skmlfs.datasets import load

    ds = load(dataset_path(f"mulan/{name}/{name}.arff"))
    return np.asarray(ds.X, dtype=float), np.asarray(ds.Y)


# ------------------------------------------------------------------- hand-worked examples
def test_pkn_by_hand():
    # points 0, 1, 3, 6 on a line, k = 2; row i weighs its 3 nearest other rows by
    # (d₃ − d_h)/(2·d₃ − d₁ − d₂). Row 0: d² = 1, 9, 36 → (35, 27, 0)/62; row 1: 1, 4, 25
    # → (24, 21, 0)/45; row 2: 4, 9, 9 → (5, 0, 0)/5; row 3: 9, 25, 36 → (27, 11, 0)/38.
    Z = np.array([[0.0], [1.0], [3.0], [6.0]])
    P = np.array(
        [
            [0, 35 / 62, 27 / 62, 0],
            [24 / 45, 0, 21 / 45, 0],
            [0, 1, 0, 0],
            [0, 11 / 38, 27 / 38, 0],
        ]
    )
    W = pkn_graph(Z, 2).toarray()
    np.testing.assert_allclose(W, (P + P.T) / 2, atol=1e-15)
    np.testing.assert_allclose(W, ref_pkn(Z, 2), atol=1e-15)


def test_lle_by_hand_symmetric_neighbours():
    # x = 0 between neighbours at −1 and +1: Z = [[1, −1], [−1, 1]] + 2·reg·I, w = (½, ½)
    X = np.array([[0.0], [-1.0], [1.0], [5.0]])
    W = lle_weights(X, 2).toarray()
    np.testing.assert_allclose(W[0], [0, 0.5, 0.5, 0])
    np.testing.assert_allclose(W, ref_lle(X, 2), atol=1e-12)
    np.testing.assert_allclose(W.sum(axis=1), 1.0)


def test_pin_shift_midpoint_of_feasible_segment():
    # one component, one label: positives at >= 1, negatives at <= −1; U = (3, 2, −4) can
    # move by t ∈ [1 − 2, −1 + 4] = [−1, 3]: the middle is t = 1.
    W = sp.csr_matrix(np.array([[0, 0.5, 0.5], [0.5, 0, 0.5], [0.5, 0.5, 0]]))
    U = np.array([[3.0], [2.0], [-4.0]])
    pos = np.array([[True], [True], [False]])
    np.testing.assert_allclose(_pin_shift(U, W, pos, 1.0), [[4.0], [3.0], [-3.0]])
    # a label constant on the component: to the bound
    np.testing.assert_allclose(
        _pin_shift(
            U[:2] * 0 + [[3.0], [2.0]], sp.csr_matrix(np.array([[0, 1.0], [1.0, 0]])), pos[:2], 1.0
        ),
        [[2.0], [1.0]],
    )


@pytest.mark.slow
def test_label_manifold_matches_generic_solver_small():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    Y = (X[:, :2] + 0.5 * rng.normal(size=(40, 2)) > 0).astype(int)
    W = lle_weights(X, 4)
    U, n_iter, kkt = label_manifold(W, Y)
    assert np.all(kkt < 1e-9)
    IW = np.eye(40) - W.toarray()
    M = IW.T @ IW
    for j in range(2):
        pos = Y[:, j] == 1
        bounds = [(1.0, None) if p else (None, -1.0) for p in pos]
        res = minimize(
            lambda u: (u @ M @ u, 2 * M @ u),
            np.where(pos, 1.0, -1.0),
            jac=True,
            method="L-BFGS-B",
            bounds=bounds,
            options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 3000},
        )
        # the generic solver stops early on this ill-conditioned programme: ours is at least
        # as good, and optimal by the KKT conditions checked here with loops
        ours = U[:, j] @ M @ U[:, j]
        assert ours <= res.fun + 1e-12
        g = 2 * M @ U[:, j]
        for i in range(40):
            u = U[i, j]
            if pos[i]:
                assert u >= 1 - 1e-12 and (abs(g[i]) < 1e-8 or (u < 1 + 1e-9 and g[i] > 0))
            else:
                assert u <= -1 + 1e-12 and (abs(g[i]) < 1e-8 or (u > -1 - 1e-9 and g[i] < 0))


def test_registered_and_bad_parameters():
    from sklearn.utils._param_validation import InvalidParameterError

    assert resolve("selector", "mcls") is MCLS
    X = np.random.default_rng(0).normal(size=(12, 3))
    Y = (X[:, :2] > 0).astype(int)
    for kw in ({"n_neighbors": 0}, {"lam": 0.0}, {"reg": -1.0}):
        with pytest.raises(InvalidParameterError, match=next(iter(kw))):
            MCLS(**kw).fit(X, Y)
    with pytest.raises(ValueError, match="n_neighbors"):
        MCLS(n_neighbors=11).fit(X, Y)


def test_constant_feature_last():
    rng = np.random.default_rng(2)
    X = np.column_stack([rng.normal(size=(30, 3)), np.full(30, 7.0)])
    Y = (X[:, :2] > 0).astype(int)
    sel = MCLS(n_features_to_select=2).fit(X, Y)
    assert sel.selection_order_[-1] == 3 and sel.scores_[3] == -np.inf


# ----------------------------------------------------------------------------- real data
@pytest.mark.slow
def test_steps_match_references_on_emotions(dataset_path):
    X, Y = _load(dataset_path, "emotions")
    k = 5
    np.testing.assert_allclose(pkn_graph(X, k).toarray(), ref_pkn(X, k), atol=1e-12)
    np.testing.assert_allclose(lle_weights(X, k).toarray(), ref_lle(X, k), atol=1e-8)
    np.testing.assert_allclose(knn_constraint_ratio(X, k), ref_constraint_ratio(X, k), rtol=1e-9)
    sel = MCLS(n_features_to_select=10).fit(X, Y)
    # the label manifold: every programme at its optimum (KKT), then the rest of the chain
    # from the fitted U through the straightforward steps
    assert np.all(sel.kkt_residuals_ < 1e-8)
    Wu = ref_pkn(_row_normalize(sel.label_manifold_), k)
    s = ref_laplacian_score(_row_normalize(X), ref_pkn(X, k) * Wu)
    c = ref_constraint_ratio(X, k)
    np.testing.assert_allclose(sel.laplacian_scores_, s, atol=1e-10)
    np.testing.assert_allclose(sel.scores_, s * c, atol=1e-10)
    order = np.argsort(-np.round(s * c, 12), kind="stable")
    np.testing.assert_array_equal(sel.selection_order_, order)


def test_laplacian_score_matches_cai(dataset_path):
    X, _ = _load(dataset_path, "emotions")
    W = pkn_graph(X, 5)
    np.testing.assert_allclose(
        laplacian_score(_row_normalize(X), W),
        ref_laplacian_score(_row_normalize(X), W.toarray()),
        atol=1e-10,
    )


def test_sparse_equals_dense_emotions(dataset_path):
    # continuous features: no distance ties, so the neighbour graphs are the same
    X, Y = _load(dataset_path, "emotions")
    dense = MCLS(n_features_to_select=10).fit(X, Y)
    sparse = MCLS(n_features_to_select=10).fit(sp.csr_matrix(X), Y)
    np.testing.assert_array_equal(sparse.selection_order_, dense.selection_order_)
    np.testing.assert_allclose(sparse.scores_, dense.scores_, atol=1e-9)


def test_label_manifold_optimal_on_yeast(dataset_path):
    X, Y = _load(dataset_path, "yeast")
    X, Y = X[:800], Y[:800]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        U, n_iter, kkt = label_manifold(lle_weights(X, 5), Y)
    assert np.all(kkt < 1e-8)
    pos = Y.astype(bool)
    assert np.all(U[pos] >= 1 - 1e-12) and np.all(U[~pos] <= -1 + 1e-12)


def test_singular_free_block_falls_back_instead_of_raising():
    # two pairs of patterns that reconstruct each other exactly: M = (I - W)^T (I - W) is
    # 2 [[1, -1], [-1, 1]] per pair, singular; with every coordinate free the LU of the
    # free block fails (benchmark runs on enron and genbase.mat raised "Factor is exactly
    # singular"); the active-set step must report no convergence for L-BFGS-B to finish
    W = sp.csr_matrix(np.array([[0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0]],
                               dtype=float))
    IW = sp.identity(4, format="csr") - W
    M = (IW.T @ IW).tocsc()
    lower = np.array([True, False, True, False])
    u, it, ok = _bqp_active_set(M, lower, 1.0, 10, active=np.zeros(4, dtype=bool))
    assert not ok and it == 1
    # the whole solver still returns feasible labels that minimise u^T M u (here 0 is not
    # reachable: each pair needs u_0 >= 1 and u_1 <= -1, so the optimum is u = (1, -1))
    U, _, kkt = label_manifold(W, lower[:, None].astype(np.uint8), lam=1.0)
    assert np.all(np.isfinite(U)) and kkt.max() < 1e-6
