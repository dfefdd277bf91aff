"""Shared machinery of the discretizers: validation, pass-through columns, binning.

A discretizer learns, per column, sorted bin edges on the training data and maps a value
to the index of its bin. Columns that are already discrete pass through unchanged.
"""

from __future__ import annotations

import numbers
import warnings
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.base import (
    BaseEstimator,
    OneToOneFeatureMixin,
    TransformerMixin,
    _fit_context,
    clone,
)
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from .._validation import categorical_mask

_INT32 = np.iinfo(np.int32)


def _column_stats_integer_distinct(X: Any) -> tuple[np.ndarray, np.ndarray]:
    """Per column: all values integers? and number of distinct values (sparse-aware)."""
    n, d = X.shape
    if sp.issparse(X):
        Xc = sp.csc_matrix(X, copy=True)
        Xc.eliminate_zeros()
        Xc.sort_indices()
        cols = np.repeat(np.arange(d), np.diff(Xc.indptr))
        data = Xc.data
        nonint = np.bincount(cols, weights=(data != np.round(data)), minlength=d) > 0
        order = np.lexsort((data, cols))
        dv, dc = data[order], cols[order]
        new = np.ones(dv.size, dtype=bool)
        new[1:] = (dv[1:] != dv[:-1]) | (dc[1:] != dc[:-1])
        distinct = np.bincount(dc[new], minlength=d) + (np.diff(Xc.indptr) < n)
        return ~nonint, distinct
    X = np.asarray(X)
    integer = np.all(X == np.round(X), axis=0)
    Xs = np.sort(X, axis=0)
    distinct = 1 + np.count_nonzero(Xs[1:] != Xs[:-1], axis=0) if n else np.zeros(d, int)
    return integer, distinct


class _BaseDiscretizer(OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    """Base class; subclasses implement ``_fit_edges`` and may override the hooks.

    Every discretizer has a ``categorical_features`` parameter (as scikit-learn's
    ``HistGradientBoosting*``): ``"auto"`` (the subclass's rule, ``_auto_passthrough``),
    ``None`` (no column), or a boolean mask / column indices. Those columns pass through
    unchanged; :func:`with_categorical` adds a data set's declared nominal columns to them.

    Parameters are declared in ``_parameter_constraints`` (extended by the subclasses) and
    checked by scikit-learn when ``fit`` starts.
    """

    _parameter_constraints: dict = {
        "categorical_features": [StrOptions({"auto"}), "array-like", None],
    }

    #: output dtype of ``transform``
    _output_dtype: Any = np.int32
    #: bins ``(e_k, e_{k+1}]`` (True) or ``[e_k, e_{k+1})`` (False)
    _right_closed = False
    #: subtracted from the 0-based bin index
    _code_offset = 0

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        if np.dtype(self._output_dtype).kind != "f":
            tags.transformer_tags.preserves_dtype = []  # bin codes, whatever the input
        return tags

    # ------------------------------------------------------------ hooks
    def _auto_passthrough(self, X: Any) -> np.ndarray:  # pragma: no cover - abstract
        """The columns ``categorical_features="auto"`` passes through unchanged."""
        raise NotImplementedError

    def _fit_edges(self, X: np.ndarray, Y: np.ndarray | None) -> list[np.ndarray]:
        raise NotImplementedError

    def _n_bins_of(self, edges: np.ndarray) -> int:
        return len(edges) - 1

    # ------------------------------------------------------------ helpers
    def _validate_X(self, X: Any, reset: bool) -> Any:
        return validate_data(
            self, X, accept_sparse=["csr", "csc"], dtype=np.float64, ensure_all_finite=True,
            reset=reset,
        )

    def _resolve_passthrough(self, X: Any) -> np.ndarray:
        cf = self.categorical_features
        if isinstance(cf, str):  # "auto", the one string the constraints admit
            return np.asarray(self._auto_passthrough(X), dtype=bool)
        return categorical_mask(cf, X.shape[1])

    def _check_passthrough_values(self, X: Any, mask: np.ndarray, when: str) -> None:
        """Integer output requires pass-through columns to hold int32-representable integers."""
        if self._output_dtype is not np.int32 or not mask.any():
            return
        cols = np.flatnonzero(mask)
        if sp.issparse(X):
            Xp = sp.csc_matrix(X)[:, cols]
            data, col_of = Xp.data, np.repeat(cols, np.diff(Xp.indptr))
        else:
            block = np.asarray(X)[:, cols]
            data, col_of = block.ravel(), np.tile(cols, block.shape[0])
        bad = (data != np.round(data)) | (data < _INT32.min) | (data > _INT32.max)
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"column {int(col_of[k])} passes through unchanged (categorical) but holds "
                f"{float(data[k])!r} at {when}; pass-through columns must hold integers in the "
                "int32 range. Mark the column as numeric via categorical_features."
            )

    # ------------------------------------------------------------ API
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X: Any, Y: Any = None) -> _BaseDiscretizer:
        """Learn the bin edges of every non-pass-through column on the training data.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            Training features; NaN and infinity are rejected.
        Y : None or array-like of shape (n_samples, n_labels)
            Ignored by the unsupervised discretizers; the 0/1 label matrix for LAIM.

        Returns
        -------
        self
        """
        X = self._validate_X(X, reset=True)
        Yv = self._validate_Y(Y, X.shape[0])
        mask = self._resolve_passthrough(X)
        self._check_passthrough_values(X, mask, "fit")
        cols = np.flatnonzero(~mask)
        Xd = X[:, cols]
        Xd = Xd.toarray() if sp.issparse(Xd) else np.asarray(Xd)
        edges = self._fit_edges(Xd, Yv) if cols.size else []
        _, distinct = _column_stats_integer_distinct(X[:, mask]) if mask.any() else (None, [])
        d = X.shape[1]
        self.passthrough_mask_ = mask
        self.bin_edges_ = np.empty(d, dtype=object)
        self.n_bins_ = np.zeros(d, dtype=np.int64)
        for j, e in zip(cols, edges, strict=True):
            self.bin_edges_[j] = e
            self.n_bins_[j] = self._n_bins_of(e)
        self.n_bins_[mask] = distinct
        return self

    def _validate_Y(self, Y: Any, n: int) -> np.ndarray | None:
        return None

    def transform(self, X: Any) -> Any:
        """Replace every numeric value by the index of its training bin.

        Values below the first or above the last training edge go to the first or last
        bin. Pass-through columns are copied unchanged.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)

        Returns
        -------
        ndarray or sparse matrix of shape (n_samples, n_features)
            Sparse only when the input is sparse and every column passes through.
        """
        check_is_fitted(self, "bin_edges_")
        X = self._validate_X(X, reset=False)
        mask = self.passthrough_mask_
        self._check_passthrough_values(X, mask, "transform")
        if mask.all():
            if sp.issparse(X):
                return X.astype(self._output_dtype)  # astype copies
            return np.asarray(X).astype(self._output_dtype)
        Xd = X.toarray() if sp.issparse(X) else np.asarray(X)
        out = np.empty(Xd.shape, dtype=self._output_dtype)
        out[:, mask] = Xd[:, mask]
        for j in np.flatnonzero(~mask):
            out[:, j] = self._encode_column(j, Xd[:, j])
        return out

    def _encode_column(self, j: int, x: np.ndarray) -> np.ndarray:
        e = self.bin_edges_[j]
        side = "left" if self._right_closed else "right"
        # Interior edges only: values outside the training range fall in the end bins.
        return np.searchsorted(e[1:-1], x, side=side) - self._code_offset


class _CountRuleDiscretizer(_BaseDiscretizer):
    """A discretizer whose ``"auto"`` rule passes through the integer-valued columns with at
    most ``max_discrete_values`` distinct values (LAIM and the generic binnings)."""

    _parameter_constraints: dict = {
        **_BaseDiscretizer._parameter_constraints,
        "max_discrete_values": [Interval(numbers.Integral, 0, None, closed="left")],
    }

    def __init__(self, categorical_features: Any, max_discrete_values: int):
        self.categorical_features = categorical_features
        self.max_discrete_values = max_discrete_values

    def _auto_passthrough(self, X: Any) -> np.ndarray:
        integer, distinct = _column_stats_integer_distinct(X)
        return integer & (distinct <= self.max_discrete_values)


def with_categorical(discretizer: Any, categorical_features: Any, X: Any) -> Any:
    """Unfitted clone of ``discretizer`` that also passes ``categorical_features`` through.

    For data whose nominal columns are known (``MultiLabelDataset.feature_types``): those
    columns are added to the ones the discretizer passes through anyway (its own
    ``categorical_features`` resolved on ``X``, e.g. the binary columns of the ``"auto"``
    rule), so a 3-valued nominal code is never binned as if it were a number.

    Parameters
    ----------
    discretizer : transformer
        One of :mod:`skmlfs.discretize`'s discretizers; another transformer is cloned
        unchanged, with a ``UserWarning`` if any column is declared categorical.
    categorical_features : None, array-like of bool or of int
        The declared categorical columns of ``X`` (mask or indices).
    X : array-like or sparse matrix of shape (n_samples, n_features)
        The data the clone will be fitted on.
    """
    disc = clone(discretizer)
    declared = categorical_mask(categorical_features, X.shape[1])
    if not declared.any():
        return disc
    if isinstance(disc, _BaseDiscretizer):
        # its own categorical_features is resolved below, before any fit would check it
        disc._validate_params()
    else:
        warnings.warn(
            f"{type(disc).__name__} cannot pass columns through unchanged: the "
            f"{int(declared.sum())} nominal column(s) {np.flatnonzero(declared).tolist()[:10]} "
            "are discretized like numeric ones. Use a skmlfs.discretize discretizer to keep them.",
            UserWarning,
            stacklevel=3,
        )
        return disc
    return disc.set_params(categorical_features=declared | disc._resolve_passthrough(X))
