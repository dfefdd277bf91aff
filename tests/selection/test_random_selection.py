"""RandomSelection: a seeded, uniformly random subset; budgets are prefixes."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone

from skmlfs.selection import RandomSelection


def _data(n=40, d=30, q=3, seed=0):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 3, (n, d)), rng.integers(0, 2, (n, q))


def test_seeded_and_prefix_consistent():
    X, Y = _data()
    a = RandomSelection(10, random_state=3).fit(X, Y)
    b = RandomSelection(10, random_state=3).fit(X, Y)
    assert np.array_equal(a.selection_order_, b.selection_order_)
    assert sorted(a.selection_order_) == list(range(30))  # a permutation of every feature
    assert np.array_equal(a.selection_order_, np.argsort(-a.scores_, kind="stable"))
    small = clone(a).set_params(n_features_to_select=4).fit(X, Y)
    assert np.array_equal(np.flatnonzero(small.get_support()), np.sort(a.selection_order_[:4]))
    a.set_params(n_features_to_select=4)  # no refit needed for a smaller budget
    assert np.array_equal(a.get_support(), small.get_support())
    assert not np.array_equal(
        RandomSelection(10, random_state=4).fit(X, Y).selection_order_, b.selection_order_)


def test_uniform_over_features():
    # each feature is in a random 5-subset of 10 with probability 1/2
    X, Y = _data(d=10)
    hits = np.zeros(10)
    for s in range(400):
        hits += RandomSelection(5, random_state=s).fit(X, Y).get_support()
    assert np.all(np.abs(hits / 400 - 0.5) < 0.1)


def test_bad_input_is_refused():
    X, Y = _data()
    with pytest.raises(ValueError, match="NaN|nan"):
        RandomSelection(3).fit(np.where(X == 0, np.nan, X), Y)
    with pytest.raises(ValueError):
        RandomSelection(3).fit(X, Y[:5])
