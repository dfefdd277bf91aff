"""Manifold-regularised and factorisation-based embedded selectors: MDFS and SCMFS.

Both learn a coefficient matrix ``W`` (features × labels or features × latent modes) and
rank the features by its row norms, like RLEFS and MIFS
(:mod:`skmlfs.selection._sparse_learning`, whose graph, scaling and row-norm machinery
they share). Definitions, sources and every open choice: ``docs/methods/sparse.md#mdfs``
and ``docs/methods/sparse.md#scmfs``.

Implementation notes
--------------------
* MDFS's ``F`` step is a Sylvester equation with an ``n × n`` coefficient
  ``L + αH + αI``. It is never formed: in the eigenbasis of the (small, ``q × q``) label
  Laplacian ``L0`` the equation splits into ``q`` shifted systems
  ``(L + s_j I − (α/n) 11ᵀ) f_j = c_j``; the constant direction is solved in closed form
  (``L1 = 0``) and the rest by a block conjugate-gradient solve with the sparse ``p``-NN
  Laplacian (Jacobi preconditioner, warm-started from the previous iterate). The centring
  matrix ``H`` is applied as a column-mean subtraction, so sparse ``X`` stays sparse.
* MDFS's ``W`` step solves with ``αXᵀHX + γD`` (``d × d``, its Gram part formed once) or,
  when ``d > n``, the ``n × n`` Woodbury system.
* SCMFS's multiplicative updates use only products with ``X`` and ``Xᵀ``
  (``O(nnz(X)·k)``) and ``k × k`` Gram matrices; ``‖X − VQ‖²`` is evaluated from
  ``‖X‖²``, ``VᵀX`` and ``VᵀV`` without forming the ``n × d`` product.
"""

from __future__ import annotations

import warnings
from numbers import Integral
from typing import Any

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import StrOptions

from skmlfs._validation import resolve_n_features

from .._progress import report_step
from ._base import NON_NEGATIVE, POSITIVE, Number, check_magnitude, scale_huge_columns
from ._sparse_learning import (
    _float_and_transpose,
    _is_seed,
    _knn_pairs,
    _laplacian,
    _minmax_scale,
    _row_norms,
    _row_sq_norms,
    _RowNormSelector,
)

__all__ = ["MDFS", "SCMFS"]

#: SCMFS keeps the ``d × d`` Gram matrix ``XᵀX`` (at most 128 MiB) up to this many features.
_GRAM_MAX_D = 4096

#: Relative residual at which the conjugate-gradient solve of MDFS's F step stops.
_CG_RTOL = 1e-10


# --------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------
def _binary_knn_graph(Z: Any, n_neighbors: int) -> sp.csr_matrix:
    """``S = (A + Aᵀ)/2`` with ``A_ij = 1`` when row ``j`` is among the ``p`` nearest rows
    of ``i`` (0/1 weights; 1 for mutual neighbours, 1/2 for one-way ones), ``S_ii = 0``.

    The graph of the MDFS authors' ``Laplacian_GK`` routine (despite its name, binary
    weights); neighbours as :func:`_knn_pairs` finds them (``p`` capped at ``m − 1``).
    """
    m = Z.shape[0]
    rows, cols, _ = _knn_pairs(Z, n_neighbors)
    A = sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(m, m))
    return ((A + A.T) * 0.5).tocsr()


def _shifted_pcg(
    Lap: sp.csr_matrix,
    deg: np.ndarray,
    shifts: np.ndarray,
    B: np.ndarray,
    X0: np.ndarray,
    rtol: float = _CG_RTOL,
    max_iter: int | None = None,
) -> tuple[np.ndarray, int, bool]:
    """Solve ``(Lap + shifts[j]·I) x_j = b_j`` for every column ``j`` at once.

    Block of independent preconditioned conjugate-gradient runs (each column its own step
    lengths), Jacobi preconditioner ``deg + shifts[j]``, started from ``X0``. Every
    system is symmetric positive definite (``Lap`` a graph Laplacian, ``shifts > 0``).
    Stops when every column's residual is at most ``rtol·‖b_j‖``. Returns the solution,
    the number of iterations and whether every column converged.
    """
    n, q = B.shape
    if max_iter is None:
        max_iter = max(100, 2 * n)
    pre = 1.0 / (deg[:, None] + shifts[None, :])
    bnorm = np.sqrt(np.einsum("ij,ij->j", B, B))
    target = rtol * bnorm
    X = X0.copy()
    R = B - (Lap @ X + X * shifts)
    rnorm = np.sqrt(np.einsum("ij,ij->j", R, R))
    if np.all(rnorm <= target):
        return X, 0, True
    Z = R * pre
    P = Z.copy()
    rz = np.einsum("ij,ij->j", R, Z)
    for it in range(1, max_iter + 1):
        AP = Lap @ P + P * shifts
        pap = np.einsum("ij,ij->j", P, AP)
        # a converged column (r = 0) has p = 0 too: its step is 0, not 0/0
        step = np.divide(rz, pap, out=np.zeros_like(rz), where=pap > 0)
        X += P * step
        R -= AP * step
        rnorm = np.sqrt(np.einsum("ij,ij->j", R, R))
        if np.all(rnorm <= target):
            return X, it, True
        Z = R * pre
        rz_new = np.einsum("ij,ij->j", R, Z)
        beta = np.divide(rz_new, rz, out=np.zeros_like(rz), where=rz > 0)
        P = Z + P * beta
        rz = rz_new
    return X, max_iter, False


# --------------------------------------------------------------------------------------
# MDFS
# --------------------------------------------------------------------------------------
class MDFS(_RowNormSelector):
    """Manifold regularised discriminative feature selection (Zhang, Luo, Li, Zhou, Li 2019).

    Minimises (M1), over the low-dimensional embedding ``F ∈ R^{n×q}`` and
    ``W ∈ R^{d×q}`` (``b`` eliminated by centring, ``H = I − 11ᵀ/n``)::

        Tr(Fᵀ L F) + α ‖H X W − H F‖_F² + α ‖F − Y‖_F² + β Tr(F L0 Fᵀ)
            + γ Σ_i sqrt(‖W_{i·}‖² + ε)

    with ``L`` the Laplacian of a binary ``p``-NN graph over the patterns (rows of ``X``)
    and ``L0`` that of a binary ``p``-NN graph over the labels (columns of ``Y``). As in
    the authors' code, every iteration first solves the Sylvester equation of the ``F``
    step exactly, ``(L + αH + αI) F + F (βL0) = αHXW + αY`` (M2), then takes the
    reweighted ``W`` step ``W = (αXᵀHX + γD + εI)⁻¹ αXᵀHF`` (M3) with
    ``D = diag(1 / (2 sqrt(‖W_{i·}‖² + ε)))`` from the previous ``W``. Features are ranked
    by ``‖W_{i·}‖₂``. Equation labels (M1)–(M3) are those of ``docs/methods/sparse.md#mdfs``
    (the paper's text was not available; the steps are those of the authors' code).

    Parameters
    ----------
    n_features_to_select : int, float or None, default=None
        Number (int) or fraction (float in (0, 1]) of features kept by ``transform``;
        ``None`` gives ⌈√n_samples⌉. The full ranking is always in ``selection_order_``.
    alpha, beta, gamma : float, default=1.0, 1.0, 0.1
        Weights of the fitting terms, the label-graph term and the row sparsity (the values
        a public copy of the authors' code sets; the paper tunes them).
    n_neighbors : int, default=20
        ``p`` of the pattern graph (the default of the authors' graph routine).
    label_neighbors : int or None, default=None
        ``p`` of the label graph; ``None`` uses ``n_neighbors`` (the authors' code has one
        ``k`` for both graphs). Capped at ``q − 1`` (every pair of labels connected).
    label_coding : {"signed", "binary"}, default="signed"
        ``Y`` in the fitting term ``‖F − Y‖²`` as ``±1`` (the authors' code documents its
        input so) or ``0/1``. The graphs do not depend on it.
    max_iter : int, default=100
        Upper bound on the iterations (the authors' loop has none).
    tol : float, default=1e-3
        Stop after at least two iterations when ``|J_t − J_{t−1}| < tol · |J_{t−1}|`` (the
        authors' rule).
    eps : float, default=2.22e-16
        ``ε`` of the smoothed ``ℓ2,1`` term and of the ridge ``εI`` of the ``W`` step
        (MATLAB's ``eps``, as in the authors' code).
    random_state : int, RandomState or None, default=None
        Seeds the uniform ``[0, 1)`` initial ``W`` (the only random step).
    verbose : int, default=0
        Progress of the fit on stderr (steps done, criterion or objective, elapsed time):
        0 none, 1 a line every few seconds, 2 or more every step.

    Attributes
    ----------
    W_ : ndarray of shape (n_features, n_labels)
    F_ : ndarray of shape (n_samples, n_labels)
        The embedding of the last iteration.
    feature_importances_ : ndarray of shape (n_features,)
        ``‖W_{i·}‖₂`` in feature order (= ``scores_``).
    selection_order_, ranking_, scores_ : ndarray of shape (n_features,)
    objective_ : ndarray of shape (``n_iter_``,)
        Objective after each iteration (there is no value at the initialisation: ``F`` is
        first computed by the first iteration).
    n_iter_ : int

    Notes
    -----
    Time: the pattern graph ``O(n²·d)`` once (row blocks; sparse products for sparse
    ``X``); per iteration ``O(t·nnz(L)·q)`` for ``t`` conjugate-gradient steps, plus
    ``O(nnz(X)·q + d²·q + d³/3)`` for the ``W`` step (``O(n²·d + n³/3)`` when ``d > n``).
    Memory: ``O(n·p + (n + d)·q)`` plus the ``d × d`` Gram matrix (``n × n`` when
    ``d > n``); sparse ``X`` is centred implicitly and never densified.
    """

    def __init__(
        self,
        n_features_to_select: Any = None,
        *,
        alpha: float = 1.0,
        beta: float = 1.0,
        gamma: float = 0.1,
        n_neighbors: int = 20,
        label_neighbors: int | None = None,
        label_coding: str = "signed",
        max_iter: int = 100,
        tol: float = 1e-3,
        eps: float = float(np.finfo(np.float64).eps),
        random_state: Any = None,
        verbose: int = 0,
    ) -> None:
        self.n_features_to_select = n_features_to_select
        self.alpha = alpha
        self.beta = beta
        self.gamma = gamma
        self.n_neighbors = n_neighbors
        self.label_neighbors = label_neighbors
        self.label_coding = label_coding
        self.max_iter = max_iter
        self.tol = tol
        self.eps = eps
        self.random_state = random_state
        self.verbose = verbose

    _parameter_constraints: dict = {
        **_RowNormSelector._parameter_constraints,
        "alpha": [POSITIVE],
        **dict.fromkeys(("beta", "gamma", "tol"), [NON_NEGATIVE]),
        "eps": [POSITIVE],
        "n_neighbors": [Number(Integral, 1, None, closed="left")],
        "label_neighbors": [None, Number(Integral, 1, None, closed="left")],
        "label_coding": [StrOptions({"signed", "binary"})],
        "max_iter": [Number(Integral, 1, None, closed="left")],
    }
    # Parameters of the parameter-independent preparation (see fit_settings).
    _prepare_params = ("n_neighbors", "label_neighbors", "random_state")

    def _prepare(self, X: Any, Y: Any) -> dict:
        """Everything of a fit that does not depend on ``alpha, beta, gamma, eps``.

        ``X`` as float and its transpose, column means, the pattern-graph Laplacian and
        degrees, the label Laplacian's eigendecomposition, ``XᵀX`` (when ``d ≤ n``) and —
        when ``random_state`` is an integer — the initial ``W``. Never modified by
        :meth:`_fit_prepared`.
        """
        X, Yv = self._check_X_Y(X, Y)
        check_magnitude(X, "MDFS", "forms squared distances (its pattern graph) and XᵀX")
        n, d = X.shape
        q = Yv.shape[1]
        X, XT = _float_and_transpose(X)
        p_label = self.n_neighbors if self.label_neighbors is None else self.label_neighbors
        Lap, deg = _laplacian(_binary_knn_graph(X, int(self.n_neighbors)))
        # label points are the columns of Y; ±1 or 0/1 coding gives the same neighbours
        L0 = _laplacian(_binary_knn_graph(Yv.T.astype(np.float64), int(p_label)))[0]
        lam0, U = np.linalg.eigh(L0.toarray())
        prep = {
            "shape": (n, d, q),
            "X": X,
            "XT": XT,
            "mean": np.asarray(X.mean(axis=0)).ravel(),
            "Y01": Yv.astype(np.float64),
            "Lap": Lap,
            "deg": deg,
            "L0": L0.toarray(),
            "lam0": np.maximum(lam0, 0.0),  # a Laplacian is PSD; drop rounding below 0
            "U": U,
            "gram": None,
            "init": None,
        }
        if d <= n:
            G = XT @ X
            prep["gram"] = G.toarray() if sp.issparse(G) else np.asarray(G)
        if _is_seed(self.random_state):
            prep["init"] = self._initial(d, q)
        return prep

    def _initial(self, d: int, q: int) -> np.ndarray:
        return check_random_state(self.random_state).random_sample((d, q))

    def _w_step(self, prep: dict, F: np.ndarray, W: np.ndarray, alpha: float, gamma: float,
                eps: float) -> np.ndarray:
        """``W = (αXᵀHX + γD + εI)⁻¹ αXᵀHF`` with ``D`` from the current ``W``."""
        X, XT, m = prep["X"], prep["XT"], prep["mean"]
        n = X.shape[0]
        dg = gamma * 0.5 / np.sqrt(_row_sq_norms(W) + eps) + eps  # diagonal of γD + εI
        XtHF = XT @ F - np.outer(m, F.sum(axis=0))  # XᵀHF = XᵀF − m (1ᵀF)
        if prep["gram"] is not None:
            M = alpha * (prep["gram"] - n * np.outer(m, m))
            M[np.diag_indices_from(M)] += dg
            return _spd_solve(M, alpha * XtHF)
        # d > n, push-through identity: (Dg + αXcᵀXc)⁻¹ αXcᵀF = α Dg⁻¹ Xcᵀ (I + α Xc Dg⁻¹ Xcᵀ)⁻¹ F
        inv = 1.0 / dg
        XD = X.multiply(inv[None, :]).tocsr() if sp.issparse(X) else X * inv
        K = XD @ XT
        K = K.toarray() if sp.issparse(K) else np.asarray(K)
        u = np.asarray(X @ (inv * m)).ravel()
        K = K - u[:, None] - u[None, :] + float(m @ (inv * m))
        K *= alpha
        K[np.diag_indices_from(K)] += 1.0
        T = _spd_solve(K, F)
        return alpha * inv[:, None] * (XT @ T - np.outer(m, T.sum(axis=0)))

    def _fit_prepared(self, prep: dict) -> MDFS:
        """Alternate the exact ``F`` step and the reweighted ``W`` step."""
        alpha, beta, gamma = float(self.alpha), float(self.beta), float(self.gamma)
        tol, eps, max_iter = float(self.tol), float(self.eps), int(self.max_iter)
        n, d, q = prep["shape"]
        resolve_n_features(self.n_features_to_select, n, d)  # validate early
        X, Lap, deg, L0 = prep["X"], prep["Lap"], prep["deg"], prep["L0"]
        lam0, U = prep["lam0"], prep["U"]
        Yc = 2.0 * prep["Y01"] - 1.0 if self.label_coding == "signed" else prep["Y01"]
        W = prep["init"] if prep["init"] is not None else self._initial(d, q)
        # In L0's eigenbasis column j of the F equation is
        # (L + s_j I − (α/n)11ᵀ) f_j = c_j with s_j = 2α + βλ_j; on constants the
        # operator is (α + βλ_j)·I (L1 = 0), on their complement it is L + s_j I.
        shifts = 2.0 * alpha + beta * lam0
        const_div = alpha + beta * lam0
        Fp = np.zeros((n, q))  # warm start of the conjugate-gradient solves
        XW = np.asarray(X @ W)
        obj: list[float] = []
        n_iter = 0
        for _ in range(max_iter):
            C = alpha * (XW - XW.mean(axis=0)) + alpha * Yc  # αHXW + αY
            Ct = C @ U
            mu = Ct.mean(axis=0)
            Fp, _, ok = _shifted_pcg(Lap, deg, shifts, Ct - mu, Fp)
            if not ok:
                warnings.warn(
                    "MDFS: the conjugate-gradient solve of the F step did not reach its "
                    "tolerance; increase alpha (the systems are then better conditioned).",
                    ConvergenceWarning, stacklevel=2,
                )
            F = (Fp + mu / const_div) @ U.T
            W = self._w_step(prep, F, W, alpha, gamma, eps)
            XW = np.asarray(X @ W)
            R = XW - F
            R -= R.mean(axis=0)
            val = (
                np.einsum("ij,ij->", F, Lap @ F)
                + alpha * np.einsum("ij,ij->", R, R)
                + alpha * np.sum((F - Yc) ** 2)
                + beta * np.einsum("ij,ij->", F @ L0, F)
                + gamma * np.sqrt(_row_sq_norms(W) + eps).sum()
            )
            obj.append(float(val))
            n_iter += 1
            report_step(n_iter, max_iter, "iteration", upper_bound=True, objective=obj[-1])
            if n_iter >= 2 and abs(obj[-1] - obj[-2]) < tol * abs(obj[-2]):
                break

        self.W_, self.F_ = W, F
        self.objective_ = np.asarray(obj)
        self.n_iter_ = n_iter
        self._finish(_row_norms(W), n)
        return self


def _spd_solve(M: np.ndarray, R: np.ndarray) -> np.ndarray:
    """``M⁻¹R`` for a symmetric positive-definite ``M`` (Cholesky); a least-squares solve
    when rounding makes the factorisation fail (e.g. ``gamma = 0`` with collinear
    features)."""
    try:
        return sla.cho_solve(sla.cho_factor(M, check_finite=False), R, check_finite=False)
    except np.linalg.LinAlgError:
        return np.linalg.lstsq(M, R, rcond=None)[0]


# --------------------------------------------------------------------------------------
# SCMFS
# --------------------------------------------------------------------------------------
class SCMFS(_RowNormSelector):
    """Multi-label feature selection with shared common mode (Hu, Li, Gao, Zhang, Hu 2020).

    Coupled non-negative matrix factorisation: the feature matrix and the label matrix
    share the latent factor ``V`` (the "common mode"), and a row-sparse ``W`` maps the
    features onto it (S1)::

        min_{W, V, Q, B ≥ 0}  ‖XW − V‖_F² + α ‖X − VQ‖_F² + β ‖Y − VB‖_F²
                              + γ Σ_i sqrt(‖W_{i·}‖² + ε)

    (``W ∈ R^{d×k}``, ``V ∈ R^{n×k}``, ``Q ∈ R^{k×d}``, ``B ∈ R^{k×q}``), by the
    multiplicative updates (S2), in this order::

        W ← W ⊙ XᵀV / (XᵀXW + γDW)
        V ← V ⊙ (XW + αXQᵀ + βYBᵀ) / (V + αVQQᵀ + βVBBᵀ)
        Q ← Q ⊙ VᵀX / (VᵀVQ)
        B ← B ⊙ VᵀY / (VᵀVB)

    with ``D = diag(1 / (2 sqrt(‖W_{i·}‖² + ε)))`` from the ``W`` at the start of the
    iteration (``δ`` added to every denominator). Features are ranked by ``‖W_{i·}‖₂``.
    Labels (S1), (S2) are those of ``docs/methods/sparse.md#scmfs``: the model as a public
    re-implementation states it (the paper's equations could not be checked; **Open**).

    Parameters
    ----------
    n_features_to_select : int, float or None, default=None
    alpha, beta, gamma : float, default=0.1
        Weights of the feature factorisation, the label factorisation and the row
        sparsity (the public re-implementation's values; the paper tunes them).
    n_components : int or None, default=None
        ``k``, the number of shared modes; ``None`` gives the number of labels ``q``.
    scale : bool, default=True
        Min–max scale every feature to ``[0, 1]`` before fitting (the factorisation needs
        ``X ≥ 0``). With ``scale=False`` a negative ``X`` is rejected.
    max_iter : int, default=100
    tol : float, default=1e-5
        Stop when ``|J_{t−1} − J_t| ≤ tol · |J_{t−1}|``.
    eps : float, default=1e-8
        ``ε`` of the smoothed ``ℓ2,1`` term.
    delta : float, default=1e-10
        Constant added to the update denominators.
    random_state : int, RandomState or None, default=None
        Seeds the uniform ``[0, 1)`` initialisation of ``W``, ``V``, ``Q``, ``B`` (in
        that order).
    verbose : int, default=0
        Progress of the fit on stderr (steps done, criterion or objective, elapsed time):
        0 none, 1 a line every few seconds, 2 or more every step.

    Attributes
    ----------
    W_, V_, Q_, B_ : ndarray
        Final iterates, all non-negative.
    feature_importances_ : ndarray of shape (n_features,)
        ``‖W_{i·}‖₂`` in feature order (= ``scores_``).
    selection_order_, ranking_, scores_ : ndarray of shape (n_features,)
    objective_ : ndarray of shape (``n_iter_ + 1``,)
        Objective at the initialisation (entry 0) and after each iteration.
    n_iter_ : int

    Notes
    -----
    Time per iteration ``O(nnz(X)·k + nnz(Y)·k + (n + d + q)·k²)``: four products with
    ``X`` or ``Xᵀ``, two with ``Y``, and ``k × k`` Gram matrices. Memory: the scaled copy
    of ``X`` (``nnz(X)`` for sparse input; min–max scaling keeps non-negative sparse
    input sparse) plus ``O((n + d + q)·k)``, and the ``d × d`` Gram matrix ``XᵀX`` when
    ``d ≤ 4096`` (then ``XᵀXW`` is one dense product, ``O(d²·k)``).
    """

    def __init__(
        self,
        n_features_to_select: Any = None,
        *,
        alpha: float = 0.1,
        beta: float = 0.1,
        gamma: float = 0.1,
        n_components: int | None = None,
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
        self.n_components = n_components
        self.scale = scale
        self.max_iter = max_iter
        self.tol = tol
        self.eps = eps
        self.delta = delta
        self.random_state = random_state
        self.verbose = verbose

    _parameter_constraints: dict = {
        **_RowNormSelector._parameter_constraints,
        **dict.fromkeys(("alpha", "beta", "gamma", "tol", "delta"), [NON_NEGATIVE]),
        "eps": [POSITIVE],
        "n_components": [None, Number(Integral, 1, None, closed="left")],
        "scale": ["boolean"],
    }
    _prepare_params = ("n_components", "scale", "random_state")

    def _prepare(self, X: Any, Y: Any) -> dict:
        """The scaled ``X`` (and transpose), ``Y`` as CSR, ``‖X‖²``, ``‖Y‖²`` and — when
        ``random_state`` is an integer — the initial ``W, V, Q, B``."""
        X, Yv = self._check_X_Y(X, Y)
        n, d = X.shape
        if self.scale:
            # min-max scaling is scale-invariant: huge columns first come down by a power
            # of two (exact), so that max − min cannot overflow
            Xs = _minmax_scale(scale_huge_columns(X), "SCMFS")
        else:
            check_magnitude(X, "SCMFS(scale=False)", "forms the products XᵀXW and VᵀX")
            neg = (X.data < 0).any() if sp.issparse(X) else (np.asarray(X) < 0).any()
            if neg:
                raise ValueError(
                    "SCMFS with scale=False needs X >= 0 (a non-negative factorisation); "
                    "use scale=True."
                )
            Xs = X
        Xs, XsT = _float_and_transpose(Xs)
        Yf = sp.csr_matrix(Yv, dtype=np.float64)  # labels are mostly sparse
        q = Yf.shape[1]
        k = q if self.n_components is None else int(self.n_components)
        sq_x = float(Xs.multiply(Xs).sum()) if sp.issparse(Xs) else float(np.sum(Xs * Xs))
        gram = None
        if d <= _GRAM_MAX_D:
            # XᵀXW by a dense (threaded) product with the Gram matrix instead of two
            # single-threaded sparse products per iteration
            G = XsT @ Xs
            gram = G.toarray() if sp.issparse(G) else np.asarray(G)
        prep = {
            "shape": (n, d, q, k),
            "gram": gram,
            "X": Xs,
            "XT": XsT,
            "Y": Yf,
            "YT": Yf.T.tocsr(),
            "sq_x": sq_x,
            "sq_y": float(Yf.multiply(Yf).sum()),
            "init": None,
        }
        if _is_seed(self.random_state):
            prep["init"] = self._initial(n, d, q, k)
        return prep

    def _initial(self, n: int, d: int, q: int, k: int):
        rs = check_random_state(self.random_state)
        return (rs.random_sample((d, k)), rs.random_sample((n, k)),
                rs.random_sample((k, d)), rs.random_sample((k, q)))

    def _fit_prepared(self, prep: dict) -> SCMFS:
        """Run the multiplicative updates from a :meth:`_prepare` result."""
        alpha, beta, gamma = float(self.alpha), float(self.beta), float(self.gamma)
        tol, eps, delta = float(self.tol), float(self.eps), float(self.delta)
        max_iter = int(self.max_iter)
        n, d, q, k = prep["shape"]
        resolve_n_features(self.n_features_to_select, n, d)  # validate early
        X, XT, Y, YT = prep["X"], prep["XT"], prep["Y"], prep["YT"]
        sq_x, sq_y = prep["sq_x"], prep["sq_y"]
        W, V, Q, B = prep["init"] if prep["init"] is not None else self._initial(n, d, q, k)
        I_k = np.eye(k)

        def objective(XW, W, VtV, VtX, VtY, Q, B):
            # ‖X − VQ‖² = ‖X‖² − 2⟨VᵀX, Q⟩ + ⟨VᵀV, QQᵀ⟩ (likewise for Y): no n × d product
            return (
                np.sum((XW - V) ** 2)
                + alpha * (sq_x - 2.0 * np.sum(VtX * Q) + np.sum(VtV * (Q @ Q.T)))
                + beta * (sq_y - 2.0 * np.sum(VtY * B) + np.sum(VtV * (B @ B.T)))
                + gamma * np.sqrt(_row_sq_norms(W) + eps).sum()
            )

        XW = np.asarray(X @ W)
        VtX = np.asarray(XT @ V).T
        obj = [objective(XW, W, V.T @ V, VtX, np.asarray(YT @ V).T, Q, B)]
        n_iter = 0
        for _ in range(max_iter):
            dw = 1.0 / (2.0 * np.sqrt(_row_sq_norms(W) + eps))
            # W step: XᵀV with the V of this iteration's start (VtX holds it)
            XtXW = prep["gram"] @ W if prep["gram"] is not None else np.asarray(XT @ XW)
            den = XtXW + gamma * (dw[:, None] * W) + delta
            W = W * (VtX.T / den)
            XW = np.asarray(X @ W)
            # V step (new W)
            num = XW + alpha * np.asarray(X @ Q.T) + beta * np.asarray(Y @ B.T)
            den = V @ (I_k + alpha * (Q @ Q.T) + beta * (B @ B.T)) + delta
            V = V * (num / den)
            VtV = V.T @ V
            # Q and B steps (new V)
            VtX = np.asarray(XT @ V).T
            Q = Q * (VtX / (VtV @ Q + delta))
            VtY = np.asarray(YT @ V).T
            B = B * (VtY / (VtV @ B + delta))
            n_iter += 1
            obj.append(objective(XW, W, VtV, VtX, VtY, Q, B))
            report_step(n_iter, max_iter, "iteration", upper_bound=True, objective=float(obj[-1]))
            if abs(obj[-2] - obj[-1]) <= tol * abs(obj[-2]):
                break

        self.W_, self.V_, self.Q_, self.B_ = W, V, Q, B
        self.objective_ = np.asarray(obj)
        self.n_iter_ = n_iter
        self._finish(_row_norms(W), n)
        return self
