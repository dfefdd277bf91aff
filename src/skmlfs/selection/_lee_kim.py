"""PMU and D2F: Lee & Kim's interaction-information criteria (2013, 2015).

Both approximate the dependency ``I(S ∪ {f}; L)`` by truncating its expansion into
interaction information (McGill's sign: ``I(a; b; c) = I(a; b) − I(a; b | c)``, positive
for redundancy) after the three-variable terms (``docs/methods/info.md#pmu``,
``docs/methods/info.md#d2f``)::

    PMU:  J(f) = Σ_l I(f; l) − Σ_{l<l'} I(f; l; l') − Σ_{s∈S} Σ_l I(f; s; l)
    D2F:  J(f) = Σ_l I(f; l)                         − Σ_{s∈S} Σ_l I(f; s; l)

The papers' own text (and so their equation numbers) was not available to the project:
the criteria are the ones the authors' code computes (``CAU-AIR-Lab/PMU``, ``/D2F``), which
agree with later restatements; the docs page records the commits compared.

Everything comes from the count engine in blocks: the label-pair term of PMU from ``q``
stratified products (``I(f; l | l')`` of every feature and label given each label ``l'``),
and each greedy step from ``Σ_l H(f, l, s)`` given the newly selected ``s``, which
updates one accumulator per candidate. The step's sum and the relevance are sums over the
labels: above the full-block threshold they come from label sums without a ``d × q``
table (:meth:`~skmlfs.info.InfoCache.sum_h_xy_given`), so D2F scales as MDMR does; PMU's
label-pair term has no such form (``q²·d`` table cells, checked before counting).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.utils._param_validation import StrOptions

from ..info import InfoCache, iter_conditional_mutual_info
from ._base import BaseInfoSelector, greedy_select
from ._scale import check_tables

__all__ = ["D2F", "PMU"]

_VARIANT = {"variant": [StrOptions({"paper", "code"})]}


def label_pair_interaction(cache: InfoCache) -> np.ndarray:
    """``Σ_{l<l'} I(f; l; l')`` for every feature ``f``, shape (d,).

    ``I(f; l; l') = I(f; l) − I(f; l | l')``. One stratified product per conditioning
    label ``l'`` gives ``I(f; l | l')`` for all ``f, l`` (:func:`~skmlfs.info.
    iter_conditional_mutual_info`); every unordered pair is met twice (once given each of
    its labels), so the sum over ordered pairs ``l ≠ l'`` is halved.
    """
    q = cache.Y.n_vars
    total = np.zeros(cache.X.n_vars)
    if q < 2:
        return total
    check_label_pair_term("PMU", cache)
    mi = cache.mi_xy  # I(f; l), (d, q)
    mi_sum = mi.sum(axis=1)
    cmis = iter_conditional_mutual_info(cache.X, cache.Y, cache.Y, base=cache.base)
    for c, cmi in enumerate(cmis):  # q blocks of (d, q), one at a time
        # Σ_{l ≠ c} [I(f; l) − I(f; l | l_c)]; the l = c term (I(f; l_c; l_c) = I(f; l_c))
        # is not a pair.
        total += (mi_sum - mi[:, c]) - (cmi.sum(axis=1) - cmi[:, c])
    return total / 2.0


def check_label_pair_term(method: str, cache: InfoCache) -> None:
    """Refuse a label-pair term whose ``d × q`` tables exceed the engine's budget.

    The term is computed from the unconditioned ``d × q`` count table and, per
    conditioning label, a stratified one with its float64 reductions (about five tables
    at once), ``q`` times: ``q²·d`` table cells in all.
    """
    d, q = cache.X.n_vars, cache.Y.n_vars
    m_x, m_y = cache.X.indicators.shape[1], cache.Y.indicators.shape[1]
    check_tables(
        method, "its label-pair term (I(f; l | l') for every feature and label pair, given "
        f"each of the {q:,} labels)", float(m_x) * m_y, tables=5.0,
        total_cells=float(d) * q * q,
        instead="Its relevance and its feature-label terms are label sums; D2F (PMU "
        "without the label-pair term), MDMR, SCLS and AMI scale to this shape.",
    )


def sum_label_entropies_given(cache: InfoCache, s: int) -> np.ndarray:
    """``Σ_l H(f, l, s)`` for every feature ``f``, shape (d,)
    (:meth:`~skmlfs.info.InfoCache.sum_h_xy_given`: the full three-way block or label
    sums over the strata of ``s``, by the cache's one policy)."""
    return cache.sum_h_xy_given(s)


def feature_label_interaction(cache: InfoCache, s: int) -> np.ndarray:
    """``Σ_l I(f; s; l)`` for every feature ``f`` given one selected feature ``s``, shape (d,).

    ``Σ_l I(f; s; l) = Σ_l I(f; l) − Σ_l I(f; l | s)`` with
    ``I(f; l | s) = H(f, s) + H(l, s) − H(f, l, s) − H(s)``.
    """
    q = cache.Y.n_vars
    h_fs = cache.h_xx(s)  # H(f, s)
    h_s = cache.h_x[s]
    sum_h_ls = cache.sum_h_xy[s]  # Σ_l H(l, s)
    sum_cmi = q * h_fs + sum_h_ls - sum_label_entropies_given(cache, s) - q * h_s
    return cache.relevance - sum_cmi


class _LeeKim(BaseInfoSelector):
    """Shared parameters of PMU and D2F."""

    _parameter_constraints: dict = {**BaseInfoSelector._parameter_constraints, **_VARIANT}

    def __init__(
        self,
        n_features_to_select: Any = None,
        discretizer: Any = "auto",
        variant: str = "paper",
        *,
        categorical_features: Any = None,
        verbose: int = 0,
    ):
        super().__init__(n_features_to_select=n_features_to_select, discretizer=discretizer)
        self.variant = variant
        self.verbose = verbose
        self.categorical_features = categorical_features

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # relevance, Σ_l H(f, l), H(f, s) and Σ_l H(f, l, s) add up over row blocks
        # (StreamInfoCache); PMU's label-pair term does not (PMU overrides this)
        tags.selector_tags.row_blocks = True
        return tags

    def _candidates(self, cache: InfoCache) -> np.ndarray:
        # The library never selects a constant column (docs/methods/info.md#greedy-search);
        # the authors' code has no such rule, and its variant keeps them as candidates.
        if self.variant == "code":
            return np.ones(cache.X.n_vars, dtype=bool)
        return cache.h_x > 0


class PMU(_LeeKim):
    """Pairwise multi-label utility (Lee & Kim 2013), ``docs/methods/info.md#pmu``.

    Greedy forward selection maximising the paper's criterion (interaction information
    with McGill's sign, positive = redundancy)::

        J(f) = Σ_l I(f; l) − Σ_{l<l'} I(f; l; l') − Σ_{s∈S} Σ_l I(f; s; l)

    The first pick maximises the first two terms. The authors' ``pmu.m`` computes the
    same criterion; ``variant="code"`` only differs in keeping constant (zero-entropy)
    columns as candidates, as ``pmu.m`` does (their criterion is 0, which wins once every
    informative feature scores below 0). Both selected exactly ``pmu.m``'s features in its
    order (``CAU-AIR-Lab/PMU`` at commit 0685508, run under GNU Octave on three PLCFS
    splits; ``docs/methods/info.md#comparison-with-the-authors-code``).

    Parameters
    ----------
    n_features_to_select : int, float, str or None, default=None
        Count, fraction, budget string, or ``None`` for ⌈√n_samples⌉.
    discretizer : "auto", None or transformer, default="auto"
        See :class:`~skmlfs.selection._base.BaseInfoSelector`.
    variant : {"paper", "code"}, default="paper"
        ``"paper"``: constant columns are never selected (the library's rule).
        ``"code"``: they are candidates, as in ``pmu.m``.

    Attributes
    ----------
    selection_order_ : ndarray of int
        Selected features in the order they were picked.
    ranking_ : ndarray of shape (n_features,)
        scikit-learn's ranking, as ``RFE``'s: 1 for the selected features, then 2, 3,
        ... along ``selection_order_``.
    scores_ : ndarray of shape (n_features,)
        Criterion (bits) at the step each feature was picked; NaN if never picked.
    step_scores_ : ndarray of float
        Criterion of each step.
    relevance_ : ndarray of shape (n_features,)
        ``Σ_l I(f; l)``.
    label_interaction_ : ndarray of shape (n_features,)
        ``Σ_{l<l'} I(f; l; l')``.
    entropies_ : ndarray of shape (n_features,)
        ``H(f)`` (bits).

    Examples
    --------
    >>> from skmlfs.datasets import make_multilabel_discrete
    >>> from skmlfs.selection import PMU
    >>> ds = make_multilabel_discrete(random_state=0)
    >>> PMU(n_features_to_select=5).fit(ds.X, ds.Y).transform(ds.X).shape
    (500, 5)
    """

    #: what row-block input would need (the message of the error it raises)
    _row_blocks_need = (
        "its label-pair term Σ_{l<l'} I(f; l; l') needs, for each label l', the feature × "
        "label counts on the rows of each value of l' (q stratified d × q tables); "
        "row-block sources count sums over the labels only (D2F, MDMR, SCLS, AMI, GICS, "
        "MIRank accept them)"
    )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.selector_tags.row_blocks = False
        return tags

    def _select(self, cache: InfoCache, k: int):
        check_label_pair_term("PMU", cache)
        rel = cache.relevance
        pair = label_pair_interaction(cache)
        first = rel - pair
        red = np.zeros_like(rel)  # Σ_{s∈S} Σ_l I(f; s; l), one column added per step

        def update(s: int) -> None:
            red[:] += feature_label_interaction(cache, s)

        ranking, scores = greedy_select(
            first, update, lambda: first - red, self._candidates(cache), k
        )
        self.relevance_ = rel
        self.label_interaction_ = pair
        return ranking, scores


class D2F(_LeeKim):
    """Interaction-information feature selection of Lee & Kim (2015),
    ``docs/methods/info.md#d2f``.

    ``variant="paper"`` (default) maximises greedily::

        J(f) = Σ_l I(f; l) − Σ_{s∈S} Σ_l I(f; s; l)

    ``variant="code"`` reproduces the authors' ``d2f.m``, whose score vector is never
    reset between steps: the redundancy of *every* selected feature is added again at
    each step, so the ``n``-th selected feature weighs ``k − n`` when the ``k``-th is
    chosen::

        J_k(f) = Σ_l [H(f) − H(f, l)] + Σ_{n<k} (k − n) · T(f, s_n),
        T(f, s) = Σ_l [H(f, s) + H(f, l) − H(f) − H(s) − H(f, s, l)]
                = −Σ_l I(f; s; l) − Σ_l H(s | l)

    (the values ``d2f.m`` compares; its extra terms ``−Σ_l H(l)`` and ``−Σ_l H(s | l)``
    are the same for every candidate). Constant columns are candidates there, as in
    ``d2f.m``. Published comparisons that ran the code ran this variant. It selected
    exactly ``d2f.m``'s features in its order (``CAU-AIR-Lab/D2F`` at commit fe698b0, run
    under GNU Octave on three PLCFS splits;
    ``docs/methods/info.md#comparison-with-the-authors-code``).

    Parameters
    ----------
    n_features_to_select, discretizer
        As in :class:`PMU`.
    variant : {"paper", "code"}, default="paper"

    Attributes
    ----------
    selection_order_, ranking_, scores_, step_scores_, relevance_, entropies_
        As in :class:`PMU` (for ``variant="code"`` the scores are ``d2f.m``'s values).
    """

    def _select(self, cache: InfoCache, k: int):
        rel = cache.relevance
        valid = self._candidates(cache)
        self.relevance_ = rel
        if self.variant == "paper":
            red = np.zeros_like(rel)

            def update(s: int) -> None:
                red[:] += feature_label_interaction(cache, s)

            return greedy_select(rel, update, lambda: rel - red, valid, k)

        q = cache.Y.n_vars
        h_x = cache.h_x
        sum_h_xy = cache.sum_h_xy
        first = q * h_x - sum_h_xy  # Σ_l [H(f) − H(f, l)] = Σ_l I(f; l) − Σ_l H(l)
        since = np.zeros_like(rel)  # Σ_{n<k} T(f, s_n): what each step adds again
        acc = np.zeros_like(rel)

        def update_code(s: int) -> None:
            t = q * (cache.h_xx(s) - h_x - h_x[s]) + sum_h_xy - sum_label_entropies_given(cache, s)
            since[:] += t
            acc[:] += since

        return greedy_select(first, update_code, lambda: first + acc, valid, k)
