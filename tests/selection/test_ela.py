"""ELA+χ² against a hand-worked table and a straightforward implementation that makes the
weighted copies, as ``ela_chi.m`` of CAU-AIR-Lab/PMU does."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest
import scipy.io as sio
import scipy.sparse as sp
from sklearn.base import clone

from skmlfs.datasets import load
from skmlfs.info import DiscreteData
from skmlfs.selection import ELACHI, _ela
from skmlfs.selection._ela import ela_weights, weighted_chi2_scores
from skmlfs.selection._ppt_filters import chi2_scores


# ----------------------------------------------------------------------------- reference
def _naive_ela_chi2(X, Y):
    """χ² of every column on the ELA copies, built one copy at a time.

    Labels without a positive example are dropped; each pattern is copied once per label
    it carries with weight 1/|labels|; the weighted table runs over the values met in the
    copies and the labels; every cell enters the sum (all expected counts are positive).
    """
    X, Y = np.asarray(X), np.asarray(Y)
    Y = Y[:, Y.sum(axis=0) > 0]
    copies = []  # (row, label, weight)
    for i in range(Y.shape[0]):
        labels = np.flatnonzero(Y[i])
        copies += [(i, int(lab), 1.0 / labels.size) for lab in labels]
    out = np.zeros(X.shape[1])
    if not copies:
        return out
    for j in range(X.shape[1]):
        tab: dict = defaultdict(float)
        for i, lab, w in copies:
            tab[(X[i, j], lab)] += w
        values = sorted({v for v, _ in tab})
        labels = sorted({lab for _, lab in tab})
        total = sum(tab.values())
        row = {v: sum(tab[(v, lab)] for lab in labels) for v in values}
        col = {lab: sum(tab[(v, lab)] for v in values) for lab in labels}
        chi = 0.0
        for v in values:
            for lab in labels:
                e = row[v] * col[lab] / total
                chi += (tab[(v, lab)] - e) ** 2 / e
        out[j] = chi
    return out


def _data(seed, n=70, d=9, q=4):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(n, d))
    X[:, 2] = 1  # constant feature
    X[:, 5] = X[:, 4]  # duplicate: an exact tie
    X[:, 6] = rng.integers(0, 2, size=n)
    Y = (rng.random((n, q)) < 0.35).astype(int)
    Y[:, 1] = 0  # a label without positives
    Y[:5] = 0  # patterns without labels
    return X, Y


# ----------------------------------------------------------------------------- tests
def test_ela_hand_worked():
    # x = (0, 0, 1, 1); label sets {0}, {0, 1}, {1}, {} → weights 1, ½ + ½, 1, nothing.
    #   O: v=0 → (1.5, 0.5), v=1 → (0, 1); r = (2, 1), s = (1.5, 1.5), T = 3
    #   E: v=0 → (1, 1), v=1 → (0.5, 0.5)
    #   χ² = 0.25 + 0.25 + 0.5 + 0.5 = 1.5
    # a constant column scores 0.
    X = np.array([[0, 7], [0, 7], [1, 7], [1, 7]])
    Y = np.array([[1, 0], [1, 1], [0, 1], [0, 0]])
    W = ela_weights(Y).toarray()
    np.testing.assert_allclose(W, [[1, 0], [0.5, 0.5], [0, 1], [0, 0]])
    chi = weighted_chi2_scores(DiscreteData.from_array(X), W)
    np.testing.assert_allclose(chi, [1.5, 0.0], atol=1e-15)
    sel = ELACHI(n_features_to_select=2).fit(X, Y)
    np.testing.assert_array_equal(sel.selection_order_, [0, 1])
    assert sel.n_labelled_ == 3


@pytest.mark.filterwarnings("ignore:.*no positive example")
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ela_matches_naive_copies(seed):
    X, Y = _data(seed)
    sel = ELACHI(n_features_to_select=1.0).fit(X, Y)
    ref = _naive_ela_chi2(X, Y)
    np.testing.assert_allclose(sel.feature_scores_, ref, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(sel.scores_, sel.feature_scores_)
    # ranking: decreasing χ², the exact tie (duplicate columns 4, 5) by lower index
    assert list(sel.selection_order_).index(4) < list(sel.selection_order_).index(5)
    np.testing.assert_array_equal(
        sel.selection_order_, np.lexsort((np.arange(X.shape[1]), -np.round(ref, 9)))
    )
    assert sel.scores_[2] == 0.0
    # sparse features, sparse labels: the same scores
    sel_sp = clone(sel).fit(sp.csr_matrix(X), sp.csr_matrix(Y))
    np.testing.assert_allclose(sel_sp.feature_scores_, sel.feature_scores_, atol=1e-12)
    np.testing.assert_array_equal(sel_sp.selection_order_, sel.selection_order_)


@pytest.mark.filterwarnings("ignore:.*no positive example")
def test_blocks_give_the_same_scores(monkeypatch):
    X, Y = _data(5, d=12)
    D = DiscreteData.from_array(X)
    W = ela_weights(Y)
    whole = weighted_chi2_scores(D, W)
    monkeypatch.setattr(_ela, "_BLOCK_NNZ", 7)  # a few variables per block
    np.testing.assert_allclose(weighted_chi2_scores(D, W), whole, rtol=1e-12, atol=1e-13)
    Ds = DiscreteData.from_array(sp.csc_matrix(X), dense=False)
    np.testing.assert_allclose(weighted_chi2_scores(Ds, W), whole, rtol=1e-12, atol=1e-13)


def test_one_hot_weights_give_the_ordinary_chi2():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 3, size=(50, 6))
    c = rng.integers(0, 4, size=50)
    onehot = np.eye(4)[c]
    D = DiscreteData.from_array(X)
    np.testing.assert_allclose(weighted_chi2_scores(D, onehot), chi2_scores(D, c), rtol=1e-12)


def test_no_labelled_pattern_scores_zero():
    X = np.array([[0, 1], [1, 0], [1, 1]])
    Y = np.zeros((3, 2), dtype=int)
    with pytest.warns(UserWarning):  # empty label columns
        sel = ELACHI(n_features_to_select=2).fit(X, Y)
    np.testing.assert_array_equal(sel.feature_scores_, [0.0, 0.0])
    np.testing.assert_array_equal(sel.selection_order_, [0, 1])
    assert sel.n_labelled_ == 0


def test_ela_on_real_data(dataset_path):
    """Flags (19 nominal/numeric features, 7 labels) and the first PLCFS split of genbase
    (every feature, raw binary values) against the copies made one by one."""
    ds = load(dataset_path("mulan/flags/flags.arff"))
    sel = ELACHI(n_features_to_select=1.0, discretizer=None).fit(ds.X, ds.Y)
    ref = _naive_ela_chi2(ds.X, ds.Y)
    np.testing.assert_allclose(sel.feature_scores_, ref, rtol=1e-10, atol=1e-10)
    m = sio.loadmat(dataset_path("plcfs/genbase.mat"))
    tr = m["sim_seq"][:, 0] == 1
    X, Y = m["data"][tr][:, :300], m["answer"][tr]
    sel = ELACHI(n_features_to_select=1.0).fit(X, Y)
    ref = _naive_ela_chi2(X, Y)
    np.testing.assert_allclose(sel.feature_scores_, ref, rtol=1e-10, atol=1e-9)
    assert sorted(sel.selection_order_) == list(range(300))


def test_rare_value_zero_is_summed_cell_by_cell():
    """Value 0 (the most frequent overall) carries under 1/1000 of the labelled weight: its
    row is summed cell by cell, and the scores still match the copies."""
    rng = np.random.default_rng(11)
    n0, n1 = 2000, 1500
    X = np.vstack([np.zeros((n0, 5), dtype=int), rng.integers(1, 4, size=(n1, 5))])
    Y = np.zeros((n0 + n1, 3), dtype=int)
    Y[n0 - 1] = [1, 1, 0]  # the one labelled pattern with value 0
    Y[n0:] = rng.random((n1, 3)) < 0.4
    Y[n0:, 2] |= Y[n0:].sum(axis=1) == 0  # every later pattern has a label
    D = DiscreteData.from_array(X)
    W = ela_weights(Y)
    assert 1.0 / W.sum() < 1e-3  # r_0 / T: value 0 is met in one pattern of weight 1
    sel = ELACHI(n_features_to_select=1.0, discretizer=None).fit(X, Y)
    np.testing.assert_allclose(sel.feature_scores_, _naive_ela_chi2(X, Y), rtol=1e-10)
    np.testing.assert_allclose(weighted_chi2_scores(D, W), sel.feature_scores_, rtol=1e-12)
