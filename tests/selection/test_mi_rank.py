"""MIRank: the relevance-only ranking (top-k by Σ_l I(f; l)), issue #14."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone

from skmlfs.experiments import resolve
from skmlfs.selection import AMI, MIRank


def _mi(a: np.ndarray, b: np.ndarray) -> float:
    """I(a; b) in bits from the joint frequency table, one pair at a time."""
    n = len(a)
    total = 0.0
    for va in np.unique(a):
        for vb in np.unique(b):
            pab = np.sum((a == va) & (b == vb)) / n
            if pab > 0:
                pa, pb = np.sum(a == va) / n, np.sum(b == vb) / n
                total += pab * np.log2(pab / (pa * pb))
    return total


def _reference(X: np.ndarray, Y: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    rel = np.array([sum(_mi(X[:, f], Y[:, j]) for j in range(Y.shape[1]))
                    for f in range(X.shape[1])])
    valid = np.array([len(np.unique(X[:, f])) > 1 for f in range(X.shape[1])])
    cand = [f for f in np.argsort(-rel, kind="stable") if valid[f]]
    # ties that differ only by rounding: order equal values by index
    cand = sorted(cand, key=lambda f: (-round(rel[f], 9), f))
    return np.array(cand[:k]), rel


def test_hand_example():
    # f0 copies label 0 (I = 1 bit with l0, 0 with l1); f1 copies both labels' XOR...
    Y = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 3)
    f0 = Y[:, 0]
    f1 = Y[:, 0] ^ Y[:, 1]  # independent of each label alone: relevance 0
    f2 = Y[:, 0] + 2 * Y[:, 1]  # determines both labels: 2 bits
    f3 = np.zeros(12, dtype=int)  # constant: never selected
    X = np.column_stack([f0, f1, f2, f3])
    sel = MIRank(n_features_to_select=3).fit(X, Y)
    assert sel.selection_order_.tolist() == [2, 0, 1]
    np.testing.assert_allclose(sel.scores_[sel.selection_order_], [2.0, 1.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(sel.scores_, sel.relevance_, atol=0)  # every feature
    np.testing.assert_allclose(sel.relevance_, [1.0, 0.0, 2.0, 0.0], atol=1e-12)
    with pytest.warns(UserWarning, match="zero entropy"):
        assert MIRank(n_features_to_select=4).fit(X, Y).selection_order_.tolist() == [2, 0, 1]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_matches_reference(seed):
    rng = np.random.default_rng(seed)
    n, d, q = 80, 15, 4
    Y = (rng.random((n, q)) < 0.4).astype(int)
    X = rng.integers(0, 3, size=(n, d))
    X[:, 3] = Y[:, 0] + Y[:, 1]  # strongly relevant
    X[:, 7] = X[:, 3]  # a redundant copy: ranked right after it (no redundancy term)
    X[:, 9] = 1  # constant
    k = 10
    sel = MIRank(n_features_to_select=k).fit(X, Y)
    ref, rel = _reference(X, Y, k)
    np.testing.assert_array_equal(sel.selection_order_, ref)
    np.testing.assert_allclose(sel.relevance_, rel, atol=1e-12)
    np.testing.assert_allclose(sel.scores_[sel.selection_order_], rel[ref], atol=1e-12)
    assert sel.selection_order_[:2].tolist() == [3, 7]
    # AMI penalises the copy; its first pick is the same
    ami = AMI(n_features_to_select=k).fit(X, Y)
    assert ami.selection_order_[0] == 3 and ami.selection_order_[1] != 7


def test_sparse_and_clone_and_registry():
    import scipy.sparse as sp

    rng = np.random.default_rng(3)
    X = (rng.random((60, 12)) < 0.3).astype(int)
    Y = (rng.random((60, 3)) < 0.5).astype(int)
    dense = MIRank(n_features_to_select=5).fit(X, Y)
    sparse = clone(dense).fit(sp.csr_matrix(X), Y)
    np.testing.assert_array_equal(dense.selection_order_, sparse.selection_order_)
    assert dense.transform(X).shape == (60, 5)
    assert resolve("selector", "mi_rank") is MIRank
    assert resolve("selector", "ami_relevance") is MIRank
