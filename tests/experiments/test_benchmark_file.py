"""The benchmark experiment files run every selector of the library (one test keeps it so
when a selector is added to the registry)."""

from __future__ import annotations

from pathlib import Path

import pytest

from skmlfs.experiments import load_experiment
from skmlfs.experiments._registry import SELECTORS

ROOT = Path(__file__).resolve().parents[2]
FILES = ["mlfs_benchmark.toml", "mlfs_benchmark_lee.toml", "mlfs_benchmark_quick.toml"]


def _registered_classes() -> dict[str, str]:
    """Class path -> first registered name (aliases share a class)."""
    out: dict[str, str] = {}
    for name, target in SELECTORS.items():
        out.setdefault(target, name)
    return out


@pytest.mark.parametrize("file", FILES)
def test_every_registered_selector_is_benchmarked(file, datasets_dir):
    spec = load_experiment(ROOT / "experiments" / file)
    ran = {f"{c.__module__.rsplit('._', 1)[0]}:{c.__name__}"
           for c in (m.estimator_class() for m in spec.selectors)}
    missing = [n for target, n in _registered_classes().items()
               if f"{target.split(':')[0].rsplit('._', 1)[0]}:{target.split(':')[1]}" not in ran]
    assert not missing, f"{file} does not run the registered selector(s) {missing}"
    kinds = {t["kind"].rsplit(":", 1)[-1]: t for t in spec.report["section"]}
    assert "stability" in kinds and set(kinds["ReferenceMethods"]["methods"]) == {"all",
                                                                                  "random"}


def test_full_and_lee_files_cover_every_shared_data_set(datasets_dir):
    names = {ds.name for ds in load_experiment(ROOT / "experiments" / FILES[0]).datasets}
    mulan = {p.name for p in (datasets_dir / "mulan").iterdir() if p.is_dir()}
    mats = {f"{p.stem}.mat" for p in (datasets_dir / "plcfs").glob("*.mat")}
    assert mulan | mats <= names
    lee = {ds.name for ds in load_experiment(ROOT / "experiments" / FILES[1]).datasets}
    assert lee == names
