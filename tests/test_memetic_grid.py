"""experiments/memetic_grid.toml through the engine gives the values of
scripts/reproduce_memetic.py (same splits, same search seeds), issue #14."""

from __future__ import annotations

import importlib.util
import tomllib
from pathlib import Path

import pytest

from skmlfs.experiments import ExperimentSpec, ResultStore, run_experiment

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "scripts" / "reproduce_memetic.py"


@pytest.mark.skipif(not SCRIPT.exists(), reason="the reproduction script has been removed")
@pytest.mark.parametrize("name", ["emotions", "scene"])
def test_engine_cells_equal_the_script(name, datasets_dir, tmp_path):
    spec_ = importlib.util.spec_from_file_location("reproduce_memetic", SCRIPT)
    script = importlib.util.module_from_spec(spec_)
    spec_.loader.exec_module(script)
    cfg = tomllib.loads((REPO / "experiments" / "memetic_paper.toml").read_text())
    # a smaller search keeps the test short; the engine gets the same parameters
    cfg["search"].update(population_size=8, max_evaluations=30, n_features_to_select=10)
    metrics = ["one_error", "multilabel_accuracy"]
    d = next(x for x in cfg["datasets"] if x["name"] == name)
    items = tuple(sorted(dict(d, _repeats=2, _test_size=0.2, _seed=0).items()))

    g = tomllib.loads((REPO / "experiments" / "memetic_grid.toml").read_text())
    g["datasets"] = [x for x in g["datasets"] if x["name"] == name]
    if "protocol" in g["datasets"][0]:
        g["datasets"][0]["protocol"]["n_splits"] = 2
    g["protocol"]["repeats"] = 2
    g["n_features"] = 10
    for sel in ("memetic", "ga"):
        g["selectors"][sel].update(population_size=8, max_evaluations=30,
                                   variants={"metric": metrics})
    spec = ExperimentSpec.from_dict(g, source="memetic_grid.toml")
    run_experiment(spec, tmp_path / "m.db", verbose=False, progress=False)
    with ResultStore(tmp_path / "m.db") as st:
        df = st.to_frame()
    assert len(df) == 2 * 5
    for k in range(2):
        gics = {r["optimised"]: r["value"] for r in script.run_gics(items, k, cfg)}
        row = df[(df.split == k) & (df.method == "gics")].iloc[0]
        for m in ("multilabel_accuracy", "one_error", "ranking_loss", "coverage"):
            assert row[m] == pytest.approx(gics[m], abs=1e-12), ("gics", k, m)
        for method in ("memetic", "ga"):
            for m in metrics:
                old = script.run_search(items, k, method, m, cfg)
                row = df[(df.split == k) & (df.method == f"{method}[metric={m}]")].iloc[0]
                assert row[m] == pytest.approx(old["value"], abs=1e-12), (method, k, m)
                hist = row["info"]["selector"]["history"]
                assert len(hist) == old["ffcs"]
