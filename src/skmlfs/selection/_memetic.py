"""Memetic multi-label feature selection with pruned refinement, and a plain GA baseline.

:class:`MemeticSelector` implements Algorithms 1–5 of Seo, Park, Lee, Moon, Kim & Lee
(2024), "Memetic multilabel feature selection using pruned refinement process", J. Big
Data 11:108, with every detail the paper leaves open resolved as in
``docs/methods/memetic.md`` (which reconstructs the lost pseudo-code from the paper's
prose and the authors' reference code ``proposed_prob.m``). :class:`GeneticSelector` is the
plain GA (docs/methods/memetic.md#plain-ga): the same representation, budget, learner and survivor
selection, without the refinement.

Learner, metric and split
-------------------------
Both searches wrap **any** multi-label classifier (``learner``, required, as the
``estimator`` of scikit-learn's ``SequentialFeatureSelector``): a fitness function call
(FFC) trains it on the training patterns outside an inner holdout with the features
``S`` and scores the held-out ones with ``metric``. The paper's learner is the
categorical multi-label naive Bayes, :class:`skmlfs.learners.MLNB`.

Speed
-----
A learner may offer a faster exact path for the many refits of one search: a method
``subset_evaluator(X, Y)`` returning an object whose ``predict(S, test)`` gives the
predictions and posteriors of the learner refitted on the rows outside ``test`` with the
features ``S`` (or ``None`` when it cannot). The search uses it when the learner has it
(duck typing) and clones, fits and predicts otherwise. MLNB offers it: training a
categorical NB is nothing but counting, so it counts every (feature value, label) pair
of the training part once per fit and each FFC only counts the ~20 % held-out rows on
``S`` and subtracts (:meth:`skmlfs.learners.MLNB.subset_evaluator`, tested against the
refit). The GICS refinement reads ``H(f)``, ``H(f, l)`` and ``H(f, g)`` from one
:class:`~skmlfs.info.InfoCache` built on the training part, so no entropy is computed
twice within a fit.
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import validate_data
from threadpoolctl import threadpool_limits

from .._progress import report_step
from .._validation import _quiet_empty_labels, categorical_mask, check_labels, resolve_n_features
from ..info import DiscreteData, InfoCache
from ..metrics import METRICS, MetricSpec, metric_name
from ._base import (
    DISCRETIZER_CONSTRAINT,
    BaseSelector,
    degenerate_selection,
    discretize_features,
)
from ._info_filters import gics_select

__all__ = ["GeneticSelector", "MemeticSelector"]

# The paper's four metrics by their PLCFS names, and the conventions of the PLCFS code
# (docs/methods/metrics.md) under which the reference optimises them.
_METRIC_ALIASES = {
    "mlacc": "multilabel_accuracy",
    "onerr": "one_error",
    "rloss": "ranking_loss",
    "mlcov": "coverage",
}
_PLCFS_KWARGS = {
    "multilabel_accuracy": {"convention": "plcfs"},
    "one_error": {"convention": "plcfs"},
    "ranking_loss": {"convention": "plcfs"},
    "coverage": {"convention": "plcfs"},
}

# Kinds of offspring, recorded in ``history_["reproductions"]["kind"]``.
CROSSOVER, MUTATION, RANDOM_CHILD = 0, 1, 2


def _round_half_up(x: float) -> int:
    """MATLAB ``round`` for non-negative values (Python's ``round`` rounds half to even)."""
    return int(np.floor(x + 0.5))


# ---------------------------------------------------------------------- the learner
def _resolve_metric(metric: Any):
    """``(name, function, greater_is_better, needs, kwargs)`` of a metric name or spec."""
    if isinstance(metric, MetricSpec):  # a user's scorer: (function, greater_is_better, needs)
        if metric.needs not in ("pred", "score"):
            raise ValueError(f"metric.needs must be 'pred' or 'score'; got {metric.needs!r}.")
        name = getattr(metric.function, "__name__", type(metric.function).__name__)
        return name, metric.function, bool(metric.greater_is_better), metric.needs, {}
    name = _METRIC_ALIASES.get(metric, metric)
    if name not in METRICS and isinstance(name, str):  # scikit-learn's spellings too

        try:
            name = metric_name(name)
        except KeyError:
            pass
    if name not in METRICS:
        raise ValueError(
            f"unknown metric {metric!r}; use one of multilabel_accuracy (mlacc), one_error "
            f"(onerr), ranking_loss (rloss), coverage (mlcov) or {sorted(METRICS)}, or a "
            "skmlfs.metrics.MetricSpec."
        )
    spec = METRICS[name]
    return name, spec.function, spec.greater_is_better, spec.needs, _PLCFS_KWARGS.get(name, {})


class _Fitness:
    """The fitness function (docs/methods/memetic.md#fitness): one call = one FFC.

    Each call draws a fresh random holdout of the training patterns (``resample``; the
    reference's ``crossvalind('holdout', …, 0.2)``), reuses one fixed split, or scores
    every split of a scikit-learn splitter (drawn once per fit); it trains the learner on
    the training rows with the features ``S`` (through ``evaluator``, the learner's
    ``subset_evaluator``, when it offers one and the training rows are all rows outside
    the test rows), and returns the loss (the metric as a value to minimise; the mean over
    a splitter's splits) and the number of held-out patterns whose label ``l`` is
    predicted correctly, per label (summed over the splits).
    """

    def __init__(self, Xd, evaluator, Y, learner, metric, holdout, inner_split, rng):
        self.Xd, self.evaluator, self.Y = Xd, evaluator, Y
        self.learner = learner
        self.name, self.fn, self.greater, self.needs, self.kwargs = _resolve_metric(metric)
        n = Y.shape[0]
        self.splits = None
        if isinstance(inner_split, str):
            self.n_test = max(1, min(n - 1, int(np.floor(holdout * n))))
            self.resample = inner_split == "resample"
        else:
            self.splits = _draw_splits(inner_split, Xd, Y)
            self.n_test = sum(test.size for _, test, _ in self.splits)
            self.resample = False
        self.rng = rng
        self._fixed = None if self.resample or self.splits else self._draw()
        self.n_calls = 0

    def _draw(self) -> np.ndarray:
        return np.sort(self.rng.permutation(self.Y.shape[0])[: self.n_test])

    def __call__(self, S: np.ndarray) -> tuple[float, np.ndarray]:
        self.n_calls += 1
        if self.splits is None:
            test = self._draw() if self.resample else self._fixed
            return self._score(S, None, test, True)
        losses, correct = [], np.zeros(self.Y.shape[1], dtype=np.int64)
        for train, test, complement in self.splits:
            loss, c = self._score(S, train, test, complement)
            losses.append(loss)
            correct += c
        return float(np.mean(losses)), correct

    def _score(self, S, train, test, complement) -> tuple[float, np.ndarray]:
        if S.size == 0:
            return np.inf, np.zeros(self.Y.shape[1], dtype=np.int64)
        if self.evaluator is not None and complement:
            pred, psi = self.evaluator.predict(S, test)
        else:
            pred, psi = self._refit(S, test, train)
        Yt = self.Y[test]
        value = self.fn(Yt, psi if self.needs == "score" else pred, **self.kwargs)
        correct = np.count_nonzero(pred == Yt, axis=0).astype(np.int64)
        loss = -value if self.greater else value
        return (np.inf if np.isnan(loss) else float(loss)), correct

    def _refit(self, S: np.ndarray, test: np.ndarray, train: Any = None) -> tuple[np.ndarray, Any]:
        """Clone, fit and predict the learner: the path of any classifier."""
        if train is None:
            train = np.ones(self.Y.shape[0], dtype=bool)
            train[test] = False
        with _quiet_empty_labels():  # per-FFC refits of an inner split: fit warned once
            model = clone(self.learner).fit(self.Xd[train][:, S], self.Y[train])
        Xt = self.Xd[test][:, S]
        with warnings.catch_warnings():  # a candidate predicting nothing is scored as such
            warnings.filterwarnings("ignore", message=_NO_POSITIVE_PREDICTION)
            pred = _as_label_matrix(model.predict(Xt), self.Y.shape[1]).astype(np.uint8)
        psi = None
        if self.needs == "score":
            psi = _positive_scores(model, Xt, self.Y.shape[1])
        return pred, psi


def _draw_splits(splitter: Any, X: Any, Y: np.ndarray) -> list:
    """``(train, test, train is every other row)`` of each split of a scikit-learn splitter."""
    n = Y.shape[0]
    out = []
    for train, test in splitter.split(X, Y):
        train, test = np.asarray(train, dtype=np.intp), np.sort(np.asarray(test, dtype=np.intp))
        if test.size == 0 or train.size == 0:
            raise ValueError("inner_split: every split needs training and test rows.")
        other = np.ones(n, dtype=bool)
        other[test] = False
        out.append((train, test, train.size == other.sum() and bool(other[train].all())))
    if not out:
        raise ValueError(f"inner_split: {splitter!r} gave no split.")
    return out


# The warning of the library's learners for a batch with no predicted label
# (skmlfs.learners.NoPositivePredictionWarning), matched by message: selection does not
# import learners.
_NO_POSITIVE_PREDICTION = r".* predicted no label at all for the "


def _as_label_matrix(a: Any, q: int) -> np.ndarray:
    """A prediction or score as a dense (n, q) array (sparse output of some learners)."""
    a = a.toarray() if sp.issparse(a) else np.asarray(a)
    return a.reshape(-1, q) if a.ndim == 1 else a


def _positive_scores(model: Any, X: Any, q: int) -> np.ndarray:
    """Per-label scores for ranking metrics: ``predict_proba`` (a (n, q) matrix, or
    scikit-learn's per-label list of (n, 2) arrays) or else ``decision_function``."""
    if hasattr(model, "predict_proba"):
        P = model.predict_proba(X)
        if isinstance(P, list):  # MultiOutputClassifier, KNeighborsClassifier: P(y_l = 1)
            P = np.column_stack(
                [p[:, list(c).index(1)] if 1 in c else np.zeros(p.shape[0])
                 for p, c in zip(P, model.classes_, strict=True)]
            )
        return np.asarray(_as_label_matrix(P, q), dtype=float)
    if hasattr(model, "decision_function"):
        return np.asarray(_as_label_matrix(model.decision_function(X), q), dtype=float)
    raise TypeError(
        f"the metric needs per-label scores, but {type(model).__name__} has neither "
        "predict_proba nor decision_function; use a metric on predictions "
        "(e.g. multilabel_accuracy) or another learner."
    )


# ---------------------------------------------------------------------- the population
class _Population:
    """Feature subsets with their last loss and per-label correct counts, kept sorted."""

    def __init__(self, d: int, q: int):
        self.d, self.q = d, q
        self.subsets: list[np.ndarray] = []
        self.loss = np.zeros(0)
        self.correct = np.zeros((0, q), dtype=np.int64)
        self.keys: list[bytes] = []

    def __len__(self) -> int:
        return len(self.subsets)

    def key(self, S: np.ndarray) -> bytes:
        chrom = np.zeros(self.d, dtype=bool)
        chrom[S] = True
        return np.packbits(chrom).tobytes()

    def extend(self, subsets, losses, corrects) -> None:
        """``P ← P ∪ N`` without duplicate subsets (the first occurrence is kept)."""
        seen = set(self.keys)
        keep = []
        for i, S in enumerate(subsets):
            k = self.key(S)
            if k not in seen:
                seen.add(k)
                keep.append(i)
                self.keys.append(k)
                self.subsets.append(S)
        self.loss = np.concatenate([self.loss, np.asarray(losses, float)[keep]])
        self.correct = np.vstack([self.correct, np.asarray(corrects).reshape(-1, self.q)[keep]])

    def sort(self) -> None:
        """Ascending loss; equal losses in lexicographic order of the 0/1 chromosome.

        The reference de-duplicates with MATLAB ``unique(..., 'rows')``, which sorts the
        chromosomes, and then sorts stably by loss (docs/methods/memetic.md#tie-breaking).
        """
        order = sorted(range(len(self)), key=lambda i: (self.loss[i], self.keys[i]))
        self._take(order)

    def truncate(self, m: int) -> None:
        self._take(list(range(min(m, len(self)))))

    def _take(self, idx) -> None:
        self.subsets = [self.subsets[i] for i in idx]
        self.keys = [self.keys[i] for i in idx]
        self.loss = self.loss[idx]
        self.correct = self.correct[idx]

    def union_mask(self) -> np.ndarray:
        mask = np.zeros(self.d, dtype=bool)
        for S in self.subsets:
            mask[S] = True
        return mask


def tournament(loss: np.ndarray, size: int, rng) -> np.ndarray:
    """Tournament winners (docs/methods/memetic.md#main-loop, reference ``tournamentSelection``).

    ``size`` rounds; each round permutes the population, cuts it into consecutive groups
    of ``size`` (the last one smaller when ``size`` does not divide the population
    **[ASSUMPTION]**) and keeps the lowest-loss member of each group (the first in
    permuted order on ties).

    Returns
    -------
    ndarray of shape (size, n_groups)
        Row ``r`` holds the winners of round ``r``.
    """
    n = loss.size
    size = max(1, int(size))
    n_groups = -(-n // size)
    out = np.empty((size, n_groups), dtype=np.intp)
    for r in range(size):
        perm = np.full(n_groups * size, -1, dtype=np.intp)
        perm[:n] = rng.permutation(n)
        groups = perm.reshape(n_groups, size)
        gl = np.where(groups >= 0, loss[np.maximum(groups, 0)], np.inf)
        out[r] = groups[np.arange(n_groups), np.argmin(gl, axis=1)]
    return out


def label_pruning(
    correct: np.ndarray,
    s: int,
    *,
    z_mode: str = "gap",
    z_fraction: float = 0.1,
    cap: bool = True,
) -> tuple[np.ndarray, np.ndarray, int | None]:
    """Algorithm 2: the poorly predicted labels ``Z`` of member ``s`` and the partner ``S'``.

    Parameters
    ----------
    correct : ndarray of shape (|P|, q)
        Correct held-out predictions per member and label (the accuracies times the
        common held-out size, so gaps are compared exactly, as integers). Rows are in
        population order (ascending loss).
    s : int
        Row of the selected subset ``S``.
    z_mode : {"gap", "fixed"}
        ``"gap"``: sort the labels by accuracy (ascending, stable), cut after the first
        largest gap between successive accuracies, ``Z`` = the low side, at most
        ``round(q/2)`` labels when ``cap`` (reference code only). ``"fixed"``: ``Z`` = the
        ``max(1, round(z_fraction·q))`` least accurate labels (the paper's constant-p
        ablation, Fig. 5).

    Returns
    -------
    Z, Zc : ndarray of int
        Label indices (``Z`` from least accurate up, ``Zc`` ascending).
    s_prime : int or None
        Row of the member other than ``s`` with the largest summed accuracy on ``Z``;
        ties go to the earlier (lower-loss) row. ``None`` when ``s`` is alone.
    """
    r = correct[s]
    q = r.size
    order = np.argsort(r, kind="stable")
    if q == 1:
        size = 1  # Z = L, Zc = ∅ [ASSUMPTION]
    elif z_mode == "gap":
        size = int(np.argmax(np.diff(r[order]))) + 1
        if cap:
            size = min(size, _round_half_up(q / 2))
    else:
        size = min(q, max(1, _round_half_up(z_fraction * q)))
    Z = order[:size]
    Zc = np.sort(order[size:])
    if correct.shape[0] < 2:
        return Z, Zc, None
    sums = correct[:, Z].sum(axis=1)
    sums[s] = np.iinfo(np.int64).min
    return Z, Zc, int(np.argmax(sums))


def _weighted_sample(candidates: np.ndarray, weights: np.ndarray, n: int, rng) -> np.ndarray:
    """``n`` draws without replacement, each with probability ∝ the remaining weights.

    Successive sampling (MATLAB ``datasample(..., 'Replace', false, 'Weights', w)``).
    Once the positive weights are exhausted the rest is drawn uniformly **[ASSUMPTION]**.
    """
    w = np.asarray(weights, dtype=float).copy()
    left = np.ones(candidates.size, dtype=bool)
    out = []
    for _ in range(min(n, candidates.size)):
        ww = np.where(left, w, 0.0)
        total = ww.sum()
        p = ww / total if total > 0 else left / left.sum()
        i = int(rng.choice(candidates.size, p=p))
        left[i] = False
        out.append(candidates[i])
    return np.asarray(out, dtype=np.intp)


# ---------------------------------------------------------------------- estimators
class _EvolutionarySelector(BaseSelector):
    """Shared machinery: validation, fitness, Algorithm 1's loop and survivor selection."""

    # Parameters of both searches; MemeticSelector extends them with its operators'.
    _parameter_constraints: dict = {
        **BaseSelector._parameter_constraints,
        "verbose": ["verbose"],
        "learner": [HasMethods(["fit", "predict"])],
        "population_size": [Interval(Integral, 1, None, closed="left")],
        "max_evaluations": [Interval(Integral, 1, None, closed="left")],
        "metric": [str, MetricSpec],
        "holdout": [Interval(Real, 0, 1, closed="neither")],
        "inner_split": [StrOptions({"resample", "fixed"}), HasMethods(["split", "get_n_splits"])],
        "n_crossovers": [Interval(Integral, 1, None, closed="left")],
        "strict_budget": ["boolean"],
        "discretizer": DISCRETIZER_CONSTRAINT,
        # its length depends on the data: checked in fit (categorical_mask)
        "categorical_features": ["array-like", None],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        learner: Any,
        *,
        n_features_to_select: Any = 50,
        population_size: int = 50,
        max_evaluations: int = 300,
        metric: str = "multilabel_accuracy",
        holdout: float = 0.2,
        inner_split: str = "resample",
        n_crossovers: int = 10,
        strict_budget: bool = False,
        discretizer: Any = "auto",
        categorical_features: Any = None,
        random_state: Any = None,
        verbose: int = 0,
    ):
        self.n_features_to_select = n_features_to_select
        self.population_size = population_size
        self.max_evaluations = max_evaluations
        self.metric = metric
        self.learner = learner
        self.holdout = holdout
        self.inner_split = inner_split
        self.n_crossovers = n_crossovers
        self.strict_budget = strict_budget
        self.discretizer = discretizer
        self.categorical_features = categorical_features
        self.random_state = random_state
        self.verbose = verbose

    def _discretize(self, X, Y):
        # nominal columns pass through the discretizer unchanged, as in BaseInfoSelector
        cat = (None if self.categorical_features is None
               else categorical_mask(self.categorical_features, X.shape[1]))
        return discretize_features(self.discretizer, X, Y, cat)

    def fit(self, X: Any, Y: Any):
        """Search a feature subset of ``X`` for the labels ``Y``.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            Discrete features (numeric ones are discretized, see ``discretizer``).
        Y : array-like or sparse matrix of shape (n_samples, n_labels), 0/1
        """
        if self.learner is None:
            name = type(self).__name__
            raise TypeError(
                f"{name} needs a multi-label classifier to score the subsets: pass it as "
                f"the learner, e.g. {name}(MLNB()) with skmlfs.learners.MLNB, the "
                "learner of the memetic paper."
            )
        return super().fit(X, Y)

    def _fit(self, X: Any, Y: Any):
        X = validate_data(
            self, X, accept_sparse=["csr", "csc"], dtype="numeric", ensure_all_finite=True
        )
        Y = check_labels(Y, X.shape[0], warn_empty=True)
        if degenerate_selection(self, X):
            return self
        if X.shape[0] < 2:
            raise ValueError("at least 2 samples are needed for the inner holdout.")
        # n_max: the library's one budget parser (None = ⌈√n⌉, as for every selector)
        n_max = resolve_n_features(self.n_features_to_select, X.shape[0], X.shape[1])
        rng = check_random_state(self.random_state)
        Xd = self._discretize(X, Y)
        D = DiscreteData.from_array(Xd)
        cache = self._make_cache(D, Y)
        # the learner's own fast path for many refits on one training set, if it has one
        make = getattr(self.learner, "subset_evaluator", None)
        evaluator = make(Xd, Y) if callable(make) else None
        Xl = Xd.tocsr() if sp.issparse(Xd) else np.asarray(Xd)
        fitness = _Fitness(
            Xl, evaluator, Y, self.learner, self.metric, self.holdout, self.inner_split, rng
        )
        with threadpool_limits(limits=1):
            pop, hist = self._search(fitness, cache, rng, n_max, X.shape[1], Y.shape[1])
        best = np.sort(pop.subsets[0])
        # Order the chosen subset by GICS on all labels so that selection_order_[:k] is a sensible
        # smaller subset; the search itself is order-free.
        with threadpool_limits(limits=1):
            ranked, scores = gics_select(cache, best, np.arange(Y.shape[1]), best.size)
        rest = np.setdiff1d(best, ranked)
        # GICS orders the subset greedily: its step values are step_scores_ (NaN for the
        # few members GICS leaves unranked), placed by feature in scores_
        self._set_order(np.concatenate([ranked, rest]), k=n_max, n_samples=X.shape[0],
                          step_scores=np.concatenate([scores, np.full(rest.size, np.nan)]),
                          n_selected=best.size)
        self.best_subset_ = best
        self.best_loss_ = float(pop.loss[0])
        self.best_label_accuracy_ = pop.correct[0] / fitness.n_test
        self.population_ = [np.sort(S) for S in pop.subsets]
        self.population_loss_ = pop.loss.copy()
        self.n_evaluations_ = fitness.n_calls
        self.metric_ = fitness.name
        self.history_ = hist
        return self

    def _make_cache(self, D: DiscreteData, Y: np.ndarray) -> InfoCache:
        """The entropy tables of the refinement (a hook for the benchmark's naive version)."""
        return InfoCache(D, DiscreteData.from_array(Y))

    # -------------------------------------------------------------- Algorithm 1
    def _search(self, fitness, cache, rng, n_max, d, q):
        m, v = self.population_size, self.max_evaluations
        strict = self.strict_budget
        pop = _Population(d, q)
        n_test = fitness.n_test
        losses, label_acc, best_loss, best_acc = [], [], [], []
        best = [np.inf, np.zeros(q)]

        def evaluate(S):
            loss, correct = fitness(S)
            losses.append(loss)
            label_acc.append(correct / n_test)
            return loss, correct

        def record(loss, correct, new):
            if new and loss < best[0]:
                best[0], best[1] = loss, correct / n_test
            best_loss.append(best[0])
            best_acc.append(best[1])

        # Line 1–3: m random subsets of n_max features, evaluated.
        init = [np.sort(rng.permutation(d)[:n_max]) for _ in range(m)]
        if strict:
            init = init[:v]
        res = [evaluate(S) for S in init]
        seen: set[bytes] = set()
        for S, (loss, correct) in zip(init, res, strict=True):
            k = pop.key(S)
            record(loss, correct, k not in seen)
            seen.add(k)
        # The reference keeps duplicates of the initial draw; they are vanishingly rare
        # and de-duplicating here keeps the population a set from the start.
        pop.extend(init, [r[0] for r in res], [r[1] for r in res])
        pop.sort()
        reps: dict[str, list] = {k: [] for k in _REP_KEYS}
        gen_ffc, gen_loss = [fitness.n_calls], [float(pop.loss[0])]
        while fitness.n_calls < v:
            while True:
                children, info = self._offspring(pop, cache, rng, n_max, d, q)
                if strict:
                    children = children[: v - fitness.n_calls]
                keys = set(pop.keys)
                new_res = []
                for S, meta in zip(children, info, strict=False):
                    loss, correct = evaluate(S)
                    k = pop.key(S)
                    record(loss, correct, k not in keys)
                    keys.add(k)
                    new_res.append((loss, correct))
                    Z = meta["Z"]
                    reps["ffc"].append(fitness.n_calls)
                    reps["kind"].append(meta["kind"])
                    reps["z_size"].append(0 if Z is None else Z.size)
                    reps["z_labels"].append(_NO_LABELS if Z is None else Z.astype(np.intp))
                    reps["parent_loss"].append(meta["parent_loss"])
                    reps["child_loss"].append(loss)
                    reps["parent_z_accuracy"].append(
                        np.nan if Z is None else meta["parent_correct"][Z].mean() / n_test
                    )
                    reps["child_z_accuracy"].append(
                        np.nan if Z is None else correct[Z].mean() / n_test
                    )
                pop.extend(
                    children[: len(new_res)], [r[0] for r in new_res], [r[1] for r in new_res]
                )
                pop.sort()
                # Budget guard (not in the reference): if every child duplicates a member
                # the reference loops again; stop once the budget is spent.
                if len(pop) > m or fitness.n_calls >= v:
                    break
            pop.truncate(m)
            gen_ffc.append(fitness.n_calls)
            gen_loss.append(float(pop.loss[0]))
            report_step(fitness.n_calls, v, "evaluation", best_loss=gen_loss[-1])
        hist = {
            "loss": np.asarray(losses),
            "label_accuracy": np.asarray(label_acc).reshape(-1, q),
            "best_loss": np.asarray(best_loss),
            "best_label_accuracy": np.asarray(best_acc).reshape(-1, q),
            "generation_ffc": np.asarray(gen_ffc),
            "generation_best_loss": np.asarray(gen_loss),
            "reproductions": {k: _as_array(k, val) for k, val in reps.items()},
        }
        sign = -1.0 if fitness.greater else 1.0
        hist["best_score"] = sign * hist["best_loss"]
        return pop, hist

    def _offspring(self, pop, cache, rng, n_max, d, q):
        raise NotImplementedError

    # -------------------------------------------------------------- selector API
    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.selector_tags.scores_meaning = (
            "gics_at_pick",
            "GICS value at which the feature of the best subset was placed when that subset was "
            "ordered (NaN: outside the best subset; not sorted: a later place may score higher)",
        )
        # a subset search: its subset for one budget is not a part of the one for another
        tags.selector_tags.nested_budgets = False
        tags.selector_tags.greedy = True
        tags.non_deterministic = self.random_state is None
        return tags


_REP_KEYS = (
    "ffc",
    "kind",
    "z_size",
    "z_labels",
    "parent_loss",
    "child_loss",
    "parent_z_accuracy",
    "child_z_accuracy",
)


_NO_LABELS = np.zeros(0, dtype=np.intp)


def _as_array(key: str, values: list) -> np.ndarray:
    """One entry of ``history_["reproductions"]`` as an array."""
    if key == "z_labels":
        # ragged: one int array per offspring, in a 1-D object array so that it can be
        # masked like the other entries (``z_labels[kind == CROSSOVER]``)
        return np.fromiter(values, dtype=object, count=len(values))
    return np.asarray(values, dtype=np.int64 if key in ("ffc", "kind", "z_size") else float)


def _random_subset(d: int, n_max: int, rng) -> np.ndarray:
    return np.sort(rng.permutation(d)[:n_max])


class MemeticSelector(_EvolutionarySelector):
    """Memetic multi-label feature selection with pruned refinement (Seo et al. 2024).

    A steady-state evolutionary search over subsets of ``n_max`` features (Algorithm 1).
    Fitness = the learner's score on a random inner holdout of the training data
    (one fitness function call, FFC). Each generation, tournament winners ``S`` are
    refined: the labels ``S`` predicts worst (``Z``, below the largest accuracy gap,
    Algorithm 2) are served by features imported from the member ``S'`` that predicts
    ``Z`` best, ranked by GICS on ``Z``, while GICS on ``Zᶜ`` decides which features of
    ``S`` stay (crossover, Algorithm 3); a mutation imports features absent from the
    population (Algorithm 4). The ``m`` best subsets survive; the search stops after
    ``max_evaluations`` FFCs. Details follow ``docs/methods/memetic.md``.

    Parameters
    ----------
    learner : estimator
        The multi-label classifier whose score on the inner holdout is the fitness
        (required, as the ``estimator`` of scikit-learn's ``SequentialFeatureSelector``);
        the paper's is :class:`~skmlfs.learners.MLNB`, e.g. ``MemeticSelector(MLNB())``.
        It is cloned, fitted on ``(X[train][:, S], Y[train])`` and asked for
        ``predict`` (and per-label scores, ``predict_proba`` or ``decision_function``,
        for ``one_error``, ``ranking_loss`` and ``coverage``) in every FFC, unless it
        offers ``subset_evaluator(X, Y)`` (MLNB does): an object whose ``predict(S, test)``
        returns the predictions and posteriors of that refit, computed faster (see
        :meth:`skmlfs.learners.MLNB.subset_evaluator`; ``None`` falls back to the refit).
    n_features_to_select : int, float, str or None, default=50
        ``n_max``, the size of every subset (a float in (0, 1] is a fraction of the
        features; ``None`` or ``"sqrt"`` is ⌈√n_samples⌉, as for the filters; any form of
        :func:`~skmlfs._validation.parse_budget`). The paper uses 50 (and 25 in an
        ablation).
    population_size : int, default=50
        ``m``.
    max_evaluations : int, default=300
        ``v``, the budget of FFCs, counted from the initial population on. As in the
        reference, it is checked once per generation (11 offspring), so 303 FFCs are
        spent for ``m = 50, v = 300``; ``strict_budget=True`` stops at exactly ``v``.
    metric : str or MetricSpec, default="multilabel_accuracy"
        The fitness (the scorer): ``"multilabel_accuracy"`` (``"mlacc"``),
        ``"one_error"`` (``"onerr"``), ``"ranking_loss"`` (``"rloss"``) or
        ``"coverage"`` (``"mlcov"``), computed with the PLCFS conventions
        (docs/methods/metrics.md); any other name of :data:`skmlfs.metrics.METRICS` with
        its defaults; or a :class:`skmlfs.metrics.MetricSpec` ``(function,
        greater_is_better, needs)`` with ``function(Y_true, Y_pred_or_score)`` and
        ``needs`` = ``"pred"`` (0/1 predictions) or ``"score"`` (per-label scores).
        Metrics that are better when larger are negated into losses.
    holdout : float, default=0.2
        Fraction of the training patterns held out in each FFC (``⌊holdout·n⌋``).
    inner_split : {"resample", "fixed"} or splitter, default="resample"
        ``"resample"``: a fresh random holdout in every FFC (reference
        ``crossvalind``); ``"fixed"``: one holdout drawn at the start of ``fit``. A
        scikit-learn splitter (``KFold(5)``, ``ShuffleSplit(...)``, as the ``cv`` of
        ``SequentialFeatureSelector``): its splits are drawn once at the start of ``fit``
        and every FFC scores each of them (``holdout`` is not used); the loss is their
        mean, the per-label accuracies are over all their test rows.
    n_crossovers : int, default=10
        Crossovers per generation (reference ``num_rep``); one mutation follows.
    z_mode : {"gap", "fixed"}, default="gap"
        How ``Z`` is chosen (:func:`label_pruning`); ``"fixed"`` with ``z_fraction`` is the
        constant-``p`` ablation of the paper's Fig. 5.
    z_fraction : float, default=0.1
        ``p = |Z|/|L|`` in ``z_mode="fixed"``.
    cap_z : bool, default=True
        Cap ``|Z|`` at ``round(|L|/2)`` (reference code; not in the paper).
    operators : {"reference", "paper"}, default="reference"
        ``"reference"``: crossover imports only ``S' \\ S``, ``n = min(round(|U|(1 −
        |Z|/|L|)), round(n_max|Z|/|L|))`` and the second GICS call is seeded with the kept
        features (docs/methods/memetic.md#crossover). ``"paper"``: the formulas as printed,
        ``n = ⌈n_max|Z|/|L|⌉``, ``S⁺ = Filter(S, Zᶜ, n_max − n) ∪ Filter(S', Z, n)``.
        The printed union has no de-duplication, so when the two GICS calls pick some of
        the same features (``S`` and ``S'`` overlap) the child has fewer than ``n_max``
        features, and such a subset can survive and be returned (``best_subset_`` and
        ``population_`` then hold subsets smaller than ``n_max``).
    mutation_import : {"entropy_sampling", "gics"} or None, default=None
        How the mutation picks features absent from the population: sampling with weights
        ``Σ_{l∈Z} H(f, l)`` (reference code) or GICS on ``Z`` (paper). ``None`` follows
        ``operators``.
    strict_budget : bool, default=False
        Stop evaluating at exactly ``max_evaluations``.
    reference_parent_quirk : bool, default=False
        Reproduce the reference's indexing slip: ``Z`` and ``S'`` come from winner ``k`` of
        the first tournament round but the crossover modifies the column-major ``k``-th
        element of the winner matrix (docs/methods/memetic.md#tie-breaking).
    discretizer : "auto", None or transformer, default="auto"
        As in :class:`~skmlfs.selection.SCLS`: integer-valued data is used as is.
    categorical_features : None, bool mask or int indices, default=None
        Nominal columns, passed through the discretizer unchanged (as in
        :class:`~skmlfs.selection.SCLS`).
    random_state : int, RandomState or None, default=None
        Seeds the initial population, the tournaments, the holdouts and the mutations.
    verbose : int, default=0
        Progress of the fit on stderr (steps done, criterion or objective, elapsed time):
        0 none, 1 a line every few seconds, 2 or more every step.

    Attributes
    ----------
    selection_order_ : ndarray of int
        The best subset, ordered by GICS on all labels (training data).
    ranking_ : ndarray of shape (n_features,)
        scikit-learn's ranking, as ``RFE``'s: 1 for the selected features, then 2, 3,
        ... along ``selection_order_``.
    scores_ : ndarray of shape (n_features,)
        Indexed by feature: the GICS value (on all labels, training data) at which
        feature ``f`` of the best subset was placed in ``selection_order_``; NaN for the features
        outside the best subset.
    step_scores_ : ndarray of shape (n_ranked,)
        The same GICS values in the order of ``selection_order_`` (``scores_[selection_order_]``).
    best_subset_ : ndarray of int
        The best subset (sorted indices); ``get_support`` marks it.
    best_loss_ : float
        Its fitness as a loss (``−mlacc`` for accuracy) on its last inner holdout.
    best_label_accuracy_ : ndarray of shape (n_labels,)
        Its per-label accuracies on that holdout.
    population_, population_loss_ : list of ndarray, ndarray
        The final population (ascending loss) and losses.
    n_evaluations_ : int
        FFCs spent.
    history_ : dict
        Convergence record: ``loss`` and ``label_accuracy`` of every FFC in order;
        ``best_loss`` / ``best_score`` / ``best_label_accuracy``: the population's best
        after each FFC (monotone); ``generation_ffc`` / ``generation_best_loss`` after each
        generation; ``reproductions``: per offspring (arrays of equal length) the FFC
        index ``ffc`` (1-based, so the child's per-label accuracies are
        ``label_accuracy[ffc - 1]``), ``kind`` (0 crossover, 1 mutation, 2 random
        subset), ``z_size`` (``|Z|``), ``z_labels`` (``Z`` itself: a 1-D object array
        holding one int array of label indices per offspring, least accurate label of the
        parent first, as :func:`label_pruning` returns it; empty when no ``Z`` was
        computed), ``parent_loss`` and ``child_loss``, ``parent_z_accuracy`` and
        ``child_z_accuracy`` (mean accuracy on ``Z``; the paper's Figs. 4 and 6). The
        per-label accuracies of offspring ``i`` on its ``Z`` are
        ``label_accuracy[ffc[i] - 1, z_labels[i]]``.

    Examples
    --------
    >>> import numpy as np
    >>> from skmlfs.learners import MLNB
    >>> from skmlfs.selection import MemeticSelector
    >>> rng = np.random.default_rng(0)
    >>> X = rng.integers(0, 3, size=(200, 40)); Y = (X[:, :4] > 1).astype(int)
    >>> sel = MemeticSelector(MLNB(), n_features_to_select=5, population_size=10,
    ...                       max_evaluations=40, random_state=0).fit(X, Y)
    >>> sel.transform(X).shape
    (200, 5)
    """

    _parameter_constraints: dict = {
        **_EvolutionarySelector._parameter_constraints,
        "z_mode": [StrOptions({"gap", "fixed"})],
        "z_fraction": [Interval(Real, 0, 1, closed="right")],
        "cap_z": ["boolean"],
        "operators": [StrOptions({"reference", "paper"})],
        "mutation_import": [StrOptions({"entropy_sampling", "gics"}), None],
        "reference_parent_quirk": ["boolean"],
    }

    def __init__(
        self,
        learner: Any,
        *,
        n_features_to_select: Any = 50,
        population_size: int = 50,
        max_evaluations: int = 300,
        metric: str = "multilabel_accuracy",
        holdout: float = 0.2,
        inner_split: str = "resample",
        n_crossovers: int = 10,
        z_mode: str = "gap",
        z_fraction: float = 0.1,
        cap_z: bool = True,
        operators: str = "reference",
        mutation_import: str | None = None,
        strict_budget: bool = False,
        reference_parent_quirk: bool = False,
        discretizer: Any = "auto",
        categorical_features: Any = None,
        random_state: Any = None,
        verbose: int = 0,
    ):
        super().__init__(
            learner, n_features_to_select=n_features_to_select,
            population_size=population_size, max_evaluations=max_evaluations, metric=metric,
            holdout=holdout, inner_split=inner_split, n_crossovers=n_crossovers,
            strict_budget=strict_budget, discretizer=discretizer,
            categorical_features=categorical_features, random_state=random_state,
        )
        self.z_mode = z_mode
        self.z_fraction = z_fraction
        self.cap_z = cap_z
        self.operators = operators
        self.mutation_import = mutation_import
        self.reference_parent_quirk = reference_parent_quirk
        self.verbose = verbose

    def _prune(self, pop, s):
        return label_pruning(
            pop.correct, s, z_mode=self.z_mode, z_fraction=self.z_fraction, cap=self.cap_z
        )

    def _offspring(self, pop, cache, rng, n_max, d, q):
        ts = max(1, _round_half_up(self.population_size / 10))
        W = tournament(pop.loss, ts, rng)
        # winners of the first round first; later rounds only if there are too few
        order = W.ravel()
        while order.size < self.n_crossovers:
            order = np.concatenate([order, tournament(pop.loss, ts, rng).ravel()])
        col_major = W.T.ravel()
        children, info = [], []
        for k in range(self.n_crossovers):
            s = int(order[k])
            Z, Zc, sp_ = self._prune(pop, s)
            parent = s
            if self.reference_parent_quirk:
                parent = int(col_major[k % col_major.size])
            child, kind = self.crossover(pop, parent, sp_, Z, Zc, cache, rng, n_max, d)
            children.append(child)
            info.append(self._meta(pop, parent, Z, kind))
        j = int(rng.randint(len(pop)))
        child, kind, Z = self.mutation(pop, j, cache, rng, n_max, d)
        children.append(child)
        info.append(self._meta(pop, j, Z, kind))
        return children, info

    @staticmethod
    def _meta(pop, parent, Z, kind):
        return {
            "kind": kind,
            "Z": Z,
            "parent_loss": float(pop.loss[parent]),
            "parent_correct": pop.correct[parent],
        }

    def crossover(self, pop, s, s_prime, Z, Zc, cache, rng, n_max, d):
        """Algorithm 3 on members ``s`` (``S``) and ``s_prime`` (``S'``); returns (child, kind)."""
        S = pop.subsets[s]
        if s_prime is None:
            child, kind, _ = self.mutation(pop, s, cache, rng, n_max, d)
            return child, kind
        Sp = pop.subsets[s_prime]
        q = Z.size + Zc.size
        c = Z.size / q
        if self.operators == "paper":
            n = int(np.ceil(n_max * c))
            keep, _ = gics_select(cache, S, Zc, n_max - n)
            imp, _ = gics_select(cache, Sp, Z, n)
            return np.union1d(keep, imp).astype(np.intp), CROSSOVER
        U = np.setdiff1d(Sp, S)
        if U.size == 0:
            child, kind, _ = self.mutation(pop, s, cache, rng, n_max, d)
            return child, kind
        n = crossover_size(U.size, n_max, Z.size, q)
        keep, _ = gics_select(cache, S, Zc, n_max - n)
        child, _ = gics_select(cache, np.union1d(keep, U), Z, n_max, seed=keep)
        return np.sort(child).astype(np.intp), CROSSOVER

    def mutation(self, pop, s, cache, rng, n_max, d):
        """Algorithm 4 on member ``s``; returns (child, kind, Z)."""
        Z, Zc, _ = self._prune(pop, s)
        absent = np.flatnonzero(~pop.union_mask())
        if absent.size == 0:
            return _random_subset(d, n_max, rng), RANDOM_CHILD, None
        S = pop.subsets[s]
        q = Z.size + Zc.size
        how = self.mutation_import or (
            "entropy_sampling" if self.operators == "reference" else "gics"
        )
        if self.operators == "paper":
            n = int(np.ceil(n_max * Z.size / q))
        else:
            n = crossover_size(absent.size, n_max, Z.size, q)
        keep, _ = gics_select(cache, S, Zc, n_max - n)
        if how == "gics":
            imp, _ = gics_select(cache, absent, Z, n)
        else:
            w = cache.h_xy[np.ix_(absent, Z)].sum(axis=1)
            imp = _weighted_sample(absent, w, n, rng)
        return np.union1d(keep, imp).astype(np.intp), MUTATION, Z


def crossover_size(n_unique: int, n_max: int, z_size: int, q: int) -> int:
    """Features imported by the reference crossover/mutation (docs/methods/memetic.md#crossover).

    ``n = min(round(|U|·(1 − |Z|/|L|)), round(n_max·|Z|/|L|))`` with MATLAB rounding, where
    ``U`` is the pool of candidates to import (``S' \\ S`` or the absent features).
    """
    c = z_size / q
    return min(_round_half_up(n_unique * (1 - c)), _round_half_up(n_max * c))


class GeneticSelector(_EvolutionarySelector):
    """Plain genetic algorithm with the memetic method's budget and learner (no refinement).

    ``docs/methods/memetic.md#plain-ga`` (a design decision, not a published method): the
    same representation (subsets of exactly ``n_max`` features), uniform initialisation,
    fitness, tournament selection, 11 offspring per generation, de-duplication and
    (μ+λ) truncation as :class:`MemeticSelector`; only the operators differ:

    * crossover of two tournament winners ``S1, S2`` (distinct when possible): the child
      keeps ``S1 ∩ S2`` and is filled up to ``n_max`` with features drawn uniformly from
      ``S1 Δ S2``, then (if still short) from the features outside ``S1 ∪ S2``;
    * mutation of a uniformly drawn member: each feature is replaced with probability
      ``1/n_max`` (at least one) by distinct features drawn uniformly from outside it.

    ``S1`` is winner ``k`` of the first tournament round and ``S2`` winner ``k`` of the
    second (the first later round that gives a different member) **[ASSUMPTION]**.

    Parameters and attributes (``learner`` first, required) are those of
    :class:`MemeticSelector` that concern the search itself (no ``Z`` quantities:
    ``history_["reproductions"]["z_size"]`` is 0 and ``z_labels`` holds empty arrays).
    """

    def _offspring(self, pop, cache, rng, n_max, d, q):
        ts = max(1, _round_half_up(self.population_size / 10))
        rounds = [tournament(pop.loss, ts, rng) for _ in range(2)]
        W = np.vstack(rounds)
        while W.shape[1] < self.n_crossovers:
            W = np.hstack([W, np.vstack([tournament(pop.loss, ts, rng) for _ in range(2)])])
        children, info = [], []
        for k in range(self.n_crossovers):
            col = W[:, k]
            s1 = int(col[0])
            others = col[1:][col[1:] != s1]
            s2 = int(others[0]) if others.size else s1
            children.append(ga_crossover(pop.subsets[s1], pop.subsets[s2], n_max, d, rng))
            info.append(MemeticSelector._meta(pop, s1, None, CROSSOVER))
        j = int(rng.randint(len(pop)))
        children.append(ga_mutation(pop.subsets[j], n_max, d, rng))
        info.append(MemeticSelector._meta(pop, j, None, MUTATION))
        return children, info


def ga_crossover(S1: np.ndarray, S2: np.ndarray, n_max: int, d: int, rng) -> np.ndarray:
    """Plain-GA crossover: ``S1 ∩ S2`` filled from ``S1 Δ S2``, then from outside."""
    child = np.intersect1d(S1, S2)
    need = n_max - child.size
    sym = np.setxor1d(S1, S2)
    take = sym[rng.permutation(sym.size)[: max(0, need)]]
    child = np.union1d(child, take)
    need = n_max - child.size
    if need > 0:
        outside = np.setdiff1d(np.arange(d), np.union1d(S1, S2))
        child = np.union1d(child, outside[rng.permutation(outside.size)[:need]])
    return child.astype(np.intp)


def ga_mutation(S: np.ndarray, n_max: int, d: int, rng) -> np.ndarray:
    """Plain-GA mutation: swap each feature with probability ``1/n_max`` (≥ 1 swap)."""
    flip = rng.random_sample(S.size) < 1.0 / n_max
    if not flip.any():
        flip[rng.randint(S.size)] = True
    outside = np.setdiff1d(np.arange(d), S)
    k = min(int(flip.sum()), outside.size)
    if k == 0:
        return S.copy()
    flip_idx = np.flatnonzero(flip)[:k]
    new = outside[rng.permutation(outside.size)[:k]]
    child = S.copy()
    child[flip_idx] = new
    return np.sort(child).astype(np.intp)
