"""MSSL and SSFS against straightforward implementations of their equations.

Run:  MLFS_DATASETS=/path/to/datasets python benchmarks/bench_sparse_graph.py [--only bibtex]
      [--methods mssl ssfs]

For each data set (emotions, scene's training part, medical — ``d > n`` — and bibtex,
7,395 × 1,836 × 159, sparse) and each method it times, in one process:

* the library: set-up (graph, Gram matrices, scaling, initialisation: ``_prepare``),
  seconds per iteration (10 iterations from that set-up, ``tol=0``), and one fit with the
  default parameters and stopping rule (its iteration count and total time);
* the straightforward implementation that ``tests/selection/test_sparse_graph.py``
  compares against (graphs built by loops; the explicit ``n × n`` centring matrix and a
  dense solve per step for MSSL; SSFS's updates as printed with dense ``X``, ``S`` and
  ``A``): the loop-built graph, then 3 iterations, and checks that both give the same
  result after three iterations.

It prints both per-iteration times and their ratio, the ratio of whole default fits (the
reference's graph plus as many of its iterations as the library's default fit ran, against
that fit), and the complexity in n, d, q. The
straightforward implementation is not run above ``--naive-max-n`` patterns; its time is
then extrapolated from the largest set it ran on (the graph loops by ``d²·n`` for MSSL,
``n²·d`` for SSFS; an iteration by ``n²·d`` for MSSL — its ``XᵀHX`` with the ``n × n`` centring
matrix — and ``n²·q`` for SSFS — its dense graph products) and marked so. Steps that take
under a second are timed best of three. Times are CPU seconds of the process
(``time.process_time``) with one BLAS/OpenMP thread by default: the machine is shared, and
the wall time would add the wait for a core; ratios matter.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "selection"))  # the tests' reference implementations

from _mulan import DATASETS, load_part  # noqa: E402  (benchmarks/ is the script folder)

COMPLEXITY = {
    "mssl": "feature graph O(d²·n) once (row blocks of Xᵀ) + XᵀX O(nnz(X)·d) once; per "
    "iteration one d × d Cholesky O(d³/3) + O(d²·q); memory O(d² + d·q)",
    "ssfs": "pattern graph O(n²·d) once (row blocks); per iteration "
    "O(nnz(X)·k + nnz(Y)·k + nnz(S)·k + (n + d + q)·k²), k = q by default; memory "
    "O(nnz(X) + n·p + (n + d + q)·k)",
}

#: Largest n on which each straightforward implementation runs by default. MSSL's loops
#: are over the d features (bibtex: d = 1,836 runs); SSFS's graph loops are over the n
#: patterns (n² pairs: bibtex's 27 million pairs are extrapolated).
NAIVE_MAX_N = {"mssl": 8000, "ssfs": 2500}

def _time(fn) -> tuple[float, object]:
    """CPU seconds of this process for one call, and its result; best of three when a
    call takes under 1 s. CPU time, not wall time: on the shared machine the wait for a
    core is not the method's cost (with one BLAS thread the two agree on an idle machine)."""
    t0 = time.process_time()
    out = fn()
    best = time.process_time() - t0
    if best < 1.0:
        for _ in range(2):
            t0 = time.process_time()
            out = fn()
            best = min(best, time.process_time() - t0)
    return best, out


def _methods() -> dict:
    """name -> (class, fixed parameters, reference graph/set-up, reference iterations,
    library result, reference result)."""
    import test_sparse_graph as ref

    from skmlfs import selection

    out = {"mssl": (selection.MSSL, {}, lambda X, Y: ref._mssl_graph(X),
                    lambda X, Y, k, g: ref._mssl_reference(X, Y, k, L=g),
                    lambda est: est.W_, lambda r: r[0])}
    if hasattr(selection, "SSFS") and hasattr(ref, "_ssfs_reference"):
        out["ssfs"] = (selection.SSFS, {"random_state": 0}, lambda X, Y: ref._ssfs_graph(X),
                       lambda X, Y, k, g: ref._ssfs_reference(X, Y, k, 0, S=g),
                       lambda est: est.Q_, lambda r: r[0])
    return out


def bench(name: str, X, Y, methods: list[str], naive_max_n: int | None,
          extrapolate: dict) -> None:
    n, d = X.shape
    q = Y.shape[1]
    Xd = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)
    for method, (cls, kw, ref_setup_fn, ref_fn, lib_out, ref_out) in _methods().items():
        if method not in methods:
            continue
        est = cls(max_iter=10, tol=0, **kw)
        lib_setup, prep = _time(lambda est=est: est._prepare(X, Y))
        t_it, _ = _time(lambda est=est, prep=prep: est._fit_prepared(prep))
        lib_iter = t_it / est.n_iter_
        t_full, full = _time(lambda cls=cls, kw=kw: cls(**kw).fit(X, Y))
        line = (f"{name:9s} {method:5s} {n:6d} {d:5d} {q:4d} {lib_setup:9.2f} {lib_iter:9.4f} "
                f"{full.n_iter_:5d} {t_full:8.2f}")
        if n > (NAIVE_MAX_N[method] if naive_max_n is None else naive_max_n):
            tail = "(not run)"
            if method in extrapolate:
                n0, d0, set0, per0 = extrapolate[method]
                # graph loops grow like d²·n (MSSL: pairs of features) or n²·d (SSFS:
                # pairs of patterns); the iterations' dense products like n²·d (MSSL's
                # XᵀHX) or n²·q (SSFS's graph products)
                g = ((d / d0) ** 2 * (n / n0) if method == "mssl"
                     else (n / n0) ** 2 * (d / d0))
                per = per0 * (n / n0) ** 2 * ((d / d0) if method == "mssl" else q / 1.0)
                ref_fit = set0 * g + full.n_iter_ * per
                tail = (f"{set0 * g:10.1f}* {per:10.2f}* {per / lib_iter:9.0f}* "
                        f"{ref_fit / t_full:9.0f}*  (* extrapolated from n = {n0})")
            print(f"{line} {tail}")
            continue
        ref_setup, g = _time(lambda ref_setup_fn=ref_setup_fn: ref_setup_fn(Xd, Y))
        t3, naive3 = _time(lambda ref_fn=ref_fn, g=g: ref_fn(Xd, Y, 3, g))
        ref_iter = t3 / 3
        lib3 = cls(max_iter=3, tol=0, **kw).fit(X, Y)
        a, b = lib_out(lib3), ref_out(naive3)
        same = np.allclose(a, b, rtol=1e-6, atol=1e-8 * np.abs(b).max())
        if n > extrapolate.get(method, (0,))[0]:
            # the largest set it ran on (SSFS's per-iteration time normalised by q)
            extrapolate[method] = (n, d, ref_setup, ref_iter / (1.0 if method == "mssl" else q))
        # the whole default fit: the reference's graph plus as many of its iterations
        ref_fit = ref_setup + full.n_iter_ * ref_iter
        print(f"{line} {ref_setup:10.2f} {ref_iter:10.3f} {ref_iter / lib_iter:9.1f} "
              f"{ref_fit / t_full:9.1f}  {'yes' if same else 'NO'}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", help="data set names (default: all four)")
    parser.add_argument("--methods", nargs="*", default=["mssl", "ssfs"])
    parser.add_argument("--naive-max-n", type=int, default=None,
                        help="largest n on which the straightforward implementations run "
                        f"(default: {NAIVE_MAX_N})")
    parser.add_argument("--blas-threads", type=int, default=1,
                        help="BLAS and OpenMP threads for both sides (0: the library "
                        "default). One by default: on a shared two-core machine a second "
                        "BLAS thread that waits for a busy core makes small factorisations "
                        "10-100x slower")
    args = parser.parse_args(argv)
    root = os.environ.get("MLFS_DATASETS")
    if not root:
        print("set MLFS_DATASETS", file=sys.stderr)
        return 2
    root_p = Path(root) / "mulan"
    print(f"BLAS/OpenMP threads: {args.blas_threads or 'library default'}")
    print("complexity:")
    for m, c in COMPLEXITY.items():
        if m in args.methods:
            print(f"  {m}: {c}")
    print(f"\n{'data set':9s} {'meth.':5s} {'n':>6s} {'d':>5s} {'q':>4s} {'lib setup':>9s} "
          f"{'lib s/it':>9s} {'iters':>5s} {'fit s':>8s} {'ref setup':>10s} {'ref s/it':>10s} "
          f"{'ratio/it':>9s} {'ratio fit':>9s}  same")
    extrapolate: dict = {}
    # load every BLAS first (scipy.linalg's own OpenBLAS comes with the selectors and the
    # references): threadpoolctl limits only the libraries loaded when the block starts
    _methods()
    limits = (threadpool_limits(limits=args.blas_threads)
              if args.blas_threads > 0 else contextlib.nullcontext())
    with limits:
        for name, arff_rel, xml_rel in DATASETS:
            if args.only and name not in args.only:
                continue
            X, Y = load_part(root_p, arff_rel, xml_rel)
            bench(name, X, Y, args.methods, args.naive_max_n, extrapolate)
    return 0


if __name__ == "__main__":
    sys.exit(main())
