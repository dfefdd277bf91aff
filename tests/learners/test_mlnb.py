"""Tests for skmlfs.learners.MLNB (docs/methods/lazy.md#mlnb)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.feature_selection import VarianceThreshold
from sklearn.naive_bayes import CategoricalNB
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OrdinalEncoder

from skmlfs.learners import MLNB

# hand-worked example: 4 patterns, 2 binary features, 1 label (N1 = 3, N0 = 1)
XH = np.array([[0, 1], [0, 0], [1, 1], [1, 0]])
YH = np.array([[1], [1], [1], [0]])


class TestHandWorked:
    def test_laplace_posterior(self):
        # α = 1: P(x0=1|1) = 2/5, P(x1=0|1) = 2/5, P(x0=1|0) = 2/3, P(x1=0|0) = 2/3.
        # p1 = 3/4·2/5·2/5 = 0.12, p0 = 1/4·2/3·2/3 = 1/9  ->  ψ = 0.12/(0.12 + 1/9) = 27/52.
        m = MLNB().fit(XH, YH)
        assert m.predict_proba([[1, 0]])[0, 0] == pytest.approx(27 / 52)
        assert m.predict([[1, 0]])[0, 0] == 1

    def test_unsmoothed_posterior(self):
        # α = 0: p1 = 3/4·1/3·1/3 = 1/12, p0 = 1/4·1·1 = 1/4  ->  ψ = 1/4.
        m = MLNB(alpha=0).fit(XH, YH)
        P = m.predict_proba([[1, 0], [0, 0], [0, 1]])
        assert P[0, 0] == pytest.approx(0.25)
        # x0 = 0 was never seen with class 0: zero likelihood -> ψ = 1.
        assert P[1, 0] == 1.0 and P[2, 0] == 1.0
        assert m.predict([[1, 0]])[0, 0] == 0

    def test_unseen_value(self):
        # value 2 of feature 0 is not in V_0 = {0, 1}
        assert MLNB().fit(XH, YH).predict_proba([[2, 0]])[0, 0] == 0.0
        assert MLNB().fit(XH, YH).predict([[2, 0]])[0, 0] == 0
        # "ignore" drops feature 0: p1 = 3/4·2/5 = 0.3, p0 = 1/4·2/3 = 1/6 -> 9/14.
        m = MLNB(handle_unseen="ignore").fit(XH, YH)
        assert m.predict_proba([[2, 0]])[0, 0] == pytest.approx(9 / 14)

    def test_unseen_zero_of_sparse_feature(self):
        # feature 1 is never 0 in training; a test 0 there is an unseen value.
        X = np.array([[0, 1], [1, 2], [0, 2]])
        Y = np.array([[1], [0], [1]])
        m = MLNB().fit(sp.csr_matrix(X), Y)
        assert m.predict_proba(sp.csr_matrix([[0, 0]]))[0, 0] == 0.0
        assert m.predict_proba(np.array([[0, 1]]))[0, 0] > 0.0
        assert [list(c) for c in m.categories_] == [[0.0, 1.0], [1.0, 2.0]]

    def test_tie_goes_to_zero(self):
        m = MLNB().fit([[0], [0]], [[1], [0]])
        assert m.predict_proba([[0]])[0, 0] == 0.5
        assert m.predict([[0]])[0, 0] == 0

    def test_zero_over_zero_posterior_is_zero(self):
        # label 0: value 1 only with class 1 (f0) ... and value 1 only with class 0 (f1).
        X = np.array([[1, 0], [0, 1], [0, 0], [0, 0]])
        Y = np.array([[1], [0], [1], [0]])
        m = MLNB(alpha=0).fit(X, Y)
        assert m.predict_proba([[1, 1]])[0, 0] == 0.0
        assert m.predict([[1, 1]])[0, 0] == 0

    def test_single_class_labels(self):
        X = np.array([[0], [1], [1], [0]])
        Y = np.array([[0, 1, 1], [0, 1, 0], [0, 1, 1], [0, 1, 0]])
        m = MLNB().fit(X, Y)
        P, Pr = m.predict_proba([[0], [1]]), m.predict([[0], [1]])
        assert np.all(P[:, 0] == 0) and np.all(Pr[:, 0] == 0)
        assert np.all(P[:, 1] == 1) and np.all(Pr[:, 1] == 1)
        assert [list(c) for c in m.classes_] == [[0], [1], [0, 1]]
        bug = MLNB(reference_single_class_bug=True).fit(X, Y)
        P, Pr = bug.predict_proba([[0], [1]]), bug.predict([[0], [1]])
        # the reference reads the only posterior column: confidence 1, prediction 0
        assert np.all(P[:, 0] == 1) and np.all(Pr[:, 0] == 0)
        assert np.all(P[:, 1] == 1) and np.all(Pr[:, 1] == 1)
        np.testing.assert_array_equal(P[:, 2], m.predict_proba([[0], [1]])[:, 2])


# ---------------------------------------------------------------------------
# straightforward reference: loops over labels, test patterns and features
# ---------------------------------------------------------------------------


def naive_mlnb(Xtr, Ytr, Xte, alpha, handle_unseen="zero", bug=False):
    n, d = Xtr.shape
    V = [set(Xtr[:, f].tolist()) for f in range(d)]
    out = np.zeros((len(Xte), Ytr.shape[1]))
    for l in range(Ytr.shape[1]):
        y = Ytr[:, l]
        counts = {0: int((y == 0).sum()), 1: int((y == 1).sum())}
        for i, x in enumerate(Xte):
            unseen = [x[f] not in V[f] for f in range(d)]
            if any(unseen) and handle_unseen == "zero":
                continue  # confidence 0
            if counts[0] == 0:
                out[i, l] = 1.0
                continue
            if counts[1] == 0:
                out[i, l] = 1.0 if bug else 0.0
                continue
            logp = {}
            for c in (0, 1):
                lp = math.log(counts[c] / n)
                for f in range(d):
                    if unseen[f]:
                        continue
                    cnt = sum(1 for j in range(n) if Xtr[j, f] == x[f] and y[j] == c)
                    lik = (cnt + alpha) / (counts[c] + alpha * len(V[f]))
                    if lik == 0:
                        lp = -math.inf
                        break
                    lp += math.log(lik)
                logp[c] = lp
            if logp[0] == logp[1] == -math.inf:
                continue
            if logp[1] == -math.inf:
                continue
            out[i, l] = 1.0 / (1.0 + math.exp(logp[0] - logp[1])) if logp[0] > -math.inf else 1.0
    return out


def _random_discrete(seed, n=40, d=5, q=4, n_test=25):
    rng = np.random.default_rng(seed)
    levels = [0.0, 1.0, 2.0, -1.5]
    Xtr = rng.choice(levels[:3], size=(n, d), p=[0.5, 0.3, 0.2])
    Xtr[:, 0] = rng.choice([1.0, 2.0], size=n)  # never 0: an implicit 0 is unseen
    Xte = rng.choice(levels, size=(n_test, d), p=[0.5, 0.3, 0.17, 0.03])
    Xte[:3, 0] = rng.choice([1.0, 2.0], size=3)
    Ytr = (rng.random((n, q)) < 0.4).astype(int)
    Ytr[:, 0] = 0  # single-class labels
    Ytr[:, 1] = 1
    return Xtr, Ytr, Xte


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("alpha", [1.0, 0.0, 0.5])
@pytest.mark.parametrize("handle_unseen", ["zero", "ignore"])
@pytest.mark.parametrize("bug", [False, True])
def test_matches_naive_reference(seed, alpha, handle_unseen, bug):
    Xtr, Ytr, Xte = _random_discrete(seed)
    m = MLNB(alpha=alpha, handle_unseen=handle_unseen, reference_single_class_bug=bug)
    P = m.fit(Xtr, Ytr).predict_proba(Xte)
    ref = naive_mlnb(Xtr, Ytr, Xte, alpha, handle_unseen, bug)
    np.testing.assert_allclose(P, ref, rtol=1e-10, atol=1e-12)
    # sparse training and/or test input give exactly the same result
    for a, b in ((sp.csr_matrix(Xtr), Xte), (Xtr, sp.csc_matrix(Xte)),
                 (sp.csc_matrix(Xtr), sp.csr_matrix(Xte))):
        np.testing.assert_array_equal(clone(m).fit(a, Ytr).predict_proba(b), P)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("alpha", [1.0, 0.5])
def test_matches_categorical_nb_per_label(seed, alpha):
    rng = np.random.default_rng(seed)
    n, d, q = 300, 8, 5
    pools = [rng.choice([-3.0, 0.0, 0.5, 1.0, 2.0, 7.0, 11.0], size=rng.integers(2, 6),
                        replace=False) for _ in range(d)]
    X = np.column_stack([rng.choice(p, size=n) for p in pools])
    Y = (rng.random((n, q)) < rng.uniform(0.1, 0.6, size=q)).astype(int)
    Xtr, Xte, Ytr = X[:200], X[200:], Y[:200]
    enc = OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1).fit(Xtr)
    Ctr, Cte = enc.transform(Xtr).astype(int), enc.transform(Xte).astype(int)
    seen_rows = (Cte >= 0).all(axis=1)
    assert seen_rows.sum() > 50
    ref = np.column_stack([
        # codes 0..|V_f|-1 are all seen in training, so n_categories_ = |V_f|
        CategoricalNB(alpha=alpha, fit_prior=True).fit(Ctr, Ytr[:, l])
        .predict_proba(Cte[seen_rows])[:, 1]
        for l in range(q)
    ])
    # fractional values used as symbols (0.5): discretizer=None (the "auto" rule would bin them)
    m = MLNB(alpha=alpha, discretizer=None).fit(Xtr, Ytr)
    P = m.predict_proba(Xte)
    np.testing.assert_allclose(P[seen_rows], ref, rtol=1e-9, atol=1e-12)
    assert np.all(P[~seen_rows] == 0)  # reference handling of unseen values
    for f in range(d):
        np.testing.assert_array_equal(m.categories_[f], np.unique(Xtr[:, f]))


def test_sparse_binary_text_like_data():
    rng = np.random.default_rng(7)
    X = sp.random(120, 60, density=0.05, random_state=8, format="csr")
    X.data[:] = 1.0
    Y = (rng.random((120, 6)) < 0.3).astype(int)
    m = MLNB().fit(X[:90], Y[:90])
    P = m.predict_proba(X[90:])
    np.testing.assert_allclose(P, naive_mlnb(X[:90].toarray(), Y[:90], X[90:].toarray(), 1.0))
    np.testing.assert_array_equal(MLNB().fit(X[:90].toarray(), Y[:90]).predict_proba(X[90:]), P)


class TestEstimatorConventions:
    def test_output_types(self):
        m = MLNB().fit(XH, YH)
        P, Pr = m.predict_proba(XH), m.predict(XH)
        assert P.shape == Pr.shape == (4, 1)
        assert P.dtype == np.float64 and np.issubdtype(Pr.dtype, np.integer)
        assert m.n_features_in_ == 2

    def test_clone_and_params(self):
        m = MLNB(alpha=0.0, handle_unseen="ignore")
        c = clone(m)
        assert c.get_params() == m.get_params()
        assert not hasattr(c, "class_count_")

    def test_pipeline_after_selector_and_feature_names(self):
        df = pd.DataFrame(np.c_[XH, np.ones(4)], columns=["a", "b", "const"])
        pipe = Pipeline([("sel", VarianceThreshold()), ("nb", MLNB())]).fit(df, YH)
        np.testing.assert_allclose(pipe.predict_proba(df), MLNB().fit(XH, YH).predict_proba(XH))
        m = MLNB().fit(df, YH)
        assert list(m.feature_names_in_) == ["a", "b", "const"]

    def test_inputs_not_modified(self):
        # CSR with an explicitly stored zero and unsorted indices: still the same model.
        X = sp.csr_matrix(
            (np.array([1.0, 0.0, 1.0, 1.0, 1.0]), np.array([1, 0, 1, 0, 0]),
             np.array([0, 1, 2, 4, 5])), shape=(4, 2),
        )
        before = (X.data.copy(), X.indices.copy(), X.indptr.copy())
        P = MLNB().fit(X, YH).predict_proba(X)
        for a, b in zip(before, (X.data, X.indices, X.indptr), strict=True):
            np.testing.assert_array_equal(a, b)
        np.testing.assert_allclose(P, MLNB().fit(X.toarray(), YH).predict_proba(X.toarray()))

    def test_errors(self):
        with pytest.raises(ValueError, match="NaN"):
            MLNB().fit([[np.nan], [1]], [[0], [1]])
        with pytest.raises(ValueError, match="alpha"):
            MLNB(alpha=-1).fit(XH, YH)
        with pytest.raises(ValueError, match="handle_unseen"):
            MLNB(handle_unseen="skip").fit(XH, YH)
        with pytest.raises(ValueError, match="inconsistent"):
            MLNB().fit(XH, YH[:3])
        with pytest.raises(ValueError, match="2-D"):
            MLNB().fit(XH, YH.ravel())
        with pytest.raises(ValueError, match="features"):
            MLNB().fit(XH, YH).predict([[0, 1, 1]])


def test_parameters_are_validated_by_scikit_learn():
    """MLNB declares its parameters in ``_parameter_constraints``, checked when fit starts."""
    from sklearn.utils._param_validation import InvalidParameterError

    for bad in ({"alpha": "1"}, {"handle_unseen": "skip"},
                {"reference_single_class_bug": "yes"}, {"discretizer": 3}):
        with pytest.raises(InvalidParameterError, match=next(iter(bad))):
            MLNB(**bad).fit(XH, YH)
    with pytest.raises(InvalidParameterError, match=r"alpha.*range \[0.0, inf\)"):
        MLNB(alpha=np.inf).fit(XH, YH)
    assert not hasattr(MLNB(alpha=-1), "class_count_")  # nothing is checked in __init__


def test_subset_evaluator_is_mlnb_refitted_on_the_other_rows():
    """The fast path wrappers use: predictions and posteriors of the refit on the rows
    outside ``test`` with the features ``S`` (dense and sparse input alike)."""
    rng = np.random.default_rng(7)
    X = rng.integers(0, 4, size=(80, 9)) * rng.choice([1, 3], size=9)
    Y = (rng.random((80, 3)) < 0.35).astype(np.uint8)
    for Xin in (X, sp.csr_matrix(X)):
        ev = MLNB(alpha=0.5).subset_evaluator(Xin, Y)
        for S in (np.array([0]), np.array([1, 4, 8]), np.arange(9)):
            test = np.sort(rng.choice(80, size=16, replace=False))
            train = np.setdiff1d(np.arange(80), test)
            ref = MLNB(alpha=0.5).fit(X[train][:, S], Y[train])
            pred, proba = ev.predict(S, test)
            np.testing.assert_allclose(proba, ref.predict_proba(X[test][:, S]), rtol=1e-12)
            np.testing.assert_array_equal(pred, ref.predict(X[test][:, S]))
