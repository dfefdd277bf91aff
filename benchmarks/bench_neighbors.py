"""Benchmark: the neighbour searches' exact stable k-smallest selection, compiled (numba,
the ``fast`` extra) against the numpy path and a straightforward stable sort, and ML-kNN
with and without the kernels on the benchmark's two largest binary data sets.

``stable_smallest`` gives, for every row of a distance block, the ``k`` nearest columns
with ties to the lower column. On binary bag-of-words data most distances are tied, and
half of ML-kNN's time went into the numpy path's partition, tie repair and final sort
(measured on tmc2007). Timed here, in the same run:

* the selection on ``--tile``² blocks of integer distances (ties everywhere):
  ``np.argsort(kind="stable")[:, :k]`` (straightforward), the numpy path, the kernel;
  results compared entry for entry;
* ``MLkNN(k=10)`` fit + ``predict_proba`` on one 80/20 split of each data set with a
  random 10 % of the features (the benchmark protocol's middle budget), three ways (best
  of ``--repeat``): the whole search by bit counts on these 0/1 data (the default with
  numba), the distance products with the compiled selection (the bit search switched off),
  and the numpy path; probabilities and neighbours compared bit for bit;
* ``PPTReliefF`` (every pattern sampled, ``p = 1`` distances to all patterns) on the
  first ``--relief-rows`` patterns of each data set, distances by bit counts against the
  products (best of ``--repeat``); the weights compared bit for bit;
* the tie tolerance on range-scaled integer codes (``--coded-rows`` patterns, 4 features
  with ranges 7, 5, 3 and 9: a few selected features of flags or of discretized data):
  ML-kNN's search with the tolerance against tolerance 0 (the rounding deciding ties, the
  behaviour before 0.2.0), numpy path and kernel, and how many test rows' neighbours
  differ from those of the exact rational distances (computed in integers) each way.

Usage::

    MLFS_DATASETS=/path/to/datasets python benchmarks/bench_neighbors.py [tmc2007 delicious]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

import skmlfs._compiled as compiled
import skmlfs.neighbors._heom as heom
from skmlfs.datasets import load_name
from skmlfs.learners import MLkNN
from skmlfs.neighbors import stable_smallest
from skmlfs.selection import PPTReliefF


def best_of(fn, repeat):
    best, out = np.inf, None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def with_path(numpy_path: bool, fn):
    compiled.FORCE_NUMPY = numpy_path
    try:
        return fn()
    finally:
        compiled.FORCE_NUMPY = False


def load_str():
    return "load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("datasets", nargs="*", default=["tmc2007", "delicious"])
    ap.add_argument("--tile", type=int, default=2000)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--relief-rows", type=int, default=6000)
    ap.add_argument("--coded-rows", type=int, default=10000)
    args = ap.parse_args()
    if not compiled.use_numba():
        raise SystemExit("numba is not installed (pip install 'scikit-mlfs[fast]')")
    print(f"{os.cpu_count()} CPUs, numpy {np.__version__}; {load_str()}")

    rng = np.random.default_rng(0)
    D = rng.integers(0, 40, (args.tile, args.tile)).astype(float)
    stable_smallest(D[:2], args.k)  # compile or load the kernel outside the timing
    t_sort, ref = best_of(lambda: np.argsort(D, axis=1, kind="stable")[:, : args.k], args.repeat)
    t_np, out_np = with_path(True, lambda: best_of(lambda: stable_smallest(D, args.k), args.repeat))
    t_nb, out_nb = best_of(lambda: stable_smallest(D, args.k), args.repeat)
    same = np.array_equal(ref, out_np) and np.array_equal(ref, out_nb)
    print(f"\n== stable k-smallest, {args.tile} x {args.tile} integer distances, k = {args.k}")
    print(f"stable argsort {t_sort:.4f} s   numpy path {t_np:.4f} s   kernel {t_nb:.4f} s")
    print(
        f"ratios: argsort/kernel {t_sort / t_nb:.1f}x   numpy path/kernel {t_np / t_nb:.1f}x"
        f"   -> {'IDENTICAL' if same else 'DIFFERENT'}"
    )

    for name in args.datasets:
        ds = load_name(name)
        X, Y = ds.X, ds.Y
        n, d = X.shape
        perm = rng.permutation(n)
        tr, te = np.sort(perm[: 4 * n // 5]), np.sort(perm[4 * n // 5 :])
        cols = np.sort(rng.choice(d, max(1, d // 10), replace=False))
        Xs = X[:, cols]

        def run(Xs=Xs, tr=tr, te=te, Y=Y):
            m = MLkNN(k=args.k).fit(Xs[tr], Y[tr])
            return m.predict_proba(Xs[te]), m.kneighbors(Xs[te])[1]

        run()  # compile or load the kernels outside the timing
        t_bits, (p_bits, nb_bits) = best_of(run, args.repeat)
        limit = heom.BITS_MAX_FEATURES
        heom.BITS_MAX_FEATURES = 0
        try:
            t_nb, (p_nb, nb_nb) = best_of(run, args.repeat)
        finally:
            heom.BITS_MAX_FEATURES = limit
        t_np, (p_np, nb_np) = with_path(True, lambda run=run: best_of(run, args.repeat))
        same = all(
            np.array_equal(p, p_np) and np.array_equal(nb, nb_np)
            for p, nb in ((p_bits, nb_bits), (p_nb, nb_nb))
        )
        print(
            f"\n== {name}: train {tr.size} x {cols.size} features, test {te.size}, "
            f"{Y.shape[1]} labels, k = {args.k}"
        )
        print(
            f"MLkNN fit+predict_proba: numpy path {t_np:.2f} s   products + compiled "
            f"selection {t_nb:.2f} s   bit counts {t_bits:.2f} s   (best of {args.repeat}; "
            f"{load_str()})"
        )
        print(
            f"ratios: numpy path/bit counts {t_np / t_bits:.2f}x   "
            f"products/bit counts {t_nb / t_bits:.2f}x"
        )
        print(f"probabilities and neighbours: {'IDENTICAL' if same else 'DIFFERENT'}")

        r = min(n, args.relief_rows)

        def relief(r=r, X=X, Y=Y):
            return PPTReliefF(n_features_to_select=10).fit(X[:r], Y[:r]).scores_

        relief()
        t_rb, w_bits = best_of(relief, args.repeat)
        heom.BITS_MAX_FEATURES = 0
        try:
            t_rp, w_prod = best_of(relief, args.repeat)
        finally:
            heom.BITS_MAX_FEATURES = limit
        print(
            f"PPTReliefF fit on {r} x {d}: products {t_rp:.2f} s   bit counts {t_rb:.2f} s   "
            f"ratio {t_rp / t_rb:.2f}x   weights "
            f"{'IDENTICAL' if np.array_equal(w_bits, w_prod) else 'DIFFERENT'}"
        )

    coded(rng, args)


def coded(rng, args) -> None:
    """The tie tolerance on range-scaled integer codes: cost and exactness."""
    import math

    n = args.coded_rows
    ranges = np.array([7, 5, 3, 9])
    X = np.column_stack([rng.integers(0, r + 1, n) for r in ranges]).astype(float)
    X[0], X[1] = 0, ranges  # every range reached on the training rows
    tr, te = np.arange(4 * n // 5), np.arange(4 * n // 5, n)
    Xtr, Xte = X[tr], X[te]
    # exact squared HEOM distances in integer units: Σ Δ² · L / r² with L = lcm(r²)
    L = math.lcm(*[int(r) ** 2 for r in ranges])
    unit = np.array([L // int(r) ** 2 for r in ranges], dtype=np.int64)
    Ai, Bi = Xtr.astype(np.int64), Xte[:300].astype(np.int64)
    E = np.stack([((Ai - b) ** 2 * unit).sum(1) for b in Bi])
    exact = np.argsort(E, axis=1, kind="stable")[:, : args.k]

    h = heom.HEOM().fit(Xtr)
    T, Q = h.prepare(Xtr), h.prepare(Xte)

    def search():
        return h.kneighbors(Q, T, args.k)[1]

    search()  # compile or load the kernels outside the timing
    real = heom.HEOM._tie_tol
    rows = {}
    for label, zero in (("tolerance", False), ("tolerance 0", True)):
        if zero:
            heom.HEOM._tie_tol = lambda self, A, B: 0.0
        try:
            t_nb, nb = best_of(search, args.repeat)
            t_np, nb_np = with_path(True, lambda: best_of(search, args.repeat))
        finally:
            heom.HEOM._tie_tol = real
        wrong = int(np.count_nonzero((nb[:300] != exact).any(axis=1)))
        rows[label] = (t_np, t_nb, wrong, np.array_equal(nb, nb_np))
    print(
        f"\n== range-scaled codes: train {tr.size} x {ranges.size} features (ranges "
        f"{', '.join(map(str, ranges))}), test {te.size}, "
        f"k = {args.k}; {load_str()}"
    )
    for label, (t_np, t_nb, wrong, same) in rows.items():
        print(
            f"{label:>12}: numpy path {t_np:.3f} s   kernel {t_nb:.3f} s   neighbours "
            f"differing from the exact distances' on {wrong} of 300 test rows   paths "
            f"{'IDENTICAL' if same else 'DIFFERENT'}"
        )
    (a_np, a_nb, *_), (b_np, b_nb, *_) = rows["tolerance"], rows["tolerance 0"]
    print(f"ratios (tolerance / tolerance 0): numpy path {a_np / b_np:.2f}x   "
          f"kernel {a_nb / b_nb:.2f}x")


if __name__ == "__main__":
    main()
