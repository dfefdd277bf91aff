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
"""

from __future__ import annotations

from numbers import Integral
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.utils._param_validation import StrOptions

from skmlfs._validation import resolve_n_features

from .._progress import report_step
from ._base import NON_NEGATIVE, POSITIVE, Number, check_magnitude
from ._manifold import _binary_knn_graph, _spd_solve
from ._sparse_learning import (
    _GRAPH_CONSTRAINTS,
    _float_and_transpose,
    _heat_kernel_affinity,
    _laplacian,
    _row_norms,
    _row_sq_norms,
    _RowNormSelector,
)

__all__ = ["MSSL"]


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
    objective_ : ndarray of shape (n_iter_,)
        (L1) after each step.
    n_iter_ : int

    Notes
    -----
    Time: the feature graph ``O(d²·n)`` once (row blocks of ``Xᵀ``; sparse products for
    sparse ``X``), ``XᵀX`` ``O(nnz(X)·d)`` (``O(n·d²)`` dense) once, then per step one
    ``d × d`` Cholesky factorisation ``O(d³/3)`` and ``O(d²·q)`` for the solve and the
    objective. Memory ``O(d² + d·q + d·p)``: the ``d × d`` system is dense, so MSSL suits
    data sets with up to a few thousand features (``d = 10⁴`` needs 0.8 GB per copy).
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
            report_step(n_iter, max_iter, "iteration", objective=obj[-1])
            if n_iter >= 2 and abs(obj[-1] - obj[-2]) <= tol * abs(obj[-2]):
                break
            dw = 0.5 / np.sqrt(sq + eps)

        self.W_ = W
        self.intercept_ = prep["ybar"] - W.T @ prep["m"]  # (L2)
        self.objective_ = np.asarray(obj)
        self.n_iter_ = n_iter
        self._finish(_row_norms(W), n)
        return self
