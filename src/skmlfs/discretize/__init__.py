"""scikit-learn transformers turning numeric features into discrete codes.

``EqualWidthDiscretizer`` and ``EqualFrequencyDiscretizer`` (generic binning),
``MeanStdDiscretizer`` (oCC's ``myDisc``, ``docs/methods/discretizers.md#meanstd``) and
``LAIMDiscretizer`` (supervised multi-label CAIM used by SCLS and the memetic paper, §5).
All fit on training data only, pass already-discrete columns through unchanged and reject NaN.
"""

from ._laim import LAIMDiscretizer
from ._meanstd import MeanStdDiscretizer
from ._unsupervised import EqualFrequencyDiscretizer, EqualWidthDiscretizer

__all__ = [
    "EqualFrequencyDiscretizer",
    "EqualWidthDiscretizer",
    "LAIMDiscretizer",
    "MeanStdDiscretizer",
]
