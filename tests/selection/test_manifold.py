"""Tests of MDFS and SCMFS against straightforward implementations of their updates.

The references are written here from the equations (``docs/methods/sparse.md#mdfs``,
``#scmfs``): dense matrices, the ``n × n`` centring matrix and graph Laplacians built by
explicit loops, MDFS's ``F`` step by scipy's dense Sylvester solver, SCMFS's updates as
printed. They run on real data (emotions, scene).
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as sla
import scipy.sparse as sp
from sklearn.base import clone

from skmlfs.selection import MDFS, SCMFS
from skmlfs.selection._manifold import _binary_knn_graph, _shifted_pcg
from skmlfs.selection._sparse_learning import _laplacian, _minmax_scale, fit_settings

MATLAB_EPS = np.finfo(np.float64).eps


# ----------------------------------------------------------------------------- graph
def _naive_binary_laplacian(Z, p):
    """The authors' ``Laplacian_GK``: 0/1 weights to the p nearest rows (self excluded,
    ties to the lower index), symmetrised as (A + Aᵀ)/2, L = diag(row sums) − S."""
    Z = np.asarray(Z, dtype=float)
    m = Z.shape[0]
    A = np.zeros((m, m))
    for i in range(m):
        cand = sorted((float(np.sum((Z[i] - Z[j]) ** 2)), j) for j in range(m) if j != i)
        for _, j in cand[: min(p, m - 1)]:
            A[i, j] = 1.0
    S = (A + A.T) / 2
    return np.diag(S.sum(axis=1)) - S


def test_binary_graph_matches_loops_with_ties():
    rng = np.random.default_rng(0)
    Z = rng.integers(0, 3, size=(25, 4)).astype(float)  # many exactly tied distances
    Z[7] = Z[3]  # a duplicate row: distance 0
    for p in (1, 3, 30):
        L, deg = _laplacian(_binary_knn_graph(Z, p))
        np.testing.assert_array_equal(L.toarray(), _naive_binary_laplacian(Z, p))
        np.testing.assert_array_equal(deg, np.diag(_naive_binary_laplacian(Z, p)))
    # sparse rows give the same graph
    L_sp, _ = _laplacian(_binary_knn_graph(sp.csr_matrix(Z), 3))
    np.testing.assert_array_equal(L_sp.toarray(), _naive_binary_laplacian(Z, 3))


def test_shifted_conjugate_gradients_solve_every_column():
    rng = np.random.default_rng(1)
    Z = rng.normal(size=(60, 3))
    L, deg = _laplacian(_binary_knn_graph(Z, 4))
    shifts = np.array([0.5, 2.0, 7.0])
    B = rng.normal(size=(60, 3))
    B[:, 1] = 0.0  # a zero right-hand side stays zero
    X, _, ok = _shifted_pcg(L, deg, shifts, B, np.zeros_like(B))
    assert ok
    for j in range(3):
        ref = np.linalg.solve(L.toarray() + shifts[j] * np.eye(60), B[:, j])
        np.testing.assert_allclose(X[:, j], ref, rtol=1e-8, atol=1e-12)


# ----------------------------------------------------------------------------- MDFS
def _mdfs_reference(X, Y, n_iter, seed, alpha=1.0, beta=1.0, gamma=0.1, p=20, p0=None,
                    signed=True, eps=MATLAB_EPS):
    """The steps of the authors' MDFS code with dense matrices."""
    X = np.asarray(X, dtype=float)
    Y = np.asarray(Y, dtype=float)
    n, d = X.shape
    Yc = 2 * Y - 1 if signed else Y
    L = _naive_binary_laplacian(X, p)
    L0 = _naive_binary_laplacian(Y.T, p if p0 is None else p0)
    H = np.eye(n) - np.ones((n, n)) / n
    W = np.random.RandomState(seed).random_sample((d, Y.shape[1]))
    objs = []
    for _ in range(n_iter):
        # F step: (L + αH + αI) F + F (βL0) = αHXW + αY (a Sylvester equation)
        F = sla.solve_sylvester(L + alpha * H + alpha * np.eye(n), beta * L0,
                                alpha * H @ X @ W + alpha * Yc)
        D = np.diag(0.5 / np.sqrt(np.sum(W * W, axis=1) + eps))
        W = np.linalg.solve(alpha * X.T @ H @ X + gamma * D + eps * np.eye(d),
                            alpha * X.T @ H @ F)
        objs.append(
            np.trace(F.T @ L @ F)
            + alpha * np.linalg.norm(H @ X @ W - H @ F, "fro") ** 2
            + alpha * np.linalg.norm(F - Yc, "fro") ** 2
            + beta * np.trace(F @ L0 @ F.T)
            + gamma * np.sum(np.sqrt(np.sum(W * W, axis=1) + eps))
        )
    return W, F, np.array(objs)


@pytest.mark.parametrize("kw, ref_kw", [
    ({}, {}),  # the defaults: p = 20, a complete label graph (q − 1 = 5 < 20)
    ({"n_neighbors": 7, "label_neighbors": 2, "label_coding": "binary", "beta": 3.0,
      "gamma": 1.0}, {"p": 7, "p0": 2, "signed": False, "beta": 3.0, "gamma": 1.0}),
])
def test_mdfs_matches_reference_on_emotions(emotions, kw, ref_kw):
    X, Y = emotions
    m = MDFS(random_state=3, max_iter=6, tol=0, **kw).fit(X, Y)
    W, F, objs = _mdfs_reference(X, Y, 6, 3, **ref_kw)
    assert m.n_iter_ == 6
    np.testing.assert_allclose(m.F_, F, rtol=1e-6, atol=1e-8 * np.abs(F).max())
    np.testing.assert_allclose(m.W_, W, rtol=1e-6, atol=1e-8 * np.abs(W).max())
    np.testing.assert_allclose(m.objective_, objs, rtol=1e-8)
    np.testing.assert_array_equal(
        m.selection_order_, np.argsort(-np.linalg.norm(W, axis=1), kind="stable"))


def test_mdfs_woodbury_branch_and_sparse_input(emotions):
    """d > n takes the n × n (push-through) solve; sparse X is never densified."""
    X, Y = emotions
    X, Y = np.asarray(X[:50], dtype=float), Y[:50]  # n = 50 < d = 72
    m = MDFS(random_state=0, max_iter=5, tol=0, n_neighbors=5).fit(X, Y)
    W, F, objs = _mdfs_reference(X, Y, 5, 0, p=5)
    np.testing.assert_allclose(m.W_, W, rtol=1e-6, atol=1e-8 * np.abs(W).max())
    np.testing.assert_allclose(m.objective_, objs, rtol=1e-8)
    Xs = sp.csr_matrix(np.where(X > np.median(X), X, 0.0))
    dense = MDFS(random_state=0, max_iter=5, tol=0, n_neighbors=5).fit(Xs.toarray(), Y)
    sparse = MDFS(random_state=0, max_iter=5, tol=0, n_neighbors=5).fit(Xs, Y)
    # sparse and BLAS products sum in different orders; five iterations carry that
    # rounding to ~1e-9 of the largest weight
    np.testing.assert_allclose(sparse.W_, dense.W_, rtol=1e-7, atol=1e-8 * np.abs(dense.W_).max())
    np.testing.assert_array_equal(sparse.selection_order_, dense.selection_order_)


@pytest.mark.parametrize("kw", [{}, {"alpha": 0.1, "beta": 10.0, "gamma": 1.0},
                                {"label_coding": "binary", "label_neighbors": 2}])
def test_mdfs_objective_non_increasing_real_data(emotions, scene, kw):
    for X, Y in (emotions, scene):
        m = MDFS(random_state=1, max_iter=30, tol=1e-6, **kw).fit(X, Y)
        obj = m.objective_
        assert obj.size == m.n_iter_ >= 2
        # Exact F step and a majorise-minimise W step: non-increasing up to the conjugate-
        # gradient tolerance and rounding.
        assert np.all(np.diff(obj) <= 1e-9 * obj[:-1]), np.diff(obj).max()
        assert obj[-1] < obj[0]
        assert np.all(np.isfinite(m.W_))


def test_mdfs_api_determinism_and_stopping(emotions):
    X, Y = emotions
    X0 = X.copy()
    a = MDFS(n_features_to_select=5, random_state=7).fit(X, Y)
    b = clone(a).fit(X, Y)
    np.testing.assert_array_equal(a.W_, b.W_)
    np.testing.assert_array_equal(X, X0)  # input not modified
    # the authors' rule: stop after two or more iterations on a relative change < tol
    rel = np.abs(np.diff(a.objective_)) / np.abs(a.objective_[:-1])
    assert a.n_iter_ < 100 and rel[-1] < 1e-3 and np.all(rel[:-1] >= 1e-3)
    assert a.get_support().sum() == 5
    np.testing.assert_allclose(a.scores_, np.linalg.norm(a.W_, axis=1))
    with pytest.raises(ValueError, match="alpha"):
        MDFS(alpha=0).fit(X, Y)


# ----------------------------------------------------------------------------- SCMFS
def _scmfs_reference(X, Y, n_iter, seed, alpha=0.1, beta=0.1, gamma=0.1, k=None,
                     eps=1e-8, delta=1e-10):
    """The four multiplicative updates as printed, dense, on min-max scaled X."""
    X = np.asarray(X, dtype=float)
    rng_ = np.ptp(X, axis=0)
    X = (X - X.min(axis=0)) / np.where(rng_ > 0, rng_, np.inf)
    Y = np.asarray(Y, dtype=float)
    n, d = X.shape
    q = Y.shape[1]
    k = q if k is None else k
    rs = np.random.RandomState(seed)
    W, V = rs.random_sample((d, k)), rs.random_sample((n, k))
    Q, B = rs.random_sample((k, d)), rs.random_sample((k, q))

    def objective():
        return (np.linalg.norm(X @ W - V) ** 2 + alpha * np.linalg.norm(X - V @ Q) ** 2
                + beta * np.linalg.norm(Y - V @ B) ** 2
                + gamma * np.sum(np.sqrt(np.sum(W * W, axis=1) + eps)))

    objs = [objective()]
    for _ in range(n_iter):
        D = np.diag(1 / (2 * np.sqrt(np.sum(W * W, axis=1) + eps)))
        W = W * (X.T @ V) / (X.T @ X @ W + gamma * D @ W + delta)
        V = V * (X @ W + alpha * X @ Q.T + beta * Y @ B.T) / (
            V + alpha * V @ Q @ Q.T + beta * V @ B @ B.T + delta)
        Q = Q * (V.T @ X) / (V.T @ V @ Q + delta)
        B = B * (V.T @ Y) / (V.T @ V @ B + delta)
        objs.append(objective())
    return W, V, Q, B, np.array(objs)


@pytest.mark.parametrize("kw, ref_kw", [
    ({}, {}),
    ({"alpha": 1.0, "beta": 5.0, "gamma": 2.0, "n_components": 3},
     {"alpha": 1.0, "beta": 5.0, "gamma": 2.0, "k": 3}),
])
def test_scmfs_matches_reference_on_real_data(emotions, scene, kw, ref_kw):
    for X, Y in (emotions, scene):
        m = SCMFS(random_state=2, max_iter=15, tol=0, **kw).fit(X, Y)
        W, V, Q, B, objs = _scmfs_reference(X, Y, 15, 2, **ref_kw)
        for got, ref in ((m.W_, W), (m.V_, V), (m.Q_, Q), (m.B_, B)):
            np.testing.assert_allclose(got, ref, rtol=1e-7, atol=1e-12 * np.abs(ref).max())
        np.testing.assert_allclose(m.objective_, objs, rtol=1e-8)
        np.testing.assert_array_equal(
            m.selection_order_, np.argsort(-np.linalg.norm(W, axis=1), kind="stable"))


@pytest.mark.parametrize("kw", [{}, {"alpha": 1.0, "beta": 1.0, "gamma": 1.0},
                                {"n_components": 2, "gamma": 10.0}])
def test_scmfs_objective_non_increasing_real_data(emotions, scene, kw):
    for X, Y in (emotions, scene):
        m = SCMFS(random_state=0, max_iter=150, **kw).fit(X, Y)
        obj = m.objective_
        assert obj.size == m.n_iter_ + 1
        # Multiplicative updates are majorise-minimise steps: non-increasing up to the
        # rounding of the expanded ‖X − VQ‖² = ‖X‖² − 2⟨VᵀX, Q⟩ + ⟨VᵀV, QQᵀ⟩.
        assert np.all(np.diff(obj) <= 1e-9 * obj[:-1]), np.diff(obj).max()
        assert obj[-1] < obj[0]
        for M in (m.W_, m.V_, m.Q_, m.B_):
            assert np.all(M >= 0) and np.all(np.isfinite(M))


def test_scmfs_sparse_equals_dense_and_scaling(emotions):
    X, Y = emotions
    Xs = sp.csr_matrix(np.where(X > np.median(X), X, 0.0))
    dense = SCMFS(n_features_to_select=4, random_state=0, max_iter=20).fit(Xs.toarray(), Y)
    sparse = SCMFS(n_features_to_select=4, random_state=0, max_iter=20).fit(Xs, Y)
    np.testing.assert_allclose(sparse.W_, dense.W_, rtol=1e-8, atol=1e-14)
    np.testing.assert_allclose(sparse.objective_, dense.objective_, rtol=1e-9)
    assert sp.issparse(sparse.transform(Xs)) and sparse.get_support().sum() == 4
    # scale=False on data already in [0, 1] is the scaled fit
    unscaled = SCMFS(random_state=0, max_iter=20, scale=False).fit(_minmax_scale(X), Y)
    scaled = SCMFS(random_state=0, max_iter=20).fit(X, Y)
    np.testing.assert_allclose(unscaled.W_, scaled.W_, rtol=1e-12)
    with pytest.raises(ValueError, match="X >= 0"):
        SCMFS(scale=False).fit(-np.abs(np.asarray(X)) - 1, Y)
    with pytest.raises(ValueError, match="SCMFS needs non-negative"):
        SCMFS().fit(sp.csr_matrix(-np.abs(np.asarray(X)) - 1), Y)


# ----------------------------------------------------------------------------- fit_settings
@pytest.mark.parametrize("est, settings, names", [
    (MDFS(random_state=0, max_iter=8, n_neighbors=6),
     [{"alpha": 0.5}, {"beta": 4.0, "gamma": 1.0}, {"n_neighbors": 4}],
     ["W_", "F_", "objective_", "selection_order_"]),
    (SCMFS(random_state=0, max_iter=10),
     [{"alpha": 1.0}, {"gamma": 3.0}, {"n_components": 2}],
     ["W_", "V_", "Q_", "B_", "objective_", "selection_order_"]),
])
def test_fit_settings_bit_for_bit(emotions, est, settings, names):
    """Sharing the graphs, scaled X and initial iterates changes no bit of any fit."""
    X, Y = emotions
    fits = list(fit_settings(est, X, Y, settings))
    for setting, m in zip(settings, fits, strict=True):
        fresh = clone(est).set_params(**setting).fit(X, Y)
        for name in names:
            np.testing.assert_array_equal(getattr(m, name), getattr(fresh, name), err_msg=name)
    assert not np.array_equal(fits[0].W_, fits[1].W_)
