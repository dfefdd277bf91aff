"""Rows in blocks: the count engine on data that does not fit in memory, or lives on Dask.

Every count the engine uses is a sum over rows, so it can be accumulated block by block:
the indicator products ``X_indᵀ Y_ind`` (feature × label counts) and ``X_indᵀ X_ind[:, s]``
(feature × selected-feature counts) of each row block are added up, and only then turned
into entropies (:mod:`skmlfs.info._labelsum` reduces the summed label counts without a
``d × q`` block). Where the rows come from is hidden behind a :class:`RowBlocks` source:

* :class:`ArrayBlocks` — in-memory arrays, sparse matrices or ``numpy.memmap`` files,
  sliced into blocks of ``block_rows`` rows (a memmap reads only the rows of a block);
* :class:`IterableBlocks` — a callable returning a fresh iterator of ``(X_b, Y_b)`` blocks
  per pass (e.g. blocks read from files);
* :class:`DaskBlocks` — ``dask.array`` chunks (dense or scipy.sparse). Each pass is one Dask
  graph: a task per row chunk computes that chunk's counts, and the counts are summed by a
  tree of tasks, so with a ``distributed.Client`` active the counting runs on the workers
  and only summed count blocks travel. Dask is imported only when such a source is made.

A pass first fixes a global coding: the values of each column become codes as in
:meth:`DiscreteData.from_array` for sparse input (code 0 is the value 0, non-zero values
in increasing order); a column holding one non-zero value in every row is constant (no
indicator column). Entropies and mutual information do not depend on which value is
coded 0, so the results equal the in-memory engine's up to the order of summation.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from ._engine import (
    _F32_EXACT,
    DiscreteData,
    _group_sum,
    _sum_xlogx_tables,
    _to_base,
    _xlogx_table,
    entropy,
)
from ._labelsum import (
    DEFAULT_BLOCK_ENTRIES,
    _ext_table,
    _label_blocks,
    _marginal_xlogx,
    _var_of_col,
    pair_corrections,
    zero_pair_sums,
)

__all__ = [
    "ArrayBlocks",
    "DaskBlocks",
    "IterableBlocks",
    "RowBlocks",
    "StreamInfoCache",
    "as_row_blocks",
    "is_dask_array",
]

# Rows per block when slicing in-memory arrays or memmaps.
DEFAULT_BLOCK_ROWS = 65_536
# Cells of a dense summed count block (feature codes × label codes of one label block).
DEFAULT_DENSE_CELLS = 2**25
# Selected-feature columns counted per pass over the rows in the greedy search.
DEFAULT_PREFETCH = 64


def is_dask_array(X: Any) -> bool:
    """True for a ``dask.array.Array`` (checked without importing dask)."""
    return type(X).__module__.startswith("dask.") and hasattr(X, "chunks")


# ---------------------------------------------------------------------- sources
class RowBlocks:
    """Aligned row blocks of a feature matrix ``X`` and a label matrix ``Y``.

    Subclasses provide :meth:`blocks`; :meth:`map_sum` applies a function to every
    block pair and adds the results (Dask overrides it to run on the cluster).

    Attributes
    ----------
    n_samples, n_features, n_labels : int
    """

    n_samples: int
    n_features: int
    n_labels: int

    def blocks(self) -> Iterator[tuple[Any, Any]]:  # pragma: no cover - abstract
        raise NotImplementedError

    def map_sum(
        self, fn: Callable[..., Any], *args: Any, combine: Callable[[Any, Any], Any] = operator.add
    ) -> Any:
        """``combine``-reduce of ``fn(X_b, Y_b, *args)`` over all row blocks (one pass)."""
        out = None
        for xb, yb in self.blocks():
            r = fn(xb, yb, *args)
            out = r if out is None else combine(out, r)
        if out is None:
            raise ValueError("the row-block source delivered no rows.")
        return out


class ArrayBlocks(RowBlocks):
    """In-memory arrays, sparse matrices or memmaps, in blocks of ``block_rows`` rows."""

    def __init__(self, X: Any, Y: Any, block_rows: int = DEFAULT_BLOCK_ROWS):
        if Y is None:
            raise ValueError("labels Y are required.")
        Y = Y if sp.issparse(Y) or isinstance(Y, np.ndarray) else np.asarray(Y)
        if Y.ndim == 1:
            Y = Y[:, None]
        if X.shape[0] != Y.shape[0]:
            raise ValueError(f"X and Y have different numbers of rows: {X.shape[0]} != "
                             f"{Y.shape[0]}.")
        if int(block_rows) < 1:
            raise ValueError(f"block_rows must be at least 1; got {block_rows}.")
        self.X, self.Y, self.block_rows = X, Y, int(block_rows)
        self.n_samples, self.n_features = int(X.shape[0]), int(X.shape[1])
        self.n_labels = int(Y.shape[1])

    def blocks(self):
        X = sp.csr_matrix(self.X) if sp.issparse(self.X) else self.X
        Y = sp.csr_matrix(self.Y) if sp.issparse(self.Y) else self.Y
        for r0 in range(0, self.n_samples, self.block_rows):
            yield X[r0 : r0 + self.block_rows], Y[r0 : r0 + self.block_rows]


class IterableBlocks(RowBlocks):
    """Blocks from ``make_iter()``, called once per pass; each item is ``(X_b, Y_b)``.

    Parameters
    ----------
    make_iter : callable returning an iterator of (X_b, Y_b)
        Blocks may be dense arrays or sparse matrices; every pass must deliver the same
        rows (the number of rows is counted by the first pass).
    n_features, n_labels : int
    """

    def __init__(self, make_iter: Callable[[], Any], n_features: int, n_labels: int):
        self.make_iter = make_iter
        self.n_features, self.n_labels = int(n_features), int(n_labels)
        self.n_samples = -1  # known after the coding pass

    def blocks(self):
        for xb, yb in self.make_iter():
            if xb.shape[1] != self.n_features or _ncols(yb) != self.n_labels:
                raise ValueError(
                    f"row block of shape {xb.shape} / {yb.shape} does not match "
                    f"{self.n_features} features and {self.n_labels} labels."
                )
            yield xb, yb


class DaskBlocks(RowBlocks):
    """``dask.array`` features (and labels), one task per row chunk.

    Column chunks are merged (a block holds whole rows); ``Y`` (a dask array or an
    in-memory array) is given ``X``'s row chunks. Memory per task: one row chunk of ``X``
    and ``Y`` plus one count block.
    """

    def __init__(self, X: Any, Y: Any):
        import dask.array as da

        if Y is None:
            raise ValueError("labels Y are required.")
        if not is_dask_array(Y):
            Y = np.asarray(Y) if not sp.issparse(Y) else sp.csr_matrix(Y)
            if Y.ndim == 1:
                Y = Y[:, None]
            Y = da.from_array(Y, chunks=(X.chunks[0], Y.shape[1]), asarray=False)
        if Y.ndim == 1:
            Y = Y[:, None]
        if X.ndim != 2 or X.shape[0] != Y.shape[0]:
            raise ValueError(f"X {X.shape} and Y {Y.shape} must be 2-D with the same rows.")
        self.X = X.rechunk({1: -1})
        self.Y = Y.rechunk({0: self.X.chunks[0], 1: -1})
        self.n_samples, self.n_features = int(X.shape[0]), int(X.shape[1])
        self.n_labels = int(Y.shape[1])

    def blocks(self):
        for xb, yb in zip(self.X.to_delayed().ravel(), self.Y.to_delayed().ravel(), strict=True):
            yield xb.compute(), yb.compute()

    def map_sum(self, fn, *args, combine=operator.add):
        import dask

        xs, ys = self.X.to_delayed().ravel(), self.Y.to_delayed().ravel()
        # Arguments (codings) become graph keys, shipped to each worker once per pass.
        dargs = [dask.delayed(a) for a in args]
        parts = [dask.delayed(fn, pure=True)(xb, yb, *dargs) for xb, yb in zip(xs, ys,
                                                                              strict=True)]
        comb = dask.delayed(combine, pure=True)
        while len(parts) > 1:  # a binary tree of sums, scheduled by Dask
            nxt = [comb(parts[i], parts[i + 1]) for i in range(0, len(parts) - 1, 2)]
            if len(parts) % 2:
                nxt.append(parts[-1])
            parts = nxt
        return dask.compute(parts[0])[0]


def as_row_blocks(X: Any, Y: Any = None, *, block_rows: int | None = None) -> RowBlocks:
    """The :class:`RowBlocks` source for ``X`` (and ``Y``).

    A :class:`RowBlocks` is returned as is (``Y`` must be None); a ``dask.array`` gives
    :class:`DaskBlocks`; anything else (arrays, sparse matrices, ``numpy.memmap``)
    :class:`ArrayBlocks`.
    """
    if isinstance(X, RowBlocks):
        if Y is not None:
            raise ValueError("a RowBlocks source carries its own labels; pass Y=None.")
        return X
    if is_dask_array(X):
        return DaskBlocks(X, Y)
    return ArrayBlocks(X, Y, DEFAULT_BLOCK_ROWS if block_rows is None else block_rows)


def _ncols(M: Any) -> int:
    return 1 if np.ndim(M) == 1 else int(M.shape[1])


# ---------------------------------------------------------------------- coding
@dataclass
class _Pairs:
    """Distinct (column, non-zero value) pairs of some rows, with their counts."""

    cols: np.ndarray
    vals: np.ndarray
    counts: np.ndarray
    n_rows: int
    integer: bool

    def __add__(self, other: _Pairs) -> _Pairs:
        cols = np.concatenate([self.cols, other.cols])
        vals = np.concatenate([self.vals, other.vals])
        counts = np.concatenate([self.counts, other.counts])
        c, v, k = _unique_pairs(cols, vals, counts)
        return _Pairs(c, v, k, self.n_rows + other.n_rows, self.integer and other.integer)


def _unique_pairs(cols, vals, weights=None):
    if cols.size == 0:
        return cols, vals, np.zeros(0, np.int64)
    order = np.lexsort((vals, cols))
    c, v = cols[order], vals[order]
    new = np.ones(c.size, dtype=bool)
    new[1:] = (c[1:] != c[:-1]) | (v[1:] != v[:-1])
    ids = np.cumsum(new) - 1
    w = np.ones(c.size, np.int64) if weights is None else weights[order]
    return c[new], v[new], np.bincount(ids, weights=w).astype(np.int64)


def _nonzeros(M: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Rows, columns and values of the non-zero entries of a block (2-D)."""
    if hasattr(M, "to_scipy_sparse"):  # pydata.sparse chunks
        M = M.to_scipy_sparse()
    if sp.issparse(M):
        C = sp.coo_matrix(M)
        keep = C.data != 0
        r, c, v = C.row[keep], C.col[keep], C.data[keep]
    else:
        M = np.asarray(M)
        if M.ndim == 1:
            M = M[:, None]
        if M.dtype.kind == "b":
            M = M.view(np.uint8)
        r, c = np.nonzero(M)
        v = M[r, c]
    if v.dtype.kind not in "biuf":
        raise ValueError(f"row blocks must hold numbers; got dtype {v.dtype}.")
    v = v.astype(np.float64, copy=False)
    if np.isnan(v).any():
        raise ValueError("X contains NaN; discrete variables need a value in every row.")
    if np.isinf(v).any():
        raise ValueError("X contains infinity; discrete variables need finite values.")
    return r.astype(np.int64), c.astype(np.int64), v, int(M.shape[0])


def _block_pairs_one(M: Any) -> _Pairs:
    _, c, v, n = _nonzeros(M)
    integer = bool(np.all(v == np.floor(v)))
    if v.size and np.all(v == v[0]):  # binary blocks: one count per column, no sort
        k = np.bincount(c)
        cols = np.flatnonzero(k)
        return _Pairs(cols, np.full(cols.size, v[0]), k[cols].astype(np.int64), n, integer)
    cols, vals, counts = _unique_pairs(c, v)
    return _Pairs(cols, vals, counts, n, integer)


def _block_pairs(xb: Any, yb: Any) -> tuple[_Pairs, _Pairs]:
    return _block_pairs_one(xb), _block_pairs_one(yb)


def _add_pairs(a: tuple[_Pairs, _Pairs], b: tuple[_Pairs, _Pairs]) -> tuple[_Pairs, _Pairs]:
    return a[0] + b[0], a[1] + b[1]


@dataclass
class _Coding:
    """A global coding of one matrix: (column, value) → indicator column."""

    n_cols: int
    values: np.ndarray  # sorted distinct non-zero values
    keys: np.ndarray  # sorted col * |values| + value rank, of every pair seen
    colmap: np.ndarray  # indicator column of each key (-1: constant column, no indicator)
    m: int  # number of indicator columns
    float64: bool  # indicator dtype (float32 products are exact below 2**24 rows)
    col2ind: np.ndarray | None = None  # binary fast path, built on first use

    @classmethod
    def from_pairs(cls, P: _Pairs, n: int, p: int) -> tuple[_Coding, DiscreteData]:
        values = np.unique(P.vals)
        keys = P.cols * max(1, values.size) + np.searchsorted(values, P.vals)
        per_col = np.bincount(P.cols, minlength=p)
        # a column with one non-zero value in every row is constant: no indicator
        const = (per_col == 1) & (np.bincount(P.cols, weights=P.counts, minlength=p) == n)
        drop = const[P.cols]
        colmap = np.full(keys.size, -1, dtype=np.int64)
        colmap[~drop] = np.arange(int((~drop).sum()))
        arity = 1 + per_col - const
        ptr = np.concatenate([[0], np.cumsum(arity - 1)])
        counts = P.counts[~drop].astype(np.int64)
        meta = DiscreteData(int(n), arity.astype(np.int64), ptr, None, counts, None)
        return cls(p, values, keys, colmap, int(ptr[-1]), n >= _F32_EXACT), meta

    def encode(self, M: Any) -> sp.csr_matrix:
        """The indicator matrix (CSR, one column per non-zero code) of a row block."""
        dtype = np.float64 if self.float64 else np.float32
        if sp.issparse(M) and self.values.size == 1 and self.keys.size == self.m:
            # binary data without constant columns: the indicators are M's own pattern
            M = sp.csr_matrix(M)
            M.eliminate_zeros()
            if np.all(M.data == self.values[0]):
                if self.col2ind is None:  # column → indicator column (-1: never non-zero)
                    self.col2ind = np.full(self.n_cols, -1, dtype=np.int32)
                    self.col2ind[self.keys] = np.arange(self.keys.size, dtype=np.int32)
                ind = self.col2ind[M.indices]
                if ind.size == 0 or ind.min() >= 0:
                    return sp.csr_matrix(
                        (np.ones(ind.size, dtype=dtype), ind, M.indptr),
                        shape=(M.shape[0], self.m),
                    )
        r, c, v, n_b = _nonzeros(M)
        nv = max(1, self.values.size)
        vid = np.searchsorted(self.values, v)
        vid_c = np.minimum(vid, self.values.size - 1)
        key = c * nv + vid_c
        pos = np.searchsorted(self.keys, key)
        pos_c = np.minimum(pos, max(0, self.keys.size - 1))
        if v.size and (
            np.any(self.values[vid_c] != v) or np.any(self.keys[pos_c] != key)
        ):
            raise ValueError("a row block holds a value the coding pass did not see: the "
                             "source must deliver the same rows on every pass.")
        col = self.colmap[pos_c] if v.size else np.zeros(0, np.int64)
        keep = col >= 0
        return sp.csr_matrix(
            (np.ones(int(keep.sum()), dtype=dtype), (r[keep], col[keep])), shape=(n_b, self.m)
        )


# ---------------------------------------------------------------------- block counts
def _label_counts(xb, yb, cx: _Coding, cy: _Coding, c0: int, c1: int, dense: bool):
    """Counts ``Y_b[:, c0:c1]ᵀ X_b`` of one row block, shape (c1 − c0, m_X)."""
    xi = cx.encode(xb)
    yt = cy.encode(yb)[:, c0:c1].T.tocsr()
    P = (yt @ xi).tocsr()
    # sums of 0/1 products: exact integers (float64 indicators from 2**24 rows on)
    P.data = np.rint(P.data).astype(np.int64 if cx.float64 else np.int32)
    if dense:
        # int32 halves the summed block; counts reach 2**31 only with that many rows
        return P.toarray()
    return P


def _self_counts(xb, yb, cx: _Coding, cols: np.ndarray):
    """Counts ``X_bᵀ X_b[:, cols]`` of one row block, shape (m_X, len(cols))."""
    xi = cx.encode(xb).tocsc()
    # sparse × sparse: costs the rows where a selected column is non-zero only
    P = (xi.T @ xi[:, cols]).tocsr()
    P.data = np.rint(P.data).astype(np.int64)
    return P.toarray()


def _stratified_counts(xb, yb, cx: _Coding, cy: _Coding, c0: int, c1: int,
                       scols: np.ndarray, marginals: bool):
    """Counts of one row block for the strata of a selected feature ``s``.

    ``scols``: the indicator columns of ``s`` (its non-zero codes). Returns, as a tuple,
    ``Y_b[:, c0:c1]ᵀ X_b`` over all rows, then the same over the rows of each non-zero
    code of ``s`` (sparse, (c1 − c0, m_X)), and with ``marginals`` also ``X_bᵀ s_ind`` and
    ``Y_bᵀ s_ind`` (dense, the code counts of every variable within each stratum).
    """
    xi = cx.encode(xb).tocsr()
    yi = cy.encode(yb).tocsr()
    dt = np.int64 if cx.float64 else np.int32

    def ints(P):
        P = sp.csr_matrix(P)
        P.data = np.rint(P.data).astype(dt)
        return P

    yb_ = yi[:, c0:c1]
    out = [ints(yb_.T.tocsr() @ xi)]
    zc = xi[:, scols].tocsc()
    for u in range(scols.size):
        rows = zc.indices[zc.indptr[u] : zc.indptr[u + 1]]
        out.append(ints(yb_[rows].T.tocsr() @ xi[rows]))
    if marginals:
        out.append(np.rint((xi.T @ zc).toarray()).astype(np.int64))
        out.append(np.rint((yi.T @ zc).toarray()).astype(np.int64))
    return tuple(out)


def _add_tuples(a: tuple, b: tuple) -> tuple:
    return tuple(x + y for x, y in zip(a, b, strict=True))


# ---------------------------------------------------------------------- cache
class StreamInfoCache:
    """The quantities of the greedy filters, counted over a :class:`RowBlocks` source.

    The interface of :class:`~skmlfs.info.InfoCache` that SCLS, AMI and GICS use:
    ``h_x``, ``h_y``, ``relevance``, ``sum_h_xy``, ``h_xx(s)``, ``mi_xx(s)``. The full
    feature × label block (``h_xy``, ``mi_xy``) is not available: selectors that need
    every pair (MDMR, MLFS, the memetic wrapper) need in-memory data.

    Passes over the rows: one to fix the coding and count codes, one per label block for
    the relevance (one in total unless the feature × label counts exceed
    ``dense_cells``/``block_entries``), and one per batch of ``prefetch`` selected
    features in the greedy search (``prefetch`` hint: the best candidates are counted
    together with the feature just selected).

    Parameters
    ----------
    source : RowBlocks
    base : float, default=2
    dense_cells, block_entries, prefetch : int
        Memory budgets (see the module constants).
    discrete_only : bool, default=False
        Raise if a value is not an integer (the ``"auto"`` discretizer on streamed data).
    """

    def __init__(
        self,
        source: RowBlocks,
        base: float = 2.0,
        *,
        dense_cells: int = DEFAULT_DENSE_CELLS,
        block_entries: int = DEFAULT_BLOCK_ENTRIES,
        prefetch: int = DEFAULT_PREFETCH,
        discrete_only: bool = False,
    ):
        self.source, self.base = source, base
        self.dense_cells, self.block_entries = int(dense_cells), int(block_entries)
        self.prefetch_size = max(1, int(prefetch))
        px, py = source.map_sum(_block_pairs, combine=_add_pairs)
        n = px.n_rows
        if n == 0:
            raise ValueError("entropy of zero observations is undefined.")
        if discrete_only and not (px.integer and py.integer):
            raise ValueError(
                "streamed X or Y holds non-integer values: discretize the features first "
                "(row-block input is used as discrete symbols) or pass discretizer=None."
            )
        self.n_samples = n
        self.cx, self.X = _Coding.from_pairs(px, n, source.n_features)
        self.cy, self.Y = _Coding.from_pairs(py, n, source.n_labels)
        self._h_ff: dict[int, np.ndarray] = {}
        self._sums: tuple[np.ndarray, np.ndarray] | None = None
        self.n_passes = 1

    @property
    def h_x(self) -> np.ndarray:
        """``H(f)`` for every feature, shape (d,)."""
        if not hasattr(self, "_h_x"):
            self._h_x = entropy(self.X, base=self.base)
        return self._h_x

    @property
    def h_y(self) -> np.ndarray:
        """``H(l)`` for every label, shape (q,)."""
        if not hasattr(self, "_h_y"):
            self._h_y = entropy(self.Y, base=self.base)
        return self._h_y

    def _label_sums(self) -> tuple[np.ndarray, np.ndarray]:
        if self._sums is not None:
            return self._sums
        X, Y, n = self.X, self.Y, self.n_samples
        m_x = max(1, self.cx.m)
        # One dense block when the summed counts fit, else sparse blocks sized by entries.
        dense = m_x * self.cy.m <= self.dense_cells
        if dense:
            weights = np.full(self.cy.m, float(m_x))  # cells of each label code's column
            budget = float(self.dense_cells)
        else:
            # estimated product entries per label column: its rows × mean X codes per row
            weights = Y.counts * (X.counts.sum() / n)
            budget = float(self.block_entries)
        ext = _ext_table(n)
        A_layout = (X.ptr, X.counts, n - X.zero_counts(), _var_of_col(X.ptr))
        nz_y = n - Y.zero_counts()
        corr = np.zeros(X.n_vars)
        for v0, v1 in _label_blocks(weights, Y.ptr, budget):
            c0, c1 = int(Y.ptr[v0]), int(Y.ptr[v1])
            if c1 == c0:
                continue
            P = self.source.map_sum(_label_counts, self.cx, self.cy, c0, c1, dense)
            self.n_passes += 1
            P = sp.coo_matrix(P)
            bl = (Y.ptr[v0 : v1 + 1] - c0, Y.counts[c0:c1], nz_y[v0:v1])
            corr += pair_corrections(P.col, P.row, P.data.astype(np.int64), A_layout, bl, n,
                                     ext)
        zs = zero_pair_sums(A_layout[2], nz_y, n)
        log_base = 1.0 if self.base == np.e else np.log(self.base)
        rel = (zs + corr) / n / log_base
        table = _xlogx_table(n)
        q = Y.n_vars
        s = q * _marginal_xlogx(X, table) + _marginal_xlogx(Y, table).sum() - q * table[n]
        sh = (q * np.log(n) - (s + zs + corr) / n) / log_base
        self._sums = (rel, sh)
        return self._sums

    @property
    def relevance(self) -> np.ndarray:
        """``Σ_l I(f; l)`` (SCLS Eq. 9), shape (d,)."""
        return self._label_sums()[0]

    @property
    def sum_h_xy(self) -> np.ndarray:
        """``Σ_l H(f, l)``, shape (d,)."""
        return self._label_sums()[1]

    def sum_h_xy_over(self, candidates: np.ndarray, labels: np.ndarray) -> np.ndarray:
        """``Σ_{l ∈ labels} H(f, l)`` for the candidates (all labels only)."""
        if labels.size != self.Y.n_vars or np.any(labels != np.arange(self.Y.n_vars)):
            raise NotImplementedError("row-block input: label subsets are not supported.")
        return self.sum_h_xy[candidates]

    @property
    def h_xy(self):
        raise NotImplementedError(
            "the full feature × label block is not available for row-block (streamed or "
            "Dask) input; SCLS, AMI and GICS work on it, other selectors need in-memory data."
        )

    mi_xy = h_xy

    def h_xy_given(self, s: int):
        raise NotImplementedError(
            "three-way entropies H(f, l, s) of every feature-label pair are not available "
            "for row-block input; their sums over the labels are (sum_h_xy_given)."
        )

    def sum_h_xy_given(self, s: int) -> np.ndarray:
        """``Σ_l H(f, l, s)`` for every feature ``f`` (MDMR, D2F), shape (d,).

        The three-way table is the union of the feature × label tables within each stratum
        of ``s``; each stratum's ``Σ_l Σ_cells c log c`` is reduced as the relevance is
        (zero pairs in closed form, co-occurring pairs corrected), from counts summed over
        the row blocks: one pass per label block, which counts the co-occurrences over all
        rows and over the rows of each non-zero code of ``s`` (code 0 by subtraction).
        """
        X, Y, n = self.X, self.Y, self.n_samples
        lo, hi = int(X.ptr[s]), int(X.ptr[s + 1])
        scols = np.arange(lo, hi, dtype=np.int64)
        q = Y.n_vars
        weights = Y.counts * (X.counts.sum() / n)
        blocks = [(v0, v1) for v0, v1 in _label_blocks(weights, Y.ptr, float(self.block_entries))
                  if Y.ptr[v1] > Y.ptr[v0]]
        if not blocks:  # no label has a non-zero code: one empty block for the marginals
            blocks = [(0, 0)]
        var_x = _var_of_col(X.ptr)
        corr = None
        strata = None
        for bi, (v0, v1) in enumerate(blocks):
            c0, c1 = int(Y.ptr[v0]), int(Y.ptr[v1])
            parts = self.source.map_sum(_stratified_counts, self.cx, self.cy, c0, c1, scols,
                                        bi == 0, combine=_add_tuples)
            self.n_passes += 1
            if bi == 0:
                cx_s, cy_s = parts[-2], parts[-1]
                parts = parts[:-2]
                # (rows, X code counts, Y code counts) of each stratum: codes of s, then 0
                strata = [(int(X.counts[lo + u]), cx_s[:, u], cy_s[:, u])
                          for u in range(scols.size)]
                strata.append((n - int(X.counts[lo:hi].sum()), X.counts - cx_s.sum(axis=1),
                               Y.counts - cy_s.sum(axis=1)))
                corr = [np.zeros(X.n_vars) for _ in strata]
            full, per_code = parts[0], list(parts[1:])
            rest = sp.csr_matrix(full, dtype=np.int64)
            for P in per_code:
                rest = rest - P
            rest.eliminate_zeros()
            for u, P in enumerate([*per_code, rest]):
                n_u, cnt_x, cnt_y = strata[u]
                if n_u == 0 or c1 == c0:
                    continue
                P = sp.coo_matrix(P)
                nz_x = n_u - _zero_counts(n_u, cnt_x, X.ptr)
                nz_y = n_u - _zero_counts(n_u, cnt_y, Y.ptr)
                bl = (Y.ptr[v0 : v1 + 1] - c0, cnt_y[c0:c1], nz_y[v0:v1])
                corr[u] += pair_corrections(P.col, P.row, P.data.astype(np.int64),
                                            (X.ptr, cnt_x, nz_x, var_x), bl, n_u,
                                            _ext_table(n_u))
        total = np.zeros(X.n_vars)
        for (n_u, cnt_x, cnt_y), c in zip(strata, corr, strict=True):
            if n_u == 0:
                continue
            table = _xlogx_table(n_u)
            zx = _zero_counts(n_u, cnt_x, X.ptr)
            zy = _zero_counts(n_u, cnt_y, Y.ptr)
            m_xu = _group_sum(table[cnt_x], X.ptr) + table[zx]
            m_yu = _group_sum(table[cnt_y], Y.ptr) + table[zy]
            zs = zero_pair_sums(n_u - zx, n_u - zy, n_u)
            total += q * m_xu + m_yu.sum() - q * table[n_u] + zs + c
        log_base = 1.0 if self.base == np.e else np.log(self.base)
        return (q * np.log(n) - total / n) / log_base

    # -- per selected feature ------------------------------------------------------
    def prefetch(self, s: int, scores: np.ndarray | None = None) -> None:
        """Count ``s`` and the best uncounted candidates by ``scores`` in one pass.

        Nothing happens when ``s`` is counted already (an earlier batch guessed it).
        """
        if s in self._h_ff:
            return
        want = [s]
        if scores is not None and self.prefetch_size > 1:
            order = np.argsort(-np.where(np.isfinite(scores), scores, -np.inf),
                               kind="stable")
            for f in order[: 4 * self.prefetch_size]:
                if len(want) >= self.prefetch_size or not np.isfinite(scores[f]):
                    break
                f = int(f)
                if f != s and f not in self._h_ff:
                    want.append(f)
        if want:
            self._count_columns(want)

    def _count_columns(self, feats: list[int]) -> None:
        X, n = self.X, self.n_samples
        lo, hi = X.ptr[feats], X.ptr[np.asarray(feats) + 1]
        cols = np.concatenate([np.arange(a, b) for a, b in zip(lo, hi, strict=True)]
                              ).astype(np.int64)
        C = self.source.map_sum(_self_counts, self.cx, cols) if cols.size else None
        self.n_passes += 1
        table = _xlogx_table(n)
        k = 0
        for f, a, b in zip(feats, lo, hi, strict=True):
            w = int(b - a)
            Cf = C[:, k : k + w] if w else np.zeros((X.counts.size, 0), np.int64)
            k += w
            layout = _OnePtr(np.array([0, w]))
            s = _sum_xlogx_tables(Cf, X.counts, X.counts[a:b], n, X, layout, table)
            self._h_ff[int(f)] = _to_base(np.log(n) - s[:, 0] / n, self.base)

    def h_xx(self, s: int) -> np.ndarray:
        """``H(f, s)`` for every feature ``f``, shape (d,)."""
        if s not in self._h_ff:
            self._count_columns([s])
        return self._h_ff[s]

    def mi_xx(self, s: int) -> np.ndarray:
        """``I(f; s)`` for every feature ``f``, shape (d,)."""
        return self.h_x + self.h_x[s] - self.h_xx(s)


def _zero_counts(n: int, counts: np.ndarray, ptr: np.ndarray) -> np.ndarray:
    """Rows with code 0 of every variable, from the counts of its non-zero codes."""
    return n - _group_sum(np.asarray(counts, dtype=np.int64), ptr)


@dataclass
class _OnePtr:
    ptr: np.ndarray
