"""Benchmark: LRFS on the count engine against a straightforward per-feature implementation.

LRFS's cost is dominated by the relevance ``LR(f) = Σ_i Σ_{j≠i} I(f; l_j | l_i)`` (``d·q·(q−1)``
conditional MIs) and then one ``I(f; s)`` column per greedy step. The library computes the
relevance with ``q`` stratified engine calls and each step with one product.

The straightforward implementation computes every CMI and MI by ``np.unique`` over the joint
columns, one (feature, label pair) at a time. It is far too slow for the whole problem, so it is
timed on the first ``--naive-features`` features (numeric data is first discretized into 3
equal-frequency bins, as in the RLEFS reproduction) (the relevance cost is linear in ``d``) and on
the first 3 greedy steps, and the total is extrapolated linearly (marked ``~``); the values it
computes are checked against the library's.

Usage::

    MLFS_DATASETS=/path/to/datasets python benchmarks/bench_lrfs.py
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

from skmlfs.discretize import EqualFrequencyDiscretizer
from skmlfs.selection import LRFS
from skmlfs.selection._base import is_discrete


def load_part(arff_path: Path, xml_path: Path):
    """Features and 0/1 labels (uint8) of one Mulan ARFF part, labels named in the XML."""
    from skmlfs.datasets import load

    ds = load(arff_path, labels=xml_path)
    return ds.X, np.asarray(ds.Y, dtype=np.uint8)


DATASETS = [
    ("emotions", "emotions/emotions-train.arff", "emotions/emotions.xml"),
    ("scene", "scene/scene-train.arff", "scene/scene.xml"),
    ("yeast", "yeast/yeast-train.arff", "yeast/yeast.xml"),
    ("enron", "enron/enron-train.arff", "enron/enron.xml"),
    ("medical", "medical/medical-train.arff", "medical/medical.xml"),
]
# bibtex (q = 159) is left out of the default list: the straightforward implementation needs
# ~500 000 np.unique calls even on 10 features (> 20 min); run it with --only bibtex if wanted.
EXTRA = [("bibtex", "bibtex/bibtex-train.arff", "bibtex/bibtex.xml")]


def _H(*cols):
    _, c = np.unique(np.column_stack(cols), axis=0, return_counts=True)
    p = c / c.sum()
    return -np.sum(p * np.log2(p))


def naive_lr(X, Y):
    q = Y.shape[1]
    out = np.zeros(X.shape[1])
    for f in range(X.shape[1]):
        x = X[:, f]
        for i in range(q):
            z = Y[:, i]
            h_xz, h_z = _H(x, z), _H(z)
            for j in range(q):
                if j != i:
                    out[f] += h_xz + _H(Y[:, j], z) - _H(x, Y[:, j], z) - h_z
    return out


def naive_mi_column(X, s):
    xs = X[:, s]
    return np.array([_H(X[:, f]) + _H(xs) - _H(X[:, f], xs) for f in range(X.shape[1])])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="LRFS benchmark")
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--naive-features", type=int, default=10)
    args = ap.parse_args(argv)
    root = os.environ.get("MLFS_DATASETS")
    if not root:
        print("MLFS_DATASETS is not set", file=sys.stderr)
        return 2
    root = Path(root) / "mulan"
    hdr = (
        f"{'data set':9s} {'n':>5s} {'d':>5s} {'q':>4s} {'k':>4s} {'LRFS s':>8s} {'peak MB':>8s} "
        f"{'naive s':>10s} {'ratio':>8s}"
    )
    print(hdr)
    print("-" * len(hdr))
    for name, arff_rel, xml_rel in DATASETS + EXTRA:
        if (args.only and name not in args.only) or (
            not args.only and (name, arff_rel, xml_rel) in EXTRA
        ):
            continue
        X, Y = load_part(root / arff_rel, root / xml_rel)
        if not is_discrete(X):
            X = EqualFrequencyDiscretizer(n_bins=3).fit_transform(X)
        n, d = X.shape
        q = Y.shape[1]
        k = min(100, int(np.ceil(0.2 * d)))
        with threadpool_limits(limits=1):
            tracemalloc.start()
            t0 = time.perf_counter()
            sel = LRFS(n_features_to_select=k, discretizer=None).fit(X, Y)
            t_lib = time.perf_counter() - t0
            peak = tracemalloc.get_traced_memory()[1] / 2**20
            tracemalloc.stop()
        Xd = X.toarray() if sp.issparse(X) else np.asarray(X)
        m = min(args.naive_features, d)
        t0 = time.perf_counter()
        lr = naive_lr(Xd[:, :m], Y)
        t_rel = (time.perf_counter() - t0) * d / m
        np.testing.assert_allclose(lr, sel.relevance_[:m], atol=1e-9)
        steps = 3
        t0 = time.perf_counter()
        for s in sel.selection_order_[:steps]:
            col = naive_mi_column(Xd, s)
        t_greedy = (time.perf_counter() - t0) * (k - 1) / steps
        s_last = sel.selection_order_[steps - 1]
        assert np.isclose(col[s_last], _H(Xd[:, s_last]))  # I(s; s) = H(s)
        t_naive = t_rel + t_greedy
        print(
            f"{name:9s} {n:5d} {d:5d} {q:4d} {k:4d} {t_lib:8.2f} {peak:8.1f} "
            f"~{t_naive:9.1f} {t_naive / t_lib:8.0f}",
            flush=True,
        )
    print("~ extrapolated from the first features / first greedy steps (see the docstring).")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
