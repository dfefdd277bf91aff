"""Parameters declared as scikit-learn ``_parameter_constraints`` (issue #15, point 2).

The learners (except MLNB) and the discretizers declare every constructor parameter once;
scikit-learn checks them when ``fit`` starts (``sklearn.base._fit_context``). Its own
``check_param_validation`` — not among the checks it runs on third-party estimators —
verifies here that the table names exactly the parameters of ``__init__`` and that a value
of a wrong type or outside its range is refused with the message naming the parameter,
before any data is looked at.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.utils.estimator_checks import check_param_validation

from skmlfs.discretize import (
    EqualFrequencyDiscretizer,
    EqualWidthDiscretizer,
    LAIMDiscretizer,
    MeanStdDiscretizer,
)
from skmlfs.learners import (
    OCC,
    BayesianClassifierChain,
    BinaryRelevance,
    ClassifierChain,
    DMLkNN,
    EnsembleOfChains,
    KDependentChain,
    LLSFClassifier,
    MDDMClassifier,
    MLCWkNN,
    MLkNN,
    ProbabilisticClassifierChain,
)
from skmlfs.selection import BMFS, MCLS, MDFS, MFSMCDM, MGFS, SCMFS

ESTIMATORS = [
    BinaryRelevance(), ClassifierChain(), BayesianClassifierChain(), KDependentChain(),
    OCC(), ProbabilisticClassifierChain(), EnsembleOfChains(), LLSFClassifier(),
    MDDMClassifier(), MLkNN(), DMLkNN(), MLCWkNN(), EqualWidthDiscretizer(),
    EqualFrequencyDiscretizer(), MeanStdDiscretizer(), LAIMDiscretizer(),
    BMFS(), MGFS(), MFSMCDM(), MCLS(), MDFS(), SCMFS(),
]


@pytest.mark.parametrize("est", ESTIMATORS, ids=lambda e: type(e).__name__)
def test_scikit_learn_param_validation(est):
    check_param_validation(type(est).__name__, est)


@pytest.mark.parametrize("est, param, bad", [
    (MLkNN(), "k", 0), (MLkNN(), "s", -1.0), (MLkNN(), "metric", "cosine"),
    (DMLkNN(), "delta", -1), (MLCWkNN(), "reg", -0.1), (MLCWkNN(), "threshold", 1.5),
    (KDependentChain(), "k", 1.5), (OCC(), "M", 0), (OCC(), "order", "best"),
    (OCC(), "feature_selection", "both"), (OCC(), "order_projection", "lda"),
    (EnsembleOfChains(), "chain", "xcc"), (EnsembleOfChains(), "n_estimators", 0),
    (ProbabilisticClassifierChain(), "inference", "mcmc"),
    (BayesianClassifierChain(), "root", -1),
])
def test_invalid_values_are_refused_before_the_data_is_read(est, param, bad):
    # X is not even an array: the parameter is reported first, by name
    est.set_params(**{param: bad})
    with pytest.raises(ValueError, match=f"'{param}' parameter of {type(est).__name__}"):
        est.fit("not data", None)


def test_valid_edge_values_still_fit():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 4))
    Y = (X[:, :3] > 0).astype(int)
    assert KDependentChain(k=0).fit(X, Y).k_ == 0  # k = 0 gives BR
    assert KDependentChain(k=None).fit(X, Y).k_ == 3  # None: every earlier label
    assert OCC(M=1.0).fit(X, Y).M_ == 4
    assert MLCWkNN(k=3, reg=0).fit(X, Y).k_ == 3
    assert DMLkNN(k=3, delta=0, s=0).fit(X, Y).k_ == 3


@pytest.mark.parametrize("cls_name", ["SCLS", "MLMIM", "BMFS", "ReliefFML", "RandomSelection"])
def test_budget_strings_are_checked_by_the_constraints(cls_name):
    """n_features_to_select takes one budget string ("10%", "sqrt", "20"), resolved in fit;
    a grid ("1%..20%") or an unreadable string is refused by the constraint when fit
    starts, before the data is read."""
    from skmlfs import selection

    cls = getattr(selection, cls_name)
    for bad in ("1%..20%", "5..10", "ten", "0%", "150%"):
        with pytest.raises(ValueError, match=f"'n_features_to_select' parameter of {cls_name}"):
            cls(n_features_to_select=bad).fit("not data", None)
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, size=(40, 20)).astype(float)
    Y = (rng.random((40, 3)) < 0.4).astype(int)
    for budget, k in (("10%", 2), ("sqrt", 7), ("20", 20), ("0.25", 5)):
        sel = cls(n_features_to_select=budget).fit(X, Y)
        assert sel.n_features_to_select_ == k and sel.get_support().sum() == k
