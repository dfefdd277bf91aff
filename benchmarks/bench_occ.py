"""Benchmark: oCC training on bibtex (q = 159) and delicious (q = 983).

Library: :class:`skmlfs.learners.OCC` — the information terms of Algorithm 2 / Eq. (47)
(chain order), Eq. (33) (parents) and Eq. (43) (label-specific features) for all labels
through the count engine (one block product for every relevance table, one stratified
product per conditioning candidate for the CMI terms, greedy steps of all labels in
lock-step), then one LIBLINEAR SVM per label, then prediction of the test part label by
label (vectorised over the rows).

Straightforward implementation (timed in the same run): the same three equations one
information value at a time, each entropy from ``np.unique`` over the joint columns
(:mod:`skmlfs.info._reference`), with the reference routine's candidate cap and the
redundancy term updated incrementally (one CMI per candidate and greedy step — not the
quadratic recomputation of the reference MATLAB). It is far too slow to finish on these
data (hours), so the number of information values the whole problem needs is counted
exactly, the time per value is measured on a random sample of values of each kind for
about a third of ``--ref-seconds``, and the total is extrapolated (marked ``~``). For the
rest of the budget it runs whole labels (those with the fewest parents first) and checks
that their parents and features equal the library's.

Configuration: 80/20 split (seed 0), training part only; ``k = ⌈0.8 q⌉`` (≥ 100, so the
reference routine ranks parents by relevance), ``M`` below the 100-candidate cap so that
Eq. (43) runs its greedy search (bibtex ``M = 0.03 d = 56``, delicious ``M = 0.1 d = 50``),
order by Algorithm 2 with the 1-D PCA projection.

Usage::

    MLFS_DATASETS=/path/to/datasets python benchmarks/bench_occ.py [--only bibtex]
"""

from __future__ import annotations

import argparse
import os
import time
import tracemalloc

import numpy as np
from threadpoolctl import threadpool_limits

from skmlfs.datasets import load_name
from skmlfs.discretize import MeanStdDiscretizer
from skmlfs.info import DiscreteData, mutual_info
from skmlfs.info._reference import ref_conditional_mutual_info, ref_mutual_info
from skmlfs.learners import OCC
from skmlfs.learners._chains import _pca_projection, select_chain_order
from skmlfs.metrics import subset_accuracy
from skmlfs.selection._mlfs import kcc_parents, label_specific_select, resolve_count

CONFIGS = {"bibtex": 0.03, "delicious": 0.1}


def split(name):
    ds = load_name(name)
    X, Y = ds.X, np.asarray(ds.Y, dtype=np.uint8)
    n = Y.shape[0]
    perm = np.random.default_rng(0).permutation(n)
    n_te = int(np.floor(0.2 * n))
    return X[np.sort(perm[n_te:])], Y[np.sort(perm[n_te:])], X[np.sort(perm[:n_te])], \
        Y[np.sort(perm[:n_te])]


# ---------------------------------------------------------------- library
def library_information(X, Y, M_frac):
    """The information part of OCC.fit, timed stage by stage (same calls as OCC)."""
    q, d = Y.shape[1], X.shape[1]
    k, M = resolve_count(0.8, q, "k"), resolve_count(M_frac, d, "M")
    t = {}
    t0 = time.perf_counter()
    Xd = X  # binary sparse features: myDisc leaves them unchanged (OCC does the same)
    D, Yd = DiscreteData.from_array(Xd), DiscreteData.from_array(Y)
    z = _pca_projection(X)[:, None]
    Z = DiscreteData.from_array(MeanStdDiscretizer(0.5, 3).fit(z).transform(z))
    t["encode + PCA"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    order = select_chain_order(Yd, Z)
    t["order (Alg. 2 / Eq. 47)"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    const = (Y.sum(0) == 0) | (Y.sum(0) == Y.shape[0])
    parents = kcc_parents(Yd, order, k, exclude=const)
    t["parents (Eq. 33)"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    targets = np.asarray([j for j in order if not const[j]])
    rel = mutual_info(D, Yd)
    feats = label_specific_select(D, Yd, targets, None, M, parents=[parents[j] for j in targets],
                                  relevance=rel)
    t["features (Eq. 43)"] = time.perf_counter() - t0
    features = {int(j): f for j, f in zip(targets, feats, strict=True)}
    return t, order, parents, features, z, k, M


# ---------------------------------------------------------------- straightforward
class Counter:
    def __init__(self):
        self.calls, self.seconds = 0, 0.0

    def mi(self, a, b):
        t0 = time.perf_counter()
        v = ref_mutual_info(a, b)
        self.seconds += time.perf_counter() - t0
        self.calls += 1
        return v

    def cmi(self, a, b, c):
        t0 = time.perf_counter()
        v = ref_conditional_mutual_info(a, b, c)
        self.seconds += time.perf_counter() - t0
        self.calls += 1
        return v


def ref_select(cnt, cols, y, P, K, cap=100):
    """oCC_select over candidate columns ``cols`` (dense), one value at a time."""
    m = cols.shape[1]
    if m <= K:
        return list(range(m)), m
    rel = np.array([cnt.mi(cols[:, i], y) for i in range(m)])
    order = list(np.argsort(-np.round(rel, 9), kind="stable"))
    if cap <= K:
        return order[:K], m
    S, pool = [order[0]], order[1:min(cap, m)]
    cor = {i: (np.mean([cnt.cmi(y, P[:, p], cols[:, i]) for p in range(P.shape[1])])
               if P is not None and P.shape[1] else 0.0) for i in pool}
    red = dict.fromkeys(pool, 0.0)
    while len(S) < K:
        s = S[-1]
        for i in pool:  # incremental: one new CMI per candidate and step
            red[i] += cnt.cmi(y, cols[:, s], cols[:, i])
        score = {i: rel[i] + cor[i] + red[i] / len(S) for i in pool}
        best = max(pool, key=lambda i: (round(score[i], 9), -pool.index(i)))
        S.append(best)
        pool.remove(best)
    return S, None


def count_needed(q, d, order, parents, k, M, cap=100):
    """Exact number of MI/CMI values the straightforward implementation needs."""
    order_pairs = q * (q - 1) // 2
    # parents: a label with more than k earlier candidates ranks them (k >= cap here)
    par = sum(t for t in range(q) if t > k)
    L = min(cap, d)
    red = sum(L - 1 - (t - 1) for t in range(1, M))
    feat = 0
    for j in order:
        feat += d
        if d > M and cap > M:
            feat += (L - 1) * len(parents[j]) + red
    return order_pairs, par, feat


def straightforward(X, Y, order, parents, features, z, k, M, budget):
    """Time per information value on samples of the needed kinds; full per-label runs of
    the cheapest labels (fewest values) to check agreement with the library."""
    q = Y.shape[1]
    Xd = X.toarray() if hasattr(X, "toarray") else np.asarray(X)
    zd = MeanStdDiscretizer(0.5, 3).fit(z).transform(z)[:, 0]
    rng = np.random.default_rng(1)
    c_order, c_lab = Counter(), Counter()
    # time per value: Eq. 47 pair CMIs, label-label MIs, and the CMIs of Eq. 43
    t_end = time.perf_counter() + budget / 3
    while time.perf_counter() < t_end:
        a, b = rng.choice(q, 2, replace=False)
        c_order.cmi(Y[:, a], Y[:, b], zd)
        j, p = rng.choice(q, 2, replace=False)
        i, s = rng.choice(Xd.shape[1], 2, replace=False)
        c_lab.mi(Y[:, p], Y[:, j])
        c_lab.mi(Xd[:, i], Y[:, j])
        c_lab.cmi(Y[:, j], Y[:, p], Xd[:, i])
        c_lab.cmi(Y[:, j], Xd[:, s], Xd[:, i])
    # agreement: whole labels, cheapest first, while the budget lasts
    agree = []
    t_end = time.perf_counter() + 2 * budget / 3
    pos_of = {int(j): t for t, j in enumerate(order)}
    modelled = [int(j) for j in order if Y[:, j].min() != Y[:, j].max()]
    for j in sorted(modelled, key=lambda j: (len(parents[j]), pos_of[j]))[:20]:
        if time.perf_counter() > t_end:
            break
        earlier = [int(e) for e in order[:pos_of[j]] if Y[:, e].min() != Y[:, e].max()]
        sel, _ = ref_select(Counter(), Y[:, earlier], Y[:, j], None, k)
        pa = [earlier[i] for i in sel]
        f, _ = ref_select(Counter(), Xd, Y[:, j], Y[:, pa] if pa else None, M)
        agree.append(sorted(pa) == sorted(parents[j].tolist())
                     and list(f) == features[j].tolist())
    return c_order, c_lab, agree


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default=None)
    ap.add_argument("--ref-seconds", type=float, default=90.0)
    args = ap.parse_args()
    if "MLFS_DATASETS" not in os.environ:
        raise SystemExit("set MLFS_DATASETS")
    names = [args.only] if args.only else list(CONFIGS)
    for name in names:
        Xtr, Ytr, Xte, Yte = split(name)
        q, d = Ytr.shape[1], Xtr.shape[1]
        print(f"\n{name}: train {Xtr.shape[0]} x {d} features, {q} labels "
              f"(test {Xte.shape[0]})", flush=True)
        with threadpool_limits(1):
            t_info, order, parents, features, z, k, M = library_information(Xtr, Ytr,
                                                                            CONFIGS[name])
            tracemalloc.start()  # a second run for the memory (tracing slows numpy down)
            library_information(Xtr, Ytr, CONFIGS[name])
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            lib_info = sum(t_info.values())
            print(f"  k = {k}, M = {M}")
            for key, v in t_info.items():
                print(f"  library {key:26s} {v:8.2f} s")
            print(f"  library information total       {lib_info:8.2f} s "
                  f"(peak traced memory {peak / 2**20:.0f} MiB)")
            t0 = time.perf_counter()
            occ = OCC(k=0.8, M=CONFIGS[name], random_state=0).fit(Xtr, Ytr)
            t_fit = time.perf_counter() - t0
            t0 = time.perf_counter()
            P = occ.predict(Xte)
            t_pred = time.perf_counter() - t0
            same = all(np.array_equal(occ.features_[j], features[j]) for j in features)
            print(f"  OCC.fit (information + {int((occ.constant_ < 0).sum())} LIBLINEAR SVMs)"
                  f" {t_fit:8.2f} s; predict {Xte.shape[0]} rows {t_pred:.2f} s; "
                  f"Exact-Match {subset_accuracy(Yte, P):.3f}; same features as above: {same}")
            c_order, c_lab, agree = straightforward(Xtr, Ytr, order, parents, features, z, k,
                                                    M, args.ref_seconds)
        n_order, n_par, n_feat = count_needed(q, d, order, parents, k, M)
        per_o = c_order.seconds / max(c_order.calls, 1)
        per_l = c_lab.seconds / max(c_lab.calls, 1)
        est = n_order * per_o + (n_par + n_feat) * per_l
        print(f"  straightforward: {per_o * 1e3:.2f} ms per Eq. 47 pair CMI, "
              f"{per_l * 1e3:.2f} ms per MI/CMI of Eqs. 33/43 (timed on {c_order.calls} + "
              f"{c_lab.calls} values); parents and features of {len(agree)} whole labels "
              f"(those with the fewest parents) equal to the library's: "
              f"{sum(agree)}/{len(agree)}")
        print(f"  straightforward needs {n_order:,} + {n_par:,} + {n_feat:,} values "
              f"(order + parents + features) -> ~{est:,.0f} s (~{est / 3600:.1f} h)")
        print(f"  ratio (information terms): ~{est / lib_info:,.0f}x", flush=True)


if __name__ == "__main__":
    main()
