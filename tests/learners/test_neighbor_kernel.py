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
        stable_smallest_rows(D, k, out)
        np.testing.assert_array_equal(out, np.argsort(D, axis=1, kind="stable")[:, :k])


def test_kernel_on_views_and_float32():
    rng = np.random.default_rng(7)
    D = _tied(rng, 50, 400, 5)
    for M in (D[:, ::3], D.T, D.astype(np.float32), -D[::2]):
        out = np.empty((M.shape[0], 7), dtype=np.intp)
        stable_smallest_rows(M, 7, out)
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
