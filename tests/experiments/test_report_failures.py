"""The report's failure section lists only the failed tasks that still have no cells."""

from __future__ import annotations

from types import SimpleNamespace

import pandas as pd

from skmlfs.experiments.report._sections import Failures


def _text(rendered) -> str:
    return "\n".join(rendered.markdown)


def test_recomputed_failures_are_counted_not_listed():
    fails = pd.DataFrame({"dataset": ["enron", "genbase", "genbase"], "split": [2, 0, 5],
                          "method": ["mcls", "mcls", "mcls"],
                          "error": ["RuntimeError: singular\nmore", "RuntimeError: a",
                                    "RuntimeError: b"]})
    frame = pd.DataFrame({"dataset": ["enron", "genbase", "genbase"], "split": [2, 0, 5],
                          "method": ["mcls", "mcls", "scls"]})
    out = _text(Failures().render(SimpleNamespace(failures=fails, frame=frame)))
    assert "1 task failure(s) without cells (2 of 3 recorded since computed" in out
    assert "genbase split 5 mcls: `RuntimeError: b`" in out
    assert "enron split 2" not in out
    done = pd.DataFrame({"dataset": ["enron", "genbase", "genbase"], "split": [2, 0, 5],
                         "method": ["mcls"] * 3})
    out = _text(Failures().render(SimpleNamespace(failures=fails, frame=done)))
    assert "None missing (3 of 3 recorded since computed by a later run)" in out


def test_failures_of_splits_this_grid_lacks_belong_to_another_part():
    fails = pd.DataFrame({"dataset": ["g", "g"], "split": [1, 5], "method": ["m", "m"],
                          "error": ["E: one", "E: five"]})
    frame = pd.DataFrame({"dataset": ["g"] * 5, "split": range(5), "method": ["x"] * 5})
    out = _text(Failures().render(SimpleNamespace(failures=fails, frame=frame)))
    assert "1 task failure(s) without cells;" in out and "split 5" not in out
