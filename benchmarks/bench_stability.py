"""Benchmark: selection stability (Nogueira et al. 2018, Kuncheva 2007) vs per-run loops.

Usage: ``python benchmarks/bench_stability.py [--runs 50] [--features 20000] [--k 200]``

Draws ``--runs`` random subsets of ``--k`` of ``--features`` features (the selections of a
benchmark's folds or bootstrap runs), then computes Nogueira's Φ̂ with its variance and
Kuncheva's index with :mod:`skmlfs.metrics` (column means and one ``Z Zᵀ`` product) and
with a straightforward implementation of the definitions (a loop over the runs for the
variance terms, a loop over the pairs of runs for Kuncheva's index, Python sets for the
overlaps). Prints both times, the ratio and whether the values agree.
"""

from __future__ import annotations

import argparse
import itertools
import time

import numpy as np

from skmlfs.metrics import kuncheva_index, nogueira_stability, selection_matrix


def straightforward(subsets: list[set[int]], d: int) -> tuple[float, float, float]:
    M = len(subsets)
    counts = np.zeros(d)
    for s in subsets:
        for f in s:
            counts[f] += 1
    p = counts / M
    kbar = float(p.sum())
    denom = (kbar / d) * (1 - kbar / d)
    stab = 1 - (M / (M - 1)) * float(np.mean(p * (1 - p))) / denom
    phi = []
    for s in subsets:
        ki = len(s)
        first = sum(p[f] for f in s) / d
        phi.append((first - ki * kbar / d**2
                    + stab / 2 * (2 * ki * kbar / d**2 - ki / d - kbar / d + 1)) / denom)
    phi = np.asarray(phi)
    var = 4 / M**2 * float(np.sum((phi - phi.mean()) ** 2))
    k = len(subsets[0])
    kun = [(len(a & b) * d - k * k) / (k * (d - k)) for a, b in itertools.combinations(subsets, 2)]
    return stab, var, float(np.mean(kun))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--features", type=int, default=20000)
    ap.add_argument("--k", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    rng = np.random.default_rng(0)
    # neighbouring runs share most of their features, as folds of one selector do
    base = rng.choice(a.features, a.k, replace=False)
    subsets = []
    for _ in range(a.runs):
        s = base.copy()
        swap = rng.random(a.k) < 0.3
        s[swap] = rng.choice(np.setdiff1d(np.arange(a.features), s), swap.sum(), replace=False)
        subsets.append(s)

    def ours():
        Z = selection_matrix(subsets, a.features, sparse=True)
        est = nogueira_stability(Z)
        return est.stability, est.variance, kuncheva_index(Z)

    t_ours = min(_timed(ours) for _ in range(a.repeat))
    t_ref = min(_timed(lambda: straightforward([set(map(int, s)) for s in subsets],
                                               a.features)) for _ in range(a.repeat))
    got, ref = ours(), straightforward([set(map(int, s)) for s in subsets], a.features)
    same = np.allclose(got, ref, rtol=1e-9, atol=1e-12)
    print(f"{a.runs} runs x {a.features} features, {a.k} selected per run")
    print(f"  skmlfs.metrics (sparse Z: column means, one Z Z^T): {t_ours * 1e3:9.2f} ms")
    print(f"  straightforward (loops over runs and pairs):      {t_ref * 1e3:9.2f} ms")
    print(f"  ratio {t_ref / t_ours:.1f}x; stability {got[0]:.6f}, variance {got[1]:.3g}, "
          f"Kuncheva {got[2]:.6f}; values agree: {same}")


def _timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


if __name__ == "__main__":
    main()
