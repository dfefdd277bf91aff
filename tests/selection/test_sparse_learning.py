"""Tests of RLEFS, MIFS, RALM-FS and the heat-kernel graph helpers.

References are straightforward implementations written here from the equations
(``docs/methods/sparse.md``): literal dense matrices, explicit loops.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone

from skmlfs.neighbors import stable_smallest
from skmlfs.selection._sparse_learning import (
    MIFS,
    RALMFS,
    RLEFS,
    _heat_kernel_affinity,
    _knn_pairs,
    _label_graph,
    _laplacian,
    _minmax_scale,
    fit_settings,
)


# ----------------------------------------------------------------------------- graph
def _naive_affinity(Z, p, sigma, scale="sigma2"):
    Z = np.asarray(Z, dtype=float)
    m = Z.shape[0]
    div = sigma**2 if scale == "sigma2" else 2 * sigma**2
    D = np.array([[np.sum((Z[i] - Z[j]) ** 2) for j in range(m)] for i in range(m)])
    nbr = []
    for i in range(m):
        cand = sorted((D[i, j], j) for j in range(m) if j != i)
        nbr.append({j for _, j in cand[:p]})
    S = np.zeros((m, m))
    for i in range(m):
        for j in range(m):
            if i != j and (j in nbr[i] or i in nbr[j]):
                S[i, j] = np.exp(-D[i, j] / div)
    return S


def test_label_graph_three_labels_by_hand():
    # Columns: l0 = (1,1,0,0), l1 = (1,0,0,0), l2 = (0,0,1,1).
    Y = np.array([[1, 1, 0], [1, 0, 0], [0, 0, 1], [0, 0, 1]])
    # Squared distances: d01 = 1, d02 = 4, d12 = 3. With p = 1 the nearest neighbour of
    # l0 is l1, of l1 is l0, of l2 is l1 (3 < 4). "Or" rule: edges {0,1} and {1,2}.
    S, a = _label_graph(Y, n_neighbors=1, sigma=2.0)
    e1, e3 = np.exp(-1 / 4), np.exp(-3 / 4)
    expected = np.array([[0, e1, 0], [e1, 0, e3], [0, e3, 0]])
    np.testing.assert_allclose(S, expected, rtol=1e-15)
    np.testing.assert_allclose(a, [e1, e1 + e3, e3])
    L, _ = _laplacian(S)
    np.testing.assert_allclose(L, [[e1, -e1, 0], [-e1, e1 + e3, -e3], [0, -e3, e3]])
    np.testing.assert_allclose(L.sum(axis=1), 0, atol=1e-15)
    # Cai's kernel scale divides by 2σ²; p >= m − 1 connects every pair.
    S2, _ = _label_graph(Y, n_neighbors=5, sigma=2.0, kernel_scale="2sigma2")
    np.testing.assert_allclose(S2[0, 2], np.exp(-4 / 8))
    # Normalized columns: l0 = (1,1,0,0)/√2, l1 = (1,0,0,0): distance² = 2 − 2/√2.
    S3, _ = _label_graph(Y, n_neighbors=1, sigma=1.0, label_distance="normalized")
    np.testing.assert_allclose(S3[0, 1], np.exp(-(2 - np.sqrt(2))))


@pytest.mark.parametrize("p", [1, 2, 3, 10])
@pytest.mark.parametrize("scale", ["sigma2", "2sigma2"])
def test_affinity_matches_naive_with_ties(p, scale):
    rng = np.random.default_rng(p)
    Z = rng.integers(0, 3, size=(12, 4)).astype(float)  # many exact distance ties
    S = _heat_kernel_affinity(Z, p, 1.5, scale)
    ref = _naive_affinity(Z, p, 1.5, scale)
    np.testing.assert_allclose(S.toarray(), ref, rtol=1e-13, atol=0)
    Ssp = _heat_kernel_affinity(sp.csr_matrix(Z), p, 1.5, scale)
    np.testing.assert_allclose(Ssp.toarray(), ref, rtol=1e-13, atol=0)
    assert (S != S.T).nnz == 0


def _exact_neighbours(codes, ranges, p):
    """p nearest other rows of ``codes / ranges`` in exact integer arithmetic (squared
    distances times the lcm of the squared ranges), ties to the lower index."""
    lcm = math.lcm(*(r * r for r in ranges))
    w = np.array([lcm // (r * r) for r in ranges], dtype=np.int64)
    diff = codes[:, None, :] - codes[None, :, :]
    D = (diff * diff * w).sum(axis=2)
    out = []
    for i in range(len(codes)):
        order = sorted((D[i, j], j) for j in range(len(codes)) if j != i)
        out.append(sorted(j for _, j in order[:p]))
    return out


@pytest.mark.parametrize("sparse", [False, True])
def test_knn_pairs_ties_of_scaled_codes_follow_the_exact_distances(sparse):
    # Equal distances of range-scaled codes ((1/7)² + (3/7)² vs (3/7)² + (1/7)²) come out
    # a few ulps apart from the products; the p nearest must be those of the exact
    # distances with ties to the lower index (as the lazy learners' search).
    ranges = (7, 5, 3, 9)
    codes = np.random.default_rng(0).integers(0, np.array(ranges) + 1, size=(300, 4))
    Z = codes / np.array(ranges, dtype=float)
    Z = sp.csr_matrix(Z) if sparse else Z
    for p in (3, 5, 10):
        rows, cols, _ = _knn_pairs(Z, p)
        assert np.all(np.diff(rows) >= 0)
        got = [cols[rows == i].tolist() for i in range(300)]
        assert got == _exact_neighbours(codes, ranges, p)
    # the data do tie by rounding: ordered by the computed values, rows differ
    Zd = Z.toarray() if sparse else Z
    sq = (Zd * Zd).sum(axis=1)
    D = np.maximum(sq[:, None] + sq[None, :] - 2.0 * Zd @ Zd.T, 0.0)
    np.fill_diagonal(D, np.inf)
    plain = [sorted(r) for r in stable_smallest(D, 5).tolist()]
    assert plain != _exact_neighbours(codes, ranges, 5)


def test_knn_pairs_on_integer_data_is_exact_without_tolerance():
    codes = np.random.default_rng(1).integers(0, 4, size=(120, 6)).astype(float)
    rows, cols, sq = _knn_pairs(codes, 7)
    got = [cols[rows == i].tolist() for i in range(120)]
    assert got == _exact_neighbours(codes.astype(np.int64), (1,) * 6, 7)
    assert np.array_equal(sq, ((codes[rows] - codes[cols]) ** 2).sum(axis=1))


def test_minmax_scale_sparse_equals_dense():
    rng = np.random.default_rng(0)
    X = rng.random((20, 6)) * (rng.random((20, 6)) < 0.4)
    X[:, 2] = 3.0 + rng.random(20)  # a column with no implicit zeros and min > 0
    X[:, 4] = 0.0
    Xs = _minmax_scale(sp.csr_matrix(X))
    np.testing.assert_allclose(Xs.toarray(), _minmax_scale(X), atol=1e-15)
    assert sp.issparse(Xs)
    with pytest.raises(ValueError, match="non-negative"):
        _minmax_scale(sp.csr_matrix(-X))


# ----------------------------------------------------------------------------- RLEFS
def _rlefs_reference(X, Y, n_iter, seed, alpha=0.5, beta=0.5, gamma=0.5, lam=0.5, p=5, sigma=1.0):
    """Literal Eq. (13)/(17) with dense diagonal matrices (typo-corrected W numerator)."""
    X = np.asarray(X, float)
    X = (X - X.min(0)) / np.where(np.ptp(X, 0) > 0, np.ptp(X, 0), np.inf)
    Y = np.asarray(Y, float)
    n, d = X.shape
    q = Y.shape[1]
    S = _naive_affinity(Y.T, p, sigma)
    A = np.diag(S.sum(1))
    rs = np.random.RandomState(seed)
    W, F, B = rs.random_sample((d, q)), rs.random_sample((n, q)), rs.random_sample((q, q))
    eps, delta = 1e-8, 1e-10
    for _ in range(n_iter):
        D1 = np.diag(1 / (2 * np.linalg.norm(X @ W - F, axis=1) + eps))
        D2 = np.diag(1 / (2 * np.linalg.norm(F - Y @ B, axis=1) + eps))
        D3 = np.diag(1 / (2 * np.linalg.norm(W, axis=1) + eps))
        W = (
            W
            * (X.T @ D1 @ F + alpha * W @ S)
            / (X.T @ D1 @ X @ W + alpha * W @ A + gamma * D3 @ W + delta)
        )
        F = (
            F
            * (D1 @ X @ W + beta * D2 @ Y @ B + lam * F)
            / (D1 @ F + beta * D2 @ F + lam * F @ F.T @ F + delta)
        )
        B = B * (Y.T @ D2 @ F) / (Y.T @ D2 @ Y @ B + delta)
    return W, F, B


def _data(seed=0, n=40, d=7, q=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[:, 3] = 1.0  # constant column
    Y = (rng.random((n, q)) < 0.4).astype(int)
    Y[0] = 0
    return X, Y


def test_rlefs_matches_literal_reference():
    X, Y = _data()
    Yn = Y.copy()
    Yn[:, 1] = Y[:, 0]  # duplicated label: distance 0, affinity 1 (a live graph term)
    m = RLEFS(random_state=3, max_iter=6, tol=0, n_neighbors=2).fit(X, Yn)
    W, F, B = _rlefs_reference(X, Yn, 6, 3, p=2)
    assert m.label_affinity_.max() == 1.0
    np.testing.assert_allclose(m.W_, W, rtol=1e-9)
    np.testing.assert_allclose(m.F_, F, rtol=1e-9)
    np.testing.assert_allclose(m.B_, B, rtol=1e-9)
    np.testing.assert_array_equal(m.selection_order_,
                                  np.argsort(-np.linalg.norm(W, axis=1), kind="stable"))


def test_rlefs_api_sparse_dense_determinism():
    X, Y = _data(1, d=9)
    X = np.abs(X) * (X > 0.3)
    X0 = X.copy()
    m1 = RLEFS(n_features_to_select=3, random_state=0).fit(X, Y)
    m2 = clone(m1).fit(X, Y)
    np.testing.assert_array_equal(m1.W_, m2.W_)  # same seed → same result, bit for bit
    np.testing.assert_array_equal(X, X0)  # input not modified
    ms = RLEFS(n_features_to_select=3, random_state=0).fit(sp.csr_matrix(X), Y)
    np.testing.assert_allclose(ms.W_, m1.W_, rtol=1e-9, atol=1e-300)
    np.testing.assert_allclose(ms.objective_, m1.objective_, rtol=1e-9)
    assert m1.get_support().sum() == 3
    assert m1.transform(X).shape == (X.shape[0], 3)
    assert sp.issparse(ms.transform(sp.csr_matrix(X)))
    np.testing.assert_array_equal(m1.get_support(indices=True), np.sort(m1.selection_order_[:3]))
    np.testing.assert_allclose(m1.scores_, m1.feature_importances_)
    assert np.all(np.diff(m1.scores_[m1.selection_order_]) <= 0)
    assert RLEFS(n_features_to_select=0.5, random_state=0).fit(X, Y).get_support().sum() == 5
    assert RLEFS().fit(X, Y).n_features_to_select_ == int(np.ceil(np.sqrt(X.shape[0])))  # capped
    with pytest.raises(ValueError, match="alpha"):
        RLEFS(alpha=-1).fit(X, Y)
    with pytest.raises(ValueError, match="X >= 0"):
        RLEFS(scale=False).fit(-np.abs(X) - 1, Y)


@pytest.mark.parametrize("kw", [{}, {"label_distance": "normalized"}, {"lambda_": 0.0}])
def test_rlefs_objective_non_increasing_real_data(flags, emotions, kw):
    for X, Y in (flags, emotions):
        for seed in (0, 1):
            m = RLEFS(random_state=seed, max_iter=60, **kw).fit(X, Y)
            obj = m.objective_
            assert obj.size == m.n_iter_ + 1 and m.n_iter_ >= 2
            # Non-increasing up to floating-point noise (the ε of Eq. 13 perturbs the
            # majorisation at the 1e-8 level).
            assert np.all(np.diff(obj) <= 1e-9 * obj[:-1]), np.diff(obj).max()
            assert obj[-1] < obj[0]
            for M in (m.W_, m.F_, m.B_):
                assert np.all(M >= 0) and np.all(np.isfinite(M))


def test_rlefs_deterministic_real_data(emotions):
    X, Y = emotions
    a = RLEFS(random_state=7, max_iter=20).fit(X, Y)
    b = RLEFS(random_state=7, max_iter=20).fit(X, Y)
    np.testing.assert_array_equal(a.selection_order_, b.selection_order_)
    np.testing.assert_array_equal(a.objective_, b.objective_)


# ----------------------------------------------------------------------------- fit_settings
def _assert_same_fit(a, b, names):
    for name in names:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    assert a.n_iter_ == b.n_iter_


_RLEFS_SETTINGS = [
    {"alpha": 0.01, "beta": 0.9, "gamma": 0.3, "lambda_": 1.0},
    {"alpha": 1.0, "beta": 0.1, "gamma": 0.01, "lambda_": 0.5},
    {"alpha": 1.0, "beta": 0.1, "gamma": 0.01, "lambda_": 0.5, "sigma": 3.0},  # new graph
    {"alpha": 0.5, "beta": 0.5, "gamma": 0.5, "lambda_": 0.1, "sigma": 3.0},
    {"alpha": 0.5, "random_state": 1},  # new initialisation
]


def test_fit_settings_rlefs_bit_for_bit(flags):
    """Sharing the label graph, scaled X and initial iterates changes no bit of any fit."""
    X, Y = flags
    Xd, Yd = _data(3, d=9)
    Xd = np.abs(Xd) * (Xd > 0.2)
    Yd[:, 1] = Yd[:, 0]  # live label graph (affinity 1) so alpha matters
    for X_, Y_ in ((X, Y), (Xd, Yd), (sp.csr_matrix(Xd), Yd)):
        base = RLEFS(n_features_to_select=3, random_state=0, max_iter=40, n_neighbors=2)
        shared = list(fit_settings(base, X_, Y_, _RLEFS_SETTINGS))
        assert len(shared) == len(_RLEFS_SETTINGS)
        for setting, m in zip(_RLEFS_SETTINGS, shared, strict=True):
            fresh = clone(base).set_params(**setting).fit(X_, Y_)
            _assert_same_fit(
                m, fresh, ["W_", "F_", "B_", "objective_", "selection_order_", "ranking_",
                           "label_affinity_"]
            )
            assert m.get_params() == fresh.get_params()
    # The settings really differ (the comparison above is not between identical fits).
    assert not np.array_equal(shared[0].W_, shared[1].W_)
    assert not np.array_equal(shared[1].label_affinity_, shared[2].label_affinity_)


def test_fit_settings_unseeded_draws_fresh_initialisations():
    X, Y = _data(4)
    base = RLEFS(random_state=None, max_iter=3)
    a, b = fit_settings(base, X, Y, [{}, {}])
    assert not np.array_equal(a.W_, b.W_)  # no cached initial iterates without a seed
    # A RandomState template is cloned (copied) per setting, exactly as clone(base).fit does.
    base = RLEFS(random_state=np.random.RandomState(5), max_iter=3)
    settings = [{}, {"beta": 0.1}]
    for setting, m in zip(settings, fit_settings(base, X, Y, settings), strict=True):
        fresh = clone(base).set_params(**setting).fit(X, Y)
        np.testing.assert_array_equal(m.W_, fresh.W_)


def test_fit_settings_mifs_bit_for_bit(flags):
    X, Y = flags
    X = _minmax_scale(X)
    settings = [
        {"alpha": 0.01, "beta": 1.0, "gamma": 0.3},
        {"alpha": 0.9, "beta": 0.1, "gamma": 1.0},
        {"alpha": 0.9, "beta": 0.1, "gamma": 1.0, "n_neighbors": 3},
    ]
    base = MIFS(random_state=0, max_iter=30)
    fits = list(fit_settings(base, X, Y, settings))
    for setting, m in zip(settings, fits, strict=True):
        fresh = clone(base).set_params(**setting).fit(X, Y)
        _assert_same_fit(m, fresh, ["W_", "V_", "B_", "objective_", "selection_order_", "ranking_"])
    assert not np.array_equal(fits[0].W_, fits[1].W_)
    # Estimators without a preparation step are just cloned and fitted.
    (r,) = fit_settings(RALMFS(n_features_to_select=3, random_state=0), X, Y, [{"rho": 1.2}])
    np.testing.assert_array_equal(
        r.selected_, RALMFS(n_features_to_select=3, rho=1.2, random_state=0).fit(X, Y).selected_
    )


# ----------------------------------------------------------------------------- MIFS
def _mifs_reference(X, Y, n_iter, seed, alpha=1.0, beta=0.1, gamma=1.0, k=1, p=5, eps=1e-3):
    X = np.asarray(X, float)
    Y = np.asarray(Y, float)
    n, d = X.shape
    q = Y.shape[1]
    S = _naive_affinity(X, p, 1.0, "2sigma2")
    L = np.diag(S.sum(1)) - S
    rs = np.random.RandomState(seed)
    W, V, B = rs.random_sample((d, k)), rs.random_sample((n, k)), rs.random_sample((k, q))

    def fW(W):
        return np.sum((X @ W - V) ** 2) + gamma * np.sum(np.sqrt(np.sum(W**2, 1) + eps))

    def fV(V):
        return (
            np.sum((X @ W - V) ** 2)
            + alpha * np.sum((Y - V @ B) ** 2)
            + beta * np.trace(V.T @ L @ V)
        )

    def fB(B):
        return alpha * np.sum((Y - V @ B) ** 2)

    def step(f, x, g):
        eta = 1.0
        while f(x - eta * g) > f(x) - 1e-4 * eta * np.sum(g**2):
            eta /= 2
        return x - eta * g

    for _ in range(n_iter):
        D = np.diag(1 / (2 * np.sqrt(np.sum(W**2, 1) + eps)))
        W = step(fW, W, 2 * (X.T @ (X @ W - V) + gamma * D @ W))
        V = step(fV, V, 2 * ((V - X @ W) + alpha * (V @ B - Y) @ B.T + beta * L @ V))
        B = step(fB, B, 2 * alpha * V.T @ (V @ B - Y))
    return W, V, B


def test_mifs_matches_reference_and_sparse():
    X, Y = _data(2, n=30, d=6, q=5)
    X = np.abs(X)
    m = MIFS(random_state=4, max_iter=8, tol=0).fit(X, Y)
    W, V, B = _mifs_reference(X, Y, 8, 4, k=2)
    np.testing.assert_allclose(m.W_, W, rtol=1e-7, atol=1e-12)
    np.testing.assert_allclose(m.V_, V, rtol=1e-7, atol=1e-12)
    np.testing.assert_allclose(m.B_, B, rtol=1e-7, atol=1e-12)
    assert np.all(np.diff(m.objective_) <= 1e-12 * m.objective_[:-1])
    ms = MIFS(random_state=4, max_iter=8, tol=0).fit(sp.csr_matrix(X), Y)
    np.testing.assert_allclose(ms.W_, m.W_, rtol=1e-7, atol=1e-12)
    np.testing.assert_array_equal(m.selection_order_,
                                  np.argsort(-np.sum(m.W_**2, axis=1), kind="stable"))


def test_mifs_objective_non_increasing_real_data(flags):
    X, Y = flags
    X = _minmax_scale(X)
    m = MIFS(random_state=0, max_iter=100).fit(X, Y)
    assert np.all(np.diff(m.objective_) <= 1e-12 * m.objective_[:-1])
    assert m.get_support().sum() == int(np.ceil(np.sqrt(X.shape[0])))


# ----------------------------------------------------------------------------- RALM-FS
def _ralm_reference(X, Y, k, n_iter, seed, mu=0.1, rho=1.1):
    X = np.asarray(X, float)
    Y = np.asarray(Y, float)
    n, d = X.shape
    q = Y.shape[1]
    Xc = X - X.mean(0)
    G = np.linalg.inv(Xc.T @ Xc + np.eye(d))
    rs = np.random.RandomState(seed)
    V, E = rs.random_sample((d, q)), rs.random_sample((n, q))
    Lam, Sig = np.zeros((d, q)), np.zeros((n, q))
    for _ in range(n_iter):
        T = Y + E - Sig / mu
        b = T.mean(0)
        W = G @ (V - Lam / mu + Xc.T @ T)
        Z = W + Lam / mu
        keep = sorted(sorted(range(d), key=lambda i: (-np.sum(Z[i] ** 2), i))[:k])
        V = np.zeros_like(Z)
        V[keep] = Z[keep]
        R = Xc @ W + b - Y
        Q = R + Sig / mu
        E = np.zeros_like(Q)
        for i in range(n):
            nq = np.linalg.norm(Q[i])
            if nq > 0:
                E[i] = max(0.0, 1 - (1 / mu) / nq) * Q[i]
        Lam = Lam + mu * (W - V)
        Sig = Sig + mu * (R - E)
        mu = min(1e10, rho * mu)
    return W, np.array(keep)


@pytest.mark.parametrize("shape", [(40, 8), (12, 20)])  # d <= n and the Woodbury branch
def test_ralmfs_matches_reference(shape):
    n, d = shape
    X, Y = _data(5, n=n, d=d, q=3)
    m = RALMFS(n_features_to_select=4, max_iter=15, random_state=1).fit(X, Y)
    W, keep = _ralm_reference(X, Y, 4, 15, 1)
    np.testing.assert_allclose(m.W_, W, rtol=1e-6, atol=1e-9)
    np.testing.assert_array_equal(m.selected_, keep)
    np.testing.assert_array_equal(np.sort(m.selection_order_[:4]), keep)
    np.testing.assert_array_equal(m.get_support(indices=True), keep)
    Xp = np.abs(X) * (X > 0)
    a = RALMFS(n_features_to_select=4, max_iter=15, random_state=1).fit(Xp, Y)
    b = RALMFS(n_features_to_select=4, max_iter=15, random_state=1).fit(sp.csr_matrix(Xp), Y)
    np.testing.assert_allclose(b.W_, a.W_, rtol=1e-6, atol=1e-9)
    np.testing.assert_array_equal(a.selected_, b.selected_)
