"""Memetic multi-label feature selection with pruned refinement, and a plain GA baseline.

:class:`MemeticSelector` implements Algorithms 1–5 of Seo, Park, Lee, Moon, Kim & Lee
(2024), "Memetic multilabel feature selection using pruned refinement process", J. Big
Data 11:108, with every detail the paper leaves open resolved as in
``docs/methods/memetic.md`` (which reconstructs the lost pseudo-code from the paper's
prose and the authors' reference code ``proposed_prob.m``). :class:`GeneticSelector` is the
plain GA (docs/methods/memetic.md#plain-ga): the same representation, budget, learner and survivor
selection, without the refinement.

Speed
-----
A fitness function call (FFC) trains the categorical multi-label naive Bayes
(docs/methods/lazy.md#mlnb) on a random 80 % of the training patterns with the features ``S`` and
scores the other 20 %. Training a categorical NB is nothing but counting, so
:class:`_NBCountTables` counts every (feature value, label) pair of the training part
**once per fit** (one sparse product); an FFC then only counts the ~20 % held-out rows on
the ``|S|`` selected features (one small product) and subtracts: the inner-training
counts are *full − held-out*. The log-likelihood tables are sliced to ``S``, and the
posteriors of the held-out rows are one more small product. The result is exactly
:class:`~skmlfs.learners.MLNB` refitted on the inner split (tested). The GICS refinement
reads ``H(f)``, ``H(f, l)`` and ``H(f, g)`` from one :class:`~skmlfs.info.InfoCache` built
on the training part, so no entropy is computed twice within a fit.
"""

from __future__ import annotations

import numbers
import warnings
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.special import expit
from sklearn.base import BaseEstimator, clone
from sklearn.feature_selection import SelectorMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data
from threadpoolctl import threadpool_limits

from .._validation import _quiet_empty_labels, check_labels, resolve_n_features
from ..info import DiscreteData, InfoCache
from ._base import degenerate_selection, discretize_features, is_discrete
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
def _resolve_metric(metric: str):
    from ..metrics import METRICS

    name = _METRIC_ALIASES.get(metric, metric)
    if name not in METRICS:
        raise ValueError(
            f"unknown metric {metric!r}; use one of multilabel_accuracy (mlacc), one_error "
            f"(onerr), ranking_loss (rloss), coverage (mlcov) or {sorted(METRICS)}."
        )
    spec = METRICS[name]
    return name, spec.function, spec.greater_is_better, spec.needs, _PLCFS_KWARGS.get(name, {})


class _NBCountTables:
    """Categorical per-label naive Bayes on any feature subset and inner split, by slicing.

    ``codes`` (n, d) are integer codes ``0..arity-1`` of the discrete training features.
    The counts ``n_{f,v,l}`` (patterns with value ``v`` of ``f`` and label ``l``) and
    ``n_{f,v}`` of *all* training rows are computed once, with one sparse product of
    the one-hot coding and ``Y``. :meth:`predict` trains on the rows outside ``test``
    by subtracting the counts of the test rows, restricted to the columns of ``S``.
    """

    def __init__(self, codes: np.ndarray, arity: np.ndarray, Y: np.ndarray):
        n, d = codes.shape
        self.codes = codes
        self.Y = np.ascontiguousarray(Y, dtype=np.float64)
        self.arity = np.asarray(arity, dtype=np.int64)
        self.off = np.concatenate([[0], np.cumsum(self.arity)])
        n_cols = int(self.off[-1])
        # Counts of the non-zero codes from one sparse product; code 0 (the most frequent
        # value, implicit as in the count engine) by subtraction from the totals.
        r, c = np.nonzero(codes)
        onehot = sp.csr_matrix((np.ones(r.size), (r, self.off[c] + codes[r, c])), shape=(n, n_cols))
        self.n_pos = np.asarray(onehot.T @ self.Y)  # (n_cols, q): n_{f,v,l=1}
        self.n_val = np.bincount(self.off[c] + codes[r, c], minlength=n_cols).astype(float)
        zero = self.off[:-1]
        self.n_pos[zero] = self.Y.sum(axis=0) - np.add.reduceat(self.n_pos, zero, axis=0)
        self.n_val[zero] = n - np.add.reduceat(self.n_val, zero)
        self.y_pos = self.Y.sum(axis=0)
        self.n = n

    def columns(self, S: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Columns of the value tables of the features ``S`` and where each feature starts."""
        ar = self.arity[S]
        starts = np.concatenate([[0], np.cumsum(ar)[:-1]])
        cols = np.arange(int(ar.sum())) + np.repeat(self.off[S] - starts, ar)
        return cols, starts

    def predict(
        self,
        S: np.ndarray,
        test: np.ndarray,
        alpha: float = 1.0,
        handle_unseen: str = "zero",
        reference_single_class_bug: bool = False,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Train on all rows but ``test`` with the features ``S``; predict the ``test`` rows.

        Returns the 0/1 predictions and the posteriors ``P(y_l = 1 | x)``, both
        ``(len(test), q)``, with the conventions of docs/methods/lazy.md#mlnb (see
        :func:`_nb_posteriors`).
        """
        S = np.asarray(S, dtype=np.intp)
        cols, starts = self.columns(S)
        n_test, c = test.size, cols.size
        # Sparse one-hot of the test rows on the non-zero codes of S (code 0, the most
        # frequent value, is implicit as in the count engine).
        sub = self.codes[np.ix_(test, S)]
        r, j = np.nonzero(sub)
        col = starts[j] + sub[r, j]
        ohz = sp.csr_matrix((np.ones(r.size), (r, col)), shape=(n_test, c))
        Yt = self.Y[test]
        t_pos = np.asarray(ohz.T @ Yt)
        t_val = np.bincount(col, minlength=c).astype(np.float64)
        t_pos[starts] = Yt.sum(axis=0) - np.add.reduceat(t_pos, starts, axis=0)
        t_val[starts] = n_test - np.add.reduceat(t_val, starts)
        return _nb_posteriors(
            ohz,
            self.n_pos[cols] - t_pos,
            self.n_val[cols] - t_val,
            starts,
            self.y_pos - Yt.sum(axis=0),
            self.n - n_test,
            alpha,
            handle_unseen,
            reference_single_class_bug,
        )


def _nb_posteriors(
    ohz: sp.csr_matrix,
    n_pos: np.ndarray,
    n_val: np.ndarray,
    starts: np.ndarray,
    y_pos: np.ndarray,
    n_train: int,
    alpha: float,
    handle_unseen: str,
    reference_single_class_bug: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """Categorical NB posteriors of test rows from training counts.

    ``ohz`` (n_test, c) is the one-hot coding of the test rows' non-zero codes over the
    ``c`` value columns of the selected features (code 0 of each feature implicit).
    ``n_pos`` (c, q) and ``n_val`` (c,) are the training counts of the ``c`` value columns,
    ``starts`` where each feature's columns begin, ``y_pos`` the positives per label.
    The conventions are those of :class:`~skmlfs.learners.MLNB` (docs/methods/lazy.md#mlnb): prior
    ``N_c/N``; likelihood ``(N_{c,f,v} + α)/(N_c + α|V_f|)`` with ``V_f`` the values of
    ``f`` seen in training; a zero likelihood (``α = 0``) makes the class impossible and a
    0/0 posterior gives 0; a label with one training class gets confidence 1 if that class
    is 1 and 0 if it is 0 (1 with ``reference_single_class_bug``); a test value outside
    ``V_f`` zeroes the whole row (``handle_unseen="zero"``) or is left out of the product
    (``"ignore"``); relevant iff ``ψ > 0.5``, a label whose only class is 0 never.
    """
    n_neg_l = n_train - y_pos
    n_neg = n_val[:, None] - n_pos
    seen = n_val > 0
    n_seen = np.add.reduceat(seen.astype(np.float64), starts) if starts.size else np.zeros(0)
    n_seen_col = np.repeat(n_seen, np.diff(np.append(starts, n_val.size)))
    q = y_pos.size
    tabs, zeros = [], []
    with np.errstate(divide="ignore", invalid="ignore"):
        for cnt, tot in ((n_neg, n_neg_l), (n_pos, y_pos)):
            num = cnt + alpha
            ok = seen[:, None] & (num > 0)
            den = np.log(tot[None, :] + alpha * n_seen_col[:, None])
            tabs.append(np.where(ok, np.log(np.where(ok, num, 1.0)) - den, 0.0))
            # zero likelihoods (α = 0) are counted, not summed, so -inf never meets +inf
            zeros.append((seen[:, None] & ~ok).astype(np.float64))
        prior = np.log(np.vstack([n_neg_l, y_pos]) / n_train)
    has_zero = zeros[0].any() or zeros[1].any()
    check_unseen = handle_unseen == "zero" and not seen.all()
    # One sparse product of the non-zero-code rows with every table side by side, each
    # taken relative to its code-0 row; the code-0 rows summed over S give the baseline.
    table = np.hstack(
        tabs
        + (zeros if has_zero else [])
        + ([(~seen).astype(np.float64)[:, None]] if check_unseen else [])
    )
    zero_rows = table[starts]
    rel = table - np.repeat(zero_rows, np.diff(np.append(starts, table.shape[0])), axis=0)
    prod = zero_rows.sum(axis=0)[None, :] + np.asarray(ohz @ rel)
    log_p0 = prior[0] + prod[:, :q]
    log_p1 = prior[1] + prod[:, q : 2 * q]
    if has_zero:
        log_p0[prod[:, 2 * q : 3 * q] > 0.5] = -np.inf
        log_p1[prod[:, 3 * q : 4 * q] > 0.5] = -np.inf
    with np.errstate(invalid="ignore"):
        psi = expit(log_p1 - log_p0)
    psi[np.isnan(psi)] = 0.0
    only_pos, only_neg = n_neg_l == 0, y_pos == 0
    psi[:, only_pos] = 1.0
    psi[:, only_neg] = 1.0 if reference_single_class_bug else 0.0
    if check_unseen:
        psi[prod[:, -1] > 0.5] = 0.0
    pred = (psi > 0.5).astype(np.uint8)
    pred[:, only_neg] = 0
    return pred, psi


class _Fitness:
    """The fitness function (docs/methods/memetic.md#fitness): one call = one FFC.

    Each call draws a fresh random holdout of the training patterns (``resample``; the
    reference's ``crossvalind('holdout', …, 0.2)``) or reuses one fixed split, trains the
    learner on the rest with the features ``S``, and returns the loss (the metric as a
    value to minimise) and the number of held-out patterns whose label ``l`` is predicted
    correctly, per label.
    """

    def __init__(self, Xd, tables, Y, learner, metric, holdout, inner_split, rng):
        self.Xd, self.tables, self.Y = Xd, tables, Y
        self.learner = learner
        self.name, self.fn, self.greater, self.needs, self.kwargs = _resolve_metric(metric)
        n = Y.shape[0]
        self.n_test = max(1, min(n - 1, int(np.floor(holdout * n))))
        self.resample = inner_split == "resample"
        self.rng = rng
        self._fixed = None if self.resample else self._draw()
        self.n_calls = 0

    def _draw(self) -> np.ndarray:
        return np.sort(self.rng.permutation(self.Y.shape[0])[: self.n_test])

    def __call__(self, S: np.ndarray) -> tuple[float, np.ndarray]:
        self.n_calls += 1
        test = self._draw() if self.resample else self._fixed
        if S.size == 0:
            return np.inf, np.zeros(self.Y.shape[1], dtype=np.int64)
        if self.tables is not None:
            pred, psi = self.tables.predict(S, test, **self.learner)
        else:
            train = np.ones(self.Y.shape[0], dtype=bool)
            train[test] = False
            with _quiet_empty_labels():  # per-FFC refits of an inner split: fit warned once
                model = clone(self.learner).fit(self.Xd[train][:, S], self.Y[train])
            Xt = self.Xd[test][:, S]
            from ..learners._base import NoPositivePredictionWarning

            with warnings.catch_warnings():  # a candidate predicting nothing is scored as such
                warnings.simplefilter("ignore", NoPositivePredictionWarning)
                pred = np.asarray(model.predict(Xt)).astype(np.uint8)
            psi = (
                np.asarray(model.predict_proba(Xt), dtype=float) if self.needs == "score" else None
            )
        Yt = self.Y[test]
        value = self.fn(Yt, psi if self.needs == "score" else pred, **self.kwargs)
        correct = np.count_nonzero(pred == Yt, axis=0).astype(np.int64)
        loss = -value if self.greater else value
        return (np.inf if np.isnan(loss) else float(loss)), correct


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
class _EvolutionarySelector(SelectorMixin, BaseEstimator):
    """Shared machinery: validation, fitness, Algorithm 1's loop and survivor selection."""

    def _check_common(self, n_features: int, n_samples: int) -> int:
        for name in ("population_size", "max_evaluations", "n_crossovers"):
            v = getattr(self, name)
            if not isinstance(v, numbers.Integral) or isinstance(v, bool) or v < 1:
                raise ValueError(f"{name} must be a positive int; got {v!r}.")
        # n_max: the library's one budget parser (None = ⌈√n⌉, as for every selector)
        n_max = resolve_n_features(self.n_features_to_select, n_samples, n_features)
        if not 0 < self.holdout < 1:
            raise ValueError(f"holdout must lie in (0, 1); got {self.holdout!r}.")
        if self.inner_split not in ("resample", "fixed"):
            raise ValueError(
                f"inner_split must be 'resample' or 'fixed'; got {self.inner_split!r}."
            )
        return n_max

    def _discretize(self, X, Y):
        return discretize_features(self.discretizer, X, Y)

    def _learner_spec(self, Xd: Any = None):
        """``(kwargs of the fast count-table path, None)`` or ``(None, estimator)``.

        The count-table path counts the symbols of ``Xd`` as they are: it serves an MLNB
        whose own ``discretizer`` would leave ``Xd`` unchanged (``None``, or ``"auto"`` on
        integer-valued data); otherwise MLNB is refitted with its discretizer per FFC.
        """
        from ..learners import MLNB

        learner = MLNB() if self.learner is None else self.learner
        if type(learner) is MLNB:
            disc = learner.discretizer
            if disc is None or (isinstance(disc, str) and disc == "auto"
                                and (Xd is None or is_discrete(Xd))):
                return _mlnb_fast_kwargs(learner), None
        return None, learner

    def fit(self, X: Any, Y: Any):
        """Search a feature subset of ``X`` for the labels ``Y``.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            Discrete features (numeric ones are discretized, see ``discretizer``).
        Y : array-like or sparse matrix of shape (n_samples, n_labels), 0/1
        """
        X = validate_data(
            self, X, accept_sparse=["csr", "csc"], dtype="numeric", ensure_all_finite=True
        )
        Y = check_labels(Y, X.shape[0], warn_empty=True)
        if degenerate_selection(self, X):
            return self
        if X.shape[0] < 2:
            raise ValueError("at least 2 samples are needed for the inner holdout.")
        n_max = self._check_common(X.shape[1], X.shape[0])
        self._check_params()
        rng = check_random_state(self.random_state)
        Xd = self._discretize(X, Y)
        D = DiscreteData.from_array(Xd)
        cache = self._make_cache(D, Y)
        fast, learner = self._learner_spec(Xd)
        if fast is not None:
            codes = D.codes()
            tables = _NBCountTables(
                codes.astype(np.min_scalar_type(max(1, D.arity.max()))), D.arity, Y
            )
        else:
            tables = None
            fast = learner
        Xl = Xd.tocsr() if sp.issparse(Xd) else np.asarray(Xd)
        fitness = _Fitness(Xl, tables, Y, fast, self.metric, self.holdout, self.inner_split, rng)
        with threadpool_limits(limits=1):
            pop, hist = self._search(fitness, cache, rng, n_max, X.shape[1], Y.shape[1])
        best = np.sort(pop.subsets[0])
        # Order the chosen subset by GICS on all labels so that ranking_[:k] is a sensible
        # smaller subset; the search itself is order-free.
        with threadpool_limits(limits=1):
            ranked, scores = gics_select(cache, best, np.arange(Y.shape[1]), best.size)
        rest = np.setdiff1d(best, ranked)
        self.ranking_ = np.concatenate([ranked, rest]).astype(np.intp)
        self.scores_ = np.concatenate([scores, np.full(rest.size, np.nan)])
        self.best_subset_ = best
        self.best_loss_ = float(pop.loss[0])
        self.best_label_accuracy_ = pop.correct[0] / fitness.n_test
        self.population_ = [np.sort(S) for S in pop.subsets]
        self.population_loss_ = pop.loss.copy()
        self.n_evaluations_ = fitness.n_calls
        self.n_features_to_select_ = int(best.size)
        self.metric_ = fitness.name
        self.history_ = hist
        return self

    def _check_params(self) -> None:
        """Hook for subclass parameters."""

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
    def _get_support_mask(self) -> np.ndarray:
        check_is_fitted(self, "ranking_")
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[self.ranking_] = True
        return mask

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.target_tags.multi_output = True
        tags.input_tags.sparse = True
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


def _mlnb_fast_kwargs(learner) -> dict:
    """The parameters of :class:`~skmlfs.learners.MLNB` that the count-table path honours."""
    learner._validate_params()
    p = learner.get_params()
    return {
        "alpha": float(p["alpha"]),
        "handle_unseen": p["handle_unseen"],
        "reference_single_class_bug": bool(p["reference_single_class_bug"]),
    }


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
    metric : str, default="multilabel_accuracy"
        The fitness: ``"multilabel_accuracy"`` (``"mlacc"``), ``"one_error"``
        (``"onerr"``), ``"ranking_loss"`` (``"rloss"``) or ``"coverage"`` (``"mlcov"``),
        computed with the PLCFS conventions (docs/methods/metrics.md); any other name of
        :data:`skmlfs.metrics.METRICS` with its defaults.
    learner : estimator or None, default=None
        ``None`` = :class:`~skmlfs.learners.MLNB` (the paper's learner). An ``MLNB``
        instance is evaluated through exact count tables (fast); any other multi-label
        estimator is cloned and refitted on every FFC.
    holdout : float, default=0.2
        Fraction of the training patterns held out in each FFC (``⌊holdout·n⌋``).
    inner_split : {"resample", "fixed"}, default="resample"
        ``"resample"``: a fresh random holdout in every FFC (reference
        ``crossvalind``); ``"fixed"``: one holdout drawn at the start of ``fit``.
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
    random_state : int, RandomState or None, default=None
        Seeds the initial population, the tournaments, the holdouts and the mutations.

    Attributes
    ----------
    ranking_ : ndarray of int
        The best subset, ordered by GICS on all labels (training data).
    scores_ : ndarray of float
        GICS score of each feature of ``ranking_`` when it was placed.
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
    >>> from skmlfs.selection import MemeticSelector
    >>> rng = np.random.default_rng(0)
    >>> X = rng.integers(0, 3, size=(200, 40)); Y = (X[:, :4] > 1).astype(int)
    >>> sel = MemeticSelector(n_features_to_select=5, population_size=10,
    ...                       max_evaluations=40, random_state=0).fit(X, Y)
    >>> sel.transform(X).shape
    (200, 5)
    """

    def __init__(
        self,
        n_features_to_select: Any = 50,
        population_size: int = 50,
        max_evaluations: int = 300,
        metric: str = "multilabel_accuracy",
        learner: Any = None,
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
        random_state: Any = None,
    ):
        self.n_features_to_select = n_features_to_select
        self.population_size = population_size
        self.max_evaluations = max_evaluations
        self.metric = metric
        self.learner = learner
        self.holdout = holdout
        self.inner_split = inner_split
        self.n_crossovers = n_crossovers
        self.z_mode = z_mode
        self.z_fraction = z_fraction
        self.cap_z = cap_z
        self.operators = operators
        self.mutation_import = mutation_import
        self.strict_budget = strict_budget
        self.reference_parent_quirk = reference_parent_quirk
        self.discretizer = discretizer
        self.random_state = random_state

    def _check_params(self) -> None:
        if self.z_mode not in ("gap", "fixed"):
            raise ValueError(f"z_mode must be 'gap' or 'fixed'; got {self.z_mode!r}.")
        if self.z_mode == "fixed" and not 0 < self.z_fraction <= 1:
            raise ValueError(f"z_fraction must lie in (0, 1]; got {self.z_fraction!r}.")
        if self.operators not in ("reference", "paper"):
            raise ValueError(f"operators must be 'reference' or 'paper'; got {self.operators!r}.")
        if self.mutation_import not in (None, "entropy_sampling", "gics"):
            raise ValueError(
                "mutation_import must be None, 'entropy_sampling' or 'gics'; got "
                f"{self.mutation_import!r}."
            )

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

    Parameters and attributes are those of :class:`MemeticSelector` that concern the
    search itself (no ``Z`` quantities: ``history_["reproductions"]["z_size"]`` is 0 and
    ``z_labels`` holds empty arrays).
    """

    def __init__(
        self,
        n_features_to_select: Any = 50,
        population_size: int = 50,
        max_evaluations: int = 300,
        metric: str = "multilabel_accuracy",
        learner: Any = None,
        holdout: float = 0.2,
        inner_split: str = "resample",
        n_crossovers: int = 10,
        strict_budget: bool = False,
        discretizer: Any = "auto",
        random_state: Any = None,
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
        self.random_state = random_state

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
