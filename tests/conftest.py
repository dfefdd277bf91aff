"""Shared test fixtures.

Real-data tests use the ``datasets_dir`` fixture (or :func:`dataset_path`). They are
skipped when ``MLFS_DATASETS`` is unset. When it *is* set (as ``.ci/run`` does), a
missing file is a failure, and any skipped real-data test fails the session, so CI can
never pass while silently skipping the checks against real data.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

_SKIPPED_REALDATA: list[str] = []


def _root() -> Path | None:
    value = os.environ.get("MLFS_DATASETS")
    return Path(value).resolve() if value else None


@pytest.fixture(scope="session")
def datasets_dir() -> Path:
    root = _root()
    if root is None:
        pytest.skip("MLFS_DATASETS is not set; real-data test skipped")
    if not root.is_dir():
        pytest.fail(f"MLFS_DATASETS={root} is not a directory")
    return root


@pytest.fixture(scope="session")
def dataset_path(datasets_dir):
    """Return a function mapping a path relative to MLFS_DATASETS to an existing file."""

    def get(rel: str) -> Path:
        p = datasets_dir / rel
        if not p.exists():
            pytest.fail(f"dataset file {p} is missing although MLFS_DATASETS is set")
        return p

    return get


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "datasets_dir" in getattr(item, "fixturenames", ()) or "dataset_path" in getattr(
            item, "fixturenames", ()
        ):
            item.add_marker(pytest.mark.realdata)


def pytest_runtest_logreport(report):
    if report.skipped and "realdata" in report.keywords:
        _SKIPPED_REALDATA.append(report.nodeid)


def pytest_sessionfinish(session, exitstatus):
    if _root() is not None and _SKIPPED_REALDATA:
        print(
            f"\nERROR: {len(_SKIPPED_REALDATA)} real-data test(s) were skipped although "
            "MLFS_DATASETS is set:\n  " + "\n  ".join(_SKIPPED_REALDATA[:20])
        )
        session.exitstatus = 1
