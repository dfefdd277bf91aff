"""ELA+χ²: entropy-based label assignment (Chen et al. 2007) with the χ² statistic.

Each training pattern with label set ``Y_i`` is copied once per label ``l ∈ Y_i``, with
that label as its single class and weight ``1/|Y_i|`` (the uniform, maximum-entropy
assignment); every feature is scored by the χ² statistic of its *weighted* contingency
table against that class (``docs/methods/info.md#ela-chi2``). The copies are never made:
the weighted table of every feature comes from one sparse product of the count engine's
indicator matrix with the row-normalised label matrix.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import validate_data

from .._validation import check_labels, resolve_n_features
from ..info import DiscreteData
from ._base import TIE_RTOL, TIE_TOL, BaseInfoSelector, degenerate_selection

__all__ = ["ELACHI", "ela_weights", "weighted_chi2_scores"]

#: Largest number of stored entries of one block of weighted counts (the tables of a block
#: of variables, kept sparse); the variables are processed in blocks below it.
_BLOCK_NNZ = 1 << 21


def ela_weights(Y: Any) -> sp.csr_matrix:
    """The ELA assignment: ``W_il = y_il / |Y_i|`` (0 for a pattern without labels).

    Row ``i`` of the result spreads the unit weight of pattern ``i`` uniformly over its
    labels (Chen et al. 2007, "entropy-based label assignment"); a pattern with no label
    has weight 0 and contributes nothing.

    Parameters
    ----------
    Y : array-like or sparse matrix of shape (n_samples, n_labels), 0/1

    Returns
    -------
    scipy.sparse.csr_matrix of shape (n_samples, n_labels), float64
    """
    Y = sp.csr_matrix(Y, dtype=np.float64)
    Y.eliminate_zeros()
    size = np.diff(Y.indptr)
    inv = np.divide(1.0, size, out=np.zeros(size.size), where=size > 0)
    return sp.csr_matrix(sp.diags(inv) @ Y)


def weighted_chi2_scores(D: DiscreteData, W: Any) -> np.ndarray:
    """χ² of every variable of ``D`` against the classes of a weighted assignment ``W``.

    ``W`` (n, c), non-negative, gives the weight ``W_ic`` with which row ``i`` belongs to
    class ``c``. For variable ``f`` the weighted table is ``O_vc = Σ_i [f_i = v] W_ic``,
    with margins ``r_v = Σ_c O_vc`` and ``s_c = Σ_v O_vc`` and total ``T = Σ W``; the
    statistic is ``Σ_{v, c: E_vc > 0} (O_vc − E_vc)² / E_vc`` with
    ``E_vc = r_v s_c / T``. Cells with ``E = 0`` (a value met only in rows of weight 0,
    a class of weight 0) are skipped: their ``O`` is 0 too, so this is the statistic of
    the table restricted to the values and classes that occur. With ``W`` the one-hot
    matrix of a class vector this is the ordinary χ² (PPT+χ²'s
    :func:`~skmlfs.selection._ppt_filters.chi2_scores`).

    Over the cells of a row ``v`` with ``r_v > 0``, ``Σ_c O_vc = Σ_c E_vc = r_v``, so the
    row contributes ``(T / r_v) Σ_c O_vc² / s_c − r_v``: only the non-zero cells of the
    table enter, and the tables stay sparse (the count engine's indicator matrix times
    ``W``, one sparse product per block of variables). The value-0 row of each table,
    ``O_0c = s_c − R_c`` with ``R`` the sum of the other rows, contributes
    ``(T / r_0)(T − 2 Σ_c R_c + Σ_c R_c² / s_c) − r_0``.

    Parameters
    ----------
    D : DiscreteData
        The (discrete) features.
    W : array-like or sparse matrix of shape (n, c)

    Returns
    -------
    ndarray of shape (p,)
        0 for every variable when the total weight is 0, and for one-valued variables.
    """
    W = sp.csc_matrix(W, dtype=np.float64)
    N, p = D.n_samples, D.n_vars
    if W.shape[0] != N:
        raise ValueError(f"W must have {N} rows; got {W.shape[0]}.")
    s = np.asarray(W.sum(axis=0)).ravel()  # class margins
    out = np.zeros(p)
    T = float(s.sum())
    if T <= 0 or p == 0:
        return out
    keep = s > 0  # classes of weight 0 have E = O = 0 in every cell
    W, s = sp.csr_matrix(W[:, keep]), s[keep]
    inv_s = 1.0 / s
    w_row = np.asarray(W.sum(axis=1)).ravel()  # weight of each row
    ind = D.indicators
    m = int(D.ptr[-1])
    var_of_col = np.repeat(np.arange(p), D.arity - 1)
    r = np.asarray(ind.T @ w_row, dtype=np.float64).ravel()  # r_v of the non-zero codes
    # an upper bound on the stored entries of each code's row of the table, to size blocks
    est = np.asarray(ind.T @ np.diff(W.indptr).astype(np.float64)).ravel()
    q2 = np.zeros(m)  # Σ_c O_vc² / s_c of every non-zero code v
    R2 = np.zeros(p)  # Σ_c R_c² / s_c of every variable
    R_sum = np.bincount(var_of_col, weights=r, minlength=p)  # Σ_c R_c = Σ_{v≠0} r_v
    r0 = T - R_sum
    present0 = r0 > 1e-12 * T  # value 0 met in rows of positive weight
    # where value 0 carries little weight, (T / r_0)(...) − r_0 would cancel large terms:
    # those rows are summed cell by cell instead (few variables: value 0 is the most
    # frequent value of each variable)
    direct0 = present0 & (r0 < 1e-3 * T)
    zero_row = np.zeros(p)
    cum = np.concatenate([[0.0], np.cumsum(est)])
    a = 0
    while a < p:
        # the largest block of whole variables whose entries stay below the cap
        limit = cum[D.ptr[a]] + _BLOCK_NNZ
        b = int(np.searchsorted(cum[D.ptr], limit, side="right")) - 1
        b = min(max(b, a + 1), p)
        c0, c1 = int(D.ptr[a]), int(D.ptr[b])
        if c1 > c0:
            block = ind[:, c0:c1]
            if not sp.issparse(block):
                block = sp.csc_matrix(block)
            O = sp.csr_matrix(block.T @ W)  # (codes of the block) × classes, sparse
            q2[c0:c1] = O.multiply(O) @ inv_s
            G = sp.csr_matrix(
                (np.ones(c1 - c0), (var_of_col[c0:c1] - a, np.arange(c1 - c0))),
                shape=(b - a, c1 - c0),
            )
            R = sp.csr_matrix(G @ O)
            R2[a:b] = R.multiply(R) @ inv_s
            for j in np.flatnonzero(direct0[a:b]):
                O0 = s - R[j].toarray().ravel()
                E0 = r0[a + j] * s / T
                zero_row[a + j] = float(((O0 - E0) ** 2 / E0).sum())
        a = b
    # rows of the non-zero codes (r_v > 0 only: an absent value has no cells)
    with np.errstate(divide="ignore", invalid="ignore"):
        rows = np.where(r > 0, T * q2 / np.where(r > 0, r, 1.0) - r, 0.0)
    out = np.bincount(var_of_col, weights=rows, minlength=p)
    ok = present0 & ~direct0
    out[ok] += T * (T - 2.0 * R_sum[ok] + R2[ok]) / r0[ok] - r0[ok]
    out[direct0] += zero_row[direct0]
    # a one-valued table has χ² = 0; differences of sums can leave −1e-13 elsewhere
    out[D.arity <= 1] = 0.0
    return np.maximum(out, 0.0)


def _order_by_score(score: np.ndarray, k: int) -> np.ndarray:
    """The ``k`` largest scores, largest first; scores within the library's tie tolerance
    (``TIE_TOL + TIE_RTOL·|max|`` of their neighbour in the sorted order) are one tied
    group, ordered by lowest index."""
    order = np.argsort(-score, kind="stable")
    if order.size == 0:
        return order
    sv = score[order]
    tol = TIE_TOL + TIE_RTOL * float(np.abs(sv).max())
    group = np.cumsum(np.r_[True, (sv[:-1] - sv[1:]) > tol])
    return order[np.lexsort((order, group))][:k]


class ELACHI(BaseInfoSelector):
    """Entropy-based label assignment with the χ² statistic (ELA+χ²).

    Chen, Yan, Zhang, Chen & Yang (ICDM 2007) transform a multi-label data set into a
    single-label one by copying each pattern once per label it carries, with that label
    as its class and weight ``1/|Y_i|`` (``docs/methods/info.md#ela-chi2``). Every
    (discretized) feature ``f`` is then scored by the χ² statistic of its weighted
    contingency table against the class::

        O_vl = Σ_i [f_i = v] y_il / |Y_i|,   E_vl = r_v s_l / T,
        χ²(f) = Σ_v Σ_l (O_vl − E_vl)² / E_vl

    (``r``, ``s`` the margins, ``T`` the number of patterns with at least one label), and
    the features are ranked by decreasing χ². This is the ``ela_chi.m`` baseline of the
    Lee/Kim group's ``CAU-AIR-Lab/PMU`` repository, computed from one sparse product
    instead of materialising the copies.

    Parameters
    ----------
    n_features_to_select : int, float, str or None, default=None
        Count, fraction, budget string, or ``None`` for ⌈√n_samples⌉.
    discretizer : "auto", None or transformer, default="auto"
        See :class:`~skmlfs.selection._base.BaseInfoSelector`. ``None`` tabulates the raw
        values, as ``ela_chi.m`` does.
    categorical_features : None, bool mask or int indices, default=None
        Nominal columns, passed through the discretizer unchanged.
    verbose : int, default=0
        Progress of the fit on stderr.

    Attributes
    ----------
    selection_order_ : ndarray of int
        The first ``n_features_to_select_`` features, largest χ² first (ties, within the
        library's tolerance, by lowest index).
    ranking_ : ndarray of shape (n_features,)
        scikit-learn's ranking, as ``RFE``'s: 1 for the selected features, then 2, 3,
        ... along ``selection_order_``.
    scores_, feature_scores_ : ndarray of shape (n_features,)
        χ² of every feature (0 for a feature constant on the labelled patterns).
    n_labelled_ : int
        Patterns with at least one label (the total weight ``T``); the others do not
        enter the tables.

    Examples
    --------
    >>> from skmlfs.datasets import make_multilabel_discrete
    >>> from skmlfs.selection import ELACHI
    >>> ds = make_multilabel_discrete(random_state=0)
    >>> ELACHI(n_features_to_select=4).fit(ds.X, ds.Y).selection_order_.shape
    (4,)
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.selector_tags.greedy = False
        tags.selector_tags.scores_meaning = (
            "chi2",
            "chi-squared statistic of the feature against the labels, each pattern "
            "copied per label with weight 1 / its label count (ELA)",
        )
        return tags

    def __init__(
        self,
        n_features_to_select: Any = None,
        discretizer: Any = "auto",
        *,
        categorical_features: Any = None,
        verbose: int = 0,
    ):
        super().__init__(
            n_features_to_select=n_features_to_select,
            discretizer=discretizer,
            categorical_features=categorical_features,
            verbose=verbose,
        )

    def _fit(self, X: Any, Y: Any) -> ELACHI:
        X = validate_data(
            self, X, accept_sparse=["csr", "csc"], dtype="numeric", ensure_all_finite=True
        )
        Y = check_labels(Y, X.shape[0], accept_sparse=True, warn_empty=True)
        if degenerate_selection(self, X):
            return self
        Xd = self._discretize(X, Y)
        D = DiscreteData.from_array(Xd)
        W = ela_weights(Y)
        chi = weighted_chi2_scores(D, W)
        k = resolve_n_features(self.n_features_to_select, X.shape[0], X.shape[1])
        order = _order_by_score(chi, k)
        self.feature_scores_ = chi
        self.n_labelled_ = int(np.count_nonzero(np.diff(W.indptr)))
        self._set_order(
            order, k=k, n_samples=X.shape[0], n_selected=int(order.size), scores=chi
        )
        return self

    def _select(self, cache, k):  # pragma: no cover - _fit scores the ELA table
        raise NotImplementedError
