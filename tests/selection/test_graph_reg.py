"""Tests of SLOFS against a straightforward implementation of its steps.

The reference is written here from the equations (``docs/methods/sparse.md#slofs``):
dense matrices, the centred ``X`` formed explicitly, both graphs built by explicit loops
(the latent graph from the current ``E``, as the authors' code rebuilds it every
iteration), the largest Laplacian eigenvalue from a dense solver and the ``W`` step as one
``dk × dk`` linear system (the Kronecker form of its Sylvester-type equation). It runs on
real data (emotions, scene).
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as sla
import scipy.sparse as sp
from sklearn.base import clone

from skmlfs.selection import SLOFS
from skmlfs.selection._graph_reg import _latent_laplacian
from skmlfs.selection._sparse_learning import fit_settings

MATLAB_EPS = np.finfo(np.float64).eps


def _naive_heat_laplacian(Z, p, t):
    """Deng Cai's ``constructW`` (KNN, HeatKernel): weight ``exp(−d²/(2t²))`` to the ``p``
    nearest other rows (ties to the lower index), symmetrised by the maximum."""
    Z = np.asarray(Z, dtype=float)
    m = Z.shape[0]
    A = np.zeros((m, m))
    for i in range(m):
        cand = sorted((float(np.sum((Z[i] - Z[j]) ** 2)), j) for j in range(m) if j != i)
        for d2, j in cand[: min(p, m - 1)]:
            A[i, j] = np.exp(-d2 / (2 * t * t))
    S = np.maximum(A, A.T)
    return np.diag(S.sum(axis=1)) - S


def _slofs_reference(X, Y, n_iter, seed, k=2, alpha=0.1, beta=0.9, lambda1=1.0,
                     lambda2=0.1, delta=0.01, p=5, t=1e4, center=True, eps=MATLAB_EPS,
                     graph=None, update="exact"):
    """The steps (L2)–(L6), dense. ``graph = (Lx, λ_max(Lx))`` skips building the
    pattern graph (the benchmark passes it on data too large for the loops)."""
    X = np.asarray(X, dtype=float)
    Y = np.asarray(Y, dtype=float)
    n, d = X.shape
    q = Y.shape[1]
    Xc = X - X.mean(axis=0) if center else X
    if graph is None:
        Lx = _naive_heat_laplacian(X, p, t)
        graph = (Lx, np.linalg.eigvalsh(Lx)[-1])
    Lx = np.asarray(graph[0])
    u = lambda1 * graph[1]
    rs = np.random.RandomState(seed)
    E, B, V = rs.random_sample((n, k)), rs.random_sample((k, k)), rs.random_sample((k, q))
    W = np.ones((d, k))
    objs = []
    for it in range(n_iter):
        Z = np.maximum(E, 0)
        # The latent graph of the current E, as the authors' code rebuilds it (the
        # initial E is not orthonormal: the first iteration uses the graph of orthonormal
        # vectors). With k > p + 1 the neighbours of equidistant points are decided by
        # rounding; the library breaks those ties by index, as a graph of the unit
        # vectors does.
        LE = _naive_heat_laplacian((E if it and k <= p + 1 else np.eye(n, k)).T, p, t)
        P = (u * np.eye(n) - lambda1 * Lx) @ E + Xc @ W @ B + alpha * Y @ V.T + delta * Z
        Um, _, Vmt = np.linalg.svd(P, full_matrices=False)
        E = Um @ Vmt
        # B = argmax ⟨B, (EᵀXcW)ᵀ⟩ over orthogonal B; on a rank-deficient EᵀXcW (first
        # iteration, W = 1) the null part is the orthogonal map closest to the old B
        Ut, st, Vtt = np.linalg.svd(E.T @ Xc @ W)
        r = int(np.sum(st > 1e-9 * st[0]))
        Qn = Vtt[r:] @ B @ Ut[:, r:]
        Uq, _, Vqt = np.linalg.svd(Qn)
        B = Vtt[:r].T @ Ut[:, :r].T + Vtt[r:].T @ (Uq @ Vqt) @ Ut[:, r:].T
        D = np.diag(0.5 / np.sqrt(np.sum(W * W, axis=1) + eps))
        G = Xc.T @ Xc
        R = Xc.T @ E @ B.T
        if update == "exact":
            V = E.T @ Y
            # vec(G W + βDW + λ2 G W LE) = (I ⊗ (G + βD) + λ2 LEᵀ ⊗ G) vec(W), column-major
            K = np.kron(np.eye(k), G + beta * D) + lambda2 * np.kron(LE.T, G)
            W = np.linalg.solve(K, R.reshape(-1, order="F")).reshape((d, k), order="F")
        else:  # the authors' multiplicative updates
            V = V * (2 * E.T @ Y / (V + eps))
            W = W * (R / (G @ W + beta * D @ W + lambda2 * G @ W @ LE + eps))
        objs.append(
            np.linalg.norm(Xc @ W - E @ B.T) ** 2
            + alpha * np.linalg.norm(Y - E @ V) ** 2
            + lambda1 * np.trace(E.T @ Lx @ E)
            + lambda2 * np.trace(Xc @ W @ LE @ W.T @ Xc.T)
            + beta * np.sum(np.sqrt(np.sum(W * W, axis=1) + eps))
            + delta * np.linalg.norm(E - Z) ** 2
        )
    return W, E, B, V, np.array(objs)


def _well_conditioned(data, n=300, d=30):
    """The first ``n`` patterns and ``d`` features chosen by pivoted QR.

    The Gram matrix of all 72 emotions features has a condition number near 1e10; with the
    small ℓ2,1 ridge of the W step, two exact solvers then agree on ``XW`` and the
    objective but not on ``W`` along the near-null directions.
    """
    X, Y = np.asarray(data[0][:n], dtype=float), data[1][:n]
    piv = sla.qr(X - X.mean(axis=0), pivoting=True, mode="r")[1]
    return X[:, np.sort(piv[:d])], Y


def test_latent_graph_of_orthonormal_vectors():
    """Orthonormal vectors are equidistant: the graph is decided by the tie rule alone."""
    for k, p in ((2, 5), (6, 5), (7, 5), (9, 2), (4, 1)):
        ref = _naive_heat_laplacian(np.eye(k), p, 3.0)  # exact distances 2
        np.testing.assert_allclose(_latent_laplacian(k, p, 3.0), ref, rtol=1e-15)
    # any orthonormal frame gives the same complete graph when k ≤ p + 1
    Q = np.linalg.qr(np.random.default_rng(0).normal(size=(40, 4)))[0]
    np.testing.assert_allclose(_naive_heat_laplacian(Q.T, 5, 1.0),
                               _latent_laplacian(4, 5, 1.0), rtol=1e-12)


@pytest.mark.parametrize("kw, ref_kw", [
    ({}, {}),  # the demo's values, k = 2
    ({"n_components": 7, "n_neighbors": 3, "alpha": 1.0, "beta": 0.3, "lambda1": 2.0,
      "lambda2": 1.5, "delta": 0.5, "sigma": 2.0, "center": False},
     {"k": 7, "p": 3, "alpha": 1.0, "beta": 0.3, "lambda1": 2.0, "lambda2": 1.5,
      "delta": 0.5, "t": 2.0, "center": False}),
    ({"n_components": 4, "n_neighbors": 3, "lambda2": 3.0, "sigma": 0.8},
     {"k": 4, "p": 3, "lambda2": 3.0, "t": 0.8}),  # complete latent graph from E
    ({"update": "code"}, {"update": "code"}),
    ({"update": "code", "n_components": 5, "lambda2": 1.0, "center": False},
     {"update": "code", "k": 5, "lambda2": 1.0, "center": False}),
])
def test_slofs_matches_reference_on_emotions(emotions, kw, ref_kw):
    X, Y = _well_conditioned(emotions)
    m = SLOFS(random_state=3, max_iter=6, **kw).fit(X, Y)
    W, E, B, V, objs = _slofs_reference(X, Y, 6, 3, **ref_kw)
    assert m.n_iter_ == 6
    np.testing.assert_allclose(m.W_, W, rtol=1e-6, atol=1e-8 * np.abs(W).max())
    np.testing.assert_allclose(m.E_, E, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(m.V_, V, rtol=1e-6, atol=1e-8 * np.abs(V).max())
    np.testing.assert_allclose(m.objective_, objs, rtol=1e-8)
    np.testing.assert_array_equal(
        m.selection_order_, np.argsort(-np.linalg.norm(W, axis=1), kind="stable"))


def test_slofs_woodbury_branch_and_sparse_input(emotions):
    """d > n takes the n × n (push-through) solve; sparse X gives the dense fit."""
    X, Y = _well_conditioned(emotions, n=25, d=30)  # n = 25 < d = 30
    m = SLOFS(random_state=0, max_iter=5, n_components=3).fit(X, Y)
    W, E, B, V, objs = _slofs_reference(X, Y, 5, 0, k=3)
    np.testing.assert_allclose(m.W_, W, rtol=1e-6, atol=1e-8 * np.abs(W).max())
    np.testing.assert_allclose(m.objective_, objs, rtol=1e-8)
    m = SLOFS(random_state=0, max_iter=5, n_components=3, update="code").fit(X, Y)
    W, E, B, V, objs = _slofs_reference(X, Y, 5, 0, k=3, update="code")
    np.testing.assert_allclose(m.W_, W, rtol=1e-6, atol=1e-8 * np.abs(W).max())
    Xs = sp.csr_matrix(np.where(X > np.median(X), X, 0.0))
    for kw in ({}, {"n_components": 4, "center": False}, {"update": "code"}):
        dense = SLOFS(random_state=0, max_iter=5, **kw).fit(Xs.toarray(), Y)
        sparse = SLOFS(random_state=0, max_iter=5, **kw).fit(Xs, Y)
        np.testing.assert_allclose(sparse.W_, dense.W_, rtol=1e-7, atol=1e-10)
        np.testing.assert_allclose(sparse.objective_, dense.objective_, rtol=1e-9)
        np.testing.assert_array_equal(sparse.selection_order_, dense.selection_order_)
    # the d ≤ n branch with sparse input
    Xs = sp.csr_matrix(np.where(emotions[0] > np.median(emotions[0]), emotions[0], 0.0))
    dense = SLOFS(random_state=1, max_iter=4).fit(Xs.toarray(), emotions[1])
    sparse = SLOFS(random_state=1, max_iter=4).fit(Xs, emotions[1])
    np.testing.assert_allclose(sparse.W_, dense.W_, rtol=1e-7, atol=1e-10)
    assert sp.issparse(sparse.transform(Xs))


@pytest.mark.parametrize("kw", [{}, {"n_components": 6, "lambda2": 2.0},
                                {"n_components": 12, "beta": 5.0, "delta": 1.0},
                                {"center": False, "alpha": 2.0, "lambda1": 0.2}])
def test_slofs_objective_non_increasing_real_data(emotions, scene, kw):
    for X, Y in (emotions, scene):
        m = SLOFS(random_state=1, max_iter=25, **kw).fit(X, Y)
        obj = m.objective_
        assert obj.size == m.n_iter_ == 25
        # exact Z, B, V steps, a generalised power iteration for E and a majorise-minimise
        # W step: non-increasing up to rounding
        assert np.all(np.diff(obj) <= 1e-9 * obj[:-1]), np.diff(obj).max()
        assert obj[-1] < obj[0]
        assert np.all(np.isfinite(m.W_))
        np.testing.assert_allclose(m.E_.T @ m.E_, np.eye(m.E_.shape[1]), atol=1e-10)
        np.testing.assert_allclose(m.B_.T @ m.B_, np.eye(m.B_.shape[1]), atol=1e-10)


def test_slofs_code_updates_descend_less(emotions, scene):
    """The authors' multiplicative V and W updates stay finite but, with centred X, do
    not descend: after 10 iterations the exact steps reach a lower objective."""
    for X, Y in (emotions, scene):
        exact = SLOFS(random_state=0).fit(X, Y)
        code = SLOFS(random_state=0, update="code").fit(X, Y)
        assert np.all(np.isfinite(code.W_)) and np.all(np.isfinite(code.objective_))
        assert exact.objective_[-1] < code.objective_[-1]


def test_slofs_api_determinism_and_stopping(emotions):
    X, Y = emotions
    X0, Y0 = X.copy(), Y.copy()
    a = SLOFS(n_features_to_select=5, random_state=7).fit(X, Y)
    b = clone(a).fit(X, Y)
    np.testing.assert_array_equal(a.W_, b.W_)
    np.testing.assert_array_equal(X, X0)  # inputs not modified
    np.testing.assert_array_equal(Y, Y0)
    assert a.n_iter_ == 10 and a.get_support().sum() == 5
    np.testing.assert_allclose(a.scores_, np.linalg.norm(a.W_, axis=1))
    # a tolerance stops early, after at least two iterations
    c = SLOFS(random_state=7, max_iter=200, tol=1e-3).fit(X, Y)
    rel = np.abs(np.diff(c.objective_)) / np.abs(c.objective_[:-1])
    assert 2 <= c.n_iter_ < 200 and rel[-1] <= 1e-3 and np.all(rel[:-1] > 1e-3)
    # k is capped at min(n, d)
    small = SLOFS(n_components=50, random_state=0, max_iter=2).fit(X[:20, :10], Y[:20])
    assert small.W_.shape == (10, 10)
    with pytest.raises(ValueError, match="sigma"):
        SLOFS(sigma=0).fit(X, Y)


def test_slofs_refuses_a_dense_side_above_4_gib():
    """The W step needs a dense min(n, d)² matrix: refused clearly, before any work."""
    m = 23_171
    i = np.arange(1000)
    X = sp.csr_matrix((np.ones(1000), (i, i)), shape=(m, m))
    Y = np.zeros((m, 2), dtype=np.uint8)
    Y[::2, 0] = 1
    Y[1::3, 1] = 1
    with pytest.raises(ValueError, match="4 GiB"):
        SLOFS().fit(X, Y)


def test_largest_eigenvalue_lanczos_and_its_fallback(emotions, monkeypatch):
    """Lanczos gives λ_max of the pattern Laplacian; if it fails, twice the largest degree
    (an upper bound) keeps the E step a descent step."""
    import scipy.sparse.linalg as spla

    from skmlfs.selection import _graph_reg

    X, Y = emotions
    prep = SLOFS(random_state=0)._prepare(X, Y)
    L = prep["Lx"]
    assert L.shape[0] > _graph_reg._DENSE_EIG_MAX_N  # the Lanczos path
    np.testing.assert_allclose(prep["lmax"], np.linalg.eigvalsh(L.toarray())[-1], rtol=1e-10)

    def fail(*args, **kwargs):
        raise spla.ArpackNoConvergence("no convergence", np.zeros(0), np.zeros((0, 0)))

    monkeypatch.setattr(_graph_reg.spla, "eigsh", fail)
    bound = _graph_reg._largest_eigenvalue(L)
    assert bound == 2 * L.diagonal().max() >= prep["lmax"]
    m = SLOFS(random_state=0, max_iter=15).fit(X, Y)
    assert np.all(np.diff(m.objective_) <= 1e-9 * m.objective_[:-1])


def test_fit_settings_bit_for_bit(emotions):
    """Sharing the graphs, the Gram matrix and the initial iterates changes no bit."""
    X, Y = emotions
    est = SLOFS(random_state=0, max_iter=6)
    settings = [{"alpha": 0.5}, {"lambda2": 3.0, "beta": 0.1}, {"n_components": 4}]
    fits = list(fit_settings(est, X, Y, settings))
    for setting, m in zip(settings, fits, strict=True):
        fresh = clone(est).set_params(**setting).fit(X, Y)
        for name in ("W_", "E_", "B_", "V_", "objective_", "selection_order_"):
            np.testing.assert_array_equal(getattr(m, name), getattr(fresh, name), err_msg=name)
    assert not np.array_equal(fits[0].W_, fits[1].W_)
