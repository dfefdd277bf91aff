"""Benchmark: FFCs per second of the memetic wrapper against a straightforward implementation.

Usage::

    MLFS_DATASETS=/path/to/datasets python benchmarks/bench_memetic.py \\
        [--m 20] [--v 60] [--ffcs 300]

Data: ``$MLFS_DATASETS/plcfs/{enron,medical}.mat`` loaded as ``experiments/memetic_paper.toml``
loads them (``skmlfs.datasets.load_mat``; the 45 label-copy columns of medical.mat dropped,
``label_copies="drop"``), training part of the first stored split (``sim_seq`` column 0),
as one outer split of the paper's protocol.

For enron and medical:

1. **Search, library vs straightforward** (issue #7 §4), ``n_max = 50``, ``m = --m``,
   ``v = --v`` (default 20 and 60, a reduced budget; ``--m 50 --v 300`` is the paper's),
   the same seed for both: the library ``MemeticSelector`` (median of 3 fits), and
   ``StraightforwardMemetic`` — the same algorithm and RNG stream with MLNB refitted from
   scratch in every FFC (``MLNB().fit(X[train][:, S], Y[train])``) and every entropy
   that the GICS calls and the mutation read recomputed from the data with a per-pair
   ``np.bincount`` (no cache, nothing reused between calls). Both must give the same
   search (identical FFC losses) and the same selected subset.
2. **One FFC, library vs MLNB refit** (``--ffcs`` random (subset of 50 features, 20 %
   holdout) pairs): the learner's share of the difference, without the refinement.

Then one full library run on enron (``m = 50``, ``v = 300``, multilabel accuracy; median
of 3 runs). Prints wall and CPU (process) time, FFC/s, ratios and the peak traced memory
(tracemalloc, from a separate repeat).
"""

from __future__ import annotations

import argparse
import os
import time
import tracemalloc
from pathlib import Path

import numpy as np
from sklearn.utils import check_random_state
from threadpoolctl import threadpool_limits

from skmlfs.datasets import load_mat
from skmlfs.learners import MLNB
from skmlfs.metrics import multilabel_accuracy
from skmlfs.selection import MemeticSelector
from skmlfs.selection._memetic import _Fitness

SETS = {"enron": "warn", "medical": "drop"}  # label_copies, as in memetic_paper.toml


# ---------------------------------------------------------------- straightforward parts
class RefitMLNB(MLNB):
    """MLNB without its fast path: the selector then clones, fits and predicts it in
    every FFC, as it does for any classifier."""

    subset_evaluator = None


def _entropy(a, b=None):
    """Entropy in bits of one code column or of a pair, counted from scratch."""
    codes = a if b is None else a * (int(b.max()) + 1) + b
    p = np.bincount(codes) / codes.size
    p = p[p > 0]
    return float(-(p * np.log2(p)).sum())


class _Lazy:
    """Array-like whose entries are recomputed from the data on every indexing."""

    def __init__(self, fn):
        self.fn = fn

    def __getitem__(self, idx):
        if isinstance(idx, tuple):  # np.ix_(rows, cols)
            rows, cols = (np.asarray(i).ravel() for i in idx)
            return np.array([[self.fn(r, c) for c in cols] for r in rows]).reshape(
                rows.size, cols.size
            )
        idx = np.atleast_1d(np.asarray(idx))
        return np.array([self.fn(i) for i in idx.ravel()])


class NaiveCache:
    """The quantities GICS and the mutation read, recomputed on each access (no memo)."""

    def __init__(self, D, Y):
        self.C = D.codes().astype(np.int64)
        self.Yd = np.asarray(Y, dtype=np.int64)
        self.h_x = _Lazy(lambda f: _entropy(self.C[:, f]))
        self.h_xy = _Lazy(lambda f, l: _entropy(self.C[:, f], self.Yd[:, l]))

    def h_xx(self, s):
        return _Lazy(lambda f: _entropy(self.C[:, f], self.C[:, s]))

    def sum_h_xy_over(self, candidates, labels):
        return self.h_xy[np.ix_(candidates, labels)].sum(axis=1)


class StraightforwardMemetic(MemeticSelector):
    """The same algorithm with no entropy cache (and, via ``RefitMLNB``, no count tables)."""

    def _make_cache(self, D, Y):
        return NaiveCache(D, Y)


def straightforward_ffc(X, Y, S, test):
    train = np.setdiff1d(np.arange(len(Y)), test)
    model = MLNB().fit(X[train][:, S], Y[train])
    pred = model.predict(X[test][:, S])
    model.predict_proba(X[test][:, S])  # the reference computes the posteriors too
    acc = multilabel_accuracy(Y[test], pred, convention="plcfs")
    return -acc, (pred == Y[test]).sum(axis=0)


# ---------------------------------------------------------------- timing
def timed(fn, repeats=1, memory=False):
    """Median wall and CPU (process) time of ``repeats`` calls, the last result, and
    optionally the peak traced memory (MiB) of one more call.

    On a shared machine the wall time depends on the other jobs; the CPU time of this
    (single-threaded) process much less so.
    """
    wall, cpu = [], []
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    peak = np.nan
    if memory:
        tracemalloc.start()
        fn()
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    return float(np.median(wall)), float(np.median(cpu)), out, peak


def rate(label, k, wall, cpu, peak=np.nan):
    mem = "" if np.isnan(peak) else f"   peak {peak:5.1f} MiB"
    print(
        f"    {label:16s} wall {wall:8.3f} s {k / wall:8.1f} FFC/s   "
        f"CPU {cpu:8.3f} s {k / cpu:8.1f} FFC/s{mem}"
    )


def load(root, name):
    ds = load_mat(Path(root) / "plcfs" / f"{name}.mat", label_copies=SETS[name])
    train = ds.split_masks[:, 0]
    X = ds.X.toarray() if hasattr(ds.X, "toarray") else np.asarray(ds.X)
    return np.asarray(X[train], dtype=np.float64), np.asarray(ds.Y, dtype=np.uint8)[train]


def bench_search(X, Y, m, v):
    common = dict(n_features_to_select=50, population_size=m, max_evaluations=v, random_state=0)
    w_lib, c_lib, lib, peak = timed(
        lambda: MemeticSelector(MLNB(), **common).fit(X, Y), repeats=3, memory=True
    )
    w_ref, c_ref, ref, _ = timed(
        lambda: StraightforwardMemetic(RefitMLNB(), **common).fit(X, Y)
    )
    k = lib.n_evaluations_
    same_search = ref.n_evaluations_ == k and np.allclose(
        lib.history_["loss"], ref.history_["loss"], rtol=0, atol=1e-12
    )
    same_subset = np.array_equal(lib.best_subset_, ref.best_subset_)
    n_off = lib.history_["reproductions"]["ffc"].size
    print(f"  search, m = {m}, v = {v} ({k} FFCs, {n_off} of them offspring):")
    rate("library", k, w_lib, c_lib, peak)
    rate("straightforward", k, w_ref, c_ref)
    print(
        f"    ratio {w_ref / w_lib:.0f}x wall, {c_ref / c_lib:.0f}x CPU   same search: "
        f"{same_search}   same selected subset: {same_subset}"
    )


def bench_ffc(X, Y, n_ffc):
    n, d = X.shape
    rng = np.random.default_rng(0)
    n_test = int(np.floor(0.2 * n))
    jobs = [
        (np.sort(rng.choice(d, 50, replace=False)), np.sort(rng.permutation(n)[:n_test]))
        for _ in range(n_ffc)
    ]
    learner = MLNB()
    evaluator = learner.subset_evaluator(X, Y)  # MLNB's fast path, as the selector uses it
    fit = _Fitness(
        X, evaluator, Y, learner, "multilabel_accuracy", 0.2, "fixed", check_random_state(0)
    )

    def library():
        out = []
        for S, test in jobs:
            fit._fixed = test  # score exactly the benchmark's split
            out.append(fit(S))
        return out

    w_lib, c_lib, a, peak = timed(library, repeats=3, memory=True)
    w_ref, c_ref, b, _ = timed(lambda: [straightforward_ffc(X, Y, S, t) for S, t in jobs])
    same = all(
        abs(x[0] - y[0]) < 1e-12 and np.array_equal(x[1], y[1]) for x, y in zip(a, b, strict=True)
    )
    print(f"  one FFC alone ({n_ffc} random (S, holdout) pairs, no refinement):")
    rate("library", n_ffc, w_lib, c_lib, peak)
    rate("MLNB refit", n_ffc, w_ref, c_ref)
    print(
        f"    ratio {w_ref / w_lib:.1f}x wall, {c_ref / c_lib:.1f}x CPU   identical losses and "
        f"per-label accuracies: {same}"
    )


def bench_full_run(X, Y):
    wall, cpu, sel, peak = timed(
        lambda: MemeticSelector(
            MLNB(), n_features_to_select=50, population_size=50, max_evaluations=300, random_state=0
        ).fit(X, Y),
        repeats=3,
        memory=True,
    )
    k = sel.n_evaluations_
    print(f"enron full run, m = 50, v = 300 ({k} FFCs, incl. refinement):")
    rate("library", k, wall, cpu, peak)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--m", type=int, default=20, help="population of the search comparison")
    ap.add_argument("--v", type=int, default=60, help="FFC budget of the search comparison")
    ap.add_argument("--ffcs", type=int, default=300)
    args = ap.parse_args()
    root = os.environ.get("MLFS_DATASETS")
    if not root:
        raise SystemExit("set MLFS_DATASETS to the datasets directory")
    # one BLAS thread for both sides, as inside the selector
    with threadpool_limits(limits=1):
        for name in SETS:
            X, Y = load(root, name)
            print(
                f"{name}: {X.shape[0]} training patterns, {X.shape[1]} features, "
                f"{Y.shape[1]} labels"
            )
            bench_search(X, Y, args.m, args.v)
            bench_ffc(X, Y, args.ffcs)
        bench_full_run(*load(root, "enron"))


if __name__ == "__main__":
    main()
