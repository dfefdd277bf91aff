"""Method tables as estimators: building, nested tuning, variants, method options, and
what a fitted method tells the store.

An experiment's selector or learner is a *method table*. Besides a registered name with
its parameters, a table may nest other method tables, which are built into estimators:

* ``method = "pipeline"`` with ``steps = [table, table, ...]``: a
  :class:`sklearn.pipeline.Pipeline` (e.g. discretizer → selector → BR + LinearSVC); step
  names are the steps' method names, so ``rlefs__alpha`` addresses a step's parameter;
* ``method = "weighted"`` with ``weighter`` and ``learner`` tables:
  :class:`~skmlfs.model_selection.WeightedLearner`, the weighter's feature weights fed into
  the learner's weighted distance (ReliefF-ML weights into ML-kNN, Reyes et al. 2013);
* any parameter whose value is a table with a ``method`` key becomes that estimator
  (``estimator = { method = "sklearn.svm:LinearSVC", C = 0.1 }``).

Nested tuning (``tune``, ``inner_cv``, ``scoring`` keys of a method table) wraps the built
estimator in :class:`sklearn.model_selection.GridSearchCV` (or
:class:`~skmlfs.model_selection.CoordinateSearchCV`, or
:class:`~skmlfs.model_selection.TunedSelector` for a selector tuned with a learner): the
grid is searched by inner cross-validation on the training part of the outer split only,
refitted on the whole training part with the chosen parameters, and :func:`fitted_info`
records the choice and every candidate's inner score with the cell.

This module is part of the spec layer: it parses the method keys of an experiment file
(``parse_tuning``, ``parse_options``, ``expand_variants``) and builds what they describe;
it imports the registry and the library, never the rest of the engine.
"""

from __future__ import annotations

import difflib
import itertools
import numbers
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline

from ..metrics import METRICS, metric_name
from ..model_selection import (
    CoordinateSearchCV,
    MeanScorer,
    TunedSelector,
    WeightedLearner,
    make_inner_cv,
    metric_scorer,
)
from ._histories import check_record, search_records
from ._registry import default_params, param_names, resolve

__all__ = [
    "OPTION_KEYS",
    "build_method",
    "check_tuning_grid",
    "expand_variants",
    "fitted_info",
    "make_scorer",
    "parse_options",
    "parse_scoring",
    "parse_tuning",
    "tuned",
    "tuned_selector",
]


#: the kinds whose registries a nested ``method`` name is looked up in, in this order
_NESTED_KINDS = ("learner", "selector", "discretizer")


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
    (``"iterative"``: :class:`~skmlfs.model_selection.IterativeStratifiedKFold`), default 5;
    ``scoring``: a registered metric name or ``{metric, ...params}``; default
    ``hamming_loss``. Returns ``None`` when the table has no ``tune``.
    """
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


def tuned(estimator: Any, tuning: Mapping[str, Any], random_state: int | None) -> Any:
    """Wrap ``estimator`` in ``GridSearchCV`` (or :class:`CoordinateSearchCV` with
    ``search = "coordinate"``) as described by a parsed ``tuning``."""
    return _search(
        estimator,
        {p: list(v) for p, v in tuning["grid"].items()},
        make_scorer(tuning["scoring"]),
        make_inner_cv(tuning["inner_cv"], random_state),
        tuning,
    )


def _search(estimator: Any, grid: dict, scoring: Any, cv: Any, tuning: Mapping) -> Any:

    if tuning.get("search") == "coordinate":
        return CoordinateSearchCV(estimator, grid, scoring=scoring, cv=cv,
                                  start=dict(tuning.get("start", {})))
    return GridSearchCV(estimator, grid, scoring=scoring, cv=cv, refit=True,
                        error_score="raise")


def tuned_selector(selector: Any, tuning: Mapping[str, Any], random_state: int | None) -> Any:
    """Wrap a selector in :class:`TunedSelector` as described by a parsed ``tuning``."""
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
            info.update(search_records(hist, record))
    return info


#: method-table keys read by this module (stored in ``MethodSpec.options``); the option
#: ``budgets = "refit"`` is no key: the planner sets it from the selector tags
#: (``skmlfs.experiments._planner.refit_budgets``)
OPTION_KEYS = ("preprocess", "feature_order", "by_dataset", "datasets",
               "learners", "n_features", "sensitivity", "record", "selectors", "seed_offset")


def parse_scoring(scoring: Any, key: str) -> dict | None:
    """``scoring = ["macro_f1", "micro_f1"]`` (a list: their mean) as a parsed table
    ``{"mean": [{metric, ...}, ...]}``; ``None`` for the other forms."""
    if isinstance(scoring, str) or not isinstance(scoring, Sequence):
        return None
    items = []
    for i, m in enumerate(scoring):
        m = {"metric": m} if isinstance(m, str) else dict(m)
        if isinstance(m.get("metric"), str):  # scikit-learn's spellings too

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

    sc = dict(scoring)
    metric = sc.pop("metric")
    params = sc.pop("params", {})
    return metric_scorer(metric, **{**params, **sc})


# --------------------------------------------------------------------------- method options
def parse_options(body: dict, key: str, kind: str, tuning_keys: Sequence[str]) -> dict:
    """Pop and check the option keys of a method table (``OPTION_KEYS``)."""
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
    # "n_features" is checked by the spec, which owns the budget syntax
    if "sensitivity" in opts and not isinstance(opts["sensitivity"], str):
        raise ValueError(f"{key}.sensitivity: the name of the parameter varied.")
    off = opts.get("seed_offset")
    if off is not None and (isinstance(off, bool) or not isinstance(off, numbers.Integral)):
        raise ValueError(f"{key}.seed_offset: an integer added to the estimator seed; "
                         f"got {off!r}.")
    if "record" in opts:
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


def _our_metric(name: str) -> str:
    """Our name of a metric spelled any accepted way (``skmlfs.metrics.metric_name``); an
    unknown name is returned as it is, for the caller's error message."""
    try:
        return metric_name(name)
    except KeyError:
        return name


def glob_match(name: str, glob: str) -> bool:
    """``*`` matches any text; every other character (``[``, ``?`` too) only itself (method
    names such as ``k[k=0.2]`` come from ``variants``)."""
    return re.fullmatch(".*".join(re.escape(x) for x in glob.split("*")), name) is not None


def _param(params: Mapping, path: str) -> Any:
    head, sep, rest = path.partition("__")
    v = params.get(head)
    if not sep:
        if v is None and head not in params:
            raise KeyError(path)
        return v
    if isinstance(v, Mapping):
        return _param({k: x for k, x in v.items() if k != "method"}, rest)
    raise KeyError(path)
