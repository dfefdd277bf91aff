"""Benchmark: ReliefF-ML (``skmlfs.selection.ReliefFML``) against a straightforward loop.

The straightforward implementation follows Algorithm 1 literally: for each sampled
instance it computes the HEOM distances to every instance (one NumPy row operation), sorts
them, and for each label takes the first ``k`` instances having the label, then updates
``W`` with Eq. (6) neighbour by neighbour (each update a NumPy operation over all
features). The library method selects the neighbours of all sampled instances and labels
with blocked matrix products and partitions, and computes ``W`` as one product of the
pair coefficients with the per-pair differences. Both use the same sampled instances and
must give the same weights (checked to 1e-10).

Reported per data set (issue #5 §4):

1. the library at the paper's ``m`` (10 % / 5 % / 1 % of the instances): time and peak
   memory;
2. library vs loop at the same ``m`` — the paper's ``m``, or a smaller ``--loop-m`` where
   the loop would take minutes (default ``bibtex=100``): both times, their ratio (from the
   same run) and the peak memory of each;
3. the library time over a grid of ``m`` (``--lin-m``) reaching well beyond the fixed
   cost (validation, ranges, encoding of the data): a least-squares line
   ``t = a + b·m`` with its R², ``a`` the fixed cost and ``b`` the cost per sampled
   instance, and ``(t − a)/m`` per grid point, flat if the cost is linear in ``m``. The
   fit is made on the process CPU times (all threads), which other jobs on a shared
   machine disturb much less than the wall-clock times (also fitted and shown).

Times are the best of ``--repeat`` runs (the loop: one run), with more runs of either
until they total ``--min-time`` seconds (at most 50), so that short runs on a shared
machine are taken at a quiet moment. Peak memory is measured in the timed runs
themselves, without tracing overhead: the kernel's high-water mark of the resident set
(``VmHWM``) is reset before each call (``/proc/self/clear_refs``), after free heap memory
is returned to the system (``malloc_trim``), and the increase over the resident set at the
start of the call is reported (the data set itself, loaded before, is not counted; memory
the allocator still holds may be reused unseen, so it is a lower bound; the largest over
the runs). Where the reset is not possible (not Linux) memory is not reported. The load
average is printed with the numbers (the machine may be shared).
Usage::

    MLFS_DATASETS=/path/to/datasets python benchmarks/bench_relieff.py [medical bibtex]
        [--loop-m bibtex=100] [--lin-m medical=500,1000,2000,4000,8000] [--repeat 3]
        [--min-time 2]
"""

from __future__ import annotations

import argparse
import gc
import os
import time
from functools import partial

import numpy as np
import scipy.sparse as sp
from _peak import PeakRSS  # benchmarks/_peak.py (scripts run from this folder)

from skmlfs.datasets import load_name
from skmlfs.selection import ReliefFML
from skmlfs.selection._relieff import relieff_ml_sample_size

# m of the loop comparison where the paper's m would make the loop take minutes.
DEFAULT_LOOP_M = {"bibtex": 100}
# m grids of the linearity fit: up to where the per-sample cost dominates the fixed one.
DEFAULT_LIN_M = {
    "medical": (500, 1000, 2000, 4000, 8000),
    "bibtex": (100, 200, 400, 800, 1600),
}


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


def measure(fn, repeat, rss, min_time=0.0, cpu=False):
    """Best time, largest peak-memory increase and last result of ``fn``.

    ``fn`` runs ``repeat`` times, and more (up to 50) until the runs total ``min_time``
    seconds: on a shared machine the best of many short runs is the unloaded time.
    ``cpu=True`` also returns the best process CPU time (all threads), which other jobs on
    the machine disturb much less than the wall-clock time.
    """
    best, best_cpu, peak, out, total, runs = np.inf, np.inf, 0.0, None, 0.0, 0
    while runs < repeat or (total < min_time and runs < 50):
        out = None
        gc.collect()
        rss.start()
        c = time.process_time()
        t = time.perf_counter()
        out = fn()
        dt = time.perf_counter() - t
        best_cpu = min(best_cpu, time.process_time() - c)
        peak = max(peak, rss.stop())
        best = min(best, dt)
        total += dt
        runs += 1
    return (best, best_cpu, peak, out) if cpu else (best, peak, out)


def line_fit(x, y):
    """Least-squares ``y = a + b·x``: ``a``, ``b``, R² and the fitted values."""
    b, a = np.polyfit(x, y, 1)
    fit = a + b * x
    r2 = 1.0 - ((y - fit) ** 2).sum() / ((y - y.mean()) ** 2).sum()
    return a, b, r2, fit


def per_dataset(values, name, default, parse):
    """``--opt VALUE`` (every data set) or ``--opt name=VALUE`` (one data set)."""
    chosen = default.get(name)
    for v in values or ():
        key, sep, val = v.rpartition("=")
        if not sep or key == name:
            chosen = parse(val)
    return chosen


def load_str():
    return "load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


def fmt_mb(x):
    return "n/a" if np.isnan(x) else f"{x:.1f} MB"


def lib_fit(X, Y, k, m):
    return ReliefFML(k=k, m=m, random_state=0).fit(X, Y)


def bench_dataset(name, args, rss):
    ds = load_name(name)
    X = sp.csr_matrix(ds.X) if sp.issparse(ds.X) else np.asarray(ds.X, dtype=float)
    Y = ds.Y
    n, d = X.shape
    m_paper = relieff_ml_sample_size(n)
    kind = f"sparse, density {X.nnz / (n * d):.3f}" if sp.issparse(X) else "dense"
    print(f"\n== {name}: {n} × {d} ({kind}), {Y.shape[1]} labels, k = {args.k}; "
          f"{load_str()}")

    lib = partial(lib_fit, X, Y, args.k)
    t_p, c_p, mem_p, sel_p = measure(
        partial(lib, m_paper), args.repeat, rss, args.min_time, cpu=True
    )
    print(f"ReliefFML at the paper's m = {m_paper}: {t_p:.3f} s (CPU {c_p:.3f} s), "
          f"peak {fmt_mb(mem_p)}")

    m_cmp = per_dataset(args.loop_m, name, DEFAULT_LOOP_M, int) or m_paper
    if m_cmp == m_paper:
        t_lib, c_lib, mem_lib, sel = t_p, c_p, mem_p, sel_p
    else:
        t_lib, c_lib, mem_lib, sel = measure(
            partial(lib, m_cmp), args.repeat, rss, args.min_time, cpu=True
        )
    loop = partial(loop_relieff_ml, X, Y, sel.sample_indices_, args.k)
    t_loop, c_loop, mem_loop, W = measure(loop, 1, rss, args.min_time, cpu=True)
    err = np.abs(W - sel.raw_weights_).max()
    same = err <= 1e-10 * max(1.0, np.abs(W).max())
    print(f"m = {m_cmp}{' (paper)' if m_cmp == m_paper else ''}:  ReliefFML {t_lib:.3f} s"
          f"   loop {t_loop:.3f} s   ratio {t_loop / t_lib:.1f}×   "
          f"max |ΔW| = {err:.1e} ({'same' if same else 'DIFF'})")
    print(f"  CPU time: ReliefFML {c_lib:.3f} s   loop {c_loop:.3f} s   "
          f"ratio {c_loop / c_lib:.1f}×")
    print(f"peak memory: ReliefFML {fmt_mb(mem_lib)}   loop {fmt_mb(mem_loop)}   "
          f"(X as dense float64: {n * d * 8 / 2**20:.1f} MB)")

    grid = per_dataset(args.lin_m, name, DEFAULT_LIN_M,
                       lambda v: tuple(int(x) for x in v.split(",")))
    grid = grid or tuple(m_paper * f for f in (1, 2, 4, 8, 16))
    ms, ts, cs, mems = [], [], [], []
    for mm in grid:
        t, c, mem, _ = measure(partial(lib, mm), args.repeat, rss, args.min_time, cpu=True)
        ms.append(mm)
        ts.append(t)
        cs.append(c)
        mems.append(mem)
    ms_a = np.asarray(ms, float)
    a, b, r2, _ = line_fit(ms_a, np.asarray(ts))
    ac, bc, r2c, fitc = line_fit(ms_a, np.asarray(cs))
    print("linearity in m (library): least-squares t = a + b·m on the process CPU times "
          "(and on the wall-clock times, more disturbed by other jobs):")
    print("      m    wall (s)    CPU (s)   CPU ms/instance   (CPU−a)/m ms   "
          "per-instance share   rel. residual   peak memory")
    for mm, t, c, f, mem in zip(ms, ts, cs, fitc, mems, strict=True):
        print(f"  {mm:5d}   {t:8.3f}   {c:8.3f}   {1000 * c / mm:15.2f}   "
              f"{1000 * (c - ac) / mm:12.2f}   {100 * bc * mm / c:17.0f} %   "
              f"{100 * (c - f) / f:+12.1f} %   {fmt_mb(mem):>10s}")
    print(f"  fit (CPU):  a = {ac:.3f} s fixed, b = {1000 * bc:.3f} ms per sampled instance, "
          f"R² = {r2c:.4f}")
    print(f"  fit (wall): a = {a:.3f} s fixed, b = {1000 * b:.3f} ms per sampled instance, "
          f"R² = {r2:.4f}; {load_str()}")

def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("datasets", nargs="*", default=["medical", "bibtex"])
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=3, help="library runs per timing (best)")
    ap.add_argument("--min-time", type=float, default=2.0,
                    help="more runs (library and loop, at most 50) until they total this "
                    "many seconds")
    ap.add_argument("--loop-m", action="append", metavar="[NAME=]M",
                    help="sampled instances of the loop comparison (default: the paper's m; "
                    f"{DEFAULT_LOOP_M})")
    ap.add_argument("--lin-m", action="append", metavar="[NAME=]M1,M2,...",
                    help="m grid of the linearity fit (default: paper m × 1, 2, 4, 8, 16; "
                    f"{DEFAULT_LIN_M})")
    args = ap.parse_args()
    rss = PeakRSS()
    print(f"{os.cpu_count()} CPUs, numpy {np.__version__}; {load_str()}; peak memory "
          + ("= VmHWM increase over the call" if rss.ok else "not available"))
    for name in args.datasets:
        bench_dataset(name, args, rss)


if __name__ == "__main__":
    main()
