"""scikit-learn transformers turning numeric features into discrete codes.

``EqualWidthDiscretizer`` and ``EqualFrequencyDiscretizer`` (generic binning),
``MeanStdDiscretizer`` (oCC's ``myDisc``, ``docs/methods/discretizers.md#meanstd``) and
``LAIMDiscretizer`` (supervised multi-label CAIM used by SCLS and the memetic paper, §5).
All fit on training data only, pass already-discrete columns through unchanged and reject NaN.

``fit_discretizer`` / ``discretize_features`` apply the library's ``discretizer=`` parameter
(``"auto"``: integer-valued data as it is, else LAIM fitted on the training data), the one
rule shared by the selectors and MLNB; ``is_discrete`` is its test.
"""

from ._auto import discretize_features, fit_discretizer, is_discrete
from ._laim import LAIMDiscretizer
from ._meanstd import MeanStdDiscretizer, occ_discretizer
from ._unsupervised import EqualFrequencyDiscretizer, EqualWidthDiscretizer

__all__ = [
    "EqualFrequencyDiscretizer",
    "EqualWidthDiscretizer",
    "LAIMDiscretizer",
    "MeanStdDiscretizer",
    "discretize_features",
    "fit_discretizer",
    "is_discrete",
    "occ_discretizer",
]
