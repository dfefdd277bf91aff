"""Common machinery of the greedy information-theoretic selectors."""

from __future__ import annotations

import inspect
import warnings
from abc import abstractmethod
from numbers import Integral, Real
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, _fit_context
from sklearn.exceptions import NotFittedError
from sklearn.feature_selection import SelectorMixin
from sklearn.utils._param_validation import (
    HasMethods,
    Interval,
    Options,
    RealNotInt,
    StrOptions,
)
from sklearn.utils.sparsefuncs import min_max_axis
from sklearn.utils.validation import check_is_fitted, validate_data

from .._progress import fit_progress
from .._progress import report_step as report_step
from .._validation import categorical_mask, check_target, is_one_budget, resolve_n_features
from ..discretize import discretize_features as discretize_features
from ..discretize import is_discrete as is_discrete
from ..info import DiscreteData, InfoCache, RowBlocks, StreamInfoCache, as_row_blocks, is_dask_array
from ._tags import SelectorTags, Tags, get_selector_tags

__all__ = [
    "BaseInfoSelector",
    "BaseSelector",
    "ranking_from_order",
    "selection_order",
    "scores_meaning",
    "Number",
    "argmax_tol",
    "check_magnitude",
    "degenerate_selection",
    "discretize_features",
    "is_discrete",
    "scale_huge_columns",
]

# Scores that are equal in exact arithmetic (e.g. I(y;a) + I(y;b|a) = I(y;b) + I(y;a|b),
# or the criterion of two features with the same count table) come out of different count
# paths and summation orders with differences in the last bits. Values within
# ``TIE_TOL + rtol·|max|`` of the maximum are treated as ties, so that tie-breaking is
# deterministic and as documented (lowest index).
TIE_TOL = 1e-10
# Relative part used by the greedy filters: their scores grow with the number of labels
# and selected features (GICS sums |L|·|S| joint entropies), and so does the rounding.
TIE_RTOL = 1e-12


def argmax_tol(score: np.ndarray, axis: int = -1, *, rtol: float = 0.0) -> np.ndarray:
    """First index whose value is within ``TIE_TOL + rtol·|max|`` of the maximum.

    The tie rule of every greedy search of the library (the selectors, and the kCC
    parents, Chow–Liu tree and chain order of :mod:`skmlfs.learners`): information
    values equal in exact arithmetic but apart by rounding go to the lower index.

    Parameters
    ----------
    score : ndarray
        Criterion values; ``-inf`` marks unavailable candidates and never ties with a
        finite maximum. With every entry ``-inf`` the result is index 0 (callers check
        availability).
    axis : int, default=-1
    rtol : float, default=0.0
        Relative part of the tolerance (for criteria that grow with the problem size).

    Returns
    -------
    ndarray of int
        The chosen index along ``axis`` (a 0-d array for a 1-D ``score``).
    """
    top = np.max(score, axis=axis, keepdims=True)
    tol = TIE_TOL + rtol * np.abs(top) if rtol else TIE_TOL
    return np.argmax(score >= top - tol, axis=axis)


def _any_feature_varies(X: Any) -> bool:
    """True when some column of ``X`` takes two distinct values (NaN ignored)."""
    if X.shape[0] < 2 or X.shape[1] == 0:
        return False
    if sp.issparse(X):
        lo, hi = min_max_axis(sp.csc_matrix(X), axis=0, ignore_nan=True)
    else:
        X = np.asarray(X)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN column
            lo, hi = np.nanmin(X, axis=0), np.nanmax(X, axis=0)
    return bool(np.any(np.asarray(hi) > np.asarray(lo)))


def degenerate_selection(estimator: Any, X: Any) -> bool:
    """The one treatment of degenerate training data, shared by every selector.

    When no feature of ``X`` takes two distinct values — every column constant, or a
    single training sample — the data carry no information to rank features by, and any
    k features returned would be arbitrary. The selector then selects **nothing**: a
    ``UserWarning`` says so, ``selection_order_`` is empty, ``ranking_`` is 2 for every
    feature (none has rank 1, none is selected), ``scores_`` is NaN for every feature
    (none was ranked), ``step_scores_`` (where the selector has it) is empty,
    ``n_features_to_select_`` is 0 and ``get_support()`` is all False (``transform``
    gives zero columns), whatever ``n_features_to_select`` is set to later. Returns True
    in that case (the caller's ``fit`` returns at once), False otherwise.
    ``n_features_in_`` is set, as by ``validate_data``.
    """
    if _any_feature_varies(X):
        return False
    n, d = X.shape
    why = "a single training sample" if n < 2 else f"all {d} features are constant"
    warnings.warn(
        f"{type(estimator).__name__}: no feature varies on the training data ({why}), so "
        "there is nothing to rank features by; no feature is selected.",
        UserWarning,
        stacklevel=3,
    )
    estimator.n_features_in_ = d
    estimator.selection_order_ = np.zeros(0, dtype=np.intp)
    estimator.ranking_ = ranking_from_order(estimator.selection_order_, 0, d)
    estimator.scores_ = np.full(d, np.nan)
    if get_selector_tags(estimator).greedy:
        estimator.step_scores_ = np.zeros(0)
    estimator.n_features_to_select_ = 0
    return True


def ranking_from_order(order: Any, n_selected: int, n_features: int) -> np.ndarray:
    """scikit-learn's ``ranking_`` (as :class:`~sklearn.feature_selection.RFE`'s) from a
    selection order.

    Parameters
    ----------
    order : array of int
        Feature indices, best first (``selection_order_``); it may cover only some of the
        features (a forward search stops at its budget).
    n_selected : int
        How many leading features of ``order`` are selected.
    n_features : int
        Number of features (``n_features_in_``).

    Returns
    -------
    ndarray of int, shape (n_features,)
        ``ranking[i]`` is the rank of feature ``i``: 1 for the ``n_selected`` selected
        features, then 2, 3, ... for the following features of ``order`` (as RFE ranks
        the eliminated features 2, 3, ... in reverse order of elimination), and one rank
        after the last of those, shared, for the features ``order`` leaves out.
    """
    order = np.asarray(order, dtype=np.intp)
    n_selected = int(min(n_selected, order.size))
    n_rest = order.size - n_selected
    ranking = np.full(int(n_features), n_rest + 2, dtype=np.intp)
    ranking[order[:n_selected]] = 1
    ranking[order[n_selected:]] = np.arange(2, n_rest + 2, dtype=np.intp)
    return ranking


def selection_order(selector: Any) -> np.ndarray:
    """The selected features of a fitted selector, best first, then the features it
    ranks after them.

    ``selection_order_`` for the selectors of this library. Other scikit-learn selectors:
    their features sorted by ``ranking_`` (``RFE``, ``RFECV``: rank 1 first, ties in index
    order), else ``get_support(indices=True)`` (``SelectKBest``, ``SelectFromModel``: the
    selected features in index order).
    """
    order = getattr(selector, "selection_order_", None)
    if order is None:
        ranking = getattr(selector, "ranking_", None)
        if ranking is not None:
            order = np.argsort(np.asarray(ranking), kind="stable")
        else:
            order = selector.get_support(indices=True)
    return np.asarray(order, dtype=np.intp)


# Methods that form products of X (XᵀX, kernels, Gram matrices) overflow float64 long
# before the values themselves do; beyond this magnitude they refuse X with a reason.
MAX_ABS_LINEAR = 1e100


def check_magnitude(X: Any, method: str, why: str) -> None:
    """Refuse finite ``X`` whose values are too large for ``method``'s linear algebra.

    Raises a ``ValueError`` naming the method, ``why`` (what it computes that overflows:
    "forms the Gram matrix XᵀX") and the largest magnitude, instead of numpy's "array
    must not contain infs or NaNs" from deep inside, or NaN weights.
    """
    data = X.data if sp.issparse(X) else np.asarray(X)
    top = float(np.max(np.abs(data))) if data.size else 0.0
    if top > MAX_ABS_LINEAR:
        raise ValueError(
            f"{method} {why}, which overflow float64 for values beyond {MAX_ABS_LINEAR:g}; "
            f"X holds values up to {top:.3g} in magnitude. Rescale X (e.g. with "
            "sklearn.preprocessing.StandardScaler or MaxAbsScaler)."
        )


def scale_huge_columns(X: Any) -> Any:
    """``X`` with every column whose magnitude exceeds 1e100 divided by a power of two.

    For scale-invariant computations (correlations, standardised features, range-normalised
    HEOM differences; NaN is left as it is): dividing by
    a power of two is exact, so they give what they give on the unscaled data, without
    the overflow of sums of squares (x 1e300). Other columns, and ``X`` itself when no
    column is that large, are returned untouched.
    """
    if sp.issparse(X):
        Xc = sp.csc_matrix(X, dtype=np.float64)
        lo, hi = min_max_axis(Xc, axis=0, ignore_nan=True) if Xc.shape[0] else (0.0, 0.0)
        top = np.maximum(np.abs(lo), np.abs(hi))
    else:
        Xc = np.asarray(X, dtype=np.float64)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN (missing) column
            top = np.nanmax(np.abs(Xc), axis=0) if Xc.shape[0] else np.zeros(Xc.shape[1])
    top = np.nan_to_num(np.asarray(top, dtype=np.float64), nan=0.0)
    big = top > MAX_ABS_LINEAR
    if not big.any():
        return X
    c = np.ones(Xc.shape[1])
    c[big] = np.exp2(np.floor(np.log2(top[big])))
    if sp.issparse(Xc):
        return sp.csr_matrix(Xc @ sp.diags(1.0 / c))
    return Xc / c


class Number(Interval):
    """:class:`~sklearn.utils._param_validation.Interval` that refuses booleans.

    scikit-learn's ``Interval(Real, ...)`` accepts ``True`` as 1; a selector parameter
    such as ``k=True`` or ``alpha=False`` is a mistake, not a number.
    """

    def is_satisfied_by(self, val: Any) -> bool:
        return not isinstance(val, (bool, np.bool_)) and super().is_satisfied_by(val)


class BudgetString(Options):
    """A string that is one feature budget: ``"sqrt"`` (``"ceil_sqrt"``), ``"round_sqrt"``,
    ``"all"``, ``"P%"``, or a count or fraction as text (``"20"``, ``"0.1"``).

    Checked by :func:`skmlfs._validation.is_one_budget`, the parser :func:`fit` resolves
    it with; a grid (``"1%..20%"``, a list) is several budgets and is refused here, when
    ``fit`` starts, with scikit-learn's ``InvalidParameterError``.
    """

    # An ``Options`` subclass: scikit-learn's validation takes instances of its own
    # constraint classes only, and an open set of strings is an option set with a test.
    def __init__(self) -> None:
        super().__init__(str, set())

    def is_satisfied_by(self, val: Any) -> bool:
        return isinstance(val, str) and is_one_budget(val)

    def __str__(self) -> str:
        return "a budget string such as 'sqrt', 'round_sqrt', 'all', '10%' or '20'"


#: Constraints of ``n_features_to_select``: a count >= 1, a fraction in (0, 1], one budget
#: string ("sqrt", "10%", ...) or None (⌈√n⌉); resolved to a count once, in ``fit``
#: (:func:`skmlfs._validation.resolve_n_features`).
BUDGET_CONSTRAINT = [
    None,
    Number(Integral, 1, None, closed="left"),
    Number(RealNotInt, 0, 1, closed="right"),
    BudgetString(),
]
#: Non-negative finite real (``inf`` is refused: ``[0, inf)``).
NON_NEGATIVE = Number(Real, 0, np.inf, closed="left")
#: Positive finite real.
POSITIVE = Number(Real, 0, np.inf, closed="neither")
#: How numeric features become symbols (see :class:`BaseInfoSelector`).
DISCRETIZER_CONSTRAINT = [StrOptions({"auto"}), None, HasMethods(["fit", "transform"])]


#: :func:`scores_meaning` of a selector that declares nothing: greedy searches / others
GREEDY_SCORES = ("criterion_at_pick", "the search criterion at the step the feature was "
                 "picked (NaN: never picked; not sorted: a later step may score higher)")
RANKING_SCORES = ("score", "the value the method ranks features by (higher ranks first)")


def _unfitted_instance(cls: type) -> Any:
    """An instance of ``cls`` to read its tags from: ``cls()``, or for a class with
    required parameters (the memetic search's ``learner``) one whose parameters are their
    defaults, ``None`` where there is none (``__init__`` is not run, as for ``clone``'s
    parameters; the tags read parameters only)."""
    try:
        return cls()
    except TypeError:
        obj = cls.__new__(cls)
        for name, p in inspect.signature(cls.__init__).parameters.items():
            if name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                setattr(obj, name, None if p.default is p.empty else p.default)
        return obj


def scores_meaning(selector: Any) -> tuple[str, str]:
    """What a selector's ``scores_`` holds: ``(column name, one-line meaning)``.

    Read from the ``scores_meaning`` of the selector's :class:`SelectorTags` (an instance,
    or a class that can be built without arguments); a selector that declares none gets
    :data:`GREEDY_SCORES` when it is a greedy search (the ``greedy`` tag) and
    :data:`RANKING_SCORES` otherwise (also for estimators from outside this library).
    """
    if isinstance(selector, type):
        selector = _unfitted_instance(selector)
    tags = get_selector_tags(selector)
    if tags.scores_meaning is not None:
        return (str(tags.scores_meaning[0]), str(tags.scores_meaning[1]))
    return GREEDY_SCORES if tags.greedy else RANKING_SCORES


class BaseSelector(SelectorMixin, BaseEstimator):
    """The one contract of the selectors of :mod:`skmlfs.selection`.

    ``fit`` validates the parameters against ``_parameter_constraints`` (scikit-learn's
    own mechanism, when ``fit`` starts; subclasses extend the dict with
    ``{**Parent._parameter_constraints, ...}``), then runs the method's :meth:`_fit`,
    which records its result with :meth:`_set_order`. ``get_support`` /
    ``transform`` cut ``selection_order_`` with the *current* ``n_features_to_select``,
    so a smaller budget set with ``set_params`` after ``fit`` needs no refit where the
    method allows it (the :class:`~skmlfs.selection.SelectorTags` ``nested_budgets`` and
    ``orders_all_features``).

    Fitted attributes (every subclass)
    ----------------------------------
    selection_order_ : ndarray of int
        Feature indices, best first: the greedy order of a forward search (its first
        ``k``), or every feature by decreasing score for a weighting method. The
        selected features are its first ``n_features_to_select_``.
    ranking_ : ndarray of shape (n_features_in_,)
        scikit-learn's ranking (as :class:`~sklearn.feature_selection.RFE`'s):
        ``ranking_[i]`` is the rank of feature ``i``, 1 for the features the fit
        selected, then 2, 3, ... in ``selection_order_``; the features the order leaves
        out (a forward search stops at its budget) share the rank after the last
        (:func:`ranking_from_order`). It describes the fit: after a smaller
        ``n_features_to_select`` is set, ``get_support`` keeps fewer of the rank-1
        features (the first of ``selection_order_``).
    scores_ : ndarray of shape (n_features_in_,)
        Indexed by feature. A weighting or scoring method (ReliefF, the sparse methods,
        LLSF, χ², relevance rankings): the value it ranks feature ``f`` by, for every
        feature. A greedy forward search: the criterion at the step ``f`` was picked, NaN
        for features never picked (as ``SelectKBest`` tolerates NaN scores).
    step_scores_ : ndarray of shape (n_ordered,)
        Greedy searches only: the criterion of each step, ``scores_[selection_order_]``.
    n_features_to_select_ : int
        Number of features the fit selected (``get_support`` may keep fewer after a
        smaller ``n_features_to_select`` is set).

    Cutting without refit
    ---------------------
    The selector tags (``get_tags(selector).selector_tags``) say what a smaller budget
    may reuse:

    * ``orders_all_features``: ``selection_order_`` orders every feature whatever the
      budget — any count;
    * ``nested_budgets`` (the default): a forward search, whose selection for ``k`` is
      the first ``k`` of the selection for any larger budget — any count up to the fitted
      one;
    * neither: a subset search — only the fitted budget;
    * :meth:`_prefix_ok` answers per budget where the tag cannot: a capped greedy
      search (MLFS family) or FIMF with a candidate cut-off is nested only for budgets on
      the same side of the cap, so its tag says False (the engine refits per budget)
      while ``get_support`` still serves the budgets that are prefixes.

    Asking for more than was fitted (or a different count of a subset search) raises
    :class:`~sklearn.exceptions.NotFittedError` telling to refit; it never returns fewer
    features silently.

    Writing a selector
    ------------------
    Subclass, extend ``_parameter_constraints``, declare what differs from the default
    :class:`~skmlfs.selection.SelectorTags` in ``__sklearn_tags__`` (``tags =
    super().__sklearn_tags__()``, then e.g. ``tags.selector_tags.greedy = True``),
    implement ``_fit(X, Y)``: validate the data, return :func:`degenerate_selection`'s
    early exit where it applies, and end with
    ``self._set_order(order, k=..., n_samples=..., scores=... or step_scores=...)``.
    No ``fit`` or ``_get_support_mask`` of its own.
    """

    _parameter_constraints: dict = {"n_features_to_select": BUDGET_CONSTRAINT}

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X: Any, Y: Any) -> BaseSelector:
        """Rank the features of ``X`` for the labels ``Y``.

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)
        Y : array-like or sparse matrix of shape (n_samples, n_labels), 0/1

        Returns
        -------
        self
        """
        with fit_progress(self):  # the steps of a verbose fit (skmlfs._progress)
            return self._fit(X, Y)

    @abstractmethod
    def _fit(self, X: Any, Y: Any) -> BaseSelector:
        """The method's fit (parameters already validated); ends with :meth:`_set_order`
        or with :func:`degenerate_selection`."""

    def _set_order(
        self,
        order: Any,
        *,
        k: int,
        n_samples: int,
        scores: Any = None,
        step_scores: Any = None,
        n_selected: int | None = None,
    ) -> None:
        """Record the result of a fit.

        Parameters
        ----------
        order : array of int
            ``selection_order_``: feature indices, best first (``ranking_`` is derived
            from it).
        k : int
            The budget the fit was resolved to (``n_features_to_select`` as a count).
        n_samples : int
            Training samples (``None`` budgets are ⌈√n_samples⌉ when cutting later).
        scores : array of shape (n_features_in_,), optional
            Per-feature scores. Without it ``scores_`` is ``step_scores`` placed at the
            ranked features and NaN elsewhere.
        step_scores : array of shape (len(order),), optional
            Criterion of each greedy step (``step_scores_``).
        n_selected : int, optional
            Features the fit selects (``n_features_to_select_``); default
            ``min(k, len(order))``.
        """
        order = np.asarray(order, dtype=np.intp)
        d = int(self.n_features_in_)
        if step_scores is not None:
            step_scores = np.asarray(step_scores, dtype=float)
            self.step_scores_ = step_scores
        if scores is None:
            scores = np.full(d, np.nan)
            scores[order] = step_scores
        self.selection_order_ = order
        self.scores_ = np.asarray(scores, dtype=float)
        self.n_features_to_select_ = int(
            min(k, order.size) if n_selected is None else n_selected
        )
        self.ranking_ = ranking_from_order(order, self.n_features_to_select_, d)
        self._fit_k = int(k)
        self._fit_n_samples = int(n_samples)

    # ------------------------------------------------------------------ the cut
    def _budget(self) -> int:
        """The current ``n_features_to_select`` as a count (no warning: fit warned)."""
        return resolve_n_features(
            self.n_features_to_select, self._fit_n_samples, self.n_features_in_, warn=False
        )

    def _prefix_ok(self, k: int) -> bool:
        """Whether ``selection_order_[:k]`` is what a fit with budget ``k`` selects (``k``
        below the fitted budget). The tag answers for a whole grid of budgets; a selector
        whose answer depends on ``k`` (a cap or cut-off crossed) overrides this."""
        return get_selector_tags(self).nested_budgets

    def _n_selected(self, k: int) -> int:
        """How many leading features of ``selection_order_`` the budget ``k`` keeps."""
        if k == self._fit_k:
            return self.n_features_to_select_
        tags = get_selector_tags(self)
        if tags.orders_all_features or (
            k < self._fit_k and self._prefix_ok(k)
        ):
            return min(k, self.selection_order_.size)
        if k > self._fit_k:
            why = f"it ranked features for a budget of {self._fit_k}"
        else:
            why = f"its selection for {k} is not a prefix of the one fitted for {self._fit_k}"
        raise NotFittedError(
            f"{type(self).__name__}: n_features_to_select={self.n_features_to_select!r} "
            f"asks for {k} features, but {why}; call fit again with this "
            "n_features_to_select."
        )

    def _get_support_mask(self) -> np.ndarray:
        check_is_fitted(self, "selection_order_")
        mask = np.zeros(self.n_features_in_, dtype=bool)
        if self.selection_order_.size == 0:  # degenerate data: nothing is ever selected
            return mask
        mask[self.selection_order_[: self._n_selected(self._budget())]] = True
        return mask

    def __sklearn_tags__(self) -> Tags:
        tags = Tags.from_sklearn(super().__sklearn_tags__(), SelectorTags())
        tags.target_tags.required = True
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = False  # the target is a 0/1 label matrix
        tags.input_tags.sparse = True
        return tags


#: The selectors whose ``fit`` counts over row blocks (the ``row_blocks`` tag), for messages.
ROW_BLOCK_SELECTORS = "SCLS, AMI, MIRank, GICS, MDMR, D2F and MLMIM (discretizer=None)"


class BaseInfoSelector(BaseSelector):
    """Base of the information-theoretic selectors: discretization and the count engine.

    Subclasses implement :meth:`_select` on an :class:`~skmlfs.info.InfoCache` and return
    the selected features in order with the criterion of each step (``step_scores_``;
    ``scores_`` holds it per feature, NaN for features not selected).

    Parameters common to all subclasses
    -----------------------------------
    n_features_to_select : int, float, str or None
        Count, fraction of the features, a budget string (``"sqrt"``, ``"10%"``), or
        ``None`` for ⌈√n_samples⌉ (SCLS §4.1).
    discretizer : "auto", None or transformer
        How numeric features become discrete symbols before counting. ``"auto"``:
        integer-valued data (binary, nominal codes, already discretized) is used as is,
        and data with fractional values is discretized by
        :class:`~skmlfs.discretize.LAIMDiscretizer` fitted on the training data (the
        supervised method the SCLS and memetic papers use). ``None``: values are used as
        symbols as they are. A transformer is cloned and fitted with ``fit(X, Y)``.
    categorical_features : None, bool mask or int indices, default=None
        Nominal columns (e.g. ``np.flatnonzero(np.array(ds.feature_types) == "nominal")``
        of a loaded data set): their integer codes are symbols as they are and pass
        through the discretizer unchanged, so a 12-valued nominal code is never binned as
        if it were a number (as :func:`skmlfs.discretize.fit_discretizer` does with its
        ``categorical_features``). ``None``: every column is numeric. The same form as the
        lazy learners' ``categorical_features``.

    Input
    -----
    ``X`` larger than memory may come in row blocks (the selectors tagged ``row_blocks``:
    SCLS, AMI, MIRank, GICS, MDMR, D2F, MLMIM; others say what they would need): a ``dask.array``
    (dense or scipy.sparse chunks; with a ``distributed.Client`` the counting runs on its
    workers), a ``numpy.memmap``, or a :class:`skmlfs.info.RowBlocks` source (then
    ``Y=None``). Row blocks are used as discrete symbols (no discretizer) and give the
    in-memory selection. A 1-D ``y`` is accepted as one discrete target.

    Degenerate data
    ---------------
    When no feature varies on the training data (all columns constant, or one sample),
    nothing is selected and a ``UserWarning`` says so — the rule of every selector of
    the package (:func:`degenerate_selection`). Otherwise SCLS, AMI, MDMR, GICS and
    LRFS never select a zero-entropy (constant) feature, and return fewer than k
    features with a warning when fewer carry information.
    """

    _parameter_constraints: dict = {
        **BaseSelector._parameter_constraints,
        "discretizer": DISCRETIZER_CONSTRAINT,
        # its length depends on the data: checked in fit (categorical_mask)
        "categorical_features": ["array-like", None],
        "verbose": ["verbose"],
    }

    def __init__(self, n_features_to_select: Any = None, discretizer: Any = "auto", *,
                 categorical_features: Any = None, verbose: int = 0):
        self.n_features_to_select = n_features_to_select
        self.discretizer = discretizer
        self.categorical_features = categorical_features
        self.verbose = verbose

    def __sklearn_tags__(self) -> Tags:
        tags = super().__sklearn_tags__()
        # forward searches by default; criteria computed from per-feature label sums and
        # I(f; s) only can count over row blocks (StreamInfoCache): those set row_blocks
        tags.selector_tags.greedy = True
        return tags

    # ------------------------------------------------------------------ fit
    def _fit(self, X: Any, Y: Any) -> BaseInfoSelector:
        if _is_row_block_input(X) and not self._memmap_in_memory(X):
            cache = self._stream_cache(X, Y)
            n_rows, n_cols = cache.n_samples, cache.source.n_features
        else:
            X = validate_data(
                self, X, accept_sparse=["csr", "csc"], dtype="numeric", ensure_all_finite=True
            )
            Y = check_target(Y, X.shape[0], accept_sparse=True)  # sparse labels stay sparse
            if degenerate_selection(self, X):
                self.entropies_ = np.zeros(X.shape[1])
                return self
            Xd = self._discretize(X, Y)
            cache = InfoCache(DiscreteData.from_array(Xd), DiscreteData.from_array(Y))
            n_rows, n_cols = X.shape
        k = resolve_n_features(self.n_features_to_select, n_rows, n_cols)
        ranking, values = self._select(cache, k)
        if ranking.size < k:
            warnings.warn(
                f"{type(self).__name__} selected {ranking.size} of the {k} requested "
                "features: the remaining candidates have zero entropy (constant columns) "
                "and carry no information.",
                UserWarning,
                stacklevel=4,  # the caller of fit (through _fit_context's wrapper)
            )
        self._set_order(
            ranking, k=k, n_samples=n_rows, scores=self._per_feature_scores(ranking, values),
            step_scores=values if get_selector_tags(self).greedy else None,
            n_selected=int(ranking.size),
        )
        self.entropies_ = cache.h_x
        return self

    def _memmap_in_memory(self, X: Any) -> bool:
        """Whether a memmap ``X`` is read whole, as any other array, instead of in row blocks.

        A memmap is streamed only when it can be counted as it is: the selector counts over
        row blocks, and the values are symbols already (an integer dtype, or
        ``discretizer=None``). A float memmap with ``discretizer="auto"`` needs the
        supervised discretization of the in-memory fit.
        """
        if not isinstance(X, np.memmap):
            return False
        symbols = X.dtype.kind in "biu" or self.discretizer is None
        return not (get_selector_tags(self).row_blocks and symbols)

    def _stream_cache(self, X: Any, Y: Any) -> Any:
        """Counts over row blocks (Dask array, memmap, RowBlocks source), see fit."""
        if not get_selector_tags(self).row_blocks:
            need = getattr(self, "_row_blocks_need", None) or (
                "it needs the full feature × label tables"
            )
            raise NotImplementedError(
                f"{type(self).__name__} cannot count over row blocks (a dask array, memmap "
                f"or RowBlocks source): {need}. Pass in-memory data (row-block sources and "
                f"Dask arrays work with {ROW_BLOCK_SELECTORS})."
            )
        if not (self.discretizer is None or self.discretizer == "auto"):
            raise ValueError(
                "row-block input (a dask array, memmap or RowBlocks source) is used as "
                "discrete symbols: discretize it before fit and pass discretizer='auto' "
                f"or None; got discretizer={self.discretizer!r}."
            )
        source = as_row_blocks(X, Y)
        self.n_features_in_ = int(source.n_features)
        return StreamInfoCache(source, discrete_only=self.discretizer == "auto")

    def _discretize(self, X, Y):
        """``X`` as symbols: the ``discretizer`` parameter applied here, in ``fit``, on the
        training data, with the nominal columns (``categorical_features``) passed through
        unchanged — the one place the ``"auto"`` rule is decided for this selector."""
        return discretize_features(self.discretizer, X, Y, self._categorical(X))

    def _categorical(self, X: Any) -> np.ndarray | None:
        """``categorical_features`` as a mask of the columns of ``X`` (checked whether or not
        a discretizer runs), ``None`` when not set."""
        if self.categorical_features is None:
            return None
        return categorical_mask(self.categorical_features, X.shape[1])

    @abstractmethod
    def _select(self, cache: InfoCache, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Return the selected feature indices in order and their criterion values."""

    def _per_feature_scores(self, ranking: np.ndarray, values: np.ndarray) -> Any:
        """``scores_`` from :meth:`_select`'s result; ``None`` (default): the greedy rule,
        ``values`` at the ranked features and NaN elsewhere."""
        return None


def refuse_row_blocks(selector: Any, X: Any) -> None:
    """Raise the clear error of a selector without row-block counting, for a ``fit`` of its
    own that would otherwise read a Dask array whole or fail on a RowBlocks source (a
    memmap is an array: it is read as one)."""
    if isinstance(X, RowBlocks) or is_dask_array(X):
        selector._stream_cache(X, None)


def _is_row_block_input(X: Any) -> bool:
    """Data counted over row blocks: a dask array, a numpy memmap or a RowBlocks source."""
    return isinstance(X, (RowBlocks, np.memmap)) or is_dask_array(X)


def greedy_select(
    first: np.ndarray,
    update: Any,
    score: Any,
    valid: np.ndarray,
    k: int,
    *,
    rtol: float | None = TIE_RTOL,
    prefetch: Any = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Run the common greedy forward search (``docs/methods/info.md#greedy-search``).

    Parameters
    ----------
    first : ndarray (d,)
        Criterion of every candidate when nothing is selected.
    update : callable(s) -> None
        Called after feature ``s`` enters the subset, to update the accumulators.
    score : callable() -> ndarray (d,)
        Criterion of every candidate given the current subset.
    valid : ndarray of bool (d,)
        Candidates that may ever be selected (zero-entropy features are not).
    k : int
        Number of features to select.
    rtol : float or None, default=TIE_RTOL
        Ties go to the lowest feature index: candidates whose criterion is within
        ``TIE_TOL + rtol·|max|`` of the best are tied (:func:`argmax_tol`), so values that
        are equal in exact arithmetic but differ by rounding do not pick a higher index.
        ``None`` uses the exact float maximum (``np.argmax``, first maximum).
    prefetch : callable(s, J) or None
        Called before ``update(s)`` with the criterion ``J`` of the step (``-inf`` for
        unavailable candidates): a row-block cache counts ``s`` together with the best
        other candidates in one pass over the rows.

    Stops early when no valid candidate is left.
    """
    available = valid.copy()
    ranking: list[int] = []
    scores: list[float] = []
    J = first
    for step in range(k):
        if step:
            J = score()
        J = np.where(available, J, -np.inf)
        f = int(np.argmax(J)) if rtol is None else int(argmax_tol(J, rtol=rtol))
        if not available[f]:
            break
        ranking.append(f)
        scores.append(float(J[f]))
        report_step(step + 1, k, "feature", criterion=float(J[f]))
        available[f] = False
        if step + 1 < k:
            if prefetch is not None:
                prefetch(f, np.where(available, J, -np.inf))
            update(f)
    return np.asarray(ranking, dtype=np.intp), np.asarray(scores)


def mean_redundancy_select(
    cache: Any, relevance: np.ndarray, valid: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """Greedy ``J(f) = relevance(f) − (1/|S|) Σ_{s∈S} I(f; s)`` (``J = relevance`` when
    ``S = ∅``), the mRMR-style search of LRFS (RLEFS Eq. 3) and PPT+MI ``search="mrmr"``.

    Each step adds one column ``I(·; s)`` of the cache (:func:`greedy_select`); one BLAS
    thread, as each column is a small product.
    """
    from threadpoolctl import threadpool_limits

    red = np.zeros_like(relevance)
    n_sel = [0]

    def update(s: int) -> None:
        red[:] += cache.mi_xx(s)
        n_sel[0] += 1

    with threadpool_limits(limits=1):
        return greedy_select(relevance, update, lambda: relevance - red / n_sel[0], valid, k)
