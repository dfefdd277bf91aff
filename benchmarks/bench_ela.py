"""ELA+χ² against a straightforward implementation that makes the weighted copies.

Run:  MLFS_DATASETS=/path/to/datasets python benchmarks/bench_ela.py [--datasets a,b]

For the first training split of each PLCFS data set (enron, genbase, medical) it times, in
one process:

* the library (:class:`skmlfs.selection.ELACHI`: one sparse product of the indicator
  matrix with the row-normalised label matrix gives every feature's weighted table);
* the straightforward implementation of ``ela_chi.m`` (CAU-AIR-Lab/PMU): each pattern
  copied once per label with weight ``1/|Y_i|``, then one feature at a time its weighted
  contingency table (``np.bincount`` of the joint codes of value and label, weighted) and
  the χ² sum over every cell;

checks that the scores agree, and prints times, the ratio and the library's peak Python
memory (tracemalloc). ``--eurlex`` adds a random sparse problem of the EURLex-4K shape
(15,000 × 5,000 binary features at 1 % density, 3,993 labels, about 5 per pattern),
where the tables stay sparse. The machine is shared: timings are under load; compare
ratios.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
import scipy.io as sio


def _root() -> Path:
    root = os.environ.get("MLFS_DATASETS")
    if not root:
        sys.exit("set MLFS_DATASETS to the shared datasets folder")
    return Path(root)


def _eurlex_shape():
    """Random binary sparse features and labels of the EURLex-4K shape (seeded)."""
    import scipy.sparse as sp

    ones = lambda k: np.ones(k)  # noqa: E731 - the 0/1 values of sp.random
    X = sp.random(15000, 5000, density=0.01, format="csr", random_state=1, data_rvs=ones)
    Y = sp.random(15000, 3993, density=0.0013, format="csr", random_state=2, data_rvs=ones)
    return X, Y


def loop_ela_chi2(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """χ² of every feature on the materialised ELA copies, one feature at a time."""
    import scipy.sparse as sp

    X = X.toarray() if sp.issparse(X) else np.asarray(X)
    Y = Y.toarray() if sp.issparse(Y) else np.asarray(Y)
    Y = Y[:, Y.sum(axis=0) > 0]  # labels without positives are dropped
    rows, labels = np.nonzero(Y)
    weights = 1.0 / Y.sum(axis=1)[rows]
    q = Y.shape[1]
    out = np.zeros(X.shape[1])
    total = weights.sum()
    for j in range(X.shape[1]):
        _, v = np.unique(X[rows, j], return_inverse=True)
        nv = int(v.max()) + 1
        tab = np.bincount(v * q + labels, weights=weights, minlength=nv * q).reshape(nv, q)
        E = tab.sum(axis=1)[:, None] * tab.sum(axis=0)[None, :] / total
        out[j] = ((tab - E) ** 2 / E).sum()
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", default="enron,genbase,medical")
    ap.add_argument("--eurlex", action="store_true", help="add the EURLex-4K-shaped problem")
    args = ap.parse_args()
    warnings.simplefilter("ignore")  # empty label columns on some splits
    from skmlfs.selection import ELACHI

    print("timings under load (shared machine); seconds, best of 3; ratio = loop / library")
    print(f"{'dataset':<9}{'shape':<16}{'library':>9}{'loop':>9}{'ratio':>8}{'peak MiB':>10}"
          f"{'max |diff|':>12}")
    problems = [(name, None) for name in args.datasets.split(",")]
    if args.eurlex:
        problems.append(("eurlex4k", _eurlex_shape()))
    for name, data in problems:
        if data is None:
            m = sio.loadmat(_root() / "plcfs" / f"{name}.mat")
            tr = m["sim_seq"][:, 0] == 1
            X, Y = m["data"][tr], m["answer"][tr]
        else:
            X, Y = data
        shape = f"{X.shape[0]}x{X.shape[1]}x{Y.shape[1]}"
        est = ELACHI(n_features_to_select=1.0)
        t_lib = np.inf
        for _ in range(3):
            t0 = time.perf_counter()
            est.fit(X, Y)
            t_lib = min(t_lib, time.perf_counter() - t0)
        tracemalloc.start()
        ELACHI(n_features_to_select=1.0).fit(X, Y)
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        t_loop = np.inf
        for _ in range(3):
            t0 = time.perf_counter()
            ref = loop_ela_chi2(X, Y)
            t_loop = min(t_loop, time.perf_counter() - t0)
        diff = float(np.abs(ref - est.feature_scores_).max())
        assert diff < 1e-8 * max(1.0, float(ref.max())), "ELA+chi2 disagrees"
        print(f"{name:<9}{shape:<16}{t_lib:>9.3f}{t_loop:>9.3f}{t_loop / t_lib:>8.1f}"
              f"{peak:>10.1f}{diff:>12.1e}")


if __name__ == "__main__":
    main()
