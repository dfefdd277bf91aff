"""Benchmark: oCC training on bibtex (q = 159) and delicious (q = 983).

Library: :class:`skmlfs.learners.OCC` — the information terms of Algorithm 2 / Eq. (47)
(chain order), Eq. (33) (parents) and Eq. (43) (label-specific features) for all labels
through the count engine (one block product for every relevance table, one stratified
product per conditioning candidate for the CMI terms, greedy steps of all labels in
lock-step), then one LIBLINEAR SVM per label, then prediction of the test part label by
label (vectorised over the rows).

Straightforward implementation: the same three equations one information value at a
time, each entropy from ``np.unique`` over the joint columns (:mod:`skmlfs.info._reference`),
with the reference routine's candidate cap and the redundancy term updated incrementally
(one CMI per candidate and greedy step — not the quadratic recomputation of the reference
MATLAB). It is far too slow to finish on bibtex and delicious (hours), so there the number
of information values the whole problem needs is counted exactly, the time per value is
measured on a random sample of values of each kind for ``--ref-seconds``, and the total and
the ratio are **extrapolated** (marked ``~`` and "extrapolated" in the output).

Agreement check (``--check``, default medical: 45 labels, 1,449 binary features): the
straightforward implementation run to the end for the chain order (Algorithm 2 / Eq. 47
with the 1-D PCA projection, every label pair) and for whole labels — parents by Eq. (33)
and features by Eq. (43) — compared with ``OCC(k, M).fit``'s ``order_``, ``parents_`` and
``features_`` (same picks in the same order). ``k = ⌈0.1 q⌉ = 5`` and ``M = 15`` are both
below the reference cap of 100 candidates, so that the checked labels (those with more than
``k`` earlier labels in the chain: their parents come from Eq. (33)'s greedy search, with
its parent term ``α Σ_{Pa_j} I(Y_j; Y_k | Y_l)``) run both greedy searches, and Eq. (43)'s
label-correlation term ``β Σ_{Pa_j} I(Y_j; Y_k | X_m)`` has ``k`` parents. (At the speed
benchmark's ``k = ⌈0.8 q⌉ ≥ 100`` the reference ranks the parents by relevance, and a
label with parents costs the straightforward code minutes on bibtex.) Up to
``--check-labels`` such labels are checked, those for which the two terms change the picks
first (found with the library: its picks without the parent term / with β = 0). A
label is started only when its estimated cost fits the rest of ``--check-seconds``, and
the straightforward code stops at that deadline in any case (a label cut short is
reported as not checked).

Configuration of the speed benchmark: 80/20 split (seed 0), training part only;
``k = ⌈0.8 q⌉`` (≥ 100, so the reference routine ranks parents by relevance), ``M`` below
the 100-candidate cap so that Eq. (43) runs its greedy search (bibtex ``M = 0.03 d = 56``,
delicious ``M = 0.1 d = 50``), order by Algorithm 2 with the 1-D PCA projection.

Usage::

    MLFS_DATASETS=/path/to/datasets python benchmarks/bench_occ.py [--only bibtex]
        [--ref-seconds 30] [--check medical|none] [--check-seconds 45] [--check-labels 5]
"""

from __future__ import annotations

import argparse
import os
import time
import tracemalloc

import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

from skmlfs._validation import resolve_count
from skmlfs.datasets import load_name
from skmlfs.discretize import MeanStdDiscretizer
from skmlfs.info import DiscreteData, mutual_info
from skmlfs.info._reference import ref_conditional_mutual_info, ref_mutual_info
from skmlfs.learners import OCC
from skmlfs.learners._chains import _pca_projection, select_chain_order
from skmlfs.metrics import subset_accuracy
from skmlfs.selection import kcc_parents, label_specific_select

CONFIGS = {"bibtex": 0.03, "delicious": 0.1}
CHECK = {"medical": (0.1, 15)}  # agreement check: k (fraction of q), M (count), both < cap
CAP = 100  # the reference routine's candidate cap (OCC's max_candidates default)


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
class OutOfTime(Exception):
    """The straightforward code reached its deadline."""


class Counter:
    """One information value at a time, counted and timed; raises :class:`OutOfTime`
    before a value when ``deadline`` (``time.perf_counter()`` seconds) has passed."""

    def __init__(self, deadline=np.inf):
        self.calls, self.seconds, self.deadline = 0, 0.0, deadline

    def _check(self):
        if time.perf_counter() > self.deadline:
            raise OutOfTime

    def mi(self, a, b):
        self._check()
        t0 = time.perf_counter()
        v = ref_mutual_info(a, b)
        self.seconds += time.perf_counter() - t0
        self.calls += 1
        return v

    def cmi(self, a, b, c):
        self._check()
        t0 = time.perf_counter()
        v = ref_conditional_mutual_info(a, b, c)
        self.seconds += time.perf_counter() - t0
        self.calls += 1
        return v


def ref_select(cnt, cols, y, P, K, cap=CAP):
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


def select_cost(m, K, n_parents, cap=CAP):
    """Information values :func:`ref_select` computes: ``m`` relevances, then (greedy
    search) one CMI per pool candidate and parent, and one per pool candidate still in
    the pool at each greedy step but the last."""
    if m <= K:
        return 0
    if cap <= K:
        return m
    L = min(cap, m)
    return m + (L - 1) * n_parents + sum(L - 1 - (t - 1) for t in range(1, K))


def ref_order(cnt, Y, zd):
    """Algorithm 2 / Eq. (47), first term, one pair CMI at a time: ``C[a, b] =
    I(Y_a; Y_b | Z)`` (symmetric: one value per pair), ``π(1) = argmax_a Σ_b C[a, b]``,
    then the unselected label with the largest ``Σ_{k<j} C[π(k), b]``; ties → lowest
    index (scores rounded to 1e-9 bits)."""
    q = Y.shape[1]
    C = np.zeros((q, q))
    for a in range(q):
        for b in range(a + 1, q):
            C[a, b] = C[b, a] = cnt.cmi(Y[:, a], Y[:, b], zd)
    order = [int(np.argmax(np.round(C.sum(axis=1), 9)))]
    acc = C[order[0]].copy()
    while len(order) < q:
        score = np.round(acc, 9)
        score[order] = -np.inf
        order.append(int(np.argmax(score)))
        acc += C[order[-1]]
    return np.asarray(order)


def count_needed(q, d, order, parents, k, M, cap=CAP):
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


def sample_times(X, Y, z, budget):
    """Time per information value of the straightforward implementation, on random values
    of the kinds it needs, for ``budget`` seconds (checked before every value)."""
    q = Y.shape[1]
    Xd = X.toarray() if hasattr(X, "toarray") else np.asarray(X)
    zd = MeanStdDiscretizer(0.5, 3).fit(z).transform(z)[:, 0]
    rng = np.random.default_rng(1)
    t0 = time.perf_counter()
    c_order, c_lab = Counter(t0 + budget), Counter(t0 + budget)
    try:
        while True:  # Eq. 47 pair CMIs; label-label MIs and the MIs / CMIs of Eq. 43
            a, b = rng.choice(q, 2, replace=False)
            c_order.cmi(Y[:, a], Y[:, b], zd)
            j, p = rng.choice(q, 2, replace=False)
            i, s = rng.choice(Xd.shape[1], 2, replace=False)
            c_lab.mi(Y[:, p], Y[:, j])
            c_lab.mi(Xd[:, i], Y[:, j])
            c_lab.cmi(Y[:, j], Y[:, p], Xd[:, i])
            c_lab.cmi(Y[:, j], Xd[:, s], Xd[:, i])
    except OutOfTime:
        pass
    return c_order, c_lab, time.perf_counter() - t0


def check_agreement(name, budget, max_labels):
    """The straightforward implementation run to the end (chain order, then whole labels
    with greedy parents) against ``OCC.fit``; within ``budget`` seconds."""
    Xtr, Ytr, _, _ = split(name)
    q, d = Ytr.shape[1], Xtr.shape[1]
    k_frac, M = CHECK[name]
    with threadpool_limits(1):
        t0 = time.perf_counter()
        occ = OCC(k=k_frac, M=M, random_state=0).fit(Xtr, Ytr)
        t_lib = time.perf_counter() - t0
    k = occ.k_
    order = [int(j) for j in occ.order_]
    modelled = [j for j in order if Ytr[:, j].min() != Ytr[:, j].max()]
    print(f"\nagreement check on {name}: train {Xtr.shape[0]} x {d} binary features, {q} "
          f"labels ({len(modelled)} not constant); k = {k}, M = {M} (both below the "
          f"reference cap of {CAP}); OCC.fit {t_lib:.2f} s", flush=True)
    if not (sp.issparse(Xtr) and np.all((Xtr.data == 0) | (Xtr.data == 1))):
        raise SystemExit("the check needs binary features (used by OCC as they are)")
    Xd = Xtr.toarray()
    z = _pca_projection(Xtr)[:, None]
    zd = MeanStdDiscretizer(0.5, 3).fit(z).transform(z)[:, 0]
    t_start = time.perf_counter()
    deadline = t_start + budget
    cnt = Counter(deadline)
    lines, agree, n_checked, n_pt, n_beta = [], [], 0, 0, 0
    try:
        same_order = ref_order(cnt, Ytr, zd).tolist() == order
        lines.append(f"  chain order (Alg. 2, {q * (q - 1) // 2:,} pair CMIs): "
                     f"{'equal' if same_order else 'DIFFERENT'}")
        agree.append(same_order)
    except OutOfTime:
        lines.append("  chain order: not finished within the budget")
    # labels whose parents come from the greedy search of Eq. (33) (> k earlier labels);
    # do the terms matter for them? the library's picks without Eq. (33)'s parent term
    # (relevance ranking) and without Eq. (43)'s label-correlation term (β = 0)
    pos = {j: t for t, j in enumerate(modelled)}
    cands = [j for j in modelled if pos[j] > k and k < CAP]
    Dd, Yd = DiscreteData.from_array(Xtr), DiscreteData.from_array(Ytr)
    mi_yy, rel = mutual_info(Yd, Yd), mutual_info(Dd, Yd)
    d_pt, d_beta = {}, {}
    for j in cands:
        no_pt = label_specific_select(Yd, Yd, np.array([j]), [np.asarray(modelled[:pos[j]])],
                                      k, beta=0.0, gamma=0.0, relevance=mi_yy)[0]
        no_beta = label_specific_select(Dd, Yd, np.array([j]), None, M,
                                        parents=[occ.parents_[j]], beta=0.0, relevance=rel)[0]
        d_pt[j] = sorted(no_pt.tolist()) != sorted(occ.parents_[j].tolist())
        d_beta[j] = no_beta.tolist() != occ.features_[j].tolist()
    # the most telling labels first: both terms change the picks, then the parent term
    # (rarer), then the β term; chain order within each group
    cands = sorted(cands, key=lambda j: (not (d_pt[j] and d_beta[j]), not d_pt[j],
                                         not d_beta[j], pos[j]))[:max_labels]
    print(f"  {len(d_pt)} labels with more than k earlier labels; without Eq. 33's parent "
          f"term {sum(d_pt.values())} of them would get other parents, with β = 0 "
          f"{sum(d_beta.values())} other features (library)", flush=True)
    cost = {j: select_cost(pos[j], k, 0) + select_cost(d, M, k) for j in cands}
    for j in cands:
        per_value = cnt.seconds / max(cnt.calls, 1)
        left = deadline - time.perf_counter()
        if cost[j] * per_value > left:
            lines.append(f"  label {j}: not started (~{cost[j] * per_value:.0f} s "
                         f"estimated, {left:.0f} s left)")
            break
        earlier = modelled[:pos[j]]
        t0, c0 = time.perf_counter(), cnt.calls
        try:
            sel, _ = ref_select(cnt, Ytr[:, earlier], Ytr[:, j], None, k)
            pa = [earlier[i] for i in sel]
            f, _ = ref_select(cnt, Xd, Ytr[:, j], Ytr[:, pa], M)
        except OutOfTime:
            lines.append(f"  label {j}: cut short at the deadline (not checked)")
            break
        same_pa = pa == occ.parents_[j].tolist()
        same_f = [int(i) for i in f] == occ.features_[j].tolist()
        n_checked += 1
        agree += [same_pa, same_f]
        n_pt, n_beta = n_pt + d_pt[j], n_beta + d_beta[j]
        lines.append(
            f"  label {j} (chain position {pos[j] + 1}; {len(pa)} parents of {len(earlier)} "
            f"earlier labels, {M} of {d} features; {cnt.calls - c0:,} values, "
            f"{time.perf_counter() - t0:.1f} s): parents "
            f"{'equal' if same_pa else 'DIFFERENT'}, features "
            f"{'equal' if same_f else 'DIFFERENT'} (same picks, same order); without the "
            f"parent term the parents would {'differ' if d_pt[j] else 'be the same'}, "
            f"with β = 0 the features would {'differ' if d_beta[j] else 'be the same'}")
    used = time.perf_counter() - t_start
    print("\n".join(lines))
    ok = all(agree) and n_checked >= 2
    print(f"  straightforward: {cnt.calls:,} values in {used:.1f} s (budget {budget:.0f} s); "
          f"{n_checked} labels with parents checked (Eq. 33's parent term changes the "
          f"parents of {n_pt}, Eq. 43's β term the features of {n_beta}); agreement with "
          f"OCC.fit: {'yes' if ok else 'NO' if not all(agree) else 'incomplete (< 2 labels)'}",
          flush=True)
    return ok


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default=None, help="one of " + ", ".join(CONFIGS))
    ap.add_argument("--ref-seconds", type=float, default=30.0,
                    help="per dataset: time spent measuring the straightforward code's "
                         "time per value (the total is extrapolated from it)")
    ap.add_argument("--check", default="medical", help="agreement-check dataset or 'none'")
    ap.add_argument("--check-seconds", type=float, default=45.0)
    ap.add_argument("--check-labels", type=int, default=5)
    args = ap.parse_args()
    if "MLFS_DATASETS" not in os.environ:
        raise SystemExit("set MLFS_DATASETS")
    if args.check != "none":
        check_agreement(args.check, args.check_seconds, args.check_labels)
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
            c_order, c_lab, used = sample_times(Xtr, Ytr, z, args.ref_seconds)
        n_order, n_par, n_feat = count_needed(q, d, order, parents, k, M)
        per_o = c_order.seconds / max(c_order.calls, 1)
        per_l = c_lab.seconds / max(c_lab.calls, 1)
        est = n_order * per_o + (n_par + n_feat) * per_l
        print(f"  straightforward, measured: {per_o * 1e3:.2f} ms per Eq. 47 pair CMI, "
              f"{per_l * 1e3:.2f} ms per MI/CMI of Eqs. 33/43 (on {c_order.calls} + "
              f"{c_lab.calls} random values in {used:.1f} s, budget "
              f"{args.ref_seconds:.0f} s)")
        print(f"  straightforward needs {n_order:,} + {n_par:,} + {n_feat:,} values "
              f"(order + parents + features) -> extrapolated ~{est:,.0f} s "
              f"(~{est / 3600:.1f} h; not run)")
        print(f"  ratio (information terms, extrapolated): ~{est / lib_info:,.0f}x",
              flush=True)


if __name__ == "__main__":
    main()
