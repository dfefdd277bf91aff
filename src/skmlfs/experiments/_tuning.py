"""Method options of the experiment engine, read when the cells are planned and run.

* :class:`MinMaxScale` — min–max scaling fitted on the training part (test values clipped
  to [0, 1]; sparse non-negative data stays sparse), usable as a dataset ``discretizer``
  (the data every learner sees) or as a selector's ``preprocess``. (scikit-learn's
  ``MinMaxScaler(clip=True)`` does not take sparse input, and experiment files name this
  class in the dataset identity, so replacing it would change the stored cell ids.)
* :class:`FractionalOnly` — the ``discretizer="auto"`` rule with another discretizer:
  integer-valued data as it is, data with fractional values through ``discretizer``.
* the options of a method table (parsed by :mod:`._build`): ``by_dataset``
  (:func:`for_dataset`), ``datasets`` (:func:`runs_on`), ``n_features``
  (:func:`selector_budgets`), selectors tuned with each learner separately
  (``tune_with = "learner"``, :func:`per_learner`), one fit per budget for a selector
  whose budgets are not nested (:func:`refit_ranking`, marked by the planner from the
  selector tags) and a learner's ``tune_budget = "largest"``
  (:func:`learner_at_largest`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.utils.validation import check_is_fitted

from ..discretize import is_discrete
from ._spec import MethodSpec, parse_n_features, resolve_n_features_grid

__all__ = [
    "learner_at_largest",
    "refit_ranking",
    "runs_on",
    "selector_budgets",
    "FractionalOnly",
    "MinMaxScale",
    "for_dataset",
    "per_learner",
]


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
            Z = sp.csr_matrix(X.multiply(1.0 / self.range_[None, :]))
            # clipped to [0, 1] as the dense path: only stored values can leave it (a zero
            # stays 0), so the matrix keeps its sparsity
            np.clip(Z.data, 0.0, 1.0, out=Z.data)
            Z.eliminate_zeros()
            return Z
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
        if self.discretizer is None:
            raise ValueError("FractionalOnly needs a discretizer.")
        self.discretizer_ = None if is_discrete(X) else clone(self.discretizer).fit(X, Y)
        self.n_features_in_ = int(np.shape(X)[1])
        return self

    def transform(self, X: Any) -> Any:
        check_is_fitted(self, "n_features_in_")
        return X if self.discretizer_ is None else self.discretizer_.transform(X)


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
    lrn = cell.learner
    if lrn.name not in memo:
        est = lrn.build(random_state=seed).fit(Xtr[:, feats_max], Ytr)
        memo[lrn.name] = dict(est.best_params_)
    best = memo[lrn.name]
    plain = dataclasses.replace(lrn, tuning=None).build(random_state=seed).set_params(**best)
    return dataclasses.replace(cell, learner=MethodSpec(
        name=lrn.name, method=lrn.method, params=lrn.params, kind="learner", prototype=plain))
