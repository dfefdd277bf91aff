"""Pruned problem transformation (PPT, Read 2008).

Shared by the PPT-based baselines (PPT+MI, PPT+CHI, PPT+ReliefF): each label set becomes
one class of a single-label problem, and rare label sets are pruned.
"""

from __future__ import annotations

import warnings
from numbers import Integral
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.utils._param_validation import StrOptions

from ._base import Number

__all__ = ["PPT_CONSTRAINTS", "label_sets", "pruned_problem_transformation"]

#: ``min_support`` and ``strategy`` of the PPT selectors (PPT+MI, PPT+CHI, PPT+ReliefF).
PPT_CONSTRAINTS: dict = {
    "min_support": [Number(Integral, 1, None, closed="left")],
    "strategy": [StrOptions({"discard", "reintroduce"})],
}


def pruned_problem_transformation(
    Y: np.ndarray, min_support: int = 6, strategy: str = "discard"
) -> tuple[np.ndarray, np.ndarray]:
    """Map label sets to classes and prune rare ones (``docs/methods/info.md#ppt-filters``).

    Parameters
    ----------
    Y : ndarray or sparse matrix of shape (n_samples, n_labels)
        0/1 label matrix (validated by the caller); a sparse one stays sparse.
    min_support : int, default=6
        Label sets occurring fewer than ``min_support`` times are pruned (``>= τ`` kept,
        the PyIT-MLFS convention; Mulan keeps ``> p``, i.e. ``min_support = p + 1``).
    strategy : {"discard", "reintroduce"}, default="discard"
        ``"discard"`` drops the patterns of pruned label sets. ``"reintroduce"`` follows
        Mulan's ``PPT.NO_INFORMATION_LOSS``: each pruned pattern is copied once per frequent,
        pairwise disjoint subset of its label set (frequent = support ``>= min_support``;
        smallest subsets first, as Mulan sorts them).

    Returns
    -------
    rows : ndarray of shape (m,)
        Index of the original pattern behind each row of the transformed problem
        (a pattern may appear several times with ``"reintroduce"``).
    classes : ndarray of shape (m,)
        Class id of each row; ids are consecutive integers in order of first appearance.

    Notes
    -----
    If pruning would remove every pattern, no pruning is applied (τ = 1), an assumption
    documented in docs/methods/info.md#ppt-filters.
    """
    first, inverse, counts, sets = label_sets(Y)
    keep_set = counts >= min_support
    if not keep_set[inverse].any():
        keep_set[:] = True
        # the fallback keeps a ranking, but one with little meaning when the label sets are
        # (nearly) all distinct: a class per row makes χ² equal for every non-constant
        # feature and reduces I(f; class) to H(f) — say so rather than rank silently
        n_rows = int(inverse.size)
        warnings.warn(
            f"No label set occurs min_support={min_support} times, so pruning would remove "
            f"every pattern; nothing is pruned. The {counts.size:,} distinct label sets of "
            f"the {n_rows:,} patterns become the classes"
            + (
                " (every pattern its own class: the score then hardly depends on the "
                "labels — χ² ties at the number of patterns for every non-constant "
                "feature, and the mutual information becomes the feature's entropy)"
                if counts.size == n_rows
                else ""
            )
            + ". The pruned problem transformation needs repeated label sets; with many "
            "labels, a label-sum criterion (SCLS, AMI, MDMR) suits the data.",
            UserWarning,
            stacklevel=3,
        )
    rows = np.flatnonzero(keep_set[inverse])
    set_ids = inverse[rows]
    if strategy == "reintroduce":
        extra_rows, extra_sets = _reintroduce(sets, inverse, keep_set)
        rows = np.concatenate([rows, extra_rows])
        set_ids = np.concatenate([set_ids, extra_sets])
    elif strategy != "discard":
        raise ValueError(f"strategy must be 'discard' or 'reintroduce'; got {strategy!r}.")
    # Class ids in order of first appearance in the original data.
    order_of_sets = np.argsort(first, kind="stable")
    rank = np.empty_like(order_of_sets)
    rank[order_of_sets] = np.arange(order_of_sets.size)
    used = np.unique(set_ids)
    remap = np.full(rank.size, -1)
    remap[used[np.argsort(rank[used], kind="stable")]] = np.arange(used.size)
    return rows, remap[set_ids]


def label_sets(Y: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[tuple[int, ...]]]:
    """The distinct label sets (rows) of a 0/1 matrix, dense or sparse, without densifying.

    Returns what ``np.unique(Y, axis=0, return_index=True, return_inverse=True,
    return_counts=True)`` returns for the dense matrix — the distinct rows in the same
    (lexicographic) order — with each distinct row as the tuple of its label indices:
    ``first`` (a row of each set), ``inverse`` (set of each row), ``counts`` and ``sets``.
    Each row is hashed as the tuple of its labels (``O(nnz)``), so a sparse ``Y`` with
    tens of thousands of labels is never expanded to ``n × q`` bytes.
    """
    Y = sp.csr_matrix(Y) if sp.issparse(Y) else sp.csr_matrix(np.asarray(Y, dtype=np.uint8))
    Y.eliminate_zeros()
    Y.sort_indices()
    ptr, idx = Y.indptr, Y.indices
    ids: dict[tuple[int, ...], int] = {}
    inverse = np.empty(Y.shape[0], dtype=np.intp)
    for r in range(Y.shape[0]):
        inverse[r] = ids.setdefault(tuple(idx[ptr[r] : ptr[r + 1]].tolist()), len(ids))
    keys = list(ids)
    # np.unique's order of dense 0/1 rows: at the first column where two rows differ, the
    # row holding a 1 is larger, i.e. the label tuples compared with negated labels
    order = sorted(range(len(keys)), key=lambda i: tuple(-v for v in keys[i]))
    rank = np.empty(len(keys), dtype=np.intp)
    rank[order] = np.arange(len(keys))
    inverse = rank[inverse]
    counts = np.bincount(inverse, minlength=len(keys))
    first = np.full(len(keys), Y.shape[0], dtype=np.intp)
    np.minimum.at(first, inverse, np.arange(Y.shape[0]))
    return first, inverse, counts, [keys[i] for i in order]


def _reintroduce(sets, inverse, keep_set):
    """Copies of pruned patterns relabelled with frequent disjoint subsets (Mulan PPT)."""
    frequent = {sets[i]: i for i in np.flatnonzero(keep_set)}
    extra_rows, extra_sets = [], []
    # Loop over *distinct pruned label sets* (few), not over patterns.
    for s in np.flatnonzero(~keep_set):
        labels = sets[s]
        cands = sorted(
            (f for f in frequent if f and set(f) < set(labels)), key=len
        )
        chosen, covered = [], set()
        for f in cands:
            if covered.isdisjoint(f):
                chosen.append(frequent[f])
                covered.update(f)
        pats = np.flatnonzero(inverse == s)
        for c in chosen:
            extra_rows.append(pats)
            extra_sets.append(np.full(pats.size, c))
    if not extra_rows:
        return np.empty(0, dtype=np.intp), np.empty(0, dtype=np.intp)
    return np.concatenate(extra_rows), np.concatenate(extra_sets)
