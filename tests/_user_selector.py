"""The source of a user's own selector module, written to a temporary folder by the tests
of ``--add-selector`` (a selector outside the library, as a researcher would add one)."""

USER_MODULE = '''
import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin


class LowestVariance(SelectorMixin, BaseEstimator):
    """A deliberately poor selector: the features of lowest variance."""

    def __init__(self, n_features_to_select=2):
        self.n_features_to_select = n_features_to_select

    def fit(self, X, Y=None):
        X = np.asarray(X, dtype=float)
        self.n_features_in_ = X.shape[1]
        self.scores_ = X.var(axis=0)
        self.selection_order_ = np.argsort(self.scores_, kind="stable")
        return self

    def _get_support_mask(self):
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[self.selection_order_[: self.n_features_to_select]] = True
        return mask
'''
