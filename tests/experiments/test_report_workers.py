"""The report's projection of the wall time on more workers from the measured task times."""

from __future__ import annotations

import itertools
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from skmlfs.experiments._registry import resolve_section
from skmlfs.experiments.report._compute import lpt_wall_time, task_times
from skmlfs.experiments.report._sections import Workers


def _best_schedule(t, w):
    """The shortest schedule by trying every assignment of tasks to workers."""
    best = np.inf
    for assign in itertools.product(range(w), repeat=len(t)):
        loads = np.bincount(assign, weights=t, minlength=w)
        best = min(best, loads.max())
    return best


def test_lpt_hand_worked():
    # longest first to the least busy: 3→A, 3→B, 2→A (5), 2→B (5), 2→A (7); the best
    # schedule is 6 (3+3 | 2+2+2): LPT is a list schedule, not the optimum
    assert lpt_wall_time([2, 3, 2, 3, 2], 2) == 7.0
    assert _best_schedule(np.array([2, 3, 2, 3, 2.0]), 2) == 6.0
    assert lpt_wall_time([2, 3, 2, 3, 2], 1) == 12.0
    assert lpt_wall_time([2, 3, 2, 3, 2], 5) == 3.0
    assert lpt_wall_time([2, 3, 2, 3, 2], 50) == 3.0
    assert lpt_wall_time([], 4) == 0.0


def test_lpt_within_grahams_bound_of_the_best_schedule():
    rng = np.random.default_rng(0)
    for _ in range(40):
        t = rng.exponential(size=int(rng.integers(1, 8)))
        w = int(rng.integers(1, 4))
        lpt = lpt_wall_time(t, w)
        best = _best_schedule(t, w)
        assert best - 1e-12 <= lpt <= (4 / 3 - 1 / (3 * w)) * best + 1e-12
        assert lpt >= max(t.max(), t.sum() / w) - 1e-12


@pytest.mark.parametrize("bad", [0, -1])
def test_lpt_refuses_no_workers(bad):
    with pytest.raises(ValueError, match="workers must be at least 1"):
        lpt_wall_time([1.0], bad)


def test_lpt_refuses_bad_durations():
    with pytest.raises(ValueError, match="finite and non-negative"):
        lpt_wall_time([1.0, np.nan], 2)
    with pytest.raises(ValueError, match="finite and non-negative"):
        lpt_wall_time([1.0, -2.0], 2)


def _cells():
    # two tasks: r1 (selection 10 s stored on each of its 3 cells) and r2 (4 s, one cell)
    return pd.DataFrame({
        "ranking_id": ["r1", "r1", "r1", "r2"],
        "dataset": ["a", "a", "a", "b"], "method": ["m", "m", "m", "n"],
        "split": [0, 0, 0, 1], "selection_time": [10.0, 10.0, 10.0, 4.0],
        "fit_time": [1.0, 2.0, 3.0, 0.5], "predict_time": [0.5, 0.5, 0.5, 0.25],
    })


def test_task_times_count_the_selection_once():
    t = task_times(_cells()).set_index("dataset")
    assert t.loc["a", "seconds"] == pytest.approx(10 + 6 + 1.5)
    assert t.loc["b", "seconds"] == pytest.approx(4.75)
    assert len(task_times(pd.DataFrame())) == 0


def test_section_renders_projection_and_longest_task():
    ctx = SimpleNamespace(state={}, frame=_cells(), datasets=["b", "a"])
    sec = Workers({"workers": [1, 2]})
    sec.check(None)
    md = "\n".join(sec.render(ctx).markdown)
    # all: 17.5 + 4.75 = 22.25 s on one worker, the longest task (17.5 s) on two
    assert "| all | 2 | 22.2 s | 17.5 s (m, a) | 22.2 s | 17.5 s |" in md
    rows = [r for r in md.splitlines() if r.startswith("| b |") or r.startswith("| a |")]
    assert rows[0].startswith("| b | 1 | 4.75 s |")  # the report's data set order
    assert "| a | 1 | 17.5 s | 17.5 s (m) | 17.5 s | 17.5 s |" in md


def test_section_is_registered_and_checks_its_option():
    assert resolve_section("workers") is Workers
    for bad in ([0], [], "8", [True]):
        with pytest.raises(ValueError, match="workers"):
            Workers({"workers": bad}).check(None)
    assert Workers({}).render(SimpleNamespace(state={}, frame=pd.DataFrame(),
                                              datasets=[])).markdown == []
