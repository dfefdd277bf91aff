"""Short names of selectors, learners and discretizers used in experiment files.

Each registry is a plain dict ``name -> "module:Attribute"``; adding a method to the
benchmark is one line here. Targets are strings so that importing this module imports no
method. Anything not registered can be named by its full ``"module:Class"`` path in an
experiment file.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

__all__ = [
    "DISCRETIZERS",
    "LEARNERS",
    "SELECTORS",
    "AllFeatures",
    "resolve",
]

SELECTORS: dict[str, str] = {
    "all": "skmlfs.experiments._registry:AllFeatures",
    "scls": "skmlfs.selection:SCLS",
    "ami": "skmlfs.selection:AMI",
    "mdmr": "skmlfs.selection:MDMR",
    "gics": "skmlfs.selection:GICS",
    "mlcfs": "skmlfs.selection:MLCFS",
    "lrfs": "skmlfs.selection:LRFS",
    "ppt_mi": "skmlfs.selection:PPTMI",
    "ppt_chi": "skmlfs.selection:PPTCHI",
    "ppt_relieff": "skmlfs.selection:PPTReliefF",
    "relieff_ml": "skmlfs.selection:ReliefFML",
    "rlefs": "skmlfs.selection:RLEFS",
    "mifs": "skmlfs.selection:MIFS",
    "ralmfs": "skmlfs.selection:RALMFS",
    "memetic": "skmlfs.selection:MemeticSelector",
    "ga": "skmlfs.selection:GeneticSelector",
    "mlfs": "skmlfs.selection:MLFS",
    "mlmim": "skmlfs.selection:MLMIM",
    "mljmi": "skmlfs.selection:MLJMI",
    "mlmrmr": "skmlfs.selection:MLMRMR",
    "llsf": "skmlfs.selection:LLSF",
    # relevance-only ranking (the SCLS paper's AMI column hypothesis, issue #14)
    "mi_rank": "skmlfs.selection:MIRank",
    "ami_relevance": "skmlfs.selection:MIRank",
}

LEARNERS: dict[str, str] = {
    "mlnb": "skmlfs.learners:MLNB",
    "br": "skmlfs.learners:BinaryRelevance",
    "cc": "skmlfs.learners:ClassifierChain",
    "bcc": "skmlfs.learners:BayesianClassifierChain",
    "kcc": "skmlfs.learners:KDependentChain",
    "pcc": "skmlfs.learners:ProbabilisticClassifierChain",
    "occ": "skmlfs.learners:OCC",
    "ensemble_chains": "skmlfs.learners:EnsembleOfChains",
    "llsf_br": "skmlfs.learners:LLSFClassifier",
    "mddm_br": "skmlfs.learners:MDDMClassifier",
    # lazy learners and method chains (issue #14)
    "mlknn": "skmlfs.learners:MLkNN",
    "dmlknn": "skmlfs.learners:DMLkNN",
    "mlcwknn": "skmlfs.learners:MLCWkNN",
    "weighted": "skmlfs.experiments._methods:WeightedLearner",
    "pipeline": "sklearn.pipeline:Pipeline",
}

DISCRETIZERS: dict[str, str] = {
    "laim": "skmlfs.discretize:LAIMDiscretizer",
    "equal_width": "skmlfs.discretize:EqualWidthDiscretizer",
    "equal_frequency": "skmlfs.discretize:EqualFrequencyDiscretizer",
    "mean_std": "skmlfs.discretize:MeanStdDiscretizer",
}

_KINDS = {"selector": SELECTORS, "learner": LEARNERS, "discretizer": DISCRETIZERS}


def resolve(kind: str, name: str) -> Any:
    """Return the class registered as ``name`` for ``kind``, or import ``"module:Class"``.

    Parameters
    ----------
    kind : {"selector", "learner", "discretizer"}
    name : str
        A registered short name (case-insensitive) or a ``"package.module:Class"`` path.

    Raises
    ------
    ValueError
        If the name is neither registered nor an importable ``module:Class`` path; the
        message lists the registered names.
    """
    registry = _KINDS[kind]
    if not isinstance(name, str) or not name:
        raise ValueError(f"a {kind} must be named by a string; got {name!r}.")
    target = registry.get(name.lower())
    if target is None:
        if ":" not in name:
            raise ValueError(
                f"unknown {kind} {name!r}; registered: {', '.join(sorted(registry))} "
                "(or give a 'package.module:Class' path)."
            )
        target = name
    module, _, attr = target.partition(":")
    try:
        obj = importlib.import_module(module)
    except ImportError as exc:
        raise ValueError(f"{kind} {name!r}: cannot import module {module!r} ({exc}).") from exc
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise ValueError(f"{kind} {name!r}: module {module!r} has no {attr!r}.") from None
    return obj


class AllFeatures(SelectorMixin, BaseEstimator):
    """Baseline pseudo-selector: keeps every feature, in their original order.

    The runner evaluates it once per split with ``k = n_features`` (the budget grid does
    not apply), giving the reference performance of the learner without selection.
    """

    #: marks the baseline for the runner (one cell per split and learner, k = all)
    selects_all_features = True

    def __init__(self, n_features_to_select: Any = None):
        self.n_features_to_select = n_features_to_select

    def fit(self, X: Any, Y: Any = None) -> AllFeatures:
        X = validate_data(self, X, accept_sparse=["csr", "csc"], ensure_all_finite=False)
        self.ranking_ = np.arange(X.shape[1], dtype=np.intp)
        self.scores_ = np.zeros(X.shape[1])
        return self

    def _get_support_mask(self) -> np.ndarray:
        check_is_fitted(self, "ranking_")
        return np.ones(self.n_features_in_, dtype=bool)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags
