"""scikit-mlfs: multi-label feature selection, implemented exactly and fast.

Subpackages
-----------
datasets    loading Mulan/MEKA ARFF, sparse ARFF and MATLAB ``.mat`` multi-label data
discretize  scikit-learn transformers turning numeric features into discrete symbols
info        the shared count engine: entropies, MI, CMI from contingency counts
neighbors   the (weighted) HEOM distance and exact nearest-neighbour search
selection   feature selectors (SCLS, AMI, MDMR, GICS, ...)
learners    multi-label learners (MLNB, ...)
metrics     multi-label evaluation measures with explicit conventions
experiments protocols (holdout, k-fold, stored splits) and the benchmark runner
stats       Friedman, post-hoc and pairwise tests
plots       figures (CD diagrams, curves)
cli         the ``mlfs`` command
"""

__version__ = "0.2.0.dev0"
