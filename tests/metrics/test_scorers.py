"""scikit-learn scorers with every learner of :mod:`skmlfs.learners` (issue #13, point 1).

``cross_val_score`` / ``cross_validate`` and ``GridSearchCV`` with ``scoring=`` must give, for
every learner and every multi-label scorer — scikit-learn's own and ``make_scorer`` over
every :mod:`skmlfs.metrics` measure, ranking measures through ``predict_proba`` — the
finite values obtained by fitting a clone on the same folds and computing the metric by
hand. (Before the fix every score was ``nan``: the scorers read ``classes_``, which only
MLNB set.) Every learner × every scorer runs in one multi-metric ``cross_validate`` per
learner (shared fits; each scorer still scores on its own); the single-metric
``cross_val_score`` path and ``GridSearchCV`` run every learner with one scorer of each
kind, and ``cross_val_score`` every scorer with one learner. Metric calls, not fits,
dominate the run time, hence this split.
"""

from __future__ import annotations

import warnings
from functools import cache

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import ClassifierMixin, clone
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import (
    accuracy_score,
    average_precision_score,
    f1_score,
    get_scorer,
    jaccard_score,
    make_scorer,
    precision_score,
    recall_score,
    roc_auc_score,
)
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score, cross_validate
from sklearn.pipeline import make_pipeline

import skmlfs.learners
from skmlfs.metrics import METRICS
from skmlfs.selection import SCLS

# Cheap parameters (the data is tiny) and a two-value grid for GridSearchCV, per learner.
_PARAMS: dict[str, tuple[dict, dict]] = {
    "BayesianClassifierChain": ({"random_state": 0}, {"root": [0, 1]}),
    "BinaryRelevance": (
        {"random_state": 0},
        {"estimator": [None, LogisticRegression(solver="liblinear")]},
    ),
    "ClassifierChain": ({"random_state": 0}, {"order": ["canonical", [3, 2, 1, 0]]}),
    "DMLkNN": ({"k": 5}, {"k": [3, 5]}),
    "EnsembleOfChains": ({"n_estimators": 3, "random_state": 0}, {"chain": ["cc", "bcc"]}),
    "KDependentChain": ({"random_state": 0}, {"k": [1, 2]}),
    "LLSFClassifier": ({"random_state": 0}, {"beta": [0.1, 1.0]}),
    "MDDMClassifier": ({"random_state": 0}, {"n_components": [0.3, 0.5]}),
    "MLCWkNN": ({"k": 5}, {"k": [3, 5]}),
    "MLNB": ({}, {"alpha": [0.5, 1.0]}),
    "MLkNN": ({"k": 5}, {"k": [3, 5]}),
    "OCC": ({"random_state": 0}, {"M": [0.5, None]}),
    "ProbabilisticClassifierChain": ({"random_state": 0}, {"order": ["canonical", "random"]}),
}


def _learner_names() -> list[str]:
    return sorted(
        name
        for name in dir(skmlfs.learners)
        if isinstance(getattr(skmlfs.learners, name), type)
        and issubclass(getattr(skmlfs.learners, name), ClassifierMixin)
    )


LEARNERS = _learner_names()


def _learner(name: str):
    return getattr(skmlfs.learners, name)(**_PARAMS[name][0])


def _scores(est, X) -> np.ndarray:
    """The continuous output scikit-learn's ranking scorers use (decision_function first)."""
    if hasattr(est, "decision_function"):
        return est.decision_function(X)
    return est.predict_proba(X)


# name -> (scoring argument, by-hand function of (Y_true, output), output kind)
_SKLEARN = {
    "accuracy": (accuracy_score, {}, "pred"),
    "jaccard_samples": (jaccard_score, {"average": "samples"}, "pred"),
    "roc_auc": (roc_auc_score, {}, "score"),
    "average_precision": (average_precision_score, {}, "score"),
}
for _fn, _prefix in ((f1_score, "f1"), (precision_score, "precision"), (recall_score, "recall")):
    for _avg in ("micro", "macro", "samples", "weighted"):
        _SKLEARN[f"{_prefix}_{_avg}"] = (_fn, {"average": _avg}, "pred")

SCORERS: dict[str, tuple] = {}
for _name, (_fn, _kw, _kind) in _SKLEARN.items():
    SCORERS[_name] = (_name, (lambda f, kw: lambda Yt, out: f(Yt, out, **kw))(_fn, _kw), _kind)
for _name, _spec in METRICS.items():
    _resp = "predict" if _spec.needs == "pred" else "predict_proba"
    _sign = 1.0 if _spec.greater_is_better else -1.0
    SCORERS[f"skmlfs.{_name}"] = (
        make_scorer(_spec.function, greater_is_better=_spec.greater_is_better,
                    response_method=_resp),
        (lambda f, s: lambda Yt, out: s * f(Yt, out))(_spec.function, _sign),
        _spec.needs,
    )


def _data(n: int = 60, d: int = 8, q: int = 4, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Numeric features with fractional values; every label depends on one feature, every
    sample has a label and every label both classes in every fold."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, d)), 3)
    Y = (X[:, :q] + 0.7 * rng.normal(size=(n, q)) > 0.3).astype(int)
    empty = Y.sum(axis=1) == 0
    Y[empty, np.argmax(X[empty, :q], axis=1)] = 1
    return X, Y


X, Y = _data()
CV = KFold(n_splits=3, shuffle=True, random_state=0)


@cache
def _by_hand(name: str, grid_values: tuple = ()) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per fold of ``CV``: (Y_test, predict, scores) of a clone fitted on the training part."""
    out = []
    for train, test in CV.split(X, Y):
        est = clone(_learner(name)).set_params(**dict(grid_values))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(X[train], Y[train])
            out.append((Y[test], est.predict(X[test]), _scores(est, X[test])))
    return out


def _expected(name: str, scorer: str, grid_values: tuple = ()) -> np.ndarray:
    _, fn, kind = SCORERS[scorer]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. precision of a label never predicted
        return np.array([fn(Yt, pred if kind == "pred" else score)
                         for Yt, pred, score in _by_hand(name, grid_values)])


def test_every_learner_and_metric_is_covered():
    # a new learner or metric must get cheap parameters / a scorer here
    assert set(LEARNERS) == set(_PARAMS)
    assert {f"skmlfs.{m}" for m in METRICS} <= set(SCORERS)
    assert len(LEARNERS) >= 13


@pytest.mark.parametrize("name", LEARNERS)
def test_cross_validate_every_scorer_equals_metric_by_hand(name):
    """Every scorer in one ``cross_validate`` call (the function ``cross_val_score`` wraps):
    each scorer is still evaluated on its own, the fits are shared (a fast test)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = cross_validate(_learner(name), X, Y, cv=CV, error_score="raise",
                             scoring={s: SCORERS[s][0] for s in SCORERS})
    for s in SCORERS:
        got = res[f"test_{s}"]
        assert np.all(np.isfinite(got)), s
        np.testing.assert_allclose(got, _expected(name, s), rtol=1e-12, atol=1e-12, err_msg=s)


# one scorer of every kind: string / make_scorer, predict / predict_proba, loss / score
SINGLE = ["accuracy", "f1_samples", "roc_auc", "skmlfs.micro_f1", "skmlfs.ranking_loss"]


@pytest.mark.parametrize("scorer", SINGLE)
@pytest.mark.parametrize("name", LEARNERS)
def test_cross_val_score_equals_metric_by_hand(name, scorer):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = cross_val_score(_learner(name), X, Y, scoring=SCORERS[scorer][0], cv=CV,
                              error_score="raise")
    want = _expected(name, scorer)
    assert np.all(np.isfinite(got))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_cross_val_score_every_scorer_one_learner():
    """Each scorer alone through ``cross_val_score`` (single-metric path), with the
    fastest learner."""
    for s in SCORERS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = cross_val_score(_learner("MLkNN"), X, Y, scoring=SCORERS[s][0], cv=CV,
                                  error_score="raise")
        assert np.all(np.isfinite(got)), s
        np.testing.assert_allclose(got, _expected("MLkNN", s), rtol=1e-12, atol=1e-12,
                                   err_msg=s)


@pytest.mark.parametrize("name", LEARNERS)
def test_grid_search_scores_equal_metric_by_hand(name):
    """GridSearchCV (set_params, multi-metric scoring, refit) with one scorer of every
    kind; every scorer goes through the same scoring code in cross_validate above."""
    grid = _PARAMS[name][1]
    scoring = {s: SCORERS[s][0] for s in SINGLE}
    gs = GridSearchCV(_learner(name), grid, scoring=scoring, cv=CV, refit="skmlfs.micro_f1",
                      error_score="raise")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gs.fit(X, Y)
    res = gs.cv_results_
    for c, params in enumerate(res["params"]):
        key = tuple(sorted(params.items(), key=lambda kv: kv[0]))
        key = tuple((k, tuple(v) if isinstance(v, list) else v) for k, v in key)
        for s in SINGLE:
            got = np.array([res[f"split{i}_test_{s}"][c] for i in range(CV.n_splits)])
            assert np.all(np.isfinite(got)), (s, params)
            np.testing.assert_allclose(got, _expected(name, s, key), rtol=1e-12, atol=1e-12,
                                       err_msg=f"{s} {params}")
    # the refitted best model predicts like a clone fitted with the best parameters
    best = clone(_learner(name)).set_params(**gs.best_params_)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_array_equal(gs.predict(X), best.fit(X, Y).predict(X))


@pytest.mark.parametrize("name", LEARNERS)
def test_output_types_are_the_same_for_every_learner(name):
    est = _learner(name).fit(X[:40], Y[:40])
    pred, proba = est.predict(X[40:]), est.predict_proba(X[40:])
    assert type(pred) is np.ndarray and pred.dtype == np.dtype(int) and pred.shape == (20, 4)
    assert set(np.unique(pred)) <= {0, 1}
    assert type(proba) is np.ndarray and proba.dtype == np.float64 and proba.shape == (20, 4)
    assert np.all((proba >= 0) & (proba <= 1))
    # classes_: per label, the classes seen in training (scikit-learn's multi-output form)
    assert len(est.classes_) == 4
    for cl in est.classes_:
        np.testing.assert_array_equal(cl, [0, 1])


@pytest.mark.parametrize("name", LEARNERS)
def test_classes_of_a_constant_label(name):
    Yc = Y[:40].copy()
    Yc[:, 1] = 0
    Yc[:, 2] = 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "label column has no positive example"
        est = _learner(name).fit(X[:40], Yc)
    got = [list(c) for c in est.classes_]
    assert got == [[0, 1], [0], [1], [0, 1]]
    # scorers still read the outputs right (predict, and predict_proba for ranking scorers)
    for scorer in ("f1_micro", "roc_auc", "skmlfs.micro_f1", "skmlfs.ranking_loss"):
        scoring, fn, kind = SCORERS[scorer]
        out = est.predict(X[40:]) if kind == "pred" else _scores(est, X[40:])
        got = get_scorer(scoring)(est, X[40:], Y[40:])
        assert np.isfinite(got) and got == pytest.approx(fn(Y[40:], out), rel=1e-12)


@pytest.mark.parametrize("name", LEARNERS)
def test_scorers_on_sparse_binary_data_in_a_pipeline(name):
    """Sparse 0/1 features (as enron's) through a selector: the README's pipeline shape."""
    rng = np.random.default_rng(1)
    Xd = (rng.random((60, 12)) < 0.3).astype(float)
    Xd[:, :4] = Y ^ (rng.random((60, 4)) < 0.1)  # informative columns, 10 % flipped
    Xb = sp.csr_matrix(Xd)
    pipe = make_pipeline(SCLS(n_features_to_select=6), _learner(name))
    rl = make_scorer(METRICS["ranking_loss"].function, greater_is_better=False,
                     response_method="predict_proba")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got_f1 = cross_val_score(pipe, Xb, Y, scoring="f1_micro", cv=CV, error_score="raise")
        got_rl = cross_val_score(pipe, Xb, Y, scoring=rl, cv=CV, error_score="raise")
        want_f1, want_rl = [], []
        for train, test in CV.split(Xb, Y):
            m = clone(pipe).fit(Xb[train], Y[train])
            want_f1.append(f1_score(Y[test], m.predict(Xb[test]), average="micro"))
            want_rl.append(-METRICS["ranking_loss"].function(Y[test], m.predict_proba(Xb[test])))
    np.testing.assert_allclose(got_f1, want_f1, rtol=1e-12)
    np.testing.assert_allclose(got_rl, want_rl, rtol=1e-12)
    assert np.all(np.isfinite(got_f1)) and np.all(np.isfinite(got_rl))
