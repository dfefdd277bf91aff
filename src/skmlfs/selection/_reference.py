"""Straightforward implementations of the greedy criteria, one pair at a time.

They follow the equations literally: every entropy is computed from the counts of one
pair (or triple) of columns, in Python loops over features, labels and selected
features. Tests compare the engine-based selectors with them; benchmarks time them as
the baseline. They are deliberately simple and slow.
"""

from __future__ import annotations

import numpy as np

__all__ = ["StraightforwardInfo", "ref_ami", "ref_gics", "ref_mdmr", "ref_scls"]


class StraightforwardInfo:
    """Per-pair entropies from ``np.unique``/``np.bincount`` counts (no block products).

    ``method="bincount"`` codes each column once and counts joint codes with
    ``np.bincount``; ``method="unique"`` calls ``np.unique(..., axis=0)`` on the stacked
    columns every time (the slowest, most literal reading). ``memo=False`` recomputes
    every entropy each time it is needed (what a benchmark baseline should do).
    """

    def __init__(
        self, X: np.ndarray, Y: np.ndarray, method: str = "bincount", memo: bool = True
    ):
        self.method = method
        self.memo = memo
        self.n = X.shape[0]
        self.Xraw = np.asarray(X)
        self.Yraw = np.asarray(Y)
        self.Xc = [np.unique(c, return_inverse=True)[1].ravel() for c in self.Xraw.T]
        self.Yc = [np.unique(c, return_inverse=True)[1].ravel() for c in self.Yraw.T]
        self._memo: dict[tuple, float] = {}

    def _h(self, *cols: np.ndarray) -> float:
        if self.method == "unique":
            _, counts = np.unique(np.column_stack(cols), axis=0, return_counts=True)
        else:
            code = np.zeros(self.n, dtype=np.int64)
            for c in cols:
                code = code * (int(c.max()) + 1) + c
            counts = np.bincount(code)
            counts = counts[counts > 0]
        p = counts / self.n
        return float(-(p * np.log2(p)).sum())

    # Single and pairwise entropies are memoised per (pair) key: still one pair at a
    # time, but a criterion evaluated by several methods does not recount it.
    def _cached(self, key: tuple, *cols: np.ndarray) -> float:
        if not self.memo:
            return self._h(*cols)
        if key not in self._memo:
            self._memo[key] = self._h(*cols)
        return self._memo[key]

    def H(self, i: int) -> float:
        return self._cached(("f", i), self.Xc[i])

    def H_label(self, j: int) -> float:
        return self._cached(("l", j), self.Yc[j])

    def H_ff(self, i: int, k: int) -> float:
        return self._cached(("ff", min(i, k), max(i, k)), self.Xc[i], self.Xc[k])

    def H_fl(self, i: int, j: int) -> float:
        return self._cached(("fl", i, j), self.Xc[i], self.Yc[j])

    def mi_fl(self, i: int, j: int) -> float:
        return self.H(i) + self.H_label(j) - self.H_fl(i, j)

    def mi_ff(self, i: int, k: int) -> float:
        return self.H(i) + self.H(k) - self.H_ff(i, k)

    def cmi_s_l_given_f(self, s: int, j: int, f: int) -> float:
        """``I(s; l | f)``."""
        a, b, z = self.Xc[s], self.Yc[j], self.Xc[f]
        return self._h(a, z) + self._h(b, z) - self._h(a, b, z) - self._h(z)

    def cmi_f_s_given_l(self, f: int, s: int, j: int) -> float:
        """``I(f; s | l)``."""
        a, b, z = self.Xc[f], self.Xc[s], self.Yc[j]
        return self._h(a, z) + self._h(b, z) - self._h(a, b, z) - self._h(z)

    def relevance(self) -> np.ndarray:
        d, q = len(self.Xc), len(self.Yc)
        return np.array([sum(self.mi_fl(i, j) for j in range(q)) for i in range(d)])


def _greedy(d: int, k: int, valid, criterion):
    selected: list[int] = []
    scores: list[float] = []
    while len(selected) < k:
        best, best_val = -1, -np.inf
        for f in range(d):
            if f in selected or not valid[f]:
                continue
            v = criterion(f, selected)
            if v > best_val:  # strict: the lowest index wins exact ties
                best, best_val = f, v
        if best < 0:
            break
        selected.append(best)
        scores.append(best_val)
    return np.array(selected, dtype=np.intp), np.array(scores)


def ref_scls(info: StraightforwardInfo, k: int, rel: np.ndarray | None = None):
    """SCLS Eq. (25), literally: ``Rel − Σ_s [I(f;s)/H(f)] · Rel``."""
    d = len(info.Xc)
    rel = info.relevance() if rel is None else rel
    H = np.array([info.H(i) for i in range(d)])

    def crit(f, S):
        return rel[f] - sum(info.mi_ff(f, s) / H[f] for s in S) * rel[f]

    return _greedy(d, k, H > 0, crit)


def ref_ami(info: StraightforwardInfo, k: int, rel: np.ndarray | None = None):
    """AMI, SCLS Eq. (2): ``Σ_l I(f;l) − Σ_s I(f;s)``."""
    d = len(info.Xc)
    rel = info.relevance() if rel is None else rel
    H = np.array([info.H(i) for i in range(d)])
    return _greedy(d, k, H > 0, lambda f, S: rel[f] - sum(info.mi_ff(f, s) for s in S))


def ref_mdmr(info: StraightforwardInfo, k: int, variant: str = "lin2015", rel=None):
    """MDMR as in ``docs/methods/info.md#mdmr`` (both variants)."""
    d, q = len(info.Xc), len(info.Yc)
    rel = info.relevance() if rel is None else rel
    H = np.array([info.H(i) for i in range(d)])

    def crit(f, S):
        if not S:
            return rel[f]
        if variant == "lin2015":
            r = sum(
                info.mi_ff(f, s) - sum(info.cmi_s_l_given_f(s, j, f) for j in range(q)) for s in S
            )
            return rel[f] - r / len(S)
        return rel[f] - sum(
            info.mi_ff(f, s) - info.cmi_f_s_given_l(f, s, j) for s in S for j in range(q)
        )

    return _greedy(d, k, H > 0, crit)


def ref_gics(info: StraightforwardInfo, k: int, labels=None):
    """GICS as in ``gics.m`` (fresh mode), ``docs/methods/info.md#gics``."""
    d = len(info.Xc)
    labels = range(len(info.Yc)) if labels is None else labels
    labels = list(labels)
    H = np.array([info.H(i) for i in range(d)])
    sum_hfl = np.array([sum(info.H_fl(i, j) for j in labels) for i in range(d)])

    def crit(f, S):
        if not S:
            return len(labels) * H[f] - sum_hfl[f]
        if H[f] == 0:
            return -np.inf
        return len(labels) * sum(info.H_ff(f, s) for s in S) - len(S) * sum_hfl[f]

    return _greedy(d, k, np.ones(d, dtype=bool), crit)
