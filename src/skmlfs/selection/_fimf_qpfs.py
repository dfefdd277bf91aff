"""FIMF (Lee & Kim 2015) and multi-label QPFS (Lim, Lee & Kim 2015/2017).

Both are feature *rankings* (no greedy subset search), computed from whole blocks of the
count engine :mod:`skmlfs.info`:

* FIMF scores every candidate feature by its summed label relevance minus its
  interaction information with pairs of labels (``docs/methods/info.md#fimf``); the
  three-way terms come from one stratified product per kept label.
* QPFS solves one quadratic program over feature weights whose quadratic term is the
  feature × feature mutual-information matrix (one ``d × d`` block product) and whose
  linear term is the summed label relevance (``docs/methods/info.md#qpfs``).
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.linalg import LinAlgError, cho_factor, cho_solve, cholesky, eigvalsh, lstsq
from scipy.sparse.linalg import ArpackNoConvergence, eigsh
from sklearn.utils._param_validation import StrOptions

from ..info import InfoCache, iter_conditional_mutual_info, joint_entropy
from ._base import TIE_RTOL, TIE_TOL, BaseInfoSelector, Number, argmax_tol, greedy_select
from ._scale import check_tables

__all__ = ["FIMF", "QPFS", "fimf_scores", "qpfs_weights", "rank_weights"]


def _top_by_entropy(h: np.ndarray, m: int, valid: np.ndarray | None = None) -> np.ndarray:
    """Indices of the ``m`` largest entropies, largest first; equal values by index.

    As the authors' stable ``sortrows(..., -2)``, with the library's tie rule: entropies
    equal in exact arithmetic can differ in the last bits (a 3-valued feature with
    counts (a, b, c) and one with (b, a, c) sum ``c log c`` in another order), so values
    closer than ``TIE_TOL + TIE_RTOL·|max|`` to their neighbour in the sorted order form
    one tied group, ordered by index. ``valid`` (optional) excludes variables.
    """
    idx = np.arange(h.size) if valid is None else np.flatnonzero(valid)
    if idx.size == 0:
        return idx
    v = h[idx]
    order = np.argsort(-v, kind="stable")
    sv = v[order]
    tol = TIE_TOL + TIE_RTOL * float(np.abs(sv).max())
    group = np.cumsum(np.r_[True, (sv[:-1] - sv[1:]) > tol])
    return idx[order[np.lexsort((order, group))]][:m]


def fimf_scores(cache: InfoCache, candidates: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """FIMF score (``docs/methods/info.md#fimf``, Eq. 1 there) of the ``candidates``.

    ``J(f) = Σ_{l∈L} I(f; l) − Σ_{i<j} I(f; l_i; l_j)`` where the pair sum runs over the
    ``labels`` (the top-k labels by entropy) and ``I(f; a; b) = I(f; a) − I(f; a | b)``
    (McGill's sign: positive when ``a`` and ``b`` share information about ``f``).

    Parameters
    ----------
    cache : InfoCache
        Discrete features and labels (``H(f)``, ``H(l)`` are read from it).
    candidates : ndarray of int
        The features to score (FIMF's ``b`` top-entropy features).
    labels : ndarray of int
        The labels of the interaction term, in any order.

    Returns
    -------
    ndarray of shape (len(candidates),)
        ``J`` in the cache's log base.
    """
    candidates = np.asarray(candidates, dtype=np.intp)
    labels = np.asarray(labels, dtype=np.intp)
    Xc = cache.X.take(candidates)
    h_x = cache.h_x[candidates]
    if labels.size >= 2:
        # the pair term: b × k tables, k stratified ones (k² b cells over the fit)
        check_tables(
            "FIMF", f"its interaction term over the pairs of the {labels.size:,} kept labels",
            float(Xc.indicators.shape[1]) * labels.size, tables=5.0,
            total_cells=float(candidates.size) * labels.size**2,
            instead="n_labels (the paper's k) keeps the labels of largest entropy only; "
            "the relevance over all labels is a label sum.",
        )
    YK = cache.Y.take(labels)
    if cache.uses_full_block:
        # relevance over *all* labels: one feature × label product on the candidates only
        h_xy = joint_entropy(Xc, cache.Y, base=cache.base)
        mi = h_x[:, None] + cache.h_y[None, :] - h_xy
        score = mi.sum(axis=1)
        mi_k = mi[:, labels]
    else:
        # above the full-block threshold: Σ_l I(f; l) as a label sum, and the b × k block
        # of the kept labels only
        score = cache.relevance[candidates]
        if labels.size < 2:
            return score
        mi_k = h_x[:, None] + cache.h_y[None, labels] - joint_entropy(Xc, YK, base=cache.base)
    if labels.size < 2:
        return score
    # I(f; l_i; l_j) = I(f; l_i) − I(f; l_i | l_j): for each kept label l_j, one stratified
    # product gives I(f; l_i | l_j) for every candidate f and kept label l_i; the pairs
    # i < j are the strict upper triangle.
    inter = np.zeros_like(score)
    for j, cmi in enumerate(iter_conditional_mutual_info(Xc, YK, YK, base=cache.base)):
        if j:
            inter += (mi_k[:, :j] - cmi[:, :j]).sum(axis=1)
    return score - inter


class FIMF(BaseInfoSelector):
    """Fast multi-label feature selection by information-theoretic ranking (Lee & Kim 2015).

    Every candidate feature ``f`` gets the score (``docs/methods/info.md#fimf``)::

        J(f) = Σ_{l∈L} I(f; l) − Σ_{i<j, l_i, l_j ∈ L_k} I(f; l_i; l_j)

    where ``L_k`` holds the ``n_labels`` labels of largest entropy, and only the
    ``n_candidates`` features of largest entropy are candidates (the paper's two
    cut-offs; both as in ``fimf.m`` of CAU-AIR-Lab/FIMF, whose score differs from ``J``
    by a constant). Features are ranked by ``J``, best first; zero-entropy features are
    never candidates; ties (within the library's tolerance) go to the lowest index.

    Parameters
    ----------
    n_features_to_select : int, float, str or None, default=None
        Count, fraction, budget string, or ``None`` for ⌈√n_samples⌉.
    n_candidates : int or None, default=None
        ``b``: number of features, by decreasing entropy, that are scored. ``None``:
        every feature. When the budget ``k`` exceeds it, the ``k`` features of largest
        entropy are scored instead (the ranking is never shorter than the budget because
        of the cut-off).
    n_labels : int or None, default=None
        ``k`` of the paper: number of labels, by decreasing entropy, whose pairs enter
        the interaction term. ``None``: every label (the full second-order score).
    discretizer : "auto", None or transformer, default="auto"
        See :class:`~skmlfs.selection._base.BaseInfoSelector`.

    Attributes
    ----------
    selection_order_ : ndarray of int
        The selected features, best ``J`` first.
    ranking_ : ndarray of shape (n_features,)
        scikit-learn's ranking, as ``RFE``'s: 1 for the selected features, then 2, 3,
        ... along ``selection_order_``.
    scores_ : ndarray of shape (n_features,)
        ``J(f)`` (bits) of the scored candidates; NaN for the features not scored.
    candidates_ : ndarray of int
        The scored features (largest entropy first).
    labels_ : ndarray of int
        The labels of the interaction term (largest entropy first).
    entropies_ : ndarray of shape (n_features,)
        ``H(f)`` (bits).

    Examples
    --------
    >>> from skmlfs.datasets import make_multilabel_discrete
    >>> from skmlfs.selection import FIMF
    >>> ds = make_multilabel_discrete(random_state=0)
    >>> FIMF(n_features_to_select=4, n_labels=3).fit(ds.X, ds.Y).selection_order_.shape
    (4,)
    """

    _parameter_constraints: dict = {
        **BaseInfoSelector._parameter_constraints,
        "n_candidates": [None, Number(Integral, 1, None, closed="left")],
        "n_labels": [None, Number(Integral, 1, None, closed="left")],
    }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.selector_tags.scores_meaning = (
            "fimf_score",
            "J(f): relevance minus the interaction with the top-entropy label pairs, bits "
            "(NaN: not a candidate)",
        )
        # a ranking by a fixed per-feature score, not a greedy search: no step_scores_
        tags.selector_tags.greedy = False
        # with a candidate cut-off, a budget above it scores more candidates (b = max(b, k)),
        # so the smaller budgets are prefixes only without the cut-off
        tags.selector_tags.nested_budgets = getattr(self, "n_candidates", None) is None
        return tags

    def __init__(
        self,
        n_features_to_select: Any = None,
        n_candidates: int | None = None,
        n_labels: int | None = None,
        discretizer: Any = "auto",
        *,
        categorical_features: Any = None,
        verbose: int = 0,
    ):
        super().__init__(n_features_to_select=n_features_to_select, discretizer=discretizer)
        self.n_candidates = n_candidates
        self.n_labels = n_labels
        self.verbose = verbose
        self.categorical_features = categorical_features

    #: what row-block input would need (the message of the error it raises)
    _row_blocks_need = (
        "its interaction term needs the counts of every candidate with each pair of kept "
        "labels (k stratified b × k tables), which row-block sources do not count"
    )

    def _effective_b(self, k: int, d: int) -> int:
        b = d if self.n_candidates is None else int(self.n_candidates)
        return min(max(b, k), d)

    def _prefix_ok(self, k: int) -> bool:
        # a smaller budget scores the same candidates only if max(b, k) is unchanged
        return self._effective_b(k, self.n_features_in_) == self._fit_b

    def _per_feature_scores(self, ranking: np.ndarray, values: np.ndarray) -> np.ndarray:
        return self._all_scores

    def _select(self, cache: InfoCache, k: int):
        d, q = cache.X.n_vars, cache.Y.n_vars
        h = cache.h_x
        self._fit_b = self._effective_b(k, d)
        cand = _top_by_entropy(h, self._fit_b, valid=h > 0)
        kq = q if self.n_labels is None else min(int(self.n_labels), q)
        labels = _top_by_entropy(cache.h_y, kq)
        J = np.full(d, np.nan)
        if cand.size:
            J[cand] = fimf_scores(cache, cand, labels)
        valid = np.zeros(d, dtype=bool)
        valid[cand] = True
        # the score is fixed, so the "greedy" loop is a sort with the library's tie rule
        ranking, scores = greedy_select(
            np.where(valid, J, -np.inf),
            lambda s: None,
            lambda: np.where(valid, J, -np.inf),
            valid,
            k,
            rtol=TIE_RTOL,
        )
        self._all_scores = J
        self.candidates_ = cand
        self.labels_ = labels
        return ranking, scores


# ----------------------------------------------------------------------------- QPFS
#: Default largest number of (informative) features QPFS accepts: Q is d × d float64
#: (8·d² bytes: 200 MB at 5000) and the interior-point solver factors a matrix of that
#: order (O(d³) time per iteration).
QPFS_MAX_FEATURES = 5000


def _clarabel():
    try:
        import clarabel
    except ImportError as exc:
        raise ImportError(
            "QPFS solves its quadratic program with the Clarabel interior-point solver, "
            "which is not installed: pip install 'scikit-mlfs[qp]' (or pip install "
            "clarabel)."
        ) from exc
    return clarabel


def qpfs_weights(
    Q: np.ndarray, F: np.ndarray, alpha: float, *, tol: float = 1e-10
) -> tuple[np.ndarray, dict[str, Any]]:
    """Solve ``min_w ½(1−α) wᵀQw − α Fᵀw`` s.t. ``w ≥ 0``, ``Σ w = 1``.

    ``docs/methods/info.md#qpfs``. ``Q`` must be symmetric; when its smallest
    eigenvalue ``λ`` is negative, ``(−λ)·I`` is added first (the smallest shift that
    makes the program convex), and the shift is reported.

    Parameters
    ----------
    Q : ndarray of shape (p, p)
    F : ndarray of shape (p,)
    alpha : float in [0, 1]
    tol : float, default=1e-10
        Clarabel's absolute and relative duality-gap and feasibility tolerances.

    Returns
    -------
    w : ndarray of shape (p,)
        The solution, clipped to ``[0, 1]`` (interior-point iterates are strictly
        positive: inactive weights come out as tiny positive numbers).
    info : dict
        ``status`` (Clarabel's), ``shift`` (added to the diagonal), ``objective`` (at
        the returned ``w``), ``iterations``, ``polished`` (whether the exact solution on
        the solver's support replaced the interior-point one, :func:`_polish`).
    """
    clarabel = _clarabel()
    p = F.size
    Q = np.asarray(Q, dtype=np.float64)
    lam = _smallest_eigenvalue(Q) if p else 0.0
    # the eigenvalue is accurate to far better than 1e-10·max|Q|; a margin of that size
    # keeps Clarabel's factorisation from seeing a numerically indefinite matrix
    margin = 1e-10 * max(float(np.abs(Q).max()), 1.0) if p else 0.0
    shift = -lam + margin if lam < 0 else 0.0
    P = (1.0 - alpha) * (Q + shift * np.eye(p))
    c = -alpha * np.asarray(F, dtype=np.float64)
    A = sp.vstack([sp.csc_matrix(np.ones((1, p))), -sp.identity(p, format="csc")]).tocsc()
    b = np.zeros(p + 1)
    b[0] = 1.0
    cones = [clarabel.ZeroConeT(1), clarabel.NonnegativeConeT(p)]
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    settings.tol_gap_abs = tol
    settings.tol_gap_rel = tol
    settings.tol_feas = tol
    settings.max_iter = 500
    # P is dense: the supernodal "faer" factorisation is several times faster than the
    # default QDLDL there (medical, d = 1494: 7 s against 37 s under load); older wheels
    # without it keep QDLDL
    try:
        settings.direct_solve_method = "faer"
    except Exception:  # pragma: no cover - depends on the installed Clarabel
        pass
    solver = clarabel.DefaultSolver(sp.triu(sp.csc_matrix(P)).tocsc(), c, A, b, cones, settings)
    sol = solver.solve()
    status = str(sol.status)
    if "Solved" not in status:
        raise RuntimeError(f"QPFS: the QP solver stopped with status {status}.")
    if status != "Solved":
        warnings.warn(
            f"QPFS: the QP solver reached only {status} (tolerance {tol:g} not met).",
            UserWarning,
            stacklevel=3,
        )
    w = np.clip(np.asarray(sol.x, dtype=np.float64), 0.0, 1.0)
    mu = np.asarray(sol.z, dtype=np.float64)[1:]  # multipliers of w ≥ 0
    polished = _polish(P, c, w, mu)
    if polished is not None:
        w = polished
    info = {
        "status": status,
        "shift": float(shift),
        "objective": float(0.5 * w @ P @ w + c @ w),
        "iterations": int(sol.iterations),
        "polished": polished is not None,
    }
    return w, info


def _smallest_eigenvalue(Q: np.ndarray) -> float:
    """The smallest eigenvalue of the symmetric ``Q``, or 0 when ``Q`` is positive definite.

    A Cholesky factorisation (a third of an eigendecomposition's cost) settles the common
    positive-definite case; otherwise Lanczos iterations (ARPACK, matrix–vector products
    only) find the smallest eigenvalue, with LAPACK's ``?syevx`` as the fallback.
    """
    try:
        cholesky(Q, lower=True, check_finite=False)
        return 0.0
    except LinAlgError:
        pass
    if Q.shape[0] > 2:
        try:
            return float(eigsh(Q, k=1, which="SA", tol=1e-12, return_eigenvectors=False)[0])
        except ArpackNoConvergence:  # pragma: no cover - rare
            pass
    return float(eigvalsh(Q, subset_by_index=[0, 0], driver="evx", check_finite=False)[0])


def _polish(P: np.ndarray, c: np.ndarray, w: np.ndarray, mu: np.ndarray) -> np.ndarray | None:
    """The exact solution on the interior-point solution's support, if it is optimal.

    An interior-point method stops with inactive weights slightly positive and, where
    strict complementarity nearly fails (a weight and its multiplier both tiny), with
    weights off by about the square root of its tolerance. As OSQP's "polishing" does, we
    guess the support ``S = {w_i > μ_i}`` and solve the program's KKT equations on it —
    ``P_SS w_S + c_S + ν 1 = 0``, ``Σ w_S = 1`` (:func:`_kkt_solve`: Cholesky, or the
    minimum-norm least-squares solution when ``P_SS`` is near-singular, as for duplicated
    features, whose weight it splits equally). A
    few active-set corrections follow (drop the features whose weight came out negative,
    add those off ``S`` whose multiplier is negative). The result is returned only if it
    is a KKT point of the full program up to rounding; otherwise ``None``.
    """
    scale = max(float(np.abs(P).max()), float(np.abs(c).max()), 1.0)
    S = w > mu
    for _ in range(20):
        m = int(S.sum())
        if m == 0:
            return None
        eps = 1e-12 * scale * m
        PSS = P[np.ix_(S, S)]
        sol = _kkt_solve(PSS, c[S])
        if sol is None:
            return None
        wS, nu = sol
        if wS.min() < -eps:
            idx = np.flatnonzero(S)
            S[idx[wS < -eps]] = False
            continue
        out = np.zeros_like(w)
        out[S] = np.maximum(wS, 0.0)
        grad = P @ out + c + nu  # the multiplier of w_i ≥ 0, for i off S
        bad = ~S & (grad < -eps)
        if bad.any():
            S |= bad
            continue
        return out / out.sum()
    return None


def _kkt_solve(P: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, float] | None:
    """``(w, ν)`` with ``P w + c + ν 1 = 0`` and ``Σ w = 1``; ``None`` if not solvable.

    Well-conditioned ``P`` (the usual case): one Cholesky factorisation and the Schur
    complement of the constraint. Near-singular ``P`` (duplicated features): least squares
    on the whole KKT matrix with singular values below ``1e-10`` of the largest dropped —
    the minimum-norm solution, which splits the weight of duplicates equally.
    """
    m = c.size
    scale = max(float(np.abs(P).max()), float(np.abs(c).max()), 1.0)
    eps = 1e-12 * scale * m
    try:
        fac = cho_factor(P, lower=True, check_finite=False)
        d = np.abs(np.diag(fac[0]))
        if d.min() ** 2 < 1e-8 * d.max() ** 2:
            raise LinAlgError("ill-conditioned")
        u = cho_solve(fac, np.ones(m), check_finite=False)
        v = cho_solve(fac, -c, check_finite=False)
        nu = (v.sum() - 1.0) / u.sum()
        w = v - nu * u
    except LinAlgError:
        K = np.zeros((m + 1, m + 1))
        K[:m, :m] = P
        K[:m, m] = K[m, :m] = 1.0
        sol = lstsq(K, np.r_[-c, 1.0], cond=1e-10, lapack_driver="gelsd")[0]
        w, nu = sol[:m], float(sol[m])
    if np.abs(P @ w + c + nu).max() > eps or abs(w.sum() - 1.0) > eps:
        return None
    return w, float(nu)


def rank_weights(w: np.ndarray, F: np.ndarray, k: int, weight_tol: float) -> np.ndarray:
    """Positions of the ``k`` best weights, with QPFS's documented tie rule.

    At each step the remaining weights within ``weight_tol`` of the largest remaining
    one are tied (weights at most ``weight_tol`` are zero: all of them tie); among the
    tied, the largest relevance ``F`` wins, and among relevances equal up to rounding
    (:func:`~skmlfs.selection.argmax_tol`) the lowest position. The solver's accuracy
    is far coarser than the last bits of the weights, so weights that differ by less
    than that must not decide the order (e.g. two identical columns share their weight
    up to the solver's tolerance).
    """
    w = np.where(w > weight_tol, w, 0.0)
    avail = np.ones(w.size, dtype=bool)
    out = np.empty(min(k, w.size), dtype=np.intp)
    for step in range(out.size):
        top = np.max(np.where(avail, w, -np.inf))
        tied = avail & (w >= top - weight_tol)
        i = int(argmax_tol(np.where(tied, F, -np.inf), rtol=TIE_RTOL))
        out[step] = i
        avail[i] = False
    return out


class QPFS(BaseInfoSelector):
    """Multi-label quadratic programming feature selection (Lim, Lee & Kim 2015).

    The feature weights solve (``docs/methods/info.md#qpfs``)::

        min_w  ½(1−α) wᵀ Q w − α Fᵀ w     s.t.  w ≥ 0,  Σ_f w_f = 1

    with ``Q_ij = I(f_i; f_j)`` (``Q_ii = H(f_i)``) and ``F_i = Σ_l I(f_i; l)`` (the AMI
    relevance). Features are ranked by decreasing weight; weights within ``weight_tol``
    of each other are tied (weights at most ``weight_tol`` count as zero) and tied
    weights are ordered by decreasing relevance ``F``, then by index
    (:func:`rank_weights`). Zero-entropy features do not enter the program and are
    never ranked.

    Parameters
    ----------
    n_features_to_select : int, float, str or None, default=None
        Count, fraction, budget string, or ``None`` for ⌈√n_samples⌉.
    alpha : "auto" or float in [0, 1], default="auto"
        Weight of relevance against redundancy. ``"auto"``: ``q̄ / (q̄ + f̄)`` with ``q̄``
        the mean entry of ``Q`` and ``f̄`` the mean of ``F`` (Rodriguez-Lujan et al.
        2010, the QPFS rule).
    tol : float, default=1e-10
        The solver's duality-gap and feasibility tolerances (absolute and relative).
    weight_tol : float, default=1e-6
        Weights within this of each other are tied when ranking, and weights at or
        below it are zero (an interior-point solution has tiny positive values where
        the exact one is zero).
    max_features : int, default=5000
        Refuse more informative features than this (``Q`` takes ``8·d²`` bytes and the
        solver ``O(d³)`` time); raise it knowingly, or pre-filter the features.
    discretizer : "auto", None or transformer, default="auto"
        See :class:`~skmlfs.selection._base.BaseInfoSelector`.

    Attributes
    ----------
    selection_order_ : ndarray of int
        The selected features, largest weight first.
    ranking_ : ndarray of shape (n_features,)
        scikit-learn's ranking, as ``RFE``'s: 1 for the selected features, then 2, 3,
        ... along ``selection_order_``.
    scores_ : ndarray of shape (n_features,)
        The weight ``w_f`` (as returned by the solver, clipped to [0, 1]); NaN for
        zero-entropy features.
    alpha_ : float
        The ``α`` used.
    relevance_ : ndarray of shape (n_features,)
        ``Σ_l I(f; l)`` (bits).
    qp_info_ : dict
        Solver status, the diagonal shift applied to make ``Q`` positive semidefinite
        (0 when it already was), objective value and iterations.
    entropies_ : ndarray of shape (n_features,)
        ``H(f)`` (bits).

    Examples
    --------
    >>> from skmlfs.datasets import make_multilabel_discrete
    >>> from skmlfs.selection import QPFS
    >>> ds = make_multilabel_discrete(random_state=0)
    >>> QPFS(n_features_to_select=4).fit(ds.X, ds.Y).selection_order_.shape
    (4,)
    """

    _parameter_constraints: dict = {
        **BaseInfoSelector._parameter_constraints,
        "alpha": [StrOptions({"auto"}), Number(Real, 0, 1, closed="both")],
        "tol": [Number(Real, 0, 1, closed="neither")],
        "weight_tol": [Number(Real, 0, 1, closed="left")],
        "max_features": [Number(Integral, 1, None, closed="left")],
    }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.selector_tags.scores_meaning = (
            "weight",
            "the quadratic program's weight w_f in [0, 1] (NaN: zero entropy)",
        )
        tags.selector_tags.greedy = False
        return tags

    def __init__(
        self,
        n_features_to_select: Any = None,
        alpha: Any = "auto",
        tol: float = 1e-10,
        weight_tol: float = 1e-6,
        max_features: int = QPFS_MAX_FEATURES,
        discretizer: Any = "auto",
        *,
        categorical_features: Any = None,
        verbose: int = 0,
    ):
        super().__init__(n_features_to_select=n_features_to_select, discretizer=discretizer)
        self.verbose = verbose
        self.categorical_features = categorical_features
        self.alpha = alpha
        self.tol = tol
        self.weight_tol = weight_tol
        self.max_features = max_features

    #: what row-block input would need (the message of the error it raises)
    _row_blocks_need = (
        "its quadratic term is the d × d feature × feature mutual-information matrix "
        "(all pairwise counts), which row-block sources do not count"
    )

    def _per_feature_scores(self, ranking: np.ndarray, values: np.ndarray) -> np.ndarray:
        return self._weights

    def _select(self, cache: InfoCache, k: int):
        d = cache.X.n_vars
        h = cache.h_x
        valid = np.flatnonzero(h > 0)
        p = valid.size
        if p > self.max_features:
            raise ValueError(
                f"QPFS: {p} informative features exceed max_features={self.max_features}: "
                f"the d × d mutual-information matrix alone takes {8 * p * p / 2**20:.0f} "
                "MiB and the solver O(d³) time. Pre-filter the features (e.g. keep the "
                "top ones by MIRank) or raise max_features."
            )
        rel = cache.relevance
        Xv = cache.X.take(valid)
        # all pairwise I(f_i; f_j) from one feature × feature block product
        Q = h[valid, None] + h[None, valid] - joint_entropy(Xv, Xv, base=cache.base)
        Q = 0.5 * (Q + Q.T)  # exact symmetry for the solver (the product is symmetric)
        F = rel[valid]
        if self.alpha == "auto":
            qbar, fbar = float(Q.mean()), float(F.mean())
            alpha = qbar / (qbar + fbar) if qbar + fbar > 0 else 0.5
        else:
            alpha = float(self.alpha)
        w, info = qpfs_weights(Q, F, alpha, tol=self.tol)
        weights = np.full(d, np.nan)
        weights[valid] = w
        ranking = valid[rank_weights(w, F, k, self.weight_tol)]
        self._weights = weights
        self.alpha_ = alpha
        self.relevance_ = rel
        self.qp_info_ = info
        return ranking, weights[ranking]
