"""Input validation shared by the statistical tests."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["as_score_matrix", "check_alpha", "check_bool", "readonly"]


def readonly(a: Any) -> np.ndarray:
    """Return ``a`` as an array that cannot be written to (results are frozen)."""
    a = np.array(a)  # a copy: the caller's array stays writable
    a.setflags(write=False)
    return a


def check_bool(value: Any, name: str) -> bool:
    """Reject anything that is not a real boolean (e.g. the string ``"loss"``)."""
    if not isinstance(value, bool | np.bool_):
        raise TypeError(f"{name} must be True or False; got {value!r}.")
    return bool(value)


def check_alpha(alpha: Any) -> float:
    """Validate a significance level: a number strictly between 0 and 1."""
    try:
        a = float(alpha)
    except (TypeError, ValueError):
        raise TypeError(f"alpha must be a number in (0, 1); got {alpha!r}.") from None
    if not 0.0 < a < 1.0:
        raise ValueError(f"alpha must lie strictly between 0 and 1; got {alpha!r}.")
    return a


def check_finite(a: np.ndarray, name: str) -> None:
    """Raise naming the first non-finite entry of ``a``."""
    bad = ~np.isfinite(a)
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(f"{name} contains NaN or infinity (first at index {idx}).")


def as_score_matrix(scores: Any, name: str = "scores") -> np.ndarray:
    """Validate an ``(N datasets, k methods)`` matrix of performance values.

    Raises
    ------
    ValueError
        If ``scores`` is not 2-D numeric, has fewer than 2 datasets (rows) or
        fewer than 2 methods (columns), or holds NaN/infinity.
    """
    try:
        a = np.asarray(scores, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a numeric array; {exc}") from None
    if a.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D array of shape (n_datasets, n_methods); "
            f"got {a.ndim} dimension(s) with shape {a.shape}."
        )
    n, k = a.shape
    if n < 2:
        raise ValueError(f"{name} needs at least 2 datasets (rows); got N = {n}.")
    if k < 2:
        raise ValueError(f"{name} needs at least 2 methods (columns); got k = {k}.")
    check_finite(a, name)
    return a


def _check_count(value: Any, what: str) -> int:
    """Validate an integer count ``>= 2`` named ``what`` in the messages."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise TypeError(f"{what} must be an integer; got {value!r}.")
    if value < 2:
        raise ValueError(f"{what} must be at least 2; got {value}.")
    return int(value)


def check_n_methods(k: Any) -> int:
    """Validate a number of compared methods ``k >= 2``."""
    return _check_count(k, "k (number of methods)")


def check_n_datasets(n: Any) -> int:
    """Validate a number of datasets ``N >= 2``."""
    return _check_count(n, "N (number of datasets)")
