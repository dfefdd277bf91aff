"""The one selector contract (issue #15, point 2) over every registered selector.

* ``scores_`` is indexed by feature: shape ``(n_features_in_,)``;
* ``ranking_`` agrees with ``get_support``;
* a smaller ``n_features_to_select`` set after ``fit`` gives the mask of a refit with that
  budget, without refitting, where the method allows it — otherwise, and for a larger
  budget than was fitted, ``get_support`` raises ``NotFittedError`` saying to refit;
* parameters are checked by scikit-learn's ``_parameter_constraints`` when ``fit`` starts.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils._param_validation import InvalidParameterError

from skmlfs.experiments._registry import SELECTORS, default_params, resolve, takes_seed
from skmlfs.selection import LLSF, MLFS, SCLS, ReliefFML
from skmlfs.selection._base import BaseSelector

K = 6
# Cheap settings, for speed only.
CHEAP = {
    "mifs": {"max_iter": 50},
    "rlefs": {"max_iter": 50},
    "ppt_mi": {"min_support": 2},
    "ppt_chi": {"min_support": 2},
    "ppt_relieff": {"min_support": 2, "k": 3},
    "relieff_ml": {"k": 3},
    "memetic": {"population_size": 6, "max_evaluations": 20, "n_crossovers": 2},
    "ga": {"population_size": 6, "max_evaluations": 20, "n_crossovers": 2},
}
# How a smaller budget is served after fit: "cut" (the first k of the ranking) or
# "refit" (NotFittedError: the selection for k is not a prefix of the fitted one).
# an exact top-k set; per-label votes; subset searches
SMALLER = {"ralmfs": "refit", "mlfs": "refit", "memetic": "refit", "ga": "refit"}
# Methods whose ranking orders every feature whatever the budget: any budget is a cut.
FULL = {"relieff_ml", "ppt_relieff", "rlefs", "mifs", "llsf", "bmfs", "mgfs", "mfs_mcdm",
        "mcls", "random"}
FULL |= {"mlaco", "ant_td"}  # the final pheromone orders every feature
NAMES = [
    n for n in sorted(SELECTORS)
    if n not in ("all", "ami_relevance")  # the no-selection baseline; an alias of mi_rank
]


def _data(seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(80, 14)).astype(float)
    Y = np.column_stack([
        (X[:, 0] + X[:, 1] > 2), (X[:, 2] > 1), (X[:, 3] + X[:, 4] + rng.integers(0, 2, 80) > 3),
        (X[:, 5] == 0),
    ]).astype(int)
    return X, Y


def _make(name: str, k) -> BaseSelector:
    cls = resolve("selector", name)
    params = {"n_features_to_select": k, **CHEAP.get(name, {}),
              **default_params("selector", name)}
    if takes_seed(cls):
        params["random_state"] = 0
    return cls(**params)


def _fit(est, X, Y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(X, Y)


@pytest.mark.parametrize("name", NAMES)
def test_scores_per_feature_and_ranking_agrees_with_support(name):
    X, Y = _data()
    est = _fit(_make(name, K), X, Y)
    assert isinstance(est, BaseSelector)
    d = X.shape[1]
    assert est.scores_.shape == (d,)
    assert est.ranking_.dtype == np.intp
    assert len(set(est.ranking_.tolist())) == est.ranking_.size  # no repeats
    support = est.get_support(indices=True)
    n_sel = est.n_features_to_select_
    assert support.size == n_sel
    # a subset search keeps the best subset it found, of at most K features
    assert n_sel == K or (name in ("memetic", "ga") and 1 <= n_sel <= K)
    assert sorted(est.ranking_[:n_sel].tolist()) == support.tolist()
    if hasattr(est, "step_scores_"):  # greedy: the criterion of each step, placed by feature
        assert est.step_scores_.shape == est.ranking_.shape
        np.testing.assert_array_equal(est.scores_[est.ranking_], est.step_scores_)
        unranked = np.setdiff1d(np.arange(d), est.ranking_)
        assert np.isnan(est.scores_[unranked]).all()
    elif name not in ("mlfs",):  # scoring methods: the ranking sorts by scores_
        ranked = est.scores_[est.ranking_[:K]]
        assert np.all(np.isfinite(ranked))
        if name != "ralmfs":  # RALM-FS ranks its exact top-k set first
            assert np.all(np.diff(ranked) <= 1e-12)
            rest = np.setdiff1d(np.arange(d), est.ranking_[:K])
            assert ranked.min() >= np.max(est.scores_[rest], initial=-np.inf) - 1e-12


@pytest.mark.parametrize("name", NAMES)
def test_smaller_budget_without_refit_equals_refit(name):
    X, Y = _data()
    est = _fit(_make(name, K), X, Y)
    ranking = est.ranking_.copy()
    for k in (1, 3, K - 1):
        refit = _fit(_make(name, k), X, Y).get_support()
        est.set_params(n_features_to_select=k)
        if SMALLER.get(name) == "refit":
            with pytest.raises(NotFittedError, match="call fit again"):
                est.get_support()
            continue
        np.testing.assert_array_equal(est.get_support(), refit, err_msg=f"k={k}")
        assert est.transform(X).shape == (X.shape[0], k)
        np.testing.assert_array_equal(est.ranking_, ranking)  # nothing was refitted
    est.set_params(n_features_to_select=K)  # back to the fitted budget: the fitted mask
    assert est.get_support().sum() == K


@pytest.mark.parametrize("name", NAMES)
def test_larger_budget_than_fitted(name):
    X, Y = _data()
    est = _fit(_make(name, K), X, Y)
    est.set_params(n_features_to_select=K + 2)
    if name in FULL:  # the whole ranking is there: a larger cut is a refit's mask
        refit = _fit(_make(name, K + 2), X, Y).get_support()
        np.testing.assert_array_equal(est.get_support(), refit)
        return
    with pytest.raises(NotFittedError, match=f"asks for {K + 2} features.*call fit again"):
        est.get_support()
    with pytest.raises(NotFittedError):
        est.transform(X)


def test_budget_forms_are_cut_from_the_fitted_samples():
    """None (⌈√n⌉), fractions and budget strings are resolved with the fit's sizes."""
    X, Y = _data()
    sel = SCLS(n_features_to_select=None).fit(X, Y)  # ⌈√80⌉ = 9
    assert sel.ranking_.size == 9
    for k, n in ((0.5, 7), ("5", 5), ("sqrt", 9), ("20%", 3)):
        sel.set_params(n_features_to_select=k)
        assert sel.get_support().sum() == n, k
        np.testing.assert_array_equal(sel.get_support(indices=True), np.sort(sel.ranking_[:n]))


def test_llsf_none_keeps_nonzero_rows_and_any_budget_is_a_cut():
    X, Y = _data()
    sel = LLSF(beta=1.0).fit(X, Y)
    nz = np.flatnonzero(np.linalg.norm(sel.coef_, axis=1) > 0)
    np.testing.assert_array_equal(sel.get_support(indices=True), nz)
    np.testing.assert_array_equal(sel.scores_, np.linalg.norm(sel.coef_, axis=1))
    sel.set_params(n_features_to_select=X.shape[1])
    assert sel.get_support().all()


def test_mlfs_global_cuts_within_its_greedy_search():
    X, Y = _data()
    sel = MLFS(n_features_to_select=K, mode="global", discretizer=None).fit(X, Y)
    assert sel.step_scores_.shape == (K,)
    for k in (2, 4):
        ref = MLFS(n_features_to_select=k, mode="global", discretizer=None).fit(X, Y)
        sel.set_params(n_features_to_select=k)
        np.testing.assert_array_equal(sel.get_support(), ref.get_support())
    # local mode: scores_ are the label votes of every feature
    loc = MLFS(n_features_to_select=3, discretizer=None).fit(X, Y)
    votes = np.zeros(X.shape[1])
    for f in loc.label_features_:
        votes[f] += 1
    np.testing.assert_array_equal(loc.scores_, votes)
    assert not hasattr(loc, "step_scores_")


def test_degenerate_data_selects_nothing_whatever_the_budget():
    X = np.ones((10, 4))
    Y = np.eye(10, 2, dtype=int)
    with pytest.warns(UserWarning, match="no feature varies"):
        sel = SCLS(n_features_to_select=2).fit(X, Y)
    assert sel.scores_.shape == (4,) and np.isnan(sel.scores_).all()
    assert sel.step_scores_.size == 0
    sel.set_params(n_features_to_select=3)
    assert not sel.get_support().any()


@pytest.mark.parametrize(
    "est, match",
    [
        (SCLS(n_features_to_select=0), "n_features_to_select"),
        (SCLS(n_features_to_select=1.5), "n_features_to_select"),
        (SCLS(n_features_to_select=True), "n_features_to_select"),
        (SCLS(discretizer="laim"), "discretizer"),
        (MLFS(mode="both"), "mode"),
        (MLFS(beta=-1.0), "beta"),
        (MLFS(k=True), "'k'"),
        (ReliefFML(k=0), "'k'"),
        (ReliefFML(s=float("inf")), "'s'"),
        (LLSF(alpha=float("nan")), "alpha"),
    ],
)
def test_parameters_checked_by_constraints_when_fit_starts(est, match):
    X, Y = _data()
    with pytest.raises(InvalidParameterError, match=match):
        est.fit(X, Y)
    # clone keeps the bad value verbatim; the error comes from fit, not from __init__
    assert clone(est).get_params() == est.get_params()


def test_subclasses_extend_the_constraints():
    from skmlfs.selection import MDMR, PPTMI, RLEFS

    base = BaseSelector._parameter_constraints
    for cls in (SCLS, MDMR, PPTMI, RLEFS, MLFS, LLSF, ReliefFML):
        cons = cls._parameter_constraints
        assert base.items() <= cons.items()
        assert set(cons) == set(cls().get_params()), cls.__name__


def test_resolve_count_is_the_budget_parser_with_the_ceil_rule():
    """``resolve_count`` (kCC parents, MDDM components, the chains' M) goes through
    ``parse_budget``/``budget_count`` and keeps its former rule ⌈value·total⌉ (written
    here as it was: ``ceil(value·total − 1e-12)``), counts capped at ``total``, 0 allowed
    only with ``allow_zero``."""
    import math

    from skmlfs._validation import resolve_count

    for f in [i / 100 for i in range(1, 101)] + [1 / 3, 2 / 3, 1 / 7, 0.125]:
        for total in range(1, 400):
            assert resolve_count(f, total, "k") == min(math.ceil(f * total - 1e-12), total)
    assert resolve_count(50, 7, "M") == 7 and resolve_count(None, 7, "M") == 7
    assert resolve_count(0, 7, "k", allow_zero=True) == 0
    with pytest.raises(ValueError, match="k: a feature count must be >= 1"):
        resolve_count(0, 7, "k")
    for bad in (True, "3", [1]):
        with pytest.raises(TypeError, match="M must be an int, a float fraction or None"):
            resolve_count(bad, 7, "M")
