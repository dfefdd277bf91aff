"""Reproduce the experiments of the RLEFS paper (Li, Hu & Gao 2022) from a TOML description.

Usage::

    MLFS_DATASETS=/path/to/datasets python scripts/reproduce_rlefs.py experiments/rlefs_paper.toml

Writes ``results.json``, the PNG figures and the tables (``tables.md``) into the output
directory named in the TOML file. The report prose lives in ``README.md`` there and quotes
these tables. This stands in for the general benchmark runner of issue #3; the schema is
documented at the top of ``experiments/rlefs_paper.toml``. Keys of the TOML file that the
script does not know (e.g. ``[experiment] script``) are ignored.

Every (data set, method) result, the all-feature reference and the tuning memos (top-k set of
every (fold, setting), validation scores per (fold, feature set[, C])) are cached under
``--cache`` (default ``build/rlefs_cache``), keyed by a hash of the relevant configuration, so
an interrupted run resumes where it stopped. Run it single-threaded and in one process; on a
shared machine prefix it with ``nice``.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import itertools
import json
import os
import pickle
import sys
import time
import tomllib
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import KFold
from sklearn.multiclass import OneVsRestClassifier
from sklearn.neighbors import KNeighborsClassifier
from sklearn.svm import LinearSVC
from threadpoolctl import threadpool_limits

import skmlfs.selection as selection
from skmlfs.datasets import load
from skmlfs.metrics import macro_f1, micro_f1
from skmlfs.selection._base import is_discrete
from skmlfs.selection._sparse_learning import fit_settings

REPO = Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------------------ data
def load_part(arff_path: Path, xml_path: Path) -> tuple[np.ndarray | sp.csr_matrix, np.ndarray]:
    """Features and labels of one Mulan ARFF part (labels named in the XML file).

    Read by the project's loader (:func:`skmlfs.datasets.load`): sparse files stay sparse,
    nominal values become their 0-based index in the declared list, and the label columns
    follow the attribute order of the file.
    """
    ds = load(arff_path, labels=xml_path)
    return ds.X, np.asarray(ds.Y, dtype=np.uint8)


def minmax_fit(X):
    if sp.issparse(X):
        lo = np.minimum(np.asarray(X.min(axis=0).toarray()).ravel(), 0)
        hi = np.asarray(X.max(axis=0).toarray()).ravel()
    else:
        lo, hi = X.min(axis=0), X.max(axis=0)
    rng = np.where(hi - lo > 0, hi - lo, 1.0)
    return lo, rng


def minmax_apply(X, lo, rng):
    if sp.issparse(X):
        # lo = 0 for the sparse (non-negative) data used here, so scaling keeps sparsity.
        return sp.csr_matrix(X.multiply(1.0 / rng[None, :]))
    return np.clip((X - lo) / rng, 0.0, 1.0)


def make_discretizer(cfg: dict, X):
    """Discretizer of the MI baselines: ``None`` for integer-valued data."""
    if is_discrete(X):
        return None
    name, n_bins = cfg["name"], int(cfg["n_bins"])
    if name != "equal_frequency":
        raise ValueError(f"unknown discretizer {name!r}")
    try:
        from skmlfs.discretize import EqualFrequencyDiscretizer

        return EqualFrequencyDiscretizer(n_bins=n_bins)
    except ImportError:
        from sklearn.preprocessing import KBinsDiscretizer

        return _SupervisedAdapter(
            KBinsDiscretizer(
                n_bins=n_bins,
                encode="ordinal",
                strategy="quantile",
                quantile_method="averaged_inverted_cdf",
            )
        )


class _SupervisedAdapter(TransformerMixin, BaseEstimator):
    """Lets a ``fit(X)`` transformer be called as ``fit(X, Y)`` (what selectors do)."""

    def __init__(self, est=None):
        self.est = est

    def fit(self, X, Y=None):
        self.fitted_ = clone(self.est).fit(X)
        return self

    def transform(self, X):
        return self.fitted_.transform(X)


# ------------------------------------------------------------------------------ learners
def br_svm(C: float, max_iter: int = 1000):
    # random_state fixes liblinear's shuffling of the dual coordinates (otherwise it is
    # drawn from NumPy's global generator and results depend on the call order).
    return OneVsRestClassifier(LinearSVC(C=C, max_iter=max_iter, random_state=0))


def fit_predict(clf, Xtr, Ytr, Xte) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.simplefilter("ignore", UserWarning)  # labels absent from a training fold
        clf.fit(Xtr, Ytr)
        P = clf.predict(Xte)
    return np.asarray(P.toarray() if sp.issparse(P) else P, dtype=np.uint8)


def f1s(Y, P, zd) -> tuple[float, float]:
    return macro_f1(Y, P, zero_division=zd), micro_f1(Y, P, zero_division=zd)


def cv_folds(n: int, folds: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The inner folds on the training part, shared by every tuning step of a data set."""
    return list(KFold(folds, shuffle=True, random_state=seed).split(np.arange(n)))


def tune_C(X, Y, grid, folds, zd, max_iter) -> tuple[float, list[float]]:
    """C of BR-LinearSVC by k-fold CV on the training part, criterion (Macro-F1 + Micro-F1)/2.

    Returns the chosen C (the smallest among exact ties) and the CV score of every C.
    """
    means = []
    for C in grid:
        s = [
            np.mean(f1s(Y[va], fit_predict(br_svm(C, max_iter), X[tr], Y[tr], X[va]), zd))
            for tr, va in folds
        ]
        means.append(float(np.mean(s)))
    return grid[int(np.argmax(means))], means


# ------------------------------------------------------------------------------ selectors
def make_selector(mcfg: dict, params: dict, k: int, disc):
    cls = getattr(selection, mcfg["class"])
    kw = dict(mcfg.get("params", {}))
    kw.update(params)
    if "discretizer" in cls().get_params():
        kw["discretizer"] = disc
    return cls(n_features_to_select=k, **kw)


def rankings(mcfg, params, X, Y, ks, disc) -> dict[int, np.ndarray]:
    """Selected features (ascending indices) for every budget ``k`` in ``ks``.

    ``budgets = "prefix"``: one fit at the largest ``k`` and prefixes of its ranking;
    ``"refit"``: one fit per ``k`` (RALM-FS returns sets). The learners always see the
    selected columns in ascending index order, so a score depends on the set only.
    """
    if mcfg.get("budgets", "prefix") == "refit":
        out = {}
        for k in ks:
            sel = make_selector(mcfg, params, k, disc).fit(X, Y)
            out[k] = np.sort(sel.get_support(indices=True))
        return out
    sel = make_selector(mcfg, params, max(ks), disc).fit(X, Y)
    r = np.asarray(sel.ranking_)
    return {k: np.sort(r[:k]) for k in ks}


class _Feed:
    """An endless iterator whose next item is set from outside: lets one
    :func:`fit_settings` generator per fold serve settings chosen one at a time."""

    def __init__(self):
        self.item = None

    def __iter__(self):
        while True:
            yield self.item


class Tuner:
    """Inner 5-fold CV of a method's hyper-parameters, scored by BR + k-NN and BR + SVM.

    * The top-``kmax`` set of every (fold, setting) is memoised; the fits of one fold share
      the parameter-free preparation (:func:`skmlfs.selection._sparse_learning.fit_settings`:
      label graph, scaled X, initial iterates — bit-for-bit the fresh fits).
    * A learner's validation score is memoised per (fold, feature set[, C]): settings that
      select the same features cost one classifier fit.
    * The memo is written to ``cache_path`` every minute, so an interrupted run resumes.
    """

    def __init__(self, mcfg, X, Y, Xs, kmax, folds, proto, disc, cache_path, log):
        self.mcfg, self.X, self.Y, self.Xs = mcfg, X, Y, Xs
        self.kmax, self.folds, self.proto, self.disc, self.log = kmax, folds, proto, disc, log
        self.zd = proto["f1_zero_division"]
        self.svm_iter = proto.get("svm_max_iter", 1000)
        self.cache_path = cache_path
        self.sets: dict = {}  # (fold, setting key) -> tuple of feature indices
        self.knn: dict = {}  # (fold, set) -> score
        self.svm: dict = {}  # (fold, set, C) -> score
        self.elapsed_before = 0.0  # tuning seconds spent in earlier, interrupted runs
        self.t_start = time.time()
        if cache_path.exists():
            with open(cache_path, "rb") as fh:
                self.sets, self.knn, self.svm, self.elapsed_before = pickle.load(fh)
            log(f"      resumed tuning memo: {len(self.sets)} fits, {len(self.svm)} SVM scores")
        self.n_fits = 0
        self.t_save = time.time()
        self._gens: dict = {}
        self.names = list(mcfg["tune"])

    def elapsed(self) -> float:
        """Tuning time of this method, including earlier interrupted runs."""
        return self.elapsed_before + time.time() - self.t_start

    def save(self, force=False):
        if force or time.time() - self.t_save > 60:
            tmp = self.cache_path.with_suffix(".tmp")
            with open(tmp, "wb") as fh:
                pickle.dump((self.sets, self.knn, self.svm, self.elapsed()), fh)
            tmp.replace(self.cache_path)
            self.t_save = time.time()

    def _fit(self, f: int, p: dict) -> tuple:
        if f not in self._gens:
            tr = self.folds[f][0]
            base = make_selector(self.mcfg, {}, self.kmax, self.disc)
            feed = _Feed()
            self._gens[f] = (feed, fit_settings(base, self.X[tr], self.Y[tr], feed))
        feed, gen = self._gens[f]
        feed.item = {n: p[n] for n in self.names}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            sel = next(gen)
        self.n_fits += 1
        return tuple(int(i) for i in np.sort(np.asarray(sel.ranking_)[: self.kmax]))

    def feats(self, f: int, p: dict) -> tuple:
        key = (f, tuple(p[n] for n in self.names))
        if key not in self.sets:
            self.sets[key] = self._fit(f, p)
            self.save()
        return self.sets[key]

    def _split(self, f, s):
        tr, va = self.folds[f]
        cols = list(s)
        return self.Xs[tr][:, cols], self.Y[tr], self.Xs[va][:, cols], self.Y[va]

    def score_knn(self, f: int, s: tuple) -> float:
        if (f, s) not in self.knn:
            Xa, Ya, Xb, Yb = self._split(f, s)
            P = fit_predict(KNeighborsClassifier(self.proto["knn_k"]), Xa, Ya, Xb)
            self.knn[(f, s)] = float(np.mean(f1s(Yb, P, self.zd)))
        return self.knn[(f, s)]

    def score_svm(self, f: int, s: tuple, C: float) -> float:
        if (f, s, C) not in self.svm:
            Xa, Ya, Xb, Yb = self._split(f, s)
            P = fit_predict(br_svm(C, self.svm_iter), Xa, Ya, Xb)
            self.svm[(f, s, C)] = float(np.mean(f1s(Yb, P, self.zd)))
        return self.svm[(f, s, C)]

    def cv(self, learner: str, p: dict) -> float:
        """Mean validation score over the folds; ``p`` holds ``C`` for the SVM."""
        out = []
        for f in range(len(self.folds)):
            s = self.feats(f, p)
            out.append(self.score_knn(f, s) if learner == "knn" else self.score_svm(f, s, p["C"]))
        return float(np.mean(out))

    def grid(self, learner: str) -> tuple[dict, float, int]:
        """Exhaustive search over grid^len(tune) (× the C grid for the SVM)."""
        axes = [(n, self.proto["grid"]) for n in self.names]
        if learner == "svm":
            axes.append(("C", self.proto["svm_C"]))
        best, best_s, n = None, -np.inf, 0
        for vals in itertools.product(*(v for _, v in axes)):
            p = dict(zip((a for a, _ in axes), vals, strict=True))
            s = self.cv(learner, p)
            n += 1
            if s > best_s + 1e-12:  # ties: the first setting in grid order
                best, best_s = p, s
        return best, best_s, n

    def grid_alternating_C(self, start_C: float, max_rounds: int = 20):
        """BR + SVM: full parameter grid at a fixed C, alternated with C to a fixed point.

        Round r: the best setting over the whole parameter grid at the current C, then the best
        C over the C grid at that setting (a strict improvement, ties keep C). Stops when C
        does not change: the setting is grid-optimal for its C and C is optimal for the setting.
        Costs one SVM fit per distinct (fold, set) and round instead of one per C value.
        """
        names, grid = self.names, self.proto["grid"]
        C, seen, rounds = start_C, set(), 0
        while rounds < max_rounds:
            rounds += 1
            best, best_s = None, -np.inf
            for vals in itertools.product(*([grid] * len(names))):
                p = dict(zip(names, vals, strict=True))
                seen.add((vals, C))
                s = self.cv("svm", {**p, "C": C})
                if s > best_s + 1e-12:  # ties: the first setting in grid order
                    best, best_s = p, s
            new_C = C
            for c in self.proto["svm_C"]:
                seen.add((tuple(best.values()), c))
                s = self.cv("svm", {**best, "C": c})
                if s > best_s + 1e-12:
                    new_C, best_s = c, s
            if new_C == C:
                break
            C = new_C
        return {**best, "C": C}, best_s, len(seen), rounds

    def coordinate(self, learner: str, start: dict, max_sweeps: int = 20):
        """Coordinate search iterated to a fixed point.

        Each sweep varies one parameter at a time over its grid (the others fixed) and moves
        to the best value (a strict improvement; ties keep the current value). Sweeps repeat
        until one changes nothing, i.e. the point is optimal along every coordinate.
        """
        axes = [(n, self.proto["grid"]) for n in self.names]
        if learner == "svm":
            axes.append(("C", self.proto["svm_C"]))
        p = dict(start)
        cur = self.cv(learner, p)
        seen = {tuple(sorted(p.items()))}
        sweeps = 0
        while sweeps < max_sweeps:
            sweeps += 1
            changed = False
            for name, values in axes:
                for v in values:
                    q = {**p, name: v}
                    seen.add(tuple(sorted(q.items())))
                    s = self.cv(learner, q)
                    if s > cur + 1e-12:
                        p, cur, changed = q, s, True
            if not changed:
                break
        return p, cur, len(seen), sweeps


def tune_method(mcfg, search, joint_C, X, Y, Xs, kmax, folds, proto, disc, cache_path, log) -> dict:
    """Hyper-parameters (and C) by inner CV, once per learner; see :class:`Tuner`.

    ``search = "grid"``: the 3-NN learner scores the full grid; the SVM scores the full grid
    jointly with the C grid (``joint_C``) or alternated with C (:meth:`Tuner.grid_alternating_C`).
    ``"coordinate"``: :meth:`Tuner.coordinate` for both learners.
    """
    tuner = Tuner(mcfg, X, Y, Xs, kmax, folds, proto, disc, cache_path, log)
    out = {}
    for learner in proto["tuning_learners"]:
        t0 = time.time()
        if search == "grid" and learner == "svm" and not joint_C:
            p, s, n_set, sweeps = tuner.grid_alternating_C(proto.get("svm_C_start", 1.0))
            search_done = "grid, C alternated"
        elif search == "grid":
            p, s, n_set = tuner.grid(learner)
            sweeps = None
            search_done = "grid" + (" × C" if learner == "svm" else "")
        else:
            start = dict(mcfg["start"])
            if learner == "svm":
                start["C"] = proto.get("svm_C_start", 1.0)
            p, s, n_set, sweeps = tuner.coordinate(learner, start)
            search_done = "coordinate"
        C = p.pop("C", None)
        out[learner] = {
            "params": p,
            "C": C,
            "cv": s,
            "search": search_done,
            "settings_scored": n_set,
            "sweeps": sweeps,
            "time_s": time.time() - t0,
        }
        log(
            f"      {learner}: {search_done} ({n_set} settings"
            + (f", {sweeps} sweeps" if sweeps else "")
            + f") -> {p}"
            + (f" C={C:g}" if C is not None else "")
            + f" cv {s:.4f}  [{time.time() - t0:.0f}s]"
        )
    tuner.save(force=True)
    out["fits"] = len(tuner.sets)
    out["time_s"] = tuner.elapsed()
    out["unique_sets"] = len({v for v in tuner.sets.values()})
    return out


# ------------------------------------------------------------------------------ main
def budgets(d: int, percents: list[int]) -> list[int]:
    return sorted({max(1, int(np.ceil(p / 100 * d))) for p in percents})


def _key(*parts) -> str:
    return hashlib.sha1(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


def _cached(path: Path, key: str, compute):
    """``compute()`` stored as JSON in ``path`` under ``key``; reused while the key matches."""
    if path.exists():
        doc = json.loads(path.read_text())
        if doc.get("key") == key:
            return doc["value"], True
    value = compute()
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"key": key, "value": value}, default=float))
    tmp.replace(path)
    return value, False


def _listed(spec, method: str, dataset: str) -> bool:
    """``spec`` is a list of data sets, or a table method -> list of data sets."""
    if isinstance(spec, dict):
        return dataset in spec.get(method, [])
    return dataset in (spec or [])


def prepare_dataset(ds: dict, root: Path, proto: dict) -> dict:
    Xtr, Ytr = load_part(root / ds["train"], root / ds["xml"])
    Xte, Yte = load_part(root / ds["test"], root / ds["xml"])
    lo, rng = minmax_fit(Xtr)
    Xtr_s, Xte_s = minmax_apply(Xtr, lo, rng), minmax_apply(Xte, lo, rng)
    if sp.issparse(Xtr_s):
        Xtr_s, Xte_s = Xtr_s.tocsr(), Xte_s.tocsr()
    if sp.issparse(Xtr):
        Xtr, Xte = Xtr.tocsr(), Xte.tocsr()
    d = Xtr.shape[1]
    ks = budgets(d, proto["budgets_percent"])
    return {
        "Xtr": Xtr,
        "Ytr": Ytr,
        "Xte": Xte,
        "Yte": Yte,
        "Xtr_s": Xtr_s,
        "Xte_s": Xte_s,
        "ks": ks,
        "disc": make_discretizer(proto["discretizer"], Xtr),
    }


# Protocol keys the tuning memo depends on (changing e.g. svm_C_per_budget keeps the memo).
TUNING_KEYS = (
    "budgets_percent",
    "budget_rounding",
    "scale",
    "inner_folds",
    "grid",
    "svm_C",
    "svm_max_iter",
    "knn_k",
    "f1_zero_division",
    "discretizer",
)


def run_method(name, mkey, mcfg, D, proto, seed, cache_dir, log) -> dict:
    zd = proto["f1_zero_division"]
    svm_iter = proto.get("svm_max_iter", 1000)
    Xtr, Ytr, Yte, Xtr_s, Xte_s = D["Xtr"], D["Ytr"], D["Yte"], D["Xtr_s"], D["Xte_s"]
    ks, disc = D["ks"], D["disc"]
    kmax = max(ks)
    folds = cv_folds(Xtr.shape[0], proto["inner_folds"], seed)
    is_info = "discretizer" in getattr(selection, mcfg["class"])().get_params()
    Xfit = Xtr if is_info else Xtr_s
    t0 = time.time()
    tuning = None
    if mcfg.get("tune"):
        search = proto.get("search", "coordinate")
        if _listed(proto.get("full_grid"), mkey, name):
            search = "grid"
        if search not in ("grid", "coordinate"):
            raise ValueError(f"protocol.search must be 'grid' or 'coordinate'; got {search!r}")
        tuning = tune_method(
            mcfg,
            search,
            _listed(proto.get("joint_C_grid"), mkey, name),
            Xfit,
            Ytr,
            Xtr_s,
            kmax,
            folds,
            proto,
            disc,
            cache_dir
            / f"{mkey}.{_key(name, mkey, mcfg, seed, [proto.get(k) for k in TUNING_KEYS])[:12]}"
            ".tune.pkl",
            log,
        )
        params = {lr: tuning[lr]["params"] for lr in ("svm", "knn")}
    else:
        params = {"svm": {}, "knn": {}}
    t_tune = tuning["time_s"] if tuning else time.time() - t0
    t0 = time.time()
    feats = {"svm": rankings(mcfg, params["svm"], Xfit, Ytr, ks, disc)}
    feats["knn"] = (
        feats["svm"]
        if params["knn"] == params["svm"]
        else rankings(mcfg, params["knn"], Xfit, Ytr, ks, disc)
    )
    t_fit = time.time() - t0
    # SVM C by inner CV on the selected features: at every budget, or once at the largest.
    t0 = time.time()
    per_budget = _listed(proto.get("svm_C_per_budget"), mkey, name)
    C_of, C_cv = {}, {}
    for k in ks if per_budget else [kmax]:
        Xk = Xtr_s[:, list(feats["svm"][k])]
        C_of[k], C_cv[k] = tune_C(Xk, Ytr, proto["svm_C"], folds, zd, svm_iter)
    if not per_budget:
        C_of = dict.fromkeys(ks, C_of[kmax])
    t_C = time.time() - t0
    t0 = time.time()
    curves = {"svm": {"macro": [], "micro": []}, "knn": {"macro": [], "micro": []}}
    for k in ks:
        for cname, clf in (
            ("svm", br_svm(C_of[k], svm_iter)),
            ("knn", KNeighborsClassifier(proto["knn_k"])),
        ):
            f = list(feats[cname][k])
            P = fit_predict(clf, Xtr_s[:, f], Ytr, Xte_s[:, f])
            ma, mi = f1s(Yte, P, zd)
            curves[cname]["macro"].append(ma)
            curves[cname]["micro"].append(mi)
    t_eval = time.time() - t0
    entry = {
        "label": mcfg.get("label", mkey),
        "params": params,
        "tuning": tuning,
        "C": [C_of[k] for k in ks],
        "C_per_budget": per_budget,
        "C_cv": {str(k): v for k, v in C_cv.items()},
        "curves": curves,
        "features": {
            lr: {str(k): np.asarray(v).tolist() for k, v in feats[lr].items()} for lr in feats
        },
        "time_tune_s": t_tune,
        "time_fit_s": t_fit,
        "time_C_s": t_C,
        "time_eval_s": t_eval,
    }
    if mcfg.get("seeds"):
        entry["seed_runs"] = seed_spread(mcfg, params, Xfit, D, kmax, C_of[kmax], proto)
    return entry


def run(cfg: dict, root: Path, only: list[str] | None, cache: Path) -> dict:
    proto = cfg["protocol"]
    seed = cfg["experiment"]["seed"]
    zd = proto["f1_zero_division"]
    methods = cfg["methods"]
    results: dict = {"datasets": {}, "config": cfg}
    t_all = time.time()

    def log(msg):
        print(f"[{time.strftime('%H:%M:%S')} {time.time() - t_all:7.1f}s] {msg}", flush=True)

    for ds in cfg["dataset"]:
        name = ds["name"]
        cache_dir = cache / name
        cache_dir.mkdir(parents=True, exist_ok=True)
        D = prepare_dataset(ds, root, proto)
        ks = D["ks"]
        log(
            f"{name}: train {D['Xtr'].shape}, test {D['Xte'].shape}, q={D['Ytr'].shape[1]}, "
            f"budgets {ks}"
        )
        dres: dict = {
            "n_train": D["Xtr"].shape[0],
            "n_test": D["Xte"].shape[0],
            "d": D["Xtr"].shape[1],
            "q": D["Ytr"].shape[1],
            "budgets": ks,
            "methods": {},
        }
        for mkey, mcfg in methods.items():
            if only and mkey not in only:
                continue
            # The key holds what this (data set, method) depends on: the protocol with the
            # per-data-set switches resolved, so listing another data set there keeps it.
            resolved = {
                k: v
                for k, v in proto.items()
                if k not in ("full_grid", "svm_C_per_budget", "joint_C_grid")
            }
            resolved["full_grid"] = _listed(proto.get("full_grid"), mkey, name)
            if resolved["full_grid"]:
                resolved["joint_C_grid"] = _listed(proto.get("joint_C_grid"), mkey, name)
            resolved["svm_C_per_budget"] = _listed(proto.get("svm_C_per_budget"), mkey, name)
            key = _key(resolved, ds, mkey, mcfg, seed)
            entry, hit = _cached(
                cache_dir / f"{mkey}.json",
                key,
                functools.partial(
                    run_method,
                    name,
                    mkey,
                    mcfg,
                    D,
                    proto,
                    seed,
                    cache_dir,
                    log,
                ),
            )
            dres["methods"][mkey] = entry
            sv, kn = entry["curves"]["svm"], entry["curves"]["knn"]
            log(
                f"  {mkey:7s} {'(cached) ' if hit else ''}tune {entry['time_tune_s']:6.1f}s "
                f"fit {entry['time_fit_s']:5.1f}s C-CV {entry['time_C_s']:6.1f}s "
                f"params={entry['params']} SVM {np.mean(sv['macro']):.3f}/"
                f"{np.mean(sv['micro']):.3f} 3NN {np.mean(kn['macro']):.3f}/"
                f"{np.mean(kn['micro']):.3f}"
            )

        def all_features(D=D):
            folds = cv_folds(D["Xtr"].shape[0], proto["inner_folds"], seed)
            it = proto.get("svm_max_iter", 1000)
            C, _ = tune_C(D["Xtr_s"], D["Ytr"], proto["svm_C"], folds, zd, it)
            res = {"C": C}
            for cname, clf in (("svm", br_svm(C, it)), ("knn", KNeighborsClassifier(3))):
                res[cname] = f1s(D["Yte"], fit_predict(clf, D["Xtr_s"], D["Ytr"], D["Xte_s"]), zd)
            return res

        # all-feature reference (the paper's Flags tables use all 19 features)
        dres["all_features"], _ = _cached(
            cache_dir / "_all_features.json",
            _key([proto.get(k) for k in TUNING_KEYS], ds, seed),
            all_features,
        )
        results["datasets"][name] = dres
    results["time_total_s"] = time.time() - t_all
    return results


def seed_spread(mcfg, params, X, D, kmax, C, proto):
    """Test F1 at the largest budget for several initialisation seeds (tuned parameters of
    each learner)."""
    out = []
    zd = proto["f1_zero_division"]
    Y, Xtr_s, Xte_s, Yte = D["Ytr"], D["Xtr_s"], D["Xte_s"], D["Yte"]
    it = proto.get("svm_max_iter", 1000)
    for s in mcfg["seeds"]:
        r = {"seed": s}
        for cname, clf in (("svm", br_svm(C, it)), ("knn", KNeighborsClassifier(proto["knn_k"]))):
            f = list(rankings(mcfg, {**params[cname], "random_state": s}, X, Y, [kmax], None)[kmax])
            r[f"{cname}_macro"], r[f"{cname}_micro"] = f1s(
                Yte, fit_predict(clf, Xtr_s[:, f], Y, Xte_s[:, f]), zd
            )
        out.append(r)
    return out


def sensitivity(cfg, root, results) -> dict:
    sc = cfg["sensitivity"]
    proto = cfg["protocol"]
    ds = next(d for d in cfg["dataset"] if d["name"] == sc["dataset"])
    mcfg = cfg["methods"][sc["method"]]
    D = prepare_dataset(ds, root, proto)
    kmax = max(D["ks"])
    C = results["datasets"][sc["dataset"]]["methods"][sc["method"]]["C"][-1]
    settings = []
    for name in mcfg["tune"]:
        for v in proto["grid"]:
            p = dict.fromkeys(mcfg["tune"], sc["fixed"])
            p[name] = v
            settings.append((name, v, p))
    base = make_selector(mcfg, {}, kmax, None)
    fits = fit_settings(base, D["Xtr_s"], D["Ytr"], [p for _, _, p in settings])
    out: dict = {}
    for (name, v, _), sel in zip(settings, fits, strict=True):
        f = list(np.sort(sel.ranking_[:kmax]))
        ma, mi = f1s(
            D["Yte"],
            fit_predict(
                br_svm(C, proto.get("svm_max_iter", 1000)),
                D["Xtr_s"][:, f],
                D["Ytr"],
                D["Xte_s"][:, f],
            ),
            proto["f1_zero_division"],
        )
        out.setdefault(name, []).append({"value": v, "macro": ma, "micro": mi})
    return out


def convergence(cfg, root) -> dict:
    cc = cfg["convergence"]
    mcfg = cfg["methods"]["RLEFS"]
    out = {}
    for name in cc["datasets"]:
        ds = next(d for d in cfg["dataset"] if d["name"] == name)
        Xtr, Ytr = load_part(root / ds["train"], root / ds["xml"])
        sel = selection.RLEFS(max_iter=cc["max_iter"], tol=0.0, **mcfg.get("params", {})).fit(
            Xtr, Ytr
        )
        stop = selection.RLEFS(**mcfg.get("params", {})).fit(Xtr, Ytr)
        out[name] = {
            "objective": sel.objective_.tolist(),
            "n_iter_default_tol": stop.n_iter_,
            "label_affinity_max": float(sel.label_affinity_.max()),
            "label_affinity_offdiag_mean": float(
                sel.label_affinity_[~np.eye(Ytr.shape[1], dtype=bool)].mean()
            ),
        }
    return out


# ------------------------------------------------------------------------------ report
PAPER = {  # Tables 2-5 of the paper (mean over budgets 1-20 %), flags / scene / enron rows
    "svm_macro": {
        "flags": [0.513, 0.517, 0.57, 0.503, 0.511, 0.487, 0.578],
        "scene": [0.163, 0.199, 0.295, 0.406, 0.394, 0.463, 0.43],
        "enron": [0.102, 0.067, 0.074, 0.108, 0.099, 0.074, 0.141],
    },
    "svm_micro": {
        "flags": [0.665, 0.663, 0.722, 0.649, 0.666, 0.631, 0.719],
        "scene": [0.168, 0.205, 0.325, 0.429, 0.415, 0.476, 0.443],
        "enron": [0.47, 0.353, 0.372, 0.474, 0.446, 0.389, 0.525],
    },
    "knn_macro": {
        "flags": [0.448, 0.449, 0.527, 0.443, 0.453, 0.439, 0.538],
        "scene": [0.348, 0.368, 0.498, 0.555, 0.547, 0.581, 0.541],
        "enron": [0.116, 0.074, 0.087, 0.115, 0.109, 0.081, 0.126],
    },
    "knn_micro": {
        "flags": [0.615, 0.615, 0.662, 0.611, 0.616, 0.606, 0.672],
        "scene": [0.348, 0.367, 0.493, 0.556, 0.547, 0.577, 0.541],
        "enron": [0.454, 0.345, 0.41, 0.443, 0.419, 0.365, 0.474],
    },
}
PAPER_ORDER = ["PPTMI", "PPTCHI", "MIFS", "MDMR", "LRFS", "RALMFS", "RLEFS"]
TABLES = [
    ("svm_macro", "Table 2 — BR + linear SVM, Macro-F1"),
    ("svm_micro", "Table 3 — BR + linear SVM, Micro-F1"),
    ("knn_macro", "Table 4 — BR + 3-NN, Macro-F1"),
    ("knn_micro", "Table 5 — BR + 3-NN, Micro-F1"),
]


def tables_md(results) -> str:
    lines = []
    dsets = list(results["datasets"])
    for key, title in TABLES:
        clf, met = key.split("_")
        lines.append(f"### {title}\n")
        lines.append(
            "Ours: mean ± std over the budgets 1 %…20 % (test split); in brackets the value "
            "at 20 %. Paper: its published mean ± std row.\n"
        )
        hdr = "| data set | " + " | ".join(
            results["datasets"][dsets[0]]["methods"][m]["label"]
            for m in PAPER_ORDER
            if m in results["datasets"][dsets[0]]["methods"]
        )
        lines.append(hdr + " |")
        lines.append("|---" * (hdr.count("|")) + "|")
        avg_ours: dict = {}
        for ds in dsets:
            ms = results["datasets"][ds]["methods"]
            cells, pcells = [], []
            vals = {m: np.asarray(ms[m]["curves"][clf][met]) for m in PAPER_ORDER if m in ms}
            best = max(v.mean() for v in vals.values())
            for i, m in enumerate(PAPER_ORDER):
                if m not in ms:
                    continue
                v = vals[m]
                s = f"{v.mean():.3f} ± {v.std():.3f} [{v[-1]:.3f}]"
                cells.append(f"**{s}**" if np.isclose(v.mean(), best) else s)
                avg_ours.setdefault(m, []).append(v.mean())
                pcells.append(f"{PAPER[key][ds][i]:.3f}" if ds in PAPER[key] else "—")
            lines.append(f"| {ds} (ours) | " + " | ".join(cells) + " |")
            lines.append(f"| {ds} (paper) | " + " | ".join(pcells) + " |")
        ours_avg = [f"{np.mean(avg_ours[m]):.3f}" for m in PAPER_ORDER if m in avg_ours]
        pap_avg = [
            f"{np.mean([PAPER[key][ds][i] for ds in dsets]):.3f}"
            for i, m in enumerate(PAPER_ORDER)
            if m in avg_ours
        ]
        lines.append("| average (ours) | " + " | ".join(ours_avg) + " |")
        lines.append("| average (paper, same 3 sets) | " + " | ".join(pap_avg) + " |\n")
    lines += tuning_md(results)
    return "\n".join(lines)


def _fmt_params(p: dict) -> str:
    return "(" + ", ".join(f"{v:g}" for v in p.values()) + ")" if p else "—"


def tuning_md(results) -> list[str]:
    """Tables of the tuning actually performed, the chosen values, the C and the timings."""
    lines = ["### Tuning performed and values chosen\n"]
    lines.append(
        "| data set | method | learner | search | settings scored | sweeps | fits (5 folds) | "
        "distinct top-k sets | chosen (α, β, γ[, λ]) | C in tuning | inner-CV score | time s |"
    )
    lines.append("|---" * 12 + "|")
    for ds, r in results["datasets"].items():
        for e in r["methods"].values():
            t = e.get("tuning")
            if not t:
                continue
            for lr in ("svm", "knn"):
                x = t[lr]
                lines.append(
                    f"| {ds} | {e['label']} | {'BR-SVM' if lr == 'svm' else 'BR-3NN'} | "
                    f"{x['search']} | {x['settings_scored']} | {x['sweeps'] or '—'} | "
                    f"{t['fits'] if lr == 'svm' else ''} | "
                    f"{t['unique_sets'] if lr == 'svm' else ''} | {_fmt_params(x['params'])} | "
                    f"{'' if x['C'] is None else format(x['C'], 'g')} | {x['cv']:.4f} | "
                    f"{x['time_s']:.0f} |"
                )
    lines.append("")
    lines.append("### SVM C used at each budget (inner 5-fold CV on the selected features)\n")
    lines.append("| data set | method | tuned | C at budgets 1 %…20 % |")
    lines.append("|---|---|---|---|")
    for ds, r in results["datasets"].items():
        for e in r["methods"].values():
            how = "per budget" if e["C_per_budget"] else "once, at 20 %"
            lines.append(f"| {ds} | {e['label']} | {how} | {' '.join(f'{c:g}' for c in e['C'])} |")
    lines.append("")
    lines.append("### All features (reference)\n")
    lines.append("| data set | C | SVM Macro-F1 | SVM Micro-F1 | 3-NN Macro-F1 | 3-NN Micro-F1 |")
    lines.append("|---|---|---|---|---|---|")
    for ds, r in results["datasets"].items():
        a = r["all_features"]
        lines.append(
            f"| {ds} | {a['C']:g} | {a['svm'][0]:.3f} | {a['svm'][1]:.3f} | "
            f"{a['knn'][0]:.3f} | {a['knn'][1]:.3f} |"
        )
    lines.append("")
    lines.append("### Time per (data set, method), seconds\n")
    lines.append("| data set | method | tuning | final fits | C by CV | test evaluation |")
    lines.append("|---|---|---|---|---|---|")
    for ds, r in results["datasets"].items():
        for e in r["methods"].values():
            lines.append(
                f"| {ds} | {e['label']} | {e['time_tune_s']:.0f} | {e['time_fit_s']:.1f} | "
                f"{e['time_C_s']:.0f} | {e['time_eval_s']:.1f} |"
            )
    lines.append("")
    return lines


def figures(results, out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    dsets = list(results["datasets"])
    for key, title in TABLES:
        clf, met = key.split("_")
        fig, axes = plt.subplots(1, len(dsets), figsize=(5 * len(dsets), 4))
        for ax, ds in zip(np.atleast_1d(axes), dsets, strict=True):
            r = results["datasets"][ds]
            x = [100 * k / r["d"] for k in r["budgets"]]
            for m in PAPER_ORDER:
                if m in r["methods"]:
                    e = r["methods"][m]
                    ax.plot(
                        x,
                        e["curves"][clf][met],
                        marker="o",
                        ms=3,
                        label=e["label"],
                        lw=2.2 if m == "RLEFS" else 1.2,
                    )
            ax.set_title(ds)
            ax.set_xlabel("selected features (% of d)")
            ax.set_ylabel(f"{'Macro' if met == 'macro' else 'Micro'}-F1")
            ax.grid(alpha=0.3)
        np.atleast_1d(axes)[0].legend(fontsize=8)
        fig.suptitle(title.split("—")[1].strip() + " (cf. paper Figs. 2–5)")
        fig.tight_layout()
        fig.savefig(out / f"curves_{key}.png", dpi=110)
        plt.close(fig)

    if "sensitivity" in results:
        sens = results["sensitivity"]
        fig, axes = plt.subplots(1, len(sens), figsize=(4 * len(sens), 3.6), sharey=True)
        for ax, (name, rows) in zip(np.atleast_1d(axes), sens.items(), strict=True):
            xs = np.arange(len(rows))
            ax.bar(xs - 0.2, [r["macro"] for r in rows], 0.4, label="Macro-F1")
            ax.bar(xs + 0.2, [r["micro"] for r in rows], 0.4, label="Micro-F1")
            ax.set_xticks(xs, [str(r["value"]) for r in rows])
            ax.set_xlabel(
                name.rstrip("_")
                .replace("lambda", "λ")
                .replace("alpha", "α")
                .replace("beta", "β")
                .replace("gamma", "γ")
            )
            ax.grid(alpha=0.3, axis="y")
        np.atleast_1d(axes)[0].set_ylabel("F1 (test, BR + SVM, 20 % features)")
        np.atleast_1d(axes)[0].legend(fontsize=8)
        fig.suptitle(
            f"RLEFS parameter sensitivity on {results['sensitivity_dataset']} "
            "(others fixed at 0.5; cf. paper Fig. 6)"
        )
        fig.tight_layout()
        fig.savefig(out / "sensitivity.png", dpi=110)
        plt.close(fig)

    if "convergence" in results:
        conv = results["convergence"]
        fig, axes = plt.subplots(1, len(conv), figsize=(4.5 * len(conv), 3.6))
        for ax, (name, c) in zip(np.atleast_1d(axes), conv.items(), strict=True):
            ax.semilogy(np.arange(len(c["objective"])), c["objective"], lw=1.5)
            ax.axvline(
                c["n_iter_default_tol"],
                color="gray",
                ls="--",
                lw=1,
                label=f"stop at tol=1e-5 ({c['n_iter_default_tol']} it.)",
            )
            ax.set_title(name)
            ax.set_xlabel("iteration")
            ax.set_ylabel("objective (Eq. 11 + λ penalty)")
            ax.legend(fontsize=8)
            ax.grid(alpha=0.3)
        fig.suptitle("RLEFS convergence (α=β=γ=λ=0.5; cf. paper Fig. 7)")
        fig.tight_layout()
        fig.savefig(out / "convergence.png", dpi=110)
        plt.close(fig)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("config", type=Path)
    ap.add_argument("--methods", nargs="*", help="run only these method keys")
    ap.add_argument("--datasets", nargs="*", help="run only these data sets")
    ap.add_argument("--out", type=Path, help="override the output directory")
    ap.add_argument(
        "--cache",
        type=Path,
        default=REPO / "build" / "rlefs_cache",
        help="per-(data set, method) results and tuning memos; a rerun resumes from them",
    )
    ap.add_argument(
        "--no-extras", action="store_true", help="skip the sensitivity and convergence studies"
    )
    args = ap.parse_args(argv)
    cfg = tomllib.loads(args.config.read_text())
    root = os.environ.get("MLFS_DATASETS")
    if not root:
        print("MLFS_DATASETS is not set", file=sys.stderr)
        return 2
    root = Path(root)
    if args.datasets:
        cfg["dataset"] = [d for d in cfg["dataset"] if d["name"] in args.datasets]
    out = args.out or REPO / cfg["experiment"]["output"]
    out.mkdir(parents=True, exist_ok=True)
    with threadpool_limits(limits=1):
        results = run(cfg, root, args.methods, args.cache)
        if not args.no_extras and (not args.methods or "RLEFS" in args.methods):
            names = [d["name"] for d in cfg["dataset"]]
            if cfg["sensitivity"]["dataset"] in names:
                results["sensitivity"] = sensitivity(cfg, root, results)
                results["sensitivity_dataset"] = cfg["sensitivity"]["dataset"]
            cfg["convergence"]["datasets"] = [
                n for n in cfg["convergence"]["datasets"] if n in names
            ]
            results["convergence"] = convergence(cfg, root)
    (out / "results.json").write_text(json.dumps(results, indent=1, default=float))
    (out / "tables.md").write_text(tables_md(results))
    figures(results, out)
    print(f"done in {results['time_total_s']:.0f}s -> {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
