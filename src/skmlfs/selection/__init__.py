"""Multi-label feature selectors (scikit-learn ``SelectorMixin`` estimators)."""

from ._info_filters import AMI, GICS, MDMR, SCLS, gics_select
from ._lrfs import LRFS
from ._mlcfs import MLCFS
from ._ppt_filters import PPTCHI, PPTMI
from ._sparse_learning import MIFS, RALMFS, RLEFS

__all__ = [
    "AMI",
    "GICS",
    "LRFS",
    "MDMR",
    "MIFS",
    "MLCFS",
    "PPTCHI",
    "PPTMI",
    "RALMFS",
    "RLEFS",
    "SCLS",
    "gics_select",
]

from ._memetic import GeneticSelector, MemeticSelector  # noqa: E402

__all__ += ["GeneticSelector", "MemeticSelector"]

from ._llsf_mddm import LLSF, MDDM  # noqa: E402
from ._mlfs import MLFS, MLJMI, MLMIM, MLMRMR  # noqa: E402

__all__ += ["LLSF", "MDDM", "MLFS", "MLJMI", "MLMIM", "MLMRMR"]

from ._relieff import PPTReliefF, ReliefFML  # noqa: E402

__all__ += ["PPTReliefF", "ReliefFML"]

from ._relevance import MIRank  # noqa: E402

__all__ += ["MIRank"]

from ._random import RandomSelection  # noqa: E402

__all__ += ["RandomSelection"]

# what each selector's scores_ holds (mlfs select's score column, mlfs methods)
from ._base import ranking_from_order, scores_meaning, selection_order  # noqa: E402

__all__ += ["ranking_from_order", "scores_meaning", "selection_order"]

# the selector tags on scikit-learn's tag dataclasses (read with sklearn.utils.get_tags)
from ._tags import SelectorTags, Tags, get_selector_tags  # noqa: E402

__all__ += ["SelectorTags", "Tags", "get_selector_tags"]

from ._graph_mcdm import BMFS, MFSMCDM, MGFS  # noqa: E402
from ._mcls import MCLS  # noqa: E402

__all__ += ["BMFS", "MCLS", "MFSMCDM", "MGFS"]

from ._fimf_qpfs import FIMF, QPFS  # noqa: E402

__all__ += ["FIMF", "QPFS"]

from ._lee_kim import D2F, PMU  # noqa: E402

__all__ += ["D2F", "PMU"]

from ._ant import MLACO, AntTD  # noqa: E402

__all__ += ["MLACO", "AntTD"]

from ._ela import ELACHI  # noqa: E402

__all__ += ["ELACHI"]

from ._manifold import MDFS, SCMFS  # noqa: E402

__all__ += ["MDFS", "SCMFS"]

from ._graph_reg import SLOFS  # noqa: E402

__all__ += ["SLOFS"]
from ._sparse_graph import MSSL, SSFS  # noqa: E402

__all__ += ["MSSL", "SSFS"]

# What the classifier chains of skmlfs.learners build on (Sun & Kudo 2018): the greedy
# MLFS routines — label-specific selection (Eq. 43), global selection (Eq. 42), kCC
# parents (Eq. 33) — and the tie rule of every greedy search.
from ._base import argmax_tol  # noqa: E402
from ._mlfs import global_select, kcc_parents, label_specific_select  # noqa: E402

__all__ += ["argmax_tol", "global_select", "kcc_parents", "label_specific_select"]
