"""Common checks for multi-label estimators, driven with a real 0/1 label matrix.

scikit-learn's common checks (:func:`sklearn.utils.estimator_checks.check_estimator`) fit
every estimator on a single-output or multi-class target ``y``; a multi-label selector or
learner needs a 0/1 label matrix ``Y`` of shape ``(n_samples, n_labels)`` and rightly
rejects anything else. Here scikit-learn's checks run on a multi-label estimator — one
tagged ``target_tags.multi_output=True`` and ``target_tags.single_output=False``
(:func:`needs_label_matrix`) — with the target each check builds turned into a label
matrix (:func:`as_label_matrix`); the few checks that build their ``y`` themselves have
label-matrix versions of the same name here. So they test what they are about: clone and
parameter invariance, pickling, idempotent ``fit``, ``n_features_in_``, sample-order and
subset invariance, sparse input, dtypes, NaN/infinity rejection, read-only memory maps,
and the transformer and classifier contracts.

The library's own checks follow, for what scikit-learn does not test: clone of a fitted
estimator, a refit on other data, feature names, sparse/dense and sparse-``Y`` agreement,
outputs equal across input and label dtypes, NaN in ``Y``, inputs left unmodified, and
the output contracts:

* selectors (anything with ``get_support``): ``get_support`` and ``transform`` agree and
  ``ranking_`` is scikit-learn's ranking (1 for exactly the selected features) and
  ``selection_order_`` (where a selector has it) lists distinct feature indices whose
  first entries are the selected ones;
* learners (anything with ``predict``): ``predict`` is a dense ``(n, q)`` integer array of
  0/1 and ``predict_proba`` a dense ``(n, q)`` float array in ``[0, 1]``.

Third-party estimators can use them the way scikit-learn's checks are used::

    from skmlfs.utils.estimator_checks import (
        check_multilabel_estimator, parametrize_with_multilabel_checks)

    check_multilabel_estimator(MySelector(n_features_to_select=3))

    @parametrize_with_multilabel_checks([MySelector(n_features_to_select=3)])
    def test_my_estimators(estimator, check):
        check(estimator)

The library's data are small and integer-valued (40 samples, 8 features with values
0..3, 3 labels that depend on the features), so discretizers and discrete criteria see
no rounding noise and every estimator fits in a fraction of a second. Estimators with a
``random_state`` parameter should be passed with a fixed seed, or the idempotence and
pickling checks compare two different random runs.
"""

from __future__ import annotations

import contextlib
import functools
import os
import tempfile
import warnings
from collections.abc import Callable, Iterable, Iterator
from typing import Any
from unittest import SkipTest, mock

import numpy as np
import scipy.sparse as sp
import sklearn.utils.estimator_checks as sk_checks
from sklearn.base import BaseEstimator, clone
from sklearn.exceptions import NotFittedError
from sklearn.utils import get_tags
from sklearn.utils.estimator_checks import estimator_checks_generator, set_random_state

__all__ = [
    "check_multilabel_estimator",
    "multilabel_checks",
    "as_label_matrix",
    "check_name",
    "multilabel_data",
    "needs_label_matrix",
    "parametrize_with_multilabel_checks",
]

N_SAMPLES, N_FEATURES, N_LABELS = 40, 8, 3


# --------------------------------------------------------------------------- data
def multilabel_data(random_state: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Small integer-valued multi-label data used by every check.

    Returns
    -------
    X : ndarray of shape (40, 8), float64
        Feature values in ``{0, 1, 2, 3}``.
    Y : ndarray of shape (40, 3), int64
        0/1 labels; label ``j`` is mostly ``X[:, j] >= 2`` (10% flipped), so the
        labels are learnable, correlated with a few features, and each column has
        positive and negative examples.
    """
    rng = np.random.default_rng(random_state)
    X = rng.integers(0, 4, size=(N_SAMPLES, N_FEATURES)).astype(np.float64)
    Y = (X[:, :N_LABELS] >= 2).astype(np.int64)
    flip = rng.random(Y.shape) < 0.1
    Y[flip] = 1 - Y[flip]
    # every label column keeps positive and negative examples whatever the seed
    Y[0], Y[1] = 1, 0
    return X, Y


# --------------------------------------------------------------------------- helpers
def _is_selector(est: Any) -> bool:
    return hasattr(est, "get_support")


def _is_learner(est: Any) -> bool:
    return hasattr(est, "predict")


def _fit(est: BaseEstimator, X: Any, Y: Any) -> BaseEstimator:
    # Expected warnings (e.g. a label with few positives) are not failures here.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(X, Y)


def _dense(a: Any) -> np.ndarray:
    return a.toarray() if sp.issparse(a) else np.asarray(a)


def _outputs(est: BaseEstimator, X: Any) -> dict[str, np.ndarray]:
    """Every output of a fitted estimator on ``X`` (predictions or transform)."""
    out: dict[str, np.ndarray] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if _is_learner(est):
            out["predict"] = _dense(est.predict(X))
            if hasattr(est, "predict_proba"):
                out["predict_proba"] = _dense(est.predict_proba(X))
        if hasattr(est, "transform"):
            out["transform"] = _dense(est.transform(X))
    if _is_selector(est):
        out["get_support"] = np.asarray(est.get_support())
    for attr in ("ranking_", "selection_order_"):
        if hasattr(est, attr):
            out[attr] = np.asarray(getattr(est, attr))
    return out


def _assert_same(a: dict[str, np.ndarray], b: dict[str, np.ndarray], what: str) -> None:
    assert a.keys() == b.keys(), f"{what}: different outputs {sorted(a)} vs {sorted(b)}"
    for key in a:
        x, y = a[key], b[key]
        assert x.shape == y.shape, f"{what}: {key} has shape {x.shape} vs {y.shape}"
        if np.issubdtype(x.dtype, np.floating) or np.issubdtype(y.dtype, np.floating):
            np.testing.assert_allclose(
                x, y, rtol=1e-9, atol=1e-12, err_msg=f"{what}: {key} differs"
            )
        else:
            np.testing.assert_array_equal(x, y, err_msg=f"{what}: {key} differs")


def _fitted_outputs(est: BaseEstimator, X: Any, Y: Any, X_test: Any = None) -> dict:
    fitted = _fit(clone(est), X, Y)
    return _outputs(fitted, X if X_test is None else X_test)


@contextlib.contextmanager
def _readonly_memmaps(*arrays: np.ndarray) -> Iterator[list[np.memmap]]:
    """The arrays as read-only ``np.memmap`` (mode ``'r'``), valid inside the block."""
    with tempfile.TemporaryDirectory() as tmp:
        out = []
        for i, a in enumerate(arrays):
            path = os.path.join(tmp, f"{i}.dat")
            w = np.memmap(path, dtype=a.dtype, mode="w+", shape=a.shape)
            w[:] = a
            w.flush()
            del w
            out.append(np.memmap(path, dtype=a.dtype, mode="r", shape=a.shape))
        yield out
        del out


def _accepts_sparse(est: BaseEstimator) -> bool:
    return bool(get_tags(est).input_tags.sparse)


def _allows_nan(est: BaseEstimator) -> bool:
    return bool(get_tags(est).input_tags.allow_nan)


def _fit_params_equal(p: dict, q: dict) -> bool:
    if p.keys() != q.keys():
        return False
    for k in p:
        a, b = p[k], q[k]
        if isinstance(a, BaseEstimator) or isinstance(b, BaseEstimator):
            if type(a) is not type(b):
                return False
            continue
        if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
            if not np.array_equal(np.asarray(a), np.asarray(b)):
                return False
        elif a is not b and a != b:
            return False
    return True


# --------------------------------------------------------------------------- checks
def check_clone(name: str, est: BaseEstimator) -> None:
    """``clone`` gives an unfitted copy with the same parameters, also of a fitted one."""
    X, Y = multilabel_data()
    c = clone(est)
    assert type(c) is type(est)
    assert _fit_params_equal(c.get_params(deep=False), est.get_params(deep=False))
    fitted = _fit(clone(est), X, Y)
    c2 = clone(fitted)
    params = c2.get_params(deep=False)
    fitted_attrs = [
        a for a in vars(c2) if a.endswith("_") and not a.startswith("_") and a not in params
    ]
    assert not fitted_attrs, f"{name}: clone of a fitted estimator keeps {fitted_attrs}"
    _assert_same(_outputs(_fit(c2, X, Y), X), _outputs(fitted, X), f"{name} refit clone")


def check_unfitted_raises(name: str, est: BaseEstimator) -> None:
    """``predict`` / ``transform`` before ``fit`` raise ``NotFittedError``."""
    X, _ = multilabel_data()
    c = clone(est)
    for method in ("predict", "predict_proba", "transform", "get_support"):
        if hasattr(c, method):
            try:
                getattr(c, method)() if method == "get_support" else getattr(c, method)(X)
            except NotFittedError:
                continue
            except Exception as exc:  # noqa: BLE001 - any other error is the failure
                raise AssertionError(
                    f"{name}.{method} did not raise NotFittedError before fit but "
                    f"{type(exc).__name__}: {exc}"
                ) from exc
            raise AssertionError(f"{name}.{method} did not raise NotFittedError before fit")


def check_refit_on_other_data(name: str, est: BaseEstimator) -> None:
    """A fit on other data in between leaves nothing behind (no state leaks)."""
    X, Y = multilabel_data()
    X2, Y2 = multilabel_data(1)
    c = clone(est)
    first = _outputs(_fit(c, X, Y), X)
    _fit(c, X2, Y2)  # an intermediate fit on other data must leave nothing behind
    second = _outputs(_fit(c, X, Y), X)
    _assert_same(first, second, f"{name} fitted twice")


def check_feature_names_in(name: str, est: BaseEstimator) -> None:
    """A DataFrame sets ``feature_names_in_``; other column names at predict raise."""
    import pandas as pd

    X, Y = multilabel_data()
    cols = [f"f{i}" for i in range(N_FEATURES)]
    df = pd.DataFrame(X, columns=cols)
    c = _fit(clone(est), df, Y)
    assert list(getattr(c, "feature_names_in_", [])) == cols, (
        f"{name} has no feature_names_in_ after fitting a DataFrame"
    )
    _assert_same(_outputs(c, df), _fitted_outputs(est, X, Y), f"{name} DataFrame vs array")
    bad = pd.DataFrame(X, columns=[f"g{i}" for i in range(N_FEATURES)])
    for method in ("predict", "predict_proba", "transform"):
        if hasattr(c, method):
            try:
                getattr(c, method)(bad)
            except ValueError:
                continue
            raise AssertionError(f"{name}.{method} accepted other column names")


def check_sparse_dense(name: str, est: BaseEstimator) -> None:
    """Sparse ``X`` (CSR and CSC) gives the dense outputs; otherwise it is rejected.

    A sparse label matrix ``Y`` (the usual storage of multi-label data) gives the outputs
    of the dense one for every estimator.
    """
    X, Y = multilabel_data()
    _assert_same(
        _fitted_outputs(est, X, sp.csr_matrix(Y)), _fitted_outputs(est, X, Y),
        f"{name} with a CSR label matrix",
    )
    if not _accepts_sparse(est):
        try:
            _fit(clone(est), sp.csr_matrix(X), Y)
        except (TypeError, ValueError):
            return
        raise AssertionError(f"{name} is tagged as not accepting sparse X but fitted it")
    dense = _fitted_outputs(est, X, Y)
    for fmt in (sp.csr_matrix, sp.csc_matrix, sp.csr_array):
        out = _fitted_outputs(est, fmt(X), Y, fmt(X))
        _assert_same(out, dense, f"{name} with {fmt.__name__} X")


def check_dtypes(name: str, est: BaseEstimator) -> None:
    """float32, float64, int32 and int64 ``X`` (and int/bool/float ``Y``) agree.

    The data are small integers, exactly representable in every dtype, so the outputs
    must be the same; continuous outputs are compared at float32 precision.
    """
    X, Y = multilabel_data()
    expected = _fitted_outputs(est, X, Y)
    for dt in (np.float32, np.int32, np.int64):
        Xd = X.astype(dt)
        out = _fitted_outputs(est, Xd, Y, Xd)
        assert out.keys() == expected.keys()
        for key in out:
            if np.issubdtype(out[key].dtype, np.floating):
                np.testing.assert_allclose(
                    out[key], expected[key], rtol=1e-4, atol=1e-5,
                    err_msg=f"{name}: {key} with {np.dtype(dt).name} X",
                )
            else:
                np.testing.assert_array_equal(
                    out[key], expected[key],
                    err_msg=f"{name}: {key} with {np.dtype(dt).name} X",
                )
    for Yd in (Y.astype(bool), Y.astype(np.float64), Y.astype(np.uint8)):
        _assert_same(_fitted_outputs(est, X, Yd), expected, f"{name} with {Yd.dtype} Y")


def _raises_finite_error(call: Callable[[], Any]) -> str | None:
    """None if ``call`` raised a ValueError naming NaN/infinity, else what happened."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            call()
    except ValueError as exc:
        msg = str(exc).lower()
        if any(w in msg for w in ("nan", "inf", "finite")):
            return None
        return f"a ValueError not naming NaN/infinity: {exc}"
    except Exception as exc:  # noqa: BLE001 - any other error is the failure reported
        return f"{type(exc).__name__}: {exc}"
    return "no error"


def check_nan_inf_rejected(name: str, est: BaseEstimator) -> None:
    """NaN or infinity in ``X`` raises a ValueError naming it, in fit and at predict.

    Estimators tagged ``allow_nan`` (NaN = missing value) must still reject infinity;
    NaN in ``Y`` must be rejected by every estimator that uses ``Y``.
    """
    X, Y = multilabel_data()
    fitted = _fit(clone(est), X, Y)
    problems = []
    bad_values = (np.inf, -np.inf) if _allows_nan(est) else (np.nan, np.inf, -np.inf)
    for bad in bad_values:
        Xb = X.copy()
        Xb[3, 2] = bad
        why = _raises_finite_error(lambda Xb=Xb: clone(est).fit(Xb, Y))
        if why:
            problems.append(f"fit with {bad}: {why}")
        for method in ("predict", "predict_proba", "transform"):
            if hasattr(fitted, method):
                why = _raises_finite_error(lambda m=method, Xb=Xb: getattr(fitted, m)(Xb))
                if why:
                    problems.append(f"{method} with {bad}: {why}")
    if get_tags(est).target_tags.required:
        Yb = Y.astype(np.float64)
        Yb[2, 1] = np.nan
        why = _raises_finite_error(lambda: clone(est).fit(X, Yb))
        if why:
            problems.append(f"fit with NaN in Y: {why}")
    assert not problems, f"{name}: " + "; ".join(problems)


def check_inputs_not_mutated(name: str, est: BaseEstimator) -> None:
    """``X`` and ``Y`` (dense and sparse) are unchanged by fit, predict and transform."""
    X, Y = multilabel_data()
    inputs = [(X.copy(), Y.copy())]
    if _accepts_sparse(est):
        inputs.append((sp.csr_matrix(X), sp.csr_matrix(Y)))
    for Xi, Yi in inputs:
        X0, Y0 = _dense(Xi).copy(), _dense(Yi).copy()
        fitted = _fit(clone(est), Xi, Yi)
        _outputs(fitted, Xi)
        np.testing.assert_array_equal(_dense(Xi), X0, err_msg=f"{name} modified X")
        np.testing.assert_array_equal(_dense(Yi), Y0, err_msg=f"{name} modified Y")


def check_selector_support(name: str, est: BaseEstimator) -> None:
    """``get_support``, ``transform`` and ``ranking_`` describe the same selection."""
    X, Y = multilabel_data()
    c = _fit(clone(est), X, Y)
    mask = c.get_support()
    assert mask.dtype == bool and mask.shape == (N_FEATURES,), f"{name}: mask {mask.shape}"
    idx = c.get_support(indices=True)
    np.testing.assert_array_equal(idx, np.flatnonzero(mask))
    np.testing.assert_array_equal(_dense(c.transform(X)), X[:, mask])
    np.testing.assert_array_equal(
        _dense(c.inverse_transform(c.transform(X))), np.where(mask, X, 0)
    )
    assert hasattr(c, "ranking_"), f"{name} has no ranking_"
    rk = np.asarray(c.ranking_)
    assert rk.shape == (N_FEATURES,) and np.issubdtype(rk.dtype, np.integer), (
        f"{name}: ranking_ {rk.dtype} of shape {rk.shape}, not ({N_FEATURES},) int")
    # scikit-learn's convention (RFE): rank 1 for exactly the selected features
    np.testing.assert_array_equal(rk == 1, mask, err_msg=f"{name}: ranking_ == 1 is not "
                                  "the selected features")
    if not hasattr(c, "selection_order_"):
        return
    r = np.asarray(c.selection_order_)
    assert r.ndim == 1 and np.issubdtype(r.dtype, np.integer), (
        f"{name}: selection_order_ {r.dtype}")
    assert len(np.unique(r)) == len(r), f"{name}: selection_order_ repeats a feature"
    assert r.size == 0 or (r.min() >= 0 and r.max() < N_FEATURES), (
        f"{name}: selection_order_ out of range")
    assert set(r[: mask.sum()].tolist()) == set(idx.tolist()), (
        f"{name}: the selected features are not the first {mask.sum()} of selection_order_"
    )
    assert np.all(np.diff(rk[r]) >= 0), f"{name}: ranking_ does not follow selection_order_"


def check_selector_scores(name: str, est: BaseEstimator) -> None:
    """``scores_`` (where a selector has it) is indexed by feature: shape (n_features_in_,);
    ``step_scores_`` (greedy searches) is ``scores_[selection_order_]``, one value per
    step."""
    X, Y = multilabel_data()
    c = _fit(clone(est), X, Y)
    if not hasattr(c, "scores_"):
        return
    scores = np.asarray(c.scores_)
    assert scores.shape == (N_FEATURES,), (
        f"{name}: scores_ of shape {scores.shape}, not (n_features_in_,) = ({N_FEATURES},)"
    )
    if hasattr(c, "step_scores_"):
        r = np.asarray(c.selection_order_)
        steps = np.asarray(c.step_scores_)
        assert steps.shape == r.shape, (
            f"{name}: step_scores_ {steps.shape}, selection_order_ {r.shape}")
        np.testing.assert_array_equal(scores[r], steps,
                                      err_msg=f"{name}: scores_[selection_order_]")


def check_learner_outputs(name: str, est: BaseEstimator) -> None:
    """``predict``: dense (n, q) int 0/1; ``predict_proba``: dense (n, q) float in [0, 1]."""
    X, Y = multilabel_data()
    c = _fit(clone(est), X, Y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pred = c.predict(X[:7])
        assert isinstance(pred, np.ndarray), f"{name}.predict returns {type(pred)}"
        assert pred.shape == (7, N_LABELS), f"{name}.predict shape {pred.shape}"
        assert np.issubdtype(pred.dtype, np.integer), f"{name}.predict dtype {pred.dtype}"
        assert set(np.unique(pred)) <= {0, 1}, f"{name}.predict is not 0/1"
        if hasattr(c, "predict_proba"):
            proba = c.predict_proba(X[:7])
            assert isinstance(proba, np.ndarray), f"{name}.predict_proba: {type(proba)}"
            assert proba.shape == (7, N_LABELS), f"{name}.predict_proba {proba.shape}"
            assert np.issubdtype(proba.dtype, np.floating), f"{name}: {proba.dtype}"
            assert np.all((proba >= 0) & (proba <= 1)), f"{name}: proba outside [0, 1]"


# --------------------------------------------------------------------------- scikit-learn's checks
# scikit-learn's checks build their target with ``_enforce_estimator_tags_y`` (a 1-D binary,
# multi-class or continuous ``y``). While one of its checks runs on a multi-label estimator,
# that function is swapped for :func:`as_label_matrix`, so the check fits the estimator on
# a 0/1 label matrix and reaches the property it is about. The few checks that build ``y``
# themselves get a label-matrix version below, under the same name.


def needs_label_matrix(estimator: Any) -> bool:
    """True when ``estimator`` is a multi-label estimator (its target is a label matrix).

    Read from scikit-learn's target tags: ``multi_output=True`` and ``single_output=False``.
    """
    target = get_tags(estimator).target_tags
    return bool(target.multi_output and not target.single_output)


def as_label_matrix(y: Any) -> np.ndarray:
    """A 0/1 label matrix standing for the target ``y`` of a scikit-learn check.

    A 2-D 0/1 matrix with several columns is returned as is. Otherwise (the first column of)
    ``y`` is read as classes — a continuous ``y`` is cut at its terciles first — and
    one-hot encoded with at least two label columns, so each label is a function of the
    sample's target and the rows of ``X`` keep their meaning. NaN or infinity in ``y`` is
    kept (in every label of that row), for the checks that expect ``fit`` to reject it.
    """
    y = np.asarray(y)
    if y.ndim == 2:
        if (
            y.shape[1] > 1 and y.dtype.kind in "biuf" and np.all(np.isfinite(y))
            and np.isin(y, (0, 1)).all()
        ):
            return y
        y = y[:, 0]
    if y.size == 0:
        return np.zeros((0, 2), dtype=np.int64)
    if y.dtype.kind in "iuf" and not np.all(np.isfinite(y)):
        return np.repeat(y.astype(np.float64)[:, None], 2, axis=1)
    if y.dtype.kind == "f" and len(np.unique(y)) > 10:
        codes = np.searchsorted(np.quantile(y, [1 / 3, 2 / 3]), y, side="right")
    else:
        codes = np.unique(y, return_inverse=True)[1].ravel()
    n_labels = max(int(codes.max()) + 1, 2)
    return (codes[:, None] == np.arange(n_labels)).astype(np.int64)


def _label_matrix_y(original: Callable, estimator: Any, y: Any) -> Any:
    if needs_label_matrix(estimator):
        return as_label_matrix(y)
    return original(estimator, y)


class _LabelMatrixCheck(functools.partial):
    """A scikit-learn check run with label-matrix targets for multi-label estimators.

    A :class:`functools.partial`, as scikit-learn's checks are, so ``check.func`` still
    names the check. The swap of scikit-learn's target builder lasts for the call only.
    """

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        original = sk_checks._enforce_estimator_tags_y
        swapped = functools.partial(_label_matrix_y, original)
        with mock.patch.object(sk_checks, "_enforce_estimator_tags_y", swapped):
            return super().__call__(*args, **kwargs)


# Label-matrix versions of the scikit-learn checks that build their own 1-D ``y``.


def _check_transformer(name: str, transformer: BaseEstimator, X: Any, Y: Any) -> None:
    n_samples = np.asarray(X).shape[0]
    est = clone(transformer)
    set_random_state(est)
    _fit(est, X, Y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Xt = clone(est).fit_transform(X, Y)
        assert _dense(Xt).shape[0] == n_samples, f"{name}.fit_transform lost samples"
        Xt2 = est.transform(X)
        Xt3 = est.fit_transform(X, Y)
    if get_tags(transformer).non_deterministic:
        return
    np.testing.assert_allclose(
        _dense(Xt), _dense(Xt2), atol=1e-2, err_msg=f"{name}: fit_transform and transform"
    )
    np.testing.assert_allclose(
        _dense(Xt), _dense(Xt3), atol=1e-2, err_msg=f"{name}: consecutive fit_transform"
    )
    if hasattr(X, "shape"):
        try:
            est.transform(np.asarray(X)[:, :-1])
        except ValueError:
            return
        raise AssertionError(f"{name}.transform accepted fewer features than in fit")


def check_transformer_general(
    name: str, transformer: BaseEstimator, readonly_memmap: bool = False
) -> None:
    """``fit_transform`` = ``fit`` then ``transform``, repeatable; wrong width raises."""
    X, Y = multilabel_data()
    if not readonly_memmap:
        _check_transformer(name, transformer, X, Y)
        return
    with _readonly_memmaps(X, Y) as (Xm, Ym):
        _check_transformer(name, transformer, Xm, Ym)


def check_transformer_data_not_an_array(name: str, transformer: BaseEstimator) -> None:
    """Lists and pandas DataFrames (``X`` and ``Y``) transform as the arrays do."""
    import pandas as pd

    X, Y = multilabel_data()
    _check_transformer(name, transformer, X.tolist(), Y.tolist())
    _check_transformer(name, transformer, pd.DataFrame(X), pd.DataFrame(Y))
    expected = _fitted_outputs(transformer, X, Y)
    _assert_same(
        _fitted_outputs(transformer, X.tolist(), Y.tolist(), X.tolist()), expected,
        f"{name} fitted on lists",
    )


def check_transformer_preserve_dtypes(name: str, transformer: BaseEstimator) -> None:
    """``transform`` returns each dtype of the ``preserves_dtype`` tag unchanged."""
    X, Y = multilabel_data()
    for dtype in get_tags(transformer).transformer_tags.preserves_dtype:
        est = clone(transformer)
        set_random_state(est)
        Xc = X.astype(dtype)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            outputs = (est.fit_transform(Xc, Y), est.fit(Xc, Y).transform(Xc))
        for Xt, method in zip(outputs, ("fit_transform", "transform"), strict=True):
            assert Xt.dtype == dtype, f"{name}.{method} turns {dtype} X into {Xt.dtype}"


def check_transformer_n_iter(name: str, transformer: BaseEstimator) -> None:
    """A transformer with ``max_iter`` reports ``n_iter_ >= 1``."""
    est = clone(transformer)
    if hasattr(est, "max_iter"):
        X, Y = multilabel_data()
        set_random_state(est, 0)
        _fit(est, X, Y)
        # one count, or one per label for solvers run label by label
        assert np.all(np.asarray(est.n_iter_) >= 1), f"{name}.n_iter_ = {est.n_iter_}"


def _sparse_formats(X_csr: Any) -> Iterator[tuple[str, Any]]:
    """``X_csr`` in every scipy format, and with 64-bit indices (as scikit-learn does)."""
    for fmt in ("csr", "dok", "lil", "dia", "bsr", "csc", "coo"):
        yield fmt, X_csr.asformat(fmt)
    coo = X_csr.asformat("coo")
    coo.row, coo.col = coo.row.astype(np.int64), coo.col.astype(np.int64)
    yield "coo_64", coo
    for fmt in ("csc", "csr"):
        big = X_csr.asformat(fmt)
        big.indices, big.indptr = big.indices.astype(np.int64), big.indptr.astype(np.int64)
        yield f"{fmt}_64", big


def _check_sparse_container(name: str, est: BaseEstimator, container: Callable) -> None:
    X, Y = multilabel_data()
    X = np.where(X < 2, 0.0, X)
    for fmt, Xs in _sparse_formats(container(X)):
        c = clone(est)
        set_random_state(c)
        try:
            _fit(c, Xs, Y)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for method in ("predict", "predict_proba", "transform"):
                    if hasattr(c, method):
                        out = getattr(c, method)(Xs)
                        assert out.shape[0] == N_SAMPLES, f"{name}.{method} on {fmt}"
                        if method != "transform":
                            assert out.shape == Y.shape, f"{name}.{method} {out.shape}"
        except (TypeError, ValueError) as exc:
            # scikit-learn's wording: the message names sparse input (also for the
            # 64-bit indices that its check_array refuses)
            if "sparse" not in str(exc).lower():
                raise AssertionError(
                    f"{name} fails on {fmt} input without saying sparse input is not "
                    f"supported: {exc}"
                ) from exc


def check_estimator_sparse_matrix(name: str, est: BaseEstimator) -> None:
    """Every scipy sparse matrix format is fitted (outputs of shape (n, q)) or rejected
    with a TypeError/ValueError naming sparse input."""
    _check_sparse_container(name, est, sp.csr_matrix)


def check_estimator_sparse_array(name: str, est: BaseEstimator) -> None:
    """As :func:`check_estimator_sparse_matrix`, with scipy sparse arrays."""
    _check_sparse_container(name, est, sp.csr_array)


def check_classifiers_train(
    name: str, learner: BaseEstimator, readonly_memmap: bool = False, X_dtype: str = "float64"
) -> None:
    """Fit (arrays and lists), ``classes_``, a label-wise training accuracy above 0.7
    (unless tagged ``poor_score``), and ``ValueError`` on mismatched shapes."""
    X, Y = multilabel_data()
    X = X.astype(X_dtype)
    if readonly_memmap:
        with _readonly_memmaps(X, Y) as (Xm, Ym):
            _check_classifiers_train(name, learner, Xm, Ym)
    else:
        _check_classifiers_train(name, learner, X, Y)


def _check_classifiers_train(name: str, learner: BaseEstimator, X: Any, Y: Any) -> None:
    tags = get_tags(learner)
    est = clone(learner)
    set_random_state(est)
    try:
        _fit(est, X, Y[:-1])
    except ValueError:
        pass
    else:
        raise AssertionError(f"{name}.fit accepted X and Y with different numbers of rows")
    _fit(est, X.tolist(), Y.tolist())
    from_lists = _outputs(est, X)
    _fit(est, X, Y)
    _assert_same(_outputs(est, X), from_lists, f"{name} fitted on lists")
    assert hasattr(est, "classes_"), f"{name} has no classes_ after fit"
    pred = _dense(est.predict(X))
    assert pred.shape == Y.shape, f"{name}.predict shape {pred.shape}, not {Y.shape}"
    if not tags.classifier_tags.poor_score:
        accuracy = float(np.mean(pred == Y))
        assert accuracy > 0.7, f"{name}: label-wise training accuracy {accuracy:.2f}"
    for method in ("predict", "predict_proba", "predict_log_proba"):
        if hasattr(est, method):
            try:
                getattr(est, method)(X.T)
            except ValueError:
                continue
            raise AssertionError(f"{name}.{method} accepted X with other columns")
    if hasattr(est, "predict_proba") and hasattr(est, "predict_log_proba"):
        with np.errstate(divide="ignore"):
            np.testing.assert_allclose(
                est.predict_log_proba(X), np.log(est.predict_proba(X)), atol=1e-9
            )


def check_classifiers_classes(name: str, learner: BaseEstimator) -> None:
    """``classes_`` holds, per label, the values seen in training; int, bool and float
    encodings of the same label matrix give the same predictions."""
    X, Y = multilabel_data()
    est = _fit(clone(learner), X, Y)
    classes = est.classes_
    assert len(classes) == Y.shape[1], f"{name}: {len(classes)} classes_ for {Y.shape[1]} labels"
    for j, c in enumerate(classes):
        np.testing.assert_array_equal(c, np.unique(Y[:, j]), err_msg=f"{name}.classes_[{j}]")
    expected = _dense(est.predict(X))
    for Yd in (Y.astype(bool), Y.astype(np.float64)):
        pred = _dense(_fit(clone(learner), X, Yd).predict(X))
        np.testing.assert_array_equal(pred, expected, err_msg=f"{name} with {Yd.dtype} Y")


def check_classifiers_one_label(name: str, learner: BaseEstimator) -> None:
    """A label that is always present is predicted present (or ``fit`` says why not)."""
    X, Y = multilabel_data()
    Y = Y.copy()
    Y[:, 0] = 1
    try:
        est = _fit(clone(learner), X, Y)
    except ValueError as exc:
        assert "label" in str(exc) or "class" in str(exc), (
            f"{name} rejects a constant label without saying so: {exc}"
        )
        return
    pred = _dense(est.predict(multilabel_data(1)[0]))
    assert np.all(pred[:, 0] == 1), f"{name} does not predict the label always present"


def check_classifiers_regression_target(name: str, learner: BaseEstimator) -> None:
    """A continuous label matrix is rejected with a ValueError about its values."""
    X, Y = multilabel_data()
    Yc = Y + np.random.default_rng(0).normal(scale=0.3, size=Y.shape)
    try:
        _fit(clone(learner), X, Yc)
    except ValueError as exc:
        assert "0/1" in str(exc) or "continuous" in str(exc) or "label" in str(exc), (
            f"{name} rejects a continuous target with an unclear message: {exc}"
        )
        return
    raise AssertionError(f"{name} fitted a continuous target")


_LABEL_MATRIX_VERSIONS: dict[str, Callable] = {
    f.__name__: f
    for f in (
        check_transformer_general,
        check_transformer_data_not_an_array,
        check_transformer_preserve_dtypes,
        check_transformer_n_iter,
        check_estimator_sparse_matrix,
        check_estimator_sparse_array,
        check_classifiers_train,
        check_classifiers_classes,
        check_classifiers_one_label,
        check_classifiers_regression_target,
    )
}


def _sklearn_checks(estimator: BaseEstimator) -> Iterator[functools.partial]:
    """scikit-learn's checks of ``estimator``, adapted to label matrices if it needs them."""
    multilabel = needs_label_matrix(estimator)
    for _, check in estimator_checks_generator(estimator, legacy=True):
        if not multilabel:
            yield check
        elif check.func.__name__ in _LABEL_MATRIX_VERSIONS:
            ours = _LABEL_MATRIX_VERSIONS[check.func.__name__]
            yield functools.partial(ours, *check.args, **check.keywords)
        else:
            yield _LabelMatrixCheck(check.func, *check.args, **check.keywords)


#: The library's own checks, run after scikit-learn's: properties scikit-learn's checks
#: do not test. Selector/learner checks apply by duck typing.
_GENERAL = (
    check_clone,
    check_unfitted_raises,
    check_refit_on_other_data,
    check_feature_names_in,
    check_sparse_dense,
    check_dtypes,
    check_nan_inf_rejected,
    check_inputs_not_mutated,
)


def check_name(check: Callable) -> str:
    """The name of a check (the function a :func:`functools.partial` wraps)."""
    return check.func.__name__ if isinstance(check, functools.partial) else check.__name__


def _check_id(check: Callable) -> str:
    kwargs = getattr(check, "keywords", None) or {}
    args = ",".join(f"{k}={v}" for k, v in kwargs.items())
    return f"{check_name(check)}({args})" if args else check_name(check)


def multilabel_checks(
    estimator: BaseEstimator, *, sklearn_checks: bool = True
) -> Iterator[Callable[[BaseEstimator], None]]:
    """Yield the checks that apply to ``estimator``, each a callable of the estimator.

    First scikit-learn's common checks — for a multi-label estimator (see
    :func:`needs_label_matrix`) fitted on a 0/1 label matrix — then the library's own.
    Each yielded callable is a :func:`functools.partial` of a ``check_*`` function with
    the estimator's class name bound, so :func:`check_name` names the check.

    Parameters
    ----------
    estimator : estimator instance
        The estimator to check.
    sklearn_checks : bool, default=True
        Whether to include scikit-learn's common checks.
    """
    name = type(estimator).__name__
    if sklearn_checks:
        yield from _sklearn_checks(estimator)
    checks = list(_GENERAL)
    if _is_selector(estimator):
        checks.append(check_selector_support)
        checks.append(check_selector_scores)
    if _is_learner(estimator):
        checks.append(check_learner_outputs)
    for check in checks:
        yield functools.partial(check, name)


def check_multilabel_estimator(
    estimator: BaseEstimator, expected_failed_checks: dict[str, str] | None = None
) -> None:
    """Run every check on ``estimator``; raise on the first failure.

    Parameters
    ----------
    estimator : estimator instance
        An unfitted estimator, built with the parameters to test (fix its
        ``random_state``).
    expected_failed_checks : dict of str to str, default=None
        Check name -> reason for checks known to fail; they are skipped here.
    """
    expected = expected_failed_checks or {}
    for check in multilabel_checks(estimator):
        if check_name(check) not in expected:
            try:
                check(estimator)
            except SkipTest:
                continue


def parametrize_with_multilabel_checks(
    estimators: Iterable[BaseEstimator],
    *,
    expected_failed_checks: Callable[[BaseEstimator], dict[str, str]] | None = None,
) -> Any:
    """A ``pytest.mark.parametrize`` over (estimator, check) pairs.

    Like scikit-learn's ``parametrize_with_checks`` (and running its checks, adapted to
    label matrices, see :func:`multilabel_checks`): checks listed by
    ``expected_failed_checks(estimator)`` (check name -> reason) are marked
    ``xfail(strict=True)`` with that reason, so a check that starts passing is reported.
    """
    import pytest

    params = []
    for est in estimators:
        expected = expected_failed_checks(est) if expected_failed_checks else {}
        for check in multilabel_checks(est):
            cname = check_name(check)
            marks = []
            if cname in expected:
                marks = [pytest.mark.xfail(strict=True, reason=expected[cname])]
            params.append(
                pytest.param(est, check, id=f"{type(est).__name__}-{_check_id(check)}",
                             marks=marks)
            )
    return pytest.mark.parametrize("estimator, check", params)
