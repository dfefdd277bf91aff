"""Reproduce Sun & Kudo's oCC paper (Tables 3-6, §8.3-8.5) on the shared datasets.

Usage::

    MLFS_DATASETS=/path/to/datasets python scripts/reproduce_occ.py \
        experiments/occ_paper.toml [--jobs 2] [--out docs/results/occ] [--fresh]

Six phases, all through the benchmark runner of :mod:`skmlfs.experiments` (results in
resumable SQLite stores under ``runs/occ/``):

1. the grid of ``experiments/occ_paper.toml``: 7 datasets, 5-fold CV, BR, ECC, EBCC, EoCC,
   oCC / MDDM / LLSF over their tuning grids (and the ensembles with the reference code's
   swapped sampling rates);
2. the large datasets, reduced to one 80/20 split and fewer methods (the 30-minute budget on
   two cores): bibtex and corel5k with BR, ECC, EBCC, EoCC, oCC (M = 0.1, 0.3 d), MDDM
   (thr 0.1) and LLSF (beta 0.1); delicious with BR and oCC only;
3. the ablations of §8.3-8.5 on scene, yeast and medical (5-fold CV): Exact-Match vs the
   parent budget k (M fixed at the value tuned in phase 1), vs the feature budget M (phase 1
   grid plus M = d), and the chain order (canonical, Algorithm 2 with the 1-D PCA
   projection, Algorithm 2 with all features, random, and an ensemble of 5 random orders)
   with k = q, M = d as in §8.5.

4. the five-selector comparison of §8.4 / Fig. 4 on scene, yeast, medical and enron (5-fold
   CV): oCC with MLFS-local (Eq. 43), MLFS-global (Eq. 42), MLMIM, MLJMI or MLMRMR (Table 1)
   as its feature-selection step (``OCC(feature_selection=...)``), M = {0.1, 0.3, 0.5, 0.7,
   0.9} of min(d, 200) (``FS_FRACTIONS``; the paper uses 10 % steps, 0.1-1.0), greedy
   searches over the 200 most relevant candidates (so that no budget of the grid
   degenerates to a relevance ranking);
5. the large datasets again with 5-fold CV: bibtex and corel5k with BR, ECC, EBCC, EoCC,
   oCC (M = 0.1, 0.3 d), MDDM (thr 0.1), LLSF (beta 0.1); delicious with BR and oCC
   (M = 0.1 d). The report uses a 5-fold result wherever all five folds of a (dataset,
   method) cell are stored, and the single split of phase 2 otherwise (and says which).

6. Fig. 7 (training-size curves, only run with ``--phases 6``): oCC_cos (Algorithm 2 order)
   vs oCC_can (the canonical, given label order: the ablation of chain order as curves) and
   EoCC5 and EoCC10 (random orders), all with k = q and M = d as in §8.5, trained on a
   random 10, 30, 50, 70 or 100 % (``TS_FRACTIONS``; the paper uses 10 % steps) of each
   training fold of the 5-fold CV of scene, yeast and medical (test folds unchanged; the
   same row sample for every method at a given share and fold).

``--phases`` runs a subset (the stores are resumable: finished cells are never recomputed,
so an interrupted run is continued by running the script again). ``--report-only`` rebuilds
the report from the stores; ``--from-csv <out>/results_folds.csv`` rebuilds it from a
committed CSV instead (no store needed; wall times from ``<runs>/timings.txt`` if present,
else from the *Compute* table of the existing ``<out>/README.md``). With ``--from-csv``,
``--phases 6`` (optionally ``--ts-variants oCC_can,...``) runs phase 6 into the stores
under ``--runs`` and merges its cells into the CSV's rows (replacing those of the same
dataset, method and fold; the other rows are kept as they are), e.g.::

    python scripts/reproduce_occ.py --from-csv docs/results/occ/results_folds.csv \
        --phases 6 --ts-variants oCC_can --runs /tmp/occ_runs

Then writes ``<out>/README.md`` (our numbers beside the paper's, tuned values, ranks,
timings, discussion), ``<out>/results_folds.csv`` (every fold of every cell) and the PNG
ablation and selector-comparison curves.
"""

from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")  # two cores: parallel tasks, single-threaded BLAS

import argparse  # noqa: E402
import copy  # noqa: E402
import platform  # noqa: E402
import time  # noqa: E402
import tomllib  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from joblib import Parallel, delayed  # noqa: E402
from sklearn.base import BaseEstimator, ClassifierMixin, MultiOutputMixin  # noqa: E402
from sklearn.utils import check_random_state  # noqa: E402

from skmlfs.experiments import ExperimentSpec, ResultStore, run_experiment  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
METRICS = [
    ("subset_accuracy", "Exact-Match"),
    ("hamming_score", "Hamming-Score"),
    ("macro_f1", "Macro-F1"),
    ("micro_f1", "Micro-F1"),
]
METHODS = ["BR", "ECC", "EBCC", "MDDM", "LLSF", "oCC", "EoCC"]
TUNED = {"oCC": "oCC_M", "MDDM": "MDDM_thr", "LLSF": "LLSF_b"}
CV_DATASETS = ["emotions", "scene", "yeast", "birds", "genbase", "medical", "enron"]
LARGE_DATASETS = ["bibtex", "corel5k", "delicious"]
ABLATION_DATASETS = ["scene", "yeast", "medical"]
Q = {"emotions": 6, "scene": 6, "yeast": 14, "birds": 19, "genbase": 27, "medical": 45,
     "enron": 53, "bibtex": 159, "corel5k": 374, "delicious": 983}  # labels (Table 2)
D = {"scene": 294, "yeast": 103, "medical": 1449, "enron": 1001}  # features (Table 2)
# §8.4 / Fig. 4: oCC's feature-selection step, Table 1 criteria (OCC.feature_selection)
FS_DATASETS = ["scene", "yeast", "medical", "enron"]
FS_CRITERIA = [("local", "MLFS-local"), ("global", "MLFS-global"), ("mlmim", "MLMIM"),
               ("mljmi", "MLJMI"), ("mlmrmr", "MLMRMR")]
# The committed report ran every other 10 % step. The paper's Fig. 4 uses 10 % steps
# (0.1, ..., 1.0 of min(d, 200)); for the finer grid set [0.1, 0.2, ..., 0.9] here (cell names
# are unchanged, so a resumed run only computes the new budgets).
FS_FRACTIONS = [0.1, 0.3, 0.5, 0.7, 0.9]
FS_BASE = 200  # the paper's M grid: fractions of min(d, 200)
FS_CAP = 200  # candidates of the greedy searches (the reference cap is 100)

# Means of Tables 3-6 of the paper (columns BR, ECC, EBCC, MDDM, LLSF, oCC, EoCC), for the
# datasets shared with the project.
PAPER = {
    "subset_accuracy": {
        "emotions": [.233, .270, .238, .206, .233, .270, .290],
        "scene": [.516, .650, .572, .511, .524, .669, .655],
        "yeast": [.148, .201, .179, .147, .152, .210, .204],
        "birds": [.474, .482, .489, .464, .474, .496, .487],
        "genbase": [.982, .973, .973, .977, .982, .985, .973],
        "medical": [.670, .671, .660, .601, .663, .694, .683],
        "enron": [.113, .144, .130, .112, .114, .140, .143],
        "bibtex": [.149, .172, .172, .133, .149, .163, .176],
        "corel5k": [.006, .013, .009, .005, .007, .020, .012],
        "delicious": [.002, .005, .003, .002, .002, .004, .004],
    },
    "hamming_score": {
        "emotions": [.785, .778, .778, .776, .785, .767, .787],
        "scene": [.890, .907, .898, .892, .892, .900, .909],
        "yeast": [.798, .794, .795, .796, .799, .787, .794],
        "birds": [.948, .950, .950, .946, .948, .951, .951],
        "genbase": [.999, .999, .999, .999, .999, .999, .999],
        "medical": [.990, .990, .990, .987, .990, .990, .990],
        "enron": [.942, .950, .940, .948, .941, .946, .951],
        "bibtex": [.985, .988, .988, .984, .985, .985, .988],
        "corel5k": [.988, .990, .990, .987, .988, .988, .990],
        "delicious": [.981, .982, .982, .980, .981, .979, .982],
    },
    "macro_f1": {
        "emotions": [.545, .588, .570, .543, .545, .580, .613],
        "scene": [.684, .742, .712, .673, .688, .724, .746],
        "yeast": [.355, .359, .353, .355, .351, .410, .359],
        "birds": [.135, .125, .131, .139, .135, .177, .127],
        "genbase": [.769, .725, .745, .765, .769, .758, .725],
        "medical": [.374, .328, .323, .383, .378, .387, .330],
        "enron": [.220, .192, .197, .218, .218, .194, .197],
        "bibtex": [.329, .248, .254, .308, .329, .328, .250],
        "corel5k": [.046, .031, .031, .043, .047, .046, .030],
        "delicious": [.123, .102, .098, .130, .122, .124, .096],
    },
    "micro_f1": {
        "emotions": [.591, .620, .608, .578, .591, .606, .647],
        "scene": [.677, .734, .704, .668, .682, .715, .738],
        "yeast": [.633, .642, .637, .631, .631, .636, .645],
        "birds": [.266, .286, .279, .266, .266, .300, .277],
        "genbase": [.993, .989, .988, .991, .993, .993, .989],
        "medical": [.809, .804, .799, .764, .815, .811, .812],
        "enron": [.521, .566, .569, .553, .517, .532, .573],
        "bibtex": [.429, .416, .419, .412, .429, .430, .418],
        "corel5k": [.167, .169, .151, .131, .167, .191, .167],
        "delicious": [.257, .234, .231, .250, .257, .233, .223],
    },
}


# ---------------------------------------------------------------- experiment specs
def _common(base: dict) -> dict:
    return {k: copy.deepcopy(base[k]) for k in
            ("seed", "n_features", "selectors", "discretizer", "metrics")}


def large_specs(base: dict) -> list[dict]:
    """Phase 2: one 80/20 split (the size of a CV fold) per large dataset."""
    L = base["learners"]
    one_split = {"kind": "holdout", "repeats": 1, "test_size": 0.2}
    full = ["BR", "ECC", "EBCC", "EoCC", "oCC_M0.1", "oCC_M0.3", "MDDM_thr0.1", "LLSF_b0.1"]
    specs = []
    for name in ("bibtex", "corel5k"):
        specs.append(dict(_common(base), name=f"occ_paper_{name}", protocol=one_split,
                          learners={k: L[k] for k in full},
                          datasets=[{"name": name, "load": f"mulan/{name}"}]))
    specs.append(dict(_common(base), name="occ_paper_delicious", protocol=one_split,
                      learners={k: L[k] for k in ["BR", "oCC_M0.1", "oCC_M0.3"]},
                      datasets=[{"name": "delicious", "load": "mulan/delicious"}]))
    return specs


def large_cv_specs(base: dict) -> list[dict]:
    """Phase 5: the large datasets with the 5-fold CV of the main grid."""
    L = base["learners"]
    full = ["BR", "ECC", "EBCC", "EoCC", "oCC_M0.1", "oCC_M0.3", "MDDM_thr0.1", "LLSF_b0.1"]
    # delicious: oCC at M = 0.1 d only (M = 0.3 d is in the single split of phase 2); add
    # "oCC_M0.3" here to tune it under 5-fold CV too.
    plan = {"bibtex": full, "corel5k": full, "delicious": ["BR", "oCC_M0.1"]}
    return [dict(_common(base), name=f"occ_cv_{name}", protocol={"kind": "kfold", "k": 5},
                 learners={k: L[k] for k in methods},
                 datasets=[{"name": name, "load": f"mulan/{name}"}])
            for name, methods in plan.items()]


TS_DATASETS = ["scene", "yeast", "medical"]
# The committed report: 10, 30, 50, 70 and 100 % of each training fold. The paper's Fig. 7
# uses 10 % steps; set [0.1, 0.2, ..., 1.0] here for those (existing cells are kept).
TS_FRACTIONS = [0.1, 0.3, 0.5, 0.7, 1.0]
# Fig. 7 methods in table / legend order: name -> learner at a training share f (the cells
# are named f"ts_{name}_f{f}")
TS_VARIANTS = {
    "oCC_can": lambda f: TrainFractionCanonical(fraction=f),
    "oCC_cos": lambda f: TrainFraction(n_chains=1, fraction=f),
    "EoCC5": lambda f: TrainFraction(n_chains=5, fraction=f),
    "EoCC10": lambda f: TrainFraction(n_chains=10, fraction=f),
}
# (marker/line, colour): the three methods of the first report keep their colours
TS_STYLE = {"oCC_can": ("s--", "C3"), "oCC_cos": ("o-", "C0"), "EoCC5": ("o-", "C1"),
            "EoCC10": ("o-", "C2")}


class TrainFraction(MultiOutputMixin, ClassifierMixin, BaseEstimator):
    """Fig. 7 learner: oCC_cos (``n_chains=1``, Algorithm 2 order) or an ensemble of
    ``n_chains`` oCCs with random orders (EoCC), k = q, M = d (§8.5), trained on a random
    ``fraction`` of the training rows it is given. The row sample depends only on
    ``random_state``, ``fraction`` and the number of rows, so every method of Fig. 7 sees
    the same rows at a given share and fold.

    Parameters
    ----------
    n_chains : int, default=1
    fraction : float in (0, 1], default=1.0
    random_state : int or None
        Seeds the row sample and the chain(s).
    """

    _order = "greedy"  # chain order of the single oCC (n_chains = 1)

    def __init__(self, n_chains: int = 1, fraction: float = 1.0, random_state=None):
        self.n_chains = n_chains
        self.fraction = fraction
        self.random_state = random_state

    def fit(self, X, Y):
        from skmlfs.learners import OCC, EnsembleOfChains

        rng = check_random_state(self.random_state)
        n = X.shape[0]
        m = min(n, max(2, int(np.ceil(self.fraction * n - 1e-9))))
        rows = np.sort(rng.choice(n, m, replace=False)) if m < n else np.arange(n)
        seed = int(rng.randint(2**31 - 1))
        if self.n_chains == 1:
            est = OCC(k=1.0, M=1.0, order=self._order, random_state=seed)
        else:
            est = EnsembleOfChains("occ", n_estimators=self.n_chains,
                                   chain_params={"k": 1.0, "M": 1.0}, random_state=seed)
        self.estimator_ = est.fit(X[rows], Y[rows])
        self.n_train_used_ = m
        return self

    def predict(self, X):
        return self.estimator_.predict(X)


class TrainFractionCanonical(TrainFraction):
    """Fig. 7 learner oCC_can: one oCC with the canonical (given) label order, k = q, M = d,
    on the same random ``fraction`` of the training rows as :class:`TrainFraction` (a
    subclass rather than a parameter, so that the stored cells of the other methods keep
    their ids)."""

    _order = "canonical"

    def __init__(self, fraction: float = 1.0, random_state=None):
        super().__init__(n_chains=1, fraction=fraction, random_state=random_state)


def ts_spec(base: dict, dataset: dict, variants: list[str] | None = None) -> dict:
    """Phase 6 on one dataset (Fig. 7); ``variants``: a subset of ``TS_VARIANTS``."""
    learners = {f"ts_{name}_f{f}": make(f) for name, make in TS_VARIANTS.items()
                if variants is None or name in variants for f in TS_FRACTIONS}
    return dict(_common(base), name=f"occ_ts_{dataset['name']}",
                protocol={"kind": "kfold", "k": 5}, learners=learners, datasets=[dataset])


def fs_budget(dataset: str, fraction: float) -> int:
    """M = ⌈fraction · min(d, 200)⌉, the grid of the paper's Fig. 4."""
    return max(1, int(np.ceil(fraction * min(D[dataset], FS_BASE) - 1e-9)))


def fs_spec(base: dict, dataset: dict) -> dict:
    """Phase 4 on one dataset: oCC (k = ⌈0.8 q⌉, Algorithm 2 order) with each of the five
    feature-selection criteria of §8.4 over the M grid."""
    learners = {
        f"fs_{crit}_M{f}": {"method": "occ", "M": fs_budget(dataset["name"], f),
                            "feature_selection": crit, "max_candidates": FS_CAP}
        for crit, _ in FS_CRITERIA for f in FS_FRACTIONS
    }
    return dict(_common(base), name=f"occ_fs_{dataset['name']}",
                protocol={"kind": "kfold", "k": 5}, learners=learners, datasets=[dataset])


def ablation_spec(base: dict, dataset: dict, M: float) -> dict:
    """Phase 3 on one dataset (M = the value tuned in phase 1)."""
    learners: dict = {}
    for p in (0, 0.2, 0.4, 0.6, 0.8, 1.0):
        learners[f"k{p}"] = {"method": "occ", "k": p, "M": M}
    learners["M1.0"] = {"method": "occ", "M": 1.0}
    cc = {"method": "occ", "k": 1.0, "M": 1.0}
    learners["order_canonical"] = dict(cc, order="canonical")
    learners["order_greedy_pca"] = dict(cc, order="greedy")
    learners["order_greedy_all"] = dict(cc, order="greedy", order_projection="none")
    learners["order_random"] = dict(cc, order="random")
    learners["EoCC5_random"] = {"method": "ensemble_chains", "chain": "occ", "n_estimators": 5,
                                "chain_params": {"k": 1.0, "M": 1.0}}
    return dict(_common(base), name=f"occ_ablation_{dataset['name']}",
                protocol={"kind": "kfold", "k": 5}, learners=learners, datasets=[dataset])


def _run(spec_dict: dict, db: Path, jobs: int = 1) -> tuple[float, int]:
    """Run (or resume) one spec: (wall seconds, number of cells computed now)."""
    t0 = time.perf_counter()
    res = run_experiment(ExperimentSpec.from_dict(spec_dict, source=spec_dict["name"]), db,
                         n_jobs=jobs, progress=False)
    return time.perf_counter() - t0, res.n_computed


# ---------------------------------------------------------------- aggregation
def frame(db: Path) -> pd.DataFrame:
    return ResultStore(db).to_frame()


def summary(df: pd.DataFrame) -> pd.DataFrame:
    cols = [m for m, _ in METRICS] + ["fit_time", "predict_time"]
    g = df.groupby(["dataset", "learner"])[cols]
    return g.mean().join(g.std(ddof=0).add_suffix("_std")).join(
        df.groupby(["dataset", "learner"]).size().rename("n_splits"))


def tuned_choice(summ: pd.DataFrame, dataset: str, method: str) -> str | None:
    """The grid learner of ``method`` with the best mean Exact-Match (first on ties)."""
    rows = [lr for lr in summ.loc[dataset].index if lr.startswith(TUNED[method])]
    if not rows:
        return None
    em = summ.loc[dataset].loc[rows, "subset_accuracy"].round(12)
    return str(em.idxmax())


def method_rows(summ: pd.DataFrame) -> tuple[dict, dict]:
    """(dataset, method) -> learner name used for the method, and the chosen parameters."""
    chosen, params = {}, {}
    for ds in summ.index.get_level_values(0).unique():
        for m in METHODS:
            if m in TUNED:
                lr = tuned_choice(summ, ds, m)
                if lr is not None:
                    params[(ds, m)] = lr[len(TUNED[m]):]
            else:
                lr = m if m in summ.loc[ds].index else None
            if lr is not None:
                chosen[(ds, m)] = lr
    return chosen, params


def _fmt(x: float, d: int = 3) -> str:
    return "—" if x is None or not np.isfinite(x) else f"{x:.{d}f}".replace("0.", ".", 1)


def metric_table(summ, chosen, params, metric, datasets) -> list[str]:
    head = "| dataset | " + " | ".join(METHODS) + " |"
    lines = [head, "|" + "---|" * (len(METHODS) + 1)]
    for ds in datasets:
        if ds not in summ.index.get_level_values(0):
            continue
        ours = [summ.loc[(ds, chosen[(ds, m)]), metric] if (ds, m) in chosen else np.nan
                for m in METHODS]
        best = np.nanmax(np.round(ours, 3))
        paper = PAPER[metric][ds]
        pbest = max(paper)
        cells = []
        for m, o, p in zip(METHODS, ours, paper, strict=True):
            if not np.isfinite(o):
                cells.append(f"— ({_fmt(p)})")
                continue
            s = _fmt(o)
            if round(o, 3) == best:
                s = f"**{s}**"
            ps = _fmt(p)
            if p == pbest:
                ps = f"**{ps}**"
            par = params.get((ds, m))
            extra = f" <sub>{par}</sub>" if par and metric == "subset_accuracy" else ""
            cells.append(f"{s} ({ps}){extra}")
        lines.append(f"| {ds} | " + " | ".join(cells) + " |")
    return lines


def rank_rows(summ, chosen, metric, datasets) -> tuple[np.ndarray, np.ndarray]:
    from scipy.stats import rankdata

    ours, paper = [], []
    for ds in datasets:
        if ds not in summ.index.get_level_values(0) or any((ds, m) not in chosen
                                                           for m in METHODS):
            continue
        v = np.round([summ.loc[(ds, chosen[(ds, m)]), metric] for m in METHODS], 3)
        ours.append(rankdata(-v))
        paper.append(rankdata(-np.asarray(PAPER[metric][ds])))
    return np.mean(ours, axis=0), np.mean(paper, axis=0)


# ---------------------------------------------------------------- figures
def figures(out: Path, main: pd.DataFrame, abl: pd.DataFrame, qd: dict) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    made = []
    sm = summary(main)
    sa = summary(abl) if len(abl) else None
    # EM vs k
    if sa is not None:
        fig, ax = plt.subplots(figsize=(5.5, 3.6))
        for ds in ABLATION_DATASETS:
            if ds not in sa.index.get_level_values(0):
                continue
            ks = [0, 0.2, 0.4, 0.6, 0.8, 1.0]
            em = [sa.loc[(ds, f"k{k}"), "subset_accuracy"] for k in ks]
            sd = [sa.loc[(ds, f"k{k}"), "subset_accuracy_std"] for k in ks]
            ax.errorbar(ks, em, yerr=sd, marker="o", capsize=3, label=f"{ds} (q={qd[ds]})")
        ax.set_xlabel("k / q (parents per label; 0 = BR-like, 1 = all earlier labels)")
        ax.set_ylabel("Exact-Match (5-fold mean ± std)")
        ax.set_title("oCC: Exact-Match vs k (§8.3), M tuned")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(out / "ablation_k.png", dpi=120)
        plt.close(fig)
        made.append("ablation_k.png")
    # EM vs M
    fig, ax = plt.subplots(figsize=(5.5, 3.6))
    for ds in CV_DATASETS:
        if ds not in sm.index.get_level_values(0):
            continue
        Ms = [0.1, 0.3, 0.5, 0.7, 0.9]
        em = [sm.loc[(ds, f"oCC_M{m}"), "subset_accuracy"] for m in Ms]
        if sa is not None and (ds, "M1.0") in sa.index:
            Ms = Ms + [1.0]
            em = em + [sa.loc[(ds, "M1.0"), "subset_accuracy"]]
        ax.plot(Ms, np.asarray(em) / max(em), marker="o", label=ds)
    ax.set_xlabel("M / d (features selected per label)")
    ax.set_ylabel("Exact-Match / its maximum")
    ax.set_title("oCC: Exact-Match vs M (§8.4), k = ⌈0.8q⌉")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(out / "ablation_M.png", dpi=120)
    plt.close(fig)
    made.append("ablation_M.png")
    # chain order
    if sa is not None:
        variants = ["order_canonical", "order_greedy_pca", "order_greedy_all", "order_random",
                    "EoCC5_random"]
        labels = ["canonical", "Alg. 2 (PCA)", "Alg. 2 (all d)", "random", "EoCC5 (random)"]
        fig, axes = plt.subplots(1, 2, figsize=(9, 3.4))
        for ax, (metric, title) in zip(axes, [METRICS[0], METRICS[2]], strict=True):
            w = 0.16
            for i, (v, lab) in enumerate(zip(variants, labels, strict=True)):
                x = np.arange(len(ABLATION_DATASETS)) + (i - 2) * w
                y = [sa.loc[(ds, v), metric] for ds in ABLATION_DATASETS]
                e = [sa.loc[(ds, v), f"{metric}_std"] for ds in ABLATION_DATASETS]
                ax.bar(x, y, w, yerr=e, capsize=2, label=lab)
            ax.set_xticks(np.arange(len(ABLATION_DATASETS)), ABLATION_DATASETS)
            ax.set_title(f"{title} (k = q, M = d)")
        axes[0].legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(out / "ablation_order.png", dpi=120)
        plt.close(fig)
        made.append("ablation_order.png")
    return made


def merge_large(split: pd.DataFrame, cv: pd.DataFrame) -> tuple[pd.DataFrame, dict]:
    """Per (dataset, learner): the 5-fold rows when all five folds are stored, else the
    single 80/20 split — except that a tuned method (oCC M, MDDM thr, LLSF β) with any
    5-fold value keeps only its 5-fold values, so that the tuning never compares values
    measured under different protocols. Returns the rows and
    ``{(dataset, learner): "5-fold" | "1 split"}``."""
    parts, prov = [], {}
    done = (cv.groupby(["dataset", "learner"]).size() if len(cv) else pd.Series(dtype=int))
    full = {k for k, n in done.items() if n >= 5}

    def family(lr):  # tuning values are only compared under one protocol
        return next((p for p in TUNED.values() if lr.startswith(p)), lr)

    cv_fam = {(ds, family(lr)) for ds, lr in full}
    for (ds, lr), g in split.groupby(["dataset", "learner"]):
        if (ds, lr) not in full and (ds, family(lr)) not in cv_fam:
            parts.append(g)
            prov[(ds, lr)] = "1 split"
    for ds, lr in sorted(full):
        parts.append(cv[(cv["dataset"] == ds) & (cv["learner"] == lr)])
        prov[(ds, lr)] = "5-fold"
    empty = split.iloc[:0] if len(split) else cv.iloc[:0]
    return pd.concat([empty] + parts, ignore_index=True), prov


def fs_summary(fs: pd.DataFrame) -> pd.DataFrame:
    """Complete (5-fold) cells of the selector comparison, with criterion and fraction."""
    sm = summary(fs)
    sm = sm[sm["n_splits"] >= 5].copy()
    names = sm.index.get_level_values(1)
    sm["criterion"] = [n.split("_")[1] for n in names]
    sm["fraction"] = [float(n.rsplit("_M", 1)[1]) for n in names]
    return sm


def fs_figure(out: Path, sm: pd.DataFrame, ref: dict) -> str | None:
    """Fig. 4: Exact-Match (top) and Macro-F1 (bottom) vs M for the five criteria."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    dss = [ds for ds in FS_DATASETS if ds in sm.index.get_level_values(0)]
    if not dss:
        return None
    fig, axes = plt.subplots(2, len(dss), figsize=(3.3 * len(dss), 5.6), squeeze=False)
    styles = dict(zip([c for c, _ in FS_CRITERIA], ["o-", "s--", "^-", "v-", "D:"],
                      strict=True))
    for col, ds in enumerate(dss):
        sd = sm.loc[ds]
        for row, (metric, title) in enumerate([METRICS[0], METRICS[2]]):
            ax = axes[row, col]
            for crit, label in FS_CRITERIA:
                g = sd[sd["criterion"] == crit].sort_values("fraction")
                if not len(g):
                    continue
                x = [fs_budget(ds, f) for f in g["fraction"]]
                ax.plot(x, g[metric], styles[crit], ms=4, label=label)
            for (rds, name, met), val in ref.items():
                if rds == ds and met == metric:
                    ax.axhline(val, color="grey", lw=0.8,
                               ls="-" if name == "BR" else "-.")
            ax.set_xlabel(f"M (of min(d, 200) = {min(D[ds], FS_BASE)})")
            if col == 0:
                ax.set_ylabel(f"{title} (5-fold mean)")
            if row == 0:
                ax.set_title(f"{ds} (d={D[ds]}, q={Q[ds]})")
    axes[0, 0].legend(fontsize=7)
    fig.suptitle("oCC, five feature-selection criteria (§8.4); grey: BR (solid), "
                 "no selection (dash-dot)", fontsize=9)
    fig.tight_layout()
    fig.savefig(out / "selectors_M.png", dpi=110)
    plt.close(fig)
    return "selectors_M.png"


def fs_section(out: Path, fs: pd.DataFrame, main: pd.DataFrame, abl: pd.DataFrame) -> list[str]:
    if not len(fs):
        return []
    sm = fs_summary(fs)
    if not len(sm):
        return []
    sref = summary(pd.concat([main, abl], ignore_index=True))
    ref = {}
    for ds in FS_DATASETS:
        for name, lr in (("BR", "BR"), ("no selection", "M1.0")):
            if (ds, lr) in sref.index:
                for metric in ("subset_accuracy", "macro_f1"):
                    ref[(ds, name, metric)] = float(sref.loc[(ds, lr), metric])
    img = fs_figure(out, sm, ref)
    L = ["\n## Five feature-selection criteria in oCC (§8.4, Fig. 4)\n"]
    L.append(
        "oCC (k = ⌈0.8 q⌉, Algorithm 2 order, LIBLINEAR) with its feature-selection step "
        "replaced by each criterion of Table 1 (`OCC(feature_selection=...)`): MLFS-local "
        "(Eq. 43, β = 1/|Pa_j|, γ = 1/|X_θj|), MLFS-global (Eq. 42, β = 1/|Pa_j|, "
        "γ = 1/|X_θ|), MLMIM (Eq. 42, β = γ = 0), MLJMI (Eq. 42, β = 0, γ = 1/|X_θ|), "
        "MLMRMR (β = 0 and −(q/|X_θ|)·Σ I(X_m; X_n) instead of the conditional redundancy). "
        f"5-fold CV (the folds of the main grid); M = ⌈f · min(d, {FS_BASE})⌉ for "
        f"f ∈ {{{', '.join(str(f) for f in FS_FRACTIONS)}}} (the paper uses 10 % steps, "
        "10 %–100 %; its last step, 100 % of min(d, 200), is no selection for yeast and the "
        "same 200 candidates for every criterion elsewhere); the greedy searches consider the "
        f"{FS_CAP} most relevant candidates (the reference cap of 100 would turn every "
        "criterion into a plain relevance ranking for M ≥ 100). The global criteria give "
        "all labels the same M features.\n"
    )
    if img:
        L.append(f"![{img}]({img})\n")
    for metric, title in (METRICS[0], METRICS[2]):
        L.append(f"\n{title}, 5-fold mean (best criterion of a column in bold):\n")
        for ds in FS_DATASETS:
            if ds not in sm.index.get_level_values(0):
                continue
            sd = sm.loc[ds]
            Ms = [fs_budget(ds, f) for f in FS_FRACTIONS]
            L.append(f"**{ds}** (d = {D[ds]}, q = {Q[ds]})\n")
            L.append("| criterion | " + " | ".join(f"M={m}" for m in Ms)
                     + " | mean over M |")
            L.append("|" + "---|" * (len(Ms) + 2))
            grid = {}
            for crit, _ in FS_CRITERIA:
                for f in FS_FRACTIONS:
                    nm = f"fs_{crit}_M{f}"
                    grid[(crit, f)] = (round(float(sd.loc[nm, metric]), 3)
                                       if nm in sd.index else np.nan)
            means = {c: np.nanmean([grid[(c, f)] for f in FS_FRACTIONS])
                     if any(np.isfinite(grid[(c, f)]) for f in FS_FRACTIONS) else np.nan
                     for c, _ in FS_CRITERIA}
            col_best = {f: np.nanmax([grid[(c, f)] for c, _ in FS_CRITERIA])
                        for f in FS_FRACTIONS}
            mbest = np.nanmax(list(means.values()))
            for crit, label in FS_CRITERIA:
                cells = []
                for f in FS_FRACTIONS:
                    v = grid[(crit, f)]
                    c = _fmt(v)
                    cells.append(f"**{c}**" if np.isfinite(v) and v == col_best[f] else c)
                m = means[crit]
                mc = _fmt(m)
                cells.append(f"**{mc}**" if np.isfinite(m) and round(m, 3) == round(mbest, 3)
                             else mc)
                L.append(f"| {label} | " + " | ".join(cells) + " |")
            extra = [f"{name} {_fmt(ref[(ds, name, metric)])}"
                     for name in ("BR", "no selection") if (ds, name, metric) in ref]
            if extra:
                note = (" (oCC with k = ⌈0.8 q⌉ and M = d, from the ablations)"
                        if (ds, "no selection", metric) in ref else "")
                L.append(f"\nReference: {', '.join(extra)}{note}.\n")
    # average rank of the criteria per dataset (over the M grid)
    from scipy.stats import rankdata

    L.append("\nAverage rank of the criteria over the M grid (Exact-Match; 1 = best, ties "
             "shared; rounded to 3 decimals first):\n")
    L.append("| dataset | " + " | ".join(lab for _, lab in FS_CRITERIA) + " |")
    L.append("|" + "---|" * (len(FS_CRITERIA) + 1))
    for ds in FS_DATASETS:
        if ds not in sm.index.get_level_values(0):
            continue
        sd = sm.loc[ds]
        ranks = []
        for f in FS_FRACTIONS:
            names = [f"fs_{c}_M{f}" for c, _ in FS_CRITERIA]
            if all(nm in sd.index for nm in names):
                ranks.append(rankdata(-np.round(sd.loc[names, "subset_accuracy"], 3)))
        if ranks:
            L.append(f"| {ds} | " + " | ".join(f"{r:.1f}" for r in np.mean(ranks, axis=0))
                     + " |")
    t = sm["fit_time"].groupby([sm.index.get_level_values(0), sm["criterion"]]).mean()
    L.append("\nMean fit time per fold over the M grid (s, one core, shared machine):\n")
    L.append("| dataset | " + " | ".join(lab for _, lab in FS_CRITERIA) + " |")
    L.append("|" + "---|" * (len(FS_CRITERIA) + 1))
    for ds in FS_DATASETS:
        if ds in t.index.get_level_values(0):
            L.append(f"| {ds} | " + " | ".join(
                f"{t.loc[(ds, c)]:.1f}" if (ds, c) in t.index else "—"
                for c, _ in FS_CRITERIA) + " |")
    return L


def ts_section(out: Path, ts: pd.DataFrame) -> list[str]:
    """Fig. 7: Exact-Match and Macro-F1 vs the share of the training fold used."""
    if not len(ts):
        return []
    sm = summary(ts)
    sm = sm[sm["n_splits"] >= 5]
    if not len(sm):
        return []
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    dss = [ds for ds in TS_DATASETS if ds in sm.index.get_level_values(0)]
    fig, axes = plt.subplots(2, len(dss), figsize=(3.3 * len(dss), 5.6), squeeze=False)
    for col, ds in enumerate(dss):
        for row, (metric, title) in enumerate([METRICS[0], METRICS[2]]):
            ax = axes[row, col]
            for name in TS_VARIANTS:
                xs = [f for f in TS_FRACTIONS if (ds, f"ts_{name}_f{f}") in sm.index]
                ys = [sm.loc[(ds, f"ts_{name}_f{f}"), metric] for f in xs]
                if xs:
                    fmt, color = TS_STYLE[name]
                    ax.plot(xs, ys, fmt, color=color, ms=4, label=name)
            ax.set_xlabel("share of the training fold")
            if col == 0:
                ax.set_ylabel(f"{title} (5-fold mean)")
            if row == 0:
                ax.set_title(ds)
    axes[0, 0].legend(fontsize=7)
    fig.suptitle("oCC_cos (Alg. 2 order) vs oCC_can (canonical order) and EoCC5 / EoCC10 "
                 "by training size (§8.5, Fig. 7), k = q, M = d", fontsize=9)
    fig.tight_layout()
    fig.savefig(out / "training_size.png", dpi=110)
    plt.close(fig)
    L = ["\n## Training-set size (§8.5, Fig. 7)\n"]
    L.append(
        "oCC_cos (Algorithm 2 order) vs EoCC5 and EoCC10 (random orders; 75 % of the "
        "instances and 50 % of the features per member), k = q, M = d, each trained on a "
        "random share of the training fold of the main 5-fold CV (test folds unchanged).\n"
    )
    if any((ds, f"ts_oCC_can_f{f}") in sm.index for ds in dss for f in TS_FRACTIONS):
        L.append(
            "oCC_can: the same single oCC (k = q, M = d) with the canonical (given) label "
            "order, trained on the same row sample as the other methods at each share and "
            "fold, so that oCC_can vs oCC_cos isolates the chain order (the order ablation "
            "of §8.5 as curves; at 100 % it is the ablation's `order_canonical` up to the "
            "SVMs' random seed).\n"
        )
    L.append("![training_size.png](training_size.png)\n")
    for metric, title in (METRICS[0], METRICS[2]):
        L.append(f"\n{title}, 5-fold mean:\n")
        L.append("| dataset | method | " + " | ".join(f"{int(f * 100)} %" for f in TS_FRACTIONS)
                 + " | fit time at 100 % (s) |")
        L.append("|" + "---|" * (len(TS_FRACTIONS) + 3))
        for ds in dss:
            for name in TS_VARIANTS:
                if not any((ds, f"ts_{name}_f{f}") in sm.index for f in TS_FRACTIONS):
                    continue
                cells = [_fmt(sm.loc[(ds, f"ts_{name}_f{f}"), metric])
                         if (ds, f"ts_{name}_f{f}") in sm.index else "—" for f in TS_FRACTIONS]
                key = (ds, f"ts_{name}_f1.0")
                ft = f"{sm.loc[key, 'fit_time']:.1f}" if key in sm.index else "—"
                L.append(f"| {ds} | {name} | " + " | ".join(cells) + f" | {ft} |")
    return L


# ---------------------------------------------------------------- report
DISCUSSION_FILE = "discussion.md"


def write_report(out: Path, frames: dict, timings: dict, qd: dict) -> None:
    main, abl = frames["main"], frames["ablation"]
    large, prov = merge_large(frames["large_split"], frames["large_cv"])
    both = pd.concat([main, large], ignore_index=True)
    summ = summary(both)
    chosen, params = method_rows(summ)
    # large datasets with every method, all 5-fold: they join a second rank row
    cv_large = [ds for ds in LARGE_DATASETS
                if all(prov.get((ds, chosen.get((ds, m)))) == "5-fold" for m in METHODS)]
    L = []
    L.append("# oCC (Sun & Kudo) — reproduction on the shared datasets\n")
    L.append(
        "Generated by `scripts/reproduce_occ.py experiments/occ_paper.toml` "
        f"({platform.python_version()}, {os.cpu_count()} cores, single-threaded BLAS). "
        "Each cell: **ours** (paper). Best of a row in bold (ours among ours, paper among "
        "the paper's). oCC, MDDM and LLSF are tuned on mean Exact-Match over their grid "
        "(oCC `M/d`, MDDM `thr`, LLSF `β`: the subscript in the Exact-Match table); the "
        "other metrics use the same value. 7 datasets × 5-fold CV; bibtex, corel5k, "
        "delicious: fewer methods and tuning values, 5-fold CV where it was run, else one "
        "80/20 split (fold size) — see *Large datasets* below.\n"
    )
    for metric, title in METRICS:
        L.append(f"\n## {title}\n")
        L += metric_table(summ, chosen, params, metric, CV_DATASETS + LARGE_DATASETS)
        r_ours, r_paper = rank_rows(summ, chosen, metric, CV_DATASETS)
        L.append("| avg. rank (7 datasets of the main grid) | " + " | ".join(
            f"{a:.2f} ({b:.2f})" for a, b in zip(r_ours, r_paper, strict=True)) + " |")
        if cv_large:
            r_ours, r_paper = rank_rows(summ, chosen, metric, CV_DATASETS + cv_large)
            L.append(f"| avg. rank (the 7 + {', '.join(cv_large)}) | " + " | ".join(
                f"{a:.2f} ({b:.2f})" for a, b in zip(r_ours, r_paper, strict=True)) + " |")
    # the fixed-parameter rows and the reference sampling
    L.append("\n## Untuned settings and the reference code's ensemble sampling\n")
    L.append("Exact-Match, mean ± std over the folds.\n")
    cols = ["oCC_M0.5", "EoCC", "ECC", "EBCC", "ECC_ref", "EBCC_ref", "EoCC_ref"]
    L.append("| dataset | " + " | ".join(cols) + " |")
    L.append("|" + "---|" * (len(cols) + 1))
    for ds in CV_DATASETS:
        if ds not in summ.index.get_level_values(0):
            continue
        row = []
        for c in cols:
            if (ds, c) in summ.index:
                row.append(f"{_fmt(summ.loc[(ds, c), 'subset_accuracy'])} ± "
                           f"{_fmt(summ.loc[(ds, c), 'subset_accuracy_std'])}")
            else:
                row.append("—")
        L.append(f"| {ds} | " + " | ".join(row) + " |")
    L.append(
        "\n`*_ref`: 50 % of the instances and 75 % of the features per member — the rates "
        "the authors' `EoCC.m` actually uses (the paper's text says 75 % / 50 %, which the "
        "main tables use).\n"
    )
    # large datasets: which protocol
    L.append("\n## Large datasets: protocol per method\n")
    L.append("| dataset | 5-fold CV | one 80/20 split |\n|---|---|---|")
    for ds in LARGE_DATASETS:
        cv_l = sorted(lr for (d, lr), v in prov.items() if d == ds and v == "5-fold")
        sp_l = sorted(lr for (d, lr), v in prov.items() if d == ds and v == "1 split")
        if cv_l or sp_l:
            L.append(f"| {ds} | {', '.join(cv_l) or '—'} | {', '.join(sp_l) or '—'} |")
    cv, split = frames["large_cv"], frames["large_split"]
    both_p = [(d, lr) for (d, lr), v in prov.items() if v == "5-fold"
              and ((split["dataset"] == d) & (split["learner"] == lr)).any()]
    if both_p:
        L.append("\nExact-Match of the cells run both ways (the single split of the first "
                 "run vs the 5-fold mean ± std):\n")
        L.append("| dataset | method | 1 split | 5-fold |\n|---|---|---|---|")
        sc, ss = summary(cv), summary(split)
        for d, lr in sorted(both_p):
            L.append(f"| {d} | {lr} | {_fmt(ss.loc[(d, lr), 'subset_accuracy'])} | "
                     f"{_fmt(sc.loc[(d, lr), 'subset_accuracy'])} ± "
                     f"{_fmt(sc.loc[(d, lr), 'subset_accuracy_std'])} |")
    # oCC grid
    L.append("\n## oCC over its M grid (Exact-Match)\n")
    Ms = ["oCC_M0.1", "oCC_M0.3", "oCC_M0.5", "oCC_M0.7", "oCC_M0.9"]
    L.append("| dataset | q | " + " | ".join(m[4:] for m in Ms) + " | BR |")
    L.append("|" + "---|" * (len(Ms) + 3))
    for ds in CV_DATASETS + LARGE_DATASETS:
        if ds not in summ.index.get_level_values(0):
            continue
        v = [(_fmt(summ.loc[(ds, m), "subset_accuracy"]) if (ds, m) in summ.index else "—")
             for m in Ms]
        L.append(f"| {ds} | {qd.get(ds, '')} | " + " | ".join(v) + " | "
                 f"{_fmt(summ.loc[(ds, 'BR'), 'subset_accuracy'])} |")
    # ablations
    imgs = figures(out, main, abl, qd)
    L.append("\n## Ablations (§8.3–8.5)\n")
    for img in imgs:
        L.append(f"![{img}]({img})\n")
    if len(abl):
        sa = summary(abl)
        L.append("Exact-Match (5-fold mean) of the ablation runs:\n")
        names = list(dict.fromkeys(abl["learner"]))
        L.append("| variant | " + " | ".join(ABLATION_DATASETS) + " |")
        L.append("|" + "---|" * (len(ABLATION_DATASETS) + 1))
        for nm in names:
            vals = [(_fmt(sa.loc[(ds, nm), "subset_accuracy"]) if (ds, nm) in sa.index
                     else "—") for ds in ABLATION_DATASETS]
            L.append(f"| {nm} | " + " | ".join(vals) + " |")
        L.append(
            "\n`kP`: oCC with k = ⌈P·q⌉ parents and M tuned in the main grid (k0 = no "
            "parents); `M1.0`: no feature selection; `order_*`: k = q, M = d (so only the "
            "order differs, §8.5); `EoCC5_random`: 5 such chains with random orders "
            "(ensemble sampling as in the main tables).\n"
        )
    L += fs_section(out, frames["fs"], main, abl)
    L += ts_section(out, frames.get("ts", main.iloc[:0]))
    # timings
    L.append("\n## Compute\n")
    L.append("| phase | wall time (s) |\n|---|---|")
    for k, v in timings.items():
        L.append(f"| {k} | {v:.0f} |")
    L.append("\n(Wall times of the invocations that computed cells, summed over resumed "
             "runs; phases 4+5 ran on a machine shared with other jobs.)")
    L.append("\nMean fit time per fold (s, one core; the 5-fold runs of the large datasets "
             "ran on a machine shared with other jobs, so their times are inflated — about "
             "2× the single-split times of the same learners):\n")
    ft = summ["fit_time"].unstack()
    show = [c for c in ["BR", "ECC", "EBCC", "EoCC", "oCC_M0.1", "oCC_M0.5", "MDDM_thr0.1",
                        "LLSF_b0.1"] if c in ft.columns]
    L.append("| dataset | " + " | ".join(show) + " |")
    L.append("|" + "---|" * (len(show) + 1))
    for ds in CV_DATASETS + LARGE_DATASETS:
        if ds in ft.index:
            L.append(f"| {ds} | " + " | ".join(
                f"{ft.loc[ds, c]:.1f}" if np.isfinite(ft.loc[ds, c]) else "—" for c in show)
                + " |")
    disc = ROOT / "docs" / "results" / "occ" / DISCUSSION_FILE
    if disc.exists():
        L.append("\n" + disc.read_text())
    (out / "README.md").write_text("\n".join(L) + "\n")
    cols = ["dataset", "learner", "split", *[m for m, _ in METRICS], "fit_time", "predict_time",
            "n_train", "n_test", "protocol"]
    pd.concat([main, frames["large_split"], frames["large_cv"], abl, frames["fs"],
               frames.get("ts", main.iloc[:0])],
              ignore_index=True)[cols].to_csv(out / "results_folds.csv", index=False,
                                              float_format="%.6g")


# ---------------------------------------------------------------- main
def _load_timings(path: Path, readme: Path | None = None) -> dict[str, float]:
    """Wall times from ``path`` (``key<TAB>seconds`` lines) or, when it does not exist, from
    the *Compute* table of a report written before (``readme``; seconds as printed)."""
    out: dict[str, float] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            k, v = line.rsplit("\t", 1)
            out[k] = float(v)
    elif readme is not None and readme.exists():
        lines = readme.read_text().splitlines()
        try:
            i = lines.index("| phase | wall time (s) |") + 2
        except ValueError:
            return out
        while i < len(lines) and lines[i].startswith("| "):
            k, v = lines[i][2:].rstrip(" |").rsplit(" | ", 1)
            out[k] = float(v)
            i += 1
    return out


def _run_parallel(jobs: list, n_jobs: int, timings: dict, phase: str, tag: str = "") -> None:
    """Run the specs in parallel (one worker each); add the wall time of every spec that
    computed cells to ``timings`` (summed over resumed invocations; ``tag`` is appended to
    the per-spec keys)."""
    if not jobs:
        return
    t = time.perf_counter()
    res = Parallel(n_jobs=n_jobs)(delayed(_run)(s, db) for s, db in jobs)
    if any(n for _, n in res):
        timings[phase] = timings.get(phase, 0.0) + time.perf_counter() - t
    for (s, _), (tt, n) in zip(jobs, res, strict=True):
        if n:
            key = f"  {s['name']}{tag} (one worker)"
            timings[key] = timings.get(key, 0.0) + tt


def frames_from_csv(path: Path) -> dict[str, pd.DataFrame]:
    """The report's frames from a ``results_folds.csv`` written by :func:`write_report`
    (rows split back by protocol, dataset and learner name; row order kept)."""
    df = pd.read_csv(path)
    # the CSV keeps 6 significant digits; Exact-Match is a count over n_test, so restore it
    # exactly (the tuning compares its means, and exact ties must stay ties)
    df["subset_accuracy"] = np.round(df["subset_accuracy"] * df["n_test"]) / df["n_test"]
    lr, ds = df["learner"].astype(str), df["dataset"].astype(str)
    holdout = df["protocol"].astype(str).str.contains('"holdout"')
    fs = lr.str.startswith("fs_")
    ts = lr.str.startswith("ts_")
    abl = lr.str.fullmatch(r"k[0-9.]+") | lr.isin(["M1.0", "EoCC5_random"]) \
        | lr.str.startswith("order_")
    large_cv = ds.isin(LARGE_DATASETS) & ~holdout
    main_rows = ~(holdout | fs | ts | abl | large_cv)
    return {"main": df[main_rows], "large_split": df[holdout], "large_cv": df[large_cv],
            "ablation": df[abl], "fs": df[fs], "ts": df[ts]}


def merge_ts(old: pd.DataFrame, new: pd.DataFrame) -> pd.DataFrame:
    """Phase-6 rows: ``new`` (from the stores) replaces the rows of ``old`` (from a CSV)
    with the same dataset, learner and split; the result in the order of a full run's
    stores (dataset as in ``TS_DATASETS``, then learner and split, as
    ``ResultStore.to_frame`` sorts them)."""
    if not len(new):
        return old
    key = ["dataset", "learner", "split"]
    new = new[[c for c in old.columns if c in new.columns]]
    seen = set(map(tuple, new[key].astype(str).to_numpy()))
    keep = [tuple(r) not in seen for r in old[key].astype(str).to_numpy()]
    both = pd.concat([old[keep], new], ignore_index=True)
    pos = {ds: i for i, ds in enumerate(TS_DATASETS)}
    both["_ds"] = both["dataset"].map(lambda d: pos.get(d, len(pos)))
    both = both.sort_values(["_ds", "learner", "split"], kind="stable")
    return both.drop(columns="_ds").reset_index(drop=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("experiment", nargs="?", default=str(ROOT / "experiments/occ_paper.toml"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default=str(ROOT / "docs/results/occ"))
    ap.add_argument("--runs", default=str(ROOT / "runs/occ"))
    ap.add_argument("--fresh", action="store_true", help="delete the stores and recompute")
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--from-csv", metavar="CSV",
                    help="rebuild the report from a results_folds.csv (no stores, nothing "
                         "computed; wall times from <runs>/timings.txt if present)")
    ap.add_argument("--phases", default="1,2,3,4,5",
                    help="comma-separated phases to run (default 1-5; 6 = Fig. 7 only on "
                         "request); the report always uses every store present")
    ap.add_argument("--only", help="comma-separated datasets (smoke tests)")
    ap.add_argument("--ts-variants",
                    help=f"comma-separated Fig. 7 methods of phase 6 (default all: "
                         f"{', '.join(TS_VARIANTS)})")
    args = ap.parse_args()
    out, runs = Path(args.out), Path(args.runs)
    out.mkdir(parents=True, exist_ok=True)
    variants = args.ts_variants.split(",") if args.ts_variants else None
    if variants and set(variants) - set(TS_VARIANTS):
        ap.error(f"unknown --ts-variants {sorted(set(variants) - set(TS_VARIANTS))}")
    tag = f", {', '.join(variants)}" if variants else ""
    if args.from_csv:
        frames = frames_from_csv(Path(args.from_csv))
        timings = _load_timings(runs / "timings.txt", out / "README.md")
        if 6 in {int(x) for x in args.phases.split(",")}:  # phase 6 only, merged
            base = tomllib.loads(Path(args.experiment).read_text())
            dsets = {d["name"]: d for d in base["datasets"]}
            jobs = [(ts_spec(base, dsets[ds], variants), runs / f"ts_{ds}.db")
                    for ds in TS_DATASETS if ds in dsets
                    and (args.only is None or ds in args.only.split(","))]
            runs.mkdir(parents=True, exist_ok=True)
            print(f"phase 6: training-size curves (Fig. 7){tag}", flush=True)
            _run_parallel(jobs, args.jobs, timings,
                          f"6: training-size curves{tag} (in parallel)", tag)
            (runs / "timings.txt").write_text(
                "\n".join(f"{k}\t{v:.1f}" for k, v in timings.items()))
            new = pd.concat([frame(db) for _, db in jobs if db.exists()], ignore_index=True)
            frames["ts"] = merge_ts(frames["ts"], new)
        write_report(out, frames, timings, Q)
        print(f"wrote {out / 'README.md'}", flush=True)
        return
    runs.mkdir(parents=True, exist_ok=True)
    if args.fresh:
        for f in runs.glob("*.db*"):
            f.unlink()
    phases = set() if args.report_only else {int(x) for x in args.phases.split(",")}
    base = tomllib.loads(Path(args.experiment).read_text())
    only = set(args.only.split(",")) if args.only else None
    if only:
        base["datasets"] = [d for d in base["datasets"] if d["name"] in only]
    tfile = runs / "timings.txt"
    timings = _load_timings(tfile)
    if 1 in phases:
        print("phase 1: the TOML grid", flush=True)
        tt, n = _run(base, runs / "main.db", jobs=args.jobs)
        if n:
            key = "1: TOML grid (7 datasets x 5 folds)"
            timings[key] = timings.get(key, 0.0) + tt
    main_df = frame(runs / "main.db")
    summ = summary(main_df)
    tuned_M = {ds: float(tuned_choice(summ, ds, "oCC")[len("oCC_M"):]) for ds in
               ABLATION_DATASETS if ds in summ.index.get_level_values(0)}
    dsets = {d["name"]: d for d in base["datasets"]}

    def keep(spec):
        return only is None or spec["datasets"][0]["name"] in only

    large_jobs = [(s, runs / f"{s['name']}.db") for s in large_specs(base) if keep(s)]
    abl_jobs = [(ablation_spec(base, dsets[ds], tuned_M[ds]), runs / f"ablation_{ds}.db")
                for ds in ABLATION_DATASETS if ds in tuned_M]
    fs_jobs = {ds: (fs_spec(base, dsets[ds]), runs / f"fs_{ds}.db")
               for ds in FS_DATASETS if ds in dsets}
    cv_jobs = {s["datasets"][0]["name"]: (s, runs / f"{s['name']}.db")
               for s in large_cv_specs(base) if keep(s)}
    jobs23 = [j for ph, js in ((2, large_jobs), (3, abl_jobs)) if ph in phases for j in js]
    if jobs23:
        print("phases 2-3: large datasets (one split) and ablations", flush=True)
        _run_parallel(jobs23, args.jobs, timings,
                      "2+3: large datasets and ablations (in parallel)")
    # phases 4-5 in priority order (the longest job, delicious, early so that it overlaps
    # with the rest)
    prio = [("fs", "scene"), ("cv", "delicious"), ("fs", "yeast"), ("fs", "medical"),
            ("cv", "bibtex"), ("fs", "enron"), ("cv", "corel5k")]
    jobs45 = [(fs_jobs if kind == "fs" else cv_jobs)[ds] for kind, ds in prio
              if (4 if kind == "fs" else 5) in phases
              and ds in (fs_jobs if kind == "fs" else cv_jobs)]
    if jobs45:
        print("phases 4-5: selector comparison (Fig. 4), large datasets with 5-fold CV",
              flush=True)
        _run_parallel(jobs45, args.jobs, timings,
                      "4+5: selector comparison and large datasets, 5-fold (in parallel)")
    ts_jobs = [(ts_spec(base, dsets[ds], variants), runs / f"ts_{ds}.db")
               for ds in TS_DATASETS if ds in dsets]
    if 6 in phases:
        print(f"phase 6: training-size curves (Fig. 7){tag}", flush=True)
        _run_parallel(ts_jobs, args.jobs, timings,
                      f"6: training-size curves{tag} (in parallel)", tag)
    if phases:
        tfile.write_text("\n".join(f"{k}\t{v:.1f}" for k, v in timings.items()))
    empty = main_df.iloc[:0]

    def frames_of(jobs):
        return pd.concat([empty] + [frame(db) for _, db in jobs if db.exists()],
                         ignore_index=True)

    frames = {
        "main": main_df,
        "large_split": frames_of(large_jobs),
        "large_cv": frames_of(list(cv_jobs.values())),
        "ablation": frames_of(abl_jobs),
        "fs": frames_of(list(fs_jobs.values())),
        "ts": frames_of(ts_jobs),
    }
    write_report(out, frames, timings, Q)
    print(f"wrote {out / 'README.md'}", flush=True)


if __name__ == "__main__":
    main()
