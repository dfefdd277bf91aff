"""Meta-estimators and searches: a weighted learner, grid and coordinate searches of a
selector tuned with a learner, and scorers of the multi-label metrics.

* :class:`WeightedLearner` — a feature weighter's weights fed into a learner's weighted
  distance (ReliefF-ML weights into ML-kNN, Reyes, Morell & Ventura 2013);
* :class:`CoordinateSearchCV` — a coordinate search over a parameter grid (RLEFS, for grids
  too large to search exhaustively);
* :class:`TunedSelector` — a selector whose parameters are chosen by inner cross-validation
  of ``selector → learner`` (RLEFS / MIFS), through :func:`search_selector`, which fits
  each selector setting once per fold and each learner once per distinct feature set;
* :func:`metric_scorer` and :class:`MeanScorer` — scikit-learn scorers (greater is better)
  of a metric of :mod:`skmlfs.metrics`, or of the mean of several;
* :func:`make_inner_cv` — a seeded inner splitter (``KFold`` or
  :class:`IterativeStratifiedKFold`).
"""

from __future__ import annotations

import copy
import itertools
import numbers
import warnings
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.feature_selection import SelectorMixin
from sklearn.model_selection import KFold
from sklearn.pipeline import Pipeline
from sklearn.utils.validation import check_is_fitted

from .._ids import array_digest, canonical_json
from ..metrics import get_metric, metric_name
from ..selection import Tags, get_selector_tags, ranking_from_order, selection_order
from ._stratify import IterativeStratifiedKFold

__all__ = [
    "CoordinateSearchCV",
    "MeanScorer",
    "TunedSelector",
    "WeightedLearner",
    "make_inner_cv",
    "metric_scorer",
    "search_selector",
]


# --------------------------------------------------------------------------- weighting
class _DelegatePredictMixin:
    """``predict`` and ``predict_proba`` of the fitted estimator named ``_fitted_attr``."""

    _fitted_attr: str

    def predict(self, X: Any) -> np.ndarray:
        check_is_fitted(self, self._fitted_attr)
        return getattr(self, self._fitted_attr).predict(X)

    def predict_proba(self, X: Any) -> np.ndarray:
        check_is_fitted(self, self._fitted_attr)
        return getattr(self, self._fitted_attr).predict_proba(X)


class WeightedLearner(_DelegatePredictMixin, MetaEstimatorMixin, BaseEstimator):
    """Fit a feature weighter on the training data and a learner that uses its weights.

    ``fit(X, Y)`` fits ``clone(weighter)``, reads its weights (attribute
    ``weights_attr``), and fits ``clone(learner)`` with the learner's parameter
    ``weights_param`` set to them: e.g. ReliefF-ML's ``weights_`` as ML-kNN's
    ``feature_weights``, i.e. the weighted HEOM distance of Reyes, Morell & Ventura (2013,
    §3: "-WF" learners). Prediction is the learner's.

    Parameters
    ----------
    weighter : estimator
        Fitted with ``fit(X, Y)``; must expose ``weights_attr`` after fitting.
    learner : estimator
        Must have the parameter ``weights_param``.
    weights_attr : str, default ``"weights_"``
    weights_param : str, default="feature_weights"

    Attributes
    ----------
    weighter_, learner_ : the fitted estimators
    feature_weights_ : ndarray of shape (n_features,)
    """

    _fitted_attr = "learner_"

    def __init__(
        self,
        weighter: Any = None,
        learner: Any = None,
        weights_attr: str = "weights_",
        weights_param: str = "feature_weights",
    ):
        self.weighter = weighter
        self.learner = learner
        self.weights_attr = weights_attr
        self.weights_param = weights_param

    def fit(self, X: Any, Y: Any) -> WeightedLearner:
        if self.weighter is None or self.learner is None:
            raise ValueError("WeightedLearner needs both a weighter and a learner.")
        if self.weights_param not in self.learner.get_params(deep=False):
            raise ValueError(
                f"{type(self.learner).__name__} has no parameter {self.weights_param!r} to "
                "receive feature weights."
            )
        self.fit_weights(X, Y)
        self.learner_ = clone(self.learner).set_params(
            **{self.weights_param: self.feature_weights_}
        )
        self.learner_.fit(X, Y)
        self.n_features_in_ = int(self.feature_weights_.size)
        return self

    def fit_weights(self, X: Any, Y: Any) -> np.ndarray:
        """Fit (or take from the per-process cache) the weighter only: sets ``weighter_``
        and ``feature_weights_`` and returns the weights (the shared neighbour graphs of
        the experiment cells fit the learner themselves)."""
        key = _weights_key(self.weighter, self.weights_attr, X, Y)
        hit = _WEIGHTS_CACHE.get(key) if key is not None else None
        if hit is not None:
            # the same seeded weighter on the same data: the cells of one split that differ
            # only in the learner share one fit (ReliefF-ML into ML-kNN, DML-kNN, MLC-WkNN)
            self.weighter_, w = hit
            _WEIGHTS_CACHE.move_to_end(key)
        else:
            self.weighter_ = clone(self.weighter).fit(X, Y)
            w = getattr(self.weighter_, self.weights_attr, None)
            if w is None:
                raise ValueError(
                    f"{type(self.weighter).__name__} has no fitted attribute "
                    f"{self.weights_attr!r} (feature weights)."
                )
            if key is not None:
                _WEIGHTS_CACHE[key] = (self.weighter_, w)
                while len(_WEIGHTS_CACHE) > _WEIGHTS_CACHE_SIZE:
                    _WEIGHTS_CACHE.popitem(last=False)
        self.feature_weights_ = np.asarray(w, dtype=float)
        return self.feature_weights_


_WEIGHTS_CACHE: OrderedDict = OrderedDict()
_WEIGHTS_CACHE_SIZE = 8


def _weights_key(weighter: Any, attr: str, X: Any, Y: Any) -> tuple | None:
    """Key of a deterministic weighter fit: class, parameters and a digest of the data;
    ``None`` (no caching) when the weighter draws fresh randomness (random_state None)."""
    params = weighter.get_params(deep=False)
    if "random_state" in params and not isinstance(params["random_state"], numbers.Integral):
        return None
    try:  # arrays in full (a truncated repr could make two settings collide)
        ptxt = canonical_json(params)
    except (TypeError, ValueError):
        return None
    return (type(weighter).__module__, type(weighter).__qualname__, ptxt, attr, array_digest(X, Y))


def make_inner_cv(inner_cv: Mapping[str, Any], random_state: int | None) -> Any:
    """The inner splitter: shuffled ``KFold`` or ``IterativeStratifiedKFold``, seeded."""

    k = int(inner_cv["k"])
    if inner_cv.get("stratification", "none") == "iterative":
        return IterativeStratifiedKFold(k, random_state=random_state)
    return KFold(k, shuffle=True, random_state=random_state)


class _MetricScorer:
    """``scorer(estimator, X, Y)`` of a registered metric, greater is better (losses are
    negated), for scikit-learn's search tools; picklable."""

    def __init__(self, metric: str, params: Mapping[str, Any]):
        self.metric = metric
        self.params = dict(params)

    def __call__(self, estimator: Any, X: Any, Y: Any) -> float:
        spec = get_metric(self.metric)
        out = estimator.predict(X) if spec.needs == "pred" else estimator.predict_proba(X)
        Y = Y.toarray() if hasattr(Y, "toarray") else np.asarray(Y)
        v = float(spec.function(Y, out, **self.params))
        return v if spec.greater_is_better else -v

    def __repr__(self) -> str:
        return f"metric_scorer({self.metric!r}, **{self.params!r})"


def metric_scorer(metric: str, **params: Any) -> _MetricScorer:
    """A scikit-learn scorer (greater is better) for a metric of :mod:`skmlfs.metrics`."""
    return _MetricScorer(metric_name(metric), params)


class CoordinateSearchCV(_DelegatePredictMixin, MetaEstimatorMixin, BaseEstimator):
    """Coordinate search over a parameter grid by cross-validation (the RLEFS protocol for
    grids too large to search exhaustively, e.g. 7^4 settings).

    From ``start`` (default: the first value of each parameter), each sweep tries every
    value of one parameter at a time with the others fixed and keeps the best (a tie with
    the current value keeps it; otherwise the first best value in grid order); sweeps repeat
    until one changes nothing (a fixed point). Each setting is cross-validated once (the
    scores are cached). Then the estimator is refitted on all of ``X`` with the chosen
    setting. Attributes follow ``GridSearchCV``: ``best_params_``, ``best_score_``,
    ``best_estimator_``, ``cv_results_`` (``params``, ``mean_test_score``,
    ``std_test_score`` in evaluation order) and ``n_sweeps_``.

    Parameters
    ----------
    estimator : estimator
    param_grid : dict parameter -> list of values
    scoring : callable ``scorer(estimator, X, Y)``, greater is better
    cv : splitter with ``split(X, Y)``
    start : dict, optional
    max_sweeps : int, default=100
    """

    _fitted_attr = "best_estimator_"

    def __init__(self, estimator: Any = None, param_grid: Any = None, scoring: Any = None,
                 cv: Any = None, start: Any = None, max_sweeps: int = 100):
        self.estimator = estimator
        self.param_grid = param_grid
        self.scoring = scoring
        self.cv = cv
        self.start = start
        self.max_sweeps = max_sweeps

    def fit(self, X: Any, Y: Any) -> CoordinateSearchCV:
        grid = {p: list(v) for p, v in dict(self.param_grid).items()}
        names = list(grid)
        folds = list(self.cv.split(X, Y))
        cache: dict[tuple, float] = {}
        params_l, means, stds = [], [], []

        def score(setting: dict) -> float:
            key = tuple(repr(setting[p]) for p in names)
            if key not in cache:
                vals = []
                for tr, te in folds:
                    est = clone(self.estimator).set_params(**setting).fit(X[tr], Y[tr])
                    vals.append(float(self.scoring(est, X[te], Y[te])))
                cache[key] = float(np.mean(vals))
                params_l.append(dict(setting))
                means.append(cache[key])
                stds.append(float(np.std(vals)))
            return cache[key]

        current = {p: (self.start or {}).get(p, grid[p][0]) for p in names}
        score(current)
        sweeps = 0
        while sweeps < int(self.max_sweeps):
            sweeps += 1
            changed = False
            for p in names:
                vals = [score({**current, p: v}) for v in grid[p]]
                best = max(vals)
                if score(current) >= best:  # a tie with the current value keeps it
                    continue
                current = {**current, p: grid[p][vals.index(best)]}
                changed = True
            if not changed:
                break
        self.n_sweeps_ = sweeps
        self.best_params_ = dict(current)
        self.best_score_ = score(current)
        self.cv_results_ = {"params": params_l, "mean_test_score": np.asarray(means),
                            "std_test_score": np.asarray(stds)}
        self.best_estimator_ = clone(self.estimator).set_params(**current).fit(X, Y)
        return self


class TunedSelector(SelectorMixin, BaseEstimator):
    """A selector whose parameters are chosen by inner cross-validation of
    ``selector → learner`` on the training data (RLEFS / MIFS: parameters tuned at the
    largest budget, then every budget is a prefix of the chosen ranking).

    ``fit`` runs ``GridSearchCV(Pipeline([("selector", selector), ("learner", learner)]),
    {"selector__p": values}, scoring, cv)`` with the selector at ``n_features_to_select``,
    and exposes the best selector's ``selection_order_`` / ``ranking_`` / ``scores_``
    (and its selector tags).

    Parameters
    ----------
    selector, learner : estimators
    param_grid : dict
        Selector parameter → values.
    scoring : callable
        ``scorer(estimator, X, Y)``, greater is better (:func:`metric_scorer`).
    cv : splitter
    n_features_to_select : int or None
        Passed to the selector (the largest budget of the experiment).
    random_state : int or None
        Passed to the selector when it has one left at ``None``.

    Attributes
    ----------
    best_params_, cv_results_, best_estimator_
        As ``GridSearchCV`` (parameter names without the ``selector__`` prefix in
        ``best_params_``).
    selector_ : estimator
        The best selector, refitted on all the data.
    selection_order_, ranking_, scores_ : ndarray
        Its order (best first), scikit-learn ranking (1 = selected) and scores.
    """

    def __init__(self, selector: Any = None, learner: Any = None, param_grid: Any = None,
                 scoring: Any = None, cv: Any = None, n_features_to_select: Any = None,
                 random_state: Any = None, search: str = "grid", start: Any = None,
                 learner_grid: Any = None):
        self.learner_grid = learner_grid
        self.selector = selector
        self.learner = learner
        self.param_grid = param_grid
        self.scoring = scoring
        self.cv = cv
        self.n_features_to_select = n_features_to_select
        self.random_state = random_state
        self.search = search
        self.start = start

    def fit(self, X: Any, Y: Any) -> TunedSelector:
        sel = clone(self.selector)
        have = sel.get_params(deep=False)
        upd = {}
        if self.n_features_to_select is not None and "n_features_to_select" in have:
            upd["n_features_to_select"] = self.n_features_to_select
        if self.random_state is not None and have.get("random_state", 0) is None:
            upd["random_state"] = self.random_state
        sel.set_params(**upd)
        # memoised search (one selector fit per fold and setting, one learner fit per fold,
        # feature set and learner setting), see search_selector

        folds = list(self.cv.split(X, Y))
        res = search_selector(sel, self.learner, dict(self.param_grid),
                              dict(self.learner_grid or {}), self.scoring, folds, X, Y,
                              n_features=self.n_features_to_select, search=self.search,
                              start=dict(self.start or {}))
        self.cv_results_ = {"params": [r["params"] for r in res["results"]],
                            "mean_test_score": np.asarray([r["mean"] for r in res["results"]]),
                            "std_test_score": np.asarray([r["std"] for r in res["results"]])}
        self.best_params_ = {**res["params"], **res["learner_params"]}
        self.best_score_ = res["score"]
        self.n_sweeps_ = res["n_sweeps"]
        self.n_fits_, self.n_sets_ = res["n_fits"], res["n_sets"]
        self.selector_ = clone(sel).set_params(**res["params"]).fit(X, Y)
        self.best_estimator_ = Pipeline([
            ("selector", self.selector_),
            ("learner", clone(self.learner).set_params(**res["learner_params"]))])
        self.selection_order_ = selection_order(self.selector_)
        rk = getattr(self.selector_, "ranking_", None)
        self.ranking_ = (ranking_from_order(self.selection_order_,
                                            int(self.selector_.get_support().sum()),
                                            X.shape[1]) if rk is None else np.asarray(rk))
        sc = getattr(self.selector_, "scores_", None)
        self.scores_ = None if sc is None else np.asarray(sc, dtype=float)
        self.n_features_in_ = getattr(self.selector_, "n_features_in_", None)
        return self

    def _get_support_mask(self) -> np.ndarray:
        check_is_fitted(self, "selector_")
        return self.selector_.get_support()

    def __sklearn_tags__(self) -> Tags:
        # the tuned selector's result means what the selector's does
        inner = get_selector_tags(self.selector) if self.selector is not None else None
        return Tags.from_sklearn(super().__sklearn_tags__(), copy.copy(inner))


# --------------------------------------------------------------------------- scoring
class MeanScorer:
    """``scorer(estimator, X, Y)``: the mean of several scorers (greater is better), e.g.
    (Macro-F1 + Micro-F1)/2 (RLEFS §5.1). The estimator predicts once."""

    def __init__(self, metrics: Sequence[Mapping[str, Any]]):
        self.metrics = [dict(m) for m in metrics]

    def __call__(self, estimator: Any, X: Any, Y: Any) -> float:
        Y = Y.toarray() if hasattr(Y, "toarray") else np.asarray(Y)
        out: dict[str, Any] = {}
        vals = []
        for m in self.metrics:
            params = dict(m)
            spec = get_metric(params.pop("metric"))
            params.update(params.pop("params", {}))
            if spec.needs not in out:
                out[spec.needs] = (estimator.predict(X) if spec.needs == "pred"
                                   else estimator.predict_proba(X))
            v = float(spec.function(Y, out[spec.needs], **params))
            vals.append(v if spec.greater_is_better else -v)
        return float(np.mean(vals))

    def __repr__(self) -> str:
        return f"MeanScorer({self.metrics!r})"


# --------------------------------------------------------------------------- the search
def _feature_set(est: Any, n: int | None) -> tuple[int, ...]:
    r = selection_order(est)[:n]
    return tuple(int(i) for i in np.sort(r))


_SETS_CACHE: OrderedDict = OrderedDict()


_SETS_CACHE_SIZE = 50_000  # (key, small tuple) pairs, about 0.5 kB each: < 30 MB


def _fit_key(est: Any, n: int | None, digest: str) -> tuple | None:
    """Key of a deterministic selector fit (``None``: not cacheable, e.g. unseeded)."""

    params = est.get_params(deep=False)
    if "random_state" in params and not isinstance(params["random_state"], numbers.Integral):
        return None
    try:
        ptxt = canonical_json(params)
    except (TypeError, ValueError):
        return None
    return (type(est).__module__, type(est).__qualname__, ptxt, n, digest)


def search_selector(
    selector: Any, learner: Any, selector_grid: Mapping[str, Sequence],
    learner_grid: Mapping[str, Sequence], scoring: Any, folds: Sequence, X: Any, Y: Any,
    *, n_features: int | None, search: str = "grid", start: Mapping | None = None,
    tol: float = 1e-12, max_sweeps: int = 20,
) -> dict:
    """Choose a selector setting (and a learner setting) by inner cross-validation.

    The score of a setting is the mean over ``folds`` of ``scoring`` on the validation
    part of the learner fitted on the fold's training part restricted to the selector's
    top-``n_features`` set (columns in ascending index order, so a score depends on the set
    only). Memos: one selector fit per (fold, selector setting), one learner fit per (fold,
    set, learner setting) — settings that select the same features share the learner fit.

    ``search = "grid"``: every combination, parameters in declaration order (selector's,
    then learner's; the last varies fastest); the first best in this order wins (a later
    setting must be better by more than ``tol``). ``"coordinate"``: from ``start``, each
    sweep tries every value of one parameter at a time and moves on a strict improvement
    (``> best + tol``); sweeps repeat until one changes nothing (at most ``max_sweeps``).

    Returns a dict with ``params`` (chosen selector setting), ``learner_params``, ``score``,
    ``results`` (evaluated settings in order with ``mean``/``std``), ``n_sweeps``,
    ``n_fits`` (selector fits) and ``n_sets`` (distinct feature sets).
    """
    sel_names, lrn_names = list(selector_grid), list(learner_grid)
    axes = [(p, list(v)) for p, v in selector_grid.items()]
    axes += [(p, list(v)) for p, v in learner_grid.items()]
    if set(sel_names) & set(lrn_names):
        raise ValueError("a parameter is in both the selector's and the learner's grid.")
    sets: dict = {}
    scores: dict = {}
    cvs: dict = {}
    results: list[dict] = []

    digests: dict = {}

    def feats(f: int, sp_: tuple) -> tuple:
        if (f, sp_) not in sets:
            tr = folds[f][0]
            est = clone(selector).set_params(**dict(zip(sel_names, sp_, strict=True)))
            if f not in digests:
                digests[f] = array_digest(X[tr], Y[tr])
            key = _fit_key(est, n_features, digests[f])
            if key is not None and key in _SETS_CACHE:
                # the same seeded fit in another search of this process (a selector tuned
                # with each learner repeats its fits for every learner)
                _SETS_CACHE.move_to_end(key)
                sets[(f, sp_)] = _SETS_CACHE[key]
                return sets[(f, sp_)]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                est.fit(X[tr], Y[tr])
            sets[(f, sp_)] = _feature_set(est, n_features)
            if key is not None:
                _SETS_CACHE[key] = sets[(f, sp_)]
                while len(_SETS_CACHE) > _SETS_CACHE_SIZE:
                    _SETS_CACHE.popitem(last=False)
        return sets[(f, sp_)]

    def score(f: int, s: tuple, lp: tuple) -> float:
        if (f, s, lp) not in scores:
            tr, va = folds[f]
            cols = list(s)
            est = clone(learner).set_params(**dict(zip(lrn_names, lp, strict=True)))
            est.fit(X[tr][:, cols], Y[tr])
            scores[(f, s, lp)] = float(scoring(est, X[va][:, cols], Y[va]))
        return scores[(f, s, lp)]

    def cv(p: Mapping) -> float:
        sp_ = tuple(p[n] for n in sel_names)
        lp = tuple(p[n] for n in lrn_names)
        if (sp_, lp) not in cvs:
            vals = [score(f, feats(f, sp_), lp) for f in range(len(folds))]
            cvs[(sp_, lp)] = float(np.mean(vals))
            results.append({"params": dict(p), "mean": cvs[(sp_, lp)],
                            "std": float(np.std(vals))})
        return cvs[(sp_, lp)]

    sweeps = None
    if search == "grid":
        best, best_s = None, -np.inf
        for vals in itertools.product(*(v for _, v in axes)):
            p = dict(zip((a for a, _ in axes), vals, strict=True))
            s = cv(p)
            if s > best_s + tol:  # ties: the first setting in grid order
                best, best_s = p, s
    elif search == "coordinate":
        best = {a: (start or {}).get(a, v[0]) for a, v in axes}
        best_s = cv(best)
        sweeps = 0
        while sweeps < max_sweeps:
            sweeps += 1
            changed = False
            for a, values in axes:
                for v in values:
                    q = {**best, a: v}
                    s = cv(q)
                    if s > best_s + tol:
                        best, best_s, changed = q, s, True
            if not changed:
                break
    else:
        raise ValueError(f"search must be 'grid' or 'coordinate'; got {search!r}.")
    return {
        "params": {n: best[n] for n in sel_names},
        "learner_params": {n: best[n] for n in lrn_names},
        "score": best_s,
        "results": results,
        "n_sweeps": sweeps,
        "n_fits": len(sets),
        "n_sets": len(set(sets.values())),
    }
