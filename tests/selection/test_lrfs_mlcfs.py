"""Tests of LRFS (against a naive entropy implementation) and MLCFS (against a literal merit)."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone

from skmlfs.datasets import load
from skmlfs.selection._lrfs import LRFS
from skmlfs.selection._mlcfs import MLCFS


def _H(*cols):
    rows = list(zip(*cols, strict=True))
    n = len(rows)
    return -sum(c / n * np.log2(c / n) for c in Counter(rows).values())


def _mi(a, b):
    return _H(a) + _H(b) - _H(a, b)


def _cmi(a, b, z):
    return _H(a, z) + _H(b, z) - _H(a, b, z) - _H(z)


def _lr(X, Y):
    q = Y.shape[1]
    return np.array(
        [
            sum(_cmi(X[:, f], Y[:, j], Y[:, i]) for i in range(q) for j in range(q) if j != i)
            for f in range(X.shape[1])
        ]
    )


def _lrfs_reference(X, Y, k):
    lr = _lr(X, Y)
    S: list[int] = []
    scores = []
    while len(S) < k:
        best, best_f = -np.inf, None
        for f in range(X.shape[1]):
            if f in S or _H(X[:, f]) == 0:
                continue
            J = lr[f] - (np.mean([_mi(X[:, f], X[:, s]) for s in S]) if S else 0.0)
            if J > best + 1e-12:
                best, best_f = J, f
        S.append(best_f)
        scores.append(best)
    return S, scores


# ----------------------------------------------------------------------------- LRFS
def test_lrfs_four_samples_by_hand():
    # 4 patterns, labels l0 = (0,0,1,1), l1 = (0,1,0,1); features f0 = l1, f1 = (0,0,0,1).
    Y = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    X = np.array([[0, 0], [1, 0], [0, 0], [1, 1]])
    # f0 = l1 and l0 ⟂ l1: I(f0; l1 | l0) = H(l1 | l0) = 1 bit, and I(f0; l0 | l1) = 0.
    # f1 = l0 AND l1: given l0 = 0 it is constant; given l0 = 1 it equals l1, so
    # I(f1; l1 | l0) = ½·1 = 0.5 and symmetrically I(f1; l0 | l1) = 0.5.
    # LR = (1, 1); the tie goes to f0, then J(f1) = 1 − I(f1; f0) = 1 − 0.311278 (bits).
    sel = LRFS(n_features_to_select=2).fit(X, Y)
    np.testing.assert_allclose(sel.relevance_, [1.0, 1.0], atol=1e-12)
    i_f1_f0 = 1.0 + (0.75 * np.log2(4 / 3) + 0.25 * 2) - 1.5  # H(f0)+H(f1)−H(f0,f1)
    np.testing.assert_allclose(_mi(X[:, 1], X[:, 0]), i_f1_f0)
    np.testing.assert_array_equal(sel.selection_order_, [0, 1])
    np.testing.assert_allclose(sel.step_scores_, [1.0, 1.0 - i_f1_f0], atol=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_lrfs_matches_naive_reference(seed):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(50, 9))
    X[:, 4] = 1  # zero entropy: never selected
    Y = (rng.random((50, 4)) < 0.5).astype(int)
    sel = LRFS(n_features_to_select=6).fit(X, Y)
    np.testing.assert_allclose(sel.relevance_, _lr(X, Y), atol=1e-10)
    S, scores = _lrfs_reference(X, Y, 6)
    np.testing.assert_array_equal(sel.selection_order_, S)
    np.testing.assert_allclose(sel.step_scores_, scores, atol=1e-10)
    sel_sp = clone(sel).fit(sp.csr_matrix(X), Y)
    np.testing.assert_array_equal(sel_sp.selection_order_, S)


def test_lrfs_real_data(dataset_path):
    ds = load(dataset_path("mulan/flags/flags.arff"))
    X, Y = ds.X, ds.Y
    sel = LRFS(n_features_to_select=5).fit(X, Y)
    assert len(set(sel.selection_order_)) == 5 and sel.transform(X).shape == (X.shape[0], 5)
    assert np.all(sel.relevance_ >= -1e-9)


# ----------------------------------------------------------------------------- MLCFS
def _merit(X, Y, S):
    k = len(S)

    def c(a, b):
        if np.std(a) == 0 or np.std(b) == 0:
            return 0.0
        return abs(np.corrcoef(a, b)[0, 1])

    r_fl = np.mean([c(X[:, f], Y[:, l]) for f in S for l in range(Y.shape[1])])
    pairs = [c(X[:, f], X[:, g]) for f, g in combinations(S, 2)]
    r_ff = np.mean(pairs) if pairs else 0.0
    return k * r_fl / np.sqrt(k + k * (k - 1) * r_ff)


def _mlcfs_reference(X, Y, k):
    S: list[int] = []
    scores = []
    while len(S) < k:
        cand = [(f, _merit(X, Y, S + [f])) for f in range(X.shape[1]) if f not in S]
        f, m = max(cand, key=lambda t: (t[1], -t[0]))
        S.append(f)
        scores.append(m)
    return S, scores


def test_mlcfs_by_hand():
    # Two labels; f0 = l0 (|corr| 1 with l0, 0 with l1), f1 constant, f2 = f0.
    Y = np.array([[0, 0], [1, 0], [0, 1], [1, 1]])
    X = np.array([[0, 3, 0], [1, 3, 1], [0, 3, 0], [1, 3, 1]], dtype=float)
    sel = MLCFS(n_features_to_select=3).fit(X, Y)
    # merit({f0}) = r_f0 = (1 + 0)/2 = 0.5 (ties with f2 → lower index f0).
    # Then merit({f0,f1}) = 0.5/sqrt(2) ; merit({f0,f2}) = 1/sqrt(2 + 2·1) = 0.5 → f2.
    np.testing.assert_array_equal(sel.selection_order_, [0, 2, 1])
    np.testing.assert_allclose(sel.step_scores_[:2], [0.5, 0.5], rtol=1e-12)
    np.testing.assert_allclose(sel.scores_[1], 1.0 / np.sqrt(3 + 2 * 1.0), rtol=1e-12)


@pytest.mark.parametrize("seed", [0, 1])
def test_mlcfs_matches_reference(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(40, 10))
    X[:, 3] = 2.0
    X[:, 7] = X[:, 1] + 0.1 * rng.normal(size=40)
    Y = (rng.random((40, 3)) < 0.4).astype(int)
    sel = MLCFS(n_features_to_select=7).fit(X, Y)
    S, scores = _mlcfs_reference(X, Y, 7)
    np.testing.assert_array_equal(sel.selection_order_, S)
    np.testing.assert_allclose(sel.step_scores_, scores, rtol=1e-9)
    Xs = np.abs(X) * (X > 0.2)
    a = MLCFS(n_features_to_select=5).fit(Xs, Y)
    b = MLCFS(n_features_to_select=5).fit(sp.csr_matrix(Xs), Y)
    np.testing.assert_array_equal(a.selection_order_, b.selection_order_)
    np.testing.assert_allclose(a.scores_, b.scores_, rtol=1e-9)  # NaN where not picked
