"""LLSF and MDDM against straightforward implementations of their definitions."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone

from skmlfs.learners import BinaryRelevance
from skmlfs.selection import LLSF, MDDM


def _problem(seed=0, n=120, d=15, q=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    Y = ((X[:, :q] + rng.normal(scale=0.6, size=(n, q))) > 0.4).astype(int)
    return X, Y


def ref_llsf(X, Y, alpha, beta, gamma, max_iter=100, tol=0.01):
    """The reference ``LLSF.m`` loop, written out with full products."""
    Y = Y.astype(float)
    d, q = X.shape[1], Y.shape[1]
    XtX, XtY = X.T @ X, X.T @ Y
    R = np.zeros((q, q))
    Ye = Y + np.finfo(float).eps
    for i in range(q):
        for j in range(q):
            R[i, j] = 1 - Ye[:, i] @ Ye[:, j] / (np.linalg.norm(Ye[:, i]) *
                                                  np.linalg.norm(Ye[:, j]))
    W = W_prev = np.linalg.inv(XtX + gamma * np.eye(d)) @ XtY
    Lip = np.sqrt(2 * (np.linalg.norm(XtX, 2) ** 2 + np.linalg.norm(alpha * R, 2) ** 2))
    b = b_prev = 1.0
    old = 0.0
    for _ in range(max_iter):
        Wk = W + (b_prev - 1) / b * (W - W_prev)
        G = Wk - (XtX @ Wk - XtY + alpha * Wk @ R) / Lip
        b_prev, b = b, (1 + np.sqrt(4 * b * b + 1)) / 2
        W_prev = W
        W = np.sign(G) * np.maximum(np.abs(G) - beta / Lip, 0)
        loss = (np.linalg.norm(X @ W - Y, "fro") ** 2 + alpha * np.trace(R @ W.T @ W)
                + beta * np.count_nonzero(W))
        if abs(old - loss) <= tol or loss <= 0:
            break
        old = loss
    return W


@pytest.mark.parametrize("beta", [0.01, 1.0, 10.0])
def test_llsf_matches_reference_loop(beta):
    X, Y = _problem()
    sel = LLSF(alpha=0.5, beta=beta, gamma=0.01).fit(X, Y)
    W = ref_llsf(X, Y, 0.5, beta, 0.01)
    np.testing.assert_allclose(sel.coef_, W, rtol=1e-8, atol=1e-10)
    for j in range(Y.shape[1]):
        nz = np.flatnonzero(W[:, j])
        expected = set(nz.tolist()) if nz.size else set(range(X.shape[1]))
        assert set(sel.label_features_[j].tolist()) == expected
    norms = np.linalg.norm(W, axis=1)
    np.testing.assert_allclose(sel.scores_, norms)  # scores_ indexed by feature
    np.testing.assert_array_equal(sel.selection_order_, np.lexsort((np.arange(W.shape[0]), -norms)))
    # sparse input gives the same solution
    np.testing.assert_allclose(LLSF(beta=beta).fit(sp.csr_matrix(X), Y).coef_, sel.coef_,
                               rtol=1e-8, atol=1e-10)


def test_llsf_sparsity_and_all_zero_columns():
    X, Y = _problem(1)
    dense = LLSF(beta=0.001).fit(X, Y)
    sparse_ = LLSF(beta=30.0).fit(X, Y)
    assert np.count_nonzero(sparse_.coef_) < np.count_nonzero(dense.coef_)
    huge = LLSF(beta=1e6).fit(X, Y)
    assert not huge.coef_.any()
    assert all(f.size == X.shape[1] for f in huge.label_features_)  # fallback: all features
    assert LLSF(beta=1.0, n_features_to_select=4).fit(X, Y).transform(X).shape == (120, 4)


def test_br_with_llsf_uses_label_specific_features():
    X, Y = _problem(2)
    br = BinaryRelevance(selector=LLSF(beta=5.0), random_state=0).fit(X, Y)
    for j in range(Y.shape[1]):
        f = br.selector_.label_features_[j]
        assert br.features_[j].tolist() == f.tolist()
        assert br.estimators_[j].coef_.shape[1] == f.size
    assert br.predict(X).shape == Y.shape


def _hsic_matrix(X, Y):
    """``X̃ᵀ H Y Yᵀ H X̃`` with the explicit centring matrix ``H``."""
    n = X.shape[0]
    H = np.eye(n) - np.ones((n, n)) / n
    Xc = H @ X
    Yk = Y[:, Y.sum(axis=0) > 0].astype(float)
    return Xc.T @ H @ Yk @ Yk.T @ H @ Xc


def test_mddm_projection_is_top_eigenspace_of_hsic_matrix():
    X, Y = _problem(3, q=5)
    Y[:, 2] = 0  # all-zero label column is removed
    m = MDDM(n_components=3).fit(X, Y)
    M = _hsic_matrix(X, Y)
    w, V = np.linalg.eigh(M)
    np.testing.assert_allclose(m.eigenvalues_, w[::-1][:3], rtol=1e-8)
    for c in range(3):  # distinct eigenvalues: the same vectors up to sign
        assert abs(m.components_[:, c] @ V[:, -1 - c]) == pytest.approx(1.0, abs=1e-8)
        big = np.argmax(np.abs(m.components_[:, c]))
        assert m.components_[big, c] > 0
    Xt = m.transform(X)
    np.testing.assert_allclose(Xt, (X - X.mean(axis=0)) @ m.components_, atol=1e-10)
    np.testing.assert_allclose(MDDM(n_components=3).fit(sp.csr_matrix(X), Y).transform(
        sp.csr_matrix(X)), Xt, atol=1e-8)
    assert MDDM(n_components=0.2).fit(X, Y).n_components_ == 3  # ⌈0.2·15⌉
    assert MDDM(n_components=1.0).fit(X, Y).transform(X).shape == X.shape


def test_mddm_uncorrelated_solves_generalized_problem():
    X, Y = _problem(4)
    mu = 0.5
    m = MDDM(n_components=2, variant="uncorrelated", mu=mu).fit(X, Y)
    M = _hsic_matrix(X, Y)
    Xc = X - X.mean(axis=0)
    B = (1 - mu) * Xc.T @ Xc + mu * np.eye(X.shape[1])
    for c in range(2):
        u, lam = m.components_[:, c], m.eigenvalues_[c]
        np.testing.assert_allclose(M @ u, lam * (B @ u), rtol=1e-6, atol=1e-6 * lam)
        assert np.linalg.norm(u) == pytest.approx(1.0)
    lam_all = np.sort(np.real(np.linalg.eigvals(np.linalg.solve(B, M))))[::-1]
    np.testing.assert_allclose(m.eigenvalues_, lam_all[:2], rtol=1e-6)


def test_br_with_mddm_and_errors():
    X, Y = _problem(5)
    br = BinaryRelevance(selector=MDDM(n_components=4), random_state=0).fit(X, Y)
    assert all(e.coef_.shape[1] == 4 for e in br.estimators_)
    assert br.predict(X).shape == Y.shape
    assert clone(br).get_params()["selector"].get_params() == MDDM(4).get_params()
    with pytest.raises(ValueError, match="variant"):
        MDDM(variant="kernel").fit(X, Y)
    with pytest.raises(ValueError, match="beta"):
        LLSF(beta=-1).fit(X, Y)


def test_flat_parameter_learners_equal_br_with_selector():
    from skmlfs.learners import LLSFClassifier, MDDMClassifier

    X, Y = _problem(6)
    a = LLSFClassifier(beta=2.0, random_state=0).fit(X, Y)
    b = BinaryRelevance(selector=LLSF(beta=2.0), random_state=0).fit(X, Y)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    np.testing.assert_allclose(a.selector_.coef_, b.selector_.coef_)
    c = MDDMClassifier(n_components=0.2, random_state=0).fit(X, Y)
    e = BinaryRelevance(selector=MDDM(0.2), random_state=0).fit(X, Y)
    np.testing.assert_allclose(c.predict_proba(X), e.predict_proba(X))
    assert clone(c).get_params()["n_components"] == 0.2
