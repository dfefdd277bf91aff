"""FIMF and multi-label QPFS (issue #23): worked examples, per-pair references, real data."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.io as sio
import scipy.sparse as sp
from scipy.optimize import minimize
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from skmlfs.experiments import resolve
from skmlfs.selection import FIMF, QPFS
from skmlfs.selection._base import TIE_RTOL, TIE_TOL


# ------------------------------------------------------------------ per-pair reference
def _h(*cols: np.ndarray) -> float:
    """Plug-in joint entropy (bits) of the given columns, one table at a time."""
    code = np.zeros(len(cols[0]), dtype=np.int64)
    for c in cols:
        c = np.unique(c, return_inverse=True)[1].ravel()
        code = code * (int(c.max()) + 1) + c
    counts = np.bincount(code)
    p = counts[counts > 0] / len(code)
    return float(-(p * np.log2(p)).sum())


def _mi(a, b) -> float:
    return _h(a) + _h(b) - _h(a, b)


def _rank_tol(values: np.ndarray, valid: np.ndarray, k: int) -> list[int]:
    """Greedy ranking by ``values``: the lowest index among those within the tolerance."""
    avail = valid.copy()
    out: list[int] = []
    while len(out) < k and avail.any():
        best = max(values[f] for f in range(len(values)) if avail[f])
        tol = TIE_TOL + TIE_RTOL * abs(best)
        f = next(f for f in range(len(values)) if avail[f] and values[f] >= best - tol)
        out.append(f)
        avail[f] = False
    return out


def _top_tol(h: np.ndarray, m: int) -> list[int]:
    """The ``m`` largest of ``h`` (NaN = excluded): sorted, and neighbours closer than the
    tolerance tied and taken by index (entropies equal in exact arithmetic may differ in
    the last bits)."""
    idx = [
        i for i in np.argsort(-np.nan_to_num(h, nan=-np.inf), kind="stable") if not np.isnan(h[i])
    ]
    tol = TIE_TOL + TIE_RTOL * max(abs(h[i]) for i in idx)
    groups: list[list[int]] = []
    for i in idx:
        if groups and h[groups[-1][-1]] - h[i] <= tol:
            groups[-1].append(i)
        else:
            groups.append([i])
    return [i for g in groups for i in sorted(g)][:m]


def ref_fimf(X, Y, b, kl):
    """``fimf.m`` of CAU-AIR-Lab/FIMF read literally: the authors' score per pair/triple.

    Returns the candidate features (top ``b`` by entropy, stable), the kept labels and
    the authors' score ``Σ_l [H(f) − H(f,l)] + Σ_{m<n} [−H(f) + H(f,l_m) + H(f,l_n) −
    H(f,l_m,l_n)]`` of every candidate (NaN elsewhere).
    """
    d, q = X.shape[1], Y.shape[1]
    hf = np.array([_h(X[:, f]) for f in range(d)])
    order = _top_tol(np.where(hf > 0, hf, np.nan), b)
    hl = np.array([_h(Y[:, j]) for j in range(q)])
    labels = _top_tol(hl, kl)
    score = np.full(d, np.nan)
    for f in order:
        s = sum(hf[f] - _h(X[:, f], Y[:, j]) for j in range(q))
        for m in range(len(labels)):
            for n in range(m + 1, len(labels)):
                a, c = labels[m], labels[n]
                s += (
                    -hf[f]
                    + _h(X[:, f], Y[:, a])
                    + _h(X[:, f], Y[:, c])
                    - _h(X[:, f], Y[:, a], Y[:, c])
                )
        score[f] = s
    return np.array(order), np.array(labels), score


def fimf_offset(Y, labels) -> float:
    """``fimf.m``'s score minus ``J``: ``−Σ_l H(l) + Σ_{m<n} I(l_m; l_n)`` (same for all f)."""
    off = -sum(_h(Y[:, j]) for j in range(Y.shape[1]))
    for m in range(len(labels)):
        for n in range(m + 1, len(labels)):
            off += _mi(Y[:, labels[m]], Y[:, labels[n]])
    return off


def ref_qpfs_terms(X, Y):
    """``Q_ij = I(f_i; f_j)`` and ``F_i = Σ_l I(f_i; l)`` one pair at a time."""
    d, q = X.shape[1], Y.shape[1]
    Q = np.array([[_mi(X[:, i], X[:, j]) for j in range(d)] for i in range(d)])
    F = np.array([sum(_mi(X[:, i], Y[:, j]) for j in range(q)) for i in range(d)])
    return Q, F


def _project_simplex(v: np.ndarray) -> np.ndarray:
    """Euclidean projection onto {w ≥ 0, Σ w = 1} (sort-based, Held et al.)."""
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - 1
    rho = np.nonzero(u - css / np.arange(1, v.size + 1) > 0)[0][-1]
    return np.maximum(v - css[rho] / (rho + 1), 0)


def _kkt_residual(Q, F, alpha, w):
    """Natural residual ``‖w − Π(w − ∇)‖_∞`` of the simplex-constrained QP, plus the
    feasibility of ``w``: zero exactly at a KKT point (the program is convex)."""
    g = (1 - alpha) * Q @ w - alpha * F
    stationarity = np.abs(w - _project_simplex(w - g)).max()
    return max(stationarity, abs(w.sum() - 1), max(0.0, -w.min()))


# ------------------------------------------------------------------ FIMF
def _fimf_example():
    # two labels; with |L| = 2 the FIMF score is I(f; l1) + I(f; l2 | l1) = I(f; {l1, l2})
    Y = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 2)
    f_and = Y[:, 0] & Y[:, 1]  # I(f; Y) = H(f) = H(1/4) = 0.811278 bits
    f_xor = Y[:, 0] ^ Y[:, 1]  # independent of each label, 1 bit about the pair
    f_copy = Y[:, 0]  # 1 bit
    const = np.zeros(8, dtype=int)
    return np.column_stack([f_and, f_xor, f_copy, const]), Y


def test_fimf_hand_worked():
    X, Y = _fimf_example()
    h14 = -(0.25 * np.log2(0.25) + 0.75 * np.log2(0.75))
    sel = FIMF(n_features_to_select=3).fit(X, Y)
    # f_xor and f_copy both score 1 bit: the tie goes to the lower index
    assert sel.selection_order_.tolist() == [1, 2, 0]
    np.testing.assert_allclose(sel.scores_[:3], [h14, 1.0, 1.0], atol=1e-12)
    assert np.isnan(sel.scores_[3])  # zero entropy: never a candidate
    # one kept label: no interaction term, J = Σ_l I(f; l): XOR scores 0
    one = FIMF(n_features_to_select=3, n_labels=1).fit(X, Y)
    np.testing.assert_allclose(one.scores_[:3], [2 * (h14 - 0.5), 0.0, 1.0], atol=1e-12)
    assert one.selection_order_.tolist() == [2, 0, 1]


def test_fimf_candidate_cutoff_and_prefix():
    X, Y = _fimf_example()
    # b = 1: the highest-entropy feature is f_xor (1 bit, lower index than f_copy)
    sel = FIMF(n_features_to_select=1, n_candidates=1).fit(X, Y)
    assert sel.candidates_.tolist() == [1] and sel.selection_order_.tolist() == [1]
    assert np.isnan(sel.scores_[[0, 2]]).all()
    # a budget above b scores the k features of largest entropy instead
    big = FIMF(n_features_to_select=3, n_candidates=1).fit(X, Y)
    assert big.candidates_.tolist() == [1, 2, 0]
    # ... so a smaller budget (candidates max(b, k) = 2 != 3) needs a refit
    big.set_params(n_features_to_select=2)
    with pytest.raises(NotFittedError, match="refit|fit again"):
        big.transform(X)
    # with b = None every candidate is scored whatever k: any smaller budget is a prefix
    full = FIMF(n_features_to_select=3).fit(X, Y)
    assert full.set_params(n_features_to_select=2).get_support().sum() == 2


@pytest.mark.parametrize("seed", [0, 1])
def test_fimf_matches_reference_random(seed):
    rng = np.random.default_rng(seed)
    n, d, q = 90, 14, 5
    Y = (rng.random((n, q)) < 0.4).astype(int)
    X = rng.integers(0, 3, (n, d))
    X[:, 2] = Y[:, 0] + Y[:, 1]
    X[:, 3] = X[:, 2]  # duplicate: exact tie
    X[:, 6] = 0
    for b, kl in [(d, q), (6, 3), (9, 2)]:
        est = FIMF(n_features_to_select=5, n_candidates=b, n_labels=kl).fit(X, Y)
        cand, labels, ref = ref_fimf(X, Y, max(b, 5), kl)
        np.testing.assert_array_equal(est.candidates_, cand)
        np.testing.assert_array_equal(est.labels_, labels)
        off = fimf_offset(Y, labels)
        np.testing.assert_allclose(est.scores_[cand], ref[cand] - off, atol=1e-10)
        valid = ~np.isnan(ref)
        assert est.selection_order_.tolist() == _rank_tol(np.nan_to_num(ref, nan=-np.inf), valid, 5)


def _plcfs(dataset_path, name):
    m = sio.loadmat(dataset_path(f"plcfs/{name}.mat"))
    return m["data"], m["answer"], m["sim_seq"][:, :10] == 1


@pytest.mark.parametrize("name", [pytest.param("enron", marks=pytest.mark.slow), "genbase",
                                  pytest.param("medical", marks=pytest.mark.slow)])
def test_fimf_plcfs_matches_reference(dataset_path, name):
    """The authors' score (``fimf.m`` read per pair) on their ten splits, with cut-offs.

    The reference's per-triple entropies are costly: b = 40 candidates, k = 5 labels.
    """
    X, Y, masks = _plcfs(dataset_path, name)
    for split in range(10):
        tr = masks[:, split]
        Xt, Yt = X[tr], Y[tr]
        est = FIMF(n_features_to_select=20, n_candidates=40, n_labels=5).fit(Xt, Yt)
        cand, labels, ref = ref_fimf(Xt, Yt, 40, 5)
        np.testing.assert_array_equal(est.candidates_, cand)
        np.testing.assert_array_equal(est.labels_, labels)
        np.testing.assert_allclose(
            est.scores_[cand], ref[cand] - fimf_offset(Yt, labels), atol=1e-9
        )
        valid = ~np.isnan(ref)
        assert est.selection_order_.tolist() == _rank_tol(
            np.nan_to_num(ref, nan=-np.inf), valid, 20)


# ------------------------------------------------------------------ QPFS
def test_qpfs_hand_worked():
    # f0 copies the label (F = 1), f1 is independent of it and of f0 (F = 0): Q = I
    y = np.array([0, 0, 1, 1] * 3)
    X = np.column_stack([y, np.array([0, 1, 0, 1] * 3), np.zeros(12, dtype=int)])
    Y = y[:, None]
    # "auto": q̄ = mean(Q) = 1/2, f̄ = 1/2, α = 1/2; the unconstrained optimum over the
    # simplex puts w0 = [(1-α)(Q11-Q01) + α(F0-F1)] / [(1-α)(Q00-2Q01+Q11)] = 1
    sel = QPFS(n_features_to_select=2).fit(X, Y)
    assert sel.alpha_ == pytest.approx(0.5)
    # a degenerate optimum (w1 = 0 with a zero multiplier): an interior-point method gets
    # such a weight only to about sqrt(tol)
    np.testing.assert_allclose(sel.scores_[:2], [1.0, 0.0], atol=1e-4)
    assert np.isnan(sel.scores_[2]) and sel.selection_order_.tolist() == [0, 1]
    # α = 0.2: w0 = (0.8·1 + 0.2·1) / (0.8·2) = 0.625
    sel = QPFS(n_features_to_select=2, alpha=0.2).fit(X, Y)
    np.testing.assert_allclose(sel.scores_[:2], [0.625, 0.375], atol=1e-7)
    assert sel.qp_info_["shift"] == 0.0
    # α = 0: relevance ignored, w0 = w1 = 1/2 (tie): the more relevant f0 first
    sel = QPFS(n_features_to_select=2, alpha=0.0).fit(X, Y)
    np.testing.assert_allclose(sel.scores_[:2], [0.5, 0.5], atol=1e-7)
    assert sel.selection_order_.tolist() == [0, 1]


def test_qpfs_identical_columns_tie_by_index():
    rng = np.random.default_rng(3)
    Y = (rng.random((60, 3)) < 0.5).astype(int)
    X = rng.integers(0, 2, (60, 6))
    X[:, 4] = Y[:, 0]
    X[:, 1] = Y[:, 0]  # the same column twice: equal weights, the lower index first
    sel = QPFS(n_features_to_select=6).fit(X, Y)
    r = sel.selection_order_.tolist()
    assert r.index(1) == r.index(4) - 1
    assert abs(sel.scores_[1] - sel.scores_[4]) < sel.weight_tol


def _qp_problem(X, Y, alpha=None):
    Q, F = ref_qpfs_terms(X, Y)
    if alpha is None:
        alpha = Q.mean() / (Q.mean() + F.mean())
    return Q, F, alpha


def test_qpfs_against_independent_solver_and_kkt():
    rng = np.random.default_rng(7)
    n, d, q = 120, 15, 4
    Y = (rng.random((n, q)) < 0.4).astype(int)
    X = rng.integers(0, 3, (n, d))
    X[:, 2] = Y[:, 0] + Y[:, 1]
    X[:, 9] = Y[:, 2] | (rng.random(n) < 0.2)
    sel = QPFS(n_features_to_select=d).fit(X, Y)
    Q, F, alpha = _qp_problem(X, Y)
    assert sel.alpha_ == pytest.approx(alpha, abs=1e-12)
    np.testing.assert_allclose(sel.relevance_, F, atol=1e-10)
    Qs = Q + sel.qp_info_["shift"] * np.eye(d)
    w = sel.scores_
    assert _kkt_residual(Qs, F, alpha, w) < 1e-9

    def obj(v):
        return 0.5 * (1 - alpha) * v @ Qs @ v - alpha * F @ v

    res = minimize(
        obj,
        np.full(d, 1 / d),
        jac=lambda v: (1 - alpha) * Qs @ v - alpha * F,
        method="SLSQP",
        bounds=[(0, 1)] * d,
        constraints=[{"type": "eq", "fun": lambda v: v.sum() - 1, "jac": lambda v: np.ones(d)}],
        options={"ftol": 1e-14, "maxiter": 1000},
    )
    assert res.success
    assert obj(w) <= res.fun + 1e-9  # at least as good as SLSQP's optimum
    np.testing.assert_allclose(w, res.x, atol=1e-4)
    # the ranking of clearly separated weights agrees with the independent solution
    sep = [f for f in sel.selection_order_ if w[f] > 1e-3]
    assert sep == sorted(sep, key=lambda f: -res.x[f])


@pytest.mark.parametrize("name", [pytest.param("enron", marks=pytest.mark.slow), "genbase",
                                  pytest.param("medical", marks=pytest.mark.slow)])
def test_qpfs_plcfs(dataset_path, name):
    """Q, F against per-pair MI on a feature subset; KKT of the full program on 3 splits."""
    X, Y, masks = _plcfs(dataset_path, name)
    for split in (0, 4, 9):
        tr = masks[:, split]
        Xt, Yt = X[tr], Y[tr]
        sel = QPFS(n_features_to_select=30).fit(Xt, Yt)
        valid = np.flatnonzero(sel.entropies_ > 0)
        assert np.isnan(sel.scores_[sel.entropies_ == 0]).all()
        w = sel.scores_[valid]
        # the full program: Q from one block product, checked by KKT here and per pair
        # on a subset below
        from skmlfs.info import DiscreteData, joint_entropy

        D = DiscreteData.from_array(Xt[:, valid])
        h = sel.entropies_[valid]
        Q = h[:, None] + h[None, :] - joint_entropy(D, D)
        Q = 0.5 * (Q + Q.T) + sel.qp_info_["shift"] * np.eye(valid.size)
        assert _kkt_residual(Q, sel.relevance_[valid], sel.alpha_, w) < 1e-9
        assert sel.qp_info_["polished"]
        assert sel.qp_info_["status"] == "Solved"
        # per pair on the first 40 informative features
        sub = valid[:40]
        Qr, Fr = ref_qpfs_terms(Xt[:, sub], Yt)
        np.testing.assert_allclose(Q[:40, :40] - sel.qp_info_["shift"] * np.eye(40), Qr, atol=1e-10)
        np.testing.assert_allclose(sel.relevance_[sub], Fr, atol=1e-10)
        # the ranking: decreasing weight, ties (≤ weight_tol apart) by relevance
        r = sel.selection_order_
        assert np.all(np.diff(sel.scores_[r]) <= sel.weight_tol)


def test_qpfs_refuses_too_many_features():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (30, 12))
    Y = rng.integers(0, 2, (30, 2))
    with pytest.raises(ValueError, match="max_features=10"):
        QPFS(max_features=10).fit(X, Y)


def test_qpfs_without_the_solver_names_the_extra(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "clarabel", None)  # "import clarabel" fails
    X, Y = _fimf_example()
    with pytest.raises(ImportError, match=r"scikit-mlfs\[qp\]"):
        QPFS(n_features_to_select=2).fit(X, Y)


# ------------------------------------------------------------------ both
@pytest.mark.parametrize("Est", [FIMF, QPFS])
def test_sparse_equals_dense_and_input_untouched(Est):
    rng = np.random.default_rng(11)
    X = (rng.random((70, 20)) < 0.2).astype(float)
    Y = (rng.random((70, 4)) < 0.3).astype(int)
    X0 = X.copy()
    dense = Est(n_features_to_select=8).fit(X, Y)
    sparse = Est(n_features_to_select=8).fit(sp.csr_matrix(X), sp.csr_matrix(Y))
    np.testing.assert_array_equal(dense.selection_order_, sparse.selection_order_)
    np.testing.assert_allclose(dense.scores_, sparse.scores_, atol=1e-9)
    np.testing.assert_array_equal(X, X0)
    assert clone(dense).get_params() == dense.get_params()


def test_registered():
    assert resolve("selector", "fimf") is FIMF
    assert resolve("selector", "qpfs") is QPFS
