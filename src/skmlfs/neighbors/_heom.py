"""HEOM and weighted HEOM distances (Wilson & Martinez 1997; ReliefF-ML Eqs. 3–4).

Shared by ReliefF-ML / PPT+ReliefF (:mod:`skmlfs.selection`) and the lazy learners
(:mod:`skmlfs.learners`).

``docs/methods/lazy.md#heom``::

    δ_f(a, b) = 1                           if a or b is missing (NaN)
              = [a ≠ b]                     if f is nominal
              = |a − b| / (max_f − min_f)   if f is numeric (range from the training data)
    HEOM(x, y)  = sqrt( Σ_f w_f δ_f(x_f, y_f)² )          (w_f = 1: plain HEOM)

A constant training feature (range 0) has ``δ = 0``; test values outside the training range
are not clipped. ``p=1`` gives the sum of differences ``Σ_f w_f δ_f`` (the distance of
Weka's ReliefF, used by PPT+ReliefF).

Everything is computed block-wise with matrix products instead of loops over pairs:

* numeric part, ``p=2``: squared Euclidean distance of the scaled features
  ``z = x·√w / range`` through ``‖a‖² + ‖b‖² − 2 a·b`` (dense or sparse products);
* nominal part: ``Σ w_f − Σ_f w_f [a_f = b_f]``, the matches counted by a product of one-hot
  encodings;
* missing numeric values (NaN, set to 0 in ``z``): two correction products
  (``−(a∘a)·M_b − M_a·(b∘b)``) remove the spurious squared terms and
  ``Σ_f w_f [f missing in a or b]`` adds the ``δ = 1`` of the missing pairs.

Distances computed this way are exact up to floating-point rounding; on integer-valued
data with unit weights (binary bag-of-words features) they are exact, so distance ties are
exact ties. Ties between neighbours always go to the lower training index. On such 0/1
data the neighbour search (with numba) counts differing bits instead of multiplying
(:meth:`HEOM.kneighbors`): the same integers, hence the same neighbours.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.metrics.pairwise import manhattan_distances
from sklearn.utils._param_validation import Interval, validate_params
from sklearn.utils.sparsefuncs import min_max_axis
from sklearn.utils.validation import check_array, validate_data

from .._compiled import use_numba
from .._validation import categorical_mask

__all__ = ["HEOM", "check_heom_X", "heom_distances", "heom_kneighbors_graph", "stable_smallest"]

# Target size (number of float64 entries) of one block of a distance matrix or of the
# per-pair difference matrices: bounded memory whatever the data size (~32 MB).
_BLOCK_ENTRIES = 4_000_000
# Size of a dense column panel of the right operand in sparse × sparse products (_gram).
_PANEL_BYTES = 2**21
# stable_smallest runs the compiled one-pass selection (skmlfs.neighbors._numba_kernels) from
# this many entries up (below, the numpy path is as fast and numba is never imported) and
# up to this k (its insertions cost O(k) each; the neighbour counts in use are ~1–20).
KERNEL_MIN_ENTRIES = 2**15
KERNEL_MAX_K = 64
# HEOM.kneighbors searches 0/1 data by bit counts (compiled, skmlfs.neighbors._numba_kernels)
# up to this many features: the cost per pair grows with the 64-feature words, the
# products' with the stored entries (measured crossover, benchmarks/bench_neighbors.py).
BITS_MAX_FEATURES = 2048


def check_heom_X(estimator: Any, X: Any, *, reset: bool = True) -> Any:
    """Validate ``X`` for the HEOM distance: numeric, dense or CSR, NaN = missing.

    The one input check of everything built on HEOM (the estimators, :class:`HEOM` itself,
    :func:`heom_distances`, :func:`heom_kneighbors_graph`).

    Parameters
    ----------
    estimator : estimator or None
        The estimator whose ``n_features_in_`` (and feature names) are set (``reset=True``)
        or checked (``reset=False``) like scikit-learn's ``validate_data``; ``None``
        validates the array alone.
    X : array-like or sparse matrix of shape (n_samples, n_features)
    reset : bool, default=True
        Set (fit) or check (predict) the estimator's input attributes.

    Returns
    -------
    ndarray or scipy.sparse.csr_matrix of float64
        C-ordered when dense: the BLAS products of the expanded square round differently
        for an F-ordered ``X`` (e.g. from a DataFrame), which would move tied neighbours.

    Raises
    ------
    ValueError
        On infinity: NaN is allowed (HEOM treats it as a missing value, ``δ = 1``), but an
        infinite value makes every distance involving its feature NaN (``inf − inf``).
    """
    kwargs = dict(accept_sparse="csr", dtype=np.float64, ensure_all_finite="allow-nan",
                  order="C")
    if estimator is None:
        X = check_array(X, **kwargs)
    else:
        X = validate_data(estimator, X, reset=reset, **kwargs)
    data = X.data if sp.issparse(X) else X
    if np.isinf(data).any():
        raise ValueError(
            "X contains infinity; HEOM-based estimators accept NaN (missing values) only."
        )
    return X


def _check_weights(feature_weights: Any, n_features: int) -> np.ndarray:
    if feature_weights is None:
        return np.ones(n_features)
    w = np.asarray(feature_weights, dtype=float)
    if w.shape != (n_features,):
        raise ValueError(
            f"feature_weights must have shape ({n_features},) (one weight per feature); "
            f"got {w.shape}."
        )
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError("feature_weights must be finite and non-negative.")
    return w


def exact_products(Z: Any) -> bool:
    """Whether ``‖a‖² − 2a·b + ‖b‖²`` between rows of ``Z`` (dense or sparse) is computed
    exactly: integer entries whose sums of squares over a row stay below 2⁵², so equal
    distances are equal floats and ties need no tolerance (:func:`rounding_tie_tol`)."""
    z = Z.data if sp.issparse(Z) else np.asarray(Z)
    if z.size == 0:
        return True
    if not np.all(np.isfinite(z)) or not np.array_equal(z, np.round(z)):
        return False
    return float(np.abs(z).max()) ** 2 * max(1, Z.shape[1]) < 2.0**52


def rounding_tie_tol(n_terms: int, scale: float) -> float:
    """Squared distances (or ``p=1`` sums) computed from ``n_terms`` products, whose
    ``‖a‖² + ‖b‖²`` is at most ``scale``, within this of each other are ties.

    The products compute ``‖a‖² − 2a·b + ‖b‖²`` with a rounding error below
    ``(n_terms + 2)·ε·scale`` (the error bound of a dot product of that length), so equal
    distances of range-scaled values (``(1/7)² + (3/7)²`` and ``(3/7)² + (1/7)²``) come out
    a few units in the last place apart, and a stable order by index would become an order
    by rounding. Two such values differ by at most twice the bound; the tolerance is four
    times it: about 1e-12 of the distances on tens of features, far below any difference
    the data can express. The one tie policy of every neighbour search of the library
    (:class:`HEOM` and the selectors' neighbour graphs).
    """
    return 4.0 * (n_terms + 2) * np.finfo(float).eps * scale


def stable_smallest(D: np.ndarray, k: int, tol: float = 0.0) -> np.ndarray:
    """Column indices of the ``k`` smallest entries of each row, ties → lower column.

    Returns an ``(n_rows, min(k, n_cols))`` int array sorted by (value, column). Ties —
    including at the k-th position — are resolved in favour of the lower column index, as
    a stable sort of the whole row would, at the cost of a partition. ``tol > 0`` takes
    values within ``tol`` of each other as tied: distances computed in floating point
    (``‖a‖² − 2a·b + ‖b‖²`` on range-scaled values) differ in their last bits where the
    exact distances are equal, and would otherwise be ordered by that rounding instead of
    by index. With numba (:func:`skmlfs._compiled.use_numba`) large matrices go through a
    compiled single pass with the same result
    (:func:`skmlfs.neighbors._numba_kernels.stable_smallest_rows`).
    """
    n_rows, n_cols = D.shape
    k = min(k, n_cols)
    if k == 0:
        return np.empty((n_rows, 0), dtype=np.intp)
    if k <= KERNEL_MAX_K and D.size >= KERNEL_MIN_ENTRIES and use_numba():
        from ._numba_kernels import stable_smallest_rows

        out = np.empty((n_rows, k), dtype=np.intp)
        stable_smallest_rows(D, k, float(tol), out)
        return out
    if tol > 0:
        return _tolerant_smallest(D, k, tol)
    return _exact_smallest(D, k)


def _exact_smallest(D: np.ndarray, k: int) -> np.ndarray:
    """:func:`stable_smallest`'s numpy path with exact ties (``1 ≤ k ≤`` the columns)."""
    n_cols = D.shape[1]
    if 4 * k >= n_cols:
        return np.argsort(D, axis=1, kind="stable")[:, :k]
    cols = np.argpartition(D, k - 1, axis=1)[:, :k]
    vals = np.take_along_axis(D, cols, axis=1)
    kth = vals.max(axis=1, keepdims=True)
    # The partition's set is right unless values equal to the k-th one exist outside it;
    # only those rows are redone, keeping the lowest columns among the tied values.
    redo = np.flatnonzero(np.count_nonzero(D <= kth, axis=1) > k)
    if redo.size:
        # Keep the partition's entries below the k-th value (all of them are there) and
        # fill up with the lowest columns holding the k-th value itself.
        kr = kth[redo]
        lt = vals[redo] < kr
        need = k - lt.sum(axis=1)
        # Row-major positions: ascending columns within each row (flatnonzero + divmod is
        # several times faster than the 2-D nonzero on these wide rows).
        r_eq, c_eq = np.divmod(np.flatnonzero(D[redo] == kr), n_cols)
        first = np.searchsorted(r_eq, np.arange(redo.size))
        keep = np.arange(r_eq.size) - first[r_eq] < need[r_eq]
        r_lt = np.nonzero(lt)[0]
        rr = np.concatenate([r_lt, r_eq[keep]])
        cc = np.concatenate([cols[redo][lt], c_eq[keep]])
        o = np.lexsort((cc, rr))
        cols[redo] = cc[o].reshape(redo.size, k)
        vals[redo] = D[redo[:, None], cols[redo]]
    order = np.lexsort((cols, vals), axis=1)
    return np.take_along_axis(cols, order, axis=1)


def _tolerant_smallest(D: np.ndarray, k: int, tol: float) -> np.ndarray:
    """:func:`stable_smallest` with values within ``tol`` tied (numpy path).

    The values within ``tol`` of a row's ``k``-th smallest are set to it, so that the exact
    path keeps the lowest columns among them (one pass over the row, as for exact ties);
    the ``k`` kept are then ordered by value with runs of values within ``tol`` of the
    previous one tied (:func:`_order_ties`).
    """
    kth = np.partition(D, k - 1, axis=1)[:, k - 1 : k]
    with np.errstate(invalid="ignore"):  # inf − inf: not in the band (equal anyway)
        band = np.abs(D - kth) <= tol
    cols = _exact_smallest(np.where(band, kth, D), k)
    return _order_ties(np.take_along_axis(D, cols, axis=1), cols, tol)[1]


def _order_ties(v: np.ndarray, i: np.ndarray, tol: float) -> tuple[np.ndarray, np.ndarray]:
    """Rows of (value, index) candidates sorted by value, runs of values each within
    ``tol`` of the previous one tied and taken by index."""
    order = np.lexsort((i, v), axis=1)
    v, i = np.take_along_axis(v, order, axis=1), np.take_along_axis(i, order, axis=1)
    if tol > 0 and v.shape[1] > 1:
        order = np.lexsort((i, np.cumsum(_run_starts(v, tol), axis=1)), axis=1)
        v, i = np.take_along_axis(v, order, axis=1), np.take_along_axis(i, order, axis=1)
    return v, i


def _run_starts(v: np.ndarray, tol: float) -> np.ndarray:
    """``True`` where a row's value is more than ``tol`` above the previous one (and at
    its first column): the starts of its runs of tied values."""
    new = np.ones(v.shape, dtype=bool)
    with np.errstate(invalid="ignore"):  # inf − inf (unfilled slots): no new run
        new[:, 1:] = np.diff(v, axis=1) > tol
    return new


@dataclass
class _Prepared:
    """A data block encoded for the distance products (see the module docstring)."""

    n: int
    Z: Any  # numeric features scaled (NaN → 0); ndarray or CSR
    zz: np.ndarray  # Σ_f z_f² (p=2)
    miss: Any  # numeric missing indicator (float 0/1) or None
    miss_w: np.ndarray | None  # Σ_f w_f [f missing]
    nom: np.ndarray | None  # raw nominal values (NaN = missing)
    raw: Any  # raw numeric features with NaN (exact fallback path only)
    # The rows packed 64 features to a uint64 word when every entry of Z is 0 or 1 and
    # nothing is missing (None otherwise); computed on first use by HEOM._bits.
    bits: Any = field(default=None, repr=False)
    bits_checked: bool = field(default=False, repr=False)
    # Whether every entry of Z is an integer, and the largest ‖z‖² (p=2) or Σ|z| (p=1) of
    # a row: computed on first use by HEOM._tie_tol (a Relief search asks once per block).
    integral: bool | None = field(default=None, repr=False)
    extent: float | None = field(default=None, repr=False)


class HEOM:
    """(Weighted) HEOM geometry fitted on training data.

    Parameters
    ----------
    categorical_features : None, bool mask or int indices, default=None
        Nominal features (compared by overlap, ``δ = [a ≠ b]``); ``None`` = all numeric.
        Nominal values are numeric codes. Binary 0/1 features give the same ``δ`` either
        way.
    feature_weights : array-like of shape (n_features,) or None
        ``w_f ≥ 0`` multiplying ``δ_f²`` (weighted HEOM, docs/methods/lazy.md#heom); ``None`` = 1.
    normalize : bool, default=True
        Divide numeric differences by the training range (HEOM). ``False`` gives the raw
        (weighted) Euclidean distance on numeric features, as Zhang's ML-kNN code and
        scikit-multilearn use.
    p : {1, 2}, default=2
        ``2``: ``sqrt(Σ w δ²)`` (HEOM); ``1``: ``Σ w δ`` (sum of differences).
    """

    def __init__(
        self,
        categorical_features: Any = None,
        feature_weights: Any = None,
        *,
        normalize: bool = True,
        p: int = 2,
    ):
        self.categorical_features = categorical_features
        self.feature_weights = feature_weights
        self.normalize = normalize
        self.p = p

    # ------------------------------------------------------------------ fit
    def fit(self, X: Any) -> HEOM:
        """Learn the nominal mask, the numeric ranges and the weights from ``X``."""
        if self.p not in (1, 2):
            raise ValueError(f"p must be 1 or 2; got {self.p!r}.")
        # Validated here as well as by the estimators: an infinite value made every
        # distance involving its feature NaN (inf - inf), and neighbours arbitrary.
        X = check_heom_X(None, X)
        d = X.shape[1]
        self.nominal_ = categorical_mask(self.categorical_features, d)
        self.weights_ = _check_weights(self.feature_weights, d)
        self.numeric_idx_ = np.flatnonzero(~self.nominal_)
        self.nominal_idx_ = np.flatnonzero(self.nominal_)
        if sp.issparse(X):
            if X.shape[0] == 0:
                raise ValueError("HEOM needs at least one training sample.")
            lo, hi = min_max_axis(sp.csc_matrix(X), axis=0, ignore_nan=True)
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN column → NaN range
                lo = np.nanmin(X, axis=0)
                hi = np.nanmax(X, axis=0)
        lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
        with np.errstate(over="ignore"):  # handled below (inf range of huge columns)
            rng = hi - lo
        rng = np.where(np.isnan(rng), 0.0, rng)  # all-NaN column: no range
        self.range_ = rng
        if self.normalize:
            # hi - lo overflows to inf for finite values beyond ±9e307: 1/range is then
            # taken as 0.5 / (hi/2 - lo/2), which does not overflow
            half = hi / 2 - lo / 2
            inv = np.divide(1.0, rng, out=np.zeros_like(rng), where=np.isfinite(rng) & (rng > 0))
            big = np.isinf(rng)
            inv[big] = 0.5 / half[big]
        else:
            inv = np.ones_like(rng)
        inv[self.nominal_] = 0.0
        self.inv_range_ = inv  # multiplies |a − b| of numeric features; 0 for constant ones
        w = self.weights_
        if self.p == 2:
            self.col_scale_ = (inv * np.sqrt(w))[self.numeric_idx_]
        else:
            self.col_scale_ = (inv * w)[self.numeric_idx_]
        self.w_num_ = w[self.numeric_idx_]
        self.w_nom_ = w[self.nominal_idx_]
        return self

    # ------------------------------------------------------------------ encoding
    def prepare(self, X: Any) -> _Prepared:
        """Encode a validated block ``X`` (dense ndarray or CSR) for the products."""
        n = X.shape[0]
        num, nom = self.numeric_idx_, self.nominal_idx_
        if sp.issparse(X):
            X = sp.csr_matrix(X)
            raw = X[:, num] if nom.size else X
            raw = sp.csr_matrix(raw, dtype=float)
            nomv = X[:, nom].toarray().astype(float) if nom.size else None
            nan = np.isnan(raw.data)
            if nan.any():
                miss = sp.csr_matrix(
                    (nan.astype(float), raw.indices.copy(), raw.indptr.copy()), shape=raw.shape
                )
                miss.eliminate_zeros()
                Z = raw.copy()
                Z.data = np.where(nan, 0.0, Z.data)
            else:
                miss = None
                Z = raw.copy()
            Z = sp.csr_matrix(Z @ sp.diags(self.col_scale_))
            Z.eliminate_zeros()
            zz = np.asarray(Z.multiply(Z).sum(axis=1)).ravel()
            miss_w = np.asarray(miss @ self.w_num_).ravel() if miss is not None else None
        else:
            X = np.asarray(X, dtype=float)
            raw = X[:, num] if nom.size else X
            nomv = X[:, nom] if nom.size else None
            nan = np.isnan(raw)
            if nan.any():
                miss = nan.astype(float)
                Z = np.where(nan, 0.0, raw) * self.col_scale_
            else:
                miss = None
                Z = raw * self.col_scale_
            zz = np.einsum("ij,ij->i", Z, Z)
            miss_w = miss @ self.w_num_ if miss is not None else None
        return _Prepared(n, Z, zz, miss, miss_w, nomv, raw)

    # ------------------------------------------------------------------ distances
    def sq_distances(self, A: _Prepared, B: _Prepared, *, _row_terms: bool = True) -> np.ndarray:
        """Dense ``(A.n, B.n)`` dissimilarities: ``Σ w δ²`` (p=2) or ``Σ w δ`` (p=1).

        For ``p=2`` this is the squared (weighted) HEOM distance; taking the square root is
        left to the caller since neighbour order does not need it. ``_row_terms=False``
        (p=2, internal) leaves out ``‖a‖²``, constant along each row, and the clipping at 0:
        the neighbour search adds it back to the selected entries only.
        """
        if self.p == 2:
            D = _gram(A.Z, B.Z)
            D *= -2.0
            D += B.zz[None, :]
            if _row_terms:
                D += A.zz[:, None]
            if A.miss is not None or B.miss is not None:
                D += self._missing_terms(A, B)
        else:
            if A.miss is None and B.miss is None:
                D = manhattan_distances(A.Z, B.Z)
            else:
                D = self._numeric_exact(A, B)
        if A.nom is not None:
            D -= _nominal_matches(A.nom, B.nom, self.w_nom_)
            D += self.w_nom_.sum()
        if _row_terms or self.p != 2:
            np.maximum(D, 0.0, out=D)  # rounding of the expanded square can dip below 0
        return D

    def _missing_terms(self, A: _Prepared, B: _Prepared) -> np.ndarray:
        out = np.zeros((A.n, B.n))
        if B.miss is not None:
            out -= _dense(_square(A.Z) @ B.miss.T)
            out += B.miss_w[None, :]
        if A.miss is not None:
            out -= _dense(A.miss @ _square(B.Z).T)
            out += A.miss_w[:, None]
        if A.miss is not None and B.miss is not None:
            Mw = A.miss @ sp.diags(self.w_num_) if sp.issparse(A.miss) else A.miss * self.w_num_
            out -= _dense(Mw @ B.miss.T)
        return out

    def _numeric_exact(self, A: _Prepared, B: _Prepared) -> np.ndarray:
        """Σ_f w_f δ_f over numeric features pair by pair (p=1 with missing values)."""
        raw_a = A.raw.toarray() if sp.issparse(A.raw) else A.raw
        raw_b = B.raw.toarray() if sp.issparse(B.raw) else B.raw
        scale = self.inv_range_[self.numeric_idx_]
        w = self.w_num_
        D = np.empty((A.n, B.n))
        rows = max(1, _BLOCK_ENTRIES // max(1, B.n * raw_a.shape[1]))
        for s in range(0, A.n, rows):
            diff = np.abs(raw_a[s : s + rows, None, :] - raw_b[None, :, :]) * scale
            diff[np.isnan(diff)] = 1.0
            D[s : s + rows] = diff @ w
        return D

    # ------------------------------------------------------------------ neighbours
    def kneighbors(
        self,
        Q: _Prepared,
        T: _Prepared,
        k: int,
        *,
        exclude_self: bool = False,
    ) -> tuple[np.ndarray, np.ndarray]:
        """The ``k`` nearest rows of ``T`` for every row of ``Q``, blocked over ``Q``.

        ``exclude_self=True`` (``Q`` is ``T``) skips row ``i`` itself for query ``i``;
        duplicates of it remain neighbours (Mulan/Weka and Zhang's code). Ties → lower
        index. Returns ``(dissimilarities, indices)`` of shape ``(Q.n, k)`` sorted by
        (dissimilarity, index); dissimilarities as in :meth:`sq_distances`.
        """
        avail = T.n - (1 if exclude_self else 0)
        if k > avail:
            raise ValueError(
                f"k={k} neighbours requested but only {avail} training samples are "
                "available" + (" (excluding the sample itself)." if exclude_self else ".")
            )
        if exclude_self and Q is not T:
            raise ValueError("exclude_self=True needs the query set to be the training set.")
        if k <= KERNEL_MAX_K and self._by_bits(Q, T):
            # 0/1 data: the squared distance (p=2) and the sum of differences (p=1) are
            # both the number of differing features, which the products compute exactly;
            # counting bits gives the same integers and the same order, several times faster.
            from ._numba_kernels import hamming_kneighbors

            ind = np.empty((Q.n, k), dtype=np.intp)
            dist = np.empty((Q.n, k))
            hamming_kneighbors(Q.bits, T.bits, k, exclude_self, ind, dist)
            return dist, ind
        if exclude_self:
            return self._kneighbors_self(T, k)
        ind = np.empty((Q.n, k), dtype=np.intp)
        dist = np.empty((Q.n, k))
        tol = self._tie_tol(Q, T)
        for s, e in _blocks(Q.n, T.n):
            D = self.sq_distances(_take(Q, s, e), T, _row_terms=False)
            nb = stable_smallest(D, k, tol)
            ind[s:e] = nb
            dd = np.take_along_axis(D, nb, axis=1)
            if self.p == 2:
                dd += Q.zz[s:e, None]
                np.maximum(dd, 0.0, out=dd)
            dist[s:e] = dd
        return _snap_ties(dist, tol), ind

    def _tie_tol(self, A: _Prepared, B: _Prepared) -> float:
        """Distances of ``A`` to ``B`` within this of each other are ties
        (:func:`rounding_tie_tol` with the largest ``‖a‖²`` and ``‖b‖²`` of the blocks, plus
        the nominal and missing terms' weights); none where the products are exact."""
        if self._exact(A) and self._exact(B):
            return 0.0
        scale = self._extent(A) + self._extent(B) + float(self.w_nom_.sum())
        if A.miss is not None or B.miss is not None:
            scale += float(self.w_num_.sum())
        return rounding_tie_tol(self.weights_.size, scale)

    def _extent(self, P: _Prepared) -> float:
        """The largest ``‖z‖²`` (``p=2``) or ``Σ|z|`` (``p=1``) of a row of ``P`` (cached)."""
        if P.extent is None:
            if not P.n:
                P.extent = 0.0
            elif self.p == 2:
                P.extent = float(P.zz.max())
            else:
                P.extent = float(abs(P.Z).sum(axis=1).max())
        return P.extent

    def _exact(self, P: _Prepared) -> bool:
        """Whether the distances involving ``P`` are computed exactly: integer scaled
        values (0/1 data, raw integer codes with ``normalize=False``), integer weights and
        nothing missing, so the products are integers well below 2⁵³ and equal distances
        are equal floats. Ties then need no tolerance (the same result, and the numpy
        path's single pass over tied bag-of-words rows)."""
        if P.integral is None:
            P.integral = P.miss is None and exact_products(P.Z)
        w = self.weights_
        return P.integral and bool(np.array_equal(w, np.round(w)))

    def _by_bits(self, Q: _Prepared, T: _Prepared) -> bool:
        """Whether the distances between ``Q`` and ``T`` are counted as bits: numba, a
        block large enough to pay for the kernel, and 0/1 data on both sides."""
        return (
            Q.n * T.n >= KERNEL_MIN_ENTRIES
            and use_numba()
            and self._bits(Q) is not None
            and self._bits(T) is not None
        )

    def _bits(self, P: _Prepared) -> np.ndarray | None:
        """``P``'s rows packed as bits (cached on ``P``), or ``None`` when the data are not
        0/1 after scaling, have missing or nominal values, or more than
        :data:`BITS_MAX_FEATURES` features."""
        if not P.bits_checked:
            P.bits_checked = True
            if P.nom is None and P.miss is None and P.Z.shape[1] <= BITS_MAX_FEATURES:
                P.bits = _pack_bits(P.Z)
        return P.bits

    def _kneighbors_self(self, T: _Prepared, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Neighbours of every training row among the others, each pair computed once.

        The upper triangle of the ``n × n`` matrix is visited in square tiles of
        ``≈ _BLOCK_ENTRIES`` entries: tile ``(I, J)`` (``J ≥ I``) gives candidates to the
        rows ``I`` and, transposed, to the rows ``J``; a diagonal tile is computed whole and
        its diagonal skipped. The running ``k`` best of every row are merged in the total
        order (dissimilarity, index), so the result equals the plain search (ties → lower
        index) at half the products. Square tiles keep the merging cost at
        ``O(n²k / √_BLOCK_ENTRIES)`` and the memory at a few tiles, whatever ``n``.
        """
        n = T.n
        tol = self._tie_tol(T, T)
        best_v = np.full((n, k), np.inf)
        best_i = np.full((n, k), n, dtype=np.intp)
        b = max(1, int(np.sqrt(_BLOCK_ENTRIES)))
        for s in range(0, n, b):
            e = min(n, s + b)
            A = _take(T, s, e)
            for c0 in range(s, n, b):
                c1 = min(n, c0 + b)
                D = self.sq_distances(A, _take(T, c0, c1))
                if c0 == s:
                    r = np.arange(e - s)
                    D[r, r] = np.inf
                c = stable_smallest(D, k, tol)
                best_v[s:e], best_i[s:e] = _merge(
                    best_v[s:e], best_i[s:e], np.take_along_axis(D, c, axis=1), c + c0, k, tol
                )
                if c0 > s:
                    DT = np.ascontiguousarray(D.T)
                    c2 = stable_smallest(DT, k, tol)
                    best_v[c0:c1], best_i[c0:c1] = _merge(
                        best_v[c0:c1],
                        best_i[c0:c1],
                        np.take_along_axis(DT, c2, axis=1),
                        c2 + s,
                        k,
                        tol,
                    )
        return _snap_ties(best_v, tol), best_i

    def kneighbors_in_groups(
        self, X: Any, rows: np.ndarray, groups: list[np.ndarray], k: int
    ) -> Iterator[tuple[np.ndarray, int, np.ndarray, np.ndarray]]:
        """The ``k`` nearest members of every group for sampled rows of ``X`` (Relief).

        The neighbour search of ReliefF-ML and PPT+ReliefF: distances from a block of
        the sampled rows to all of ``X`` (blocked products, ``≈ _BLOCK_ENTRIES`` entries
        at a time), the sampled row itself excluded (its duplicates remain), then one
        stable partition per group (ties → lower index).

        Parameters
        ----------
        X : ndarray or scipy.sparse.csr_matrix of shape (n, n_features)
            Validated data (:func:`check_heom_X`); candidates and sampled rows alike.
        rows : ndarray of int
            The sampled rows of ``X`` (may repeat).
        groups : list of ndarray of int
            Candidate rows of every group (a label's instances, a class).
        k : int
            Neighbours per (sampled row, group); a group with fewer candidates gives all.

        Yields
        ------
        block : ndarray of int
            The sampled rows of this block (the same object for all its groups).
        g : int
            The group (empty groups are skipped).
        nb : ndarray of int of shape (block.size, min(k, n_members))
            Neighbour rows of ``X`` by (distance, index).
        valid : ndarray of bool, same shape
            ``False`` where the candidate is the sampled row itself (no neighbour).
        """
        n = X.shape[0]
        P_all = self.prepare(X)
        step = max(1, _BLOCK_ENTRIES // max(1, n))
        for s in range(0, rows.size, step):
            block = rows[s : s + step]
            P_block = self.prepare(X[block])
            if self._by_bits(P_block, P_all):
                # 0/1 data: the distances by bit counts, as in kneighbors (the same integers)
                from ._numba_kernels import hamming_distances

                D = np.empty((block.size, n))
                hamming_distances(P_block.bits, P_all.bits, D)
                tol = 0.0
            else:
                D = self.sq_distances(P_block, P_all)
                tol = self._tie_tol(P_block, P_all)
            D[np.arange(block.size), block] = np.inf  # a row is never its own neighbour
            for g, members in enumerate(groups):
                if members.size == 0:
                    continue
                sub = D[:, members]
                cols = stable_smallest(sub, k, tol)
                valid = np.isfinite(np.take_along_axis(sub, cols, axis=1))
                yield block, g, members[cols], valid

    # ------------------------------------------------------------------ per-pair deltas
    def deltas(self, XA: Any, XB: Any) -> Any:
        """Per-feature ``δ_f(a_r, b_r)`` for paired rows (unweighted), dense or CSR.

        ``XA`` and ``XB`` are validated blocks with the same number of rows (row ``r`` of
        ``XA`` is compared with row ``r`` of ``XB``).
        """
        nominal = self.nominal_
        scale = self.inv_range_
        if sp.issparse(XA) or sp.issparse(XB):
            Dm = sp.csr_matrix(sp.csr_matrix(XA, dtype=float) - sp.csr_matrix(XB, dtype=float))
            data, cols = Dm.data, Dm.indices
            out = np.abs(data)
            out *= scale[cols]
            if self.nominal_idx_.size:
                nom = nominal[cols]
                out[nom] = data[nom] != 0
            out[np.isnan(data)] = 1.0
            Dm.data = out  # explicit zeros left in place: harmless in the products
            return Dm
        Dm = np.asarray(XA, dtype=float) - np.asarray(XB, dtype=float)
        nanm = np.isnan(Dm)
        out = np.abs(Dm) * scale
        if nominal.any():
            out[:, nominal] = (Dm[:, nominal] != 0).astype(float)
        out[nanm] = 1.0
        return out


def _pack_bits(Z: Any) -> np.ndarray | None:
    """Rows of a 0/1 block packed 64 columns to a uint64 word (``None`` if an entry is
    neither 0 nor 1). Any fixed placement of the columns in the words gives the same bit
    counts, so the byte order of the machine does not matter."""
    if sp.issparse(Z):
        if not np.all(Z.data == 1.0):
            return None
    elif not np.all((Z == 0.0) | (Z == 1.0)):
        return None
    n, d = Z.shape
    n_words = max(1, -(-d // 64))
    out = np.empty((n, n_words * 8), dtype=np.uint8)
    for s, e in _blocks(n, n_words * 64):
        block = np.zeros((e - s, n_words * 64), dtype=bool)
        block[:, :d] = _dense(Z[s:e]) != 0
        out[s:e] = np.packbits(block, axis=1, bitorder="little")
    return out.view(np.uint64)


def _snap_ties(v: np.ndarray, tol: float) -> np.ndarray:
    """Sorted neighbour distances (rows in the tie-tolerant order) with every run of
    values within ``tol`` of the previous one set to the run's first value: tied
    neighbours get the same distance, so whatever reads the distances (a precomputed
    graph, the weighted votes) sees the ties the search saw."""
    if tol <= 0 or v.shape[1] < 2:
        return v
    start = np.where(_run_starts(v, tol), np.arange(v.shape[1]), 0)
    np.maximum.accumulate(start, axis=1, out=start)
    return np.take_along_axis(v, start, axis=1)


def _merge(v1, i1, v2, i2, k, tol=0.0):
    """The ``k`` smallest of two candidate lists per row in the order (value, index),
    values within ``tol`` tied (as :func:`stable_smallest`)."""
    v, i = _order_ties(np.concatenate([v1, v2], axis=1), np.concatenate([i1, i2], axis=1), tol)
    return v[:, :k], i[:, :k]


def _gram(A: Any, B: Any) -> np.ndarray:
    """Dense ``A @ B.T`` of two blocks (dense ndarrays or CSR).

    Sparse × sparse goes through scipy's two-pass product (symbolic, then numeric, then
    to dense) — slow when the product is nearly dense, as on bag-of-words data, where
    each output entry gathers several products. Then ``B`` is made dense in column panels
    of ``_PANEL_BYTES`` (cache-resident) and multiplied by the CSR ``A`` panel by panel:
    the same sums in the same order (over the stored entries of each row of ``A``), so
    bit-identical results, about 1.3–2× faster. The switch is at an expected
    ``Σ_f nnz_A(f)·nnz_B(f) ≥ n_A·n_B`` multiply-adds, one per output entry, where the
    two were measured equal.
    """
    if not (sp.issparse(A) and sp.issparse(B)):
        return _dense(A @ B.T)
    na, nb = A.shape[0], B.shape[0]
    d = A.shape[1]
    flops = np.bincount(A.indices, minlength=d) @ np.bincount(B.indices, minlength=d)
    if flops < na * nb or na == 0 or nb == 0:
        return _dense(A @ B.T)
    A = sp.csr_matrix(A)
    out = np.empty((na, nb))
    w = max(32, _PANEL_BYTES // (8 * max(1, d)))
    for c in range(0, nb, w):
        out[:, c : c + w] = A @ B[c : c + w].T.toarray()
    return out


def _square(M: Any) -> Any:
    return M.multiply(M).tocsr() if sp.issparse(M) else M * M


def _dense(M: Any) -> np.ndarray:
    return M.toarray() if sp.issparse(M) else np.asarray(M)


def _blocks(n_rows: int, n_cols: int):
    step = max(1, _BLOCK_ENTRIES // max(1, n_cols))
    for s in range(0, n_rows, step):
        yield s, min(n_rows, s + step)


def _take(P: _Prepared, s: int, e: int) -> _Prepared:
    sl = slice(s, e)

    def cut(M):
        return None if M is None else M[sl]

    return _Prepared(e - s, P.Z[sl], P.zz[sl], cut(P.miss), cut(P.miss_w), cut(P.nom), P.raw[sl])


def _nominal_matches(A: np.ndarray, B: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``Σ_f w_f [a_f = b_f]`` (missing never matches) through one-hot products.

    Codes come from the values of both blocks, so values unseen in training still match
    when equal.
    """
    na = A.shape[0]
    both = np.vstack([A, B])
    rows, cols, vals = [], [], []
    offset = 0
    r_all = np.arange(both.shape[0])
    for f in range(both.shape[1]):  # nominal features are few; each step is vectorised
        col = both[:, f]
        ok = ~np.isnan(col)
        uniq, code = np.unique(col[ok], return_inverse=True)
        rows.append(r_all[ok])
        cols.append(offset + code)
        vals.append(np.full(code.size, np.sqrt(w[f])))
        offset += uniq.size
    OH = sp.csr_matrix(
        (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
        shape=(both.shape[0], offset),
    )
    return _dense(OH[:na] @ OH[na:].T)


def _fit_on_pair(X: Any, Y: Any, ranges_from: Any, heom: HEOM) -> tuple[Any, Any, HEOM]:
    """Validated ``X`` and ``Y`` (``Y`` is ``X`` when None) and ``heom`` fitted on the
    training data ``ranges_from`` (``X`` when None): the inputs of the two functions below."""
    Xa = check_heom_X(None, X)
    Xb = Xa if Y is None else check_heom_X(None, Y)
    ref = Xa if ranges_from is None else check_heom_X(None, ranges_from)
    if Xb.shape[1] != Xa.shape[1] or ref.shape[1] != Xa.shape[1]:
        raise ValueError("X, Y and ranges_from must have the same number of features.")
    return Xa, Xb, heom.fit(ref)


def heom_distances(
    X: Any,
    Y: Any = None,
    *,
    categorical_features: Any = None,
    feature_weights: Any = None,
    ranges_from: Any = None,
) -> np.ndarray:
    """Dense matrix of (weighted) HEOM distances between the rows of ``X`` and ``Y``.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_a, n_features)
    Y : array-like or sparse matrix of shape (n_b, n_features), default=None (= ``X``)
    categorical_features, feature_weights
        As in :class:`HEOM`.
    ranges_from : array-like or sparse, default=None
        Data the numeric ranges are taken from (the training set); ``None`` = ``X``.

    Returns
    -------
    ndarray of shape (n_a, n_b)
        ``sqrt(Σ_f w_f δ_f²)`` (docs/methods/lazy.md#heom).
    """
    Xa, Xb, h = _fit_on_pair(X, Y, ranges_from, HEOM(categorical_features, feature_weights))
    Pa = h.prepare(Xa)
    D = h.sq_distances(Pa, Pa if Y is None else h.prepare(Xb))
    if Y is None:
        np.fill_diagonal(D, 0.0)  # exact zeros instead of the expansion's rounding residue
    return np.sqrt(D)


@validate_params(
    {"n_neighbors": [Interval(numbers.Integral, 1, None, closed="left")]},
    prefer_skip_nested_validation=True,
)
def heom_kneighbors_graph(
    X: Any,
    Y: Any = None,
    *,
    n_neighbors: int,
    categorical_features: Any = None,
    feature_weights: Any = None,
    ranges_from: Any = None,
    normalize: bool = True,
) -> sp.csr_matrix:
    """Sparse graph of the ``n_neighbors`` nearest rows by (weighted) HEOM distance.

    The neighbour search of the lazy learners (blocked products, never an ``n_a × n_b``
    matrix in memory; ties → lower index) as a graph for their ``metric="precomputed"``:
    computed once for the largest ``k`` of a grid, it serves every smaller ``k`` (the ``k``
    nearest are the first ``k`` stored entries of each row).

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_a, n_features)
        Query rows.
    Y : array-like or sparse matrix of shape (n_b, n_features), default=None
        Candidate neighbours (the training set). ``None``: the rows of ``X`` among
        themselves, each row's own entry excluded (duplicates of it remain), i.e. the
        neighbourhoods of the learners' training statistics.
    n_neighbors : int
        Neighbours stored per row (``≤ n_b``, or ``≤ n_a − 1`` when ``Y`` is ``None``).
    categorical_features, feature_weights, normalize
        As in :class:`HEOM`.
    ranges_from : array-like or sparse, default=None
        Data the numeric ranges are taken from (the training set); ``None`` = ``X``.

    Returns
    -------
    scipy.sparse.csr_matrix of shape (n_a, n_b)
        Exactly ``n_neighbors`` stored entries per row — the HEOM distances of the
        neighbours, zero distances stored explicitly — in neighbour order (distance, then
        index), the order the learners read them in (ties between equal stored values
        keep the stored order). Do not eliminate zeros or sort the indices.
    """
    k = int(n_neighbors)
    Xa, Xb, h = _fit_on_pair(
        X, Y, ranges_from, HEOM(categorical_features, feature_weights, normalize=normalize)
    )
    Pa = h.prepare(Xa)
    if Y is None:
        d2, ind = h.kneighbors(Pa, Pa, k, exclude_self=True)
    else:
        d2, ind = h.kneighbors(Pa, h.prepare(Xb), k)
    n_a = Xa.shape[0]
    return sp.csr_matrix(
        (np.sqrt(d2).ravel(), ind.ravel(), np.arange(0, n_a * k + 1, k)),
        shape=(n_a, Xb.shape[0]),
    )
