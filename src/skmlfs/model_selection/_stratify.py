"""Iterative stratification for multi-label data (Sechidis, Tsoumakas & Vlahavas 2011).

"On the stratification of multi-label data" (ECML PKDD 2011, Algorithm 1): labels are
handled from the rarest one up; every still unassigned pattern carrying that label goes to
the fold that most lacks the label, ties broken by the fold lacking most patterns, then at
random. The result keeps the positives of every label (above all the rare ones) spread as
evenly over the folds as possible, which plain shuffled k-fold does not.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterator
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.model_selection import BaseCrossValidator
from sklearn.utils.validation import _num_samples

__all__ = ["IterativeStratifiedKFold", "iterative_stratification"]


def _rng(random_state: Any) -> np.random.Generator:
    if random_state is None or isinstance(random_state, np.random.Generator):
        return np.random.default_rng(random_state)
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"random_state must be a non-negative integer; got {random_state}.")
        return np.random.default_rng(int(random_state))
    raise TypeError(
        "random_state must be None, a non-negative int or a numpy Generator; got "
        f"{type(random_state).__name__}."
    )


def _label_matrix(Y: Any, n: int | None = None) -> np.ndarray:
    if Y is None:
        raise ValueError(
            "iterative stratification needs the label matrix: call split(X, Y) with Y of "
            "shape (n_samples, n_labels)."
        )
    Y = Y.toarray() if sp.issparse(Y) else np.asarray(Y)
    if Y.ndim == 1:  # one binary label
        Y = Y[:, None]
    if Y.ndim != 2:
        raise ValueError(f"Y must be a 2-D label matrix; got shape {Y.shape}.")
    if n is not None and Y.shape[0] != n:
        raise ValueError(f"Y has {Y.shape[0]} rows but X has {n} samples.")
    if not np.isin(Y, (0, 1)).all():
        raise ValueError("Y must hold only 0/1 (a multi-label indicator matrix).")
    return Y.astype(bool)


def iterative_stratification(Y: Any, n_splits: int = 5, random_state: Any = None) -> np.ndarray:
    """Fold index (from 0 to ``n_splits - 1``) of every pattern by iterative stratification.

    Sechidis et al. (2011), Algorithm 1, with equal fold proportions ``r_j = 1/k``:

    1. the desired number of patterns of fold ``j`` is ``c_j = n/k`` and of label ``l`` in
       fold ``j`` is ``c_j^l = |D^l|/k``;
    2. take the label ``l`` with the fewest still unassigned positive patterns (ties: the
       lower label index); for each of its unassigned patterns (in one seeded random
       order), pick the folds with the largest ``c_j^l``, among them those with the largest
       ``c_j``, and among those one at random; assign, and decrease ``c_j`` and ``c_j^λ``
       for every label ``λ`` of the pattern;
    3. repeat until every positive is assigned; patterns without any label go to the folds
       with the largest ``c_j`` (ties at random).

    The loop is sequential by nature (every assignment changes the next pattern's
    choice); its cost is ``O(n·(k + q))`` array work.

    Parameters
    ----------
    Y : array-like or sparse matrix of shape (n_samples, n_labels), 0/1
    n_splits : int, default=5
    random_state : int, numpy Generator or None
        Seed of ``numpy.random.default_rng`` (pattern order and ties).

    Returns
    -------
    ndarray of int of shape (n_samples,)
    """
    Yb = _label_matrix(Y)
    n = Yb.shape[0]
    if not isinstance(n_splits, numbers.Integral) or isinstance(n_splits, bool) or not (
        2 <= n_splits <= n
    ):
        raise ValueError(f"n_splits must be an integer in [2, n_samples={n}]; got {n_splits!r}.")
    k = int(n_splits)
    rng = _rng(random_state)
    fold = np.full(n, -1)
    want = np.full(k, n / k)
    want_l = np.tile(Yb.sum(0) / k, (k, 1))
    left = Yb.sum(0).astype(np.int64)
    order = rng.permutation(n)

    def pick(cands: np.ndarray) -> int:
        return int(cands[0] if cands.size == 1 else rng.choice(cands))

    big = np.iinfo(np.int64).max
    while left.sum() > 0:
        lab = int(np.argmin(np.where(left > 0, left, big)))
        for i in order[Yb[order, lab] & (fold[order] < 0)]:
            col = want_l[:, lab]
            cand = np.flatnonzero(col == col.max())
            cand = cand[want[cand] == want[cand].max()]
            f = pick(cand)
            fold[i] = f
            want[f] -= 1
            want_l[f] -= Yb[i]
            left -= Yb[i]
    for i in order[fold[order] < 0]:
        f = pick(np.flatnonzero(want == want.max()))
        fold[i] = f
        want[f] -= 1
    return fold


class IterativeStratifiedKFold(BaseCrossValidator):
    """k-fold cross-validation stratified for multi-label data (Sechidis et al. 2011).

    A scikit-learn splitter (usable as ``cv=`` of ``GridSearchCV``, ``cross_validate``,
    ...): ``split(X, Y)`` yields ``(train, test)`` index arrays whose test folds partition
    the patterns, built by :func:`iterative_stratification`.

    Parameters
    ----------
    n_splits : int, default=5
    random_state : int, numpy Generator or None, default=None
        Same int, same folds (on any machine); ``None`` draws fresh entropy at every
        ``split`` call.

    Examples
    --------
    >>> import numpy as np
    >>> from skmlfs.model_selection import IterativeStratifiedKFold
    >>> Y = np.array([[1, 0], [1, 0], [0, 1], [0, 1], [1, 1], [1, 1]])
    >>> cv = IterativeStratifiedKFold(n_splits=2, random_state=0)
    >>> [int(Y[test].sum()) for _, test in cv.split(np.zeros((6, 1)), Y)]
    [4, 4]
    """

    def __init__(self, n_splits: int = 5, random_state: Any = None):
        self.n_splits = n_splits
        self.random_state = random_state

    def get_n_splits(self, X: Any = None, y: Any = None, groups: Any = None) -> int:
        """The number of folds, ``n_splits``."""
        return int(self.n_splits)

    def split(self, X: Any, y: Any = None, groups: Any = None) -> Iterator[tuple]:
        """Yield ``(train, test)`` index arrays (sorted) for each fold.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Only its number of rows is used.
        y : array-like or sparse matrix of shape (n_samples, n_labels), 0/1
            The label matrix (required).
        groups : ignored
        """
        return super().split(X, y, groups)

    def _iter_test_masks(self, X: Any = None, y: Any = None, groups: Any = None):
        Y = _label_matrix(y, _num_samples(X))
        fold = iterative_stratification(Y, self.n_splits, self.random_state)
        for j in range(int(self.n_splits)):
            yield fold == j
