"""Model selection for multi-label feature selection: splits, searches, scorers and
meta-estimators, usable without the experiment engine.

Public API
----------
IterativeStratifiedKFold  k-fold cross-validation by iterative stratification (Sechidis et al.)
iterative_stratification  the fold of each sample under iterative stratification
Split                     one train/test partition as sorted index arrays
holdout_splits            repeated random holdout splits
kfold_splits              shuffled k-fold splits
iterative_kfold_splits    k-fold splits by iterative stratification
subsample_train           a seeded share of a split's training rows
mat_splits                the train/test splits stored in a PLCFS ``.mat`` file
train_test_split_of       the one split of a data set loaded from separate train and test files
TunedSelector             a selector tuned by inner cross-validation of selector → learner
CoordinateSearchCV        a coordinate search over a parameter grid
search_selector           the memoised inner search of :class:`TunedSelector`
make_inner_cv             a seeded ``KFold`` or :class:`IterativeStratifiedKFold`
metric_scorer             a scikit-learn scorer of a metric of :mod:`skmlfs.metrics`
MeanScorer                the mean of several metric scorers
WeightedLearner           a feature weighter's weights fed into a learner's weighted distance
TrainingSubsample         a learner trained on a seeded share of its training rows

Layer: above :mod:`skmlfs.selection`, :mod:`skmlfs.learners` and :mod:`skmlfs.metrics`,
below :mod:`skmlfs.experiments`, which builds these estimators from experiment files.
"""

from ._search import (
    CoordinateSearchCV,
    MeanScorer,
    TunedSelector,
    WeightedLearner,
    make_inner_cv,
    metric_scorer,
    search_selector,
)
from ._split import (
    Split,
    holdout_splits,
    iterative_kfold_splits,
    kfold_splits,
    mat_splits,
    subsample_train,
    train_test_split_of,
)
from ._stratify import IterativeStratifiedKFold, iterative_stratification
from ._subsample import TrainingSubsample, subsample_size

__all__ = [
    "CoordinateSearchCV",
    "IterativeStratifiedKFold",
    "MeanScorer",
    "Split",
    "TrainingSubsample",
    "TunedSelector",
    "WeightedLearner",
    "holdout_splits",
    "iterative_kfold_splits",
    "iterative_stratification",
    "kfold_splits",
    "make_inner_cv",
    "mat_splits",
    "metric_scorer",
    "search_selector",
    "subsample_size",
    "subsample_train",
    "train_test_split_of",
]
