"""Sparse-learning (embedded) selectors: RLEFS, MIFS and RALM-FS.

All three learn a coefficient matrix ``W`` (features × labels) by optimising a regularised
objective and rank the features by the row norms of ``W``. The exact definitions (and the
corrections of paper typos) follow ``docs/methods/sparse.md``; equation numbers
refer to Li, Hu & Gao (2022), "Robust multi-label feature selection with shared label
enhancement" (RLEFS).

Implementation notes
--------------------
* No ``n × n`` matrix is ever formed by RLEFS: the reweighting matrices ``D1, D2`` are diagonal
  and applied as row scalings, and ``Xᵀ D1 X W`` is evaluated as ``Xᵀ (d1 ⊙ (X W))``. One RLEFS
  iteration costs two products with ``X`` (``X W`` and ``Xᵀ [D1 F, D1 X W]``), i.e.
  ``O(nnz(X)·q)``, plus ``O((n + d)·q²)`` for the small ``q × q`` products — instead of the
  ``O(d n² + n d²)`` of the paper's literal matrix formulation.
* MIFS needs an instance-level graph: it is built as a sparse ``p``-nearest-neighbour matrix
  (``O(n p)`` memory); distances are computed in row blocks.
* RALM-FS solves with ``(Xcᵀ Xc + I)`` through a Cholesky factor of the smaller of the
  ``d × d`` and the ``n × n`` (Woodbury) system, with ``X`` centred implicitly so sparse input
  stays sparse.
"""

from __future__ import annotations

import numbers
from numbers import Integral
from typing import Any

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_array, validate_data

from skmlfs._validation import check_labels, check_X_Y, resolve_n_features

from .._progress import report_step
from ..neighbors import exact_products, rounding_tie_tol, stable_smallest
from ._base import (
    NON_NEGATIVE,
    POSITIVE,
    BaseSelector,
    Number,
    check_magnitude,
    degenerate_selection,
    scale_huge_columns,
)

__all__ = ["MIFS", "RALMFS", "RLEFS", "fit_settings"]

_BLOCK_ENTRIES = 4_000_000  # entries of one distance block (32 MB in float64)


# --------------------------------------------------------------------------------------
# Shared private helpers: heat-kernel p-NN graph and graph Laplacian
# (docs/methods/sparse.md#graph-construction)
# --------------------------------------------------------------------------------------
def _row_sq_norms(Z: np.ndarray | sp.spmatrix) -> np.ndarray:
    if sp.issparse(Z):
        return np.asarray(Z.multiply(Z).sum(axis=1)).ravel()
    return np.einsum("ij,ij->i", Z, Z)


def _kernel_divisor(sigma: float, kernel_scale: str) -> float:
    if kernel_scale == "sigma2":
        return sigma**2
    if kernel_scale == "2sigma2":
        return 2.0 * sigma**2
    raise ValueError(f"kernel_scale must be 'sigma2' or '2sigma2'; got {kernel_scale!r}.")


def _knn_pairs(Z: Any, n_neighbors: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Directed ``p``-nearest-neighbour pairs between the rows of ``Z``.

    Returns ``(rows, cols, sqdist)``: for every row ``i`` its ``p`` nearest other rows
    ``j`` (squared Euclidean distances), ``p = min(n_neighbors, m − 1)``, row by row in
    ascending ``j``. Neighbours exclude the point itself; distance ties go to the lower
    index, with distances within the rounding of their products taken as ties
    (:func:`skmlfs.neighbors.rounding_tie_tol`; none when the products are exact, e.g. on
    integer data): equal distances of scaled values would otherwise be ordered by rounding,
    and the sparse and dense products round differently. Distances are computed in row
    blocks, so memory is ``O(block · m + m · p)``, never ``m × m`` dense.
    """
    m = Z.shape[0]
    if m <= 1:
        empty = np.zeros(0, dtype=np.intp)
        return empty, empty, np.zeros(0)
    sq = _row_sq_norms(Z)
    p = min(int(n_neighbors), m - 1)
    tol = 0.0 if exact_products(Z) else rounding_tie_tol(Z.shape[1], 2.0 * float(sq.max()))
    rows_all, cols_all, vals_all = [], [], []
    block = max(1, _BLOCK_ENTRIES // m)
    ZT = Z.T.tocsr() if sp.issparse(Z) else Z.T
    for start in range(0, m, block):
        stop = min(m, start + block)
        G = Z[start:stop] @ ZT
        G = G.toarray() if sp.issparse(G) else np.asarray(G)
        D = sq[start:stop, None] + sq[None, :] - 2.0 * G
        np.maximum(D, 0.0, out=D)
        local = np.arange(stop - start)
        D[local, local + start] = np.inf  # a point is not its own neighbour
        if p == m - 1:
            r, c = np.nonzero(np.isfinite(D))
        else:
            # p smallest per row, ties (within the tolerance) towards the lower index
            c = np.sort(stable_smallest(D, p, tol), axis=1).ravel()
            r = np.repeat(local, p)
        rows_all.append(r + start)
        cols_all.append(c)
        vals_all.append(D[r, c])
    return np.concatenate(rows_all), np.concatenate(cols_all), np.concatenate(vals_all)


def _heat_kernel_affinity(
    Z: Any, n_neighbors: int = 5, sigma: float = 1.0, kernel_scale: str = "sigma2"
) -> sp.csr_matrix:
    """Symmetric heat-kernel ``p``-nearest-neighbour affinity between the rows of ``Z``.

    ``S_ij = exp(-‖z_i − z_j‖² / σ²)`` (or ``/(2σ²)``) when ``j`` is among the ``p`` nearest
    rows of ``i`` or ``i`` among those of ``j`` (the "or" rule), else 0; ``S_ii = 0``.
    Neighbours as :func:`_knn_pairs` finds them. When ``m − 1 ≤ p`` every pair is
    connected. Returns a CSR matrix (entries whose kernel value underflows to 0 are not
    stored).
    """
    m = Z.shape[0]
    div = _kernel_divisor(sigma, kernel_scale)
    if m <= 1:
        return sp.csr_matrix((m, m))
    rows, cols, dist = _knn_pairs(Z, n_neighbors)
    S = sp.csr_matrix((np.exp(-dist / div), (rows, cols)), shape=(m, m))
    S = S.maximum(S.T).tocsr()  # symmetric "or" rule (kernel values are symmetric)
    S.eliminate_zeros()
    return S


def _laplacian(S: sp.spmatrix | np.ndarray) -> tuple[Any, np.ndarray]:
    """Return ``(L, a)`` with ``a = S·1`` (degrees) and ``L = diag(a) − S``."""
    a = np.asarray(S.sum(axis=1)).ravel()
    if sp.issparse(S):
        return (sp.diags(a) - S).tocsr(), a
    return np.diag(a) - S, a


def _label_graph(
    Y: np.ndarray,
    n_neighbors: int = 5,
    sigma: float = 1.0,
    kernel_scale: str = "sigma2",
    label_distance: str = "euclidean",
) -> tuple[np.ndarray, np.ndarray]:
    """Label-level affinity ``S`` (``q × q`` dense) and degrees ``a`` (RLEFS Eq. 7).

    The points are the label columns ``Y_{·j} ∈ {0,1}^n``. With ``label_distance="euclidean"``
    (the paper) ``‖Y_{·i} − Y_{·j}‖²`` is the number of patterns on which two labels disagree;
    ``"normalized"`` first scales each column to unit L2 norm (all-zero columns stay zero),
    which keeps the kernel from underflowing with ``σ = 1``.
    """
    Z = np.asarray(Y, dtype=np.float64).T
    if label_distance == "normalized":
        nrm = np.sqrt(_row_sq_norms(Z))
        Z = Z / np.where(nrm > 0, nrm, 1.0)[:, None]
    elif label_distance != "euclidean":
        raise ValueError(
            f"label_distance must be 'euclidean' or 'normalized'; got {label_distance!r}."
        )
    S = _heat_kernel_affinity(Z, n_neighbors, sigma, kernel_scale).toarray()
    return S, S.sum(axis=1)


# --------------------------------------------------------------------------------------
# Small shared utilities
# --------------------------------------------------------------------------------------
def _is_seed(random_state: Any) -> bool:
    """True for an integer seed: then the initial iterates are a function of the seed alone."""
    return isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool)


def fit_settings(estimator: Any, X: Any, Y: Any, settings: Any):
    """Fit ``estimator`` once per parameter setting, sharing the parameter-free work.

    For :class:`RLEFS` and :class:`MIFS` everything that does not depend on the weights being
    tuned — the scaled ``X`` and its transpose, the label graph ``S`` and its Laplacian (RLEFS
    Eq. 7) or the instance graph (MIFS), and the initial iterates when ``random_state`` is an
    integer — is computed once and reused while the parameters in ``_prepare_params`` stay the
    same. Each fit is then bit-for-bit the fit of ``clone(estimator).set_params(**setting)
    .fit(X, Y)``. Other estimators are simply cloned and fitted.

    Parameters
    ----------
    estimator : estimator
        Template; it is cloned, never fitted itself.
    X, Y : array-like or sparse matrix
        Training data, as for ``fit``.
    settings : iterable of dict
        Parameter settings (``set_params`` keyword arguments).

    Yields
    ------
    fitted : estimator
        One fitted clone per setting, in order.
    """
    prep, prep_key = None, None
    for setting in settings:
        est = clone(estimator).set_params(**setting)
        names = getattr(est, "_prepare_params", None)
        if names is None:
            yield est.fit(X, Y)
            continue
        est._validate_params()  # as fit does when it starts
        if est._degenerate(X, Y):  # the same as est.fit(X, Y) on degenerate data
            yield est
            continue
        params = est.get_params(deep=False)
        key = tuple(
            params[n] if n != "random_state" or _is_seed(params[n]) else id(params[n])
            for n in names
        )
        if prep is None or key != prep_key:
            prep, prep_key = est._prepare(X, Y), key
        yield est._fit_prepared(prep)


def _row_norms(M: np.ndarray) -> np.ndarray:
    return np.sqrt(np.einsum("ij,ij->i", M, M))


def _ranking_from_scores(scores: np.ndarray) -> np.ndarray:
    """Descending order of ``scores``; exact ties go to the lower feature index."""
    return np.argsort(-scores, kind="stable")


def _minmax_scale(X: Any, method: str = "RLEFS") -> Any:
    """Scale every column to ``[0, 1]`` (constant columns become 0); sparse stays sparse.

    Sparse input must be non-negative: shifting a column with a negative minimum would turn
    its implicit zeros into non-zeros (densify), so that case is refused.
    """
    if sp.issparse(X):
        X = sp.csr_matrix(X, dtype=np.float64, copy=True)
        if X.nnz and X.data.min() < 0:
            raise ValueError(
                f"{method} needs non-negative features; X is sparse with negative values, and "
                "min-max scaling would densify it. Pass a dense X or shift it first."
            )
        lo = np.asarray(X.min(axis=0).toarray()).ravel()  # 0 for columns with implicit zeros
        hi = np.asarray(X.max(axis=0).toarray()).ravel()
        rng = hi - lo
        inv = np.where(rng > 0, 1.0 / np.where(rng > 0, rng, 1.0), 0.0)
        # lo > 0 only for columns with no implicit zero, so shifting stored data is exact.
        X.data = (X.data - lo[X.indices]) * inv[X.indices]
        X.eliminate_zeros()
        return X
    X = np.asarray(X, dtype=np.float64)
    lo = X.min(axis=0)
    rng = X.max(axis=0) - lo
    inv = np.where(rng > 0, 1.0 / np.where(rng > 0, rng, 1.0), 0.0)
    return (X - lo) * inv


def _float_and_transpose(X: Any) -> tuple[Any, Any]:
    """``X`` as float64 (CSR if sparse) and its transpose (one CSR copy, so that the ``Xᵀ``
    products stay row-major)."""
    if sp.issparse(X):
        X = X.astype(np.float64).tocsr()
        return X, X.T.tocsr()
    X = np.asarray(X, dtype=np.float64)
    return X, X.T


def _quadratic(f0: float, b1: float, c2: float):
    """``η ↦ f0 − 2ηb1 + η²c2``: the exact value of a quadratic objective along a step."""
    return lambda eta: f0 - 2.0 * eta * b1 + eta * eta * c2


#: Graph parameters of RLEFS and MIFS.
_GRAPH_CONSTRAINTS: dict = {
    "n_neighbors": [Number(Integral, 1, None, closed="left")],
    "sigma": [POSITIVE],
    "kernel_scale": [StrOptions({"sigma2", "2sigma2"})],
}


class _RowNormSelector(BaseSelector):
    """Common tail of the embedded selectors: rank every feature by the row norms of ``W``
    (``scores_ = feature_importances_``), keep the top k."""

    _parameter_constraints: dict = {
        **BaseSelector._parameter_constraints,
        "verbose": ["verbose"],
        "max_iter": [Number(Integral, 0, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.selector_tags.scores_meaning = (
            "weight_norm",
            "norm of the feature's row of the learned weight matrix W (the ranking sorts by it)",
        )
        tags.selector_tags.orders_all_features = True
        return tags

    def _degenerate(self, X: Any, Y: Any) -> bool:
        """:func:`degenerate_selection` on validated ``X`` (``Y`` checked as by a fit)."""
        Xv = check_array(X, accept_sparse=["csr", "csc"], dtype="numeric",
                         ensure_all_finite=True, input_name="X")
        if not degenerate_selection(self, Xv):
            return False
        check_labels(Y, Xv.shape[0], warn_empty=True)
        self.feature_importances_ = np.zeros(Xv.shape[1])
        return True

    def _check_X_Y(self, X: Any, Y: Any) -> tuple[Any, np.ndarray]:
        """Validated ``X`` and labels; ``feature_names_in_`` of a DataFrame as well."""
        validate_data(self, X, skip_check_array=True)
        return check_X_Y(X, Y)

    def _fit(self, X: Any, Y: Any) -> _RowNormSelector:
        """Learn ``W`` on ``(X, Y)`` and rank the features."""
        if self._degenerate(X, Y):
            return self
        return self._fit_prepared(self._prepare(X, Y))

    def _finish(self, importances: np.ndarray, n_samples: int, ranking: Any = None,
                k: int | None = None) -> None:
        d = importances.size
        self.feature_importances_ = importances
        self.n_features_in_ = d
        if k is None:
            # fit resolved (and warned about) the budget already
            k = resolve_n_features(self.n_features_to_select, n_samples, d, warn=False)
        if ranking is None:
            ranking = _ranking_from_scores(importances)
        self._set_order(ranking, scores=importances, k=k, n_samples=n_samples)


# --------------------------------------------------------------------------------------
# RLEFS
# --------------------------------------------------------------------------------------
class RLEFS(_RowNormSelector):
    """Robust multi-label feature selection with shared label enhancement (Li, Hu, Gao 2022).

    Minimises (Eq. 11, orthogonality as the penalty of Eq. 14)::

        ‖XW − F‖_{2,1} + α Tr(W L Wᵀ) + β ‖F − YB‖_{2,1} + γ ‖W‖_{2,1} + (λ/2) ‖FᵀF − I‖_F²
        s.t. W, F, B ≥ 0

    with ``W ∈ R^{d×q}``, ``F ∈ R^{n×q}`` (enhanced labels), ``B ∈ R^{q×q}`` and ``L = A − S`` the
    label-level heat-kernel graph Laplacian, by the multiplicative updates of Eq. (17) with the
    reweighting matrices ``D1, D2, D3`` of Eq. (13) recomputed at the start of every iteration.
    The ``W`` numerator uses ``Xᵀ D1 F + α W S`` (the paper prints ``Xᵀ D1 + α W S``, a typo —
    see the gradient in Eq. 15). Features are ranked by ``‖W_{i·}‖₂``.

    Parameters
    ----------
    n_features_to_select : int, float or None, default=None
        Number (int) or fraction (float in (0, 1]) of features kept by ``transform``;
        ``None`` gives ⌈√n_samples⌉. The full ranking is always available in ``selection_order_``.
    alpha, beta, gamma, lambda_ : float, default=0.5
        Weights of the graph term, the label-enhancement term, the row sparsity and the
        orthogonality penalty (the paper's fixed value in its sensitivity study, §5.4).
    n_neighbors : int, default=5
        ``p`` of the label ``p``-nearest-neighbour graph (§5.2).
    sigma : float, default=1.0
        Heat-kernel width (§5.2).
    kernel_scale : {"sigma2", "2sigma2"}, default="sigma2"
        ``exp(−D/σ²)`` or ``exp(−D/(2σ²))``.
    label_distance : {"euclidean", "normalized"}, default="euclidean"
        Distances between raw 0/1 label columns (the paper) or between L2-normalised columns.
        With ``"euclidean"`` and ``σ = 1`` the affinities underflow to ~0 on most data, which
        makes the ``α`` term inert; that is the paper's literal setting.
    scale : bool, default=True
        Min–max scale every feature to ``[0, 1]`` before fitting (the multiplicative updates
        need ``X ≥ 0``). With ``scale=False`` a negative ``X`` is rejected.
    max_iter : int, default=100
    tol : float, default=1e-5
        Stop when ``|J_t − J_{t−1}| ≤ tol · |J_{t−1}|``.
    eps : float, default=1e-8
        ``ε`` of Eq. (13).
    delta : float, default=1e-10
        Constant added to the update denominators.
    random_state : int, RandomState or None, default=None
        Seeds the uniform ``[0, 1)`` initialisation of ``W``, ``F`` and ``B`` (in that order).
    verbose : int, default=0
        Progress of the fit on stderr (steps done, criterion or objective, elapsed time):
        0 none, 1 a line every few seconds, 2 or more every step.

    Attributes
    ----------
    W_, F_, B_ : ndarray
        Final iterates, all non-negative.
    feature_importances_ : ndarray of shape (n_features,)
        ``‖W_{i·}‖₂`` in feature order.
    selection_order_ : ndarray of shape (n_features,)
        Features by decreasing importance (ties: lower index first).
    ranking_ : ndarray of shape (n_features,)
        scikit-learn's ranking, as ``RFE``'s: 1 for the selected features, then 2, 3,
        ... along ``selection_order_``.
    scores_ : ndarray of shape (n_features,)
        ``feature_importances_`` (the score of every feature).
    objective_ : ndarray of shape (``n_iter_ + 1``,)
        Objective value at the initialisation (entry 0) and after each iteration.
    n_iter_ : int
    label_affinity_ : ndarray of shape (n_labels, n_labels)
        The label graph ``S``.

    Notes
    -----
    Memory: the scaled copy of ``X`` (``nnz(X)`` for sparse input) plus ``O((n + d)·q + q²)``;
    no ``n × n`` or ``d × d`` matrix is formed. Time per iteration
    ``O(nnz(X)·q + nnz(Y)·q + (n + d)·q²)``: two products with ``X``, two ``n × q × q``
    products (``FᵀF``, ``F(FᵀF)``) and a few ``d × q × q`` ones.
    """

    _parameter_constraints: dict = {
        **_RowNormSelector._parameter_constraints,
        **_GRAPH_CONSTRAINTS,
        **dict.fromkeys(("alpha", "beta", "gamma", "lambda_", "tol", "eps", "delta"),
                        [NON_NEGATIVE]),
        "label_distance": [StrOptions({"euclidean", "normalized"})],
        "scale": ["boolean"],
    }

    def __sklearn_is_fitted__(self) -> bool:
        # the parameter lambda_ ends in "_" like a fitted attribute, so scikit-learn's
        # default test (any such attribute) would call an unfitted RLEFS fitted
        return hasattr(self, "ranking_")

    def __init__(
        self,
        n_features_to_select: Any = None,
        *,
        alpha: float = 0.5,
        beta: float = 0.5,
        gamma: float = 0.5,
        lambda_: float = 0.5,
        n_neighbors: int = 5,
        sigma: float = 1.0,
        kernel_scale: str = "sigma2",
        label_distance: str = "euclidean",
        scale: bool = True,
        max_iter: int = 100,
        tol: float = 1e-5,
        eps: float = 1e-8,
        delta: float = 1e-10,
        random_state: Any = None,
        verbose: int = 0,
    ) -> None:
        self.n_features_to_select = n_features_to_select
        self.alpha = alpha
        self.beta = beta
        self.gamma = gamma
        self.lambda_ = lambda_
        self.n_neighbors = n_neighbors
        self.sigma = sigma
        self.kernel_scale = kernel_scale
        self.label_distance = label_distance
        self.scale = scale
        self.max_iter = max_iter
        self.tol = tol
        self.eps = eps
        self.delta = delta
        self.random_state = random_state
        self.verbose = verbose

    # Parameters that only enter the parameter-independent preparation (scaled X, label
    # graph, initial iterates); see :func:`fit_settings`.
    _prepare_params = (
        "n_neighbors",
        "sigma",
        "kernel_scale",
        "label_distance",
        "scale",
        "random_state",
    )

    def _prepare(self, X: Any, Y: Any) -> dict:
        """Everything of a fit that does not depend on ``alpha, beta, gamma, lambda_``.

        The min–max scaled ``X`` and its transpose, ``Y`` as CSR and its transpose, the label
        graph ``S``, its degrees ``a`` and Laplacian ``L = A − S`` (Eq. 7), and — when
        ``random_state`` is an integer — the initial ``W, F, B``. Nothing here is modified by
        :meth:`_fit_prepared`, so one preparation serves any number of settings of the four
        weights and gives bit-for-bit the fits of :meth:`fit`.
        """
        X, Yv = self._check_X_Y(X, Y)
        sigma, p = float(self.sigma), int(self.n_neighbors)
        n, d = X.shape

        if self.scale:
            # min-max scaling is scale-invariant: huge columns are first brought down by a
            # power of two (exact), so that max - min cannot overflow
            Xs = _minmax_scale(scale_huge_columns(X))
        else:
            check_magnitude(X, "RLEFS(scale=False)", "forms the products XᵀX and XW")
            Xs = X
            neg = (Xs.data < 0).any() if sp.issparse(Xs) else (np.asarray(Xs) < 0).any()
            if neg:
                raise ValueError(
                    "RLEFS with scale=False needs X >= 0 (the multiplicative updates keep W "
                    "non-negative only then); use scale=True."
                )
        Xs, XsT = _float_and_transpose(Xs)
        # Labels are sparse in most data sets: Y B, Yᵀ D2 F and Yᵀ D2 Y cost O(nnz(Y)·q)
        # instead of O(n q²) with Y in CSR form.
        Yf = sp.csr_matrix(Yv, dtype=np.float64)
        YfT = Yf.T.tocsr()
        q = Yf.shape[1]

        S, a = _label_graph(Yv, p, sigma, self.kernel_scale, self.label_distance)
        prep = {
            "shape": (n, d, q),
            "Xs": Xs,
            "XsT": XsT,
            "Yf": Yf,
            "YfT": YfT,
            "S": S,
            "a": a,
            "Lap": np.diag(a) - S,
            "init": None,
        }
        if _is_seed(self.random_state):
            prep["init"] = self._initial(n, d, q)
        return prep

    def _initial(self, n: int, d: int, q: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        rs = check_random_state(self.random_state)
        return rs.random_sample((d, q)), rs.random_sample((n, q)), rs.random_sample((q, q))

    def _fit_prepared(self, prep: dict) -> RLEFS:
        """Run the updates of Eq. (17) from a :meth:`_prepare` result."""
        alpha, beta, gamma, lam = (float(v) for v in (self.alpha, self.beta, self.gamma,
                                                       self.lambda_))
        tol, eps, delta = float(self.tol), float(self.eps), float(self.delta)
        max_iter = int(self.max_iter)
        n, d, q = prep["shape"]
        resolve_n_features(self.n_features_to_select, n, d)  # validate early
        Xs, XsT, Yf, YfT = prep["Xs"], prep["XsT"], prep["Yf"], prep["YfT"]
        S, a, Lap = prep["S"], prep["a"], prep["Lap"]
        self.label_affinity_ = S

        W, F, B = prep["init"] if prep["init"] is not None else self._initial(n, d, q)
        I_q = np.eye(q)

        def objective(XW, W, F, YB, FtF):
            return (
                _row_norms(XW - F).sum()
                + alpha * np.einsum("ij,ij->", W @ Lap, W)
                + beta * _row_norms(F - YB).sum()
                + gamma * _row_norms(W).sum()
                + 0.5 * lam * np.sum((FtF - I_q) ** 2)
            )

        XW = Xs @ W
        YB = Yf @ B
        FtF = F.T @ F  # kept in step with F: the only O(n q²) products are FᵀF and F(FᵀF)
        obj = [objective(XW, W, F, YB, FtF)]
        n_iter = 0
        for _ in range(max_iter):
            # Eq. (13): diagonal reweighting matrices, stored as vectors.
            d1 = 1.0 / (2.0 * _row_norms(XW - F) + eps)
            d2 = 1.0 / (2.0 * _row_norms(F - YB) + eps)
            d3 = 1.0 / (2.0 * _row_norms(W) + eps)
            # W step: Xᵀ D1 F and Xᵀ D1 X W in one product with Xᵀ.
            T = XsT @ np.hstack([d1[:, None] * F, d1[:, None] * XW])
            num = T[:, :q] + alpha * (W @ S)
            den = T[:, q:] + alpha * (W * a) + gamma * (d3[:, None] * W) + delta
            W = W * (num / den)
            XW = Xs @ W
            # F step (Gauss–Seidel: uses the new W).
            num = d1[:, None] * XW + beta * (d2[:, None] * YB) + lam * F
            den = (d1 + beta * d2)[:, None] * F + lam * (F @ FtF) + delta
            F = F * (num / den)
            FtF = F.T @ F
            # B step (uses the new F): Yᵀ D2 F and (Yᵀ D2 Y) B.
            num = YfT @ (d2[:, None] * F)
            den = (YfT @ Yf.multiply(d2[:, None])).toarray() @ B + delta
            B = B * (num / den)
            YB = Yf @ B
            n_iter += 1
            obj.append(objective(XW, W, F, YB, FtF))
            report_step(n_iter, max_iter, "iteration", upper_bound=True, objective=float(obj[-1]))
            if abs(obj[-2] - obj[-1]) <= tol * abs(obj[-2]):
                break

        self.W_, self.F_, self.B_ = W, F, B
        self.objective_ = np.asarray(obj)
        self.n_iter_ = n_iter
        self._finish(_row_norms(W), n)
        return self


# --------------------------------------------------------------------------------------
# MIFS
# --------------------------------------------------------------------------------------
class MIFS(_RowNormSelector):
    """Multi-label informed feature selection (Jian, Li, Shu, Liu 2016; RLEFS Eq. 1).

    Minimises the smoothed objective::

        ‖XW − V‖_F² + α ‖Y − VB‖_F² + β Tr(Vᵀ L V) + γ Σ_i sqrt(‖W_{i·}‖² + ε)

    (``W ∈ R^{d×c'}``, latent labels ``V ∈ R^{n×c'}``, ``B ∈ R^{c'×q}``; ``L`` the instance-level
    heat-kernel ``p``-NN graph Laplacian on the rows of ``X``) by alternating gradient steps on
    ``W``, ``V`` and ``B`` (in that order), each with an Armijo backtracking step size
    (``c1 = 1e-4``, halving from ``η₀ = 1``). The gradient of the last term is ``2γ D W`` with
    ``D = diag(1 / (2 sqrt(‖W_{i·}‖² + ε)))`` — the reweighting of the original paper. Features
    are ranked by ``‖W_{i·}‖₂²`` (same order as ``‖W_{i·}‖₂``).

    Parameters
    ----------
    n_features_to_select : int, float or None, default=None
    alpha, beta, gamma : float, default=1.0, 0.1, 1.0
        Defaults of MLC_toolbox's ``SetMIFSParameter.m`` (the paper's were not retrievable).
    n_latent : int or None, default=None
        ``c'``; ``None`` gives ``max(1, round(0.3·q))``.
    n_neighbors : int, default=5
    sigma : float, default=1.0
    kernel_scale : {"sigma2", "2sigma2"}, default="2sigma2"
        ``"2sigma2"`` is Deng Cai's ``constructW`` kernel used by MLC_toolbox (``t = 1``).
    max_iter : int, default=500
    tol : float, default=1e-3
        Relative objective change for stopping.
    eps : float, default=1e-3
    random_state : int, RandomState or None
        Seeds the uniform ``[0, 1)`` initialisation of ``W``, ``V``, ``B`` (in that order).
    verbose : int, default=0
        Progress of the fit on stderr (steps done, criterion or objective, elapsed time):
        0 none, 1 a line every few seconds, 2 or more every step.

    Attributes
    ----------
    W_, V_, B_, objective_, n_iter_, feature_importances_ (``‖W_{i·}‖₂²``),
    selection_order_, ranking_, scores_

    Notes
    -----
    Memory: the sparse ``n × n`` graph holds at most ``2 n p`` entries; building it computes
    distances in row blocks (``O(n²·d)`` time once).
    """

    def __init__(
        self,
        n_features_to_select: Any = None,
        *,
        alpha: float = 1.0,
        beta: float = 0.1,
        gamma: float = 1.0,
        n_latent: int | None = None,
        n_neighbors: int = 5,
        sigma: float = 1.0,
        kernel_scale: str = "2sigma2",
        max_iter: int = 500,
        tol: float = 1e-3,
        eps: float = 1e-3,
        random_state: Any = None,
        verbose: int = 0,
    ) -> None:
        self.n_features_to_select = n_features_to_select
        self.alpha = alpha
        self.beta = beta
        self.gamma = gamma
        self.n_latent = n_latent
        self.n_neighbors = n_neighbors
        self.sigma = sigma
        self.kernel_scale = kernel_scale
        self.max_iter = max_iter
        self.tol = tol
        self.eps = eps
        self.random_state = random_state
        self.verbose = verbose

    _parameter_constraints: dict = {
        **_RowNormSelector._parameter_constraints,
        **_GRAPH_CONSTRAINTS,
        **dict.fromkeys(("alpha", "beta", "gamma", "tol"), [NON_NEGATIVE]),
        "eps": [POSITIVE],
        "n_latent": [None, Number(Integral, 1, None, closed="left")],
    }
    _prepare_params = ("n_latent", "n_neighbors", "sigma", "kernel_scale", "random_state")

    def _prepare(self, X: Any, Y: Any) -> dict:
        """Everything of a fit that does not depend on ``alpha, beta, gamma``.

        ``X`` as float (CSR if sparse) and its transpose, the instance graph Laplacian and —
        when ``random_state`` is an integer — the initial ``W, V, B``; never modified by
        :meth:`_fit_prepared` (see :func:`fit_settings`).
        """
        X, Yv = self._check_X_Y(X, Y)
        check_magnitude(X, "MIFS", "forms squared distances (its instance graph) and XᵀX")
        sigma, p = float(self.sigma), int(self.n_neighbors)
        n, d = X.shape
        q = Yv.shape[1]
        if self.n_latent is None:
            k = max(1, int(np.floor(0.3 * q + 0.5)))  # MATLAB round (half away from zero)
        else:
            k = int(self.n_latent)
        X, XT = _float_and_transpose(X)
        S = _heat_kernel_affinity(X, p, sigma, self.kernel_scale)
        Lap, _ = _laplacian(S)
        prep = {
            "shape": (n, d, q, k),
            "X": X,
            "XT": XT,
            "Yf": Yv.astype(np.float64),
            "Lap": Lap,
            "init": None,
        }
        if _is_seed(self.random_state):
            prep["init"] = self._initial(n, d, q, k)
        return prep

    def _initial(self, n: int, d: int, q: int, k: int):
        rs = check_random_state(self.random_state)
        return rs.random_sample((d, k)), rs.random_sample((n, k)), rs.random_sample((k, q))

    def _fit_prepared(self, prep: dict) -> MIFS:
        """Alternating Armijo gradient steps from a :meth:`_prepare` result."""
        alpha, beta, gamma = float(self.alpha), float(self.beta), float(self.gamma)
        tol, eps, max_iter = float(self.tol), float(self.eps), int(self.max_iter)
        n, d, q, k = prep["shape"]
        resolve_n_features(self.n_features_to_select, n, d)
        X, XT, Yf, Lap = prep["X"], prep["XT"], prep["Yf"], prep["Lap"]
        W, V, B = prep["init"] if prep["init"] is not None else self._initial(n, d, q, k)
        c1 = 1e-4

        def reg(W):
            return gamma * np.sqrt(np.einsum("ij,ij->i", W, W) + eps).sum()

        def full(XW, W, V, B, LV):
            return (
                np.sum((XW - V) ** 2)
                + alpha * np.sum((Yf - V @ B) ** 2)
                + beta * np.einsum("ij,ij->", V, LV)
                + reg(W)
            )

        def armijo(f0, gnorm2, f_of):
            # Backtracking from η = 1 by halving; f_of(η) is cheap (precomputed products).
            eta = 1.0
            for _ in range(100):
                if f_of(eta) <= f0 - c1 * eta * gnorm2:
                    return eta
                eta *= 0.5
            return 0.0

        XW = X @ W
        LV = Lap @ V
        obj = [full(XW, W, V, B, LV)]
        n_iter = 0
        for _ in range(max_iter):
            # W block: f(W) = ‖XW − V‖² + γ Σ sqrt(‖W_i‖² + ε)
            Dw = 1.0 / (2.0 * np.sqrt(np.einsum("ij,ij->i", W, W) + eps))
            R = XW - V
            G = 2.0 * (XT @ R + gamma * Dw[:, None] * W)
            XG = X @ G
            f0 = np.sum(R**2) + reg(W)
            eta = armijo(
                f0,
                np.sum(G**2),
                lambda e, R=R, XG=XG, W=W, G=G: np.sum((R - e * XG) ** 2) + reg(W - e * G),
            )
            W = W - eta * G
            XW = XW - eta * XG
            # V block: quadratic in V, so f(V − ηG) = f0 − 2ηb + η²c exactly.
            R = V - XW
            E = V @ B - Yf
            G = 2.0 * (R + alpha * E @ B.T + beta * LV)
            GB = G @ B
            LG = Lap @ G
            f0 = np.sum(R**2) + alpha * np.sum(E**2) + beta * np.einsum("ij,ij->", V, LV)
            b1 = np.sum(R * G) + alpha * np.sum(E * GB) + beta * np.einsum("ij,ij->", G, LV)
            c2 = np.sum(G**2) + alpha * np.sum(GB**2) + beta * np.einsum("ij,ij->", G, LG)
            eta = armijo(f0, np.sum(G**2), _quadratic(f0, b1, c2))
            V = V - eta * G
            LV = LV - eta * LG
            # B block: α‖Y − VB‖², quadratic.
            E = V @ B - Yf
            G = 2.0 * alpha * (V.T @ E)
            VG = V @ G
            f0 = alpha * np.sum(E**2)
            b1 = alpha * np.sum(E * VG)
            c2 = alpha * np.sum(VG**2)
            eta = armijo(f0, np.sum(G**2), _quadratic(f0, b1, c2))
            B = B - eta * G
            n_iter += 1
            obj.append(full(XW, W, V, B, LV))
            report_step(n_iter, max_iter, "iteration", upper_bound=True, objective=float(obj[-1]))
            if abs(obj[-2] - obj[-1]) <= tol * abs(obj[-2]):
                break

        self.W_, self.V_, self.B_ = W, V, B
        self.objective_ = np.asarray(obj)
        self.n_iter_ = n_iter
        self._finish(np.einsum("ij,ij->i", W, W), n)
        return self


# --------------------------------------------------------------------------------------
# RALM-FS
# --------------------------------------------------------------------------------------
class RALMFS(_RowNormSelector):
    """Exact top-k feature selection via the ℓ2,0 constraint (Cai, Nie, Huang 2013; RLEFS Eq. 2).

    Solves ``min ‖Y − XW − 1bᵀ‖_{2,1} s.t. ‖W‖_{2,0} = k`` by the augmented-Lagrangian
    algorithm of the authors' reference code
    (docs/methods/sparse.md#ralm-fs): ``W`` by a ridge-type solve with
    ``(Xcᵀ Xc + I)``, the copy ``V`` projected onto the ``k`` rows of largest norm, the residual
    ``E`` by row shrinkage, multipliers updated and ``μ ← min(1e10, ρ μ)``.

    ``k`` is ``n_features_to_select`` (resolved as for every selector). RALM-FS returns a
    *set*: ``selected_`` (ascending indices) is exactly the support of ``transform``.
    ``selection_order_`` lists the ``k`` selected features first (by ``‖W_{i·}‖₂`` of the last
    iterate, decreasing), then the rest by the same norm — so prefixes shorter than ``k`` are
    an approximation; refit with the smaller ``k`` for the faithful set.

    Parameters
    ----------
    n_features_to_select : int, float or None, default=None
    mu0 : float, default=0.1
    rho : float, default=1.1
    max_iter : int, default=100
        Number of ALM iterations (the reference runs a fixed number).
    random_state : int, RandomState or None
        Seeds the uniform ``[0, 1)`` initialisation of ``V`` then ``E``.
    verbose : int, default=0
        Progress of the fit on stderr (steps done, criterion or objective, elapsed time):
        0 none, 1 a line every few seconds, 2 or more every step.

    Attributes
    ----------
    W_, b_, selected_, objective_ (``Σ_i ‖row_i(Xc V + 1bᵀ − Y)‖₂`` per iteration), n_iter_,
    feature_importances_ (``‖W_{i·}‖₂``), selection_order_, ranking_, scores_

    Notes
    -----
    Memory ``O(min(n, d)²)`` for the Cholesky factor plus ``O((n + d)·q)``; sparse ``X`` is
    centred implicitly and never densified.
    """

    def __init__(
        self,
        n_features_to_select: Any = None,
        *,
        mu0: float = 0.1,
        rho: float = 1.1,
        max_iter: int = 100,
        random_state: Any = None,
        verbose: int = 0,
    ) -> None:
        self.n_features_to_select = n_features_to_select
        self.mu0 = mu0
        self.rho = rho
        self.max_iter = max_iter
        self.random_state = random_state
        self.verbose = verbose

    _parameter_constraints: dict = {
        **_RowNormSelector._parameter_constraints,
        "mu0": [POSITIVE],
        "rho": [Number(numbers.Real, 1, np.inf, closed="left")],
        "max_iter": [Number(Integral, 1, None, closed="left")],
    }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # an exact top-k set: another k needs another solve
        tags.selector_tags.nested_budgets = False
        tags.selector_tags.orders_all_features = False
        return tags

    def _fit(self, X: Any, Y: Any) -> RALMFS:
        """Run the ALM solver for ``k = n_features_to_select`` features."""
        X, Yv = self._check_X_Y(X, Y)
        if degenerate_selection(self, X):
            self.feature_importances_ = np.zeros(X.shape[1])
            return self
        check_magnitude(X, "RALM-FS", "forms the products XᵀX and XW of its augmented Lagrangian")
        mu, rho, max_iter = float(self.mu0), float(self.rho), int(self.max_iter)
        n, d = X.shape
        k = resolve_n_features(self.n_features_to_select, n, d)
        X, XT = _float_and_transpose(X)
        Yf = Yv.astype(np.float64)
        q = Yf.shape[1]
        m = np.asarray(X.mean(axis=0)).ravel()

        # Implicitly centred products: Xc A = X A − 1 (mᵀA),  Xcᵀ T = Xᵀ T − m (1ᵀT).
        def xc(A):
            return X @ A - (m @ A)[None, :]

        def xct(T):
            return XT @ T - np.outer(m, T.sum(axis=0))

        if d <= n:
            Gram = XT @ X
            Gram = Gram.toarray() if sp.issparse(Gram) else np.asarray(Gram)
            Gram = Gram - n * np.outer(m, m) + np.eye(d)
            cf = sla.cho_factor(Gram)

            def solve(R):
                return sla.cho_solve(cf, R)
        else:
            # Woodbury: (XcᵀXc + I)⁻¹ = I − Xcᵀ (I + Xc Xcᵀ)⁻¹ Xc
            K = X @ XT
            K = K.toarray() if sp.issparse(K) else np.asarray(K)
            Xm = np.asarray(X @ m).ravel()
            K = K - Xm[:, None] - Xm[None, :] + m @ m + np.eye(n)
            cf = sla.cho_factor(K)

            def solve(R):
                return R - xct(sla.cho_solve(cf, xc(R)))

        rs = check_random_state(self.random_state)
        V = rs.random_sample((d, q))
        E = rs.random_sample((n, q))
        Lam = np.zeros((d, q))
        Sig = np.zeros((n, q))
        obj = []
        keep = np.arange(k)
        for _ in range(max_iter):
            T = Yf + E - Sig / mu
            b = T.mean(axis=0)
            W = solve(V - Lam / mu + xct(T))
            Z = W + Lam / mu
            keep = np.sort(_ranking_from_scores(np.einsum("ij,ij->i", Z, Z))[:k])
            V = np.zeros_like(Z)
            V[keep] = Z[keep]
            R = xc(W) + b[None, :] - Yf
            Q = R + Sig / mu
            qn = _row_norms(Q)
            safe = np.where(qn > 0, qn, 1.0)
            shrink = np.where(qn > 0, np.maximum(0.0, 1.0 - (1.0 / mu) / safe), 0.0)
            E = shrink[:, None] * Q
            Lam = Lam + mu * (W - V)
            Sig = Sig + mu * (R - E)
            mu = min(1e10, rho * mu)
            obj.append(_row_norms(xc(V) + b[None, :] - Yf).sum())
            report_step(len(obj), max_iter, "iteration", upper_bound=True, objective=float(obj[-1]))

        self.W_, self.b_ = W, b
        self.selected_ = keep
        self.objective_ = np.asarray(obj)
        self.n_iter_ = max_iter
        imp = _row_norms(W)
        in_set = np.zeros(d, dtype=bool)
        in_set[keep] = True
        # Selected first, then the rest, each block by decreasing ‖W_i‖ (ties: lower index).
        self._finish(imp, n, ranking=np.lexsort((np.arange(d), -imp, ~in_set)), k=k)
        return self
