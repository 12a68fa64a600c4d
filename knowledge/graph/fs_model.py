"""The Fellegi-Sunter comparison model of entity resolution: fields, levels, the m/u table and its weights,
the level cut-offs and the type and embedding rules (the table and its reasons: knowledge/graph/resolution.py).
Shared by the per-pair comparison (``EntityResolver.compare``) and the set-based one (pair_scoring.py)."""
from __future__ import annotations

import math

import numpy as np

FIELD_LEVELS: dict[str, dict[str, tuple[float, float]]] = {
    "name": {
        "exact": (0.55, 0.001),
        "reordered": (0.03, 0.0005),
        "jaro_winkler": (0.14, 0.012),
        "token": (0.11, 0.008),
        "partial": (0.10, 0.050),
        "disagree": (0.07, 0.9285),
    },
    "acronym": {
        "agree": (0.04, 0.0005),
        "disagree": (0.96, 0.9995),
    },
    "type": {
        "same": (0.92, 0.25),
        "soft": (0.06, 0.15),
        "confusable": (0.019, 0.10),
        "hard": (0.001, 0.50),
    },
    "embedding": {
        "very_high": (0.02, 0.005),
        "high": (0.08, 0.03),
        "medium": (0.35, 0.17),
        "low": (0.55, 0.795),
    },
    "neighbours": {
        "high": (0.30, 0.01),
        "some": (0.40, 0.09),
        "none_shared": (0.30, 0.90),
    },
}


def level_weight(field_name: str, level: str) -> float:
    m, u = FIELD_LEVELS[field_name][level]
    return math.log2(m / u)


WEIGHTS: dict[str, dict[str, float]] = {
    f: {lvl: level_weight(f, lvl) for lvl in levels} for f, levels in FIELD_LEVELS.items()
}

COMPONENTS = ("name", "acronym", "type", "embedding", "neighbours")

# comparison level cut-offs
JW_THRESHOLD = 0.92
TOKEN_SET_THRESHOLD = 90.0
PARTIAL_THRESHOLD = 90.0
EMB_VERY_HIGH = 0.90
EMB_HIGH = 0.75
EMB_LOW = 0.50
NEIGHBOURS_HIGH = 0.5

SOFT_TYPES = frozenset({"OTHER", "CONCEPT"})
CONFUSABLE_TYPES = frozenset({frozenset({"ORG", "PRODUCT"})})

def normalized_type(entity_type: str | None) -> str:
    return (entity_type or "OTHER").strip().upper()



def type_level_of(ta: str, tb: str) -> str:
    """The type field's level for two normalised types."""
    if ta == tb:
        return "same"
    if ta in SOFT_TYPES or tb in SOFT_TYPES:
        return "soft"
    if frozenset({ta, tb}) in CONFUSABLE_TYPES:
        return "confusable"
    return "hard"


def embedding_level_of(a: np.ndarray | None, b: np.ndarray | None) -> str | None:
    """The embedding field's level for two vectors (None: no evidence)."""
    if a is None or b is None:
        return None
    va, vb = np.asarray(a, dtype=np.float32), np.asarray(b, dtype=np.float32)
    if va.shape != vb.shape:
        return None
    norm = math.sqrt(float(np.dot(va, va)) * float(np.dot(vb, vb)))
    if norm == 0.0:
        return None
    cos = float(np.dot(va, vb)) / norm  # robust to not-quite-unit vectors
    if cos >= EMB_VERY_HIGH:
        return "very_high"
    if cos >= EMB_HIGH:
        return "high"
    if cos >= EMB_LOW:
        return "medium"
    return "low"
