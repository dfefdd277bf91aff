"""LRFS: multi-label feature selection with label redundancy (Zhang, Liu & Gao 2019).

As restated by the RLEFS paper, Eq. (3) (``docs/methods/sparse.md#lrfs``; the first line of
Eq. 3 is authoritative, the second misplaces the redundancy term inside the label sum)::

    LR(f)   = Σ_{l_i ∈ L} Σ_{l_j ∈ L, j ≠ i} I(f; l_j | l_i)
    J(f; S) = LR(f) − (1/|S|) Σ_{s ∈ S} I(f; s)          (J = LR(f) when S = ∅)

All information quantities come from the shared count engine :mod:`skmlfs.info`.
"""

from __future__ import annotations

import numpy as np

from .._progress import report_step
from ..info import InfoCache, conditional_mutual_info
from ._base import BaseInfoSelector, mean_redundancy_select
from ._scale import check_tables

__all__ = ["LRFS"]


def label_redundancy_relevance(cache: InfoCache) -> np.ndarray:
    """``LR(f) = Σ_i Σ_{j≠i} I(f; l_j | l_i)`` for every feature, shape (d,).

    One engine call per conditioning label ``l_i`` gives the whole ``(d, q)`` block
    ``I(f; l_j | l_i)``; the ``j = i`` column (mathematically 0) is dropped rather than
    summed, so floating-point residue of ``I(f; l | l)`` never enters the score.
    """
    Y = cache.Y
    q = Y.n_vars
    check_tables(
        "LRFS", f"its label-redundancy relevance (I(f; l_j | l_i) for every feature and "
        f"label pair, given each of the {q:,} labels)",
        float(cache.X.indicators.shape[1]) * Y.indicators.shape[1], tables=5.0,
        total_cells=float(cache.X.n_vars) * q * q,
        instead="Its redundancy term I(f; s) scales; SCLS, AMI and MDMR are label sums.",
    )
    lr = np.zeros(cache.X.n_vars)
    for i in range(q):  # a loop over labels; each call is vectorised over (f, l_j)
        M = conditional_mutual_info(cache.X, Y, Y.take([i]), base=cache.base)
        lr += M.sum(axis=1) - M[:, i]
        report_step(i + 1, q, "conditioning label")
    return lr


class LRFS(BaseInfoSelector):
    """Label-redundancy feature selection (Zhang, Liu & Gao 2019; RLEFS Eq. 3).

    Greedy forward selection of ``J(f; S) = LR(f) − (1/|S|) Σ_{s∈S} I(f; s)`` with the
    label-redundancy relevance ``LR(f) = Σ_i Σ_{j≠i} I(f; l_j | l_i)``. Zero-entropy
    features are never selected (as for the other greedy filters); exact ties go to the
    lowest feature index. Cost: ``q`` stratified engine calls for ``LR`` (``O(d q²)``
    table cells), then one feature × feature column per step.

    Parameters
    ----------
    n_features_to_select : int, float or None, default=None
        Count, fraction, or ``None`` for ⌈√n_samples⌉.
    discretizer : "auto", None or transformer, default="auto"
        As in :class:`~skmlfs.selection.SCLS`: integer-valued data is used as is, data with
        fractional values is discretized first (the RLEFS paper does not state how its MI
        baselines discretized; pass the same discretizer to every baseline of a study).
    verbose : int, default=0
        Progress of the fit on stderr (steps done, criterion or objective, elapsed time):
        0 none, 1 a line every few seconds, 2 or more every step.

    Attributes
    ----------
    selection_order_ : ndarray of int
        Selected features in the order they were picked.
    ranking_ : ndarray of shape (n_features,)
        scikit-learn's ranking, as ``RFE``'s: 1 for the selected features, then 2, 3,
        ... along ``selection_order_``.
    scores_ : ndarray of shape (n_features,)
        ``J`` (bits) of each feature at the step it was picked (NaN if never).
    step_scores_ : ndarray of float
        ``J`` of each greedy step, ``scores_[selection_order_]``.
    relevance_ : ndarray of shape (n_features,)
        ``LR(f)`` of every feature (bits).
    entropies_ : ndarray of shape (n_features,)
    """

    #: what row-block input would need (the message of the error it raises)
    _row_blocks_need = (
        "its relevance Σ_i Σ_(j≠i) I(f; l_j | l_i) needs the feature × label counts on the "
        "rows of each value of every label (q stratified d × q tables)"
    )

    def _select(self, cache: InfoCache, k: int):
        lr = label_redundancy_relevance(cache)
        self.relevance_ = lr
        return mean_redundancy_select(cache, lr, cache.h_x > 0, k)
