"""Multi-label evaluation measures with explicit conventions (``docs/methods/metrics.md``).

Bipartition metrics take ``(Y_true, Y_pred)``; ranking metrics take ``(Y_true, Y_score)``.
Where the reference implementations disagree (empty label sets, ties, empty F1
denominators) a ``convention=`` / ``tie_rule=`` / ``zero_division=`` parameter selects the
behaviour of the PLCFS code ("plcfs"), Zhang's toolbox ("zhang"), Mulan ("mulan") or the oCC
code; each docstring lists the options.

``METRICS`` maps a metric name to a :class:`MetricSpec` ``(function, greater_is_better,
needs)`` where ``needs`` is ``"pred"`` (0/1 predictions) or ``"score"`` (confidences).
``METRIC_ALIASES`` maps other spellings (scikit-learn's scorer names such as ``f1_micro``,
``accuracy``) to ours; :func:`metric_name` resolves a name either way, and every place
that takes a metric name (experiment files, ``mlfs evaluate --metrics``, tuning
``scoring``, the wrappers' ``metric``) goes through it.
"""

from __future__ import annotations

import difflib
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
    "METRIC_ALIASES",
    "MetricSpec",
    "StabilityEstimate",
    "average_precision",
    "coverage",
    "get_metric",
    "hamming_loss",
    "hamming_score",
    "kuncheva_index",
    "macro_f1",
    "metric_name",
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


#: Other spellings of registered metrics -> our name. scikit-learn's scorer and function
#: names of the same quantities (for multi-label targets scikit-learn's ``accuracy`` is
#: the exact-match ratio, its ``jaccard_samples`` the example-based accuracy); the
#: conventions for empty label sets are ours (docs/methods/metrics.md). scikit-learn's
#: ``average_precision`` (per-label precision-recall area) is a different quantity from
#: ours (label-ranking average precision) and is deliberately not an alias.
METRIC_ALIASES: dict[str, str] = {
    "f1_micro": "micro_f1",
    "f1_macro": "macro_f1",
    "accuracy": "subset_accuracy",
    "accuracy_score": "subset_accuracy",
    "jaccard_samples": "multilabel_accuracy",
    "label_ranking_loss": "ranking_loss",
    "label_ranking_average_precision_score": "average_precision",
}


def metric_name(name: str) -> str:
    """Our registered name of a metric given by any accepted spelling.

    ``"f1_micro"`` (scikit-learn's scorer name) → ``"micro_f1"``; a registered name is
    returned as it is; case is ignored.

    Raises
    ------
    KeyError
        If ``name`` is neither registered nor an alias; the message suggests the closest
        name and lists the valid ones.
    """
    if isinstance(name, str):
        key = name.strip().lower()
        if key in METRICS:
            return key
        if key in METRIC_ALIASES:
            return METRIC_ALIASES[key]

    close = difflib.get_close_matches(
        str(name).lower(), sorted(METRICS) + sorted(METRIC_ALIASES), n=1
    ) if isinstance(name, str) else []
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise KeyError(
        f"unknown metric {name!r}{hint}; available: {', '.join(sorted(METRICS))} (also "
        f"scikit-learn's names: {', '.join(sorted(METRIC_ALIASES))})."
    )


def get_metric(name: str) -> MetricSpec:
    """Return the :class:`MetricSpec` registered under ``name`` (or an alias of it,
    :data:`METRIC_ALIASES`).

    Raises
    ------
    KeyError
        If ``name`` is not a registered metric; the message lists the valid names.
    """
    return METRICS[metric_name(name)]
