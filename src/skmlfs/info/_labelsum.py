"""Per-feature sums over a label set without the feature × label block.

SCLS, AMI, MDMR and GICS need, per feature ``f``, only sums over the labels:
``Σ_l I(f; l)`` (SCLS Eq. 9) and ``Σ_l H(f, l)``. With 782,585 features and 205,443 labels
(Delicious-200K) the ``d × q`` block behind them has 1.6·10¹¹ cells and cannot be held,
and most of its pairs never co-occur. This module computes the sums over blocks of labels
and reduces each block at once, never holding ``d × q``:

* every pair's ``Σ_cells c log c`` is split into the value it would have if no cell with
  both codes ≥ 1 were populated (``C_uv = 0``, the *zero pair*), plus a correction that is
  non-zero only for pairs with such a cell;
* the zero-pair value depends on the two marginals only — for binary variables
  ``n·I(f; l) = t(n−a−b) − t(n−a) − t(n−b) + t(n)`` with ``t(c) = c log c``, ``a = |f|``,
  ``b = |l|`` — so it is summed in closed form over the *distinct* pairs of non-zero totals
  ``(a, b)`` with their multiplicities, not by enumerating the zero pairs;
* the corrections come from the sparse product ``Y_blockᵀ X`` (only pairs that co-occur),
  one label block at a time, sized so that its entries stay below a budget.

The counts of a block can also be accumulated over row blocks first
(:mod:`skmlfs.info._rowblocks`): the reduction only needs the summed count matrix.
"""

from __future__ import annotations

import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import scipy.sparse as sp

from ._engine import (
    _F32_EXACT,
    DiscreteData,
    _cross_counts,
    _group_sum,
    _sum_xlogx_tables,
    _xlogx_table,
)
from ._kernels import RowScratch, binary_rows_corrections, use_numba

__all__ = [
    "binary_corrections",
    "binary_row_corrections",
    "label_sums",
    "pair_corrections",
    "zero_pair_sums",
]

# Entries of one label block's sparse product (its count matrix and the temporaries of
# its reduction, ~10 float64 arrays of this length: ~640 MiB at 2**23).
DEFAULT_BLOCK_ENTRIES = 2**23
# Entries of the correction pass handled at once (temporaries stay in cache).
_CHUNK = 1 << 16
# Cells of one dense label block (dense indicators: BLAS product of a label block).
DEFAULT_BLOCK_CELLS = 2**24
# Binary path: product entries of one chunk of feature rows (float32 counts + int32
# labels + the reduction's temporaries, ~20 MiB): scipy's product runs fastest with
# chunks of about this size (measured 2**20 < 2**22 < 2**25 on Delicious-200K shapes).
DEFAULT_ROW_CHUNK_ENTRIES = 2**20
# Compiled path (numba, skmlfs.info._kernels): multiply–adds of one chunk of feature rows
# (no product is stored, so chunks only need to be large enough for thread hand-over).
KERNEL_ROW_CHUNK_FLOPS = 2**22
# ... and engages from this many multiply–adds up (below, the numpy path — the same
# values — without importing numba).
KERNEL_MIN_FLOPS = 2**24
# Threads running chunks of the binary path (scipy's product and numpy release the GIL).
N_THREADS = max(1, min(2, os.cpu_count() or 1))
# Set to a dict by benchmarks: seconds in products and in corrections (summed over
# threads), co-occurring pairs and chunks of the binary path accumulate there.
TIMINGS: dict | None = None
# Chunks run on several threads: their updates of TIMINGS take this lock (a bare += on a
# dict entry can lose an update when threads interleave).
_TIMINGS_LOCK = threading.Lock()


def _ext_table(n: int) -> np.ndarray:
    """``t(c) = c log c`` for ``c = −n .. n`` at index ``c + n`` (0 for ``c < 0``).

    Negative arguments occur only in terms that are added once and subtracted once (the
    zero-pair value of a pair that does co-occur, whose ``n − a − b`` may be negative):
    their value is irrelevant as long as both use the same one, and 0 cancels exactly.
    """
    t = np.zeros(2 * n + 1)
    t[n:] = _xlogx_table(n)
    return t


def _var_of_col(ptr: np.ndarray) -> np.ndarray:
    return np.repeat(np.arange(ptr.size - 1), np.diff(ptr))


def _marginal_xlogx(D: DiscreteData, table: np.ndarray) -> np.ndarray:
    """``Σ_codes t(count)`` of every variable (code 0 included), shape (p,)."""
    return _group_sum(table[D.counts], D.ptr) + table[D.zero_counts()]


def zero_pair_sums(nz_a: np.ndarray, nz_b: np.ndarray, n: int) -> np.ndarray:
    """``Σ_j g(a_i, b_j)`` for every ``i``, grouped by distinct totals.

    ``g(a, b) = t(n−a−b) − t(n−a) − t(n−b) + t(n)`` is ``n·I`` of a pair whose cells with
    both codes ≥ 1 are all empty (``a``, ``b``: number of rows with a non-zero code).
    Cost: (distinct ``a``) × (distinct ``b``) table look-ups.
    """
    ext = _ext_table(n)
    ua, inv = np.unique(np.asarray(nz_a, dtype=np.int64), return_inverse=True)
    ub, cnt = np.unique(np.asarray(nz_b, dtype=np.int64), return_counts=True)
    cnt = cnt.astype(np.float64)
    tb = ext[n + n - ub]  # t(n − b)
    out = np.empty(ua.size)
    step = max(1, (1 << 22) // max(1, ub.size))
    for i0 in range(0, ua.size, step):
        a = ua[i0 : i0 + step, None]
        g = ext[n + n - a - ub[None, :]] - ext[n + n - a] - tb[None, :] + ext[2 * n]
        out[i0 : i0 + step] = g @ cnt
    return out[inv.ravel()]


def pair_corrections(
    ia: np.ndarray,
    jb: np.ndarray,
    v: np.ndarray,
    A_layout: tuple[np.ndarray, np.ndarray, np.ndarray],
    B_layout: tuple[np.ndarray, np.ndarray, np.ndarray],
    n: int,
    ext: np.ndarray,
) -> np.ndarray:
    """Per ``A`` variable, ``Σ_j [Σ_cells t(c) − zero-pair value]`` over co-occurring pairs.

    ``(ia, jb, v)`` are the non-zero entries of the count matrix ``A_indᵀ B_ind`` (``ia``:
    indicator column of ``A``, ``jb``: of ``B``); a layout is ``(ptr, counts, nz)`` —
    variable → indicator columns, rows per non-zero code, rows with any non-zero code.
    The correction of pair ``(i, j)`` is (cells as in ``_sum_xlogx_block``)::

        Σ_uv t(C_uv) + Σ_u [t(a_u − Σ_v C_uv) − t(a_u)] + Σ_v [t(b_v − Σ_u C_uv) − t(b_v)]
        + t(n − A_i − B_j + Σ_uv C_uv) − t(n − A_i − B_j)

    which is 0 for a zero pair; the same correction applies to ``Σ t`` and to ``n·I``.
    """
    a_ptr, cnt_a, nz_a = A_layout[:3]
    b_ptr, cnt_b, nz_b = B_layout[:3]
    p_a = a_ptr.size - 1
    if v.size == 0:
        return np.zeros(p_a)
    # variable of each A column (passed precomputed by callers that reduce many blocks)
    a_var = A_layout[3] if len(A_layout) > 3 else _var_of_col(a_ptr)
    vi = a_var[ia]
    if np.all(np.diff(a_ptr) <= 1) and np.all(np.diff(b_ptr) <= 1):
        # binary variables: every pair has one inner cell, so all groupings are the entry.
        # Chunks of _CHUNK entries keep the gathers' temporaries in cache.
        corr = np.empty(v.size)
        for s0 in range(0, v.size, _CHUNK):
            vv = v[s0 : s0 + _CHUNK].astype(np.int64) + n  # index of t(v) in ext
            a = cnt_a[ia[s0 : s0 + _CHUNK]]
            b = cnt_b[jb[s0 : s0 + _CHUNK]]
            c = ext[vv]
            c += ext[a - vv + 2 * n]  # t(a − v)
            c -= ext[a + n]
            c += ext[b - vv + 2 * n]  # t(b − v)
            c -= ext[b + n]
            ab = 2 * n - a - b  # index of t(n − a − b)
            c += ext[ab + vv - n]
            c -= ext[ab]
            corr[s0 : s0 + _CHUNK] = c
        return np.bincount(vi, weights=corr, minlength=p_a)
    v = v.astype(np.int64, copy=False)
    vj = _var_of_col(b_ptr)[jb]
    p_b, m_b = b_ptr.size - 1, cnt_b.size
    out = np.bincount(vi, weights=ext[n + v], minlength=p_a)  # inner cells
    # left cells (u, 0): row u's entries within B_j's block
    keys, inv = np.unique(ia.astype(np.int64) * p_b + vj, return_inverse=True)
    rb = np.bincount(inv.ravel(), weights=v)
    u = keys // p_b
    t = ext[n + cnt_a[u] - rb.astype(np.int64)] - ext[n + cnt_a[u]]
    out += np.bincount(vi_of(u, a_ptr), weights=t, minlength=p_a)
    # top cells (0, v): column v's entries within A_i's block
    keys, inv = np.unique(vi.astype(np.int64) * m_b + jb, return_inverse=True)
    cb = np.bincount(inv.ravel(), weights=v).astype(np.int64)
    i_g, c_g = keys // m_b, keys % m_b
    t = ext[n + cnt_b[c_g] - cb] - ext[n + cnt_b[c_g]]
    out += np.bincount(i_g, weights=t, minlength=p_a)
    # corner cell (0, 0)
    keys, inv = np.unique(vi.astype(np.int64) * p_b + vj, return_inverse=True)
    tot = np.bincount(inv.ravel(), weights=v).astype(np.int64)
    i_g, j_g = keys // p_b, keys % p_b
    base = n - nz_a[i_g] - nz_b[j_g] + n
    out += np.bincount(i_g, weights=ext[base + tot] - ext[base], minlength=p_a)
    return out


def binary_row_corrections(
    indptr: np.ndarray,
    labels: np.ndarray,
    counts: np.ndarray,
    a_rows: np.ndarray,
    b: np.ndarray,
    t_b: np.ndarray,
    n: int,
    ext: np.ndarray,
) -> np.ndarray:
    """Per feature row, ``Σ_l [Σ_cells t − zero-pair value]`` over its co-occurring labels.

    Binary variables: the CSR rows ``(indptr, labels, counts)`` hold ``n11`` of a chunk of
    features (rows, ``a_rows`` positives each) with every label it co-occurs with (``b``
    positives, ``t_b = t(b)``). The pair's correction is::

        t(n11) + t(a − n11) − t(a) + t(b − n11) − t(b) + t(n − a − b + n11) − t(n − a − b)

    where every argument is an integer count: all ``t`` come from the table ``ext``
    (``t(c)`` at ``c + n``), in chunks of :data:`_CHUNK` entries whose temporaries stay
    in cache; ``−t(a)`` is per row (``t(a)`` times the row's entries).
    """
    nnz = labels.size
    rows = indptr.size - 1
    out = np.zeros(rows)
    if nnz == 0:
        return out
    it = np.int32 if 4 * n < np.iinfo(np.int32).max else np.int64
    deg = np.diff(indptr)
    # index of t(a) in ext, per entry (a is constant along a row)
    a_idx = np.repeat((a_rows + n).astype(it), deg)
    b_idx = (b + n).astype(it)
    c = np.empty(nnz)
    k4 = it(4 * n)
    for s0 in range(0, nnz, _CHUNK):
        s1 = min(s0 + _CHUNK, nnz)
        v = counts[s0:s1].astype(it)
        lab = labels[s0:s1]
        ai = a_idx[s0:s1]
        bi = b_idx[lab]
        cc = ext[v + it(n)]  # t(n11)
        cc += ext[ai - v]  # t(a − n11)
        cc += ext[bi - v]  # t(b − n11)
        m = k4 - ai - bi  # index of t(n − a − b) (0 when negative: it cancels)
        cc += ext[m + v]
        cc -= ext[m]
        cc -= t_b[lab]
        c[s0:s1] = cc
    nz = deg > 0
    out[nz] = np.add.reduceat(c, indptr[:-1][nz])
    out -= ext[n + a_rows] * deg
    return out


def _map_chunks(one_chunk, chunks, out: np.ndarray, *, first_in_caller: bool = False) -> None:
    """``out[r0:r1] = one_chunk((r0, r1))`` for every chunk, on up to ``N_THREADS`` threads.

    scipy's products, numpy's gathers and reductions and the compiled kernels release the
    GIL, so chunks run on the cores in parallel; each writes its own rows (the same sums as
    in order). ``first_in_caller``: the first chunk runs in the calling thread before the
    others start (a compiled kernel is compiled or loaded once, not by several threads).
    """
    rest = chunks
    if first_in_caller and chunks:
        (r0, r1), rest = chunks[0], chunks[1:]
        out[r0:r1] = one_chunk((r0, r1))
    workers = min(N_THREADS, len(rest))
    if workers > 1:
        with ThreadPoolExecutor(workers) as pool:
            for (r0, r1), res in zip(rest, pool.map(one_chunk, rest), strict=True):
                out[r0:r1] = res
    else:
        for r0, r1 in rest:
            out[r0:r1] = one_chunk((r0, r1))


def binary_corrections(
    X: DiscreteData, Y: DiscreteData, ext: np.ndarray, block_entries: int,
    *, min_kernel_flops: float | None = None,
) -> np.ndarray:
    """Corrections of binary ``X`` and ``Y``, per variable of ``X`` (shape (p_X,)).

    The co-occurring pairs come from the sparse products ``X_chunkᵀ Y`` of chunks of
    feature rows with all labels (``X_indᵀ`` is ``X``'s CSC indicator matrix read as CSR,
    no copy): the product's accumulator spans the labels, and each chunk's entries, at
    most ``block_entries`` (bounded by the chunk's multiply–adds), are reduced per row.
    """
    n = X.n_samples
    dt = np.float64 if n >= _F32_EXACT else np.float32
    xi = sp.csc_matrix(X.indicators)  # (no copy when already CSC, as the engine builds it)
    m_a = xi.shape[1]
    xt = sp.csr_matrix(
        (xi.data.astype(dt, copy=False), xi.indices, xi.indptr), shape=(m_a, n), copy=False
    )
    yr = Y.row_major
    if yr.dtype != dt:
        yr = yr.astype(dt)
    # multiply–adds of each feature row (an upper bound of its product entries)
    flops = xt @ np.diff(yr.indptr).astype(np.float64)
    cum = np.concatenate([[0.0], np.cumsum(flops)])
    a, b = X.counts, Y.counts
    t_b = ext[n + b]
    # min_kernel_flops: callers that split one pass into parts (the strata of a greedy
    # step, skmlfs.info._strata) gate the kernel on the whole pass's work
    gate = KERNEL_MIN_FLOPS if min_kernel_flops is None else min_kernel_flops
    if cum[-1] >= gate and 3 * n < 2**31 and use_numba():
        return _binary_corrections_kernel(X, xt, yr, cum, a, b, ext)
    chunks = _budget_ranges(cum, min(block_entries, DEFAULT_ROW_CHUNK_ENTRIES))

    def one_chunk(bounds: tuple[int, int]) -> np.ndarray:
        r0, r1 = bounds
        s0, s1 = int(xt.indptr[r0]), int(xt.indptr[r1])
        chunk = sp.csr_matrix(
            (xt.data[s0:s1], xt.indices[s0:s1], xt.indptr[r0 : r1 + 1] - s0),
            shape=(r1 - r0, n),
            copy=False,
        )
        t0 = time.perf_counter()
        P = chunk @ yr
        t1 = time.perf_counter()
        res = binary_row_corrections(P.indptr, P.indices, P.data, a[r0:r1], b, t_b, n, ext)
        if TIMINGS is not None:
            with _TIMINGS_LOCK:
                TIMINGS["product_s"] += t1 - t0
                TIMINGS["corrections_s"] += time.perf_counter() - t1
                TIMINGS["co_occurring_pairs"] += int(P.nnz)
                TIMINGS["chunks"] += 1
        return res

    out = np.zeros(m_a)
    _map_chunks(one_chunk, chunks, out)
    corr = np.zeros(X.n_vars)
    corr[_var_of_col(X.ptr)] = out
    return corr


def _binary_corrections_kernel(X, xt, yr, cum, a, b, ext) -> np.ndarray:
    """:func:`binary_corrections` by the compiled kernel: each chunk of feature rows walks
    its samples' labels into a dense per-thread accumulator instead of a stored product
    (same values, bit for bit: see :mod:`skmlfs.info._kernels`)."""
    n, m_a = X.n_samples, xt.shape[0]
    xp, xi = xt.indptr, xt.indices
    # Labels renumbered by decreasing frequency, in place in each sample's row (the rows
    # keep their order, so every label is touched in the same order and every sum is
    # the same float): the frequent labels' counters then share cache lines.
    by_freq = np.argsort(-np.asarray(b), kind="stable")
    new_id = np.empty(b.size, dtype=yr.indices.dtype)
    new_id[by_freq] = np.arange(b.size, dtype=new_id.dtype)
    yp, yi = yr.indptr, new_id[yr.indices]
    b = np.asarray(b)[by_freq]
    a = np.ascontiguousarray(a, dtype=np.int64)
    chunks = _budget_ranges(cum, KERNEL_ROW_CHUNK_FLOPS)
    local = threading.local()

    def one_chunk(bounds: tuple[int, int]) -> np.ndarray:
        scratch = getattr(local, "scratch", None)
        if scratch is None:
            scratch = local.scratch = RowScratch(b, n)
        t0 = time.perf_counter()
        res, pairs = binary_rows_corrections(
            xp, xi, yp, yi, bounds[0], bounds[1], a, ext, n, scratch
        )
        if TIMINGS is not None:
            with _TIMINGS_LOCK:
                TIMINGS["kernel_s"] = TIMINGS.get("kernel_s", 0.0) + time.perf_counter() - t0
                TIMINGS["co_occurring_pairs"] += int(pairs)
                TIMINGS["chunks"] += 1
        return res

    out = np.zeros(m_a)
    corr = np.zeros(X.n_vars)
    if not chunks:  # no feature has a non-zero value
        return corr
    # the first chunk in this thread: numba compiles (or loads) the kernel once, before
    # any worker thread calls it
    _map_chunks(one_chunk, chunks, out, first_in_caller=True)
    corr[_var_of_col(X.ptr)] = out
    return corr


def vi_of(cols: np.ndarray, ptr: np.ndarray) -> np.ndarray:
    """Variable owning each indicator column."""
    return np.searchsorted(ptr, cols, side="right") - 1


def _layout(D: DiscreteData) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return D.ptr, D.counts, D.n_samples - D.zero_counts()


def _label_blocks(weights: np.ndarray, ptr: np.ndarray, budget: float) -> list[tuple[int, int]]:
    """Split variables ``0..p-1`` into consecutive blocks of summed ``weights`` ≤ budget.

    ``weights`` is per indicator column; a single variable above the budget is its own
    block.
    """
    w = np.concatenate([[0.0], np.cumsum(_group_sum(weights.astype(np.float64), ptr))])
    return _budget_ranges(w, budget)


def _budget_ranges(cum: np.ndarray, budget: float) -> list[tuple[int, int]]:
    """Consecutive ranges ``[a, b)`` of items whose weights, given as cumulative sums
    ``cum`` (``cum[0] = 0``), add up to at most ``budget``; an item above the budget is a
    range of its own."""
    m = cum.size - 1
    ranges = []
    a = 0
    while a < m:
        b = int(np.searchsorted(cum, cum[a] + budget, side="right")) - 1
        b = min(max(b, a + 1), m)
        ranges.append((a, b))
        a = b
    return ranges


def label_sums(
    X: DiscreteData,
    Y: DiscreteData,
    *,
    h_x: np.ndarray,
    h_y: np.ndarray,
    base: float,
    block_entries: int = DEFAULT_BLOCK_ENTRIES,
    block_cells: int = DEFAULT_BLOCK_CELLS,
) -> tuple[np.ndarray, np.ndarray]:
    """``Σ_l I(f; l)`` and ``Σ_l H(f, l)`` for every variable ``f`` of ``X``.

    Parameters
    ----------
    X, Y : DiscreteData
        Features ``(n, d)`` and labels ``(n, q)``.
    h_x, h_y : ndarray
        ``H(f)`` and ``H(l)`` in ``base`` (used by the dense path, as the full block does).
    block_entries : int
        Sparse path: budget of product entries per label block (bounds memory); binary
        variables use chunks of feature rows of at most ``min(block_entries,
        DEFAULT_ROW_CHUNK_ENTRIES)`` entries.
    block_cells : int
        Dense path (dense indicators): cells of one ``d × q_block`` count block.

    Returns
    -------
    relevance, sum_joint : ndarray of shape (d,)
        In ``base`` units. Equal to ``mutual_info(X, Y).sum(axis=1)`` and
        ``joint_entropy(X, Y).sum(axis=1)`` up to the order of summation.
    """
    n = X.n_samples
    p_a, p_b = X.n_vars, Y.n_vars
    log_base = 1.0 if base == np.e else np.log(base)
    if X.is_dense or Y.is_dense:
        # Dense indicators: BLAS products of label blocks, reduced as the full block is.
        rel, sh = np.zeros(p_a), np.zeros(p_a)
        table = _xlogx_table(n)
        width = max(1, block_cells // max(1, X.indicators.shape[1]))
        for j0 in range(0, p_b, width):
            Yb = Y.take(np.arange(j0, min(j0 + width, p_b)))
            C = _cross_counts(X, Yb)
            s = _sum_xlogx_tables(C, X.counts, Yb.counts, n, X, Yb, table)
            h_xy = (np.log(n) - s / n) / log_base
            rel += (h_x[:, None] + h_y[None, j0 : j0 + width] - h_xy).sum(axis=1)
            sh += h_xy.sum(axis=1)
        return rel, sh
    ext = _ext_table(n)
    A_layout, B_layout = (*_layout(X), _var_of_col(X.ptr)), _layout(Y)
    if np.all(np.diff(X.ptr) <= 1) and np.all(np.diff(Y.ptr) <= 1):
        corr = binary_corrections(X, Y, ext, block_entries)
    else:
        corr = _grouped_corrections(X, Y, ext, A_layout, B_layout, block_entries)
    zs = zero_pair_sums(A_layout[2], B_layout[2], n)
    rel = (zs + corr) / n / log_base
    # Σ_l Σ_cells t = q·M_f + Σ_l M_l − q·t(n) + Σ_l n·I(f; l)   (M: marginal Σ t)
    table = _xlogx_table(n)
    m_x, m_y = _marginal_xlogx(X, table), _marginal_xlogx(Y, table)
    s = p_b * m_x + m_y.sum() - p_b * table[n] + zs + corr
    sh = (p_b * np.log(n) - s / n) / log_base
    return rel, sh


def _grouped_corrections(X, Y, ext, A_layout, B_layout, block_entries) -> np.ndarray:
    """Corrections of multi-valued variables: label blocks of ``Y_blockᵀ X``."""
    n, p_a = X.n_samples, X.n_vars
    corr = np.zeros(p_a)
    xr = X.row_major  # CSR (n, m_A): the right operand, rows of X's codes
    if n >= _F32_EXACT:
        xr = xr.astype(np.float64)
    row_nnz = np.diff(xr.indptr).astype(np.float64)
    ycsc = sp.csc_matrix(Y.indicators)
    # products per label column: Σ over its rows of that row's X entries
    col_flops = np.zeros(ycsc.shape[1])
    nz_cols = np.flatnonzero(np.diff(ycsc.indptr))
    if nz_cols.size:
        col_flops[nz_cols] = np.add.reduceat(row_nnz[ycsc.indices], ycsc.indptr[nz_cols])
    for v0, v1 in _label_blocks(col_flops, Y.ptr, block_entries):
        c0, c1 = int(Y.ptr[v0]), int(Y.ptr[v1])
        if c1 == c0:
            continue
        yt = ycsc[:, c0:c1].T.tocsr()  # (m_Bb, n)
        if n >= _F32_EXACT:
            yt = yt.astype(np.float64)
        P = (yt @ xr).tocoo()  # (m_Bb, m_A): the co-occurring pairs of this block only
        v = np.rint(P.data).astype(np.int64)
        bl = (Y.ptr[v0 : v1 + 1] - c0, B_layout[1][c0:c1], B_layout[2][v0:v1])
        corr += pair_corrections(P.col, P.row, v, A_layout, bl, n, ext)
        del P, v
    return corr
