"""Common checks for multi-label estimators, driven with a real 0/1 label matrix.

scikit-learn's :func:`~sklearn.utils.estimator_checks.check_estimator` fits every
estimator on a single-output (or multi-class) target ``y``; a multi-label selector or
learner needs a 0/1 label matrix ``Y`` of shape ``(n_samples, n_labels)`` and rightly
rejects anything else, so most of those checks cannot test it. The checks here cover the
same contract — clone, pickling, idempotent ``fit``, ``n_features_in_`` and feature
names, sample-order invariance, sparse/dense agreement, read-only memory maps, input
dtypes, NaN/infinity rejection, inputs left unmodified, ``get_params``/``set_params`` —
plus the library's own output contracts:

* selectors (anything with ``get_support``): ``get_support`` and ``transform`` agree and
  ``ranking_`` lists distinct feature indices whose first entries are the selected ones;
* learners (anything with ``predict``): ``predict`` is a dense ``(n, q)`` integer array of
  0/1 and ``predict_proba`` a dense ``(n, q)`` float array in ``[0, 1]``.

Third-party estimators can use them the way scikit-learn's checks are used::

    from skmlfs.utils.estimator_checks import (
        check_multilabel_estimator, parametrize_with_multilabel_checks)

    check_multilabel_estimator(MySelector(n_features_to_select=3))

    @parametrize_with_multilabel_checks([MySelector(n_features_to_select=3)])
    def test_my_estimators(estimator, check):
        check(estimator)

The data are small and integer-valued (40 samples, 8 features with values 0..3, 3 labels
that depend on the features), so discretizers and discrete criteria see no rounding noise
and every estimator fits in a fraction of a second. Estimators with a ``random_state``
parameter should be passed with a fixed seed, or the idempotence and pickling checks
compare two different random runs.
"""

from __future__ import annotations

import functools
import os
import pickle
import tempfile
import warnings
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, clone
from sklearn.exceptions import NotFittedError
from sklearn.utils import get_tags

__all__ = [
    "check_multilabel_estimator",
    "multilabel_checks",
    "multilabel_data",
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
    if hasattr(est, "ranking_"):
        out["ranking_"] = np.asarray(est.ranking_)
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


def check_get_set_params(name: str, est: BaseEstimator) -> None:
    """``set_params(**get_params())`` changes nothing; unknown parameters raise."""
    c = clone(est)
    before = c.get_params(deep=False)
    assert c.set_params(**before) is c
    assert _fit_params_equal(c.get_params(deep=False), before)
    try:
        c.set_params(this_parameter_does_not_exist=1)
    except ValueError:
        pass
    else:  # pragma: no cover - the assertion message is the report
        raise AssertionError(f"{name}.set_params accepted an unknown parameter")


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


def check_fit_returns_self(name: str, est: BaseEstimator) -> None:
    """``fit`` returns the estimator itself."""
    X, Y = multilabel_data()
    c = clone(est)
    assert _fit(c, X, Y) is c, f"{name}.fit does not return self"


def check_pickle(name: str, est: BaseEstimator) -> None:
    """A fitted estimator gives the same outputs after a pickle round trip."""
    X, Y = multilabel_data()
    fitted = _fit(clone(est), X, Y)
    before = _outputs(fitted, X)
    again = pickle.loads(pickle.dumps(fitted))
    _assert_same(_outputs(again, X), before, f"{name} after unpickling")


def check_fit_idempotent(name: str, est: BaseEstimator) -> None:
    """Fitting twice on the same data gives the same outputs (no state leaks)."""
    X, Y = multilabel_data()
    X2, Y2 = multilabel_data(1)
    c = clone(est)
    first = _outputs(_fit(c, X, Y), X)
    _fit(c, X2, Y2)  # an intermediate fit on other data must leave nothing behind
    second = _outputs(_fit(c, X, Y), X)
    _assert_same(first, second, f"{name} fitted twice")


def check_n_features_in(name: str, est: BaseEstimator) -> None:
    """``n_features_in_`` is set and a test matrix with other columns raises."""
    X, Y = multilabel_data()
    c = clone(est)
    assert not hasattr(c, "n_features_in_")
    _fit(c, X, Y)
    assert c.n_features_in_ == N_FEATURES, f"{name}.n_features_in_ = {c.n_features_in_}"
    for method in ("predict", "predict_proba", "transform"):
        if hasattr(c, method):
            try:
                getattr(c, method)(X[:, :-1])
            except ValueError:
                continue
            raise AssertionError(f"{name}.{method} accepted {N_FEATURES - 1} features")


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


def check_sample_order_invariance(name: str, est: BaseEstimator) -> None:
    """Permuting test rows permutes predictions / transformed rows the same way."""
    X, Y = multilabel_data()
    c = _fit(clone(est), X, Y)
    perm = np.random.default_rng(1).permutation(N_SAMPLES)
    full, permuted = _outputs(c, X), _outputs(c, X[perm])
    for key in ("predict", "predict_proba", "transform"):
        if key in full:
            np.testing.assert_allclose(
                permuted[key], full[key][perm], rtol=1e-9, atol=1e-12,
                err_msg=f"{name}.{key} depends on the order of the test rows",
            )


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


def check_readonly_memmap(name: str, est: BaseEstimator) -> None:
    """Read-only inputs (``np.memmap`` opened ``'r'``) are accepted, outputs unchanged."""
    X, Y = multilabel_data()
    expected = _fitted_outputs(est, X, Y)
    with tempfile.TemporaryDirectory() as tmp:
        arrays = []
        for a, fname in ((X, "X.dat"), (Y, "Y.dat")):
            path = os.path.join(tmp, fname)
            w = np.memmap(path, dtype=a.dtype, mode="w+", shape=a.shape)
            w[:] = a
            w.flush()
            del w
            arrays.append(np.memmap(path, dtype=a.dtype, mode="r", shape=a.shape))
        Xm, Ym = arrays
        out = _fitted_outputs(est, Xm, Ym, Xm)
        del Xm, Ym, arrays
    _assert_same(out, expected, f"{name} with read-only memmap input")
    Xr, Yr = X.copy(), Y.copy()
    Xr.setflags(write=False)
    Yr.setflags(write=False)
    _assert_same(_fitted_outputs(est, Xr, Yr), expected, f"{name} with read-only arrays")


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
    r = np.asarray(c.ranking_)
    assert r.ndim == 1 and np.issubdtype(r.dtype, np.integer), f"{name}: ranking_ {r.dtype}"
    assert len(np.unique(r)) == len(r), f"{name}: ranking_ repeats a feature"
    assert r.min() >= 0 and r.max() < N_FEATURES, f"{name}: ranking_ out of range"
    assert set(r[: mask.sum()].tolist()) == set(idx.tolist()), (
        f"{name}: the selected features are not the first {mask.sum()} of ranking_"
    )


def check_selector_scores(name: str, est: BaseEstimator) -> None:
    """``scores_`` (where a selector has it) is indexed by feature: shape (n_features_in_,);
    ``step_scores_`` (greedy searches) is ``scores_[ranking_]``, one value per step."""
    X, Y = multilabel_data()
    c = _fit(clone(est), X, Y)
    if not hasattr(c, "scores_"):
        return
    scores = np.asarray(c.scores_)
    assert scores.shape == (N_FEATURES,), (
        f"{name}: scores_ of shape {scores.shape}, not (n_features_in_,) = ({N_FEATURES},)"
    )
    if hasattr(c, "step_scores_"):
        r = np.asarray(c.ranking_)
        steps = np.asarray(c.step_scores_)
        assert steps.shape == r.shape, f"{name}: step_scores_ {steps.shape}, ranking_ {r.shape}"
        np.testing.assert_array_equal(scores[r], steps, err_msg=f"{name}: scores_[ranking_]")


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


#: Every check, in the order they run; selector/learner checks apply by duck typing.
_GENERAL = (
    check_clone,
    check_get_set_params,
    check_unfitted_raises,
    check_fit_returns_self,
    check_pickle,
    check_fit_idempotent,
    check_n_features_in,
    check_feature_names_in,
    check_sample_order_invariance,
    check_sparse_dense,
    check_readonly_memmap,
    check_dtypes,
    check_nan_inf_rejected,
    check_inputs_not_mutated,
)


def multilabel_checks(estimator: BaseEstimator) -> Iterator[Callable[[BaseEstimator], None]]:
    """Yield the checks that apply to ``estimator``, each a callable of the estimator.

    Each yielded callable is a :func:`functools.partial` of a ``check_*`` function with
    the estimator's class name bound, so ``check.func.__name__`` names the check.
    """
    name = type(estimator).__name__
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
    """Run every multi-label check on ``estimator``; raise on the first failure.

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
        if check.func.__name__ not in expected:
            check(estimator)


def parametrize_with_multilabel_checks(
    estimators: Iterable[BaseEstimator],
    *,
    expected_failed_checks: Callable[[BaseEstimator], dict[str, str]] | None = None,
) -> Any:
    """A ``pytest.mark.parametrize`` over (estimator, check) pairs.

    Like scikit-learn's ``parametrize_with_checks``: checks listed by
    ``expected_failed_checks(estimator)`` (check name -> reason) are marked
    ``xfail(strict=True)`` with that reason, so a check that starts passing is reported.
    """
    import pytest

    params = []
    for est in estimators:
        expected = expected_failed_checks(est) if expected_failed_checks else {}
        for check in multilabel_checks(est):
            cname = check.func.__name__
            marks = []
            if cname in expected:
                marks = [pytest.mark.xfail(strict=True, reason=expected[cname])]
            params.append(
                pytest.param(est, check, id=f"{type(est).__name__}-{cname}", marks=marks)
            )
    return pytest.mark.parametrize("estimator, check", params)
