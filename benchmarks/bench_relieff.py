"""Benchmark: ReliefF-ML (``skmlfs.selection.ReliefFML``) against a straightforward loop.

The straightforward implementation follows Algorithm 1 literally: for each sampled
instance it computes the HEOM distances to every instance (one NumPy row operation), sorts
them, and for each label takes the first ``k`` instances having the label, then updates
``W`` with Eq. (6) neighbour by neighbour (each update a NumPy operation over all
features). The library method selects the neighbours of all sampled instances and labels
with blocked matrix products and partitions, and computes ``W`` as one product of the
pair coefficients with the per-pair differences. Both use the same sampled instances and
must give the same weights (checked to 1e-10).

Reported per data set: both times and the ratio (best of ``--repeat``), peak traced
memory (``tracemalloc``) of each, and the library time for growing ``m`` (the cost should
grow linearly in ``m``: the time per sampled instance stays flat). Usage::

    MLFS_DATASETS=/path/to/datasets python benchmarks/bench_relieff.py [medical bibtex]
"""

from __future__ import annotations

import argparse
import gc
import time
import tracemalloc
from functools import partial

import numpy as np
import scipy.sparse as sp

from skmlfs.datasets import load_name
from skmlfs.selection import ReliefFML


def loop_relieff_ml(X, Y, samples, k, s=1.0):
    """Algorithm 1 / Eq. (6), one sampled instance, label and neighbour at a time."""
    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)
    n, d = X.shape
    q = Y.shape[1]
    m = len(samples)
    rng = X.max(0) - X.min(0)
    inv = np.divide(1.0, rng, out=np.zeros(d), where=rng > 0)
    P = (Y.sum(0) + s) / (n + 2 * s)
    W = np.zeros(d)
    for i in samples:
        delta = np.abs(X - X[i]) * inv  # δ_f(x_i, x_j) for every j
        dist = np.sqrt((delta**2).sum(1))
        dist[i] = np.inf
        order = np.argsort(dist, kind="stable")[:-1]  # i itself is last
        rel = Y[i] == 1
        srel, sirr = P[rel].sum(), P[~rel].sum()
        for l in range(q):
            G = order[Y[order, l] == 1][:k]
            if G.size == 0:
                continue
            PG = np.mean((Y[G] != Y[i]).sum(1) / q)
            if rel[l]:
                factor = -P[l] / srel * (1 - PG) / (1 + PG)
            else:
                factor = P[l] / sirr * PG
            for j in G:
                W += factor * delta[j] / (m * G.size)
    return W


def timed(fn, repeat):
    best, out = np.inf, None
    for _ in range(repeat):
        gc.collect()
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def peak_mb(fn):
    gc.collect()
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("datasets", nargs="*", default=["medical", "bibtex"])
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--loop-m", type=int, default=None,
                    help="sampled instances for the loop comparison (default: paper rule)")
    args = ap.parse_args()
    for name in args.datasets:
        ds = load_name(name)
        X = sp.csr_matrix(ds.X) if sp.issparse(ds.X) else np.asarray(ds.X, dtype=float)
        Y = ds.Y
        n, d = X.shape
        kind = f"sparse, density {X.nnz / (n * d):.3f}" if sp.issparse(X) else "dense"
        print(f"\n== {name}: {n} × {d} ({kind}), {Y.shape[1]} labels, k = {args.k}")
        est = ReliefFML(k=args.k, m=args.loop_m, random_state=0)
        lib = partial(est.fit, X, Y)
        t_lib, sel = timed(lib, args.repeat)
        m = sel.sample_indices_.size
        loop = partial(loop_relieff_ml, X, Y, sel.sample_indices_, args.k)
        t_loop, W = timed(loop, 1)
        err = np.abs(W - sel.raw_weights_).max()
        same = err <= 1e-10 * max(1.0, np.abs(W).max())
        mem_lib, mem_loop = peak_mb(lib), peak_mb(loop)
        print(f"m = {m}:  ReliefFML {t_lib:.3f} s   loop {t_loop:.3f} s   "
              f"ratio {t_loop / t_lib:.1f}×   max |ΔW| = {err:.1e} ({'same' if same else 'DIFF'})")
        print(f"peak traced memory: ReliefFML {mem_lib:.1f} MB   loop {mem_loop:.1f} MB")
        print("linearity in m (library; least-squares line t = a + b·m):")
        print("      m    time (s)   ms per sampled instance")
        ms, ts = [], []
        for frac in (0.25, 0.5, 1.0, 2.0, 4.0):
            mm = max(1, int(round(frac * m)))
            t, _ = timed(partial(ReliefFML(k=args.k, m=mm, random_state=0).fit, X, Y),
                         args.repeat)
            ms.append(mm)
            ts.append(t)
            print(f"  {mm:5d}   {t:8.3f}   {1000 * t / mm:8.2f}")
        b, a = np.polyfit(ms, ts, 1)
        resid = np.max(np.abs(np.polyval([b, a], ms) - ts) / np.asarray(ts))
        print(f"  fit: a = {a:.3f} s fixed + b = {1000 * b:.2f} ms per sampled instance; "
              f"largest relative deviation from the line {100 * resid:.0f} %")

if __name__ == "__main__":
    main()
