"""Multi-label feature selectors (scikit-learn ``SelectorMixin`` estimators)."""

from ._info_filters import AMI, GICS, MDMR, SCLS, gics_select

__all__ = ["AMI", "GICS", "MDMR", "SCLS", "gics_select"]
