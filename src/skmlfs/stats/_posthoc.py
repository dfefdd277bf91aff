"""Post-hoc tests after Friedman: Nemenyi and Bonferroni–Dunn (Demšar 2006, §3.2.2).

Two methods differ significantly when their average ranks differ by at least
``CD = q_α sqrt(k(k+1) / (6N))`` (docs/methods/statistics.md#post-hoc).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from scipy import stats as sst

from ._common import check_alpha, check_finite, check_n_datasets, check_n_methods, readonly

__all__ = [
    "BonferroniDunnResult",
    "NemenyiResult",
    "bonferroni_dunn",
    "cd_groups",
    "critical_difference",
    "nemenyi_pairs",
    "q_alpha",
]

Test = Literal["nemenyi", "bonferroni-dunn"]

# Demšar (2006) Table 5, as reproduced in docs/methods/statistics.md#post-hoc (k = 2..10).
# These printed values are the library default because published CDs use them;
# the exact values differ in the third decimal for Nemenyi k=3, 7 (α=0.05), k=5
# (α=0.10), and Bonferroni–Dunn k=9 (α=0.05: 2.724 is a misprint of 2.734).
_Q_TABLE: dict[tuple[str, float], tuple[float, ...]] = {
    ("nemenyi", 0.05): (1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164),
    ("nemenyi", 0.10): (1.645, 2.052, 2.291, 2.459, 2.589, 2.693, 2.780, 2.855, 2.920),
    ("bonferroni-dunn", 0.05): (1.960, 2.241, 2.394, 2.498, 2.576, 2.638, 2.690, 2.724, 2.773),
    ("bonferroni-dunn", 0.10): (1.645, 1.960, 2.128, 2.241, 2.326, 2.394, 2.450, 2.498, 2.539),
}


def _check_test(test: Any) -> str:
    t = str(test).lower().replace("_", "-").replace(" ", "-")
    if t in ("nemenyi", "bonferroni-dunn"):
        return t
    raise ValueError(f"test must be 'nemenyi' or 'bonferroni-dunn'; got {test!r}.")


def q_alpha(k: int, alpha: float = 0.05, test: Test = "nemenyi", *, exact: bool = False) -> float:
    """Critical value ``q_α`` of the Nemenyi or Bonferroni–Dunn test (Demšar 2006, Table 5).

    Parameters
    ----------
    k : int
        Number of compared methods (``>= 2``).
    alpha : float, default=0.05
        Significance level.
    test : {"nemenyi", "bonferroni-dunn"}, default="nemenyi"
        ``"nemenyi"``: all pairs, ``q_α = q_{SR}(1 − α; k, ∞) / √2`` (studentized
        range). ``"bonferroni-dunn"``: ``k − 1`` comparisons with a control,
        ``q_α = z_{1 − α / (2(k − 1))}`` (two-sided normal quantile, Bonferroni).
    exact : bool, default=False
        ``False`` uses Demšar's printed table (docs/methods/statistics.md) whenever it covers
        ``(k, α)`` — ``k <= 10`` and ``α ∈ {0.05, 0.10}`` — so published CDs are
        reproduced; otherwise, or with ``exact=True``, the value is computed
        from the distribution.

    Returns
    -------
    float
    """
    k = check_n_methods(k)
    alpha = check_alpha(alpha)
    test = _check_test(test)
    if not exact and k <= 10:
        for (t, a), row in _Q_TABLE.items():
            if t == test and np.isclose(alpha, a, rtol=0, atol=1e-12):
                return row[k - 2]
    if test == "nemenyi":
        return float(sst.studentized_range.ppf(1.0 - alpha, k, np.inf) / np.sqrt(2.0))
    return float(sst.norm.ppf(1.0 - alpha / (2.0 * (k - 1))))


def critical_difference(
    k: int,
    N: int,
    alpha: float = 0.05,
    test: Test = "nemenyi",
    *,
    exact: bool = False,
) -> float:
    """Critical difference ``CD = q_α sqrt(k(k+1)/(6N))`` (Demšar 2006, §3.2.2).

    See docs/methods/statistics.md#post-hoc.

    Parameters
    ----------
    k : int
        Number of methods (``>= 2``).
    N : int
        Number of datasets (``>= 2``).
    alpha : float, default=0.05
        Significance level.
    test : {"nemenyi", "bonferroni-dunn"}, default="nemenyi"
        Which ``q_α`` to use (see :func:`q_alpha`).
    exact : bool, default=False
        Use computed rather than Demšar's printed ``q_α``.

    Returns
    -------
    float

    Notes
    -----
    SCLS (§4.1): Bonferroni–Dunn, ``k = 5, N = 25`` → ``2.498 · sqrt(30/150) = 1.117``.
    The memetic paper prints ``CD = 2.015`` for ``k = 6, N = 14`` and calls it
    Bonferroni–Dunn, but that is the **Nemenyi** value (``2.850 · sqrt(42/84)``);
    Bonferroni–Dunn gives 1.822 (docs/methods/statistics.md#post-hoc).
    """
    k = check_n_methods(k)
    n = check_n_datasets(N)
    return _cd(q_alpha(k, alpha, test, exact=exact), k, n)


def _cd(q: float, k: int, n: int) -> float:
    """``q_α sqrt(k(k+1)/(6N))``: the one formula of the critical difference."""
    return q * float(np.sqrt(k * (k + 1) / (6.0 * n)))


def _ranks_and_cd(average_ranks, names, n_datasets, alpha, test: Test, exact: bool):
    """Validated ranks and names, ``CD`` of ``test``, and the fields both results share
    (those of :class:`_CriticalDifferenceResult`): the common start of
    :func:`nemenyi_pairs` and :func:`bonferroni_dunn`."""
    r, nm = ranks_and_names(average_ranks, names)
    k = r.shape[0]
    n = check_n_datasets(n_datasets)
    alpha = check_alpha(alpha)
    q = q_alpha(k, alpha, test, exact=exact)
    cd = _cd(q, k, n)
    common = {"names": nm, "average_ranks": readonly(r), "cd": cd, "q_alpha": q,
              "alpha": alpha, "n_datasets": n}
    return r, nm, cd, common


def ranks_and_names(
    average_ranks: Any, names: Sequence[str] | None
) -> tuple[np.ndarray, tuple[str, ...]]:
    """Validated average ranks and method names, as every post-hoc test and CD plot reads them.

    ``average_ranks`` is a mapping name → rank (then ``names`` must be None) or a 1-D
    sequence (names default to ``"0"``, ``"1"``, ...); at least two methods, finite ranks,
    unique names.
    """
    if isinstance(average_ranks, Mapping):
        if names is not None:
            raise ValueError(
                "give names either as the keys of average_ranks or as names, not both."
            )
        names = [str(n) for n in average_ranks]
        average_ranks = list(average_ranks.values())
    r = np.asarray(average_ranks, dtype=float)
    if r.ndim != 1:
        raise ValueError(f"average_ranks must be 1-D (one rank per method); got shape {r.shape}.")
    if r.shape[0] < 2:
        raise ValueError(f"need at least 2 methods; got k = {r.shape[0]}.")
    check_finite(r, "average_ranks")
    if names is None:
        names = [str(i) for i in range(r.shape[0])]
    names = tuple(str(n) for n in names)
    if len(names) != r.shape[0]:
        raise ValueError(f"{len(names)} names for {r.shape[0]} average ranks.")
    if len(set(names)) != len(names):
        raise ValueError(f"method names must be unique; got {names}.")
    return r, names


def cd_groups(
    average_ranks: Mapping[str, float] | Sequence[float] | np.ndarray,
    cd: float,
    *,
    names: Sequence[str] | None = None,
    control: str | int | None = None,
) -> list[tuple[str, ...]]:
    """Groups of methods that are not significantly different (the bars of a CD diagram).

    Without ``control`` (Nemenyi, Demšar 2006 Fig. 1): the maximal sets of
    methods whose average ranks all lie within less than ``cd`` of each other.
    "Not significantly different" (``|R_i − R_j| < cd``) on a line is an interval
    graph, so its maximal cliques are runs of consecutive methods in rank order:
    for each method the run extends to the last method with rank ``< R_i + cd``,
    and a run contained in the previous one is dropped.

    With ``control`` (Bonferroni–Dunn, Demšar 2006 Fig. 2; SCLS Fig. 1): the
    single group of the control and every method within less than ``cd`` of it.

    Parameters
    ----------
    average_ranks : mapping name -> rank, or sequence of ranks
        1 = best.
    cd : float
        Critical difference (:func:`critical_difference`), ``> 0``.
    names : sequence of str, optional
        Method names when ``average_ranks`` is a sequence (default ``"0"``, ``"1"``, ...).
    control : str or int, optional
        Control method (name or position) for Bonferroni–Dunn grouping.

    Returns
    -------
    list of tuple of str
        Each group lists names from best to worst rank; groups are ordered by
        their best rank. Singletons (methods different from all others) are
        omitted: they need no bar.

    Examples
    --------
    >>> cd_groups({"A": 1.0, "B": 1.5, "C": 2.3, "D": 3.9}, cd=1.25)
    [('A', 'B'), ('B', 'C')]
    """
    r, nm = ranks_and_names(average_ranks, names)
    cd = float(cd)
    if not np.isfinite(cd) or cd <= 0:
        raise ValueError(f"cd must be a positive number; got {cd!r}.")
    order = np.argsort(r, kind="stable")
    rs = r[order]
    if control is not None:
        c = control_index(control, nm)
        within = np.abs(r - r[c]) < cd
        members = [nm[i] for i in order if within[i]]
        return [tuple(members)] if len(members) > 1 else []
    # last[i]: position (in rank order) of the farthest method still within cd of i.
    last = np.searchsorted(rs, rs + cd, side="left") - 1
    keep = last > np.arange(rs.shape[0])
    keep[1:] &= last[1:] > last[:-1]
    return [tuple(nm[j] for j in order[i : last[i] + 1]) for i in np.flatnonzero(keep)]


def control_index(control: str | int, names: tuple[str, ...]) -> int:
    """Position of the control method, given by name or by index, among ``names``."""
    if isinstance(control, int | np.integer) and not isinstance(control, bool):
        if not 0 <= control < len(names):
            raise ValueError(f"control index {control} out of range for {len(names)} methods.")
        return int(control)
    if str(control) in names:
        return names.index(str(control))
    raise ValueError(f"control {control!r} is not one of the methods {list(names)}.")


@dataclass(frozen=True)
class _CriticalDifferenceResult:
    """The fields both post-hoc tests report (:func:`_ranks_and_cd` computes them).

    The subclasses' docstrings take their description from ``_COMMON_DOC``, filled in by
    ``__init_subclass__``.
    """

    _COMMON_DOC = """names, average_ranks, cd, q_alpha, alpha, n_datasets
        The method names (tuple of str, in input order), their average ranks (ndarray of
        shape (k,)), the critical difference ``CD``, its ``q_α``, the significance level
        and ``N`` (int)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.__doc__:  # None under python -OO
            cls.__doc__ = cls.__doc__.replace("%(common)s", cls._COMMON_DOC)

    names: tuple[str, ...]
    average_ranks: np.ndarray
    cd: float
    q_alpha: float
    alpha: float
    n_datasets: int


@dataclass(frozen=True)
class NemenyiResult(_CriticalDifferenceResult):
    """All-pairs Nemenyi comparison (Demšar 2006, §3.2.2).

    Attributes
    ----------
    %(common)s
    differences : ndarray of shape (k, k)
        ``|R_i − R_j|``.
    significant : ndarray of shape (k, k), bool
        ``differences >= cd`` (diagonal ``False``).
    pairs : tuple of (str, str)
        Significantly different pairs ``(better, worse)``, sorted by decreasing
        rank difference.
    groups : list of tuple of str
        Maximal groups of mutually non-different methods (:func:`cd_groups`).
    """

    differences: np.ndarray
    significant: np.ndarray
    pairs: tuple[tuple[str, str], ...]
    groups: list[tuple[str, ...]]


def nemenyi_pairs(
    average_ranks: Mapping[str, float] | Sequence[float] | np.ndarray,
    n_datasets: int,
    *,
    alpha: float = 0.05,
    names: Sequence[str] | None = None,
    exact: bool = False,
) -> NemenyiResult:
    """Nemenyi post-hoc test: which pairs of methods differ (Demšar 2006, §3.2.2).

    See docs/methods/statistics.md#post-hoc.

    Parameters
    ----------
    average_ranks : mapping name -> rank, or sequence of ranks
        Average ranks (:func:`average_ranks`), 1 = best.
    n_datasets : int
        ``N``, the number of datasets the ranks average over.
    alpha : float, default=0.05
    names : sequence of str, optional
        Names when ``average_ranks`` is a sequence.
    exact : bool, default=False
        Computed instead of Demšar's printed ``q_α``.

    Returns
    -------
    NemenyiResult
    """
    r, nm, cd, common = _ranks_and_cd(average_ranks, names, n_datasets, alpha, "nemenyi",
                                      exact)
    diff = np.abs(r[:, None] - r[None, :])
    sig = diff >= cd
    i, j = np.nonzero(np.triu(sig, 1))
    by_size = np.argsort(-diff[i, j], kind="stable")
    pairs = tuple(
        (nm[a], nm[b]) if r[a] <= r[b] else (nm[b], nm[a])
        for a, b in zip(i[by_size], j[by_size], strict=True)
    )
    return NemenyiResult(
        **common,
        differences=readonly(diff),
        significant=readonly(sig),
        pairs=pairs,
        groups=cd_groups(r, cd, names=nm),
    )


@dataclass(frozen=True)
class BonferroniDunnResult(_CriticalDifferenceResult):
    """Comparison of every method with a control (Demšar 2006, §3.2.2; SCLS §4.1).

    Attributes
    ----------
    %(common)s
    control : str
        Name of the control method.
    differences : ndarray of shape (k,)
        ``R_j − R_control``: positive when method ``j`` ranks worse than the control.
    significant : ndarray of shape (k,), bool
        ``|differences| >= cd`` (``False`` for the control itself).
    better, worse : tuple of str
        Methods significantly better / worse than the control.
    """

    control: str
    differences: np.ndarray
    significant: np.ndarray
    better: tuple[str, ...]
    worse: tuple[str, ...]


def bonferroni_dunn(
    average_ranks: Mapping[str, float] | Sequence[float] | np.ndarray,
    n_datasets: int,
    control: str | int,
    *,
    alpha: float = 0.05,
    names: Sequence[str] | None = None,
    exact: bool = False,
) -> BonferroniDunnResult:
    """Bonferroni–Dunn test of each method against a control (Demšar 2006, §3.2.2).

    See docs/methods/statistics.md#post-hoc.

    Used by SCLS (§4.1, Fig. 1): the proposed method is the control, and a
    method whose average rank is at least ``CD`` away differs significantly.

    Parameters
    ----------
    average_ranks : mapping name -> rank, or sequence of ranks
        1 = best.
    n_datasets : int
        ``N``.
    control : str or int
        Control method, by name or position.
    alpha : float, default=0.05
    names : sequence of str, optional
    exact : bool, default=False
        Computed instead of Demšar's printed ``q_α``.

    Returns
    -------
    BonferroniDunnResult
    """
    r, nm, cd, common = _ranks_and_cd(average_ranks, names, n_datasets, alpha,
                                      "bonferroni-dunn", exact)
    c = control_index(control, nm)
    diff = r - r[c]
    sig = np.abs(diff) >= cd
    sig[c] = False
    return BonferroniDunnResult(
        **common,
        control=nm[c],
        differences=readonly(diff),
        significant=readonly(sig),
        better=tuple(nm[j] for j in np.flatnonzero(sig & (diff < 0))),
        worse=tuple(nm[j] for j in np.flatnonzero(sig & (diff > 0))),
    )
