"""SCLS (and the count engine) against straightforward per-pair implementations.

Run:  MLFS_DATASETS=/path/to/datasets python benchmarks/bench_scls.py [--quick] [--scale]

For each dataset it times, in one process:

* ``engine``: :class:`skmlfs.selection.SCLS` (block contingency counts, ⌈√|W|⌉ features);
* ``bincount loop``: the same criterion computed pair by pair, each entropy from
  ``np.bincount`` of the pair's joint codes (``skmlfs.selection._reference``; each
  pairwise entropy is computed once, as a loop that accumulates redundancy would);
* ``np.unique loop``: the same with ``np.unique(..., axis=0)`` counts (the most literal
  reading), on the smaller datasets only (it takes minutes on the large ones);

checks that the selections agree, and prints times, ratios and peak memory. ``--scale``
adds the issue's synthetic problems (run in subprocesses so peak RSS is per problem):

* dense binary 50,000 × 5,000 features × 1,000 labels, SCLS selecting 224 features;
* sparse 200,000 × 20,000 × 1,000 at 1 % density, the full relevance matrix;

and the threadpool comparison (greedy loop with 1 vs default BLAS threads).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
import scipy.sparse as sp


def _root() -> Path:
    root = os.environ.get("MLFS_DATASETS")
    if not root:
        sys.exit("set MLFS_DATASETS to the shared datasets folder")
    return Path(root)


def _time(fn, repeat=3):
    best = np.inf
    out = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def _peak(fn):
    tracemalloc.start()
    fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 2**20


def bench_dataset(name, X, Y, k, slow_unique: bool):
    from skmlfs.selection import SCLS
    from skmlfs.selection._reference import StraightforwardInfo, ref_scls

    Xd = X.toarray() if sp.issparse(X) else np.asarray(X)
    t_engine, sel = _time(lambda: SCLS(n_features_to_select=k).fit(X, Y))
    mem_engine = _peak(lambda: SCLS(n_features_to_select=k).fit(X, Y))
    t0 = time.perf_counter()
    # memo=True: every pairwise entropy is counted exactly once (the natural loop that
    # accumulates the new redundancy column each step, not the quadratic re-summation)
    info = StraightforwardInfo(Xd, Y, method="bincount", memo=True)
    ranking, _ = ref_scls(info, k)
    t_loop = time.perf_counter() - t0
    assert np.array_equal(ranking, sel.selection_order_), "straightforward SCLS disagrees"
    row = {
        "dataset": name,
        "shape": f"{X.shape[0]}x{X.shape[1]}x{Y.shape[1]}",
        "k": k,
        "engine_s": t_engine,
        "bincount_loop_s": t_loop,
        "ratio_bincount": t_loop / t_engine,
        "engine_peak_MiB": mem_engine,
    }
    if slow_unique:
        # np.unique(axis=0) per entropy is ~10x slower still: time the relevance part on a
        # sample of pairs and scale by the number of entropies the loop above evaluated.
        info_u = StraightforwardInfo(Xd, Y, method="unique", memo=False)
        rng = np.random.default_rng(0)
        m = 300
        t0 = time.perf_counter()
        for _ in range(m):
            info_u.mi_fl(int(rng.integers(X.shape[1])), int(rng.integers(Y.shape[1])))
        per_mi_unique = (time.perf_counter() - t0) / m
        t0 = time.perf_counter()
        for _ in range(m):
            info.mi_fl(int(rng.integers(X.shape[1])), int(rng.integers(Y.shape[1])))
        per_mi_bincount = (time.perf_counter() - t0) / m
        row["unique_loop_s (extrapolated)"] = t_loop * per_mi_unique / per_mi_bincount
        row["ratio_unique"] = row["unique_loop_s (extrapolated)"] / t_engine
    return row


def bench_mi_matrix(name, X, Y):
    from skmlfs.info import DiscreteData, mutual_info

    def run():
        return mutual_info(DiscreteData.from_array(X), DiscreteData.from_array(Y))

    t, M = _time(run)
    # straightforward: bincount loop over a sample of pairs, extrapolated to all pairs
    Xd = X.toarray() if sp.issparse(X) else X
    from skmlfs.selection._reference import StraightforwardInfo

    info = StraightforwardInfo(Xd, Y, memo=False)
    rng = np.random.default_rng(0)
    pairs = [(rng.integers(X.shape[1]), rng.integers(Y.shape[1])) for _ in range(2000)]
    t0 = time.perf_counter()
    for i, j in pairs:
        v = info.mi_fl(i, j)
        assert abs(v - M[i, j]) < 1e-10
    per_pair = (time.perf_counter() - t0) / len(pairs)
    loop = per_pair * X.shape[1] * Y.shape[1]
    return {
        "dataset": name,
        "pairs": X.shape[1] * Y.shape[1],
        "engine_s": t,
        "bincount_loop_s (extrapolated)": loop,
        "ratio": loop / t,
    }


def bench_threads(X, Y, k):
    """Greedy SCLS with the default BLAS threads vs one thread (threadpoolctl)."""
    from threadpoolctl import threadpool_limits

    from skmlfs.selection import SCLS

    t_default, _ = _time(lambda: SCLS(k).fit(X, Y))
    with threadpool_limits(limits=1):
        t_one, _ = _time(lambda: SCLS(k).fit(X, Y))
    return {"default_threads_s": t_default, "one_thread_s": t_one, "ratio": t_default / t_one}


# ------------------------------------------------------------------ synthetic scale
def _scale_dense():
    from skmlfs.selection import SCLS

    rng = np.random.default_rng(0)
    n, d, q = 50_000, 5_000, 1_000
    Y = (rng.random((n, q), dtype=np.float32) < 0.02).astype(np.uint8)
    X = (rng.random((n, d), dtype=np.float32) < 0.1).astype(np.uint8)
    # make some features informative
    X[:, :q] |= Y[:, :q] & (rng.random((n, q), dtype=np.float32) < 0.8)
    t0 = time.perf_counter()
    sel = SCLS(n_features_to_select=int(np.ceil(np.sqrt(n)))).fit(X, Y)
    return {"problem": "dense 50000x5000x1000", "k": int(sel.selection_order_.size),
            "seconds": time.perf_counter() - t0}


def _random_binary_csr(rng, n, d, density):
    nnz = int(n * d * density)
    rows = rng.integers(0, n, nnz, dtype=np.int32)
    cols = rng.integers(0, d, nnz, dtype=np.int32)
    M = sp.csr_matrix((np.ones(nnz, dtype=np.float32), (rows, cols)), shape=(n, d))
    M.data[:] = 1  # duplicates were summed
    return M


def _scale_sparse():
    from skmlfs.info import DiscreteData, InfoCache

    rng = np.random.default_rng(0)
    n, d, q = 200_000, 20_000, 1_000
    X = _random_binary_csr(rng, n, d, 0.01)
    Y = _random_binary_csr(rng, n, q, 0.01)
    t0 = time.perf_counter()
    cache = InfoCache(DiscreteData.from_array(X), DiscreteData.from_array(Y))
    rel = cache.relevance
    assert not cache.X.is_dense and not cache.Y.is_dense
    return {"problem": "sparse 200000x20000x1000 @1%", "nnz_X": int(X.nnz),
            "relevance_shape": list(rel.shape), "seconds": time.perf_counter() - t0,
            "X_and_Y_stayed_sparse": True}


def _run_child(which: str):
    out = subprocess.run(
        [sys.executable, __file__, "--child", which], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="medical and enron only")
    ap.add_argument("--scale", action="store_true", help="also the synthetic scale problems")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        res = _scale_dense() if args.child == "dense" else _scale_sparse()
        res["peak_rss_GiB"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
        print(json.dumps(res))
        return

    import pandas as pd
    import scipy.io as sio

    from skmlfs.datasets import load

    root = _root()
    rows = []
    for name in ("medical", "enron"):
        m = sio.loadmat(root / "plcfs" / f"{name}.mat")
        X, Y = m["data"], m["answer"]
        k = int(np.ceil(np.sqrt(X.shape[0])))
        rows.append(bench_dataset(name, X, Y, k, slow_unique=True))
        print(rows[-1], flush=True)
    if not args.quick:
        bib = load(root / "mulan/bibtex/bibtex.arff")
        rows.append(bench_dataset("bibtex", bib.X, bib.Y, 86, slow_unique=False))
        print(rows[-1], flush=True)
    print("\nSCLS, engine vs straightforward (same selections asserted):")
    print(pd.DataFrame(rows).to_string(index=False, float_format=lambda v: f"{v:.4g}"))

    if not args.quick:
        deli = load(root / "mulan/delicious/delicious.arff")
        mi = [bench_mi_matrix("delicious", deli.X, deli.Y), bench_mi_matrix("bibtex", bib.X, bib.Y)]
        print("\nFull feature × label MI matrix:")
        print(pd.DataFrame(mi).to_string(index=False, float_format=lambda v: f"{v:.4g}"))
        print("\nBLAS threads in the greedy loop (bibtex, 86 features):")
        print(bench_threads(bib.X, bib.Y, 86))
    if args.scale:
        print("\nScale (each in its own process; peak RSS of that process):")
        for which in ("dense", "sparse"):
            print(_run_child(which), flush=True)


if __name__ == "__main__":
    main()
