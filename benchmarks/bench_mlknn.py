"""Benchmark: ``skmlfs.learners.MLkNN`` against scikit-multilearn's ``MLkNN``.

Both run on the Mulan train/test split of each data set with the same ``k`` and ``s = 1``
and raw Euclidean distances (``metric="euclidean"``, scikit-multilearn's distance). Timed:
``fit`` + ``predict``, best of ``--repeat`` runs of each, the two alternating so that both
see the same machine load (the load average is printed with the numbers); wall-clock and
process CPU times (the latter disturbed much less by other jobs on a shared machine).
Peak memory is measured in the timed runs: the increase of the resident set's high-water
mark (``VmHWM``, reset before each call through ``/proc/self/clear_refs``; Linux only)
over the resident set at the start of the call (after returning free heap memory to the
system), the largest over the repeats.

scikit-multilearn is run with ``ignore_first_neighbours=1`` during ``fit`` (so that a
training sample is not its own neighbour, as ML-kNN requires) and ``0`` during
``predict``. Its neighbour search (scikit-learn) orders tied distances arbitrarily, which
matters on binary bag-of-words data; the predictions are therefore compared twice: with
scikit-learn's search (differences come only from ties) and with a stand-in search that
breaks ties by the lower training index, as ``MLkNN`` does (must be identical). Usage::

    MLFS_DATASETS=/path/to/datasets python benchmarks/bench_mlknn.py [enron bibtex]
"""

from __future__ import annotations

import argparse
import gc
import os
import time
from functools import partial
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from _peak import PeakRSS  # benchmarks/_peak.py (scripts run from this folder)
from sklearn.neighbors import NearestNeighbors

from skmlfs.datasets import load_train_test
from skmlfs.learners import MLkNN


class StableNN:
    """Neighbour search with ties → lower index and the training sample itself first."""

    def __init__(self, k):
        self.k = k

    def fit(self, X):
        self.X = X
        self.sq = np.asarray(X.multiply(X).sum(1)).ravel() if sp.issparse(X) else (X**2).sum(1)
        return self

    def kneighbors(self, X, n_neighbors, return_distance=False):
        same = X is self.X
        out = []
        for s in range(0, X.shape[0], 500):
            B = X[s : s + 500]
            G = B @ self.X.T
            G = G.toarray() if sp.issparse(G) else G
            sqb = np.asarray(B.multiply(B).sum(1)).ravel() if sp.issparse(B) else (B**2).sum(1)
            D = sqb[:, None] + self.sq[None] - 2 * G
            if same:
                D[np.arange(len(D)), s + np.arange(len(D))] = -1.0
            out.append(np.argsort(D, axis=1, kind="stable")[:, :n_neighbors])
        return np.vstack(out)


def skml_class(nn_factory):
    import skmultilearn.adapt.mlknn as skml

    # scikit-multilearn calls NearestNeighbors(k) positionally (rejected by
    # scikit-learn >= 1.2); give it a factory with the same meaning.
    skml.NearestNeighbors = nn_factory
    return skml.MLkNN


def run_skml(cls, Xtr, Ytr, Xte, k):
    clf = cls(k=k, s=1.0, ignore_first_neighbours=1).fit(Xtr, Ytr)
    clf.ignore_first_neighbours = 0
    return clf.predict(Xte).toarray()


def run_ours(Xtr, Ytr, Xte, k):
    return MLkNN(k=k, metric="euclidean").fit(Xtr, Ytr).predict(Xte)


def timed_pair(fns, repeat, rss):
    """Best wall and CPU time, largest peak memory and last result of each function.

    The functions run alternately, ``repeat`` rounds, so that both see the same load.
    """
    best = [np.inf] * len(fns)
    best_cpu = [np.inf] * len(fns)
    peak = [float("nan") if not rss.ok else 0.0] * len(fns)
    out = [None] * len(fns)
    for _ in range(repeat):
        for j, fn in enumerate(fns):
            out[j] = None
            gc.collect()
            if rss.ok:
                rss.start()
            c = time.process_time()
            t = time.perf_counter()
            out[j] = fn()
            best[j] = min(best[j], time.perf_counter() - t)
            best_cpu[j] = min(best_cpu[j], time.process_time() - c)
            if rss.ok:
                peak[j] = max(peak[j], rss.stop())
    return best, best_cpu, peak, out


def load_str():
    return "load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("datasets", nargs="*", default=["enron", "bibtex"])
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    root = Path(os.environ["MLFS_DATASETS"])
    sk_nn = skml_class(lambda k: NearestNeighbors(n_neighbors=k))
    rss = PeakRSS()
    print(f"{os.cpu_count()} CPUs, numpy {np.__version__}; {load_str()}")
    for name in args.datasets:
        ds = load_train_test(root / "mulan" / name / f"{name}-train.arff")
        X = sp.csr_matrix(ds.X, dtype=float) if sp.issparse(ds.X) else np.asarray(ds.X, float)
        tr = ds.part == 0
        Xtr, Xte, Ytr = X[tr], X[~tr], ds.Y[tr]
        print(f"\n== {name}: train {Xtr.shape}, test {Xte.shape[0]}, "
              f"{ds.Y.shape[1]} labels, k = {args.k}, {'sparse' if sp.issparse(X) else 'dense'}")
        ours = partial(run_ours, Xtr, Ytr, Xte, args.k)
        theirs = partial(run_skml, sk_nn, Xtr, Ytr, Xte, args.k)
        (t_ours, t_sk), (c_ours, c_sk), (m_ours, m_sk), (p_ours, p_sk) = timed_pair(
            [ours, theirs], args.repeat, rss
        )
        print(f"fit+predict: MLkNN {t_ours:.3f} s   scikit-multilearn {t_sk:.3f} s   "
              f"ratio {t_sk / t_ours:.1f}×   (best of {args.repeat}; {load_str()})")
        print(f"  CPU time:  MLkNN {c_ours:.3f} s   scikit-multilearn {c_sk:.3f} s   "
              f"ratio {c_sk / c_ours:.1f}×   (process, all threads)")
        print(f"peak memory: MLkNN {m_ours:.1f} MB   scikit-multilearn {m_sk:.1f} MB")
        diff = int((p_sk != p_ours).sum())
        print(f"predictions vs scikit-multilearn (scikit-learn search): {diff} of {p_sk.size} "
              "entries differ (tied neighbours)")
        p_stable = run_skml(skml_class(StableNN), Xtr, Ytr, Xte, args.k)
        skml_class(lambda k: NearestNeighbors(n_neighbors=k))
        diff = int((p_stable != p_ours).sum())
        print(f"predictions vs scikit-multilearn (ties → lower index): {diff} differ"
              f" -> {'IDENTICAL' if diff == 0 else 'DIFFERENT'}")


if __name__ == "__main__":
    main()
