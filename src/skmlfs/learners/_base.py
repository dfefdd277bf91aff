"""What every multi-label learner of :mod:`skmlfs.learners` shares after ``fit``.

* ``classes_``: scikit-learn's scorers (``cross_val_score(..., scoring="f1_micro")``,
  ``make_scorer``, ``GridSearchCV(scoring=...)``) read ``estimator.classes_`` of every
  classifier to decide how to interpret its outputs (``sklearn.utils._response``); for a
  multi-label classifier it is, as for scikit-learn's ``MultiOutputClassifier`` and
  ``ClassifierChain``, the list of the classes seen per label. Without it every score is
  ``nan``.
* The estimator tags of a multi-label learner: ``fit`` needs a 0/1 label matrix ``Y``
  (multi-output, never single-output, multi-label), and sparse ``X`` is accepted.
* A warning when a fitted learner predicts no positive label at all for a batch of
  samples although its training samples had labels: an all-negative prediction is
  usually a symptom (e.g. numeric features given to a learner that treats values as
  categories) and must never pass silently.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import scipy.sparse as sp

__all__ = ["MultiLabelLearnerMixin", "NoPositivePredictionWarning"]

#: An all-negative prediction warns once the training label cardinality says at least
#: this many positive labels were to be expected in the batch (n_samples · cardinality),
#: and the batch has at least this many samples — a handful of rows without any label is
#: normal, tens of them in a row from a learner trained on labelled data is not.
MIN_EXPECTED_POSITIVES = 10


class NoPositivePredictionWarning(UserWarning):
    """A fitted learner predicted no positive label for any sample of a batch."""


class MultiLabelLearnerMixin:
    """Fitted label metadata, the multi-label tags and the all-negative prediction check
    (see module notes).

    Subclasses call :meth:`_fit_label_info` in ``fit`` with the validated 0/1 label
    matrix and pass their 0/1 predictions through :meth:`_check_predictions` in
    ``predict``.
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = False
        tags.classifier_tags.multi_label = True
        tags.input_tags.sparse = True
        return tags

    def _fit_label_info(self, Y: Any) -> None:
        """Set ``classes_`` (per label, the classes seen in training) from 0/1 labels."""
        Y = Y.toarray() if sp.issparse(Y) else np.asarray(Y)
        n = Y.shape[0]
        pos = np.count_nonzero(Y, axis=0)
        both, zero = np.array([0, 1]), np.array([0])
        self.classes_ = [
            both if 0 < p < n else (zero if p == 0 else np.array([1])) for p in pos
        ]
        # mean number of labels per training sample (private: used by the check below)
        self._label_cardinality = float(pos.sum()) / max(n, 1)

    def _check_predictions(self, pred: np.ndarray) -> np.ndarray:
        """Warn (:class:`NoPositivePredictionWarning`) on a suspicious all-zero ``pred``.

        Warns when no sample of the batch gets any label although at least
        ``MIN_EXPECTED_POSITIVES`` positives were expected from the training label
        cardinality, on a batch of at least that many samples. Returns ``pred``.
        """
        card = getattr(self, "_label_cardinality", 0.0)
        n = pred.shape[0]
        if (
            card > 0
            and n >= MIN_EXPECTED_POSITIVES
            and n * card >= MIN_EXPECTED_POSITIVES
            and not pred.any()
        ):
            warnings.warn(
                f"{type(self).__name__} predicted no label at all for the {n} samples, "
                f"although its training samples have {card:.2f} labels on average "
                f"(about {n * card:.0f} expected here). Check the features: e.g. numeric "
                "features given to a learner that needs discrete ones (MLNB: "
                "discretizer='auto'), or features unrelated to the labels.",
                NoPositivePredictionWarning,
                stacklevel=3,
            )
        return pred
