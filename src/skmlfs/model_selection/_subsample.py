"""A learner trained on a random share of the training rows it is given.

Training-size curves where the row sample and the learner's own randomness come from one
seed (the oCC paper's Fig. 7: Sun & Kudo, §8.5): at a given share and split every method
with the same ``random_state`` sees the same rows.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, MultiOutputMixin, clone
from sklearn.utils import check_random_state

__all__ = ["TrainingSubsample", "subsample_size"]


def subsample_size(fraction: float, n: int) -> int:
    """Rows kept of ``n``: ``min(n, max(2, ⌈fraction · n⌉))`` (the ceiling taken with a
    1e-9 tolerance so that e.g. 0.7 · 100 keeps 70 rows, not 71)."""
    return min(n, max(2, int(np.ceil(fraction * n - 1e-9))))


class TrainingSubsample(MultiOutputMixin, ClassifierMixin, MetaEstimatorMixin, BaseEstimator):
    """Fit ``estimator`` on a random ``fraction`` of the training rows.

    ``fit`` draws, from one generator seeded by ``random_state``: the rows (sorted; all
    rows when the share keeps all of them, without a draw), then a seed for the estimator
    (set as its ``random_state`` when it has one). The sample depends only on
    ``random_state``, ``fraction`` and the number of rows, so methods wrapped with the same
    seed see the same rows at a given share.

    Parameters
    ----------
    estimator : estimator
        A multi-label learner (cloned).
    fraction : float in (0, 1], default=1.0
        Share of the rows; :func:`subsample_size` rows are kept.
    random_state : int, RandomState or None
        Seeds the row sample and the estimator.

    Attributes
    ----------
    estimator_ : the fitted clone
    n_train_used_ : int
        Rows it was trained on.
    """

    def __init__(self, estimator: Any = None, fraction: float = 1.0, random_state: Any = None):
        self.estimator = estimator
        self.fraction = fraction
        self.random_state = random_state

    def fit(self, X: Any, Y: Any) -> TrainingSubsample:
        if self.estimator is None:
            raise ValueError("TrainingSubsample needs an estimator.")
        f = self.fraction
        if isinstance(f, bool) or not isinstance(f, numbers.Real) or not 0 < f <= 1:
            raise ValueError(f"fraction must lie in (0, 1]; got {f!r}.")
        rng = check_random_state(self.random_state)
        n = X.shape[0]
        m = subsample_size(float(f), n)
        rows = np.sort(rng.choice(n, m, replace=False)) if m < n else np.arange(n)
        seed = int(rng.randint(2**31 - 1))
        est = clone(self.estimator)
        if "random_state" in est.get_params(deep=False):
            est.set_params(random_state=seed)
        Y = np.asarray(Y) if not hasattr(Y, "tocsr") else Y
        self.estimator_ = est.fit(X[rows], Y[rows])
        self.n_train_used_ = m
        return self

    def predict(self, X: Any) -> np.ndarray:
        return self.estimator_.predict(X)
