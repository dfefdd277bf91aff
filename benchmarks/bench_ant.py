"""Benchmark: MLACO and Ant-TD (``skmlfs.selection``) against a straightforward implementation.

The straightforward implementation is the authors' scheme written plainly: ``X`` densified,
the correlation matrix by ``np.corrcoef``, the feature–label cosines and correlations by
dense products, mutual information one (feature, label) pair at a time, then one ant after
the other and one step after the other, each step a NumPy operation over the features
(the desirability row, the mask, the greedy or roulette choice, the TD update). The
library walks all ants of a cycle together (one ``(n_ants, d)`` block per step) and keeps
sparse ``X`` sparse. Both draw the same random stream and must give the same pheromone
(checked to 1e-9).

Complexity (n samples, d features, q labels, C cycles, m ants, NF steps per ant):
heuristics O(n d² + n d q) time (sparse: the product XᵀX) and 8 d² bytes for the
correlation matrix; the colony O(C · m · NF · d) — MLACO NF = d/2: O(C m d²/2); Ant-TD NF
uniform in d/8 .. d/6: O(C m d²·7/48). The straightforward version has the same order;
it pays Python overhead per ant step instead of per colony step.

Times are wall-clock and process CPU time (all threads), best of ``--repeat`` runs for the
library and one run for the straightforward version. On a shared machine the CPU times
are the better measure (the load average is printed): the wall-clock time of a loaded
machine is mostly waiting.

Usage::

    MLFS_DATASETS=/path/to/datasets python benchmarks/bench_ant.py [emotions bibtex]
        [--repeat 1] [--loop-cycles 0]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import scipy.sparse as sp

from skmlfs.datasets import load_name
from skmlfs.selection import MLACO, AntTD
from skmlfs.selection._ant import abs_correlation


def _minmax(v):
    lo, hi = v.min(), v.max()
    return np.ones_like(v) if hi <= lo else (v - lo) / (hi - lo)


def _nanmax_rows(M):
    M = np.where(np.isnan(M), -np.inf, M)
    out = M.max(axis=1)
    return np.where(np.isfinite(out), out, 0.0)


def _abs_cos(X, Y):
    with np.errstate(divide="ignore", invalid="ignore"):
        C = np.abs(X.T @ Y) / np.outer(np.linalg.norm(X, axis=0), np.linalg.norm(Y, axis=0))
    return np.minimum(C, 1.0)


def _mi_pair(a, b):
    _, ia = np.unique(a, return_inverse=True)
    _, ib = np.unique(b, return_inverse=True)
    joint = np.zeros((ia.max() + 1, ib.max() + 1))
    np.add.at(joint, (ia, ib), 1.0)
    p = joint / len(a)
    pa, pb = p.sum(1, keepdims=True), p.sum(0, keepdims=True)
    nz = p > 0
    return float((p[nz] * np.log2(p[nz] / (pa @ pb)[nz])).sum())


def straightforward(kind, X, Y, est, lib):
    """One ant at a time (see the module docstring); returns the final pheromone.

    The heuristics are computed plainly and checked against the library's; the colony then
    runs on the library's arrays: equal to 1e-12, they can still order exactly tied
    features (duplicate columns of bibtex) differently in the last bit, and the check is
    of the colony, not of the rounding of two correlation formulas.
    """
    p = est.get_params()
    X = X.toarray() if sp.issparse(X) else np.asarray(X, float)
    Y = np.asarray(Y, float)
    n, d = X.shape
    with np.errstate(divide="ignore", invalid="ignore"):
        red = np.minimum(np.abs(np.corrcoef(X, rowvar=False)), 1.0)
        XY = np.abs(np.corrcoef(X, Y, rowvar=False)[:d, d:])
    red[np.isnan(red)] = 1.0
    cos = _nanmax_rows(_abs_cos(X, Y))
    if kind == "mlaco":
        tau, rel = _minmax(cos), _nanmax_rows(np.minimum(XY, 1.0))
    else:
        rel = _minmax(cos)
        Xr = np.sign(X) * np.floor(np.abs(X) + 0.5)
        mi = np.array([[_mi_pair(Xr[:, j], Y[:, l]) for l in range(Y.shape[1])]
                       for j in range(d)])
        tau = _minmax(mi.max(axis=1))
    np.testing.assert_allclose(tau, est.initial_pheromone_, atol=1e-10)
    np.testing.assert_allclose(rel, est.relevance_, atol=1e-10)
    np.testing.assert_allclose(red, lib, atol=1e-10)
    # the code's floor of a zero correlation: exact zeros of one formula are 1e-17 in the
    # other, so it is applied to the library's matrix only
    red = lib.copy()
    red[red == 0] = 1e-4
    tau, rel = est.initial_pheromone_.copy(), est.relevance_
    if kind == "mlaco":
        inv = red ** (-p["beta"])
    else:
        V = rel.copy()
    rng = np.random.RandomState(p["random_state"])
    m = min(p["n_ants"], d)
    off = 1 if kind == "mlaco" else 0
    for _ in range(p["n_cycles"]):
        start = rng.permutation(d)[:m]
        if kind == "mlaco":
            nf = np.full(m, int(np.clip(np.floor(p["path_fraction"] * d), 1, d - 1)))
        else:
            lo = int(np.clip(np.floor(p["min_path_fraction"] * d), 1, d - 1))
            hi = max(lo, int(np.clip(np.floor(p["max_path_fraction"] * d), 1, d - 1)))
            nf = rng.randint(lo, hi + 1, size=m)
        steps = int(nf.max())
        u = np.empty((steps, m))
        v = np.empty((steps, m))
        for t in range(steps):
            u[t] = rng.random_sample(m)
            v[t] = rng.random_sample(m)
        counts = np.zeros(d)
        copies = []
        for a in range(m):
            cur = start[a]
            unv = np.ones(d, dtype=bool)
            unv[cur] = False
            Va = None if kind == "mlaco" else V.copy()
            for t in range(nf[a]):
                w = inv[cur] * (tau * rel) if kind == "mlaco" else Va * tau
                w = np.where(unv, w, 0.0)
                if u[t, a] > (1 - (t + off) / nf[a]) ** 0.7:
                    nxt = int(np.argmax(np.where(unv, w, -np.inf)))
                else:
                    cs = np.cumsum(w)
                    if cs[-1] > 0:
                        nxt = int(np.argmax(cs > v[t, a] * cs[-1]))
                    else:
                        idx = np.flatnonzero(unv)
                        nxt = int(idx[int(np.floor(v[t, a] * idx.size))])
                if kind != "mlaco":
                    sim = red[cur, nxt]
                    r = (1 + sim) * rel[nxt] if p["reward"] == "code" else rel[nxt] / (1 + sim)
                    Va[cur] += p["learning_rate"] * (r + p["discount"] * Va[nxt] - Va[cur])
                unv[nxt] = False
                counts[nxt] += 1
                cur = nxt
            copies.append(Va)
        if kind != "mlaco":
            V = np.mean(copies, axis=0)
        tau = (1 - p["decay"]) * tau + counts / counts.sum()
    return tau


def complexity(kind, n, d, q, est):
    p = est.get_params()
    m = min(p["n_ants"], d)
    if kind == "mlaco":
        steps = p["n_cycles"] * m * np.floor(p["path_fraction"] * d)
    else:
        steps = p["n_cycles"] * m * d * (p["min_path_fraction"] + p["max_path_fraction"]) / 2
    return (f"heuristics O(n d^2 + n d q) = {n * d * d + n * d * q:.2e}, corr matrix "
            f"{8 * d * d / 2**20:.0f} MiB; colony O(C m NF d) = {steps * d:.2e} "
            f"({steps:.2e} ant steps)")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("datasets", nargs="*", default=["emotions", "bibtex"])
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--loop-cycles", type=int, default=0,
                    help="fewer cycles for both (0: the defaults) where the loop is slow")
    args = ap.parse_args(argv)
    print(f"load average {os.getloadavg()} (shared machine: timings taken under load)")
    for name in args.datasets:
        ds = load_name(name)
        X, Y = ds.X, np.asarray(ds.Y.toarray() if sp.issparse(ds.Y) else ds.Y)
        n, d = X.shape
        q = Y.shape[1]
        kind_sparse = "sparse" if sp.issparse(X) else "dense"
        print(f"\n{name}: n={n} d={d} q={q} ({kind_sparse})")
        for kind, cls in (("mlaco", MLACO), ("ant_td", AntTD)):
            est = cls(50, random_state=0)
            if args.loop_cycles:
                est.set_params(n_cycles=args.loop_cycles)
            best, best_cpu = np.inf, np.inf
            for _ in range(args.repeat):
                t0, c0 = time.perf_counter(), time.process_time()
                est.fit(X, Y)
                best = min(best, time.perf_counter() - t0)
                best_cpu = min(best_cpu, time.process_time() - c0)
            lib = abs_correlation(X)  # the library's redundancy, computed outside the timing
            lib[np.isnan(lib)] = 1.0
            print(f"  {kind:7s} cycles={est.n_cycles}: library wall {best:8.2f} s, "
                  f"CPU {best_cpu:8.2f} s", flush=True)
            t0, c0 = time.perf_counter(), time.process_time()
            ref = straightforward(kind, X, Y, est, lib)
            t_loop, c_loop = time.perf_counter() - t0, time.process_time() - c0
            err = float(np.max(np.abs(ref - est.scores_)))
            print(f"          straightforward wall {t_loop:8.2f} s, CPU {c_loop:8.2f} s;  "
                  f"ratio wall {t_loop / best:5.1f}x, CPU {c_loop / best_cpu:5.1f}x;  "
                  f"max |pheromone diff| {err:.1e}")
            print(f"          {complexity(kind, n, d, q, est)}")
            assert err < 1e-9, "the two implementations disagree"


if __name__ == "__main__":
    main()
