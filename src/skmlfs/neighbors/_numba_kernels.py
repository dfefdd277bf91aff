"""numba kernel of the neighbour searches (imported on first use only, by
:func:`skmlfs.neighbors._heom.stable_smallest` when :func:`skmlfs._compiled.use_numba`).

:func:`stable_smallest_rows` is the exact stable ``k``-smallest selection of every row in
one pass: the ``k`` best entries so far are kept sorted by (value, column); a column
enters when its value is below the current ``k``-th one by more than the tie tolerance
``tol`` (a value within ``tol`` is a tie and loses to the lower column already kept), by
insertion behind every kept entry it does not undercut by more than ``tol``. The result is
therefore the first ``k`` columns of a stable sort of the row with values within ``tol``
taken as equal — what the numpy path computes with a partition and a sort — with one
comparison for most entries instead of several passes over the row. NaN sorts last (as in
numpy's sorts); the tests compare the two paths entry for entry.

:func:`hamming_kneighbors` is the whole search for 0/1 data (see
:meth:`skmlfs.neighbors.HEOM.kneighbors`): rows packed 64 features to a word, the distance
of two rows is the number of set bits of their XOR — the exact integer the products compute
on such data — and the ``k`` nearest are kept by the same insertion as above, so the
neighbours and distances equal the product path's; :func:`hamming_distances` gives the
whole block of those distances (the Relief searches, which select per group of
candidates). ``_popcount`` is the portable bit count (SWAR); LLVM recognises the pattern
and emits the processor's popcount instruction where there is one.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(nogil=True, cache=True, inline="always")
def _before(a, b, tol) -> bool:
    """``a`` sorts before ``b``: below it by more than ``tol`` (NaN last, NaNs equal among
    themselves)."""
    return a < b - tol or (b != b and a == a)


@numba.njit(nogil=True, cache=True, inline="always")
def _smallest_of_row(row, k, skip, tol, best, out) -> None:
    """``out``, ``best``: columns and values of the ``k`` smallest entries of ``row`` by
    (value, column), values within ``tol`` tied, column ``skip`` left out (``-1``: none);
    ``1 ≤ k ≤`` the candidates."""
    m = 0
    for c in range(row.shape[0]):
        if c == skip:
            continue
        v = row[c]
        if m == k:
            if not _before(v, best[k - 1], tol):
                continue
            p = k - 1
        else:
            p = m
            m += 1
        while p > 0 and _before(v, best[p - 1], tol):
            best[p] = best[p - 1]
            out[p] = out[p - 1]
            p -= 1
        best[p] = v
        out[p] = c


@numba.njit(nogil=True, cache=True)
def stable_smallest_rows(D: np.ndarray, k: int, tol: float, out: np.ndarray) -> None:
    """``out[r]``: columns of the ``k`` smallest entries of ``D[r]`` by (value, column),
    values within ``tol`` tied, for ``1 ≤ k ≤ D.shape[1]``."""
    best = np.empty(k, dtype=D.dtype)
    for r in range(D.shape[0]):
        _smallest_of_row(D[r], k, -1, tol, best, out[r])


@numba.njit(nogil=True, cache=True, inline="always")
def _popcount(x):
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return (x * np.uint64(0x0101010101010101)) >> np.uint64(56)


@numba.njit(nogil=True, cache=True, inline="always")
def _hamming_row(q, T, out) -> None:
    """``out[c]``: the number of differing bits of the packed row ``q`` and ``T[c]``."""
    for c in range(T.shape[0]):
        s = np.uint64(0)
        for w in range(q.shape[0]):
            s += _popcount(q[w] ^ T[c, w])
        out[c] = s


@numba.njit(nogil=True, cache=True)
def hamming_kneighbors(
    Q: np.ndarray, T: np.ndarray, k: int, exclude_self: bool, out_i: np.ndarray, out_d: np.ndarray
) -> None:
    """``out_i[r]``, ``out_d[r]``: the ``k`` rows of ``T`` nearest to ``Q[r]`` in Hamming
    distance, by (distance, row); ``exclude_self`` skips row ``r`` of ``T`` (``Q`` is ``T``).

    ``Q`` and ``T`` are packed bit rows (uint64, the same number of words); ``1 ≤ k ≤``
    the number of candidates.
    """
    dist = np.empty(T.shape[0], dtype=np.int64)
    best = np.empty(k, dtype=np.int64)
    for r in range(Q.shape[0]):
        # Distances first (a loop the compiler vectorises), then one selection pass.
        _hamming_row(Q[r], T, dist)
        # integer distances: exact ties (tolerance 0)
        _smallest_of_row(dist, k, r if exclude_self else -1, 0, best, out_i[r])
        out_d[r] = best


@numba.njit(nogil=True, cache=True)
def hamming_distances(Q: np.ndarray, T: np.ndarray, out: np.ndarray) -> None:
    """``out[r, c]``: the number of differing bits of ``Q[r]`` and ``T[c]`` (packed rows)."""
    for r in range(Q.shape[0]):
        _hamming_row(Q[r], T, out[r])
