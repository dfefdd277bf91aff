"""PMU and D2F (Lee & Kim 2013, 2015): hand-worked cases, per-pair references, real data."""

from __future__ import annotations

import functools

import numpy as np
import pytest
import scipy.io as sio
import scipy.sparse as sp
from sklearn.base import clone

from skmlfs.selection import D2F, PMU
from skmlfs.selection._base import TIE_RTOL, TIE_TOL

# ---------------------------------------------------------------- per-pair reference
# Written from the equations, one entropy at a time (docs/methods/info.md#pmu, #d2f).


def _entropy(*cols: np.ndarray) -> float:
    """Plug-in joint entropy (bits) of the given integer columns."""
    key = np.zeros(cols[0].shape[0], dtype=np.int64)
    for c in cols:
        c = np.asarray(c, dtype=np.int64)
        key = key * (int(c.max()) + 1) + c
    counts = np.bincount(key)
    p = counts[counts > 0] / key.size
    return float(-(p * np.log2(p)).sum())


class _Ref:
    """Memoised per-pair entropies of the columns of X (features) and Y (labels)."""

    def __init__(self, X, Y):
        self.X, self.Y = np.asarray(X), np.asarray(Y)
        self.d, self.q = self.X.shape[1], self.Y.shape[1]

    @functools.cache  # noqa: B019 - one instance per test
    def H(self, *vars_: tuple[str, int]) -> float:
        return _entropy(*[(self.X if k == "x" else self.Y)[:, j] for k, j in vars_])

    def mi(self, a, b) -> float:
        return self.H(a) + self.H(b) - self.H(a, b)

    def co(self, a, b, c) -> float:
        """Interaction information, McGill's sign: I(a;b) − I(a;b|c)."""
        H = self.H
        return H(a) + H(b) + H(c) - H(a, b) - H(a, c) - H(b, c) + H(a, b, c)

    def relevance(self, f) -> float:
        return sum(self.mi(("x", f), ("y", l)) for l in range(self.q))

    def label_pairs(self, f) -> float:
        return sum(
            self.co(("x", f), ("y", l), ("y", m))
            for l in range(self.q)
            for m in range(l + 1, self.q)
        )

    def redundancy(self, f, s) -> float:
        return sum(self.co(("x", f), ("x", s), ("y", l)) for l in range(self.q))


def _pick(vals: dict[int, float]) -> int:
    """Lowest index among the candidates within the tie tolerance of the best."""
    best = max(vals.values())
    tol = TIE_TOL + TIE_RTOL * abs(best)
    return min(f for f, v in vals.items() if v >= best - tol)


def _valid(ref: _Ref, variant: str) -> list[int]:
    return [f for f in range(ref.d) if variant == "code" or ref.H(("x", f)) > 0]


def ref_pmu(X, Y, k, variant="paper"):
    ref = _Ref(X, Y)
    cand = _valid(ref, variant)
    base = {f: ref.relevance(f) - ref.label_pairs(f) for f in cand}
    sel, scores = [], []
    while len(sel) < min(k, len(cand)):
        vals = {f: base[f] - sum(ref.redundancy(f, s) for s in sel) for f in cand if f not in sel}
        f = _pick(vals)
        sel.append(f)
        scores.append(vals[f])
    return np.array(sel), np.array(scores)


def ref_d2f(X, Y, k, variant="paper"):
    ref = _Ref(X, Y)
    cand = _valid(ref, variant)
    sel, scores = [], []
    if variant == "paper":
        while len(sel) < min(k, len(cand)):
            vals = {
                f: ref.relevance(f) - sum(ref.redundancy(f, s) for s in sel)
                for f in cand
                if f not in sel
            }
            f = _pick(vals)
            sel.append(f)
            scores.append(vals[f])
        return np.array(sel), np.array(scores)
    # The code's behaviour: one score vector, never reset; every step adds the term of
    # every selected feature again.
    H = ref.H
    scr = {f: sum(H(("x", f)) - H(("x", f), ("y", l)) for l in range(ref.q)) for f in cand}
    while len(sel) < min(k, len(cand)):
        if sel:
            for m in scr:
                for s in sel:
                    for l in range(ref.q):
                        xm, xs, yl = ("x", m), ("x", s), ("y", l)
                        scr[m] += -H(xm) - H(xs) + H(xm, xs) + H(xm, yl) - H(xm, xs, yl)
        f = _pick(scr)
        sel.append(f)
        scores.append(scr.pop(f))
    return np.array(sel), np.array(scores)


def _assert_same(est, ref, msg=""):
    np.testing.assert_array_equal(est.selection_order_, ref[0], err_msg=msg)
    np.testing.assert_allclose(est.step_scores_, ref[1], rtol=1e-10, atol=1e-9, err_msg=msg)


# ---------------------------------------------------------------- hand-worked
# Two independent fair labels l1, l2 on four patterns; f0 = l1 XOR l2, f1 = l1,
# f2 = l1 AND l2.
Y_HAND = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
X_HAND = np.column_stack([Y_HAND[:, 0] ^ Y_HAND[:, 1], Y_HAND[:, 0], Y_HAND[:, 0] & Y_HAND[:, 1]])
H_AND = 2 - 0.75 * np.log2(3)  # H(1/4) = 0.8113 bits


def test_pmu_hand_worked():
    """PMU's first term is I(f; {l1, l2}) exactly when q = 2: the XOR feature scores 1.

    f0 (XOR): I(f0;l1) = I(f0;l2) = 0, I(f0;l1;l2) = 0 − 1 = −1 → J = 1.
    f1 (l1):  I = 1 + 0, I(f1;l1;l2) = 0 → J = 1 (tie: the lower index f0 wins).
    f2 (AND): J = I(f2; L) = H(f2) = 0.8113.
    Step 2 with S = {f0}: Σ_l I(f1;f0;l) = 0 + (0 − 1) = −1 → J(f1) = 2;
    Σ_l I(f2;f0;l) = 2·(0.3113 − 0.5) → J(f2) = H(1/4) + 2·0.1887 = 1.1887 (second).
    """
    pmu = PMU(n_features_to_select=3).fit(X_HAND, Y_HAND)
    np.testing.assert_allclose(pmu.relevance_, [0, 1, 2 * (H_AND - 0.5)], atol=1e-12)
    np.testing.assert_allclose(pmu.label_interaction_, [-1, 0, H_AND - 0.5 - 0.5], atol=1e-12)
    np.testing.assert_array_equal(pmu.selection_order_[:2], [0, 1])
    np.testing.assert_allclose(pmu.step_scores_[:2], [1.0, 2.0], atol=1e-12)
    # step 3, S = {f0, f1}: Σ_l I(f2;f1;l) = I(f2;l1) + I(f2;l1;l2) = 2·H(1/4) − 1.5,
    # so J(f2) = H(1/4) − 2·(H(1/4) − 1) − (2·H(1/4) − 1.5) = 3.5 − 3·H(1/4)
    assert pmu.selection_order_[2] == 2
    assert pmu.step_scores_[2] == pytest.approx(3.5 - 3 * H_AND, abs=1e-12)


def test_d2f_hand_worked():
    """D2F has no label-pair term: it starts with the label copy f1 (relevance 1), then
    takes the XOR feature, whose interaction with f1 and l2 is −1: J(f0) = 0 + 1 = 1,
    against J(f2) = 2·0.3113 − (0.3113 − 0.1887) = 0.5."""
    d2f = D2F(n_features_to_select=2).fit(X_HAND, Y_HAND)
    np.testing.assert_array_equal(d2f.selection_order_, [1, 0])
    np.testing.assert_allclose(d2f.step_scores_, [1.0, 1.0], atol=1e-12)
    # the code's values: Σ_l [H(f) − H(f, l)] = 1 − 2 for f1; then
    # −2 + T(f0, f1) with T = −Σ_l I(f0;f1;l) − Σ_l H(f1|l) = 1 − 1 = 0
    code = D2F(n_features_to_select=2, variant="code").fit(X_HAND, Y_HAND)
    np.testing.assert_array_equal(code.selection_order_, [1, 0])
    np.testing.assert_allclose(code.step_scores_, [-1.0, -2.0], atol=1e-12)


def test_code_variants_keep_constant_columns():
    """With correlated labels a copy of a selected feature scores −Σ I(l;l') < 0 under PMU,
    below the 0 of a constant column: pmu.m (variant="code") picks the constant column,
    the paper variant never does."""
    rng = np.random.default_rng(0)
    l1 = (rng.random(200) < 0.5).astype(int)
    l2 = l1 ^ (rng.random(200) < 0.1)
    Y = np.column_stack([l1, l2])
    X = np.column_stack([l1, l1, np.zeros(200, int)])
    paper = PMU(2).fit(X, Y)
    code = PMU(2, variant="code").fit(X, Y)
    np.testing.assert_array_equal(paper.selection_order_, [0, 1])
    np.testing.assert_array_equal(code.selection_order_, [0, 2])
    assert paper.step_scores_[1] < 0 and code.step_scores_[1] == pytest.approx(0, abs=1e-12)
    for est in (paper, code):
        _assert_same(est, ref_pmu(X, Y, 2, est.variant))


def _random_problem(seed, n=90, d=10, q=4):
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, q)) < 0.4).astype(int)
    Y[:, 1] = Y[:, 0] ^ (rng.random(n) < 0.15)  # correlated labels: label-pair terms matter
    X = rng.integers(0, 3, (n, d))
    X[:, 1] = Y[:, 0] ^ Y[:, 2]
    X[:, 2] = X[:, 1]  # a duplicate: exact ties
    X[:, 4] = 0  # constant
    X[:, 6] = Y[:, 1] + Y[:, 3]
    return X, Y


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("variant", ["paper", "code"])
def test_against_per_pair_reference(seed, variant):
    X, Y = _random_problem(seed)
    k = 9
    _assert_same(PMU(k, variant=variant).fit(X, Y), ref_pmu(X, Y, k, variant), f"PMU {seed}")
    _assert_same(D2F(k, variant=variant).fit(X, Y), ref_d2f(X, Y, k, variant), f"D2F {seed}")


def test_sparse_equals_dense_and_inputs_untouched():
    X, Y = _random_problem(3)
    X = X * (X > 1)  # sparse-ish, still discrete
    Xs, Ys = sp.csr_matrix(X), sp.csr_matrix(Y)
    X0, Y0 = X.copy(), Y.copy()
    for est in (PMU(6), D2F(6), D2F(6, variant="code")):
        a = clone(est).fit(X, Y)
        b = clone(est).fit(Xs, Ys)
        np.testing.assert_array_equal(a.selection_order_, b.selection_order_)
        np.testing.assert_allclose(a.step_scores_, b.step_scores_, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(Y, Y0)


def test_variant_is_validated():
    with pytest.raises(ValueError, match="variant"):
        PMU(2, variant="matlab").fit(X_HAND, Y_HAND)
    with pytest.raises(ValueError, match="variant"):
        D2F(2, variant=None).fit(X_HAND, Y_HAND)


def test_budget_prefix():
    X, Y = _random_problem(1)
    for cls in (PMU, D2F):
        for variant in ("paper", "code"):
            big = cls(8, variant=variant).fit(X, Y)
            small = cls(3, variant=variant).fit(X, Y)
            np.testing.assert_array_equal(big.selection_order_[:3], small.selection_order_)


# ---------------------------------------------------------------- real data
def _plcfs(dataset_path, name):
    m = sio.loadmat(dataset_path(f"plcfs/{name}.mat"))
    return m["data"], m["answer"], m["sim_seq"][:, :10] == 1


def _columns(Xt, n_cols, rng):
    """The per-pair reference is slow: the ``n_cols`` most frequent words of the split plus a
    few random and (if any) constant columns, in their original order."""
    nnz = (Xt != 0).sum(axis=0)
    top = np.argsort(-nnz, kind="stable")[:n_cols]
    extra = rng.choice(Xt.shape[1], 8, replace=False)
    const = np.flatnonzero(nnz == 0)[:3]
    return np.unique(np.concatenate([top, extra, const]))


@pytest.mark.parametrize("name", ["genbase", pytest.param("medical", marks=pytest.mark.slow),
                                  pytest.param("enron", marks=pytest.mark.slow)])
def test_plcfs_splits_match_per_pair_reference(dataset_path, name):
    """PMU and D2F, both variants, on the authors' splits (columns reduced for the
    reference: ~45 columns, all labels)."""
    X, Y, masks = _plcfs(dataset_path, name)
    rng = np.random.default_rng(0)
    n_cols, k = (36, 6) if name != "enron" else (24, 6)
    for split in (0, 7):
        tr = masks[:, split]
        cols = _columns(X[tr], n_cols, rng)
        Xt, Yt = X[tr][:, cols], Y[tr]
        for cls, ref in ((PMU, ref_pmu), (D2F, ref_d2f)):
            for variant in ("paper", "code") if split == 0 else ("paper",):
                est = cls(k, variant=variant).fit(Xt, Yt)
                _assert_same(est, ref(Xt, Yt, k, variant), f"{cls.__name__} {variant} {split}")


def test_plcfs_full_width_blocks_match_reference(dataset_path):
    """The block quantities on every genbase feature against the per-pair sums for a sample
    of features (the relevance, the label-pair term, one step's redundancy)."""
    X, Y, masks = _plcfs(dataset_path, "genbase")
    tr = masks[:, 3]
    Xt, Yt = X[tr], Y[tr]
    pmu = PMU(2).fit(Xt, Yt)
    ref = _Ref(Xt, Yt)
    rng = np.random.default_rng(1)
    sample = np.unique(np.concatenate([rng.choice(Xt.shape[1], 25, replace=False),
                                       pmu.selection_order_]))
    np.testing.assert_allclose(
        pmu.relevance_[sample], [ref.relevance(f) for f in sample], atol=1e-10
    )
    np.testing.assert_allclose(
        pmu.label_interaction_[sample], [ref.label_pairs(f) for f in sample], atol=1e-9
    )
    s = pmu.selection_order_[0]
    f = pmu.selection_order_[1]
    want = ref.relevance(f) - ref.label_pairs(f) - ref.redundancy(f, s)
    assert pmu.step_scores_[1] == pytest.approx(want, abs=1e-9)
