"""The one selector contract (issue #15, point 2) over every registered selector.

* ``scores_`` is indexed by feature: shape ``(n_features_in_,)``;
* ``selection_order_`` agrees with ``get_support``, and ``ranking_`` is scikit-learn's
  ranking (as ``RFE``'s: 1 for the selected features, then 2, 3, ... in the order);
* the selector tags say how a smaller or larger budget is served;
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
from skmlfs.selection import (
    LLSF,
    MLFS,
    SCLS,
    ReliefFML,
    SelectorTags,
    get_selector_tags,
    ranking_from_order,
    selection_order,
)
from skmlfs.selection._base import BaseSelector

K = 6
# Cheap settings, for speed only.
CHEAP = {
    "mifs": {"max_iter": 50},
    "rlefs": {"max_iter": 50},
    "mdfs": {"max_iter": 20},
    "scmfs": {"max_iter": 50},
    "slofs": {"max_iter": 5},
    "mssl": {"max_iter": 10},
    "ssfs": {"max_iter": 20},
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
# Greedy searches with a candidate cap (max_candidates=100): nested below the cap only.
CAPPED = {"mljmi", "mlmrmr"}
# Methods whose ranking orders every feature whatever the budget: any budget is a cut.
FULL = {"relieff_ml", "ppt_relieff", "rlefs", "mifs", "llsf", "bmfs", "mgfs", "mfs_mcdm",
        "mcls", "random"}
FULL |= {"mlaco", "ant_td"}  # the final pheromone orders every feature
FULL |= {"mdfs", "scmfs"}  # row norms of W order every feature
FULL |= {"slofs"}  # row norms of W order every feature
FULL |= {"mssl", "ssfs"}  # row norms of W (MSSL) or Q (SSFS) order every feature
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
    assert est.selection_order_.dtype == np.intp
    assert len(set(est.selection_order_.tolist())) == est.selection_order_.size  # no repeats
    support = est.get_support(indices=True)
    n_sel = est.n_features_to_select_
    assert support.size == n_sel
    # a subset search keeps the best subset it found, of at most K features
    assert n_sel == K or (name in ("memetic", "ga") and 1 <= n_sel <= K)
    assert sorted(est.selection_order_[:n_sel].tolist()) == support.tolist()
    if hasattr(est, "step_scores_"):  # greedy: the criterion of each step, placed by feature
        assert est.step_scores_.shape == est.selection_order_.shape
        np.testing.assert_array_equal(est.scores_[est.selection_order_], est.step_scores_)
        unranked = np.setdiff1d(np.arange(d), est.selection_order_)
        assert np.isnan(est.scores_[unranked]).all()
    elif name not in ("mlfs",):  # scoring methods: the ranking sorts by scores_
        ranked = est.scores_[est.selection_order_[:K]]
        assert np.all(np.isfinite(ranked))
        if name != "ralmfs":  # RALM-FS ranks its exact top-k set first
            assert np.all(np.diff(ranked) <= 1e-12)
            rest = np.setdiff1d(np.arange(d), est.selection_order_[:K])
            assert ranked.min() >= np.max(est.scores_[rest], initial=-np.inf) - 1e-12


class _ByCoefficient(BaseSelector):
    """Every feature ordered by |coefficient| of a least-squares fit to the first label
    (the importance RFE uses with a linear model), best first."""

    def __init__(self, n_features_to_select=None):
        self.n_features_to_select = n_features_to_select

    def _fit(self, X, Y):
        self.n_features_in_ = X.shape[1]
        coef = np.linalg.lstsq(X, Y[:, 0].astype(float), rcond=None)[0]
        order = np.argsort(-np.abs(coef), kind="stable")
        self._set_order(order, k=self.n_features_to_select, n_samples=X.shape[0],
                        scores=np.abs(coef))
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.selector_tags.orders_all_features = True
        return tags


def test_ranking_is_scikit_learns_rfe_ranking_on_a_hand_example():
    """Five independent standardised features with weights 2, 5, 1, 4, 3: RFE with a linear
    model eliminates x2, then x0, then x4 and keeps x1, x3, so its ranking_ is
    [3, 1, 4, 1, 2] (1 = kept, 2 = eliminated last); the selector that orders the features
    by the same |weights| gives the same ranking_ and the order [1, 3, 4, 0, 2]."""
    from sklearn.feature_selection import RFE
    from sklearn.linear_model import LinearRegression

    rng = np.random.default_rng(0)
    X = rng.standard_normal((400, 5))
    X = (X - X.mean(0)) / X.std(0)
    w = np.array([2.0, 5.0, 1.0, 4.0, 3.0])
    y = X @ w
    rfe = RFE(LinearRegression(), n_features_to_select=2, step=1).fit(X, y)
    np.testing.assert_array_equal(rfe.ranking_, [3, 1, 4, 1, 2])
    sel = _ByCoefficient(n_features_to_select=2).fit(X, y[:, None])
    np.testing.assert_array_equal(sel.selection_order_, [1, 3, 4, 0, 2])
    np.testing.assert_array_equal(sel.ranking_, rfe.ranking_)
    np.testing.assert_array_equal(sel.get_support(), rfe.support_)
    # the engine's reading of a foreign selector: RFE's features by rank (ties by index)
    np.testing.assert_array_equal(selection_order(rfe), [1, 3, 4, 0, 2])


def test_ranking_from_order_ranks_the_unordered_features_last_together():
    # a forward search of 7 features that stopped after 4, 2 of them selected
    np.testing.assert_array_equal(ranking_from_order([5, 2, 6, 0], 2, 7),
                                  [3, 4, 1, 4, 4, 1, 2])
    np.testing.assert_array_equal(ranking_from_order([], 0, 3), [2, 2, 2])


@pytest.mark.parametrize("name", NAMES)
def test_ranking_agrees_with_selection_order_and_support(name):
    X, Y = _data()
    est = _fit(_make(name, K), X, Y)
    d, order, rk = X.shape[1], est.selection_order_, est.ranking_
    n_sel = est.n_features_to_select_
    assert rk.shape == (d,) and rk.dtype == np.intp
    np.testing.assert_array_equal(rk == 1, est.get_support())  # 1 = selected
    # then 2, 3, ... along the order, and one shared rank after them for the rest
    tail = np.arange(2, order.size - n_sel + 2)
    np.testing.assert_array_equal(rk[order], np.r_[np.ones(n_sel, dtype=int), tail])
    rest = np.setdiff1d(np.arange(d), order)
    assert (rk[rest] == order.size - n_sel + 2).all()
    # sorting by ranking_ gives the selected features first, then the order's tail
    by_rank = np.argsort(rk, kind="stable")
    assert sorted(by_rank[:n_sel].tolist()) == sorted(order[:n_sel].tolist())
    np.testing.assert_array_equal(by_rank[n_sel:order.size], order[n_sel:])


def test_tags_are_scikit_learns_with_the_selector_tags():
    from sklearn.feature_selection import SelectKBest
    from sklearn.utils import get_tags

    from skmlfs.model_selection import TunedSelector
    from skmlfs.selection import RALMFS, Tags

    tags = get_tags(SCLS())
    assert isinstance(tags, Tags) and tags.input_tags.sparse and tags.target_tags.multi_output
    assert tags.selector_tags.row_blocks and tags.selector_tags.greedy
    assert get_tags(ReliefFML()).input_tags.allow_nan  # a subclass's own tags are kept
    assert not get_tags(MLFS()).selector_tags.greedy  # local mode: votes, no steps
    assert get_tags(MLFS(mode="global")).selector_tags.greedy  # tags read the parameters
    assert get_selector_tags(SelectKBest()) == SelectorTags()  # foreign: the defaults
    # a tuned selector means what the selector it tunes means
    assert not get_selector_tags(TunedSelector(selector=RALMFS())).nested_budgets


@pytest.mark.parametrize("name", NAMES)
def test_tags_say_how_other_budgets_are_served(name):
    """The tags the engine reads agree with what get_support does (tests below)."""
    tags = get_selector_tags(_make(name, K))
    assert isinstance(tags, SelectorTags)
    assert tags.orders_all_features == (name in FULL)
    # the capped greedy searches rank by relevance from max_candidates features up, so a
    # grid crossing the cap is not nested although their small budgets are prefixes
    assert tags.nested_budgets == (name not in SMALLER and name not in CAPPED)
    assert tags.greedy == hasattr(_fit(_make(name, K), *_data()), "step_scores_")


@pytest.mark.parametrize("name", NAMES)
def test_smaller_budget_without_refit_equals_refit(name):
    X, Y = _data()
    est = _fit(_make(name, K), X, Y)
    ranking = est.selection_order_.copy()
    for k in (1, 3, K - 1):
        refit = _fit(_make(name, k), X, Y).get_support()
        est.set_params(n_features_to_select=k)
        if SMALLER.get(name) == "refit":
            with pytest.raises(NotFittedError, match="call fit again"):
                est.get_support()
            continue
        np.testing.assert_array_equal(est.get_support(), refit, err_msg=f"k={k}")
        assert est.transform(X).shape == (X.shape[0], k)
        np.testing.assert_array_equal(est.selection_order_, ranking)  # nothing was refitted
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
    assert sel.selection_order_.size == 9
    for k, n in ((0.5, 7), ("5", 5), ("sqrt", 9), ("20%", 3)):
        sel.set_params(n_features_to_select=k)
        assert sel.get_support().sum() == n, k
        np.testing.assert_array_equal(sel.get_support(indices=True),
                                      np.sort(sel.selection_order_[:n]))


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
    assert sel.selection_order_.size == 0
    np.testing.assert_array_equal(sel.ranking_, [2, 2, 2, 2])  # no feature has rank 1
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


def test_nested_tag_follows_the_parameters_that_break_prefixes():
    """MLFS-local (votes), a capped greedy search and FIMF with a candidate cut-off are
    refitted per budget by the engine; their uncapped / uncut forms are nested."""
    from skmlfs.selection import FIMF, MLJMI, MLMIM

    assert not get_selector_tags(MLFS()).nested_budgets  # local mode
    assert not get_selector_tags(MLFS(mode="global")).nested_budgets  # cap 100
    assert get_selector_tags(MLFS(mode="global", max_candidates=None)).nested_budgets
    assert not get_selector_tags(MLJMI()).nested_budgets
    assert get_selector_tags(MLJMI(max_candidates=None)).nested_budgets
    assert get_selector_tags(MLMIM()).nested_budgets  # a ranking: the cap does not apply
    assert get_selector_tags(FIMF()).nested_budgets
    assert not get_selector_tags(FIMF(n_candidates=5)).nested_budgets


def test_capped_search_is_not_a_prefix_across_the_cap():
    """Why the tag is needed: below the cap MLJMI is a greedy search, from the cap up a
    relevance ranking. With a copy of the most relevant feature, the ranking takes the
    copy second and the greedy search does not (the copy adds nothing to the joint MI)."""
    from skmlfs.selection import MLJMI

    X, Y = _data()
    X = np.column_stack([X, X[:, 5]])  # column 14: a copy of the first pick
    greedy = _fit(MLJMI(n_features_to_select=2, max_candidates=None), X, Y).selection_order_
    ranked = _fit(MLJMI(n_features_to_select=4, max_candidates=4), X, Y).selection_order_
    capped = _fit(MLJMI(n_features_to_select=2, max_candidates=4), X, Y).selection_order_
    np.testing.assert_array_equal(capped, greedy)  # below the cap: the greedy search
    assert set(ranked[:2]) == {5, 14} and 14 not in greedy  # at the cap: not its prefix
