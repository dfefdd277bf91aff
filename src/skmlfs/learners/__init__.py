"""Multi-label learners: predict -> dense (n, q) int, predict_proba -> dense (n, q) P(label=1).

Every learner sets ``classes_`` (scikit-learn scorers work) and warns
(``NoPositivePredictionWarning``) when it predicts no label at all for a batch.
"""

# The HEOM distance and its neighbour search live in skmlfs.neighbors (shared with
# ReliefF-ML); these names stay importable from here for compatibility (not in __all__).
from ..neighbors import HEOM as HEOM
from ..neighbors import heom_distances as heom_distances
from ..neighbors import heom_kneighbors_graph as heom_kneighbors_graph
from ._base import NoPositivePredictionWarning as NoPositivePredictionWarning
from ._chains import OCC as OCC
from ._chains import BayesianClassifierChain as BayesianClassifierChain
from ._chains import BinaryRelevance as BinaryRelevance
from ._chains import ClassifierChain as ClassifierChain
from ._chains import EnsembleOfChains as EnsembleOfChains
from ._chains import KDependentChain as KDependentChain
from ._chains import LLSFClassifier as LLSFClassifier
from ._chains import MDDMClassifier as MDDMClassifier
from ._chains import ProbabilisticClassifierChain as ProbabilisticClassifierChain
from ._lazy import DMLkNN as DMLkNN
from ._lazy import MLCWkNN as MLCWkNN
from ._lazy import MLkNN as MLkNN
from ._mlnb import MLNB as MLNB

__all__ = [
    "BayesianClassifierChain",
    "BinaryRelevance",
    "ClassifierChain",
    "DMLkNN",
    "EnsembleOfChains",
    "KDependentChain",
    "LLSFClassifier",
    "MDDMClassifier",
    "MLCWkNN",
    "MLNB",
    "MLkNN",
    "NoPositivePredictionWarning",
    "OCC",
    "ProbabilisticClassifierChain",
]
