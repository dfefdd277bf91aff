"""Real data shared by the selectors' reference tests: ``(X, Y)`` of the Mulan files.

Module-scoped, so each test module loads a data set once; skipped like every real-data
test when ``MLFS_DATASETS`` is unset (through ``dataset_path``).
"""

from __future__ import annotations

import numpy as np
import pytest

from skmlfs.datasets import load

# the Mulan file of each name (scene: its training part, as the papers' reference runs)
_ARFF = {"scene": "mulan/scene/scene-train.arff"}


def load_mulan_xy(dataset_path, name: str) -> tuple[object, np.ndarray]:
    """``(X, Y)`` of a Mulan data set, ``Y`` as a dense 0/1 ``uint8`` matrix."""
    arff = _ARFF.get(name, f"mulan/{name}/{name}.arff")
    ds = load(dataset_path(arff), labels=dataset_path(f"mulan/{name}/{name}.xml"))
    return ds.X, np.asarray(ds.Y, dtype=np.uint8)


@pytest.fixture(scope="module")
def flags(dataset_path):
    return load_mulan_xy(dataset_path, "flags")


@pytest.fixture(scope="module")
def emotions(dataset_path):
    return load_mulan_xy(dataset_path, "emotions")


@pytest.fixture(scope="module")
def scene(dataset_path):
    return load_mulan_xy(dataset_path, "scene")
