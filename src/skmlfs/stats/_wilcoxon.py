"""Wilcoxon signed-rank test over datasets (Demšar 2006, §3.1.3; SCLS §4.1).

See docs/methods/statistics.md#wilcoxon.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

import numpy as np
from scipy import stats as sst

from ._common import check_alpha, check_bool, check_finite

__all__ = ["WilcoxonResult", "wilcoxon_critical_value", "wilcoxon_signed_rank"]

# Two-sided exact critical values T_crit(N, α) of docs/methods/statistics.md#wilcoxon: the
# largest T with exact two-sided p <= α; None where no T is significant.
_N0 = 5
_T_TABLE: dict[float, tuple[int | None, ...]] = {
    0.05: (None, 0, 2, 3, 5, 8, 10, 13, 17, 21, 25, 29, 34,
           40, 46, 52, 58, 65, 73, 81, 89, 98, 107, 116, 126, 137),
    0.01: (None, None, None, 0, 1, 3, 5, 7, 9, 12, 15, 19, 23,
           27, 32, 37, 42, 48, 54, 61, 68, 75, 83, 91, 100, 109),
}  # fmt: skip

_MAX_CRIT_N = 200  # beyond this the DP is pointless: use the normal approximation


def _null_pmf(weights: np.ndarray) -> np.ndarray:
    """Exact null distribution of ``Σ w_i [sign_i = +]`` for integer weights.

    Under H0 every sign is + or − with probability 1/2 independently (the
    permutation distribution of Wilcoxon's statistic, conditional on the ranks).
    Probabilities rather than counts keep ``2^n`` from overflowing.
    """
    w = np.asarray(weights, dtype=np.int64)
    pmf = np.zeros(int(w.sum()) + 1)
    pmf[0] = 1.0
    top = 0
    for wi in w:
        shifted = np.zeros_like(pmf)
        shifted[wi : top + wi + 1] = pmf[: top + 1]
        pmf = 0.5 * (pmf + shifted)
        top += int(wi)
    return pmf


@lru_cache(maxsize=256)
def _tie_free_cdf(n: int) -> np.ndarray:
    cdf = np.cumsum(_null_pmf(np.arange(1, n + 1)))
    cdf.setflags(write=False)
    return cdf


def wilcoxon_critical_value(n: int, alpha: float = 0.05) -> int | None:
    """Two-sided critical value ``T_crit(N, α)`` of the Wilcoxon signed-rank test.

    ``H0`` is rejected when ``T = min(R+, R−) <= T_crit`` (Demšar 2006, §3.1.3;
    docs/methods/statistics.md#wilcoxon, e.g. ``N = 10, α = 0.05`` → 8 as used by SCLS).

    Parameters
    ----------
    n : int
        Number of datasets (``1 <= n <= 200``).
    alpha : float, default=0.05
        Two-sided significance level.

    Returns
    -------
    int or None
        The largest ``T`` whose exact two-sided p-value ``2 P(T' <= T)`` is at
        most ``alpha``; ``None`` when no ``T`` is significant (e.g. ``N <= 5`` at
        α = 0.05). Values for α ∈ {0.05, 0.01}, ``5 <= N <= 30`` come from the table of
        table; others are computed from the exact null distribution (the tests
        check that the computation reproduces the table).
    """
    if isinstance(n, bool) or not isinstance(n, int | np.integer):
        raise TypeError(f"n must be an integer; got {n!r}.")
    if not 1 <= n <= _MAX_CRIT_N:
        raise ValueError(f"n must be between 1 and {_MAX_CRIT_N}; got {n}.")
    alpha = check_alpha(alpha)
    for a, row in _T_TABLE.items():
        if np.isclose(alpha, a, rtol=0, atol=1e-12) and _N0 <= n < _N0 + len(row):
            return row[n - _N0]
    return _computed_critical_value(int(n), alpha)


def _computed_critical_value(n: int, alpha: float) -> int | None:
    cdf = _tie_free_cdf(n)
    # 1e-12 absorbs float error in p-values lying exactly on α.
    ok = np.flatnonzero(2.0 * cdf <= alpha * (1 + 1e-12))
    return int(ok[-1]) if ok.size else None


@dataclass(frozen=True)
class WilcoxonResult:
    """Wilcoxon signed-rank comparison of a proposed method with another one.

    Attributes
    ----------
    r_plus : float
        ``R+``: rank sum of the datasets where the **compared** method outperforms
        the proposed one, plus half the ranks of zero differences (SCLS §4.1).
    r_minus : float
        ``R−``: the same for the datasets where the proposed method is better.
    total_rank : float
        ``R+ + R− = n(n+1)/2`` (SCLS Table 6 prints ``R+/total``, e.g. 0/55).
    statistic : float
        ``T = min(R+, R−)``.
    n : int
        Number of differences ranked (``N`` minus one dropped zero, if any).
    n_zeros : int
        Zero differences among the ``n`` ranked ones.
    dropped_zero : bool
        Whether one zero difference was ignored because their number was odd
        (Demšar 2006, §3.1.3).
    pvalue : float
        Two-sided p-value.
    pvalue_method : {"exact", "exact-conditional", "normal"}
        ``"exact"``: tie-free exact null distribution (``scipy.stats.wilcoxon``,
        ``method="exact"``); ``"exact-conditional"``: exact sign-flip distribution
        given the tied/zero ranks (zeros split as in ``zero_method="zsplit"``);
        ``"normal"``: normal approximation with tie-corrected variance.
    alpha : float
    t_critical : int or None
        ``T_crit(n, α)`` (:func:`wilcoxon_critical_value`); ``None`` when no ``T``
        is significant or ``n > 25``.
    decision_rule : {"critical value", "p-value"}
        ``n <= 25``: ``reject = T <= t_critical`` (the table procedure of
        Demšar/SCLS); otherwise ``reject = pvalue <= alpha``.
    reject : bool
        Equal performance rejected at ``alpha``.
    verdict : {"win", "loss", "tie"}
        From the proposed method's point of view: ``"win"`` if rejected with
        ``R− > R+``, ``"loss"`` if rejected with ``R+ > R−``, else ``"tie"``.
    """

    r_plus: float
    r_minus: float
    total_rank: float
    statistic: float
    n: int
    n_zeros: int
    dropped_zero: bool
    pvalue: float
    pvalue_method: str
    alpha: float
    t_critical: int | None
    decision_rule: str
    reject: bool
    verdict: str

    def summary(self) -> str:
        """SCLS Table 6 style: ``"win (0/55, 1.95e-3)"``."""
        return f"{self.verdict} ({self.r_plus:g}/{self.total_rank:g}, {self.pvalue:.3g})"


def wilcoxon_signed_rank(
    a: Any,
    b: Any,
    greater_is_better: bool,
    *,
    alpha: float = 0.05,
    method: Literal["auto", "exact", "normal"] = "auto",
    decimals: int | None = None,
) -> WilcoxonResult:
    """Wilcoxon signed-rank test of a proposed method ``a`` against ``b`` over datasets.

    Follows Demšar (2006, §3.1.3), SCLS §4.1 and docs/methods/statistics.md#wilcoxon. With
    ``d_i`` the advantage of ``b`` over ``a`` on dataset ``i`` (``b − a`` for a
    score, ``a − b`` for a loss), the ``|d_i|`` are ranked (average ranks for
    ties; zero differences included) and::

        R+ = Σ_{d_i>0} rank(d_i) + ½ Σ_{d_i=0} rank(d_i)    (compared method better)
        R− = Σ_{d_i<0} rank(d_i) + ½ Σ_{d_i=0} rank(d_i)    (proposed method better)

    When the number of zero differences is odd, one of them is dropped first.

    Parameters
    ----------
    a : array-like of shape (n_datasets,)
        Performance of the proposed method on each dataset.
    b : array-like of shape (n_datasets,)
        Performance of the compared method.
    greater_is_better : bool
        Direction of the metric.
    alpha : float, default=0.05
        Two-sided significance level (ReliefF-ML uses 0.01).
    method : {"auto", "exact", "normal"}, default="auto"
        p-value computation. ``"auto"``: exact for ``n <= 25``, the
        normal approximation above. ``"exact"`` forces the exact distribution.
        Without ties or zeros the exact p-value comes from
        ``scipy.stats.wilcoxon(d, method="exact")``; with them scipy's
        ``"exact"`` is no longer exact, so the exact sign-flip distribution
        conditional on the observed ranks is computed here (what scipy's
        ``PermutationMethod`` enumerates, in ``O(n · n²)``). The normal
        approximation uses ``E = n(n+1)/4`` and ``Var = Σ_{d_i≠0} rank_i² / 4``
        (which equals the tie-corrected ``n(n+1)(2n+1)/24 − Σ(t³−t)/48`` without
        zeros), no continuity correction.
    decimals : int, optional
        Round ``a``, ``b`` and the differences to this many decimals first, so
        that values equal in a printed table give exact zero/tied differences.

    Returns
    -------
    WilcoxonResult

    Raises
    ------
    ValueError
        If ``a`` and ``b`` are not 1-D of the same length ``N >= 2`` or hold NaN.

    Examples
    --------
    SCLS Table 6: the proposed method wins on all 10 datasets.

    >>> res = wilcoxon_signed_rank([0.1] * 10, [0.2 + i / 100 for i in range(10)], False)
    >>> res.summary()
    'win (0/55, 0.00195)'
    """
    x = np.asarray(a, dtype=float)
    y = np.asarray(b, dtype=float)
    if x.ndim != 1 or y.ndim != 1:
        raise ValueError(f"a and b must be 1-D (one value per dataset); got {x.shape}, {y.shape}.")
    if x.shape != y.shape:
        raise ValueError(f"a and b differ in length: {x.shape[0]} != {y.shape[0]}.")
    if x.shape[0] < 2:
        raise ValueError(f"the Wilcoxon test needs at least 2 datasets; got N = {x.shape[0]}.")
    check_finite(x, "a")
    check_finite(y, "b")
    gib = check_bool(greater_is_better, "greater_is_better")
    alpha = check_alpha(alpha)
    if method not in ("auto", "exact", "normal"):
        raise ValueError(f"method must be 'auto', 'exact' or 'normal'; got {method!r}.")

    if decimals is not None:
        x, y = np.round(x, decimals), np.round(y, decimals)
    d = y - x if gib else x - y
    if decimals is not None:
        d = np.round(d, decimals)

    zero = d == 0
    dropped = bool(zero.sum() % 2 == 1)
    if dropped:
        d = np.delete(d, np.flatnonzero(zero)[0])
        zero = d == 0
    n = d.shape[0]
    ranks = sst.rankdata(np.abs(d), method="average")
    half_zero = 0.5 * ranks[zero].sum()
    r_plus = float(ranks[d > 0].sum() + half_zero)
    r_minus = float(ranks[d < 0].sum() + half_zero)
    total = n * (n + 1) / 2.0
    t = min(r_plus, r_minus)

    n_zeros = int(zero.sum())
    ties = np.unique(np.abs(d)).shape[0] < n
    use_exact = method == "exact" or (method == "auto" and n <= 25)
    if use_exact and n_zeros == 0 and not ties:
        p = float(sst.wilcoxon(d, zero_method="wilcox", method="exact").pvalue)
        p_method = "exact"
    elif use_exact:
        p = _exact_conditional_pvalue(ranks, d, r_plus)
        p_method = "exact-conditional"
    else:
        nz = ranks[~zero]
        sd = float(np.sqrt(np.sum(nz**2) / 4.0))
        p = 1.0 if sd == 0 else float(2.0 * sst.norm.sf(abs(r_plus - total / 2.0) / sd))
        p = min(p, 1.0)
        p_method = "normal"

    if n <= 25:
        t_crit = wilcoxon_critical_value(n, alpha)
        reject = t_crit is not None and t <= t_crit
        rule = "critical value"
    else:
        t_crit = None
        reject = p <= alpha
        rule = "p-value"
    if reject:
        verdict = "win" if r_minus > r_plus else "loss"
    else:
        verdict = "tie"
    return WilcoxonResult(
        r_plus=r_plus,
        r_minus=r_minus,
        total_rank=total,
        statistic=t,
        n=n,
        n_zeros=n_zeros,
        dropped_zero=dropped,
        pvalue=p,
        pvalue_method=p_method,
        alpha=alpha,
        t_critical=t_crit,
        decision_rule=rule,
        reject=bool(reject),
        verdict=verdict,
    )


def _exact_conditional_pvalue(ranks: np.ndarray, d: np.ndarray, r_plus: float) -> float:
    # Average ranks are multiples of 1/2, so doubled ranks are exact integers.
    w = np.rint(2.0 * ranks).astype(np.int64)
    nonzero = d != 0
    offset = int(w[~nonzero].sum()) // 2  # zeros contribute half their rank to R+
    pmf = _null_pmf(w[nonzero])
    obs = int(np.rint(2.0 * r_plus)) - offset
    lower = pmf[: obs + 1].sum()
    upper = pmf[obs:].sum()
    return float(min(1.0, 2.0 * min(lower, upper)))
