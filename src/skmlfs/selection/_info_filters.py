"""Greedy information-theoretic filters: SCLS, AMI, MDMR, GICS.

All four share the count engine through :class:`~skmlfs.info.InfoCache`: the
feature × label block (entropies, MI) is computed once with one product, and each greedy
step adds one column of feature × selected-feature quantities.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.utils._param_validation import StrOptions

from .._progress import report_step
from ..info import InfoCache
from ._base import TIE_RTOL, BaseInfoSelector, argmax_tol, greedy_select

__all__ = ["AMI", "GICS", "MDMR", "SCLS", "gics_select"]


class SCLS(BaseInfoSelector):
    """Scalable Criterion for Large Label Set (Lee & Kim 2017).

    Greedy forward selection maximising Eq. (24)/(25) of the paper::

        J(f) = Σ_l I(f; l) − Σ_{s∈S} [I(f; s) / H(f)] · Σ_l I(f; l)

    The first feature maximises the relevance ``Σ_l I(f; l)`` (Eq. 9). Features with
    ``H(f) = 0`` are discarded (§3.4); exact ties go to the lowest feature index.

    Parameters
    ----------
    n_features_to_select : int, float or None, default=None
        Count, fraction, or ``None`` for ⌈√n_samples⌉ (the paper's budget, §4.1).
    discretizer : "auto", None or transformer, default="auto"
        See :class:`~skmlfs.selection._base.BaseInfoSelector`.
    verbose : int, default=0
        Progress of the fit on stderr (steps done, criterion or objective, elapsed time):
        0 none, 1 a line every few seconds, 2 or more every step.

    Attributes
    ----------
    selection_order_ : ndarray of int
        Selected feature indices in the order they were picked.
    ranking_ : ndarray of shape (n_features,)
        scikit-learn's ranking, as ``RFE``'s: 1 for the selected features, then 2, 3,
        ... along ``selection_order_``.
    scores_ : ndarray of shape (n_features,)
        Criterion value (bits) of each feature at the step it was picked; NaN for the
        features not selected.
    step_scores_ : ndarray of float
        Criterion value of each greedy step, ``scores_[selection_order_]``.
    relevance_ : ndarray of shape (n_features,)
        ``Σ_l I(f; l)`` of every feature (Part 1 of Eq. 26).
    entropies_ : ndarray of shape (n_features,)
        ``H(f)`` of every feature (bits).

    Examples
    --------
    >>> from skmlfs.datasets import make_multilabel_discrete
    >>> from skmlfs.selection import SCLS
    >>> ds = make_multilabel_discrete(random_state=0)
    >>> sel = SCLS(n_features_to_select=5).fit(ds.X, ds.Y)
    >>> sel.transform(ds.X).shape
    (500, 5)
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.selector_tags.row_blocks = True
        return tags

    def _select(self, cache: InfoCache, k: int):
        rel = cache.relevance
        h = cache.h_x
        valid = h > 0
        safe_h = np.where(valid, h, 1.0)
        ratio = np.zeros_like(rel)  # Σ_s I(f; s) / H(f), accumulated as in Eq. (25)

        def update(s: int) -> None:
            ratio[:] += cache.mi_xx(s) / safe_h

        # No threadpool limit: each step is a row-restricted count (no BLAS), and
        # benchmarks/bench_scls.py measures one BLAS thread as no faster (ratio ~0.93).
        ranking, scores = greedy_select(
            rel, update, lambda: rel - ratio * rel, valid, k,
            prefetch=getattr(cache, "prefetch", None),
        )
        self.relevance_ = rel
        return ranking, scores


class AMI(BaseInfoSelector):
    """Approximating mutual information (Lee, Lim & Kim 2012), SCLS paper Eq. (2)/(13).

    ``variant="eq2"`` (default): ``J(f) = Σ_l I(f; l) − Σ_{s∈S} I(f; s)``: relevance summed
    over labels, redundancy summed over the selected features, without normalisation.

    ``variant="authors_code"``: exactly what ``programs/ami.m`` of the authors' repository
    ``CAU-AIR-Lab/MLFS2012`` (commit ``3113310d``) computes (``docs/methods/info.md#ami``).
    Its redundancy loop writes into the row of the *iteration number* instead of the
    candidate's row, so the step that picks feature number ``t + 1`` (``t = |S|`` already
    selected) scores every candidate by ``Σ_l I(f; l)`` except the feature of index ``t``,
    which gets ``Σ_l I(f; l) − Σ_{s∈S} Σ_{m} I(f_m; s)`` (the redundancy of *all* features
    ``m`` with the selected ones). It is the relevance ranking :class:`MIRank` except when
    the feature of index ``t`` is the most relevant one left at step ``t`` (e.g. with
    features 0, 1, 2 in decreasing relevance ``ami.m`` usually returns 0, 2, 1).

    Zero-entropy features are never selected; ties go to the lowest index. Attributes as
    in :class:`SCLS`.

    Parameters
    ----------
    n_features_to_select, discretizer, verbose
        As in :class:`SCLS`.
    variant : {"eq2", "authors_code"}, default="eq2"
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.selector_tags.row_blocks = True
        return tags

    _parameter_constraints: dict = {
        **BaseInfoSelector._parameter_constraints,
        "variant": [StrOptions({"eq2", "authors_code"})],
    }

    def __init__(
        self,
        n_features_to_select: Any = None,
        discretizer: Any = "auto",
        variant: str = "eq2",
        *,
        categorical_features: Any = None,
        verbose: int = 0,
    ):
        super().__init__(n_features_to_select=n_features_to_select, discretizer=discretizer)
        self.variant = variant
        self.verbose = verbose
        self.categorical_features = categorical_features

    def _select(self, cache: InfoCache, k: int):
        rel = cache.relevance
        if self.variant == "authors_code":
            return self._select_authors_code(cache, rel, k)
        red = np.zeros_like(rel)

        def update(s: int) -> None:
            red[:] += cache.mi_xx(s)

        ranking, scores = greedy_select(
            rel, update, lambda: rel - red, cache.h_x > 0, k,
            prefetch=getattr(cache, "prefetch", None),
        )
        self.relevance_ = rel
        return ranking, scores

    def _select_authors_code(self, cache: InfoCache, rel: np.ndarray, k: int):
        # ami.m lines 32-47: each iteration restarts from the relevance (line 33) and
        # subtracts I(f_m; s) of every feature m and selected s from row k, the iteration
        # number (line 41), not from row m. One column I(·; s) per selected s, as in Eq. (2).
        total = [0.0]  # Σ_{s∈S} Σ_m I(f_m; s)
        n_sel = [0]

        def update(s: int) -> None:
            total[0] += float(cache.mi_xx(s).sum())
            n_sel[0] += 1

        def score() -> np.ndarray:
            J = rel.copy()
            if n_sel[0] < J.size:
                J[n_sel[0]] -= total[0]
            return J

        ranking, scores = greedy_select(
            rel, update, score, cache.h_x > 0, k, prefetch=getattr(cache, "prefetch", None)
        )
        self.relevance_ = rel
        return ranking, scores


class MDMR(BaseInfoSelector):
    """Max-Dependency and Min-Redundancy (Lin, Hu, Liu & Duan 2015).

    ``variant="scls_authors"`` (default, ``docs/methods/info.md#mdmr``): the reading that
    reproduces the MDMR selections the SCLS authors (Lee & Kim 2017) stored for their
    experiments, the only record of what MDMR computes that could be checked::

        J(f) = Σ_l I(f; l) − (1/|S|) Σ_{s∈S} [ I(f; s) − Σ_l I(f; l | s) ]

    ``variant="lin2015"`` (the default up to 0.1.0, a form recalled from later
    restatements and not verified against the paper; kept so that earlier results can be
    reproduced)::

        J(f) = Σ_l I(f; l) − (1/|S|) Σ_{s∈S} [ I(f; s) − Σ_l I(s; l | f) ]

    ``variant="interaction"`` (the PyIT-MLFS reading)::

        J(f) = Σ_l I(f; l) − Σ_{s∈S} Σ_l [ I(f; s) − I(f; s | l) ]

    The original paper was not retrievable; docs/methods/info.md#mdmr gives the evidence for
    each form. Whatever the variant, the criterion needs only sums over the labels:
    ``Σ_l I(f; l)``, ``Σ_l H(f, l)`` and, per step, ``Σ_l H(f, l, s)``. Up to
    ``2**26`` feature × label pairs they come from the full block (one stratified product
    per step); above, from label sums over the strata of ``s`` (one pass over the rows
    per step, memory ``O(d + q)``; ``docs/methods/info.md#complexity-and-scale``), so
    row-block and Dask input work as for :class:`SCLS`.

    Parameters
    ----------
    n_features_to_select, discretizer, verbose
        As in :class:`SCLS`.
    variant : {"scls_authors", "lin2015", "interaction"}, default="scls_authors"
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # label sums, H(f, s) and Σ_l H(f, l, s) add up over row blocks (StreamInfoCache)
        tags.selector_tags.row_blocks = True
        return tags

    _parameter_constraints: dict = {
        **BaseInfoSelector._parameter_constraints,
        "variant": [StrOptions({"lin2015", "scls_authors", "interaction"})],
    }

    def __init__(
        self,
        n_features_to_select: Any = None,
        discretizer: Any = "auto",
        variant: str = "scls_authors",
        *,
        categorical_features: Any = None,
        verbose: int = 0,
    ):
        super().__init__(n_features_to_select=n_features_to_select, discretizer=discretizer)
        self.variant = variant
        self.verbose = verbose
        self.categorical_features = categorical_features

    def _select(self, cache: InfoCache, k: int):
        rel = cache.relevance
        q = cache.Y.n_vars
        h_x, h_y = cache.h_x, cache.h_y
        # Σ_l H(f, l) and, per step, Σ_l H(f, l, s): sums over the labels only, so above
        # the full-block threshold neither needs a d × q table (InfoCache's one policy)
        sum_h_xy = cache.sum_h_xy
        acc = np.zeros_like(rel)
        n_sel = [0]
        averaged = self.variant in ("lin2015", "scls_authors")

        def update(s: int) -> None:
            sum_h_xys = cache.sum_h_xy_given(s)  # Σ_l H(f, l, s), (d,)
            h_xs = cache.h_xx(s)  # H(f, s)
            mi_fs = h_x + h_x[s] - h_xs
            if self.variant == "lin2015":
                # Σ_l I(s; l | f) = Σ_l [H(s,f) + H(l,f) − H(s,l,f) − H(f)]
                cmi = q * h_xs + sum_h_xy - sum_h_xys - q * h_x
                acc[:] += mi_fs - cmi
            elif self.variant == "scls_authors":
                # Σ_l I(f; l | s) = Σ_l [H(f,s) + H(l,s) − H(f,l,s) − H(s)]
                cmi = q * h_xs + sum_h_xy[s] - sum_h_xys - q * h_x[s]
                acc[:] += mi_fs - cmi
            else:
                # Σ_l I(f; s | l) = Σ_l [H(f,l) + H(s,l) − H(f,s,l) − H(l)]
                cmi = sum_h_xy + sum_h_xy[s] - sum_h_xys - h_y.sum()
                acc[:] += q * mi_fs - cmi
            n_sel[0] += 1

        def score() -> np.ndarray:
            if averaged:
                return rel - acc / n_sel[0]
            return rel - acc

        ranking, scores = greedy_select(rel, update, score, h_x > 0, k,
                                        prefetch=getattr(cache, "prefetch", None))
        self.relevance_ = rel
        return ranking, scores


class GICS(BaseInfoSelector):
    """The filter inside the memetic wrapper (Seo, Kim & Lee 2019), as in ``gics.m``.

    With ``|L|`` labels and ``S`` the current subset (``docs/methods/info.md#gics``)::

        first step:  score(f) = |L|·H(f) − Σ_l H(f, l)
        later:       score(f) = |L|·Σ_{s∈S} H(f, s) − |S|·Σ_l H(f, l)   (H(f) > 0 only)

    i.e. a normalised AMI: ``mean_l I(f; l) − mean_s I(f; s)`` up to constants.
    As for the other filters, zero-entropy features are never selected (also not at the
    first step, where ``gics.m`` does not check) and ties go to the lowest index up to
    rounding. The memetic wrapper calls :func:`gics_select` directly on label subsets, with
    ``gics.m``'s own rules.
    Attributes as in :class:`SCLS` (``scores_`` / ``step_scores_`` hold the raw GICS scores
    above).
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.selector_tags.row_blocks = True
        return tags

    def _select(self, cache: InfoCache, k: int):
        labels = np.arange(cache.Y.n_vars)
        # Zero-entropy features are never candidates. gics.m (and gics_select, which the
        # memetic wrapper uses) has no H(f) > 0 check at the first pick, where a constant
        # column ties with every feature independent of all labels (both score −Σ_l H(l)).
        candidates = np.flatnonzero(cache.h_x > 0)
        if candidates.size == 0:  # every feature constant (e.g. one training sample)
            return np.empty(0, dtype=np.intp), np.empty(0)
        return gics_select(cache, candidates, labels, k, rtol=TIE_RTOL)


def gics_select(
    cache: InfoCache,
    candidates: np.ndarray,
    labels: np.ndarray,
    k: int,
    seed: np.ndarray | None = None,
    *,
    rtol: float | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """GICS greedy selection over a candidate set for a label subset (``gics.m``).

    Parameters
    ----------
    cache : InfoCache
        Entropy tables ``H(f)``, ``H(f, l)`` and ``H(f, s)`` of the full training set.
    candidates : ndarray of int
        Feature indices that may be selected.
    labels : ndarray of int
        The label subset ``Lz`` to serve; ``|Lz|`` is the multiplier.
    k : int
        Target subset size (including the seed).
    seed : ndarray of int, optional
        "add" mode: start from these features and only apply the later-step rule.
    rtol : float or None, default=None
        Tie rule. ``None`` (``gics.m``'s ``max``, used by the memetic wrapper): the first
        candidate among exactly equal float scores. A float: scores within
        ``TIE_TOL + rtol·|max|`` of the best are tied and the first candidate wins, so
        scores equal in exact arithmetic but not in floating point still go to the first
        candidate (:class:`GICS` passes ``TIE_RTOL``).

    Returns
    -------
    ranking : ndarray of int
        Selected features (seed first in add mode), at most ``k``; fewer when every
        remaining candidate is selected already or has zero entropy.
    scores : ndarray
        Score of each newly added feature when it was picked (seed features get NaN).
    """
    candidates = np.asarray(candidates, dtype=np.intp)
    labels = np.asarray(labels, dtype=np.intp)
    nz = float(labels.size)
    h_c = cache.h_x[candidates]
    sum_h_cl = cache.sum_h_xy_over(candidates, labels) if labels.size else 0.0
    sum_h_cs = np.zeros(candidates.size)
    selected: list[int] = []
    scores: list[float] = []
    available = np.ones(candidates.size, dtype=bool)
    pos_of = {int(f): i for i, f in enumerate(candidates)}
    if seed is not None:
        for s in np.asarray(seed, dtype=np.intp):
            selected.append(int(s))
            scores.append(np.nan)
            sum_h_cs += cache.h_xx(int(s))[candidates]
            if int(s) in pos_of:
                available[pos_of[int(s)]] = False
    while len(selected) < k:
        if not selected:
            # fresh mode, first pick: no zero-entropy check at this step (gics.m)
            J = nz * h_c - sum_h_cl
            J = np.where(available, J, -np.inf)
        else:
            J = nz * sum_h_cs - len(selected) * sum_h_cl
            J = np.where(available & (h_c > 0), J, -np.inf)
        i = int(np.argmax(J)) if rtol is None else int(argmax_tol(J, rtol=rtol))
        if not np.isfinite(J[i]):
            break
        f = int(candidates[i])
        selected.append(f)
        scores.append(float(J[i]))
        report_step(len(selected), k, "feature", criterion=scores[-1])
        available[i] = False
        if len(selected) < k:
            sum_h_cs += cache.h_xx(f)[candidates]
    return np.asarray(selected, dtype=np.intp), np.asarray(scores)
