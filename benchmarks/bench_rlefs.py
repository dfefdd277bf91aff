"""Benchmark: one RLEFS fit per shared data set, against the paper's literal formulation.

For every Mulan data set under ``$MLFS_DATASETS`` (the training part where a split exists) this
fits :class:`skmlfs.selection.RLEFS` with the paper's defaults (α = β = γ = λ = 0.5, p = 5,
σ = 1, tol = 1e-5, max_iter = 100) and prints

* the set-up time (scaling, label graph, initialisation; a fit with ``max_iter = 0``),
* the time per iteration and the number of iterations to convergence,
* the peak memory of the fit (``tracemalloc``: numpy buffers included).

On the data sets with ``n ≤ 2500`` it also runs a straightforward implementation of Eq. (13)
and (17) with the reweighting matrices as dense ``n × n`` / ``d × d`` diagonal matrices and the
products in the order the paper writes them (``Xᵀ D1 X W`` forms ``Xᵀ D1 X``, ``O(n² d + n d²)``
per iteration), for three iterations from the same initialisation, checks that both give the
same iterates, and prints both per-iteration times and the ratio.

Usage::

    MLFS_DATASETS=/path/to/datasets python benchmarks/bench_rlefs.py [--only scene enron]
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

from skmlfs.selection import RLEFS
from skmlfs.selection._sparse_learning import _minmax_scale, fit_settings


def load_part(arff_path: Path, xml_path: Path):
    """Features and 0/1 labels (uint8) of one Mulan ARFF part, labels named in the XML."""
    from skmlfs.datasets import load

    ds = load(arff_path, labels=xml_path)
    return ds.X, np.asarray(ds.Y, dtype=np.uint8)


DATASETS = [  # (name, arff relative to mulan/, xml)
    ("flags", "flags/flags-train.arff", "flags/flags.xml"),
    ("emotions", "emotions/emotions-train.arff", "emotions/emotions.xml"),
    ("scene", "scene/scene-train.arff", "scene/scene.xml"),
    ("yeast", "yeast/yeast-train.arff", "yeast/yeast.xml"),
    ("birds", "birds/birds-train.arff", "birds/birds.xml"),
    ("enron", "enron/enron-train.arff", "enron/enron.xml"),
    ("medical", "medical/medical-train.arff", "medical/medical.xml"),
    ("cal500", "cal500/cal500.arff", "cal500/cal500.xml"),
    ("foodtruck", "foodtruck/foodtruck.arff", "foodtruck/foodtruck.xml"),
    ("corel5k", "corel5k/Corel5k-train-sparse.arff", "corel5k/Corel5k.xml"),
    ("bibtex", "bibtex/bibtex-train.arff", "bibtex/bibtex.xml"),
    ("tmc2007", "tmc2007/tmc2007-500-train.arff", "tmc2007/tmc2007.xml"),
    ("corel16k", "corel16k/Corel16k001-test.arff", "corel16k/Corel16k001.xml"),
    ("delicious", "delicious/delicious-train.arff", "delicious/delicious.xml"),
]
# genbase is left out: its first attribute is a string (protein id), not a feature.
CAPPED = {"delicious": 10}  # q = 983: the O(n q²) terms make 100 iterations take minutes


def naive_iterations(X, Y, n_iter, seed, p=5, sigma=1.0):
    """Literal Eq. (13)/(17): dense diagonal matrices, the paper's product order."""
    from skmlfs.selection._sparse_learning import _label_graph

    X = _minmax_scale(X)
    X = X.toarray() if sp.issparse(X) else X
    Y = Y.astype(float)
    n, d = X.shape
    q = Y.shape[1]
    S, a = _label_graph(Y.astype(np.uint8), p, sigma)
    A = np.diag(a)
    rs = np.random.RandomState(seed)
    W, F, B = rs.random_sample((d, q)), rs.random_sample((n, q)), rs.random_sample((q, q))
    eps, delta, al, be, ga, la = 1e-8, 1e-10, 0.5, 0.5, 0.5, 0.5
    t0 = time.perf_counter()
    for _ in range(n_iter):
        D1 = np.diag(1 / (2 * np.linalg.norm(X @ W - F, axis=1) + eps))
        D2 = np.diag(1 / (2 * np.linalg.norm(F - Y @ B, axis=1) + eps))
        D3 = np.diag(1 / (2 * np.linalg.norm(W, axis=1) + eps))
        XtD1 = X.T @ D1
        W = W * (XtD1 @ F + al * W @ S) / ((XtD1 @ X) @ W + al * W @ A + ga * D3 @ W + delta)
        F = (
            F
            * (D1 @ X @ W + be * D2 @ Y @ B + la * F)
            / (D1 @ F + be * D2 @ F + la * F @ F.T @ F + delta)
        )
        B = B * (Y.T @ D2 @ F) / (Y.T @ D2 @ Y @ B + delta)
    return W, (time.perf_counter() - t0) / n_iter


def grid_reuse(root: Path, names: list[str]) -> int:
    """Fresh fits against :func:`fit_settings` over a 7 × 7 (α, β) grid (γ = λ = 0.5)."""
    grid = [0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0]
    settings = [{"alpha": a, "beta": b} for a in grid for b in grid]
    print(
        f"{'data set':10s} {'settings':>8s} {'fresh s':>8s} {'shared s':>9s} {'saved':>6s}"
        "  identical"
    )
    for name, arff_rel, xml_rel in DATASETS:
        if name not in names:
            continue
        X, Y = load_part(root / arff_rel, root / xml_rel)
        base = RLEFS(random_state=0)
        with threadpool_limits(limits=1):
            t0 = time.perf_counter()
            fresh = [RLEFS(random_state=0, **s).fit(X, Y) for s in settings]
            t_fresh = time.perf_counter() - t0
            t0 = time.perf_counter()
            shared = list(fit_settings(base, X, Y, settings))
            t_shared = time.perf_counter() - t0
        same = all(
            np.array_equal(a.W_, b.W_) and np.array_equal(a.objective_, b.objective_)
            for a, b in zip(fresh, shared, strict=True)
        )
        print(
            f"{name:10s} {len(settings):8d} {t_fresh:8.2f} {t_shared:9.2f} "
            f"{1 - t_shared / t_fresh:6.1%}  {'yes (bit for bit)' if same else 'NO'}",
            flush=True,
        )
        if not same:
            return 1
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="RLEFS fit benchmark")
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--naive-max-n", type=int, default=2500)
    ap.add_argument(
        "--grid",
        action="store_true",
        help="instead: time 49 (α, β) settings fitted fresh vs with fit_settings (shared "
        "label graph, scaling and initialisation) and check that the fits are identical",
    )
    args = ap.parse_args(argv)
    root = os.environ.get("MLFS_DATASETS")
    if not root:
        print("MLFS_DATASETS is not set", file=sys.stderr)
        return 2
    root = Path(root) / "mulan"
    if args.grid:
        return grid_reuse(root, args.only or ["flags", "scene", "enron"])
    hdr = (
        f"{'data set':10s} {'n':>6s} {'d':>5s} {'q':>4s} {'nnz/nd':>6s} {'setup s':>8s} "
        f"{'ms/iter':>8s} {'iters':>5s} {'fit s':>7s} {'peak MB':>8s} "
        f"{'naive ms/it':>11s} {'ratio':>6s}"
    )
    print(hdr)
    print("-" * len(hdr))
    for name, arff_rel, xml_rel in DATASETS:
        if args.only and name not in args.only:
            continue
        X, Y = load_part(root / arff_rel, root / xml_rel)
        n, d = X.shape
        q = Y.shape[1]
        dens = (X.nnz if sp.issparse(X) else np.count_nonzero(X)) / (n * d)
        max_iter = CAPPED.get(name, 100)
        with threadpool_limits(limits=1):
            t0 = time.perf_counter()
            RLEFS(max_iter=0, random_state=0).fit(X, Y)
            setup = time.perf_counter() - t0
            tracemalloc.start()
            t0 = time.perf_counter()
            m = RLEFS(max_iter=max_iter, random_state=0).fit(X, Y)
            fit = time.perf_counter() - t0
            peak = tracemalloc.get_traced_memory()[1] / 2**20
            tracemalloc.stop()
            per_it = (fit - setup) / max(m.n_iter_, 1)
            naive = ratio = ""
            if n <= args.naive_max_n:
                ref = RLEFS(max_iter=3, tol=0, random_state=0).fit(X, Y)
                Wn, t_naive = naive_iterations(X, Y, 3, 0)
                if not np.allclose(ref.W_, Wn, rtol=1e-6, atol=1e-12):
                    print(f"  !! {name}: the naive implementation disagrees", file=sys.stderr)
                    return 1
                naive = f"{1e3 * t_naive:11.1f}"
                ratio = f"{t_naive / per_it:6.1f}"
        cap = "*" if name in CAPPED else ""
        print(
            f"{name:10s} {n:6d} {d:5d} {q:4d} {dens:6.3f} {setup:8.3f} {1e3 * per_it:8.2f} "
            f"{m.n_iter_:4d}{cap:1s} {fit:7.2f} {peak:8.1f} {naive:>11s} {ratio:>6s}",
            flush=True,
        )
    print("* iteration cap (q = 983); per-iteration time measured over the capped run.")
    print("All times single-threaded BLAS (threadpoolctl limit 1).")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
