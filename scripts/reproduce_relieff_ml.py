"""Reproduce ReliefF-ML (Reyes, Morell & Ventura 2013), Tables 1-5, from a TOML description.

Usage::

    MLFS_DATASETS=/path/to/datasets python scripts/reproduce_relieff_ml.py \
        experiments/relieff_ml_paper.toml [--datasets emotions yeast] [--all]

For every dataset: 10-fold cross-validation (iterative stratification, Sechidis et al.
2011), and in each fold, for every ``k`` of the grid, ReliefF-ML weights fitted on the
training part and the three lazy learners trained plain and with the weights ("-WF",
weighted HEOM). Neighbours are searched block-wise, never through an n × n distance matrix:
per fold one plain neighbour graph for the largest ``k`` (serving every ``k``) and one
weighted graph per ``k``, shared by ML-kNN and DML-kNN (``metric="precomputed"``); MLC-WkNN
runs its own blocked search (it needs distances between neighbours). ``k`` is then chosen
per dataset × learner × variant by the 10-fold mean of the tuning criterion (Hamming loss),
as the paper determined "the best value of k on each dataset". Prints mean ± std tables
next to the paper's values, the Wilcoxon signed-rank test over datasets of every "-WF vs
plain" pair (Table 5), and writes the Markdown report named in the TOML file (its prose is
kept between the ``<!-- notes -->`` markers of an existing report) plus ``results.json``
beside it (per-fold values, run times, peak memory).

This stands in for the general benchmark runner of issue #3; the schema is documented at the
top of ``experiments/relieff_ml_paper.toml``.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
import tomllib
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from scipy.stats import wilcoxon
from threadpoolctl import threadpool_limits

import skmlfs.learners as learners
import skmlfs.metrics as metrics
import skmlfs.selection as selection
from skmlfs.datasets import load_name
from skmlfs.stats import wilcoxon_signed_rank

REPO = Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------------------ folds
def iterative_stratification(Y: np.ndarray, n_splits: int, seed: int) -> np.ndarray:
    """Fold index of every pattern by iterative stratification (Sechidis et al. 2011).

    Labels are processed from the rarest (fewest unassigned positives; ties → lower label
    index); each of their unassigned patterns goes to the fold that most wants the label,
    ties broken by the fold wanting most patterns, then at random. Patterns without labels
    go to the folds wanting most patterns. Seeded, so the folds are reproducible.
    """
    rng = np.random.default_rng(seed)
    n, _ = Y.shape
    Yb = Y.astype(bool)
    fold = np.full(n, -1)
    want = np.full(n_splits, n / n_splits)
    want_l = np.tile(Yb.sum(0) / n_splits, (n_splits, 1))
    left = Yb.sum(0).astype(np.int64)
    order = rng.permutation(n)

    def pick(cands: np.ndarray) -> int:
        return int(cands[0] if cands.size == 1 else rng.choice(cands))

    while left.sum() > 0:
        lab = int(np.argmin(np.where(left > 0, left, np.iinfo(np.int64).max)))
        for i in order[Yb[order, lab] & (fold[order] < 0)]:
            cand = np.flatnonzero(want_l[:, lab] == want_l[:, lab].max())
            cand = cand[want[cand] == want[cand].max()]
            f = pick(cand)
            fold[i] = f
            want[f] -= 1
            want_l[f] -= Yb[i]
            left -= Yb[i]
    for i in order[fold[order] < 0]:
        f = pick(np.flatnonzero(want == want.max()))
        fold[i] = f
        want[f] -= 1
    return fold


def kfold_ids(n: int, n_splits: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).permutation(n) % n_splits


# ------------------------------------------------------------------------------ one dataset
# Learners that accept a sparse neighbours graph (metric="precomputed"): their training
# statistics and predictions need the neighbours only. MLC-WkNN also needs the distances
# between a query's neighbours, so it runs its own (blocked) HEOM search.
GRAPH_LEARNERS = {"MLkNN", "DMLkNN"}


def categorical_mask(ds) -> np.ndarray | None:
    """Nominal attributes with more than two values; binary ones are exact as numeric 0/1."""
    mask = np.array(
        [t == "nominal" and len(c or ()) > 2 for t, c in zip(ds.feature_types, ds.categories,
                                                              strict=True)]
    )
    return mask if mask.any() else None


def peak_rss_reset() -> None:
    """Reset the kernel's peak-RSS counter of this process (Linux; no-op elsewhere)."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        pass


def peak_rss_mb() -> float | None:
    """Peak resident memory (VmHWM) of this process since the last reset, in MB."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def load_dataset(name: str):
    """``(X, Y, categorical mask)`` of a dataset resolved by ``load_name``."""
    ds = load_name(name)
    X = sp.csr_matrix(ds.X, dtype=float) if sp.issparse(ds.X) else np.asarray(ds.X, float)
    return X, ds.Y, categorical_mask(ds)


def run_dataset(name: str, cfg: dict, log, data=None) -> dict:
    """Cross-validate every learner, plain and -WF, for every k of the grid on one dataset.

    Per fold, the neighbours are searched once per distance: the plain (unweighted HEOM)
    train–train and test–train neighbour graphs for the largest k of the grid serve every
    k; the -WF graphs are built per k (ReliefF-ML's weights depend on k). The graphs are
    computed block-wise (:func:`skmlfs.learners.heom_kneighbors_graph`): memory O(n·k)
    instead of the n × n distance matrix. ``data`` = ``(X, Y, categorical mask)``
    overrides loading ``name``.
    """
    X, Y, cat = load_dataset(name) if data is None else data
    proto = cfg["protocol"]
    seed = int(proto["seed"])
    n_splits = int(proto["n_splits"])
    if proto.get("stratification", "iterative") == "iterative":
        fold = iterative_stratification(Y, n_splits, seed)
    else:
        fold = kfold_ids(len(Y), n_splits, seed)
    grid = [int(k) for k in cfg["tuning"]["k_grid"]]
    metric_names = cfg["metrics"]["names"]
    mparams = cfg["metrics"].get("params", {})
    wcls = getattr(selection, cfg["weighting"]["estimator"])
    wparams = dict(cfg["weighting"].get("params", {}))
    # values[learner][variant][k][metric] = list over folds
    values: dict = {
        L["name"]: {v: {k: {m: [] for m in metric_names} for k in grid} for v in ("", "WF")}
        for L in cfg["learners"]
    }
    peak_rss_reset()
    t0 = time.perf_counter()
    t_weights = t_graphs = 0.0

    def graphs(Xtr, Xte, weights, k):
        # The learners' own metric="heom" search gives the same neighbours (tested), so
        # the graphs can be shared between learners and, cut to their first k entries,
        # between the values of k.
        nonlocal t_graphs
        t = time.perf_counter()
        kw = {"categorical_features": cat, "feature_weights": weights, "n_neighbors": k}
        out = (
            learners.heom_kneighbors_graph(Xtr, **kw),
            learners.heom_kneighbors_graph(Xte, Xtr, ranges_from=Xtr, **kw),
        )
        t_graphs += time.perf_counter() - t
        return out

    def evaluate(L, k, weights, G, Xtr, Ytr, Xte, Yte, names):
        cls = getattr(learners, L["estimator"])
        if L["estimator"] in GRAPH_LEARNERS:
            est = cls(k=k, **{**L["params"], "metric": "precomputed"})
            pred, proba = est.fit(G[0], Ytr).predict_with_proba(G[1])
        else:
            est = cls(k=k, **{**L["params"], "feature_weights": weights,
                              "categorical_features": cat})
            pred, proba = est.fit(Xtr, Ytr).predict_with_proba(Xte)
        out = {}
        for m in names:
            spec = metrics.get_metric(m)
            y = pred if spec.needs == "pred" else proba
            out[m] = float(spec.function(Yte, y, **mparams.get(m, {})))
        return out

    for f in range(n_splits):
        tr, te = fold != f, fold == f
        Xtr, Xte, Ytr, Yte = X[tr], X[te], Y[tr], Y[te]
        plain = graphs(Xtr, Xte, None, max(grid))
        for k in grid:
            t = time.perf_counter()
            w = wcls(k=k, random_state=seed + f, categorical_features=cat, **wparams)
            weights = w.fit(Xtr, Ytr).weights_
            t_weights += time.perf_counter() - t
            weighted = graphs(Xtr, Xte, weights, k)
            for L in cfg["learners"]:
                for variant, wv, G in (("", None, plain), ("WF", weights, weighted)):
                    res = evaluate(L, k, wv, G, Xtr, Ytr, Xte, Yte, metric_names)
                    for m in metric_names:
                        values[L["name"]][variant][k][m].append(res[m])
    elapsed = time.perf_counter() - t0
    peak = peak_rss_mb()
    log(f"{name}: {X.shape[0]} × {X.shape[1]}, {Y.shape[1]} labels, "
        f"{elapsed:.1f} s (ReliefF-ML {t_weights:.1f} s, neighbour graphs {t_graphs:.1f} s), "
        f"peak RSS {peak if peak is None else round(peak)} MB")
    robustness, t_rob = {}, time.perf_counter()
    rob = cfg.get("robustness", {})
    if name in rob.get("datasets", []):
        # The criterion at k = fixed_k for several ReliefF-ML sampling seeds (same folds).
        k = int(cfg["tuning"]["fixed_k"])
        crit = cfg["tuning"]["criterion"]
        per_seed = {L["name"]: np.zeros((int(rob["seeds"]), n_splits)) for L in cfg["learners"]}
        for f in range(n_splits):
            tr, te = fold != f, fold == f
            for r in range(int(rob["seeds"])):
                w = wcls(k=k, random_state=seed + 1000 * (r + 1) + f, categorical_features=cat,
                         **wparams).fit(X[tr], Y[tr]).weights_
                G = graphs(X[tr], X[te], w, k)
                for L in cfg["learners"]:
                    res = evaluate(L, k, w, G, X[tr], Y[tr], X[te], Y[te], [crit])
                    per_seed[L["name"]][r, f] = res[crit]
        for L in cfg["learners"]:
            plain = float(np.mean(values[L["name"]][""][k][crit]))
            robustness[L["name"]] = (plain, per_seed[L["name"]].mean(axis=1).tolist())
        log(f"  sampling seeds: {time.perf_counter() - t_rob:.1f} s")
    return {
        "robustness": robustness,
        "seconds_robustness": time.perf_counter() - t_rob,
        "n_samples": X.shape[0],
        "n_features": X.shape[1],
        "n_labels": Y.shape[1],
        "seconds": elapsed,
        "seconds_relieff": t_weights,
        "seconds_graphs": t_graphs,
        "peak_rss_mb": peak,
        "values": {L: {v: {str(k): d for k, d in byk.items()} for v, byk in byv.items()}
                   for L, byv in values.items()},
    }


# ------------------------------------------------------------------------------ reporting
MODES = {
    "fixed": "k = {fixed} for every learner, plain and -WF (no tuning)",
    "tuned": "k tuned for every learner, plain and -WF (lowest 10-fold mean {crit} over the "
    "grid {grid}, chosen per dataset × learner × variant)",
    "paper": "plain learners at k = {fixed}, -WF learners with k tuned as above — the "
    "protocol the paper's numbers suggest (asymmetric: it favours -WF)",
}


def k_for(res: dict, learner: str, variant: str, cfg: dict, mode: str) -> int:
    fixed = int(cfg["tuning"]["fixed_k"])
    if mode == "fixed" or (mode == "paper" and variant == ""):
        return fixed
    crit = cfg["tuning"]["criterion"]
    better = max if metrics.get_metric(crit).greater_is_better else min
    byk = res["values"][learner][variant]
    return int(better(byk, key=lambda k: (np.mean(byk[k][crit]), int(k))))


def cell(res, learner, variant, k, m):
    v = np.asarray(res["values"][learner][variant][str(k)][m])
    return float(v.mean()), float(v.std())


def build_tables(results: dict, cfg: dict, mode: str) -> tuple[str, dict]:
    """Markdown tables (ours ± std over folds, paper) and the per-dataset means."""
    names = [L["name"] for L in cfg["learners"]]
    cols = [(L, v) for L in names for v in ("", "WF")]
    paper = cfg.get("paper", {})
    means: dict = {}
    out = []
    for m in cfg["metrics"]["names"]:
        spec = metrics.get_metric(m)
        arrow = "↑" if spec.greater_is_better else "↓"
        head = " | ".join(f"{L}{'-WF' if v else ''}" for L, v in cols)
        out.append(f"\n#### {m} {arrow}\n")
        out.append(f"| dataset | {head} |")
        out.append("|---|" + "---|" * len(cols))
        for ds, res in results.items():
            row, prow = [], []
            for j, (L, v) in enumerate(cols):
                k = k_for(res, L, v, cfg, mode)
                mu, sd = cell(res, L, v, k, m)
                means.setdefault(m, {}).setdefault(ds, {})[(L, v)] = mu
                row.append(f"{mu:.4f} ± {sd:.4f}" + ("" if mode == "fixed" else f" (k={k})"))
                pv = paper.get(m, {}).get(ds)
                prow.append("–" if pv is None or np.isnan(pv[j]) else f"{pv[j]:.4f}")
            for j in range(0, len(cols), 2):  # bold the better of each plain / -WF pair
                a, b = means[m][ds][cols[j]], means[m][ds][cols[j + 1]]
                if round(a - b, 12) != 0:
                    best = j if (a > b) == spec.greater_is_better else j + 1
                    row[best] = f"**{row[best]}**"
            out.append(f"| {ds} | " + " | ".join(row) + " |")
            if ds in paper.get(m, {}):
                out.append("| *paper* | " + " | ".join(prow) + " |")
    return "\n".join(out), means


def wilcoxon_table(means: dict, cfg: dict) -> str:
    alpha = float(cfg["wilcoxon"]["alpha"])
    names = [L["name"] for L in cfg["learners"]]
    lines = [
        "| comparison | metric | WF better | plain better | ties | R+ (plain) | R− (WF) | "
        f"p (exact, skmlfs) | p (scipy, zsplit) | α = {alpha} |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for L in names:
        for m in cfg["metrics"]["names"]:
            spec = metrics.get_metric(m)
            ds = list(means[m])
            if len(ds) < 2:
                continue
            wf = np.array([means[m][d][(L, "WF")] for d in ds])
            pl = np.array([means[m][d][(L, "")] for d in ds])
            d = np.round(wf - pl, 12)
            wins = int(np.sum(d > 0) if spec.greater_is_better else np.sum(d < 0))
            ties = int(np.sum(d == 0))
            r = wilcoxon_signed_rank(wf, pl, spec.greater_is_better, alpha=alpha, decimals=12)
            try:
                p_sc = float(wilcoxon(wf, pl, zero_method="zsplit").pvalue)
            except ValueError:  # all differences zero
                p_sc = float("nan")
            verdict = {"win": "R (WF better)", "loss": "R (plain better)", "tie": "NR"}
            lines.append(
                f"| {L}-WF vs {L} | {m} | {wins} | {len(ds) - wins - ties} | {ties} | "
                f"{r.r_plus:g} | {r.r_minus:g} | {r.pvalue:.3g} | {p_sc:.3g} | "
                f"{verdict[r.verdict]} |"
            )
    return "\n".join(lines)


def direction_table(means: dict, cfg: dict) -> str:
    """How often our -WF vs plain direction agrees with the paper's (dataset × learner)."""
    paper = cfg.get("paper", {})
    names = [L["name"] for L in cfg["learners"]]
    lines = [
        "| metric | same direction as paper | opposite | we tie | paper ties or unreadable |",
        "|---|---|---|---|---|",
    ]
    for m in cfg["metrics"]["names"]:
        same = opp = tie = na = 0
        for ds, row in means[m].items():
            pv = paper.get(m, {}).get(ds)
            for j, L in enumerate(names):
                if pv is None or np.isnan(pv[2 * j]) or np.isnan(pv[2 * j + 1]):
                    na += 1
                    continue
                theirs = np.sign(round(pv[2 * j + 1] - pv[2 * j], 6))
                ours = np.sign(round(row[(L, "WF")] - row[(L, "")], 12))
                if theirs == 0:
                    na += 1
                elif ours == 0:
                    tie += 1
                elif ours == theirs:
                    same += 1
                else:
                    opp += 1
        lines.append(f"| {m} | {same} | {opp} | {tie} | {na} |")
    return "\n".join(lines)


def seed_table(results: dict, cfg: dict) -> str:
    rob = cfg.get("robustness")
    rows = [(d, r["robustness"]) for d, r in results.items() if r.get("robustness")]
    if not rob or not rows:
        return "(not run)"
    crit = cfg["tuning"]["criterion"]
    lines = [
        f"| dataset | learner | plain ({crit}) | -WF mean ± sd over seeds | -WF min … max | "
        "seeds with -WF better |",
        "|---|---|---|---|---|---|",
    ]
    for d, rb in rows:
        for L, (plain, per_seed) in rb.items():
            v = np.asarray(per_seed)
            better = int(np.sum(v < plain) if not metrics.get_metric(crit).greater_is_better
                         else np.sum(v > plain))
            lines.append(
                f"| {d} | {L} | {plain:.4f} | {v.mean():.4f} ± {v.std():.4f} | "
                f"{v.min():.4f} … {v.max():.4f} | {better} of {v.size} |"
            )
    return "\n".join(lines)


def write_report(path: Path, results: dict, cfg: dict, sections: dict, seeds: str,
                 total: float) -> None:
    notes_start, notes_end = "<!-- notes -->", "<!-- /notes -->"
    notes = f"{notes_start}\n(no notes yet)\n{notes_end}"
    if path.exists():
        old = path.read_text()
        if notes_start in old and notes_end in old:
            notes = old[old.index(notes_start) : old.index(notes_end) + len(notes_end)]
    proto = cfg["protocol"]
    tun = cfg["tuning"]
    strat = (
        "iterative stratification (Sechidis et al. 2011)"
        if proto.get("stratification") == "iterative"
        else "shuffled folds"
    )
    fmt = {"fixed": tun["fixed_k"], "crit": tun["criterion"], "grid": tun["k_grid"]}
    parts = []
    for mode, (tables, wil, dirs) in sections.items():
        parts.append(
            f"## {mode.capitalize()}: {MODES[mode].format(**fmt)}\n{tables}\n\n"
            f"### Wilcoxon signed-rank test over datasets (Table 5), {mode}\n\n"
            "\"WF better / plain better / ties\" count datasets (the paper's R+/R−/Ties "
            "columns); R+/R− are Demšar's rank sums (R− = rank sum of the datasets where -WF "
            "is better).\n\n"
            f"{wil}\n\n### Direction of the -WF effect vs the paper, {mode}\n\n{dirs}\n"
        )
    def opt(r, key, fmt):
        return "–" if r.get(key) is None else format(r[key], fmt)

    timing = "\n".join(
        f"| {d} | {r['n_samples']} | {r['n_features']} | {r['n_labels']} | "
        f"{r['seconds']:.1f} | {r['seconds_relieff']:.1f} | {opt(r, 'seconds_graphs', '.1f')} | "
        f"{opt(r, 'peak_rss_mb', '.0f')} |"
        for d, r in results.items()
    )
    rob = cfg.get("robustness", {})
    body = f"""# ReliefF-ML (Reyes, Morell & Ventura 2013): reproduction of Tables 1–5

Generated by `scripts/reproduce_relieff_ml.py experiments/relieff_ml_paper.toml`
(Python {platform.python_version()}, {total / 60:.1f} min on a shared 2-core machine). The
tables are rewritten by the script; the notes section is kept.

Protocol: {proto['n_splits']}-fold cross-validation with {strat}, seed {proto['seed']}.
In each fold ReliefF-ML (`skmlfs.selection.ReliefFML`, m by the paper's rule, s = 1, sampling
seed {proto['seed']} + fold) is fitted on the training part; its weights feed the weighted
HEOM distance of the "-WF" learners (`skmlfs.learners.MLkNN`, `DMLkNN`, `MLCWkNN`; the plain
ones use unweighted HEOM). One k serves ReliefF-ML and the learner. Three ways of choosing k
are reported (the paper only says that "the best value for k ... on each dataset was
determined"): {', '.join(f'**{m}**' for m in sections)}; "tuned" selects k on the same folds
that are reported, as the paper apparently did. Cells: mean ± std over the folds; bold =
better of each plain / -WF pair; *paper* rows: Tables 1–4 of the paper (– = unreadable in the
paper text). Metrics: Hamming loss, multi-label (Jaccard) accuracy (Mulan convention), one-error
and ranking loss (ties count as errors; instances without or with all labels count 0).

{notes}

{''.join(parts)}
## Sensitivity to ReliefF-ML's random sampling (k = {tun['fixed_k']})

The paper draws m = 10 % of the training patterns; the weights, and the -WF results, change
with the draw. Same folds, {rob.get('seeds', 0)} sampling seeds:

{seeds}

## Data and run time

Seconds of the cross-validation over the whole k grid (without the sampling-seed runs), and
the part of them spent in ReliefF-ML and in the neighbour graphs; peak RSS: the process's
peak resident memory (VmHWM) during that dataset (– = not recorded).

| dataset | patterns | features | labels | seconds | ReliefF-ML | neighbour graphs | peak RSS (MB) |
|---|---|---|---|---|---|---|---|
{timing}
"""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body)


REQUIRED = {
    "experiment": ["output"],
    "protocol": ["n_splits", "seed"],
    "tuning": ["k_grid", "criterion", "fixed_k"],
    "weighting": ["estimator"],
    "metrics": ["names"],
    "datasets": ["names"],
    "wilcoxon": ["alpha"],
}


def load_config(path: Path) -> dict:
    """Read the TOML description; check the keys this script needs, ignore any others.

    Unknown keys (e.g. ``script`` in ``[experiment]``, read by other tools) are allowed.
    """
    cfg = tomllib.loads(Path(path).read_text())
    missing = [f"[{t}] {k}" for t, keys in REQUIRED.items() for k in keys
               if k not in cfg.get(t, {})]
    if missing:
        raise ValueError(f"{path}: missing {', '.join(missing)}")
    if not cfg.get("learners"):
        raise ValueError(f"{path}: no [[learners]]")
    return cfg


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("config", type=Path)
    ap.add_argument("--datasets", nargs="*", help="subset of the configured datasets")
    ap.add_argument("--all", action="store_true", help="also run the optional datasets")
    ap.add_argument("--no-report", action="store_true")
    args = ap.parse_args()
    cfg = load_config(args.config)
    names = list(cfg["datasets"]["names"])
    if args.all:
        names += list(cfg["datasets"].get("optional", []))
    if args.datasets:
        names = list(args.datasets)

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    out = REPO / cfg["experiment"]["output"]
    json_path = out.parent / "results.json"
    results: dict = {}
    if json_path.exists() and args.datasets:  # re-running a subset keeps the others
        results = json.loads(json_path.read_text())["results"]
    with threadpool_limits(limits=1):  # small products: BLAS threads only add contention
        for name in names:
            results[name] = run_dataset(name, cfg, log)
    total = sum(r["seconds"] + r.get("seconds_robustness", 0.0) for r in results.values())
    order = [n for n in cfg["datasets"]["names"] + cfg["datasets"].get("optional", [])
             if n in results]
    results = {n: results[n] for n in order}
    sections = {}
    for mode in ("fixed", "tuned", "paper"):
        tables, means = build_tables(results, cfg, mode)
        sections[mode] = (tables, wilcoxon_table(means, cfg), direction_table(means, cfg))
        print(f"\n## {mode}", *sections[mode], sep="\n")
    seeds = seed_table(results, cfg)
    print(seeds)
    if not args.no_report:
        out.parent.mkdir(parents=True, exist_ok=True)
        json_path.write_text(json.dumps({"config": str(args.config), "results": results},
                                        indent=1))
        write_report(out, results, cfg, sections, seeds, total)
        log(f"wrote {out.relative_to(REPO)} and {json_path.relative_to(REPO)}")


if __name__ == "__main__":
    main()
