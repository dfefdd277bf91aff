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


#: Selectors that refuse some data, as a method that cannot run on a large set or fails on
#: some splits: ``Picky`` refuses more than 10 features; ``Flaky`` refuses them only when
#: seeded with 1 (split 0 of a file with ``seed = 1`` and ``estimator_seed = "seed+split"``).
REFUSING_MODULE = '''
import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin


class _TopVariance(SelectorMixin, BaseEstimator):
    def __init__(self, n_features_to_select=2, random_state=None):
        self.n_features_to_select = n_features_to_select
        self.random_state = random_state

    def _refuses(self, X):
        return False

    def fit(self, X, Y=None):
        X = np.asarray(X, dtype=float)
        if self._refuses(X):
            raise ValueError(f"{type(self).__name__}: refused {X.shape[1]} features")
        self.n_features_in_ = X.shape[1]
        self.scores_ = X.var(axis=0)
        return self

    def _get_support_mask(self):
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[np.argsort(-self.scores_, kind="stable")[: self.n_features_to_select]] = True
        return mask


class Picky(_TopVariance):
    def _refuses(self, X):
        return X.shape[1] > 10


class Flaky(_TopVariance):
    def _refuses(self, X):
        return X.shape[1] > 10 and self.random_state == 1
'''
