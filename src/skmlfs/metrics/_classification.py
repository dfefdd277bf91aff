"""Bipartition-based multi-label metrics (``docs/methods/metrics.md``).

All functions take a true label matrix ``Y_true`` and a predicted label matrix ``Y_pred``,
both ``(n_samples, n_labels)`` 0/1 indicators (dense, sparse or DataFrame), and are
vectorised over instances. The input checks shared with the ranking metrics live here too.
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.utils.validation import check_array

from .._validation import check_labels

__all__ = [
    "hamming_loss",
    "hamming_score",
    "subset_accuracy",
    "multilabel_accuracy",
    "micro_f1",
    "macro_f1",
]


# ---------------------------------------------------------------------------
# input checks shared with _ranking.py
# ---------------------------------------------------------------------------


def _check_true(Y_true: Any) -> np.ndarray:
    Yt = check_labels(Y_true, name="Y_true")
    if Yt.shape[0] == 0:
        raise ValueError("Y_true has 0 samples (no rows); a metric needs at least one instance.")
    return Yt


def _check_pred_pair(Y_true: Any, Y_pred: Any) -> tuple[np.ndarray, np.ndarray]:
    """Validate a (true, predicted) pair of 0/1 label matrices of the same shape."""
    Yt = _check_true(Y_true)
    Yp = check_labels(Y_pred, name="Y_pred")
    if Yp.shape != Yt.shape:
        raise ValueError(
            f"Y_true and Y_pred have different shapes: {Yt.shape} != {Yp.shape}. Both must be "
            "(n_samples, n_labels) label indicator matrices."
        )
    return Yt, Yp


def _check_score_pair(Y_true: Any, Y_score: Any) -> tuple[np.ndarray, np.ndarray]:
    """Validate true labels and a real-valued confidence matrix of the same shape.

    Scores may be any real numbers (probabilities, decision values, log-probabilities);
    ``±inf`` is accepted (it orders correctly), NaN is rejected.
    """
    Yt = _check_true(Y_true)
    if sp.issparse(Y_score):
        Y_score = Y_score.toarray()
    S = check_array(
        Y_score, ensure_2d=False, dtype=np.float64, ensure_all_finite=False, input_name="Y_score"
    )
    if S.ndim != 2:
        raise ValueError(
            f"Y_score must be a 2-D (n_samples, n_labels) confidence matrix; got {S.ndim} "
            "dimension(s)."
        )
    if S.shape != Yt.shape:
        raise ValueError(
            f"Y_true and Y_score have different shapes: {Yt.shape} != {S.shape}."
        )
    if np.isnan(S).any():
        i, j = np.argwhere(np.isnan(S))[0]
        raise ValueError(f"Y_score contains NaN (first at row {i}, label {j}).")
    return Yt, S


def _check_choice(name: str, value: Any, allowed: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{name} must be one of {allowed}; got {value!r}.")
    return value


def _check_zero_division(zero_division: Any) -> float:
    if isinstance(zero_division, numbers.Real) and not isinstance(zero_division, bool):
        z = float(zero_division)
        if z in (0.0, 1.0) or math.isnan(z):
            return z
    raise ValueError(f"zero_division must be 0, 1 or np.nan; got {zero_division!r}.")


def _mean_or_nan(values: np.ndarray, what: str) -> float:
    """Mean of ``values``; NaN with a warning when nothing is left to average."""
    if values.size == 0:
        warnings.warn(
            f"{what}: no instance is left to average over; returning NaN.",
            UndefinedMetricWarning,
            stacklevel=3,
        )
        return float("nan")
    return float(values.mean())


# ---------------------------------------------------------------------------
# metrics
# ---------------------------------------------------------------------------


def hamming_loss(Y_true: Any, Y_pred: Any) -> float:
    """Hamming loss ↓ (``docs/methods/metrics.md#hamming-loss``; SCLS §4.1).

    ``HL = (1/N) Σ_i |λ_i Δ Ŷ_i| / q``: the fraction of instance–label pairs that are
    misclassified. No edge cases (all conventions agree).

    Parameters
    ----------
    Y_true, Y_pred : array-like or sparse matrix of shape (n_samples, n_labels)
        True and predicted 0/1 label indicators.

    Returns
    -------
    float
        In ``[0, 1]``; 0 is perfect.
    """
    Yt, Yp = _check_pred_pair(Y_true, Y_pred)
    return float(np.count_nonzero(Yt != Yp) / Yt.size)


def hamming_score(Y_true: Any, Y_pred: Any) -> float:
    """Hamming score ↑ = ``1 − hamming_loss`` (oCC §8.1; ``docs/methods/metrics.md#hamming-loss``).

    ``HS = (1/(Nq)) Σ_i Σ_l [ŷ_il = y_il]``. No edge cases: instances with no or all
    labels are scored like any other.
    """
    Yt, Yp = _check_pred_pair(Y_true, Y_pred)
    return float(np.count_nonzero(Yt == Yp) / Yt.size)


def subset_accuracy(Y_true: Any, Y_pred: Any) -> float:
    """Subset accuracy (exact match) ↑ (``docs/methods/metrics.md#subset-accuracy``).

    ``EM = (1/N) Σ_i [Ŷ_i = λ_i]``: the fraction of instances whose whole label set is
    predicted exactly (equals ``sklearn.metrics.accuracy_score`` on indicator matrices).
    No edge cases: an instance with no true label is correct iff nothing is predicted, one
    with all labels iff everything is.
    """
    Yt, Yp = _check_pred_pair(Y_true, Y_pred)
    return float(np.mean(np.all(Yt == Yp, axis=1)))


def multilabel_accuracy(Y_true: Any, Y_pred: Any, *, convention: str = "mulan") -> float:
    """Multi-label (Jaccard) accuracy ↑ — "mlacc".

    See ``docs/methods/metrics.md#multi-label-accuracy``.

    ``Acc = (1/N) Σ_i |λ_i ∩ Ŷ_i| / |λ_i ∪ Ŷ_i|``.

    Parameters
    ----------
    Y_true, Y_pred : array-like or sparse matrix of shape (n_samples, n_labels)
        True and predicted 0/1 label indicators.
    convention : {"mulan", "plcfs"}, default="mulan"
        * ``"mulan"`` (MU): exact ratio; an instance with an empty union (no true and no
          predicted label) scores 1. Equals ``sklearn.metrics.jaccard_score(...,
          average="samples", zero_division=1)``.
        * ``"plcfs"`` (PL ``mlacc.m``, memetic paper): ``(|∩| + 0.001) / (|∪| + 0.001)`` for
          **every** instance — empty/empty gives 1 and every other ratio is slightly
          shrunk toward 1.

        An instance with all labels relevant scores ``|Ŷ_i| / q`` under ``"mulan"``; an
        instance with no true label scores 0 unless nothing is predicted either.

    Returns
    -------
    float
    """
    _check_choice("convention", convention, ("mulan", "plcfs"))
    Yt, Yp = _check_pred_pair(Y_true, Y_pred)
    inter = np.count_nonzero(Yt & Yp, axis=1).astype(np.float64)
    union = np.count_nonzero(Yt | Yp, axis=1).astype(np.float64)
    if convention == "plcfs":
        ratio = (inter + 0.001) / (union + 0.001)
    else:
        ratio = np.ones_like(inter)
        nz = union > 0
        ratio[nz] = inter[nz] / union[nz]
    return float(ratio.mean())


def _confusion_counts(Yt: np.ndarray, Yp: np.ndarray) -> tuple[np.ndarray, ...]:
    """Per-label TP, FP, FN as float vectors of length q."""
    t, p = Yt.astype(bool), Yp.astype(bool)
    tp = np.count_nonzero(t & p, axis=0).astype(np.float64)
    fp = np.count_nonzero(~t & p, axis=0).astype(np.float64)
    fn = np.count_nonzero(t & ~p, axis=0).astype(np.float64)
    return tp, fp, fn


def micro_f1(Y_true: Any, Y_pred: Any, *, zero_division: float = 0) -> float:
    """Micro-averaged F1 ↑ (RLEFS Eq. 30; oCC §8.1; ``docs/methods/metrics.md#f1-measures``).

    ``Micro-F1 = 2ΣTP / (2ΣTP + ΣFP + ΣFN)`` with the counts pooled over all labels.

    Parameters
    ----------
    Y_true, Y_pred : array-like or sparse matrix of shape (n_samples, n_labels)
        True and predicted 0/1 label indicators.
    zero_division : {0, 1, np.nan}, default=0
        Value returned when the denominator is 0 (no true and no predicted label at all).
        The oCC code's ``Micro_F1.m`` yields NaN there (``zero_division=np.nan``); Mulan's
        ``fMeasure`` gives 1. Individual instances with no or all labels need no special
        case: the counts are pooled.

    Returns
    -------
    float
    """
    z = _check_zero_division(zero_division)
    Yt, Yp = _check_pred_pair(Y_true, Y_pred)
    tp, fp, fn = (c.sum() for c in _confusion_counts(Yt, Yp))
    den = 2.0 * tp + fp + fn
    return float(2.0 * tp / den) if den > 0 else z


def macro_f1(Y_true: Any, Y_pred: Any, *, zero_division: float = 0) -> float:
    """Macro-averaged F1 ↑ (RLEFS Eq. 30; oCC §8.1; ``docs/methods/metrics.md#f1-measures``).

    ``Macro-F1 = (1/q) Σ_l 2TP_l / (2TP_l + FP_l + FN_l)``.

    Parameters
    ----------
    Y_true, Y_pred : array-like or sparse matrix of shape (n_samples, n_labels)
        True and predicted 0/1 label indicators.
    zero_division : {0, 1, np.nan}, default=0
        F1 of a label that is never relevant and never predicted (empty denominator).
        ``0`` = oCC ``Macro_F1.m`` (OC, default); ``1`` = Mulan
        (``InformationRetrievalMeasures.fMeasure``). This matters on sparse data sets
        (medical, enron, corel). ``np.nan`` propagates NaN into the mean. Instances with
        no or all labels need no special case (the counts are per label).

    Returns
    -------
    float
    """
    z = _check_zero_division(zero_division)
    Yt, Yp = _check_pred_pair(Y_true, Y_pred)
    tp, fp, fn = _confusion_counts(Yt, Yp)
    den = 2.0 * tp + fp + fn
    f1 = np.full(den.shape, z)
    nz = den > 0
    f1[nz] = 2.0 * tp[nz] / den[nz]
    return float(f1.mean())
