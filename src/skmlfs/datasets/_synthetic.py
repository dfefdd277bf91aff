"""A seeded synthetic multi-label data set with known informative, redundant and noise features."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils import check_random_state

from ._dataset import MultiLabelDataset

__all__ = ["make_multilabel_discrete"]


def _check_int(value, name: str, low: int) -> int:
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < low:
        raise ValueError(f"{name} must be an int >= {low}; got {value!r}")
    return int(value)


def make_multilabel_discrete(
    n_samples: int = 500,
    n_features: int = 60,
    n_labels: int = 6,
    n_informative: int | None = None,
    n_redundant: int | None = None,
    noise: float = 0.2,
    shuffle: bool = True,
    random_state: int | np.random.RandomState | None = 0,
) -> MultiLabelDataset:
    """Generate a small discrete multi-label data set whose useful features are known.

    The features come first and the labels depend on them, as in a real prediction task.
    Features come in three roles, told apart by their names:

    * ``inf_<i>`` (informative): independent discrete variables with 3 or 4 values. Each
      drives two labels, ``a = i mod n_labels`` and one other drawn at random, through a
      score per value (a permutation of ``linspace(-1, 1, k)``, times 1.5). A label is
      1 when the sum of its parents' scores plus Gaussian noise (standard deviation 0.5)
      exceeds the quantile that gives it a prevalence drawn in [0.15, 0.45]; labels that
      share a parent are correlated. What a learner sees of ``inf_<i>`` is the value
      behind the labels with each entry replaced by a uniformly random value with
      probability ``noise`` (measurement noise).
    * ``red_<i>`` (redundant): a copy of an informative feature with its values
      permuted and a further ``noise / 2`` of its entries randomised — nearly no
      information beyond its original.
    * ``noise_<i>``: independent of everything, 2 to 4 values with random frequencies.

    The informative features are independent of each other, so each one carries
    information about the labels that the others do not; only the ``red_*`` copies are
    redundant. A filter that ranks features by their dependency on the labels therefore
    picks ``inf_*``/``red_*`` features first, while a random choice of ``k`` features
    picks mostly noise; a filter that also discounts redundancy (SCLS, MDMR, ...)
    prefers ``inf_*`` to the ``red_*`` copies.

    (An earlier version made every informative feature a noisy code of the same two
    labels. Those features were strongly dependent on each other, which
    redundancy-aware filters such as SCLS rightly count as redundancy, yet for naive
    Bayes they were independent pieces of evidence — so SCLS preferred noise features
    to the fourth and fifth noisy copy of a label, and the demo showed selection losing
    to all features. Features that cause the labels make the two notions agree.)

    Parameters
    ----------
    n_samples, n_features, n_labels : int
        Size of the data set.
    n_informative : int, optional
        Number of informative features; default ``max(n_labels, n_features // 6)``
        capped at ``n_features``.
    n_redundant : int, optional
        Number of redundant copies; default ``n_informative // 2`` (capped so that
        informative + redundant ≤ n_features).
    noise : float in [0, 1], default 0.2
        Probability that an entry of an informative feature is randomised.
    shuffle : bool, default True
        Shuffle the feature columns (otherwise informative, redundant, noise).
    random_state : int, RandomState or None, default 0
        Seed; the same seed gives the same data set.

    Returns
    -------
    MultiLabelDataset
        ``X`` dense float64 holding integer codes (all features ``"nominal"``, with
        ``categories[j] = ["0", ..., str(k_j - 1)]``), ``Y`` uint8 with every label
        both present and absent, ``name="synthetic"``.
    """
    n_samples = _check_int(n_samples, "n_samples", 2)
    n_features = _check_int(n_features, "n_features", 1)
    n_labels = _check_int(n_labels, "n_labels", 1)
    if n_informative is None:
        n_informative = min(n_features, max(n_labels, n_features // 6))
    n_informative = _check_int(n_informative, "n_informative", 0)
    if n_redundant is None:
        n_redundant = min(n_informative // 2, n_features - min(n_informative, n_features))
    n_redundant = _check_int(n_redundant, "n_redundant", 0)
    if n_informative + n_redundant > n_features:
        raise ValueError(
            f"n_informative + n_redundant = {n_informative + n_redundant} exceeds "
            f"n_features = {n_features}"
        )
    if n_redundant and not n_informative:
        raise ValueError("redundant features need at least one informative feature")
    if not 0.0 <= float(noise) <= 1.0:
        raise ValueError(f"noise must lie in [0, 1]; got {noise!r}")
    rng = check_random_state(random_state)

    # The informative features as the labels see them (before measurement noise).
    n_values_inf = rng.randint(3, 5, n_informative)
    clean = [rng.randint(0, k, n_samples) for k in n_values_inf]
    # Each informative feature drives two labels; a per-value score spread evenly over
    # [-1, 1] (permuted) guarantees that every informative feature matters.
    score = 0.5 * rng.standard_normal((n_samples, n_labels))
    for i in range(n_informative):
        a = i % n_labels
        targets = [a]
        if n_labels > 1:
            targets.append((a + 1 + rng.randint(n_labels - 1)) % n_labels)
        for lab in targets:
            effect = rng.permutation(np.linspace(-1.0, 1.0, n_values_inf[i]))
            score[:, lab] += 1.5 * effect[clean[i]]
    # Thresholds at quantiles so every label has its drawn prevalence.
    prevalence = rng.uniform(0.15, 0.45, n_labels)
    thresholds = np.array([np.quantile(score[:, j], 1 - prevalence[j]) for j in range(n_labels)])
    Y = (score > thresholds).astype(np.uint8)
    for j in range(n_labels):  # guard against ties at tiny n
        if Y[:, j].min() == Y[:, j].max():
            Y[rng.choice(n_samples), j] ^= 1

    cols: list[np.ndarray] = []
    names: list[str] = []
    n_values: list[int] = []

    def randomise(code: np.ndarray, k: int, p: float) -> np.ndarray:
        flip = rng.random_sample(n_samples) < p
        out = code.copy()
        out[flip] = rng.randint(0, k, int(flip.sum()))
        return out

    informative = []
    for i in range(n_informative):
        k = int(n_values_inf[i])
        code = randomise(clean[i], k, float(noise))
        informative.append((code, k))
        cols.append(code)
        names.append(f"inf_{i}")
        n_values.append(k)
    for i in range(n_redundant):
        src, k = informative[i % n_informative]
        perm = rng.permutation(k)
        cols.append(randomise(perm[src], k, float(noise) / 2))
        names.append(f"red_{i}")
        n_values.append(k)
    for i in range(n_features - n_informative - n_redundant):
        k = rng.randint(2, 5)
        p = rng.dirichlet(np.full(k, 2.0))
        cols.append(rng.choice(k, size=n_samples, p=p))
        names.append(f"noise_{i}")
        n_values.append(k)

    X = np.column_stack(cols).astype(np.float64)
    order = rng.permutation(n_features) if shuffle else np.arange(n_features)
    X = np.ascontiguousarray(X[:, order])
    names = [names[j] for j in order]
    n_values = [n_values[j] for j in order]
    return MultiLabelDataset(
        X=X,
        Y=Y,
        feature_names=names,
        label_names=[f"label_{j}" for j in range(n_labels)],
        feature_types=["nominal"] * n_features,
        categories=[[str(v) for v in range(k)] for k in n_values],
        name="synthetic",
        source=None,
    )
