"""HEOM distances and the lazy learners ML-kNN, DML-kNN, MLC-WkNN.

References written here: a per-pair HEOM loop, straightforward per-sample loops of the three
learners (as in Zhang's code / Mulan's Java), an exhaustive solver of the simplex QP, and
scikit-multilearn's ``MLkNN`` on real data.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone

from skmlfs.learners import DMLkNN, MLCWkNN, MLkNN
from skmlfs.learners._lazy import _simplex_qp
from skmlfs.neighbors import (
    HEOM,
    heom_distances,
    heom_kneighbors_graph,
    stable_smallest,
)

# --------------------------------------------------------------------------- references


def naive_heom(A, B, ref, cat=None, w=None, p=2, normalize=True):
    """Σ_f w_f δ_f^p pair by pair (docs/methods/lazy.md#heom), ranges from ``ref``."""
    d = A.shape[1]
    cat = np.zeros(d, bool) if cat is None else cat
    w = np.ones(d) if w is None else w
    with np.errstate(all="ignore"):
        rng = np.nanmax(ref, 0) - np.nanmin(ref, 0)
    out = np.zeros((len(A), len(B)))
    for i in range(len(A)):
        for j in range(len(B)):
            tot = 0.0
            for f in range(d):
                a, b = A[i, f], B[j, f]
                if np.isnan(a) or np.isnan(b):
                    dl = 1.0
                elif cat[f]:
                    dl = float(a != b)
                elif not normalize:
                    dl = abs(a - b)
                else:
                    dl = abs(a - b) / rng[f] if rng[f] > 0 else 0.0
                tot += w[f] * dl**p
            out[i, j] = tot
    return out


def naive_neighbours(D, k, exclude_self=False):
    D = D.copy()
    if exclude_self:
        np.fill_diagonal(D, np.inf)
    return np.argsort(D, axis=1, kind="stable")[:, :k]


def naive_mlknn(Xtr, Ytr, Xte, k, s=1.0, w=None, normalize=True):
    n, q = Ytr.shape
    Dtr = naive_heom(Xtr, Xtr, Xtr, w=w, normalize=normalize)
    Dte = naive_heom(Xte, Xtr, Xtr, w=w, normalize=normalize)
    ntr = naive_neighbours(Dtr, k, True)
    nte = naive_neighbours(Dte, k)
    prior = np.array([(s + Ytr[:, l].sum()) / (2 * s + n) for l in range(q)])
    c1 = np.zeros((q, k + 1))
    c0 = np.zeros((q, k + 1))
    for i in range(n):
        for l in range(q):
            delta = int(sum(Ytr[j, l] for j in ntr[i]))
            if Ytr[i, l]:
                c1[l, delta] += 1
            else:
                c0[l, delta] += 1
    proba = np.zeros((len(Xte), q))
    pred = np.zeros((len(Xte), q), int)
    for t in range(len(Xte)):
        for l in range(q):
            delta = int(sum(Ytr[j, l] for j in nte[t]))
            e1 = (s + c1[l, delta]) / (s * (k + 1) + c1[l].sum())
            e0 = (s + c0[l, delta]) / (s * (k + 1) + c0[l].sum())
            a, b = prior[l] * e1, (1 - prior[l]) * e0
            proba[t, l] = a / (a + b)
            pred[t, l] = int(a >= b)
    return proba, pred


def naive_dmlknn(Xtr, Ytr, Xte, k, s=1.0, delta=6):
    """Transcription of the loops of Mulan's DMLkNN.java (docs/methods/lazy.md#dml-knn)."""
    Ytr = Ytr.astype(int)
    n, q = Ytr.shape
    ntr = naive_neighbours(naive_heom(Xtr, Xtr, Xtr), k, True)
    nte = naive_neighbours(naive_heom(Xte, Xtr, Xtr), k)
    C = Ytr.sum(0)
    prior = (s + C) / (2 * s + n)
    Ci = np.array([[Ytr[ntr[i], l].sum() for l in range(q)] for i in range(n)])
    proba = np.zeros((len(Xte), q))
    pred = np.zeros((len(Xte), q), int)
    for t in range(len(Xte)):
        Ct = [Ytr[nte[t], l].sum() for l in range(q)]
        V = np.zeros(q)
        NV = np.zeros(q)
        for i in range(n):
            if all(Ct[l] - delta <= Ci[i][l] <= Ct[l] + delta for l in range(q)):
                for l in range(q):
                    if Ci[i][l] == Ct[l]:
                        if Ytr[i, l]:
                            V[l] += 1
                        else:
                            NV[l] += 1
        for l in range(q):
            a = prior[l] * (s + V[l]) / (s * q + C[l])
            b = (1 - prior[l]) * (s + NV[l]) / (s * q + n - C[l])
            pred[t, l] = int(a >= b)
            proba[t, l] = a if a + b == 0 else a / (a + b)
    return proba, pred


def qp_by_enumeration(G):
    """min wᵀGw on the simplex: best feasible stationary point over all supports."""
    k = G.shape[0]
    best, best_w = np.inf, None
    for r in range(1, k + 1):
        for S in itertools.combinations(range(k), r):
            S = list(S)
            u = np.linalg.solve(G[np.ix_(S, S)], np.ones(r))
            if u.sum() <= 0:
                continue
            wS = u / u.sum()
            if np.any(wS < -1e-12):
                continue
            w = np.zeros(k)
            w[S] = np.maximum(wS, 0)
            val = w @ G @ w
            if val < best - 1e-15:
                best, best_w = val, w
    return best_w


def naive_mlcwknn(Xtr, Ytr, Xte, k, w=None, reg=1e-3):
    """Numeric complete data: Gram of the explicit scaled difference vectors."""
    d = Xtr.shape[1]
    w = np.ones(d) if w is None else w
    rng = Xtr.max(0) - Xtr.min(0)
    scale = np.where(rng > 0, np.sqrt(w) / np.where(rng > 0, rng, 1), 0.0)
    nte = naive_neighbours(naive_heom(Xte, Xtr, Xtr, w=w), k)
    proba = np.zeros((len(Xte), Ytr.shape[1]))
    for t in range(len(Xte)):
        E = (Xte[t] - Xtr[nte[t]]) * scale
        G = E @ E.T
        tr = np.trace(G)
        G = G + (reg * tr / k if tr > 0 else 1.0) * np.eye(k)
        wt = qp_by_enumeration(G)
        proba[t] = wt @ Ytr[nte[t]]
    return proba


def _data(seed=0, n=60, d=5, q=4, binary=False):
    rng = np.random.default_rng(seed)
    if binary:
        X = (rng.random((n, d)) < 0.3).astype(float)
    else:
        X = rng.normal(size=(n, d))
    Y = (rng.random((n, q)) < 0.35).astype(np.uint8)
    return X, Y


# --------------------------------------------------------------------------- HEOM


@pytest.mark.parametrize("p", [1, 2])
def test_heom_matches_naive_with_nominal_missing_weights(p):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 7))
    X[:, 2] = rng.integers(0, 4, 40)
    X[:, 6] = 5.0  # constant feature: δ = 0
    X[rng.random(X.shape) < 0.1] = np.nan
    cat = np.zeros(7, bool)
    cat[2] = True
    w = rng.random(7)
    Xq = rng.normal(size=(9, 7)) * 3  # outside the training range: not clipped
    Xq[:, 2] = rng.integers(0, 6, 9)  # nominal values unseen in training
    Xq[0, :3] = np.nan
    h = HEOM(cat, w, p=p).fit(X)
    ref = naive_heom(Xq, X, X, cat, w, p)
    for A, B in [(Xq, X), (sp.csr_matrix(Xq), sp.csr_matrix(X))]:
        D = h.sq_distances(h.prepare(A), h.prepare(B))
        np.testing.assert_allclose(D, ref, atol=1e-12)


def test_heom_distances_function_and_unweighted_euclidean():
    X, _ = _data(1, n=25, d=6)
    np.testing.assert_allclose(heom_distances(X), np.sqrt(naive_heom(X, X, X)), atol=1e-12)
    h = HEOM(normalize=False).fit(X)
    D = h.sq_distances(h.prepare(X[:5]), h.prepare(X))
    np.testing.assert_allclose(D, ((X[:5, None] - X[None]) ** 2).sum(-1), atol=1e-12)


def test_heom_deltas_dense_sparse_naive():
    rng = np.random.default_rng(4)
    X = (rng.random((30, 6)) < 0.4) * rng.integers(1, 5, (30, 6)).astype(float)
    X[rng.random(X.shape) < 0.05] = np.nan
    cat = np.array([False, True, False, False, True, False])
    h = HEOM(cat).fit(X)
    A, B = X[:15], X[15:]
    full = np.array([naive_heom(A[[r]], B[[r]], X, cat)[0, 0] for r in range(15)])
    dense = h.deltas(A, B)
    sparse = h.deltas(sp.csr_matrix(A), sp.csr_matrix(B)).toarray()
    np.testing.assert_allclose(dense, sparse)
    # Σ_f δ_f² of the deltas is the squared distance of each pair.
    np.testing.assert_allclose((dense**2).sum(1), full, atol=1e-12)


def test_stable_smallest_matches_stable_argsort():
    rng = np.random.default_rng(5)
    for _ in range(200):
        n = int(rng.integers(2, 90))
        k = int(rng.integers(1, n + 1))
        D = rng.integers(0, 4, (6, n)).astype(float)
        np.testing.assert_array_equal(
            stable_smallest(D, k), np.argsort(D, axis=1, kind="stable")[:, :k]
        )


@pytest.mark.parametrize("sparse", [False, True])
def test_kneighbors_in_groups_matches_naive_group_search(sparse, monkeypatch):
    # ReliefF's search: per sampled row (repeats allowed) and per group, the k nearest
    # members by a naive HEOM, itself excluded, ties (binary data) → lower index; small
    # blocks so that several blocks are visited
    from skmlfs.neighbors import _heom

    monkeypatch.setattr(_heom, "_BLOCK_ENTRIES", 3 * 40)
    rng = np.random.default_rng(11)
    X = (rng.random((40, 6)) < 0.4).astype(float)
    rows = rng.integers(0, 40, 13)
    groups = [np.flatnonzero(rng.random(40) < f) for f in (0.5, 0.1, 0.0, 0.8)]
    k = 4
    D = naive_heom(X, X, X)
    h = HEOM().fit(X)
    seen = []
    for block, g, nb, valid in h.kneighbors_in_groups(sp.csr_matrix(X) if sparse else X,
                                                       rows, groups, k):
        members = groups[g]
        for i, r in enumerate(block):
            d = D[r, members].copy()
            d[members == r] = np.inf
            ref = members[np.argsort(d, kind="stable")[:k]]
            np.testing.assert_array_equal(nb[i], ref)
            np.testing.assert_array_equal(valid[i], ref != r)
        seen.append((block.tolist(), g))
    # every sampled row once per non-empty group, in order
    assert [r for b, g in seen if g == 0 for r in b] == rows.tolist()
    assert {g for _, g in seen} == {0, 1, 3}


@pytest.mark.parametrize("density", [0.01, 0.1, 0.5])
def test_gram_panels_bit_identical_to_sparse_product(density, monkeypatch):
    # Dense enough products go through dense column panels of B: the same sums in the
    # same order as scipy's sparse × sparse product, so bit-identical.
    from skmlfs.neighbors import _heom

    monkeypatch.setattr(_heom, "_PANEL_BYTES", 8 * 40 * 37)  # several panels (37 columns)
    rng = np.random.default_rng(7)
    A = sp.random(60, 40, density=density, format="csr", random_state=rng)
    B = sp.random(130, 40, density=density, format="csr", random_state=rng)
    A.data = rng.standard_normal(A.nnz) * 1e3
    B.data = rng.standard_normal(B.nnz) / 7
    G = _heom._gram(A, B)
    assert isinstance(G, np.ndarray) and G.shape == (60, 130)
    np.testing.assert_array_equal(G, (A @ B.T).toarray())
    np.testing.assert_array_equal(_heom._gram(A.toarray(), B), (A @ B.T).toarray())


@pytest.mark.parametrize("binary", [True, False])
def test_kneighbors_self_exclusion_and_ties(binary, monkeypatch):
    from skmlfs.neighbors import _heom

    monkeypatch.setattr(_heom, "_BLOCK_ENTRIES", 700)  # many blocks
    X, _ = _data(6, n=90, d=4, binary=binary)
    X[10] = X[11]  # a duplicate stays a neighbour
    h = HEOM().fit(X)
    P = h.prepare(X)
    d, ind = h.kneighbors(P, P, 6, exclude_self=True)
    D = naive_heom(X, X, X)
    ref = naive_neighbours(D, 6, True)
    np.testing.assert_array_equal(ind, ref)
    np.testing.assert_allclose(d, np.take_along_axis(D, ref, 1), atol=1e-12)
    assert 11 in ind[10] and 10 not in ind[10]


# --------------------------------------------------------------------------- ML-kNN


def test_mlknn_hand_worked():
    # Points on a line, k = 1: neighbours 0↔1, 2→1 (tie 1/3 → lower index), 3→2.
    X = np.array([[0.0], [1.0], [2.0], [4.0]])
    Y = np.array([[1], [1], [0], [0]])
    clf = MLkNN(k=1, metric="euclidean").fit(X, Y)
    # δ: sample 0 → 1 (has label), 1 → 0 (has), 2 → 1 (has), 3 → 2 (no)
    # c1 = [0, 2] (both positives saw δ = 1), c0 = [1, 1]
    np.testing.assert_allclose(clf.cond_true_, [[1 / 4, 3 / 4]])
    np.testing.assert_allclose(clf.cond_false_, [[2 / 4, 2 / 4]])
    np.testing.assert_allclose(clf.prior_true_, [3 / 6])
    # query 0.9: nearest is 1 (δ = 1) → a = .5·.75, b = .5·.5 → ψ = .6
    np.testing.assert_allclose(clf.predict_proba([[0.9]]), [[0.6]])
    # query 3.9: nearest is 3 (δ = 0) → a = .5·.25, b = .5·.5 → ψ = 1/3
    np.testing.assert_allclose(clf.predict_proba([[3.9]]), [[1 / 3]])
    np.testing.assert_array_equal(clf.predict([[0.9], [3.9]]), [[1], [0]])


@pytest.mark.parametrize("binary", [True, False])
@pytest.mark.parametrize("metric", ["heom", "euclidean"])
def test_mlknn_matches_naive(binary, metric):
    X, Y = _data(7, n=70, d=5, binary=binary)
    X[:, 0] *= 10
    Xtr, Ytr, Xte = X[:50], Y[:50], X[50:]
    proba, pred = naive_mlknn(Xtr, Ytr, Xte, 4, normalize=metric == "heom")
    clf = MLkNN(k=4, metric=metric).fit(Xtr, Ytr)
    np.testing.assert_allclose(clf.predict_proba(Xte), proba, atol=1e-12)
    np.testing.assert_array_equal(clf.predict(Xte), pred)


def test_mlknn_weighted_matches_naive_and_scaling():
    X, Y = _data(8, n=60, d=5)
    w = np.array([1.0, 0.2, 0.0, 0.7, 0.5])
    proba, pred = naive_mlknn(X[:40], Y[:40], X[40:], 5, w=w)
    clf = MLkNN(k=5, feature_weights=w).fit(X[:40], Y[:40])
    np.testing.assert_allclose(clf.predict_proba(X[40:]), proba, atol=1e-12)
    # Weighted Euclidean = Euclidean on features scaled by √w.
    a = MLkNN(k=5, metric="euclidean", feature_weights=w).fit(X[:40], Y[:40])
    b = MLkNN(k=5, metric="euclidean").fit(X[:40] * np.sqrt(w), Y[:40])
    np.testing.assert_allclose(a.predict_proba(X[40:]), b.predict_proba(X[40:] * np.sqrt(w)))
    # Unit weights are the unweighted distance.
    c = MLkNN(k=5, feature_weights=np.ones(5)).fit(X[:40], Y[:40])
    d = MLkNN(k=5).fit(X[:40], Y[:40])
    np.testing.assert_array_equal(c.predict_proba(X[40:]), d.predict_proba(X[40:]))


@pytest.mark.parametrize("Est", [MLkNN, DMLkNN, MLCWkNN])
def test_sparse_equals_dense_and_output_types(Est):
    X, Y = _data(9, n=80, d=12, q=5, binary=True)
    # Generic weights: sums of different subsets never tie (an arithmetic progression
    # would create exact ties that rounding then breaks differently in the two paths).
    w = np.random.default_rng(9).uniform(0.1, 1, 12)
    a = Est(k=5, feature_weights=w).fit(X[:60], Y[:60])
    b = Est(k=5, feature_weights=w).fit(sp.csr_matrix(X[:60]), Y[:60])
    pa, pb = a.predict_proba(X[60:]), b.predict_proba(sp.csr_matrix(X[60:]))
    np.testing.assert_allclose(pa, pb, atol=1e-12)
    yp = a.predict(X[60:])
    assert isinstance(pa, np.ndarray) and pa.dtype == float and pa.shape == (20, 5)
    assert isinstance(yp, np.ndarray) and yp.dtype.kind == "i" and yp.shape == (20, 5)
    assert np.all((pa >= 0) & (pa <= 1))
    np.testing.assert_array_equal(yp, b.predict(sp.csr_matrix(X[60:])))


@pytest.mark.parametrize("Est", [MLkNN, DMLkNN, MLCWkNN])
def test_clone_params_and_validation(Est):
    est = Est(k=3, feature_weights=np.ones(4))
    c = clone(est)
    assert c.get_params()["k"] == 3 and c is not est
    X, Y = _data(10, n=20, d=4)
    Y0 = Y.copy()
    X0 = X.copy()
    Est(k=3).fit(X, Y).predict(X)
    np.testing.assert_array_equal(X, X0)  # inputs never modified
    np.testing.assert_array_equal(Y, Y0)
    with pytest.raises(ValueError, match="k=20"):
        Est(k=20).fit(X, Y)
    with pytest.raises(ValueError, match="metric"):
        Est(metric="cosine").fit(X, Y)
    with pytest.raises(ValueError, match="feature_weights"):
        Est(feature_weights=np.ones(3)).fit(X, Y)
    with pytest.raises(ValueError, match="2-D"):
        Est().fit(X, Y[:, 0])
    Xi = X.copy()
    Xi[0, 0] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        Est(k=3).fit(Xi, Y)
    Xn = X.copy()
    Xn[0, 0] = np.nan  # missing values are allowed (HEOM δ = 1)
    assert Est(k=3).fit(Xn, Y).predict(Xn).shape == Y.shape


@pytest.mark.parametrize("Est", [MLkNN, DMLkNN, MLCWkNN])
def test_precomputed_distances_equal_heom_path(Est):
    X, Y = _data(14, n=70, d=5)
    w = np.random.default_rng(14).uniform(0.1, 1, 5)
    a = Est(k=5, feature_weights=w).fit(X[:50], Y[:50])
    Dtr = heom_distances(X[:50], feature_weights=w)
    Dte = heom_distances(X[50:], X[:50], feature_weights=w, ranges_from=X[:50])
    b = Est(k=5, metric="precomputed").fit(Dtr, Y[:50])
    np.testing.assert_allclose(b.predict_proba(Dte), a.predict_proba(X[50:]), atol=1e-9)
    np.testing.assert_array_equal(b.kneighbors()[1], a.kneighbors()[1])
    with pytest.raises(ValueError, match="square"):
        Est(k=5, metric="precomputed").fit(Dte, Y[50:])
    with pytest.raises(ValueError, match="do not apply"):
        Est(k=5, metric="precomputed", feature_weights=w).fit(Dtr, Y[:50])


def _tied_binary(seed, n=120, d=8):
    """Binary data with duplicated rows: many exactly tied distances."""
    X, Y = _data(seed, n=n, d=d, q=5, binary=True)
    X[7] = X[3]
    X[n // 2] = X[3]
    X[n - 20] = X[20]
    return X, Y


@pytest.mark.parametrize("weights", ["none", "dyadic", "generic"])
def test_kneighbors_graph_equals_heom_path_for_every_smaller_k(weights, monkeypatch):
    """One graph built for the largest k gives, for every smaller k, exactly the
    neighbours and outputs of the learners' own metric="heom" search (same tie rule,
    tiled self-search included)."""
    from skmlfs.neighbors import _heom

    monkeypatch.setattr(_heom, "_BLOCK_ENTRIES", 900)  # 30 × 30 tiles
    X, Y = _tied_binary(21)
    rng = np.random.default_rng(21)
    w = {
        "none": None,
        "dyadic": rng.choice([0.25, 0.5, 1.0], X.shape[1]),  # sums of weights tie exactly
        "generic": rng.uniform(0.1, 1, X.shape[1]),
    }[weights]
    tr, te = slice(0, 95), slice(95, None)
    K = 12
    Gtr = heom_kneighbors_graph(X[tr], n_neighbors=K, feature_weights=w)
    Gte = heom_kneighbors_graph(X[te], X[tr], n_neighbors=K, feature_weights=w, ranges_from=X[tr])
    assert Gtr.shape == (95, 95) and np.all(np.diff(Gtr.indptr) == K)
    assert Gte.shape == (25, 95) and Gtr.diagonal().sum() == 0
    assert Gtr.nnz == 95 * K  # zero distances of duplicates are stored
    for k in (1, 4, 9, K):
        for Est in (MLkNN, DMLkNN):
            a = Est(k=k, feature_weights=w).fit(X[tr], Y[tr])
            b = Est(k=k, metric="precomputed").fit(Gtr, Y[tr])
            np.testing.assert_array_equal(b.kneighbors()[1], a.kneighbors()[1])
            np.testing.assert_allclose(b.kneighbors()[0], a.kneighbors()[0], atol=1e-12)
            np.testing.assert_array_equal(b.kneighbors(Gte)[1], a.kneighbors(X[te])[1])
            np.testing.assert_array_equal(b.predict_proba(Gte), a.predict_proba(X[te]))
            np.testing.assert_array_equal(b.predict(Gte), a.predict(X[te]))
    # The neighbours themselves are those of the per-pair reference wherever its order
    # is unambiguous: exactly so with unit weights (integer distances).
    if w is None:
        ref = naive_neighbours(naive_heom(X[tr], X[tr], X[tr]), K, exclude_self=True)
        np.testing.assert_array_equal(Gtr.indices.reshape(95, K), ref)
        # A graph with sorted indices reads the same (ties → lower index).
        c = MLkNN(k=5, metric="precomputed").fit(Gtr.sorted_indices(), Y[tr])
        np.testing.assert_array_equal(c.kneighbors()[1], ref[:, :5])


def test_kneighbors_graph_from_scikit_learn_scaled_columns():
    """Weighted HEOM on numeric features is the Euclidean distance of the columns scaled
    by sqrt(w)/range: scikit-learn's KNeighborsTransformer graph (self included) on the
    scaled data serves the learners like our own graph (continuous data: no ties)."""
    from sklearn.neighbors import KNeighborsTransformer

    X, Y = _data(22, n=110, d=6, q=4)
    w = np.random.default_rng(22).uniform(0.1, 1, 6)
    tr, te = slice(0, 90), slice(90, None)
    scale = np.sqrt(w) / np.ptp(X[tr], axis=0)
    knt = KNeighborsTransformer(mode="distance", n_neighbors=8).fit(X[tr] * scale)
    Gtr = knt.transform(X[tr] * scale)  # 9 entries per row, itself at distance 0
    Gte = knt.transform(X[te] * scale)
    for Est in (MLkNN, DMLkNN):
        a = Est(k=8, feature_weights=w).fit(X[tr], Y[tr])
        b = Est(k=8, metric="precomputed").fit(Gtr, Y[tr])
        np.testing.assert_array_equal(b.kneighbors()[1], a.kneighbors()[1])
        np.testing.assert_allclose(b.kneighbors(Gte)[0], a.kneighbors(X[te])[0], atol=1e-9)
        np.testing.assert_array_equal(b.predict(Gte), a.predict(X[te]))


def test_precomputed_graph_validation():
    X, Y = _tied_binary(23, n=40)
    G = heom_kneighbors_graph(X, n_neighbors=5)
    with pytest.raises(ValueError, match="k=6 are needed"):
        MLkNN(k=6, metric="precomputed").fit(G, Y)
    clf = MLkNN(k=5, metric="precomputed").fit(G, Y)
    Gq = heom_kneighbors_graph(X[:10], X, n_neighbors=4)
    with pytest.raises(ValueError, match="k=5 are needed"):
        clf.predict(Gq)
    bad = G.copy()
    bad.indices[1] = bad.indices[0]  # one neighbour stored twice
    with pytest.raises(ValueError, match="twice"):
        MLkNN(k=3, metric="precomputed").fit(bad, Y)
    neg = G.copy()
    neg.data[0] = -1.0
    with pytest.raises(ValueError, match="non-negative"):
        DMLkNN(k=3, metric="precomputed").fit(neg, Y)
    with pytest.raises(ValueError, match="square"):
        MLkNN(k=3, metric="precomputed").fit(G[:30], Y[:30])
    # The input graph is not modified (stored order, explicit zeros).
    before = (G.data.copy(), G.indices.copy())
    MLkNN(k=5, metric="precomputed").fit(G, Y).predict(G)
    np.testing.assert_array_equal(G.data, before[0])
    np.testing.assert_array_equal(G.indices, before[1])
    # MLC-WkNN needs distances between neighbours: a dense matrix at fit, a graph is
    # enough at predict.
    with pytest.raises(ValueError, match="MLC-WkNN needs"):
        MLCWkNN(k=3, metric="precomputed").fit(G, Y)
    Xc, Yc = _data(24, n=70, d=5)
    D = heom_distances(Xc[:50])
    m = MLCWkNN(k=5, metric="precomputed").fit(D, Yc[:50])
    Dq = heom_distances(Xc[50:], Xc[:50], ranges_from=Xc[:50])
    Gq = heom_kneighbors_graph(Xc[50:], Xc[:50], n_neighbors=7, ranges_from=Xc[:50])
    np.testing.assert_allclose(m.predict_proba(Gq), m.predict_proba(Dq), atol=1e-9)
    with pytest.raises(ValueError, match="n_neighbors"):
        heom_kneighbors_graph(Xc, n_neighbors=0)


# --------------------------------------------------------------------------- DML-kNN


@pytest.mark.parametrize("delta", [0, 1, 6])
def test_dmlknn_matches_mulan_loops(delta):
    X, Y = _data(11, n=70, d=4, q=5)
    proba, pred = naive_dmlknn(X[:50], Y[:50], X[50:], 6, delta=delta)
    clf = DMLkNN(k=6, delta=delta).fit(X[:50], Y[:50])
    np.testing.assert_allclose(clf.predict_proba(X[50:]), proba, atol=1e-12)
    np.testing.assert_array_equal(clf.predict(X[50:]), pred)


# --------------------------------------------------------------------------- MLC-WkNN


def test_simplex_qp_matches_enumeration():
    rng = np.random.default_rng(12)
    Gs = []
    for _ in range(60):
        k = int(rng.integers(2, 7))
        A = rng.normal(size=(k, int(rng.integers(1, 8)))) + rng.normal() * 2
        G = A @ A.T + 1e-3 * np.eye(k)
        Gs.append(np.pad(G, (0, 6 - k)) + np.diag(np.r_[np.zeros(k), 1e6 * np.ones(6 - k)]))
    W = _simplex_qp(np.stack(Gs))
    for G, w in zip(Gs, W, strict=True):
        ref = qp_by_enumeration(G)
        np.testing.assert_allclose(w, ref, atol=1e-9)
        assert abs(w.sum() - 1) < 1e-12 and w.min() >= 0


def test_mlcwknn_matches_naive():
    X, Y = _data(13, n=60, d=3, q=4)
    w = np.array([0.3, 1.0, 0.6])
    for weights in (None, w):
        ref = naive_mlcwknn(X[:45], Y[:45], X[45:], 5, w=weights)
        clf = MLCWkNN(k=5, feature_weights=weights).fit(X[:45], Y[:45])
        np.testing.assert_allclose(clf.predict_proba(X[45:]), ref, atol=1e-9)
        np.testing.assert_array_equal(clf.predict(X[45:]), (ref >= 0.5).astype(int))


def test_mlcwknn_reconstructs_exact_convex_combination():
    # x = 0.25·x_a + 0.75·x_b of two training points → those weights, label mix follows.
    Xtr = np.array([[0.0, 0.0], [4.0, 0.0], [0.0, 9.0], [9.0, 9.0]])
    Ytr = np.array([[1, 0], [0, 1], [1, 1], [0, 0]])
    # (the Gram matrix of collinear differences is singular: a tiny ridge keeps it SPD)
    clf = MLCWkNN(k=2, reg=1e-12, metric="euclidean").fit(Xtr, Ytr)
    nb, w = clf.reconstruction_weights([[3.0, 0.0]])
    assert list(nb[0]) == [1, 0]
    np.testing.assert_allclose(w[0], [0.75, 0.25], atol=1e-9)
    np.testing.assert_allclose(clf.predict_proba([[3.0, 0.0]]), [[0.25, 0.75]], atol=1e-9)


# --------------------------------------------------------------------------- real data


def _skml_mlknn(monkeypatch, nn_factory):
    import skmultilearn.adapt.mlknn as skml

    # scikit-multilearn calls NearestNeighbors(k) positionally, which scikit-learn >= 1.2
    # rejects; give it a factory with the same meaning.
    monkeypatch.setattr(skml, "NearestNeighbors", nn_factory)
    return skml.MLkNN


def _run_skml(cls, Xtr, Ytr, Xte, k):
    # ignore_first_neighbours=1 drops each training sample's own first neighbour
    # (itself), as ML-kNN requires; it must be 0 again at prediction time, where the
    # query is not a training sample.
    clf = cls(k=k, s=1.0, ignore_first_neighbours=1).fit(Xtr, Ytr)
    clf.ignore_first_neighbours = 0
    return clf.predict(Xte).toarray(), clf.predict_proba(Xte).toarray()


def _split(n, seed=0):
    rng = np.random.default_rng(seed)
    te = np.zeros(n, bool)
    te[rng.choice(n, n // 5, replace=False)] = True
    return ~te, te


def test_mlknn_equals_scikit_multilearn_emotions(dataset_path, monkeypatch):
    from sklearn.neighbors import NearestNeighbors

    from skmlfs.datasets import load

    ds = load(dataset_path("mulan/emotions/emotions.arff"))
    X, Y = np.asarray(ds.X), ds.Y
    tr, te = _split(len(Y))
    cls = _skml_mlknn(monkeypatch, lambda k: NearestNeighbors(n_neighbors=k))
    for k in (5, 10):
        pred_ref, a_ref = _run_skml(cls, X[tr], Y[tr], X[te], k)
        clf = MLkNN(k=k, metric="euclidean").fit(X[tr], Y[tr])
        np.testing.assert_array_equal(clf.predict(X[te]), pred_ref)
        # scikit-multilearn's predict_proba is the unnormalised a = P1·E1[δ].
        _, nb = clf.kneighbors(X[te])
        delta = Y[tr][nb].sum(1)
        a = clf.prior_true_ * clf.cond_true_[np.arange(Y.shape[1]), delta]
        np.testing.assert_allclose(a, a_ref, rtol=1e-12)


class _StableNN:
    """Stand-in for NearestNeighbors: exact distances, ties → lower index, self first."""

    def __init__(self, k):
        self.k = k

    def fit(self, X):
        self.X = np.asarray(X, dtype=float)
        return self

    def kneighbors(self, X, n_neighbors, return_distance=False):
        X = np.asarray(X, dtype=float)
        D = (X**2).sum(1)[:, None] + (self.X**2).sum(1)[None] - 2 * X @ self.X.T
        if X is self.X or (X.shape == self.X.shape and np.array_equal(X, self.X)):
            np.fill_diagonal(D, -1.0)  # the sample itself first, then the others
        return np.argsort(D, axis=1, kind="stable")[:, :n_neighbors]


@pytest.mark.slow
def test_mlknn_equals_scikit_multilearn_enron(dataset_path, monkeypatch):
    """Binary bag-of-words: many distance ties and duplicate documents.

    scikit-learn orders tied neighbours arbitrarily and may put a duplicate before the
    sample itself, so (i) with a stand-in neighbour search that breaks ties by index, the
    two must agree exactly on the raw data, and (ii) with scikit-learn's own search they
    must agree exactly once ties are broken by a tiny shared perturbation of the data.
    """
    from sklearn.neighbors import NearestNeighbors

    from skmlfs.datasets import load

    ds = load(dataset_path("mulan/enron/enron.arff"))
    X = ds.X.toarray() if sp.issparse(ds.X) else np.asarray(ds.X)
    Y = ds.Y
    tr, te = _split(len(Y), seed=1)
    cls = _skml_mlknn(monkeypatch, _StableNN)
    pred_ref, _ = _run_skml(cls, X[tr], Y[tr], X[te], 10)
    clf = MLkNN(k=10, metric="euclidean").fit(sp.csr_matrix(X[tr]), Y[tr])
    np.testing.assert_array_equal(clf.predict(sp.csr_matrix(X[te])), pred_ref)

    Xj = X + 1e-6 * np.random.default_rng(0).random(X.shape)
    cls = _skml_mlknn(monkeypatch, lambda k: NearestNeighbors(n_neighbors=k))
    pred_ref, _ = _run_skml(cls, Xj[tr], Y[tr], Xj[te], 10)
    clf = MLkNN(k=10, metric="euclidean").fit(Xj[tr], Y[tr])
    np.testing.assert_array_equal(clf.predict(Xj[te]), pred_ref)


def test_lazy_learners_on_medical_sparse(dataset_path):
    """All three learners run on sparse real data and beat the empty predictor."""
    from skmlfs.datasets import load

    ds = load(dataset_path("mulan/medical/medical.arff"))
    X, Y = sp.csr_matrix(ds.X), ds.Y
    tr, te = _split(len(Y), seed=2)
    empty_hl = Y[te].mean()
    for Est in (MLkNN, DMLkNN, MLCWkNN):
        clf = Est(k=10).fit(X[tr], Y[tr])
        hl = (clf.predict(X[te]) != Y[te]).mean()
        assert hl < empty_hl, Est.__name__
