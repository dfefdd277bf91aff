"""MDFS and SCMFS against straightforward implementations of their updates.

Run:  MLFS_DATASETS=/path/to/datasets python benchmarks/bench_manifold.py [--only bibtex]

For each data set (emotions, scene's training part, medical — ``d > n``, so MDFS takes its
``n × n`` branch — and bibtex, 7,395 × 1,836 × 159, sparse) and each method it times, in
one process:

* the library: set-up (graphs, scaling, initialisation) and seconds per iteration (from
  fits with 1 and 11 iterations), and one fit with the default parameters and stopping
  rule (its iteration count and total time);
* the straightforward implementation that ``tests/selection/test_manifold.py`` compares
  against (loop-built graphs and the ``n × n`` centring matrix, MDFS's ``F`` step by
  scipy's dense Sylvester solver, SCMFS's updates as printed on a dense ``X``) — the same
  split, from 1 and 3 iterations — and checks that both give the same ``W`` after three
  iterations.

It prints both per-iteration times and their ratio, and the complexity in n, d, q. The
straightforward MDFS is not run above ``--naive-max-n`` patterns (bibtex): its dense
Sylvester solve is ``O(n³)`` per iteration with several ``n × n`` matrices (≈ 0.4 GB
each at n = 7,395); its time there is extrapolated from the largest set it ran on by
``n³`` and marked so. The machine is shared: timings are upper bounds, ratios matter.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "selection"))  # the tests' reference implementations

from _mulan import DATASETS, load_part  # noqa: E402  (benchmarks/ is the script folder)

COMPLEXITY = {
    "mdfs": "pattern graph O(n²·d) once (row blocks); per iteration O(t·nnz(L)·q) for t "
    "conjugate-gradient steps + O(nnz(X)·q + d²·q + d³/3) (W step; O(n²·d + n³/3) when "
    "d > n); memory O(n·p + (n + d)·q + min(n, d)²)",
    "scmfs": "per iteration O(nnz(X)·k + nnz(Y)·k + (n + d + q)·k²), k = q by default; "
    "memory O(nnz(X) + (n + d + q)·k)",
}

def _time(fn) -> tuple[float, object]:
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def _split(t1: float, tk: float, k: int) -> tuple[float, float]:
    """(set-up, per iteration) from the times of 1 and ``k`` iterations."""
    per = max(tk - t1, 0.0) / (k - 1)
    return max(t1 - per, 0.0), per


def bench(name: str, X, Y, naive_max_n: int, extrapolate: dict) -> None:
    from test_manifold import _mdfs_reference, _scmfs_reference

    from skmlfs.selection import MDFS, SCMFS

    n, d = X.shape
    q = Y.shape[1]
    Xd = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)
    for method, cls, ref in (("mdfs", MDFS, _mdfs_reference), ("scmfs", SCMFS, _scmfs_reference)):
        t1, _ = _time(lambda cls=cls: cls(random_state=0, max_iter=1, tol=0).fit(X, Y))
        t11, _ = _time(lambda cls=cls: cls(random_state=0, max_iter=11, tol=0).fit(X, Y))
        lib_setup, lib_iter = _split(t1, t11, 11)
        t_full, full = _time(lambda cls=cls: cls(random_state=0).fit(X, Y))
        line = (f"{name:9s} {method:6s} {n:6d} {d:5d} {q:4d} {lib_setup:9.2f} {lib_iter:9.3f} "
                f"{full.n_iter_:5d} {t_full:8.2f}")
        if method == "mdfs" and n > naive_max_n:
            est = ""
            if "mdfs" in extrapolate:
                n0, per0 = extrapolate["mdfs"]
                per = per0 * (n / n0) ** 3
                est = f"{per:10.1f}*  {per / lib_iter:8.0f}*"
            print(f"{line} {'(not run)':>10s} {est}  (* extrapolated by n³ from n = "
                  f"{extrapolate.get('mdfs', (0, 0))[0]})")
            continue
        r1, _ = _time(lambda ref=ref: ref(Xd, Y, 1, 0))
        r3, naive3 = _time(lambda ref=ref: ref(Xd, Y, 3, 0))
        ref_setup, ref_iter = _split(r1, r3, 3)
        lib3 = cls(random_state=0, max_iter=3, tol=0).fit(X, Y)
        same = np.allclose(lib3.W_, naive3[0], rtol=1e-6, atol=1e-8 * np.abs(naive3[0]).max())
        if n > extrapolate.get(method, (0, 0.0))[0]:
            extrapolate[method] = (n, ref_iter)  # the largest set it ran on
        print(f"{line} {ref_setup:10.2f} {ref_iter:10.3f} {ref_iter / max(lib_iter, 1e-9):9.1f}"
              f"  {'yes' if same else 'NO'}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", help="data set names (default: all four)")
    parser.add_argument("--naive-max-n", type=int, default=2500,
                        help="largest n on which the straightforward MDFS runs")
    args = parser.parse_args(argv)
    root = os.environ.get("MLFS_DATASETS")
    if not root:
        print("set MLFS_DATASETS", file=sys.stderr)
        return 2
    root_p = Path(root) / "mulan"
    print("complexity:")
    for m, c in COMPLEXITY.items():
        print(f"  {m}: {c}")
    print(f"\n{'data set':9s} {'method':6s} {'n':>6s} {'d':>5s} {'q':>4s} {'lib setup':>9s} "
          f"{'lib s/it':>9s} {'iters':>5s} {'fit s':>8s} {'ref setup':>10s} {'ref s/it':>10s} "
          f"{'ratio/it':>9s}  same W")
    extrapolate: dict = {}
    for name, arff_rel, xml_rel in DATASETS:
        if args.only and name not in args.only:
            continue
        X, Y = load_part(root_p, arff_rel, xml_rel)
        bench(name, X, Y, args.naive_max_n, extrapolate)
    return 0


if __name__ == "__main__":
    sys.exit(main())
