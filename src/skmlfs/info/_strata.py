"""Sums over the labels of three-way entropies ``Σ_l H(f, l, z)``, without ``d × q`` tables.

MDMR, D2F and PMU's greedy steps need, for the feature ``z`` just selected and every
feature ``f``, only the sum over the labels ``Σ_l H(f, l, z)``. The three-way table of
``(f, l, z)`` is the union of the two-way tables of ``(f, l)`` within each stratum of
``z`` (the rows where ``z`` takes one value), so::

    Σ_l Σ_cells t(c) = Σ_codes u of z   Σ_l Σ_cells of (f, l) on the rows z = u   t(c)

with ``t(c) = c log c``, and each stratum's inner sum is the label sum of
:mod:`skmlfs.info._labelsum` on that stratum's rows (pairs that never co-occur there in
closed form, co-occurring pairs corrected from the sparse products). A step then costs
one label-sum pass over all the rows — ``O(M + P)`` (multiply–adds of the products and
co-occurring pairs) — and ``O(d + q)`` memory, instead of two dense ``d × q`` tables.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ._engine import DiscreteData, _cross_counts, _sum_xlogx_tables, _xlogx_table
from ._labelsum import (
    DEFAULT_BLOCK_CELLS,
    DEFAULT_BLOCK_ENTRIES,
    KERNEL_MIN_FLOPS,
    _ext_table,
    _grouped_corrections,
    _layout,
    _marginal_xlogx,
    _var_of_col,
    binary_corrections,
    zero_pair_sums,
)

__all__ = ["sum_joint_entropy_given", "xlogx_label_sums"]


def xlogx_label_sums(
    X: DiscreteData,
    Y: DiscreteData,
    *,
    block_entries: int = DEFAULT_BLOCK_ENTRIES,
    block_cells: int = DEFAULT_BLOCK_CELLS,
    min_kernel_flops: float | None = None,
) -> np.ndarray:
    """``Σ_l Σ_cells t(c)`` of the tables ``(f, l)`` for every variable ``f`` of ``X``.

    ``t(c) = c log c`` of the integer cell counts (nats, not divided by ``n``): the raw
    quantity behind ``Σ_l H(f, l) = q log n − (1/n) Σ_l Σ_cells t``. Computed as
    :func:`skmlfs.info._labelsum.label_sums` does (zero pairs in closed form, corrections of
    the co-occurring pairs); dense indicators take label blocks of the full table.

    Returns
    -------
    ndarray of shape (X.n_vars,)
    """
    n = X.n_samples
    p_a, p_b = X.n_vars, Y.n_vars
    if n == 0 or p_a == 0 or p_b == 0:
        return np.zeros(p_a)
    table = _xlogx_table(n)
    if X.is_dense or Y.is_dense:
        out = np.zeros(p_a)
        width = max(1, block_cells // max(1, X.indicators.shape[1]))
        for j0 in range(0, p_b, width):
            Yb = Y.take(np.arange(j0, min(j0 + width, p_b)))
            C = _cross_counts(X, Yb)
            out += _sum_xlogx_tables(C, X.counts, Yb.counts, n, X, Yb, table).sum(axis=1)
        return out
    ext = _ext_table(n)
    A_layout, B_layout = (*_layout(X), _var_of_col(X.ptr)), _layout(Y)
    if np.all(np.diff(X.ptr) <= 1) and np.all(np.diff(Y.ptr) <= 1):
        corr = binary_corrections(X, Y, ext, block_entries, min_kernel_flops=min_kernel_flops)
    else:
        corr = _grouped_corrections(X, Y, ext, A_layout, B_layout, block_entries)
    zs = zero_pair_sums(A_layout[2], B_layout[2], n)
    m_x, m_y = _marginal_xlogx(X, table), _marginal_xlogx(Y, table)
    return p_b * m_x + m_y.sum() - p_b * table[n] + zs + corr


def _strata(z: DiscreteData) -> np.ndarray:
    """Stratum of every row: the code of the single variable ``z`` (0 .. arity − 1)."""
    zind = sp.csc_matrix(z.indicators)
    code = np.zeros(z.n_samples, dtype=np.int64)
    for c in range(zind.shape[1]):
        code[zind.indices[zind.indptr[c] : zind.indptr[c + 1]]] = c + 1
    return code


def _split_rows(D: DiscreteData, code: np.ndarray, n_codes: int) -> list[DiscreteData]:
    """``D`` on the rows of each stratum (``code``), codes and layout kept.

    Sparse indicators: the stored entries of each stratum, kept in their order, so each
    stratum's CSC (column-major: what the label sums read) or CSR (row-major) comes out
    without a format conversion; as :meth:`DiscreteData.rows` otherwise.
    """
    if D.is_dense:
        return [D.rows(np.flatnonzero(code == u)) for u in range(n_codes)]
    ind = D.indicators
    csc = sp.issparse(ind) and ind.format == "csc"
    M = ind if csc else sp.csr_matrix(ind)
    n_rows = np.bincount(code, minlength=n_codes)
    new_row = np.empty(code.size, dtype=M.indices.dtype)  # position of each row in its stratum
    for u in range(n_codes):
        new_row[code == u] = np.arange(n_rows[u], dtype=new_row.dtype)
    out = []
    if csc:
        ent_code = code.astype(np.int8 if n_codes < 128 else np.int64)[M.indices]
        nonempty = np.flatnonzero(np.diff(M.indptr))
        for u in range(n_codes):
            hit = ent_code == u
            sel = np.flatnonzero(hit)  # entries of the stratum, in CSC order
            cnt = np.zeros(M.shape[1], dtype=np.int64)
            if nonempty.size:  # entries of each column within the stratum
                cnt[nonempty] = np.add.reduceat(hit, M.indptr[nonempty], dtype=np.int64)
            indptr = np.concatenate([[0], np.cumsum(cnt)])
            S = sp.csc_matrix((np.ones(sel.size, dtype=M.dtype), new_row[M.indices[sel]],
                               indptr), shape=(int(n_rows[u]), M.shape[1]))
            out.append(DiscreteData(int(n_rows[u]), D.arity, D.ptr, S, cnt, D.values))
        return out
    for u in range(n_codes):
        rows = np.flatnonzero(code == u)
        S = M[rows]
        cnt = np.bincount(S.indices, minlength=M.shape[1]).astype(np.int64)
        out.append(DiscreteData(int(rows.size), D.arity, D.ptr, S, cnt, D.values))
    return out


def sum_joint_entropy_given(
    X: DiscreteData,
    Y: DiscreteData,
    z: DiscreteData,
    *,
    base: float = 2.0,
    block_entries: int = DEFAULT_BLOCK_ENTRIES,
) -> np.ndarray:
    """``Σ_l H(f, l, z)`` for every variable ``f`` of ``X`` (one variable ``z``), shape (d,).

    Equal to ``joint_entropy(X, Y, given=z).sum(axis=1)`` up to the order of summation,
    without its two dense ``d × q`` tables: one label-sum pass (:func:`xlogx_label_sums`)
    per stratum of ``z`` — together one pass over all the rows.
    """
    if z.n_vars != 1:
        raise ValueError(f"`z` must hold exactly one variable; got {z.n_vars}.")
    n = X.n_samples
    if n == 0:
        raise ValueError("entropy of zero observations is undefined.")
    s = np.zeros(X.n_vars)
    code = _strata(z)
    n_codes = int(z.arity[0])
    if n_codes <= 1:  # z constant: the stratum is every row, no copy
        s += xlogx_label_sums(X, Y, block_entries=block_entries)
    else:
        # the compiled kernel engages on the work of the whole step, not of each stratum
        flops = float(X.counts.sum()) * float(Y.counts.sum()) / n
        gate = 0.0 if flops >= KERNEL_MIN_FLOPS else None
        for Xu, Yu in zip(_split_rows(X, code, n_codes), _split_rows(Y, code, n_codes),
                          strict=True):
            if Xu.n_samples:
                s += xlogx_label_sums(Xu, Yu, block_entries=block_entries,
                                      min_kernel_flops=gate)
    log_base = 1.0 if base == np.e else np.log(base)
    return (Y.n_vars * np.log(n) - s / n) / log_base
