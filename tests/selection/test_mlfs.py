"""MLFS (Eqs. 42/43), kCC parents (Eq. 33), MLMIM/MLJMI/MLMRMR and the engine extension.

Hand-worked examples use 4 rows covering all (a, b) ∈ {0,1}² so that every information
quantity is 0, ½ or 1 bit; the greedy routines are also checked against a straightforward
per-pair implementation of the reference ``oCC_select`` written here with
:mod:`skmlfs.info._reference`.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone

from skmlfs.info import (
    DiscreteData,
    conditional_mutual_info,
    entropy,
    iter_conditional_mutual_info,
    joint_entropy,
)
from skmlfs.info._reference import ref_conditional_mutual_info, ref_mutual_info
from skmlfs.selection import MLFS, MLJMI, MLMIM, MLMRMR
from skmlfs.selection._mlfs import (
    global_select,
    kcc_parents,
    label_specific_select,
    resolve_count,
)

TOL = 1e-10

# a ⟂ b uniform, y = a xor b: I(y;a) = I(y;b) = 0 but I(y; a | b) = 1 bit
A = np.array([0, 1, 0, 1])
B = np.array([0, 1, 1, 0])
Yx = A ^ B  # [0, 0, 1, 1]


# ---------------------------------------------------------------------- engine extension
def test_iter_cmi_matches_per_variable_calls_and_reference():
    rng = np.random.default_rng(1)
    Xa = rng.integers(0, 3, size=(50, 4))
    Xb = rng.integers(0, 2, size=(50, 3))
    Z = np.column_stack([rng.integers(0, 3, 50), np.zeros(50, int), rng.integers(-1, 2, 50)])
    blocks = list(iter_conditional_mutual_info(Xa, sp.csr_matrix(Xb), Z))
    assert len(blocks) == 3
    for c, blk in enumerate(blocks):
        np.testing.assert_allclose(blk, conditional_mutual_info(Xa, Xb, Z[:, [c]]), atol=TOL)
        ref = [[ref_conditional_mutual_info(Xa[:, i], Xb[:, j], Z[:, c]) for j in range(3)]
               for i in range(4)]
        np.testing.assert_allclose(blk, ref, atol=TOL)


def test_iter_cmi_hand_worked_xor():
    (blk,) = iter_conditional_mutual_info(A[:, None], Yx[:, None], B[:, None])
    assert blk[0, 0] == pytest.approx(1.0, abs=TOL)


def test_concat_equals_joint_encoding():
    rng = np.random.default_rng(2)
    X1 = rng.integers(0, 4, size=(30, 3))
    X2 = (rng.random((30, 2)) < 0.2).astype(int)
    parts = [DiscreteData.from_array(X1), DiscreteData.from_array(sp.csr_matrix(X2))]
    D = DiscreteData.concat(parts)
    full = np.hstack([X1, X2])
    assert D.n_vars == 5
    np.testing.assert_allclose(entropy(D), entropy(full), atol=TOL)
    np.testing.assert_allclose(joint_entropy(D, full), joint_entropy(full, full), atol=TOL)
    with pytest.raises(ValueError, match="different numbers of rows"):
        DiscreteData.concat([DiscreteData.from_array(X1), DiscreteData.from_array(X1[:5])])


# ---------------------------------------------------------------------- hand-worked examples
def test_eq43_hand_worked_parent_term_decides():
    # target y; features f0 = a, f1 = b, f2 = y; parent label p = a.
    # rel = (0, 0, 1) -> first pick f2. Second step (γ-term: I(y; f2 | f_m) = H(y|f_m) = 1):
    #   f0: 0 + β·I(y; a | a) = 0  + 1 = 1
    #   f1: 0 + β·I(y; a | b) = 1  + 1 = 2   -> picked with the label-correlation term
    # Without parents both score 1 and the more relevant / lower index f0 wins.
    D = DiscreteData.from_array(np.column_stack([A, B, Yx]))
    Y = DiscreteData.from_array(np.column_stack([Yx, A]))  # label 0 = target, label 1 = parent
    (with_pa,) = label_specific_select(D, Y, np.array([0]), None, 2, parents=[np.array([1])])
    (no_pa,) = label_specific_select(D, Y, np.array([0]), None, 2, parents=None)
    assert with_pa.tolist() == [2, 1]
    assert no_pa.tolist() == [2, 0]


def test_eq33_hand_worked_synergy_parent():
    # labels: 0 = a, 1 = d (constant), 2 = b, 3 = y = a xor b; chain 0,1,2,3; k = 2.
    # candidates of y: a, d, b, all with I(·; y) = 0 -> first parent a (lowest position);
    # then d scores 0 + I(y; a | d) = 0 and b scores 0 + I(y; a | b) = 1 -> b.
    Y = DiscreteData.from_array(np.column_stack([A, np.zeros(4, int), B, Yx]))
    parents = kcc_parents(Y, np.arange(4), 2)
    assert parents[3].tolist() == [0, 2]
    assert parents[2].tolist() == [0, 1]  # only two candidates: all of them, chain order
    assert parents[0].size == 0
    # excluded (constant) labels are never candidates
    parents = kcc_parents(Y, np.arange(4), 1, exclude=np.array([False, True, False, False]))
    assert parents[2].tolist() == [0] and parents[1].size == 0


def test_first_pick_and_cap_conventions():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 3, size=(80, 12))
    y = (X[:, 5] + rng.integers(0, 2, 80) > 2).astype(int)
    D, Y = DiscreteData.from_array(X), DiscreteData.from_array(y[:, None])
    rel = [ref_mutual_info(X[:, i], y) for i in range(12)]
    order = np.argsort(-np.asarray(rel), kind="stable")
    # budget ≥ cap: pure relevance ranking
    (s,) = label_specific_select(D, Y, np.array([0]), None, 4, max_candidates=3)
    assert s.tolist() == order[:4].tolist()
    # budget ≥ #candidates: all, in original order
    (s,) = label_specific_select(D, Y, np.array([0]), [np.array([7, 2, 9])], 3)
    assert s.tolist() == [7, 2, 9]
    # candidates outside the top-cap relevance list are never chosen
    (s,) = label_specific_select(D, Y, np.array([0]), None, 3, max_candidates=5)
    assert set(s.tolist()) <= set(order[:5].tolist()) and s[0] == order[0]


def test_uncapped_first_pick_follows_eq43():
    # y = x0 XOR p with parent label p: I(y; x0) = 0 but I(y; p | x0) = 1 bit, while x1 is a
    # noisy copy of y (I(y; x1) ≈ 0.55 bit, I(y; p | x1) ≈ 0.11 bit). Eq. (43) with an empty
    # X_θ scores x0 at 0 + 1 and x1 at about 0.66, so x0 is the paper's first pick; the
    # reference routine takes the most relevant feature, x1.
    x0 = np.tile([0, 0, 1, 1], 16)
    p = np.tile([0, 1, 0, 1], 16)
    y = x0 ^ p
    x1 = y.copy()
    x1[::8] ^= 1
    D = DiscreteData.from_array(np.column_stack([x0, x1]))
    Y = DiscreteData.from_array(np.column_stack([y, p]))
    rel = [ref_mutual_info(x0, y), ref_mutual_info(x1, y)]
    cor = [ref_conditional_mutual_info(y, p, x0), ref_conditional_mutual_info(y, p, x1)]
    assert rel[1] > rel[0] and rel[0] + cor[0] > rel[1] + cor[1]
    kw = dict(parents=[np.array([1])])
    (paper,) = label_specific_select(D, Y, np.array([0]), None, 1, max_candidates=None, **kw)
    (ref,) = label_specific_select(D, Y, np.array([0]), None, 1, max_candidates=100, **kw)
    assert paper.tolist() == [0] and ref.tolist() == [1]


# ---------------------------------------------------------------------- per-pair reference
def ref_occ_select(Dm, y, P, K, beta, gamma, cap, cands=None):
    """``oCC_select.m`` (docs/methods/info.md#mlfs-family), one information value at a time."""
    cands = list(range(Dm.shape[1])) if cands is None else list(cands)
    if len(cands) <= K:
        return cands
    rel = {i: ref_mutual_info(Dm[:, i], y) for i in cands}
    order = sorted(cands, key=lambda i: (-round(rel[i], 9), cands.index(i)))
    MAX = np.inf if cap is None else cap
    if MAX <= K:
        return order[:K]
    pool = order[: int(min(MAX, len(cands)))]
    npar = 0 if P is None else P.shape[1]
    cor = {i: (np.mean([ref_conditional_mutual_info(y, P[:, p], Dm[:, i]) for p in range(npar)])
               if npar and beta else 0.0) for i in pool}
    if cap is None:  # Eq. (43) as written: the first pick maximises relevance + β·cor
        first = max(pool, key=lambda i: (round(rel[i] + beta * cor[i], 9), -pool.index(i)))
    else:  # reference: the most relevant
        first = pool[0]
    S = [first]
    pool.remove(first)
    while len(S) < K:
        best, best_s = None, -np.inf
        for i in pool:
            red = np.mean([ref_conditional_mutual_info(y, Dm[:, s], Dm[:, i]) for s in S])
            sc = rel[i] + beta * cor[i] + gamma * red
            if sc > best_s + 1e-9:
                best, best_s = i, sc
        S.append(best)
        pool.remove(best)
    return S


def _random_problem(seed, n=60, d=14, q=4):
    rng = np.random.default_rng(seed)
    X = rng.integers(-1, 2, size=(n, d))
    Y = ((X[:, :q] + rng.integers(0, 2, size=(n, q))) > 0).astype(int)
    Y[:, -1] = Y[:, 0] ^ (rng.random(n) < 0.2)
    return X, Y


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize(("K", "cap", "beta", "gamma"), [
    (4, 100, 1.0, 1.0), (5, 6, 1.0, 1.0), (3, None, 1.0, 0.0), (4, 100, 0.0, 1.0),
    (2, 3, 0.5, 2.0), (4, None, 1.0, 1.0), (2, None, 3.0, 1.0),
])
def test_label_specific_select_matches_reference(seed, K, cap, beta, gamma):
    X, Y = _random_problem(seed)
    q = Y.shape[1]
    parents = [np.array([], int), np.array([0]), np.array([0, 1]), np.array([2, 0, 1])]
    got = label_specific_select(
        DiscreteData.from_array(X), DiscreteData.from_array(Y), np.arange(q), None, K,
        parents=parents, beta=beta, gamma=gamma, max_candidates=cap,
    )
    for j in range(q):
        ref = ref_occ_select(X, Y[:, j], Y[:, parents[j]] if parents[j].size else None, K,
                             beta, gamma, cap)
        assert got[j].tolist() == ref, j


@pytest.mark.parametrize("seed", [0, 4])
def test_kcc_parents_match_reference(seed):
    rng = np.random.default_rng(seed)
    Y = (rng.random((70, 9)) < 0.4).astype(int)
    Y[:, 4] = Y[:, 1] ^ Y[:, 2]
    order = rng.permutation(9)
    for k, cap in [(3, 100), (2, 4), (5, None)]:
        got = kcc_parents(DiscreteData.from_array(Y), order, k, max_candidates=cap)
        for t, j in enumerate(order):
            earlier = order[:t].tolist()
            ref = ref_occ_select(Y, Y[:, j], None, k, 0.0, 1.0, cap, cands=earlier)
            assert got[j].tolist() == ref


def ref_global(Dm, Ym, parents, K, beta, gamma, cap, mrmr=False, scale=None):
    d, q = Dm.shape[1], Ym.shape[1]
    rel = np.array([sum(ref_mutual_info(Dm[:, i], Ym[:, j]) for j in range(q)) for i in range(d)])
    if d <= K:
        return list(range(d))
    order = sorted(range(d), key=lambda i: (-round(rel[i], 9), i))
    if cap is not None and cap <= K:
        return order[:K]
    T = order[: d if cap is None else min(cap, d)]
    def cor(m):
        tot = 0.0
        for j in range(q):
            if parents is not None and len(parents[j]) and beta:
                tot += np.mean([ref_conditional_mutual_info(Ym[:, j], Ym[:, p], Dm[:, m])
                                for p in parents[j]])
        return tot
    # uncapped = Eq. (42) as written: the first pick is scored by relevance + β·cor too
    first = (max(T, key=lambda m: (round(rel[m] + beta * cor(m), 9), -T.index(m)))
             if cap is None else T[0])
    S, pool = [first], [m for m in T if m != first]
    while len(S) < K:
        best, best_s = None, -np.inf
        for m in pool:
            if mrmr:
                red = -scale * np.mean([ref_mutual_info(Dm[:, m], Dm[:, s]) for s in S])
            else:
                red = np.mean([sum(ref_conditional_mutual_info(Ym[:, j], Dm[:, s], Dm[:, m])
                                   for j in range(q)) for s in S])
            sc = rel[m] + beta * cor(m) + gamma * red
            if sc > best_s + 1e-9:
                best, best_s = m, sc
        S.append(best)
        pool.remove(best)
    return S


@pytest.mark.parametrize("seed", [0, 5])
def test_global_select_and_table1_family_match_reference(seed):
    X, Y = _random_problem(seed, n=50, d=10, q=3)
    D, Yd = DiscreteData.from_array(X), DiscreteData.from_array(Y)
    parents = [np.array([], int), np.array([0]), np.array([1, 0])]
    got, _ = global_select(D, Yd, 4, parents=parents, max_candidates=7)
    assert got.tolist() == ref_global(X, Y, parents, 4, 1.0, 1.0, 7)
    for beta in (1.0, 4.0):
        got, _ = global_select(D, Yd, 4, parents=parents, beta=beta, max_candidates=None)
        assert got.tolist() == ref_global(X, Y, parents, 4, beta, 1.0, None)
    for cls, kw in [(MLJMI, dict(beta=0.0, gamma=1.0)), (MLMIM, dict(beta=0.0, gamma=0.0))]:
        sel = cls(n_features_to_select=4, discretizer=None, max_candidates=None).fit(X, Y)
        assert sel.selection_order_.tolist() == ref_global(X, Y, None, 4, cap=None, **kw)
    for scale, s in [("q", 3.0), ("1", 1.0)]:
        sel = MLMRMR(n_features_to_select=4, discretizer=None, redundancy_scale=scale,
                     max_candidates=None).fit(X, Y)
        assert sel.selection_order_.tolist() == ref_global(X, Y, None, 4, 0.0, 1.0, None, mrmr=True,
                                                   scale=s)


# ---------------------------------------------------------------------- the selector
def test_mlfs_selector_local_and_global():
    X, Y = _random_problem(7, n=80, d=16, q=4)
    loc = MLFS(n_features_to_select=3, discretizer=None, k=2).fit(X, Y)
    assert len(loc.label_features_) == 4 and all(f.size == 3 for f in loc.label_features_)
    assert loc.transform(X).shape == (80, 3)
    votes = np.bincount(np.concatenate(loc.label_features_), minlength=16)
    assert np.array_equal(loc.scores_, votes)  # per feature: the labels that chose it
    assert np.all(np.diff(loc.scores_[loc.selection_order_]) <= 0)
    # parents are the kCC parents on the canonical order
    ref_pa = kcc_parents(DiscreteData.from_array(Y), np.arange(4), 2)
    assert all(np.array_equal(a, b) for a, b in zip(loc.parents_, ref_pa, strict=True))
    glob = MLFS(n_features_to_select=3, discretizer=None, mode="global", k=2).fit(X, Y)
    assert glob.selection_order_.size == 3 and glob.get_support().sum() == 3
    assert clone(glob).get_params() == glob.get_params()


def test_mlfs_default_discretizer_is_meanstd():
    from skmlfs.discretize import MeanStdDiscretizer

    rng = np.random.default_rng(8)
    X = rng.normal(size=(90, 7))
    Y = (X[:, :3] > 0.3).astype(int)
    a = MLFS(n_features_to_select=3).fit(X, Y)
    Xd = MeanStdDiscretizer(factor=0.5, n_states=3, decimals=None).fit(X).transform(X)
    b = MLFS(n_features_to_select=3, discretizer=None).fit(Xd, Y)
    assert a.selection_order_.tolist() == b.selection_order_.tolist()
    assert [f.tolist() for f in a.label_features_] == [f.tolist() for f in b.label_features_]


def test_resolve_count_and_errors():
    assert resolve_count(0.8, 6, "k") == 5  # ⌈4.8⌉
    assert resolve_count(0.5, 10, "k") == 5
    assert resolve_count(None, 7, "M") == 7
    assert resolve_count(50, 7, "M") == 7
    assert resolve_count(0, 7, "k", allow_zero=True) == 0
    with pytest.raises(ValueError, match="fraction"):
        resolve_count(1.5, 7, "M")
    with pytest.raises(TypeError):
        resolve_count("3", 7, "M")
    X, Y = _random_problem(0)
    with pytest.raises(ValueError, match="mode"):
        MLFS(mode="both", discretizer=None).fit(X, Y)
    with pytest.raises(ValueError, match="max_candidates"):
        MLFS(max_candidates=0, discretizer=None).fit(X, Y)


@pytest.mark.parametrize("seed", [0, 3])
def test_lazy_redundancy_rows_match_eager_table(seed, monkeypatch):
    # uncapped searches on many targets compute the redundancy rows for the picks only,
    # through I(y; a | b) = I(y; b | a) + I(y; a) − I(y; b): same selections
    from skmlfs.selection import _mlfs

    X, Y = _random_problem(seed, n=80, d=16, q=4)
    D, Yd = DiscreteData.from_array(X), DiscreteData.from_array(Y)
    parents = [np.array([], int), np.array([0]), np.array([0, 1]), np.array([2, 0, 1])]
    args = (D, Yd, np.arange(4), None, 6)
    eager = label_specific_select(*args, parents=parents, max_candidates=None)
    monkeypatch.setattr(_mlfs, "_R_MAX_BYTES", 0)
    lazy = label_specific_select(*args, parents=parents, max_candidates=None)
    assert [a.tolist() for a in eager] == [b.tolist() for b in lazy]
    for j in range(4):
        ref = ref_occ_select(X, Y[:, j], Y[:, parents[j]] if parents[j].size else None, 6,
                             1.0, 1.0, None)
        assert lazy[j].tolist() == ref


def test_mydisc_is_the_authors_rounded_discretization():
    """discretizer="mydisc" (the oCC paper's experiments) is myDisc with its rounded
    edges, for the MLFS selectors and for oCC; "auto" leaves the edges unrounded."""
    from skmlfs.discretize import MeanStdDiscretizer
    from skmlfs.learners import OCC

    rng = np.random.default_rng(3)
    X = rng.normal(0.0, 0.004, size=(80, 12))  # small std: rounding moves the edges
    Y = (X[:, :3] > 0).astype(int)
    rounded = MeanStdDiscretizer(factor=0.5, n_states=3, decimals=3)
    a = MLFS(5, discretizer="mydisc").fit(X, Y)
    b = MLFS(5, discretizer=rounded).fit(X, Y)
    np.testing.assert_array_equal(a.selection_order_, b.selection_order_)
    c = OCC(M=5, discretizer="mydisc", random_state=0).fit(X, Y)
    e = OCC(M=5, discretizer=rounded, random_state=0).fit(X, Y)
    assert [list(f) for f in c.features_] == [list(f) for f in e.features_]
    with pytest.raises(ValueError, match="discretizer"):
        MLFS(5, discretizer="rounded").fit(X, Y)
