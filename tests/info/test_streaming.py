"""Label sums without the d × q block, and counting over row blocks (issue #17).

* ``label_sums`` (Σ_l I(f; l), Σ_l H(f, l) over label blocks, zero pairs in closed form)
  against the full block of the engine and against an extended-precision reference;
* selectors fitted on row blocks (arrays, memmaps, iterators, Dask arrays, a Dask cluster
  with two worker processes) against the in-memory fit.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time

import numpy as np
import pytest
import scipy.sparse as sp

from skmlfs.datasets import load
from skmlfs.discretize import EqualWidthDiscretizer
from skmlfs.info import (
    ArrayBlocks,
    DiscreteData,
    InfoCache,
    IterableBlocks,
    entropy,
    joint_entropy,
)
from skmlfs.info._labelsum import label_sums, zero_pair_sums
from skmlfs.info._rowblocks import StreamInfoCache
from skmlfs.selection import AMI, GICS, PMU, SCLS
from skmlfs.selection._base import is_discrete


def _tol(n: int, q: int) -> float:
    """Rounding scale of a sum over q labels of MIs from c·log c terms (bits).

    Each pair's I(f; l) is a difference of terms of size ~log2 n with float64 rounding, so
    two correct summation orders may differ by a few q·eps·log2 n (both engines do).
    """
    return 8 * q * np.finfo(float).eps * np.log2(n)


def _full_block(X, Y):
    A, B = DiscreteData.from_array(X), DiscreteData.from_array(Y)
    hx, hy = entropy(A), entropy(B)
    hxy = joint_entropy(A, B)
    return A, B, hx, hy, (hx[:, None] + hy[None, :] - hxy).sum(axis=1), hxy.sum(axis=1)


def _binary_sparse(n, p, density, seed):
    M = sp.random(n, p, density=density, random_state=seed, format="csr")
    M.data[:] = 1
    return M


def _xlogx_ld(c):
    c = np.asarray(c, dtype=np.longdouble)
    return np.where(c > 0, c * np.log(np.where(c > 0, c, 1)), 0)


def _relevance_longdouble(X, Y):
    """Σ_l I(f; l) of binary X, Y from exact counts in extended precision (bits)."""
    X, Y = sp.csc_matrix(X, dtype=np.float64), sp.csc_matrix(Y, dtype=np.float64)
    n = np.longdouble(X.shape[0])
    n11 = (X.T @ Y).toarray().astype(np.longdouble)
    a = np.asarray(X.sum(axis=0)).ravel().astype(np.longdouble)[:, None]
    b = np.asarray(Y.sum(axis=0)).ravel().astype(np.longdouble)[None, :]
    t = _xlogx_ld
    s = (t(n11) + t(a - n11) + t(b - n11) + t(n - a - b + n11)
         - t(a) - t(n - a) - t(b) - t(n - b) + t(n))
    return (s / n).sum(axis=1) / np.log(np.longdouble(2))


# ------------------------------------------------------------------ closed form
def test_zero_pair_sums_equal_enumeration():
    rng = np.random.default_rng(0)
    n = 500
    nz_a = rng.integers(0, 200, 60)
    nz_b = np.concatenate([rng.integers(0, 50, 300), [0, 0, 7, 7, 7]])
    got = zero_pair_sums(nz_a, nz_b, n)
    t = _xlogx_ld
    direct = np.array([sum(float(t(n - a - b) - t(n - a) - t(n - b) + t(n)) for b in nz_b)
                       for a in nz_a])
    np.testing.assert_allclose(got, direct, rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("entries", [1, 37, 10**9])
def test_label_sums_match_full_block_sparse(seed, entries):
    rng = np.random.default_rng(seed)
    n, d, q = 400, 60, 45
    X = _binary_sparse(n, d, 0.05, seed).tolil()
    X[:, 3] = 0  # all-zero feature
    X[:, 4] = 2  # constant non-zero feature
    Y = _binary_sparse(n, q, 0.04, seed + 100).tolil()
    Y[:, 0] = 0  # label with no positives
    Y[:, 1] = 1  # label positive everywhere
    X, Y = X.tocsr(), Y.tocsr()
    A, B, hx, hy, rel0, sh0 = _full_block(X, Y)
    assert not A.is_dense and not B.is_dense
    rel, sh = label_sums(A, B, h_x=hx, h_y=hy, base=2.0, block_entries=entries)
    assert np.abs(rel - rel0).max() <= min(1e-12 * np.abs(rel0).max(), _tol(n, q))
    assert np.abs(sh - sh0).max() <= 1e-13 * np.abs(sh0).max()
    # the closed form is at least as close to the extended-precision sums as the block
    ex = _relevance_longdouble(X, Y)
    assert np.abs(rel - ex).max() <= 2 * np.abs(rel0 - ex).max() + 1e-15
    # multi-valued (non-binary) sparse codes take the grouped path
    X2, Y2 = X.copy(), Y.copy()
    X2.data = rng.integers(1, 4, X2.data.size).astype(float)
    Y2.data = rng.integers(1, 3, Y2.data.size).astype(float)
    A, B, hx, hy, rel0, sh0 = _full_block(X2, Y2)
    rel, sh = label_sums(A, B, h_x=hx, h_y=hy, base=2.0, block_entries=entries)
    assert np.abs(rel - rel0).max() <= min(1e-12 * np.abs(rel0).max(), _tol(n, q))
    assert np.abs(sh - sh0).max() <= 1e-13 * np.abs(sh0).max()


def test_label_sums_dense_blocks_and_bases():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 3, (300, 25))
    X[:, 2] = 1
    Y = (rng.random((300, 13)) < 0.4).astype(int)
    Y[:, 5] = 0
    A, B = DiscreteData.from_array(X), DiscreteData.from_array(Y)
    assert A.is_dense and B.is_dense
    for base in (2.0, np.e, 10.0):
        hx, hy = entropy(A, base=base), entropy(B, base=base)
        hxy = joint_entropy(A, B, base=base)
        rel, sh = label_sums(A, B, h_x=hx, h_y=hy, base=base, block_cells=40)
        rel0 = (hx[:, None] + hy[None, :] - hxy).sum(axis=1)
        np.testing.assert_allclose(rel, rel0, rtol=0, atol=1e-12 * np.abs(rel0).max())
        np.testing.assert_allclose(sh, hxy.sum(axis=1), rtol=1e-14)


def test_cache_switches_to_label_blocks_above_threshold():
    X, Y = _binary_sparse(300, 40, 0.05, 1), _binary_sparse(300, 20, 0.05, 2)
    small = InfoCache(X, Y)
    big = InfoCache(X, Y, full_block_pairs=10)
    np.testing.assert_allclose(big.relevance, small.relevance, rtol=0,
                               atol=1e-12 * small.relevance.max())
    assert "h_xy" in small.__dict__ and "h_xy" not in big.__dict__  # no d × q block
    np.testing.assert_allclose(big.sum_h_xy, small.sum_h_xy, rtol=1e-14)
    cand, labels = np.array([5, 1, 7]), np.array([3, 0, 11])
    np.testing.assert_allclose(big.sum_h_xy_over(cand, labels),
                               small.sum_h_xy_over(cand, labels), rtol=1e-14)


# ------------------------------------------------------------------ real data
# every shared data set (binary features: compared with extended precision as well)
_PATHS = {
    "medical": "mulan/medical/medical.arff",
    "enron": "mulan/enron/enron.arff",
    "bibtex": "mulan/bibtex/bibtex.arff",
    "genbase": "mulan/genbase/genbase.arff",
    "delicious": "mulan/delicious/delicious.arff",
    "corel5k": "mulan/corel5k/Corel5k-sparse.arff",
    "corel16k": "mulan/corel16k/Corel16k001-test.arff",
    "tmc2007": "mulan/tmc2007/tmc2007-500.arff",
    "emotions": "mulan/emotions/emotions.arff",
    "yeast": "mulan/yeast/yeast.arff",
    "scene": "mulan/scene/scene-train.arff",
    "cal500": "mulan/cal500/cal500.arff",
    "flags": "mulan/flags/flags.arff",
    "foodtruck": "mulan/foodtruck/foodtruck.arff",
    "birds": "mulan/birds/birds-train.arff",
    "plcfs-enron": "plcfs/enron.mat",
    "plcfs-genbase": "plcfs/genbase.mat",
    "plcfs-medical": "plcfs/medical.mat",
    "plcfs-emotions": "plcfs/emotions.mat",
    "plcfs-yeast": "plcfs/yeast.mat",
}
_BINARY_SETS = ["medical", "enron", "bibtex", "genbase", "delicious", "corel5k", "corel16k",
                "tmc2007", "plcfs-enron", "plcfs-medical"]
_SELECTION_SETS = ["medical", "enron", "bibtex", "genbase", "delicious", "emotions", "yeast",
                   "cal500"]


def _load_discrete(dataset_path, name):
    ds = load(dataset_path(_PATHS[name]))
    X = ds.X
    if not is_discrete(X):
        X = EqualWidthDiscretizer().fit_transform(X.toarray() if sp.issparse(X) else X)
    return X, ds.Y


@pytest.mark.parametrize("name", list(_PATHS))
def test_real_label_sums_match_engine(dataset_path, name):
    X, Y = _load_discrete(dataset_path, name)
    A, B = DiscreteData.from_array(X), DiscreteData.from_array(Y)
    full = InfoCache(A, B)
    blocks = InfoCache(A, B, full_block_pairs=0)
    r0, r1 = full.relevance, blocks.relevance
    assert "h_xy" not in blocks.__dict__
    # both are rounded sums of q terms: they agree to their rounding scale (at most
    # 1e-11 of the largest relevance; the full block itself is that far from exact sums)
    assert np.abs(r1 - r0).max() <= min(1e-11 * np.abs(r0).max(), _tol(*Y.shape))
    assert np.abs(blocks.sum_h_xy - full.sum_h_xy).max() <= 1e-13 * full.sum_h_xy.max()
    if name in _BINARY_SETS:
        Xb = sp.csr_matrix(X, dtype=np.float64)
        Xb.data[:] = 1
        Yb = sp.csr_matrix(Y, dtype=np.float64)
        Yb.data[:] = 1
        ex = _relevance_longdouble(Xb, Yb).astype(float)
        # no less accurate than the full block (checked against extended precision)
        assert np.abs(r1 - ex).max() <= 1.5 * np.abs(r0 - ex).max() + 1e-15
    elif B.is_dense:
        np.testing.assert_array_equal(r1, r0)  # dense label blocks: the same sums


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.slow) if n in ("delicious", "bibtex", "genbase") else n
    for n in _SELECTION_SETS])
def test_real_selection_same_from_label_blocks_and_row_blocks(dataset_path, name, monkeypatch):
    X, Y = _load_discrete(dataset_path, name)
    ref = SCLS().fit(X, Y)
    import skmlfs.info._cache as cache_mod

    monkeypatch.setattr(cache_mod, "FULL_BLOCK_PAIRS", 0)
    lb = SCLS().fit(X, Y)
    np.testing.assert_array_equal(lb.selection_order_, ref.selection_order_)
    rows = SCLS().fit(ArrayBlocks(X, Y, block_rows=700), None)
    np.testing.assert_array_equal(rows.selection_order_, ref.selection_order_)
    np.testing.assert_allclose(rows.scores_, ref.scores_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(rows.entropies_, ref.entropies_, rtol=1e-13, atol=1e-15)
    ami = AMI(20).fit(ArrayBlocks(X, Y, block_rows=1000), None)
    np.testing.assert_array_equal(ami.selection_order_, AMI(20).fit(X, Y).selection_order_)


# ------------------------------------------------------------------ row blocks
def _problem(seed=0, n=1500, d=120, q=25):
    X = _binary_sparse(n, d, 0.06, seed).tolil()
    X[:, 7] = 5  # constant non-zero: zero entropy, never selected
    Y = _binary_sparse(n, q, 0.05, seed + 1).tolil()
    Y[:, 2] = 0
    return X.tocsr(), Y.tocsr()


@pytest.mark.parametrize("selector", [SCLS, AMI, GICS])
def test_iterable_blocks_same_selection(selector):
    X, Y = _problem()
    ref = selector(15).fit(X, Y)

    def blocks():
        for r0 in range(0, X.shape[0], 311):
            yield X[r0 : r0 + 311], Y[r0 : r0 + 311].toarray()

    got = selector(15).fit(IterableBlocks(blocks, X.shape[1], Y.shape[1]), None)
    np.testing.assert_array_equal(got.selection_order_, ref.selection_order_)
    assert 7 not in got.selection_order_ and got.entropies_[7] == ref.entropies_[7]
    assert got.n_features_in_ == X.shape[1]


def test_multivalued_dense_blocks_and_memmap(tmp_path):
    rng = np.random.default_rng(5)
    X = rng.integers(0, 4, (2000, 40)).astype(np.float64)
    X[:, 3] = 7.0
    X[:, 4] = rng.integers(0, 2, 2000) * 1e6 + 0.5  # non-integer symbols (discretizer=None)
    Y = (rng.random((2000, 9)) < 0.3).astype(np.int8)
    ref = SCLS(12, discretizer=None).fit(X, Y)
    mm = np.memmap(tmp_path / "X.f64", dtype=np.float64, mode="w+", shape=X.shape)
    mm[:] = X
    mm.flush()
    mm = np.memmap(tmp_path / "X.f64", dtype=np.float64, mode="r", shape=X.shape)
    got = SCLS(12, discretizer=None).fit(mm, Y)
    np.testing.assert_array_equal(got.selection_order_, ref.selection_order_)
    # a different coding (code 0 = value 0) sums the same cells in another order
    assert np.abs(got.relevance_ - ref.relevance_).max() <= _tol(*Y.shape)


def test_greedy_counts_candidates_in_batches():
    X, Y = _problem(seed=2, d=200)
    cache = StreamInfoCache(ArrayBlocks(X, Y, block_rows=400), prefetch=16)
    sel = SCLS(30)
    ranking, _ = sel._select(cache, 30)
    np.testing.assert_array_equal(ranking, SCLS(30).fit(X, Y).selection_order_)
    # 1 coding pass + 1 label pass + far fewer count passes than the 29 greedy updates
    assert cache.n_passes < 2 + 29
    for s in ranking[:-1]:
        ref = InfoCache(X, Y).mi_xx(int(s))
        np.testing.assert_allclose(cache.mi_xx(int(s)), ref, rtol=0, atol=1e-14)


def test_sparse_label_counts_over_row_blocks():
    X, Y = _problem(seed=4)
    dense = StreamInfoCache(ArrayBlocks(X, Y, block_rows=200))
    sparse = StreamInfoCache(ArrayBlocks(X, Y, block_rows=200), dense_cells=0,
                             block_entries=500)
    rel = InfoCache(X, Y).relevance
    for c in (dense, sparse):
        assert np.abs(c.relevance - rel).max() <= _tol(*Y.shape)
    assert sparse.n_passes > dense.n_passes  # several label blocks, one pass each


def test_row_block_errors():
    X, Y = _problem()
    frac = ArrayBlocks(X.multiply(0.5).tocsr(), Y)
    with pytest.raises(ValueError, match="non-integer"):
        SCLS(3).fit(frac, None)
    # discretizer=None: fractional values are symbols, as in memory
    np.testing.assert_array_equal(
        SCLS(5, discretizer=None).fit(frac, None).selection_order_,
        SCLS(5, discretizer=None).fit(X.multiply(0.5).tocsr(), Y).selection_order_,
    )
    with pytest.raises(ValueError, match="discretize it before fit"):
        SCLS(3, discretizer=EqualWidthDiscretizer()).fit(ArrayBlocks(X, Y), None)
    with pytest.raises(NotImplementedError, match="label-pair term.*in-memory"):
        PMU(3).fit(ArrayBlocks(X, Y), None)
    with pytest.raises(ValueError, match="carries its own labels"):
        SCLS(3).fit(ArrayBlocks(X, Y), Y)
    bad = X.tolil()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        SCLS(3).fit(ArrayBlocks(bad.tocsr(), Y), None)

    def changing():
        yield X[:10], Y[:10]
        changing.calls += 1
        if changing.calls > 1:
            yield X[10:20] * 3, Y[10:20]
        else:
            yield X[10:20], Y[10:20]

    changing.calls = 0
    with pytest.raises(ValueError, match="same rows"):
        SCLS(3).fit(IterableBlocks(changing, X.shape[1], Y.shape[1]), None)


# ------------------------------------------------------------------ Dask
def test_dask_arrays_dense_and_sparse_chunks():
    da = pytest.importorskip("dask.array")
    X, Y = _problem(seed=6)
    ref = SCLS(12).fit(X, Y)
    Xs = da.from_array(X, chunks=(400, 60), asarray=False)  # scipy.sparse chunks
    got = SCLS(12).fit(Xs, Y)
    np.testing.assert_array_equal(got.selection_order_, ref.selection_order_)
    Xd = da.from_array(X.toarray(), chunks=(333, 120))
    Yd = da.from_array(Y.toarray(), chunks=(500, 25))
    np.testing.assert_array_equal(SCLS(12).fit(Xd, Yd).selection_order_, ref.selection_order_)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.cluster
@pytest.mark.subprocess
def test_dask_cluster_two_worker_processes(tmp_path):
    distributed = pytest.importorskip("distributed")
    da = pytest.importorskip("dask.array")
    dask_cli = shutil.which("dask")
    if dask_cli is None:
        pytest.skip("the dask command-line tool is not installed")
    port = _free_port()
    addr = f"tcp://127.0.0.1:{port}"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    procs = [subprocess.Popen(
        [dask_cli, "scheduler", "--host", "127.0.0.1", "--port", str(port),
         "--dashboard-address", ":0", "--no-show"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=tmp_path)]
    try:
        for i in range(2):
            procs.append(subprocess.Popen(
                [dask_cli, "worker", addr, "--nworkers", "1", "--nthreads", "1",
                 "--no-dashboard", "--name", f"w{i}", "--local-directory",
                 str(tmp_path / f"w{i}")],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=tmp_path))
        X, Y = _problem(seed=8, n=3000, d=150, q=30)
        ref = SCLS(20).fit(X, Y)
        with distributed.Client(addr, timeout=60) as client:
            client.wait_for_workers(2, timeout=120)
            Xs = da.from_array(X, chunks=(250, 150), asarray=False)
            with distributed.get_task_stream(client) as ts:
                got = SCLS(20).fit(Xs, da.from_array(Y.toarray(), chunks=(250, 30)))
            workers = {t["worker"] for t in ts.data if "label_counts" in t["key"]
                       or "self_counts" in t["key"]}
            pids = set(client.run(os.getpid).values())
        np.testing.assert_array_equal(got.selection_order_, ref.selection_order_)
        assert np.abs(got.relevance_ - ref.relevance_).max() <= _tol(*Y.shape)
        assert len(workers) == 2  # the counting ran on both worker processes
        assert os.getpid() not in pids and len(pids) == 2
    finally:
        for p in procs[::-1]:
            p.terminate()
        deadline = time.time() + 30
        for p in procs:
            try:
                p.wait(timeout=max(1, deadline - time.time()))
            except subprocess.TimeoutExpired:
                p.kill()


def test_group_sum_gather_path_equals_reduceat():
    """Groups of one column or none (binary and constant variables): gather = reduceat."""
    from skmlfs.info._engine import _group_sum

    rng = np.random.default_rng(9)
    sizes = (rng.random(300) > 0.1).astype(int)
    ptr = np.concatenate([[0], np.cumsum(sizes)])
    for axis in (0, 1):
        a = rng.random((ptr[-1], 7)) if axis == 0 else rng.random((7, ptr[-1]))
        got = _group_sum(a, ptr, axis=axis)
        ref = np.zeros((300, 7) if axis == 0 else (7, 300))
        red = np.add.reduceat(a, ptr[:-1][sizes > 0], axis=axis)
        if axis == 0:
            ref[sizes > 0] = red
        else:
            ref[:, sizes > 0] = red
        np.testing.assert_array_equal(got, ref)


def test_row_sums_matvec_path_equals_direct_counts():
    """Rows holding many entries are counted by one matrix-vector pass: same integers."""
    from skmlfs.info._engine import _MATVEC_SHARE, _row_sums

    X = _binary_sparse(300, 40, 0.2, 3)
    A = DiscreteData.from_array(X)
    rng = np.random.default_rng(3)
    csr = sp.csr_matrix(A.indicators)
    for size in (3, 40, 200, 300):
        rows = np.sort(rng.choice(300, size, replace=False))
        rows = np.concatenate([rows, rows[:2]])  # a repeated row counts twice on both paths
        many = np.diff(csr.indptr)[rows].sum() * _MATVEC_SHARE > csr.nnz
        assert many == (size >= 200)
        ref = np.asarray(csr[rows].sum(axis=0)).ravel().astype(np.int64)
        np.testing.assert_array_equal(_row_sums(A, rows), ref)


def test_binary_label_sums_same_with_one_or_two_threads(monkeypatch):
    """Chunks of feature rows run on two threads: the sums equal the one-thread ones."""
    import skmlfs.info._labelsum as ls

    X, Y = _binary_sparse(500, 80, 0.05, 4), _binary_sparse(500, 30, 0.05, 5)
    A, B = DiscreteData.from_array(X), DiscreteData.from_array(Y)
    hx, hy = entropy(A), entropy(B)
    monkeypatch.setattr(ls, "N_THREADS", 2)
    two = label_sums(A, B, h_x=hx, h_y=hy, base=2.0, block_entries=50)
    monkeypatch.setattr(ls, "N_THREADS", 1)
    one = label_sums(A, B, h_x=hx, h_y=hy, base=2.0, block_entries=50)
    for a, b in zip(two, one, strict=True):
        np.testing.assert_array_equal(a, b)
