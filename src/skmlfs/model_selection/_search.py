"""Methods as estimator chains, nested tuning, and what a fitted method tells the store.

An experiment's selector or learner is a *method table*. Besides a registered name with
its parameters, a table may nest other method tables, which are built into estimators:

* ``method = "pipeline"`` with ``steps = [table, table, ...]``: a
  :class:`sklearn.pipeline.Pipeline` (e.g. discretizer → selector → BR + LinearSVC); step
  names are the steps' method names, so ``rlefs__alpha`` addresses a step's parameter;
* ``method = "weighted"`` with ``weighter`` and ``learner`` tables:
  :class:`WeightedLearner`, the weighter's feature weights fed into the learner's weighted
  distance (ReliefF-ML weights into ML-kNN, Reyes et al. 2013);
* any parameter whose value is a table with a ``method`` key becomes that estimator
  (``estimator = { method = "sklearn.svm:LinearSVC", C = 0.1 }``).

Nested tuning (``tune``, ``inner_cv``, ``scoring`` keys of a method table) wraps the built
estimator in :class:`sklearn.model_selection.GridSearchCV`: the grid is searched by inner
cross-validation on the training part of the outer split only, refitted on the whole
training part with the chosen parameters, and :func:`fitted_info` records the choice and
every candidate's inner score with the cell.
"""

from __future__ import annotations

import difflib
import itertools
import numbers
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted

from ._registry import default_params, param_names, resolve
from ._spec import _our_metric

__all__ = [
    "CoordinateSearchCV",
    "TunedSelector",
    "WeightedLearner",
    "build_method",
    "expand_variants",
    "fitted_info",
    "make_inner_cv",
    "metric_scorer",
    "parse_tuning",
]

#: the kinds whose registries a nested ``method`` name is looked up in, in this order
_NESTED_KINDS = ("learner", "selector", "discretizer")


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
    import hashlib

    import scipy.sparse as sp

    from ._spec import canonical_json

    params = weighter.get_params(deep=False)
    if "random_state" in params and not isinstance(params["random_state"], numbers.Integral):
        return None
    try:  # arrays in full (a truncated repr could make two settings collide)
        ptxt = canonical_json(params)
    except (TypeError, ValueError):
        return None
    h = hashlib.blake2b(digest_size=16)
    for a in (X, Y):
        if sp.issparse(a):
            a = a.tocsr()
            parts = (a.data, a.indices, a.indptr)
        else:
            parts = (np.asarray(a),)
        for p in parts:
            h.update(str((p.dtype, p.shape)).encode())
            h.update(np.ascontiguousarray(p).tobytes())
    return (type(weighter).__module__, type(weighter).__qualname__, ptxt, attr, h.hexdigest())


# --------------------------------------------------------------------------- building
def _resolve_nested(name: str, key: str) -> type:
    errors = []
    for kind in _NESTED_KINDS:
        try:
            return resolve(kind, name)
        except ValueError as exc:
            errors.append(str(exc))
    raise ValueError(f"{key}: unknown method {name!r}. " + " ".join(errors[:2]))


def _step_name(method: str, used: set[str]) -> str:
    base = method.rpartition(":")[2].rpartition(".")[2].lower() or "step"
    name, i = base, 2
    while name in used:
        name, i = f"{base}_{i}", i + 1
    used.add(name)
    return name


def _is_table(v: Any) -> bool:
    return isinstance(v, Mapping) and "method" in v


def build_method(
    method: str, params: Mapping[str, Any], kind: str = "learner", *, key: str = "method",
    random_state: int | None = None, validate: bool = True, nominal: Any = None,
) -> Any:
    """Build an estimator from a method name and parameters, nested tables included.

    Nested estimators built from tables get ``random_state`` when they have that parameter
    and the table does not set it (the top-level estimator is left to the caller, which
    applies its own defaults). ``categorical_features = "nominal"`` (at any depth) becomes
    ``nominal``: the indices of the dataset's nominal attributes (``None`` if it has none);
    ``"multivalued_nominal"``: only those with more than two declared values.

    Raises
    ------
    ValueError
        Naming ``key`` (the key path in the experiment) and the offending parameter.
    """
    params = dict(params)
    if method == "pipeline":
        from sklearn.pipeline import Pipeline

        steps = params.pop("steps", None)
        if params:
            raise ValueError(f"{key}: a pipeline takes only 'steps'; got {sorted(params)}.")
        if not isinstance(steps, Sequence) or isinstance(steps, str) or not steps:
            raise ValueError(f"{key}.steps: a non-empty list of method tables is needed.")
        used: set[str] = set()
        built = []
        for i, st in enumerate(steps):
            if isinstance(st, str):
                st = {"method": st}
            if not _is_table(st):
                raise ValueError(f"{key}.steps[{i}]: expected a table with a 'method' key.")
            st = dict(st)
            m = str(st.pop("method"))
            est = _nested(m, st, f"{key}.steps[{i}]", random_state, validate, nominal)
            built.append((_step_name(m, used), est))
        return Pipeline(built)
    cls = resolve(kind, method) if kind in ("selector", "learner", "discretizer") else (
        _resolve_nested(method, key)
    )
    for p, v in default_params(kind, method).items():  # e.g. the memetic wrapper's learner
        params.setdefault(p, v)
    kwargs = {}
    for p, v in params.items():
        if _is_table(v):
            v = dict(v)
            kwargs[p] = _nested(str(v.pop("method")), v, f"{key}.{p}", random_state, validate,
                                nominal)
        elif p == "categorical_features" and isinstance(v, str) and v == "nominal":
            kwargs[p] = None if nominal is None else list(nominal)
        elif p == "categorical_features" and isinstance(v, str) and v == "multivalued_nominal":
            # nominal attributes with more than two values; binary ones stay numeric 0/1
            multi = list(getattr(nominal, "multivalued", nominal or ()))
            kwargs[p] = multi or None
        else:
            kwargs[p] = v
    if validate:
        _check_params(cls, kwargs, key)
    return cls(**kwargs)


def _nested(method: str, params: dict, key: str, random_state, validate, nominal=None) -> Any:
    if method == "pipeline":
        est = build_method("pipeline", params, key=key, random_state=random_state,
                           validate=validate, nominal=nominal)
    else:
        cls = _resolve_nested(method, key)
        est = build_method(f"{cls.__module__}:{cls.__qualname__}", params, "any", key=key,
                           random_state=random_state, validate=validate, nominal=nominal)
    if (
        random_state is not None
        and "random_state" not in params
        and "random_state" in est.get_params(deep=False)
        and est.get_params(deep=False)["random_state"] is None
    ):
        est.set_params(random_state=random_state)
    return est


def _check_params(cls: type, kwargs: Mapping[str, Any], key: str) -> None:
    try:
        valid = param_names(cls)
    except Exception:  # noqa: BLE001 — a class without defaults: checked when built
        return
    for p in kwargs:
        if p not in valid:
            near = difflib.get_close_matches(p, sorted(valid), n=1)
            hint = f" (did you mean {near[0]!r}?)" if near else ""
            raise ValueError(
                f"{key}.{p}: {cls.__name__} has no parameter {p!r}{hint}; valid: "
                f"{', '.join(sorted(valid))}."
            )


# --------------------------------------------------------------------------- tuning
_TUNING_KEYS = {"tune", "inner_cv", "scoring", "tune_with", "tune_search", "tune_start",
                "tune_budget"}


def parse_tuning(body: Mapping[str, Any], key: str) -> dict | None:
    """Read the ``tune`` / ``inner_cv`` / ``scoring`` keys of a method table.

    ``tune``: parameter → list of values (a grid; nested parameters with ``__``);
    ``inner_cv``: an int (shuffled k-fold) or a table ``{k, stratification}``
    (``"iterative"``: :class:`~skmlfs.experiments.IterativeStratifiedKFold`), default 5;
    ``scoring``: a registered metric name or ``{metric, ...params}``; default
    ``hamming_loss``. Returns ``None`` when the table has no ``tune``.
    """
    from ..metrics import METRICS

    if "tune" not in body:
        for k in ("inner_cv", "scoring", "tune_with", "tune_search", "tune_start",
                  "tune_budget"):
            if k in body:
                raise ValueError(f"{key}.{k}: only meaningful with a 'tune' grid.")
        return None
    grid = body["tune"]
    if not isinstance(grid, Mapping) or not grid:
        raise ValueError(f"{key}.tune: a table parameter -> list of values is needed.")
    for p, vals in grid.items():
        if not isinstance(vals, Sequence) or isinstance(vals, str) or not vals:
            raise ValueError(f"{key}.tune.{p}: a non-empty list of values is needed.")
    cv = body.get("inner_cv", 5)
    if isinstance(cv, numbers.Integral) and not isinstance(cv, bool):
        cv = {"k": int(cv), "stratification": "none"}
    if not isinstance(cv, Mapping):
        raise ValueError(f"{key}.inner_cv: an int or a table {{k, stratification}}.")
    bad = set(cv) - {"k", "stratification"}
    if bad:
        raise ValueError(f"{key}.inner_cv: unknown key(s) {sorted(bad)}; allowed: k, "
                         "stratification.")
    k = cv.get("k", 5)
    if not isinstance(k, numbers.Integral) or isinstance(k, bool) or k < 2:
        raise ValueError(f"{key}.inner_cv.k: an integer >= 2; got {k!r}.")
    strat = cv.get("stratification", "none")
    if strat not in ("none", "iterative"):
        raise ValueError(f"{key}.inner_cv.stratification: 'none' or 'iterative'; got {strat!r}.")
    scoring = body.get("scoring", "hamming_loss")
    from ._tuning import parse_scoring

    mean = parse_scoring(scoring, key)  # a list of metrics: their mean
    if mean is not None:
        scoring = mean
    elif isinstance(scoring, str):
        scoring = {"metric": scoring}
    if mean is None and isinstance(scoring, Mapping):  # scikit-learn's spellings too
        scoring = {**scoring, "metric": _our_metric(scoring.get("metric"))}
    if mean is None and (not isinstance(scoring, Mapping)
                         or scoring.get("metric") not in METRICS):
        raise ValueError(
            f"{key}.scoring: a registered metric (or {{metric = ..., params}}); got "
            f"{scoring!r}; available: {', '.join(sorted(METRICS))}."
        )
    out = {
        "grid": {str(p): list(v) for p, v in grid.items()},
        "inner_cv": {"k": int(k), "stratification": strat},
        "scoring": dict(scoring),
    }
    # (tune_search / tune_start, not search / start: PPT selectors have a 'search' parameter)
    search = body.get("tune_search", "grid")
    if search not in ("grid", "coordinate"):
        raise ValueError(f"{key}.tune_search: 'grid' (exhaustive) or 'coordinate' (one "
                         f"parameter at a time, sweeps until nothing changes); got {search!r}.")
    if search == "coordinate":  # only then: ids of grid searches stay as they were
        out["search"] = "coordinate"
        start = body.get("tune_start", {})
        if not isinstance(start, Mapping) or set(start) - set(grid):
            raise ValueError(f"{key}.tune_start: a table of starting values of tuned "
                             "parameters.")
        for p_, v in start.items():
            if v not in grid[p_]:
                raise ValueError(f"{key}.tune_start.{p_}: {v!r} is not in the grid "
                                 f"{grid[p_]!r}.")
        out["start"] = dict(start)
    elif "tune_start" in body:
        raise ValueError(f"{key}.tune_start: only with tune_search = 'coordinate'.")
    if "tune_budget" in body:  # a learner tuned once, at the largest budget (_tuning.py)
        if body["tune_budget"] not in ("each", "largest"):
            raise ValueError(f"{key}.tune_budget: 'each' or 'largest'; got "
                             f"{body['tune_budget']!r}.")
        if body["tune_budget"] == "largest":
            out["budget"] = "largest"
    if body.get("tune_with") == "learner":  # tuned with each learner (_tuning.per_learner)
        out["tune_with"] = "learner"
    elif "tune_with" in body:
        tw = body["tune_with"]
        if isinstance(tw, str):
            tw = {"method": tw}
        if not _is_table(tw):
            raise ValueError(f"{key}.tune_with: a learner table {{ method = ... }}.")
        out["tune_with"] = dict(tw)
    return out


def make_inner_cv(inner_cv: Mapping[str, Any], random_state: int | None) -> Any:
    """The inner splitter: shuffled ``KFold`` or ``IterativeStratifiedKFold``, seeded."""
    from sklearn.model_selection import KFold

    from ._stratify import IterativeStratifiedKFold

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
        from ..metrics import get_metric

        spec = get_metric(self.metric)
        out = estimator.predict(X) if spec.needs == "pred" else estimator.predict_proba(X)
        Y = Y.toarray() if hasattr(Y, "toarray") else np.asarray(Y)
        v = float(spec.function(Y, out, **self.params))
        return v if spec.greater_is_better else -v

    def __repr__(self) -> str:
        return f"metric_scorer({self.metric!r}, **{self.params!r})"


def metric_scorer(metric: str, **params: Any) -> _MetricScorer:
    """A scikit-learn scorer (greater is better) for a metric of :mod:`skmlfs.metrics`."""
    from ..metrics import metric_name

    return _MetricScorer(metric_name(metric), params)


def tuned(estimator: Any, tuning: Mapping[str, Any], random_state: int | None) -> Any:
    """Wrap ``estimator`` in ``GridSearchCV`` (or :class:`CoordinateSearchCV` with
    ``search = "coordinate"``) as described by a parsed ``tuning``."""
    from ._tuning import make_scorer

    return _search(
        estimator,
        {p: list(v) for p, v in tuning["grid"].items()},
        make_scorer(tuning["scoring"]),
        make_inner_cv(tuning["inner_cv"], random_state),
        tuning,
    )


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


def _search(estimator: Any, grid: dict, scoring: Any, cv: Any, tuning: Mapping) -> Any:
    from sklearn.model_selection import GridSearchCV

    if tuning.get("search") == "coordinate":
        return CoordinateSearchCV(estimator, grid, scoring=scoring, cv=cv,
                                  start=dict(tuning.get("start", {})))
    return GridSearchCV(estimator, grid, scoring=scoring, cv=cv, refit=True,
                        error_score="raise")


class TunedSelector(SelectorMixin, BaseEstimator):
    """A selector whose parameters are chosen by inner cross-validation of
    ``selector → learner`` on the training data (RLEFS / MIFS: parameters tuned at the
    largest budget, then every budget is a prefix of the chosen ranking).

    ``fit`` runs ``GridSearchCV(Pipeline([("selector", selector), ("learner", learner)]),
    {"selector__p": values}, scoring, cv)`` with the selector at ``n_features_to_select``,
    and exposes the best selector's ``ranking_`` / ``scores_``.

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
    best_params_, cv_results_, best_estimator_ : as ``GridSearchCV`` (parameter names
        without the ``selector__`` prefix in ``best_params_``)
    selector_ : the refitted best selector; ranking_, scores_ : its ranking and scores
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
        from sklearn.pipeline import Pipeline

        sel = clone(self.selector)
        have = sel.get_params(deep=False)
        upd = {}
        if self.n_features_to_select is not None and "n_features_to_select" in have:
            upd["n_features_to_select"] = self.n_features_to_select
        if self.random_state is not None and have.get("random_state", 0) is None:
            upd["random_state"] = self.random_state
        sel.set_params(**upd)
        # memoised search (one selector fit per fold and setting, one learner fit per fold,
        # feature set and learner setting), see _tuning.search_selector
        from ._tuning import search_selector

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
        self.ranking_ = np.asarray(getattr(self.selector_, "ranking_",
                                           self.selector_.get_support(indices=True)))
        sc = getattr(self.selector_, "scores_", None)
        self.scores_ = None if sc is None else np.asarray(sc, dtype=float)
        self.n_features_in_ = getattr(self.selector_, "n_features_in_", None)
        return self

    def _get_support_mask(self) -> np.ndarray:
        check_is_fitted(self, "selector_")
        return self.selector_.get_support()


def tuned_selector(selector: Any, tuning: Mapping[str, Any], random_state: int | None) -> Any:
    """Wrap a selector in :class:`TunedSelector` as described by a parsed ``tuning``."""
    from ._tuning import make_scorer

    tw = dict(tuning["tune_with"])
    learner = _nested(str(tw.pop("method")), tw, "tune_with", random_state, False)
    n = selector.get_params(deep=False).get("n_features_to_select")
    # a coordinate search starts the learner's parameters at their values in its table
    lstart = {p: learner.get_params()[p] for p in tuning.get("learner_grid", {})}
    return TunedSelector(
        selector, learner, {p: list(v) for p, v in tuning["grid"].items()},
        make_scorer(tuning["scoring"]),
        make_inner_cv(tuning["inner_cv"], random_state), n_features_to_select=n,
        random_state=random_state, search=tuning.get("search", "grid"),
        start={**tuning.get("start", {}), **lstart, **tuning.get("learner_start", {})},
        learner_grid=dict(tuning.get("learner_grid", {})) or None,
    )


def check_tuning_grid(estimator: Any, tuning: Mapping[str, Any], key: str) -> None:
    valid = set(estimator.get_params(deep=True))
    for p in tuning["grid"]:
        if p not in valid:
            near = difflib.get_close_matches(p, sorted(valid), n=1)
            hint = f" (did you mean {near[0]!r}?)" if near else ""
            raise ValueError(
                f"{key}.tune.{p}: {type(estimator).__name__} has no parameter {p!r}{hint}; "
                f"tunable: {', '.join(sorted(valid))}."
            )


# --------------------------------------------------------------------------- variants
def expand_variants(name: str, body: Mapping[str, Any], key: str) -> list[tuple[str, dict]]:
    """Expand a method table's ``variants`` (parameter → list of values) into one named
    method per combination: ablation switches (``order = ["pca", "given"]``) or one
    wrapper search per metric (``metric = ["one_error", "coverage"]``).

    Names are ``name[p=v,q=w]``; the values are set as parameters of each copy. A key
    ``a__b`` sets parameter ``b`` of the nested table ``a``; ``"x+y"`` sets several
    parameters to the same value (``"weighter__k+learner__k" = [5, 10]``: one k for the
    weights and the learner; named by the last part, ``k=5``).
    """
    body = dict(body)
    var = body.pop("variants", None)
    if var is None:
        return [(name, body)]
    if not isinstance(var, Mapping) or not var:
        raise ValueError(f"{key}.variants: a table parameter -> list of values is needed.")
    keys = list(var)
    for p in keys:
        if not isinstance(var[p], Sequence) or isinstance(var[p], str) or not var[p]:
            raise ValueError(f"{key}.variants.{p}: a non-empty list of values is needed.")
    from ._tuning import OPTION_KEYS  # method options are not parameters

    out = []
    for combo in itertools.product(*(var[p] for p in keys)):
        b = {k: v for k, v in body.items()
             if k not in ("params", "method") and k not in _TUNING_KEYS
             and k not in OPTION_KEYS}
        merged = {**dict(body.get("params", {})), **b}  # params may be given either way
        tuning = {k: v for k, v in body.items() if k in _TUNING_KEYS or k in OPTION_KEYS}
        for p, v in zip(keys, combo, strict=True):
            for path in p.split("+"):
                if path.strip() in OPTION_KEYS:  # e.g. seed_offset: an option, not a param
                    tuning[path.strip()] = v
                else:
                    _set_path(merged, path.strip(), v, f"{key}.variants.{p}")
        label = ",".join(
            f"{p.split('+')[-1].strip().rpartition('__')[2]}={_fmt(v)}"
            for p, v in zip(keys, combo, strict=True)
        )
        out.append((f"{name}[{label}]", {"method": body.get("method", name),
                                          "params": merged, **tuning}))
    return out


def _set_path(params: dict, path: str, value: Any, key: str) -> None:
    """Set ``a__b`` = parameter ``b`` of the nested method table ``a`` (copied first)."""
    head, sep, rest = path.partition("__")
    if not sep:
        params[head] = value
        return
    sub = params.get(head)
    if not _is_table(sub):
        raise ValueError(f"{key}: {head!r} is not a nested method table of this method.")
    sub = dict(sub)
    _set_path(sub, rest, value, key)
    params[head] = sub


def _fmt(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


# --------------------------------------------------------------------------- cell info
def _jsonable(v: Any) -> Any:
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating,)):
        return float(v)
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, Mapping):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, (str, int, float, bool)) or v is None:
        return v
    return repr(v)


def fitted_info(est: Any, record: Mapping[str, Any] | None = None) -> dict:
    """What a fitted method records with its cell (JSON-ready; empty when nothing).

    * a ``GridSearchCV``: ``best_params`` and, per candidate, the parameters and mean /
      std inner score (``inner_scores``; greater is better, losses negated), and the
      info of the refitted best estimator;
    * a pipeline: the info of each step that has some, by step name;
    * a :class:`WeightedLearner`: its weighter's info;
    * a wrapper search with a convergence record (``history_`` holding ``best_loss``,
      e.g. :class:`~skmlfs.selection.MemeticSelector`): ``history`` = the best fitness
      after every evaluation, and ``n_evaluations``;
    * an optimiser with ``objective_`` (RLEFS, MIFS, RALM-FS): ``objective``, its value
      after every iteration;
    * with the selector option ``record`` (:func:`~skmlfs.experiments._histories.search_records`),
      more of the wrapper's ``history_``: ``low_labels`` and ``success_ratio``.
    """
    info: dict[str, Any] = {}
    if hasattr(est, "best_params_") and hasattr(est, "cv_results_"):
        r = est.cv_results_
        info["best_params"] = _jsonable(est.best_params_)
        info["inner_scores"] = [
            {"params": _jsonable(p), "mean": float(m), "std": float(s)}
            for p, m, s in zip(r["params"], r["mean_test_score"], r["std_test_score"],
                               strict=True)
        ]
        sub = fitted_info(est.best_estimator_)
        if sub:
            info["best_estimator"] = sub
        return info
    steps = getattr(est, "steps", None)
    if isinstance(steps, list):
        for nm, st in steps:
            sub = fitted_info(st)
            if sub:
                info[nm] = sub
        return info
    if isinstance(est, WeightedLearner) and hasattr(est, "weighter_"):
        sub = fitted_info(est.weighter_)
        if sub:
            info["weighter"] = sub
        return info
    obj = getattr(est, "objective_", None)  # an optimiser's objective per iteration (RLEFS)
    if obj is not None and np.ndim(obj) == 1 and len(obj):
        info["objective"] = [float(x) for x in np.ravel(obj)]
    hist = getattr(est, "history_", None)
    if isinstance(hist, Mapping) and "best_loss" in hist:
        info["history"] = [float(x) for x in np.ravel(hist["best_loss"])]
        if hasattr(est, "n_evaluations_"):
            info["n_evaluations"] = int(est.n_evaluations_)
        if record:
            from ._histories import search_records

            info.update(search_records(hist, record))
    return info
