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

from skmlfs.datasets import load
from skmlfs.selection import MSSL
from skmlfs.selection._sparse_learning import fit_settings


def _load_mulan(dataset_path, name):
    ds = load(dataset_path(f"mulan/{name}/{name}.arff") if name != "scene"
              else dataset_path("mulan/scene/scene-train.arff"),
              labels=dataset_path(f"mulan/{name}/{name}.xml"))
    return ds.X, np.asarray(ds.Y, dtype=np.uint8)


@pytest.fixture(scope="module")
def emotions(dataset_path):
    return _load_mulan(dataset_path, "emotions")


@pytest.fixture(scope="module")
def scene(dataset_path):
    return _load_mulan(dataset_path, "scene")


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


def _naive_heat_affinity(Z, p, t):
    """exp(−‖z_i − z_j‖²/t) when j is among the p nearest of i or i among those of j."""
    m = np.asarray(Z).shape[0]
    S = np.zeros((m, m))
    for i, nbrs in enumerate(_naive_knn(Z, p)):
        for dist, j in nbrs:
            S[i, j] = S[j, i] = np.exp(-dist / t)
    return S


def _lap(S):
    return np.diag(S.sum(axis=1)) - S


# ----------------------------------------------------------------------------- MSSL
def _mssl_reference(X, Y, n_iter, alpha=1.0, beta=1.0, p=10, graph="binary", t=1.0,
                    eps=1e-8):
    """(L2)–(L3) with dense matrices, the explicit centring matrix and a loop-built
    feature graph; (L1) evaluated with the explicit bias."""
    X = np.asarray(X, dtype=float)
    Y = np.asarray(Y, dtype=float)
    n, d = X.shape
    S = _naive_binary_affinity(X.T, p) if graph == "binary" else _naive_heat_affinity(X.T, p, t)
    L = _lap(S)
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
