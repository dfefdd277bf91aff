"""Multi-label naive Bayes: one categorical naive Bayes per label (``docs/methods/lazy.md#mlnb``).

This is the MLNB of the memetic/PLCFS reference code (MATLAB ``fitcnb(..., 'mvmn')`` per
label on discretized features), the assumed learner of the SCLS experiments.

Implementation
--------------
Feature values are categorical symbols (exact equality), coded by the count engine
(:class:`~skmlfs.info.DiscreteData`): code 0 of every feature is implicit, only the
indicators of the other codes are stored. :class:`_NBCounts` is the one count table of
the library's naive Bayes: ``n_{f,v,l=1}`` and ``n_{f,v}`` for every value of every
feature from one product ``indicatorsᵀ @ Y``, code 0 by subtraction from the totals.
:func:`_nb_log_tables` turns counts into the log-likelihood table (class 0 and class 1
side by side) taken *relative to* each feature's code 0, plus a baseline (the
log-likelihood of an all-code-0 row); :func:`_nb_apply` scores test rows with one sparse
product of their non-zero codes with that table.

Both uses share these three pieces:

* :class:`MLNB` codes ``X`` with code 0 = the value 0 (so sparse input stays sparse) and
  builds the table once in ``fit``;
* :meth:`MLNB.subset_evaluator` serves a wrapper that scores many feature subsets on many
  inner splits of one training set (the memetic search): the counts of the whole
  training set are computed once, and each evaluation counts only its held-out rows on
  the selected features and subtracts (:class:`_NBSubsetEvaluator`).
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Real
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin, MultiOutputMixin, _fit_context
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from .._validation import check_labels
from ..discretize import fit_discretizer, is_discrete
from ..info import DiscreteData
from ._base import MultiLabelLearnerMixin

__all__ = ["MLNB"]


def _nonzero_entries(X: Any) -> tuple[sp.csr_matrix, np.ndarray]:
    """CSR copy of ``X`` holding only its non-zero entries, and the row index of each."""
    Xc = sp.csr_matrix(X, dtype=np.float64, copy=True)
    Xc.eliminate_zeros()
    Xc.sum_duplicates()
    Xc.sort_indices()
    rows = np.repeat(np.arange(Xc.shape[0]), np.diff(Xc.indptr))
    return Xc, rows


# ---------------------------------------------------------------------- the count table
class _NBCounts:
    """Counts of a categorical per-label naive Bayes on the count engine's coding.

    Feature ``f`` owns the value columns ``off[f]:off[f + 1]``, its code 0 first. From the
    stored indicators of the non-zero codes of ``D`` (one product ``indicatorsᵀ @ Y``):
    ``n_pos`` (columns, q) = ``n_{f,v,l=1}``, ``n_val`` (columns,) = ``n_{f,v}``;
    the code-0 rows by subtraction from the totals ``y_pos`` (positives per label) and
    ``n``. Counts are integers held exactly in float64.
    """

    def __init__(self, D: DiscreteData, Y: np.ndarray):
        n, d = D.n_samples, D.n_vars
        Y = np.ascontiguousarray(Y, dtype=np.float64)
        self.arity = np.asarray(D.arity, dtype=np.int64)
        self.off = np.concatenate([[0], np.cumsum(self.arity)])
        n_cols = int(self.off[-1])
        zero = self.off[:-1]
        # stored indicator column j (variable f, code c >= 1) is value column off[f] + c
        nz = np.arange(int(D.ptr[-1])) + np.repeat(np.arange(d) + 1, self.arity - 1)
        self.y_pos = Y.sum(axis=0)
        self.n_pos = np.zeros((n_cols, Y.shape[1]))
        self.n_pos[nz] = np.asarray(D.indicators.T @ Y, dtype=np.float64)
        self.n_val = np.zeros(n_cols)
        self.n_val[nz] = D.counts
        if d:
            self.n_pos[zero] = self.y_pos - np.add.reduceat(self.n_pos, zero, axis=0)
            self.n_val[zero] = n - np.add.reduceat(self.n_val, zero)
        self.n = n

    def columns(self, S: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Value columns of the features ``S`` and where each feature starts among them."""
        ar = self.arity[S]
        starts = np.concatenate([[0], np.cumsum(ar)[:-1]])
        cols = np.arange(int(ar.sum())) + np.repeat(self.off[S] - starts, ar)
        return cols, starts


@dataclass
class _NBLogTable:
    """Log-likelihood tables of a categorical per-label NB (see :func:`_nb_log_tables`)."""

    prior: np.ndarray  # (2, q): log P(y_l = 0), log P(y_l = 1)
    rel: np.ndarray  # (c, C): table rows relative to each feature's code-0 row
    zero_rows: np.ndarray  # (|S|, C): the code-0 rows
    baseline: np.ndarray  # (C,): the code-0 rows summed over the features
    q: int
    has_zero: bool
    check_unseen: bool
    only_pos: np.ndarray
    only_neg: np.ndarray
    reference_single_class_bug: bool


def _nb_log_tables(
    n_pos: np.ndarray,
    n_val: np.ndarray,
    starts: np.ndarray,
    y_pos: np.ndarray,
    n_train: int,
    alpha: float,
    handle_unseen: str,
    reference_single_class_bug: bool,
) -> _NBLogTable:
    """Categorical NB log-likelihood tables from training counts.

    ``n_pos`` (c, q) and ``n_val`` (c,) are the training counts of the ``c`` value
    columns of the selected features, ``starts`` where each feature's columns begin (its
    code 0), ``y_pos`` the positives per label. The conventions are those of
    :class:`MLNB` (docs/methods/lazy.md#mlnb): prior ``N_c/N``; likelihood
    ``(N_{c,f,v} + α)/(N_c + α|V_f|)`` with ``V_f`` the values of ``f`` seen in
    training; a zero likelihood (``α = 0``) is counted in its own columns rather than
    summed, so ``-inf`` never meets ``+inf``; with ``handle_unseen="zero"`` one more
    column counts the values of a test row that training never saw.
    """
    n_neg_l = n_train - y_pos
    n_neg = n_val[:, None] - n_pos
    seen = n_val > 0
    n_seen = np.add.reduceat(seen.astype(np.float64), starts) if starts.size else np.zeros(0)
    n_seen_col = np.repeat(n_seen, np.diff(np.append(starts, n_val.size)))
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
    has_zero = bool(zeros[0].any() or zeros[1].any())
    check_unseen = handle_unseen == "zero" and not seen.all()
    # Every table side by side (one sparse product scores them all), each taken relative
    # to its code-0 row; the code-0 rows summed over the features give the baseline.
    table = np.hstack(
        tabs
        + (zeros if has_zero else [])
        + ([(~seen).astype(np.float64)[:, None]] if check_unseen else [])
    )
    zero_rows = table[starts]
    rel = table - np.repeat(zero_rows, np.diff(np.append(starts, table.shape[0])), axis=0)
    return _NBLogTable(
        prior, rel, zero_rows, zero_rows.sum(axis=0), int(y_pos.size), has_zero, check_unseen,
        n_neg_l == 0, y_pos == 0, bool(reference_single_class_bug),
    )


def _nb_apply(
    t: _NBLogTable,
    ohz: sp.csr_matrix,
    *,
    unseen_rows: np.ndarray | None = None,
    left_out: sp.csr_matrix | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """0/1 predictions and posteriors ``P(y_l = 1 | x)`` of test rows, both (n_test, q).

    ``ohz`` (n_test, c) is the one-hot coding of the test rows' non-zero codes over the
    value columns of ``t`` (code 0 of each feature implicit). ``unseen_rows``: rows with a
    value outside the table (``handle_unseen="zero"`` zeroes them); ``left_out``
    (n_test, |S|): features whose value is outside the table, left out of the product
    (``handle_unseen="ignore"``). A 0/0 posterior gives 0; a label with one training class
    gets confidence 1 if that class is 1 and 0 if it is 0 (1 with
    ``reference_single_class_bug``); relevant iff ``ψ > 0.5``, a label whose only class
    is 0 never.
    """
    q = t.q
    prod = t.baseline[None, :] + np.asarray(ohz @ t.rel)
    if left_out is not None:
        prod -= np.asarray(left_out @ t.zero_rows)
    log_p0 = t.prior[0] + prod[:, :q]
    log_p1 = t.prior[1] + prod[:, q : 2 * q]
    if t.has_zero:
        log_p0[prod[:, 2 * q : 3 * q] > 0.5] = -np.inf
        log_p1[prod[:, 3 * q : 4 * q] > 0.5] = -np.inf
    with np.errstate(invalid="ignore"):
        psi = expit(log_p1 - log_p0)
    psi[np.isnan(psi)] = 0.0
    psi[:, t.only_pos] = 1.0
    psi[:, t.only_neg] = 1.0 if t.reference_single_class_bug else 0.0
    if t.check_unseen:
        psi[prod[:, -1] > 0.5] = 0.0
    if unseen_rows is not None:
        psi[unseen_rows] = 0.0
    pred = (psi > 0.5).astype(np.uint8)
    pred[:, t.only_neg] = 0
    return pred, psi


class _NBSubsetEvaluator:
    """An MLNB refitted on any feature subset and inner split, by slicing one count table.

    Made by :meth:`MLNB.subset_evaluator`. ``codes`` (n, d) are the engine's codes of the
    training features (code 0 the most frequent value of each column). :meth:`predict`
    trains on the rows outside ``test`` by subtracting the counts of the ``test`` rows,
    restricted to the columns of ``S``, from the counts of all rows.
    """

    def __init__(self, D: DiscreteData, Y: np.ndarray, alpha: float, handle_unseen: str,
                 reference_single_class_bug: bool):
        self.counts = _NBCounts(D, Y)
        self.codes = D.codes().astype(np.min_scalar_type(max(1, int(D.arity.max(initial=1)))))
        self.Y = np.ascontiguousarray(Y, dtype=np.float64)
        self.params = (float(alpha), handle_unseen, bool(reference_single_class_bug))

    def predict(self, S: np.ndarray, test: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Train on all rows but ``test`` with the features ``S``; predict the ``test`` rows.

        Returns the 0/1 predictions and the posteriors ``P(y_l = 1 | x)``, both
        ``(len(test), q)``.
        """
        tab = self.counts
        S = np.asarray(S, dtype=np.intp)
        cols, starts = tab.columns(S)
        n_test, c = test.size, cols.size
        # Sparse one-hot of the test rows on the non-zero codes of S.
        sub = self.codes[np.ix_(test, S)]
        r, j = np.nonzero(sub)
        col = starts[j] + sub[r, j]
        ohz = sp.csr_matrix((np.ones(r.size), (r, col)), shape=(n_test, c))
        Yt = self.Y[test]
        t_pos = np.asarray(ohz.T @ Yt)
        t_val = np.bincount(col, minlength=c).astype(np.float64)
        t_pos[starts] = Yt.sum(axis=0) - np.add.reduceat(t_pos, starts, axis=0)
        t_val[starts] = n_test - np.add.reduceat(t_val, starts)
        logs = _nb_log_tables(
            tab.n_pos[cols] - t_pos,
            tab.n_val[cols] - t_val,
            starts,
            tab.y_pos - Yt.sum(axis=0),
            tab.n - n_test,
            *self.params,
        )
        return _nb_apply(logs, ohz)


class MLNB(MultiLabelLearnerMixin, MultiOutputMixin, ClassifierMixin, BaseEstimator):
    """Multi-label naive Bayes with categorical likelihoods (``docs/methods/lazy.md#mlnb``).

    For every label ``l`` independently (binary relevance), with classes ``c ∈ {0, 1}``::

        P(y_l = c)             = N_c / N                                (empirical prior)
        P(x_f = v | y_l = c)   = (N_{c,f,v} + α) / (N_c + α·|V_f|)
        ψ_l(x) = P(y_l = 1 | x) = 1 / (1 + exp(log p_0 − log p_1)),
        log p_c = log P(y_l = c) + Σ_f log P(x_f | y_l = c)

    where ``V_f`` is the set of values of feature ``f`` seen in the training data.

    Parameters
    ----------
    alpha : float, default=1.0
        Additive (Laplace) smoothing ``α ≥ 0``. ``alpha=0`` is the believed reference mode
        (unsmoothed relative frequencies of MATLAB ``mvmn``; ``docs/methods/lazy.md#mlnb``
        [ASSUMPTION]); then a value never seen with a class has likelihood 0, and if both
        classes get probability 0 the posterior is 0/0, which — as in the reference — gives
        confidence 0 and prediction 0.
    handle_unseen : {"zero", "ignore"}, default="zero"
        A test value of feature ``f`` outside ``V_f``:

        * ``"zero"`` (reference): MATLAB returns NaN and the reference code sets the
          confidence and the prediction of **every** label of that instance to 0.
        * ``"ignore"``: the feature is left out of the product for that instance.
    reference_single_class_bug : bool, default=False
        A label with one class only in the training data (a quirk of the reference
        code): by default its
        confidence is 1 if that class is 1 and 0 if it is 0. With ``True`` the reference
        code's behaviour is reproduced bit for bit: the confidence is 1 for every test
        instance even when the only class is 0 (and the prediction is still that class).
    discretizer : "auto", None or transformer, default="auto"
        How numeric features become the categorical symbols the likelihoods count, the
        rule the selectors use (:func:`skmlfs.discretize.fit_discretizer`):
        ``"auto"`` uses integer-valued training data (binary, nominal codes, already
        discretized) as it is — the reference MLNB, unchanged — and discretizes data with
        fractional values by :class:`~skmlfs.discretize.LAIMDiscretizer` fitted on the
        training data only (its bins are applied to the data given to ``predict``).
        ``None``: every distinct value is a symbol as it is (a float seen once in training
        is then a category of its own, and unseen test values zero the confidences, see
        ``handle_unseen``). A transformer is cloned and fitted with ``fit(X, Y)``.

    Attributes
    ----------
    classes_ : list of ndarray
        Per label, the classes seen in training (``[0, 1]``, or one class).
    categories_ : list of ndarray
        Per feature, the sorted values ``V_f`` seen in training.
    class_count_ : ndarray of shape (2, n_labels)
        ``N_0`` and ``N_1`` per label.
    class_log_prior_ : ndarray of shape (2, n_labels)
        Log of the empirical priors (``-inf`` for an absent class).
    discretizer_ : fitted transformer or None
        The discretizer applied to ``X`` before counting (``None``: ``X`` as it is);
        ``categories_`` are then its codes.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` has string feature names.

    Notes
    -----
    * Values are compared exactly as float64 symbols: ``1`` and ``1.0`` are the same value,
      ``0.3`` and ``0.30000000000000004`` are not, hence ``discretizer="auto"`` for data
      with fractional values. NaN and infinity are rejected.
    * ``predict`` returns ``ψ > 0.5`` (strict: the MAP class, ties go to class 0 — MATLAB
      ``fitcnb`` MAP predictions), except for the single-class labels described above.
    * Computation is in log space; zero likelihoods (``alpha=0``) are tracked as exact
      counts so that ``-inf`` never meets ``+inf``.
    """

    _parameter_constraints: dict = {
        "alpha": [Interval(Real, 0, None, closed="left")],
        "handle_unseen": [StrOptions({"zero", "ignore"})],
        "reference_single_class_bug": ["boolean"],
        "discretizer": [StrOptions({"auto"}), None, HasMethods(["fit", "transform"])],
    }

    def __init__(
        self,
        alpha: float = 1.0,
        handle_unseen: str = "zero",
        reference_single_class_bug: bool = False,
        discretizer: Any = "auto",
    ) -> None:
        self.alpha = alpha
        self.handle_unseen = handle_unseen
        self.reference_single_class_bug = reference_single_class_bug
        self.discretizer = discretizer

    # ------------------------------------------------------------------ fit
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X: Any, Y: Any) -> MLNB:
        """Count class and (feature value, class) frequencies for every label.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            Features: discrete symbols, or numeric values discretized as ``discretizer``
            says.
        Y : array-like or sparse matrix of shape (n_samples, n_labels)
            0/1 label matrix.

        Returns
        -------
        self
        """
        alpha = float(self.alpha)  # [0, inf): _parameter_constraints, checked on entry
        X = validate_data(
            self, X, accept_sparse=["csr", "csc"], dtype=np.float64, ensure_all_finite=True,
            reset=True,
        )
        Yv = check_labels(Y, X.shape[0], warn_empty=True)
        self._fit_label_info(Yv)
        # fitted on the training data only; predict applies the same bins
        self.discretizer_ = fit_discretizer(self.discretizer, X, Yv)
        if self.discretizer_ is not None:
            X = self.discretizer_.transform(X)
        Yv = Yv.astype(np.float64)
        n, d = X.shape
        # Code 0 is the value 0 (the engine's coding of sparse input), so the stored
        # indicators are the non-zeros of X whether X is dense or sparse; kept sparse.
        D = DiscreteData.from_array(sp.csc_matrix(X, dtype=np.float64), dense=False)
        counts = _NBCounts(D, Yv)
        self._log_table = _nb_log_tables(
            counts.n_pos, counts.n_val, counts.off[:-1], counts.y_pos, n, alpha,
            self.handle_unseen, self.reference_single_class_bug,
        )
        self.class_log_prior_ = self._log_table.prior
        self.class_count_ = np.vstack([n - counts.y_pos, counts.y_pos])
        # Lookup of test values: the non-zero values of feature f are codes 1.. of f, in
        # ascending order; key = f·G + rank of the value among all non-zero values.
        nz_var = np.repeat(np.arange(d), counts.arity - 1)
        nz_values = (
            np.concatenate([v[1:] for v in D.values]).astype(np.float64)
            if d else np.zeros(0)
        )
        self._values = np.unique(nz_values)
        self._G = max(len(self._values), 1)
        self._keys = nz_var * self._G + np.searchsorted(self._values, nz_values)
        zero_seen = counts.n_val[counts.off[:-1]] > 0
        self.categories_ = [
            np.sort(np.asarray(v[1:] if not zero_seen[f] else v, dtype=np.float64))
            for f, v in enumerate(D.values)
        ]
        self.n_labels_ = Yv.shape[1]
        return self

    def subset_evaluator(self, X: Any, Y: Any) -> _NBSubsetEvaluator | None:
        """Fast stand-in for refitting this MLNB on many feature subsets and inner splits.

        A wrapper that scores many candidate subsets ``S`` on inner splits of one training
        set (:class:`~skmlfs.selection.MemeticSelector`) calls this once per ``fit``.
        The returned object's ``predict(S, test)`` gives the 0/1 predictions and the
        posteriors ``P(y_l = 1 | x)`` (both ``(len(test), n_labels)``) of
        ``clone(self).fit(X[train][:, S], Y[train])`` on ``X[test][:, S]``, where
        ``train`` is every row not in ``test``: the counts of all rows are taken once
        and each call counts only the ``test`` rows on ``S`` and subtracts. The
        probabilities equal the refit's up to the rounding of the log-likelihood sums
        (the evaluator codes each column's most frequent value implicitly, the refit the
        value 0); the predictions are identical except exactly at ``ψ = 0.5``.

        Any estimator may offer a method of this name and contract; wrappers use it when
        present (duck typing) and clone, fit and predict otherwise.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            The training features as the wrapper sees them (discrete symbols).
        Y : array-like of shape (n_samples, n_labels)
            0/1 labels.

        Returns
        -------
        evaluator or None
            ``None`` when this MLNB would discretize ``X`` itself (``discretizer`` a
            transformer, or ``"auto"`` on data with fractional values): its symbols then
            depend on the training rows of each split, and only a refit is exact.
        """
        self._validate_params()  # scikit-learn's check of _parameter_constraints
        alpha = float(self.alpha)
        disc = self.discretizer
        if not (disc is None or (isinstance(disc, str) and disc == "auto" and is_discrete(X))):
            return None
        Yv = check_labels(Y, X.shape[0])
        return _NBSubsetEvaluator(
            DiscreteData.from_array(X), Yv, alpha, self.handle_unseen,
            self.reference_single_class_bug,
        )

    # -------------------------------------------------------------- predict
    def _predict_both(self, X: Any) -> tuple[np.ndarray, np.ndarray]:
        """Predictions and posteriors of validated, discretized ``X``."""
        Xc, rows = _nonzero_entries(X)
        n, d = Xc.shape
        feats = Xc.indices.astype(np.int64)
        vals, keys, G = self._values, self._keys, self._G
        pos = np.searchsorted(vals, Xc.data)
        seen = vals[np.minimum(pos, len(vals) - 1)] == Xc.data if len(vals) else pos < 0
        key = feats * G + pos
        kpos = np.searchsorted(keys, key)
        seen &= keys[np.minimum(kpos, len(keys) - 1)] == key if len(keys) else False
        # stored non-zero code k of feature f is value column k + f + 1 (code 0 first)
        ohz = sp.csr_matrix(
            (np.ones(int(seen.sum())), (rows[seen], kpos[seen] + feats[seen] + 1)),
            shape=(n, self._log_table.rel.shape[0]),
        )
        unseen_rows = left_out = None
        if not seen.all():
            if self.handle_unseen == "zero":
                unseen_rows = np.bincount(rows[~seen], minlength=n) > 0
            else:  # an unseen non-zero value leaves its feature out of the product
                left_out = sp.csr_matrix(
                    (np.ones(int((~seen).sum())), (rows[~seen], feats[~seen])), shape=(n, d)
                )
        return _nb_apply(self._log_table, ohz, unseen_rows=unseen_rows, left_out=left_out)

    def _validated(self, X: Any) -> Any:
        check_is_fitted(self, "class_count_")
        X = validate_data(
            self, X, accept_sparse=["csr", "csc"], dtype=np.float64, ensure_all_finite=True,
            reset=False,
        )
        disc = getattr(self, "discretizer_", None)
        return X if disc is None else disc.transform(X)

    def predict_proba(self, X: Any) -> np.ndarray:
        """Posterior ``ψ_l(x) = P(y_l = 1 | x)`` for every label.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_labels), float64
            0 for instances with an unseen value (``handle_unseen="zero"``) and for 0/0
            posteriors; single-class labels as described for ``reference_single_class_bug``.
        """
        return self._predict_both(self._validated(X))[1]

    def predict(self, X: Any) -> np.ndarray:
        """Relevant iff ``ψ_l(x) > 0.5`` (MAP class, ties go to 0).

        Returns
        -------
        ndarray of shape (n_samples, n_labels), int64
            0/1 predictions. A label whose only training class is 0 is always predicted 0
            (also with ``reference_single_class_bug=True``, where its confidence is 1).
        """
        pred = self._predict_both(self._validated(X))[0].astype(np.int64)
        return self._check_predictions(pred)
