"""MLFS (Sun & Kudo, oCC paper §5) and its special cases MLMIM, MLJMI, MLMRMR (Table 1).

The greedy criteria, with ``Pa_j`` the parent labels of label ``j`` (chosen by kCC,
Eq. 33) and ``X_θ`` the features selected so far:

* **local MLFS**, Eq. (43) — one subset ``X_θj`` per label::

      X_m = argmax  I(X_m; Y_j) + β Σ_{Y_k∈Pa_j} I(Y_j; Y_k | X_m)
                                + γ Σ_{X_n∈X_θj} I(Y_j; X_n | X_m)

* **global MLFS**, Eq. (42) — one subset for all labels: the same bracket summed over
  ``j = 1..q``.

with ``β = 1/|Pa_j|`` and ``γ = 1/|X_θ|`` (the paper's normalisation). The *same*
routine chooses the parent labels in kCC (Eq. 33): candidates are the labels earlier in
the chain, no parent term, ``α = 1/|Pa_j|`` on the redundancy term.

The greedy search follows the authors' ``oCC_select.m``
(``docs/methods/info.md#mlfs-family``): when there are no more candidates than the budget
all are returned; the first pick
is the most relevant candidate; only the ``max_candidates`` (100) most relevant
candidates are ever considered, so a budget of ``max_candidates`` or more degenerates to
a relevance ranking. ``max_candidates=None`` gives the paper's uncapped search. Ties go
to the more relevant candidate (then the lower index).

Every information term comes from the count engine (:mod:`skmlfs.info`): the relevance
block ``I(D_i; Y_j)`` from one product, and the conditional terms from one stratified
product per *conditioning* candidate ``X_m``, which yields ``I(Y_j; X_n | X_m)`` and
``I(Y_j; Y_k | X_m)`` for every pair at once. The greedy steps of all labels then run in
lock-step on these tables (``numpy`` only, no information computed per pair).
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
from sklearn.utils._param_validation import HasMethods, RealNotInt, StrOptions

from .._progress import report_step
from .._validation import resolve_count
from ..discretize import fit_discretizer, occ_discretizer
from ..info import (
    DiscreteData,
    InfoCache,
    conditional_mutual_info,
    iter_conditional_mutual_info,
    mutual_info,
)
from ._base import NON_NEGATIVE, TIE_TOL, BaseInfoSelector, Number, argmax_tol
from ._relevance import SUMMED_MI_MEANING
from ._scale import check_tables

__all__ = [
    "MLFS",
    "MLJMI",
    "MLMIM",
    "MLMRMR",
    "global_select",
    "kcc_parents",
    "label_specific_select",
    "argmax_tol",
    "resolve_count",  # re-exported from skmlfs._validation, the one budget parser
]


# ---------------------------------------------------------------------- helpers
def check_max_candidates(value: Any) -> int | None:
    """``max_candidates`` of the chain learners (the selectors declare it as a constraint)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"max_candidates must be a positive int or None; got {value!r}.")
    return int(value)


# Largest pool × pool table of redundancy terms held at once (bytes); beyond it the rows
# are computed lazily for the picked candidates only.
_R_MAX_BYTES = 2**30


def _relevance_order(rel: np.ndarray) -> np.ndarray:
    """Positions by decreasing relevance; ties (within ``TIE_TOL``) keep the lower index."""
    order = np.argsort(-rel, kind="stable")
    r = rel[order]
    group = np.concatenate([[0], np.cumsum(r[:-1] - r[1:] > TIE_TOL)])
    return order[np.lexsort((order, group))]


def _meanstd_default(kind: str = "auto"):
    return occ_discretizer(kind)


# ---------------------------------------------------------------------- the routine
def label_specific_select(
    D: DiscreteData,
    Y: DiscreteData,
    targets: np.ndarray,
    candidates: list[np.ndarray] | None,
    n_select: int,
    *,
    parents: list[np.ndarray] | None = None,
    beta: float = 1.0,
    gamma: float = 1.0,
    max_candidates: int | None = 100,
    relevance: np.ndarray | None = None,
) -> list[np.ndarray]:
    """Greedy selection of Eq. (43) (or Eq. (33)) for several target labels at once.

    Sun & Kudo's local MLFS: for target label ``j``, with ``X_θj`` the variables picked
    so far, the next one is::

        X_m = argmax  I(X_m; Y_j) + β Σ_{Y_k∈Pa_j} I(Y_j; Y_k | X_m)
                                  + γ Σ_{X_n∈X_θj} I(Y_j; X_n | X_m)

    (``β``, ``γ`` applied to the means). Used by :class:`MLFS` (``mode="local"``), by
    :func:`kcc_parents` and by oCC's label-specific features
    (:class:`skmlfs.learners.OCC`).

    Parameters
    ----------
    D : DiscreteData
        The candidate variables (discretized features, or the labels themselves for
        parent selection).
    Y : DiscreteData
        The labels.
    targets : ndarray of int
        Target labels ``j`` (indices into ``Y``).
    candidates : list of ndarray or None
        Per target, the indices into ``D`` that may be selected (in their original
        order); ``None``: every variable of ``D`` for every target.
    n_select : int
        Budget ``K`` per target.
    parents : list of ndarray, optional
        Per target, the parent labels ``Pa_j`` (indices into ``Y``) of the label
        correlation term.
    beta, gamma : float
        Weights of the *means* over ``Pa_j`` and over the selected set, i.e. the paper's
        ``β = 1/|Pa_j|``, ``γ = 1/|X_θj|`` when both are 1. ``β = 0`` drops the label
        correlation term, ``γ = 0`` the redundancy term.
    max_candidates : int or None, default=100
        Only the most relevant candidates are ever considered, and the first pick is the
        most relevant one (reference ``oCC_select.m``). ``None``: Eq. (43) as written, an
        uncapped search whose first pick is also scored by the criterion (relevance plus
        the label-correlation term; the redundancy sum is empty).
    relevance : ndarray of shape (D.n_vars, Y.n_vars), optional
        Precomputed ``I(D_i; Y_j)``.

    Returns
    -------
    list of ndarray
        Per target, the selected indices into ``D`` in the order they were picked (all
        candidates in their original order when they do not exceed the budget).
    """
    targets = np.asarray(targets, dtype=np.intp)
    n_t = targets.size
    if relevance is None:
        relevance = mutual_info(D, Y.take(targets)) if n_t else np.zeros((D.n_vars, 0))
        rel_cols = np.arange(n_t)
    else:
        rel_cols = targets
    all_idx = np.arange(D.n_vars)
    cands = [all_idx if candidates is None else np.asarray(candidates[i], dtype=np.intp)
             for i in range(n_t)]
    out: list[np.ndarray] = [np.empty(0, dtype=np.intp)] * n_t
    cap = np.inf if max_candidates is None else max_candidates
    K = int(n_select)
    greedy: list[int] = []
    pools: list[np.ndarray] = []
    for i in range(n_t):
        c = cands[i]
        if K <= 0 or c.size == 0:
            continue
        if c.size <= K:
            out[i] = c.copy()
            continue
        order = c[_relevance_order(relevance[c, rel_cols[i]])]
        if cap <= K:
            out[i] = order[:K]
            continue
        greedy.append(i)
        pools.append(order[: int(min(cap, c.size))])
    if not greedy:
        return out

    g = len(greedy)
    L = max(p.size for p in pools)
    T = np.full((g, L), -1, dtype=np.intp)
    for r, p in enumerate(pools):
        T[r, : p.size] = p
    valid = T >= 0
    rel_T = np.where(valid, relevance[np.where(valid, T, 0), rel_cols[greedy][:, None]], -np.inf)
    g_targets = targets[greedy]
    use_cor = beta != 0 and parents is not None and any(
        np.asarray(parents[i]).size for i in greedy
    )
    use_red = gamma != 0 and K > 1

    # R[r, a, b] = I(y_r; D_T[a] | D_T[b]) for all pool pairs, computed up front by
    # conditioning on every pool candidate b; when that table would be too large
    # (uncapped searches on many targets), rows are computed lazily for the picks only,
    # conditioning on the picked a: I(y; D_a | D_b) = I(y; D_b | D_a) + I(y; D_a) − I(y; D_b).
    eager = use_red and g * L * L * 8 <= _R_MAX_BYTES
    R = np.zeros((g, L, L)) if eager else None
    cor = np.zeros((g, L))  # mean_p I(y; Y_p | D_T[b])
    if eager or use_cor:
        _fill_conditional_terms(
            D, Y, T, valid, g_targets, greedy, parents, eager, use_cor, R, cor
        )

    ar = np.arange(g)
    chosen = ~valid
    picks = np.zeros((g, K), dtype=np.intp)
    if max_candidates is None:
        # Eq. (43) as written scores the first pick too (its redundancy sum is empty);
        # the reference routine simply takes the most relevant candidate (position 0).
        picks[:, 0] = argmax_tol(np.where(valid, rel_T + beta * cor, -np.inf), axis=1)
    chosen[ar, picks[:, 0]] = True

    def red_rows(pos: np.ndarray) -> np.ndarray:
        if eager:
            return R[ar, pos, :]
        return _lazy_red_rows(D, Y, T, valid, g_targets, rel_T, pos)

    red = red_rows(picks[:, 0]).copy() if use_red else np.zeros((g, L))
    for t in range(1, K):
        score = rel_T + beta * cor + gamma * (red / t)
        score[chosen] = -np.inf
        b = argmax_tol(score, axis=1)  # first maximum = more relevant candidate
        picks[:, t] = b
        chosen[ar, b] = True
        report_step(t + 1, K, "feature")
        if use_red and t + 1 < K:
            red += red_rows(b)
    for r, i in enumerate(greedy):
        out[i] = T[r, picks[r]]
    return out


def _lazy_red_rows(D, Y, T, valid, g_targets, rel_T, pos) -> np.ndarray:
    """``I(y_r; D_{T[r,pos_r]} | D_{T[r,b]})`` for every target ``r`` and pool position ``b``,
    one engine call per distinct picked variable (conditioning on it)."""
    g, L = T.shape
    U = np.unique(T[valid])
    pos_in_U = np.full(D.n_vars, -1, dtype=np.intp)
    pos_in_U[U] = np.arange(U.size)
    TU = np.where(valid, pos_in_U[np.where(valid, T, 0)], 0)
    rel = np.where(valid, rel_T, 0.0)
    picked = T[np.arange(g), pos]
    out = np.zeros((g, L))
    A = D.take(U)
    for a in np.unique(picked):
        rows = np.flatnonzero(picked == a)
        cmi = conditional_mutual_info(A, Y.take(g_targets[rows]), D.take([a]))
        vals = cmi[TU[rows], np.arange(rows.size)[:, None]]  # I(y; D_b | D_a)
        vals = vals + rel[rows, pos[rows]][:, None] - rel[rows]
        out[rows] = np.where(valid[rows], vals, 0.0)
    return out


def _fill_conditional_terms(D, Y, T, valid, g_targets, greedy, parents, use_red, use_cor,
                            R, cor):
    """Fill ``R[r, a, b] = I(y_r; D_{T[r,a]} | D_{T[r,b]})`` and the parent term ``cor``.

    One stratified product per distinct conditioning candidate ``c``: the CMI block of
    (candidates of the pools ∪ parent labels) × (targets whose pool holds ``c``).
    """
    U = np.unique(T[valid])
    pos_in_U = np.full(D.n_vars, -1, dtype=np.intp)
    pos_in_U[U] = np.arange(U.size)
    TU = np.where(valid, pos_in_U[np.where(valid, T, 0)], 0)
    blocks = []
    if use_red:
        blocks.append(D.take(U))
    n_red = U.size if use_red else 0
    if use_cor:
        par_labels = np.unique(np.concatenate([np.asarray(parents[i], dtype=np.intp)
                                               for i in greedy]))
        pos_par = np.full(Y.n_vars, -1, dtype=np.intp)
        pos_par[par_labels] = np.arange(par_labels.size)
        blocks.append(Y.take(par_labels))
        # W[p, r] = 1/|Pa_r| for the parents of target r (mean over parents)
        W = np.zeros((par_labels.size, len(greedy)))
        for r, i in enumerate(greedy):
            pa = np.asarray(parents[i], dtype=np.intp)
            if pa.size:
                W[pos_par[pa], r] = 1.0 / pa.size
    A = blocks[0] if len(blocks) == 1 else DiscreteData.concat(blocks)
    # (target, position) pairs grouped by conditioning candidate
    flat_r, flat_c = np.nonzero(valid)
    key = TU[flat_r, flat_c]
    srt = np.argsort(key, kind="stable")
    bounds = np.searchsorted(key[srt], np.arange(U.size + 1))
    g = len(greedy)
    # When most targets need most candidates, one pass over all targets shares the
    # unconditioned products; otherwise restrict each call to the targets that need it.
    shared = 2 * key.size >= g * U.size
    it = iter_conditional_mutual_info(A, Y.take(g_targets), D.take(U)) if shared else None
    for u, c in enumerate(U):
        sel = srt[bounds[u] : bounds[u + 1]]
        rows, cols = flat_r[sel], flat_c[sel]  # targets whose pool holds c, at position cols
        if shared:
            cmi = next(it)[:, rows]
        else:
            cmi = conditional_mutual_info(A, Y.take(g_targets[rows]), D.take([c]))
        if use_red:
            vals = cmi[TU[rows], np.arange(rows.size)[:, None]]  # (len(rows), L)
            R[rows, :, cols] = np.where(valid[rows], vals, 0.0)
        if use_cor:
            cor[rows, cols] = (cmi[n_red:] * W[:, rows]).sum(axis=0)


def global_select(
    D: DiscreteData,
    Y: DiscreteData,
    n_select: int,
    *,
    parents: list[np.ndarray] | None = None,
    beta: float = 1.0,
    gamma: float = 1.0,
    max_candidates: int | None = 100,
    relevance: np.ndarray | None = None,
    redundancy: str = "cmi",
    redundancy_scale: str = "q",
    relevance_sum: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Greedy selection of one subset for all labels, Eq. (42), and its special cases.

    ``score(X_m) = Σ_j [ I(X_m;Y_j) + β·mean_{k∈Pa_j} I(Y_j;Y_k|X_m)
    + γ·mean_{n∈X_θ} I(Y_j;X_n|X_m) ]``. With ``redundancy="mrmr"`` the redundancy term
    is ``−(s/|X_θ|) Σ_{n∈X_θ} I(X_m;X_n)`` with ``s = q`` (``redundancy_scale="q"``, the
    derivation) or ``s = 1`` (classic mRMR scaling) — MLMRMR. Same first-pick / candidate
    cap conventions as :func:`label_specific_select` **[ASSUMPTION: no reference code
    exists for the global variant]**.

    Used by :class:`MLFS` (``mode="global"``), :class:`MLMIM`, :class:`MLJMI`,
    :class:`MLMRMR` and by oCC's shared feature selection
    (:class:`skmlfs.learners.OCC`).

    Parameters
    ----------
    D : DiscreteData
        The candidate features (discretized).
    Y : DiscreteData
        The labels.
    n_select : int
        Budget ``K`` (capped at ``D.n_vars``).
    parents : list of ndarray, optional
        ``parents[j]``: the parent labels ``Pa_j`` of label ``j`` (kCC, Eq. 33) for the
        label-correlation term; ``None`` drops it.
    beta, gamma : float, default=1.0
        Weights of the *means* over ``Pa_j`` and over ``X_θ`` (1 = the paper's
        ``β = 1/|Pa_j|``, ``γ = 1/|X_θ|``); ``β = γ = 0`` is MLMIM, ``β = 0`` MLJMI.
    max_candidates : int or None, default=100
        As in :func:`label_specific_select`.
    relevance : ndarray of shape (D.n_vars, Y.n_vars), optional
        Precomputed ``I(D_i; Y_j)``.
    redundancy : {"cmi", "mrmr"}, default="cmi"
    redundancy_scale : {"q", "1"}, default="q"
    relevance_sum : ndarray of shape (D.n_vars,), optional
        Precomputed ``Σ_j I(D_i; Y_j)``, the only use of ``relevance`` here (e.g.
        :attr:`~skmlfs.info.InfoCache.relevance`, a label sum without the ``d × q`` table
        at large shapes); takes precedence over ``relevance``.

    Returns
    -------
    ranking : ndarray of int
    scores : ndarray of float
        Criterion value of each feature when picked (for the first pick its relevance, plus
        the β term in the uncapped search; its relevance in a pure relevance ranking).
    """
    q = Y.n_vars
    if relevance_sum is not None:
        rel = np.asarray(relevance_sum, dtype=np.float64)
    else:
        if relevance is None:
            relevance = mutual_info(D, Y)
        rel = relevance.sum(axis=1)
    K = min(int(n_select), D.n_vars)
    order = _relevance_order(rel)
    cap = np.inf if max_candidates is None else max_candidates
    if K <= 0:
        return np.empty(0, dtype=np.intp), np.empty(0)
    if D.n_vars <= K:
        return np.arange(D.n_vars, dtype=np.intp), rel.copy()
    if cap <= K:
        return order[:K].astype(np.intp), rel[order[:K]]
    T = order[: int(min(cap, D.n_vars))]
    L = T.size
    rel_T = rel[T]
    cor = np.zeros(L)
    use_cor = beta != 0 and parents is not None and any(np.asarray(p).size for p in parents)
    if redundancy not in ("cmi", "mrmr"):
        raise ValueError(f"redundancy must be 'cmi' or 'mrmr'; got {redundancy!r}.")
    # R[a, b]: redundancy of candidate b given selected a; an uncapped search has a pool
    # of every feature (L = d), so the table exists only when a redundancy term needs it
    use_red = gamma != 0 and K > 1
    R = np.zeros((L, L)) if use_red or redundancy == "mrmr" else None
    if redundancy == "mrmr":
        scale = float(q) if redundancy_scale == "q" else 1.0
        R = -scale * mutual_info(D.take(T), D.take(T))
        if use_cor:
            cor = _global_cor(D, Y, T, parents)
    elif use_cor or use_red:
        W = _parent_weights(parents, q) if use_cor else None
        A = DiscreteData.concat([D.take(T), Y]) if use_cor else D.take(T)
        for b, cmi in enumerate(iter_conditional_mutual_info(A, Y, D.take(T))):
            if use_red:
                R[:, b] = cmi[:L].sum(axis=1)  # Σ_j I(Y_j; X_T[a] | X_T[b])
            if use_cor:
                cor[b] = (cmi[L:] * W).sum()
    chosen = np.zeros(L, dtype=bool)
    # Uncapped (paper) search: the first pick maximises Eq. (42) with an empty X_θ;
    # the reference convention takes the most relevant feature.
    first = int(argmax_tol(rel_T + beta * cor)) if max_candidates is None else 0
    chosen[first] = True
    picks = [first]
    scores = [float(rel_T[first] + (beta * cor[first] if max_candidates is None else 0.0))]
    red = R[first].copy() if R is not None else np.zeros(L)
    for t in range(1, K):
        score = rel_T + beta * cor + gamma * (red / t)
        score[chosen] = -np.inf
        b = int(argmax_tol(score))
        picks.append(b)
        scores.append(float(score[b]))
        chosen[b] = True
        if R is not None:
            red += R[b]
        report_step(t + 1, K, "feature", criterion=scores[-1])
    return T[picks].astype(np.intp), np.asarray(scores)


def _parent_weights(parents: list[np.ndarray], q: int) -> np.ndarray:
    """``W[k, j] = 1/|Pa_j|`` for ``k ∈ Pa_j`` (the mean over parents)."""
    W = np.zeros((q, q))
    for j, pa in enumerate(parents):
        pa = np.asarray(pa, dtype=np.intp)
        if pa.size:
            W[pa, j] = 1.0 / pa.size
    return W


def _global_cor(D, Y, T, parents) -> np.ndarray:
    W = _parent_weights(parents, Y.n_vars)
    return np.array([(cmi * W).sum() for cmi in iter_conditional_mutual_info(Y, Y, D.take(T))])


def kcc_parents(
    Y: DiscreteData,
    order: np.ndarray,
    k: int,
    *,
    exclude: np.ndarray | None = None,
    max_candidates: int | None = 100,
    mi_yy: np.ndarray | None = None,
) -> list[np.ndarray]:
    """Parent labels of every label by Eq. (33) along a chain (kCC, Algorithm 1 lines 3–5).

    The candidates of label ``order[t]`` are the labels ``order[:t]`` (minus ``exclude``,
    e.g. labels constant in training, which the reference never adds to the chain);
    at most ``k`` are chosen with ``α = 1/|Pa_j|``::

        Y_l = argmax I(Y_l; Y_j) + α Σ_{Y_k∈Pa_j} I(Y_j; Y_k | Y_l)

    This is :func:`label_specific_select` with the labels as candidates, no parent term
    (``β = 0``) and ``γ = 1`` (``α = 1/|Pa_j|``); it gives the parents of
    :class:`skmlfs.learners.KDependentChain` and :class:`skmlfs.learners.OCC`.

    Parameters
    ----------
    Y : DiscreteData
        The labels.
    order : ndarray of int
        The chain order (a permutation of the labels).
    k : int
        Maximal number of parents ``|Pa_j|``.
    exclude : ndarray of bool of shape (Y.n_vars,), optional
        Labels that are neither parents nor children (e.g. constant in training).
    max_candidates : int or None, default=100
        As in :func:`label_specific_select`.
    mi_yy : ndarray of shape (Y.n_vars, Y.n_vars), optional
        Precomputed ``I(Y_a; Y_b)``.

    Returns
    -------
    list of ndarray
        ``parents[j]`` for every label ``j`` (indexed by label, not by chain position).
    """
    q = Y.n_vars
    order = np.asarray(order, dtype=np.intp)
    skip = np.zeros(q, dtype=bool) if exclude is None else np.asarray(exclude, dtype=bool)
    if mi_yy is None:
        mi_yy = mutual_info(Y, Y)
    targets, cands = [], []
    earlier: list[int] = []
    for j in order:
        if not skip[j]:
            targets.append(j)
            cands.append(np.asarray(earlier, dtype=np.intp))
            earlier.append(int(j))
    parents = [np.empty(0, dtype=np.intp) for _ in range(q)]
    sel = label_specific_select(
        Y, Y, np.asarray(targets, dtype=np.intp), cands, k, beta=0.0, gamma=1.0,
        max_candidates=max_candidates, relevance=mi_yy,
    )
    for j, pa in zip(targets, sel, strict=True):
        parents[j] = np.asarray(pa, dtype=np.intp)
    return parents


# ---------------------------------------------------------------------- selectors
class _MLFSBase(BaseInfoSelector):
    """Discretization shared by the MLFS family: ``"auto"`` = mean ± 0.5·std, 3 states.

    That is oCC's ``myDisc(X, 3, 0.5)`` (``docs/methods/discretizers.md#meanstd``;
    the paper's text says ±1·std, the authors' code uses 0.5), fitted on the training
    data, without ``myDisc``'s rounding of the edges to 3 decimals (which makes the
    selection depend on the units of ``X``; :func:`~skmlfs.discretize.occ_discretizer`);
    binary columns are left as they are by the discretizer itself.
    """

    _parameter_constraints: dict = {
        **BaseInfoSelector._parameter_constraints,
        # "mydisc": the authors' myDisc with its rounding of the edges (occ_discretizer)
        "discretizer": [StrOptions({"auto", "mydisc"}), None, HasMethods(["fit", "transform"])],
        "max_candidates": [None, Number(numbers.Integral, 1, None, closed="left")],
    }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # The global search is a forward search, so its picks for a smaller budget are a
        # prefix of those for a larger one -- unless the budgets fall in different branches
        # of global_select (a budget of max_candidates or more ranks by relevance instead):
        # with a finite cap the engine refits per budget. Local mode merges per-label
        # subsets by votes, which depend on the budget, so it is never nested.
        tags.selector_tags.nested_budgets = (
            getattr(self, "mode", "global") == "global"
            and getattr(self, "max_candidates", None) is None
        )
        return tags

    def _regime(self, K: int) -> str:
        """Which branch of :func:`global_select` a budget ``K`` takes: every feature in
        index order (``"all"``), a relevance ranking (``"rank"``) or the greedy search."""
        d = self.n_features_in_
        cap = getattr(self, "max_candidates", None)
        cap = np.inf if cap is None or type(self) is MLMIM else cap
        return "all" if d <= K else "rank" if cap <= K else "greedy"

    def _prefix_ok(self, k: int) -> bool:
        # within one branch the global search is a forward search (its first k picks do
        # not depend on the budget); across branches, or in local mode (votes), it is not
        return getattr(self, "mode", "global") == "global" and self._regime(k) == self._regime(
            self._fit_k
        )

    #: what row-block input would need (the message of the error it raises)
    _row_blocks_need = (
        "its criterion needs I(Y_j; X_n | X_m) for the pairs of its candidate pool (and, "
        "with β ≠ 0, label-pair terms), which row-block sources do not count; MLMIM with "
        "discretizer=None (a relevance ranking) accepts them"
    )

    def _discretize(self, X, Y):
        disc = self.discretizer
        if isinstance(disc, str):
            if disc not in ("auto", "mydisc"):
                raise ValueError(
                    f"discretizer must be 'auto', 'mydisc', None or a transformer; got {disc!r}."
                )
            disc = _meanstd_default(disc)
        elif disc is None:
            self._categorical(X)  # checked even when nothing is discretized
            return X
        # the transformer cloned and fitted with the nominal columns passed through
        return fit_discretizer(disc, X, Y, self._categorical(X)).transform(X)


class MLFS(_MLFSBase):
    """Multi-Label Feature Selection of the oCC paper, Eq. (42) (global) / Eq. (43) (local).

    Parameters
    ----------
    n_features_to_select : int, float or None, default=None
        ``M``: count, fraction of the features, or ``None`` for ⌈√n_samples⌉. In local
        mode it is the size of every label-specific subset.
    discretizer : "auto", None or transformer, default="auto"
        ``"auto"``: mean ± 0.5·std in 3 states (oCC's ``myDisc``, edges not rounded:
        :func:`~skmlfs.discretize.occ_discretizer`), fitted on the training data;
        ``"mydisc"``: the same with ``myDisc``'s rounding of the edges to 3 decimals (the
        authors' code, unit-dependent). Used for the information terms only.
    mode : {"local", "global"}, default="local"
        Label-specific subsets (Eq. 43) or one shared subset (Eq. 42).
    k : int, float or None, default=0.8
        Parent budget of kCC (Eq. 33) on the canonical label order, which defines the
        ``Pa_j`` of the label-correlation term; a float is a fraction of ``q``
        (``⌈0.8 q⌉``, the paper's default); ``0`` gives no parents.
    beta, gamma : float, default=1.0
        Multipliers of the mean label-correlation and mean redundancy-difference terms
        (``1`` = the paper's ``β = 1/|Pa_j|``, ``γ = 1/|X_θ|``).
    max_candidates : int or None, default=100
        Reference cap: only the most relevant candidates are considered and the first
        pick is the most relevant feature (``oCC_select.m``); ``None`` = Eqs. (42)/(43) as
        written: uncapped, the first pick scored by the criterion too.
    verbose : int, default=0
        Progress of the fit on stderr (steps done, criterion or objective, elapsed time):
        0 none, 1 a line every few seconds, 2 or more every step.

    Attributes
    ----------
    selection_order_ : ndarray of int
        Global mode: features in the order picked. Local mode: features ordered by how
        many labels selected them (ties: better mean position, then lower index); the
        selector keeps all of them (a smaller ``n_features_to_select`` needs a refit, as
        the label subsets change with it).
    ranking_ : ndarray of shape (n_features,)
        scikit-learn's ranking, as ``RFE``'s: 1 for the selected features, then 2, 3,
        ... along ``selection_order_``.
    scores_ : ndarray of shape (n_features,)
        Global mode: criterion value at the step a feature was picked (NaN if never).
        Local mode: the number of labels whose subset holds the feature (0 if none).
    step_scores_ : ndarray of float
        Global mode only: criterion value of each step, ``scores_[selection_order_]``.
    label_features_ : list of ndarray
        Local mode: the subset ``X_θj`` of every label, in selection order (empty for a
        label that is constant in the training data).
    parents_ : list of ndarray
        ``Pa_j`` of every label.

    Examples
    --------
    >>> import numpy as np
    >>> from skmlfs.selection import MLFS
    >>> rng = np.random.default_rng(0)
    >>> X = rng.integers(0, 3, size=(60, 8)); Y = (X[:, :3] > 1).astype(int)
    >>> sel = MLFS(n_features_to_select=2, discretizer=None).fit(X, Y)
    >>> [f.tolist() for f in sel.label_features_]
    [[0, 7], [1, 5], [2, 4]]
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.selector_tags.scores_meaning = (
            "criterion_at_pick",
            "global mode: the Eq. 42 criterion at the step the feature was picked (NaN: never; not "
            "sorted); local mode: the number of labels whose subset holds it",
        )
        # step_scores_ in global mode; votes in local mode (nested_budgets: _MLFSBase)
        tags.selector_tags.greedy = getattr(self, "mode", "global") == "global"
        return tags

    _parameter_constraints: dict = {
        **_MLFSBase._parameter_constraints,
        "mode": [StrOptions({"local", "global"})],
        "k": [None, Number(numbers.Integral, 0, None, closed="left"),
              Number(RealNotInt, 0, 1, closed="right")],
        "beta": [NON_NEGATIVE],
        "gamma": [NON_NEGATIVE],
    }

    def __init__(
        self,
        n_features_to_select: Any = None,
        discretizer: Any = "auto",
        mode: str = "local",
        k: Any = 0.8,
        beta: float = 1.0,
        gamma: float = 1.0,
        max_candidates: int | None = 100,
        *,
        categorical_features: Any = None,
        verbose: int = 0,
    ):
        super().__init__(n_features_to_select=n_features_to_select, discretizer=discretizer)
        self.mode = mode
        self.k = k
        self.beta = beta
        self.gamma = gamma
        self.max_candidates = max_candidates
        self.verbose = verbose
        self.categorical_features = categorical_features

    def _per_feature_scores(self, ranking: np.ndarray, values: np.ndarray) -> Any:
        return getattr(self, "_votes", None) if self.mode == "local" else None

    def _select(self, cache: InfoCache, K: int):
        X, Y = cache.X, cache.Y
        q = Y.n_vars
        # Same budget as OCC (paper: k = ⌈0.8 q⌉); a label never has more than q - 1 parents.
        k = resolve_count(self.k, q, "k", allow_zero=True)
        constant = cache.h_y <= 0
        _check_mlfs_tables(self, cache, k)
        if self.beta != 0 and k > 0:
            parents = kcc_parents(Y, np.arange(q), k, exclude=constant,
                                  max_candidates=self.max_candidates)
        else:
            parents = [np.empty(0, dtype=np.intp) for _ in range(q)]
        self.parents_ = parents
        if self.mode == "global":
            return global_select(X, Y, K, parents=parents, beta=float(self.beta),
                                 gamma=float(self.gamma), max_candidates=self.max_candidates,
                                 relevance_sum=cache.relevance)
        targets = np.flatnonzero(~constant)
        sel = label_specific_select(
            X, Y, targets, None, K, parents=[parents[j] for j in targets],
            beta=float(self.beta), gamma=float(self.gamma),
            max_candidates=self.max_candidates, relevance=cache.mi_xy,
        )
        feats = [np.empty(0, dtype=np.intp) for _ in range(q)]
        for j, f in zip(targets, sel, strict=True):
            feats[j] = f
        self.label_features_ = feats
        ranking, self._votes = _aggregate_votes(feats, X.n_vars, K)
        return ranking, self._votes[ranking]


def _check_mlfs_tables(sel: MLFS, cache: InfoCache, k: int) -> None:
    """Refuse MLFS's label × label and per-label feature × label tables above the budget.

    The label-correlation term (``β ≠ 0`` with ``k > 0`` parents) needs ``I(Y_a; Y_b)``
    for every label pair (kCC, Eq. 33) and ``I(Y_j; Y_k | X_m)`` for every label and
    parent pair given each candidate: ``q × q`` tables. Local mode needs ``I(X_i; Y_j)``
    of every feature and label (each label's own candidate pool): a ``d × q`` table.
    Global mode without the label term needs only label sums (as MLJMI).
    """
    m_x, m_y = cache.X.indicators.shape[1], cache.Y.indicators.shape[1]
    q = cache.Y.n_vars
    if sel.beta != 0 and k > 0:
        check_tables(
            "MLFS", f"its label-correlation term (β ≠ 0: I(Y_j; Y_k) and I(Y_j; Y_k | X_m) "
            f"for the pairs of the {q:,} labels, kCC Eq. 33)", float(m_y) * m_y, tables=4.0,
            instead="beta=0 drops it (global mode then needs label sums only, as MLJMI).",
        )
    if sel.mode == "local":
        check_tables(
            "MLFS", "its local mode (each label's candidate pool ranks every feature by "
            "I(X_i; Y_j), Eq. 43)", float(m_x) * m_y, tables=3.0,
            instead="mode='global' with beta=0 needs label sums only (as MLJMI).",
        )


def _aggregate_votes(feats: list[np.ndarray], d: int, K: int):
    """Features by decreasing vote count (then mean position, index), and the votes."""
    votes = np.zeros(d)
    pos_sum = np.zeros(d)
    for f in feats:
        votes[f] += 1
        pos_sum[f] += np.arange(f.size)
    mean_pos = np.where(votes > 0, pos_sum / np.maximum(votes, 1), np.inf)
    order = np.lexsort((np.arange(d), mean_pos, -votes))
    order = order[votes[order] > 0][:K]
    return order.astype(np.intp), votes


class MLMIM(_MLFSBase):
    """Multi-Label MIM (Sechidis et al. 2014; oCC Table 1, ``β = γ = 0`` of Eq. 42).

    Ranks the features by ``Σ_j I(X_m; Y_j)`` (ties: lower index). Parameters as in
    :class:`MLFS`; ``max_candidates`` is accepted for a uniform interface but a pure
    ranking needs no cap. ``scores_`` is ``Σ_j I(X_m; Y_j)`` of every feature.
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.selector_tags.scores_meaning = SUMMED_MI_MEANING
        tags.selector_tags.greedy = False
        # a ranking by a fixed score (no cap applies): every budget is a prefix
        tags.selector_tags.nested_budgets = True
        # Σ_j I(X_m; Y_j) adds up over row blocks once the values are symbols; "auto"
        # fits mean ± 0.5·std on the whole data first, which needs it in memory
        tags.selector_tags.row_blocks = getattr(self, "discretizer", "auto") is None
        return tags

    #: what row-block input would need (the message of the error it raises)
    _row_blocks_need = (
        "its discretizer ('auto', 'mydisc': mean ± 0.5·std; or a transformer) is fitted on "
        "the data in memory; discretize the data first and pass discretizer=None, then "
        "MLMIM counts over row blocks"
    )

    def _per_feature_scores(self, ranking: np.ndarray, values: np.ndarray) -> Any:
        return self._relevance

    def __init__(self, n_features_to_select: Any = None, discretizer: Any = "auto",
                 max_candidates: int | None = 100, *, categorical_features: Any = None,
                 verbose: int = 0):
        super().__init__(n_features_to_select=n_features_to_select, discretizer=discretizer)
        self.max_candidates = max_candidates
        self.verbose = verbose
        self.categorical_features = categorical_features

    def _select(self, cache: InfoCache, K: int):
        # Σ_j I(X_m; Y_j): the full block's row sums, or label sums above its threshold
        self._relevance = cache.relevance
        return global_select(cache.X, cache.Y, K, beta=0.0, gamma=0.0,
                             max_candidates=None, relevance_sum=self._relevance)


class MLJMI(_MLFSBase):
    """Multi-Label JMI (oCC Table 1: ``β = 0, γ = 1/|X_θ|`` of Eq. 42).

    ``score(X_m) = Σ_j [ I(X_m;Y_j) + (1/|X_θ|) Σ_{n∈X_θ} I(Y_j;X_n|X_m) ]``, the CMI
    summed over **all** labels (unlike ``MLC_toolbox/MLJMI_train.m``, which uses only the
    last label — ``docs/methods/info.md#mlfs-family``). Reference first-pick and candidate
    cap conventions (``max_candidates``).
    """

    def __init__(self, n_features_to_select: Any = None, discretizer: Any = "auto",
                 max_candidates: int | None = 100, *, categorical_features: Any = None,
                 verbose: int = 0):
        super().__init__(n_features_to_select=n_features_to_select, discretizer=discretizer)
        self.max_candidates = max_candidates
        self.verbose = verbose
        self.categorical_features = categorical_features

    def _select(self, cache: InfoCache, K: int):
        return global_select(cache.X, cache.Y, K, beta=0.0, gamma=1.0,
                             max_candidates=self.max_candidates,
                             relevance_sum=cache.relevance)


class MLMRMR(_MLFSBase):
    """Multi-Label mRMR (oCC Table 1: ``β = 0, γ = 1/|X_θ|``, conditional redundancy dropped).

    ``score(X_m) = Σ_j I(X_m;Y_j) − (s/|X_θ|) Σ_{n∈X_θ} I(X_m;X_n)`` with ``s = q``
    (``redundancy_scale="q"``, what dropping the term from Eq. 42 gives) or ``s = 1``
    (classic mRMR). The redundancy is *subtracted* (``MLC_toolbox/MLMRMR_train.m`` adds
    it — a sign bug not reproduced).
    """

    _parameter_constraints: dict = {
        **_MLFSBase._parameter_constraints,
        "redundancy_scale": [StrOptions({"q", "1"})],
    }

    def __init__(self, n_features_to_select: Any = None, discretizer: Any = "auto",
                 max_candidates: int | None = 100, redundancy_scale: str = "q", *,
                 categorical_features: Any = None,
                 verbose: int = 0):
        super().__init__(n_features_to_select=n_features_to_select, discretizer=discretizer)
        self.max_candidates = max_candidates
        self.redundancy_scale = redundancy_scale
        self.verbose = verbose
        self.categorical_features = categorical_features

    def _select(self, cache: InfoCache, K: int):
        return global_select(cache.X, cache.Y, K, beta=0.0, gamma=1.0,
                             max_candidates=self.max_candidates, relevance_sum=cache.relevance,
                             redundancy="mrmr", redundancy_scale=self.redundancy_scale)
