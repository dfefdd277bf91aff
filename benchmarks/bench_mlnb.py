"""Benchmark: MLNB fit + predict_proba on enron vs one sklearn CategoricalNB per label.

Usage: ``MLFS_DATASETS=/path/to/datasets python benchmarks/bench_mlnb.py [--repeat 3]``

Reads ``$MLFS_DATASETS/plcfs/enron.mat`` (fields ``data``, ``answer``, ``sim_seq``), trains on
the first stored holdout split and predicts the test part. The straightforward
implementation ordinal-encodes the features and fits one ``CategoricalNB(alpha=1)`` per
label; both results are compared on the test patterns without unseen values. Prints both
times, the ratio and the peak traced memory of each.
"""

from __future__ import annotations

import argparse
import os
import time
import tracemalloc
from pathlib import Path

import numpy as np
import scipy.io
from sklearn.naive_bayes import CategoricalNB
from sklearn.preprocessing import OrdinalEncoder

from skmlfs.learners import MLNB


def straightforward(Xtr, Ytr, Xte):
    enc = OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1).fit(Xtr)
    Ctr, Cte = enc.transform(Xtr).astype(int), enc.transform(Xte).astype(int)
    seen = (Cte >= 0).all(axis=1)
    Cte = np.where(Cte >= 0, Cte, 0)  # rows with unseen values are not compared
    P = np.zeros((len(Xte), Ytr.shape[1]))
    for l in range(Ytr.shape[1]):
        if np.unique(Ytr[:, l]).size < 2:
            P[:, l] = float(Ytr[0, l])
            continue
        P[:, l] = CategoricalNB(alpha=1.0).fit(Ctr, Ytr[:, l]).predict_proba(Cte)[:, 1]
    return P, seen


def library(Xtr, Ytr, Xte):
    return MLNB(alpha=1.0).fit(Xtr, Ytr).predict_proba(Xte)


def timed(fn, *args, repeat):
    best, out = np.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn(*args)
        best = min(best, time.perf_counter() - t0)
    tracemalloc.start()
    fn(*args)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return best, peak, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    root = os.environ.get("MLFS_DATASETS")
    if not root:
        raise SystemExit("set MLFS_DATASETS to the datasets directory")
    mat = scipy.io.loadmat(Path(root) / "plcfs" / "enron.mat")
    X = np.asarray(mat["data"], dtype=np.float64)
    Y = np.asarray(mat["answer"], dtype=np.uint8)
    train = mat["sim_seq"][:, 0].astype(bool)
    Xtr, Ytr, Xte = X[train], Y[train], X[~train]
    print(f"enron: train {Xtr.shape}, test {Xte.shape}, labels {Y.shape[1]}")

    t_lib, m_lib, P = timed(library, Xtr, Ytr, Xte, repeat=args.repeat)
    t_ref, m_ref, (R, seen) = timed(straightforward, Xtr, Ytr, Xte, repeat=args.repeat)
    diff = np.abs(P[seen] - R[seen]).max() if seen.any() else float("nan")
    print(f"MLNB (library)            : {t_lib * 1e3:9.1f} ms   peak {m_lib / 2**20:7.1f} MiB")
    print(f"CategoricalNB per label   : {t_ref * 1e3:9.1f} ms   peak {m_ref / 2**20:7.1f} MiB")
    print(f"ratio (straightforward / library): {t_ref / t_lib:.1f}x")
    print(f"max |difference| on {int(seen.sum())} test patterns without unseen values: {diff:.2e}")


if __name__ == "__main__":
    main()
