"""Bad-input warnings reach the user once per fit, from every estimator."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from skmlfs.learners import (
    MLNB,
    OCC,
    BinaryRelevance,
    DMLkNN,
    EnsembleOfChains,
    MLCWkNN,
    MLkNN,
)
from skmlfs.selection import (
    AMI,
    GICS,
    LRFS,
    MDFS,
    MDMR,
    MIFS,
    MLCFS,
    MLFS,
    MSSL,
    PPTCHI,
    PPTMI,
    RALMFS,
    RLEFS,
    SCLS,
    SCMFS,
    SSFS,
    MemeticSelector,
    PPTReliefF,
    ReliefFML,
)


def _data():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, size=(60, 8))
    Y = (rng.random((60, 4)) < 0.4).astype(int)
    Y[:, 2] = 0  # no positive example
    return X, Y


def _caught(est, X, Y, needle):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        est.fit(X, Y)
    return [str(x.message) for x in w if needle in str(x.message)]


ESTIMATORS = [
    MLNB(), BinaryRelevance(), BinaryRelevance(selector=SCLS(3)), OCC(),
    EnsembleOfChains(n_estimators=3, random_state=0), MLkNN(k=3), DMLkNN(k=3),
    MLCWkNN(k=3), SCLS(3), AMI(3), MDMR(3), GICS(3), LRFS(3), MLCFS(3), MLFS(3), PPTMI(3),
    PPTCHI(3), PPTReliefF(3), ReliefFML(3, random_state=0), RLEFS(3, random_state=0),
    MIFS(3, random_state=0), RALMFS(3), MDFS(3, random_state=0), SCMFS(3, random_state=0),
    MemeticSelector(
        MLNB(alpha=0.5), n_features_to_select=3, population_size=5, max_evaluations=20,
        random_state=0,
    ),
]
ESTIMATORS += [MSSL(3), SSFS(3, random_state=0)]


@pytest.mark.parametrize("est", ESTIMATORS, ids=lambda e: type(e).__name__)
def test_label_without_positives_warns_once(est):
    X, Y = _data()
    msgs = _caught(est, X, Y, "no positive example")
    assert len(msgs) == 1, msgs
    assert "columns 2)" in msgs[0] and "1 of the 4 label columns" in msgs[0]


@pytest.mark.parametrize(
    "est", [SCLS(20), RLEFS(20, random_state=0), MIFS(20, random_state=0), RALMFS(20)],
    ids=lambda e: type(e).__name__,
)
def test_budget_above_feature_count_warns_once_and_caps(est):
    X, Y = _data()
    Y[:, 2] = Y[:, 0]
    msgs = _caught(est, X, Y, "larger than the number of features")
    assert len(msgs) == 1, msgs
    assert "n_features_to_select=20" in msgs[0] and "(8)" in msgs[0]
    assert est.get_support().sum() == 8
