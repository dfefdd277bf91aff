"""Graph-regularised embedded selectors of 2021–2024: SLOFS.

SLOFS learns, like MDFS and SCMFS (:mod:`skmlfs.selection._manifold`), a coefficient
matrix ``W`` (features × latent dimensions) and ranks the features by its row norms; the
``p``-NN heat-kernel graph, the graph Laplacian and the row-norm machinery are those of
:mod:`skmlfs.selection._sparse_learning`. Definition, source and every open choice:
``docs/methods/sparse.md#slofs``.

Implementation notes
--------------------
* The pattern graph ``Lx`` is a sparse ``p``-NN Laplacian (``O(n·p)`` memory); its largest
  eigenvalue (the shift of the generalised power iteration of the ``E`` step) comes from
  a Lanczos solve with a fixed start vector, so fits are deterministic.
* The latent graph ``LE`` is over the ``k`` columns of ``E``. Because ``EᵀE = I``, every
  pair of columns is at squared distance exactly 2: the graph does not depend on ``E`` and
  is built once (see :func:`_latent_laplacian`).
* The ``W`` step solves ``(XᵀX + βD) W + λ2 XᵀX W LE = XᵀEBᵀ`` exactly. In the eigenbasis
  of the ``k × k`` matrix ``I + λ2 LE`` it splits into one ``d × d`` system
  ``(μ_j XᵀX + βD) w_j = r_j`` per eigenvalue ``μ_j``; equal eigenvalues share one
  Cholesky factor (the complete latent graph of the defaults has two distinct ones).
  When ``d > n`` the ``n × n`` push-through (Woodbury) system is solved instead.
* ``X`` is centred implicitly (column means subtracted inside the products), so sparse
  ``X`` stays sparse.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import Any

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import StrOptions

from skmlfs._validation import resolve_n_features

from .._progress import report_step
from ._base import NON_NEGATIVE, POSITIVE, Number, check_magnitude
from ._manifold import _spd_solve
from ._sparse_learning import (
    _float_and_transpose,
    _heat_kernel_affinity,
    _is_seed,
    _laplacian,
    _row_norms,
    _row_sq_norms,
    _RowNormSelector,
)

__all__ = ["SLOFS"]

#: Up to this many patterns the largest Laplacian eigenvalue comes from a dense solver.
_DENSE_EIG_MAX_N = 100

#: Singular values of ``EᵀXW`` below this fraction of the largest count as zero.
_RANK_RTOL = 1e-9

#: Largest ``min(n, d)``: the W step holds a dense ``min(n, d)²`` matrix (4 GiB here).
_MAX_DENSE_SIDE = 23_170

#: Relative gap under which two eigenvalues of ``I + λ2 LE`` share one factorisation.
_EIG_GROUP_RTOL = 1e-12


# --------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------
def _latent_laplacian(k: int, n_neighbors: int, sigma: float) -> np.ndarray:
    """Laplacian of the heat-kernel ``p``-NN graph over ``k`` orthonormal vectors.

    Orthonormal columns are pairwise at squared distance 2, so every weight is
    ``exp(−2 / (2σ²))`` and the neighbours are decided by ties alone: with
    ``k ≤ p + 1`` the graph is complete; otherwise each point keeps the ``p`` other points
    of lowest index (the tie rule of :func:`_knn_pairs`), symmetrised by the "or" rule.
    """
    w = np.exp(-1.0 / sigma**2)
    p = min(int(n_neighbors), k - 1)
    A = np.zeros((k, k))
    for i in range(k):
        others = [j for j in range(k) if j != i][:p]
        A[i, others] = w
    S = np.maximum(A, A.T)
    return np.diag(S.sum(axis=1)) - S


def _largest_eigenvalue(L: sp.csr_matrix) -> float:
    """Largest eigenvalue of a (sparse, symmetric PSD) graph Laplacian."""
    n = L.shape[0]
    if n <= _DENSE_EIG_MAX_N:
        return float(np.linalg.eigvalsh(L.toarray())[-1])
    # a fixed start vector (not the constant one, which spans the null space)
    v0 = np.random.RandomState(0).random_sample(n) - 0.5
    try:
        return float(spla.eigsh(L, k=1, which="LA", v0=v0, tol=1e-12,
                                return_eigenvectors=False)[0])
    except spla.ArpackNoConvergence:
        # twice the largest degree bounds λ_max from above (Gershgorin); any u ≥ λ_max
        # keeps the E step a descent step, only slower
        return float(2.0 * L.diagonal().max())


def _polar(P: np.ndarray) -> np.ndarray:
    """``U Vᵀ`` of the thin SVD ``P = U S Vᵀ``: the closest matrix with orthonormal
    columns (maximiser of ``⟨P, E⟩`` over ``EᵀE = I``)."""
    U, _, Vt = np.linalg.svd(P, full_matrices=False)
    return U @ Vt


def _procrustes(T: np.ndarray, B_prev: np.ndarray) -> np.ndarray:
    """The orthogonal ``B`` maximising ``Tr(Bᵀ Tᵀ)`` (= ``⟨B, Tᵀ⟩``): ``V Uᵀ`` for the SVD
    ``T = U S Vᵀ``.

    When ``T`` is rank deficient (the first iteration: ``W`` starts at all ones, so ``XW``
    has equal columns) the maximiser is not unique; the part on the null singular
    vectors is then the orthogonal map closest to ``B_prev``, so that the result depends
    on the data and the seed, not on rounding inside the SVD.
    """
    U, s, Vt = np.linalg.svd(T)
    r = int(np.sum(s > _RANK_RTOL * s[0])) if s[0] > 0 else 0
    if r == T.shape[0]:
        return Vt.T @ U.T
    Vr, Ur, Vn, Un = Vt[:r].T, U[:, :r], Vt[r:].T, U[:, r:]
    return Vr @ Ur.T + Vn @ _polar(Vn.T @ B_prev @ Un) @ Un.T


# --------------------------------------------------------------------------------------
# SLOFS
# --------------------------------------------------------------------------------------
class SLOFS(_RowNormSelector):
    """Shared latent sub-label structure and orthogonal basis clustering (Shang et al. 2024).

    Minimises (L1), over the latent sub-labels ``E ∈ R^{n×k}`` (``EᵀE = I``), their
    non-negative copy ``Z ≥ 0``, the orthogonal basis ``B ∈ R^{k×k}`` (``BᵀB = I``), the
    sub-label-to-label map ``V ∈ R^{k×q}`` and ``W ∈ R^{d×k}``::

        ‖XW − EBᵀ‖_F² + α ‖Y − EV‖_F² + λ1 Tr(Eᵀ Lx E) + λ2 Tr(XW LE WᵀXᵀ)
            + β Σ_i sqrt(‖W_{i·}‖² + ε) + δ ‖E − Z‖_F²

    with ``Lx`` the Laplacian of a heat-kernel ``p``-NN graph over the patterns (rows of
    ``X``, centred) and ``LE`` that of the same kind of graph over the ``k`` columns of
    ``E`` (the "dynamic" graph). Each iteration takes, in the order of the authors' code,
    the steps (L2)–(L6)::

        Z = max(E, 0)
        E = polar((uI − λ1 Lx) E + XWB + αYVᵀ + δZ)      u = λ_max(λ1 Lx)
        B = V_T U_Tᵀ   for the SVD  EᵀXW = U_T S V_Tᵀ   (ties: closest to the old B)
        V = EᵀY
        (XᵀX + βD) W + λ2 XᵀX W LE = XᵀEBᵀ,   D = diag(1 / (2 sqrt(‖W_{i·}‖² + ε)))

    (``D`` from the ``W`` at the start of the step). Features are ranked by ``‖W_{i·}‖₂``.
    The ``Z``, ``B`` and ``V`` steps are exact, the ``E`` step is one generalised power
    iteration and the ``W`` step an exact reweighted solve, so the objective does not
    increase from the second iteration on (with ``update="exact"``). Labels (L1)–(L6) are those of
    ``docs/methods/sparse.md#slofs``; the model is that of the authors' public code (the
    paper's text was not available). The ``V`` and ``W`` steps differ from the code's
    multiplicative updates (**Open**, see the docs).

    Parameters
    ----------
    n_features_to_select : int, float or None, default=None
        Number (int) or fraction (float in (0, 1]) of features kept by ``transform``;
        ``None`` gives ⌈√n_samples⌉. The full ranking is always in ``selection_order_``.
    alpha, beta : float, default=0.1, 0.9
        Weights of the label fit ``‖Y − EV‖²`` and of the row sparsity.
    lambda1, lambda2 : float, default=1.0, 0.1
        Weights of the pattern-graph and the latent-graph terms.
    delta : float, default=0.01
        Weight of ``‖E − Z‖²`` (the non-negativity of the sub-labels).
        The five defaults are the values of the authors' demo.
    n_components : int, default=2
        ``k``, the number of latent sub-labels. The authors' demo sets it to the number of
        distinct values of the label matrix, which is 2 for a 0/1 ``Y``; capped at
        ``min(n_samples, n_features)``.
    n_neighbors : int, default=5
        ``p`` of both graphs (the demo's value).
    sigma : float, default=1e4
        ``t`` of the heat kernel ``exp(−‖x_i − x_j‖² / (2t²))`` (the demo's value, with
        which the weights are practically 0/1).
    center : bool, default=True
        Centre the features (the demo centres them, through a PCA); sparse input is
        centred implicitly.
    update : {"exact", "code"}, default="exact"
        ``"exact"``: the steps (L5), (L6) above. ``"code"``: the authors' multiplicative
        updates ``V ← V ⊙ 2EᵀY / (V + ε)`` and ``W ← W ⊙ XᵀEBᵀ / (XᵀXW + βDW +
        λ2 XᵀXW LE + ε)``, to reproduce the published setting; with centred ``X`` their
        terms change sign, and the objective then need not decrease.
    max_iter : int, default=10
        Number of iterations (the authors' code runs exactly 10).
    tol : float, default=0.0
        Stop early after at least two iterations when ``|J_{t−1} − J_t| ≤ tol · |J_{t−1}|``;
        0 runs all ``max_iter`` iterations.
    eps : float, default=2.22e-16
        ``ε`` of the smoothed ``ℓ2,1`` term (MATLAB's ``eps``, as in the authors' code).
    random_state : int, RandomState or None, default=None
        Seeds the uniform ``[0, 1)`` initial ``E``, ``B`` and ``V`` (drawn in that order;
        ``W`` starts at all ones, as in the authors' code).
    verbose : int, default=0
        Progress of the fit on stderr (steps done, criterion or objective, elapsed time):
        0 none, 1 a line every few seconds, 2 or more every step.

    Attributes
    ----------
    W_ : ndarray of shape (n_features, n_components)
    E_ : ndarray of shape (n_samples, n_components)
        Latent sub-labels of the last iteration (orthonormal columns).
    B_ : ndarray of shape (n_components, n_components)
    V_ : ndarray of shape (n_components, n_labels)
    feature_importances_ : ndarray of shape (n_features,)
        ``‖W_{i·}‖₂`` in feature order (= ``scores_``).
    selection_order_, ranking_, scores_ : ndarray of shape (n_features,)
    objective_ : ndarray of shape (``n_iter_``,)
        Objective (L1) after each iteration (the random initial ``E`` and ``B`` do not
        satisfy the constraints, so there is no value at the initialisation).
    n_iter_ : int

    Notes
    -----
    Time: the pattern graph ``O(n²·d)`` once (row blocks; sparse products for sparse
    ``X``) and the ``d × d`` Gram matrix ``O(nnz(X)·d)``; per iteration
    ``O(nnz(X)·k + n·k² + nnz(Lx)·k)`` for the products and the thin SVD, plus one
    Cholesky factorisation ``O(d³/3)`` per distinct eigenvalue of ``I + λ2 LE`` (two for
    the defaults; ``O(n²·d + n³/3)`` each when ``d > n``). Memory: ``O(n·p + (n + d)·k)``
    plus the ``d × d`` Gram matrix (``n × n`` when ``d > n``); sparse ``X`` is never
    densified. Above ``min(n, d) = 23170`` that matrix would pass 4 GiB: the fit raises a
    ``ValueError`` before any work.
    """

    def __init__(
        self,
        n_features_to_select: Any = None,
        *,
        alpha: float = 0.1,
        beta: float = 0.9,
        lambda1: float = 1.0,
        lambda2: float = 0.1,
        delta: float = 0.01,
        n_components: int = 2,
        n_neighbors: int = 5,
        sigma: float = 1e4,
        center: bool = True,
        update: str = "exact",
        max_iter: int = 10,
        tol: float = 0.0,
        eps: float = float(np.finfo(np.float64).eps),
        random_state: Any = None,
        verbose: int = 0,
    ) -> None:
        self.n_features_to_select = n_features_to_select
        self.alpha = alpha
        self.beta = beta
        self.lambda1 = lambda1
        self.lambda2 = lambda2
        self.delta = delta
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.sigma = sigma
        self.center = center
        self.update = update
        self.max_iter = max_iter
        self.tol = tol
        self.eps = eps
        self.random_state = random_state
        self.verbose = verbose

    _parameter_constraints: dict = {
        **_RowNormSelector._parameter_constraints,
        **dict.fromkeys(("alpha", "beta", "lambda1", "lambda2", "delta", "tol"),
                        [NON_NEGATIVE]),
        "eps": [POSITIVE],
        "sigma": [Number(Real, 0, None, closed="neither")],
        "n_components": [Number(Integral, 1, None, closed="left")],
        "n_neighbors": [Number(Integral, 1, None, closed="left")],
        "center": ["boolean"],
        "update": [StrOptions({"exact", "code"})],
        "max_iter": [Number(Integral, 1, None, closed="left")],
    }
    # Parameters of the parameter-independent preparation (see fit_settings).
    _prepare_params = ("n_components", "n_neighbors", "sigma", "center", "random_state")

    def _prepare(self, X: Any, Y: Any) -> dict:
        """Everything of a fit that does not depend on ``α, β, λ1, λ2, δ, ε``.

        ``X`` as float and its transpose, column means (zero without centring), the
        pattern Laplacian and its largest eigenvalue, the latent Laplacian, ``XcᵀXc``
        (when ``d ≤ n``) and — when ``random_state`` is an integer — the initial iterates.
        Never modified by :meth:`_fit_prepared`.
        """
        X, Yv = self._check_X_Y(X, Y)
        check_magnitude(X, "SLOFS", "forms squared distances (its pattern graph) and XᵀX")
        n, d = X.shape
        if min(n, d) > _MAX_DENSE_SIDE:
            raise ValueError(
                f"SLOFS: X has shape {n} x {d}; its W step solves with a dense "
                f"min(n, d) x min(n, d) matrix ({8 * min(n, d) ** 2 / 2**30:.1f} GiB), more "
                f"than the 4 GiB allowed (min(n, d) <= {_MAX_DENSE_SIDE}). Reduce the "
                "features or the patterns first, or use a selector that scales (see "
                "docs/methods/sparse.md#slofs)."
            )
        q = Yv.shape[1]
        k = min(int(self.n_components), n, d)
        X, XT = _float_and_transpose(X)
        mean = np.asarray(X.mean(axis=0)).ravel() if self.center else np.zeros(d)
        # distances do not change under centring: the graph of the raw rows
        Lx = _laplacian(_heat_kernel_affinity(X, int(self.n_neighbors), float(self.sigma),
                                              "2sigma2"))[0]
        prep = {
            "shape": (n, d, q, k),
            "X": X,
            "XT": XT,
            "mean": mean,
            "Y": Yv.astype(np.float64),
            "Lx": Lx,
            "lmax": _largest_eigenvalue(Lx),
            "LE": _latent_laplacian(k, int(self.n_neighbors), float(self.sigma)),
            "gram": None,
            "init": None,
        }
        if d <= n:
            G = XT @ X
            G = G.toarray() if sp.issparse(G) else np.asarray(G)
            prep["gram"] = G - n * np.outer(mean, mean)  # XcᵀXc
        if _is_seed(self.random_state):
            prep["init"] = self._initial(n, q, k)
        return prep

    def _initial(self, n: int, q: int, k: int):
        rs = check_random_state(self.random_state)
        E = rs.random_sample((n, k))
        B = rs.random_sample((k, k))
        V = rs.random_sample((k, q))
        return E, B, V

    @staticmethod
    def _xc(prep: dict, W: np.ndarray) -> np.ndarray:
        """``Xc W`` with ``Xc = X − 1mᵀ`` (never formed)."""
        return np.asarray(prep["X"] @ W) - prep["mean"] @ W

    @staticmethod
    def _xct(prep: dict, T: np.ndarray) -> np.ndarray:
        """``Xcᵀ T``."""
        return np.asarray(prep["XT"] @ T) - np.outer(prep["mean"], T.sum(axis=0))

    def _w_step(self, prep: dict, T: np.ndarray, W: np.ndarray, beta: float,
                lambda2: float, eps: float) -> np.ndarray:
        """Solve ``(XcᵀXc + βD) W + λ2 XcᵀXc W LE = XcᵀT`` (``T = EBᵀ``).

        With ``I + λ2 LE = U diag(μ) Uᵀ`` and ``W̃ = WU``: ``(μ_j XcᵀXc + βD) w̃_j =
        (XcᵀTU)_j``, one system per distinct ``μ_j``.
        """
        k = W.shape[1]
        mu, U = np.linalg.eigh(np.eye(k) + lambda2 * prep["LE"])
        dg = beta * 0.5 / np.sqrt(_row_sq_norms(W) + eps)  # diagonal of βD
        TU = T @ U
        Wt = np.empty_like(W)
        groups: list[list[int]] = []
        for j in range(k):
            if groups and abs(mu[j] - mu[groups[-1][0]]) <= _EIG_GROUP_RTOL * abs(mu[j]):
                groups[-1].append(j)
            else:
                groups.append([j])
        if prep["gram"] is None and np.all(dg > 0):
            # d > n: the n × n kernel Xc Dg⁻¹ Xcᵀ is shared by every group
            inv = 1.0 / dg
            K0 = self._kernel(prep, inv)
        for g in groups:
            m = float(mu[g[0]])
            if prep["gram"] is not None or not np.all(dg > 0):
                M = m * self._gram(prep)
                M[np.diag_indices_from(M)] += dg
                Wt[:, g] = _spd_solve(M, self._xct(prep, TU[:, g]))
            else:
                # (Dg + m XcᵀXc)⁻¹ XcᵀT = Dg⁻¹ Xcᵀ (I + m Xc Dg⁻¹ Xcᵀ)⁻¹ T
                K = m * K0
                K[np.diag_indices_from(K)] += 1.0
                Wt[:, g] = inv[:, None] * self._xct(prep, _spd_solve(K, TU[:, g]))
        return Wt @ U.T

    @staticmethod
    def _gram(prep: dict) -> np.ndarray:
        """``XcᵀXc`` (kept from :meth:`_prepare` when ``d ≤ n``; formed here otherwise, only
        when ``β = 0`` leaves the push-through system undefined)."""
        if prep["gram"] is not None:
            return prep["gram"]
        X, XT, mean = prep["X"], prep["XT"], prep["mean"]
        G = XT @ X
        G = G.toarray() if sp.issparse(G) else np.asarray(G)
        return G - X.shape[0] * np.outer(mean, mean)

    @staticmethod
    def _kernel(prep: dict, inv: np.ndarray) -> np.ndarray:
        """``Xc diag(inv) Xcᵀ`` (``n × n``) without forming ``Xc``."""
        X, XT, mean = prep["X"], prep["XT"], prep["mean"]
        XD = X.multiply(inv[None, :]).tocsr() if sp.issparse(X) else X * inv
        K = XD @ XT
        K = K.toarray() if sp.issparse(K) else np.asarray(K)
        u = np.asarray(X @ (inv * mean)).ravel()
        return K - u[:, None] - u[None, :] + float(mean @ (inv * mean))

    def _fit_prepared(self, prep: dict) -> SLOFS:
        """Alternate the ``Z, E, B, V, W`` steps (L2)–(L6)."""
        alpha, beta, delta = float(self.alpha), float(self.beta), float(self.delta)
        lambda1, lambda2 = float(self.lambda1), float(self.lambda2)
        tol, eps, max_iter = float(self.tol), float(self.eps), int(self.max_iter)
        n, d, q, k = prep["shape"]
        resolve_n_features(self.n_features_to_select, n, d)  # validate early
        Y, Lx, LE = prep["Y"], prep["Lx"], prep["LE"]
        u = lambda1 * prep["lmax"]
        E, B, V = prep["init"] if prep["init"] is not None else self._initial(n, q, k)
        W = np.ones((d, k))
        XW = self._xc(prep, W)
        obj: list[float] = []
        n_iter = 0
        for _ in range(max_iter):
            Z = np.maximum(E, 0.0)
            # one generalised power iteration: maximise ⟨(uI − λ1Lx)E + C, E'⟩ on EᵀE = I
            P = u * E - lambda1 * (Lx @ E) + XW @ B + alpha * (Y @ V.T) + delta * Z
            E = _polar(P)
            B = _procrustes(E.T @ XW, B)
            if self.update == "exact":
                V = E.T @ Y
                W = self._w_step(prep, E @ B.T, W, beta, lambda2, eps)
            else:
                # the authors' multiplicative updates, as written (see the docs)
                V = V * (2.0 * (E.T @ Y) / (V + eps))
                dg = 0.5 / np.sqrt(_row_sq_norms(W) + eps)
                GW = prep["gram"] @ W if prep["gram"] is not None else self._xct(prep, XW)
                den = GW + beta * (dg[:, None] * W) + lambda2 * (GW @ LE) + eps
                W = W * (self._xct(prep, E @ B.T) / den)
            XW = self._xc(prep, W)
            R = XW - E @ B.T
            val = (
                np.einsum("ij,ij->", R, R)
                + alpha * np.sum((Y - E @ V) ** 2)
                + lambda1 * np.einsum("ij,ij->", E, Lx @ E)
                + lambda2 * np.einsum("ij,ij->", XW @ LE, XW)
                + beta * np.sqrt(_row_sq_norms(W) + eps).sum()
                + delta * np.sum((E - Z) ** 2)
            )
            obj.append(float(val))
            n_iter += 1
            report_step(n_iter, max_iter, "iteration", upper_bound=True, objective=obj[-1])
            if n_iter >= 2 and abs(obj[-2] - obj[-1]) <= tol * abs(obj[-2]):
                break

        self.W_, self.E_, self.B_, self.V_ = W, E, B, V
        self.objective_ = np.asarray(obj)
        self.n_iter_ = n_iter
        self._finish(_row_norms(W), n)
        return self
