"""Ids and digests: canonical JSON, cell ids, array digests and dataset fingerprints.

Every id the experiment engine stores, and every key of an in-process cache, is computed
here, so that one change of encoding cannot make two of them disagree. The stored ones
(:func:`make_id`, :func:`short_hash`, :func:`fingerprint`) are part of the store format:
an existing store resumes only while they give the same bytes for the same input.

* :func:`canonical_json` — deterministic JSON (sorted keys, no spaces; numpy scalars,
  arrays, sets, estimators and classes encoded), the text every id hashes;
* :func:`make_id` — SHA-256 of the canonical JSON, 32 hex digits (cell, ranking and
  dataset ids);
* :func:`short_hash` — the same, 12 hex digits (a metric column's parameters);
* :func:`fingerprint` — SHA-256 of a dataset's ``(X, Y)``, 16 hex digits (a worker checks
  it has loaded the data the client planned with);
* :func:`array_digest` — BLAKE2b of arrays, for in-process caches keyed by data.
"""

from __future__ import annotations

import hashlib
import json
import pickle
from typing import Any

import numpy as np
import scipy.sparse as sp

__all__ = ["array_digest", "canonical_json", "cell_id", "fingerprint", "make_id", "short_hash"]


def _json_default(obj: Any) -> Any:
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, (set, frozenset)):
        return sorted(obj)
    if hasattr(obj, "get_params"):
        cls = type(obj)
        return {
            "__estimator__": f"{cls.__module__}:{cls.__qualname__}",
            "params": obj.get_params(deep=False),
        }
    if isinstance(obj, type):
        return f"{obj.__module__}:{obj.__qualname__}"
    return repr(obj)


def canonical_json(obj: Any) -> str:
    """Deterministic JSON (sorted keys, no spaces) used for ids and stored parameters."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=_json_default)


def make_id(payload: Any) -> str:
    """Deterministic id: SHA-256 of the canonical JSON of ``payload`` (32 hex digits)."""
    return hashlib.sha256(canonical_json(payload).encode()).hexdigest()[:32]


def cell_id(ranking: str, method: str, k: int, learner: str, learner_spec: Any) -> str:
    """Id of a cell: the ranking it evaluates (the id of dataset, protocol, split, seed
    and selector), the selector's name, the budget ``k`` and the learner (name and
    identity). ``"v": 1`` versions the recipe: a change of it must change ``v``."""
    return make_id({
        "v": 1,
        "ranking": ranking,
        "method": method,
        "k": int(k),
        "learner": learner,
        "learner_spec": learner_spec,
    })


def short_hash(payload: Any) -> str:
    """SHA-256 of the canonical JSON of ``payload``, 12 hex digits (a suffix of a name)."""
    return hashlib.sha256(canonical_json(payload).encode()).hexdigest()[:12]


def array_digest(*arrays: Any) -> str:
    """One content hash of arrays (dense or scipy.sparse; ``None`` hashes as nothing), for
    in-process caches keyed by data: tuned selectors' fits, feature weights, shared
    neighbour graphs. Not stored: only equal within one version of numpy and scipy."""
    h = hashlib.blake2b(digest_size=16)
    for a in arrays:
        if a is None:
            h.update(b"none")
            continue
        parts = (a.data, a.indices, a.indptr) if sp.issparse(a) else (np.asarray(a),)
        for p in parts:
            h.update(str((p.dtype, p.shape)).encode())
            h.update(np.ascontiguousarray(p).tobytes())
    return h.hexdigest()


def fingerprint(X: Any, Y: np.ndarray) -> str:
    """SHA-256 (first 16 hex digits) of the shapes, dtypes and values of ``(X, Y)``."""
    h = hashlib.sha256()
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        parts = [X.data, X.indices, X.indptr]
        h.update(b"csr")
    else:
        parts = [np.ascontiguousarray(X)]
    h.update(repr((X.shape, str(X.dtype), Y.shape, str(Y.dtype))).encode())
    for a in (*parts, np.ascontiguousarray(Y)):
        a = np.ascontiguousarray(a)
        if a.dtype.hasobject:  # no buffer to hash: its pickle is as deterministic
            h.update(pickle.dumps(a, protocol=4))
        else:
            h.update(memoryview(a).cast("B"))
    return h.hexdigest()[:16]
