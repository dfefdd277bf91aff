"""Cells do not depend on the number of BLAS threads: every backend, the serial run
included, computes a task on one thread."""

from __future__ import annotations

import textwrap

import numpy  # noqa: F401 — loads the BLAS library threadpoolctl then sees
import pytest
from _user_selector import USER_MODULE
from threadpoolctl import threadpool_info, threadpool_limits

from skmlfs.cli import main

PROBE = '''
import os

from threadpoolctl import threadpool_info

from my_selectors import LowestVariance


class ThreadProbe(LowestVariance):
    """Writes the BLAS thread counts it runs under to $PROBE_LOG."""

    def fit(self, X, Y=None):
        with open(os.environ["PROBE_LOG"], "a") as f:
            for lib in threadpool_info():
                if lib["user_api"] == "blas":
                    f.write(f"{lib['num_threads']}\\n")
        return super().fit(X, Y)
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
    (tmp_path / "my_selectors.py").write_text(textwrap.dedent(USER_MODULE))
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
