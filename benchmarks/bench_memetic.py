"""Benchmark: the memetic wrapper's fitness function calls (FFCs) and a full run.

Usage: ``MLFS_DATASETS=/path/to/datasets python benchmarks/bench_memetic.py [--ffcs 300]``

Reads ``$MLFS_DATASETS/plcfs/{enron,medical}.mat`` and works on the training part of the
first stored holdout split (``sim_seq`` column 0), as one outer split of the paper's
protocol does.

1. **FFC throughput.** The same sequence of ``--ffcs`` (random subset of 50 features,
   random 20 % inner holdout) pairs is scored by the library's FFC (count tables of the
   training part sliced to ``S``, minus the held-out counts) and by the straightforward
   FFC: ``MLNB().fit(X[train][:, S], Y[train])`` then ``predict``/``predict_proba`` and
   the metric. The losses and per-label accuracies must agree.
2. **Full run on enron** (``m = 50, n_max = 50``, multilabel accuracy): the library
   ``MemeticSelector`` with ``v = 300``, and, with a smaller budget ``--naive-ffcs``, the
   same algorithm run straightforwardly — MLNB refitted in every FFC and every entropy of
   every GICS call recomputed from the data with ``np.unique`` (no cache). Both runs with
   the same seed and budget must produce the same search (same losses in the same order).

Prints times, FFCs per second, the ratios and the peak traced memory.
"""

from __future__ import annotations

import argparse
import os
import time
import tracemalloc
from pathlib import Path

import numpy as np
import scipy.io
from sklearn.utils import check_random_state
from threadpoolctl import threadpool_limits

from skmlfs.info import DiscreteData
from skmlfs.learners import MLNB
from skmlfs.metrics import multilabel_accuracy
from skmlfs.selection import MemeticSelector
from skmlfs.selection._memetic import _Fitness, _NBCountTables


# ---------------------------------------------------------------- straightforward parts
class RefitMLNB(MLNB):
    """MLNB under another type name: the selector then refits it in every FFC."""


def straightforward_ffc(X, Y, S, test):
    train = np.setdiff1d(np.arange(len(Y)), test)
    model = MLNB().fit(X[train][:, S], Y[train])
    pred = model.predict(X[test][:, S])
    model.predict_proba(X[test][:, S])  # the reference computes the posteriors too
    acc = multilabel_accuracy(Y[test], pred, convention="plcfs")
    return -acc, (pred == Y[test]).sum(axis=0)


def _entropy(*cols):
    _, counts = np.unique(np.column_stack(cols), axis=0, return_counts=True)
    p = counts / counts.sum()
    return float(-(p * np.log2(p)).sum())


class _Lazy:
    """Array-like whose entries are recomputed from the data on every indexing."""

    def __init__(self, fn):
        self.fn = fn

    def __getitem__(self, idx):
        if isinstance(idx, tuple):  # np.ix_(rows, cols)
            rows, cols = (np.asarray(i).ravel() for i in idx)
            return np.array([[self.fn(r, c) for c in cols] for r in rows])
        idx = np.atleast_1d(np.asarray(idx))
        out = np.array([self.fn(i) for i in idx.ravel()])
        return out if np.ndim(idx) else out[0]


class NaiveCache:
    """The quantities GICS reads, computed straightforwardly on each access (no memo)."""

    def __init__(self, D, Y):
        self.C = D.codes()
        self.Yd = np.asarray(Y)

    @property
    def h_x(self):
        return _Lazy(lambda f: _entropy(self.C[:, f]))

    @property
    def h_xy(self):
        return _Lazy(lambda f, l: _entropy(self.C[:, f], self.Yd[:, l]))

    def h_xx(self, s):
        return _Lazy(lambda f: _entropy(self.C[:, f], self.C[:, s]))


class StraightforwardMemetic(MemeticSelector):
    """The same algorithm with no entropy cache (and, via ``RefitMLNB``, no count tables)."""

    def _make_cache(self, D, Y):
        return NaiveCache(D, Y)


# ---------------------------------------------------------------- timing
def timed(fn, *args, memory=True):
    """Wall time of one call (without tracing), then the peak traced memory of another."""
    t0 = time.perf_counter()
    out = fn(*args)
    dt = time.perf_counter() - t0
    peak = np.nan
    if memory:
        tracemalloc.start()
        fn(*args)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return dt, peak, out


def load(root, name):
    mat = scipy.io.loadmat(Path(root) / "plcfs" / f"{name}.mat")
    train = mat["sim_seq"][:, 0].astype(bool)
    X = np.asarray(mat["data"], dtype=np.float64)[train]
    Y = np.asarray(mat["answer"], dtype=np.uint8)[train]
    return X, Y


def bench_ffc(name, X, Y, n_ffc):
    n, d = X.shape
    rng = np.random.default_rng(0)
    n_test = int(np.floor(0.2 * n))
    jobs = [
        (np.sort(rng.choice(d, 50, replace=False)), np.sort(rng.permutation(n)[:n_test]))
        for _ in range(n_ffc)
    ]

    def setup():
        D = DiscreteData.from_array(X)
        tables = _NBCountTables(D.codes().astype(np.uint8), D.arity, Y)
        params = {"alpha": 1.0, "handle_unseen": "zero", "reference_single_class_bug": False}
        rs = check_random_state(0)
        return _Fitness(X, tables, Y, params, "multilabel_accuracy", 0.2, "fixed", rs)

    t_setup, _, fit = timed(setup, memory=False)

    def library():
        out = []
        for S, test in jobs:
            fit._fixed = test  # score exactly the benchmark's split
            out.append(fit(S))
        return out

    def naive():
        return [straightforward_ffc(X, Y, S, test) for S, test in jobs]

    t_lib, m_lib, a = timed(library)
    t_ref, m_ref, b = timed(naive)
    same_loss = max(abs(x[0] - y[0]) for x, y in zip(a, b, strict=True))
    same_acc = all(np.array_equal(x[1], y[1]) for x, y in zip(a, b, strict=True))
    print(f"{name}: {n} training patterns, {d} features, {Y.shape[1]} labels, {n_ffc} FFCs")
    print(
        f"  library FFC (count tables; setup {t_setup * 1e3:4.0f} ms once)   : "
        f"{n_ffc / t_lib:8.0f} FFC/s"
        f"   {t_lib * 1e3 / n_ffc:6.2f} ms/FFC   peak {m_lib / 2**20:6.1f} MiB"
    )
    print(
        f"  straightforward FFC (MLNB refit)                 : {n_ffc / t_ref:8.0f} FFC/s"
        f"   {t_ref * 1e3 / n_ffc:6.2f} ms/FFC   peak {m_ref / 2**20:6.1f} MiB"
    )
    print(
        f"  ratio: {t_ref / t_lib:.1f}x   max |loss difference| {same_loss:.1e}, "
        f"per-label accuracies identical: {same_acc}"
    )


def bench_run(X, Y, naive_ffcs):
    common = dict(n_features_to_select=50, population_size=50, random_state=0)
    t_lib, _, sel = timed(
        lambda: MemeticSelector(max_evaluations=300, **common).fit(X, Y), memory=False
    )
    print(
        f"enron full run, v = 300: library MemeticSelector {t_lib:6.2f} s "
        f"({sel.n_evaluations_} FFCs, {sel.n_evaluations_ / t_lib:.0f} FFC/s incl. "
        "refinement)"
    )
    t_small, m_small, small = timed(
        lambda: MemeticSelector(max_evaluations=naive_ffcs, **common).fit(X, Y)
    )
    t_ref, _, ref = timed(
        lambda: StraightforwardMemetic(
            max_evaluations=naive_ffcs, learner=RefitMLNB(), **common
        ).fit(X, Y),
        memory=False,
    )
    k = small.n_evaluations_
    same = np.allclose(small.history_["loss"], ref.history_["loss"], atol=1e-12) and (
        np.array_equal(small.ranking_, ref.ranking_)
    )
    print(
        f"enron, v = {naive_ffcs} ({k} FFCs): library {t_small:6.2f} s "
        f"({k / t_small:.0f} FFC/s, peak {m_small / 2**20:.1f} MiB), "
        f"straightforward {t_ref:7.2f} s ({k / t_ref:.1f} FFC/s)"
    )
    print(
        f"  ratio: {t_ref / t_small:.0f}x   identical search: {same}   "
        f"straightforward v = 300 extrapolated: {t_ref / k * sel.n_evaluations_:.0f} s"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ffcs", type=int, default=300)
    ap.add_argument("--naive-ffcs", type=int, default=72)
    args = ap.parse_args()
    root = os.environ.get("MLFS_DATASETS")
    if not root:
        raise SystemExit("set MLFS_DATASETS to the datasets directory")
    # one BLAS thread for both sides, as inside the selector
    with threadpool_limits(limits=1):
        for name in ("enron", "medical"):
            X, Y = load(root, name)
            bench_ffc(name, X, Y, args.ffcs)
        X, Y = load(root, "enron")
        bench_run(X, Y, args.naive_ffcs)


if __name__ == "__main__":
    main()
