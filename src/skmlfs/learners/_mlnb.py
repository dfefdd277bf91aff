"""Multi-label naive Bayes: one categorical naive Bayes per label (``docs/methods/lazy.md#mlnb``).

This is the MLNB of the memetic/PLCFS reference code (MATLAB ``fitcnb(..., 'mvmn')`` per
label on discretized features), the assumed learner of the SCLS experiments.

Implementation
--------------
Feature values are categorical symbols (exact equality). The non-zero entries of ``X`` are
one-hot encoded into an ``n × K`` sparse matrix over the observed (feature, non-zero value)
pairs; all class-conditional counts come from one product ``OneHot.T @ Y``. The value 0 of
every feature is kept implicit (so sparse input stays sparse and dense input is handled the
same way): its counts are the class totals minus the non-zero counts. Prediction is one
sparse product ``OneHot_test @ T`` with the ``K × 2q`` table of log-likelihoods (class 0 and
class 1 side by side) taken *relative to* the log-likelihood of value 0, plus a per-label
baseline (the log-likelihood of an all-zero row).
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin, MultiOutputMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from .._validation import check_labels
from ..discretize._auto import fit_discretizer
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

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = False
        tags.classifier_tags.multi_label = True
        return tags

    # ------------------------------------------------------------------ fit
    def _validate_params(self) -> float:
        a = self.alpha
        if not isinstance(a, numbers.Real) or isinstance(a, bool) or not np.isfinite(a) or a < 0:
            raise ValueError(f"alpha must be a finite real number >= 0; got {a!r}.")
        if self.handle_unseen not in ("zero", "ignore"):
            raise ValueError(
                f"handle_unseen must be 'zero' or 'ignore'; got {self.handle_unseen!r}."
            )
        if not isinstance(self.reference_single_class_bug, bool | np.bool_):
            raise ValueError(
                "reference_single_class_bug must be a bool; got "
                f"{self.reference_single_class_bug!r}."
            )
        return float(a)

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
        alpha = self._validate_params()
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
        q = Yv.shape[1]

        Xc, rows = _nonzero_entries(X)
        feats = Xc.indices.astype(np.int64)
        vals, gid = np.unique(Xc.data, return_inverse=True)
        G = max(len(vals), 1)
        keys, col = np.unique(feats * G + gid, return_inverse=True)
        K = len(keys)
        feat_of_k = keys // G
        onehot = sp.csr_matrix((np.ones(len(col)), (rows, col)), shape=(n, K))

        # Counts of the non-zero values: (K, q), and per feature via the K×d indicator.
        c1_nz = np.asarray(onehot.T @ Yv)
        tot_nz = np.bincount(col, minlength=K).astype(np.float64)
        c0_nz = tot_nz[:, None] - c1_nz
        indicator = sp.csr_matrix((np.ones(K), (np.arange(K), feat_of_k)), shape=(K, d))
        n_c = np.vstack([n - Yv.sum(axis=0), Yv.sum(axis=0)])  # (2, q)
        nnz_f = np.bincount(feats, minlength=d)
        zero_seen = nnz_f < n
        c1_zero = Yv.sum(axis=0)[None, :] - np.asarray(indicator.T @ c1_nz)  # (d, q)
        c0_zero = (n - nnz_f)[:, None] - c1_zero

        n_values = np.bincount(feat_of_k, minlength=d) + zero_seen  # |V_f|
        with np.errstate(divide="ignore", invalid="ignore"):
            den0 = np.log(n_c[0][None, :] + alpha * n_values[:, None])  # (d, q)
            den1 = np.log(n_c[1][None, :] + alpha * n_values[:, None])
            l0_nz = np.log(c0_nz + alpha) - den0[feat_of_k]
            l1_nz = np.log(c1_nz + alpha) - den1[feat_of_k]
            l0_zero = np.log(c0_zero + alpha) - den0
            l1_zero = np.log(c1_zero + alpha) - den1
            self.class_log_prior_ = np.log(n_c / n)
        # Value 0 unseen for feature f: it never contributes to the baseline.
        l0_zero[~zero_seen] = 0.0
        l1_zero[~zero_seen] = 0.0

        L_nz = np.hstack([l0_nz, l1_nz])  # (K, 2q): class 0 | class 1
        L_zero = np.hstack([l0_zero, l1_zero])  # (d, 2q)
        # Split every log-likelihood into a finite part and a "is log 0" count so that the
        # sums stay exact (NaN only arises in single-class columns, overridden later).
        fin_nz, z_nz = np.where(np.isfinite(L_nz), L_nz, 0.0), (L_nz == -np.inf) * 1.0
        fin_zero, z_zero = np.where(np.isfinite(L_zero), L_zero, 0.0), (L_zero == -np.inf) * 1.0
        self._table = fin_nz - fin_zero[feat_of_k]
        self._base = fin_zero.sum(axis=0)
        self._zero_lik_table = None
        self._has_zero_lik = bool(z_nz.any() or z_zero.any())
        if self._has_zero_lik:
            self._zero_lik_table = z_nz - z_zero[feat_of_k]
            self._zero_lik_base = z_zero.sum(axis=0)
            self._zero_lik_of_zero = z_zero
        self._lik_of_zero = fin_zero  # (d, 2q), used by handle_unseen="ignore"
        self._values = vals
        self._keys = keys
        self._G = G
        self._zero_seen = zero_seen

        self.class_count_ = n_c
        bounds = np.searchsorted(feat_of_k, np.arange(d + 1))
        nz_values = vals[keys % G]
        self.categories_ = [
            np.sort(np.r_[nz_values[bounds[f] : bounds[f + 1]], [0.0] if zero_seen[f] else []])
            for f in range(d)
        ]
        self.n_labels_ = q
        return self

    # -------------------------------------------------------------- predict
    def _joint_log_likelihood(self, X: Any) -> tuple[np.ndarray, np.ndarray]:
        """``Σ_f log P(x_f | y_l = c)`` for both classes, shape (n, 2q), and unseen counts."""
        Xc, rows = _nonzero_entries(X)
        n, d = Xc.shape
        feats = Xc.indices.astype(np.int64)
        vals, keys, G = self._values, self._keys, self._G
        pos = np.searchsorted(vals, Xc.data)
        seen = vals[np.minimum(pos, len(vals) - 1)] == Xc.data if len(vals) else pos < 0
        key = feats * G + pos
        kpos = np.searchsorted(keys, key)
        seen &= keys[np.minimum(kpos, len(keys) - 1)] == key if len(keys) else False
        onehot = sp.csr_matrix(
            (np.ones(int(seen.sum())), (rows[seen], kpos[seen])), shape=(n, len(keys))
        )
        loglik = self._base[None, :] + np.asarray(onehot @ self._table)

        # unseen values: non-zero values not in V_f, and 0 where 0 was never seen for f.
        unseen = np.bincount(rows[~seen], minlength=n)
        zero_unseen = ~self._zero_seen
        if zero_unseen.any():
            nz_pattern = sp.csr_matrix(
                (np.ones(len(feats)), (rows, feats)), shape=(n, d)
            )
            unseen += int(zero_unseen.sum()) - np.asarray(
                nz_pattern @ zero_unseen.astype(np.float64)
            ).astype(np.int64)
        unseen_nz = None
        if self.handle_unseen == "ignore" and not seen.all():
            # An unseen non-zero value must not contribute the baseline's value-0 term.
            unseen_nz = sp.csr_matrix(
                (np.ones(int((~seen).sum())), (rows[~seen], feats[~seen])), shape=(n, d)
            )
            loglik -= np.asarray(unseen_nz @ self._lik_of_zero)
        if self._has_zero_lik:
            zeros = self._zero_lik_base[None, :] + np.asarray(onehot @ self._zero_lik_table)
            if unseen_nz is not None:
                zeros -= np.asarray(unseen_nz @ self._zero_lik_of_zero)
            loglik[zeros > 0.5] = -np.inf
        return loglik, unseen

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
        check_is_fitted(self, "class_count_")
        X = validate_data(
            self, X, accept_sparse=["csr", "csc"], dtype=np.float64, ensure_all_finite=True,
            reset=False,
        )
        disc = getattr(self, "discretizer_", None)
        if disc is not None:
            X = disc.transform(X)
        q = self.n_labels_
        loglik, unseen = self._joint_log_likelihood(X)
        with np.errstate(invalid="ignore"):
            log_p0 = self.class_log_prior_[0][None, :] + loglik[:, :q]
            log_p1 = self.class_log_prior_[1][None, :] + loglik[:, q:]
            proba = expit(log_p1 - log_p0)
        proba[np.isnan(proba)] = 0.0  # 0/0 posterior: the reference sets it to 0
        n0, n1 = self.class_count_
        only1, only0 = n0 == 0, n1 == 0
        proba[:, only1] = 1.0
        proba[:, only0] = 1.0 if self.reference_single_class_bug else 0.0
        if self.handle_unseen == "zero":
            proba[unseen > 0, :] = 0.0
        return proba

    def predict(self, X: Any) -> np.ndarray:
        """Relevant iff ``ψ_l(x) > 0.5`` (MAP class, ties go to 0).

        Returns
        -------
        ndarray of shape (n_samples, n_labels), int64
            0/1 predictions. A label whose only training class is 0 is always predicted 0
            (also with ``reference_single_class_bug=True``, where its confidence is 1).
        """
        proba = self.predict_proba(X)
        pred = (proba > 0.5).astype(np.int64)
        pred[:, self.class_count_[1] == 0] = 0
        return self._check_predictions(pred)
