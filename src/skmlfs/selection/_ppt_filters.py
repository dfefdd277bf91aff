"""PPT+MI and PPT+CHI: single-label filters on the pruned problem transformation.

Each training pattern's label set becomes one class, rare label sets are pruned
(:func:`~skmlfs.selection._ppt.pruned_problem_transformation`, Read 2008), and the features
are scored against that single class variable (``docs/methods/info.md#ppt-filters``):

* **PPT+MI** (Doquire & Verleysen 2011): ``I(f; C)`` from the shared count engine;
  ``search="rank"`` ranks by it, ``search="mrmr"`` runs the greedy
  ``J = I(f; C) − (1/|S|) Σ_{s∈S} I(f; s)``. The original's multivariate Kraskov search is
  not reproduced.
* **PPT+CHI**: ``χ²(f) = Σ_v Σ_c (O_vc − E_vc)² / E_vc`` with ``E_vc = n_v n_c / N``
  (cells with ``E = 0`` skipped), the contingency counts ``O`` read from the engine's
  indicator representation with one sparse product.

Both are computed on the pruned rows (with ``strategy="reintroduce"`` a pattern may
appear several times). All features are ranked (constant features score 0 and come last).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import validate_data

from .._validation import check_labels, resolve_n_features
from ..info import DiscreteData, InfoCache, mutual_info
from ._base import BaseInfoSelector, degenerate_selection, mean_redundancy_select
from ._ppt import PPT_CONSTRAINTS, pruned_problem_transformation
from ._tags import get_selector_tags

__all__ = ["PPTCHI", "PPTMI", "chi2_scores"]


def chi2_scores(D: DiscreteData, classes: np.ndarray) -> np.ndarray:
    """χ² statistic of every variable of ``D`` against the class vector, shape (p,).

    ``O_vc`` for the non-zero codes is ``indicatorsᵀ · onehot(classes)``; the code-0 row of
    each variable's table follows by subtraction from the class totals.
    """
    classes = np.asarray(classes)
    N = D.n_samples
    if classes.shape != (N,):
        raise ValueError(f"classes must have shape ({N},); got {classes.shape}.")
    _, cls = np.unique(classes, return_inverse=True)
    nc = int(cls.max()) + 1 if N else 0
    C = sp.csc_matrix((np.ones(N), (np.arange(N), cls.ravel())), shape=(N, nc))
    ind = D.indicators
    O = ind.T @ C if sp.issparse(ind) else (C.T @ ind).T
    O = np.asarray(O.toarray() if sp.issparse(O) else O, dtype=np.float64)  # (m, nc)
    n_c = np.asarray(C.sum(axis=0)).ravel()
    p = D.n_vars
    var_of_col = np.repeat(np.arange(p), D.arity - 1)
    n_v = D.counts.astype(np.float64)

    def cells(O, n_v):
        E = n_v[:, None] * n_c[None, :] / N
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(E > 0, (O - E) ** 2 / np.where(E > 0, E, 1.0), 0.0)
        return t.sum(axis=1)

    # G sums the rows (codes) of each variable: G[var, col] = 1.
    G = sp.csr_matrix(
        (np.ones(var_of_col.size), (var_of_col, np.arange(var_of_col.size))),
        shape=(p, var_of_col.size),
    )
    chi = G @ cells(O, n_v)
    O0 = n_c[None, :] - G @ O  # code-0 row of every variable's table
    n0 = N - G @ n_v
    return chi + cells(O0, n0)


class _PPTFilter(BaseInfoSelector):
    """Validation, discretization and PPT shared by PPT+MI and PPT+CHI.

    Both rank features by a fixed score against the PPT class (``scores_``, every
    feature); PPT+MI's ``search="mrmr"`` is a greedy search (``scores_`` the criterion at
    the step a feature was picked, NaN if never, and ``step_scores_``).
    """

    _parameter_constraints: dict = {**BaseInfoSelector._parameter_constraints, **PPT_CONSTRAINTS}
    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.selector_tags.greedy = False
        return tags

    def __init__(
        self,
        n_features_to_select: Any = None,
        discretizer: Any = "auto",
        min_support: int = 6,
        strategy: str = "discard",
        *,
        categorical_features: Any = None,
        verbose: int = 0,
    ):
        super().__init__(n_features_to_select=n_features_to_select, discretizer=discretizer)
        self.min_support = min_support
        self.strategy = strategy
        self.verbose = verbose
        self.categorical_features = categorical_features

    def _fit(self, X: Any, Y: Any) -> _PPTFilter:
        """Transform ``Y`` by PPT and score the (discretized) features of ``X``."""
        X = validate_data(
            self, X, accept_sparse=["csr", "csc"], dtype="numeric", ensure_all_finite=True
        )
        Y = check_labels(Y, X.shape[0], warn_empty=True)
        if degenerate_selection(self, X):
            return self
        Xd = self._discretize(X, Y)
        rows, classes = pruned_problem_transformation(Y, int(self.min_support), self.strategy)
        Xp = Xd[rows] if not sp.issparse(Xd) else sp.csr_matrix(Xd)[rows]
        D = DiscreteData.from_array(Xp)
        k = resolve_n_features(self.n_features_to_select, X.shape[0], X.shape[1])
        ranking, values = self._score(D, classes, k)
        greedy = get_selector_tags(self).greedy
        self._set_order(
            ranking, k=k, n_samples=X.shape[0], n_selected=int(ranking.size),
            scores=None if greedy else self.feature_scores_,
            step_scores=values if greedy else None,
        )
        self.n_classes_ = int(classes.max()) + 1
        self.n_pruned_rows_ = int(rows.size)
        return self

    def _select(self, cache, k):  # pragma: no cover - _fit scores on the PPT rows
        raise NotImplementedError


class PPTMI(_PPTFilter):
    """PPT + mutual information (Doquire & Verleysen 2011), ``docs/methods/info.md#ppt-filters``.

    Parameters
    ----------
    n_features_to_select : int, float or None, default=None
    discretizer : "auto", None or transformer, default="auto"
        As in :class:`~skmlfs.selection.SCLS`.
    min_support : int, default=6
        PPT pruning threshold ``τ``: label sets seen fewer than ``τ`` times are pruned
        (PyIT-MLFS convention; the RLEFS paper does not state it).
    strategy : {"discard", "reintroduce"}, default="discard"
    search : {"rank", "mrmr"}, default="rank"
        ``"rank"``: by ``I(f; C)``; ``"mrmr"``: greedy ``I(f; C) − mean_{s∈S} I(f; s)``
        (redundancy on the same pruned rows).
    verbose : int, default=0
        Progress of the fit on stderr (steps done, criterion or objective, elapsed time):
        0 none, 1 a line every few seconds, 2 or more every step.

    Attributes
    ----------
    selection_order_ : the first ``n_features_to_select_`` features, best first
    ranking_ : ndarray of shape (n_features,)
        scikit-learn's ranking, as ``RFE``'s: 1 for the selected features, then 2, 3,
        ... along ``selection_order_``.
    scores_ : ndarray of shape (n_features,)
        ``search="rank"``: ``I(f; C)`` of every feature. ``search="mrmr"``: the criterion
        at the step a feature was picked (NaN if never); ``step_scores_`` in step order.
    feature_scores_ : ndarray of shape (n_features,)
        ``I(f; C)`` of every feature (bits).
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.selector_tags.scores_meaning = (
            "ppt_score",
            "search='rank': I(f; C) with the pruned label sets C, bits; search='mrmr': the "
            "criterion at the step the feature was picked (NaN: never)",
        )
        tags.selector_tags.greedy = self.search == "mrmr"
        return tags

    _parameter_constraints: dict = {
        **_PPTFilter._parameter_constraints,
        "search": [StrOptions({"rank", "mrmr"})],
    }

    def __init__(
        self,
        n_features_to_select: Any = None,
        discretizer: Any = "auto",
        min_support: int = 6,
        strategy: str = "discard",
        search: str = "rank",
        *,
        categorical_features: Any = None,
        verbose: int = 0,
    ):
        super().__init__(n_features_to_select, discretizer, min_support, strategy)
        self.search = search
        self.verbose = verbose
        self.categorical_features = categorical_features

    def _score(self, D, classes, k):
        Dc = DiscreteData.from_array(classes[:, None])
        if self.search == "rank":
            rel = mutual_info(D, Dc)[:, 0]
            self.feature_scores_ = rel
            order = np.argsort(-rel, kind="stable")[:k]
            return order, rel[order]
        cache = InfoCache(D, Dc)
        rel = cache.mi_xy[:, 0]
        self.feature_scores_ = rel
        return mean_redundancy_select(cache, rel, np.ones(rel.size, bool), k)


class PPTCHI(_PPTFilter):
    """PPT + χ² statistic, ``docs/methods/info.md#ppt-filters``.

    Ranks the features by ``χ²(f) = Σ_v Σ_c (O_vc − E_vc)² / E_vc`` between each
    (discretized) feature and the PPT class (descending, lowest index on ties).

    Parameters
    ----------
    n_features_to_select, discretizer, min_support, strategy
        As in :class:`PPTMI`.
    verbose : int, default=0
        Progress of the fit on stderr (steps done, criterion or objective, elapsed time):
        0 none, 1 a line every few seconds, 2 or more every step.

    Attributes
    ----------
    selection_order_ : the first ``n_features_to_select_`` features, largest χ² first
    ranking_ : ndarray of shape (n_features,)
        scikit-learn's ranking, as ``RFE``'s: 1 for the selected features, then 2, 3,
        ... along ``selection_order_``.
    scores_, feature_scores_ : ndarray of shape (n_features,)
        χ² of every feature.
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.selector_tags.scores_meaning = (
            "chi2",
            "chi-squared statistic of the feature against the pruned label sets",
        )
        return tags

    def _score(self, D, classes, k):
        chi = chi2_scores(D, classes)
        self.feature_scores_ = chi
        order = np.argsort(-chi, kind="stable")[:k]
        return order, chi[order]
