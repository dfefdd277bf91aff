"""Tests of the checks of :mod:`skmlfs.utils.estimator_checks` themselves.

The checks run over every estimator of the library in ``tests/test_estimator_checks.py``
(scikit-learn's common checks fitted on a 0/1 label matrix, then the library's own, with
the one list of expected failures). Here: the label matrix built from a check's target, and
a correct toy selector passing every check while broken variants are each rejected.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from skmlfs._validation import check_labels
from skmlfs.selection import ranking_from_order
from skmlfs.utils import estimator_checks as ec
from skmlfs.utils.estimator_checks import (
    as_label_matrix,
    check_multilabel_estimator,
    check_name,
    multilabel_checks,
    needs_label_matrix,
)


def test_a_check_target_becomes_a_label_matrix():
    multiclass = np.array([0, 2, 1, 2, 0])
    np.testing.assert_array_equal(
        as_label_matrix(multiclass), np.eye(3, dtype=int)[multiclass]
    )
    # binary, strings, a column vector: one-hot with at least two labels
    np.testing.assert_array_equal(as_label_matrix([1, 2, 2]), [[1, 0], [0, 1], [0, 1]])
    np.testing.assert_array_equal(as_label_matrix(np.array(["b", "a"])), [[0, 1], [1, 0]])
    np.testing.assert_array_equal(as_label_matrix([[1], [0]]), [[0, 1], [1, 0]])
    np.testing.assert_array_equal(as_label_matrix(np.ones(3)), [[1, 0]] * 3)
    # continuous: terciles, each row one label
    Y = as_label_matrix(np.linspace(0.0, 1.0, 30))
    assert Y.shape == (30, 3) and (Y.sum(axis=1) == 1).all() and (Y.sum(axis=0) == 10).all()
    # a label matrix stays; NaN/inf stay, for the checks that expect them rejected
    L = np.array([[0, 1], [1, 1]])
    assert as_label_matrix(L) is L
    assert np.isnan(as_label_matrix(np.full(4, np.nan))).all()
    assert np.isinf(as_label_matrix(np.full(4, np.inf))).all()
    assert as_label_matrix(np.array([])).shape == (0, 2)


# --------------------------------------------------------------------------- the checks catch bugs
# A correct minimal selector, and broken variants each of which one check must reject.


class _TopVariance(SelectorMixin, BaseEstimator):
    """Keep the k features of largest variance (a correct toy selector)."""

    def __init__(self, n_features_to_select=3):
        self.n_features_to_select = n_features_to_select

    def fit(self, X, Y):
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64)
        check_labels(Y, X.shape[0])
        var = np.asarray(X.power(2).mean(0)).ravel() - np.asarray(X.mean(0)).ravel() ** 2 \
            if sp.issparse(X) else X.var(axis=0)
        self._set_order(np.lexsort((np.arange(X.shape[1]), -var)))
        return self

    def _set_order(self, order):
        self.selection_order_ = order
        self.ranking_ = ranking_from_order(order, self.n_features_to_select, order.size)

    def _get_support_mask(self):
        check_is_fitted(self, "selection_order_")
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[self.selection_order_[: self.n_features_to_select]] = True
        return mask

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.target_tags.required = True
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = False
        return tags


class _MutatesX(_TopVariance):
    def fit(self, X, Y):
        super().fit(X, Y)
        if isinstance(X, np.ndarray) and X.flags.writeable:
            X[0, 0] += 1  # the bug
        return self


class _RankOrderScores(_TopVariance):
    def fit(self, X, Y):
        super().fit(X, Y)
        self.scores_ = np.arange(self.n_features_to_select, 0, -1.0)  # the bug: per rank
        return self


class _NoNames(_TopVariance):
    def fit(self, X, Y):
        super().fit(np.asarray(X) if hasattr(X, "columns") else X, Y)
        return self


class _StatefulRefit(_TopVariance):
    def fit(self, X, Y):
        super().fit(X, Y)
        if hasattr(self, "_seen"):  # the bug: a second fit differs
            self._set_order(self.selection_order_[::-1].copy())
        self._seen = True
        return self


class _AcceptsNaN(_TopVariance):
    def fit(self, X, Y):
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64,
                          ensure_all_finite=False)
        self._set_order(np.arange(X.shape[1]))
        return self


def test_a_correct_toy_selector_passes_every_check():
    assert needs_label_matrix(_TopVariance())
    names = [check_name(c) for c in multilabel_checks(_TopVariance())]
    # scikit-learn's checks first, then the library's own
    assert "check_estimators_pickle" in names and "check_selector_support" in names
    check_multilabel_estimator(_TopVariance())


class _NoFitCheck(_TopVariance):
    def _get_support_mask(self):  # the bug: no check_is_fitted, an AttributeError instead
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[self.selection_order_[: self.n_features_to_select]] = True
        return mask


@pytest.mark.parametrize(
    "estimator, check, message",
    [
        (_MutatesX(), ec.check_inputs_not_mutated, "modified X"),
        (_RankOrderScores(), ec.check_selector_scores, r"scores_ of shape \(3,\)"),
        (_NoFitCheck(), ec.check_unfitted_raises, "did not raise NotFittedError"),
        (_NoNames(), ec.check_feature_names_in, "no feature_names_in_"),
        (_StatefulRefit(), ec.check_refit_on_other_data, "fitted twice"),
        (_AcceptsNaN(), ec.check_nan_inf_rejected, "fit with nan: no error"),
    ],
)
def test_the_checks_reject_a_broken_selector(estimator, check, message):
    with pytest.raises(AssertionError, match=message):
        check(type(estimator).__name__, estimator)
    with pytest.raises(AssertionError):
        check_multilabel_estimator(estimator)  # the whole run stops at its first failure


def test_expected_failed_checks_are_skipped():
    names = {check_name(c) for c in multilabel_checks(_MutatesX())}
    with pytest.raises(AssertionError, match="modified X"):
        check_multilabel_estimator(_MutatesX(), expected_failed_checks={
            n: "skipped" for n in names - {"check_inputs_not_mutated"}})
    check_multilabel_estimator(_MutatesX(), expected_failed_checks={
        n: "skipped" for n in names})
