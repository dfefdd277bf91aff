"""A seeded random selection: the floor every selector should beat (benchmark reference)."""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils.validation import validate_data

from .._validation import check_labels, resolve_n_features
from ._base import BaseSelector, degenerate_selection

__all__ = ["RandomSelection"]


class RandomSelection(BaseSelector):
    """Features in a random order, seeded: the reference of no information.

    Every feature draws a uniform score from ``random_state``; ``selection_order_`` orders the
    features by decreasing score, so a budget ``k`` selects a uniformly random subset of
    ``k`` features and smaller budgets are prefixes of larger ones (one fit serves every
    budget). The labels are validated but not used. Benchmarks report it beside "all
    features": a selector that does not beat it on a data set has found nothing there
    (``docs/methods/index.md#references``).

    Parameters
    ----------
    n_features_to_select : int, float, str or None, default=None
        Count, fraction, budget string, or ``None`` for ⌈√n_samples⌉.
    random_state : int, RandomState instance or None, default=None
        Seeds the scores (an experiment fills it from its seed).

    Attributes
    ----------
    selection_order_ : ndarray of int
        Every feature, by decreasing random score.
    ranking_ : ndarray of shape (n_features,)
        scikit-learn's ranking, as ``RFE``'s: 1 for the selected features, then 2, 3,
        ... along ``selection_order_``.
    scores_ : ndarray of shape (n_features,)
        The uniform random score of each feature.

    Examples
    --------
    >>> import numpy as np
    >>> from skmlfs.selection import RandomSelection
    >>> X, Y = np.arange(20).reshape(5, 4) % 3, np.eye(5, 2, dtype=int)
    >>> RandomSelection(2, random_state=0).fit(X, Y).get_support().sum()
    np.int64(2)
    """

    _parameter_constraints: dict = {
        **BaseSelector._parameter_constraints,
        "random_state": ["random_state"],
    }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.selector_tags.orders_all_features = True
        tags.selector_tags.scores_meaning = (
            "random_score", "the uniform random score each feature drew; the ranking sorts "
            "by it (no information about the labels)")
        return tags

    def __init__(self, n_features_to_select: Any = None, random_state: Any = None):
        self.n_features_to_select = n_features_to_select
        self.random_state = random_state

    def _fit(self, X: Any, Y: Any) -> RandomSelection:
        X = validate_data(self, X, accept_sparse=["csr", "csc"], ensure_all_finite=True)
        check_labels(Y, X.shape[0], warn_empty=True)
        if degenerate_selection(self, X):
            return self
        n, d = X.shape
        scores = check_random_state(self.random_state).random_sample(d)
        ranking = np.argsort(-scores, kind="stable")
        k = resolve_n_features(self.n_features_to_select, n, d)
        self._set_order(ranking, k=k, n_samples=n, scores=scores)
        return self
