"""Progress of long work, one rule everywhere (issue #24 §5): a bar on a terminal, a line
every few seconds on a pipe (nothing for short work), nothing with -q; estimators report
the steps of one fit through scikit-learn's ``verbose``."""

from __future__ import annotations

import io
import re

import numpy as np
import pytest
from sklearn.base import clone

from skmlfs import selection as S
from skmlfs._progress import progress_bar, progress_mode, progress_style, report_step
from skmlfs.cli import main
from skmlfs.learners import MLNB

rng = np.random.default_rng(3)
X = rng.normal(size=(80, 12))
Y = np.column_stack([X[:, 0] > 0, X[:, 1] + X[:, 2] > 0, X[:, 3] < 0.2]).astype(int)

# Every long-running selector reports its steps (greedy picks, solver iterations, wrapper
# evaluations, neighbour searches).
VERBOSE = {
    "SCLS": S.SCLS(4), "AMI": S.AMI(4), "MDMR": S.MDMR(4), "GICS": S.GICS(4),
    "MLCFS": S.MLCFS(4), "LRFS": S.LRFS(4), "MLFS": S.MLFS(4, mode="global"),
    "MLFS-local": S.MLFS(4), "MLJMI": S.MLJMI(4), "MLMRMR": S.MLMRMR(4),
    "RLEFS": S.RLEFS(4, max_iter=5, random_state=0),
    "MIFS": S.MIFS(4, max_iter=5, random_state=0),
    "RALMFS": S.RALMFS(4, max_iter=5, random_state=0),
    "MDFS": S.MDFS(4, max_iter=5, tol=0, random_state=0),
    "SCMFS": S.SCMFS(4, max_iter=5, random_state=0),
    "MSSL": S.MSSL(4, max_iter=5, tol=0),
    "SSFS": S.SSFS(4, max_iter=5, tol=0, random_state=0),
    "ReliefFML": S.ReliefFML(4, k=3, random_state=0),
    "Memetic": S.MemeticSelector(MLNB(), n_features_to_select=4, population_size=4,
                                 max_evaluations=12, random_state=0),
    "GA": S.GeneticSelector(MLNB(), n_features_to_select=4, population_size=4,
                            max_evaluations=12, random_state=0),
}


class _TTY(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_one_rule_for_where_progress_goes():
    assert progress_mode(False, _TTY()) == "bar"
    assert progress_mode(False, io.StringIO()) == "lines"
    assert progress_mode(True, _TTY()) == "off"


def test_lines_on_a_pipe_every_interval_and_nothing_for_short_work(monkeypatch):
    out = io.StringIO()
    monkeypatch.setenv("MLFS_PROGRESS_INTERVAL", "3600")
    bar = progress_bar(5, "exp", None, stream=out)
    for _ in range(5):
        bar.update(1)
    bar.close()
    assert out.getvalue() == ""  # shorter than the interval: silent, no bar frames
    monkeypatch.setenv("MLFS_PROGRESS_INTERVAL", "0")
    bar = progress_bar(4, "exp", None, stream=out)
    for _ in range(4):
        bar.update(1)
    bar.close()
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("exp: 1/4 cells (25 %) in ") and "left" in lines[0]
    assert lines[-1].startswith("exp: 4/4 cells (100 %)")
    assert "\r" not in out.getvalue()
    out = io.StringIO()
    bar = progress_bar(4, "exp", False, stream=out)
    bar.update(4)
    bar.close()
    assert out.getvalue() == ""


class _Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


@pytest.mark.parametrize("mode", ["lines", "bar"])
def test_time_left_follows_the_work_of_the_items_not_their_count(mode, monkeypatch):
    """Items of unequal cost (an experiment's cells, largest data set first): the time left
    scales the time so far by the work left over the work done."""
    import skmlfs._progress as pr

    clock = _Clock()
    monkeypatch.setattr(pr.time, "perf_counter", clock)
    monkeypatch.setenv("MLFS_PROGRESS_INTERVAL", "0")
    out = _TTY() if mode == "bar" else io.StringIO()
    bar = progress_bar(4, "exp", mode, stream=out, work=10.0)
    clock.t = 8.0
    bar.update(1, work=4.0)  # 4 of 10 units in 8 s: 12 s left (by the count: 24 s)
    if mode == "lines":  # (a tqdm bar redraws at most every 0.1 s of its own clock)
        assert "about 12.0 s left" in out.getvalue()
    clock.t = 11.0
    bar.update(2, work=5.0)  # 9 units in 11 s: 1 unit left, 1.2 s
    bar.close()  # a bar draws its last state
    assert "about 1.2 s left" in out.getvalue()
    assert "3/4" in out.getvalue() and "24.0 s" not in out.getvalue()
    # without work each item is one unit: the count's estimate
    out = io.StringIO()
    clock.t = 0.0
    bar = progress_bar(4, "exp", "lines", stream=out)
    clock.t = 8.0
    bar.update(1)
    assert "about 24.0 s left" in out.getvalue()


@pytest.mark.parametrize("name", VERBOSE)
def test_verbose_selectors_report_their_steps(name, capsys):
    est = VERBOSE[name]
    assert est.get_params()["verbose"] == 0
    assert "verbose" in type(est)._parameter_constraints
    ref = clone(est).fit(X, Y)
    assert capsys.readouterr().err == ""  # verbose=0: silent
    got = clone(est).set_params(verbose=2).fit(X, Y)
    err = capsys.readouterr().err
    cls = type(est).__name__
    steps = [ln for ln in err.splitlines() if ln.startswith(f"[{cls}] ")]
    assert len(steps) >= 2 and steps[-1].startswith(f"[{cls}] fit done in "), err
    assert re.search(r"(feature|iteration|evaluation|neighbour block|conditioning label) \d+",
                     err), err
    np.testing.assert_array_equal(got.get_support(), ref.get_support())  # same result


def test_verbose_is_validated_and_nested_fits_stay_silent(capsys):
    with pytest.raises(ValueError, match="verbose"):
        S.SCLS(3, verbose="loud").fit(X, Y)
    # a verbose=0 estimator fitted inside a verbose one prints nothing of its own
    from skmlfs._progress import fit_progress

    outer = S.SCLS(3, verbose=2)
    with fit_progress(outer):
        S.AMI(3).fit(X, Y)
        report_step(1, 1, "step")
    err = capsys.readouterr().err
    assert "[AMI]" not in err and "[SCLS] step 1/1" in err


def test_verbose_one_is_silent_for_a_short_fit_and_a_bar_on_a_terminal(capsys, monkeypatch):
    monkeypatch.setenv("MLFS_PROGRESS_INTERVAL", "3600")
    S.SCLS(4, verbose=1).fit(X, Y)
    assert capsys.readouterr().err == ""
    with progress_style("bar"):
        S.SCLS(4, verbose=1).fit(X, Y)  # tqdm on stderr, closed (leave=False)
    assert "[SCLS]" not in capsys.readouterr().err


def test_verbose_does_not_change_experiment_ids():
    from skmlfs.experiments._spec import MethodSpec

    a = MethodSpec.from_estimator("scls", S.SCLS(5))
    b = MethodSpec.from_estimator("scls", S.SCLS(5, verbose=2))
    assert a.identity() == b.identity() and "verbose" not in a.identity()["params"]


def test_cli_select_and_evaluate_follow_the_rule(tmp_path, capsys, monkeypatch, dataset_path):
    path = dataset_path("mulan/emotions/emotions.arff")
    monkeypatch.setenv("MLFS_PROGRESS_INTERVAL", "0")  # a line at every step on a pipe
    assert main(["select", str(path), "-m", "lrfs", "-k", "3"]) == 0
    err = capsys.readouterr().err
    assert "[LRFS] conditioning label 1/6" in err and "[LRFS] feature 3/3" in err
    assert main(["select", str(path), "-m", "lrfs", "-k", "3", "-q"]) == 0
    assert "[LRFS]" not in capsys.readouterr().err
    args = ["evaluate", str(path), "--methods", "scls", "--repeats", "2", "-k", "2"]
    assert main(args) == 0
    err = capsys.readouterr().err
    assert "\r" not in err  # no bar frames in a redirected log
    assert re.search(r"emotions: 2/2 cells \(100 %\)", err), err
    assert main([*args, "-q"]) == 0
    assert "cells" not in capsys.readouterr().err


def test_benchmark_runner_prints_lines_on_a_pipe(tmp_path, capsys, monkeypatch):
    from skmlfs.experiments import ExperimentSpec, run_experiment

    spec = ExperimentSpec.from_dict({
        "name": "pg", "seed": 0, "n_features_to_select": [2], "selectors": ["scls"],
        "metrics": ["hamming_loss"], "protocol": {"kind": "holdout", "repeats": 2},
        "datasets": [{"name": "a", "generator": "skmlfs.datasets:make_multilabel_discrete",
                      "params": {"n_samples": 60, "n_features": 6, "random_state": 0}}],
    })
    monkeypatch.setenv("MLFS_PROGRESS_INTERVAL", "0")
    run_experiment(spec, tmp_path / "p.db", verbose=False, progress=None)
    err = capsys.readouterr().err
    assert "pg: 2/2 cells (100 %)" in err and "\r" not in err
    run_experiment(spec, tmp_path / "q.db", verbose=False, progress=False)
    assert capsys.readouterr().err == ""
