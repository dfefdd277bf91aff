"""Tests of PPT+MI and PPT+CHI against hand-worked tables and naive references."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone

from skmlfs.datasets import load
from skmlfs.info import DiscreteData
from skmlfs.selection._ppt_filters import PPTCHI, PPTMI, chi2_scores


# ----------------------------------------------------------------------------- references
def _naive_ppt(Y, tau):
    """Label-powerset classes of the patterns whose label set occurs >= tau times."""
    sets = [tuple(r) for r in np.asarray(Y)]
    cnt = Counter(sets)
    keep = [i for i, s in enumerate(sets) if cnt[s] >= tau]
    if not keep:
        keep = list(range(len(sets)))
    ids: dict = {}
    classes = [ids.setdefault(sets[i], len(ids)) for i in keep]
    return np.array(keep), np.array(classes)


def _naive_H(*cols):
    rows = list(zip(*cols, strict=True))
    n = len(rows)
    return -sum(c / n * np.log2(c / n) for c in Counter(rows).values())


def _naive_mi(a, b):
    return _naive_H(a) + _naive_H(b) - _naive_H(a, b)


def _naive_chi2(x, c):
    x, c = list(x), list(c)
    N = len(x)
    nv, nc, o = Counter(x), Counter(c), Counter(zip(x, c, strict=True))
    total = 0.0
    for v in nv:
        for k in nc:
            e = nv[v] * nc[k] / N
            total += (o[(v, k)] - e) ** 2 / e
    return total


def _data(seed, n=60, d=8, q=3):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(n, d))
    X[:, 2] = 0  # constant feature
    X[:, 5] = rng.integers(0, 2, size=n)
    Y = (rng.random((n, q)) < 0.5).astype(int)
    return X, Y


# ----------------------------------------------------------------------------- χ²
def test_chi2_by_hand():
    # x = (0,0,1,1,1,0), classes (0,0,0,1,1,1):
    #   table v=0: (2, 1), v=1: (1, 2); every E = 3·3/6 = 1.5
    #   χ² = 4 · 0.5² / 1.5 = 2/3.
    # y = (5,5,7,7,9,9) against the same classes:
    #   rows (2,0), (1,1), (0,2); E = 1 everywhere → χ² = 1+1+0+0+1+1 = 4.
    X = np.array([[0, 5], [0, 5], [1, 7], [1, 7], [1, 9], [0, 9]])
    c = np.array([0, 0, 0, 1, 1, 1])
    chi = chi2_scores(DiscreteData.from_array(X), c)
    np.testing.assert_allclose(chi, [2 / 3, 4.0], rtol=1e-12)
    chi_sp = chi2_scores(DiscreteData.from_array(sp.csr_matrix(X)), c)
    np.testing.assert_allclose(chi_sp, chi, rtol=1e-12)


def test_chi2_matches_naive_random():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 4, size=(80, 10))
    X[:, 3] = 2
    c = rng.integers(0, 5, size=80)
    ref = [_naive_chi2(X[:, j], c) for j in range(X.shape[1])]
    np.testing.assert_allclose(chi2_scores(DiscreteData.from_array(X), c), ref, rtol=1e-10)


@pytest.mark.parametrize("tau", [1, 3, 6])
def test_pptchi_matches_reference(tau):
    X, Y = _data(tau)
    sel = PPTCHI(n_features_to_select=1.0, min_support=tau).fit(X, Y)
    rows, cls = _naive_ppt(Y, tau)
    ref = np.array([_naive_chi2(X[rows, j], cls) for j in range(X.shape[1])])
    np.testing.assert_allclose(sel.feature_scores_, ref, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(sel.selection_order_, np.argsort(-ref, kind="stable"))
    assert sel.n_pruned_rows_ == rows.size
    sel_sp = clone(sel).fit(sp.csr_matrix(X), Y)
    np.testing.assert_array_equal(sel_sp.selection_order_, sel.selection_order_)


# ----------------------------------------------------------------------------- MI
@pytest.mark.parametrize("tau", [1, 4])
def test_pptmi_rank_matches_reference(tau):
    X, Y = _data(10 + tau)
    sel = PPTMI(n_features_to_select=5, min_support=tau).fit(X, Y)
    rows, cls = _naive_ppt(Y, tau)
    ref = np.array([_naive_mi(X[rows, j], cls) for j in range(X.shape[1])])
    np.testing.assert_allclose(sel.feature_scores_, ref, atol=1e-12)
    np.testing.assert_array_equal(sel.selection_order_, np.argsort(-ref, kind="stable")[:5])
    assert sel.get_support().sum() == 5
    assert sel.transform(X).shape == (X.shape[0], 5)


def test_pptmi_mrmr_matches_reference():
    X, Y = _data(3, n=70, d=9)
    sel = PPTMI(n_features_to_select=9, search="mrmr", min_support=2).fit(X, Y)
    rows, cls = _naive_ppt(Y, 2)
    Xp = X[rows]
    rel = np.array([_naive_mi(Xp[:, j], cls) for j in range(X.shape[1])])
    S: list[int] = []
    while len(S) < X.shape[1]:
        best, best_j = -np.inf, None
        for j in range(X.shape[1]):
            if j in S:
                continue
            J = rel[j] - (np.mean([_naive_mi(Xp[:, j], Xp[:, s]) for s in S]) if S else 0.0)
            if J > best + 1e-12:  # strictly better; ties keep the lower index
                best, best_j = J, j
        S.append(best_j)
    np.testing.assert_array_equal(sel.selection_order_, S)


def test_ppt_reintroduce_and_params():
    X, Y = _data(4)
    a = PPTMI(n_features_to_select=1.0, min_support=8, strategy="reintroduce").fit(X, Y)
    b = PPTMI(n_features_to_select=1.0, min_support=8).fit(X, Y)
    assert a.n_pruned_rows_ >= b.n_pruned_rows_
    with pytest.raises(ValueError, match="search"):
        PPTMI(search="kraskov").fit(X, Y)
    with pytest.raises(ValueError, match="min_support"):
        PPTCHI(min_support=0).fit(X, Y)
    with pytest.raises(ValueError, match="strategy"):
        PPTCHI(strategy="keep").fit(X, Y)


def test_ppt_filters_on_real_data(dataset_path):
    ds = load(dataset_path("mulan/flags/flags.arff"))
    X, Y = ds.X, ds.Y
    assert X.shape == (194, 19) and Y.shape == (194, 7)
    for Sel in (PPTMI, PPTCHI):
        sel = Sel(n_features_to_select=1.0).fit(X, Y)
        assert sorted(sel.selection_order_) == list(range(19))
        assert np.all(np.diff(sel.scores_[sel.selection_order_]) <= 0)
        np.testing.assert_array_equal(sel.scores_, sel.feature_scores_)
        assert np.all(sel.feature_scores_ >= -1e-12)


def test_every_pattern_pruned_warns_and_says_why_the_scores_tie():
    # eight patterns, eight distinct label sets: nothing reaches min_support, so nothing
    # is pruned and every pattern is its own class
    rng = np.random.default_rng(0)
    Y = np.eye(8, dtype=int)
    X = rng.integers(0, 2, size=(8, 5))
    X[:, 4] = 0  # constant
    with pytest.warns(UserWarning, match="every pattern its own class"):
        chi = PPTCHI(n_features_to_select=1.0).fit(X, Y)
    # χ² of a feature against a class per row is n for every non-constant feature
    informative = X.std(axis=0) > 0
    np.testing.assert_allclose(chi.scores_[informative], 8.0)
    with pytest.warns(UserWarning, match="nothing is pruned"):
        mi = PPTMI(n_features_to_select=1.0).fit(X, Y)
    for j in np.flatnonzero(informative):
        np.testing.assert_allclose(mi.scores_[j], _naive_H(X[:, j]), atol=1e-12)
    # repeated label sets below the threshold: the fallback warns without the tie remark
    Y2 = np.repeat(np.eye(4, dtype=int), 2, axis=0)
    with pytest.warns(UserWarning, match="nothing is pruned") as rec:
        PPTCHI(n_features_to_select=1.0).fit(X, Y2)
    assert not any("its own class" in str(w.message) for w in rec)
