"""Nearest neighbours from precomputed distances: a dense matrix or a neighbours graph.

The search of the lazy learners' ``metric="precomputed"`` (the HEOM search itself is
:meth:`skmlfs.neighbors.HEOM.kneighbors`): the same order everywhere — distance, then the
lower index (dense) or the stored position (graph, e.g. from
:func:`~skmlfs.neighbors.heom_kneighbors_graph`, stored in neighbour order).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import validate_data

from ._heom import stable_smallest

__all__ = ["check_precomputed", "precomputed_kneighbors"]


def check_precomputed(estimator: Any, D: Any, *, reset: bool = True) -> Any:
    """Validate finite, non-negative distances to the training samples.

    Parameters
    ----------
    estimator : estimator
        Its ``n_features_in_`` (= the number of training samples) is set (``reset=True``)
        or checked (``reset=False``) by scikit-learn's ``validate_data``.
    D : array-like or sparse matrix of shape (n_queries, n_train)
        A dense matrix (all distances) or a sparse neighbours graph (CSR; the stored
        entries of a row are its candidate neighbours). The graph's stored order is
        kept: it breaks ties between equal distances.
    reset : bool, default=True

    Returns
    -------
    ndarray or scipy.sparse.csr_matrix of float64

    Raises
    ------
    ValueError
        On NaN, infinity or a negative distance.
    """
    D = validate_data(estimator, D, reset=reset, accept_sparse="csr", dtype=np.float64)
    if np.any((D.data if sp.issparse(D) else D) < 0):
        raise ValueError("metric='precomputed' needs non-negative distances.")
    return D


def precomputed_kneighbors(
    D: Any, k: int, *, exclude_self: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Distances and indices of the ``k`` nearest columns of every row of ``D``.

    Parameters
    ----------
    D : ndarray or scipy.sparse.csr_matrix of shape (n_queries, n_train)
        Validated distances (:func:`check_precomputed`). Dense: ties go to the lower
        column. Graph: the stored entries are the candidates, taken by distance and, for
        equal distances, in stored order.
    k : int
        Neighbours per row.
    exclude_self : bool, default=False
        ``D`` holds the training samples' distances among themselves: skip the diagonal
        entry ``(i, i)`` (duplicates of sample ``i`` remain neighbours).

    Returns
    -------
    distances : ndarray of shape (n_queries, k)
    indices : ndarray of int of shape (n_queries, k)
        Sorted by (distance, index) — (distance, stored position) for a graph.
    """
    if sp.issparse(D):
        return _graph_neighbours(D, k, exclude_self=exclude_self)
    if exclude_self:
        D = D.copy()
        np.fill_diagonal(D, np.inf)
    nb = stable_smallest(D, k)
    return np.take_along_axis(D, nb, axis=1), nb


def _graph_neighbours(
    G: sp.csr_matrix, k: int, *, exclude_self: bool
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`precomputed_kneighbors` on a neighbours graph, all rows at once."""
    n_rows = G.shape[0]
    counts = np.diff(G.indptr)
    row = np.repeat(np.arange(n_rows), counts)
    col, val = G.indices, G.data
    rc = np.sort(row.astype(np.int64) * G.shape[1] + col)
    if np.any(rc[1:] == rc[:-1]):
        raise ValueError("metric='precomputed': the neighbours graph stores an entry twice.")
    pos = np.arange(col.size)
    if exclude_self:
        keep = col != row
        row, col, val, pos = row[keep], col[keep], val[keep], pos[keep]
    have = np.bincount(row, minlength=n_rows)
    if n_rows and have.min() < k:
        i = int(np.argmin(have))
        raise ValueError(
            f"metric='precomputed': row {i} of the neighbours graph has {int(have[i])} "
            f"stored neighbours{' other than itself' if exclude_self else ''}; k={k} "
            "are needed (build the graph for the largest k used)."
        )
    order = np.lexsort((pos, val, row))
    start = np.concatenate(([0], np.cumsum(have)[:-1]))
    rank = np.arange(order.size) - start[row[order]]
    sel = order[rank < k]
    return val[sel].reshape(n_rows, k), col[sel].reshape(n_rows, k).astype(np.intp)
