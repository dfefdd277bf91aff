"""Ant-colony filters: MLACO (Paniri et al. 2020) and Ant-TD (Paniri et al. 2021).

Both rank features by the pheromone an ant colony deposits on them; they share the colony
(:class:`_AntColony`): the ants' start features, the state transition rule (greedy or
roulette by the explore/exploit coefficient), the visit counts and the global pheromone
update. They differ in the heuristic information: MLACO multiplies the pheromone by a fixed
relevance and an inverse redundancy; Ant-TD learns a state value ``V`` by temporal
difference from a relevance/redundancy reward. ``docs/methods/ant.md``.

All ants of a cycle walk at once: one step of the colony is a few vectorised operations on
an ``(n_ants, d)`` block (no Python loop over ants or features).
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import HasMethods, StrOptions
from sklearn.utils.validation import validate_data

from .._progress import report_step
from .._threads import one_blas_thread
from .._validation import categorical_mask, check_labels, resolve_n_features
from ..info import DiscreteData, InfoCache
from ._base import BaseSelector, Number, degenerate_selection, discretize_features

__all__ = ["MLACO", "AntTD", "abs_correlation", "feature_label_cosine", "minmax"]


# --------------------------------------------------------------------------- heuristics
def minmax(v: np.ndarray) -> np.ndarray:
    """``(v − min v) / (max v − min v)``; a constant ``v`` gives ones.

    ``docs/methods/ant.md#common-machinery``.

    The authors' ``minmax.m`` gives 0/0 = NaN there; ones keep every feature equally
    attractive instead of switching the product heuristic off.
    """
    v = np.asarray(v, dtype=float)
    lo, hi = float(v.min()), float(v.max())
    if not hi > lo:
        return np.ones_like(v)
    return (v - lo) / (hi - lo)


def _col_moments(X: Any) -> tuple[np.ndarray, np.ndarray]:
    n = X.shape[0]
    if sp.issparse(X):
        mean = np.asarray(X.mean(axis=0)).ravel()
        sq = np.asarray(X.multiply(X).sum(axis=0)).ravel() / n
    else:
        mean = X.mean(axis=0)
        sq = np.einsum("ij,ij->j", X, X) / n
    return mean, sq


def abs_correlation(X: Any, Z: Any = None) -> np.ndarray:
    """``|Pearson correlation|`` of every column of ``X`` with every column of ``Z``
    (``X`` itself by default), NaN where a column is constant.

    Sparse ``X`` stays sparse: the correlations come from the product ``XᵀZ`` and the
    column means. The result is dense, ``(d_X, d_Z)``, and the same to the last bit
    whatever the number of BLAS threads (:func:`skmlfs._threads.one_blas_thread`).
    """
    with one_blas_thread():
        return _abs_correlation(X, Z)


def _abs_correlation(X: Any, Z: Any) -> np.ndarray:
    same = Z is None
    n = X.shape[0]
    if not sp.issparse(X):
        X = np.asarray(X, dtype=float)
        Xc = X - X.mean(axis=0)
        sx = np.sqrt(np.einsum("ij,ij->j", Xc, Xc))
        Zc, sz = (Xc, sx) if same else (None, None)
        if not same:
            Zd = Z.toarray() if sp.issparse(Z) else np.asarray(Z, dtype=float)
            Zc = Zd - Zd.mean(axis=0)
            sz = np.sqrt(np.einsum("ij,ij->j", Zc, Zc))
        cov = Xc.T @ Zc
    else:
        X = sp.csc_matrix(X, dtype=float)
        Zs = X if same else (sp.csc_matrix(Z, dtype=float) if sp.issparse(Z) else None)
        mx, qx = _col_moments(X)
        if Zs is not None:
            G = (X.T @ Zs).toarray()
            mz, qz = (mx, qx) if same else _col_moments(Zs)
        else:
            Zd = np.asarray(Z, dtype=float)
            G = np.asarray(X.T @ Zd)
            mz, qz = _col_moments(Zd)
        cov = G - n * np.outer(mx, mz)
        sx = np.sqrt(np.maximum(n * (qx - mx * mx), 0.0))
        sz = np.sqrt(np.maximum(n * (qz - mz * mz), 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.abs(cov) / np.outer(sx, sz)
    r[(sx == 0)[:, None] | (sz == 0)[None, :]] = np.nan
    return np.minimum(r, 1.0)  # rounding may give 1 + 1e-16


def feature_label_cosine(X: Any, Y: Any) -> np.ndarray:
    """``|cos(f, y_l)|`` of every feature with every label, shape (d, q); NaN where a
    column is all zero (sparse ``X`` stays sparse); the same whatever the number of BLAS
    threads (:func:`skmlfs._threads.one_blas_thread`)."""
    with one_blas_thread():
        return _feature_label_cosine(X, Y)


def _feature_label_cosine(X: Any, Y: Any) -> np.ndarray:
    Yf = np.asarray(Y, dtype=float)
    if sp.issparse(X):
        X = sp.csc_matrix(X, dtype=float)
        dots = np.asarray(X.T @ Yf)
        nx = np.sqrt(np.asarray(X.multiply(X).sum(axis=0)).ravel())
    else:
        X = np.asarray(X, dtype=float)
        dots = X.T @ Yf
        nx = np.sqrt(np.einsum("ij,ij->j", X, X))
    ny = np.sqrt((Yf * Yf).sum(axis=0))
    with np.errstate(divide="ignore", invalid="ignore"):
        c = np.abs(dots) / np.outer(nx, ny)
    c[(nx == 0)[:, None] | (ny == 0)[None, :]] = np.nan
    return np.minimum(c, 1.0)


def _max_over_labels(M: np.ndarray) -> np.ndarray:
    """Row maxima ignoring NaN (a constant label or feature); all-NaN rows give 0."""
    M = np.where(np.isnan(M), -np.inf, M)
    out = M.max(axis=1) if M.shape[1] else np.zeros(M.shape[0])
    return np.where(np.isfinite(out), out, 0.0)


def peng_round(X: Any) -> Any:
    """Values rounded half away from zero, as the MI toolbox of the Ant-TD code does
    before counting (``estpab.cpp``); sparse stays sparse."""
    if sp.issparse(X):
        X = sp.csc_matrix(X, dtype=float, copy=True)
        X.data = np.sign(X.data) * np.floor(np.abs(X.data) + 0.5)
        X.eliminate_zeros()
        return X
    X = np.asarray(X, dtype=float)
    return np.sign(X) * np.floor(np.abs(X) + 0.5)


# --------------------------------------------------------------------------- the colony
class _AntColony(BaseSelector):
    """The colony shared by MLACO and Ant-TD (``docs/methods/ant.md#common-machinery``).

    Random stream, per cycle (the tests' loop reference draws the same): the start
    features ``rng.permutation(d)[:m]`` (``m = min(n_ants, d)``), then the path lengths
    (Ant-TD: ``rng.randint(lo, hi + 1, size=m)``), then for each step ``t`` two draws of
    ``m`` uniforms, ``u`` (explore or exploit) and ``v`` (the roulette), whether used
    or not.
    """

    _parameter_constraints: dict = {
        **BaseSelector._parameter_constraints,
        "n_ants": [Number(Integral, 1, None, closed="left")],
        "n_cycles": [Number(Integral, 1, None, closed="left")],
        "decay": [Number(Real, 0, 1, closed="both")],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.selector_tags.scores_meaning = (
            "pheromone", "the final pheromone of the feature (the ranking sorts by it)")
        tags.selector_tags.orders_all_features = True
        return tags

    # q = (1 − (t + _step_offset)/NF)^0.7: MLACO counts steps from 1, Ant-TD from 0
    _step_offset = 0

    def _fit(self, X: Any, Y: Any) -> _AntColony:
        X = validate_data(
            self, X, accept_sparse=["csr", "csc"], dtype=np.float64, ensure_all_finite=True
        )
        Y = check_labels(Y, X.shape[0], warn_empty=True)
        if degenerate_selection(self, X):
            return self
        n, d = X.shape
        rng = check_random_state(self.random_state)
        tau = self._prepare(X, Y)
        history = [tau.copy()]
        m = min(int(self.n_ants), d)
        for cycle in range(int(self.n_cycles)):
            start = rng.permutation(d)[:m]
            nf = self._path_lengths(rng, d, m)
            steps = int(nf.max()) if nf.size else 0
            u = np.empty((steps, m))
            v = np.empty((steps, m))
            for t in range(steps):
                u[t] = rng.random_sample(m)
                v[t] = rng.random_sample(m)
            counts = self._cycle(tau, start, nf, u, v)
            total = counts.sum()
            if total > 0:  # d = 1: no ant can move
                tau = (1.0 - self.decay) * tau + counts / total
            history.append(tau.copy())
            report_step(cycle + 1, int(self.n_cycles), "cycle")
        self.pheromone_history_ = np.asarray(history)
        for name in ("_inv_red", "_red"):  # d x d work arrays: not kept after fit
            self.__dict__.pop(name, None)
        ranking = np.argsort(-tau, kind="stable")
        k = resolve_n_features(self.n_features_to_select, n, d)
        self._set_order(ranking, k=k, n_samples=n, scores=tau)
        return self

    def _cycle(
        self, tau: np.ndarray, start: np.ndarray, nf: np.ndarray, u: np.ndarray, v: np.ndarray
    ) -> np.ndarray:
        """Walk the ``m`` ants of one cycle together; return the visit counts (d,).

        The ants are processed by decreasing path length, so that the ants still walking
        at step ``t`` are the first rows of every ``(m, d)`` block (slices, not copies).
        Each step: the desirability rows (one gather), the mask of visited features (one
        multiply), the greedy choice of the exploiting ants, the cumulative weights of the
        exploring ones.
        """
        m, d = start.size, tau.size
        order = np.argsort(-nf, kind="stable")
        start, nf, u, v = start[order], nf[order], u[:, order], v[:, order]
        avail = np.ones((m, d))
        avail[np.arange(m), start] = 0.0
        cur = start.copy()
        counts = np.zeros(d)
        self._begin_cycle(tau, m)
        for t in range(u.shape[0]):
            na = int(np.count_nonzero(nf > t))
            if na == 0:
                break
            s = slice(0, na)
            w = self._weights(tau, cur[s], s)  # a new (na, d) array, non-negative
            w *= avail[s]
            q = (1.0 - (t + self._step_offset) / nf[s]) ** 0.7
            exploit = u[t, s] > q
            nxt = np.empty(na, dtype=np.intp)
            e = np.flatnonzero(exploit)
            if e.size:
                we = w[e]
                g = np.argmax(we, axis=1)  # first maximum; visited features weigh 0
                # every unvisited weight 0: the first unvisited feature
                none = we[np.arange(e.size), g] <= 0
                if none.any():
                    g[none] = np.argmax(avail[e[none]] > 0, axis=1)
                nxt[e] = g
            r = np.flatnonzero(~exploit)
            if r.size:
                cs = np.cumsum(w[r], axis=1)
                tot = cs[:, -1]
                vr = v[t, r]
                pick = np.argmax(cs > (vr * tot)[:, None], axis=1)
                # no weight left: uniform among the unvisited features (v picks one)
                zero = ~(tot > 0)
                if zero.any():
                    un = avail[r[zero]] > 0
                    k = np.floor(vr[zero] * un.sum(axis=1)).astype(np.intp)
                    rank = np.cumsum(un, axis=1) - 1
                    pick[zero] = np.argmax(un & (rank == k[:, None]), axis=1)
                nxt[r] = pick
            self._after_move(s, cur[s], nxt)
            avail[np.arange(na), nxt] = 0.0
            np.add.at(counts, nxt, 1.0)
            cur[s] = nxt
        self._end_cycle(order)
        return counts

    # hooks -------------------------------------------------------------------
    def _begin_cycle(self, tau: np.ndarray, m: int) -> None:
        pass

    def _after_move(self, s: slice, cur: np.ndarray, nxt: np.ndarray) -> None:
        pass

    def _end_cycle(self, order: np.ndarray) -> None:
        pass


class MLACO(_AntColony):
    """MLACO: ant colony with relevance and redundancy heuristics (Paniri et al. 2020).

    An ant at feature ``i`` moves to an unvisited feature ``j`` with desirability
    ``τ_j · |ρ(i, j)|^(−β) · R_j`` (Eq. ``(M3)`` of ``docs/methods/ant.md#mlaco``):
    ``τ`` the pheromone, started at the min–max-normalised largest ``|cos(f, y_l)|``,
    ``ρ`` the Pearson correlation of two features (redundancy, unsupervised), ``R_j`` the
    largest ``|ρ(f_j, y_l)|`` over the labels (relevance, supervised). It exploits (the
    most desirable feature) with probability ``1 − (1 − t/NF)^0.7`` at step ``t`` of
    ``NF = ⌊path_fraction · d⌋``, otherwise draws by roulette. After each cycle
    ``τ ← (1 − decay) τ + c / Σc`` with ``c`` the visit counts of all ants. Features are
    ranked by the final pheromone.

    Defaults are those of the authors' code (``mohssen00/MLACO`` commit d16c438: 25 ants,
    40 cycles, decay 0.1, NF = ⌊d/2⌋, β = 1). Needs two ``d × d`` matrices (the inverse
    redundancy and the cycle's desirabilities: ``16 d²`` bytes; sparse ``X`` is not
    densified). ``docs/methods/ant.md#mlaco``.

    Parameters
    ----------
    n_features_to_select : int, float, str or None, default=None
        Count, fraction, budget string, or ``None`` for ⌈√n_samples⌉.
    n_ants : int, default=25
        Ants per cycle (at most ``d`` are used: they start on distinct features).
    n_cycles : int, default=40
    decay : float, default=0.1
        Pheromone evaporation rate.
    path_fraction : float, default=0.5
        Each ant visits ``NF = ⌊path_fraction · d⌋`` features (between 1 and ``d − 1``).
    beta : float, default=1.0
        Exponent of the inverse redundancy.
    random_state : int, RandomState instance or None, default=None
    verbose : int, default=0
        Progress on stderr (cycles done, elapsed time): 0 none, 1 a line every few
        seconds, 2 or more every cycle.

    Attributes
    ----------
    selection_order_ : ndarray of int
        Every feature by decreasing final pheromone (ties: lower index first).
    ranking_ : ndarray of shape (n_features,)
        scikit-learn's ranking, as ``RFE``'s: 1 for the selected features, then 2, 3,
        ... along ``selection_order_``.
    scores_ : ndarray of shape (n_features,)
        The final pheromone.
    initial_pheromone_, relevance_ : ndarray of shape (n_features,)
    pheromone_history_ : ndarray of shape (n_cycles + 1, n_features)

    Examples
    --------
    >>> import numpy as np
    >>> from skmlfs.selection import MLACO
    >>> rng = np.random.default_rng(0)
    >>> X = rng.random((40, 6)); Y = (X[:, :2] > 0.5).astype(int)
    >>> MLACO(2, n_cycles=5, random_state=0).fit(X, Y).get_support().sum()
    np.int64(2)
    """

    _parameter_constraints: dict = {
        **_AntColony._parameter_constraints,
        "path_fraction": [Number(Real, 0, 1, closed="right")],
        "beta": [Number(Real, 0, None, closed="left")],
    }
    _step_offset = 1

    def __init__(
        self,
        n_features_to_select: Any = None,
        *,
        n_ants: int = 25,
        n_cycles: int = 40,
        decay: float = 0.1,
        path_fraction: float = 0.5,
        beta: float = 1.0,
        random_state: Any = None,
        verbose: int = 0,
    ):
        self.verbose = verbose
        self.n_features_to_select = n_features_to_select
        self.n_ants = n_ants
        self.n_cycles = n_cycles
        self.decay = decay
        self.path_fraction = path_fraction
        self.beta = beta
        self.random_state = random_state

    def _prepare(self, X: Any, Y: np.ndarray) -> np.ndarray:
        tau0 = minmax(_max_over_labels(feature_label_cosine(X, Y)))
        self.relevance_ = _max_over_labels(abs_correlation(X, Y))
        red = abs_correlation(X)
        red[np.isnan(red)] = 1.0  # a constant feature: as Ant-TD's code, NaN -> 1
        red[red == 0] = 1e-4  # the code's floor before inverting
        self._inv_red = np.power(red, -float(self.beta), out=red)  # in place: one d x d
        self.initial_pheromone_ = tau0
        return tau0.copy()

    def _path_lengths(self, rng: Any, d: int, m: int) -> np.ndarray:
        nf = int(np.clip(np.floor(self.path_fraction * d), 1, max(d - 1, 0)))
        return np.full(m, nf if d > 1 else 0, dtype=np.intp)

    def _begin_cycle(self, tau: np.ndarray, m: int) -> None:
        # tau and R are fixed during a cycle: one d x d product, then one gather per step
        self._W = self._inv_red * (tau * self.relevance_)

    def _weights(self, tau: np.ndarray, cur: np.ndarray, s: slice) -> np.ndarray:
        return self._W[cur]

    def _end_cycle(self, order: np.ndarray) -> None:
        del self._W


class AntTD(_AntColony):
    """Ant-TD: ant colony with a heuristic learned by temporal difference (Paniri et al. 2021).

    Features are the states of an MDP; an ant at ``i`` picks an unvisited ``j`` by the
    desirability ``V_j · τ_j`` (greedy or roulette, as MLACO), receives the reward
    ``r = R_j / (1 + |ρ(i, j)|)`` (``reward="corrected"``) and updates its copy of the
    state values, ``V_i ← V_i + α (r + γ V_j − V_i)`` (TD(0)); after the cycle
    ``V`` is the mean of the ants' copies and ``τ ← (1 − decay) τ + c / Σc``. ``R`` is
    the min–max-normalised largest ``|cos(f, y_l)|``, which also starts ``V``; ``τ``
    starts at the min–max-normalised largest ``I(f; y_l)``. Features are ranked by the
    final pheromone. ``docs/methods/ant.md#ant-td``.

    Defaults are those of the authors' code (``mohssen00/ANT-TD`` commit befaa1c: 50
    ants, 25 cycles, decay 0.2, α = 0.5, γ = 0.8, NF uniform in ⌊d/8⌋..⌊d/6⌋) and of the
    memetic paper's "MLACO" baseline (0.2 / 0.5 / 0.8). Needs the ``d × d`` correlation
    matrix (``8 d²`` bytes; sparse ``X`` is not densified).

    Parameters
    ----------
    n_features_to_select : int, float, str or None, default=None
    n_ants : int, default=50
    n_cycles : int, default=25
    decay : float, default=0.2
    learning_rate : float, default=0.5
        TD step size α.
    discount : float, default=0.8
        TD discount γ.
    min_path_fraction, max_path_fraction : float, default=1/8, 1/6
        Each ant's path length is drawn uniformly from ``⌊min·d⌋ .. ⌊max·d⌋`` (at least
        1, at most ``d − 1``).
    reward : {"corrected", "code"}, default="corrected"
        ``"code"``: the authors' ``(1/1+sim) .* flCorr(next)``, which MATLAB reads as
        ``(1 + |ρ|) · R_j`` (rewarding redundancy); ``"corrected"``: ``R_j / (1 + |ρ|)``.
    discretizer : "round", "auto", None or transformer, default="round"
        Symbols of the features for ``I(f; y_l)``: ``"round"`` rounds to the nearest
        integer (the MI toolbox of the authors' code); otherwise as
        :class:`~skmlfs.selection.SCLS`.
    categorical_features : None, bool mask or int indices, default=None
        Nominal columns, passed through a discretizer unchanged (as in
        :class:`~skmlfs.selection.SCLS`); ``"round"`` leaves integer codes as they are.
    random_state : int, RandomState instance or None, default=None
    verbose : int, default=0
        Progress on stderr (cycles done, elapsed time): 0 none, 1 a line every few
        seconds, 2 or more every cycle.

    Attributes
    ----------
    selection_order_, ranking_, scores_ : as :class:`MLACO` (``scores_`` is the final pheromone)
    values_ : ndarray of shape (n_features,)
        The learned state values ``V``.
    initial_pheromone_, relevance_ : ndarray of shape (n_features,)
    pheromone_history_ : ndarray of shape (n_cycles + 1, n_features)

    Examples
    --------
    >>> import numpy as np
    >>> from skmlfs.selection import AntTD
    >>> rng = np.random.default_rng(0)
    >>> X = rng.integers(0, 3, (40, 12)); Y = (X[:, :2] > 1).astype(int)
    >>> AntTD(2, n_cycles=5, random_state=0).fit(X, Y).get_support().sum()
    np.int64(2)
    """

    _parameter_constraints: dict = {
        **_AntColony._parameter_constraints,
        "learning_rate": [Number(Real, 0, 1, closed="both")],
        "discount": [Number(Real, 0, 1, closed="both")],
        "min_path_fraction": [Number(Real, 0, 1, closed="both")],
        "max_path_fraction": [Number(Real, 0, 1, closed="both")],
        "reward": [StrOptions({"corrected", "code"})],
        "discretizer": [StrOptions({"round", "auto"}), None, HasMethods(["fit", "transform"])],
        # its length depends on the data: checked in fit (categorical_mask)
        "categorical_features": ["array-like", None],
    }

    def __init__(
        self,
        n_features_to_select: Any = None,
        *,
        n_ants: int = 50,
        n_cycles: int = 25,
        decay: float = 0.2,
        learning_rate: float = 0.5,
        discount: float = 0.8,
        min_path_fraction: float = 1 / 8,
        max_path_fraction: float = 1 / 6,
        reward: str = "corrected",
        discretizer: Any = "round",
        categorical_features: Any = None,
        random_state: Any = None,
        verbose: int = 0,
    ):
        self.verbose = verbose
        self.n_features_to_select = n_features_to_select
        self.n_ants = n_ants
        self.n_cycles = n_cycles
        self.decay = decay
        self.learning_rate = learning_rate
        self.discount = discount
        self.min_path_fraction = min_path_fraction
        self.max_path_fraction = max_path_fraction
        self.reward = reward
        self.discretizer = discretizer
        self.categorical_features = categorical_features
        self.random_state = random_state

    def _prepare(self, X: Any, Y: np.ndarray) -> np.ndarray:
        if self.min_path_fraction > self.max_path_fraction:
            raise ValueError(
                f"AntTD: min_path_fraction={self.min_path_fraction} exceeds "
                f"max_path_fraction={self.max_path_fraction}."
            )
        rel = minmax(_max_over_labels(feature_label_cosine(X, Y)))
        red = abs_correlation(X)
        red[np.isnan(red)] = 1.0  # the code's fCorr(isnan(fCorr)) = 1
        red[red == 0] = 1e-4
        self._red = red
        cat = (None if self.categorical_features is None
               else categorical_mask(self.categorical_features, X.shape[1]))
        if isinstance(self.discretizer, str) and self.discretizer == "round":
            Xd = peng_round(X)  # integer nominal codes are left as they are
        else:
            # nominal columns pass through the discretizer unchanged, as in BaseInfoSelector
            Xd = discretize_features(self.discretizer, X, Y, cat)
        mi = InfoCache(DiscreteData.from_array(Xd), DiscreteData.from_array(Y)).mi_xy
        tau0 = minmax(_max_over_labels(np.asarray(mi, dtype=float)))
        self.relevance_ = rel
        self.initial_pheromone_ = tau0
        self.initial_values_ = rel.copy()
        self.values_ = rel.copy()
        return tau0.copy()

    def _path_lengths(self, rng: Any, d: int, m: int) -> np.ndarray:
        top = max(d - 1, 0)
        lo = int(np.clip(np.floor(self.min_path_fraction * d), 1, top)) if top else 0
        hi = max(lo, int(np.clip(np.floor(self.max_path_fraction * d), 1, top))) if top else 0
        return rng.randint(lo, hi + 1, size=m).astype(np.intp)

    def _begin_cycle(self, tau: np.ndarray, m: int) -> None:
        # every ant updates its own copy of V (MATLAB passes V by value to moveAnt)
        self._Vc = np.tile(self.values_, (m, 1))

    def _weights(self, tau: np.ndarray, cur: np.ndarray, s: slice) -> np.ndarray:
        return self._Vc[s] * tau

    def _after_move(self, s: slice, cur: np.ndarray, nxt: np.ndarray) -> None:
        sim = self._red[cur, nxt]
        rel = self.relevance_[nxt]
        r = (1.0 + sim) * rel if self.reward == "code" else rel / (1.0 + sim)
        rows = np.arange(s.stop)
        V = self._Vc
        V[rows, cur] += self.learning_rate * (r + self.discount * V[rows, nxt] - V[rows, cur])

    def _end_cycle(self, order: np.ndarray) -> None:
        # the copies back in the ants' order before averaging (same rounding as a loop)
        self.values_ = self._Vc[np.argsort(order)].mean(axis=0)
        del self._Vc
