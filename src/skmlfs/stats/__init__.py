"""Statistical comparison of methods over datasets (Demšar 2006; docs/methods/statistics.md).

Ranks and the Friedman test
    :func:`rank_matrix`, :func:`average_ranks`, :func:`friedman_test`,
    :func:`friedman_from_ranks` (χ²_F and the Iman–Davenport F_F).
Post-hoc critical differences
    :func:`q_alpha`, :func:`critical_difference`, :func:`nemenyi_pairs`,
    :func:`bonferroni_dunn`, :func:`cd_groups` (the bars of a CD diagram).
Pairwise tests
    :func:`wilcoxon_signed_rank` (R+/R− as in SCLS), :func:`wilcoxon_critical_value`,
    :func:`paired_ttest` and :func:`win_tie_loss` (memetic paper a/b/c tables).
"""

from ._friedman import FriedmanResult, friedman_from_ranks, friedman_test
from ._posthoc import (
    BonferroniDunnResult,
    NemenyiResult,
    bonferroni_dunn,
    cd_groups,
    control_index,
    critical_difference,
    nemenyi_pairs,
    q_alpha,
    ranks_and_names,
)
from ._ranks import average_ranks, rank_matrix
from ._ttest import PairedTTestResult, WinTieLossResult, paired_ttest, win_tie_loss
from ._wilcoxon import WilcoxonResult, wilcoxon_critical_value, wilcoxon_signed_rank

__all__ = [
    "BonferroniDunnResult",
    "FriedmanResult",
    "NemenyiResult",
    "PairedTTestResult",
    "WilcoxonResult",
    "WinTieLossResult",
    "average_ranks",
    "bonferroni_dunn",
    "cd_groups",
    "control_index",
    "critical_difference",
    "friedman_from_ranks",
    "friedman_test",
    "nemenyi_pairs",
    "paired_ttest",
    "q_alpha",
    "rank_matrix",
    "ranks_and_names",
    "wilcoxon_critical_value",
    "wilcoxon_signed_rank",
    "win_tie_loss",
]
