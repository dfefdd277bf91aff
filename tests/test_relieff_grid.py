"""experiments/relieff_ml_grid.toml through the engine gives the per-fold values of
scripts/reproduce_relieff_ml.py (same folds, same ReliefF-ML seeds), issue #14."""

from __future__ import annotations

import importlib.util
import re
import tomllib
from pathlib import Path

import pytest

from skmlfs.experiments import ExperimentSpec, ResultStore, run_experiment

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "scripts" / "reproduce_relieff_ml.py"


@pytest.mark.skipif(not SCRIPT.exists(), reason="the reproduction script has been removed")
def test_engine_cells_equal_the_script_on_emotions(datasets_dir, tmp_path):
    spec_ = importlib.util.spec_from_file_location("reproduce_relieff_ml", SCRIPT)
    script = importlib.util.module_from_spec(spec_)
    spec_.loader.exec_module(script)
    cfg = script.load_config(REPO / "experiments" / "relieff_ml_paper.toml")
    cfg["tuning"]["k_grid"] = [10]
    cfg["learners"] = [L for L in cfg["learners"] if L["name"] == "ML-kNN"]
    cfg["robustness"] = {}
    old = script.run_dataset("emotions", cfg, lambda msg: None)["values"]["ML-kNN"]

    d = tomllib.loads((REPO / "experiments" / "relieff_ml_grid.toml").read_text())
    d["datasets"] = [x for x in d["datasets"] if x["name"] == "emotions"]
    d["learners"] = {n: {**t, "variants": {k: [10] for k in t["variants"]}}
                     for n, t in d["learners"].items() if n.startswith("ML-kNN")}
    spec = ExperimentSpec.from_dict(d, source="relieff_ml_grid.toml")
    run_experiment(spec, tmp_path / "r.db", verbose=False, progress=False)
    with ResultStore(tmp_path / "r.db") as st:
        df = st.to_frame()
    assert len(df) == 2 * 10
    for _, row in df.iterrows():
        variant = "WF" if re.match(r"ML-kNN-WF\[", row["learner"]) else ""
        for m in ("hamming_loss", "multilabel_accuracy", "one_error", "ranking_loss"):
            assert row[m] == old[variant]["10"][m][row["split"]], (row["learner"], m)
