"""ReliefF-ML (Reyes, Morell & Ventura 2013) and PPT+ReliefF.

Hand-worked Eq. (6) updates, and agreement with straightforward loop implementations of
Algorithm 1 / classic ReliefF written here (same seed → same sampled instances → same
weights).
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.pipeline import make_pipeline

from skmlfs.selection import PPTReliefF, ReliefFML
from skmlfs.selection._ppt import pruned_problem_transformation
from skmlfs.selection._relieff import relieff_ml_sample_size

# --------------------------------------------------------------------------- references


def delta_rows(x, X, rng, cat=None):
    """δ_f(x, X_j) for every row j: HEOM differences (docs/methods/lazy.md#heom)."""
    D = np.abs(X - x)
    safe = np.where(rng > 0, rng, 1.0)
    D = np.where(rng > 0, D / safe, 0.0)
    if cat is not None and cat.any():
        D[:, cat] = (X[:, cat] != x[cat]).astype(float)
    D[np.isnan(X) | np.isnan(x)] = 1.0
    return D


def loop_relieff_ml(X, Y, samples, k, s=1.0, cat=None):
    """Algorithm 1 with Eqs. (1)–(6), one sampled instance, label and neighbour at a time."""
    n, d = X.shape
    q = Y.shape[1]
    m = len(samples)
    with np.errstate(all="ignore"):
        rng = np.nanmax(X, 0) - np.nanmin(X, 0)
    rng = np.where(np.isfinite(rng), rng, 0.0)
    P = (Y.sum(0) + s) / (n + 2 * s)  # Eq. (1)
    W = np.zeros(d)
    for i in samples:
        dl = delta_rows(X[i], X, rng, cat)
        dist = np.sqrt((dl**2).sum(1))  # Eqs. (3)-(4)
        order = [j for j in np.argsort(dist, kind="stable") if j != i]
        rel = np.flatnonzero(Y[i])
        irr = np.flatnonzero(Y[i] == 0)
        for l in range(q):
            G = [j for j in order if Y[j, l] == 1][:k]
            if not G:
                continue
            PG = sum(np.sum(Y[i] != Y[j]) / q for j in G) / len(G)  # Eqs. (2), (5)
            if Y[i, l]:
                factor = -P[l] / P[rel].sum() * (1 - PG) / (1 + PG)
            else:
                factor = P[l] / P[irr].sum() * PG
            for j in G:
                W += factor * dl[j] / (m * len(G))  # Eq. (6)
    return W


def loop_ppt_relieff(X, Y, k, min_support=6, cat=None):
    """Classic ReliefF (Kononenko 1994; every instance once) on the PPT problem."""
    rows, cls = pruned_problem_transformation(Y, min_support)
    Xr = X[rows]
    n, d = Xr.shape
    rng = np.nanmax(Xr, 0) - np.nanmin(Xr, 0)
    prior = np.bincount(cls) / n
    W = np.zeros(d)
    for t in range(n):
        dl = delta_rows(Xr[t], Xr, rng, cat)
        order = [j for j in np.argsort(dl.sum(1), kind="stable") if j != t]
        for C in range(cls.max() + 1):
            G = [j for j in order if cls[j] == C][:k]
            if not G:
                continue
            diff = sum(dl[j] for j in G) / (n * len(G))
            if C == cls[t]:
                W -= diff
            else:
                W += prior[C] / (1 - prior[cls[t]]) * diff
    return W


def _data(seed, n=70, d=6, q=4, binary=False, nan=0.0):
    rng = np.random.default_rng(seed)
    X = (rng.random((n, d)) < 0.3).astype(float) if binary else rng.normal(size=(n, d))
    if nan:
        X[rng.random(X.shape) < nan] = np.nan
    Y = (rng.random((n, q)) < 0.35).astype(np.uint8)
    return X, Y


# --------------------------------------------------------------------------- hand-worked


def test_eq6_hand_worked_two_samples():
    # Features: f1 numeric (range 4), f2 binary. Labels: i0 {l0}, i1 {l0,l1}, i2 {l1}, i3 {}.
    X = np.array([[0.0, 0.0], [1.0, 0.0], [4.0, 1.0], [2.0, 1.0]])
    Y = np.array([[1, 0], [1, 1], [0, 1], [0, 0]])
    # P_l = (2 + 1)/(4 + 2) = 1/2 for both labels.
    # Sample i0 (k = 1): Hit for l0 = i1 (d_L = 1/2 → factor 1·(1/2)/(3/2) = 1/3),
    #   Miss for l1 = i1 (closer than i2; P_M = 1/2, factor 1·1/2); δ(i0, i1) = [1/4, 0]
    #   → W += −1/3·[1/4, 0] + 1/2·[1/4, 0] = [1/24, 0].
    # Sample i3 (no relevant label, Σ_irr P = 1): Miss for l0 = i1 (d² = 1/16 + 1 <
    #   i0's 1/4 + 1; d_L = 1 → P_M = 1, factor 1/2), δ(i3, i1) = [1/4, 1] → [1/8, 1/2];
    #   Miss for l1 = i2 (d² = 1/4; d_L = 1/2 → P_M = 1/2, factor 1/4), δ = [1/2, 0]
    #   → [1/8, 0]. Total [1/4, 1/2].
    # m = 2: W = ([1/24, 0] + [1/4, 1/2]) / 2 = [7/48, 1/4]; scaled → [0, 1].
    sel = ReliefFML(k=1, m=2, random_state=0).fit(X, Y)
    np.testing.assert_array_equal(sel.sample_indices_, [0, 3])
    np.testing.assert_allclose(sel.priors_, [0.5, 0.5])
    np.testing.assert_allclose(sel.raw_weights_, [7 / 48, 1 / 4], atol=1e-15)
    np.testing.assert_allclose(sel.weights_, [0.0, 1.0])
    np.testing.assert_array_equal(sel.selection_order_, [1, 0])


def test_eq6_hand_worked_fewer_candidates_than_k():
    # Same data, k = 2, one sample i0. l0 has a single other positive (i1) → k_used = 1,
    # as for k = 1: −1/3·[1/4, 0]. l1: Misses {i1, i2}, P_M = (1/2 + 1)/2 = 3/4, factor
    # 3/4, δ sum = [1/4, 0] + [1, 1], divided by m·k_used = 2 → 3/8·[5/4, 1].
    X = np.array([[0.0, 0.0], [1.0, 0.0], [4.0, 1.0], [2.0, 1.0]])
    Y = np.array([[1, 0], [1, 1], [0, 1], [0, 0]])
    rs = next(r for r in range(1000) if np.random.RandomState(r).randint(0, 4, 1)[0] == 0)
    sel = ReliefFML(k=2, m=1, random_state=rs).fit(X, Y)
    np.testing.assert_array_equal(sel.sample_indices_, [0])
    expected = -1 / 3 * np.array([1 / 4, 0]) + 3 / 8 * np.array([5 / 4, 1])
    np.testing.assert_allclose(sel.raw_weights_, expected, atol=1e-15)


def test_ppt_relieff_hand_worked():
    # One label: classes {1} = rows 0,1 and {0} = rows 2,3; f1 range 4, f2 constant.
    # k = 1, all four instances: hits each −1/4; misses 3/4, 1/2, 1/2, 3/4 (factor
    # P(C)/(1−P(c)) = 1) → Σ = 1.5, divided by m·k = 4 → 3/8. Constant f2 → 0.
    X = np.array([[0.0, 5.0], [1.0, 5.0], [3.0, 5.0], [4.0, 5.0]])
    Y = np.array([[1], [1], [0], [0]])
    sel = PPTReliefF(k=1, min_support=1, n_features_to_select=1).fit(X, Y)
    np.testing.assert_allclose(sel.weights_, [3 / 8, 0.0], atol=1e-15)
    np.testing.assert_array_equal(sel.get_support(), [True, False])


def test_sample_size_rule():
    assert relieff_ml_sample_size(593) == 59
    assert relieff_ml_sample_size(5000) == 500
    assert relieff_ml_sample_size(5001) == 250
    assert relieff_ml_sample_size(10000) == 500
    assert relieff_ml_sample_size(10001) == 100
    assert relieff_ml_sample_size(3) == 1
    X, Y = _data(0, n=120)
    assert ReliefFML(random_state=0).fit(X, Y).sample_indices_.size == 12


# --------------------------------------------------------------------------- vs loops


@pytest.mark.parametrize(
    "binary,nan,nominal", [(False, 0.0, False), (False, 0.08, True), (True, 0.0, False)]
)
@pytest.mark.parametrize("k", [1, 4])
def test_relieff_ml_matches_loop(binary, nan, nominal, k):
    X, Y = _data(1, binary=binary, nan=nan)
    Y[:, 3] = 0
    Y[:2, 3] = 1  # a rare label: fewer candidates than k
    Y[5] = 0  # an instance without labels
    Y[6] = 1  # ... and one with all labels
    cat = None
    if nominal:
        X[:, 2] = np.random.default_rng(2).integers(0, 3, len(X))
        cat = np.zeros(X.shape[1], bool)
        cat[2] = True
    sel = ReliefFML(k=k, m=30, random_state=7, categorical_features=cat).fit(X, Y)
    ref = loop_relieff_ml(X, Y, sel.sample_indices_, k, cat=cat)
    np.testing.assert_allclose(sel.raw_weights_, ref, atol=1e-10, rtol=0)
    assert np.abs(ref).max() > 1e-3  # a non-trivial comparison
    lo, hi = ref.min(), ref.max()
    np.testing.assert_allclose(sel.weights_, (ref - lo) / (hi - lo), atol=1e-10)


def test_relieff_ml_smoothing_and_block_size(monkeypatch):
    from skmlfs.selection import _relieff

    X, Y = _data(3)
    a = ReliefFML(k=3, m=25, s=0.5, random_state=1).fit(X, Y)
    monkeypatch.setattr(_relieff, "_PAIR_CHUNK_ENTRIES", 7)  # many chunks of pairs
    b = ReliefFML(k=3, m=25, s=0.5, random_state=1).fit(X, Y)
    ref = loop_relieff_ml(X, Y, a.sample_indices_, 3, s=0.5)
    np.testing.assert_allclose(a.raw_weights_, ref, atol=1e-12)
    np.testing.assert_allclose(b.raw_weights_, ref, atol=1e-12)


def test_relieff_ml_sparse_equals_dense():
    X, Y = _data(4, n=90, d=15, binary=True)
    X[:, 3] *= 2.5  # non-binary values in a sparse column
    a = ReliefFML(k=5, m=40, random_state=3).fit(X, Y)
    b = ReliefFML(k=5, m=40, random_state=3).fit(sp.csr_matrix(X), Y)
    np.testing.assert_allclose(a.raw_weights_, b.raw_weights_, atol=1e-12)
    np.testing.assert_array_equal(a.selection_order_, b.selection_order_)


@pytest.mark.parametrize("binary", [False, True])
def test_ppt_relieff_matches_loop(binary):
    X, Y = _data(5, n=80, q=2, binary=binary)
    sel = PPTReliefF(k=3, min_support=4).fit(X, Y)
    ref = loop_ppt_relieff(X, Y, 3, min_support=4)
    np.testing.assert_allclose(sel.weights_, ref, atol=1e-12)
    assert np.abs(ref).max() > 1e-3
    b = PPTReliefF(k=3, min_support=4).fit(sp.csr_matrix(X), Y)
    np.testing.assert_allclose(b.weights_, ref, atol=1e-12)


def test_ppt_relieff_reintroduce_and_sampling():
    X, Y = _data(6, n=80, q=3)
    full = PPTReliefF(k=3, min_support=5, strategy="reintroduce").fit(X, Y)
    assert full.rows_ppt_.size >= np.unique(full.rows_ppt_).size
    sub = PPTReliefF(k=3, m=20, random_state=0).fit(X, Y)
    assert np.all(np.isfinite(sub.weights_)) and sub.weights_.shape == (6,)
    with pytest.raises(ValueError, match="strategy"):
        PPTReliefF(strategy="bogus").fit(X, Y)


# --------------------------------------------------------------------------- selector API


@pytest.mark.parametrize("Est", [ReliefFML, PPTReliefF])
def test_selector_api(Est):
    X, Y = _data(7, n=50, d=9)
    X0, Y0 = X.copy(), Y.copy()
    sel = Est(k=3, random_state=0).fit(X, Y)
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(Y, Y0)
    assert sel.n_features_to_select_ == int(np.ceil(np.sqrt(50)))  # ⌈√n⌉ = 8
    assert sel.transform(X).shape == (50, 8)
    np.testing.assert_array_equal(np.sort(sel.selection_order_), np.arange(9))
    assert np.all(np.diff(sel.weights_[sel.selection_order_]) <= 0)
    np.testing.assert_array_equal(sel.scores_, sel.weights_)
    support = sel.get_support()
    assert set(np.flatnonzero(support)) == set(sel.selection_order_[:8])
    sel3 = Est(n_features_to_select=3, k=3, random_state=0).fit(sp.csr_matrix(X), Y)
    assert sp.issparse(sel3.transform(sp.csr_matrix(X)))
    c = clone(sel3)
    assert c.get_params() == sel3.get_params() and not hasattr(c, "weights_")
    # Same seed, same result; in a pipeline.
    again = clone(sel).fit(X, Y)
    np.testing.assert_array_equal(again.weights_, sel.weights_)
    from skmlfs.learners import MLkNN

    pipe = make_pipeline(Est(n_features_to_select=4, k=3, random_state=0), MLkNN(k=3))
    assert pipe.fit(X, Y).predict(X).shape == Y.shape


def test_weights_scaled_and_validation():
    X, Y = _data(8)
    sel = ReliefFML(k=3, random_state=0).fit(X, Y)
    assert sel.weights_.min() == 0.0 and sel.weights_.max() == 1.0
    with pytest.raises(ValueError, match="'k' parameter of ReliefFML must"):
        ReliefFML(k=0).fit(X, Y)
    with pytest.raises(ValueError, match="'m' parameter of ReliefFML must"):
        ReliefFML(m=0).fit(X, Y)
    # Smoothing s: a non-negative number, not a bool (as the lazy learners' s).
    for bad in (True, False, -1.0, float("nan"), "1"):
        with pytest.raises(ValueError, match="'s' parameter of ReliefFML must"):
            ReliefFML(s=bad).fit(X, Y)
    np.testing.assert_array_equal(
        ReliefFML(k=3, s=1, random_state=0).fit(X, Y).weights_, sel.weights_
    )
    with pytest.raises(ValueError, match="2-D"):
        ReliefFML().fit(X, Y[:, 0])
    # Constant weights (every feature identical) → all zeros, not NaN.
    Xc = np.tile(X[:, :1], (1, 3))
    np.testing.assert_array_equal(ReliefFML(k=3, random_state=0).fit(Xc, Y).weights_, 0.0)


# --------------------------------------------------------------------------- real data


def test_relieff_ml_emotions_matches_loop(dataset_path):
    from skmlfs.datasets import load

    ds = load(dataset_path("mulan/emotions/emotions.arff"))
    X, Y = np.asarray(ds.X), ds.Y
    sel = ReliefFML(k=10, m=15, random_state=0).fit(X, Y)
    ref = loop_relieff_ml(X, Y, sel.sample_indices_, 10)
    np.testing.assert_allclose(sel.raw_weights_, ref, atol=1e-10, rtol=0)


def test_relieff_ml_medical_sparse_dense_and_loop(dataset_path):
    from skmlfs.datasets import load

    ds = load(dataset_path("mulan/medical/medical.arff"))
    X = sp.csr_matrix(ds.X)
    sel = ReliefFML(k=10, random_state=0).fit(X, ds.Y)
    assert sel.sample_indices_.size == 98  # 10 % of 978
    dense = ReliefFML(k=10, random_state=0).fit(X.toarray(), ds.Y)
    np.testing.assert_allclose(sel.raw_weights_, dense.raw_weights_, atol=1e-12)
    sub = sel.sample_indices_[:12]
    small = ReliefFML(k=10, m=12, random_state=0).fit(X, ds.Y)
    np.testing.assert_array_equal(small.sample_indices_, sub)
    ref = loop_relieff_ml(X.toarray(), ds.Y, sub, 10)
    np.testing.assert_allclose(small.raw_weights_, ref, atol=1e-10, rtol=0)
