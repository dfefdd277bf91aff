"""Ranking-based multi-label metrics (``docs/methods/metrics.md``).

Every function takes ``Y_true`` (``(n, q)`` 0/1) and ``Y_score`` (``(n, q)`` real
confidences ``ψ``), and is vectorised over instances: rows are processed in blocks of about
a million entries, each block with one row-wise sort (``O(n q log q)`` time, ``O(block)``
memory — never an ``n × q × q`` array).

Label ranks (§1)
----------------
``rank_i(l)`` is the position of label ``l`` when the labels of instance ``i`` are sorted by
decreasing ``ψ_{i,·}`` (1 = top). Equal scores are ordered by ``tie_rule``:

* ``"lower_index"`` (default; PLCFS code "PL"): stable descending sort, so among equal scores
  the **lower** label index gets the better rank.
* ``"zhang"`` (Zhang's MATLAB toolbox "ZH": ascending stable sort, ``rank = q − pos + 1``):
  among equal scores the **higher** label index gets the better rank.

Ranking loss does not use distinct ranks: its ``ties`` parameter says how a relevant and an
irrelevant label with equal scores count (an error by default, as in the papers and
scikit-learn). ``average_precision(convention="sklearn")`` likewise uses scikit-learn's
pessimistic ranks (every tied label shares the worst rank of its group), not ``tie_rule``.

Edge cases (instances with no relevant label, or with every label relevant) are listed in
each function's docstring.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from ._classification import _check_choice, _check_score_pair, _mean_or_nan

__all__ = [
    "one_error",
    "ranking_loss",
    "coverage",
    "normalized_coverage",
    "average_precision",
]

_TIE_RULES = ("lower_index", "zhang")
# Entries per row block: bounds the temporaries of the row-wise sorts (~8 MB per array).
_BLOCK_ENTRIES = 1 << 20


def _row_blocks(n: int, q: int) -> Iterator[slice]:
    step = max(1, _BLOCK_ENTRIES // q)
    for start in range(0, n, step):
        yield slice(start, min(n, start + step))


def _rank_order(S: np.ndarray, tie_rule: str) -> np.ndarray:
    """Label indices of each row from rank 1 to rank q (``order[i, k]`` has rank ``k + 1``)."""
    if tie_rule == "lower_index":
        return np.argsort(-S, axis=1, kind="stable")
    q = S.shape[1]
    # Reversing the columns makes the stable sort prefer the higher original index.
    return (q - 1) - np.argsort(-S[:, ::-1], axis=1, kind="stable")


def _sorted_truth(Yt: np.ndarray, S: np.ndarray, tie_rule: str) -> Iterator[tuple[slice, Any]]:
    """Per row block: the 0/1 truth re-ordered by rank (column k = label of rank k+1)."""
    n, q = Yt.shape
    for blk in _row_blocks(n, q):
        order = _rank_order(S[blk], tie_rule)
        yield blk, np.take_along_axis(Yt[blk], order, axis=1)


def one_error(
    Y_true: Any, Y_score: Any, *, convention: str = "plcfs", tie_rule: str = "lower_index"
) -> float:
    """One-error ↓ — "onerr" (``docs/methods/metrics.md#one-error``; SCLS/memetic definitions).

    ``OE = (1/N) Σ_i [argmax_l ψ_{i,l} ∉ λ_i]``: how often the top-ranked label is not
    relevant.

    Parameters
    ----------
    Y_true : array-like or sparse matrix of shape (n_samples, n_labels)
        True 0/1 labels.
    Y_score : array-like of shape (n_samples, n_labels)
        Confidences; larger means more likely relevant.
    convention : {"plcfs", "zhang"}, default="plcfs"
        * ``"plcfs"`` (PL ``onerr.m``): the top label is the rank-1 label under ``tie_rule``
          (for ``"lower_index"``, the first index among tied maxima); an instance with **no**
          true label always counts as an error, one with **all** labels is always correct;
          every instance is in the denominator.
        * ``"zhang"`` (ZH ``One_error.m``): instances with no or with all labels are
          **removed**; an instance is correct if **any** of its top-scoring (tied) labels is
          relevant (optimistic ties, ``tie_rule`` is not used). NaN (with an
          ``UndefinedMetricWarning``) if no instance remains.
    tie_rule : {"lower_index", "zhang"}, default="lower_index"
        Order of tied scores (module docstring); only used by ``convention="plcfs"``.

    Returns
    -------
    float
    """
    _check_choice("convention", convention, ("plcfs", "zhang"))
    _check_choice("tie_rule", tie_rule, _TIE_RULES)
    Yt, S = _check_score_pair(Y_true, Y_score)
    n, q = Yt.shape
    rows = np.arange(n)
    if convention == "plcfs":
        if tie_rule == "lower_index":
            top = np.argmax(S, axis=1)
        else:
            top = (q - 1) - np.argmax(S[:, ::-1], axis=1)
        return float(np.mean(Yt[rows, top] == 0))
    card = Yt.sum(axis=1, dtype=np.int64)
    keep = (card > 0) & (card < q)
    top_tied = S == S.max(axis=1, keepdims=True)
    hit = np.any(top_tied & (Yt == 1), axis=1)
    return _mean_or_nan((~hit[keep]).astype(np.float64), "one_error(convention='zhang')")


_RL_TIES = ("error", "half", "correct")


def _ranking_errors(Yb: np.ndarray, Sb: np.ndarray, count_ties: bool) -> np.ndarray:
    """Per row: the pairs (relevant a, irrelevant b) with ``ψ_a < ψ_b``, plus those with
    ``ψ_a = ψ_b`` when ``count_ties``.

    One ascending sort per row. Among equal scores the relevant labels go first when tied
    pairs count (so a tied irrelevant label lands after them) and last otherwise; the
    errors of a relevant label are the irrelevant labels sorted after it.
    """
    key = (1 - Yb) if count_ties else Yb
    order = np.lexsort((key, Sb), axis=1)
    rel_sorted = np.take_along_axis(Yb, order, axis=1).astype(np.int64)
    irr_sorted = 1 - rel_sorted
    irr_before = np.cumsum(irr_sorted, axis=1) - irr_sorted
    n_irr = irr_sorted.sum(axis=1, keepdims=True)
    return np.sum(rel_sorted * (n_irr - irr_before), axis=1).astype(np.float64)


def ranking_loss(
    Y_true: Any, Y_score: Any, *, convention: str = "plcfs", ties: str = "error"
) -> float:
    """Ranking loss ↓ — "rloss" (``docs/methods/metrics.md#ranking-loss``; SCLS §4.1).

    For an instance with ``λ_i ≠ ∅`` and ``λ̄_i ≠ ∅``::

        RL_i = |{(a, b) ∈ λ_i × λ̄_i : ψ_{i,a} ≤ ψ_{i,b}}| / (|λ_i| · |λ̄_i|)

    with the default ``ties="error"``: the fraction of relevant–irrelevant pairs that are
    mis-ordered, a tie being a mis-ordered pair.

    Parameters
    ----------
    Y_true : array-like or sparse matrix of shape (n_samples, n_labels)
        True 0/1 labels.
    Y_score : array-like of shape (n_samples, n_labels)
        Confidences.
    convention : {"plcfs", "zhang"}, default="plcfs"
        Instances with **no** relevant label or with **all** labels relevant (no pair to
        order):

        * ``"plcfs"`` (PL ``rloss.m``; also Mulan and scikit-learn's
          ``label_ranking_loss``): they contribute 0 but stay in the denominator ``N``.
        * ``"zhang"`` (ZH ``Ranking_loss.m``, MLC_toolbox): they are excluded from the
          average (NaN with an ``UndefinedMetricWarning`` if none remains).
    ties : {"error", "half", "correct"}, default="error"
        A pair ``(a, b)`` with ``ψ_{i,a} = ψ_{i,b}``:

        * ``"error"`` (default; the ``≤`` of the SCLS and memetic papers, PL ``rloss.m``, ZH
          and scikit-learn's ``label_ranking_loss``): counts as one mis-ordered pair. A
          constant score vector gets the worst loss, 1.
        * ``"half"``: counts as half an error — the expected loss when ties are broken at
          random (a constant score vector scores 0.5).
        * ``"correct"``: counts as correctly ordered (``<`` instead of ``≤``), the most
          optimistic reading. The pair stays in the denominator.

        Mulan compares distinct ranks, which break ties by label position; none of these
        options reproduces that.

    Returns
    -------
    float

    Notes
    -----
    Counted per row block by one sort of the scores with relevant labels placed before (or
    after) irrelevant ones of equal score: the errors of a relevant label are the irrelevant
    labels sorted after it. ``O(n q log q)`` time; ``ties="half"`` sorts twice.
    """
    _check_choice("convention", convention, ("plcfs", "zhang"))
    _check_choice("ties", ties, _RL_TIES)
    Yt, S = _check_score_pair(Y_true, Y_score)
    n, q = Yt.shape
    errors = np.empty(n, dtype=np.float64)
    for blk in _row_blocks(n, q):
        Yb, Sb = Yt[blk], S[blk]
        if ties == "error":
            errors[blk] = _ranking_errors(Yb, Sb, True)
        elif ties == "correct":
            errors[blk] = _ranking_errors(Yb, Sb, False)
        else:
            errors[blk] = 0.5 * (_ranking_errors(Yb, Sb, True) + _ranking_errors(Yb, Sb, False))
    card = Yt.sum(axis=1, dtype=np.int64)
    valid = (card > 0) & (card < q)
    rl = np.zeros(n, dtype=np.float64)
    rl[valid] = errors[valid] / (card[valid] * (q - card[valid]))
    if convention == "plcfs":
        return float(rl.mean())
    return _mean_or_nan(rl[valid], "ranking_loss(convention='zhang')")


def _max_relevant_rank(Yt: np.ndarray, S: np.ndarray, tie_rule: str) -> np.ndarray:
    """``maxrank_i = max_{l ∈ λ_i} rank_i(l)``, 0 for an empty ``λ_i``."""
    n, q = Yt.shape
    out = np.zeros(n, dtype=np.int64)
    for blk, Ys in _sorted_truth(Yt, S, tie_rule):
        has = Ys.any(axis=1)
        last_from_end = np.argmax(Ys[:, ::-1], axis=1)
        out[blk] = np.where(has, q - last_from_end, 0)
    return out


def coverage(
    Y_true: Any,
    Y_score: Any,
    *,
    convention: str = "zhang",
    normalize: bool = False,
    tie_rule: str = "lower_index",
) -> float:
    """Coverage ↓ (docs/methods/metrics.md#coverage): how far down the ranking one must go to cover
    all relevant labels.

    Every convention is built on ``maxrank_i = max_{l∈λ_i} rank_i(l)`` (0 for ``λ_i = ∅``),
    with distinct ranks from ``tie_rule``. An instance with **all** labels relevant has
    ``maxrank_i = q`` whatever the scores (the worst value) and is counted by every
    convention; an instance with **no** relevant label is treated as each convention says.

    Parameters
    ----------
    Y_true : array-like or sparse matrix of shape (n_samples, n_labels)
        True 0/1 labels.
    Y_score : array-like of shape (n_samples, n_labels)
        Confidences.
    convention : {"zhang", "mulan", "plcfs"}, default="zhang"
        * ``"zhang"`` (ZH ``coverage.m``, the textbook coverage): ``(1/N) Σ_i maxrank_i − 1``
          (an empty ``λ_i`` adds 0 to the sum, so after the global −1 it counts as −1).
        * ``"mulan"`` (MU): ``(1/N) Σ_i (maxrank_i − 1)`` over non-empty ``λ_i``, 0 for an
          empty ``λ_i`` (still counted in ``N``). Equals ``"zhang"`` when no instance has an
          empty label set.
        * ``"plcfs"`` (PL ``mlcov.m``, the memetic paper's "mlcov"): ``(1/N) Σ_i maxrank_i``
          — no −1; empty label sets contribute 0 and are counted.
    normalize : bool, default=False
        Divide by ``q``. ``convention="zhang", normalize=True`` is the SCLS paper's
        normalized coverage (see :func:`normalized_coverage`).
    tie_rule : {"lower_index", "zhang"}, default="lower_index"
        Order of tied scores (module docstring).

    Returns
    -------
    float

    Notes
    -----
    ``sklearn.metrics.coverage_error`` counts tied labels pessimistically and gives 0 to empty
    rows; on tie-free scores it equals ``convention="plcfs"`` (and ``"mulan"`` + 1 when no
    row is empty).
    """
    _check_choice("convention", convention, ("zhang", "mulan", "plcfs"))
    _check_choice("tie_rule", tie_rule, _TIE_RULES)
    if not isinstance(normalize, bool | np.bool_):
        raise ValueError(f"normalize must be a bool; got {normalize!r}.")
    Yt, S = _check_score_pair(Y_true, Y_score)
    q = Yt.shape[1]
    maxrank = _max_relevant_rank(Yt, S, tie_rule).astype(np.float64)
    if convention == "zhang":
        value = maxrank.mean() - 1.0
    elif convention == "mulan":
        value = np.where(maxrank > 0, maxrank - 1.0, 0.0).mean()
    else:
        value = maxrank.mean()
    return float(value / q) if normalize else float(value)


def normalized_coverage(Y_true: Any, Y_score: Any, *, tie_rule: str = "lower_index") -> float:
    """Normalized coverage ↓ — SCLS "ncov" (SCLS §4.1; ``docs/methods/metrics.md#coverage``).

    ``ncov = (1/q) · [(1/N) Σ_i max_{l∈λ_i} rank_i(l) − 1]`` = ZH coverage / ``q`` (the same
    number as MLC_toolbox ``Coverage.m``). The SCLS paper prints ``max_{l∈λ̄_i}``; the text
    and every implementation use the relevant labels ``λ_i``, as here.

    Edge cases as in ``coverage(convention="zhang")``: an instance with no relevant label
    adds 0 to the sum (so ``−1/q`` after the global −1), one with all labels adds ``q``.

    Parameters
    ----------
    Y_true : array-like or sparse matrix of shape (n_samples, n_labels)
        True 0/1 labels.
    Y_score : array-like of shape (n_samples, n_labels)
        Confidences.
    tie_rule : {"lower_index", "zhang"}, default="lower_index"
        Order of tied scores (module docstring).

    Returns
    -------
    float
    """
    return coverage(Y_true, Y_score, convention="zhang", normalize=True, tie_rule=tie_rule)


_AP_CONVENTIONS = ("exclude_empty", "zhang", "mulan", "sklearn")


def _sklearn_average_precision(Yb: np.ndarray, Sb: np.ndarray) -> np.ndarray:
    """Per-row AP with scikit-learn's pessimistic ranks (rank = #labels scoring ≥ ψ).

    ``AP_i = (1/|λ_i|) Σ_{l∈λ_i} |{l'∈λ_i : ψ_l' ≥ ψ_l}| / |{l' : ψ_l' ≥ ψ_l}|`` — what
    ``label_ranking_average_precision_score`` computes with ``rankdata(..., "max")``. Rows
    with no or all labels are left at 0 here (the caller sets them to 1).
    """
    n, q = Yb.shape
    order = np.argsort(-Sb, axis=1, kind="stable")
    Ss = np.take_along_axis(Sb, order, axis=1)
    Ys = np.take_along_axis(Yb, order, axis=1).astype(np.float64)
    # last position of each tie group, propagated backwards: its 1-based value is the
    # pessimistic rank of every member of the group
    pos = np.broadcast_to(np.arange(q), (n, q))
    is_end = np.ones((n, q), dtype=bool)
    is_end[:, :-1] = Ss[:, :-1] != Ss[:, 1:]
    end = np.where(is_end, pos, q)
    end = np.minimum.accumulate(end[:, ::-1], axis=1)[:, ::-1]
    hits = np.cumsum(Ys, axis=1)
    hits_at_end = np.take_along_axis(hits, end, axis=1)
    card = hits[:, -1]
    total = np.sum(Ys * hits_at_end / (end + 1.0), axis=1)
    return np.divide(total, card, out=np.zeros_like(total), where=card > 0)


def average_precision(
    Y_true: Any,
    Y_score: Any,
    *,
    convention: str = "exclude_empty",
    tie_rule: str = "lower_index",
) -> float:
    """Average precision ↑ (``docs/methods/metrics.md#average-precision``).

    ``AP_i = (1/|λ_i|) Σ_{l∈λ_i} |{l' ∈ λ_i : rank_i(l') ≤ rank_i(l)}| / rank_i(l)``,
    with distinct ranks from ``tie_rule`` (except ``convention="sklearn"``). An instance
    with **all** labels relevant has ``AP_i = 1`` for any ranking and is counted, except by
    ``"zhang"``, which leaves it out. An instance with **no** relevant label has no
    defined ``AP_i``; the conventions differ mainly there.

    Parameters
    ----------
    Y_true : array-like or sparse matrix of shape (n_samples, n_labels)
        True 0/1 labels.
    Y_score : array-like of shape (n_samples, n_labels)
        Confidences.
    convention : {"exclude_empty", "zhang", "mulan", "sklearn"}, default="exclude_empty"
        Treatment of degenerate instances:

        * ``"exclude_empty"`` (MLC_toolbox; library default — none
          of the seed papers reports average precision): instances with ``λ_i = ∅`` are
          left out of the average; all-label instances count (AP 1).
        * ``"zhang"`` (ZH ``Average_precision.m``): instances with no **or all** labels are
          left out.
        * ``"mulan"`` (MU ``AveragePrecision.java``): instances with ``λ_i = ∅`` are
          **skipped** (neither summed nor counted) — the same number as
          ``"exclude_empty"``. One reading says Mulan scores them 0 and counts
          them; Mulan's source (``updateRanking`` adds to the sum and to the count only when
          the relevant set is non-empty) and the foundation issue say they are skipped, and
          the source is followed here.
        * ``"sklearn"`` (``sklearn.metrics.label_ranking_average_precision_score``): an
          instance with no **or all** relevant labels scores 1 and is counted, and ties are
          ranked pessimistically (every tied label gets the worst rank of its group, and a
          tied relevant label counts as ranked above); ``tie_rule`` is not used.

        For the excluding conventions, the result is NaN (with an
        ``UndefinedMetricWarning``) when nothing is left to average.
    tie_rule : {"lower_index", "zhang"}, default="lower_index"
        Order of tied scores (module docstring); not used by ``convention="sklearn"``.

    Returns
    -------
    float

    Notes
    -----
    On tie-free scores without empty rows every convention except ``"zhang"`` (which drops
    all-label rows) gives the same value as scikit-learn.
    """
    _check_choice("convention", convention, _AP_CONVENTIONS)
    _check_choice("tie_rule", tie_rule, _TIE_RULES)
    Yt, S = _check_score_pair(Y_true, Y_score)
    n, q = Yt.shape
    card = Yt.sum(axis=1, dtype=np.int64)
    ap = np.zeros(n, dtype=np.float64)
    if convention == "sklearn":
        for blk in _row_blocks(n, q):
            ap[blk] = _sklearn_average_precision(Yt[blk], S[blk])
        ap[(card == 0) | (card == q)] = 1.0
        return float(ap.mean())
    positions = np.arange(1, q + 1, dtype=np.float64)
    for blk, Ys in _sorted_truth(Yt, S, tie_rule):
        # Precision at each rank position, summed over the positions of relevant labels.
        hits = np.cumsum(Ys, axis=1, dtype=np.float64)
        total = np.sum(Ys * (hits / positions), axis=1)
        ap[blk] = np.divide(total, hits[:, -1], out=np.zeros_like(total), where=hits[:, -1] > 0)
    keep = card > 0 if convention in ("exclude_empty", "mulan") else (card > 0) & (card < q)
    return _mean_or_nan(ap[keep], f"average_precision(convention={convention!r})")
