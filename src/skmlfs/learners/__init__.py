"""Multi-label learners: predict -> dense (n, q) int, predict_proba -> dense (n, q) P(label=1)."""

from ._mlnb import MLNB as MLNB
