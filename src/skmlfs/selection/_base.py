"""Common machinery of the greedy information-theoretic selectors."""

from __future__ import annotations

import warnings
from abc import abstractmethod
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from .._validation import check_target, resolve_n_features
from ..info import DiscreteData, InfoCache

__all__ = ["BaseInfoSelector", "argmax_tol", "discretize_features", "is_discrete"]

# Scores that are equal in exact arithmetic (e.g. I(y;a) + I(y;b|a) = I(y;b) + I(y;a|b),
# or the criterion of two features with the same count table) come out of different count
# paths and summation orders with differences in the last bits. Values within
# ``TIE_TOL + rtol·|max|`` of the maximum are treated as ties, so that tie-breaking is
# deterministic and as documented (lowest index).
TIE_TOL = 1e-10
# Relative part used by the greedy filters: their scores grow with the number of labels
# and selected features (GICS sums |L|·|S| joint entropies), and so does the rounding.
TIE_RTOL = 1e-12


def argmax_tol(score: np.ndarray, axis: int = -1, *, rtol: float = 0.0) -> np.ndarray:
    """First index whose value is within ``TIE_TOL + rtol·|max|`` of the maximum.

    Along ``axis``; ``-inf`` entries never tie with a finite maximum. With every entry
    ``-inf`` the result is index 0 (callers check availability).
    """
    top = np.max(score, axis=axis, keepdims=True)
    tol = TIE_TOL + rtol * np.abs(top) if rtol else TIE_TOL
    return np.argmax(score >= top - tol, axis=axis)


def is_discrete(X: Any) -> bool:
    """True when every value of ``X`` is an integer (a discrete code).

    Binary/nominal data (ARFF nominal attributes are loaded as integer codes) is used as
    it is; anything with fractional values needs a discretizer first.
    """
    data = X.data if sp.issparse(X) else np.asarray(X)
    if data.dtype.kind in "biu":
        return True
    return bool(np.all(data == np.floor(data)))


def discretize_features(
    discretizer: Any, X: Any, Y: Any, categorical_features: Any = None
) -> Any:
    """Apply a selector's ``discretizer`` parameter to training data (fit on ``X, Y``).

    ``"auto"``: integer-valued ``X`` is returned as is, anything else goes through
    :class:`~skmlfs.discretize.LAIMDiscretizer`; ``None``: values are symbols as they
    are; a transformer is cloned and fitted with ``fit(X, Y)``. ``categorical_features``
    (boolean mask or column indices, e.g. the nominal attributes of a loaded data set)
    pass through unchanged in addition to the discretizer's own pass-through columns.
    """
    disc = discretizer
    if isinstance(disc, str):
        if disc != "auto":
            raise ValueError(f"discretizer must be 'auto', None or a transformer; got {disc!r}.")
        if is_discrete(X):
            return X
        from ..discretize import LAIMDiscretizer

        disc = LAIMDiscretizer()
    elif disc is None:
        return X
    from ..discretize._base import with_categorical

    # supervised discretizers take a dense label matrix (labels are the small side)
    Yd = Y.toarray() if sp.issparse(Y) else Y
    return with_categorical(disc, categorical_features, X).fit(X, Yd).transform(X)


class BaseInfoSelector(SelectorMixin, BaseEstimator):
    """Base class: validation, discretization and the support mask.

    Subclasses implement :meth:`_select` on an :class:`~skmlfs.info.InfoCache`.

    Parameters common to all subclasses
    -----------------------------------
    n_features_to_select : int, float or None
        Count, fraction of the features, or ``None`` for ⌈√n_samples⌉ (SCLS §4.1).
    discretizer : "auto", None or transformer
        How numeric features become discrete symbols before counting. ``"auto"``:
        integer-valued data (binary, nominal codes, already discretized) is used as is,
        and data with fractional values is discretized by
        :class:`~skmlfs.discretize.LAIMDiscretizer` fitted on the training data (the
        supervised method the SCLS and memetic papers use). ``None``: values are used as
        symbols as they are. A transformer is cloned and fitted with ``fit(X, Y)``.
    """

    # Criteria computed from per-feature label sums and I(f; s) only can count over row
    # blocks (StreamInfoCache); subclasses that can set this to True.
    _row_blocks_ok = False

    def __init__(self, n_features_to_select: Any = None, discretizer: Any = "auto"):
        self.n_features_to_select = n_features_to_select
        self.discretizer = discretizer

    # ------------------------------------------------------------------ fit
    def fit(self, X: Any, Y: Any) -> BaseInfoSelector:
        """Select features of ``X`` for the labels ``Y``.

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)
            Data larger than memory may come in row blocks (SCLS, AMI, GICS): a
            ``dask.array`` (dense or scipy.sparse chunks; with a ``distributed.Client``
            the counting runs on its workers), a ``numpy.memmap``, or a
            :class:`skmlfs.info.RowBlocks` source (then ``Y=None``). Row blocks are used
            as discrete symbols (no discretizer) and give the in-memory selection.
        Y : array-like or sparse matrix of shape (n_samples, n_labels), 0/1
            A 1-D ``y`` is accepted as one discrete target (single-label problem).
        """
        if _is_row_block_input(X):
            self._check_params()
            cache = self._stream_cache(X, Y)
            n_rows, n_cols = cache.n_samples, cache.source.n_features
        else:
            X = validate_data(
                self, X, accept_sparse=["csr", "csc"], dtype="numeric", ensure_all_finite=True
            )
            Y = check_target(Y, X.shape[0], accept_sparse=True)  # sparse labels stay sparse
            self._check_params()
            Xd = self._discretize(X, Y)
            cache = InfoCache(DiscreteData.from_array(Xd), DiscreteData.from_array(Y))
            n_rows, n_cols = X.shape
        k = resolve_n_features(self.n_features_to_select, n_rows, n_cols)
        ranking, scores = self._select(cache, k)
        if ranking.size < k:
            warnings.warn(
                f"{type(self).__name__} selected {ranking.size} of the {k} requested "
                "features: the remaining candidates have zero entropy (constant columns) "
                "and carry no information.",
                UserWarning,
                stacklevel=2,
            )
        self.ranking_ = ranking.astype(np.intp)
        self.scores_ = np.asarray(scores, dtype=float)
        self.n_features_to_select_ = int(ranking.size)
        self.entropies_ = cache.h_x
        return self

    def _check_params(self) -> None:
        """Hook for subclasses to validate their own parameters at fit."""

    def _stream_cache(self, X: Any, Y: Any) -> Any:
        """Counts over row blocks (Dask array, memmap, RowBlocks source), see fit."""
        from ..info._rowblocks import StreamInfoCache, as_row_blocks

        if not self._row_blocks_ok:
            raise NotImplementedError(
                f"{type(self).__name__} needs the full feature × label tables: pass "
                "in-memory data (row blocks, Dask arrays and memmaps work with SCLS, AMI "
                "and GICS)."
            )
        if not (self.discretizer is None or self.discretizer == "auto"):
            raise ValueError(
                "row-block input (a dask array, memmap or RowBlocks source) is used as "
                "discrete symbols: discretize it before fit and pass discretizer='auto' "
                f"or None; got discretizer={self.discretizer!r}."
            )
        source = as_row_blocks(X, Y)
        self.n_features_in_ = int(source.n_features)
        return StreamInfoCache(source, discrete_only=self.discretizer == "auto")

    def _discretize(self, X, Y):
        return discretize_features(self.discretizer, X, Y)

    @abstractmethod
    def _select(self, cache: InfoCache, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Return the selected feature indices in order and their criterion values."""

    # ------------------------------------------------------------------ selector API
    def _get_support_mask(self) -> np.ndarray:
        check_is_fitted(self, "ranking_")
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[self.ranking_] = True
        return mask

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.target_tags.multi_output = True
        tags.input_tags.sparse = True
        return tags


def _is_row_block_input(X: Any) -> bool:
    """Data counted over row blocks: a dask array, a numpy memmap or a RowBlocks source."""
    from ..info._rowblocks import RowBlocks, is_dask_array

    return isinstance(X, (RowBlocks, np.memmap)) or is_dask_array(X)


def greedy_select(
    first: np.ndarray,
    update: Any,
    score: Any,
    valid: np.ndarray,
    k: int,
    *,
    rtol: float | None = TIE_RTOL,
    prefetch: Any = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Run the common greedy forward search (``filters.md`` §0).

    Parameters
    ----------
    first : ndarray (d,)
        Criterion of every candidate when nothing is selected.
    update : callable(s) -> None
        Called after feature ``s`` enters the subset, to update the accumulators.
    score : callable() -> ndarray (d,)
        Criterion of every candidate given the current subset.
    valid : ndarray of bool (d,)
        Candidates that may ever be selected (zero-entropy features are not).
    k : int
        Number of features to select.
    rtol : float or None, default=TIE_RTOL
        Ties go to the lowest feature index: candidates whose criterion is within
        ``TIE_TOL + rtol·|max|`` of the best are tied (:func:`argmax_tol`), so values that
        are equal in exact arithmetic but differ by rounding do not pick a higher index.
        ``None`` uses the exact float maximum (``np.argmax``, first maximum).
    prefetch : callable(s, J) or None
        Called before ``update(s)`` with the criterion ``J`` of the step (``-inf`` for
        unavailable candidates): a row-block cache counts ``s`` together with the best
        other candidates in one pass over the rows.

    Stops early when no valid candidate is left.
    """
    available = valid.copy()
    ranking: list[int] = []
    scores: list[float] = []
    J = first
    for step in range(k):
        if step:
            J = score()
        J = np.where(available, J, -np.inf)
        f = int(np.argmax(J)) if rtol is None else int(argmax_tol(J, rtol=rtol))
        if not available[f]:
            break
        ranking.append(f)
        scores.append(float(J[f]))
        available[f] = False
        if step + 1 < k:
            if prefetch is not None:
                prefetch(f, np.where(available, J, -np.inf))
            update(f)
    return np.asarray(ranking, dtype=np.intp), np.asarray(scores)
