"""Split protocols: repeated holdout, k-fold, and the splits stored in ``.mat`` files.

Every protocol returns a list of :class:`Split` (sorted integer index arrays ``train`` and
``test``, disjoint, covering the data) and is fully determined by its arguments: the same
``random_state`` always gives the same splits, on any machine (``numpy.random.default_rng``,
whose permutation stream NumPy keeps stable).
"""

from __future__ import annotations

import numbers
from typing import Any, NamedTuple

import numpy as np

from ._stratify import iterative_stratification

__all__ = [
    "Split",
    "holdout_splits",
    "iterative_kfold_splits",
    "kfold_splits",
    "mat_splits",
    "subsample_train",
    "train_test_split_of",
]


class Split(NamedTuple):
    """One train/test partition as sorted index arrays."""

    train: np.ndarray
    test: np.ndarray


def _check_n(n: Any, minimum: int = 2) -> int:
    if not isinstance(n, numbers.Integral) or isinstance(n, bool) or n < minimum:
        raise ValueError(f"n (number of samples) must be an integer >= {minimum}; got {n!r}.")
    return int(n)


def _check_seed(random_state: Any) -> int | None:
    if random_state is None:
        return None
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"random_state must be a non-negative integer; got {random_state}.")
        return int(random_state)
    raise TypeError(
        "random_state must be None or a non-negative int (splits are recorded by seed, so a "
        f"Generator/RandomState object is not accepted); got {type(random_state).__name__}."
    )


def holdout_splits(
    n: int, repeats: int = 10, test_size: float = 0.2, random_state: int | None = None
) -> list[Split]:
    """Repeated random holdout (SCLS §4.1: 10 × 80 % train / 20 % test).

    Each repeat draws an independent permutation; the test part has ``⌊test_size · n⌋``
    patterns and the training part the remaining ``n − ⌊test_size · n⌋`` — the sizes of the
    PLCFS ``sim_seq`` masks (docs/methods/metrics.md#protocols: emotions 475/593, yeast 1934/2417).

    Parameters
    ----------
    n : int
        Number of patterns.
    repeats : int, default=10
    test_size : float in (0, 1), default=0.2
    random_state : int or None
        Seed of ``numpy.random.default_rng``; ``None`` gives fresh entropy (not reproducible).

    Returns
    -------
    list of Split
    """
    n = _check_n(n)
    if not isinstance(repeats, numbers.Integral) or isinstance(repeats, bool) or repeats < 1:
        raise ValueError(f"repeats must be an integer >= 1; got {repeats!r}.")
    if not isinstance(test_size, numbers.Real) or not 0.0 < float(test_size) < 1.0:
        raise ValueError(f"test_size must be a fraction in (0, 1); got {test_size!r}.")
    n_test = int(np.floor(float(test_size) * n))
    if n_test < 1 or n_test >= n:
        raise ValueError(
            f"test_size={test_size} leaves {n_test} test and {n - n_test} training patterns "
            f"out of n={n}; both parts must be non-empty."
        )
    rng = np.random.default_rng(_check_seed(random_state))
    out = []
    for _ in range(int(repeats)):
        perm = rng.permutation(n)
        out.append(Split(np.sort(perm[n_test:]), np.sort(perm[:n_test])))
    return out


def kfold_splits(n: int, k: int = 5, random_state: int | None = None) -> list[Split]:
    """Shuffled k-fold cross-validation: ``k`` disjoint test folds covering all patterns.

    Fold sizes differ by at most one (``numpy.array_split`` of one seeded permutation).
    """
    n = _check_n(n)
    if not isinstance(k, numbers.Integral) or isinstance(k, bool) or not 2 <= k <= n:
        raise ValueError(f"k (number of folds) must be an integer in [2, n={n}]; got {k!r}.")
    perm = np.random.default_rng(_check_seed(random_state)).permutation(n)
    everything = np.arange(n)
    out = []
    for fold in np.array_split(perm, int(k)):
        test = np.sort(fold)
        out.append(Split(np.setdiff1d(everything, test, assume_unique=True), test))
    return out


def iterative_kfold_splits(Y: Any, k: int = 5, random_state: int | None = None) -> list[Split]:
    """k-fold cross-validation by iterative stratification (Sechidis et al. 2011).

    The folds of :class:`~skmlfs.model_selection.IterativeStratifiedKFold` with the same
    ``random_state``, as a list of :class:`Split` (fold ``j`` tests, the rest trains).
    """
    fold = iterative_stratification(Y, k, _check_seed(random_state))
    return [Split(np.flatnonzero(fold != j), np.flatnonzero(fold == j)) for j in range(int(k))]


def subsample_train(split: Split, fraction: float, seed: Any) -> Split:
    """Keep ``max(1, floor(fraction · |train|))`` training patterns of ``split`` (the test part
    is unchanged): a prefix of one permutation seeded by ``seed``, so for one split the
    smaller fractions are subsets of the larger ones (training-size curves)."""
    if not 0.0 < float(fraction) <= 1.0:
        raise ValueError(f"fraction must lie in (0, 1]; got {fraction!r}.")
    n_keep = max(1, int(np.floor(float(fraction) * split.train.size + 1e-9)))
    perm = np.random.default_rng(seed).permutation(split.train.size)
    return Split(np.sort(split.train[perm[:n_keep]]), split.test)


def mat_splits(dataset: Any, n_splits: int | None = 10) -> list[Split]:
    """The holdout splits stored with a dataset (PLCFS ``sim_seq``: column j = training mask).

    Parameters
    ----------
    dataset : MultiLabelDataset or array-like
        A dataset with a ``split_masks`` attribute of shape ``(n, n_masks)``, or the mask
        matrix itself.
    n_splits : int or None, default=10
        Use the first ``n_splits`` masks (the SCLS and memetic experiments used the first
        10); ``None`` uses all of them.
    """
    masks = _stored(
        getattr(dataset, "split_masks", dataset),
        "the dataset stores no splits (split_masks is None); only PLCFS .mat files with "
        "'sim_seq' have them. Use the holdout or kfold protocol instead.",
    )
    if masks.ndim != 2:
        raise ValueError(f"split masks must be a 2-D (n, n_splits) array; got shape {masks.shape}.")
    if masks.dtype != bool:
        if not np.isin(masks, (0, 1)).all():
            raise ValueError("split masks must hold only 0/1 (training = 1).")
        masks = masks.astype(bool)
    if n_splits is not None:
        if not isinstance(n_splits, numbers.Integral) or isinstance(n_splits, bool) or n_splits < 1:
            raise ValueError(f"n_splits must be an integer >= 1 or None; got {n_splits!r}.")
        if n_splits > masks.shape[1]:
            raise ValueError(
                f"n_splits={n_splits} but the dataset stores only {masks.shape[1]} splits."
            )
        masks = masks[:, : int(n_splits)]
    return [_mask_split(masks[:, j], f"stored split {j}") for j in range(masks.shape[1])]


def train_test_split_of(dataset: Any) -> list[Split]:
    """The one split given by a dataset's parts (``part == 0`` trains, the rest tests).

    Datasets assembled from Mulan ``*-train.arff`` + ``*-test.arff`` files record the part
    of each row (:func:`skmlfs.datasets.load_train_test`); fixed-split protocols (RLEFS)
    use it.
    """
    part = _stored(
        getattr(dataset, "part", None),
        "the dataset has no train/test parts (it was not loaded from a -train/-test pair); "
        "use the holdout, kfold or mat protocol.",
    )
    return [_mask_split(part == 0, "the dataset's train/test split")]


def _stored(values: Any, missing: str) -> np.ndarray:
    """A split a dataset stores (masks or parts) as an array; ``ValueError(missing)`` if
    it stores none."""
    if values is None:
        raise ValueError(missing)
    return np.asarray(values)


def _mask_split(train_mask: np.ndarray, what: str) -> Split:
    """The split whose training rows are ``train_mask`` (neither part may be empty)."""
    train, test = np.flatnonzero(train_mask), np.flatnonzero(~train_mask)
    if train.size == 0 or test.size == 0:
        raise ValueError(f"{what} has an empty training or test part.")
    return Split(train, test)
