"""numba kernel of the neighbour searches (imported on first use only, by
:func:`skmlfs.neighbors._heom.stable_smallest` when :func:`skmlfs._compiled.use_numba`).

:func:`stable_smallest_rows` is the exact stable ``k``-smallest selection of every row in
one pass: the ``k`` best entries so far are kept sorted by (value, column); a column
enters when its value is strictly below the current ``k``-th one (an equal value loses to
the lower column already kept), by insertion behind every kept entry with a value not
above its own. The result is therefore the first ``k`` columns of a stable sort of the
row — what the numpy path computes with a partition, its tie repair and a final sort —
with one comparison for most entries instead of several passes over the row. NaN sorts
last (as in numpy's sorts); the tests compare the two paths entry for entry.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(nogil=True, cache=True, inline="always")
def _before(a, b) -> bool:
    """``a`` sorts strictly before ``b`` (NaN last, NaNs equal among themselves)."""
    return a < b or (b != b and a == a)


@numba.njit(nogil=True, cache=True)
def stable_smallest_rows(D: np.ndarray, k: int, out: np.ndarray) -> None:
    """``out[r]``: columns of the ``k`` smallest entries of ``D[r]`` by (value, column),
    for ``1 ≤ k ≤ D.shape[1]``."""
    n_rows, n_cols = D.shape
    best = np.empty(k, dtype=D.dtype)
    for r in range(n_rows):
        m = 0
        for c in range(n_cols):
            v = D[r, c]
            if m == k:
                if not _before(v, best[k - 1]):
                    continue
                p = k - 1
            else:
                p = m
                m += 1
            while p > 0 and _before(v, best[p - 1]):
                best[p] = best[p - 1]
                out[r, p] = out[r, p - 1]
                p -= 1
            best[p] = v
            out[r, p] = c
