"""The count engine: plug-in entropies of discrete variables from contingency counts.

Every information-theoretic method of the library works on the quantities computed
here (``docs/methods/info.md#estimators``): plug-in (maximum-likelihood)
entropies of single and joint discrete variables, and the mutual information,
conditional mutual information and interaction information derived from them.

Representation
--------------
A :class:`DiscreteData` holds ``p`` discrete variables observed on ``n`` rows. Each
variable's values are coded ``0 .. arity-1``; code 0 is *implicit*: only the indicator
columns of codes ``1 .. arity-1`` are stored, as one ``n × m`` indicator matrix (sparse
CSC, or dense float32 when that is denser and small enough for BLAS). For sparse input
code 0 is the value 0, so the indicator matrix has exactly the non-zeros of ``X``; for
dense input code 0 is each column's most frequent value, which minimises the stored
indicators.

The contingency tables of *all* pairs ``(a_i, b_j)`` come from one product
``A_ind.T @ B_ind``: it holds the cells with both codes ≥ 1; the cells involving code 0
follow by subtraction from the marginal counts. For binary variables this is the
classic ``n11 = XᵀY``, ``n10 = |x| − n11``, ``n01 = |y| − n11``,
``n00 = n − n11 − n10 − n01``. ``Σ c log c`` over the cells is read from a lookup table
of ``c log c`` for the integers ``0..n``.

Conditioning on one more variable ``z`` (for three-way entropies and CMI) splits the
rows by the value of ``z``: one restricted product per non-zero code of ``z``, and the
code-0 stratum by subtraction from the unrestricted counts.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any, NamedTuple

import numpy as np
import scipy.sparse as sp

from ._kernels import binary_one_entropy, row_counts, use_numba

__all__ = [
    "DiscreteData",
    "TableTooLargeError",
    "conditional_mutual_info",
    "entropy",
    "interaction_info",
    "iter_conditional_mutual_info",
    "joint_entropy",
    "joint_entropy_one",
    "max_table_bytes",
    "mutual_info",
]

# Dense float32 products are exact for counts below 2**24; beyond that use float64.
_F32_EXACT = 2**24
# Store the indicator matrix densely when at least this fraction of it is non-zero and
# it fits in this many bytes: BLAS on a dense matrix beats sparse products there.
_DENSE_FRACTION = 0.15
_DENSE_MAX_BYTES = 3 * 2**30
# Integer-valued dense columns spanning at most this many values are coded by offset
# (vectorised); wider columns are coded per column with np.unique.
_MAX_OFFSET_RANGE = 4096
# Dense input is coded in column chunks of about this many elements.
_CHUNK_ELEMENTS = 2**23


def _prefer_dense(nnz: int, n: int, m: int) -> bool:
    return m > 0 and nnz >= _DENSE_FRACTION * n * m and n * m * 4 <= _DENSE_MAX_BYTES


@dataclass(frozen=True, eq=False)
class DiscreteData:
    """Integer-coded discrete variables with their stored indicator matrix.

    Build one with :meth:`from_array`; select variables with :meth:`take`.

    Attributes
    ----------
    n_samples : int
        Number of rows.
    arity : ndarray of shape (p,)
        Number of codes of each variable (code 0 included); 1 for a constant variable.
    ptr : ndarray of shape (p + 1,)
        Variable ``i`` owns indicator columns ``ptr[i]:ptr[i + 1]`` (codes ``1..arity-1``).
    indicators : scipy.sparse.csc_matrix or ndarray of shape (n, m)
        0/1 indicator of each non-zero code.
    counts : ndarray of shape (m,)
        Number of rows with each non-zero code.
    values : list of ndarray or None
        ``values[i][c]`` is the original value coded ``c`` (kept for inverse mapping).
    """

    n_samples: int
    arity: np.ndarray
    ptr: np.ndarray
    indicators: Any
    counts: np.ndarray
    values: list | None = field(default=None, repr=False)

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_array(cls, X: Any, *, dense: bool | None = None) -> DiscreteData:
        """Encode the columns of a discrete matrix as variables.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n, p)
            Discrete values, used as symbols (exact equality; no flooring, unlike
            MIToolbox, see docs/methods/info.md#estimators). NaN is rejected.
        dense : bool, optional
            Force the dense (True) or sparse (False) indicator storage; by default it
            is chosen from the density and size.
        """
        if sp.issparse(X):
            return cls._from_sparse(sp.csc_matrix(X), dense)
        X = np.asarray(X)
        if X.ndim == 1:
            X = X[:, None]
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D; got {X.ndim} dimensions.")
        if X.dtype.kind == "f" and np.isnan(X).any():
            raise ValueError("X contains NaN; discrete variables need a value in every row.")
        return cls._from_dense(X, dense)

    @classmethod
    def _from_dense(cls, X: np.ndarray, dense: bool | None) -> DiscreteData:
        n, p = X.shape
        if X.dtype.kind == "b":
            X = X.view(np.uint8)
        # Code column chunks so that temporaries stay small even for 50,000 × 5,000 input.
        step = max(1, _CHUNK_ELEMENTS // max(n, 1))
        arity = np.empty(p, dtype=np.int64)
        values: list = []
        rows_parts, cols_parts = [], []
        col_offset = 0
        for j0 in range(0, p, step):
            block = X[:, j0 : j0 + step]
            codes, vals, ar = _codes_binary(block)
            if codes is None:
                codes, vals = _codes_by_offset(block)
                if codes is None:
                    codes, vals = _codes_by_unique(block)
                ar = np.array([len(v) for v in vals], dtype=np.int64)
                codes, vals = _most_frequent_first(codes, ar, vals)
            arity[j0 : j0 + block.shape[1]] = ar
            values.extend(vals)
            bptr = col_offset + np.concatenate([[0], np.cumsum(ar - 1)])
            # flatnonzero on a bool mask is several times faster than 2-D nonzero
            flat = np.flatnonzero(codes.view(bool) if codes.dtype == np.int8 else codes != 0)
            r, c = np.divmod(flat, codes.shape[1])
            rows_parts.append(r.astype(np.int32))
            cols_parts.append((bptr[c] + codes[r, c] - 1).astype(np.int32))
            col_offset = int(bptr[-1])
        ptr = np.concatenate([[0], np.cumsum(arity - 1)])
        rows = np.concatenate(rows_parts) if rows_parts else np.empty(0, np.int32)
        cols = np.concatenate(cols_parts) if cols_parts else np.empty(0, np.int32)
        m = int(ptr[-1])
        if dense is None:
            dense = _prefer_dense(rows.size, n, m)
        if dense:
            ind = np.zeros((n, m), dtype=np.float32)
            ind[rows, cols] = 1.0
        else:
            ind = sp.csc_matrix(
                (np.ones(rows.size, dtype=np.float32), (rows, cols)), shape=(n, m)
            )
        return cls._finish(n, arity, ptr, ind, values, dense)

    @classmethod
    def _from_sparse(cls, X: sp.csc_matrix, dense: bool | None) -> DiscreteData:
        n, p = X.shape
        X = X.copy()
        X.eliminate_zeros()
        X.sort_indices()
        data = X.data
        if data.dtype.kind == "f" and np.isnan(data).any():
            raise ValueError("X contains NaN; discrete variables need a value in every row.")
        if data.size and np.all(data == data[0]):
            # Binary sparse data (one non-zero value): the indicators are X's own pattern.
            nnz_col = np.diff(X.indptr)
            arity = 1 + (nnz_col > 0).astype(np.int64)
            ptr = np.concatenate([[0], np.cumsum(arity - 1)])
            keep = np.flatnonzero(nnz_col > 0)
            indptr = np.append(X.indptr[keep], data.size)
            ind = sp.csc_matrix(
                (np.ones(data.size, dtype=np.float32), X.indices, indptr), shape=(n, keep.size)
            )
            zero, one = np.zeros(1, dtype=data.dtype), np.array([0, data[0]], dtype=data.dtype)
            values = [one if a == 2 else zero for a in arity]
            return cls._finish(n, arity, ptr, ind, values, dense)
        col_of = np.repeat(np.arange(p), np.diff(X.indptr))
        # Distinct (column, non-zero value) pairs, ordered by column then value.
        order = np.lexsort((data, col_of))
        c_sorted, v_sorted = col_of[order], data[order]
        new = np.ones(order.size, dtype=bool)
        new[1:] = (c_sorted[1:] != c_sorted[:-1]) | (v_sorted[1:] != v_sorted[:-1])
        pair_id = np.cumsum(new) - 1
        pair_col = c_sorted[new]
        n_nonzero_values = np.bincount(pair_col, minlength=p)
        arity = n_nonzero_values + 1
        ptr = np.concatenate([[0], np.cumsum(arity - 1)])
        col_index = np.empty(order.size, dtype=np.int64)
        # Indicator column of each stored entry: the column's block start + value rank.
        first_pair_of_col = ptr[:-1]
        rank_in_col = pair_id - np.searchsorted(pair_col, pair_col)[pair_id]
        col_index[order] = first_pair_of_col[c_sorted] + rank_in_col
        ind = sp.csc_matrix(
            (np.ones(data.size, dtype=np.float32), (X.indices, col_index)),
            shape=(n, int(ptr[-1])),
        )
        uniq_vals = v_sorted[new]
        values = [
            np.concatenate([[0], uniq_vals[ptr[i] : ptr[i + 1]]]).astype(data.dtype)
            for i in range(p)
        ]
        return cls._finish(n, arity, ptr, ind, values, dense)

    @classmethod
    def _finish(cls, n, arity, ptr, ind, values, dense) -> DiscreteData:
        if dense is None:
            dense = _prefer_dense(ind.nnz, n, ind.shape[1])
        if dense and not isinstance(ind, np.ndarray):
            ind = ind.toarray()
        elif not dense and isinstance(ind, np.ndarray):
            ind = sp.csc_matrix(ind)
        counts = np.rint(np.asarray(ind.sum(axis=0, dtype=np.float64))).ravel().astype(np.int64)
        return cls(int(n), np.asarray(arity), np.asarray(ptr), ind, counts, values)

    # ------------------------------------------------------------------ helpers
    @property
    def n_vars(self) -> int:
        """Number of variables ``p``."""
        return int(self.arity.size)

    @property
    def is_dense(self) -> bool:
        return isinstance(self.indicators, np.ndarray)

    def take(self, idx: Any) -> DiscreteData:
        """The variables ``idx`` (in that order) as a new :class:`DiscreteData`."""
        idx = np.atleast_1d(np.asarray(idx, dtype=np.int64))
        lo, hi = self.ptr[idx], self.ptr[idx + 1]
        cols = (
            np.concatenate([np.arange(a, b) for a, b in zip(lo, hi, strict=True)])
            if idx.size
            else np.empty(0, dtype=np.int64)
        )
        arity = self.arity[idx]
        ptr = np.concatenate([[0], np.cumsum(arity - 1)])
        ind = self.indicators[:, cols]
        values = None if self.values is None else [self.values[i] for i in idx]
        return DiscreteData(self.n_samples, arity, ptr, ind, self.counts[cols], values)

    @classmethod
    def concat(cls, parts: list[DiscreteData]) -> DiscreteData:
        """The variables of several blocks observed on the same rows, side by side."""
        if not parts:
            raise ValueError("concat needs at least one DiscreteData block.")
        n = parts[0].n_samples
        if any(p.n_samples != n for p in parts):
            raise ValueError("concat: blocks observed on different numbers of rows.")
        arity = np.concatenate([p.arity for p in parts])
        ptr = np.concatenate([[0], np.cumsum(arity - 1)])
        if all(p.is_dense for p in parts):
            ind = np.hstack([p.indicators for p in parts])
        else:
            ind = sp.hstack([sp.csc_matrix(p.indicators) for p in parts], format="csc")
        counts = np.concatenate([p.counts for p in parts])
        values = (
            None
            if any(p.values is None for p in parts)
            else [v for p in parts for v in p.values]
        )
        return cls(int(n), arity, ptr, ind, counts, values)

    def rows(self, mask: np.ndarray) -> DiscreteData:
        """The same variables observed on a subset of rows (codes kept)."""
        rows = np.flatnonzero(mask) if np.asarray(mask).dtype == bool else np.asarray(mask)
        if self.is_dense:
            ind = self.indicators[rows]
        else:
            ind = self.row_major[rows].tocsc()
        counts = _row_sums(self, rows)
        return DiscreteData(int(rows.size), self.arity, self.ptr, ind, counts, self.values)

    @cached_property
    def col_major(self) -> sp.csc_matrix:
        """The indicator matrix as CSC (rows of each code, for conditioning on it)."""
        return sp.csc_matrix(self.indicators)

    @cached_property
    def row_major(self) -> sp.csr_matrix | np.ndarray:
        """The indicator matrix in row-major (CSR) form, for restricting to rows."""
        return self.indicators if self.is_dense else sp.csr_matrix(self.indicators)

    def codes(self) -> np.ndarray:
        """Dense ``(n, p)`` matrix of codes (for references and debugging)."""
        n, p = self.n_samples, self.n_vars
        out = np.zeros((n, p), dtype=np.int64)
        ind = sp.csc_matrix(self.indicators)
        var_of_col = np.repeat(np.arange(p), self.arity - 1)
        code_of_col = np.arange(ind.shape[1]) - self.ptr[var_of_col] + 1
        for c in range(ind.shape[1]):
            r = ind.indices[ind.indptr[c] : ind.indptr[c + 1]]
            out[r, var_of_col[c]] = code_of_col[c]
        return out

    @cached_property
    def binary_columns(self) -> np.ndarray | None:
        """Indicator column of each variable when all have at most two codes (−1 for a
        constant one), else None."""
        if self.n_vars and int(self.arity.max()) > 2:
            return None
        return np.where(self.arity >= 2, self.ptr[:-1], -1)

    def zero_counts(self) -> np.ndarray:
        """Number of rows with code 0, per variable."""
        return self.n_samples - _group_sum(self.counts, self.ptr)


# ---------------------------------------------------------------------- encoding
def _codes_binary(X: np.ndarray):
    """Fast path for 0/1 columns: code 0 is the more frequent value (0 on ties)."""
    if X.size == 0 or X.dtype.kind not in "biuf":
        return None, None, None
    lo, hi = X.min(), X.max()
    if lo < 0 or hi > 1:
        return None, None, None
    if X.dtype.kind == "f" and not np.all((X == 0) | (X == 1)):
        return None, None, None
    n = X.shape[0]
    ones = np.count_nonzero(X, axis=0)
    flip = ones * 2 > n
    codes = X.astype(np.int8)
    if flip.any():
        codes[:, flip] = 1 - codes[:, flip]
    arity = 1 + ((ones > 0) & (ones < n)).astype(np.int64)
    v01, v10, v0, v1 = (np.array(v, dtype=X.dtype) for v in ([0, 1], [1, 0], [0], [1]))
    values = [
        (v10 if f else v01) if a == 2 else (v1 if c == n else v0)
        for f, a, c in zip(flip, arity, ones, strict=True)
    ]
    return codes, values, arity


def _codes_by_offset(X: np.ndarray):
    """Vectorised coding of integer-valued columns with a small value range."""
    if X.size == 0:
        return np.zeros(X.shape, dtype=np.int64), [np.zeros(1)] * X.shape[1]
    if X.dtype.kind not in "iuf":
        return None, None
    if X.dtype.kind == "f" and (
        not np.all(np.isfinite(X)) or not np.array_equal(X, np.rint(X))
    ):
        return None, None
    # The value range decides, computed in float: an int64 cast of floats beyond 2**63
    # (x 1e300) wraps around, and so does max - min of extreme int64 / uint64 codes; the
    # codes then collapse or go negative. Wide ranges go to the np.unique path instead.
    lo_f = X.min(axis=0).astype(np.float64)
    hi_f = X.max(axis=0).astype(np.float64)
    if (
        float((hi_f - lo_f).max()) + 1 > _MAX_OFFSET_RANGE
        or lo_f.min() < -(2.0**62)
        or hi_f.max() > 2.0**62
    ):
        return None, None
    Xi = X.astype(np.int64, copy=False)
    lo = Xi.min(axis=0)
    span = Xi.max(axis=0) - lo + 1
    off = Xi - lo
    n, p = X.shape
    width = int(span.max())
    flat = (off + (np.arange(p, dtype=np.int64) * width)[None, :]).ravel()
    present = np.bincount(flat, minlength=p * width).reshape(p, width) > 0
    remap = np.cumsum(present, axis=1) - 1
    codes = remap[np.arange(p)[None, :], off]
    values = [(np.flatnonzero(present[j]) + lo[j]).astype(X.dtype) for j in range(p)]
    return codes, values


def _codes_by_unique(X: np.ndarray):
    n, p = X.shape
    codes = np.empty((n, p), dtype=np.int64)
    values = []
    for j in range(p):  # general (non-integer or wide-range) values: one sort per column
        v, inv = np.unique(X[:, j], return_inverse=True)
        codes[:, j] = inv.ravel()
        values.append(v)
    return codes, values


def _most_frequent_first(codes, arity, values):
    n, p = codes.shape
    if p == 0 or n == 0:
        return codes, values
    width = int(arity.max())
    flat = (codes + (np.arange(p, dtype=np.int64) * width)[None, :]).ravel()
    freq = np.bincount(flat, minlength=p * width).reshape(p, width)
    top = freq.argmax(axis=1)  # lowest code among equally frequent values
    if not top.any():
        return codes, values
    # Swap code 0 and code top[j] in column j.
    t = top[None, :]
    codes = np.where(codes == t, 0, np.where(codes == 0, t, codes))
    new_values = []
    for j, v in enumerate(values):
        if top[j]:
            v = v.copy()
            v[[0, top[j]]] = v[[top[j], 0]]
        new_values.append(v)
    return codes, new_values


# ---------------------------------------------------------------------- counting
def _group_sum(a: np.ndarray, ptr: np.ndarray, axis: int = 0) -> np.ndarray:
    """Sum ``a`` over consecutive groups ``ptr[i]:ptr[i+1]`` along ``axis`` (empty → 0)."""
    n_groups = ptr.size - 1
    sizes = np.diff(ptr)
    if a.shape[axis] == n_groups and np.all(sizes == 1):
        return a
    nonempty = sizes > 0
    shape = list(a.shape)
    shape[axis] = n_groups
    out = np.zeros(shape, dtype=a.dtype)
    if n_groups and sizes.max() == 1:
        # binary variables and constants (groups of one column or none): a gather, the
        # same values as reduceat without its per-group overhead
        idx = [slice(None)] * a.ndim
        idx[axis] = nonempty
        out[tuple(idx)] = a
        return out
    if nonempty.any():
        red = np.add.reduceat(a, ptr[:-1][nonempty], axis=axis)
        idx = [slice(None)] * a.ndim
        idx[axis] = nonempty
        out[tuple(idx)] = red
    return out


@lru_cache(maxsize=4)
def _xlogx_table_cached(n: int) -> np.ndarray:
    """:func:`_xlogx_table` kept for the greedy steps of one fit (read-only)."""
    t = _xlogx_table(n)
    t.flags.writeable = False
    return t


def _xlogx_table(n: int) -> np.ndarray:
    c = np.arange(n + 1, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = c * np.log(c)
    t[0] = 0.0
    return t


# The compiled kernels (skmlfs.info._kernels, numba) take the greedy step's counts and
# tables from this many indicator columns up: below it, the numpy path (the same
# results) and no numba import.
KERNEL_MIN_COLUMNS = 2**16
# Threads of the compiled greedy step (the counts over the selected feature's rows).
KERNEL_THREADS = max(1, min(2, os.cpu_count() or 1))

# _row_sums counts by one pass over all entries (a matrix–vector product) when the rows
# hold more than 1/_MATVEC_SHARE of them: a sequential pass costs a few times less per
# entry than the gather of those rows' entries.
_MATVEC_SHARE = 4


def _row_sums(A: DiscreteData, rows: np.ndarray) -> np.ndarray:
    """Counts of every non-zero code of ``A`` over the given rows, shape (m_A,).

    Costs the stored entries of those rows only (not the whole matrix), which is what
    makes a greedy step against one selected feature cheap.
    """
    m = A.indicators.shape[1]
    if rows.size == 0 or m == 0:
        return np.zeros(m, dtype=np.int64)
    if not A.is_dense and m >= KERNEL_MIN_COLUMNS and use_numba():
        # compiled: one walk over those rows' entries (the same integer counts)
        csr = A.row_major
        return row_counts(csr.indptr, csr.indices, np.asarray(rows, dtype=np.int64), m)
    if A.is_dense:
        return np.rint(np.add.reduce(A.indicators[rows], axis=0, dtype=np.float64)).astype(
            np.int64
        )
    csr = A.row_major
    starts, ends = csr.indptr[rows], csr.indptr[rows + 1]
    lengths = ends - starts
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(m, dtype=np.int64)
    if total * _MATVEC_SHARE > csr.nnz:
        # Rows holding a large share of the entries (a frequent selected feature): one
        # sequential pass over all entries, A_indᵀ z with z counting the rows, is cheaper
        # than gathering those rows' entries; the counts are the same integers.
        z = np.bincount(rows, minlength=A.n_samples).astype(np.float64)
        return np.rint(A.indicators.T @ z).astype(np.int64)
    offsets = np.repeat(starts - (np.cumsum(lengths) - lengths), lengths)
    positions = np.arange(total) + offsets
    return np.bincount(csr.indices[positions], minlength=m).astype(np.int64)


# Below this many indicator columns in B, count per B-column by restricting A's rows.
_FEW_COLUMNS = 8


class TableTooLargeError(ValueError):
    """A dense count table above the memory budget (:func:`max_table_bytes`) was asked for.

    Raised before any allocation, instead of a ``MemoryError`` (or swapping) part-way.
    """


# Largest dense count table (int64 bytes) the engine builds; SKMLFS_MAX_TABLE_GIB overrides.
MAX_TABLE_GIB = 4.0


def max_table_bytes() -> float:
    """Budget of one dense ``(codes of A) × (codes of B)`` count table, in bytes.

    :data:`MAX_TABLE_GIB` (4 GiB) unless the environment variable ``SKMLFS_MAX_TABLE_GIB``
    gives another number of GiB. The full feature × label tables (small problems, and
    LRFS, PMU, FIMF and parts of the MLFS family at any size) are bounded by it (those
    also check their tables before counting); the label sums of SCLS, AMI, MIRank, GICS,
    MDMR, D2F, the MLFS relevance, PPT and MLCFS never build such a table above the
    full-block threshold.

    Returns
    -------
    float
        Bytes; a table needing more raises :class:`TableTooLargeError`.
    """
    return float(os.environ.get("SKMLFS_MAX_TABLE_GIB", MAX_TABLE_GIB)) * 2**30


def _check_table(m_a: int, m_b: int) -> None:
    need = 8.0 * m_a * m_b
    if need > max_table_bytes():
        raise TableTooLargeError(
            f"this needs a dense count table of {m_a:,} × {m_b:,} value codes "
            f"({need / 2**30:.1f} GiB as int64, and several float64 tables of the same size), "
            f"above the budget of {max_table_bytes() / 2**30:.1f} GiB (environment variable "
            "SKMLFS_MAX_TABLE_GIB). Terms over every feature × label pair or label pair "
            "(LRFS, PMU, FIMF's interaction term, the label-correlation term and local mode "
            "of MLFS) do not scale to this many features and labels; SCLS, AMI, MIRank, "
            "GICS, MDMR, D2F, MLMIM, MLJMI, MLMRMR, PPT and MLCFS sum over the labels "
            "without the table (docs/methods/info.md#complexity-and-scale)."
        )


def _cross_counts(A: DiscreteData, B: DiscreteData) -> np.ndarray:
    """Dense ``(m_A, m_B)`` int64 matrix ``A_indᵀ B_ind`` (cells with both codes ≥ 1)."""
    a, b = A.indicators, B.indicators
    n = A.n_samples
    _check_table(a.shape[1], b.shape[1])
    if a.shape[1] == 0 or b.shape[1] == 0:
        return np.zeros((a.shape[1], b.shape[1]), dtype=np.int64)
    if b.shape[1] <= _FEW_COLUMNS and b.shape[1] < a.shape[1]:
        bcsc = sp.csc_matrix(b)
        out = np.empty((a.shape[1], b.shape[1]), dtype=np.int64)
        for c in range(b.shape[1]):
            out[:, c] = _row_sums(A, bcsc.indices[bcsc.indptr[c] : bcsc.indptr[c + 1]])
        return out
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        if n < _F32_EXACT:
            out = a.T @ b
        else:
            out = a.astype(np.float64).T @ b.astype(np.float64)
    elif isinstance(a, np.ndarray):
        out = (b.T @ a).T  # sparse.T @ dense
    elif isinstance(b, np.ndarray):
        out = a.T @ b
    elif b.shape[1] <= 64:
        # one or a few selected variables: a sparse-times-dense product is much cheaper
        out = a.T @ b.toarray()
    else:
        if n >= _F32_EXACT:
            a, b = a.astype(np.float64), b.astype(np.float64)
        if a.nnz >= b.nnz:
            # Same flops either way, but scipy's product runs longer inner loops with the
            # operand holding more entries per sample on the right (~2x on 200k x 20k x 1k).
            out = np.ascontiguousarray((b.T @ a).toarray().T)
        else:
            out = (a.T @ b).toarray()
    out = np.asarray(out)
    return np.rint(out).astype(np.int64)


# Cells of the count matrix handled at once by _sum_xlogx_tables: its gathers and
# temporaries then stay in cache (one pass over a 20,000 × 1,000 table is memory-bound).
_XLOGX_CHUNK_CELLS = 1 << 18


def _sum_xlogx_tables(
    C: np.ndarray,
    cnt_a: np.ndarray,
    cnt_b: np.ndarray,
    n: int,
    A: DiscreteData,
    B: DiscreteData,
    table: np.ndarray,
) -> np.ndarray:
    """``Σ_cells c log c`` of the contingency table of every pair ``(A_i, B_j)``.

    ``C`` holds the cells where both codes are ≥ 1; ``cnt_a``/``cnt_b`` the marginal
    counts of each non-zero code and ``n`` the number of rows (of the stratum).
    Every term belongs to one variable of ``A``, so chunks of whole ``A`` variables are
    computed separately (bit-identical to one pass, with cache-sized temporaries).
    """
    a_ptr, b_ptr = A.ptr, B.ptr
    rows = max(1, _XLOGX_CHUNK_CELLS // max(1, C.shape[1]))
    if C.shape[0] <= rows:
        return _sum_xlogx_block(C, cnt_a, cnt_b, n, a_ptr, b_ptr, table)
    p_a = a_ptr.size - 1
    out = np.empty((p_a, b_ptr.size - 1))
    v = 0
    while v < p_a:
        r0 = a_ptr[v]
        w = min(max(int(np.searchsorted(a_ptr, r0 + rows, side="right")) - 1, v + 1), p_a)
        r1 = a_ptr[w]
        out[v:w] = _sum_xlogx_block(
            C[r0:r1], cnt_a[r0:r1], cnt_b, n, a_ptr[v : w + 1] - r0, b_ptr, table
        )
        v = w
    return out


def _sum_xlogx_block(
    C: np.ndarray,
    cnt_a: np.ndarray,
    cnt_b: np.ndarray,
    n: int,
    a_ptr: np.ndarray,
    b_ptr: np.ndarray,
    table: np.ndarray,
) -> np.ndarray:
    # cells (u ≥ 1, v ≥ 1)
    inner = _group_sum(_group_sum(table[C], a_ptr, axis=0), b_ptr, axis=1)
    # cells (u ≥ 1, v = 0): row marginal minus the row's inner cells within B_j's block
    row_in_block = _group_sum(C, b_ptr, axis=1)  # (m_A, p_B)
    left = _group_sum(table[cnt_a[:, None] - row_in_block], a_ptr, axis=0)
    # cells (u = 0, v ≥ 1)
    col_in_block = _group_sum(C, a_ptr, axis=0)  # (p_A, m_B)
    top = _group_sum(table[cnt_b[None, :] - col_in_block], b_ptr, axis=1)
    # cell (0, 0)
    nz_a = _group_sum(cnt_a, a_ptr)
    nz_b = _group_sum(cnt_b, b_ptr)
    block_total = _group_sum(row_in_block, a_ptr, axis=0)
    corner = table[n - nz_a[:, None] - nz_b[None, :] + block_total]
    return inner + left + top + corner


def _to_base(nats: np.ndarray, base: float) -> np.ndarray:
    if base == np.e:
        return nats
    if base <= 0 or base == 1:
        raise ValueError(f"log base must be positive and not 1; got {base}.")
    return nats / np.log(base)


def _as_data(D: Any) -> DiscreteData:
    return D if isinstance(D, DiscreteData) else DiscreteData.from_array(D)


# ---------------------------------------------------------------------- public API
def entropy(D: DiscreteData | Any, *, base: float = 2.0) -> np.ndarray:
    """Plug-in entropy ``H(V) = −Σ p log p`` of every variable.

    Parameters
    ----------
    D : DiscreteData or array-like of shape (n, p)
    base : float, default=2
        Logarithm base (bits by default, as all reference codes use).

    Returns
    -------
    ndarray of shape (p,)
    """
    D = _as_data(D)
    n = D.n_samples
    if n == 0:
        raise ValueError("entropy of zero observations is undefined.")
    table = _xlogx_table(n)
    s = _group_sum(table[D.counts], D.ptr) + table[D.zero_counts()]
    return _to_base(np.log(n) - s / n, base)


def joint_entropy(
    A: DiscreteData | Any,
    B: DiscreteData | Any,
    *,
    given: DiscreteData | Any | None = None,
    base: float = 2.0,
) -> np.ndarray:
    """Joint entropies ``H(A_i, B_j)`` (or ``H(A_i, B_j, z)``) for all pairs at once.

    Parameters
    ----------
    A, B : DiscreteData or array-like with the same number of rows
    given : DiscreteData with one variable, optional
        A third variable ``z`` joined to every pair: returns ``H(A_i, B_j, z)``.
    base : float, default=2

    Returns
    -------
    ndarray of shape (p_A, p_B)
    """
    A, B = _as_data(A), _as_data(B)
    n = _check_rows(A, B)
    table = _xlogx_table(n)
    C = _cross_counts(A, B)
    if given is None:
        s = _sum_xlogx_tables(C, A.counts, B.counts, n, A, B, table)
        return _to_base(np.log(n) - s / n, base)
    z = _as_data(given)
    if z.n_vars != 1:
        raise ValueError(f"`given` must hold exactly one variable; got {z.n_vars}.")
    _check_rows(A, z)
    zind = sp.csc_matrix(z.indicators)
    s = _stratified_xlogx(A, B, C, zind, 0, zind.shape[1], table)
    return _to_base(np.log(n) - s / n, base)


def _stratified_xlogx(
    A: DiscreteData,
    B: DiscreteData,
    C: np.ndarray,
    zind: sp.csc_matrix,
    lo: int,
    hi: int,
    table: np.ndarray,
) -> np.ndarray:
    """``Σ c log c`` of the three-way tables ``(A_i, B_j, z)`` for all pairs.

    ``z`` owns the indicator columns ``lo:hi`` of ``zind`` (its non-zero codes); ``C`` is
    the unrestricted ``A_indᵀ B_ind``. One restricted product per non-zero code, the
    code-0 stratum by subtraction.
    """
    s = np.zeros((A.n_vars, B.n_vars))
    rest_C, rest_a, rest_b, rest_n = C.copy(), A.counts.copy(), B.counts.copy(), A.n_samples
    for c in range(lo, hi):  # strata z = code c-lo+1 (a handful of codes)
        rows = zind.indices[zind.indptr[c] : zind.indptr[c + 1]]
        As, Bs = A.rows(rows), B.rows(rows)
        Cs = _cross_counts(As, Bs)
        s += _sum_xlogx_tables(Cs, As.counts, Bs.counts, rows.size, A, B, table)
        rest_C -= Cs
        rest_a -= As.counts
        rest_b -= Bs.counts
        rest_n -= rows.size
    # stratum z = 0 by subtraction from the unrestricted counts
    s += _sum_xlogx_tables(rest_C, rest_a, rest_b, rest_n, A, B, table)
    return s


class _Ptr(NamedTuple):
    """Just the variable → indicator-column layout, for one variable's tables."""

    ptr: np.ndarray


def joint_entropy_one(
    A: DiscreteData | Any, B: DiscreteData | Any, j: int, *, base: float = 2.0
) -> np.ndarray:
    """``H(A_i, B_j)`` for every variable of ``A`` and one variable ``j`` of ``B``.

    The greedy step's workhorse: it restricts ``A``'s rows to each non-zero code of
    ``B_j`` instead of slicing ``B`` and running a general product, so it costs the
    stored entries of those rows only.

    Returns
    -------
    ndarray of shape (p_A,)
    """
    A, B = _as_data(A), _as_data(B)
    n = _check_rows(A, B)
    lo, hi = int(B.ptr[j]), int(B.ptr[j + 1])
    bcsc = B.col_major
    if (
        hi - lo == 1
        and not A.is_dense
        and A.indicators.shape[1] >= KERNEL_MIN_COLUMNS
        and use_numba()
        and A.binary_columns is not None
    ):
        # binary A and B_j: counts over B_j's rows (split over KERNEL_THREADS threads),
        # the four cells per variable and the entropy in one compiled pass (the same
        # integers, the same operations in the same order as below: bit-identical)
        csr = A.row_major
        rows = bcsc.indices[bcsc.indptr[lo] : bcsc.indptr[lo + 1]]
        return binary_one_entropy(
            csr.indptr, csr.indices, rows, A.counts, A.binary_columns, int(B.counts[lo]), n,
            _xlogx_table_cached(n), base, KERNEL_THREADS,
        )  # fmt: skip
    C = np.empty((A.indicators.shape[1], hi - lo), dtype=np.int64)
    for c in range(lo, hi):  # one pass per non-zero code of B_j (one for binary data)
        C[:, c - lo] = _row_sums(A, bcsc.indices[bcsc.indptr[c] : bcsc.indptr[c + 1]])
    table = _xlogx_table(n)
    s = _sum_xlogx_tables(
        C, A.counts, B.counts[lo:hi], n, A, _Ptr(np.array([0, hi - lo])), table
    )
    return _to_base(np.log(n) - s[:, 0] / n, base)


def mutual_info(
    A: DiscreteData | Any,
    B: DiscreteData | Any,
    *,
    base: float = 2.0,
    H_A: np.ndarray | None = None,
    H_B: np.ndarray | None = None,
) -> np.ndarray:
    """``I(A_i; B_j) = H(A_i) + H(B_j) − H(A_i, B_j)`` for all pairs
    (docs/methods/info.md#estimators).

    ``H_A``/``H_B`` may pass cached entropies (in the same base). Values are not
    clipped: tiny negatives such as −1e-16 can appear (docs/methods/info.md#estimators).
    """
    A, B = _as_data(A), _as_data(B)
    ha = entropy(A, base=base) if H_A is None else H_A
    hb = entropy(B, base=base) if H_B is None else H_B
    return ha[:, None] + hb[None, :] - joint_entropy(A, B, base=base)


def conditional_mutual_info(
    A: DiscreteData | Any,
    B: DiscreteData | Any,
    z: DiscreteData | Any,
    *,
    base: float = 2.0,
) -> np.ndarray:
    """``I(A_i; B_j | z) = H(A_i,z) + H(B_j,z) − H(A_i,B_j,z) − H(z)`` for all pairs.

    Returns
    -------
    ndarray of shape (p_A, p_B)
    """
    A, B, z = _as_data(A), _as_data(B), _as_data(z)
    h_az = joint_entropy(A, z, base=base)[:, 0]
    h_bz = joint_entropy(B, z, base=base)[:, 0]
    h_z = entropy(z, base=base)[0]
    h_abz = joint_entropy(A, B, given=z, base=base)
    return h_az[:, None] + h_bz[None, :] - h_abz - h_z


def iter_conditional_mutual_info(
    A: DiscreteData | Any,
    B: DiscreteData | Any,
    Z: DiscreteData | Any,
    *,
    base: float = 2.0,
) -> Iterator[np.ndarray]:
    """``I(A_i; B_j | Z_c)`` for all pairs, given each variable ``Z_c`` in turn.

    Yields one ``(p_A, p_B)`` array per conditioning variable ``c = 0 .. p_Z-1`` (a
    generator, so that ``p_Z`` blocks never need to be held at once). Equivalent to
    ``conditional_mutual_info(A, B, Z.take([c]))`` for every ``c``, but the
    unconditioned product ``A_indᵀ B_ind`` and the two-way entropies ``H(A_i, Z_c)``,
    ``H(B_j, Z_c)``, ``H(Z_c)`` are computed once for the whole block; each ``Z_c`` then
    costs one restricted product per non-zero code of ``Z_c``.

    Used by greedy criteria whose terms are CMIs of many pairs given each candidate
    (e.g. ``I(Y_j; Y_k | X_m)`` for all label pairs and every candidate feature ``X_m``).
    """
    A, B, Z = _as_data(A), _as_data(B), _as_data(Z)
    n = _check_rows(A, B)
    _check_rows(A, Z)
    table = _xlogx_table(n)
    h_az = joint_entropy(A, Z, base=base)
    h_bz = joint_entropy(B, Z, base=base)
    h_z = entropy(Z, base=base)
    C = _cross_counts(A, B)
    zind = sp.csc_matrix(Z.indicators)
    for c in range(Z.n_vars):
        s = _stratified_xlogx(A, B, C, zind, int(Z.ptr[c]), int(Z.ptr[c + 1]), table)
        h_abz = _to_base(np.log(n) - s / n, base)
        yield h_az[:, c, None] + h_bz[None, :, c] - h_abz - h_z[c]


def interaction_info(
    A: DiscreteData | Any,
    B: DiscreteData | Any,
    z: DiscreteData | Any,
    *,
    base: float = 2.0,
) -> np.ndarray:
    """``I(A_i; B_j; z) = I(A_i; B_j) − I(A_i; B_j | z)`` (McGill sign).

    See docs/methods/info.md#estimators.
    """
    A, B, z = _as_data(A), _as_data(B), _as_data(z)
    return mutual_info(A, B, base=base) - conditional_mutual_info(A, B, z, base=base)


def _check_rows(A: DiscreteData, B: DiscreteData) -> int:
    if A.n_samples != B.n_samples:
        raise ValueError(
            f"variables observed on different numbers of rows: {A.n_samples} != {B.n_samples}."
        )
    if A.n_samples == 0:
        raise ValueError("entropy of zero observations is undefined.")
    return A.n_samples
