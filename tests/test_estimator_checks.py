"""The common checks over every estimator of the library.

Each estimator of ``skmlfs.selection``, ``skmlfs.learners`` and ``skmlfs.discretize`` runs
scikit-learn's common checks and the library's own (:mod:`skmlfs.utils.estimator_checks`).
The multi-label estimators (tagged ``multi_output=True``, ``single_output=False``) are fitted
on a 0/1 label matrix in scikit-learn's checks as well, so those checks test them. Checks
that still cannot pass sit in one list, ``EXPECTED_FAILURES``, each with its reason
(``xfail(strict=True)``: a check that starts passing fails the run). Parameters are cheap
ones (small budgets, few iterations, fixed seeds).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from threadpoolctl import threadpool_limits

import skmlfs.discretize
import skmlfs.learners
import skmlfs.selection
from skmlfs._validation import check_labels
from skmlfs.metrics import hamming_loss
from skmlfs.selection import RLEFS, SCLS
from skmlfs.utils.estimator_checks import (
    check_name,
    multilabel_checks,
    parametrize_with_multilabel_checks,
)

#: constructor arguments without a default (the wrappers' classifier, as for scikit-learn's
#: SequentialFeatureSelector)
REQUIRED: dict[str, dict] = {
    "GeneticSelector": {"learner": skmlfs.learners.MLNB()},
    "MemeticSelector": {"learner": skmlfs.learners.MLNB()},
}

#: Cheap parameters per estimator (on top of n_features_to_select=2 and random_state=0
#: wherever the estimator has them).
CHEAP: dict[str, dict] = {
    "GeneticSelector": {"population_size": 6, "max_evaluations": 20, "n_crossovers": 2},
    "MemeticSelector": {"population_size": 6, "max_evaluations": 20, "n_crossovers": 2},
    "EnsembleOfChains": {"n_estimators": 3},
    "ReliefFML": {"k": 3},
    "PPTReliefF": {"k": 3, "min_support": 2},
    "PPTCHI": {"min_support": 2},
    "PPTMI": {"min_support": 2},
    "MLkNN": {"k": 3},
    "DMLkNN": {"k": 3},
    "MLCWkNN": {"k": 3},
    "MIFS": {"max_iter": 50},
    "RLEFS": {"max_iter": 50},
    "MDFS": {"max_iter": 20, "n_neighbors": 5},
    "SCMFS": {"max_iter": 50},
    "SLOFS": {"max_iter": 5, "n_neighbors": 3},
    "MSSL": {"max_iter": 10, "n_neighbors": 3},
    "SSFS": {"max_iter": 20, "n_neighbors": 3},
}


def _public(module) -> list[str]:
    return list(getattr(module, "__all__", [n for n in dir(module) if not n.startswith("_")]))


def _estimators() -> list[BaseEstimator]:
    out = []
    for module in (skmlfs.selection, skmlfs.learners, skmlfs.discretize):
        for name in sorted(_public(module)):
            obj = getattr(module, name)
            if isinstance(obj, type) and issubclass(obj, BaseEstimator):
                est = obj(**REQUIRED.get(name, {}))
                params = est.get_params(deep=False)
                if "n_features_to_select" in params:
                    est.set_params(n_features_to_select=2)
                if "random_state" in params:
                    est.set_params(random_state=0)
                est.set_params(**CHEAP.get(name, {}))
                out.append(est)
    return out


ESTIMATORS = _estimators()

# --------------------------------------------------------------------------- expected failures
VOTES = (
    "EnsembleOfChains.predict_proba is the fraction of members voting 1 (0 and 1 occur), "
    "not a probability strictly inside (0, 1)"
)
CONVEX = (
    "MLC-WkNN's confidence is a convex combination of its neighbours' 0/1 labels: exactly "
    "0 or 1 where they agree, while scikit-learn wants values strictly inside (0, 1)"
)

#: The one list of checks that fail: (reason, checks, estimators).
EXPECTED_FAILURES: list[tuple[str, frozenset[str], frozenset[str]]] = [
    (VOTES, frozenset({"check_classifiers_multilabel_output_format_predict_proba"}),
     frozenset({"EnsembleOfChains"})),
    (CONVEX, frozenset({"check_classifiers_multilabel_output_format_predict_proba"}),
     frozenset({"MLCWkNN"})),
]


def _expected_failures() -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for reason, checks, names in EXPECTED_FAILURES:
        for name in names:
            for check in checks:
                out.setdefault(name, {})[check] = reason
    return out


EXPECTED_FAILED_CHECKS = _expected_failures()


def _expected(estimator: BaseEstimator) -> dict[str, str]:
    return EXPECTED_FAILED_CHECKS.get(type(estimator).__name__, {})


@pytest.mark.slow
@parametrize_with_multilabel_checks(ESTIMATORS, expected_failed_checks=_expected)
def test_estimator(estimator, check):
    # the data are tiny: BLAS threads only add start-up and contention (MCLS's L-BFGS-B
    # fallback takes seconds instead of 0.3 s on a loaded two-core machine)
    with warnings.catch_warnings(), threadpool_limits(limits=1):
        warnings.simplefilter("ignore")
        check(estimator)


def test_every_exported_estimator_is_checked_and_every_expected_failure_is_real():
    names = {type(e).__name__ for e in ESTIMATORS}
    for module in (skmlfs.selection, skmlfs.learners, skmlfs.discretize):
        for name in _public(module):
            obj = getattr(module, name)
            if isinstance(obj, type) and issubclass(obj, BaseEstimator):
                assert name in names
    for reason, checks, estimators in EXPECTED_FAILURES:
        assert reason.strip() and checks and estimators <= names, (reason, estimators - names)
        for est in ESTIMATORS:
            if type(est).__name__ in estimators:
                run = {check_name(c) for c in multilabel_checks(est)}
                assert checks <= run, (type(est).__name__, checks - run)


# --------------------------------------------------------------------------- edge warnings
# The API edge warns (UserWarning naming the numbers) when an explicit k is capped at the
# number of features and when a training label column has no positive example. The
# scikit-learn checks above run with warnings ignored, so these expected warnings never
# turn into failures there; here they are asserted.


def _edge_data():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, size=(30, 5))
    Y = (rng.random((30, 3)) < 0.5).astype(int)
    return X, Y


@pytest.mark.parametrize("cls", [SCLS, RLEFS])
def test_k_above_the_number_of_features_is_capped_with_a_warning(cls):
    X, Y = _edge_data()
    with pytest.warns(UserWarning, match=r"n_features_to_select=9 is larger than the number "
                      r"of features \(5\); all 5 features are ranked"):
        sel = cls(n_features_to_select=9).fit(X, Y)
    assert sel.n_features_to_select_ == 5 and sorted(sel.selection_order_[:5]) == [0, 1, 2, 3, 4]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cls(n_features_to_select=5).fit(X, Y)  # k == number of features: no warning
        cls(n_features_to_select=1.0).fit(X, Y)  # a fraction never exceeds it


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("cls", [SCLS, RLEFS])
def test_label_without_positive_example_warns_in_fit(cls, sparse):
    X, Y = _edge_data()
    Y[:, [0, 2]] = 0
    Yf = sp.csr_matrix(Y) if sparse else Y
    with pytest.warns(UserWarning, match=r"2 of the 3 label columns of Y have no positive "
                      r"example in the 30 training patterns \(columns 0, 2\)"):
        cls(n_features_to_select=2).fit(X, Yf)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cls(n_features_to_select=2).fit(X, _edge_data()[1])
        # validation of test labels / predictions does not warn (a label may be absent)
        check_labels(Y)
        hamming_loss(Y, Y)
