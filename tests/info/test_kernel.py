"""The compiled kernels (numba, the ``fast`` extra) against the numpy/scipy path (#28).

The kernels repeat the numpy path's arithmetic operation by operation, so everything here
is compared bit for bit (``assert_array_equal``), selections and their ties included:

* numpy's pairwise summation as ``np.add.reduceat`` applies it (the per-row sums);
* the binary label sums' corrections, relevance and ``Σ_l H(f, l)``;
* the greedy step against one selected feature (``joint_entropy_one``);
* SCLS / AMI selections on synthetic power-law data and on the shared binary data sets,
  with exact ties (duplicated feature columns);
* the switch: ``SKMLFS_NO_NUMBA`` and ``FORCE_NUMPY`` select the numpy path.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp

pytest.importorskip("numba", reason="numba (the `fast` extra) is not installed")

import skmlfs._compiled as compiled  # noqa: E402
import skmlfs.info._engine as eng  # noqa: E402
import skmlfs.info._kernels as kern  # noqa: E402
import skmlfs.info._labelsum as ls  # noqa: E402
from skmlfs.datasets import load  # noqa: E402
from skmlfs.info import DiscreteData, InfoCache, entropy, joint_entropy_one  # noqa: E402
from skmlfs.selection import AMI, SCLS  # noqa: E402


@pytest.fixture
def kernels_always(monkeypatch):
    """Engage the kernels at every size (they are size-gated in the library)."""
    monkeypatch.setattr(ls, "KERNEL_MIN_FLOPS", 0)
    monkeypatch.setattr(eng, "KERNEL_MIN_COLUMNS", 0)
    monkeypatch.setattr(compiled, "FORCE_NUMPY", False)
    monkeypatch.delenv("SKMLFS_NO_NUMBA", raising=False)
    assert kern.use_numba()


def _both(fn, monkeypatch):
    """``fn()`` with the kernels, then with the numpy path."""
    monkeypatch.setattr(compiled, "FORCE_NUMPY", False)
    fast = fn()
    monkeypatch.setattr(compiled, "FORCE_NUMPY", True)
    slow = fn()
    monkeypatch.setattr(compiled, "FORCE_NUMPY", False)
    return fast, slow


def _power_law(rng, n, p, per_row, offset=5):
    """Binary CSR, ~per_row columns per row drawn ∝ 1/(j + offset) (frequent and rare)."""
    w = 1.0 / (np.arange(p) + offset)
    cols = rng.choice(p, size=(n, per_row), p=w / w.sum())
    rows = np.repeat(np.arange(n), per_row)
    M = sp.csr_matrix((np.ones(rows.size), (rows, cols.ravel())), shape=(n, p))
    M.data[:] = 1
    return M


def _with_ties(X, rng, dup=None):
    """Append copies of some columns (exact ties in every criterion) and an empty one."""
    X = sp.csc_matrix(X)
    if dup is None:
        dup = rng.choice(X.shape[1], 5, replace=False)
    return sp.hstack([X, X[:, dup], sp.csc_matrix((X.shape[0], 1))], format="csr")


def test_switch(monkeypatch):
    monkeypatch.setattr(compiled, "FORCE_NUMPY", False)
    monkeypatch.setenv("SKMLFS_NO_NUMBA", "1")
    assert not kern.use_numba()
    monkeypatch.setenv("SKMLFS_NO_NUMBA", "0")
    assert kern.use_numba()
    monkeypatch.delenv("SKMLFS_NO_NUMBA")
    assert kern.use_numba()
    monkeypatch.setattr(compiled, "FORCE_NUMPY", True)
    assert not kern.use_numba()


@pytest.mark.subprocess
def test_import_does_not_load_numba():
    """numba is imported on first use of a kernel, not by ``import skmlfs``."""
    code = "import sys, skmlfs, skmlfs.selection, skmlfs.info; print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("seed", [0, 1])
def test_pairwise_sum_is_numpys_reduceat(seed):
    from skmlfs.info._numba_kernels import _pairwise_sum

    rng = np.random.default_rng(seed)
    lengths = [*range(1, 140), 255, 256, 257, 1000, 4097, 100_003]
    for n in lengths:
        # magnitudes over ten decades: a different addition order changes the result
        a = rng.standard_normal(n) * 10.0 ** rng.uniform(-5, 5, n)
        starts = np.unique(np.concatenate([[0], rng.integers(0, n, 3)]))
        ref = np.add.reduceat(a, starts)
        ends = np.append(starts[1:], n)
        got = [a[s] + _pairwise_sum(a, s + 1, e - s - 1) for s, e in zip(starts, ends, strict=True)]
        np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("threads", [1, 2])
def test_binary_corrections_identical(seed, threads, kernels_always, monkeypatch):
    rng = np.random.default_rng(seed)
    n = 700
    X = _with_ties(_power_law(rng, n, 300, 12), rng)
    Y = _power_law(rng, n, 120, 4)
    A, B = DiscreteData.from_array(X), DiscreteData.from_array(Y)
    monkeypatch.setattr(ls, "N_THREADS", threads)
    monkeypatch.setattr(ls, "KERNEL_ROW_CHUNK_FLOPS", 500)  # many chunks
    ext = ls._ext_table(n)
    fast, slow = _both(lambda: ls.binary_corrections(A, B, ext, 2000), monkeypatch)
    assert np.any(fast != 0)
    np.testing.assert_array_equal(fast, slow)
    hx, hy = entropy(A), entropy(B)
    fast, slow = _both(
        lambda: ls.label_sums(A, B, h_x=hx, h_y=hy, base=2.0, block_entries=3000), monkeypatch
    )
    for f, s in zip(fast, slow, strict=True):
        np.testing.assert_array_equal(f, s)


def test_binary_corrections_timings_count_pairs(kernels_always, monkeypatch):
    """The kernel counts the co-occurring pairs it corrects (the product's entries)."""
    rng = np.random.default_rng(3)
    X, Y = _power_law(rng, 400, 150, 10), _power_law(rng, 400, 60, 3)
    A, B = DiscreteData.from_array(X), DiscreteData.from_array(Y)
    pairs = (sp.csr_matrix(X).T @ sp.csr_matrix(Y)).nnz
    for force in (False, True):
        monkeypatch.setattr(compiled, "FORCE_NUMPY", force)
        t = {"product_s": 0.0, "corrections_s": 0.0, "chunks": 0, "co_occurring_pairs": 0}
        monkeypatch.setattr(ls, "TIMINGS", t)
        ls.binary_corrections(A, B, ls._ext_table(400), 2**20)
        assert t["co_occurring_pairs"] == pairs


@pytest.mark.parametrize("seed", [0, 1])
def test_joint_entropy_one_identical(seed, kernels_always, monkeypatch):
    rng = np.random.default_rng(seed)
    X = _with_ties(_power_law(rng, 600, 400, 15), rng)
    A = DiscreteData.from_array(X)
    cols = np.diff(sp.csc_matrix(X).indptr)
    # a frequent feature (its rows hold many entries), a rare one, an empty one
    for j in (int(np.argmax(cols)), int(np.flatnonzero(cols == 1)[0]), X.shape[1] - 1):
        fast, slow = _both(lambda j=j: joint_entropy_one(A, A, j), monkeypatch)
        np.testing.assert_array_equal(fast, slow)
        rows = sp.csc_matrix(X)[:, j].indices
        fast, slow = _both(lambda r=rows: eng._row_sums(A, r), monkeypatch)
        np.testing.assert_array_equal(fast, slow)


@pytest.mark.parametrize("threads", [2, 3])
def test_joint_entropy_one_split_over_threads(threads, kernels_always, monkeypatch):
    """The greedy step's counts split over threads (partial counts added as integers) give
    the numpy path's entropies, bit for bit."""
    rng = np.random.default_rng(4)
    X = _with_ties(_power_law(rng, 900, 300, 25), rng)
    A = DiscreteData.from_array(X)
    monkeypatch.setattr(kern, "MIN_SPLIT_ENTRIES", 0)
    monkeypatch.setattr(eng, "KERNEL_THREADS", threads)
    cols = np.diff(sp.csc_matrix(X).indptr)
    for j in (int(np.argmax(cols)), int(np.argsort(cols)[cols.size // 2]), X.shape[1] - 1):
        for base in (2.0, np.e):
            fast, slow = _both(lambda j=j, b=base: joint_entropy_one(A, A, j, base=b), monkeypatch)
            np.testing.assert_array_equal(fast, slow)


@pytest.mark.parametrize("cls", [SCLS, AMI])
@pytest.mark.parametrize("seed", [0, 1])
def test_selection_identical_synthetic(cls, seed, kernels_always, monkeypatch):
    rng = np.random.default_rng(seed)
    dup = np.arange(5)  # the most frequent columns: likely picked, and tied
    X = _with_ties(_power_law(rng, 800, 500, 20), rng, dup)
    Y = _power_law(rng, 800, 150, 5)
    A, B = DiscreteData.from_array(X), DiscreteData.from_array(Y)

    def run():
        sel = cls(n_features_to_select=40)
        ranking, scores = sel._select(InfoCache(A, B, full_block_pairs=0), 40)
        return ranking, scores, sel.relevance_

    fast, slow = _both(run, monkeypatch)
    for f, s in zip(fast, slow, strict=True):
        np.testing.assert_array_equal(f, s)
    # the duplicated columns tie exactly with their originals (lowest index wins)
    np.testing.assert_array_equal(fast[2][500:505], fast[2][dup])
    assert not np.isin(np.arange(500, 505), fast[0][:10]).any()


# the binary data sets (features and labels)
_REAL = {
    "medical": "mulan/medical/medical.arff",
    "enron": "mulan/enron/enron.arff",
    "bibtex": "mulan/bibtex/bibtex.arff",
    "delicious": "mulan/delicious/delicious.arff",
}


@pytest.mark.parametrize("name", list(_REAL))
def test_real_selection_identical(dataset_path, name, kernels_always, monkeypatch):
    ds = load(dataset_path(_REAL[name]))
    X = sp.csr_matrix(ds.X)
    assert np.all(X.data == 1)  # binary features: what the kernels are for
    A, B = DiscreteData.from_array(X), DiscreteData.from_array(ds.Y)
    k = 20 if name == "delicious" else 40

    def run():
        sel = SCLS(n_features_to_select=k)
        ranking, scores = sel._select(InfoCache(A, B, full_block_pairs=0), k)
        return ranking, scores, sel.relevance_

    fast, slow = _both(run, monkeypatch)
    for f, s in zip(fast, slow, strict=True):
        np.testing.assert_array_equal(f, s)
    # and the same selection as the full feature × label table
    full = SCLS(n_features_to_select=k)
    ranking, _ = full._select(InfoCache(A, B), k)
    np.testing.assert_array_equal(ranking, fast[0])


def test_table_budget_clear_error(monkeypatch):
    """A full feature × label table above the budget is a TableTooLargeError naming the
    budget, before any allocation; SCLS (label sums) still fits on the same data."""
    from skmlfs.info import TableTooLargeError, max_table_bytes
    from skmlfs.selection import MDMR

    rng = np.random.default_rng(0)
    X, Y = _power_law(rng, 300, 400, 10), _power_law(rng, 300, 40, 3)
    assert np.all(Y.sum(axis=0) > 0)
    monkeypatch.setenv("SKMLFS_MAX_TABLE_GIB", str(8 * 300 * 40 / 2**30))  # below 400×40
    assert max_table_bytes() == 8 * 300 * 40
    with pytest.raises(TableTooLargeError, match="SKMLFS_MAX_TABLE_GIB"):
        MDMR(n_features_to_select=5).fit(X, Y)
    assert issubclass(TableTooLargeError, ValueError)
    monkeypatch.setattr("skmlfs.info._cache.FULL_BLOCK_PAIRS", 0)  # label sums
    sel = SCLS(n_features_to_select=5).fit(X, Y)
    assert sel.selection_order_.size == 5
    monkeypatch.delenv("SKMLFS_MAX_TABLE_GIB")
    ref = MDMR(n_features_to_select=5).fit(X, Y)
    assert ref.selection_order_.size == 5


def test_binary_corrections_no_feature_values(kernels_always):
    """Features without a single non-zero value: no chunk, all corrections 0."""
    X = sp.csr_matrix((50, 4))
    Y = _power_law(np.random.default_rng(0), 50, 6, 2)
    A, B = DiscreteData.from_array(X, dense=False), DiscreteData.from_array(Y, dense=False)
    out = ls.binary_corrections(A, B, ls._ext_table(50), 2**20)
    np.testing.assert_array_equal(out, np.zeros(4))
