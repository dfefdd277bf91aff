"""Optional compiled kernels (numba) of the count engine's hottest loops.

Whether they run is decided by the package's one switch, :func:`skmlfs._compiled.use_numba`
(numba installed, not switched off by ``SKMLFS_NO_NUMBA`` or ``FORCE_NUMPY``).

The kernels reproduce the numpy path's arithmetic operation by operation, so their
results are bit-identical to it (``tests/info/test_kernel.py``):

* :func:`binary_rows_corrections` — the per-feature corrections of the binary label sums
  (:func:`skmlfs.info._labelsum.binary_corrections`): for each feature row it walks the
  feature's samples (CSR of ``X_indᵀ``) and each sample's labels (CSR of ``Y_ind``),
  accumulating ``n11`` in a dense per-thread array with the list of touched labels — the
  sparse product ``X_chunkᵀ Y`` is never materialised. The touched labels are then taken
  in the order scipy's product emits them (the reverse of the first touch), each pair's
  correction is computed with the same table look-ups in the same order, and the row's
  corrections are added with numpy's pairwise summation (what ``np.add.reduceat`` uses
  on contiguous float64), so every row's sum is the same float as before. Each
  sample's labels are requested a few samples ahead (a software prefetch: they are
  random reads of a large array, the walk's main cost).
* :func:`binary_one_entropy` — the greedy step against one selected binary feature
  (:func:`skmlfs.info._engine.joint_entropy_one`): the counts of every binary feature
  over the selected feature's rows (integers, identical by construction, split over two
  threads and held in uint16 when they fit), then ``Σ_cells c log c`` of each 2 × 2
  table with the four cells added in the order of
  :func:`skmlfs.info._engine._sum_xlogx_block`, and the entropy as
  ``joint_entropy_one`` computes it from that sum.
* :func:`row_counts` — counts of every indicator column over a set of rows (the greedy
  step against one selected feature, :func:`skmlfs.info._engine._row_sums`): integer
  counts, identical by construction.
"""

from __future__ import annotations

import threading

import numpy as np

from .._compiled import use_numba

__all__ = ["use_numba"]

_K: dict = {}

# binary_one_entropy splits the selected feature's rows over threads from this many
# entries up (below, starting a thread costs more than it saves).
MIN_SPLIT_ENTRIES = 2**18


def _kernels() -> dict:
    if not _K:
        from . import _numba_kernels as nk

        _K.update(
            binary_rows=nk.binary_rows,
            row_counts=nk.row_counts,
            count_rows=nk.count_rows,
            binary_one_from_counts=nk.binary_one_from_counts,
        )
    return _K


class RowScratch:
    """Per-thread work arrays of :func:`binary_rows_corrections` for labels with ``b``
    positives (``t(b)`` at ``ext[b + n]``)."""

    def __init__(self, b: np.ndarray, n: int):
        q = b.size
        # label k: (index of t(b_k) in ext) << 32 | running n11 (0 between rows)
        self.acc = (np.asarray(b, dtype=np.int64) + n) << 32
        # one more than the labels: the touch loop writes a label before knowing it is new
        self.order = np.empty(q + 1, dtype=np.int32)
        self.vals = np.empty(q, dtype=np.float64)


def binary_rows_corrections(
    xp: np.ndarray,
    xi: np.ndarray,
    yp: np.ndarray,
    yi: np.ndarray,
    r0: int,
    r1: int,
    a: np.ndarray,
    ext: np.ndarray,
    n: int,
    scratch: RowScratch,
) -> tuple[np.ndarray, int]:
    """Corrections of feature rows ``r0:r1`` (the numpy path's ``binary_row_corrections``
    of the product ``X_indᵀ[r0:r1] @ Y_ind``), shape (r1 − r0,), and the number of
    co-occurring (feature, label) pairs of those rows.

    ``(xp, xi)``: CSR of ``X_indᵀ`` (feature row → samples); ``(yp, yi)``: CSR of
    ``Y_ind`` (sample → labels); ``a``: positives per feature row (int64); ``ext`` as in
    :func:`skmlfs.info._labelsum._ext_table`; the labels' positives are in ``scratch``.
    Needs ``3 n < 2**31``. Releases the GIL: threads may run disjoint row ranges, each
    with its own ``scratch``.
    """
    return _kernels()["binary_rows"](
        xp, xi, yp, yi, r0, r1, a, ext, n, scratch.acc, scratch.order, scratch.vals
    )


def row_counts(indptr: np.ndarray, indices: np.ndarray, rows: np.ndarray, m: int) -> np.ndarray:
    """Number of entries of each column ``0..m-1`` over the CSR rows ``rows`` (int64)."""
    return _kernels()["row_counts"](indptr, indices, rows, m)


def binary_one_entropy(
    indptr: np.ndarray,
    indices: np.ndarray,
    rows: np.ndarray,
    cnt_a: np.ndarray,
    col_of_var: np.ndarray,
    b: int,
    n: int,
    table: np.ndarray,
    base: float,
    threads: int = 1,
) -> np.ndarray:
    """``H(A_i, B_j)`` (in ``base``) of every binary variable with one binary variable,
    shape (p,).

    ``(indptr, indices)``: CSR of the variables' indicator columns; ``rows``: where the
    other variable is 1 (``b`` of them); ``cnt_a``: ones per column; ``col_of_var``: column
    of each variable, −1 for constants; ``table``: ``t(c)`` for ``c = 0..n``. The both-one
    counts are integers (the numpy path's, whatever the split over ``threads``), held in
    uint16 when ``b < 2**16`` (half the memory traffic of the random increments); the
    entropies are computed as :func:`skmlfs.info._engine.joint_entropy_one` computes them
    (bit-identical).
    """
    k = _kernels()
    m = cnt_a.size
    dt = np.uint16 if b < 2**16 else np.int32
    rows = np.asarray(rows, dtype=np.int64)
    nt = max(1, min(int(threads), rows.size))
    if nt > 1:
        lengths = np.cumsum(indptr[rows + 1] - indptr[rows])
        if lengths[-1] < MIN_SPLIT_ENTRIES:
            nt = 1
    parts = [np.zeros(m, dtype=dt) for _ in range(nt)]
    if nt == 1:
        k["count_rows"](indptr, indices, rows, 0, rows.size, parts[0])
        other = parts[0]  # not read
    else:
        # split at an equal number of entries (rows differ in length)
        cuts = np.searchsorted(lengths, lengths[-1] * np.arange(1, nt) / nt)
        bounds = [0, *cuts.tolist(), rows.size]
        ts = [
            threading.Thread(
                target=k["count_rows"],
                args=(indptr, indices, rows, bounds[t], bounds[t + 1], parts[t]),
            )
            for t in range(1, nt)
        ]
        for t in ts:
            t.start()
        k["count_rows"](indptr, indices, rows, bounds[0], bounds[1], parts[0])
        for t in ts:
            t.join()
        for extra in parts[2:]:
            parts[1] += extra
        other = parts[1]
    out = np.empty(col_of_var.size)
    log_base = 0.0 if base == np.e else float(np.log(base))
    k["binary_one_from_counts"](
        parts[0], other, nt > 1, cnt_a, col_of_var, int(b), int(n), table,
        float(np.log(n)), log_base, out,
    )  # fmt: skip
    return out
