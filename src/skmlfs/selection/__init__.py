"""Multi-label feature selectors (scikit-learn ``SelectorMixin`` estimators)."""

from ._info_filters import AMI, GICS, MDMR, SCLS, gics_select
from ._sparse_learning import MIFS, RALMFS, RLEFS

__all__ = ["MIFS", "RALMFS", "RLEFS", "AMI", "GICS", "MDMR", "SCLS", "gics_select"]
