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
from ..info import DiscreteData, InfoCache, _cache
from ._base import (
    TIE_RTOL,
    TIE_TOL,
    BaseInfoSelector,
    degenerate_selection,
    mean_redundancy_select,
    refuse_row_blocks,
)
from ._ppt import PPT_CONSTRAINTS, pruned_problem_transformation
from ._tags import get_selector_tags

__all__ = ["PPTCHI", "PPTMI", "chi2_scores"]


def _order_with_ties(score: np.ndarray, k: int) -> np.ndarray:
    """The ``k`` best positions by decreasing ``score``; values within ``TIE_TOL +
    TIE_RTOL·|max|`` of their neighbour in that order are tied and go by index (the
    library's tie rule, so that the full table and the label sums, equal up to rounding,
    rank alike)."""
    order = np.argsort(-score, kind="stable")
    if order.size == 0:
        return order[:k]
    v = score[order]
    tol = TIE_TOL + TIE_RTOL * float(np.abs(v).max())
    group = np.concatenate([[0], np.cumsum(v[:-1] - v[1:] > tol)])
    return order[np.lexsort((order, group))][:k]


def chi2_scores(D: DiscreteData, classes: np.ndarray, *, sparse: bool | None = None
                ) -> np.ndarray:
    """χ² statistic of every variable of ``D`` against the class vector, shape (p,).

    ``O_vc`` for the non-zero codes is ``indicatorsᵀ · onehot(classes)``; the code-0 row of
    each variable's table follows by subtraction from the class totals.

    ``sparse`` (default: when the dense ``codes × classes`` table would exceed the
    count engine's full-table threshold, ``FULL_BLOCK_PAIRS`` cells, as
    :func:`~skmlfs.info._cache.use_full_block`) keeps ``O`` sparse: a cell with
    ``O = 0`` contributes ``E``, and ``Σ_c E_vc = n_v``, so only the co-occurring
    (code, class) cells are enumerated, plus the classes of the code-0 row that co-occur
    with a non-zero code (the others contribute ``n_c (N − n_0)² / (N n_0)`` together).
    Equal to the dense table's sums up to rounding; memory ``O(nnz)`` instead of
    ``codes × classes`` (a PPT class has up to ``n`` values).
    """
    classes = np.asarray(classes)
    N = D.n_samples
    if classes.shape != (N,):
        raise ValueError(f"classes must have shape ({N},); got {classes.shape}.")
    _, cls = np.unique(classes, return_inverse=True)
    nc = int(cls.max()) + 1 if N else 0
    C = sp.csc_matrix((np.ones(N), (np.arange(N), cls.ravel())), shape=(N, nc))
    if sparse is None:
        sparse = D.indicators.shape[1] * nc > _cache.FULL_BLOCK_PAIRS
    if sparse:
        return _chi2_sparse(D, C, N)
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


def _chi2_sparse(D: DiscreteData, C: sp.csc_matrix, N: int) -> np.ndarray:
    """:func:`chi2_scores` from the co-occurring (code, class) cells only."""
    p = D.n_vars
    n_c = np.asarray(C.sum(axis=0)).ravel()
    nc = n_c.size
    ind = sp.csc_matrix(D.indicators)
    O = (ind.T @ C).tocoo()  # (m, nc), co-occurring cells only
    v, c, o = O.row, O.col, O.data.astype(np.float64)
    var_of_col = np.repeat(np.arange(p), D.arity - 1)
    n_v = D.counts.astype(np.float64)
    # non-zero codes: Σ_c (O−E)²/E = Σ_{O>0} [(O−E)²/E − E] + Σ_c E,  Σ_c E_vc = n_v
    E = n_v[v] * n_c[c] / N
    chi = np.bincount(var_of_col[v], weights=(o - E) ** 2 / E - E, minlength=p)
    chi += np.bincount(var_of_col, weights=n_v, minlength=p)
    # code-0 row: O0_c = n_c − Σ_v O_vc; classes no non-zero code meets have O0_c = n_c
    n0 = N - np.bincount(var_of_col, weights=n_v, minlength=p)
    keys, inv = np.unique(var_of_col[v].astype(np.int64) * nc + c, return_inverse=True)
    tot = np.bincount(inv.ravel(), weights=o)
    i_g, c_g = keys // nc, keys % nc
    O0 = n_c[c_g] - tot
    E0 = n0[i_g] * n_c[c_g] / N
    with np.errstate(divide="ignore", invalid="ignore"):
        t0 = np.where(E0 > 0, (O0 - E0) ** 2 / np.where(E0 > 0, E0, 1.0), 0.0)
        rest = np.where(n0 > 0, (N - n0) ** 2 / (N * np.where(n0 > 0, n0, 1.0)), 0.0)
    chi += np.bincount(i_g, weights=t0, minlength=p)
    met = np.bincount(i_g, weights=n_c[c_g], minlength=p)  # Σ n_c of the classes met
    chi += rest * (N - met)
    return chi


class _PPTFilter(BaseInfoSelector):
    """Validation, discretization and PPT shared by PPT+MI and PPT+CHI.

    Both rank features by a fixed score against the PPT class (``scores_``, every
    feature); PPT+MI's ``search="mrmr"`` is a greedy search (``scores_`` the criterion at
    the step a feature was picked, NaN if never, and ``step_scores_``).
    """

    _parameter_constraints: dict = {**BaseInfoSelector._parameter_constraints, **PPT_CONSTRAINTS}
    #: what row-block input would need (the message of the error it raises)
    _row_blocks_need = (
        "the pruned problem transformation needs every row's label set (the classes and "
        "their supports over all rows) and copies rows (strategy='reintroduce'); its "
        "score's counts (features × classes) would add up over row blocks, but that "
        "counting is not implemented"
    )

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
        refuse_row_blocks(self, X)
        X = validate_data(
            self, X, accept_sparse=["csr", "csc"], dtype="numeric", ensure_all_finite=True
        )
        # sparse labels stay sparse: the label sets are hashed row by row (label_sets)
        Y = check_labels(Y, X.shape[0], warn_empty=True, accept_sparse=True)
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
        # I(f; C): the class is one variable with up to n values; the cache's policy takes
        # the dense d × (C − 1) count table when small, else the label sums (co-occurring
        # (code, class) cells only: O(nnz) memory)
        cache = InfoCache(D, Dc)
        rel = cache.relevance
        self.feature_scores_ = rel
        if self.search == "rank":
            order = _order_with_ties(rel, k)
            return order, rel[order]
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
        order = _order_with_ties(chi, k)
        return order, chi[order]
