"""FIMF and QPFS against straightforward per-pair implementations of their equations.

Run:  MLFS_DATASETS=/path/to/datasets python benchmarks/bench_fimf_qpfs.py [--splits N]

For the first training split of each PLCFS dataset (enron, genbase, medical) it times,
in one process:

* FIMF, library (:class:`skmlfs.selection.FIMF`: one feature × label product and one
  stratified product per kept label) against a per-pair loop that computes each
  ``H(f, l)`` and ``H(f, l_i, l_j)`` from ``np.bincount`` of the joint codes, as
  ``fimf.m`` does. Two settings: the cut-offs ``b = 200, k = 10`` and the full score
  (every feature, every label pair) on genbase only for the loop (it takes minutes on
  the others — the library's time is printed for all);
* QPFS, library (:class:`skmlfs.selection.QPFS`: the ``d × d`` MI matrix from one block
  product, Clarabel, polishing) against the per-pair ``Q_ij = I(f_i; f_j)`` and
  ``F_i = Σ_l I(f_i; l)`` followed by the same solver call; the MI part is timed
  separately, since the QP solve is the same code on both sides;

checks that the results agree, and prints times, ratios and peak Python memory
(tracemalloc). The machine is shared: timings are under load; compare ratios.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
import scipy.io as sio


def _root() -> Path:
    root = os.environ.get("MLFS_DATASETS")
    if not root:
        sys.exit("set MLFS_DATASETS to the shared datasets folder")
    return Path(root)


def _peak(fn) -> float:
    tracemalloc.start()
    fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 2**20


class _Counts:
    """Per-pair entropies: each column coded once, joint codes counted with bincount."""

    def __init__(self, X, Y):
        self.n = X.shape[0]
        self.X = [np.unique(c, return_inverse=True)[1].ravel() for c in np.asarray(X).T]
        self.Y = [np.unique(c, return_inverse=True)[1].ravel() for c in np.asarray(Y).T]

    def h(self, *cols) -> float:
        code = np.zeros(self.n, dtype=np.int64)
        for c in cols:
            code = code * (int(c.max()) + 1) + c
        counts = np.bincount(code)
        p = counts[counts > 0] / self.n
        return float(-(p * np.log2(p)).sum())


def loop_fimf(X, Y, b, kl):
    """``fimf.m``'s score, one entropy at a time (the straightforward implementation)."""
    c = _Counts(X, Y)
    d = len(c.X)
    hf = np.array([c.h(x) for x in c.X])
    cand = [f for f in np.argsort(-hf, kind="stable") if hf[f] > 0][:b]
    hl = np.array([c.h(y) for y in c.Y])
    labels = list(np.argsort(-hl, kind="stable")[:kl])
    score = np.full(d, -np.inf)
    for f in cand:
        x = c.X[f]
        hfl = [c.h(x, y) for y in c.Y]
        s = sum(hf[f] - v for v in hfl)
        for m in range(len(labels)):
            for n in range(m + 1, len(labels)):
                a, e = labels[m], labels[n]
                s += -hf[f] + hfl[a] + hfl[e] - c.h(x, c.Y[a], c.Y[e])
        score[f] = s
    return np.argsort(-score, kind="stable")[: len(cand)], score


def loop_qpfs_terms(X, Y):
    """``Q_ij = I(f_i; f_j)`` over the informative features and ``F_i``, one pair at a time."""
    c = _Counts(X, Y)
    hf = np.array([c.h(x) for x in c.X])
    valid = np.flatnonzero(hf > 0)
    hl = [c.h(y) for y in c.Y]
    p = valid.size
    Q = np.empty((p, p))
    for i in range(p):
        Q[i, i] = hf[valid[i]]
        for j in range(i + 1, p):
            fi, fj = valid[i], valid[j]
            Q[i, j] = Q[j, i] = hf[fi] + hf[fj] - c.h(c.X[fi], c.X[fj])
    F = np.array([sum(hf[f] + hl[j] - c.h(c.X[f], c.Y[j]) for j in range(len(c.Y))) for f in valid])
    return valid, Q, F


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", default="enron,genbase,medical")
    args = ap.parse_args()
    import warnings

    warnings.simplefilter("ignore")  # empty label columns on some splits
    from skmlfs.info import DiscreteData, InfoCache, joint_entropy
    from skmlfs.selection import FIMF, QPFS
    from skmlfs.selection._fimf_qpfs import qpfs_weights, rank_weights

    print("timings under load (shared machine); seconds, best of 1; ratio = loop / library")
    print(
        f"{'method':<22}{'dataset':<9}{'shape':<16}{'library':>9}{'loop':>10}{'ratio':>8}"
        f"{'peak MiB':>10}"
    )
    for name in args.datasets.split(","):
        m = sio.loadmat(_root() / "plcfs" / f"{name}.mat")
        tr = m["sim_seq"][:, 0] == 1
        X, Y = m["data"][tr], m["answer"][tr]
        shape = f"{X.shape[0]}x{X.shape[1]}x{Y.shape[1]}"
        k = int(np.ceil(np.sqrt(X.shape[0])))
        settings = [("FIMF b=200,k=10", 200, 10)]
        settings.append(("FIMF full", X.shape[1], Y.shape[1]))
        for label, b, kl in settings:
            est = FIMF(n_features_to_select=k, n_candidates=b, n_labels=kl)
            t0 = time.perf_counter()
            est.fit(X, Y)
            t_lib = time.perf_counter() - t0
            peak = _peak(lambda est=est, X=X, Y=Y: est.fit(X, Y))
            if label == "FIMF full" and name != "genbase":
                print(f"{label:<22}{name:<9}{shape:<16}{t_lib:>9.3f}{'-':>10}{'-':>8}{peak:>10.1f}")
                continue
            t0 = time.perf_counter()
            ranking, _ = loop_fimf(X, Y, max(b, k), kl)
            t_loop = time.perf_counter() - t0
            # agreement: the library's top k are the loop's top k (ties aside)
            assert set(est.selection_order_[:5]) <= set(ranking[:10]), "FIMF disagrees"
            print(
                f"{label:<22}{name:<9}{shape:<16}{t_lib:>9.3f}{t_loop:>10.2f}"
                f"{t_loop / t_lib:>8.1f}{peak:>10.1f}"
            )
        # QPFS
        est = QPFS(n_features_to_select=k)
        t0 = time.perf_counter()
        est.fit(X, Y)
        t_lib = time.perf_counter() - t0
        t0 = time.perf_counter()
        valid, Q, F = loop_qpfs_terms(X, Y)
        t_terms = time.perf_counter() - t0
        alpha = Q.mean() / (Q.mean() + F.mean())
        t0 = time.perf_counter()
        w, _ = qpfs_weights(Q, F, alpha, tol=est.tol)
        t_qp = time.perf_counter() - t0
        ranking = valid[rank_weights(w, F, k, est.weight_tol)]
        agree = np.array_equal(ranking, est.selection_order_)
        t_loop = t_terms + t_qp
        print(
            f"{'QPFS (total)':<22}{name:<9}{shape:<16}{t_lib:>9.3f}{t_loop:>10.2f}"
            f"{t_loop / t_lib:>8.1f}{'':>10}  same ranking: {agree}"
        )
        # the library's MI terms alone, as QPFS computes them (one block product each)
        t0 = time.perf_counter()
        cache = InfoCache(DiscreteData.from_array(X), DiscreteData.from_array(Y))
        Xv = cache.X.take(np.flatnonzero(cache.h_x > 0))
        hv = cache.h_x[cache.h_x > 0]
        Q_lib = hv[:, None] + hv[None, :] - joint_entropy(Xv, Xv)
        F_lib = cache.relevance[cache.h_x > 0]
        t_lib_terms = time.perf_counter() - t0
        assert np.allclose(Q_lib, Q, atol=1e-10) and np.allclose(F_lib, F, atol=1e-10)
        print(
            f"{'QPFS (MI terms only)':<22}{name:<9}{shape:<16}{t_lib_terms:>9.3f}"
            f"{t_terms:>10.2f}{t_terms / max(t_lib_terms, 1e-9):>8.1f}"
        )


if __name__ == "__main__":
    main()
