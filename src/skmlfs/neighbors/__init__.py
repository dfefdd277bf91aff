"""Nearest neighbours under the (weighted) HEOM distance.

The heterogeneous Euclidean-overlap metric of Wilson & Martinez (1997) — range-normalised
differences of numeric features, overlap of nominal ones, ``δ = 1`` for a missing value —
with optional feature weights (ReliefF-ML's weighted HEOM, ``docs/methods/lazy.md#heom``),
computed block-wise by matrix products, and an exact neighbour search (ties → lower
index). One implementation serves ReliefF-ML and PPT+ReliefF (:mod:`skmlfs.selection`)
and the lazy learners ML-kNN, DML-kNN and MLC-WkNN (:mod:`skmlfs.learners`).
"""

from ._heom import (
    HEOM,
    check_heom_X,
    exact_products,
    heom_distances,
    heom_kneighbors_graph,
    rounding_tie_tol,
    stable_smallest,
)
from ._search import check_precomputed, precomputed_kneighbors

__all__ = [
    "HEOM",
    "check_heom_X",
    "check_precomputed",
    "exact_products",
    "heom_distances",
    "heom_kneighbors_graph",
    "precomputed_kneighbors",
    "rounding_tie_tol",
    "stable_smallest",
]
