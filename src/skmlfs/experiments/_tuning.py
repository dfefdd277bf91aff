"""Generic pieces of the RLEFS protocol (Li, Hu & Gao 2022, §5.1) for the experiment engine.

* :class:`MinMaxScale` — min–max scaling fitted on the training part (test values clipped
  to [0, 1]; sparse non-negative data stays sparse), usable as a dataset ``discretizer``
  (the data every learner sees) or as a selector's ``preprocess``.
* :class:`FractionalOnly` — the ``discretizer="auto"`` rule with another discretizer:
  integer-valued data as it is, data with fractional values through ``discretizer``.
* :class:`MeanScorer` — the mean of several metrics (``scoring = ["macro_f1",
  "micro_f1"]``: (Macro-F1 + Micro-F1)/2, RLEFS's tuning criterion).
* :func:`search_selector` — the inner search of :class:`TunedSelector` with memos: one
  selector fit per (fold, selector setting), one learner fit per (fold, feature set,
  learner setting); the learner's own grid (e.g. LinearSVC's ``C``) searched jointly.
* method options (keys of a method table): ``preprocess``,
  ``feature_order = "index"``, ``by_dataset`` (see ``docs/experiment_file.md``), and
  selectors tuned with each learner separately (``tune_with = "learner"``); a learner's
  ``tune_budget = "largest"`` (tuned once at the largest budget, the choice reused).
"""

from __future__ import annotations

import dataclasses
import itertools
import numbers
import warnings
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.utils.validation import check_is_fitted

from ..selection import selection_order
from ._cells import array_digest

__all__ = [
    "FractionalOnly",
    "MeanScorer",
    "MinMaxScale",
    "OPTION_KEYS",
    "for_dataset",
    "parse_options",
    "per_learner",
    "search_selector",
]

#: method-table keys read by this module (stored in ``MethodSpec.options``); the option
#: ``budgets = "refit"`` is no key: the planner sets it from the selector tags
#: (``skmlfs.experiments._runner.refit_budgets``)
OPTION_KEYS = ("preprocess", "feature_order", "by_dataset", "datasets",
               "learners", "n_features", "sensitivity", "record", "selectors", "seed_offset")


# --------------------------------------------------------------------------- transformers
class MinMaxScale(TransformerMixin, BaseEstimator):
    """Scale every feature to [0, 1] by the training part's minimum and range.

    ``x' = (x - lo) / (hi - lo)`` with ``lo``, ``hi`` the column minimum and maximum of the
    training data (a constant column has range 1); test values are clipped to [0, 1]. For
    sparse data ``lo = min(min, 0)`` and, with non-negative data (``lo = 0``), the scaling
    is a column multiplication that keeps the matrix sparse.

    Attributes
    ----------
    lo_, range_ : ndarray of shape (n_features,)
    """

    def fit(self, X: Any, Y: Any = None) -> MinMaxScale:
        if sp.issparse(X):
            lo = np.minimum(np.asarray(X.min(axis=0).toarray()).ravel(), 0)
            hi = np.asarray(X.max(axis=0).toarray()).ravel()
        else:
            X = np.asarray(X, dtype=float)
            lo, hi = X.min(axis=0), X.max(axis=0)
        self.lo_ = lo
        self.range_ = np.where(hi - lo > 0, hi - lo, 1.0)
        self.n_features_in_ = int(np.shape(X)[1])
        return self

    def transform(self, X: Any) -> Any:
        check_is_fitted(self, "range_")
        if sp.issparse(X):
            if np.any(self.lo_ != 0):
                raise ValueError("MinMaxScale keeps sparse data sparse only when it is "
                                 "non-negative; densify it first.")
            return sp.csr_matrix(X.multiply(1.0 / self.range_[None, :]))
        return np.clip((np.asarray(X, dtype=float) - self.lo_) / self.range_, 0.0, 1.0)


class FractionalOnly(TransformerMixin, BaseEstimator):
    """``discretizer`` for data with fractional values; integer-valued data as it is.

    The selectors' ``discretizer="auto"`` rule (:func:`skmlfs.discretize.is_discrete`) with
    a discretizer of one's choice instead of LAIM (RLEFS §5.1: the information-theoretic
    baselines get equal-frequency bins on numeric data).
    """

    def __init__(self, discretizer: Any = None):
        self.discretizer = discretizer

    def fit(self, X: Any, Y: Any = None) -> FractionalOnly:
        from ..discretize import is_discrete

        if self.discretizer is None:
            raise ValueError("FractionalOnly needs a discretizer.")
        self.discretizer_ = None if is_discrete(X) else clone(self.discretizer).fit(X, Y)
        self.n_features_in_ = int(np.shape(X)[1])
        return self

    def transform(self, X: Any) -> Any:
        check_is_fitted(self, "n_features_in_")
        return X if self.discretizer_ is None else self.discretizer_.transform(X)


# --------------------------------------------------------------------------- scoring
class MeanScorer:
    """``scorer(estimator, X, Y)``: the mean of several scorers (greater is better), e.g.
    (Macro-F1 + Micro-F1)/2 (RLEFS §5.1). The estimator predicts once."""

    def __init__(self, metrics: Sequence[Mapping[str, Any]]):
        self.metrics = [dict(m) for m in metrics]

    def __call__(self, estimator: Any, X: Any, Y: Any) -> float:
        from ..metrics import get_metric

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


def parse_scoring(scoring: Any, key: str) -> dict | None:
    """``scoring = ["macro_f1", "micro_f1"]`` (a list: their mean) as a parsed table
    ``{"mean": [{metric, ...}, ...]}``; ``None`` for the other forms."""
    from ..metrics import METRICS

    if isinstance(scoring, str) or not isinstance(scoring, Sequence):
        return None
    items = []
    for i, m in enumerate(scoring):
        m = {"metric": m} if isinstance(m, str) else dict(m)
        if isinstance(m.get("metric"), str):  # scikit-learn's spellings too
            from ._spec import _our_metric

            m["metric"] = _our_metric(m["metric"])
        if m.get("metric") not in METRICS:
            raise ValueError(f"{key}.scoring[{i}]: a registered metric; got {m!r}.")
        items.append(m)
    if not items:
        raise ValueError(f"{key}.scoring: a non-empty list of metrics (their mean).")
    return {"mean": items}


def make_scorer(scoring: Mapping[str, Any]) -> Any:
    """The scorer of a parsed ``scoring`` table (a metric, or the mean of several)."""
    if "mean" in scoring:
        return MeanScorer(scoring["mean"])
    from ._methods import metric_scorer

    sc = dict(scoring)
    metric = sc.pop("metric")
    params = sc.pop("params", {})
    return metric_scorer(metric, **{**params, **sc})


# --------------------------------------------------------------------------- the search
def _feature_set(est: Any, n: int | None) -> tuple[int, ...]:
    r = selection_order(est)[:n]
    return tuple(int(i) for i in np.sort(r))


_SETS_CACHE: OrderedDict = OrderedDict()
_SETS_CACHE_SIZE = 50_000  # (key, small tuple) pairs, about 0.5 kB each: < 30 MB


def _fit_key(est: Any, n: int | None, digest: str) -> tuple | None:
    """Key of a deterministic selector fit (``None``: not cacheable, e.g. unseeded)."""
    import numbers

    from ._spec import canonical_json

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


# --------------------------------------------------------------------------- method options
def parse_options(body: dict, key: str, kind: str, tuning_keys: Sequence[str]) -> dict:
    """Pop and check the option keys of a method table (``OPTION_KEYS``)."""
    from ._methods import parse_tuning

    if "budgets" in body:
        # the selector says it (SelectorTags.nested_budgets), the planner reads it
        raise ValueError(f"{key}.budgets: no longer a key of a method table: a selector "
                         "whose selection for a smaller budget is not a prefix of its "
                         "selection for a larger one (RALM-FS, the memetic and genetic "
                         "searches: SelectorTags.nested_budgets = False) is refitted for "
                         "each budget without it; remove the key.")
    opts: dict[str, Any] = {}
    for k in OPTION_KEYS:
        if k in body:
            opts[k] = body.pop(k)
    if kind != "selector":
        for k in ("preprocess", "feature_order", "datasets", "learners",
                  "n_features", "sensitivity", "record"):
            if k in opts:
                raise ValueError(f"{key}.{k}: only for selectors.")
    elif "selectors" in opts:
        raise ValueError(f"{key}.selectors: only for learners.")
    for k in ("datasets", "learners", "selectors"):
        v = opts.get(k)
        if v is not None and (isinstance(v, str) or not isinstance(v, Sequence) or not v):
            raise ValueError(f"{key}.{k}: a non-empty list of names.")
    if "n_features" in opts:
        from ._spec import parse_n_features

        parse_n_features(opts["n_features"], f"{key}.n_features_to_select")
    if "sensitivity" in opts and not isinstance(opts["sensitivity"], str):
        raise ValueError(f"{key}.sensitivity: the name of the parameter varied.")
    off = opts.get("seed_offset")
    if off is not None and (isinstance(off, bool) or not isinstance(off, numbers.Integral)):
        raise ValueError(f"{key}.seed_offset: an integer added to the estimator seed; "
                         f"got {off!r}.")
    if "record" in opts:
        from ._histories import check_record

        check_record(opts["record"], f"{key}.record")
    if opts.get("feature_order", "ranking") not in ("ranking", "index"):
        raise ValueError(f"{key}.feature_order: 'ranking' or 'index'; got "
                         f"{opts['feature_order']!r}.")
    if opts.get("feature_order") == "ranking":
        del opts["feature_order"]
    if "by_dataset" in opts:
        bd = opts["by_dataset"]
        if not isinstance(bd, Mapping):
            raise ValueError(f"{key}.by_dataset: a table dataset name -> overrides.")
        base = {k: body[k] for k in tuning_keys if k in body}
        parsed = {}
        for ds, ov in bd.items():
            if not isinstance(ov, Mapping):
                raise ValueError(f"{key}.by_dataset.{ds}: a table of overrides.")
            ov = dict(ov)
            params = dict(ov.pop("params", {}))
            bad = set(ov) - set(tuning_keys)
            if bad:
                raise ValueError(f"{key}.by_dataset.{ds}: unknown key(s) {sorted(bad)}; "
                                 f"allowed: params, {', '.join(sorted(tuning_keys))}.")
            merged = {**base, **ov}
            if merged.get("tune_search") == "grid":  # no start point in an exhaustive grid
                merged.pop("tune_start", None)
            tuning = parse_tuning(merged, f"{key}.by_dataset.{ds}") if (
                base or ov) else None
            parsed[str(ds)] = {"params": params, "tuning": tuning}
        opts["by_dataset"] = parsed
    return opts


def for_dataset(spec: Any, dataset: str) -> Any:
    """The method as run on ``dataset``: its ``by_dataset`` overrides applied (and the
    table dropped, so the identity is that of the effective method)."""
    opts = dict(getattr(spec, "options", None) or {})
    bd = opts.pop("by_dataset", None)
    if bd is None:
        return spec
    ov = bd.get(dataset)
    if ov is None:
        return dataclasses.replace(spec, options=opts)
    return dataclasses.replace(spec, options=opts, params={**spec.params, **ov["params"]},
                               tuning=ov["tuning"] if ov["tuning"] is not None else spec.tuning)


def per_learner(selectors: Sequence[Any], learners: Sequence[Any]) -> list[tuple[Any, list]]:
    """Pairs (selector, learners that evaluate it). A selector with ``tune_with =
    "learner"`` becomes one copy per learner, tuned with that learner (jointly with the
    learner's own ``tune`` grid, from its ``tune_start``) and evaluated by it alone."""
    out: list[tuple[Any, list]] = []
    for sel in selectors:
        only = (getattr(sel, "options", None) or {}).get("learners")  # its learners only
        names = {sel.name, sel.name.split("[", 1)[0]}  # itself and all its variants
        use = [m for m in learners if (only is None or m.name in only) and (
            (getattr(m, "options", None) or {}).get("selectors") is None
            or names & set(m.options["selectors"]))]  # a learner's own selectors only
        if not (sel.tuning and sel.tuning.get("tune_with") == "learner"):
            out.append((sel, use))
            continue
        for lrn in use:
            lt = dict(lrn.tuning or {})
            tuning = {**sel.tuning, "tune_with": {"method": lrn.method, **dict(lrn.params)}}
            if lt.get("grid"):
                tuning["learner_grid"] = dict(lt["grid"])
                if lt.get("start"):
                    tuning["learner_start"] = dict(lt["start"])
            out.append((dataclasses.replace(sel, tuning=tuning), [lrn]))
    return out


def runs_on(spec: Any, dataset: str) -> bool:
    """A method with ``datasets = [...]`` runs on those data sets only."""
    only = (getattr(spec, "options", None) or {}).get("datasets")
    return only is None or dataset in only or dataset.split(" (train")[0] in only


def selector_budgets(sel: Any, ks: Sequence[int], n_samples: int, n_features: int) -> list:
    """The budgets of a selector: its own ``n_features`` option, else the experiment's."""
    opt = (getattr(sel, "options", None) or {}).get("n_features")
    if opt is None:
        return list(ks)
    from ._spec import parse_n_features, resolve_n_features_grid

    return resolve_n_features_grid(parse_n_features(opt), n_samples, n_features)


# --------------------------------------------------------------------------- run-time helpers
def refit_ranking(task: Any, k: int, Xtr: Any, Ytr: Any) -> np.ndarray:
    """A selector whose budgets are not nested (``SelectorTags.nested_budgets`` False, e.g.
    RALM-FS) fitted with ``n_features_to_select = k``; its support in index order."""
    est = task.selector.build(n_features_to_select=int(k), random_state=task.seed,
                              nominal_columns=task.categorical_features)
    est.fit(Xtr, Ytr)
    return np.asarray(est.get_support(indices=True), dtype=np.intp)


def learner_at_largest(cell: Any, feats_max: np.ndarray, Xtr: Any, Ytr: Any, seed: Any,
                       memo: dict) -> Any:
    """``tune_budget = "largest"``: the learner's grid searched once, on the features of the
    largest budget; every cell gets the untuned learner with the chosen parameters."""
    from ._spec import MethodSpec

    lrn = cell.learner
    if lrn.name not in memo:
        est = lrn.build(random_state=seed).fit(Xtr[:, feats_max], Ytr)
        memo[lrn.name] = dict(est.best_params_)
    best = memo[lrn.name]
    plain = dataclasses.replace(lrn, tuning=None).build(random_state=seed).set_params(**best)
    return dataclasses.replace(cell, learner=MethodSpec(
        name=lrn.name, method=lrn.method, params=lrn.params, kind="learner", prototype=plain))
