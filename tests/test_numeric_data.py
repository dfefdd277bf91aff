"""Numeric features never silently break a learner (issue #13, point 2).

* MLNB's ``discretizer="auto"`` is the selectors' rule (``skmlfs.discretize.fit_discretizer``):
  integer-valued data as it is (the reproduced results do not move), data with fractional
  values through LAIM fitted on the training data only.
* A fitted learner that predicts no label at all for a batch warns
  (:class:`~skmlfs.learners._base.NoPositivePredictionWarning`).
* The README's pipeline and its Python example on numeric (emotions, yeast, scene) and
  binary (enron) data.
"""

from __future__ import annotations

import os
import re
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import ClassifierMixin
from sklearn.pipeline import make_pipeline

import skmlfs.learners
from skmlfs.datasets import load
from skmlfs.discretize import (
    EqualWidthDiscretizer,
    LAIMDiscretizer,
    discretize_features,
    fit_discretizer,
    is_discrete,
)
from skmlfs.learners import MLNB, EnsembleOfChains, NoPositivePredictionWarning
from skmlfs.metrics import hamming_loss, micro_f1
from skmlfs.selection import SCLS

LEARNERS = sorted(
    name for name in dir(skmlfs.learners)
    if isinstance(getattr(skmlfs.learners, name), type)
    and issubclass(getattr(skmlfs.learners, name), ClassifierMixin)
)
README = Path(__file__).resolve().parents[1] / "README.md"


def _cheap(name: str):
    cls = getattr(skmlfs.learners, name)
    kw = {"random_state": 0} if "random_state" in cls().get_params() else {}
    if name == "EnsembleOfChains":
        kw["n_estimators"] = 3
    return cls(**kw)


def _numeric(seed: int = 0, n: int = 120, d: int = 6, q: int = 3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    Y = (X[:, :q] + 0.5 * rng.normal(size=(n, q)) > 0).astype(int)
    return X, Y


# --------------------------------------------------------------------------- MLNB "auto"
def test_mlnb_auto_is_laim_fitted_on_the_training_data_only():
    X, Y = _numeric()
    Xtr, Ytr, Xte = X[:80], Y[:80], X[80:]
    m = MLNB().fit(Xtr, Ytr)
    assert isinstance(m.discretizer_, LAIMDiscretizer)
    laim = LAIMDiscretizer().fit(Xtr, Ytr)  # reference: the bins of the training part
    for a, b in zip(m.discretizer_.bin_edges_, laim.bin_edges_, strict=True):
        np.testing.assert_array_equal(a, b)
    ref = MLNB(discretizer=None).fit(laim.transform(Xtr), Ytr)
    np.testing.assert_array_equal(m.predict_proba(Xte), ref.predict_proba(laim.transform(Xte)))
    np.testing.assert_array_equal(m.predict(Xte), ref.predict(laim.transform(Xte)))
    # categories_ are the training part's codes
    for f, cats in enumerate(m.categories_):
        np.testing.assert_array_equal(cats, np.unique(laim.transform(Xtr)[:, f]))


@pytest.mark.parametrize("kind", ["int", "float-integers", "sparse-binary"])
def test_mlnb_auto_keeps_integer_valued_data_as_it_is(kind):
    rng = np.random.default_rng(3)
    X = rng.integers(0, 4, size=(90, 7))
    if kind == "float-integers":
        X = X.astype(float)  # e.g. ARFF nominal codes
    elif kind == "sparse-binary":
        X = sp.csr_matrix((X == 0).astype(float))
    Y = (rng.random((90, 4)) < 0.4).astype(int)
    assert is_discrete(X)
    auto = MLNB().fit(X[:60], Y[:60])
    assert auto.discretizer_ is None
    plain = MLNB(discretizer=None).fit(X[:60], Y[:60])
    np.testing.assert_array_equal(auto.predict_proba(X[60:]), plain.predict_proba(X[60:]))


def test_mlnb_discretizer_transformer_and_bad_value():
    X, Y = _numeric(1)
    ew = EqualWidthDiscretizer(n_bins=4)
    m = MLNB(discretizer=ew).fit(X[:80], Y[:80])
    ref_disc = EqualWidthDiscretizer(n_bins=4).fit(X[:80], Y[:80])
    ref = MLNB(discretizer=None).fit(ref_disc.transform(X[:80]), Y[:80])
    np.testing.assert_array_equal(
        m.predict_proba(X[80:]), ref.predict_proba(ref_disc.transform(X[80:]))
    )
    assert ew.get_params() == EqualWidthDiscretizer(n_bins=4).get_params()  # cloned, not fitted
    assert not hasattr(ew, "bin_edges_")
    with pytest.raises(ValueError, match="'discretizer' parameter of MLNB must be .*'auto'"):
        MLNB(discretizer="laim").fit(X, Y)


def test_fit_discretizer_is_the_rule_of_the_selectors():
    X, Y = _numeric(2)
    assert fit_discretizer("auto", np.round(X), Y) is None
    assert fit_discretizer(None, X, Y) is None
    np.testing.assert_array_equal(
        discretize_features("auto", X, Y), LAIMDiscretizer().fit(X, Y).transform(X)
    )
    # the selectors (BaseInfoSelector, memetic) use this very function
    from skmlfs.selection import _base

    assert _base.discretize_features is discretize_features


# --------------------------------------------------------------------------- the warning
def _far_negative(n_test: int, q: int = 4):
    """Labels on iff feature 0 > 0; test points far on the negative side: every learner
    rightly predicts no label there."""
    rng = np.random.default_rng(5)
    X = np.round(rng.normal(size=(80, 5)), 2)
    Y = np.repeat((X[:, [0]] > 0).astype(int), q, axis=1)
    Xte = np.round(rng.normal(size=(n_test, 5)), 2)
    Xte[:, 0] = -3.0 - rng.random(n_test)
    return X, Y, Xte


@pytest.mark.parametrize("name", LEARNERS)
def test_all_negative_prediction_warns(name):
    X, Y, Xte = _far_negative(12)
    est = _cheap(name).fit(X, Y)
    with pytest.warns(NoPositivePredictionWarning) as rec:
        pred = est.predict(Xte)
    assert not pred.any()
    msgs = [str(w.message) for w in rec if w.category is NoPositivePredictionWarning]
    assert len(msgs) == 1  # ensemble members stay quiet: one warning for the vote
    assert f"{name} predicted no label at all for the 12 samples" in msgs[0]
    assert f"{Y.sum() / Y.shape[0]:.2f} labels on average" in msgs[0]
    # a batch with positives, and a batch too small to be suspicious, do not warn
    with warnings.catch_warnings():
        warnings.simplefilter("error", NoPositivePredictionWarning)
        assert est.predict(np.vstack([Xte, X])).any()
        assert not est.predict(Xte[:4]).any()


def test_all_negative_warning_with_predict_with_proba():
    X, Y, Xte = _far_negative(12)
    est = skmlfs.learners.MLkNN(k=5).fit(X, Y)
    with pytest.warns(NoPositivePredictionWarning):
        pred, _ = est.predict_with_proba(Xte)
    assert not pred.any()


def test_no_warning_when_training_labels_are_all_negative():
    X, Y, Xte = _far_negative(12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # fit: "no positive example"
        est = EnsembleOfChains(n_estimators=2, random_state=0).fit(X, 0 * Y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", NoPositivePredictionWarning)
        assert not est.predict(Xte).any()


# --------------------------------------------------------------------------- real data
@pytest.mark.parametrize("name", ["emotions", "yeast", "scene"])
def test_readme_pipeline_on_numeric_data(dataset_path, name):
    tr = load(dataset_path(f"mulan/{name}/{name}-train.arff"))
    te = load(dataset_path(f"mulan/{name}/{name}-test.arff"))
    assert not is_discrete(tr.X)
    with warnings.catch_warnings():
        warnings.simplefilter("error", NoPositivePredictionWarning)
        model = make_pipeline(SCLS(n_features_to_select=20), MLNB()).fit(tr.X, tr.Y)
        pred = model.predict(te.X)
    all_negative = np.zeros_like(te.Y)
    assert micro_f1(te.Y, all_negative) == 0.0
    assert micro_f1(te.Y, pred) >= 0.5  # measured 0.64 / 0.56 / 0.62
    assert hamming_loss(te.Y, pred) < hamming_loss(te.Y, all_negative) - 0.03
    # the raw floats as symbols (the behaviour before discretizer="auto") no longer pass
    # silently where they predict nothing
    if name in ("emotions", "yeast"):
        raw = make_pipeline(SCLS(n_features_to_select=20), MLNB(discretizer=None))
        raw.fit(tr.X, tr.Y)
        with pytest.warns(NoPositivePredictionWarning, match="MLNB predicted no label"):
            assert not raw.predict(te.X).any()


@pytest.mark.parametrize("name", LEARNERS)
def test_every_learner_on_numeric_data(dataset_path, name):
    tr = load(dataset_path("mulan/emotions/emotions-train.arff"))
    te = load(dataset_path("mulan/emotions/emotions-test.arff"))
    with warnings.catch_warnings():
        warnings.simplefilter("error", NoPositivePredictionWarning)
        pred = _cheap(name).fit(tr.X, tr.Y).predict(te.X)
    assert micro_f1(te.Y, pred) >= 0.5  # all-negative: 0.0; measured 0.54-0.66
    assert hamming_loss(te.Y, pred) < te.Y.mean()  # all-negative Hamming loss


def _readme_python() -> str:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert blocks, "README.md has no Python example"
    return blocks[0]


@pytest.mark.parametrize("name", ["enron", "emotions"])
def test_readme_python_example_runs(dataset_path, monkeypatch, capsys, name):
    """The README's example with its data line replaced by a real data set: enron (sparse
    binary) and numeric emotions, through the pipeline as written."""
    code = _readme_python()
    data_line = re.search(r"^ds = .*$", code, flags=re.MULTILINE)
    assert data_line, "the README's example has no `ds = ...` data line"
    code = code.replace(data_line.group(0), f'ds = load("{name}.arff")')
    folder = dataset_path(f"mulan/{name}/{name}.arff").parent
    monkeypatch.chdir(folder)
    ns: dict = {"load": load}
    with warnings.catch_warnings():
        warnings.simplefilter("error", NoPositivePredictionWarning)
        exec(compile(code, "README.md", "exec"), ns)
    out = capsys.readouterr().out.split()
    X_te, Y_te = ns["X_te"], ns["Y_te"]
    assert X_te.shape[0] + ns["X_tr"].shape[0] == ns["ds"].X.shape[0]
    pred = ns["model"].predict(X_te)
    # the example ends by printing the Hamming loss on the held-out part
    assert float(out[-1]) == pytest.approx(hamming_loss(Y_te, pred), rel=1e-12)
    assert micro_f1(Y_te, pred) >= 0.4  # all-negative: 0.0
    assert os.getcwd() == str(folder)


def test_memetic_counts_mlnb_symbols_only_where_mlnb_would_not_discretize():
    """The memetic wrapper's count-table path scores MLNB on its discretized ``Xd`` as it
    is; an MLNB that would discretize ``Xd`` itself is refitted per evaluation instead."""
    from skmlfs.selection import MemeticSelector

    Xi = np.arange(12.0).reshape(4, 3)
    Yi = np.array([[0, 1], [1, 0], [1, 1], [0, 0]])
    fast = MLNB(alpha=0.5).subset_evaluator(Xi, Yi)
    assert fast is not None and fast.params == (0.5, "zero", False)
    assert MLNB(discretizer=None).subset_evaluator(Xi + 0.5, Yi) is not None
    for learner, X in ((MLNB(), Xi + 0.5), (MLNB(discretizer=EqualWidthDiscretizer()), Xi)):
        assert learner.subset_evaluator(X, Yi) is None  # the search refits it instead
    # end to end on numeric data with the wrapper's own discretization switched off
    X, Y = _numeric(4, n=60)
    sel = MemeticSelector(MLNB(), n_features_to_select=2, discretizer=None, population_size=4,
                          max_evaluations=8, random_state=0).fit(X, Y)
    assert sel.get_support().sum() == 2
