"""Utilities for users and developers of multi-label estimators."""

from skmlfs.utils.estimator_checks import (
    check_multilabel_estimator,
    multilabel_checks,
    parametrize_with_multilabel_checks,
)

__all__ = [
    "check_multilabel_estimator",
    "multilabel_checks",
    "parametrize_with_multilabel_checks",
]
