"""ReliefF-ML (Reyes, Morell & Ventura 2013) and PPT+ReliefF (classic ReliefF on the PPT).

Both are Relief estimators: for every sampled instance ``i`` and every *group* (a label for
ReliefF-ML, a class of the transformed problem for PPT+ReliefF) the ``k`` nearest instances
of the group are found, each neighbour ``j`` gets a coefficient ``c_ij`` and the weights
are ``W_f = Σ_(i,j) c_ij δ_f(x_i, x_j)``. The implementation is loop-free in samples and
features:

* distances from a block of sampled instances to the whole training set come from the
  blocked HEOM products of :class:`skmlfs.neighbors.HEOM`, and one pass per group selects
  the ``k`` nearest members of the group for all sampled instances at once (stable
  partition, ties → lower index; :meth:`~skmlfs.neighbors.HEOM.kneighbors_in_groups`);
* the coefficients of all (instance, neighbour) pairs are summed per distinct pair, and the
  weight vector is one product ``c · Δ`` with the per-pair difference matrix ``Δ`` (dense or
  sparse, computed in chunks).
"""

from __future__ import annotations

from numbers import Integral
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.utils import assert_all_finite, check_random_state

from .._progress import report_step
from .._validation import check_labels, resolve_n_features
from ..neighbors import HEOM, check_heom_X
from ._base import NON_NEGATIVE, BaseSelector, Number, degenerate_selection, scale_huge_columns
from ._ppt import PPT_CONSTRAINTS, pruned_problem_transformation

__all__ = ["PPTReliefF", "ReliefFML", "relieff_ml_sample_size"]

# Chunk of the per-pair difference matrix (~8 MB of values; its computation makes a few
# temporaries of the same size), in float64 entries.
_PAIR_CHUNK_ENTRIES = 1_000_000


def relieff_ml_sample_size(n_samples: int) -> int:
    """Number of sampled instances ``m`` by the ReliefF-ML rule (paper §3).

    ``0.1·|E|`` if ``|E| ≤ 5000``, ``0.05·|E|`` if ``5000 < |E| ≤ 10000``, ``0.01·|E|``
    otherwise; rounded half up, at least 1 (rounding is an
    assumption, docs/methods/relieff.md#relieff-ml).
    """
    if n_samples <= 5000:
        frac = 0.1
    elif n_samples <= 10000:
        frac = 0.05
    else:
        frac = 0.01
    return max(1, int(np.floor(frac * n_samples + 0.5)))


def _relief_weights(
    heom: HEOM,
    X: Any,
    samples: np.ndarray,
    groups: list[np.ndarray],
    k: int,
    coefficients: Any,
) -> np.ndarray:
    """``W_f = Σ_(i,j) c_ij δ_f(x_i, x_j)`` over the k nearest members of every group.

    Parameters
    ----------
    heom : fitted HEOM (defines the neighbour distance and ``δ``)
    X : validated data (rows = candidates and sampled instances)
    samples : rows of ``X`` that are sampled (may repeat)
    groups : candidate rows of every group
    k : neighbours per (sample, group)
    coefficients : callable(block, g, nb, valid, k_used) -> (b,) array
        Coefficient given to *each* valid neighbour of group ``g`` for the sampled rows
        ``block``; ``nb`` (b, k') are neighbour rows, ``valid`` marks real neighbours (the
        sample itself is never one) and ``k_used`` counts them.
    """
    n, d = X.shape
    keys: list[np.ndarray] = []
    vals: list[np.ndarray] = []
    for i, (block, g, nb, valid) in enumerate(heom.kneighbors_in_groups(X, samples, groups, k)):
        report_step(i + 1, None, "neighbour block")
        k_used = valid.sum(axis=1)
        c = coefficients(block, g, nb, valid, k_used)
        r, t = np.nonzero(valid & (c != 0)[:, None])
        keys.append(block[r].astype(np.int64) * n + nb[r, t])
        vals.append(c[r])
    W = np.zeros(d)
    if not keys:
        return W
    key, inv = np.unique(np.concatenate(keys), return_inverse=True)
    coef = np.bincount(inv.ravel(), weights=np.concatenate(vals))
    I, J = key // n, key % n
    # Entries of Δ per pair: d when dense, about twice a row's non-zeros when sparse.
    per_pair = 2.0 * X.nnz / max(1, n) + 1.0 if sp.issparse(X) else float(d)
    chunk = max(1, int(_PAIR_CHUNK_ENTRIES // per_pair))
    for s in range(0, key.size, chunk):
        delta = heom.deltas(X[I[s : s + chunk]], X[J[s : s + chunk]])
        c = coef[s : s + chunk]
        W += np.asarray(delta.T @ c).ravel() if sp.issparse(delta) else c @ delta
    return W


class _ReliefBase(BaseSelector):
    """Shared by the Relief estimators: every feature ranked by weight, NaN allowed."""

    _parameter_constraints: dict = {
        **BaseSelector._parameter_constraints,
        "verbose": ["verbose"],
        "k": [Number(Integral, 1, None, closed="left")],
        "m": [None, Number(Integral, 1, None, closed="left")],
        "categorical_features": ["array-like", None],
        "random_state": ["random_state"],
    }

    def __init__(self, n_features_to_select: Any, k: int, m: int | None,
                 categorical_features: Any, random_state: Any):
        self.n_features_to_select = n_features_to_select
        self.k = k
        self.m = m
        self.categorical_features = categorical_features
        self.random_state = random_state

    def _fit(self, X: Any, Y: Any) -> _ReliefBase:
        """Weigh the features of ``X`` (dense/sparse, NaN = missing) for the labels ``Y``."""
        X = check_heom_X(self, X, reset=True)
        Y = check_labels(Y, X.shape[0], warn_empty=True)
        if degenerate_selection(self, X):
            self.weights_ = np.zeros(X.shape[1])
            return self
        # HEOM differences are range-normalised, so scaling a column is exact and changes
        # nothing, except that max - min of huge columns no longer overflows
        self._finish(self._weights(scale_huge_columns(X), Y), X.shape[0])
        return self

    def _weights(self, X: Any, Y: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        """The weight of every feature (``weights_``), from validated, scaled ``X``."""
        raise NotImplementedError

    def _finish(self, weights: np.ndarray, n_samples: int) -> None:
        self.weights_ = weights
        k = resolve_n_features(self.n_features_to_select, n_samples, weights.size)
        self._set_order(np.argsort(-weights, kind="stable"), scores=weights, k=k,
                          n_samples=n_samples)

    def transform(self, X: Any) -> Any:
        """Keep the selected features of ``X``; NaN is a missing value, ±inf is refused."""
        # allow_nan makes SelectorMixin.transform skip the finiteness check altogether
        # (DOK and LIL matrices have no flat .data: read it from a CSR copy)
        assert_all_finite(X.tocsr().data if sp.issparse(X) else np.asarray(X),
                          allow_nan=True, input_name="X")
        return super().transform(X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.selector_tags.scores_meaning = (
            "weight",
            "the feature's ReliefF weight (higher: more relevant; may be negative)",
        )
        tags.selector_tags.orders_all_features = True
        tags.input_tags.allow_nan = True
        return tags


class ReliefFML(_ReliefBase):
    """ReliefF-ML feature weighting for multi-label data (Reyes, Morell & Ventura 2013).

    Algorithm 1 of the paper with Eqs. (1)–(6):

    * label priors ``P_l = (C_l + s) / (N + 2s)`` (Eq. 1);
    * ``m`` instances ``i`` drawn uniformly with replacement; for every label ``l`` the
      ``k`` nearest instances ``j ≠ i`` (unweighted HEOM, Eqs. 3–4) having ``l`` — the
      Hits ``H_i^l`` if ``l ∈ y_i``, the Misses ``M_i^l`` otherwise;
    * ``P_G = Σ_{j∈G} d_L(i, j) / k`` with the normalised Hamming distance of label sets
      ``d_L = |y_i Δ y_j| / Q`` (Eqs. 2, 5);
    * the update of Eq. (6)::

        W_f −= Σ_{l∈y_i} [P_l / Σ_{q∈y_i} P_q] · [(1 − P_H)/(1 + P_H)] · Σ_{j∈H} δ_f(i,j)/(mk)
        W_f += Σ_{l∉y_i} [P_l / Σ_{q∉y_i} P_q] ·  P_M                  · Σ_{j∈M} δ_f(i,j)/(mk)

    * finally ``W`` is min–max scaled to ``[0, 1]`` (Alg. 1 line 17; all zeros if constant).

    If a label has fewer than ``k`` eligible instances, all of them are used and ``k`` is
    replaced by the number used, in ``P_G`` and in the ``δ`` sum
    (docs/methods/relieff.md#relieff-ml).

    The estimator is both a weighting (``weights_``, for the weighted HEOM of the lazy
    learners, e.g. ``MLkNN(feature_weights=sel.weights_)``) and a selector (``transform``
    keeps the ``n_features_to_select`` features of largest weight).

    Parameters
    ----------
    n_features_to_select : int, float or None, default=None
        Features kept by ``transform``: count, fraction, or ``None`` for ⌈√n_samples⌉.
    k : int, default=10
        Neighbours per label (tuned per dataset in the paper; 10 is the library default).
    m : int or None, default=None
        Number of sampled instances; ``None`` applies the paper's rule
        (:func:`relieff_ml_sample_size`: 10 % / 5 % / 1 % of ``|E|``).
    s : float, default=1.0
        Smoothing of the label priors (1 = Laplace).
    categorical_features : None, bool mask or int indices, default=None
        Nominal features (overlap difference); ``None`` = all numeric (range-normalised
        differences; binary 0/1 features behave identically either way).
    random_state : int, RandomState or None, default=None
        Seeds the draw of the sampled instances.
    verbose : int, default=0
        Progress of the fit on stderr (steps done, criterion or objective, elapsed time):
        0 none, 1 a line every few seconds, 2 or more every step.

    Attributes
    ----------
    weights_ : ndarray of shape (n_features,)
        Feature weights scaled to [0, 1].
    raw_weights_ : ndarray of shape (n_features,)
        Weights of Eq. (6) before scaling.
    selection_order_ : ndarray of shape (n_features,)
        All feature indices by decreasing weight (ties → lower index).
    ranking_ : ndarray of shape (n_features,)
        scikit-learn's ranking, as ``RFE``'s: 1 for the selected features, then 2, 3,
        ... along ``selection_order_``.
    scores_ : ndarray of shape (n_features,)
        ``weights_`` (the score of every feature).
    sample_indices_ : ndarray of shape (m,)
        The sampled instances, in drawing order.
    priors_ : ndarray of shape (n_labels,)
        ``P_l`` of Eq. (1).
    n_features_to_select_ : int

    Notes
    -----
    Cost: one ``m × N`` block of distance products, ``Σ_l m·C_l`` for the neighbour
    selection, and ``O(#pairs · n_features)`` for the weights, with at most ``m·q·k``
    distinct (instance, neighbour) pairs; linear in ``m``.
    """

    _parameter_constraints: dict = {**_ReliefBase._parameter_constraints, "s": [NON_NEGATIVE]}

    def __init__(
        self,
        n_features_to_select: Any = None,
        k: int = 10,
        m: int | None = None,
        s: float = 1.0,
        categorical_features: Any = None,
        random_state: Any = None,
        *,
        verbose: int = 0,
    ):
        super().__init__(n_features_to_select, k, m, categorical_features, random_state)
        self.s = s
        self.verbose = verbose

    def _weights(self, Xh: Any, Y: np.ndarray) -> np.ndarray:
        """Eq. (6) weights scaled to [0, 1] (n >= 2: a single sample is degenerate data)."""
        n, q = Y.shape
        k = int(self.k)
        m = relieff_ml_sample_size(n) if self.m is None else int(self.m)
        s = float(self.s)
        rng = check_random_state(self.random_state)
        samples = rng.randint(0, n, size=m)

        C = Y.sum(axis=0, dtype=np.int64)
        P = (C + s) / (n + 2.0 * s)  # Eq. (1)
        Yf = Y.astype(np.float64)
        card = Yf.sum(axis=1)
        heom = HEOM(self.categorical_features).fit(Xh)
        groups = [np.flatnonzero(Y[:, l]) for l in range(q)]
        cache: dict[str, Any] = {}

        def coefficients(block, l, nb, valid, k_used):
            if cache.get("block") is not block:
                # Per sample block: label Hamming distances to every instance (Eq. 2)
                # and the prior sums over relevant / irrelevant labels of Eq. (6).
                Yb = Yf[block]
                cache["block"] = block
                cache["ham"] = (card[block][:, None] + card[None, :] - 2.0 * (Yb @ Yf.T)) / q
                cache["srel"] = Yb @ P
                cache["sirr"] = P.sum() - cache["srel"]
                cache["Yb"] = Yb
            ham = np.take_along_axis(cache["ham"], nb, axis=1)
            kk = np.maximum(k_used, 1)
            PG = np.where(valid, ham, 0.0).sum(axis=1) / kk  # Eq. (5)
            rel = cache["Yb"][:, l] == 1
            with np.errstate(divide="ignore", invalid="ignore"):
                hit = -(P[l] / cache["srel"]) * (1.0 - PG) / (1.0 + PG)
                miss = (P[l] / cache["sirr"]) * PG
            c = np.where(rel, hit, miss) / (m * kk)
            return np.where(k_used > 0, c, 0.0)

        W = _relief_weights(heom, Xh, samples, groups, k, coefficients)
        lo, hi = W.min(), W.max()
        scaled = (W - lo) / (hi - lo) if hi > lo else np.zeros_like(W)
        self.raw_weights_ = W
        self.sample_indices_ = samples
        self.priors_ = P
        self.m_ = m
        return scaled


class PPTReliefF(_ReliefBase):
    """Classic ReliefF on the pruned problem transformation (SCLS's "PPT+RF" baseline).

    The label sets become classes of a single-label problem and rare sets are pruned
    (:func:`~skmlfs.selection._ppt.pruned_problem_transformation`, Read 2008); then
    ReliefF (Kononenko 1994, Weka defaults; docs/methods/relieff.md#ppt-with-relieff) weighs
    the features::

        W_f −= Σ_{j∈H} δ_f(R, H_j) / (m k)
        W_f += Σ_{C≠c(R)} [P(C) / (1 − P(c(R)))] Σ_{j∈M(C)} δ_f(R, M_j(C)) / (m k)

    with ``k`` nearest hits (same class) and ``k`` nearest misses of every other class,
    found with the sum-of-differences distance ``Σ_f δ_f`` (Weka), ``P(C)`` the class
    frequencies of the transformed data. A class with fewer than ``k`` candidates uses all
    of them and divides by the number used. Numeric ranges come from the transformed data.
    Missing values: ``δ = 1`` (HEOM; Weka's probabilistic handling is not reproduced).

    Parameters
    ----------
    n_features_to_select : int, float or None, default=None
        Count, fraction, or ``None`` for ⌈√n_samples⌉ (SCLS budget, original sample count).
    k : int, default=10
    m : int or None, default=None
        ``None`` (Weka default): every row of the transformed problem once, in order.
        An int draws ``m`` rows uniformly with replacement (Weka's ``-M``).
    min_support : int, default=6
        PPT pruning threshold τ (label sets seen ``≥ τ`` times are kept).
    strategy : {"discard", "reintroduce"}, default="discard"
        PPT handling of pruned patterns.
    categorical_features : None, bool mask or int indices, default=None
    random_state : int, RandomState or None, default=None
        Used only when ``m`` is given.
    verbose : int, default=0
        Progress of the fit on stderr (steps done, criterion or objective, elapsed time):
        0 none, 1 a line every few seconds, 2 or more every step.

    Attributes
    ----------
    weights_ : ndarray of shape (n_features,)
        ReliefF weights (not rescaled).
    selection_order_ : ndarray of shape (n_features,)
        Feature indices by decreasing weight (ties → lower index).
    ranking_ : ndarray of shape (n_features,)
        scikit-learn's ranking, as ``RFE``'s: 1 for the selected features, then 2, 3,
        ... along ``selection_order_``.
    scores_ : ndarray of shape (n_features,)
        ``weights_`` (the score of every feature).
    n_features_to_select_ : int
    """

    _parameter_constraints: dict = {**_ReliefBase._parameter_constraints, **PPT_CONSTRAINTS}

    def __init__(
        self,
        n_features_to_select: Any = None,
        k: int = 10,
        m: int | None = None,
        min_support: int = 6,
        strategy: str = "discard",
        categorical_features: Any = None,
        random_state: Any = None,
        *,
        verbose: int = 0,
    ):
        super().__init__(n_features_to_select, k, m, categorical_features, random_state)
        self.min_support = min_support
        self.strategy = strategy
        self.verbose = verbose

    def _weights(self, Xh: Any, Y: np.ndarray) -> np.ndarray:
        """Transform ``Y`` by PPT and run ReliefF on ``Xh``."""
        k = int(self.k)
        rows, classes = pruned_problem_transformation(Y, int(self.min_support), self.strategy)
        Xr = Xh[rows]
        nr = rows.size
        if self.m is None:
            samples = np.arange(nr)
            m = nr
        else:
            m = int(self.m)
            samples = check_random_state(self.random_state).randint(0, nr, size=m)
        n_classes = int(classes.max()) + 1
        prior = np.bincount(classes, minlength=n_classes) / nr
        heom = HEOM(self.categorical_features, p=1).fit(Xr)
        groups = [np.flatnonzero(classes == c) for c in range(n_classes)]

        def coefficients(block, c, nb, valid, k_used):
            own = classes[block]
            kk = np.maximum(k_used, 1)
            with np.errstate(divide="ignore", invalid="ignore"):
                miss = prior[c] / (1.0 - prior[own])
            coef = np.where(own == c, -1.0, miss) / (m * kk)
            return np.where(k_used > 0, coef, 0.0)

        W = _relief_weights(heom, Xr, samples, groups, k, coefficients)
        self.classes_ppt_ = classes
        self.rows_ppt_ = rows
        return W
