"""Selection stability: Nogueira et al. (2018) and Kuncheva (2007) against the definitions."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.stats import norm

from skmlfs.metrics import (
    kuncheva_index,
    nogueira_stability,
    selection_matrix,
)


def _ref_nogueira(Z, alpha=0.05):
    """Definition 4 and Theorem 9 written out feature by feature and run by run."""
    Z = np.asarray(Z, dtype=float)
    M, d = Z.shape
    p = [sum(Z[i, f] for i in range(M)) / M for f in range(d)]
    kbar = sum(p)
    s2 = [M / (M - 1) * p[f] * (1 - p[f]) for f in range(d)]
    denom = (kbar / d) * (1 - kbar / d)
    stab = 1 - (sum(s2) / d) / denom
    phis = []
    for i in range(M):
        ki = sum(Z[i])
        first = sum(Z[i, f] * p[f] for f in range(d)) / d
        phis.append(
            (first - ki * kbar / d**2 + stab / 2 * (2 * ki * kbar / d**2 - ki / d - kbar / d + 1))
            / denom
        )
    mean_phi = sum(phis) / M
    var = 4 / M**2 * sum((ph - mean_phi) ** 2 for ph in phis)
    z = norm.ppf(1 - alpha / 2)
    return stab, var, stab - z * var**0.5, stab + z * var**0.5


def _ref_kuncheva(Z):
    Z = np.asarray(Z, dtype=int)
    M, d = Z.shape
    vals = []
    for a, b in itertools.combinations(range(M), 2):
        k = Z[a].sum()
        r = int(np.sum(Z[a] & Z[b]))
        vals.append((r * d - k * k) / (k * (d - k)))
    return sum(vals) / len(vals)


def test_hand_worked_two_subsets():
    # d = 4, A = {0, 1}, B = {0, 2}: p = (1, .5, .5, 0), k̄ = 2, mean p(1-p) = 1/8,
    # Φ̂ = 1 - 2·(1/8) / (1/2·1/2) = 0; Kuncheva: r = 1, (1·4 - 4) / (2·2) = 0.
    Z = selection_matrix([[0, 1], [0, 2]], 4)
    assert Z.tolist() == [[1, 1, 0, 0], [1, 0, 1, 0]]
    assert nogueira_stability(Z).stability == pytest.approx(0.0, abs=1e-15)
    assert kuncheva_index(Z) == pytest.approx(0.0, abs=1e-15)
    # d = 4, A = {0}, B = {1}: disjoint singletons, p = (.5, .5, 0, 0), k̄ = 1,
    # Φ̂ = 1 - 2·(1/8) / (1/4·3/4) = -1/3; Kuncheva: (0 - 1) / (1·3) = -1/3.
    Z = selection_matrix([[0], [1]], 4)
    assert nogueira_stability(Z).stability == pytest.approx(-1 / 3)
    assert kuncheva_index(Z) == pytest.approx(-1 / 3)


def test_identical_subsets_are_perfectly_stable():
    Z = selection_matrix([[3, 1, 4]] * 5, 10)
    est = nogueira_stability(Z)
    assert est.stability == pytest.approx(1.0)
    assert est.variance == pytest.approx(0.0, abs=1e-15)
    assert est.lower == pytest.approx(1.0) and est.upper == pytest.approx(1.0)
    assert kuncheva_index(Z) == pytest.approx(1.0)


@pytest.mark.parametrize("seed", range(6))
def test_matches_definitions_on_random_subsets(seed):
    rng = np.random.default_rng(seed)
    M, d = int(rng.integers(2, 12)), int(rng.integers(3, 40))
    Z = (rng.random((M, d)) < rng.uniform(0.1, 0.6)).astype(int)
    Z[0, 0], Z[1, -1] = 1, 0  # k̄ strictly between 0 and d
    got = nogueira_stability(Z, alpha=0.1)
    assert np.allclose(got, _ref_nogueira(Z, alpha=0.1), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("seed", range(6))
def test_kuncheva_matches_pairs_and_equals_phi_at_fixed_size(seed):
    rng = np.random.default_rng(100 + seed)
    M, d = int(rng.integers(2, 10)), int(rng.integers(4, 50))
    k = int(rng.integers(1, d))
    Z = selection_matrix([rng.choice(d, k, replace=False) for _ in range(M)], d)
    assert kuncheva_index(Z) == pytest.approx(_ref_kuncheva(Z), rel=1e-12, abs=1e-14)
    assert kuncheva_index(Z) == pytest.approx(nogueira_stability(Z).stability, abs=1e-12)


def test_masks_booleans_and_indices_agree():
    masks = [np.array([True, False, True, False]), np.array([True, True, False, False])]
    Z1 = selection_matrix(masks, 4)
    Z2 = selection_matrix([[0, 2], [0, 1]], 4)
    assert np.array_equal(Z1, Z2)
    assert nogueira_stability(np.array(masks)) == nogueira_stability(Z2)


def test_undefined_and_bad_inputs():
    nan_est = nogueira_stability(np.ones((3, 5)))
    assert all(np.isnan(v) for v in nan_est)
    assert np.isnan(kuncheva_index(np.zeros((3, 5))))
    with pytest.raises(ValueError, match="at least 2 runs"):
        nogueira_stability(np.ones((1, 5)))
    with pytest.raises(ValueError, match="only 0 and 1"):
        nogueira_stability(np.array([[0, 2], [1, 0]]))
    with pytest.raises(ValueError, match="one size"):
        kuncheva_index(selection_matrix([[0], [0, 1]], 3))
    with pytest.raises(ValueError, match="outside 0..2"):
        selection_matrix([[0, 3]], 3)
    with pytest.raises(ValueError, match="more than once"):
        selection_matrix([[1, 1]], 3)
    with pytest.raises(ValueError, match="alpha"):
        nogueira_stability(np.eye(3), alpha=1.5)


def test_interval_covers_with_the_right_width():
    rng = np.random.default_rng(7)
    Z = (rng.random((10, 30)) < 0.3).astype(int)
    est = nogueira_stability(Z, alpha=0.05)
    half = norm.ppf(0.975) * np.sqrt(est.variance)
    assert est.lower == pytest.approx(est.stability - half)
    assert est.upper == pytest.approx(est.stability + half)
    assert nogueira_stability(Z, alpha=0.5).upper < est.upper


def test_sparse_selection_matrix_gives_the_same_values():
    rng = np.random.default_rng(11)
    subsets = [rng.choice(300, 12, replace=False) for _ in range(9)]
    dense = selection_matrix(subsets, 300)
    sparse = selection_matrix(subsets, 300, sparse=True)
    assert sparse.format == "csr" and np.array_equal(sparse.toarray(), dense)
    assert nogueira_stability(sparse) == pytest.approx(nogueira_stability(dense))
    assert kuncheva_index(sparse) == pytest.approx(kuncheva_index(dense))
    with pytest.raises(ValueError, match="only 0 and 1"):
        nogueira_stability(sparse * 2)
