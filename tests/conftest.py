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


def _plain_traceback(item):
    def repr_failure(excinfo):
        # from the test's own frame on, as pytest shows it
        excinfo.traceback = excinfo.traceback.cut(path=item.path)
        return excinfo.getrepr(style="native")

    return repr_failure


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "datasets_dir" in getattr(item, "fixturenames", ()) or "dataset_path" in getattr(
            item, "fixturenames", ()
        ):
            item.add_marker(pytest.mark.realdata)
        if item.get_closest_marker("xfail") is not None:
            # pytest formats the traceback of every expected failure although it never
            # shows it; its long style reads and parses the source of each frame, about
            # 0.3 s per scikit-learn check (most of tests/test_estimator_checks.py's time).
            # Python's own format is 5x cheaper and as readable when a test does fail.
            item.repr_failure = _plain_traceback(item)


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
