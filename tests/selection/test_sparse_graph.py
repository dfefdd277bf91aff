"""Tests of MSSL and SSFS against straightforward implementations of their equations.

The references are written here from the equations (``docs/methods/sparse.md#mssl``,
``#ssfs``): dense matrices, graphs built by explicit loops, the explicit ``n × n``
centring matrix and the bias of MSSL in closed form, SSFS's updates as printed. They run
on real data (emotions, scene).
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone

from skmlfs.selection import MSSL, SSFS
from skmlfs.selection._sparse_learning import _minmax_scale, fit_settings


# ----------------------------------------------------------------------------- graphs
def _naive_knn(Z, p):
    """Neighbour lists by a double loop: the p nearest other rows (ties: lower index)."""
    Z = np.asarray(Z, dtype=float)
    m = Z.shape[0]
    out = []
    for i in range(m):
        cand = sorted((float(np.sum((Z[i] - Z[j]) ** 2)), j) for j in range(m) if j != i)
        out.append(cand[: min(p, m - 1)])
    return out


def _naive_binary_affinity(Z, p):
    """0/1 weights to the p nearest rows, symmetrised as (A + Aᵀ)/2."""
    m = np.asarray(Z).shape[0]
    A = np.zeros((m, m))
    for i, nbrs in enumerate(_naive_knn(Z, p)):
        for _, j in nbrs:
            A[i, j] = 1.0
    return (A + A.T) / 2


def _naive_heat_affinity(Z, p, t, squared=True):
    """exp(−‖z_i − z_j‖²/t) (or exp(−‖z_i − z_j‖/t)) when j is among the p nearest of i
    or i among those of j."""
    m = np.asarray(Z).shape[0]
    S = np.zeros((m, m))
    for i, nbrs in enumerate(_naive_knn(Z, p)):
        for dist, j in nbrs:
            S[i, j] = S[j, i] = np.exp(-(dist if squared else np.sqrt(dist)) / t)
    return S


def _lap(S):
    return np.diag(S.sum(axis=1)) - S


# ----------------------------------------------------------------------------- MSSL
def _mssl_graph(X, p=10, graph="binary", t=1.0):
    """The feature-graph Laplacian, by loops over the columns of X."""
    X = np.asarray(X, dtype=float)
    S = _naive_binary_affinity(X.T, p) if graph == "binary" else _naive_heat_affinity(X.T, p, t)
    return _lap(S)


def _mssl_reference(X, Y, n_iter, alpha=1.0, beta=1.0, p=10, graph="binary", t=1.0,
                    eps=1e-8, L=None):
    """(L2)–(L3) with dense matrices, the explicit centring matrix and a loop-built
    feature graph (or the given Laplacian ``L``); (L1) evaluated with the explicit bias."""
    X = np.asarray(X, dtype=float)
    Y = np.asarray(Y, dtype=float)
    n, d = X.shape
    if L is None:
        L = _mssl_graph(X, p, graph, t)
    H = np.eye(n) - np.ones((n, n)) / n
    one = np.ones((n, 1))
    D = np.eye(d)
    objs = []
    for _ in range(n_iter):
        W = np.linalg.solve(X.T @ H @ X + alpha * L + beta * D, X.T @ H @ Y)
        b = (Y.T @ one - W.T @ X.T @ one) / n
        row = np.sqrt(np.sum(W * W, axis=1) + eps)
        objs.append(np.linalg.norm(X @ W + one @ b.T - Y, "fro") ** 2
                    + alpha * np.trace(W.T @ L @ W) + beta * row.sum())
        D = np.diag(0.5 / row)
    return W, b.ravel(), np.array(objs)


@pytest.mark.parametrize("kw, ref_kw", [
    ({}, {}),
    ({"alpha": 10.0, "beta": 0.1, "n_neighbors": 4}, {"alpha": 10.0, "beta": 0.1, "p": 4}),
    ({"graph": "heat", "sigma": 3.0, "n_neighbors": 6, "alpha": 5.0},
     {"graph": "heat", "t": 9.0, "p": 6, "alpha": 5.0}),
])
def test_mssl_matches_reference_on_real_data(emotions, scene, kw, ref_kw):
    for X, Y in (emotions, scene):
        m = MSSL(max_iter=8, tol=0, **kw).fit(X, Y)
        W, b, objs = _mssl_reference(X, Y, 8, **ref_kw)
        assert m.n_iter_ == 8
        np.testing.assert_allclose(m.W_, W, rtol=1e-7, atol=1e-10 * np.abs(W).max())
        np.testing.assert_allclose(m.intercept_, b, rtol=1e-7, atol=1e-10)
        np.testing.assert_allclose(m.objective_, objs, rtol=1e-9)
        np.testing.assert_array_equal(
            m.selection_order_, np.argsort(-np.linalg.norm(W, axis=1), kind="stable"))


@pytest.mark.parametrize("kw", [{}, {"alpha": 0.01, "beta": 10.0},
                                {"graph": "heat", "sigma": 10.0, "alpha": 100.0}])
def test_mssl_objective_non_increasing_real_data(emotions, scene, kw):
    for X, Y in (emotions, scene):
        m = MSSL(max_iter=40, tol=0, **kw).fit(X, Y)
        obj = m.objective_
        assert obj.size == m.n_iter_ >= 10  # tol=0 stops only on an unchanged objective
        # Every step after the first minimises the reweighting majoriser of (L1) at the
        # previous W: non-increasing up to rounding.
        assert np.all(np.diff(obj) <= 1e-10 * obj[:-1]), np.diff(obj).max()
        assert obj[-1] < obj[0]


def test_mssl_sparse_equals_dense_stopping_and_api(emotions):
    X, Y = emotions
    X0 = np.array(X, copy=True)
    Xs = sp.csr_matrix(np.where(X > np.median(X), X, 0.0))
    dense = MSSL(n_features_to_select=4, max_iter=10).fit(Xs.toarray(), Y)
    sparse = MSSL(n_features_to_select=4, max_iter=10).fit(Xs, Y)
    np.testing.assert_allclose(sparse.W_, dense.W_, rtol=1e-8, atol=1e-12)
    # (all-zero columns get rows of W at rounding level: compare the head of the ranking)
    np.testing.assert_array_equal(sparse.selection_order_[:20], dense.selection_order_[:20])
    assert sp.issparse(sparse.transform(Xs)) and sparse.get_support().sum() == 4
    # stopping rule: after two or more steps, on a relative change <= tol
    m = MSSL(tol=1e-4, max_iter=100).fit(X, Y)
    np.testing.assert_array_equal(np.asarray(X), X0)  # input not modified
    rel = np.abs(np.diff(m.objective_)) / np.abs(m.objective_[:-1])
    assert m.n_iter_ < 100 and rel[-1] <= 1e-4 and np.all(rel[:-1] > 1e-4)
    np.testing.assert_allclose(m.scores_, np.linalg.norm(m.W_, axis=1))
    with pytest.raises(ValueError, match="beta"):
        MSSL(beta=0).fit(X, Y)


def test_mssl_refuses_a_dense_system_above_the_budget(emotions, monkeypatch):
    """The d × d system is checked against the table budget before any work."""
    from skmlfs.info import TableTooLargeError

    X, Y = emotions
    # 72 features: 4 dense 72 × 72 float64 matrices are 166 kB
    monkeypatch.setenv("SKMLFS_MAX_TABLE_GIB", str(100e3 / 2**30))
    with pytest.raises(TableTooLargeError, match=r"MSSL: its d × d system .*d = 72"):
        MSSL().fit(X, Y)
    monkeypatch.setenv("SKMLFS_MAX_TABLE_GIB", str(200e3 / 2**30))
    assert MSSL(max_iter=2).fit(X, Y).n_iter_ == 2


def test_mssl_fit_settings_bit_for_bit(emotions):
    """Sharing the feature graph, XᵀHX and XᵀHY changes no bit of any fit."""
    X, Y = emotions
    est = MSSL(max_iter=6)
    settings = [{"alpha": 0.5}, {"beta": 4.0}, {"n_neighbors": 3}, {"graph": "heat"}]
    fits = list(fit_settings(est, X, Y, settings))
    for setting, m in zip(settings, fits, strict=True):
        fresh = clone(est).set_params(**setting).fit(X, Y)
        for name in ("W_", "intercept_", "objective_", "selection_order_"):
            np.testing.assert_array_equal(getattr(m, name), getattr(fresh, name), err_msg=name)
    assert not np.array_equal(fits[0].W_, fits[1].W_)


# ----------------------------------------------------------------------------- SSFS
def _scaled(X):
    X = np.asarray(X, dtype=float)
    rng_ = np.ptp(X, axis=0)
    return (X - X.min(axis=0)) / np.where(rng_ > 0, rng_, np.inf)


def _ssfs_graph(X, p=5, sigma=30.0, kernel="sigma"):
    """The pattern affinity of SSFS on the min-max scaled X, by loops."""
    Xs = _scaled(X)
    if kernel == "sigma":
        return _naive_heat_affinity(Xs, p, sigma, squared=False)
    return _naive_heat_affinity(Xs, p, sigma**2 if kernel == "sigma2" else 2 * sigma**2)


def _ssfs_reference(X, Y, n_iter, seed, alpha=0.01, beta=0.7, gamma=0.9, k=None, p=5,
                    sigma=30.0, kernel="sigma", eps=1e-8, delta=1e-10, S=None):
    """The three multiplicative updates as printed, dense, on min-max scaled X, with a
    loop-built graph (or the given affinity ``S``); (F1) with the explicit Laplacian."""
    X = _scaled(X)
    Y = np.asarray(Y, dtype=float)
    n, d = X.shape
    q = Y.shape[1]
    k = q if k is None else k
    if S is None:
        S = _ssfs_graph(X, p, sigma, kernel)  # X is already in [0, 1]: scaling is a no-op
    A = np.diag(S.sum(axis=1))
    L = A - S
    rs = np.random.RandomState(seed)
    V, Q, M = rs.random_sample((n, k)), rs.random_sample((d, k)), rs.random_sample((k, q))

    def objective():
        return (np.linalg.norm(X - V @ Q.T) ** 2 + alpha * np.linalg.norm(Y - V @ M) ** 2
                + beta * np.trace(V.T @ L @ V)
                + gamma * np.sum(np.sqrt(np.sum(Q * Q, axis=1) + eps)))

    objs = [objective()]
    for _ in range(n_iter):
        D = np.diag(1 / (2 * np.sqrt(np.sum(Q * Q, axis=1) + eps)))
        V = V * (X @ Q + alpha * Y @ M.T + beta * S @ V) / (
            V @ Q.T @ Q + alpha * V @ M @ M.T + beta * A @ V + delta)
        M = M * (V.T @ Y) / (V.T @ V @ M + delta)
        Q = Q * (X.T @ V) / (Q @ V.T @ V + gamma * D @ Q + delta)
        objs.append(objective())
    return Q, V, M, np.array(objs)


@pytest.mark.slow  # 10 s per setting (loop-built graphs on emotions and scene)
@pytest.mark.parametrize("kw, ref_kw", [
    ({}, {}),
    ({"alpha": 1.0, "beta": 5.0, "gamma": 2.0, "n_components": 3, "n_neighbors": 8,
      "kernel_scale": "sigma2", "sigma": 2.0},
     {"alpha": 1.0, "beta": 5.0, "gamma": 2.0, "k": 3, "p": 8, "kernel": "sigma2",
      "sigma": 2.0}),
])
def test_ssfs_matches_reference_on_real_data(emotions, scene, kw, ref_kw):
    for X, Y in (emotions, scene):
        m = SSFS(random_state=2, max_iter=12, tol=0, **kw).fit(X, Y)
        Q, V, M, objs = _ssfs_reference(X, Y, 12, 2, **ref_kw)
        assert m.n_iter_ == 12
        for got, ref in ((m.Q_, Q), (m.V_, V), (m.M_, M)):
            np.testing.assert_allclose(got, ref, rtol=1e-7, atol=1e-12 * np.abs(ref).max())
        np.testing.assert_allclose(m.objective_, objs, rtol=1e-8)
        np.testing.assert_array_equal(
            m.selection_order_, np.argsort(-np.linalg.norm(Q, axis=1), kind="stable"))


@pytest.mark.parametrize("kw", [{}, {"alpha": 1.0, "beta": 10.0, "gamma": 5.0},
                                {"n_components": 2, "kernel_scale": "2sigma2", "sigma": 1.0}])
def test_ssfs_objective_non_increasing_real_data(emotions, scene, kw):
    for X, Y in (emotions, scene):
        m = SSFS(random_state=0, max_iter=100, **kw).fit(X, Y)
        obj = m.objective_
        assert obj.size == m.n_iter_ + 1 and m.n_iter_ >= 5
        # Multiplicative updates are majorise-minimise steps (the graph term as in graph-
        # regularised NMF, S symmetric and non-negative): non-increasing up to rounding.
        assert np.all(np.diff(obj) <= 1e-9 * obj[:-1]), np.diff(obj).max()
        assert obj[-1] < obj[0]
        for M in (m.V_, m.Q_, m.M_):
            assert np.all(M >= 0) and np.all(np.isfinite(M))


def test_ssfs_sparse_equals_dense_scaling_and_api(emotions):
    X, Y = emotions
    X0 = np.array(X, copy=True)
    Xs = sp.csr_matrix(np.where(X > np.median(X), X, 0.0))
    dense = SSFS(n_features_to_select=4, random_state=0, max_iter=20).fit(Xs.toarray(), Y)
    sparse = SSFS(n_features_to_select=4, random_state=0, max_iter=20).fit(Xs, Y)
    np.testing.assert_allclose(sparse.Q_, dense.Q_, rtol=1e-8, atol=1e-14)
    np.testing.assert_allclose(sparse.objective_, dense.objective_, rtol=1e-9)
    assert sp.issparse(sparse.transform(Xs)) and sparse.get_support().sum() == 4
    # scale=False on data already in [0, 1] is the scaled fit
    unscaled = SSFS(random_state=0, max_iter=20, scale=False).fit(_minmax_scale(X), Y)
    scaled = SSFS(random_state=0, max_iter=20).fit(X, Y)
    np.testing.assert_allclose(unscaled.Q_, scaled.Q_, rtol=1e-12)
    np.testing.assert_array_equal(np.asarray(X), X0)  # input not modified
    np.testing.assert_allclose(scaled.scores_, np.linalg.norm(scaled.Q_, axis=1))
    with pytest.raises(ValueError, match="X >= 0"):
        SSFS(scale=False).fit(-np.abs(np.asarray(X)) - 1, Y)
    with pytest.raises(ValueError, match="SSFS needs non-negative"):
        SSFS().fit(sp.csr_matrix(-np.abs(np.asarray(X)) - 1), Y)
    with pytest.raises(ValueError, match="kernel_scale"):
        SSFS(kernel_scale="sigma3").fit(X, Y)


def test_ssfs_fit_settings_bit_for_bit(emotions):
    """Sharing the graph, the scaled X and the initial iterates changes no bit of any fit."""
    X, Y = emotions
    est = SSFS(random_state=0, max_iter=10)
    settings = [{"alpha": 1.0}, {"gamma": 3.0}, {"n_components": 2}, {"n_neighbors": 3}]
    fits = list(fit_settings(est, X, Y, settings))
    for setting, m in zip(settings, fits, strict=True):
        fresh = clone(est).set_params(**setting).fit(X, Y)
        for name in ("Q_", "V_", "M_", "objective_", "selection_order_"):
            np.testing.assert_array_equal(getattr(m, name), getattr(fresh, name), err_msg=name)
    assert not np.array_equal(fits[0].Q_, fits[1].Q_)
