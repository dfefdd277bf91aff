"""Extreme label sets and data larger than memory (issues #17, #28).

Run:  python benchmarks/bench_extreme.py [--only NAME ...] [--scale-factor F] [--append]
      MLFS_DATASETS=... python benchmarks/bench_extreme.py --compare-src OTHER/src

e.g. ``--only delicious200k`` (the whole 196,606 rows), ``--only wiki10 eurlex``,
``--only scaling``, ``--only ooc``, ``--only allinfo [--shapes ...] [--selectors ...]``,
``--only scls-comparison``; ``--append`` adds the output with the date and the
load average to ``docs/results/benchmarks/bench_extreme.txt``. Timings on a loaded
machine are upper bounds: compare the printed ratios, and rerun on an idle machine.

Problems (each in its own process, so the peak RSS printed is that problem's):

* ``delicious200k``: synthetic sparse data of the Delicious-200K shape, 196,606 rows ×
  782,585 features × 205,443 labels, ~300 features and ~75 labels per row with power-law
  frequencies; relevance Σ_l I(f; l) over label blocks plus SCLS with 100 features. The
  full feature × label block (what the engine built before) would need d·q·8 bytes
  (1.3 TB) for one float64 table; the printed "straightforward" time is a bincount loop
  per pair extrapolated from a sample of pairs. With numba installed (the ``fast``
  extra) the compiled kernel runs first and the numpy/scipy path second, in the same
  process (``numpy_path_*`` keys, ratios ``numpy_over_numba_*``, and whether relevance
  and selection are bit-identical); ``BENCH_NO_NUMPY_PATH=1`` skips the numpy path.
  The rates of the relevance pass (multiply–adds and pair corrections per second of
  wall clock) are printed next to a ceiling measured in the same run: tight numba loops
  over the same numbers of label-distributed increments and table look-ups on as many
  threads (``ceiling_*``, ``seconds_at_ceiling``, ``relevance_over_ceiling``).
* ``eurlex`` / ``wiki10``: EURLex-4K (15,539 × 5,000 × 3,993) and Wiki10-31K
  (14,146 × 101,938 × 30,938) shapes, SCLS with ⌈√n⌉ features; for EURLex the label-block
  sums and the full block (both fit) are timed in the same run.
* ``ooc``: 2,000,000 × 20,000 × 1,000 at 1 % written to disk as 20 row blocks and selected
  from an :class:`~skmlfs.info.IterableBlocks` source (peak RSS of the process), plus the
  same selection in memory and from the files on the first 200,000 rows.
* ``scaling``: time of relevance + SCLS (20 features) versus n, d and q; log–log slopes
  and a PNG in ``docs/results/benchmarks/``.
* ``allinfo`` (not run by default): every information-theoretic selector of the library
  (SCLS, AMI, MIRank, GICS, MDMR in its three variants, MLCFS, LRFS, PPT+MI rank and mRMR,
  PPT+χ², MLFS local and global, MLMIM, MLJMI, MLMRMR, PMU, D2F and its code variant,
  FIMF, QPFS) with its default number of features (⌈√n⌉) on the EURLex-4K and
  Wiki10-31K shapes (``--shapes``; ``eurlex-q400`` and ``eurlex-q1000`` keep the EURLex
  rows and features with fewer labels, for the terms over label pairs), each fit in its own
  process: fit time, CPU time, the resident high-water mark during the fit (data
  included) and the load average around it. A fit is stopped after ``--time-limit``
  seconds (default 600) and runs under an address-space cap of ``--mem-limit-gib``
  (default 12) so that it fails cleanly instead of exhausting the shared machine; a
  selector that stops or raises (the library's fail-fast table checks) gets a "ruled out"
  line with the reason. ``--append`` writes to
  ``docs/results/benchmarks/bench_extreme_allinfo.txt``.
* ``scls-comparison`` (not run by default): the SCLS paper's comparison at the Wiki10-31K
  shape — SCLS, AMI, MDMR and the relevance ranking MIRank as reference, each in its own
  process: time, peak memory, the Jaccard index of every pair of selections and where
  the selected features stand in the relevance ranking.

``--scale-factor`` shrinks the rows of every problem (for a quick try).

``--compare-src`` times the engine side of the speed table of docs/performance.md (SCLS on
medical, enron, bibtex; the delicious MI matrix; the sparse 200,000 × 20,000 × 1,000
relevance; SCLS on the dense 50,000 × 5,000 × 1,000 problem) with this tree and another
checkout of the package, alternating in one run, and prints the ratios (no regression:
≤ 1.10).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

OUT = Path(__file__).resolve().parent.parent / "docs" / "results" / "benchmarks"


def _cpu_s() -> float:
    """CPU seconds of this process, all threads (less sensitive to other jobs than the
    wall clock: on a loaded machine, CPU seconds / threads estimates the idle time)."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _rss_gib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def power_law_csr(rng, n, p, per_row, offset, dtype=np.float32):
    """Binary CSR with ~per_row distinct columns per row, column j drawn ∝ 1/(j + offset).

    Columns are shuffled so that frequent columns are not the first indices.
    """
    w = 1.0 / (np.arange(p) + offset)
    cdf = np.cumsum(w)
    cdf /= cdf[-1]
    perm = rng.permutation(p).astype(np.int32)
    indptr = np.zeros(n + 1, dtype=np.int64)
    parts = []
    step = max(1, 2**22 // per_row)
    for r0 in range(0, n, step):
        m = min(step, n - r0)
        cols = perm[np.searchsorted(cdf, rng.random(m * per_row))]
        M = sp.csr_matrix(
            (np.ones(cols.size, dtype=dtype), cols,
             np.arange(0, m * per_row + 1, per_row)), shape=(m, p))
        M.sum_duplicates()
        M.data[:] = 1
        parts.append(M)
        indptr[r0 + 1 : r0 + m + 1] = indptr[r0] + M.indptr[1:]
    indices = np.concatenate([P.indices for P in parts])
    del parts
    return sp.csr_matrix((np.ones(indices.size, dtype=dtype), indices, indptr), shape=(n, p))


def uniform_csr(rng, n, p, density, dtype=np.float32):
    nnz = int(n * p * density)
    M = sp.csr_matrix((np.ones(nnz, dtype=dtype), (rng.integers(0, n, nnz, dtype=np.int32),
                                                    rng.integers(0, p, nnz, dtype=np.int32))),
                      shape=(n, p))
    M.data[:] = 1
    return M


def _pair_loop_seconds(X, Y, n_pairs=300, seed=0):
    """Per-pair bincount MI (the straightforward implementation) on a sample of pairs."""
    rng = np.random.default_rng(seed)
    Xc, Yc = sp.csc_matrix(X), sp.csc_matrix(Y)
    n = X.shape[0]
    t0 = time.perf_counter()
    for _ in range(n_pairs):
        i, j = int(rng.integers(X.shape[1])), int(rng.integers(Y.shape[1]))
        x = np.zeros(n, np.int64)
        x[Xc.indices[Xc.indptr[i] : Xc.indptr[i + 1]]] = 1
        y = np.zeros(n, np.int64)
        y[Yc.indices[Yc.indptr[j] : Yc.indptr[j + 1]]] = 1
        c = np.bincount(2 * x + y, minlength=4) / n
        px, py = np.array([c[0] + c[1], c[2] + c[3]]), np.array([c[0] + c[2], c[1] + c[3]])
        nz = c > 0
        outer = np.outer(px, py).ravel()
        _ = float(np.sum(c[nz] * np.log2(c[nz] / outer[nz])))
    return (time.perf_counter() - t0) / n_pairs


# ---------------------------------------------------------------------- problems
def run_delicious200k(f: float) -> dict:
    import skmlfs._compiled as kern
    from skmlfs.info import DiscreteData, InfoCache, _labelsum
    from skmlfs.selection import SCLS

    rng = np.random.default_rng(0)
    n, d, q = int(196_606 * f), 782_585, 205_443
    t0 = time.perf_counter()
    X = power_law_csr(rng, n, d, 300, 100)
    Y = power_law_csr(rng, n, q, 75, 100)
    res = {"problem": f"Delicious-200K shape {n}x{d}x{q}", "nnz_X": int(X.nnz),
           "nnz_Y": int(Y.nnz), "generate_s": time.perf_counter() - t0}
    t0 = time.perf_counter()
    A, B = DiscreteData.from_array(X), DiscreteData.from_array(Y)
    res["coding_s"] = time.perf_counter() - t0
    del X
    # multiply–adds of the sparse products X_indᵀ Y_ind: Σ_f Σ_{rows of f} |labels of row|
    labels_per_row = np.diff(B.row_major.indptr).astype(np.float64)
    res["multiply_adds"] = float((A.indicators.T @ labels_per_row).sum())
    per_pair = _pair_loop_seconds(A.indicators, B.indicators)
    if kern.NUMBA_AVAILABLE:
        res["numba_load_or_compile_s"] = _warm_kernels(A, B)
    # the compiled path (numba installed) and the numpy/scipy path in the same run;
    # BENCH_NO_NUMPY_PATH=1 skips the second (it takes several times longer)
    paths = ["numba", "numpy"] if kern.NUMBA_AVAILABLE else ["numpy"]
    if len(paths) == 2 and os.environ.get("BENCH_NO_NUMPY_PATH"):
        paths = ["numba"]
    rankings = {}
    for path in paths:
        kern.FORCE_NUMPY = path == "numpy"
        tag = "" if path == paths[0] else "numpy_path_"
        cache = InfoCache(A, B)
        t0 = time.perf_counter()
        _ = cache.h_x, cache.h_y
        res[tag + "entropies_s"] = time.perf_counter() - t0
        t0, c0 = time.perf_counter(), _cpu_s()
        prof = _profile_label_sums(_labelsum, A, B, cache)
        res[tag + "relevance_s"] = time.perf_counter() - t0
        res[tag + "relevance_cpu_s"] = _cpu_s() - c0
        res.update({tag + k: v for k, v in prof.items()})
        sel = SCLS(100)
        t0, c0 = time.perf_counter(), _cpu_s()
        ranking, _ = sel._select(cache, 100)
        res[tag + "scls_greedy_100_s"] = time.perf_counter() - t0
        res[tag + "scls_greedy_100_cpu_s"] = _cpu_s() - c0
        res[tag + "greedy_per_step_ms"] = 1000 * res[tag + "scls_greedy_100_s"] / 100
        res[tag + "relevance_plus_scls_s"] = (res[tag + "relevance_s"] + res[tag + "entropies_s"]
                                              + res[tag + "scls_greedy_100_s"])
        res[tag + "peak_rss_GiB_so_far"] = _rss_gib()
        rankings[path] = (ranking, cache.relevance)
        del cache
    kern.FORCE_NUMPY = False
    res["path"] = paths[0]
    res["selected"] = int(rankings[paths[0]][0].size)
    if len(paths) == 2:
        res["numpy_over_numba_relevance"] = res["numpy_path_relevance_s"] / res["relevance_s"]
        res["numpy_over_numba_greedy"] = (res["numpy_path_scls_greedy_100_s"]
                                          / res["scls_greedy_100_s"])
        res["numpy_over_numba_total"] = (res["numpy_path_relevance_plus_scls_s"]
                                         / res["relevance_plus_scls_s"])
        res["same_relevance_bits"] = bool(np.array_equal(rankings["numba"][1],
                                                         rankings["numpy"][1]))
        res["same_selection"] = bool(np.array_equal(rankings["numba"][0], rankings["numpy"][0]))
    # the rate of the relevance pass (wall clock, all threads) next to the ceiling
    res["multiply_adds_per_s"] = res["multiply_adds"] / res["relevance_s"]
    res["pair_corrections_per_s"] = res["co_occurring_pairs"] / res["relevance_s"]
    if kern.NUMBA_AVAILABLE:
        res.update(_ceiling(B, res["multiply_adds"], res["co_occurring_pairs"], n))
        res["seconds_at_ceiling"] = (res["multiply_adds"] / res["ceiling_increments_per_s"]
                                     + res["co_occurring_pairs"] / res["ceiling_lookups_per_s"])
        res["relevance_over_ceiling"] = res["relevance_s"] / res["seconds_at_ceiling"]
        res["cpu_seconds_at_ceiling"] = (
            res["multiply_adds"] / res["ceiling_increments_per_cpu_s"]
            + res["co_occurring_pairs"] / res["ceiling_lookups_per_cpu_s"])
        res["relevance_cpu_over_ceiling_cpu"] = (res["relevance_cpu_s"]
                                                 / res["cpu_seconds_at_ceiling"])
    res["full_block_GiB_float64"] = d * q * 8 / 2**30
    res["pair_loop_s_extrapolated"] = per_pair * d * q
    res["ratio_vs_pair_loop"] = res["pair_loop_s_extrapolated"] / res["relevance_s"]
    return res


def _warm_kernels(A, B) -> float:
    """Load (or compile) the numba kernels on a few features, outside the timed passes."""
    import skmlfs.info._engine as eng
    from skmlfs.info import _labelsum, joint_entropy_one

    t0 = time.perf_counter()
    few = A.take(np.arange(20))
    saved = _labelsum.KERNEL_MIN_FLOPS, eng.KERNEL_MIN_COLUMNS
    _labelsum.KERNEL_MIN_FLOPS, eng.KERNEL_MIN_COLUMNS = 0, 0
    try:
        _labelsum.binary_corrections(few, B, _labelsum._ext_table(A.n_samples), 2**20)
        joint_entropy_one(few, few, 0)
    finally:
        _labelsum.KERNEL_MIN_FLOPS, eng.KERNEL_MIN_COLUMNS = saved
    return time.perf_counter() - t0


def _ceiling(B, n_increments: float, n_lookups: float, n: int) -> dict:
    """A simple measured ceiling on this machine for the two kinds of work.

    Tight compiled loops (numba, one per thread, as many threads as the library uses),
    over label indices drawn from the labels' own frequencies (the same cache behaviour
    as the real access pattern, without the feature walk):

    * ``increments``: ``acc[label] += 1`` into a dense int32 array over the labels — one
      multiply–add of the sparse product at its cheapest;
    * ``lookups``: ``s += table[b(label)]`` from an ``x log x`` table over ``0..2n`` — one
      table look-up and add per co-occurring pair (the correction needs five).

    Each loop runs over a fixed 2**24-entry index array, repeated to the same number of
    operations as the real pass (capped at 2**31 per kind: rates, not totals, are used).
    """
    import threading

    import numba

    @numba.njit(nogil=True)
    def increments(idx, reps, acc):
        for _ in range(reps):
            for i in range(idx.size):
                acc[idx[i]] += 1
        return acc[0]

    @numba.njit(nogil=True)
    def lookups(idx, reps, table):
        s = 0.0
        for _ in range(reps):
            for i in range(idx.size):
                s += table[idx[i]]
        return s

    from skmlfs.info import _labelsum

    threads = _labelsum.N_THREADS
    rng = np.random.default_rng(7)
    yi = B.row_major.indices
    idx = yi[rng.integers(0, yi.size, 2**24)].astype(np.int32)
    q = B.indicators.shape[1]
    ext = _labelsum._ext_table(n)
    b_idx = (B.counts[idx] + n).astype(np.int32)
    out = {"ceiling_threads": threads}
    for name, fn, data, total in (("increments", increments, idx, n_increments),
                                  ("lookups", lookups, b_idx, n_lookups)):
        reps = max(1, int(min(total, 2**31) / threads / idx.size))
        fn(data[:10], 1, np.zeros(q, np.int32) if name == "increments" else ext)

        def work(fn=fn, data=data, name=name, reps=reps):
            tab = np.zeros(q, np.int32) if name == "increments" else ext
            fn(data, reps, tab)

        ts = [threading.Thread(target=work) for _ in range(threads)]
        t0, c0 = time.perf_counter(), _cpu_s()
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        ops = reps * idx.size * threads
        out[f"ceiling_{name}_per_s"] = ops / (time.perf_counter() - t0)
        out[f"ceiling_{name}_per_cpu_s"] = ops / (_cpu_s() - c0)
    return out


def _profile_label_sums(mod, A, B, cache) -> dict:
    """Time the products, the per-pair corrections and the zero pairs of the label sums.

    Binary data take ``binary_corrections`` (chunks of feature rows, two threads): its
    product and correction seconds are summed over the threads (CPU-side seconds, so
    their sum can exceed the wall time). Multi-valued data take the label-block path,
    timed by wrapping ``pair_corrections``.
    """
    timings = {"product_s": 0.0, "corrections_s": 0.0, "zero_pairs_s": 0.0, "chunks": 0,
               "co_occurring_pairs": 0}
    orig_corr, orig_zero = mod.pair_corrections, mod.zero_pair_sums
    last = [time.perf_counter()]

    def corr(ia, jb, v, *a, **k):
        t0 = time.perf_counter()
        timings["product_s"] += t0 - last[0]
        out = orig_corr(ia, jb, v, *a, **k)
        last[0] = time.perf_counter()
        timings["corrections_s"] += last[0] - t0
        timings["chunks"] += 1
        timings["co_occurring_pairs"] += int(v.size)
        return out

    def zero(*a, **k):
        t0 = time.perf_counter()
        out = orig_zero(*a, **k)
        timings["zero_pairs_s"] += time.perf_counter() - t0
        return out

    mod.pair_corrections, mod.zero_pair_sums = corr, zero
    mod.TIMINGS = timings
    try:
        last[0] = time.perf_counter()
        _ = cache.relevance
    finally:
        mod.pair_corrections, mod.zero_pair_sums = orig_corr, orig_zero
        mod.TIMINGS = None
    timings["threads"] = mod.N_THREADS
    return timings


# shape and average non-zero features / labels per row of the public data sets
XMLC_SHAPES = {"eurlex": (15_539, 5_000, 3_993, 236, 5.3),
               "wiki10": (14_146, 101_938, 30_938, 673, 18.6),
               # reduced label sets, for the selectors with terms over label pairs (their
               # time grows with q²): the EURLex rows and features with 400 and 1,000 labels
               "eurlex-q400": (15_539, 5_000, 400, 236, 5.3),
               "eurlex-q1000": (15_539, 5_000, 1_000, 236, 5.3)}


def xmlc_data(which: str, f: float, planted_out: dict | None = None
              ) -> tuple[sp.csr_matrix, sp.csr_matrix]:
    """Synthetic power-law binary data of an XMLC shape (rows scaled by ``f``).

    Features and labels are drawn independently, so every relevance is sampling noise.
    ``<shape>-planted`` adds structure the criteria disagree on: each of 1,000 labels
    copies one of 400 "parent" features in 25 % of that feature's rows (relevance), and
    each parent has a near-copy elsewhere (its rows less 5 %: redundancy).
    """
    planted = which.endswith("-planted")
    n, d, q, fx, fy = XMLC_SHAPES[which.removesuffix("-planted")]
    n = int(n * f)
    rng = np.random.default_rng(1)
    X = power_law_csr(rng, n, d, fx, 50)
    Y = power_law_csr(rng, n, q, int(round(fy)), 20)
    if planted:
        prng = np.random.default_rng(11)
        freq = np.diff(sp.csc_matrix(X).indptr)
        # parents among features in 2–20 % of the rows (informative, not near-constant)
        pool = np.flatnonzero((freq > 0.02 * n) & (freq < 0.2 * n))
        parents = prng.choice(pool, size=min(400, pool.size), replace=False)
        Xc = sp.csc_matrix(X)
        rows_of = [Xc.indices[Xc.indptr[p] : Xc.indptr[p + 1]] for p in parents]
        labels = prng.choice(q, size=min(1_000, q), replace=False)
        r_parts, c_parts = [], []
        for j, lab in enumerate(labels):
            rows = rows_of[j % parents.size]
            r_parts.append(rows[prng.random(rows.size) < 0.25])
            c_parts.append(np.full(r_parts[-1].size, lab))
        extra = sp.csr_matrix((np.ones(sum(r.size for r in r_parts), dtype=Y.dtype),
                               (np.concatenate(r_parts), np.concatenate(c_parts))),
                              shape=Y.shape)
        Y = (Y + extra).tocsr()
        Y.data[:] = 1
        # near-copies of the parents in columns that hold no parent
        others = np.setdiff1d(np.arange(d), parents)
        copies = prng.choice(others, size=parents.size, replace=False)
        Xl = Xc.tolil()
        for p, c in zip(parents, copies, strict=True):
            rows = Xc.indices[Xc.indptr[p] : Xc.indptr[p + 1]]
            keep = rows[prng.random(rows.size) >= 0.05]
            Xl[:, int(c)] = 0
            Xl[keep, int(c)] = 1
        X = Xl.tocsr()
        X.data[:] = 1
        if planted_out is not None:  # what a selection can be checked against
            planted_out.update(parents=parents, copies=copies)
    return X, Y


def run_xmlc(which: str, f: float) -> dict:
    from skmlfs.info import DiscreteData, InfoCache
    from skmlfs.selection import SCLS

    X, Y = xmlc_data(which, f)
    n, d = X.shape
    q = Y.shape[1]
    k = math.ceil(math.sqrt(n))
    t0 = time.perf_counter()
    sel = SCLS(k).fit(X, Y)
    res = {"problem": f"{which} shape {n}x{d}x{q}", "k": k, "scls_s": time.perf_counter() - t0,
           "selected": int(sel.selection_order_.size)}
    A, B = DiscreteData.from_array(X), DiscreteData.from_array(Y)
    t0 = time.perf_counter()
    rel_blocks = InfoCache(A, B, full_block_pairs=0).relevance
    res["relevance_label_blocks_s"] = time.perf_counter() - t0
    if d * q <= 2**26:
        t0 = time.perf_counter()
        rel_full = InfoCache(A, B, full_block_pairs=d * q).relevance
        res["relevance_full_block_s"] = time.perf_counter() - t0
        res["ratio_full_over_blocks"] = res["relevance_full_block_s"] / res[
            "relevance_label_blocks_s"]
        res["max_abs_diff"] = float(np.abs(rel_full - rel_blocks).max())
    else:
        res["full_block_GiB_float64"] = d * q * 8 / 2**30
    return res


# ---------------------------------------------------------------------- every info selector
#: (label, class in skmlfs.selection, parameters): every information-theoretic selector of
#: the library with its default number of features (⌈√n⌉) and, unless given, its defaults
ALLINFO = [
    ("SCLS", "SCLS", {}),
    ("AMI", "AMI", {}),
    ("MIRank", "MIRank", {}),
    ("GICS", "GICS", {}),
    ("MDMR", "MDMR", {}),
    ("MDMR lin2015", "MDMR", {"variant": "lin2015"}),
    ("MDMR interaction", "MDMR", {"variant": "interaction"}),
    ("MLCFS", "MLCFS", {}),
    ("LRFS", "LRFS", {}),
    ("PPT+MI", "PPTMI", {}),
    ("PPT+MI mrmr", "PPTMI", {"search": "mrmr"}),
    ("PPT+chi2", "PPTCHI", {}),
    ("MLFS local", "MLFS", {}),
    ("MLFS global", "MLFS", {"mode": "global"}),
    ("MLMIM", "MLMIM", {}),
    ("MLJMI", "MLJMI", {}),
    ("MLMRMR", "MLMRMR", {}),
    ("PMU", "PMU", {}),
    ("D2F", "D2F", {}),
    ("D2F code", "D2F", {"variant": "code"}),
    ("FIMF", "FIMF", {}),
    ("QPFS", "QPFS", {}),
]
ALLINFO_LABELS = [a for a, _, _ in ALLINFO]


def _vm_gib(key: str) -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 2**20
    return float("nan")


def run_allinfo_one(shape: str, label: str, f: float, time_limit: float,
                    save: str | None) -> dict:
    """One selector on one shape, in this (child) process: fit time and peak memory.

    The fit runs under ``signal.alarm(time_limit)``; a selector that raises (the library's
    fail-fast errors, or the alarm) is reported as ruled out with the first line of the
    error. Peak memory: the process's resident high-water mark during the fit (data
    included; ``data_GiB`` is the resident size before it).
    """
    import signal

    import skmlfs.selection as S

    cls_name, params = next((c, p) for a, c, p in ALLINFO if a == label)
    X, Y = xmlc_data(shape, f)
    n, d = X.shape
    res = {"shape": shape, "selector": label, "n": n, "d": d, "q": int(Y.shape[1]),
           "k": math.ceil(math.sqrt(n)), "params": params}
    sel = getattr(S, cls_name)(**params)
    try:  # reset the high-water mark: the peak is the fit's (data included)
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
    except OSError:
        pass
    res["data_GiB"] = _vm_gib("VmRSS")

    def on_alarm(*_):
        raise TimeoutError(f"time limit of {time_limit:g} s reached")

    signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, time_limit)
    t0, c0 = time.perf_counter(), _cpu_s()
    try:
        sel.fit(X, Y)
        res["status"] = "ok"
    except (Exception, MemoryError) as exc:  # noqa: BLE001 - reported, not hidden
        msg = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        res["status"] = "ruled out"
        res["reason"] = f"{type(exc).__name__}: {msg}"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    res["fit_s"] = time.perf_counter() - t0
    res["fit_cpu_s"] = _cpu_s() - c0
    res["peak_GiB"] = _vm_gib("VmHWM")
    if res["status"] == "ok":
        order = np.asarray(sel.selection_order_[: sel.n_features_to_select_])
        res["selected"] = int(order.size)
        res["first10"] = order[:10].tolist()
        if save:
            extra = {}
            if hasattr(sel, "relevance_"):
                extra["relevance"] = np.asarray(sel.relevance_)
            np.savez(Path(save) / f"{shape}_{label.replace(' ', '_')}.npz", order=order,
                     **extra)
    return res


def _allinfo_line(r: dict) -> str:
    if r.get("status") == "ok":
        flag = "" if r["fit_s"] < 60 and r["peak_GiB"] < 4 else "  (above 60 s / 4 GiB)"
        return (f"{r['shape']:7s} {r['selector']:17s} {r['fit_s']:8.1f} s "
                f"{r['peak_GiB']:6.2f} GiB  {r['selected']} features{flag}")
    return (f"{r['shape']:7s} {r['selector']:17s} ruled out after {r.get('fit_s', 0):.1f} s "
            f"(peak {r.get('peak_GiB', float('nan')):.2f} GiB): {r.get('reason', '')}")


def run_allinfo_parent(shapes, labels, f, time_limit, mem_gib, append, out_name,
                       save=None) -> list[dict]:
    """Each (shape, selector) in its own process; a line per run, then the JSON."""
    rows = []
    for shape in shapes:
        for label in labels:
            load = os.getloadavg()[0]
            cmd = [sys.executable, __file__, "--child", "allinfo-one", "--shape", shape,
                   "--selector", label, "--scale-factor", str(f), "--time-limit",
                   str(time_limit), "--mem-limit-gib", str(mem_gib)]
            if save:
                cmd += ["--save", save]
            try:
                out = subprocess.run(cmd, capture_output=True, text=True,
                                     timeout=time_limit + 900)
                if out.returncode:
                    tail = (out.stderr.strip().splitlines() or ["killed"])[-1]
                    r = {"shape": shape, "selector": label, "status": "ruled out",
                         "reason": f"process ended with code {out.returncode}: {tail}"}
                else:
                    r = json.loads(out.stdout.strip().splitlines()[-1])
            except subprocess.TimeoutExpired:
                r = {"shape": shape, "selector": label, "status": "ruled out",
                     "reason": f"killed after {time_limit + 900:g} s"}
            r["load_before"] = round(load, 1)
            r["load_after"] = round(os.getloadavg()[0], 1)
            rows.append(r)
            _emit(_allinfo_line(r) + f"   [load {r['load_before']}-{r['load_after']}]",
                  append, out_name)
            _emit("   " + json.dumps(r, default=float), append, out_name)
    return rows


def run_scls_comparison(shape, f, time_limit, mem_gib, append, out_name) -> None:
    """The SCLS paper's comparison at the Wiki10-31K shape: SCLS, AMI, MDMR and the
    relevance ranking (MIRank), each in its own process; time, peak memory, the Jaccard
    index of every pair of selections and where the selected features stand in the
    relevance ranking Σ_l I(f; l)."""
    labels = ["MIRank", "SCLS", "AMI", "MDMR"]
    with tempfile.TemporaryDirectory() as tmp:
        rows = run_allinfo_parent([shape], labels, f, time_limit, mem_gib, append,
                                  out_name, save=tmp)
        sel = {}
        for lab in labels:
            p = Path(tmp) / f"{shape}_{lab}.npz"
            if p.exists():
                sel[lab] = dict(np.load(p))
    if "MIRank" not in sel:
        _emit("# relevance ranking missing: no comparison", append, out_name)
        return
    rel = sel["MIRank"]["relevance"]
    rank = np.empty(rel.size, dtype=np.int64)  # 1 = most relevant (ties: lower index)
    rank[np.lexsort((np.arange(rel.size), -rel))] = np.arange(1, rel.size + 1)
    summary = {"timing": {r["selector"]: (r.get("fit_s"), r.get("peak_GiB"), r["status"])
                          for r in rows}}
    names = [lab for lab in labels if lab in sel]
    jac = {}
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            A, B = set(sel[a]["order"].tolist()), set(sel[b]["order"].tolist())
            jac[f"{a}-{b}"] = round(len(A & B) / len(A | B), 3)
    summary["jaccard"] = jac
    summary["relevance_rank_of_selected"] = {
        lab: {"median": float(np.median(rank[sel[lab]["order"]])),
              "max": int(rank[sel[lab]["order"]].max()),
              "in_top_k": int((rank[sel[lab]["order"]] <= sel[lab]["order"].size).sum()),
              "k": int(sel[lab]["order"].size)}
        for lab in names}
    if shape.endswith("-planted"):
        # the planted structure: a parent is relevant to its labels, its near-copy as
        # relevant and redundant given the parent; the rest is noise
        planted: dict = {}
        xmlc_data(shape, f, planted_out=planted)
        parents, copies = set(planted["parents"].tolist()), planted["copies"]
        copy_of = dict(zip(planted["copies"].tolist(), planted["parents"].tolist(),
                           strict=True))
        summary["planted"] = {}
        for lab in names:
            S = set(sel[lab]["order"].tolist())
            summary["planted"][lab] = {
                "parents": len(S & parents),
                "copies": len(S & set(copies.tolist())),
                "parent_and_its_copy": sum(1 for c, p in copy_of.items()
                                           if c in S and p in S),
                "noise": len(S - parents - set(copies.tolist())),
            }
    _emit(f"# SCLS paper comparison ({shape}): " + json.dumps(summary, default=float),
          append, out_name)


def _write_ooc(path: Path, n, d, q, density, block_rows, seed=2):
    rng = np.random.default_rng(seed)
    files = []
    for b, r0 in enumerate(range(0, n, block_rows)):
        m = min(block_rows, n - r0)
        Xb = uniform_csr(rng, m, d, density, dtype=np.int8)
        # labels: 1 % density, half of them tied to a feature so that there is signal
        Yb = uniform_csr(rng, m, q, density, dtype=np.int8)
        lead = Xb[:, : q // 2].tocoo()
        keep = rng.random(lead.nnz) < 0.5
        extra = sp.csr_matrix((np.ones(int(keep.sum()), np.int8),
                               (lead.row[keep], lead.col[keep])), shape=(m, q))
        Yb = (Yb + extra).tocsr()
        Yb.data[:] = 1
        fx, fy = path / f"X{b:03d}.npz", path / f"Y{b:03d}.npz"
        sp.save_npz(fx, Xb, compressed=False)
        sp.save_npz(fy, Yb, compressed=False)
        files.append((fx, fy))
    return files


def run_ooc(f: float) -> dict:
    from skmlfs.info import IterableBlocks
    from skmlfs.selection import SCLS

    n, d, q, density = int(2_000_000 * f), 20_000, 1_000, 0.01
    block_rows = max(1, int(100_000 * f))
    k = 50
    res = {"problem": f"out-of-core {n}x{d}x{q} @1%", "k": k}
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_TMP")) as tmp:
        t0 = time.perf_counter()
        files = _write_ooc(Path(tmp), n, d, q, density, block_rows)
        res["write_s"] = time.perf_counter() - t0
        res["disk_GiB"] = sum(os.path.getsize(a) + os.path.getsize(b) for a, b in files) / 2**30
        res["rss_before_fit_GiB"] = _rss_gib()

        def blocks(fs=files):
            for fx, fy in fs:
                yield sp.load_npz(fx), sp.load_npz(fy)

        t0 = time.perf_counter()
        sel = SCLS(k).fit(IterableBlocks(blocks, d, q), None)
        res["fit_s"] = time.perf_counter() - t0
        res["peak_rss_after_fit_GiB"] = _rss_gib()
        res["selected_first10"] = sel.selection_order_[:10].tolist()
        # the same on a subset held in memory: first two blocks
        sub = files[:2]

        def sub_blocks(fs=sub):
            for fx, fy in fs:
                yield sp.load_npz(fx), sp.load_npz(fy)

        t0 = time.perf_counter()
        on_disk = SCLS(k).fit(IterableBlocks(sub_blocks, d, q), None)
        res["subset_rows"] = int(sum(sp.load_npz(a).shape[0] for a, _ in sub))
        res["subset_from_disk_s"] = time.perf_counter() - t0
        Xs = sp.vstack([sp.load_npz(a) for a, _ in sub]).tocsr()
        Ys = sp.vstack([sp.load_npz(b) for _, b in sub]).tocsr()
        t0 = time.perf_counter()
        mem = SCLS(k).fit(Xs, Ys)
        res["subset_in_memory_s"] = time.perf_counter() - t0
        res["subset_same_selection"] = bool(
            np.array_equal(mem.selection_order_, on_disk.selection_order_))
    return res


def run_scaling(f: float) -> dict:
    from skmlfs.info import DiscreteData, InfoCache
    from skmlfs.selection import SCLS

    base = dict(n=int(40_000 * f), d=100_000, q=20_000, fx=100, fy=20)
    grid = {"n": [0.25, 0.5, 1, 2], "d": [0.25, 0.5, 1, 2], "q": [0.25, 0.5, 1, 2]}
    out = {}
    for var, mults in grid.items():
        pts = []
        for m in mults:
            p = dict(base)
            p[var] = int(p[var] * m)
            if var == "d":  # keep the density per feature: non-zeros per row grow with d
                p["fx"] = int(p["fx"] * m)
            if var == "q":
                p["fy"] = max(1, int(p["fy"] * m))
            rng = np.random.default_rng(3)
            X = power_law_csr(rng, p["n"], p["d"], p["fx"], 100)
            Y = power_law_csr(rng, p["n"], p["q"], p["fy"], 100)
            t0 = time.perf_counter()
            cache = InfoCache(DiscreteData.from_array(X), DiscreteData.from_array(Y),
                              full_block_pairs=0)
            SCLS(20)._select(cache, 20)
            pts.append((p[var], time.perf_counter() - t0))
            print(var, p, pts[-1][1], flush=True)
        x, y = np.log([a for a, _ in pts]), np.log([b for _, b in pts])
        out[var] = {"points": pts, "slope": float(np.polyfit(x, y, 1)[0])}
    _plot_scaling(out, base)
    return {"problem": "scaling (relevance + SCLS 20)", "base": base,
            **{f"slope_{k}": v["slope"] for k, v in out.items()},
            "points": {k: v["points"] for k, v in out.items()}}


def _plot_scaling(out, base):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(11, 3.4))
    for ax, (var, v) in zip(axes, out.items(), strict=True):
        x, y = zip(*v["points"], strict=True)
        ax.loglog(x, y, "o-")
        ax.set_xlabel(var)
        ax.set_title(f"{var}: slope {v['slope']:.2f}")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("seconds")
    fig.suptitle("relevance over label blocks + SCLS (20 features), sparse power-law data; "
                 f"base n={base['n']}, d={base['d']}, q={base['q']}", fontsize=9)
    fig.tight_layout()
    OUT.mkdir(parents=True, exist_ok=True)
    fig.savefig(OUT / "bench_extreme_scaling.png", dpi=120)


# ---------------------------------------------------------------------- regression
def _speed_item(name: str) -> float:
    """Best-of-3 seconds of one figure of the speed table of docs/performance.md (engine side)."""
    import scipy.io as sio

    from skmlfs.datasets import load
    from skmlfs.info import DiscreteData, InfoCache, mutual_info
    from skmlfs.selection import SCLS

    root = Path(os.environ["MLFS_DATASETS"])
    if name in ("scls_medical", "scls_enron"):
        m = sio.loadmat(root / "plcfs" / f"{name[5:]}.mat")
        X, Y = m["data"], m["answer"]
        k = math.ceil(math.sqrt(X.shape[0]))

        def fn():
            return SCLS(k).fit(X, Y)
    elif name == "scls_bibtex":
        ds = load(root / "mulan/bibtex/bibtex.arff")

        def fn():
            return SCLS(86).fit(ds.X, ds.Y)
    elif name == "mi_delicious":
        ds = load(root / "mulan/delicious/delicious.arff")

        def fn():
            return mutual_info(DiscreteData.from_array(ds.X), DiscreteData.from_array(ds.Y))
    elif name == "sparse_200k_relevance":
        rng = np.random.default_rng(0)
        X, Y = uniform_csr(rng, 200_000, 20_000, 0.01), uniform_csr(rng, 200_000, 1_000, 0.01)

        def fn():
            return InfoCache(DiscreteData.from_array(X), DiscreteData.from_array(Y)).relevance
    elif name == "dense_50k_scls":
        rng = np.random.default_rng(0)
        n, d, q = 50_000, 5_000, 1_000
        Y = (rng.random((n, q), dtype=np.float32) < 0.02).astype(np.uint8)
        X = (rng.random((n, d), dtype=np.float32) < 0.1).astype(np.uint8)
        X[:, :q] |= Y[:, :q] & (rng.random((n, q), dtype=np.float32) < 0.8)

        def fn():
            return SCLS(224).fit(X, Y)
    else:
        raise ValueError(name)
    best = np.inf
    for _ in range(1 if name == "dense_50k_scls" else 3):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


SPEED_ITEMS = ["scls_medical", "scls_enron", "scls_bibtex", "mi_delicious",
               "sparse_200k_relevance", "dense_50k_scls"]


def run_regression(other_src: str) -> None:
    """Speed-table figures (docs/performance.md): this tree vs ``other_src``, alternately."""
    here = str(Path(__file__).resolve().parent.parent / "src")
    print(f"{'item':24s} {'this tree s':>12s} {'other s':>10s} {'this/other':>10s}")
    for item in SPEED_ITEMS:
        times = {here: [], other_src: []}
        for _rep in range(2):
            for src in (here, other_src):
                env = dict(os.environ, PYTHONPATH=src)
                out = subprocess.run([sys.executable, __file__, "--speed-item", item],
                                     capture_output=True, text=True, env=env)
                if out.returncode:
                    sys.exit(out.stderr)
                times[src].append(float(out.stdout.strip().splitlines()[-1]))
        a, b = min(times[here]), min(times[other_src])
        print(f"{item:24s} {a:12.4f} {b:10.4f} {a / b:10.3f}", flush=True)


RUNNERS = {
    "delicious200k": run_delicious200k,
    "eurlex": lambda f: run_xmlc("eurlex", f),
    "wiki10": lambda f: run_xmlc("wiki10", f),
    "ooc": run_ooc,
    "scaling": run_scaling,
    "allinfo": None,  # every information-theoretic selector, one process each (parent)
    "scls-comparison": None,  # SCLS vs AMI vs MDMR vs MIRank at the Wiki10-31K shape
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--only", nargs="*", choices=list(RUNNERS), default=list(RUNNERS))
    ap.add_argument("--scale-factor", type=float, default=1.0)
    ap.add_argument("--append", action="store_true", help="also append the output, with "
                    "date and load average, to docs/results/benchmarks/bench_extreme.txt")
    ap.add_argument("--compare-src", help="speed table of docs/performance.md: this tree vs "
                    "another source tree (its src/ folder), alternating, ratios printed")
    ap.add_argument("--shapes", nargs="*",
                    choices=[*XMLC_SHAPES, *(f"{k}-planted" for k in XMLC_SHAPES)],
                    default=None, help="allinfo (default: eurlex wiki10) and "
                    "scls-comparison (default: wiki10 wiki10-planted): the shapes to run")
    ap.add_argument("--selectors", nargs="*", choices=ALLINFO_LABELS, default=ALLINFO_LABELS,
                    help="allinfo: the selectors to run (default: all)")
    ap.add_argument("--time-limit", type=float, default=600.0,
                    help="allinfo: seconds per fit before it is stopped and ruled out")
    ap.add_argument("--mem-limit-gib", type=float, default=12.0,
                    help="allinfo: address-space cap of each child process (GiB), so that "
                    "a selector runs out of memory cleanly instead of exhausting the machine")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--shape", help=argparse.SUPPRESS)
    ap.add_argument("--selector", help=argparse.SUPPRESS)
    ap.add_argument("--save", help=argparse.SUPPRESS)
    ap.add_argument("--speed-item", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.speed_item:
        print(_speed_item(args.speed_item))
        return
    if args.compare_src:
        run_regression(args.compare_src)
        return
    if args.child == "allinfo-one":
        import resource as rs

        cap = int(args.mem_limit_gib * 2**30)
        rs.setrlimit(rs.RLIMIT_AS, (cap, cap))
        res = run_allinfo_one(args.shape, args.selector, args.scale_factor, args.time_limit,
                              args.save)
        print(json.dumps(res, default=float))
        return
    if args.child:
        t0 = time.perf_counter()
        res = RUNNERS[args.child](args.scale_factor)
        res["total_s"] = time.perf_counter() - t0
        res["peak_rss_GiB"] = _rss_gib()
        print(json.dumps(res, default=float))
        return
    header = (f"# benchmarks/bench_extreme.py {' '.join(sys.argv[1:])}  "
              f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} cores, "
              f"load average before the run {os.getloadavg()[0]:.1f} (1 min)")
    only = list(args.only)
    if only == list(RUNNERS):  # default: the original problems only (allinfo takes hours)
        only = [o for o in only if o not in ("allinfo", "scls-comparison")]
    out_name = ("bench_extreme_allinfo.txt"
                if set(only) & {"allinfo", "scls-comparison"} else "bench_extreme.txt")
    _emit(header, args.append, out_name)
    for name in only:
        if name == "allinfo":
            run_allinfo_parent(args.shapes or ["eurlex", "wiki10"], args.selectors,
                               args.scale_factor, args.time_limit, args.mem_limit_gib,
                               args.append, out_name)
            continue
        if name == "scls-comparison":
            for shape in args.shapes or ["wiki10", "wiki10-planted"]:
                run_scls_comparison(shape, args.scale_factor, args.time_limit,
                                    args.mem_limit_gib, args.append, out_name)
            continue
        out = subprocess.run(
            [sys.executable, __file__, "--child", name, "--scale-factor",
             str(args.scale_factor)], capture_output=True, text=True)
        if out.returncode:
            _emit(json.dumps({"problem": name,
                              "error": out.stderr.strip().splitlines()[-3:]}), args.append,
                  out_name)
            continue
        lines = out.stdout.strip().splitlines()
        for line in lines[:-1]:
            _emit("   " + line, args.append, out_name)
        _emit(lines[-1], args.append, out_name)
    _emit(f"# load average after the run {os.getloadavg()[0]:.1f} (1 min)", args.append,
          out_name)


def _emit(line: str, append: bool, name: str = "bench_extreme.txt") -> None:
    print(line, flush=True)
    if append:
        OUT.mkdir(parents=True, exist_ok=True)
        with open(OUT / name, "a") as fh:
            fh.write(line + "\n")


if __name__ == "__main__":
    main()
