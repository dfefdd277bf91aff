"""The Mulan data sets of the sparse-learning benchmarks (bench_manifold, bench_graph_reg,
bench_sparse_graph): one list and one loader, so that the three time the same inputs."""

from __future__ import annotations

from pathlib import Path

import numpy as np

DATASETS = [  # (name, arff relative to mulan/, xml)
    ("emotions", "emotions/emotions.arff", "emotions/emotions.xml"),
    ("scene", "scene/scene-train.arff", "scene/scene.xml"),
    ("medical", "medical/medical.arff", "medical/medical.xml"),
    ("bibtex", "bibtex/bibtex.arff", "bibtex/bibtex.xml"),
]


def load_part(root: Path, arff_rel: str, xml_rel: str):
    """``(X, Y)`` of one data set under ``root`` (the ``mulan/`` folder), Y dense uint8."""
    from skmlfs.datasets import load

    ds = load(root / arff_rel, labels=root / xml_rel)
    return ds.X, np.asarray(ds.Y, dtype=np.uint8)
