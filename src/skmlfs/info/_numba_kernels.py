"""numba kernels of :mod:`skmlfs.info._kernels` (imported on first use only).

Every kernel repeats the numpy path's arithmetic operation by operation (see
:mod:`skmlfs.info._kernels`), so results are bit-identical to it.
"""

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

# numpy's blocking of pairwise summation (PW_BLOCKSIZE in numpy's loops_utils.h)
_PW_BLOCK = 128
# The label walk requests the labels of the sample this many entries ahead: a sample's
# labels are a random ~300-byte read from a large array, and without the request each
# one waits for memory (measured on Delicious-200K shapes: 2 to 8 ahead all about halve
# the walk's time, 16 is slower).
_AHEAD = 4
# ... and this many cache lines of them (16 int32 labels per 64-byte line; ~75 labels a
# sample on Delicious-200K; longer rows are left to the hardware prefetcher).
_AHEAD_LINES = 5


@intrinsic
def _prefetch(typingctx, arr, idx):
    """Request the cache line of ``arr[idx]`` (LLVM's prefetch: a hint, no fault on a
    bad address; read, high locality, data cache)."""
    sig = types.void(arr, idx)

    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]], wraparound=False)
        i8p = ir.IntType(8).as_pointer()
        # opaque pointers (LLVM ≥ 15) mangle the intrinsic as .p0, typed ones as .p0i8
        name = "llvm.prefetch.p0" if str(i8p) == "ptr" else "llvm.prefetch.p0i8"
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, name)
        rw, locality, cache = ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)
        builder.call(fn, [builder.bitcast(ptr, i8p), rw, locality, cache])
        return context.get_dummy_value()

    return sig, codegen


@numba.njit(nogil=True, cache=True)
def _block_sum(a, lo, n):
    """A leaf of numpy's pairwise summation (``n ≤ 128``): eight running sums."""
    if n < 8:
        res = 0.0
        for i in range(n):
            res += a[lo + i]
        return res
    r0 = a[lo]
    r1 = a[lo + 1]
    r2 = a[lo + 2]
    r3 = a[lo + 3]
    r4 = a[lo + 4]
    r5 = a[lo + 5]
    r6 = a[lo + 6]
    r7 = a[lo + 7]
    i = 8
    end = n - (n % 8)
    while i < end:
        r0 += a[lo + i]
        r1 += a[lo + i + 1]
        r2 += a[lo + i + 2]
        r3 += a[lo + i + 3]
        r4 += a[lo + i + 4]
        r5 += a[lo + i + 5]
        r6 += a[lo + i + 6]
        r7 += a[lo + i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[lo + i]
        i += 1
    return res


@numba.njit(nogil=True, cache=True)
def _pairwise_sum(a, lo, n):
    """numpy's ``pairwise_sum`` of ``a[lo : lo + n]``: the same additions in the same order.

    numpy recurses (halves rounded down to a multiple of 8 until ``n ≤ 128``); the
    recursion is unrolled on an explicit stack here (numba's cache does not reload
    recursive functions reliably).
    """
    if n <= _PW_BLOCK:
        return _block_sum(a, lo, n)
    # frames (lo, n, stage) and a stack of finished partial sums; depth ≤ log2(n)
    f_lo = np.empty(64, np.int64)
    f_n = np.empty(64, np.int64)
    f_st = np.empty(64, np.int64)
    vals = np.empty(64, np.float64)
    top = 0
    nv = 0
    f_lo[0] = lo
    f_n[0] = n
    f_st[0] = 0
    while top >= 0:
        cl = f_lo[top]
        cn = f_n[top]
        if cn <= _PW_BLOCK:
            vals[nv] = _block_sum(a, cl, cn)
            nv += 1
            top -= 1
            continue
        n2 = cn // 2
        n2 -= n2 % 8
        st = f_st[top]
        if st == 0:  # left half first
            f_st[top] = 1
            top += 1
            f_lo[top] = cl
            f_n[top] = n2
            f_st[top] = 0
        elif st == 1:  # then the right half
            f_st[top] = 2
            top += 1
            f_lo[top] = cl + n2
            f_n[top] = cn - n2
            f_st[top] = 0
        else:  # both halves done: left + right
            nv -= 1
            vals[nv - 1] = vals[nv - 1] + vals[nv]
            top -= 1
    return vals[0]


@numba.njit(nogil=True, cache=True)
def binary_rows(xp, xi, yp, yi, r0, r1, a, ext, n, acc, order, vals):
    """Corrections of feature rows ``r0:r1`` and their number of co-occurring pairs.

    See :func:`skmlfs.info._kernels.binary_rows_corrections`. ``acc[k]`` packs label
    ``k``'s index of ``t(b)`` in ``ext`` (high 32 bits) with its running ``n11`` (low 32
    bits, zero on entry and on exit): the count and the label's total share a cache line.
    ``vals`` holds at least one entry per label, ``order`` one more (a label is written
    at ``order[cnt]`` before it is known to be new).
    """
    out = np.empty(r1 - r0)
    pairs = 0
    k4 = 4 * n
    low = np.int64(0xFFFFFFFF)
    last = xi.size - 1
    for r in range(r0, r1):
        # n11 of every label this feature co-occurs with, first-touch order kept; the
        # label is written unconditionally and kept only if new (no unpredictable branch)
        cnt = 0
        for jj in range(xp[r], xp[r + 1]):
            # the labels of the sample _AHEAD entries on (of this feature or the next)
            p = yp[xi[min(jj + _AHEAD, last)]]
            for h in range(_AHEAD_LINES):
                _prefetch(yi, p + 16 * h)
            s = xi[jj]
            for kk in range(yp[s], yp[s + 1]):
                k = yi[kk]
                x = acc[k]
                order[cnt] = k
                cnt += (x & low) == 0
                acc[k] = x + 1
        ai = a[r] + n  # index of t(a) in ext
        # scipy's product emits a row's columns in reverse first-touch order; each pair's
        # terms are added in the order of the numpy path (binary_row_corrections)
        for e in range(cnt):
            k = order[cnt - 1 - e]
            x = acc[k]
            v = x & low
            bi = x >> 32  # index of t(b)
            acc[k] = x - v
            cc = ext[v + n]  # t(n11)
            cc += ext[ai - v]  # t(a − n11)
            cc += ext[bi - v]  # t(b − n11)
            m = k4 - ai - bi  # index of t(n − a − b)
            cc += ext[m + v]
            cc -= ext[m]
            cc -= ext[bi]  # t(b)
            vals[e] = cc
        # np.add.reduceat: the first entry, plus numpy's pairwise sum of the rest
        s = 0.0
        if cnt > 0:
            s = vals[0] + _pairwise_sum(vals, 1, cnt - 1)
        out[r - r0] = s - ext[ai] * np.float64(cnt)
        pairs += cnt
    return out, pairs


@numba.njit(nogil=True, cache=True)
def row_counts(indptr, indices, rows, m):
    out = np.zeros(m, dtype=np.int64)
    for i in range(rows.size):
        r = rows[i]
        for jj in range(indptr[r], indptr[r + 1]):
            out[indices[jj]] += 1
    return out


@numba.njit(nogil=True, cache=True)
def count_rows(indptr, indices, rows, i0, i1, C):
    """``C[c] += 1`` for every entry ``c`` of the CSR rows ``rows[i0:i1]`` (C's dtype holds
    the largest count). Each row's entries are requested a few rows ahead (rows are
    random ~1-kilobyte reads of a large array)."""
    last = rows.size - 1
    for i in range(i0, i1):
        p = indptr[rows[min(i + _AHEAD, last)]]
        for h in range(_AHEAD_LINES):
            _prefetch(indices, p + 16 * h)
        r = rows[i]
        for jj in range(indptr[r], indptr[r + 1]):
            C[indices[jj]] += 1


@numba.njit(nogil=True, cache=True)
def binary_one_from_counts(C, C2, two, cnt_a, col_of_var, b, n, table, log_n, log_base, out):
    """``H`` of every binary variable with one binary variable, from the both-one counts
    ``C`` (plus ``C2`` when ``two``: partial counts over disjoint rows; integers, so the
    split does not change them), into ``out``.

    ``Σ_cells t`` adds the four cells in the order of
    ``skmlfs.info._engine._sum_xlogx_block`` (inner + left + top + corner), then
    ``(log n − s / n) / log_base`` as ``skmlfs.info._engine.joint_entropy_one`` does
    (``log_base = 0``: nats, no division).
    """
    for i in range(col_of_var.size):
        c = col_of_var[i]
        if c < 0:
            s = ((0.0 + 0.0) + table[b]) + table[n - b]
        else:
            v = np.int64(C[c])
            if two:
                v += np.int64(C2[c])
            a = cnt_a[c]
            s = ((table[v] + table[a - v]) + table[b - v]) + table[n - a - b + v]
        h = log_n - s / n
        if log_base != 0.0:
            h = h / log_base
        out[i] = h
