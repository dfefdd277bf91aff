"""The source of a slow selector module that reports its steps, written to a temporary
folder by the tests of the time limit (``time_limit``, ``mlfs benchmark --time-limit``)."""

SLOW_MODULE = '''
import time

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin

from skmlfs._progress import report_step


class Crawl(SelectorMixin, BaseEstimator):
    """A selector that takes ``n_steps × pause`` seconds, reporting each step."""

    def __init__(self, n_features_to_select=2, n_steps=10, pause=0.01):
        self.n_features_to_select = n_features_to_select
        self.n_steps = n_steps
        self.pause = pause

    def fit(self, X, Y=None):
        X = np.asarray(X, dtype=float)
        self.n_features_in_ = X.shape[1]
        report_step(0, self.n_steps, "step")
        for i in range(self.n_steps):
            time.sleep(self.pause)
            report_step(i + 1, self.n_steps, "step")
        self.scores_ = X.var(axis=0)
        self.selection_order_ = np.argsort(-self.scores_, kind="stable")
        return self

    def _get_support_mask(self):
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[self.selection_order_[: self.n_features_to_select]] = True
        return mask
'''
