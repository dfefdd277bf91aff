"""Selector tags: what a feature selector's result means, on scikit-learn's tag dataclasses.

scikit-learn describes an estimator by the dataclasses of :mod:`sklearn.utils` (``Tags``,
``InputTags``, ``TargetTags`` ...), set in ``__sklearn_tags__`` and read with
:func:`sklearn.utils.get_tags`. imbalanced-learn adds its ``SamplerTags`` the same way;
:class:`SelectorTags` is the selectors' counterpart. The experiment engine, the CLI and
the selectors' own ``get_support`` read these tags instead of private class flags.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from sklearn.utils import Tags as _SklearnTags
from sklearn.utils import get_tags

__all__ = ["SelectorTags", "Tags", "get_selector_tags"]


@dataclass(slots=True)
class SelectorTags:
    """What a feature selector's fitted ``selection_order_`` and ``scores_`` mean.

    Parameters
    ----------
    nested_budgets : bool, default=True
        Whether the selection for a smaller budget is the first ``k`` features of the
        selection for a larger one (a ranking, or a forward search). Then one fit at the
        largest budget serves every smaller one: ``get_support`` cuts
        ``selection_order_`` after ``set_params(n_features_to_select=k)`` without refit,
        and the experiment engine fits once per split. ``False`` (a subset search such
        as the memetic search or RALM-FS, whose best 5 features need not be among its
        best 10): every budget needs its own fit, and the engine refits the selector
        once per budget.
    orders_all_features : bool, default=False
        Whether ``selection_order_`` orders every feature whatever the budget (a
        weighting or scoring method: ReliefF, the sparse methods, LLSF ...). Then a
        larger budget than the fitted one needs no refit either.
    greedy : bool, default=False
        Whether the selector is a greedy forward search: ``scores_`` holds the criterion
        at the step each feature was picked (NaN for features never picked) and
        ``step_scores_`` the criterion of each step.
    row_blocks : bool, default=False
        Whether ``fit`` accepts ``X`` in row blocks (a dask array, a ``numpy.memmap``
        or a :class:`skmlfs.info.RowBlocks` source) and counts over them.
    selects_all_features : bool, default=False
        Whether the "selector" keeps every feature (the no-selection reference): the
        engine evaluates it at one budget, all the features.
    scores_meaning : tuple of (str, str) or None, default=None
        What ``scores_`` holds, for people: ``(column name, one-line meaning)``.
        ``mlfs select`` names its score column by it and ``mlfs methods`` lists it.
        ``None``: the default of :func:`skmlfs.selection.scores_meaning` (by
        ``greedy``).
    """

    nested_budgets: bool = True
    orders_all_features: bool = False
    greedy: bool = False
    row_blocks: bool = False
    selects_all_features: bool = False
    scores_meaning: tuple[str, str] | None = None


@dataclass(slots=True)
class Tags(_SklearnTags):
    """scikit-learn's :class:`sklearn.utils.Tags` with the selector tags.

    Parameters
    ----------
    selector_tags : SelectorTags or None, default=None
        ``None`` for estimators that are not feature selectors.
    **sklearn_tags
        The fields of :class:`sklearn.utils.Tags`.
    """

    selector_tags: SelectorTags | None = None

    @classmethod
    def from_sklearn(cls, tags: _SklearnTags, selector_tags: SelectorTags) -> Tags:
        """These ``tags`` (as built by scikit-learn's mixins) with ``selector_tags``."""
        return cls(**{f.name: getattr(tags, f.name) for f in fields(_SklearnTags)},
                   selector_tags=selector_tags)


def get_selector_tags(estimator: Any) -> SelectorTags:
    """The :class:`SelectorTags` of ``estimator`` (an instance).

    Estimators from outside this library (scikit-learn's ``SelectKBest``, ``RFE`` ...)
    have none: they get the defaults, a selection whose smaller budgets are prefixes of
    the fitted order; so do objects that are no scikit-learn estimators.
    """
    if not hasattr(estimator, "__sklearn_tags__"):
        return SelectorTags()
    st = getattr(get_tags(estimator), "selector_tags", None)
    return st if st is not None else SelectorTags()
