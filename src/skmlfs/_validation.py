"""Input validation shared by every estimator (the API edge)."""

from __future__ import annotations

import contextlib
import math
import numbers
import re
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_array

__all__ = [
    "BUDGET_FORMS",
    "budget_count",
    "budget_grid",
    "check_X_Y",
    "check_labels",
    "check_target",
    "is_one_budget",
    "parse_budget",
    "resolve_count",
    "resolve_n_features",
]


def warn_empty_labels(Y: np.ndarray | sp.spmatrix, name: str = "Y") -> None:
    """``UserWarning`` naming the label columns of a 0/1 ``Y`` without a positive example."""
    n, q = Y.shape
    if not n:
        return
    positives = Y.getnnz(axis=0) if sp.issparse(Y) else np.count_nonzero(Y, axis=0)
    empty = np.flatnonzero(positives == 0)
    if empty.size:
        shown = ", ".join(map(str, empty[:10])) + (", ..." if empty.size > 10 else "")
        warnings.warn(
            f"{empty.size} of the {q} label columns of {name} have no positive example in "
            f"the {n} training patterns (columns {shown}): nothing can be learned about "
            "them, and they add nothing to label-based criteria.",
            UserWarning,
            stacklevel=5,  # the caller of fit (via check_target / check_X_Y)
        )


@contextlib.contextmanager
def _quiet_empty_labels() -> Iterator[None]:
    """Silence :func:`warn_empty_labels` for inner fits whose caller already warned.

    Ensemble members, a learner's own selector and a wrapper's per-evaluation refits see
    subsamples of labels the outer ``fit`` has validated; their warnings would repeat it.
    """
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".* have no positive example in the ")
        yield


def _is_label_sets(Y: Any) -> bool:
    """True for labels given as one collection of label names per sample (what
    ``MultiLabelBinarizer`` takes) instead of an indicator matrix: rows that are sets, or
    hold strings, or differ in length. A list of equal-length 0/1 rows is a matrix."""
    if isinstance(Y, np.ndarray):
        if Y.dtype != object or Y.ndim != 1:
            return False
    elif not isinstance(Y, list | tuple):
        return False
    rows = list(Y)
    if not rows or not all(isinstance(r, list | tuple | set | frozenset | np.ndarray)
                           for r in rows):
        return False
    if any(isinstance(r, set | frozenset) for r in rows):
        return True
    if len({len(r) for r in rows}) > 1:
        return True
    return any(isinstance(v, str) for r in rows for v in r)


def check_labels(
    Y: Any,
    n_samples: int | None = None,
    *,
    name: str = "Y",
    accept_sparse: bool = False,
    warn_empty: bool = False,
) -> np.ndarray | sp.csr_matrix:
    """Validate a label matrix and return it as a dense ``(n, q)`` uint8 0/1 array.

    With ``accept_sparse=True`` a sparse ``Y`` is returned as a CSR matrix (validated, not
    densified), for methods that count on sparse labels. With ``warn_empty=True`` (for
    training labels in ``fit``) a ``UserWarning`` names the label columns that have no
    positive example (:func:`warn_empty_labels`); off by default, since test labels and
    predictions without some label are normal.

    Accepts a 2-D array-like, a scipy sparse matrix or a pandas DataFrame. A 1-D
    array is rejected: multi-label targets are always two-dimensional.

    Raises
    ------
    ValueError
        If ``Y`` is not 2-D, has NaN/inf, holds values other than 0 and 1, or its
        number of rows differs from ``n_samples``.
    """
    if Y is None:
        raise ValueError(
            "This estimator requires y to be passed, but the target y is None: pass the "
            "(n_samples, n_labels) 0/1 label matrix."
        )
    if sp.issparse(Y):
        Y = sp.csr_matrix(Y)
        data = Y.data
        if not np.all(np.isfinite(data)):
            raise ValueError(f"{name} contains NaN or infinity.")
        if np.any((data != 0) & (data != 1)):
            bad = data[(data != 0) & (data != 1)][0]
            raise ValueError(f"{name} must hold only 0/1 label indicators; found {bad!r}.")
        if accept_sparse:
            if Y.shape[1] == 0:
                raise ValueError(f"{name} has no labels (0 columns).")
            if n_samples is not None and Y.shape[0] != n_samples:
                raise ValueError(
                    f"X and {name} have inconsistent numbers of samples: {n_samples} != "
                    f"{Y.shape[0]}."
                )
            Y = Y.astype(np.uint8)
            Y.eliminate_zeros()
            if warn_empty:
                warn_empty_labels(Y, name)
            return Y
        Yd = Y.toarray()
    else:
        if _is_label_sets(Y):
            raise ValueError(
                f"{name} looks like a list of label lists (e.g. [['a', 'b'], ['c']]); "
                "multi-label estimators take the (n_samples, n_labels) 0/1 indicator "
                f"matrix: binarize it first with {name} = sklearn.preprocessing."
                f"MultiLabelBinarizer().fit_transform({name}) (its classes_ are the label "
                "names, in column order)."
            )
        Yd = check_array(
            Y, ensure_2d=False, dtype=None, ensure_all_finite=True, input_name=name
        )
        if Yd.ndim != 2:
            raise ValueError(
                f"{name} must be a 2-D label indicator matrix of shape (n_samples, n_labels); "
                f"got an array with {Yd.ndim} dimension(s). Reshape a single label with "
                "Y.reshape(-1, 1)."
            )
        if Yd.dtype == bool:
            Yd = Yd.astype(np.uint8)
        if Yd.dtype == object:
            # an object array of numbers (e.g. from a mixed DataFrame) is read as numbers
            try:
                Yd = Yd.astype(np.float64)
            except (TypeError, ValueError):
                pass
        if not np.issubdtype(Yd.dtype, np.number):
            raise ValueError(
                f"Unknown label type: {name} must be numeric 0/1; got dtype {Yd.dtype}."
            )
        bad = (Yd != 0) & (Yd != 1)
        if bad.any():
            i, j = np.argwhere(bad)[0]
            raise ValueError(
                f"{name} must hold only 0/1 label indicators; found {Yd[i, j]!r} at row {i}, "
                f"label {j}."
            )
    if Yd.shape[1] == 0:
        raise ValueError(f"{name} has no labels (0 columns).")
    if n_samples is not None and Yd.shape[0] != n_samples:
        raise ValueError(
            f"X and {name} have inconsistent numbers of samples: {n_samples} != {Yd.shape[0]}."
        )
    Yd = np.ascontiguousarray(Yd, dtype=np.uint8)
    if warn_empty:
        warn_empty_labels(Yd, name)
    return Yd


def check_target(
    Y: Any, n_samples: int | None = None, *, name: str = "Y", accept_sparse: bool = False
) -> np.ndarray | sp.csr_matrix:
    """Validate the target of a *selector*: a 0/1 label matrix, or one discrete target.

    A 2-D ``Y`` must be a 0/1 label indicator matrix (:func:`check_labels`). A 1-D ``y`` is
    one discrete target variable (single-label, binary or multi-class): it is returned as
    an ``(n, 1)`` column of class codes, so information-theoretic selectors compute
    ``I(f; y)`` with the multi-valued ``y`` — the single-label special case of the same
    criteria.
    """
    if Y is not None and not sp.issparse(Y) and not _is_label_sets(Y):
        arr = np.asarray(Y)
        if arr.ndim == 1:
            arr = check_array(
                arr, ensure_2d=False, dtype=None, ensure_all_finite=True, input_name=name
            )
            if n_samples is not None and arr.shape[0] != n_samples:
                raise ValueError(
                    f"X and {name} have inconsistent numbers of samples: {n_samples} != "
                    f"{arr.shape[0]}."
                )
            if arr.dtype.kind == "f" and not np.all(arr == np.floor(arr)):
                raise ValueError(
                    f"Unknown label type: {name} is continuous; a selector needs discrete "
                    "class labels or a 0/1 label matrix."
                )
            codes = np.unique(arr, return_inverse=True)[1].ravel()
            return codes.astype(np.int64)[:, None]
    return check_labels(Y, n_samples, name=name, accept_sparse=accept_sparse, warn_empty=True)


def check_X_Y(
    X: Any, Y: Any, *, accept_sparse: bool = True, dtype: Any = "numeric"
) -> tuple[np.ndarray | sp.csr_matrix, np.ndarray]:
    """Validate features and labels together.

    ``X`` stays sparse (CSR) when it is sparse and ``accept_sparse`` is true;
    NaN and infinity are rejected with a clear message (discretize or impute first).
    ``Y`` is returned as a dense uint8 0/1 matrix (labels are few compared with
    features, and every method indexes labels column-wise).
    """
    X = check_array(
        X,
        accept_sparse=["csr", "csc"] if accept_sparse else False,
        dtype=dtype,
        ensure_all_finite=True,
        input_name="X",
    )
    Yv = check_labels(Y, X.shape[0], warn_empty=True)
    return X, Yv


# --------------------------------------------------------------------------- budgets
# One name, one parser, one resolution. A budget is ``n_features_to_select`` everywhere
# (selectors, experiment files, ``evaluate``; the command line's ``-k``). Every form is read
# by :func:`parse_budget`; a single budget becomes a count only in
# :func:`resolve_n_features`, which a selector calls in ``fit`` and the experiment engine
# calls for each budget of a grid (:func:`budget_grid`), so both count the same.
_NUM = r"(\d+(?:\.\d+)?)"
_RANGE = re.compile(rf"^{_NUM}(%?)\s*\.\.\s*{_NUM}(%?)(?:\s*:\s*{_NUM}(%?))?$")
_PERCENT = re.compile(rf"^{_NUM}%$")

#: The accepted budget forms, as quoted by every budget error message.
BUDGET_FORMS = (
    "expected 'ceil_sqrt' (alias 'sqrt'), 'round_sqrt', 'all', an int >= 1, a fraction in "
    "(0, 1], 'P%', 'A..B[:S]', 'A%..B%[:S%]', or a list of these"
)


def parse_budget(value: Any, key: str = "n_features") -> tuple[tuple, ...]:
    """Parse a feature-budget specification into terms ``("ceil_sqrt",)``,
    ``("round_sqrt",)``, ``("count", k)`` or ``("percent", p)``.

    Accepted forms (and lists of them, whose budgets are united):

    * ``"ceil_sqrt"`` (alias ``"sqrt"``): ``⌈√|W|⌉`` with ``|W|`` the number of patterns
      (SCLS §4.1); ``"round_sqrt"``: ``round(√|W|)``;
    * an int ``k ≥ 1`` (or its decimal string): ``k`` features;
    * ``"P%"`` or a float in ``(0, 1]`` (or its decimal string): ``⌈P/100 · |F|⌉``
      features (at least 1);
    * ``"A..B"`` / ``"A..B:S"``: counts ``A, A+S, …, B``; ``"A%..B%"`` / ``"A%..B%:S%"``:
      percentages (RLEFS: ``"1%..20%"`` = 1 %, 2 %, …, 20 %); ``S`` defaults to 1;
    * ``"all"``: every feature.

    Turn terms into counts with :func:`budget_count`.

    Raises
    ------
    ValueError
        ``"<key>: ..."``, naming the value and the accepted forms (:data:`BUDGET_FORMS`).
    """
    forms = BUDGET_FORMS
    if isinstance(value, (list, tuple)):
        if not value:
            raise ValueError(f"{key}: empty list; {forms}.")
        terms: list[tuple] = []
        for i, v in enumerate(value):
            terms.extend(parse_budget(v, f"{key}[{i}]"))
        return tuple(dict.fromkeys(terms))
    if isinstance(value, bool):
        raise ValueError(f"{key}: got {value!r}; {forms}.")
    if isinstance(value, numbers.Integral):
        if value < 1:
            raise ValueError(f"{key}: a feature count must be >= 1; got {value}.")
        return (("count", int(value)),)
    if isinstance(value, numbers.Real):
        f = float(value)
        if not 0.0 < f <= 1.0:
            raise ValueError(
                f"{key}: a float is a fraction of the features and must lie in (0, 1]; got {f} "
                "(write an int for a count, or 'P%')."
            )
        return (("percent", f * 100.0),)
    if not isinstance(value, str):
        raise ValueError(f"{key}: got {type(value).__name__}; {forms}.")
    s = value.strip().lower()
    if s in ("ceil_sqrt", "sqrt"):
        return (("ceil_sqrt",),)
    if s == "round_sqrt":
        return (("round_sqrt",),)
    if s == "all":
        return (("percent", 100.0),)
    if s.isdigit():
        return parse_budget(int(s), key)
    if re.fullmatch(r"\d*\.\d+", s):  # "0.1" as typed on a command line
        return parse_budget(float(s), key)
    m = _PERCENT.match(s)
    if m:
        p = float(m.group(1))
        if not 0.0 < p <= 100.0:
            raise ValueError(f"{key}: a percentage must lie in (0, 100]; got {value!r}.")
        return (("percent", p),)
    m = _RANGE.match(s)
    if m:
        a, pa, b, pb, step, ps = m.groups()
        pct = pa == "%"
        if (pb == "%") != pct or (step is not None and (ps == "%") != pct):
            raise ValueError(f"{key}: mix of counts and percentages in range {value!r}.")
        a_, b_, s_ = float(a), float(b), float(step) if step is not None else 1.0
        if s_ <= 0 or b_ < a_ or a_ <= 0:
            raise ValueError(f"{key}: range {value!r} must have 0 < A <= B and a step > 0.")
        n_steps = int(math.floor((b_ - a_) / s_ + 1e-9))
        vals = [a_ + i * s_ for i in range(n_steps + 1)]
        if pct:
            if b_ > 100:
                raise ValueError(f"{key}: percentages above 100 in {value!r}.")
            return tuple(("percent", round(v, 9)) for v in vals)
        if any(v != int(v) for v in vals):
            raise ValueError(
                f"{key}: a count range needs integer bounds and step; got {value!r}."
            )
        return tuple(("count", int(v)) for v in vals)
    raise ValueError(f"{key}: cannot read {value!r}; {forms}.")


def budget_count(term: tuple, n_samples: int, n_features: int, *, cap: bool = True) -> int:
    """The number of features of one parsed budget term (:func:`parse_budget`).

    ``cap=True`` caps the count at ``n_features``; ``cap=False`` leaves an explicit
    ``("count", k)`` as it is (the caller warns about, or reports, a count above it).
    """
    if term[0] == "ceil_sqrt":
        k = math.ceil(math.sqrt(n_samples))
    elif term[0] == "round_sqrt":
        k = int(np.round(math.sqrt(n_samples)))
    elif term[0] == "count":
        k = int(term[1])
    else:  # percent; the epsilon keeps 7 % of 100 at 7, not 8 (float round-off)
        k = math.ceil(term[1] * n_features / 100.0 - 1e-9)
    k = max(1, int(k))
    return min(k, n_features) if cap else k


def _term_value(term: tuple) -> Any:
    """A parsed budget term written back as the single budget a selector takes."""
    if term[0] == "count":
        return int(term[1])
    if term[0] == "percent":
        # parse_budget rounds range steps to 9 decimals; this text reads back to that float
        text = f"{term[1]:.9f}".rstrip("0").rstrip(".")
        return f"{text}%"
    return term[0]  # "ceil_sqrt", "round_sqrt"


def budget_grid(value: Any, key: str = "n_features_to_select") -> list:
    """The single budgets of a budget grid, each in a form ``n_features_to_select`` accepts.

    A list is returned element by element (each checked); a range ``"A..B[:S]"`` or
    ``"A%..B%[:S%]"`` is expanded into its counts or percentages; any other value is a
    grid of one. The experiment engine turns each into a count with
    :func:`resolve_n_features`, the function a selector's ``fit`` calls, so a budget of a
    grid and the same budget given to a selector select the same number of features.

    Raises
    ------
    ValueError
        ``"<key>: ..."`` for a value :func:`parse_budget` does not read.
    """
    if isinstance(value, (list, tuple)):
        if not value:
            raise ValueError(f"{key}: empty list; {BUDGET_FORMS}.")
        out: list = []
        for i, v in enumerate(value):
            out.extend(budget_grid(v, f"{key}[{i}]"))
        return list(dict.fromkeys(out))
    terms = parse_budget(value, key)
    if len(terms) == 1:
        return [value]
    return [_term_value(t) for t in terms]


def is_one_budget(value: Any) -> bool:
    """Whether ``value`` is one budget of :func:`parse_budget` (a selector's
    ``n_features_to_select``), not a list or a range of several."""
    if isinstance(value, (list, tuple)):
        return False
    try:
        return len(parse_budget(value)) == 1
    except ValueError:
        return False


def resolve_n_features(
    n_features_to_select: Any, n_samples: int, n_features: int, *, warn: bool = True
) -> int:
    """Turn ``n_features_to_select`` into a count.

    ``None`` gives ⌈√n_samples⌉, the SCLS paper's budget (§4.1); a float in (0, 1]
    is a fraction of the features; an int is a count; a string is one budget of
    :func:`parse_budget` (``"sqrt"``, ``"round_sqrt"``, ``"10%"``, ``"all"``, ``"20"``).
    The result is capped at ``n_features`` (a full ranking); an int count above it is
    capped with a ``UserWarning`` naming both numbers (``warn=False`` for a second
    resolution in the same fit, which has warned already).
    """
    value = "ceil_sqrt" if n_features_to_select is None else n_features_to_select
    if not isinstance(value, (numbers.Real, str)) or isinstance(value, bool):
        raise TypeError(
            "n_features_to_select must be None, an int, a float fraction or a budget string "
            f"such as 'sqrt' or '10%'; got {type(value).__name__}."
        )
    terms = parse_budget(value, "n_features_to_select")
    if len(terms) != 1:
        raise ValueError(
            f"n_features_to_select: {value!r} is several budgets; a selector takes one."
        )
    k = budget_count(terms[0], n_samples, n_features, cap=False)
    if k > n_features and warn and terms[0][0] == "count":
        warnings.warn(
            f"n_features_to_select={k} is larger than the number of features "
            f"({n_features}); all {n_features} features are ranked.",
            UserWarning,
            stacklevel=3,
        )
    return min(k, n_features)


def resolve_count(value: Any, total: int, name: str, *, allow_zero: bool = False) -> int:
    """A count or a fraction of ``total``, read by the one budget parser.

    For the budgets that are not a selector's ``n_features_to_select``: the kCC parent
    budget ``k``, MDDM's ``n_components``, the chains' ``M``. ``None`` means ``total``;
    an int ``>= 1`` (``>= 0`` with ``allow_zero``) is a count capped at ``total``; a float
    in ``(0, 1]`` is the fraction ``⌈value · total⌉`` (the oCC paper's ``k = ⌈0.8 q⌉``;
    its reference code rounds instead). Parsed by :func:`parse_budget` and counted by
    :func:`budget_count` (whose ``⌈P/100 · total⌉`` equals ``⌈value · total⌉``).

    Raises
    ------
    TypeError
        For a bool, a string or another non-number.
    ValueError
        For a count below the minimum or a fraction outside ``(0, 1]``.
    """
    if value is None:
        return int(total)
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"{name} must be an int, a float fraction or None; got {type(value).__name__}."
        )
    if allow_zero and isinstance(value, numbers.Integral) and value == 0:
        return 0
    (term,) = parse_budget(value, name)
    return budget_count(term, 0, int(total))


def categorical_mask(categorical_features: Any, n_features: int) -> np.ndarray:
    """Boolean mask of ``n_features`` columns from None, a boolean mask or column indices.

    The form of scikit-learn's ``categorical_features`` (``HistGradientBoosting*``), used by
    the discretizers (columns that pass through) and by HEOM (nominal columns).
    """
    d, cf = n_features, categorical_features
    if cf is None:
        return np.zeros(d, dtype=bool)
    arr = np.asarray(cf)
    if arr.dtype == bool:
        if arr.shape != (d,):
            raise ValueError(
                f"categorical_features as a boolean mask must have length {d} (the number "
                f"of features); got shape {arr.shape}."
            )
        return arr.copy()
    if arr.ndim == 1 and (arr.size == 0 or np.issubdtype(arr.dtype, np.integer)):
        if arr.size and (arr.min() < -d or arr.max() >= d):
            raise ValueError(f"categorical_features indices must lie in [-{d}, {d}); got {cf!r}.")
        mask = np.zeros(d, dtype=bool)
        mask[arr] = True
        return mask
    raise ValueError(
        f"categorical_features must be None, a boolean mask or column indices; got {cf!r}."
    )
