"""Benchmark: the ReliefF-ML grid (Reyes et al. 2013) through the engine vs a hand loop.

The grid of ``experiments/relieff_ml_paper.toml`` reduced to a few datasets and folds:
per fold ReliefF-ML weights for every k of the grid and ML-kNN, DML-kNN and MLC-WkNN,
plain and "-WF" (weighted HEOM). Timed in the same run:

1. ``loop``: the straightforward implementation the engine is measured against, written
   here — per fold one plain neighbour graph for the largest k (serving every k), per k
   the weights and one weighted graph shared by ML-kNN and DML-kNN
   (``metric="precomputed"``), MLC-WkNN with its own search (the former
   ``scripts/reproduce_relieff_ml.py``);
2. ``engine``: ``run_experiment`` into a fresh SQLite store (the task's cells share
   neighbour graphs, :mod:`skmlfs.experiments._graphs`);
3. ``engine, no sharing``: the same with the graph cache switched off (every cell
   searches its neighbours itself, the engine before the cache).

The cells of both engine runs are compared with the loop's values (ML-kNN, DML-kNN: equal;
MLC-WkNN may break exact score ties differently, see the experiment file). BLAS is limited
to one thread in all runs. Prints the times and the ratios loop / engine.

Usage::

    MLFS_DATASETS=/path/to/datasets python benchmarks/bench_relieff_grid.py \\
        [--datasets emotions] [--folds 2] [--repeat 1]
"""

from __future__ import annotations

import argparse
import tempfile
import time
import tomllib
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

from skmlfs.datasets import load_name
from skmlfs.experiments import (
    ExperimentSpec,
    ResultStore,
    _cells,
    _graphs,
    _methods,
    run_experiment,
)
from skmlfs.learners import DMLkNN, MLCWkNN, MLkNN, heom_kneighbors_graph
from skmlfs.metrics import get_metric
from skmlfs.model_selection import iterative_stratification
from skmlfs.selection import ReliefFML

REPO = Path(__file__).resolve().parents[1]
METRICS = {
    "hamming_loss": {},
    "multilabel_accuracy": {"convention": "mulan"},
    "one_error": {"convention": "plcfs", "tie_rule": "lower_index"},
    "ranking_loss": {"convention": "plcfs"},
}
LEARNERS = {
    "ML-kNN": (MLkNN, {"s": 1.0}),
    "DML-kNN": (DMLkNN, {"s": 1.0, "delta": 6}),
    "MLC-WkNN": (MLCWkNN, {"reg": 1e-3}),
}


def nominal(ds) -> list[int] | None:
    """Nominal attributes with more than two values (binary ones are exact as 0/1)."""
    cols = [j for j, (t, c) in enumerate(zip(ds.feature_types, ds.categories, strict=True))
            if t == "nominal" and len(c or ()) > 2]
    return cols or None


def loop(name: str, folds: int, grid: list[int], seed: int) -> dict:
    """values[(learner name, split)][metric], the learner name as the engine names it."""
    ds = load_name(name)
    X = sp.csr_matrix(ds.X, dtype=float) if sp.issparse(ds.X) else np.asarray(ds.X, float)
    Y = np.asarray(ds.Y)
    cat = nominal(ds)
    fold = iterative_stratification(Y, folds, seed)
    out = {}

    def graphs(Xtr, Xte, w, k):
        kw = {"categorical_features": cat, "feature_weights": w, "n_neighbors": k}
        return (heom_kneighbors_graph(Xtr, **kw),
                heom_kneighbors_graph(Xte, Xtr, ranges_from=Xtr, **kw))

    for f in range(folds):
        tr, te = fold != f, fold == f
        Xtr, Xte, Ytr, Yte = X[tr], X[te], Y[tr], Y[te]
        plain = graphs(Xtr, Xte, None, max(grid))
        for k in grid:
            w = ReliefFML(k=k, s=1.0, random_state=seed + f, categorical_features=cat)
            w = w.fit(Xtr, Ytr).weights_
            weighted = graphs(Xtr, Xte, w, k)
            for L, (cls, params) in LEARNERS.items():
                for wf, wv, G in (("", None, plain), ("-WF", w, weighted)):
                    if cls is MLCWkNN:
                        est = cls(k=k, metric="heom", feature_weights=wv,
                                  categorical_features=cat, **params).fit(Xtr, Ytr)
                        pred, proba = est.predict_with_proba(Xte)
                    else:
                        est = cls(k=k, metric="precomputed", **params).fit(G[0], Ytr)
                        pred, proba = est.predict_with_proba(G[1])
                    vals = {}
                    for m, kw in METRICS.items():
                        s = get_metric(m)
                        vals[m] = float(s.function(Yte, pred if s.needs == "pred" else proba,
                                                   **kw))
                    out[(f"{L}{wf}[k={k}]", f)] = vals
    return out


def engine(names: list[str], folds: int, grid: list[int], db: Path) -> dict:
    # a fresh start: no ReliefF-ML weights or prepared splits of an earlier run reused
    _methods._WEIGHTS_CACHE.clear()
    _cells.clear_cache()
    d = tomllib.loads((REPO / "experiments" / "relieff_ml_paper.toml").read_text())
    d["datasets"] = [x for x in d["datasets"] if x["name"] in names]
    d["protocol"] = {**d["protocol"], "k": folds}
    for t in d["learners"].values():
        t["variants"] = {p: grid for p in t["variants"]}
    d.pop("report", None)
    spec = ExperimentSpec.from_dict(d, source="relieff_ml_paper.toml (reduced)")
    run_experiment(spec, db, verbose=False, progress=False)
    with ResultStore(db) as st:
        df = st.to_frame()
    return {(r["dataset"], r["learner"], int(r["split"])): {m: r[m] for m in METRICS}
            for _, r in df.iterrows()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", default="emotions")
    ap.add_argument("--folds", type=int, default=2)
    ap.add_argument("--grid", default="5,10,15")
    ap.add_argument("--repeat", type=int, default=1, help="alternating rounds (best of)")
    args = ap.parse_args()
    # labels without positives in a training part (medical) warn in every learner fit
    warnings.simplefilter("ignore", UserWarning)
    names = args.datasets.split(",")
    grid = [int(k) for k in args.grid.split(",")]
    seed = 2013
    times: dict[str, list[float]] = {"loop": [], "engine": [], "engine, no sharing": []}
    original = _graphs.NeighbourGraphs.for_cells
    with threadpool_limits(limits=1), tempfile.TemporaryDirectory() as tmp:
        for r in range(args.repeat):
            t0 = time.perf_counter()
            ref = {(n, L, s): v for n in names
                   for (L, s), v in loop(n, args.folds, grid, seed).items()}
            times["loop"].append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            eng = engine(names, args.folds, grid, Path(tmp) / f"shared{r}.db")
            times["engine"].append(time.perf_counter() - t0)
            _graphs.NeighbourGraphs.for_cells = classmethod(lambda cls, cells, seed=None: None)
            try:
                t0 = time.perf_counter()
                eng0 = engine(names, args.folds, grid, Path(tmp) / f"plain{r}.db")
                times["engine, no sharing"].append(time.perf_counter() - t0)
            finally:
                _graphs.NeighbourGraphs.for_cells = original
    for label, res in (("engine", eng), ("engine, no sharing", eng0)):
        assert set(res) == set(ref), f"{label}: other cells than the loop"
        diff = [key for key in ref if not key[1].startswith("MLC-WkNN") and res[key] != ref[key]]
        wk = sum(res[key] != ref[key] for key in ref if key[1].startswith("MLC-WkNN"))
        assert not diff, f"{label}: ML-kNN/DML-kNN values differ from the loop: {diff[:3]}"
        print(f"{label}: {len(ref)} cells; ML-kNN/DML-kNN identical to the loop; "
              f"MLC-WkNN cells differing: {wk}")
    best = {k: min(v) for k, v in times.items()}
    print(f"\nReliefF-ML grid, {', '.join(names)}, {args.folds} folds, k in {grid}, "
          f"best of {args.repeat} round(s), BLAS 1 thread:")
    for k, v in best.items():
        print(f"  {k:<20} {v:7.2f} s   loop / this = {best['loop'] / v:.2f}x")


if __name__ == "__main__":
    main()
