"""The library's ``discretizer="auto"`` rule, shared by the selectors and MLNB.

One rule for every estimator with a ``discretizer`` parameter that follows the selectors'
convention: integer-valued data (binary, nominal codes, already discretized) is used as
it is; data with fractional values goes through :class:`LAIMDiscretizer`, fitted on the
training data only (the supervised multi-label discretizer of the SCLS and memetic
papers).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from ._base import with_categorical
from ._laim import LAIMDiscretizer

__all__ = ["discretize_features", "fit_discretizer", "is_discrete"]


def is_discrete(X: Any) -> bool:
    """True when every value of ``X`` is an integer (a discrete code).

    Binary/nominal data (ARFF nominal attributes are loaded as integer codes) is used as
    it is; anything with fractional values needs a discretizer first.
    """
    data = X.data if sp.issparse(X) else np.asarray(X)
    if data.dtype.kind in "biu":
        return True
    # Every float beyond 2**53 is a whole number, so "integer-valued" says nothing there:
    # X * 1e300 is continuous data, not codes (taken as codes, it skipped discretization).
    return bool(np.all(data == np.floor(data)) and np.all(np.abs(data) <= 2.0**53))


def fit_discretizer(
    discretizer: Any, X: Any, Y: Any, categorical_features: Any = None
) -> Any:
    """Resolve a ``discretizer`` parameter and fit it on training data ``(X, Y)``.

    Parameters
    ----------
    discretizer : "auto", None or transformer
        ``"auto"``: ``None`` (use ``X`` as it is) when ``X`` is integer-valued
        (:func:`is_discrete`), else :class:`~skmlfs.discretize.LAIMDiscretizer`;
        ``None``: values are symbols as they are; a transformer is cloned.
    X : array-like or sparse matrix of shape (n_samples, n_features)
        Training features.
    Y : array-like or sparse matrix of shape (n_samples, n_labels)
        Training labels (supervised discretizers get them as a dense matrix).
    categorical_features : None, bool mask or int indices, default=None
        Columns (e.g. a data set's nominal attributes) that pass through unchanged in
        addition to the discretizer's own pass-through columns.

    Returns
    -------
    transformer or None
        The fitted discretizer (apply its ``transform`` to training and test data), or
        ``None`` when ``X`` is to be used as it is.
    """
    disc = discretizer
    if isinstance(disc, str):
        if disc != "auto":
            raise ValueError(f"discretizer must be 'auto', None or a transformer; got {disc!r}.")
        if is_discrete(X):
            return None

        disc = LAIMDiscretizer()
    elif disc is None:
        return None
    # supervised discretizers take a dense label matrix (labels are the small side)
    Yd = Y.toarray() if sp.issparse(Y) else Y
    return with_categorical(disc, categorical_features, X).fit(X, Yd)


def discretize_features(
    discretizer: Any, X: Any, Y: Any, categorical_features: Any = None
) -> Any:
    """Apply a ``discretizer`` parameter to training data (fit on ``X, Y``, transform ``X``).

    ``"auto"``: integer-valued ``X`` is returned as is, anything else goes through
    :class:`~skmlfs.discretize.LAIMDiscretizer`; ``None``: values are symbols as they
    are; a transformer is cloned and fitted with ``fit(X, Y)``. ``categorical_features``
    (boolean mask or column indices, e.g. the nominal attributes of a loaded data set)
    pass through unchanged in addition to the discretizer's own pass-through columns.
    See :func:`fit_discretizer`.
    """
    disc = fit_discretizer(discretizer, X, Y, categorical_features)
    return X if disc is None else disc.transform(X)
