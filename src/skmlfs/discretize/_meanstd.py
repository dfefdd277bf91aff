"""Mean ± factor·std discretizer: oCC's ``myDisc`` (``docs/methods/discretizers.md#meanstd``)."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.utils._param_validation import Interval, Options

from ._base import _BaseDiscretizer

__all__ = ["MeanStdDiscretizer", "occ_discretizer"]


def _round_half_away(e: np.ndarray, decimals: int | None = 3) -> np.ndarray:
    """MATLAB ``round(e, decimals)``: halves away from zero (numpy rounds half to even);
    ``decimals=None``: ``e`` unchanged.

    Values so large that ``10**decimals·|e|`` overflows (beyond ~1.8e305 for 3) have no
    decimals and are returned as they are.
    """
    if decimals is None:
        return e
    f = 10.0**decimals
    with np.errstate(over="ignore"):
        scaled = np.abs(e) * f
    return np.where(np.isinf(scaled), e, np.sign(e) * np.floor(scaled + 0.5) / f)


def _round3_half_away(e: np.ndarray) -> np.ndarray:
    """MATLAB ``round(e, 3)`` (see :func:`_round_half_away`)."""
    return _round_half_away(e, 3)


def _mean_std(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Column mean and sample std (ddof = 1; 0 for one pattern), for any finite values.

    Columns whose values are so large that sums or squares overflow (x 1e300) are scaled
    by a power of two first, which is exact, so their states are those of the unscaled
    data; other columns are computed directly (bit for bit as before).
    """
    n, d = X.shape
    with np.errstate(over="ignore", invalid="ignore"):  # recomputed below where it matters
        mu = X.mean(axis=0) if n else np.zeros(d)
        sd = X.std(axis=0, ddof=1) if n > 1 else np.zeros(d)
    big = np.flatnonzero(np.abs(X).max(axis=0) > 1e150) if n else np.zeros(0, int)
    if big.size:
        top = np.abs(X[:, big]).max(axis=0)
        c = np.exp2(np.floor(np.log2(top)))  # a power of two: scaling is exact
        Z = X[:, big] / c
        mu[big] = Z.mean(axis=0) * c
        sd[big] = (Z.std(axis=0, ddof=1) if n > 1 else 0.0) * c
    return mu, sd


def _mydisc_skip(X: Any) -> np.ndarray:
    """``myDisc``'s test ``max(x(x ~= 1)) ~= 0`` is false: the column is left unchanged.

    True when the largest value different from 1 is exactly 0 (e.g. {0, 1}, {-2, 0, 1}), or
    when every value equals 1 (MATLAB's ``max`` of an empty array is empty, and ``if []`` is
    false).
    """
    n, d = X.shape
    if sp.issparse(X):
        Xc = sp.csc_matrix(X, copy=True)
        Xc.eliminate_zeros()
        cols = np.repeat(np.arange(d), np.diff(Xc.indptr))
        vals = np.where(Xc.data != 1, Xc.data, -np.inf)
        colmax = np.full(d, -np.inf)
        np.maximum.at(colmax, cols, vals)
        has_zero = np.diff(Xc.indptr) < n
        colmax = np.where(has_zero, np.maximum(colmax, 0.0), colmax)
    else:
        X = np.asarray(X)
        colmax = np.where(X != 1, X, -np.inf).max(axis=0) if n else np.full(d, -np.inf)
    return (colmax == 0) | (colmax == -np.inf)


class MeanStdDiscretizer(_BaseDiscretizer):
    """oCC's ``myDisc``: states around the training mean in steps of ``factor`` standard
    deviations (``docs/methods/discretizers.md#meanstd``; oCC §7.1).

    Per numeric training column ``x``: ``μ = mean(x)``, ``s = factor · std(x)`` with the
    **sample** standard deviation (ddof = 1, MATLAB ``std``; 0 for a single pattern).
    Interior edges — ``[μ−s, μ+s]`` for 3 states, ``[μ−2s, μ−s, μ+s, μ+2s]`` for 5 — are
    rounded to ``decimals`` decimals (``myDisc``: MATLAB ``round(·, 3)``, halves away from
    zero; ``decimals=None``: not rounded, see Notes). Bins follow MATLAB
    ``discretize`` on ``[-∞, edges, +∞]``: left-closed ``[e_k, e_{k+1})``, so ``x == μ−s``
    gives 0 and ``x == μ+s`` gives +1. Output states are ``{-1, 0, 1}`` (or ``{-2, ..., 2}``).

    Parameters
    ----------
    factor : float, default=0.5
        Width of the middle state in standard deviations. 0.5 is the oCC reference code
        (``myDisc(train_data, 3, 0.5)``); the oCC paper's text says 1 ("μ ± σ"), as do the
        MLC_toolbox defaults.
    n_states : {3, 5}, default=3
    decimals : int >= 0 or None, default=3
        Decimals the edges are rounded to: 3 is ``myDisc``; ``None`` keeps them exact.
    categorical_features : "auto", None, array-like of bool or of int, default="auto"
        Columns left unchanged. ``"auto"`` is ``myDisc``'s own rule: a column is skipped when
        the largest of its training values different from 1 is exactly 0 (binary {0, 1}
        columns, but also e.g. {-2, 0, 1}) or when all its values are 1. ``None``: every
        column is discretized. A boolean mask or column indices: exactly those columns.

    Attributes
    ----------
    bin_edges_ : ndarray of object, shape (n_features,)
        Per column ``[-inf, rounded interior edges..., +inf]``; ``None`` for pass-through
        columns.
    n_bins_ : ndarray of int, shape (n_features,)
        ``n_states`` (1 for a constant column); distinct training values for pass-through
        columns.
    mean_, scale_ : ndarray of shape (n_features,)
        ``μ`` and ``s = factor·std`` (NaN for pass-through columns).
    passthrough_mask_ : ndarray of bool, shape (n_features,)
    n_features_in_ : int
    feature_names_in_ : ndarray of str

    Notes
    -----
    Output is float64 so that skipped columns keep their values exactly (``myDisc`` leaves
    them untouched, whatever they are). A constant non-skipped column (``s = 0``) maps to
    the middle state 0 (assumption, docs/methods/discretizers.md#meanstd:
    MATLAB's behaviour with duplicate edges is not
    relied upon). If rounding makes two edges coincide (``s < 0.0005``) the middle bin is
    empty and the left-closed rule decides.

    Rounding to a fixed number of decimals depends on the units of ``x``: on a column
    whose standard deviation is about 0.01 (several emotions features) it moves the edges by
    up to a tenth of the middle state's width, while on ``1000·x`` it does nothing, so the
    states of ``x`` and ``c·x`` differ. With ``decimals=None`` they are the same for every
    ``c > 0`` (``docs/methods/discretizers.md#meanstd``); the MLFS family and oCC use that
    (:func:`occ_discretizer`).
    """

    _output_dtype = np.float64

    _parameter_constraints: dict = {
        **_BaseDiscretizer._parameter_constraints,
        "factor": [Interval(numbers.Real, 0, None, closed="neither")],  # finite, > 0
        "n_states": [Options(numbers.Integral, {3, 5})],
        "decimals": [None, Interval(numbers.Integral, 0, 15, closed="both")],
    }

    def __init__(
        self,
        factor: float = 0.5,
        n_states: int = 3,
        *,
        decimals: int | None = 3,
        categorical_features: Any = "auto",
    ) -> None:
        self.factor = factor
        self.n_states = n_states
        self.decimals = decimals
        self.categorical_features = categorical_features

    def _auto_passthrough(self, X: Any) -> np.ndarray:
        return _mydisc_skip(X)

    def _fit_edges(self, X: np.ndarray, Y: Any) -> list[np.ndarray]:
        mu, sd = _mean_std(X)
        s = self.factor * sd
        mult = np.array([-1.0, 1.0]) if self.n_states == 3 else np.array([-2.0, -1.0, 1.0, 2.0])
        inner = _round_half_away(mu[:, None] + mult[None, :] * s[:, None], self.decimals)
        self._fit_mean, self._fit_scale = mu, s
        return [
            np.r_[-np.inf, inner[j], np.inf] if s[j] > 0 else np.array([-np.inf, np.inf])
            for j in range(X.shape[1])
        ]

    def fit(self, X: Any, Y: Any = None) -> MeanStdDiscretizer:
        """Compute ``μ``, ``s`` and the rounded edges of every non-skipped column.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            Training features.
        Y : ignored

        Returns
        -------
        self
        """
        super().fit(X, Y)
        d = self.n_features_in_
        self.mean_ = np.full(d, np.nan)
        self.scale_ = np.full(d, np.nan)
        cols = np.flatnonzero(~self.passthrough_mask_)
        if cols.size:
            self.mean_[cols] = self._fit_mean
            self.scale_[cols] = self._fit_scale
            del self._fit_mean, self._fit_scale
        return self

    def _encode_column(self, j: int, x: np.ndarray) -> np.ndarray:
        e = self.bin_edges_[j]
        if e.size == 2:  # constant training column: middle state
            return np.zeros(x.shape, dtype=np.float64)
        return (np.searchsorted(e[1:-1], x, side="right") - self.n_states // 2).astype(float)

    def _n_bins_of(self, edges: np.ndarray) -> int:
        return self.n_states if edges.size > 2 else 1


def occ_discretizer(kind: str = "auto") -> MeanStdDiscretizer:
    """The discretizer of the MLFS family and of oCC for ``discretizer="auto"`` or
    ``"mydisc"``: mean ± 0.5·std, 3 states (the authors' ``myDisc(X, 3, 0.5)``).

    ``"auto"``: edges not rounded. ``myDisc`` rounds the edges to 3 decimals; that makes
    the selection depend on the units of ``X`` (emotions and emotions × 2 select different
    features), which no scaling of a column should change for a method defined by means and
    standard deviations. ``"mydisc"``: the transcription of ``myDisc`` with that rounding,
    what the oCC paper's experiments ran (``experiments/occ_paper.toml`` keeps it;
    ``docs/methods/discretizers.md#meanstd``).
    """
    if kind not in ("auto", "mydisc"):
        raise ValueError(f"kind must be 'auto' or 'mydisc'; got {kind!r}.")
    return MeanStdDiscretizer(factor=0.5, n_states=3, decimals=None if kind == "auto" else 3)
