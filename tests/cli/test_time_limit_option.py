"""``mlfs benchmark --time-limit``: the file's ``time_limit`` overridden from the command
line, for one-grid files and files with parts, checked before any work."""

from __future__ import annotations

import textwrap

import pytest
from _slow_selector import SLOW_MODULE

from skmlfs.cli import main
from skmlfs.experiments import ResultStore

GEN = "skmlfs.datasets:make_multilabel_discrete"

ONE_GRID = f"""
name = "lim"
seed = 1
time_limit = "1 h"
n_features_to_select = [2]
metrics = ["hamming_loss"]
selectors = [
    "mi_rank",
    {{ name = "crawl", method = "slow_selectors:Crawl", n_steps = 40, pause = 0.02 }},
]
protocol = {{ kind = "holdout", repeats = 2 }}
[[datasets]]
name = "s"
generator = "{GEN}"
params = {{ n_samples = 80, n_features = 8, random_state = 2 }}
"""

WITH_PARTS = ONE_GRID + """
[[part]]
name = "other"
protocol = { kind = "holdout", repeats = 1 }
"""


@pytest.fixture
def slow_module(tmp_path, monkeypatch):
    (tmp_path / "slow_selectors.py").write_text(textwrap.dedent(SLOW_MODULE))
    monkeypatch.syspath_prepend(str(tmp_path))


@pytest.mark.parametrize("text", [ONE_GRID, WITH_PARTS])
def test_override_stops_the_slow_tasks(text, tmp_path, slow_module, capsys):
    (tmp_path / "exp.toml").write_text(text)
    db = tmp_path / "r.db"
    rc = main(["benchmark", str(tmp_path / "exp.toml"), "--db", str(db), "--no-report",
               "--time-limit", "0.3"])
    assert rc == 1  # failed tasks: the exit status says so
    assert "TimeLimitExceeded: crawl stopped at the time limit of 0.3 s" in capsys.readouterr().err
    with ResultStore(db) as st:
        # one method on one data set (its other splits and the other part's not started)
        assert [v["method"] for v in st.stopped().values()] == ["crawl"]
        assert len(st.failures()) == 1
        assert set(st.to_frame()["method"]) == {"mi_rank"}
    # the file's own hour computes them (a longer limit than the one that stopped them)
    rc = main(["benchmark", str(tmp_path / "exp.toml"), "--db", str(db), "--no-report", "-q"])
    assert rc == 0
    with ResultStore(db) as st:
        assert set(st.to_frame()["method"]) == {"mi_rank", "crawl"}


@pytest.mark.parametrize("text", [ONE_GRID, WITH_PARTS])
def test_a_bad_duration_is_refused_before_any_work(text, tmp_path, capsys):
    (tmp_path / "exp.toml").write_text(text)
    db = tmp_path / "r.db"
    rc = main(["benchmark", str(tmp_path / "exp.toml"), "--db", str(db), "-q",
               "--time-limit", "a while"])
    assert rc != 0
    assert "time limit: must be a number of seconds or a duration" in capsys.readouterr().err
    assert not db.exists()
