"""BMFS, MGFS and MFS-MCDM (issue #26) against hand-worked examples and straightforward
implementations of their equations (``docs/methods/graph.md``)."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import linear_sum_assignment

from skmlfs.experiments._registry import resolve
from skmlfs.selection import BMFS, MFSMCDM, MGFS
from skmlfs.selection._graph_mcdm import correlation_distance, pagerank, topsis


# ----------------------------------------------------------------- straightforward references
def ref_cdm(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """``1 − r(f, l)`` pair by pair (Pearson, r = 0 where a column is constant)."""
    n, d = X.shape
    q = Y.shape[1]
    out = np.empty((d, q))
    for f in range(d):
        x = X[:, f] - X[:, f].mean()
        for j in range(q):
            y = Y[:, j] - Y[:, j].mean()
            den = math.sqrt(float(x @ x) * float(y @ y))
            out[f, j] = 1.0 - (float(x @ y) / den if den > 0 else 0.0)
    return out


def _varying(X):
    return np.array([np.unique(X[:, f]).size > 1 for f in range(X.shape[1])])


def ref_bmfs(X, Y, order="distance"):
    """The paper's rounds with the code's padded square assignment (features × (labels +
    zero columns)), the weighted distance by a double loop."""
    cdm = ref_cdm(X, Y)
    p = Y.mean(axis=0)
    var = np.flatnonzero(_varying(X))
    wcd = {}
    for f in var:
        wcd[f] = sum(np.linalg.norm((cdm[f] - cdm[g]) * p) for g in var)
    remaining = list(var)
    ranking = []
    q = Y.shape[1]
    while remaining:
        C = cdm[remaining]
        if len(remaining) >= q:
            square = np.hstack([C, np.zeros((len(remaining), len(remaining) - q))])
            rows, cols = linear_sum_assignment(square)
            pairs = [(remaining[r], c) for r, c in zip(rows, cols, strict=True) if c < q]
        else:
            rows, cols = linear_sum_assignment(C)
            pairs = [(remaining[r], c) for r, c in zip(rows, cols, strict=True)]
        if order == "distance":
            pairs.sort(key=lambda fc: (-round(wcd[fc[0]], 9), fc[0]))
        else:
            pairs.sort(key=lambda fc: (-p[fc[1]], fc[1]))
        for f, _ in pairs:
            ranking.append(f)
            remaining.remove(f)
    return np.array(ranking + [f for f in range(X.shape[1]) if f not in var])


def ref_mgfs(X, Y, damping=0.85):
    """PageRank as the exact solution of its linear system (no power iteration)."""
    cdm = ref_cdm(X, Y)
    var = np.flatnonzero(_varying(X))
    m = var.size
    W = np.zeros((m, m))
    for a in range(m):
        for b in range(m):
            if a != b:
                W[a, b] = np.linalg.norm(cdm[var[a]] - cdm[var[b]])
    P = W / W.sum(axis=1, keepdims=True)
    x = np.linalg.solve(np.eye(m) - damping * P.T, np.full(m, (1 - damping) / m))
    scores = np.zeros(X.shape[1])
    scores[var] = x / x.sum()
    return scores


def ref_mfs_mcdm(X, Y, lam=10.0, normalize=True, weights="entropy"):
    """Literal MFS-MCDM: pinv ridge, entropy label weights, TOPSIS with loops."""
    var = np.flatnonzero(_varying(X))
    Xv = X[:, var]
    D = np.linalg.pinv(Xv.T @ Xv + lam * np.eye(var.size)) @ Xv.T @ Y
    q = Y.shape[1]
    if weights == "entropy":
        w = np.zeros(q)
        for j in range(q):
            for v in (0, 1):
                pv = np.mean(Y[:, j] == v)
                if pv > 0:
                    w[j] -= pv * math.log2(pv)
        w = w / w.sum()
    else:
        w = np.ones(q)
    m = var.size
    R = D.copy()
    if normalize:
        for j in range(q):
            nrm = math.sqrt(sum(D[i, j] ** 2 for i in range(m)))
            R[:, j] = D[:, j] / nrm if nrm > 0 else 0.0
    V = R * w
    best, worst = V.max(axis=0), V.min(axis=0)
    cl = np.zeros(m)
    for i in range(m):
        sp_ = math.sqrt(sum((V[i, j] - best[j]) ** 2 for j in range(q)))
        sm = math.sqrt(sum((V[i, j] - worst[j]) ** 2 for j in range(q)))
        cl[i] = sm / (sp_ + sm) if sp_ + sm > 0 else 0.0
    scores = np.zeros(X.shape[1])
    scores[var] = cl
    return scores


def _order(scores, X):
    """Decreasing score (ties: lowest index), constant features last."""
    var = _varying(X)
    idx = np.flatnonzero(var)
    o = idx[np.argsort(-np.round(scores[idx], 12), kind="stable")]
    return np.concatenate([o, np.flatnonzero(~var)])


# ------------------------------------------------------------------- hand-worked example
# y0 = (1,1,1,0,0,0), p0 = 1/2; y1 = (0,1,0,1,1,1), p1 = 2/3; r(y0, y1) = −1/√2.
Y_HAND = np.array([[1, 0], [1, 1], [1, 0], [0, 1], [0, 1], [0, 1]])
X_HAND = np.column_stack([Y_HAND[:, 1], Y_HAND[:, 0], 1 - Y_HAND[:, 0], np.full(6, 5.0)])
S2 = 1 / math.sqrt(2)


def test_correlation_distance_by_hand():
    cdm = correlation_distance(X_HAND.astype(float), Y_HAND)
    expected = [[1 + S2, 0], [0, 1 + S2], [2, 1 - S2], [1, 1]]  # constant feature: r = 0
    np.testing.assert_allclose(cdm, expected, atol=1e-12)
    Xs = sp.csc_matrix(X_HAND.astype(float))
    np.testing.assert_allclose(correlation_distance(Xs, Y_HAND), expected, atol=1e-12)


def test_bmfs_by_hand_paper_and_code_order():
    # round 0 matches f0→y1 and f1→y0 at cost 0; round 1 matches f2 (alone) to y1.
    # Weighted rows (CDM ∘ p): f0 (0.854, 0), f1 (0, 1.138), f2 (1, 0.195): WCD f1 = 2.797
    # > f0 = 1.667, so the paper puts f1 first; the code puts the feature of the most
    # frequent label (y1, p = 2/3) first, f0. The constant f3 is never matched: last.
    sel = BMFS(n_features_to_select=2).fit(X_HAND, Y_HAND)
    assert sel.selection_order_.tolist() == [1, 0, 2, 3]
    assert sel.round_.tolist() == [0, 0, 1, -1]
    assert sel.matched_label_.tolist() == [1, 0, 1, -1]
    w0 = np.array([(1 + S2) / 2, 0.0])
    w1 = np.array([0.0, (1 + S2) * 2 / 3])
    w2 = np.array([1.0, (1 - S2) * 2 / 3])
    d01, d02, d12 = (np.linalg.norm(a - b) for a, b in [(w0, w1), (w0, w2), (w1, w2)])
    np.testing.assert_allclose(sel.weighted_distance_, [d01 + d02, d01 + d12, d02 + d12, 0])
    np.testing.assert_array_equal(sel.get_support(indices=True), [0, 1])
    code = BMFS(n_features_to_select=2, order="label_frequency").fit(X_HAND, Y_HAND)
    assert code.selection_order_.tolist() == [0, 1, 2, 3]
    np.testing.assert_array_equal(code.scores_[code.selection_order_], [4, 3, 2, 1])


def test_bmfs_matching_is_optimal_brute_force():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 7))
    Y = (rng.random((30, 3)) < 0.4).astype(int)
    sel = BMFS().fit(X, Y)
    cdm = sel.correlation_distance_
    first = np.flatnonzero(sel.round_ == 0)
    cost = sum(cdm[f, sel.matched_label_[f]] for f in first)
    best = min(
        sum(cdm[perm[j], j] for j in range(3)) for perm in itertools.permutations(range(7), 3)
    )
    assert cost == pytest.approx(best, abs=1e-12)
    assert sorted(np.bincount(sel.round_)) == [1, 3, 3]  # 7 features, 3 labels


def test_mgfs_by_hand():
    # the three varying features form a triangle with sides |f0f1| = √2(1 + 1/√2),
    # |f0f2| and |f1f2|; PageRank of a 3-vertex weighted graph from its linear system.
    sel = MGFS(n_features_to_select=2).fit(X_HAND, Y_HAND)
    a = np.array([1 + S2, 0.0])
    b = np.array([0.0, 1 + S2])
    c = np.array([2.0, 1 - S2])
    W = np.array(
        [
            [0, np.linalg.norm(a - b), np.linalg.norm(a - c)],
            [np.linalg.norm(a - b), 0, np.linalg.norm(b - c)],
            [np.linalg.norm(a - c), np.linalg.norm(b - c), 0],
        ]
    )
    P = W / W.sum(axis=1, keepdims=True)
    x = np.linalg.solve(np.eye(3) - 0.85 * P.T, np.full(3, 0.05))
    np.testing.assert_allclose(sel.scores_, [*x, 0.0], atol=1e-10)
    assert sel.selection_order_.tolist()[-1] == 3
    np.testing.assert_allclose(sel.scores_.sum(), 1.0)


def test_pagerank_dangling_vertex_spreads_uniformly():
    W = np.array([[0, 1.0, 0], [1.0, 0, 0], [0, 0, 0]])  # vertex 2 has no edge
    x, _, res = pagerank(W, 0.85, 1e-14, 10_000)
    # x2 = 0.05 + 0.85·x2/3 + ... : solve the 3-state chain exactly
    G = np.array([[0, 1.0, 0], [1.0, 0, 0], [1 / 3, 1 / 3, 1 / 3]])
    M = 0.85 * G.T + 0.15 / 3
    vals, vecs = np.linalg.eig(M)
    v = np.real(vecs[:, np.argmax(np.real(vals))])
    np.testing.assert_allclose(x, v / v.sum(), atol=1e-12)
    assert res[-1] < 1e-14


def test_topsis_by_hand():
    M = np.array([[3.0, 4.0], [0.0, 0.0], [6.0, 8.0]])
    # normalised columns: (3, 0, 6)/√45 and (4, 0, 8)/√80; with equal weights the
    # closeness is the position between the worst (row 1) and best (row 2): 0, ½, 1
    np.testing.assert_allclose(topsis(M, np.array([0.5, 0.5])), [0.5, 0.0, 1.0])
    np.testing.assert_allclose(topsis(M, np.ones(2), normalize=False), [0.5, 0.0, 1.0])
    np.testing.assert_array_equal(topsis(np.ones((3, 2)), np.ones(2)), 0.0)


def test_mfs_mcdm_by_hand_constant_feature_last():
    sel = MFSMCDM(n_features_to_select=2).fit(X_HAND, Y_HAND)
    ref = ref_mfs_mcdm(X_HAND.astype(float), Y_HAND)
    np.testing.assert_allclose(sel.scores_, ref, atol=1e-12)
    assert sel.selection_order_[-1] == 3 and sel.scores_[3] == 0
    np.testing.assert_allclose(
        sel.label_weights_, [1 / (1 + 0.9182958340544896), 0.9182958340544896 / 1.9182958340544896]
    )
    np.testing.assert_array_equal(sel.coef_[3], 0.0)


def test_constant_feature_would_be_matched_first_by_the_code_rule():
    # why constant features are excluded: with the code's NaN -> 0 distance, a constant
    # column sits at distance 0 from every label and wins a first matching.
    rng = np.random.default_rng(1)
    X = np.column_stack([rng.normal(size=(40, 5)), np.full(40, 2.0)])
    Y = (rng.random((40, 3)) < 0.5).astype(int)
    code_cdm = correlation_distance(X, Y)
    code_cdm[5] = 0.0
    rows, _ = linear_sum_assignment(code_cdm)
    assert 5 in rows
    sel = BMFS().fit(X, Y)
    assert sel.round_[5] == -1 and sel.selection_order_[-1] == 5


def test_registered_short_names():
    assert resolve("selector", "bmfs") is BMFS
    assert resolve("selector", "mgfs") is MGFS
    assert resolve("selector", "mfs_mcdm") is MFSMCDM


@pytest.mark.parametrize(
    "Est, kw",
    [
        (BMFS, {"order": "best"}),
        (MGFS, {"damping": 1.0}),
        (MGFS, {"max_iter": 0}),
        (MFSMCDM, {"alpha": 0.0}),
        (MFSMCDM, {"label_weights": "gini"}),
    ],
)
def test_bad_parameters_refused(Est, kw):
    from sklearn.utils._param_validation import InvalidParameterError

    with pytest.raises(InvalidParameterError, match=next(iter(kw))):
        Est(**kw).fit(X_HAND, Y_HAND)


# ----------------------------------------------------------------------------- real data
def _load(dataset_path, name):
    from skmlfs.datasets import load

    ds = load(dataset_path(f"mulan/{name}/{name}.arff"))
    X = ds.X.toarray() if sp.issparse(ds.X) else np.asarray(ds.X, dtype=float)
    return X, np.asarray(ds.Y)


@pytest.mark.parametrize("name", ["emotions", "yeast"])
def test_correlation_distance_matches_loops(dataset_path, name):
    X, Y = _load(dataset_path, name)
    np.testing.assert_allclose(correlation_distance(X, Y), ref_cdm(X, Y), atol=1e-10)


@pytest.mark.parametrize("name", ["emotions", "yeast"])
@pytest.mark.parametrize("order", ["distance", "label_frequency"])
def test_bmfs_matches_reference(dataset_path, name, order):
    X, Y = _load(dataset_path, name)
    sel = BMFS(order=order).fit(X, Y)
    np.testing.assert_array_equal(sel.selection_order_, ref_bmfs(X, Y, order))


@pytest.mark.parametrize("name", ["emotions", "yeast"])
def test_mgfs_matches_linear_system_and_converges(dataset_path, name):
    X, Y = _load(dataset_path, name)
    sel = MGFS().fit(X, Y)
    ref = ref_mgfs(X, Y)
    np.testing.assert_allclose(sel.scores_, ref, atol=1e-12)
    np.testing.assert_array_equal(sel.selection_order_, _order(ref, X))
    # power iteration: the L1 change contracts by at least the damping factor each step
    res = sel.residuals_
    assert res[-1] < 1e-10 and sel.n_iter_ == res.size < 1000
    assert np.all(res[1:] <= 0.85 * res[:-1] + 1e-15)


@pytest.mark.parametrize("name", ["emotions", "yeast"])
@pytest.mark.parametrize(
    "variant", [dict(), dict(normalize=False, label_weights="uniform"), dict(alpha=1.0)]
)
def test_mfs_mcdm_matches_reference(dataset_path, name, variant):
    X, Y = _load(dataset_path, name)
    sel = MFSMCDM(**variant).fit(X, Y)
    ref = ref_mfs_mcdm(
        X,
        Y,
        lam=variant.get("alpha", 10.0),
        normalize=variant.get("normalize", True),
        weights=variant.get("label_weights", "entropy"),
    )
    np.testing.assert_allclose(sel.scores_, ref, atol=1e-9)
    np.testing.assert_array_equal(sel.selection_order_[:30], _order(ref, X)[:30])


@pytest.mark.parametrize("Est", [BMFS, MGFS, MFSMCDM])
def test_sparse_equals_dense_genbase(dataset_path, Est):
    # genbase: 1,186 binary features, many constant or duplicated (exact ties)
    X, Y = _load(dataset_path, "genbase")
    dense = Est(n_features_to_select=50).fit(X, Y)
    for fmt in (sp.csr_matrix, sp.csc_matrix):
        sparse = Est(n_features_to_select=50).fit(fmt(X), Y)
        np.testing.assert_array_equal(sparse.selection_order_, dense.selection_order_)
        np.testing.assert_allclose(sparse.scores_, dense.scores_, atol=1e-10)


def test_mfs_mcdm_dual_form_when_features_outnumber_samples(dataset_path):
    X, Y = _load(dataset_path, "yeast")
    X, Y = X[:60], Y[:60]  # 60 samples, 103 varying features: the n × n system
    assert _varying(X).sum() > X.shape[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # labels without positives in 60 rows
        sel = MFSMCDM().fit(X, Y)
    np.testing.assert_allclose(sel.scores_, ref_mfs_mcdm(X, Y), atol=1e-9)
