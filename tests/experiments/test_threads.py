"""Cells do not depend on the number of BLAS threads: every backend, the serial run
included, computes a task on one thread."""

from __future__ import annotations

import textwrap

import numpy  # noqa: F401 — loads the BLAS library threadpoolctl then sees
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from skmlfs.cli import main

PROBE = '''
import os

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from threadpoolctl import threadpool_info


class ThreadProbe(SelectorMixin, BaseEstimator):
    """Writes the BLAS thread counts it runs under to $PROBE_LOG; selects by variance."""

    def __init__(self, n_features_to_select=2):
        self.n_features_to_select = n_features_to_select

    def fit(self, X, Y=None):
        with open(os.environ["PROBE_LOG"], "a") as f:
            for lib in threadpool_info():
                if lib["user_api"] == "blas":
                    f.write(f"{lib['num_threads']}\\n")
        X = np.asarray(X, dtype=float)
        self.n_features_in_ = X.shape[1]
        self.scores_ = X.var(axis=0)
        self.selection_order_ = np.argsort(-self.scores_, kind="stable")
        return self

    def _get_support_mask(self):
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[self.selection_order_[: self.n_features_to_select]] = True
        return mask
'''

EXPERIMENT = """
name = "threads"
seed = 0
selectors = ["mi_rank"]
n_features_to_select = [4]
metrics = ["hamming_loss"]
learners = [{ name = "ML-kNN", method = "mlknn", k = 10 }]
protocol = { kind = "kfold", k = 2 }
datasets = [{ name = "emotions", load = "emotions" }]
"""


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_every_backend_runs_tasks_on_one_blas_thread(jobs, datasets_dir, tmp_path,
                                                     monkeypatch):
    if not any(lib["user_api"] == "blas" for lib in threadpool_info()):
        pytest.skip("no BLAS library loaded")
    (tmp_path / "probe_mod.py").write_text(textwrap.dedent(PROBE))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))  # the joblib workers import it too
    log = tmp_path / "threads.log"
    monkeypatch.setenv("PROBE_LOG", str(log))
    f = tmp_path / "t.toml"
    f.write_text(EXPERIMENT)
    if jobs != "1":  # fresh joblib workers, which inherit PYTHONPATH and find the probe
        from joblib.externals.loky import get_reusable_executor

        get_reusable_executor().shutdown(wait=True, kill_workers=True)
    with threadpool_limits(2):  # the caller's own setting: more than one
        rc = main(["benchmark", str(f), "--db", str(tmp_path / "t.db"), "-q", "--no-report",
                   "-j", jobs, "--add-selector", "probe=probe_mod:ThreadProbe"])
        after = {lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"}
    assert rc == 0
    seen = log.read_text().split()
    assert seen and set(seen) == {"1"}  # every fit, both folds
    assert after == {2}  # the caller's setting is given back
