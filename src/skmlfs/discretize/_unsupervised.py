"""Equal-width and equal-frequency discretizers: the binning options for methods whose
paper does not fix the discretization (``docs/methods/discretizers.md#which-one``)."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
from sklearn.utils._param_validation import Interval

from ._base import _CountRuleDiscretizer

__all__ = ["EqualWidthDiscretizer", "EqualFrequencyDiscretizer"]


class _BinningDiscretizer(_CountRuleDiscretizer):
    """Parameters shared by the two generic binnings (they differ only in the edges).

    The subclasses' docstrings take the parameters' description from
    ``_PARAMETERS_DOC``, filled in by ``__init_subclass__``.
    """

    _PARAMETERS_DOC = """Parameters
    ----------
    n_bins : int, default=5
        Number of intervals (``≥ 2``).
    categorical_features : "auto", None, array-like of bool or of int, default="auto"
        Columns passed through unchanged. ``"auto"``: every column whose training values are
        all integers and that has at most ``max_discrete_values`` distinct values (with the
        default 2: binary columns such as word occurrences). ``None``: no column passes
        through. A boolean mask or column indices: exactly those columns (they must hold
        integers, since the output is int32).
    max_discrete_values : int, default=2
        Threshold of the ``"auto"`` rule (0 disables it)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.__doc__:  # None under python -OO
            cls.__doc__ = cls.__doc__.replace("%(parameters)s", cls._PARAMETERS_DOC)

    _parameter_constraints: dict = {
        **_CountRuleDiscretizer._parameter_constraints,
        "n_bins": [Interval(numbers.Integral, 2, None, closed="left")],
    }

    def __init__(
        self,
        n_bins: int = 5,
        *,
        categorical_features: Any = "auto",
        max_discrete_values: int = 2,
    ) -> None:
        super().__init__(categorical_features, max_discrete_values)
        self.n_bins = n_bins


class EqualWidthDiscretizer(_BinningDiscretizer):
    """Split every numeric column into ``n_bins`` intervals of equal width.

    Edges ``e_k = min + k·(max − min)/n_bins`` (``k = 0..n_bins``, ``numpy.linspace`` — the
    same edges as scikit-learn's ``KBinsDiscretizer(strategy="uniform")``) of the training
    column; bins are left-closed ``[e_k, e_{k+1})``, the last one closed. A constant column gets a
    single bin (code 0). Codes are int32 ``0..n_bins−1``; test values outside the training
    range go to the first/last bin.

    %(parameters)s

    Attributes
    ----------
    bin_edges_ : ndarray of object, shape (n_features,)
        Per column the edges ``[e_0, ..., e_k]``; ``None`` for pass-through columns.
    n_bins_ : ndarray of int, shape (n_features,)
        Per column the number of bins (distinct training values for pass-through columns).
    passthrough_mask_ : ndarray of bool, shape (n_features,)
    n_features_in_ : int
    feature_names_in_ : ndarray of str
    """

    def _fit_edges(self, X: np.ndarray, Y: Any) -> list[np.ndarray]:
        lo, hi = X.min(axis=0), X.max(axis=0)
        edges = []
        for a, b in zip(lo, hi, strict=True):
            if a == b:
                edges.append(np.array([a, b]))
            else:
                edges.append(np.linspace(a, b, self.n_bins + 1))
        return edges


class EqualFrequencyDiscretizer(_BinningDiscretizer):
    """Split every numeric column at its empirical quantiles (about equally many per bin).

    Edges are ``np.quantile(x, k/n_bins)`` (``k = 0..n_bins``, numpy's default linear
    interpolation) of the training column; repeated edges (heavy ties) are merged, so a
    column can get fewer than ``n_bins`` bins — ``n_bins_`` tells how many. Bins are
    left-closed ``[e_k, e_{k+1})``, the last one closed; a constant column gets one bin.
    Codes are int32 ``0..n_bins_−1``; test values outside the training range go to the
    first/last bin. (Same edges as scikit-learn's ``KBinsDiscretizer(strategy="quantile",
    quantile_method="linear")`` when no edges coincide.)

    %(parameters)s

    Attributes
    ----------
    bin_edges_ : ndarray of object, shape (n_features,)
        Per column the (de-duplicated) edges; ``None`` for pass-through columns.
    n_bins_ : ndarray of int, shape (n_features,)
    passthrough_mask_ : ndarray of bool, shape (n_features,)
    n_features_in_ : int
    feature_names_in_ : ndarray of str
    """

    def _fit_edges(self, X: np.ndarray, Y: Any) -> list[np.ndarray]:
        Q = np.quantile(X, np.linspace(0.0, 1.0, self.n_bins + 1), axis=0)  # (n_bins+1, d)
        edges = []
        for j in range(X.shape[1]):
            e = np.unique(Q[:, j])
            edges.append(e if e.size > 1 else np.array([e[0], e[0]]))
        return edges
