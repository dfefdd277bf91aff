"""The time limit of an experiment's tasks (``time_limit``): the rule of
:func:`skmlfs._progress.time_limit` (the limit, and the early stop of a loop whose own
rate projects it far beyond), and the engine around it: a stopped task is a recorded
failure whose other tasks' cells are kept, a resumed run does not repeat it under the same
limit, and a longer limit runs it again."""

from __future__ import annotations

import textwrap
import time

import pytest
from _slow_selector import SLOW_MODULE

from skmlfs._progress import (
    PROJECTION_FACTOR,
    TimeLimitExceeded,
    check_time,
    report_step,
    time_limit,
)
from skmlfs.experiments import ExperimentSpec, ResultStore, run_experiment
from skmlfs.experiments._planner import plan_experiment
from skmlfs.experiments._spec import SpecError, parse_time_limit

GEN = "skmlfs.datasets:make_multilabel_discrete"



# ----------------------------------------------------------------------- the rule
def _loop(n, pause, **kw):
    for i in range(n):
        time.sleep(pause)
        report_step(i + 1, n, "label", **kw)


def test_no_limit_never_stops():
    _loop(5, 0.001)
    check_time()
    with time_limit(None):
        _loop(5, 0.001)


def test_stops_at_the_limit_when_the_projection_is_within_it():
    # 40 steps of 20 ms project to 0.8 s, under 3 x 0.3 s: the limit itself stops it
    t = time.monotonic()
    with time_limit(0.3), pytest.raises(TimeLimitExceeded, match="at the time limit"):
        _loop(40, 0.02)
    assert 0.3 <= time.monotonic() - t < 0.6


def test_a_loop_projected_far_beyond_stops_early():
    t = time.monotonic()
    with time_limit(2.0), pytest.raises(TimeLimitExceeded, match="projected") as err:
        _loop(10_000, 0.01)  # 100 s of work against 3 x 2 s
    assert time.monotonic() - t < 0.5  # at a tenth of the limit, not at the limit
    assert "of 10000 labels done" in str(err.value)


def test_upper_bounds_are_not_projected():
    # an iterative solver's max_iter: 10,000 iterations would never be projected
    with time_limit(1.0), pytest.raises(TimeLimitExceeded, match="at the time limit"):
        _loop(10_000, 0.01, upper_bound=True)


def test_an_inner_loop_is_timed_from_each_start():
    # three passes of an inner loop of 5 fast steps, each restarting at step 1, after a
    # setup that took half the limit: no pass projects beyond the limit
    with time_limit(1.0):
        time.sleep(0.5)
        for _ in range(3):
            _loop(5, 0.005)
    assert PROJECTION_FACTOR >= 1


def test_limits_nest_and_unset():
    with time_limit(0.05):
        with time_limit(None):  # the enclosing limit still holds
            time.sleep(0.08)
            with pytest.raises(TimeLimitExceeded):
                check_time()
    check_time()  # outside: no limit


@pytest.mark.parametrize("value, seconds", [
    (90, 90.0), (1.5, 1.5), ("90 s", 90.0), ("30 min", 1800.0), ("2h", 7200.0),
    ("1.5 h", 5400.0), (None, None), ("none", None),
])
def test_durations(value, seconds):
    assert parse_time_limit("f.toml", "time_limit", value) == seconds


@pytest.mark.parametrize("value", [0, -1, "0 s", "5 days", "soon", True, float("inf")])
def test_bad_durations_name_the_key(value):
    with pytest.raises(SpecError, match="f.toml: time_limit"):
        parse_time_limit("f.toml", "time_limit", value)


# ----------------------------------------------------------------------- the engine
def _spec_dict(limit, n_steps, pause=0.05):
    return {
        "name": "limited",
        "seed": 1,
        "n_features_to_select": [2, 3],
        "metrics": ["hamming_loss"],
        "selectors": ["mi_rank", {"name": "crawl", "method": "slow_selectors:Crawl",
                                  "n_steps": n_steps, "pause": pause}],
        "protocol": {"kind": "holdout", "repeats": 2},
        "datasets": [{"name": "s", "generator": GEN,
                      "params": {"n_samples": 80, "n_features": 8, "random_state": 2}}],
        **({} if limit is None else {"time_limit": limit}),
    }


def _spec(tmp_path, limit, n_steps, pause=0.05):
    return ExperimentSpec.from_dict(_spec_dict(limit, n_steps, pause))


@pytest.fixture
def slow_module(tmp_path, monkeypatch):
    (tmp_path / "slow_selectors.py").write_text(textwrap.dedent(SLOW_MODULE))
    monkeypatch.syspath_prepend(str(tmp_path))


def test_stopped_tasks_are_failures_kept_apart_and_not_repeated(tmp_path, slow_module):
    db = tmp_path / "r.db"
    # 40 steps of 20 ms (0.8 s, under 3 x the limit: not stopped early) against 0.5 s
    s1 = run_experiment(_spec(tmp_path, 0.5, 40, 0.02), db, verbose=False, progress=False)
    # crawl stopped on the first split; its other split (same size) is not started
    assert s1.n_failed_tasks == 1 and s1.n_computed == 4  # mi_rank: 2 splits x 2 budgets
    assert any("1 task(s) of crawl not run: the time limit stopped crawl on another split"
               in n for n in s1.notes)
    with ResultStore(db) as st:
        fails = st.failures()
        assert list(fails["method"]) == ["crawl"]
        assert fails["error"][0].startswith(
            "TimeLimitExceeded: crawl stopped at the time limit of 0.5 s")
        stopped = list(st.stopped().values())
        assert stopped == [{"time_limit": 0.5, "dataset": "s", "method": "crawl"}]
        plan = plan_experiment(_spec(tmp_path, 0.5, 40, 0.02), st)
        assert plan.tasks == [] and len(plan.skipped) == 2 and plan.n_skipped == 4
        assert any("2 task(s) of crawl not run" in n for n in plan.notes)
        # a shorter limit does not repeat them either; a longer one or none does
        assert plan_experiment(_spec(tmp_path, 0.2, 40, 0.02), st).tasks == []
        assert len(plan_experiment(_spec(tmp_path, 5.0, 40, 0.02), st).tasks) == 2
        assert len(plan_experiment(_spec(tmp_path, None, 40, 0.02), st).tasks) == 2
    t = time.monotonic()
    s2 = run_experiment(_spec(tmp_path, 0.5, 40, 0.02), db, verbose=False, progress=False)
    assert s2.n_computed == 0 and s2.n_failed_tasks == 0 and s2.n_cached == 4
    assert time.monotonic() - t < 10
    with ResultStore(db) as st:
        assert len(st.failures()) == 1  # nothing new recorded
    s3 = run_experiment(_spec(tmp_path, "1 min", 40, 0.02), db, verbose=False, progress=False)
    assert s3.n_computed == 4 and s3.n_failed_tasks == 0


@pytest.mark.parametrize("n_jobs", [2])
def test_the_other_splits_are_dropped_on_joblib_too(tmp_path, slow_module, n_jobs):
    """With two workers and eight splits, the batches queued after the stop lose the task."""
    from joblib.externals.loky import get_reusable_executor

    # workers start with the client's sys.path: a pool left by an earlier test would not
    # see the temporary module
    get_reusable_executor(max_workers=1).shutdown(wait=True)
    spec = ExperimentSpec.from_dict({**_spec_dict(0.5, 40, 0.05),
                                     "protocol": {"kind": "holdout", "repeats": 8}})
    s = run_experiment(spec, tmp_path / "j.db", n_jobs=n_jobs, verbose=False, progress=False)
    assert s.n_computed == 16  # mi_rank everywhere
    assert 1 <= s.n_failed_tasks < 8  # those already queued run (and stop); not all 8
    assert any("of crawl not run: the time limit stopped crawl" in n for n in s.notes)


def test_a_task_projected_beyond_the_limit_stops_early(tmp_path, slow_module):
    t = time.monotonic()
    s = run_experiment(_spec(tmp_path, 4.0, 100_000, 0.01), tmp_path / "p.db",
                       verbose=False, progress=False)
    assert s.n_failed_tasks == 1 and s.n_computed == 4  # the second split is not started
    assert time.monotonic() - t < 8  # 0.4 s, not 4 s (nor 1000 s)
    assert all("projected" in f for f in s.failures)


def test_the_limit_is_no_part_of_any_id(tmp_path, slow_module):
    db = tmp_path / "i.db"
    run_experiment(_spec(tmp_path, None, 2, 0.001), db, verbose=False, progress=False)
    s = run_experiment(_spec(tmp_path, "1 h", 2, 0.001), db, verbose=False, progress=False)
    assert s.n_computed == 0 and s.n_cached == s.n_cells == 8


def test_parts_inherit_and_override_the_limit():
    from skmlfs.experiments._parts import parts_from_dict

    d = {"name": "x", "time_limit": "2 min", "selectors": ["mi_rank"],
         "datasets": [{"name": "s", "generator": GEN, "params": {"n_samples": 40}}],
         "part": [{"name": "a"}, {"name": "b", "time_limit": 30}]}
    ep = parts_from_dict(d)
    limits = {p: ExperimentSpec.from_dict(ep.part(p)).time_limit for p in ("main", "a", "b")}
    assert limits == {"main": 120.0, "a": 120.0, "b": 30.0}


def test_rank_tables_name_the_data_sets_they_leave_out():
    """A method without a value on a data set (stopped or failed on every split) takes that
    data set out of the ranks; the table says which and why."""
    import numpy as np
    import pandas as pd

    from skmlfs.experiments.report._grid import metric_tables, table_markdown

    rows = []
    for ds in ("a", "b", "c"):
        for m, base in (("x", 0.1), ("y", 0.2), ("z", 0.3)):
            for split in range(2):
                if ds == "c" and m == "z":
                    continue  # z has no cell on c
                rows.append({"dataset": ds, "method": m, "learner": "L", "split": split,
                             "k": 2, "hamming_loss": base + 0.01 * split})
    (t,) = metric_tables(pd.DataFrame(rows), metrics=["hamming_loss"])
    assert list(t.ranks.index) == ["a", "b"]
    np.testing.assert_array_equal(t.avg_ranks.to_numpy(), [1.0, 2.0, 3.0])
    md = table_markdown(t)
    assert "Ranks over the 2 data sets where every method has a value; left out: c (no z)." in md
