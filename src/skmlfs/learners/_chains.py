"""Binary relevance and classifier chains: BR, CC, BCC, kCC, PCC, oCC and their ensembles.

Sun & Kudo, *Optimization of classifier chains via conditional likelihood maximization*
(Pattern Recognition 74, 2018; definitions and reference-code
details in ``docs/methods/chains.md``). Every chain is a set of binary
classifiers ``f_j`` trained on ``[x_{F_j}, y_{Pa_j}]`` — the selected features ``F_j``
(all by default) and the parent labels ``Pa_j`` — with the **true** parent labels at
training time and the **predicted** (0/1) ones at prediction time, label by label along
the chain order. The models differ only in how ``Pa_j``, ``F_j`` and the order are chosen
(Table 1 of the paper):

=========================  ======================================================
BR                         ``Pa_j = ∅``
CC                         ``Pa_j`` = all labels earlier in the chain
BCC                        ``|Pa_j| ≤ 1``: Chow–Liu tree over labels, random root
kCC                        ``|Pa_j| ≤ k`` chosen by Eq. (33)
oCC (Algorithm 1)          kCC parents + label-specific features by Eq. (43)
                           (or shared features by Eq. (42)); order by Algorithm 2
PCC                        CC trained with a probabilistic learner, MAP inference
=========================  ======================================================

Conventions shared by all learners here
---------------------------------------
* The base estimator defaults to scikit-learn's :class:`~sklearn.svm.LinearSVC` — the
  LIBLINEAR L2-regularised L2-loss SVC used in the paper's experiments, ``C = 1``, bias
  feature of value 1 (``intercept_scaling=1``); per label, primal (``-s 2``, tolerance
  0.01) when the label's training design has more rows than columns, else dual
  (``-s 1``, tolerance 0.1), as LIBLINEAR is run in the oCC experiments
  (:func:`default_estimator`). A given estimator is cloned per label; a ``random_state``
  parameter that is ``None`` receives a seed drawn from the learner's ``random_state``.
* ``predict`` returns a dense ``(n, q)`` int 0/1 array. ``predict_proba`` returns a dense
  ``(n, q)`` float array of P(label = 1): the base estimator's ``predict_proba`` when it
  has one, otherwise the **logistic sigmoid of its decision value**, ``1 / (1 + e^{−f})``
  (an uncalibrated score for LinearSVC; the 0/1 prediction is ``f > 0`` either way).
  In chains, the probability of a label is computed with the *predicted* parents.
* A label with a single class in the training data gets a constant predictor (that
  class, probability 0 or 1) and is never used as a parent (it carries no information;
  the oCC reference code skips such labels the same way).
* Prediction is vectorised per label: one base-estimator call per label over all rows.
"""

from __future__ import annotations

import numbers
import warnings
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.linalg import eigh
from scipy.sparse.linalg import LinearOperator, svds
from sklearn.base import BaseEstimator, ClassifierMixin, MultiOutputMixin, _fit_context, clone
from sklearn.linear_model import LogisticRegression
from sklearn.linear_model._base import LinearClassifierMixin
from sklearn.svm import LinearSVC
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import HasMethods, Interval, RealNotInt, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from .._validation import _quiet_empty_labels, check_labels, resolve_count
from ..discretize import occ_discretizer
from ..info import (
    DiscreteData,
    entropy,
    iter_conditional_mutual_info,
    joint_entropy,
    mutual_info,
)
from ..selection import (
    LLSF,
    MDDM,
    argmax_tol,
    global_select,
    kcc_parents,
    label_specific_select,
)
from ._base import MultiLabelLearnerMixin, NoPositivePredictionWarning

__all__ = [
    "BayesianClassifierChain",
    "BinaryRelevance",
    "ClassifierChain",
    "EnsembleOfChains",
    "KDependentChain",
    "LLSFClassifier",
    "MDDMClassifier",
    "OCC",
    "ProbabilisticClassifierChain",
    "chow_liu_tree",
    "select_chain_order",
]

_MAX_SEED = np.iinfo(np.int32).max

# Parameter constraints (scikit-learn's _parameter_constraints, checked when fit starts)
# shared by several learners of this module.
_ESTIMATOR = [HasMethods(["fit"]), None]
_ORDER = [StrOptions({"canonical", "random"}), "array-like"]
_MAX_CANDIDATES = [Interval(numbers.Integral, 1, None, closed="left"), None]
# a count, a fraction of the total, or None (all)
_PARENT_BUDGET = [
    Interval(numbers.Integral, 0, None, closed="left"),
    Interval(RealNotInt, 0, 1, closed="right"),
    None,
]
_FEATURE_BUDGET = [
    Interval(numbers.Integral, 1, None, closed="left"),
    Interval(RealNotInt, 0, 1, closed="right"),
    None,
]


def default_estimator(n_samples: int | None = None, n_features: int | None = None) -> LinearSVC:
    """LIBLINEAR's L2-regularised L2-loss linear SVC, ``C = 1``, bias feature of value 1.

    With the training shape, exactly the solver choice of the oCC experiments
    (``docs/methods/chains.md#binary-relevance``): primal ``-s 2`` with LIBLINEAR's default
    tolerance 0.01 when ``n_samples > n_features``, else dual ``-s 1`` with tolerance 0.1.
    Without it, ``dual="auto"`` and scikit-learn's tolerance.
    """
    if n_samples is None or n_features is None:
        return LinearSVC(C=1.0, loss="squared_hinge", dual="auto", fit_intercept=True,
                         intercept_scaling=1.0)
    dual = n_samples <= n_features
    return LinearSVC(C=1.0, loss="squared_hinge", dual=dual, tol=0.1 if dual else 0.01,
                     fit_intercept=True, intercept_scaling=1.0)


# LIBLINEAR never returns once values overflow inside its solver (LinearSVC on emotions:
# x 1e72 fits in 0.03 s, x 1e74 loops forever). scikit-learn refuses values above 1e30 for
# LogisticRegression(solver="liblinear") but not for LinearSVC; the same bound, for both.
LIBLINEAR_MAX_ABS = 1e30


def _uses_liblinear(est: Any) -> bool:
    if est is None or isinstance(est, LinearSVC):
        return True  # None: the LinearSVC default
    return isinstance(est, LogisticRegression) and est.get_params().get("solver") == "liblinear"


def check_liblinear_input(X: Any, est: Any) -> None:
    """Refuse finite values LIBLINEAR would loop forever on (``|x| > 1e30``).

    The one guard in front of every LIBLINEAR fit of the chains (``est`` None is the
    LinearSVC default); other base estimators are left to their own validation.
    """
    if not _uses_liblinear(est):
        return
    data = X.data if sp.issparse(X) else np.asarray(X)
    if data.size == 0:
        return
    top = float(np.max(np.abs(data)))
    if top > LIBLINEAR_MAX_ABS:
        raise ValueError(
            f"X holds values up to {top:.3g} in magnitude; LIBLINEAR (the "
            f"{type(est).__name__ if est is not None else 'LinearSVC'} base estimator) never "
            f"returns on values beyond {LIBLINEAR_MAX_ABS:g}. Rescale X (e.g. with "
            "sklearn.preprocessing.MaxAbsScaler) or pass another base estimator."
        )


def _sigmoid(f: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * f))  # overflow-free logistic


def _binary_output(est: Any, Z: Any) -> tuple[np.ndarray, np.ndarray]:
    """0/1 prediction and P(label = 1) of a fitted binary estimator on ``Z``."""
    classes = np.asarray(est.classes_)
    pos = int(np.flatnonzero(classes == 1)[0])
    if hasattr(est, "decision_function"):
        f = np.asarray(est.decision_function(Z), dtype=float).ravel()
        if isinstance(est, LinearClassifierMixin):
            pred = (f > 0).astype(np.uint8)  # exactly LinearClassifierMixin.predict
        else:
            pred = (np.asarray(est.predict(Z)).ravel() == 1).astype(np.uint8)
        if hasattr(est, "predict_proba"):
            proba = np.asarray(est.predict_proba(Z))[:, pos]
        else:
            proba = _sigmoid(f if pos == 1 else -f)
        return pred, proba
    proba = np.asarray(est.predict_proba(Z))[:, pos]
    pred = (np.asarray(est.predict(Z)).ravel() == 1).astype(np.uint8)
    return pred, proba


def _seeded(est: Any, seed: int) -> Any:
    est = clone(est)
    params = est.get_params(deep=False)
    if "random_state" in params and params["random_state"] is None:
        est.set_params(random_state=seed)
    return est


def _hstack(Xj: Any, P: Any) -> Any:
    if P.shape[1] == 0:
        return Xj
    if sp.issparse(Xj):
        return sp.hstack([Xj, sp.csr_matrix(P, dtype=np.float64)], format="csr")
    if sp.issparse(P):
        P = P.toarray()
    return np.hstack([np.asarray(Xj, dtype=np.float64), np.asarray(P, dtype=np.float64)])


def _is_linear(est: Any) -> bool:
    """Decision value ``x·w + b`` and P(1) = its sigmoid (module convention, and exactly
    LogisticRegression's binary ``predict_proba``)."""
    return isinstance(est, LinearClassifierMixin) and (
        not hasattr(est, "predict_proba") or isinstance(est, LogisticRegression)
    ) and np.array_equal(est.classes_, [0, 1])


def _resolve_order(order: Any, q: int, rng: np.random.RandomState) -> np.ndarray:
    """A chain order from ``"canonical"``, ``"random"`` or an explicit permutation."""
    if isinstance(order, str):  # the constraints admit no other string here
        if order == "canonical":
            return np.arange(q, dtype=np.intp)
        return rng.permutation(q).astype(np.intp)
    arr = np.asarray(order)
    if arr.ndim != 1 or arr.size != q or not np.issubdtype(arr.dtype, np.integer) or not \
            np.array_equal(np.sort(arr), np.arange(q)):
        raise ValueError(
            f"order must be a permutation of 0..{q - 1} (the label indices); got {order!r}."
        )
    return arr.astype(np.intp)


# ---------------------------------------------------------------------- base class
class _BaseChain(MultiLabelLearnerMixin, MultiOutputMixin, ClassifierMixin, BaseEstimator):
    """Shared fitting / prediction of BR and the chains.

    Subclasses implement :meth:`_structure` returning the chain order, the parent
    labels and the feature subsets of every label.

    Fitted attributes
    -----------------
    order_ : ndarray of int
        Labels in training / prediction order.
    parents_ : list of ndarray
        ``parents_[j]``: the parent labels of label ``j`` (columns appended after the
        features, in this order).
    features_ : list of (ndarray or None)
        ``features_[j]``: the feature columns label ``j``'s classifier sees (None: all).
    estimators_ : list
        Fitted base estimator of each label (None for a constant label).
    constant_ : ndarray of int
        -1 for a modelled label, else the constant 0/1 it always predicts.
    """

    def _structure(self, X, Y, rng):  # pragma: no cover - abstract
        raise NotImplementedError

    def _estimator(self):
        """The base estimator, or None for the per-label LIBLINEAR default."""
        return self.estimator

    _parameter_constraints: dict = {
        "estimator": _ESTIMATOR,
        "random_state": ["random_state"],
    }

    # nested validation stays on: the base estimator (and BR's selector) check their own
    # parameters when the chain fits them
    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X: Any, Y: Any):
        """Fit the chain on ``X`` (n × d, dense or sparse) and 0/1 labels ``Y`` (n × q)."""
        X = validate_data(self, X, accept_sparse=["csr", "csc"], dtype="numeric",
                          ensure_all_finite=True)
        if sp.issparse(X):
            X = sp.csr_matrix(X)
        Y = check_labels(Y, X.shape[0], warn_empty=True)
        rng = check_random_state(self.random_state)
        q = Y.shape[1]
        pos = Y.sum(axis=0)
        self.constant_ = np.where(pos == 0, 0, np.where(pos == Y.shape[0], 1, -1))
        self.n_labels_ = q
        self._fit_label_info(Y)
        base = self._estimator()
        check_liblinear_input(X, base)  # before the structure search: fail fast
        order, parents, features = self._structure(X, Y, rng)
        self.order_ = np.asarray(order, dtype=np.intp)
        self.parents_ = [np.asarray(p, dtype=np.intp) for p in parents]
        self.features_ = features
        self.estimators_ = [None] * q
        # sparse features: take the parent columns from a sparse copy of Y (no dense →
        # sparse conversion of an n × |Pa_j| block per label)
        Ysrc = sp.csc_matrix(Y) if sp.issparse(X) else Y
        Xs = sp.csc_matrix(X) if sp.issparse(X) and any(
            f is not None for f in self.features_) else X  # cheap column subsets
        for j in self.order_:
            seed = int(rng.randint(_MAX_SEED))
            if self.constant_[j] >= 0:
                continue
            Z = self._design(Xs, j, Ysrc)
            est = default_estimator(*Z.shape) if base is None else _seeded(base, seed)
            if base is None:
                est.set_params(random_state=seed)
            self.estimators_[j] = est.fit(Z, Y[:, j])
        self._linear_cache = None
        self._linear_parts()
        return self

    def _design(self, X: Any, j: int, Ysrc: Any) -> Any:
        f = self.features_[j]
        Xj = X if f is None else X[:, f]
        return _hstack(Xj, Ysrc[:, self.parents_[j]])

    def _linear_parts(self):
        """Per label: (w_x, b) of a linear base model, and per parent label p the
        (children, weights) through which ŷ_p enters their decision values."""
        cached = getattr(self, "_linear_cache", None)
        if cached is not None and cached[0] is self.estimators_:
            return cached[1], cached[2]
        q = self.n_labels_
        lin = [None] * q
        par, kid, wts = [], [], []
        for j in range(q):
            est = self.estimators_[j]
            if est is None or not _is_linear(est):
                continue
            w = np.asarray(est.coef_, dtype=np.float64).ravel()
            pa = self.parents_[j]
            nf = w.size - pa.size
            lin[j] = (w[:nf], float(np.ravel(est.intercept_)[0]))
            par.append(pa)
            kid.append(np.full(pa.size, j, dtype=np.intp))
            wts.append(w[nf:])
        par = np.concatenate(par) if par else np.empty(0, dtype=np.intp)
        kid = np.concatenate(kid) if kid else np.empty(0, dtype=np.intp)
        wts = np.concatenate(wts) if wts else np.empty(0)
        srt = np.argsort(par, kind="stable")
        bounds = np.searchsorted(par[srt], np.arange(q + 1))
        children = [(kid[srt[bounds[p] : bounds[p + 1]]], wts[srt[bounds[p] : bounds[p + 1]]])
                    for p in range(q)]
        self._linear_cache = (self.estimators_, lin, children)
        return lin, children

    def _predict_both(self, X) -> tuple[np.ndarray, np.ndarray]:
        """Label by label along the chain, each label for all rows at once.

        Linear base models are evaluated as ``x_F·w_x + b + Σ_{p∈Pa_j} ŷ_p w_p`` without
        building the design matrix: when a label is predicted, its ones are pushed into
        the parent part ``S`` of its children's decision values (cost: the predicted
        ones × the children, not rows × parents). Other models get the design matrix.
        """
        X = self._check_X(X)
        n, q = X.shape[0], self.n_labels_
        Yhat = np.zeros((n, q), dtype=np.uint8)
        P = np.zeros((n, q))
        lin, children = self._linear_parts()
        if sp.issparse(X) and any(f is not None for f in self.features_):
            X = sp.csc_matrix(X)  # cheap column subsets per label
        step = max(1, 2**24 // max(q, 1))  # rows per block: S stays ≤ 128 MB
        for lo in range(0, n, step):
            Xb = X[lo : lo + step]
            Yb, Pb = Yhat[lo : lo + step], P[lo : lo + step]
            S = np.zeros((Xb.shape[0], q))
            for j in self.order_:
                c = self.constant_[j]
                if c >= 0:
                    Yb[:, j] = c
                    Pb[:, j] = float(c)
                elif lin[j] is not None:
                    f = self.features_[j]
                    Xj = Xb if f is None else Xb[:, f]
                    val = np.asarray(Xj @ lin[j][0]).ravel() + lin[j][1] + S[:, j]
                    Yb[:, j] = val > 0
                    Pb[:, j] = _sigmoid(val)
                else:
                    Yb[:, j], Pb[:, j] = _binary_output(self.estimators_[j],
                                                        self._design(Xb, j, Yb))
                kid, wk = children[j]
                if kid.size:
                    rows = np.flatnonzero(Yb[:, j])
                    if rows.size:
                        S[np.ix_(rows, kid)] += wk
        return Yhat, P

    def _check_X(self, X):
        check_is_fitted(self, "estimators_")
        X = validate_data(self, X, accept_sparse=["csr", "csc"], dtype="numeric",
                          ensure_all_finite=True, reset=False)
        return sp.csr_matrix(X) if sp.issparse(X) else X

    def predict(self, X: Any) -> np.ndarray:
        """0/1 predictions, shape (n, q), label by label along ``order_``."""
        return self._check_predictions(self._predict_both(X)[0].astype(int))

    def predict_proba(self, X: Any) -> np.ndarray:
        """P(label = 1), shape (n, q), with the predicted parents (see module notes)."""
        return self._predict_both(X)[1]


def _modelled(constant: np.ndarray) -> np.ndarray:
    return constant < 0


def _chain_parents(order: np.ndarray, modelled: np.ndarray) -> list[np.ndarray]:
    parents = [np.empty(0, dtype=np.intp) for _ in range(order.size)]
    earlier: list[int] = []
    for j in order:
        parents[j] = np.asarray(earlier, dtype=np.intp)
        if modelled[j]:
            earlier.append(int(j))
    return parents


# ---------------------------------------------------------------------- BR
class BinaryRelevance(_BaseChain):
    """Binary Relevance: one independent binary classifier per label (``Pa_j = ∅``).

    Parameters
    ----------
    estimator : binary classifier, default=None
        ``None``: :func:`default_estimator` per label (LinearSVC, LIBLINEAR, ``C = 1``,
        primal/dual and tolerance as LIBLINEAR chooses them for the oCC experiments).
    selector : transformer, default=None
        Optional feature selection / reduction fitted on the training ``(X, Y)`` (cloned).
        If the fitted selector exposes ``label_features_`` (one index array per label,
        e.g. :class:`~skmlfs.selection.LLSF` or ``MLFS(mode="local")``), label ``j``'s
        classifier sees only those columns of ``X`` (*local* FS-DR; an empty subset
        falls back to all features); otherwise every classifier sees
        ``selector.transform(X)`` (*global* FS-DR, e.g. :class:`~skmlfs.selection.MDDM`
        or any ``SelectorMixin``).
    random_state : int, RandomState or None
        Seeds the base estimators' ``random_state`` (LIBLINEAR's dual solver shuffles).

    Examples
    --------
    >>> import numpy as np
    >>> from skmlfs.learners import BinaryRelevance
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 5)); Y = (X[:, :3] > 0).astype(int)
    >>> BinaryRelevance(random_state=0).fit(X, Y).predict(X).shape
    (40, 3)
    """

    _parameter_constraints: dict = {
        **_BaseChain._parameter_constraints,
        "selector": [HasMethods(["fit"]), None],
    }

    def __init__(self, estimator: Any = None, selector: Any = None, random_state: Any = None):
        self.estimator = estimator
        self.selector = selector
        self.random_state = random_state

    def _make_selector(self):
        return None if self.selector is None else clone(self.selector)

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X: Any, Y: Any):
        X0 = validate_data(self, X, accept_sparse=["csr", "csc"], dtype="numeric",
                           ensure_all_finite=True)
        Yv = check_labels(Y, X0.shape[0])  # the chain's own fit warns about empty labels
        self._transform = False
        sel = self._make_selector()
        with _quiet_empty_labels():
            self.selector_ = None if sel is None else sel.fit(X0, Yv)
        # the base fit re-validates an ndarray, which drops a DataFrame's column names
        names = getattr(self, "feature_names_in_", None)
        if sel is not None and not hasattr(self.selector_, "label_features_"):
            self._transform = True
            n_in = self.n_features_in_
            super().fit(self.selector_.transform(X0), Yv)
            self.n_features_in_ = n_in
        else:
            super().fit(X0, Yv)
        if names is not None:
            self.feature_names_in_ = names
        return self

    def _structure(self, X, Y, rng):
        q = Y.shape[1]
        parents = [np.empty(0, dtype=np.intp)] * q
        features: list = [None] * q
        if self.selector_ is not None and not self._transform:
            lf = self.selector_.label_features_
            if len(lf) != q:
                raise ValueError(
                    f"selector.label_features_ has {len(lf)} entries for {q} labels."
                )
            features = [None if np.asarray(f).size == 0 else np.asarray(f, dtype=np.intp)
                        for f in lf]
        return np.arange(q, dtype=np.intp), parents, features

    def _check_X(self, X):
        if getattr(self, "_transform", False):
            check_is_fitted(self, "estimators_")
            X = validate_data(self, X, accept_sparse=["csr", "csc"], dtype="numeric",
                              ensure_all_finite=True, reset=False)
            Xt = self.selector_.transform(X)
            return sp.csr_matrix(Xt) if sp.issparse(Xt) else Xt
        return super()._check_X(X)


class LLSFClassifier(BinaryRelevance):
    """The "LLSF" learner of the oCC experiments: BR on LLSF's label-specific features.

    ``BinaryRelevance(selector=LLSF(alpha, beta, gamma, ...))`` with flat parameters (so it
    can be named in experiment files): label ``j``'s linear SVM sees the features with
    ``W_ij ≠ 0`` (all of them when column ``j`` of ``W`` is zero) **[ASSUMPTION on the
    coupling, ``docs/methods/sparse.md#llsf``]**. oCC §8.2: ``α = 0.5``,
    ``γ = 0.01``, ``β ∈ {0.001, 0.01, 0.1, 1, 10}`` tuned. See
    :class:`~skmlfs.selection.LLSF`.
    """

    # the LLSF parameters are checked by LLSF itself when it is fitted
    _parameter_constraints: dict = {
        **_BaseChain._parameter_constraints,
        **dict.fromkeys(("alpha", "beta", "gamma", "max_iter", "tol"), "no_validation"),
    }

    def __init__(self, alpha: float = 0.5, beta: float = 0.1, gamma: float = 0.01,
                 max_iter: int = 100, tol: float = 0.01, estimator: Any = None,
                 random_state: Any = None):
        self.alpha = alpha
        self.beta = beta
        self.gamma = gamma
        self.max_iter = max_iter
        self.tol = tol
        self.estimator = estimator
        self.random_state = random_state

    def _make_selector(self):
        return LLSF(alpha=self.alpha, beta=self.beta, gamma=self.gamma,
                    max_iter=self.max_iter, tol=self.tol)

    def fit(self, X: Any, Y: Any) -> LLSFClassifier:
        """Fit LLSF, then one classifier per label on its label-specific features."""
        super().fit(X, Y)
        # the iterations of LLSF's solver, as every estimator with max_iter reports them
        self.n_iter_ = self.selector_.n_iter_
        return self


class MDDMClassifier(BinaryRelevance):
    """The "MDDM" learner of the oCC experiments: BR on the MDDM projection (global FS-DR).

    ``BinaryRelevance(selector=MDDM(n_components, variant, mu))`` with flat parameters.
    oCC §8.2: ``μ = 0.5``, dimension ``thr·d`` with ``thr ∈ {0.1, 0.3, 0.5, 0.7, 0.9}``
    tuned. See :class:`~skmlfs.selection.MDDM`.
    """

    # the MDDM parameters are checked by MDDM itself when it is fitted
    _parameter_constraints: dict = {
        **_BaseChain._parameter_constraints,
        **dict.fromkeys(("n_components", "variant", "mu"), "no_validation"),
    }

    def __init__(self, n_components: Any = 0.3, variant: str = "proj", mu: float = 0.5,
                 estimator: Any = None, random_state: Any = None):
        self.n_components = n_components
        self.variant = variant
        self.mu = mu
        self.estimator = estimator
        self.random_state = random_state

    def _make_selector(self):
        return MDDM(n_components=self.n_components, variant=self.variant, mu=self.mu)


# ---------------------------------------------------------------------- CC
class ClassifierChain(_BaseChain):
    """Classifier Chains (Read et al. 2011): ``Pa_j`` = every label earlier in the chain.

    Parameters
    ----------
    estimator : binary classifier, default=None (LinearSVC, see module notes)
    order : "canonical", "random" or array-like permutation, default="canonical"
        The chain order (``"random"``: uniformly random from ``random_state``).
    random_state : int, RandomState or None
    """

    _parameter_constraints: dict = {**_BaseChain._parameter_constraints, "order": _ORDER}

    def __init__(self, estimator: Any = None, order: Any = "canonical", random_state: Any = None):
        self.estimator = estimator
        self.order = order
        self.random_state = random_state

    def _structure(self, X, Y, rng):
        q = Y.shape[1]
        order = _resolve_order(self.order, q, rng)
        return order, _chain_parents(order, _modelled(self.constant_)), [None] * q


# ---------------------------------------------------------------------- BCC
def chow_liu_tree(weights: np.ndarray, root: int, nodes: np.ndarray | None = None):
    """Maximum-weight spanning tree (Prim) over ``nodes``, grown from ``root``.

    Returns the nodes in the order they join the tree (a topological order with edges
    directed away from the root) and each node's parent (-1 for the root and for nodes
    outside ``nodes``). Ties (within 1e-10) go to the lowest index.
    """
    q = weights.shape[0]
    nodes = np.arange(q) if nodes is None else np.asarray(nodes, dtype=np.intp)
    in_set = np.zeros(q, dtype=bool)
    in_set[nodes] = True
    parent = np.full(q, -1, dtype=np.intp)
    in_tree = np.zeros(q, dtype=bool)
    best = np.full(q, -np.inf)
    best_from = np.full(q, -1, dtype=np.intp)
    order = [int(root)]
    in_tree[root] = True
    cur = int(root)
    for _ in range(nodes.size - 1):
        upd = in_set & ~in_tree & (weights[cur] > best)
        best[upd] = weights[cur][upd]
        best_from[upd] = cur
        cand = np.where(in_set & ~in_tree, best, -np.inf)
        nxt = int(argmax_tol(cand))
        parent[nxt] = best_from[nxt]
        in_tree[nxt] = True
        order.append(nxt)
        cur = nxt
    return np.asarray(order, dtype=np.intp), parent


class BayesianClassifierChain(_BaseChain):
    """Bayesian Chain Classifier (Zaragoza et al. 2011): at most one parent per label.

    The label structure is the maximum-weight spanning tree with pairwise label mutual
    information as weights (Chow–Liu; MI from the count engine), rooted at a uniformly
    random label (or ``root``), edges directed away from the root; labels are trained and
    predicted in the order they join the tree. **[ASSUMPTION on the tree weights — the
    oCC paper only says "directed tree … random root"; ``docs/methods/chains.md#bcc``]**
    Labels constant in training stay outside the tree.

    Parameters
    ----------
    estimator : binary classifier, default=None (LinearSVC)
    root : int or None, default=None
        Root label; ``None`` draws it uniformly from ``random_state``.
    random_state : int, RandomState or None
    """

    _parameter_constraints: dict = {
        **_BaseChain._parameter_constraints,
        "root": [Interval(numbers.Integral, 0, None, closed="left"), None],
    }

    def __init__(self, estimator: Any = None, root: int | None = None, random_state: Any = None):
        self.estimator = estimator
        self.root = root
        self.random_state = random_state

    def _structure(self, X, Y, rng):
        q = Y.shape[1]
        modelled = np.flatnonzero(_modelled(self.constant_))
        parents = [np.empty(0, dtype=np.intp) for _ in range(q)]
        if modelled.size == 0:
            return np.arange(q, dtype=np.intp), parents, [None] * q
        if self.root is None:
            root = int(modelled[rng.randint(modelled.size)])
        else:
            root = int(self.root)
            if not 0 <= root < q:
                raise ValueError(f"root must be a label index in [0, {q}); got {root}.")
            if root not in modelled:
                raise ValueError(f"root label {root} is constant in the training data.")
        Yd = DiscreteData.from_array(Y)
        W = mutual_info(Yd, Yd)
        tree_order, parent = chow_liu_tree(W, root, modelled)
        for j in tree_order:
            if parent[j] >= 0:
                parents[j] = np.array([parent[j]], dtype=np.intp)
        rest = np.setdiff1d(np.arange(q), tree_order)
        self.tree_parent_ = parent
        return np.concatenate([tree_order, rest]).astype(np.intp), parents, [None] * q


# ---------------------------------------------------------------------- kCC
class KDependentChain(_BaseChain):
    """k-dependence Classifier Chains (kCC, Sun & Kudo §4.2): ``|Pa_j| ≤ k`` by Eq. (33).

    Along the chain, the parents of label ``j`` are chosen greedily among the earlier
    labels::

        Y_l = argmax_{Y_l}  I(Y_l; Y_j) + α Σ_{Y_k∈Pa_j} I(Y_j; Y_k | Y_l),  α = 1/|Pa_j|

    with the reference routine's conventions (first parent = most relevant; all earlier
    labels when there are at most ``k``; only the ``max_candidates`` most relevant are
    considered, so ``k ≥ 100`` is a relevance ranking — ``docs/methods/info.md#mlfs-family``).

    Parameters
    ----------
    estimator : binary classifier, default=None (LinearSVC)
    k : int or float, default=0.8
        Parent budget; a float is a fraction of ``q``: ``⌈k·q⌉`` (paper: ``⌈0.8 q⌉``).
        ``0`` gives BR, ``q − 1`` CC.
    order : "canonical", "random" or permutation, default="canonical"
    max_candidates : int or None, default=100
    random_state : int, RandomState or None
    """

    _parameter_constraints: dict = {
        **_BaseChain._parameter_constraints,
        "k": _PARENT_BUDGET,
        "order": _ORDER,
        "max_candidates": _MAX_CANDIDATES,
    }

    def __init__(self, estimator: Any = None, k: Any = 0.8, order: Any = "canonical",
                 max_candidates: int | None = 100, random_state: Any = None):
        self.estimator = estimator
        self.k = k
        self.order = order
        self.max_candidates = max_candidates
        self.random_state = random_state

    def _structure(self, X, Y, rng):
        q = Y.shape[1]
        order = _resolve_order(self.order, q, rng)
        self.k_ = resolve_count(self.k, q, "k", allow_zero=True)
        Yd = DiscreteData.from_array(Y)
        parents = kcc_parents(Yd, order, self.k_, exclude=~_modelled(self.constant_),
                              max_candidates=self.max_candidates)
        return order, parents, [None] * q


# ---------------------------------------------------------------------- chain order
def select_chain_order(
    Y: DiscreteData,
    Z: DiscreteData,
    *,
    redundancy: bool = False,
) -> np.ndarray:
    """Greedy chain order of Algorithm 2 / Eq. (47).

    ``C[a, b] = mean_m I(Y_a; Y_b | Z_m)`` over the conditioning variables ``Z`` (all
    ``d`` discretized features for Eq. 47 as written, or the discretized 1-D PCA
    projection of the paper's §8.5 experiments and the reference ``orderSelect.m``).
    ``π(1) = argmax_a Σ_b C[a, b]`` (Alg. 2 line 2); then each next label maximises
    ``Σ_{k<j} C[π(k), b]`` over the **unselected** labels (the reference can re-pick a
    selected label when all scores are 0 — not reproduced), plus with
    ``redundancy=True`` Eq. (47)'s second term
    ``Σ_{k<j} (1/(k−1)) Σ_{l<k} I(Y_π(k); Y_π(l) | Y_b)`` (dropped in the experiments).
    Ties (within 1e-10 bits) → lowest label index.
    """
    q = Y.n_vars
    C = np.zeros((q, q))
    for cmi in iter_conditional_mutual_info(Y, Y, Z):
        C += cmi
    C /= max(Z.n_vars, 1)
    np.fill_diagonal(C, 0.0)
    if q == 1:
        return np.zeros(1, dtype=np.intp)
    selected = np.zeros(q, dtype=bool)
    first = int(argmax_tol(C.sum(axis=1)))
    order = [first]
    selected[first] = True
    acc = C[first].copy()
    acc2 = np.zeros(q)
    if redundancy:
        h_y = entropy(Y)
        h_yy = joint_entropy(Y, Y)
    for j in range(2, q + 1):  # position j (1-based) of the next label
        score = np.where(selected, -np.inf, acc + acc2)
        b = int(argmax_tol(score))
        order.append(b)
        selected[b] = True
        acc += C[b]
        if redundancy and j >= 2 and j < q:
            # the new π(j) = b adds (1/(j−1)) Σ_{l<j} I(Y_b; Y_π(l) | Y_c) for every c
            prev = np.asarray(order[:-1], dtype=np.intp)
            h3 = joint_entropy(Y.take(prev), Y, given=Y.take([b]))  # H(π(l), c, b)
            cmi = h_yy[b][None, :] + h_yy[prev] - h3 - h_y[None, :]
            acc2 += cmi.sum(axis=0) / (j - 1)
    return np.asarray(order, dtype=np.intp)


def _pca_projection(X: Any) -> np.ndarray:
    """Scores on the first principal component of the column-centred ``X`` (n,)."""
    n, d = X.shape
    if sp.issparse(X):
        mu = np.asarray(X.mean(axis=0)).ravel()
        G = (X.T @ X).toarray() if d <= 4000 else None
    else:
        X = np.asarray(X, dtype=np.float64)
        mu = X.mean(axis=0)
        G = X.T @ X if d <= 4000 else None
    if G is not None:
        cov = G - n * np.outer(mu, mu)

        _, v = eigh(cov, subset_by_index=[d - 1, d - 1])
        v = v[:, 0]
    else:
        op = LinearOperator(
            (n, d), dtype=np.float64,
            matvec=lambda w: X @ w - mu @ w, rmatvec=lambda u: X.T @ u - mu * u.sum(),
        )
        _, _, vt = svds(op, k=1, v0=np.ones(min(n, d)) if n < d else None, random_state=0)
        v = vt[0]
    v = v * (1.0 if v[np.argmax(np.abs(v))] >= 0 else -1.0)  # deterministic sign
    z = X @ v - mu @ v
    return np.asarray(z).ravel()


# ---------------------------------------------------------------------- oCC
# Feature-selection criteria of OCC (Table 1 / §8.4): "local" is Eq. (43); the others are
# Eq. (42) through global_select with these arguments (β, γ multiply the *means* over
# Pa_j and X_θ, i.e. 1 = the paper's 1/|Pa_j|, 1/|X_θ|), matching the standalone
# selectors MLFS(mode="global"), MLMIM, MLJMI and MLMRMR of skmlfs.selection.
_FS_CRITERIA: dict[str, dict] = {
    "local": {},
    "global": dict(beta=1.0, gamma=1.0, uses_parents=True, uses_cap=True),
    "mlmim": dict(beta=0.0, gamma=0.0, max_candidates=None, uses_parents=False,
                  uses_cap=False),
    "mljmi": dict(beta=0.0, gamma=1.0, uses_parents=False, uses_cap=True),
    "mlmrmr": dict(beta=0.0, gamma=1.0, redundancy="mrmr", redundancy_scale="q",
                   uses_parents=False, uses_cap=True),
}


class OCC(_BaseChain):
    """Optimized Classifier Chains (oCC, Sun & Kudo, Algorithm 1): kCC + MLFS.

    Training (``docs/methods/chains.md#kcc-and-occ``):

    1. discretize the training features by mean ± ``f``·std into 3 states (oCC's
       ``myDisc``; used for the information terms **only** — the classifiers are trained
       on the original features);
    2. chain order: Algorithm 2 (``order="greedy"``), random, canonical or given;
    3. parents ``Pa_j`` among the earlier labels by Eq. (33), ``α = 1/|Pa_j|`` (kCC);
    4. features ``F_j`` by Eq. (43) (``feature_selection="local"``, label-specific) or one
       shared subset by Eq. (42) (``"global"``), ``β = 1/|Pa_j|``, ``γ = 1/|X_θ|``, or
       one of Eq. (42)'s special cases MLMIM / MLJMI / MLMRMR (Table 1, §8.4);
    5. ``f_j`` = base estimator on ``[x_{F_j}, y_{Pa_j}]`` with the true labels.

    Parameters
    ----------
    estimator : binary classifier, default=None (LinearSVC, LIBLINEAR, ``C = 1``)
    k : int or float, default=0.8
        Maximal number of parents; a float is a fraction of ``q``, ``⌈k·q⌉`` (paper:
        ``k = ⌈0.8 q⌉``; the reference code rounds).
    M : int, float or None, default=0.8
        Number of selected features per label (or shared); a float is a fraction of
        ``d``, ``⌈M·d⌉``. The paper tunes ``M ∈ {0.1, …, 0.9}·d``; the reference demo
        uses 0.8. ``None``: all features (no selection).
    order : "greedy", "canonical", "random" or permutation, default="greedy"
        ``"greedy"``: Algorithm 2 / Eq. (47), see ``order_projection``.
    feature_selection : {"local", "global", "mlmim", "mljmi", "mlmrmr"} or None, \
default="local"
        The feature-selection step (step 4), one of the criteria of the paper's
        Table 1 / §8.4 (Fig. 4):

        * ``"local"`` — MLFS_local, Eq. (43): ``X_θj`` per label,
          ``β = 1/|Pa_j|``, ``γ = 1/|X_θj|`` (:class:`~skmlfs.selection.MLFS`,
          ``mode="local"``);
        * ``"global"`` — MLFS_global, Eq. (42): one subset, ``β = 1/|Pa_j|``,
          ``γ = 1/|X_θ|`` (``MLFS(mode="global")``);
        * ``"mlmim"`` — Eq. (42) with ``β = γ = 0``: ranking by ``Σ_j I(X_m; Y_j)``
          (:class:`~skmlfs.selection.MLMIM`; a ranking, so ``max_candidates`` is not
          used);
        * ``"mljmi"`` — Eq. (42) with ``β = 0``, ``γ = 1/|X_θ|``
          (:class:`~skmlfs.selection.MLJMI`);
        * ``"mlmrmr"`` — Eq. (42) with ``β = 0``, ``γ = 1/|X_θ|`` and the conditional
          redundancy term replaced by ``−(q/|X_θ|) Σ_{n∈X_θ} I(X_m; X_n)`` (Table 1,
          note †; :class:`~skmlfs.selection.MLMRMR` with ``redundancy_scale="q"``);
        * ``None`` — no selection (``M`` is ignored).

        The global criteria give every label the same ``M`` features; the parents
        ``Pa_j`` (Eq. 33) are chosen the same way whatever the criterion.
    order_projection : {"pca", "none"}, default="pca"
        Conditioning variables of Eq. (47)'s first term: ``"pca"`` — the 1-D PCA
        projection of the centred training features, discretized like the features (the
        paper's §8.5 simplification = reference ``orderSelect.m``); ``"none"`` — the
        mean over all ``d`` discretized features, as Eq. (47) is written.
    order_redundancy : bool, default=False
        Include Eq. (47)'s second term (the experiments and the reference drop it).
    max_candidates : int or None, default=100
        Reference cap of the greedy searches (``None``: the paper's uncapped search).
    discretizer : "auto", "mydisc", None or transformer, default="auto"
        ``"auto"``: :func:`~skmlfs.discretize.occ_discretizer` — the reference code's
        ``myDisc(X, 3, 0.5)`` (the paper's text says ±1·std) without its rounding of the
        edges to 3 decimals, which would make the result depend on the units of ``X``.
        ``"mydisc"``: ``myDisc`` as the authors' code runs it, edges rounded to 3
        decimals (the oCC paper's experiments; ``experiments/occ_paper.toml``).
        ``None``: the features are already discrete symbols.
    random_state : int, RandomState or None

    Attributes
    ----------
    order_, parents_, features_, estimators_, constant_
        As in every chain (see module notes); ``features_[j]`` is ``X_θj``.
    k_, M_ : int
        The resolved budgets.
    """

    _parameter_constraints: dict = {
        **_BaseChain._parameter_constraints,
        "k": _PARENT_BUDGET,
        "M": _FEATURE_BUDGET,
        "order": [StrOptions({"greedy", "canonical", "random"}), "array-like"],
        "feature_selection": [StrOptions(set(_FS_CRITERIA)), None],
        "order_projection": [StrOptions({"pca", "none"})],
        "order_redundancy": ["boolean"],
        "max_candidates": _MAX_CANDIDATES,
        "discretizer": [StrOptions({"auto", "mydisc"}), HasMethods(["fit", "transform"]), None],
    }

    def __init__(
        self,
        estimator: Any = None,
        k: Any = 0.8,
        M: Any = 0.8,
        order: Any = "greedy",
        feature_selection: str | None = "local",
        order_projection: str = "pca",
        order_redundancy: bool = False,
        max_candidates: int | None = 100,
        discretizer: Any = "auto",
        random_state: Any = None,
    ):
        self.estimator = estimator
        self.k = k
        self.M = M
        self.order = order
        self.feature_selection = feature_selection
        self.order_projection = order_projection
        self.order_redundancy = order_redundancy
        self.max_candidates = max_candidates
        self.discretizer = discretizer
        self.random_state = random_state

    def _discretize(self, X, Y):
        disc = self.discretizer
        if isinstance(disc, str):  # "auto" or "mydisc", the strings the constraints admit
            if sp.issparse(X) and np.all((X.data == 0) | (X.data == 1)):
                return X  # binary columns are left unchanged by myDisc

            disc = occ_discretizer(disc)
        elif disc is None:
            return X
        return clone(disc).fit(X, Y).transform(X)

    def _discretize_projection(self, z, Y):
        """The PCA scores are continuous: mean ± 0.5·std (``orderSelect.m``) unless a
        discretizer transformer is given."""
        disc = self.discretizer
        if disc is None or isinstance(disc, str):
            disc = occ_discretizer("mydisc" if disc == "mydisc" else "auto")
        return clone(disc).fit(z, Y).transform(z)

    def _structure(self, X, Y, rng):
        n, d = X.shape
        q = Y.shape[1]
        modelled = _modelled(self.constant_)
        self.k_ = resolve_count(self.k, q, "k", allow_zero=True)
        self.M_ = resolve_count(self.M, d, "M")
        Yd = DiscreteData.from_array(Y)
        need_x = self.feature_selection is not None and self.M_ < d
        Xd = DiscreteData.from_array(self._discretize(X, Y)) if (
            need_x or (isinstance(self.order, str) and self.order == "greedy"
                       and self.order_projection == "none")) else None
        # chain order
        if isinstance(self.order, str) and self.order == "greedy":
            if self.order_projection == "pca":
                z = _pca_projection(X)[:, None]
                Z = DiscreteData.from_array(self._discretize_projection(z, Y))
            else:
                Z = Xd
            order = select_chain_order(Yd, Z, redundancy=bool(self.order_redundancy))
        else:
            order = _resolve_order(self.order, q, rng)
        # parents (Eq. 33)
        parents = kcc_parents(Yd, order, self.k_, exclude=~modelled,
                              max_candidates=self.max_candidates)
        # features (Eq. 43 / 42)
        features: list = [None] * q
        if need_x:
            targets = np.asarray([j for j in order if modelled[j]], dtype=np.intp)
            rel = mutual_info(Xd, Yd)
            if self.feature_selection == "local":
                sel = label_specific_select(
                    Xd, Yd, targets, None, self.M_, parents=[parents[j] for j in targets],
                    beta=1.0, gamma=1.0, max_candidates=self.max_candidates, relevance=rel,
                )
                for j, f in zip(targets, sel, strict=True):
                    features[j] = np.asarray(f, dtype=np.intp)
            else:
                kw = dict(_FS_CRITERIA[self.feature_selection])
                if kw.pop("uses_parents"):
                    kw["parents"] = parents
                if kw.pop("uses_cap"):
                    kw["max_candidates"] = self.max_candidates
                shared, _ = global_select(Xd, Yd, self.M_, relevance=rel, **kw)
                shared = np.asarray(shared, dtype=np.intp)
                features = [shared] * q
        return order, parents, features


# ---------------------------------------------------------------------- PCC
class ProbabilisticClassifierChain(_BaseChain):
    """Probabilistic Classifier Chains (Dembczyński, Cheng & Hüllermeier 2010).

    Trained exactly like :class:`ClassifierChain`; prediction is the MAP assignment
    ``argmax_y Π_t P(y_π(t) | x, y_π(1..t−1))`` (optimal for subset 0/1 loss, Eq. 2),
    by exhaustive enumeration of the ``2^q`` paths when ``q ≤ max_exact_labels`` (ties →
    the first path in chain order with 0 before 1), otherwise by beam search of width
    ``beam_width`` (Kumar et al. 2012). ``predict_proba`` returns the exact marginals
    ``Σ_{y: y_l = 1} P(y | x)`` (exhaustive) or the marginals of the final beam,
    renormalised (beam; an approximation).

    Parameters
    ----------
    estimator : probabilistic binary classifier, default=None
        ``None``: :class:`~sklearn.linear_model.LogisticRegression` (LIBLINEAR solver,
        ``C = 1``, regularised bias as in the SVM default) — PCC needs probabilities
        (``docs/methods/chains.md#pcc``); an estimator without ``predict_proba``
        is used through the sigmoid of its decision value.
    order : "canonical", "random" or permutation, default="canonical"
    inference : {"auto", "exhaustive", "beam"}, default="auto"
        ``"auto"``: exhaustive when the number of modelled labels ≤ ``max_exact_labels``.
    beam_width : int, default=5
    max_exact_labels : int, default=15
    random_state : int, RandomState or None
    """

    _parameter_constraints: dict = {
        **_BaseChain._parameter_constraints,
        "order": _ORDER,
        "inference": [StrOptions({"auto", "exhaustive", "beam"})],
        "beam_width": [Interval(numbers.Integral, 1, None, closed="left")],
        "max_exact_labels": [Interval(numbers.Integral, 1, None, closed="left")],
    }

    def __init__(self, estimator: Any = None, order: Any = "canonical",
                 inference: str = "auto", beam_width: int = 5, max_exact_labels: int = 15,
                 random_state: Any = None):
        self.estimator = estimator
        self.order = order
        self.inference = inference
        self.beam_width = beam_width
        self.max_exact_labels = max_exact_labels
        self.random_state = random_state

    def _estimator(self):
        if self.estimator is None:
            return LogisticRegression(solver="liblinear")
        return self.estimator

    def _structure(self, X, Y, rng):
        q = Y.shape[1]
        order = _resolve_order(self.order, q, rng)
        return order, _chain_parents(order, _modelled(self.constant_)), [None] * q

    # -- inference ---------------------------------------------------------------
    def _cond_prob(self, X, j: int, prefix: np.ndarray) -> np.ndarray:
        """P(y_j = 1 | x_i, parents = a prefix) for all rows and prefixes.

        ``prefix`` is either shared by all rows, shape (S, t), or per row, shape
        (n, S, t). Returns shape (n, S). Linear models use ``x·w_x`` once plus
        ``prefix·w_y`` (LogisticRegression's binary ``predict_proba`` is exactly the
        sigmoid of the decision value; other linear models follow the module convention).
        """
        est = self.estimators_[j]
        n = X.shape[0]
        S, t = prefix.shape[-2], prefix.shape[-1]
        if isinstance(est, LinearClassifierMixin) and (
            not hasattr(est, "predict_proba") or isinstance(est, LogisticRegression)
        ):
            w = np.asarray(est.coef_, dtype=float).ravel()
            d = w.size - t
            fx = np.asarray(X @ w[:d]).ravel() + float(np.ravel(est.intercept_)[0])
            if prefix.ndim == 2:
                f = fx[:, None] + (prefix @ w[d:])[None, :]
            else:
                f = fx[:, None] + prefix @ w[d:]
            return _sigmoid(f)
        out = np.empty((n, S))
        for s in range(S):
            P = prefix[s][None, :].repeat(n, axis=0) if prefix.ndim == 2 else prefix[:, s, :]
            _, out[:, s] = _binary_output(est, _hstack(X, P))
        return out

    def _infer(self, X) -> tuple[np.ndarray, np.ndarray]:
        X = self._check_X(X)
        n, q = X.shape[0], self.n_labels_
        chain = [int(j) for j in self.order_ if self.constant_[j] < 0]
        Yhat = np.zeros((n, q), dtype=np.uint8)
        P = np.zeros((n, q))
        for j in range(q):
            if self.constant_[j] >= 0:
                Yhat[:, j] = self.constant_[j]
                P[:, j] = float(self.constant_[j])
        m = len(chain)
        if m == 0:
            return Yhat, P
        exhaustive = self.inference == "exhaustive" or (
            self.inference == "auto" and m <= self.max_exact_labels
        )
        step = max(1, 2**22 // (2**m)) if exhaustive else n
        for lo in range(0, n, step):
            Xb = X[lo : lo + step]
            if exhaustive:
                y, p = self._exhaustive(Xb, chain)
            else:
                y, p = self._beam(Xb, chain)
            Yhat[lo : lo + step][:, chain] = y
            P[lo : lo + step][:, chain] = p
        return Yhat, P

    def _exhaustive(self, X, chain):
        n = X.shape[0]
        logp = np.zeros((n, 1))
        paths = np.zeros((1, 0))
        for j in chain:
            p1 = self._cond_prob(X, j, paths)
            with np.errstate(divide="ignore"):
                logp = np.concatenate([logp + np.log1p(-p1), logp + np.log(p1)], axis=1)
            paths = np.vstack([np.hstack([paths, np.zeros((paths.shape[0], 1))]),
                               np.hstack([paths, np.ones((paths.shape[0], 1))])])
        # paths are in "0 before 1 at each depth" blocks; sort rows lexicographically in
        # chain order so that argmax returns the lexicographically first MAP path
        lex = np.lexsort(paths.T[::-1])
        paths, logp = paths[lex], logp[:, lex]
        best = np.argmax(logp, axis=1)
        prob = np.exp(logp - logp.max(axis=1, keepdims=True))
        prob /= prob.sum(axis=1, keepdims=True)
        return paths[best].astype(np.uint8), prob @ paths

    def _beam(self, X, chain):
        n = X.shape[0]
        b = int(self.beam_width)
        beams = np.zeros((n, 1, 0))
        logp = np.zeros((n, 1))
        for j in chain:
            p1 = self._cond_prob(X, j, beams)
            S = beams.shape[1]
            with np.errstate(divide="ignore"):
                cand_lp = np.concatenate([logp + np.log1p(-p1), logp + np.log(p1)], axis=1)
            cand_paths = np.concatenate(
                [np.concatenate([beams, np.zeros((n, S, 1))], axis=2),
                 np.concatenate([beams, np.ones((n, S, 1))], axis=2)], axis=1)
            keep = np.argsort(-cand_lp, axis=1, kind="stable")[:, :b]
            logp = np.take_along_axis(cand_lp, keep, axis=1)
            beams = np.take_along_axis(cand_paths, keep[:, :, None], axis=1)
        prob = np.exp(logp - logp[:, :1])
        prob /= prob.sum(axis=1, keepdims=True)
        marg = np.einsum("ns,nsl->nl", prob, beams)
        return beams[:, 0, :].astype(np.uint8), marg

    def predict(self, X: Any) -> np.ndarray:
        """MAP label vectors, shape (n, q)."""
        return self._check_predictions(self._infer(X)[0].astype(int))

    def predict_proba(self, X: Any) -> np.ndarray:
        """Marginal P(label = 1), shape (n, q) (exact when enumerating)."""
        return self._infer(X)[1]


# ---------------------------------------------------------------------- ensembles
_CHAIN_ALIASES = {
    "cc": lambda: ClassifierChain(order="random"),
    "bcc": lambda: BayesianClassifierChain(),
    "occ": lambda: OCC(order="random"),
}


class EnsembleOfChains(MultiLabelLearnerMixin, MultiOutputMixin, ClassifierMixin, BaseEstimator):
    """Ensembles of chains: ECC, EBCC, EoCC (oCC paper §8.2; ``docs/methods/chains.md#ensembles``).

    Each of ``n_estimators`` members is a clone of ``chain`` trained on a random subset of
    ``max_samples`` of the instances and ``max_features`` of the features (both without
    replacement; sizes rounded half up as MATLAB's ``round``); every member gets its own
    seed, so random chain orders / BCC roots differ between members. The prediction is the
    per-label majority vote: relevant iff the fraction of members voting 1 is
    ``≥ threshold`` (0.5: a 5–5 tie is relevant, as the reference's ``round``).

    Parameters
    ----------
    chain : estimator or {"cc", "bcc", "occ"}, default="cc"
        ``"cc"``: ``ClassifierChain(order="random")`` (ECC); ``"bcc"``:
        ``BayesianClassifierChain()`` with a random root (EBCC); ``"occ"``:
        ``OCC(order="random")`` (EoCC, the reference ``eocc.alg = 'random'``).
    n_estimators : int, default=10
    max_samples, max_features : float in (0, 1], default=0.75, 0.5
        The paper's rates. The reference ``EoCC.m`` swaps them (0.5 instances,
        0.75 features); pass ``max_samples=0.5, max_features=0.75`` for that variant.
    threshold : float, default=0.5
    chain_params : dict, optional
        Parameters set on the member chain (e.g. ``{"M": 0.3}`` for EoCC), so that an
        ensemble can be described with flat values in experiment files.
    random_state : int, RandomState or None

    Attributes
    ----------
    estimators_ : list of fitted chains
    estimators_features_ : list of ndarray
        Feature columns of every member.
    estimators_samples_ : list of ndarray
        Training rows of every member.

    Notes
    -----
    ``predict_proba`` returns the vote fractions (so that ``predict`` is
    ``predict_proba ≥ threshold``).
    """

    _parameter_constraints: dict = {
        "chain": [StrOptions({"cc", "bcc", "occ"}), HasMethods(["fit", "predict"])],
        "chain_params": [dict, None],
        "n_estimators": [Interval(numbers.Integral, 1, None, closed="left")],
        "max_samples": [Interval(numbers.Real, 0, 1, closed="right")],
        "max_features": [Interval(numbers.Real, 0, 1, closed="right")],
        "threshold": [Interval(numbers.Real, 0, 1, closed="right")],
        "random_state": ["random_state"],
    }

    def __init__(self, chain: Any = "cc", n_estimators: int = 10, max_samples: float = 0.75,
                 max_features: float = 0.5, threshold: float = 0.5,
                 chain_params: dict | None = None, random_state: Any = None):
        self.chain = chain
        self.chain_params = chain_params
        self.n_estimators = n_estimators
        self.max_samples = max_samples
        self.max_features = max_features
        self.threshold = threshold
        self.random_state = random_state

    def _base_chain(self):
        if isinstance(self.chain, str):
            base = _CHAIN_ALIASES[self.chain]()
        else:
            base = clone(self.chain)
        if self.chain_params:
            base.set_params(**dict(self.chain_params))
        return base

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X: Any, Y: Any):
        """Fit ``n_estimators`` chains, each on random instances and features."""
        X = validate_data(self, X, accept_sparse=["csr", "csc"], dtype="numeric",
                          ensure_all_finite=True)
        if sp.issparse(X):
            X = sp.csr_matrix(X)
        Y = check_labels(Y, X.shape[0], warn_empty=True)
        m = int(self.n_estimators)
        base = self._base_chain()
        rng = check_random_state(self.random_state)
        n, d = X.shape
        n_rows = max(1, int(np.floor(self.max_samples * n + 0.5)))
        n_cols = max(1, int(np.floor(self.max_features * d + 0.5)))
        self.estimators_, self.estimators_features_, self.estimators_samples_ = [], [], []
        for _ in range(m):
            rows = np.sort(rng.choice(n, n_rows, replace=False))
            cols = np.sort(rng.choice(d, n_cols, replace=False))
            member = clone(base)
            if "random_state" in member.get_params(deep=False):
                member.set_params(random_state=int(rng.randint(_MAX_SEED)))
            with _quiet_empty_labels():  # this fit already warned for the whole Y
                member.fit(X[rows][:, cols], Y[rows])
            self.estimators_.append(member)
            self.estimators_features_.append(cols)
            self.estimators_samples_.append(rows)
        self.n_labels_ = Y.shape[1]
        self._fit_label_info(Y)
        return self

    def predict_proba(self, X: Any) -> np.ndarray:
        """Fraction of members voting 1 for each label, shape (n, q)."""
        check_is_fitted(self, "estimators_")
        X = validate_data(self, X, accept_sparse=["csr", "csc"], dtype="numeric",
                          ensure_all_finite=True, reset=False)
        if sp.issparse(X):
            X = sp.csr_matrix(X)
        votes = np.zeros((X.shape[0], self.n_labels_))
        with warnings.catch_warnings():  # the ensemble's own predict checks the vote
            warnings.simplefilter("ignore", NoPositivePredictionWarning)
            for member, cols in zip(self.estimators_, self.estimators_features_, strict=True):
                votes += member.predict(X[:, cols])
        return votes / len(self.estimators_)

    def predict(self, X: Any) -> np.ndarray:
        """Majority vote, shape (n, q) int 0/1."""
        votes = self.predict_proba(X) * len(self.estimators_)
        return self._check_predictions(
            (votes >= self.threshold * len(self.estimators_) - 1e-9).astype(int)
        )
