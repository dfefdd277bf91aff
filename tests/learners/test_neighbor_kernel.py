"""The compiled stable k-smallest selection of the neighbour searches against the numpy
path (numba, the ``fast`` extra).

Both must return the first ``k`` columns of a stable sort of every row — ties to the lower
column, NaN last — so everything is compared entry for entry: the kernel against
``np.argsort(kind="stable")`` on tie-heavy matrices, :func:`stable_smallest` with and
without the kernel, and ML-kNN's neighbours and outputs on real bag-of-words data (binary
features: most distances are tied).
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("numba", reason="numba (the `fast` extra) is not installed")

import skmlfs._compiled as compiled  # noqa: E402
import skmlfs.neighbors._heom as heom  # noqa: E402
from skmlfs.datasets import load  # noqa: E402
from skmlfs.learners import DMLkNN, MLkNN  # noqa: E402
from skmlfs.neighbors import stable_smallest  # noqa: E402
from skmlfs.neighbors._numba_kernels import stable_smallest_rows  # noqa: E402


def _tied(rng, n_rows, n_cols, levels, dtype=float):
    D = rng.integers(0, levels, (n_rows, n_cols)).astype(dtype)
    D[rng.random(D.shape) < 0.05] = np.inf
    return D


@pytest.mark.parametrize("seed", range(4))
def test_kernel_is_the_stable_sort(seed):
    rng = np.random.default_rng(seed)
    for _ in range(150):
        n_rows, n_cols = int(rng.integers(1, 40)), int(rng.integers(1, 300))
        D = _tied(rng, n_rows, n_cols, int(rng.integers(1, 9)))
        if rng.random() < 0.3:
            D[rng.random(D.shape) < 0.1] = np.nan
        k = int(rng.integers(1, n_cols + 1))
        out = np.full((n_rows, k), -1, dtype=np.intp)
        stable_smallest_rows(D, k, 0.0, out)
        np.testing.assert_array_equal(out, np.argsort(D, axis=1, kind="stable")[:, :k])


def test_kernel_on_views_and_float32():
    rng = np.random.default_rng(7)
    D = _tied(rng, 50, 400, 5)
    for M in (D[:, ::3], D.T, D.astype(np.float32), -D[::2]):
        out = np.empty((M.shape[0], 7), dtype=np.intp)
        stable_smallest_rows(M, 7, 0.0, out)
        np.testing.assert_array_equal(out, np.argsort(M, axis=1, kind="stable")[:, :7])


@pytest.fixture
def kernel_always(monkeypatch):
    monkeypatch.setattr(heom, "KERNEL_MIN_ENTRIES", 0)
    monkeypatch.setattr(compiled, "FORCE_NUMPY", False)
    monkeypatch.delenv("SKMLFS_NO_NUMBA", raising=False)
    assert compiled.use_numba()


def _both(fn, monkeypatch):
    """``fn()`` with the kernel, then with the numpy path."""
    fast = fn()
    monkeypatch.setattr(compiled, "FORCE_NUMPY", True)
    slow = fn()
    monkeypatch.setattr(compiled, "FORCE_NUMPY", False)
    return fast, slow


def test_stable_smallest_same_with_and_without_kernel(kernel_always, monkeypatch):
    rng = np.random.default_rng(11)
    for k in (1, 3, 10, heom.KERNEL_MAX_K, heom.KERNEL_MAX_K + 1):
        D = _tied(rng, 30, 1000, 4)
        fast, slow = _both(lambda D=D, k=k: stable_smallest(D, k), monkeypatch)
        np.testing.assert_array_equal(fast, slow)
        np.testing.assert_array_equal(fast, np.argsort(D, axis=1, kind="stable")[:, :k])


@pytest.mark.parametrize("seed", range(3))
def test_tolerance_ties_values_apart_by_rounding(seed, kernel_always, monkeypatch):
    """Values a few units in the last place apart are ties with ``tol``: both paths give
    the stable order of the exact values (and the exact order of values ``tol`` apart)."""
    rng = np.random.default_rng(seed)
    for k in (1, 4, 10, 30):
        exact = rng.integers(1, 6, (40, 600)).astype(float) / 7
        noisy = exact * (1 + rng.integers(-4, 5, exact.shape) * np.finfo(float).eps)
        noisy[rng.random(noisy.shape) < 0.03] = np.inf
        exact[~np.isfinite(noisy)] = np.inf
        want = np.argsort(exact, axis=1, kind="stable")[:, :k]
        fast, slow = _both(lambda k=k, D=noisy: stable_smallest(D, k, 1e-12), monkeypatch)
        np.testing.assert_array_equal(fast, want)
        np.testing.assert_array_equal(slow, want)
        assert not np.array_equal(stable_smallest(noisy, k), want)  # without: rounding order


def test_kernel_gates(monkeypatch):
    """Small matrices and large k keep the numpy path (numba is never reached)."""
    calls = []
    import skmlfs.neighbors._numba_kernels as kern

    monkeypatch.setattr(kern, "stable_smallest_rows", lambda *a: calls.append(a))
    monkeypatch.setattr(compiled, "FORCE_NUMPY", False)
    monkeypatch.delenv("SKMLFS_NO_NUMBA", raising=False)
    D = np.zeros((4, 10))
    stable_smallest(D, 3)  # below KERNEL_MIN_ENTRIES
    stable_smallest(np.zeros((200, 200)), heom.KERNEL_MAX_K + 1)  # k above KERNEL_MAX_K
    assert calls == []
    monkeypatch.setattr(heom, "KERNEL_MIN_ENTRIES", 0)
    stable_smallest(D, 3)
    assert len(calls) == 1


@pytest.mark.parametrize("learner", [MLkNN, DMLkNN])
def test_learners_identical_on_real_binary_data(learner, kernel_always, monkeypatch, dataset_path):
    ds = load(dataset_path("mulan/enron/enron.arff"))
    X, Y = ds.X, ds.Y
    tr, te = np.arange(0, 1200), np.arange(1200, X.shape[0])

    def run():
        m = learner(k=10).fit(X[tr], Y[tr])
        return m.predict_proba(X[te]), m.predict(X[te]), m.kneighbors(X[te])[1]

    fast, slow = _both(run, monkeypatch)
    for f, s in zip(fast, slow, strict=True):
        np.testing.assert_array_equal(f, s)


@pytest.mark.subprocess
def test_import_does_not_load_numba():
    """numba is imported on first use of the kernel, not by the neighbour searches' import."""
    code = (
        "import sys, skmlfs.neighbors, skmlfs.learners; "
        "from skmlfs.neighbors import stable_smallest; import numpy as np; "
        "stable_smallest(np.zeros((3, 5)), 2); print('numba' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


# ---------------------------------------------------------------- 0/1 data: bit counts
def _reference_kneighbors(A, B, k, exclude_self):
    """Straightforward: every Hamming distance, then a stable sort of each row."""
    D = (A[:, None, :] != B[None, :, :]).sum(axis=2).astype(float)
    if exclude_self:
        np.fill_diagonal(D, np.inf)
    nb = np.argsort(D, axis=1, kind="stable")[:, :k]
    return np.take_along_axis(D, nb, axis=1), nb


def _binary(rng, n, d, n_patterns):
    """0/1 rows drawn from a few patterns: duplicates and tied distances everywhere."""
    patterns = (rng.random((n_patterns, d)) < rng.uniform(0.05, 0.6)).astype(float)
    return patterns[rng.integers(0, n_patterns, n)]


def _search(h, A, B, k, exclude_self):
    PA = h.prepare(A)
    PB = PA if exclude_self else h.prepare(B)
    return h.kneighbors(PA, PB, k, exclude_self=exclude_self)


def test_bits_hand_worked(kernel_always):
    """Four rows, distances counted by hand: d(0,1) = 2, d(0,2) = 1, d(0,3) = 0,
    d(1,2) = 3, d(1,3) = 2, d(2,3) = 1; ties go to the lower row."""
    X = np.array([[1, 0, 0, 1], [1, 1, 1, 1], [0, 0, 0, 1], [1, 0, 0, 1]], dtype=float)
    h = heom.HEOM().fit(X)
    d2, nb = _search(h, X, X, 2, True)
    np.testing.assert_array_equal(nb, [[3, 2], [0, 3], [0, 3], [0, 2]])
    np.testing.assert_array_equal(d2, [[0, 1], [2, 2], [1, 1], [0, 1]])


@pytest.mark.parametrize("seed", range(6))
def test_bits_equal_products_and_reference(seed, kernel_always, monkeypatch):
    rng = np.random.default_rng(seed)
    import scipy.sparse as sp

    for d in (1, 7, 63, 64, 65, 130):
        n_tr, n_te = int(rng.integers(12, 90)), int(rng.integers(1, 40))
        A = _binary(rng, n_tr + n_te, d, int(rng.integers(2, 12)))
        A[:, rng.random(d) < 0.2] = 0.0  # constant features (range 0) among them
        tr, te = A[:n_tr], A[n_tr:]
        k = int(rng.integers(1, min(n_tr - 1, 20) + 1))
        w = (rng.random(d) < 0.7).astype(float) if rng.random() < 0.5 else None
        for p in (1, 2):
            for fmt in (np.asarray, sp.csr_matrix):
                h = heom.HEOM(feature_weights=w, p=p).fit(fmt(tr))
                for excl, Q in ((True, tr), (False, te)):
                    bits = _search(h, fmt(Q), fmt(tr), k, excl)
                    monkeypatch.setattr(heom, "BITS_MAX_FEATURES", 0)
                    prod = _search(h, fmt(Q), fmt(tr), k, excl)
                    monkeypatch.setattr(heom, "BITS_MAX_FEATURES", 2048)
                    live = tr * (w if w is not None else 1.0)
                    live = live[:, tr.max(axis=0) > tr.min(axis=0)]  # range-0 → δ = 0
                    Qw = (Q * (w if w is not None else 1.0))[:, tr.max(axis=0) > tr.min(axis=0)]
                    ref = _reference_kneighbors(Qw, live, k, excl)
                    for got in (bits, prod):
                        np.testing.assert_array_equal(got[1], ref[1])
                        np.testing.assert_array_equal(got[0], ref[0])


def test_bits_gates(monkeypatch):
    """The bit search runs on 0/1 data only; everything else keeps the products."""
    import skmlfs.neighbors._numba_kernels as kern

    calls = []
    real = kern.hamming_kneighbors
    monkeypatch.setattr(kern, "hamming_kneighbors", lambda *a: (calls.append(1), real(*a))[1])
    monkeypatch.setattr(compiled, "FORCE_NUMPY", False)
    monkeypatch.delenv("SKMLFS_NO_NUMBA", raising=False)
    monkeypatch.setattr(heom, "KERNEL_MIN_ENTRIES", 0)
    rng = np.random.default_rng(3)
    X = _binary(rng, 60, 20, 6)

    def used(tr, te=None, **kw):
        calls.clear()
        h = heom.HEOM(**kw).fit(tr)
        _search(h, tr if te is None else te, tr, 3, te is None)
        return bool(calls)

    assert used(X)
    assert used(X, X[:7])
    half = X.copy()
    half[0, 0] = 0.5  # a numeric value between 0 and 1
    assert not used(half)
    assert not used(X, 2 * X[:7])  # test values outside the training range
    miss = X.copy()
    miss[1, 2] = np.nan
    assert not used(miss)
    assert not used(X, categorical_features=[0])
    assert not used(X, feature_weights=np.full(20, 0.5))
    monkeypatch.setattr(heom, "BITS_MAX_FEATURES", 19)
    assert not used(X)
    monkeypatch.setattr(heom, "BITS_MAX_FEATURES", 2048)
    monkeypatch.setattr(compiled, "FORCE_NUMPY", True)
    assert not used(X)


@pytest.mark.parametrize("seed", range(3))
def test_bits_in_groups_equal_products(seed, kernel_always, monkeypatch):
    """The Relief search (k nearest per group of candidates) by bit counts and by products."""
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    for d in (5, 64, 70):
        n = int(rng.integers(64, 150))
        X = _binary(rng, n, d, int(rng.integers(2, 10)))
        rows = rng.integers(0, n, int(rng.integers(1, 60)))  # may repeat
        labels = rng.integers(0, 4, n)
        groups = [np.flatnonzero(labels == g) for g in range(5)]  # group 4 is empty
        k = int(rng.integers(1, 12))
        for p in (1, 2):
            for fmt in (np.asarray, sp.csr_matrix):
                h = heom.HEOM(p=p).fit(fmt(X))

                def run(h=h, fmt=fmt, k=k, X=X, rows=rows, groups=groups):
                    return [
                        (b.copy(), g, nb, v)
                        for b, g, nb, v in h.kneighbors_in_groups(fmt(X), rows, groups, k)
                    ]

                bits = run()
                monkeypatch.setattr(heom, "BITS_MAX_FEATURES", 0)
                prod = run()
                monkeypatch.setattr(heom, "BITS_MAX_FEATURES", 2048)
                assert len(bits) == len(prod) > 0
                for a, b in zip(bits, prod, strict=True):
                    np.testing.assert_array_equal(a[0], b[0])
                    assert a[1] == b[1]
                    np.testing.assert_array_equal(a[2], b[2])
                    np.testing.assert_array_equal(a[3], b[3])


def test_relief_weights_identical_on_real_binary_data(kernel_always, monkeypatch, dataset_path):
    from skmlfs.selection import PPTReliefF, ReliefFML

    ds = load(dataset_path("mulan/enron/enron.arff"))
    for cls in (PPTReliefF, ReliefFML):
        fast = cls(n_features_to_select=20, random_state=0).fit(ds.X, ds.Y).scores_
        monkeypatch.setattr(heom, "BITS_MAX_FEATURES", 0)
        slow = cls(n_features_to_select=20, random_state=0).fit(ds.X, ds.Y).scores_
        monkeypatch.setattr(heom, "BITS_MAX_FEATURES", 2048)
        np.testing.assert_array_equal(fast, slow)


def _codes(rng, n, ranges):
    """Integer codes 0..r_f per feature (each value present, so the range is r_f)."""
    X = np.column_stack([rng.integers(0, r + 1, n) for r in ranges])
    X[:2] = [[0] * len(ranges), list(ranges)]
    return X


@pytest.mark.parametrize("seed", range(3))
def test_ties_of_range_scaled_codes_go_to_the_lower_index(seed, kernel_always, monkeypatch):
    """HEOM on integer codes with ranges 3, 5, 7: equal exact distances ((1/7)² + (3/7)²
    against (3/7)² + (1/7)², ...) are ties whatever the rounding of the products, and
    every search returns the neighbours of the exact rational distances, ties → lower
    index (ML-kNN's flags features are such codes)."""
    import math

    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    ranges = [3, 5, 7, 7, 5]
    X, Q = _codes(rng, 150, ranges), _codes(rng, 60, ranges)
    for p in (1, 2):
        # exact distances in integer units: Σ |Δ|^p · L / r^p with L the lcm of the r^p
        L = math.lcm(*[r**p for r in ranges])
        unit = np.array([L // r**p for r in ranges])

        def exact(A, B, p=p, unit=unit):
            return (np.abs(A[:, None, :] - B[None, :, :]) ** p * unit).sum(-1)

        E_q = exact(Q, X).astype(float)
        E_s = exact(X, X).astype(float)
        np.fill_diagonal(E_s, np.inf)
        for k in (1, 5, 10):
            want_q = np.argsort(E_q, axis=1, kind="stable")[:, :k]
            want_s = np.argsort(E_s, axis=1, kind="stable")[:, :k]
            for fmt in (np.asarray, sp.csr_matrix):
                h = heom.HEOM(p=p).fit(fmt(X.astype(float)))
                T = h.prepare(fmt(X.astype(float)))
                P = h.prepare(fmt(Q.astype(float)))
                for got_q, got_s in zip(*[
                    _both(lambda h=h, T=T, P=P, k=k: h.kneighbors(P, T, k)[1], monkeypatch),
                    _both(lambda h=h, T=T, k=k: h.kneighbors(T, T, k, exclude_self=True)[1],
                          monkeypatch),
                ], strict=True):
                    np.testing.assert_array_equal(got_q, want_q)
                    np.testing.assert_array_equal(got_s, want_s)
                # the Relief search: k nearest per group, the sampled row left out
                rows = rng.integers(0, X.shape[0], 40)
                groups = [np.flatnonzero(X[:, 0] == v) for v in range(4)]
                for b, g, nb, valid in h.kneighbors_in_groups(fmt(X.astype(float)), rows,
                                                              groups, k):
                    Eg = exact(X[b], X[groups[g]]).astype(float)
                    Eg[groups[g][None, :] == b[:, None]] = np.inf
                    want = groups[g][np.argsort(Eg, axis=1, kind="stable")[:, :k]]
                    np.testing.assert_array_equal(nb[valid], want[valid])


def test_tie_tolerance_only_where_rounding_can_split_ties():
    """Integer scaled values with integer weights (0/1 data, raw codes) are computed
    exactly: no tolerance. Range-scaled codes, fractional weights and missing values get
    one, a tiny fraction of the distance scale."""
    rng = np.random.default_rng(3)
    B = rng.integers(0, 2, (40, 6)).astype(float)
    C = _codes(rng, 40, [7, 5, 3])
    cases = {
        "binary": (heom.HEOM(), B, False),
        "binary, square weights": (heom.HEOM(feature_weights=[4] * 6), B, False),  # √4 · x
        "raw codes": (heom.HEOM(normalize=False), C, False),
        "range-scaled codes": (heom.HEOM(), C, True),
        "binary, weight 0.5": (heom.HEOM(feature_weights=[0.5] * 6), B, True),
    }
    for name, (h, X, wants) in cases.items():
        h.fit(X)
        P = h.prepare(X)
        tol = h._tie_tol(P, P)
        assert (tol > 0) == wants, name
        assert tol < 1e-11 * (2 * P.zz.max() + h.weights_.sum()), name
    M = C.astype(float)
    M[0, 0] = np.nan
    h = heom.HEOM(normalize=False).fit(M)
    assert h._tie_tol(h.prepare(M), h.prepare(M)) > 0  # missing terms: not integral
