"""Ranking-based multi-label metrics (``../shared/specs/evaluation.md`` §1, §2.4–2.7).

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

Ranking loss counts ties as errors (``≤``) and does not depend on ``tie_rule``.
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
    """One-error ↓ — "onerr" (``evaluation.md`` §2.4; SCLS/memetic definitions).

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
          true label always counts as an error; every instance is in the denominator.
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


def ranking_loss(Y_true: Any, Y_score: Any, *, convention: str = "plcfs") -> float:
    """Ranking loss ↓ — "rloss" (``evaluation.md`` §2.5; SCLS §4.1).

    For an instance with ``λ_i ≠ ∅`` and ``λ̄_i ≠ ∅``::

        RL_i = |{(a, b) ∈ λ_i × λ̄_i : ψ_{i,a} ≤ ψ_{i,b}}| / (|λ_i| · |λ̄_i|)

    Ties count as mis-ordered pairs (``≤``, as the SCLS and memetic papers write it and as
    PL, ZH and scikit-learn's ``label_ranking_loss`` compute it). Mulan, which compares
    distinct ranks, breaks ties instead and is not reproduced.

    Parameters
    ----------
    Y_true : array-like or sparse matrix of shape (n_samples, n_labels)
        True 0/1 labels.
    Y_score : array-like of shape (n_samples, n_labels)
        Confidences.
    convention : {"plcfs", "zhang"}, default="plcfs"
        * ``"plcfs"`` (PL ``rloss.m``; also Mulan and scikit-learn): instances with no or all
          labels contribute 0 but stay in the denominator ``N``.
        * ``"zhang"`` (ZH ``Ranking_loss.m``, MLC_toolbox): such instances are excluded from
          the average (NaN with a warning if none remains).

    Returns
    -------
    float

    Notes
    -----
    Counted per row block by one sort of the scores with relevant labels placed before
    irrelevant ones of equal score: the errors of a relevant label are the irrelevant labels
    sorted after it. ``O(n q log q)`` time.
    """
    _check_choice("convention", convention, ("plcfs", "zhang"))
    Yt, S = _check_score_pair(Y_true, Y_score)
    n, q = Yt.shape
    errors = np.empty(n, dtype=np.float64)
    for blk in _row_blocks(n, q):
        Yb = Yt[blk]
        # Ascending by score; among equal scores relevant (key 0) before irrelevant (key 1),
        # so a tied irrelevant label lands after the relevant one and is counted as an error.
        order = np.lexsort((1 - Yb, S[blk]), axis=1)
        rel_sorted = np.take_along_axis(Yb, order, axis=1).astype(np.int64)
        irr_sorted = 1 - rel_sorted
        irr_before = np.cumsum(irr_sorted, axis=1) - irr_sorted
        n_irr = irr_sorted.sum(axis=1, keepdims=True)
        errors[blk] = np.sum(rel_sorted * (n_irr - irr_before), axis=1)
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
    """Coverage ↓ (``evaluation.md`` §2.6): how far down the ranking one must go to cover
    all relevant labels.

    Every convention is built on ``maxrank_i = max_{l∈λ_i} rank_i(l)`` (0 for ``λ_i = ∅``),
    with distinct ranks from ``tie_rule``.

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
    """Normalized coverage ↓ — SCLS "ncov" (SCLS §4.1; ``evaluation.md`` §2.6).

    ``ncov = (1/q) · [(1/N) Σ_i max_{l∈λ_i} rank_i(l) − 1]`` = ZH coverage / ``q`` (the same
    number as MLC_toolbox ``Coverage.m``). The SCLS paper prints ``max_{l∈λ̄_i}``; the text
    and every implementation use the relevant labels ``λ_i``, as here.

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


def average_precision(
    Y_true: Any,
    Y_score: Any,
    *,
    convention: str = "exclude_empty",
    tie_rule: str = "lower_index",
) -> float:
    """Average precision ↑ (``evaluation.md`` §2.7).

    ``AP_i = (1/|λ_i|) Σ_{l∈λ_i} |{l' ∈ λ_i : rank_i(l') ≤ rank_i(l)}| / rank_i(l)``,
    with distinct ranks from ``tie_rule``.

    Parameters
    ----------
    Y_true : array-like or sparse matrix of shape (n_samples, n_labels)
        True 0/1 labels.
    Y_score : array-like of shape (n_samples, n_labels)
        Confidences.
    convention : {"exclude_empty", "zhang", "mulan"}, default="exclude_empty"
        Treatment of degenerate instances:

        * ``"exclude_empty"`` (MLC_toolbox; library default): instances with ``λ_i = ∅`` are
          left out of the average.
        * ``"zhang"`` (ZH ``Average_precision.m``): instances with no **or all** labels are
          left out.
        * ``"mulan"`` (MU): an empty ``λ_i`` scores 0 and is counted.

        When nothing is left to average the result is NaN (with a warning).
    tie_rule : {"lower_index", "zhang"}, default="lower_index"
        Order of tied scores (module docstring).

    Returns
    -------
    float

    Notes
    -----
    ``sklearn.metrics.label_ranking_average_precision_score`` scores empty rows 1 and ranks
    ties pessimistically; on tie-free scores without empty rows it gives the same value.
    """
    _check_choice("convention", convention, ("exclude_empty", "zhang", "mulan"))
    _check_choice("tie_rule", tie_rule, _TIE_RULES)
    Yt, S = _check_score_pair(Y_true, Y_score)
    n, q = Yt.shape
    ap = np.zeros(n, dtype=np.float64)
    positions = np.arange(1, q + 1, dtype=np.float64)
    for blk, Ys in _sorted_truth(Yt, S, tie_rule):
        # Precision at each rank position, summed over the positions of relevant labels.
        hits = np.cumsum(Ys, axis=1, dtype=np.float64)
        card = hits[:, -1]
        total = np.sum(Ys * (hits / positions), axis=1)
        ap[blk] = np.divide(total, card, out=np.zeros_like(total), where=card > 0)
    card = Yt.sum(axis=1, dtype=np.int64)
    if convention == "mulan":
        return float(ap.mean())
    keep = card > 0 if convention == "exclude_empty" else (card > 0) & (card < q)
    return _mean_or_nan(ap[keep], f"average_precision(convention={convention!r})")
