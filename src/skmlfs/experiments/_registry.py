"""Short names of selectors, learners and discretizers used in experiment files.

Each registry is a plain dict ``name -> "module:Attribute"``; adding a method to the
benchmark is one line here. Targets are strings so that importing this module imports no
method. Anything not registered can be named by its full ``"module:Class"`` path in an
experiment file.
"""

from __future__ import annotations

import difflib
import importlib
import inspect
import re
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from ..selection import SelectorTags, Tags

__all__ = [
    "ABOUT",
    "ALIASES",
    "DISCRETIZERS",
    "LEARNERS",
    "SELECTORS",
    "AllFeatures",
    "canonical_name",
    "default_params",
    "normalize_name",
    "param_names",
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
    "pmu": "skmlfs.selection:PMU",
    "d2f": "skmlfs.selection:D2F",
    # ant-colony filters (issue #26); ant_td is the memetic paper's "MLACO" baseline
    "mlaco": "skmlfs.selection:MLACO",
    "ant_td": "skmlfs.selection:AntTD",
    # relevance-only ranking (the SCLS paper's AMI column hypothesis, issue #14)
    "mi_rank": "skmlfs.selection:MIRank",
    "ami_relevance": "skmlfs.selection:MIRank",
    # reference: a seeded random subset (benchmarks report it beside "all")
    "random": "skmlfs.selection:RandomSelection",
    # graph and decision-making filters (issue #26)
    "bmfs": "skmlfs.selection:BMFS",
    "mgfs": "skmlfs.selection:MGFS",
    "mfs_mcdm": "skmlfs.selection:MFSMCDM",
    "mcls": "skmlfs.selection:MCLS",
    # issue #23: FIMF and multi-label QPFS
    "fimf": "skmlfs.selection:FIMF",
    "qpfs": "skmlfs.selection:QPFS",
    # entropy-based label assignment + chi-squared (the PMU repository's ELA+chi2)
    "ela_chi": "skmlfs.selection:ELACHI",
    # manifold-regularised and coupled-factorisation sparse selectors (issue #26)
    "mdfs": "skmlfs.selection:MDFS",
    "scmfs": "skmlfs.selection:SCMFS",
    # graph-regularised sparse selectors of 2021-2024 (issue #26)
    "slofs": "skmlfs.selection:SLOFS",
    # graph-regularised sparse selectors (issue #26)
    "mssl": "skmlfs.selection:MSSL",
    "ssfs": "skmlfs.selection:SSFS",
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
    "weighted": "skmlfs.model_selection:WeightedLearner",
    "pipeline": "sklearn.pipeline:Pipeline",
    "train_subsample": "skmlfs.model_selection:TrainingSubsample",
}

DISCRETIZERS: dict[str, str] = {
    "laim": "skmlfs.discretize:LAIMDiscretizer",
    "equal_width": "skmlfs.discretize:EqualWidthDiscretizer",
    "equal_frequency": "skmlfs.discretize:EqualFrequencyDiscretizer",
    "mean_std": "skmlfs.discretize:MeanStdDiscretizer",
}

# the registries by kind, as `mlfs methods` and the experiment files name them
REGISTRIES = {"selector": SELECTORS, "learner": LEARNERS, "discretizer": DISCRETIZERS}

# What `mlfs methods` and the docs say about each registered name: a one-line description
# and the paper (short form). One entry per registry entry above (a test checks it), in a
# dict of its own so that adding a method is one line in each.
ABOUT: dict[str, dict[str, tuple[str, str]]] = {
    "selector": {
        "all": ("no selection: every feature (baseline)", "-"),
        "random": ("a seeded random subset of the features (reference)", "-"),
        "scls": ("scalable relevance, redundancy scaled by label relevance",
                 "Lee & Kim 2017"),
        "ami": ("approximated mutual information (relevance - redundancy)",
                "Lee, Lim & Kim 2012"),
        "mdmr": ("max-dependency min-redundancy", "Lin, Hu, Liu & Duan 2015"),
        "mi_rank": ("relevance only: top k by summed label mutual information, no "
                    "redundancy term", "baseline; see the SCLS report's AMI notes"),
        "ami_relevance": ("alias of mi_rank (the reading of the SCLS paper's AMI column)",
                          "baseline; see the SCLS report's AMI notes"),
        "gics": ("generalized information-theoretic criterion (memetic filter)",
                 "Seo, Kim & Lee 2019"),
        "mlcfs": ("multi-label correlation-based feature selection (assumed reading)",
                  "Jungjit et al. 2013"),
        "lrfs": ("label-redundancy feature selection", "Zhang, Liu & Gao 2019"),
        "ppt_mi": ("pruned problem transformation + mutual information",
                   "Doquire & Verleysen 2011"),
        "ppt_chi": ("pruned problem transformation + chi-squared statistic",
                    "Read 2008 (PPT)"),
        "ela_chi": ("entropy-based label assignment (each pattern copied per label, "
                    "weight 1 / its label count) + chi-squared statistic",
                    "Chen et al. 2007 (ELA)"),
        "ppt_relieff": ("pruned problem transformation + classic ReliefF",
                        "Spolaor et al. 2013"),
        "relieff_ml": ("ReliefF weights for multi-label data (Hamming distance of label sets)",
                       "Reyes, Morell & Ventura 2013"),
        "rlefs": ("robust sparse selection with shared label enhancement",
                  "Li, Hu & Gao 2022"),
        "mifs": ("multi-label informed feature selection (sparse, latent labels)",
                 "Jian, Li, Shu & Liu 2016"),
        "ralmfs": ("exact top-k selection via the l2,0 constraint (RALM-FS)",
                   "Cai, Nie & Huang 2013"),
        "memetic": ("memetic wrapper with pruned refinement (MLNB fitness)",
                    "Seo, Park, Lee et al. 2024"),
        "ga": ("plain genetic algorithm, the memetic budget without refinement",
               "Seo et al. 2024 (baseline)"),
        "mlfs": ("oCC's multi-label feature selection, Eq. 42/43", "Sun & Kudo 2018"),
        "mlmim": ("multi-label mutual information maximisation", "Sechidis et al. 2014"),
        "mljmi": ("multi-label joint mutual information", "Sun & Kudo 2018 (Table 1)"),
        "mlmrmr": ("multi-label minimum redundancy maximum relevance",
                   "Sun & Kudo 2018 (Table 1)"),
        "llsf": ("learning label-specific features (sparse regression)",
                 "Huang, Li, Huang & Wu 2015"),
        "bmfs": ("bipartite matching of features to labels on correlation distances "
                 "(Hungarian rounds)", "Hashemi, Dowlatshahi & Nezamabadi-pour 2021"),
        "mgfs": ("PageRank on the feature graph of correlation-distance rows",
                 "Hashemi, Dowlatshahi & Nezamabadi-pour 2020"),
        "mfs_mcdm": ("TOPSIS over ridge coefficients, labels weighted by entropy",
                     "Hashemi, Dowlatshahi & Nezamabadi-pour 2020"),
        "mcls": ("constraint Laplacian score on a label-manifold-constrained sample graph",
                 "Huang, Jiang & Sun 2018"),
        "fimf": ("fast ranking: label relevance minus interaction with top-entropy label "
                 "pairs, on top-entropy candidates", "Lee & Kim 2015"),
        "qpfs": ("quadratic program over feature weights: pairwise feature MI vs summed "
                 "label MI (needs the qp extra)", "Lim, Lee & Kim 2015"),
        "pmu": ("pairwise multi-label utility (3-way interaction information, label pairs)",
                "Lee & Kim 2013"),
        "d2f": ("relevance minus feature-feature-label interaction information",
                "Lee & Kim 2015"),
        "mlaco": ("ant colony, relevance/redundancy heuristics, pheromone ranking",
                  "Paniri, Dowlatshahi & Nezamabadi-pour 2020"),
        "ant_td": ("ant colony with a TD-learned heuristic (the memetic paper's 'MLACO')",
                   "Paniri, Dowlatshahi & Nezamabadi-pour 2021"),
        "mdfs": ("sparse regression onto an embedding smoothed over pattern and label graphs",
                 "Zhang, Luo, Li, Zhou & Li 2019"),
        "scmfs": ("sparse map onto the common factor of coupled non-negative X and Y "
                  "factorisations", "Hu, Li, Gao, Zhang & Hu 2020"),
        "slofs": ("sparse map onto orthogonal latent sub-labels smoothed over a pattern graph",
                  "Shang, Zhong, Zhang, Xu & Li 2024"),
        "mssl": ("centred sparse regression smoothed over a feature-feature graph",
                 "Cai, Zhu et al. 2018"),
        "ssfs": ("sparse feature loadings of a latent space shared by non-negative X and Y "
                 "factorisations, smoothed over a pattern graph", "Gao, Li & Hu 2021"),
    },
    "learner": {
        "mlnb": ("multi-label naive Bayes, one categorical NB per label",
                 "Zhang, Pena & Robles 2009"),
        "br": ("binary relevance: one classifier per label", "-"),
        "cc": ("classifier chain: every earlier label is a parent", "Read et al. 2011"),
        "bcc": ("Bayesian chain classifier: at most one parent per label",
                "Zaragoza et al. 2011"),
        "kcc": ("k-dependence classifier chain", "Sun & Kudo 2018"),
        "pcc": ("probabilistic classifier chain (Bayes-optimal inference)",
                "Dembczynski, Cheng & Hullermeier 2010"),
        "occ": ("optimized classifier chain: kCC + MLFS features per label",
                "Sun & Kudo 2018"),
        "ensemble_chains": ("ensemble of chains (ECC; EBCC, EoCC by parameters)",
                            "Read et al. 2011; Sun & Kudo 2018"),
        "llsf_br": ("binary relevance on LLSF's label-specific features",
                    "Huang, Li, Huang & Wu 2015"),
        "mddm_br": ("binary relevance on the MDDM projection", "Zhang & Zhou 2010"),
        "mlknn": ("multi-label k-nearest neighbours (ML-kNN)", "Zhang & Zhou 2007"),
        "dmlknn": ("dependent multi-label kNN (DML-kNN)", "Younes, Abdallah & Denoeux 2008"),
        "mlcwknn": ("multi-label weighted kNN with adaptive weights (MLC-WkNN)", "Xu 2011"),
        "weighted": ("a learner whose feature weights come from a weighting method "
                     "(e.g. ReliefF-ML into ML-kNN)", "Reyes, Morell & Ventura 2013"),
        "pipeline": ("a scikit-learn Pipeline of steps (discretizer, selector, learner)", "-"),
        "train_subsample": ("a learner trained on a random share of its training rows "
                            "(training-size curves)", "Sun & Kudo 2018, Fig. 7"),
    },
    "discretizer": {
        "laim": ("label-attribute interdependence maximization (supervised)",
                 "Cano, Luna, Gibaja & Ventura 2016"),
        "equal_width": ("equal-width bins", "-"),
        "equal_frequency": ("equal-frequency (quantile) bins", "-"),
        "mean_std": ("states around the mean in steps of the standard deviation",
                     "Sun & Kudo 2018"),
    },
}

# Spellings the normalisation (normalize_name) does not reach on its own: the README's
# and the papers' names of registered methods. Keys are normalized.
ALIASES: dict[str, dict[str, str]] = {
    "selector": {
        "pptchi2": "ppt_chi",
        "elachi2": "ela_chi",
        "elaχ²": "ela_chi",
        "pptχ²": "ppt_chi",
        "pptrf": "ppt_relieff",
        "none": "all",
        "genetic": "ga",
    },
    "learner": {
        "binaryrelevance": "br",
        "classifierchain": "cc",
        "classifierchains": "cc",
        "llsf": "llsf_br",
        "mddm": "mddm_br",
        "ecc": "ensemble_chains",
        "naivebayes": "mlnb",
    },
    "discretizer": {},
}


#: Parameters a registered method has no default for, filled with a fresh instance of a
#: registered method when an experiment file or the command line leaves them out: the
#: wrappers' classifier is the memetic paper's MLNB.
REQUIRED_DEFAULTS: dict[tuple[str, str], dict[str, tuple[str, str]]] = {
    ("selector", "memetic"): {"learner": ("learner", "mlnb")},
    ("selector", "ga"): {"learner": ("learner", "mlnb")},
}


def default_params(kind: str, name: str) -> dict[str, Any]:
    """Fresh defaults of the parameters that the registered method ``name`` requires
    (:data:`REQUIRED_DEFAULTS`), e.g. ``{"learner": MLNB()}`` for ``"memetic"``; ``{}``
    for every other method and for ``"module:Class"`` paths."""
    if kind not in REGISTRIES or not isinstance(name, str) or ":" in name:
        return {}
    table = REQUIRED_DEFAULTS.get((kind, canonical_name(kind, name) or ""), {})
    return {p: resolve(k, m)() for p, (k, m) in table.items()}


def param_names(cls: type) -> set[str]:
    """The constructor parameters of an estimator class, read from its signature (some
    classes, like the memetic wrapper and ``Pipeline``, cannot be built without
    arguments)."""
    return {
        n for n, p in inspect.signature(cls).parameters.items()
        if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    }


def takes_seed(cls: type) -> bool:
    """True when ``cls`` has a ``random_state`` parameter (a stochastic method). Read from
    the signature: some registered classes (``Pipeline``) cannot be built without arguments."""
    return "random_state" in inspect.signature(cls).parameters


def normalize_name(name: str) -> str:
    """The comparison form of a method name: lower case, without ``-``, ``_``, ``+``,
    ``.`` and spaces, so that ``"ReliefF-ML"``, ``"relieff_ml"`` and ``"RELIEFF ML"``
    (and ``"ML-kNN"``, ``"mlknn"``) are one name."""
    return re.sub(r"[\s_+.\-]", "", name).lower()


def canonical_name(kind: str, name: str) -> str | None:
    """The registered name of ``kind`` that ``name`` spells (any case, with or without
    hyphens, underscores or ``+``; or an :data:`ALIASES` spelling), or ``None``."""
    if kind not in REGISTRIES:
        raise ValueError(f"kind must be one of {', '.join(REGISTRIES)}; got {kind!r}.")
    key = normalize_name(name)
    registry = REGISTRIES[kind]
    for registered in registry:
        if normalize_name(registered) == key:
            return registered
    alias = ALIASES.get(kind, {}).get(key)
    return alias if alias in registry else None


def resolve(kind: str, name: str) -> Any:
    """Return the class registered as ``name`` for ``kind``, or import ``"module:Class"``.

    Parameters
    ----------
    kind : {"selector", "learner", "discretizer"}
    name : str
        A registered short name in any spelling :func:`canonical_name` accepts
        (``"relieff-ml"``, ``"ReliefF_ML"``, ``"ML-kNN"``) or a ``"package.module:Class"``
        path.

    Raises
    ------
    ValueError
        If the name is neither registered nor an importable ``module:Class`` path; the
        message lists the registered names.
    """
    registry = REGISTRIES[kind]
    if not isinstance(name, str) or not name:
        raise ValueError(f"a {kind} must be named by a string; got {name!r}.")
    canonical = None if ":" in name else canonical_name(kind, name)
    target = None if canonical is None else registry[canonical]
    if target is None:
        if ":" not in name:
            close = difflib.get_close_matches(
                normalize_name(name), [normalize_name(r) for r in registry], n=1
            )
            hint = ""
            if close:
                hint = next(f" (did you mean {r!r}?)" for r in registry
                            if normalize_name(r) == close[0])
            raise ValueError(
                f"unknown {kind} {name!r}{hint}; registered: {', '.join(sorted(registry))} "
                "(any case, '-' or '_'; `mlfs methods` describes them), or give a "
                "'package.module:Class' path."
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


#: short names of the generic report sections -> "module:Class" (imported only when a
#: report or an experiment file's check needs one: the spec does not import the report)
_R = "skmlfs.experiments.report._sections"
_M = "skmlfs.experiments.report._multipart"
SECTIONS: dict[str, str] = {
    "overview": f"{_R}:Overview",
    "include": f"{_R}:Include",
    "metrics": f"{_R}:MetricTables",
    "paired_tests": f"{_R}:PairedTests",
    "curves": f"{_R}:Curves",
    "search_convergence": f"{_R}:SearchConvergence",
    "stability": f"{_R}:Stability",
    "summary": f"{_R}:Summary",
    "sensitivity": f"{_R}:Sensitivity",
    "objectives": f"{_R}:Objectives",
    "tuning": f"{_R}:Tuning",
    "run_time": f"{_R}:RunTime",
    "memory": f"{_R}:Memory",
    "workers": f"{_R}:Workers",
    "runs": f"{_R}:Runs",
    "failures": f"{_R}:Failures",
    "versions": f"{_R}:Versions",
    "compare": f"{_M}:Compare",
    "table": f"{_M}:Table",
    "curve": f"{_M}:Curve",
    "parts": f"{_M}:Parts",
    "bars": f"{_M}:Bars",
    "grid": "skmlfs.experiments.report._partgrid:PartGrid",
}


def resolve_section(kind: str) -> type:
    """The report section class named ``kind``: a short name of :data:`SECTIONS` or a
    ``"package.module:Class"`` path (a paper's own section), imported now.

    Raises
    ------
    ValueError
        If ``kind`` is neither; the message lists the short names.
    """
    if not isinstance(kind, str) or not kind:
        raise ValueError(f"a report section is named by a string; got {kind!r}.")
    if ":" not in kind:
        if kind not in SECTIONS:
            close = difflib.get_close_matches(kind, list(SECTIONS), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ValueError(
                f"unknown report section {kind!r}{hint}; short names: "
                f"{', '.join(SECTIONS)}, or a 'package.module:Class' path."
            )
        kind = SECTIONS[kind]
    module, _, attr = kind.partition(":")
    try:
        obj = importlib.import_module(module)
    except ImportError as exc:
        raise ValueError(f"report section {kind!r}: cannot import module {module!r} "
                         f"({exc}).") from exc
    for part in attr.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            raise ValueError(f"report section {kind!r}: module {module!r} has no "
                             f"{attr!r}.")
    if not (isinstance(obj, type) and any(
            c.__name__ == "ReportSection" for c in obj.__mro__)):
        raise ValueError(f"report section {kind!r} is not a ReportSection class.")
    return obj


class AllFeatures(SelectorMixin, BaseEstimator):
    """Baseline pseudo-selector: keeps every feature, in their original order.

    The runner evaluates it once per split with ``k = n_features`` (the budget grid does
    not apply), giving the reference performance of the learner without selection.
    ``selection_order_`` is every feature in index order and ``ranking_`` is 1 for every
    feature (all are selected); the selector tag ``selects_all_features`` marks it.
    """

    def __init__(self, n_features_to_select: Any = None):
        self.n_features_to_select = n_features_to_select

    def fit(self, X: Any, Y: Any = None) -> AllFeatures:
        X = validate_data(self, X, accept_sparse=["csr", "csc"], ensure_all_finite=False)
        self.selection_order_ = np.arange(X.shape[1], dtype=np.intp)
        self.ranking_ = np.ones(X.shape[1], dtype=np.intp)  # every feature selected
        self.scores_ = np.zeros(X.shape[1])
        return self

    def _get_support_mask(self) -> np.ndarray:
        check_is_fitted(self, "selection_order_")
        return np.ones(self.n_features_in_, dtype=bool)

    def __sklearn_tags__(self) -> Tags:
        # marks the baseline for the runner (one cell per split and learner, k = all)
        tags = Tags.from_sklearn(super().__sklearn_tags__(), SelectorTags(
            selects_all_features=True,
            scores_meaning=("score", "0 for every feature (no selection)")))
        tags.input_tags.sparse = True
        return tags
