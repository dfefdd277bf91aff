"""``mlfs benchmark --add-selector NAME=MODULE:CLASS``: a user's own selector joins an
experiment file's grid and report with one command."""

from __future__ import annotations

import textwrap

import pytest
from _user_selector import USER_MODULE

from skmlfs.cli import main
from skmlfs.experiments import ResultStore

EXPERIMENT = """
name = "mine"
selectors = ["mi_rank"]
n_features_to_select = [4, 8]
metrics = ["hamming_loss"]
learners = ["mlknn"]
[protocol]
kind = "kfold"
k = 2
[[datasets]]
name = "emotions"
load = "emotions"
"""


def test_own_selector_joins_grid_and_report(datasets_dir, tmp_path, monkeypatch):
    (tmp_path / "my_selectors.py").write_text(textwrap.dedent(USER_MODULE))
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "exp.toml").write_text(EXPERIMENT)
    db, out = tmp_path / "r.db", tmp_path / "rep"
    rc = main(["benchmark", str(tmp_path / "exp.toml"), "--db", str(db), "--out", str(out),
               "--no-figures", "-q", "--add-selector", "mine=my_selectors:LowestVariance"])
    assert rc == 0
    with ResultStore(db) as st:
        cells = st.to_frame()
    assert set(cells["method"]) == {"mi_rank", "mine"}
    mine = cells[cells["method"] == "mine"]
    assert len(mine) == 2 * 2  # 2 folds x 2 budgets
    assert sorted(mine["n_selected"].unique()) == [4, 8]
    text = (out / "README.md").read_text()
    assert "mine" in text and "mi_rank" in text


@pytest.mark.parametrize("entry, msg", [
    ("mine", "NAME=MODULE:CLASS"),
    ("mine=nomodule", "NAME=MODULE:CLASS"),
    ("mi_rank=my_selectors:LowestVariance", "already taken"),
    ("x=no_such_module_xyz:Cls", "cannot import"),
])
def test_bad_add_selector_is_refused_before_any_work(entry, msg, tmp_path, capsys):
    (tmp_path / "exp.toml").write_text(EXPERIMENT)
    db = tmp_path / "r.db"
    rc = main(["benchmark", str(tmp_path / "exp.toml"), "--db", str(db), "-q",
               "--add-selector", entry])
    assert rc != 0
    assert msg in capsys.readouterr().err
    assert not db.exists()
