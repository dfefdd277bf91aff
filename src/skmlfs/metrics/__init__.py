"""Multi-label evaluation measures with explicit conventions (``docs/methods/metrics.md``).

Bipartition metrics take ``(Y_true, Y_pred)``; ranking metrics take ``(Y_true, Y_score)``.
Where the reference implementations disagree (empty label sets, ties, empty F1
denominators) a ``convention=`` / ``tie_rule=`` / ``zero_division=`` parameter selects the
behaviour of the PLCFS code ("plcfs"), Zhang's toolbox ("zhang"), Mulan ("mulan") or the oCC
code; each docstring lists the options.

``METRICS`` maps a metric name to a :class:`MetricSpec` ``(function, greater_is_better,
needs)`` where ``needs`` is ``"pred"`` (0/1 predictions) or ``"score"`` (confidences).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from ._classification import (
    hamming_loss,
    hamming_score,
    macro_f1,
    micro_f1,
    multilabel_accuracy,
    subset_accuracy,
)
from ._ranking import (
    average_precision,
    coverage,
    normalized_coverage,
    one_error,
    ranking_loss,
)
from ._stability import (
    StabilityEstimate,
    kuncheva_index,
    nogueira_stability,
    selection_matrix,
)

__all__ = [
    "METRICS",
    "MetricSpec",
    "StabilityEstimate",
    "average_precision",
    "coverage",
    "get_metric",
    "hamming_loss",
    "hamming_score",
    "kuncheva_index",
    "macro_f1",
    "micro_f1",
    "multilabel_accuracy",
    "nogueira_stability",
    "normalized_coverage",
    "one_error",
    "ranking_loss",
    "selection_matrix",
    "subset_accuracy",
]


class MetricSpec(NamedTuple):
    """Registry entry: the metric function, its direction and the input it needs."""

    function: Callable[..., float]
    greater_is_better: bool
    needs: str  # "pred" (0/1 label matrix) or "score" (confidence matrix)


METRICS: dict[str, MetricSpec] = {
    "hamming_loss": MetricSpec(hamming_loss, False, "pred"),
    "ranking_loss": MetricSpec(ranking_loss, False, "score"),
    "one_error": MetricSpec(one_error, False, "score"),
    "coverage": MetricSpec(coverage, False, "score"),
    "normalized_coverage": MetricSpec(normalized_coverage, False, "score"),
    "average_precision": MetricSpec(average_precision, True, "score"),
    "multilabel_accuracy": MetricSpec(multilabel_accuracy, True, "pred"),
    "subset_accuracy": MetricSpec(subset_accuracy, True, "pred"),
    "hamming_score": MetricSpec(hamming_score, True, "pred"),
    "micro_f1": MetricSpec(micro_f1, True, "pred"),
    "macro_f1": MetricSpec(macro_f1, True, "pred"),
}


def get_metric(name: str) -> MetricSpec:
    """Return the :class:`MetricSpec` registered under ``name``.

    Raises
    ------
    KeyError
        If ``name`` is not a registered metric; the message lists the valid names.
    """
    try:
        return METRICS[name]
    except (KeyError, TypeError):
        raise KeyError(
            f"unknown metric {name!r}; available: {', '.join(sorted(METRICS))}."
        ) from None
