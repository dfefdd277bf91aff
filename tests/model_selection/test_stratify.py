"""Iterative stratification (Sechidis, Tsoumakas & Vlahavas 2011) as a splitter, issue #14."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score
from sklearn.multioutput import MultiOutputClassifier
from sklearn.neighbors import KNeighborsClassifier

from skmlfs.experiments import ExperimentSpec, SpecError
from skmlfs.model_selection import IterativeStratifiedKFold, iterative_stratification

REPO = Path(__file__).resolve().parents[2]


def _label_distribution(Y: np.ndarray, folds: list[np.ndarray]) -> float:
    """LD of Sechidis et al. (2011) §4: mean over labels and folds of the difference
    between the label's positive/negative ratio in the fold and in the whole data."""
    n = len(Y)
    out = 0.0
    for lab in range(Y.shape[1]):
        pos = Y[:, lab].sum()
        whole = pos / (n - pos)
        for te in folds:
            p = Y[te, lab].sum()
            out += abs(p / (len(te) - p) - whole)
    return out / (Y.shape[1] * len(folds))


def test_hand_example_traced():
    # 12 patterns, 3 folds; label counts l0 = 6, l1 = 3, l2 = 8. Traced by hand (Algorithm 1):
    # * l1 (rarest, rows 0-2): all folds want one l1 pattern -> one row per fold (random);
    #   row 2 has no l2, so its fold still wants 8/3 of l2, the others 5/3.
    # * l0 (3 left, rows 3-5): one row per fold (each fold wants one more l0).
    #   Desired l2 is now 2/3, 2/3 and 5/3 (row 2's fold).
    # * l2 (rows 6-8, in random order): the first goes to row 2's fold (largest desire); the
    #   next two to the other two folds (equal l2 desire; they want more patterns).
    # * rows 9-11 (no labels): one per fold (each fold wants one more pattern).
    Y = np.array(
        [
            [1, 1, 1], [1, 1, 1], [1, 1, 0],
            [1, 0, 1], [1, 0, 1], [1, 0, 1],
            [0, 0, 1], [0, 0, 1], [0, 0, 1],
            [0, 0, 0], [0, 0, 0], [0, 0, 0],
        ]
    )
    for seed in range(6):
        fold = iterative_stratification(Y, 3, random_state=seed)
        assert np.bincount(fold, minlength=3).tolist() == [4, 4, 4]
        for rows in ([0, 1, 2], [3, 4, 5], [9, 10, 11], [6, 7, 8]):
            assert sorted(fold[rows]) == [0, 1, 2]
        assert Y[fold == fold[2]].sum(0).tolist() == [2, 1, 2]
        per_fold = sorted(Y[fold == j].sum(0).tolist() for j in range(3))
        assert per_fold == [[2, 1, 2], [2, 1, 3], [2, 1, 3]]


def test_rare_labels_spread_better_than_kfold():
    rng = np.random.default_rng(0)
    n, q, k = 300, 12, 5
    p = np.linspace(0.02, 0.4, q)  # rare to common labels
    Y = (rng.random((n, q)) < p).astype(int)
    cv = IterativeStratifiedKFold(n_splits=k, random_state=1)
    folds = [te for _, te in cv.split(np.zeros((n, 1)), Y)]
    # a partition of the patterns
    np.testing.assert_array_equal(np.sort(np.concatenate(folds)), np.arange(n))
    counts = np.array([Y[te].sum(0) for te in folds])
    # the rarest label is handled first, with every fold wanting it equally: exact spread
    rarest = int(np.argmin(Y.sum(0)))
    assert np.ptp(counts[:, rarest]) <= 1
    plain_counts = np.array([Y[te].sum(0) for _, te in KFold(k, shuffle=True,
                                                              random_state=1).split(Y)])
    assert np.ptp(counts, axis=0).sum() < np.ptp(plain_counts, axis=0).sum()
    plain = [te for _, te in KFold(k, shuffle=True, random_state=1).split(Y)]
    assert _label_distribution(Y, folds) < 0.5 * _label_distribution(Y, plain)


def test_splitter_protocol_and_sklearn_use():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(60, 4))
    Y = (rng.random((60, 3)) < 0.3).astype(int)
    cv = IterativeStratifiedKFold(n_splits=4, random_state=7)
    assert cv.get_n_splits() == 4
    assert repr(cv) == "IterativeStratifiedKFold(n_splits=4, random_state=7)"
    a = [(tr.tolist(), te.tolist()) for tr, te in cv.split(X, Y)]
    b = [(tr.tolist(), te.tolist()) for tr, te in cv.split(X, sp.csr_matrix(Y))]
    assert a == b  # same seed, same folds; sparse labels accepted
    for tr, te in a:
        assert not set(tr) & set(te) and len(tr) + len(te) == 60
    # in scikit-learn's model selection tools
    est = MultiOutputClassifier(KNeighborsClassifier())
    assert len(cross_val_score(est, X, Y, cv=cv)) == 4
    gs = GridSearchCV(est, {"estimator__n_neighbors": [1, 3]}, cv=cv).fit(X, Y)
    assert gs.best_params_["estimator__n_neighbors"] in (1, 3)
    with pytest.raises(ValueError, match="label matrix"):
        next(cv.split(X))
    with pytest.raises(ValueError, match="n_splits"):
        iterative_stratification(Y, 1)


def test_protocol_kfold_iterative():
    rng = np.random.default_rng(4)
    X = rng.integers(0, 2, size=(90, 6))
    Y = (rng.random((90, 4)) < [0.05, 0.2, 0.3, 0.5]).astype(int)
    base = {"selectors": ["all"], "datasets": [{"name": "toy", "generator": "toy:data"}]}
    spec = ExperimentSpec.from_dict(
        {**base, "protocol": {"kind": "kfold", "n_splits": 5, "stratification": "iterative",
                              "seed": 11}}
    )
    prot = spec.protocol
    assert prot.k == 5 and prot.identity() == {
        "kind": "kfold", "k": 5, "stratification": "iterative", "seed": 11
    }
    splits = prot.splits((X, Y), 90, seed=0)
    fold = iterative_stratification(Y, 5, 11)
    for j, s in enumerate(splits):
        np.testing.assert_array_equal(s.test, np.flatnonzero(fold == j))
        np.testing.assert_array_equal(s.train, np.flatnonzero(fold != j))
    plain = ExperimentSpec.from_dict({**base, "protocol": {"kind": "kfold", "k": 5}}).protocol
    assert plain.identity() == {"kind": "kfold", "k": 5}  # ids of existing stores unchanged
    with pytest.raises(SpecError, match="protocol.stratification"):
        ExperimentSpec.from_dict({**base, "protocol": {"kind": "kfold", "stratification": "x"}})
    with pytest.raises(SpecError, match="k-fold protocol"):
        ExperimentSpec.from_dict(
            {**base, "protocol": {"kind": "holdout", "stratification": "iterative"}}
        )
