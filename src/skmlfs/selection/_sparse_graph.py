"""Graph-regularised sparse selectors: MSSL (feature manifold) and SSFS (shared latent structure).

Both learn a matrix whose rows belong to the features and rank the features by its row norms,
like RLEFS, MIFS, MDFS and SCMFS (:mod:`skmlfs.selection._sparse_learning`, whose graph,
scaling and row-norm machinery they share). Definitions, sources and every open choice:
``docs/methods/sparse.md#mssl`` and ``docs/methods/sparse.md#ssfs``.

Implementation notes
--------------------
* MSSL's graph is over the *features* (the columns of ``X``): a ``d × d`` sparse ``p``-NN
  Laplacian, built in row blocks of ``Xᵀ``. The bias is eliminated by centring; ``XᵀHX`` and
  ``XᵀHY`` are formed once (``H`` applied as a column-mean correction, so sparse ``X`` stays
  sparse), ``XᵀHX + αL`` is kept as one dense ``d × d`` matrix and every reweighted step
  is one Cholesky solve with its diagonal changed. The objective is evaluated from the
  same ``d × d`` and ``d × q`` quantities, never from an ``n × q`` residual.
* SSFS's graph is over the patterns: a sparse ``p``-NN affinity (``O(n·p)`` memory), distances
  in row blocks. Its multiplicative updates use only products with ``X``, ``Xᵀ``, ``Y``, the
  sparse graph and ``k × k`` Gram matrices (``O((nnz(X) + nnz(Y) + n·p)·k)`` per iteration);
  ``‖X − VQᵀ‖²`` and ``‖Y − VM‖²`` are evaluated from ``‖X‖²``, ``XᵀV``, ``VᵀY`` and
  ``VᵀV`` without forming an ``n × d`` or ``n × q`` product.
"""

from __future__ import annotations

from numbers import Integral
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import StrOptions

from skmlfs._validation import resolve_n_features

from .._progress import report_step
from ..info import TableTooLargeError, max_table_bytes
from ._base import NON_NEGATIVE, POSITIVE, Number, check_magnitude, scale_huge_columns
from ._manifold import _binary_knn_graph, _spd_solve
from ._sparse_learning import (
    _GRAPH_CONSTRAINTS,
    _float_and_transpose,
    _heat_kernel_affinity,
    _is_seed,
    _knn_pairs,
    _laplacian,
    _minmax_scale,
    _row_norms,
    _row_sq_norms,
    _RowNormSelector,
)

__all__ = ["MSSL", "SSFS"]


def _dense(M: Any) -> np.ndarray:
    return M.toarray() if sp.issparse(M) else np.asarray(M)


# --------------------------------------------------------------------------------------
# MSSL
# --------------------------------------------------------------------------------------
class MSSL(_RowNormSelector):
    """Feature manifold learning and sparsity regularisation (Cai, Zhu et al. 2018).

    Minimises (L1), over ``W ∈ R^{d×q}`` and the bias ``b ∈ R^q``::

        ‖XW + 1bᵀ − Y‖_F² + α Tr(Wᵀ L W) + β Σ_i sqrt(‖W_{i·}‖² + ε)

    with ``L`` the Laplacian of a ``p``-nearest-neighbour graph over the *features* (the
    columns of ``X``: features that are close on the data should get similar rows of
    ``W``). The bias has the closed form ``b = (Yᵀ1 − WᵀXᵀ1)/n`` (L2); with it the problem
    is a centred regression (``H = I − 11ᵀ/n``) solved by the reweighted step (L3)::

        W = (XᵀHX + αL + βD)⁻¹ XᵀHY,   D = diag(1 / (2 sqrt(‖W_{i·}‖² + ε)))

    with ``D`` from the previous ``W`` (``D = I`` at the start). Features are ranked by
    ``‖W_{i·}‖₂``. Equation labels are those of ``docs/methods/sparse.md#mssl``.

    Parameters
    ----------
    n_features_to_select : int, float or None, default=None
        Number (int) or fraction (float in (0, 1]) of features kept by ``transform``;
        ``None`` gives ⌈√n_samples⌉. The full ranking is always in ``selection_order_``.
    alpha : float, default=1.0
        Weight of the feature-graph term (the paper tunes it).
    beta : float, default=1.0
        Weight of the row sparsity (the paper tunes it).
    n_neighbors : int, default=10
        ``p`` of the feature graph (the value of a public re-implementation), capped at
        ``d − 1``.
    graph : {"binary", "heat"}, default="binary"
        ``"binary"``: 0/1 weights to the ``p`` nearest features, symmetrised as
        ``(A + Aᵀ)/2`` (the public re-implementation); ``"heat"``: heat-kernel weights
        ``exp(−‖x_{·i} − x_{·j}‖² / t)`` on the symmetric ``p``-NN graph.
    sigma : float, default=1.0
        Kernel width of ``graph="heat"``.
    kernel_scale : {"sigma2", "2sigma2"}, default="sigma2"
        ``t = σ²`` or ``t = 2σ²`` for ``graph="heat"``.
    max_iter : int, default=20
        Number of reweighted steps at most (the re-implementation runs 20).
    tol : float, default=1e-6
        Stop after at least two steps when ``|J_t − J_{t−1}| ≤ tol · |J_{t−1}|``.
    eps : float, default=1e-8
        ``ε`` of the smoothed ``ℓ2,1`` term.
    verbose : int, default=0
        Progress of the fit on stderr (steps done, criterion or objective, elapsed time):
        0 none, 1 a line every few seconds, 2 or more every step.

    Attributes
    ----------
    W_ : ndarray of shape (n_features, n_labels)
    intercept_ : ndarray of shape (n_labels,)
        The bias ``b`` of (L2) for the final ``W``.
    feature_importances_ : ndarray of shape (n_features,)
        ``‖W_{i·}‖₂`` in feature order (= ``scores_``).
    selection_order_, ranking_, scores_ : ndarray of shape (n_features,)
    objective_ : ndarray of shape (``n_iter_``,)
        (L1) after each step.
    n_iter_ : int

    Notes
    -----
    Time: the feature graph ``O(d²·n)`` once (row blocks of ``Xᵀ``; sparse products for
    sparse ``X``), ``XᵀX`` ``O(nnz(X)·d)`` (``O(n·d²)`` dense) once, then per step one
    ``d × d`` Cholesky factorisation ``O(d³/3)`` and ``O(d²·q)`` for the solve and the
    objective. Memory ``O(d² + d·q + d·p)``: the ``d × d`` system is dense, so MSSL suits
    data sets with up to a few thousand features (``d = 10⁴`` needs 0.8 GB per copy); above
    the table budget (:func:`skmlfs.info.max_table_bytes`) for its four ``d × d`` matrices it
    raises :class:`skmlfs.info.TableTooLargeError` before any work.
    """

    def __init__(
        self,
        n_features_to_select: Any = None,
        *,
        alpha: float = 1.0,
        beta: float = 1.0,
        n_neighbors: int = 10,
        graph: str = "binary",
        sigma: float = 1.0,
        kernel_scale: str = "sigma2",
        max_iter: int = 20,
        tol: float = 1e-6,
        eps: float = 1e-8,
        verbose: int = 0,
    ) -> None:
        self.n_features_to_select = n_features_to_select
        self.alpha = alpha
        self.beta = beta
        self.n_neighbors = n_neighbors
        self.graph = graph
        self.sigma = sigma
        self.kernel_scale = kernel_scale
        self.max_iter = max_iter
        self.tol = tol
        self.eps = eps
        self.verbose = verbose

    _parameter_constraints: dict = {
        **_RowNormSelector._parameter_constraints,
        **_GRAPH_CONSTRAINTS,
        "alpha": [NON_NEGATIVE],
        "beta": [POSITIVE],
        "tol": [NON_NEGATIVE],
        "eps": [POSITIVE],
        "graph": [StrOptions({"binary", "heat"})],
        "max_iter": [Number(Integral, 1, None, closed="left")],
    }
    # Parameters of the parameter-independent preparation (see fit_settings).
    _prepare_params = ("n_neighbors", "graph", "sigma", "kernel_scale")

    def _prepare(self, X: Any, Y: Any) -> dict:
        """Everything of a fit that does not depend on ``alpha, beta, eps``: the feature
        Laplacian, ``XᵀHX``, ``XᵀHY`` and ``‖HY‖²``. Never modified by
        :meth:`_fit_prepared`."""
        X, Yv = self._check_X_Y(X, Y)
        check_magnitude(X, "MSSL", "forms squared distances (its feature graph) and XᵀX")
        n, d = X.shape
        q = Yv.shape[1]
        # XᵀHX, XᵀHX + αL and its Cholesky factor are dense d × d (and the Laplacian is
        # densified once): refuse before any work rather than fail part-way
        need = 4 * 8.0 * d * d
        if need > max_table_bytes():
            raise TableTooLargeError(
                f"MSSL: its d × d system XᵀHX + αL + βD (d = {d:,}) is dense and needs "
                f"{need / 2**30:,.1f} GiB held at once, above the budget of "
                f"{max_table_bytes() / 2**30:.1f} GiB (environment variable "
                "SKMLFS_MAX_TABLE_GIB). MSSL is meant for up to a few thousand features "
                "(docs/methods/sparse.md#mssl); select fewer features first or use a "
                "selector whose cost is linear in d."
            )
        X, XT = _float_and_transpose(X)
        # the points of the graph are the features: the rows of Xᵀ
        if self.graph == "binary":
            S = _binary_knn_graph(XT, int(self.n_neighbors))
        else:
            S = _heat_kernel_affinity(XT, int(self.n_neighbors), float(self.sigma),
                                      self.kernel_scale)
        Lap = _laplacian(S)[0]
        m = np.asarray(X.mean(axis=0)).ravel()
        Yf = Yv.astype(np.float64)
        ybar = Yf.mean(axis=0)
        # H X = X − 1mᵀ: XᵀHX = XᵀX − n mmᵀ and XᵀHY = XᵀY − n m ȳᵀ (X never centred)
        C = _dense(XT @ X) - n * np.outer(m, m)
        B = _dense(XT @ Yf) - n * np.outer(m, ybar)
        Yc = Yf - ybar
        return {
            "shape": (n, d, q),
            "C": C,
            "B": B,
            "Lap": Lap,
            "sq_hy": float(np.sum(Yc * Yc)),
            "m": m,
            "ybar": ybar,
        }

    def _fit_prepared(self, prep: dict) -> MSSL:
        """Run the reweighted steps (L3) from a :meth:`_prepare` result."""
        alpha, beta = float(self.alpha), float(self.beta)
        tol, eps, max_iter = float(self.tol), float(self.eps), int(self.max_iter)
        n, d, q = prep["shape"]
        resolve_n_features(self.n_features_to_select, n, d)  # validate early
        B = prep["B"]
        A = prep["C"] + alpha * _dense(prep["Lap"])  # XᵀHX + αL, fixed over the steps
        A_diag = A.diagonal().copy()
        diag = np.diag_indices(d)
        dw = np.ones(d)  # D = I before the first step
        obj: list[float] = []
        n_iter = 0
        W = np.zeros((d, q))
        for _ in range(max_iter):
            A[diag] = A_diag + beta * dw
            W = _spd_solve(A, B)
            A[diag] = A_diag
            # (L1) = Tr(Wᵀ(XᵀHX + αL)W) − 2⟨W, XᵀHY⟩ + ‖HY‖² + β Σ sqrt(‖w_i‖² + ε)
            sq = _row_sq_norms(W)
            val = (np.einsum("ij,ij->", W, A @ W) - 2.0 * np.einsum("ij,ij->", W, B)
                   + prep["sq_hy"] + beta * np.sqrt(sq + eps).sum())
            obj.append(float(val))
            n_iter += 1
            report_step(n_iter, max_iter, "iteration", upper_bound=True, objective=obj[-1])
            if n_iter >= 2 and abs(obj[-1] - obj[-2]) <= tol * abs(obj[-2]):
                break
            dw = 0.5 / np.sqrt(sq + eps)

        self.W_ = W
        self.intercept_ = prep["ybar"] - W.T @ prep["m"]  # (L2)
        self.objective_ = np.asarray(obj)
        self.n_iter_ = n_iter
        self._finish(_row_norms(W), n)
        return self


# --------------------------------------------------------------------------------------
# SSFS
# --------------------------------------------------------------------------------------
def _pattern_affinity(Z: Any, n_neighbors: int, sigma: float, kernel_scale: str) -> sp.csr_matrix:
    """Symmetric ``p``-NN affinity between the rows of ``Z`` ("or" rule, ``S_ii = 0``).

    ``kernel_scale="sigma"``: ``exp(−‖z_i − z_j‖ / σ)`` (the distance, not its square: the
    SSFS re-implementation's kernel); ``"sigma2"`` / ``"2sigma2"``: the heat kernel
    ``exp(−‖z_i − z_j‖² / t)`` of :func:`_heat_kernel_affinity`. Neighbours as
    :func:`_knn_pairs` finds them.
    """
    if kernel_scale != "sigma":
        return _heat_kernel_affinity(Z, n_neighbors, sigma, kernel_scale)
    m = Z.shape[0]
    if m <= 1:
        return sp.csr_matrix((m, m))
    rows, cols, sq = _knn_pairs(Z, n_neighbors)
    S = sp.csr_matrix((np.exp(-np.sqrt(sq) / sigma), (rows, cols)), shape=(m, m))
    S = S.maximum(S.T).tocsr()  # kernel values are symmetric: the union of the p-NN edges
    S.eliminate_zeros()
    return S


class SSFS(_RowNormSelector):
    """Shared latent feature and label structure feature selection (Gao, Li, Hu 2021).

    Non-negative factorisations of the features and of the labels share the latent
    representation ``V`` of the patterns (the "latent structure shared" term), which a
    pattern graph keeps consistent with the original feature space; a row-sparse ``Q``
    holds the features' loadings (F1)::

        min_{V, M, Q ≥ 0}  ‖X − VQᵀ‖_F² + α ‖Y − VM‖_F² + β Tr(Vᵀ L V)
                           + γ Σ_i sqrt(‖Q_{i·}‖² + ε)

    (``V ∈ R^{n×k}``, ``M ∈ R^{k×q}``, ``Q ∈ R^{d×k}``, ``L = A − S`` the Laplacian of a
    ``p``-NN affinity ``S`` over the patterns, ``A = diag(S1)``), by the multiplicative
    updates (F2), in this order::

        V ← V ⊙ (XQ + αYMᵀ + βSV) / (VQᵀQ + αVMMᵀ + βAV)
        M ← M ⊙ VᵀY / (VᵀVM)
        Q ← Q ⊙ XᵀV / (QVᵀV + γDQ)

    with ``D = diag(1 / (2 sqrt(‖Q_{i·}‖² + ε)))`` from the ``Q`` at the start of the
    iteration (``δ`` added to every denominator). Features are ranked by ``‖Q_{i·}‖₂``.
    Labels (F1), (F2) are those of ``docs/methods/sparse.md#ssfs``: the model as a public
    re-implementation states it (the paper's equations could not be checked; **Open**).

    Parameters
    ----------
    n_features_to_select : int, float or None, default=None
        Number (int) or fraction (float in (0, 1]) of features kept by ``transform``;
        ``None`` gives ⌈√n_samples⌉. The full ranking is always in ``selection_order_``.
    alpha, beta, gamma : float, default=0.01, 0.7, 0.9
        Weights of the label factorisation, the graph term and the row sparsity (the
        re-implementation's values; the paper tunes them).
    n_components : int or None, default=None
        ``k``, the dimension of the shared latent space; ``None`` gives the number of
        labels ``q``.
    n_neighbors : int, default=5
        ``p`` of the pattern graph (the re-implementation's value).
    sigma : float, default=30.0
        Kernel width (the re-implementation's value, for ``kernel_scale="sigma"``).
    kernel_scale : {"sigma", "sigma2", "2sigma2"}, default="sigma"
        ``exp(−‖x_i − x_j‖/σ)`` (the re-implementation's kernel), ``exp(−‖x_i − x_j‖²/σ²)``
        or ``exp(−‖x_i − x_j‖²/(2σ²))``.
    scale : bool, default=True
        Min–max scale every feature to ``[0, 1]`` before fitting (the factorisation needs
        ``X ≥ 0``); the graph is built on the scaled features. With ``scale=False`` a
        negative ``X`` is rejected.
    max_iter : int, default=30
        Upper bound on the iterations (the re-implementation runs 30).
    tol : float, default=1e-5
        Stop when ``|J_{t−1} − J_t| ≤ tol · |J_{t−1}|``.
    eps : float, default=1e-8
        ``ε`` of the smoothed ``ℓ2,1`` term.
    delta : float, default=1e-10
        Constant added to the update denominators.
    random_state : int, RandomState or None, default=None
        Seeds the uniform ``[0, 1)`` initialisation of ``V``, ``Q``, ``M`` (in that order).
    verbose : int, default=0
        Progress of the fit on stderr (steps done, criterion or objective, elapsed time):
        0 none, 1 a line every few seconds, 2 or more every step.

    Attributes
    ----------
    V_, M_, Q_ : ndarray
        Final iterates, all non-negative.
    feature_importances_ : ndarray of shape (n_features,)
        ``‖Q_{i·}‖₂`` in feature order (= ``scores_``).
    selection_order_, ranking_, scores_ : ndarray of shape (n_features,)
    objective_ : ndarray of shape (``n_iter_ + 1``,)
        Objective (F1) at the initialisation (entry 0) and after each iteration.
    n_iter_ : int

    Notes
    -----
    Time: the pattern graph ``O(n²·d)`` once (row blocks; sparse products for sparse
    ``X``); per iteration ``O((nnz(X) + nnz(Y) + n·p)·k + (n + d + q)·k²)``. Memory: the
    scaled copy of ``X`` (``nnz(X)`` for sparse input: min–max scaling keeps non-negative
    sparse input sparse), the graph ``O(n·p)`` and ``O((n + d + q)·k)``.
    """

    def __init__(
        self,
        n_features_to_select: Any = None,
        *,
        alpha: float = 0.01,
        beta: float = 0.7,
        gamma: float = 0.9,
        n_components: int | None = None,
        n_neighbors: int = 5,
        sigma: float = 30.0,
        kernel_scale: str = "sigma",
        scale: bool = True,
        max_iter: int = 30,
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
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.sigma = sigma
        self.kernel_scale = kernel_scale
        self.scale = scale
        self.max_iter = max_iter
        self.tol = tol
        self.eps = eps
        self.delta = delta
        self.random_state = random_state
        self.verbose = verbose

    _parameter_constraints: dict = {
        **_RowNormSelector._parameter_constraints,
        **_GRAPH_CONSTRAINTS,
        **dict.fromkeys(("alpha", "beta", "gamma", "tol", "delta"), [NON_NEGATIVE]),
        "eps": [POSITIVE],
        "kernel_scale": [StrOptions({"sigma", "sigma2", "2sigma2"})],
        "n_components": [None, Number(Integral, 1, None, closed="left")],
        "scale": ["boolean"],
    }
    _prepare_params = ("n_components", "n_neighbors", "sigma", "kernel_scale", "scale",
                       "random_state")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.selector_tags.scores_meaning = (
            "weight_norm",
            "norm of the feature's row of the learned loading matrix Q (the ranking sorts "
            "by it)",
        )
        return tags

    def _prepare(self, X: Any, Y: Any) -> dict:
        """The scaled ``X`` (and transpose), ``Y`` as CSR, the pattern graph and its
        degrees, ``‖X‖²``, ``‖Y‖²`` and — when ``random_state`` is an integer — the
        initial ``V, Q, M``."""
        X, Yv = self._check_X_Y(X, Y)
        n, d = X.shape
        if self.scale:
            # min-max scaling is scale-invariant: huge columns first come down by a power
            # of two (exact), so that max − min cannot overflow
            Xs = _minmax_scale(scale_huge_columns(X), "SSFS")
        else:
            check_magnitude(X, "SSFS(scale=False)",
                            "forms squared distances (its graph) and the products XQ, XᵀV")
            neg = (X.data < 0).any() if sp.issparse(X) else (np.asarray(X) < 0).any()
            if neg:
                raise ValueError(
                    "SSFS with scale=False needs X >= 0 (a non-negative factorisation); "
                    "use scale=True."
                )
            Xs = X
        Xs, XsT = _float_and_transpose(Xs)
        S = _pattern_affinity(Xs, int(self.n_neighbors), float(self.sigma), self.kernel_scale)
        Yf = sp.csr_matrix(Yv, dtype=np.float64)  # labels are mostly sparse
        q = Yf.shape[1]
        k = q if self.n_components is None else int(self.n_components)
        sq_x = float(Xs.multiply(Xs).sum()) if sp.issparse(Xs) else float(np.sum(Xs * Xs))
        prep = {
            "shape": (n, d, q, k),
            "X": Xs,
            "XT": XsT,
            "Y": Yf,
            "YT": Yf.T.tocsr(),
            "S": S,
            "deg": np.asarray(S.sum(axis=1)).ravel(),
            "sq_x": sq_x,
            "sq_y": float(Yf.multiply(Yf).sum()),
            "init": None,
        }
        if _is_seed(self.random_state):
            prep["init"] = self._initial(n, d, q, k)
        return prep

    def _initial(self, n: int, d: int, q: int, k: int):
        rs = check_random_state(self.random_state)
        return rs.random_sample((n, k)), rs.random_sample((d, k)), rs.random_sample((k, q))

    def _fit_prepared(self, prep: dict) -> SSFS:
        """Run the multiplicative updates (F2) from a :meth:`_prepare` result."""
        alpha, beta, gamma = float(self.alpha), float(self.beta), float(self.gamma)
        tol, eps, delta = float(self.tol), float(self.eps), float(self.delta)
        max_iter = int(self.max_iter)
        n, d, q, k = prep["shape"]
        resolve_n_features(self.n_features_to_select, n, d)  # validate early
        X, XT, Y, YT, S, deg = (prep[key] for key in ("X", "XT", "Y", "YT", "S", "deg"))
        sq_x, sq_y = prep["sq_x"], prep["sq_y"]
        V, Q, M = prep["init"] if prep["init"] is not None else self._initial(n, d, q, k)

        def objective(V, Q, M, VtV, XtV, VtY, SV):
            # ‖X − VQᵀ‖² = ‖X‖² − 2⟨XᵀV, Q⟩ + ⟨VᵀV, QᵀQ⟩ (likewise for Y): no n × d
            # product; Tr(VᵀLV) = Σ_i a_i ‖v_i‖² − ⟨V, SV⟩
            return float(
                sq_x - 2.0 * np.sum(XtV * Q) + np.sum(VtV * (Q.T @ Q))
                + alpha * (sq_y - 2.0 * np.sum(VtY * M) + np.sum(VtV * (M @ M.T)))
                + beta * (deg @ _row_sq_norms(V) - np.sum(V * SV))
                + gamma * np.sqrt(_row_sq_norms(Q) + eps).sum()
            )

        SV = np.asarray(S @ V)
        obj = [objective(V, Q, M, V.T @ V, np.asarray(XT @ V), np.asarray(YT @ V).T, SV)]
        n_iter = 0
        for _ in range(max_iter):
            dq = 0.5 / np.sqrt(_row_sq_norms(Q) + eps)
            # V step (SV holds S·V for the V of this iteration's start)
            num = np.asarray(X @ Q) + alpha * np.asarray(Y @ M.T) + beta * SV
            den = V @ (Q.T @ Q + alpha * (M @ M.T)) + beta * (deg[:, None] * V) + delta
            V = V * (num / den)
            VtV = V.T @ V
            # M and Q steps (new V)
            VtY = np.asarray(YT @ V).T
            M = M * (VtY / (VtV @ M + delta))
            XtV = np.asarray(XT @ V)
            Q = Q * (XtV / (Q @ VtV + gamma * (dq[:, None] * Q) + delta))
            SV = np.asarray(S @ V)
            n_iter += 1
            obj.append(objective(V, Q, M, VtV, XtV, VtY, SV))
            report_step(n_iter, max_iter, "iteration", upper_bound=True, objective=obj[-1])
            if abs(obj[-2] - obj[-1]) <= tol * abs(obj[-2]):
                break

        self.V_, self.M_, self.Q_ = V, M, Q
        self.objective_ = np.asarray(obj)
        self.n_iter_ = n_iter
        self._finish(_row_norms(Q), n)
        return self
