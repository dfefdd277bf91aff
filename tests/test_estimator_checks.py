"""scikit-learn's common estimator checks over every estimator of the library.

scikit-learn's generic checks drive estimators with *single-output or multi-class*
targets (1-D ``y`` or 2-D ``y`` with values 0..2). Multi-label estimators here need a 0/1
label matrix ``Y`` of shape ``(n_samples, n_labels)`` and reject anything else with a
clear error, so every check that fits on such a target fails for that reason. Those checks
stay here for what they can test (every check not listed must pass; an unexpected pass is
reported as XPASS); the failures sit in one list, ``EXPECTED_FAILURES``, grouped by reason,
and the property each failing check is about is tested with a real label matrix by
``tests/test_multilabel_checks.py`` (``REPLACED_BY``). CONTRIBUTING.md describes the groups.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.utils.estimator_checks import parametrize_with_checks

import skmlfs.discretize
import skmlfs.learners
import skmlfs.selection
from skmlfs._validation import check_labels
from skmlfs.metrics import hamming_loss
from skmlfs.selection import RLEFS, SCLS

# --------------------------------------------------------------------------- expected failures
# scikit-learn's generic checks fit on a 1-D single-output ``y`` or a multi-class ``y``
# (values 0..2). Multi-label estimators need a 0/1 label matrix ``Y``: those that need it
# 2-D reject a 1-D ``y``; the information-theoretic filters read a 1-D ``y`` as one label
# column but, like every multi-label estimator, reject label values other than 0/1. Each
# property such a check would test is tested with a real label matrix by the check of
# ``skmlfs.utils.estimator_checks`` named in REPLACED_BY (tests/test_multilabel_checks.py).

LEARNERS = frozenset({
    "BayesianClassifierChain", "BinaryRelevance", "ClassifierChain", "DMLkNN",
    "EnsembleOfChains", "KDependentChain", "LLSFClassifier", "MDDMClassifier", "MLCWkNN",
    "MLNB", "MLkNN", "OCC", "ProbabilisticClassifierChain",
})
#: filters that read a 1-D y as one label column (they fail on multi-class values only)
ONE_D_OK = frozenset({
    "AMI", "D2F", "FIMF", "GICS", "LRFS", "MDMR", "MIRank", "PMU", "QPFS", "SCLS",
})
#: transformers that need a 2-D label matrix Y
TRANSFORMERS_2D = frozenset({
    "BMFS", "MCLS", "MFSMCDM", "MGFS",
    "GeneticSelector", "LAIMDiscretizer", "LLSF", "MDDM", "MIFS", "MLCFS", "MemeticSelector",
    "PPTCHI", "PPTMI", "PPTReliefF", "RALMFS", "RLEFS", "ReliefFML",
})
TRANSFORMERS_2D |= {"RandomSelection"}
TRANSFORMERS_2D |= {"AntTD", "MLACO"}
LAZY = frozenset({"DMLkNN", "MLCWkNN", "MLkNN"})
#: scikit-learn skips its determinism checks for these (tag non_deterministic)
RANDOM_SEARCH = frozenset({"GeneticSelector", "MemeticSelector"})
#: NaN is a missing value for these (tag allow_nan): scikit-learn skips its NaN check
ALLOW_NAN = frozenset({"PPTReliefF", "ReliefFML"}) | LAZY
MULTILABEL = LEARNERS | ONE_D_OK | TRANSFORMERS_2D
# The learners are tagged multi-output and not single-output (MultiLabelLearnerMixin), so
# scikit-learn's checks fit them on a 2-D y (n, 1); only these transformers see a 1-D y.
NEED_2D = TRANSFORMERS_2D

Y_MULTICLASS = "fits on a multi-class y (values 0..2); labels must be 0/1"
Y_1D = "fits on a 1-D y; this estimator needs a 2-D 0/1 label matrix Y (n_samples, n_labels)"
Y_ANY = "fits on a 1-D or multi-class y; labels must be a 0/1 matrix Y"
SINGLE_OUTPUT = (
    "scikit-learn's classifier checks train on a 1-D (multi-class) y and expect "
    "single-output predictions; multi-label learners predict a dense (n, q) 0/1 matrix"
)
VOTES = (
    "EnsembleOfChains.predict_proba is the fraction of members voting 1 (0 and 1 occur, "
    "and a tie at the threshold predicts 1), not a probability thresholded by predict"
)
CONVEX = (
    "MLC-WkNN's confidence is a convex combination of its neighbours' 0/1 labels: exactly "
    "0 or 1 where they agree, while scikit-learn wants values strictly inside (0, 1)"
)
ONE_SAMPLE = (
    "a lazy learner needs k < n_samples and says so (naming k and n), not in the words "
    "scikit-learn looks for ('one sample')"
)
DTYPE = "discretizers return int32 codes by design, not the input's float dtype"

#: The one list of scikit-learn checks that cannot test an estimator: (reason, checks, estimators)
EXPECTED_FAILURES: list[tuple[str, frozenset[str], frozenset[str]]] = [
    (Y_ANY, frozenset({
        "check_dict_unchanged", "check_dont_overwrite_parameters", "check_dtype_object",
        "check_estimator_sparse_array", "check_estimator_sparse_matrix",
        "check_estimator_sparse_tag", "check_estimators_fit_returns_self",
        "check_estimators_overwrite_params", "check_f_contiguous_array_estimator",
        "check_fit2d_predict1d", "check_fit_score_takes_y", "check_n_features_in_after_fitting",
        "check_positive_only_tag_during_fit", "check_readonly_memmap_input",
    }), MULTILABEL),
    (Y_ANY, frozenset({"check_estimators_dtypes", "check_fit2d_1feature"}),
     MULTILABEL - ONE_D_OK),
    (Y_MULTICLASS, frozenset({
        "check_methods_sample_order_invariance", "check_methods_subset_invariance",
    }), MULTILABEL - RANDOM_SEARCH),
    (Y_1D, frozenset({
        "check_estimators_pickle", "check_fit2d_1sample", "check_fit_check_is_fitted",
        "check_fit_idempotent", "check_n_features_in",
    }), NEED_2D),
    (Y_1D, frozenset({"check_estimators_nan_inf"}), NEED_2D - ALLOW_NAN),
    (Y_1D, frozenset({"check_pipeline_consistency"}), NEED_2D - RANDOM_SEARCH),
    (ONE_SAMPLE, frozenset({"check_fit2d_1sample"}), LAZY),
    (Y_1D, frozenset({
        "check_transformer_data_not_an_array", "check_transformer_general",
        "check_transformer_preserve_dtypes",
    }), TRANSFORMERS_2D),
    (Y_1D, frozenset({"check_transformer_n_iter"}),
     frozenset({"LLSF", "MCLS", "MGFS", "MIFS", "RALMFS", "RLEFS"})),
    (SINGLE_OUTPUT, frozenset({
        "check_classifier_data_not_an_array", "check_classifiers_classes",
        "check_classifiers_one_label", "check_classifiers_regression_target",
        "check_classifiers_train",
    }), LEARNERS),
    # LLSFClassifier has n_iter_, so this check runs (and fits on a 0..2 target)
    (Y_MULTICLASS, frozenset({"check_non_transformer_estimators_n_iter"}),
     frozenset({"LLSFClassifier"})),
    (VOTES, frozenset({
        "check_classifier_multioutput",
        "check_classifiers_multilabel_output_format_predict_proba",
    }), frozenset({"EnsembleOfChains"})),
    (CONVEX, frozenset({"check_classifiers_multilabel_output_format_predict_proba"}),
     frozenset({"MLCWkNN"})),
    (DTYPE, frozenset({"check_transformer_preserve_dtypes"}),
     frozenset({"EqualFrequencyDiscretizer", "EqualWidthDiscretizer"})),
]

#: scikit-learn check -> the multi-label check testing its property with a real Y
#: ("" when the property has no multi-label meaning)
REPLACED_BY = {
    "check_dict_unchanged": "check_inputs_not_mutated",
    "check_dont_overwrite_parameters": "check_clone",
    "check_dtype_object": "check_dtypes",
    "check_estimator_sparse_array": "check_sparse_dense",
    "check_estimator_sparse_matrix": "check_sparse_dense",
    "check_estimator_sparse_tag": "check_sparse_dense",
    "check_estimators_fit_returns_self": "check_fit_returns_self",
    "check_estimators_overwrite_params": "check_get_set_params",
    "check_f_contiguous_array_estimator": "check_feature_names_in",
    "check_fit2d_predict1d": "check_n_features_in",
    "check_fit_score_takes_y": "",
    "check_n_features_in_after_fitting": "check_n_features_in",
    "check_positive_only_tag_during_fit": "",
    "check_readonly_memmap_input": "check_readonly_memmap",
    "check_estimators_dtypes": "check_dtypes",
    "check_fit2d_1feature": "",
    "check_methods_sample_order_invariance": "check_sample_order_invariance",
    "check_methods_subset_invariance": "check_sample_order_invariance",
    "check_estimators_pickle": "check_pickle",
    "check_fit2d_1sample": "",
    "check_fit_check_is_fitted": "check_unfitted_raises",
    "check_fit_idempotent": "check_fit_idempotent",
    "check_n_features_in": "check_n_features_in",
    "check_estimators_nan_inf": "check_nan_inf_rejected",
    "check_pipeline_consistency": "check_fit_idempotent",
    "check_transformer_data_not_an_array": "check_feature_names_in",
    "check_transformer_general": "check_selector_support",
    "check_transformer_preserve_dtypes": "",
    "check_transformer_n_iter": "",
    "check_classifier_data_not_an_array": "check_feature_names_in",
    "check_classifiers_classes": "check_learner_outputs",
    "check_classifiers_one_label": "",
    "check_classifiers_regression_target": "check_nan_inf_rejected",
    "check_classifiers_train": "check_learner_outputs",
    "check_non_transformer_estimators_n_iter": "",
    "check_classifier_multioutput": "check_learner_outputs",
    "check_classifiers_multilabel_output_format_predict_proba": "check_learner_outputs",
}


def _reason(reason: str, check: str) -> str:
    if reason in (Y_ANY, Y_1D, Y_MULTICLASS):
        reason = f"scikit-learn's check {reason}"
    if REPLACED_BY.get(check):
        reason += f"; tested with a label matrix by {REPLACED_BY[check]}"
    return reason


def _expected_failures() -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for reason, checks, names in EXPECTED_FAILURES:
        for name in names:
            for check in checks:
                out.setdefault(name, {})[check] = _reason(reason, check)
    return out


EXPECTED_FAILED_CHECKS = _expected_failures()


#: constructor arguments without a default (the wrappers' classifier, as for scikit-learn's
#: SequentialFeatureSelector)
REQUIRED: dict[str, dict] = {
    "GeneticSelector": {"learner": skmlfs.learners.MLNB()},
    "MemeticSelector": {"learner": skmlfs.learners.MLNB()},
}


def _estimators() -> list[BaseEstimator]:
    out = []
    for module in (skmlfs.selection, skmlfs.learners, skmlfs.discretize):
        for name in sorted(dir(module)):
            obj = getattr(module, name)
            if isinstance(obj, type) and issubclass(obj, BaseEstimator):
                est = obj(**REQUIRED.get(name, {}))
                if "n_features_to_select" in est.get_params():
                    est.set_params(n_features_to_select=2)
                out.append(est)
    return out


def _expected(estimator: BaseEstimator) -> dict[str, str]:
    return EXPECTED_FAILED_CHECKS.get(type(estimator).__name__, {})


@parametrize_with_checks(_estimators(), expected_failed_checks=_expected)
def test_sklearn_compatible_estimator(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(estimator)


def test_every_expected_failure_has_a_reason_and_a_replacement():
    from skmlfs.utils.estimator_checks import multilabel_checks

    ours = {c.func.__name__ for e in _estimators() for c in multilabel_checks(e)}
    names = {type(e).__name__ for e in _estimators()}
    for reason, checks, estimators in EXPECTED_FAILURES:
        assert reason.strip() and checks and estimators <= names, (reason, estimators - names)
        for check in checks:
            assert check in REPLACED_BY, check
            assert REPLACED_BY[check] in ours | {""}, REPLACED_BY[check]


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
