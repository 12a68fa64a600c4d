"""Stage 2 of entity resolution, set-based: :meth:`EntityResolver.compare` for many pairs at once.

Same levels, weights and order of summation as ``compare`` (tests/test_resolution_batch.py checks the two agree
pair for pair); each field is computed for all pairs together: features once per record, string similarities in
rapidfuzz's C loop (``process.cpdist``), cosines and neighbour overlaps with numpy. A cosine within
``_COSINE_GUARD`` of a level cut-off is recomputed the way ``compare`` does it (``fs_model.embedding_level_of``),
so float summation order never moves a pair across a cut-off.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Sequence

import numpy as np
from rapidfuzz import fuzz
from rapidfuzz.distance import JaroWinkler
from rapidfuzz.process import cpdist
from scipy import sparse

from knowledge.graph import fs_model as fs
from knowledge.graph.name_features import abbreviated_given_names, name_features


class EntityRecord(Protocol):
    """What scoring reads of a resolver record (resolution.EntityRecord)."""

    name: str
    type: str
    embedding: np.ndarray | None
    neighbours: frozenset[str]


NAME_LEVELS = ("exact", "reordered", "jaro_winkler", "token", "partial", "disagree")
_EXACT, _REORDERED, _JARO, _TOKEN, _PARTIAL, _DISAGREE = range(len(NAME_LEVELS))
EMBEDDING_LEVELS = ("very_high", "high", "medium", "low")
NEIGHBOUR_LEVELS = ("high", "some", "none_shared")
_COSINE_GUARD = 1e-4
_CHUNK = 65536  # pairs per cosine block (bounds the gathered vectors' memory)


@dataclass(frozen=True)
class PairWeights:
    """Per pair: each component's weight (0 where ``compare`` leaves it out) and the total."""

    name: np.ndarray
    acronym: np.ndarray
    type: np.ndarray
    embedding: np.ndarray
    neighbours: np.ndarray

    @property
    def total(self) -> np.ndarray:
        # the order of compare()'s sum(components.values())
        return (((self.name + self.acronym) + self.type) + self.embedding) + self.neighbours

    def components(self, k: int) -> dict[str, float]:
        return {"name": float(self.name[k]), "acronym": float(self.acronym[k]), "type": float(self.type[k]),
                "embedding": float(self.embedding[k]), "neighbours": float(self.neighbours[k])}


class _Interner:
    def __init__(self) -> None:
        self.ids: dict[object, int] = {}

    def __call__(self, value: object) -> int:
        return self.ids.setdefault(value, len(self.ids))


def _table(levels: Sequence[str], field_name: str) -> np.ndarray:
    return np.array([fs.level_weight(field_name, level) for level in levels])


def _name_levels(records: Sequence[EntityRecord], types: list[str], i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Per pair, the index in NAME_LEVELS of ``EntityResolver.name_level``: its rules in its order."""
    intern = _Interner()
    feats = [name_features(r.name) for r in records]
    columns = {name: [] for name in ("key", "pkey", "sorted", "psorted", "ntok", "pntok", "keylen", "pkeylen",
                                     "numbers", "singular", "cjk", "person", "soft")}
    for f, t in zip(feats, types):
        columns["key"].append(intern(f.key))
        columns["pkey"].append(intern(f.person_key))
        columns["sorted"].append(intern(("tokens",) + tuple(sorted(f.tokens))))
        columns["psorted"].append(intern(("tokens",) + tuple(sorted(f.person_tokens))))
        columns["ntok"].append(len(f.tokens))
        columns["pntok"].append(len(f.person_tokens))
        columns["keylen"].append(len(f.key))
        columns["pkeylen"].append(len(f.person_key))
        columns["numbers"].append(intern(("numbers", f.numbers)) if f.numbers else -1)
        columns["singular"].append(intern(("singular", f.singular_key)))
        columns["cjk"].append(f.cjk)
        columns["person"].append(t == "PERSON")
        columns["soft"].append(t in fs.SOFT_TYPES)
    col = {name: np.asarray(values) for name, values in columns.items()}
    person = col["person"][i] | col["person"][j]

    def side(plain: str, personal: str, idx: np.ndarray) -> np.ndarray:
        return np.where(person, col[personal][idx], col[plain][idx])

    ka, kb = side("key", "pkey", i), side("key", "pkey", j)
    la, lb = side("keylen", "pkeylen", i), side("keylen", "pkeylen", j)
    na, nb = side("ntok", "pntok", i), side("ntok", "pntok", j)
    level = np.full(len(i), -1, dtype=np.int8)

    def settle(mask: np.ndarray, value: int) -> None:
        level[(level < 0) & mask] = value

    settle((la == 0) | (lb == 0), _DISAGREE)
    numbers_a, numbers_b = col["numbers"][i], col["numbers"][j]
    settle((numbers_a >= 0) & (numbers_b >= 0) & (numbers_a != numbers_b), _DISAGREE)
    settle(ka == kb, _EXACT)
    settle(col["soft"][i] & col["soft"][j] & (col["singular"][i] == col["singular"][j]), _EXACT)
    settle((na >= 2) & (side("sorted", "psorted", i) == side("sorted", "psorted", j)), _REORDERED)

    open_ = np.flatnonzero(level < 0)
    if not len(open_):
        return level
    keys = [f.key for f in feats]
    person_keys = [f.person_key for f in feats]
    joined = [" ".join(f.tokens) for f in feats]
    person_joined = [" ".join(f.person_tokens) for f in feats]
    oi, oj, operson = i[open_], j[open_], person[open_]
    str_a = [person_keys[x] if p else keys[x] for x, p in zip(oi.tolist(), operson.tolist())]
    str_b = [person_keys[x] if p else keys[x] for x, p in zip(oj.tolist(), operson.tolist())]
    # no score_cutoff: rapidfuzz 3.14 gives 0 for a Jaro-Winkler equal to the cut-off (nissanleaf / nissan, 0.92)
    jaro = cpdist(str_a, str_b, scorer=JaroWinkler.similarity, dtype=np.float64)
    result = np.full(len(open_), -1, dtype=np.int8)
    result[jaro >= fs.JW_THRESHOLD] = _JARO
    rest = np.flatnonzero(result < 0)
    tok_a = [person_joined[x] if p else joined[x] for x, p in zip(oi[rest].tolist(), operson[rest].tolist())]
    tok_b = [person_joined[x] if p else joined[x] for x, p in zip(oj[rest].tolist(), operson[rest].tolist())]
    token_set = cpdist(tok_a, tok_b, scorer=fuzz.token_set_ratio, dtype=np.float64)
    ntok_min = np.minimum(na[open_][rest], nb[open_][rest])
    token_match = token_set >= fs.TOKEN_SET_THRESHOLD
    result[rest[token_match & (ntok_min >= 2)]] = _TOKEN
    # partial: token-set agreement, containment, partial_ratio, or an abbreviated given name
    partial = token_match.copy()
    len_min = np.minimum(la[open_][rest], lb[open_][rest])
    cjk = col["cjk"][oi[rest]] | col["cjk"][oj[rest]]
    rest_a = [str_a[k] for k in rest.tolist()]
    rest_b = [str_b[k] for k in rest.tolist()]
    contain = np.flatnonzero(~partial & (len_min >= np.where(cjk, 2, 3)))
    partial[contain] = [a in b or b in a for a, b in ((rest_a[k], rest_b[k]) for k in contain.tolist())]
    ratio = np.flatnonzero(~partial & (len_min >= 4))
    if len(ratio):
        partial[ratio] = cpdist([rest_a[k] for k in ratio.tolist()], [rest_b[k] for k in ratio.tolist()],
                                scorer=fuzz.partial_ratio, dtype=np.float64) >= fs.PARTIAL_THRESHOLD
    abbreviated = np.flatnonzero(~partial & operson[rest])
    for k in abbreviated.tolist():
        x, y = int(oi[rest[k]]), int(oj[rest[k]])
        partial[k] = abbreviated_given_names(feats[x].person_tokens, feats[y].person_tokens)
    undecided = result[rest] < 0
    result[rest[undecided & partial]] = _PARTIAL
    result[result < 0] = _DISAGREE
    level[open_] = result
    return level


def _acronym_levels(records: Sequence[EntityRecord], i: np.ndarray, j: np.ndarray,
                    asked: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(applies, agrees) per pair, for the pairs in ``asked`` (the others: neither)."""
    feats = [name_features(r.name) for r in records]
    shaped = np.array([f.acronym_shaped for f in feats], dtype=bool)
    has_initials = np.array([bool(f.initials) for f in feats], dtype=bool)
    applies = asked & ((shaped[i] & has_initials[j]) | (shaped[j] & has_initials[i]))
    agrees = np.zeros(len(i), dtype=bool)
    for k in np.flatnonzero(applies).tolist():
        fa, fb = feats[int(i[k])], feats[int(j[k])]
        agrees[k] = (fa.acronym_shaped and fa.key in fb.initials) or (fb.acronym_shaped and fb.key in fa.initials)
    return applies, agrees


def _type_weights(types: list[str], i: np.ndarray, j: np.ndarray) -> np.ndarray:
    names = sorted(set(types))
    code = {t: c for c, t in enumerate(names)}
    table = np.array([[fs.level_weight("type", fs.type_level_of(a, b)) for b in names] for a in names])
    codes = np.array([code[t] for t in types], dtype=np.int64)
    return table[codes[i], codes[j]]


def _embedding_weights(records: Sequence[EntityRecord], i: np.ndarray, j: np.ndarray) -> np.ndarray:
    weights = np.zeros(len(i))
    table = _table(EMBEDDING_LEVELS, "embedding")
    vectors = [None if r.embedding is None else np.asarray(r.embedding, dtype=np.float32) for r in records]
    shapes = [v.shape for v in vectors if v is not None]
    if not shapes:
        return weights
    common = max(set(shapes), key=shapes.count)
    usable = np.array([v is not None and v.shape == common for v in vectors], dtype=bool)
    present = np.array([v is not None for v in vectors], dtype=bool)
    matrix = np.stack([v if ok else np.zeros(common, dtype=np.float32) for v, ok in zip(vectors, usable)])
    squares = np.array([float(np.dot(v, v)) if ok else 0.0 for v, ok in zip(vectors, usable)])
    both = np.flatnonzero(usable[i] & usable[j])
    cuts = (fs.EMB_VERY_HIGH, fs.EMB_HIGH, fs.EMB_LOW)
    for start in range(0, len(both), _CHUNK):
        part = both[start:start + _CHUNK]
        pi, pj = i[part], j[part]
        norm = np.sqrt(squares[pi] * squares[pj])
        nonzero = norm != 0.0
        part, pi, pj, norm = part[nonzero], pi[nonzero], pj[nonzero], norm[nonzero]
        dots = np.einsum("ij,ij->i", matrix[pi], matrix[pj]).astype(np.float64)
        cos = dots / norm
        levels = np.select([cos >= cuts[0], cos >= cuts[1], cos >= cuts[2]], [0, 1, 2], 3)
        weights[part] = table[levels]
        close = np.flatnonzero(np.min(np.abs(cos[:, None] - np.array(cuts)), axis=1) < _COSINE_GUARD)
        for k in close.tolist():
            level = fs.embedding_level_of(records[int(pi[k])].embedding, records[int(pj[k])].embedding)
            weights[part[k]] = 0.0 if level is None else fs.level_weight("embedding", level)
    # a side with a vector of another shape: compare()'s own rule
    odd = np.flatnonzero(present[i] & present[j] & ~(usable[i] & usable[j]))
    for k in odd.tolist():
        level = fs.embedding_level_of(records[int(i[k])].embedding, records[int(j[k])].embedding)
        weights[k] = 0.0 if level is None else fs.level_weight("embedding", level)
    return weights


def _neighbour_weights(records: Sequence[EntityRecord], i: np.ndarray, j: np.ndarray) -> np.ndarray:
    weights = np.zeros(len(i))
    intern = _Interner()
    indptr, indices = [0], []
    for r in records:
        indices.extend(intern(n) for n in r.neighbours)
        indptr.append(len(indices))
    counts = np.diff(np.asarray(indptr))
    both = np.flatnonzero((counts[i] > 0) & (counts[j] > 0))
    if not len(both):
        return weights
    incidence = sparse.csr_matrix((np.ones(len(indices), dtype=np.int64), indices, indptr),
                                  shape=(len(records), max(len(intern.ids), 1)))
    bi, bj = i[both], j[both]
    shared = np.asarray(incidence[bi].multiply(incidence[bj]).sum(axis=1)).ravel()
    union = counts[bi] + counts[bj] - shared
    table = _table(NEIGHBOUR_LEVELS, "neighbours")
    # jaccard >= 0.5 <=> 2 * shared >= union (integers: no rounding)
    weights[both] = table[np.select([2 * shared >= union, shared > 0], [0, 1], 2)]
    return weights


def score_pairs(records: Sequence[EntityRecord], i: np.ndarray, j: np.ndarray) -> PairWeights:
    """The components of ``EntityResolver.compare(records[i[k]], records[j[k]])`` for every k."""
    if not len(i):
        nothing = np.zeros(0)
        return PairWeights(nothing, nothing, nothing, nothing, nothing)
    types = [fs.normalized_type(r.type) for r in records]
    level = _name_levels(records, types, i, j)
    acronym_applies, acronym_agrees = _acronym_levels(records, i, j, (level == _DISAGREE) | (level == _PARTIAL))
    acronym_table = _table(("agree", "disagree"), "acronym")
    name = np.where(acronym_agrees, 0.0, _table(NAME_LEVELS, "name")[level])
    acronym = np.where(acronym_applies, np.where(acronym_agrees, acronym_table[0], acronym_table[1]), 0.0)
    return PairWeights(name=name, acronym=acronym, type=_type_weights(types, i, j),
                       embedding=_embedding_weights(records, i, j),
                       neighbours=_neighbour_weights(records, i, j))
