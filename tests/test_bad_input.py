"""Every estimator on bad input: a correct result or a clear error, within a deadline.

Each selector and learner exported by :mod:`skmlfs.selection` / :mod:`skmlfs.learners`
(cheap parameters) is fitted on a small data set (30 × 8, 3 labels) spoiled in one way:
NaN, inf, values × 1e300 (finite), an all-constant ``X``, one sample, two samples, label
columns without a positive example (and none at all), and bad budgets. Every case runs
in a forked worker with a deadline (:mod:`_deadline`), so that a hang inside C code
(LIBLINEAR looped forever on ``X * 1e300``) fails the test instead of freezing it.

What counts as an answer:

* a *clear error* is a ``ValueError`` / ``TypeError`` whose message is not one of
  numpy's or scipy's internal complaints (``"'list' argument must have no negative
  elements"``, ``"array must not contain infs or NaNs"`` for a finite ``X``, an index
  out of bounds, ...);
* a *result* is a fitted estimator whose outputs are well-formed: a support mask of the
  right length with at most the budget selected and finite ``scores_``, or predictions
  that are 0/1 of shape ``(n, q)`` and probabilities in [0, 1];
* for ``X * 1e300`` the selectors whose discretization is scale-invariant must select
  exactly what they select on ``X`` (the bug: huge floats looked like integer codes, the
  codes collapsed and the first k features came back);
* on degenerate data (all-constant ``X``, one sample) every selector warns and selects
  nothing (``ranking_`` empty) — the one documented behaviour.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from _deadline import run_with_deadline
from sklearn.base import clone
from sklearn.feature_selection import SelectorMixin

from skmlfs import learners as L
from skmlfs import selection as S

CASE_TIMEOUT = 60.0

rng0 = np.random.default_rng(7)
X0 = rng0.normal(size=(30, 8)) * np.array([1, 2, 3, 0.5, 1, 4, 1, 2])
Y0 = np.column_stack([X0[:, 0] > 0, X0[:, 1] + X0[:, 2] > 0.5, X0[:, 3] < 0]).astype(int)

_MEMETIC = {"population_size": 4, "max_evaluations": 12, "random_state": 0,
            "learner": L.MLNB(alpha=0.5)}
SELECTORS = {
    "SCLS": S.SCLS(3), "AMI": S.AMI(3), "MDMR": S.MDMR(3), "GICS": S.GICS(3),
    "LRFS": S.LRFS(3), "MLCFS": S.MLCFS(3), "PPTMI": S.PPTMI(3, min_support=1),
    "PPTCHI": S.PPTCHI(3, min_support=1), "MLFS": S.MLFS(3), "MLJMI": S.MLJMI(3),
    "MLMIM": S.MLMIM(3), "MLMRMR": S.MLMRMR(3), "LLSF": S.LLSF(n_features_to_select=3),
    "RLEFS": S.RLEFS(3, max_iter=20, random_state=0),
    "MIFS": S.MIFS(3, max_iter=20, random_state=0),
    "RALMFS": S.RALMFS(3, max_iter=20, random_state=0),
    "ReliefFML": S.ReliefFML(3, k=3, random_state=0),
    "PPTReliefF": S.PPTReliefF(3, k=3, min_support=1, random_state=0),
    "GA": S.GeneticSelector(n_features_to_select=3, **_MEMETIC),
    "Memetic": S.MemeticSelector(n_features_to_select=3, **_MEMETIC),
    "BMFS": S.BMFS(3), "MGFS": S.MGFS(3), "MFSMCDM": S.MFSMCDM(3),
    "MCLS": S.MCLS(3),
    "PMU": S.PMU(3), "D2F": S.D2F(3),
    "ELACHI": S.ELACHI(3),
    "MDFS": S.MDFS(3, max_iter=20, random_state=0),
    "SCMFS": S.SCMFS(3, max_iter=20, random_state=0),
    "SLOFS": S.SLOFS(3, max_iter=5, random_state=0),
    "MSSL": S.MSSL(3, max_iter=10),
    "SSFS": S.SSFS(3, max_iter=20, random_state=0),
}
TRANSFORMERS = {"MDDM": S.MDDM(n_components=3)}
LEARNERS = {
    "MLNB": L.MLNB(), "MLkNN": L.MLkNN(k=3), "DMLkNN": L.DMLkNN(k=3),
    "MLCWkNN": L.MLCWkNN(k=3), "BR": L.BinaryRelevance(),
    "BR+SCLS": L.BinaryRelevance(selector=S.SCLS(3)), "CC": L.ClassifierChain(),
    "BCC": L.BayesianClassifierChain(), "KDC": L.KDependentChain(),
    "PCC": L.ProbabilisticClassifierChain(), "ECC": L.EnsembleOfChains(n_estimators=3,
                                                                          random_state=0),
    "OCC": L.OCC(), "LLSFC": L.LLSFClassifier(max_iter=20), "MDDMC": L.MDDMClassifier(),
}
ALL = {**SELECTORS, **TRANSFORMERS, **LEARNERS}

# Selectors whose discretization (LAIM, mean ± std, none for MLCFS's correlations) is
# invariant to scaling X: on X * 1e300 they must select what they select on X.
SCALE_INVARIANT = ["SCLS", "AMI", "MDMR", "GICS", "LRFS", "MLCFS", "PPTMI", "PPTCHI", "MLFS",
                   "MLJMI", "MLMIM", "MLMRMR", "ReliefFML", "PPTReliefF", "BMFS", "MGFS",
                   "PMU", "D2F", "ELACHI", "SCMFS"]
SCALE_INVARIANT += ["SSFS"]  # min-max scaled before its graph and factorisation


def _spoil(kind: str):
    X, Y = X0.copy(), Y0.copy()
    if kind == "nan":
        X[3, 2] = np.nan
    elif kind == "inf":
        X[3, 2] = np.inf
    elif kind == "x1e300":
        X = X * 1e300
    elif kind == "x2^1019":
        X = X * 2.0**1019  # exact scaling near the top of the float range (max 4.6e307)
    elif kind == "x-1e308":
        X = X / np.abs(X).max() * -1.7e308
    elif kind == "constant":
        X = np.full_like(X, 2.5)
    elif kind == "one":
        X, Y = X[:1], Y[:1]
    elif kind == "two":
        X, Y = X[:2], Y[[0, 1]]
    elif kind == "empty_label":
        Y[:, 1] = 0
    elif kind == "no_positive":
        Y[:] = 0
    elif kind == "no_label":
        Y = Y[:, :0]
    return X, Y


KINDS = ["nan", "inf", "x1e300", "x2^1019", "x-1e308", "constant", "one", "two", "empty_label",
         "no_positive", "no_label"]
BUDGETS = [0, -1, 1.5, 100, "3", None]

# numpy / scipy internals leaking out: never a clear error
_INTERNAL = re.compile(
    r"must have no negative elements|must not contain infs or NaNs|out of bounds|"
    r"division by zero|zero-size array|could not broadcast|setting an array element|"
    r"NoneType|has no attribute|not subscriptable|unhashable|operands could not|"
    r"invalid index|singular matrix|did not converge|cannot reshape",
    re.I,
)


def _outcome(est, X, Y) -> tuple[str, str]:
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            return _check_fitted(est.fit(X, Y), X, Y, w)
        except (ValueError, TypeError) as exc:
            msg = str(exc)
            if not msg or _INTERNAL.search(msg):
                return "unclear-error", f"{type(exc).__name__}: {msg}"
            return "error", msg
        except Exception as exc:  # noqa: BLE001 - what this test looks for
            return "crash", f"{type(exc).__name__}: {exc}"


def _check_fitted(est, X, Y, w) -> tuple[str, str]:
    warned = " | ".join(str(x.message) for x in w if issubclass(x.category, UserWarning))
    if isinstance(est, SelectorMixin):
        mask = est.get_support()
        scores = np.asarray(getattr(est, "scores_", np.zeros(0)), dtype=float)
        if mask.shape != (X.shape[1],):
            return "wrong", f"support of shape {mask.shape}"
        picked = np.asarray(est.selection_order_)[: mask.sum()]
        # scores_ per feature, or per selection step (the criterion when picked)
        sel = scores[picked] if scores.size == X.shape[1] else scores[: picked.size]
        if isinstance(est, S.GeneticSelector | S.MemeticSelector):
            sel = sel[: np.count_nonzero(~np.isnan(sel))]  # NaN: not ranked by GICS (doc)
        if not np.all(np.isfinite(sel)):
            return "wrong", "non-finite scores of selected features"
        for name in ("weights_", "feature_importances_"):
            v = getattr(est, name, None)
            if v is not None and not np.all(np.isfinite(np.asarray(v, dtype=float))):
                return "wrong", f"{name} not finite"
        return "fitted", f"{picked.tolist()}|{warned}"
    if hasattr(est, "predict"):
        P = np.asarray(est.predict(X))
        if P.shape != Y.shape or not np.isin(P, (0, 1)).all():
            return "wrong", f"predictions of shape {P.shape}, values {np.unique(P)[:5]}"
        if hasattr(est, "predict_proba"):
            Q = np.asarray(est.predict_proba(X), dtype=float)
            if Q.shape != Y.shape or not np.all((Q >= 0) & (Q <= 1)):
                return "wrong", "probabilities not in [0, 1]"
        return "fitted", warned
    Z = np.asarray(est.transform(X))
    if not np.all(np.isfinite(Z)):
        return "wrong", "non-finite transform"
    return "fitted", warned


def _case(c):
    name, kind = c
    est = clone(ALL[name])
    if kind.startswith("budget="):
        X, Y = _spoil("")
        est.set_params(n_features_to_select=eval(kind[7:]))  # noqa: S307 - test literal
        return _outcome(est, X, Y)
    X, Y = _spoil(kind)
    return _outcome(est, X, Y)


CASES = [(n, k) for n in ALL for k in KINDS] + [
    (n, f"budget={b!r}") for n in SELECTORS for b in BUDGETS
]


@pytest.fixture(scope="module")
def results():
    out = run_with_deadline(_case, CASES, CASE_TIMEOUT)
    base = run_with_deadline(_case, [(n, "clean") for n in SELECTORS], CASE_TIMEOUT)
    return dict(zip(CASES, out, strict=True)), {
        n: r for (n, _), r in zip([(n, "clean") for n in SELECTORS], base, strict=True)
    }


@pytest.mark.parametrize("kind", KINDS + [f"budget={b!r}" for b in BUDGETS])
def test_every_estimator_answers_or_fails_clearly(results, kind):
    res, _ = results
    bad = {}
    for (name, k), ((status, msg), secs) in res.items():
        if k != kind:
            continue
        if status not in ("fitted", "error") or secs >= CASE_TIMEOUT:
            bad[name] = (status, msg[:200])
    assert not bad, bad


# HEOM-based estimators read NaN as a missing value (documented); inf is an error for all
_NAN_IS_MISSING = ("MLkNN", "DMLkNN", "MLCWkNN", "ReliefFML", "PPTReliefF")


def test_non_finite_input_is_an_error(results):
    res, _ = results
    for (name, kind), ((status, msg), _) in res.items():
        if kind == "inf" or (kind == "nan" and name not in _NAN_IS_MISSING):
            assert status == "error", (name, kind, status, msg)


def test_scale_invariant_selectors_select_the_same_on_huge_values(results):
    res, clean = results
    for name in SCALE_INVARIANT:
        (st0, sel0), _ = clean[name]
        for kind in ("x1e300", "x2^1019"):
            (st, sel), _ = res[(name, kind)]
            assert st0 == "fitted" and st == "fitted", (name, kind, st, sel)
            assert sel.split("|")[0] == sel0.split("|")[0], (name, kind, sel, sel0)


@pytest.mark.parametrize("kind", ["constant", "one"])
def test_degenerate_data_selects_nothing_and_says_so(results, kind):
    res, _ = results
    for name in SELECTORS:
        (status, msg), _ = res[(name, kind)]
        if status == "error":
            continue  # e.g. a wrapper that needs a holdout split says it cannot
        ranking, warned = msg.split("|", 1)
        assert ranking == "[]", (name, kind, msg)
        assert "no feature varies" in warned, (name, kind, warned)


def test_clean_data_baseline_is_fitted(results):
    _, clean = results
    for name, ((status, msg), _) in clean.items():
        assert status == "fitted" and msg.split("|")[0] != "[]", (name, status, msg)


# --------------------------------------------------------------------------- unit checks


def test_liblinear_guard_on_emotions_returns_within_the_deadline(dataset_path):
    from skmlfs.datasets import load

    ds = load(dataset_path("mulan/emotions/emotions.arff"))
    X, Y = ds.X[:200] * 1e300, ds.Y[:200]
    ests = [L.BinaryRelevance(), L.ClassifierChain(), L.BayesianClassifierChain(),
            L.KDependentChain(), L.EnsembleOfChains(n_estimators=2, random_state=0)]

    def fit(est):
        try:
            est.fit(X, Y)
        except ValueError as exc:
            return str(exc)
        return "fitted"

    out = run_with_deadline(fit, ests, 60.0)
    for est, (msg, secs) in zip(ests, out, strict=True):
        assert secs < 10 and "LIBLINEAR" in msg and "1e+30" in msg, (est, msg, secs)
    # below the bound nothing changes: the same fit as on the unscaled data
    a = L.BinaryRelevance(random_state=0).fit(ds.X[:200] * 1e20, Y).predict(ds.X[:50] * 1e20)
    assert a.shape == (50, Y.shape[1])


def _reference_codes(col: np.ndarray) -> np.ndarray:
    """Partition of the rows by value (straightforward): rows i, j equal iff same value."""
    return np.unique(col, return_inverse=True)[1].ravel()


@pytest.mark.parametrize(
    "X",
    [
        np.array([[1e300, 0.0], [2e300, 1.0], [1e300, 2.0**64], [3e300, -(2.0**70)]]),
        np.array([[np.iinfo(np.int64).min, 0], [np.iinfo(np.int64).max, 1], [0, 1], [5, 0]]),
        np.array([[2**64 - 1], [0], [2**63], [2**64 - 1]], dtype=np.uint64),
        np.array([[2.0**60], [2.0**60 + 256], [2.0**60], [-(2.0**60)]]),
    ],
)
def test_codes_of_extreme_values_partition_the_rows_like_the_values(X):
    from skmlfs.info import DiscreteData, entropy

    D = DiscreteData.from_array(X)
    codes = D.codes()
    for j in range(X.shape[1]):
        ref = _reference_codes(X[:, j])
        # same partition of the rows (codes are relabelled most-frequent-first)
        same = codes[:, j][:, None] == codes[:, j][None, :]
        assert np.array_equal(same, ref[:, None] == ref[None, :]), (j, codes[:, j], ref)
        assert D.arity[j] == np.unique(X[:, j]).size
        p = np.bincount(ref) / X.shape[0]
        assert entropy(D.take([j]))[0] == pytest.approx(-(p * np.log2(p)).sum())
        assert np.array_equal(np.sort(D.values[j]), np.unique(X[:, j]))


def test_is_discrete_does_not_take_huge_floats_for_codes():
    from skmlfs.selection._base import is_discrete

    assert is_discrete(np.array([[0.0, 3.0], [2.0**53, 1.0]]))
    assert not is_discrete(np.array([[0.0, 3.0], [1e300, 1.0]]))
    assert is_discrete(np.array([[np.iinfo(np.int64).max]]))  # integer dtype: codes


def test_meanstd_states_are_scale_invariant_up_to_the_float_limit():
    from skmlfs.discretize import MeanStdDiscretizer

    X = X0[:, :4].copy()
    a = MeanStdDiscretizer(factor=0.5, decimals=None).fit_transform(X)
    b = MeanStdDiscretizer(factor=0.5, decimals=None).fit_transform(X * 2.0**1019)
    assert np.array_equal(a, b)


def test_meanstd_rounding_depends_on_the_units_and_the_occ_default_does_not(dataset_path):
    """myDisc's rounding of the edges to 3 decimals moves them on emotions (stds ~0.01) and
    not on emotions x 1e300: the cause of MLFS selecting differently on the scaled data."""
    from skmlfs.datasets import load
    from skmlfs.discretize import MeanStdDiscretizer, occ_discretizer

    X = np.asarray(load(dataset_path("mulan/emotions/emotions.arff")).X, dtype=float)
    rounded = MeanStdDiscretizer(decimals=3)
    assert not np.array_equal(rounded.fit_transform(X), rounded.fit_transform(X * 1e300))
    for scale in (1e300, 2.0**-40, 1e-3, 7.0):
        np.testing.assert_array_equal(
            occ_discretizer().fit_transform(X * scale), occ_discretizer().fit_transform(X)
        )


@pytest.mark.parametrize("name", SCALE_INVARIANT)
def test_scale_invariant_selectors_on_real_data_times_1e300(name, dataset_path):
    """On emotions x 1e300 (and x 2^-40) every scale-invariant selector selects what it
    selects on emotions (the synthetic 30 x 8 data above, values O(1), hid MLFS's
    unit-dependent rounding)."""
    from skmlfs.datasets import load

    ds = load(dataset_path("mulan/emotions/emotions.arff"))
    X, Y = np.asarray(ds.X, dtype=float)[:300], ds.Y[:300]
    est = clone(SELECTORS[name]).set_params(n_features_to_select=5)
    ref = clone(est).fit(X, Y).selection_order_[:5]
    for scale in (1e300, 2.0**-40):
        got = clone(est).fit(X * scale, Y).selection_order_[:5]
        np.testing.assert_array_equal(got, ref, err_msg=f"{name} x {scale}")


def test_heom_fit_validates_and_survives_the_full_float_range():
    from skmlfs.neighbors import HEOM, heom_distances

    X = X0[:6, :3].copy()
    with pytest.raises(ValueError, match="infinity"):
        HEOM().fit(np.where(X > 1, np.inf, X))
    big = X / np.abs(X).max() * 1.7e308  # max - min overflows to inf
    h = HEOM().fit(big)
    assert np.all(np.isfinite(h.inv_range_)) and np.all(h.inv_range_ > 0)
    D = heom_distances(big)
    assert np.all(np.isfinite(D))
    np.testing.assert_allclose(D, heom_distances(X), rtol=1e-12, atol=1e-12)


def test_degenerate_selection_is_one_rule():
    from skmlfs.selection._base import degenerate_selection

    class Dummy:
        pass

    est = Dummy()
    with pytest.warns(UserWarning, match=r"Dummy: no feature varies.*all 3 features"):
        assert degenerate_selection(est, np.ones((5, 3)))
    assert est.selection_order_.size == 0 and est.n_features_to_select_ == 0
    with pytest.warns(UserWarning, match="a single training sample"):
        assert degenerate_selection(Dummy(), np.array([[1.0, 2.0]]))
    import scipy.sparse as sp

    assert not degenerate_selection(Dummy(), sp.csr_matrix(np.eye(3)))  # varies (sparse)
    assert not degenerate_selection(Dummy(), np.array([[1.0, np.nan], [2.0, 1.0]]))


def test_fit_settings_follows_the_degenerate_rule():
    from skmlfs.selection._sparse_learning import fit_settings

    X, Y = np.ones((10, 4)), Y0[:10]
    with pytest.warns(UserWarning, match="no feature varies"):
        fitted = list(fit_settings(S.MIFS(2, random_state=0), X, Y, [{"alpha": 1.0}]))
    assert fitted[0].selection_order_.size == 0 and not fitted[0].get_support().any()
