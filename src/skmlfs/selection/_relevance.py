"""Relevance-only ranking: the baseline without a redundancy term.

The AMI column of the SCLS paper (Lee & Kim 2017, Tables 2-4) is this ranking, not
Eq. (2): the authors' ``ami.m`` never applies its redundancy term to the candidates
(``docs/methods/info.md#ami``; its exact behaviour is ``AMI(variant="authors_code")``).
"""

from __future__ import annotations

import numpy as np

from ..info import InfoCache
from ._base import TIE_RTOL, BaseInfoSelector, greedy_select

__all__ = ["MIRank"]


#: what ``scores_`` holds for a ranking by summed label mutual information (MI-rank, and
#: MLFS's ranking variant)
SUMMED_MI_MEANING = (
    "relevance",
    "summed label mutual information, sum over labels of I(f; l), bits (the ranking sorts by it)",
)


class MIRank(BaseInfoSelector):
    """Top-k features by their summed relevance ``Σ_l I(f; l)`` (no redundancy term).

    This is SCLS Eq. (9) (the first pick of SCLS and AMI) applied to every position,
    i.e. AMI's Eq. (2) without its redundancy sum ``Σ_{s∈S} I(f; s)``. The relevance of
    every feature comes from one feature × label count product of the shared engine
    (:class:`~skmlfs.info.InfoCache`); zero-entropy features are never selected, and ties
    (within the greedy filters' tolerance) go to the lowest feature index, as in
    :class:`AMI`.

    Parameters
    ----------
    n_features_to_select : int, float or None, default=None
        Count, fraction, or ``None`` for ⌈√n_samples⌉ (SCLS §4.1).
    discretizer : "auto", None or transformer, default="auto"
        See :class:`~skmlfs.selection._base.BaseInfoSelector`.
    verbose : int, default=0
        Progress of the fit on stderr (steps done, criterion or objective, elapsed time):
        0 none, 1 a line every few seconds, 2 or more every step.

    Attributes
    ----------
    selection_order_ : ndarray of int
        Selected feature indices, most relevant first.
    ranking_ : ndarray of shape (n_features,)
        scikit-learn's ranking, as ``RFE``'s: 1 for the selected features, then 2, 3,
        ... along ``selection_order_``.
    scores_ : ndarray of shape (n_features,)
        ``Σ_l I(f; l)`` (bits) of every feature (the value the ranking sorts by).
    relevance_ : ndarray of shape (n_features,)
        ``Σ_l I(f; l)`` of every feature.
    entropies_ : ndarray of shape (n_features,)
        ``H(f)`` (bits).

    Examples
    --------
    >>> from skmlfs.datasets import make_multilabel_discrete
    >>> from skmlfs.selection import MIRank
    >>> ds = make_multilabel_discrete(random_state=0)
    >>> MIRank(n_features_to_select=3).fit(ds.X, ds.Y).selection_order_.shape
    (3,)
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.selector_tags.scores_meaning = SUMMED_MI_MEANING
        tags.selector_tags.greedy = False
        tags.selector_tags.row_blocks = True  # Σ_l I(f; l) adds up over row blocks
        return tags

    def _per_feature_scores(self, ranking: np.ndarray, values: np.ndarray) -> np.ndarray:
        return self.relevance_

    def _select(self, cache: InfoCache, k: int):
        rel = cache.relevance
        # the criterion never changes, so the greedy loop is a sort whose ties are broken
        # exactly as AMI's first pick (lowest index within the tolerance)
        ranking, scores = greedy_select(
            rel, lambda s: None, lambda: rel, cache.h_x > 0, k, rtol=TIE_RTOL
        )
        self.relevance_ = rel
        return ranking, np.asarray(scores, dtype=float)
