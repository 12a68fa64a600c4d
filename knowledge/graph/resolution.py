"""Pure Fellegi-Sunter entity resolution (no database).

Three stages, following Fellegi & Sunter (1969):

1. **Blocking** (:meth:`EntityResolver.candidate_pairs`): records that share a block key become
   candidate pairs. Keys: the normalised name (``k:``), every name token of >= 2 characters that
   is not a stopword or title (``t:``), character 3-grams of the normalised key (``g:``; 2-grams
   for CJK keys, which are short; a pair found only through n-grams must share two of them), and
   an acronym key (``a:``): the initials of a multi-token name
   (with and without stopwords) or the key of a short single-token name, so ``IBM`` meets
   ``International Business Machines``. Token and n-gram blocks with more than
   ``max_block_size`` members are skipped (they are uninformative and quadratic); oversized
   name-key and acronym blocks fall back to a sorted-neighbourhood window so exact duplicates
   still chain together. Only new-new and new-existing pairs are produced.

2. **Comparison** (:meth:`EntityResolver.compare`): each field is compared at one of a few
   levels; level ``k`` contributes ``log2(m_k / u_k)`` where ``m_k = P(level | match)`` and
   ``u_k = P(level | non-match)``. For the two-level acronym field the disagreement weight is
   ``log2((1 - m) / (1 - u))``. Missing data (no embedding, no neighbours, no acronym shape)
   contributes 0. ``u`` is the rate among *blocked* candidate pairs (which already share a
   token or n-gram), not among random pairs, hence the fairly high ``u`` of the fuzzy levels.

   ========== ===================================================== ======= ======= ========
   field      level                                                 m       u       weight
   ========== ===================================================== ======= ======= ========
   name       exact: equal normalised key (diacritics, case,        0.55    0.001    +9.10
              spacing, punctuation, legal/CJK company suffixes,
              person titles, concept plurals ignored)
   name       reordered: same tokens, other order (Lin Wei/Wei Lin) 0.03    0.0005   +5.91
   name       jaro_winkler >= 0.92 on the keys                      0.14    0.012    +3.54
   name       token: token_set_ratio >= 90, both >= 2 tokens        0.11    0.008    +3.78
   name       partial: containment / partial_ratio >= 90 /          0.10    0.050    +1.00
              single-token subset / abbreviated given name
   name       disagree (also: numbers or roman numerals differ,     0.07    0.9285   -3.73
              e.g. GPT-3 / GPT-4, World War I / II)
   acronym    agree: one name is the initials of the other          0.04    0.0005   +6.32
   acronym    disagree: one is acronym-shaped, initials differ      0.96    0.9995   -0.06
   type       same type                                             0.92    0.25     +1.88
   type       soft: one side OTHER or CONCEPT                       0.06    0.15     -1.32
   type       confusable: ORG vs PRODUCT                            0.019   0.10     -2.40
   type       hard: any other disagreement (ORG/FOOD, PERSON/PLACE) 0.001   0.50     -8.97
   embedding  cosine >= 0.90                                        0.02    0.005    +2.00
   embedding  0.75 <= cosine < 0.90                                 0.08    0.03     +1.42
   embedding  0.50 <= cosine < 0.75                                 0.35    0.17     +1.04
   embedding  cosine < 0.50                                         0.55    0.795    -0.53
   neighbours jaccard >= 0.5                                        0.30    0.01     +4.91
   neighbours 0 < jaccard < 0.5                                     0.40    0.09     +2.15
   neighbours jaccard = 0 (both sides have neighbours)              0.30    0.90     -1.58
   ========== ===================================================== ======= ======= ========

   Within a field the m's and the u's each sum to 1. The name and acronym comparisons are not
   conditionally independent (an acronym never agrees with its expansion as a string), so when the
   acronym field agrees the name field is scored 0 instead of "disagree"/"partial", and the acronym
   field is not scored at all when the names already agree as strings.

   The embedding m/u were set for embeddings of ``name: context sentence`` (all-MiniLM-L6-v2): the
   context dominates, so the same entity mentioned in two different sentences typically scores
   only 0.4-0.7 (median 0.45 on the labelled set, vs 0.40 for hard non-matches). The ingest now
   pools entity vectors from the chunk's own embedding pass (knowledge/graph/mention_vectors.py):
   medians 0.67 for matches and 0.60 for non-matches, the same precision and recall on the labelled
   pairs (0.977 / 0.808 at MATCH). The field is weak evidence either way: it ranks POSSIBLE pairs and
   nudges fuzzy names, it does not decide.

3. **Classification**: ``weight >= match_threshold`` -> MATCH, ``>= possible_threshold`` ->
   POSSIBLE, else NON_MATCH (defaults from ``get_settings().resolver``: 7.0 and 2.0; 7.0 is a
   likelihood ratio of 128, i.e. ~95% posterior at a prior of ~1:7 among blocked pairs).
   Consequences: an exact name with the same type (+11.0) is a MATCH on strings alone, and so
   are an acronym (+8.2) and a reordered person name (+7.8) unless other evidence disagrees; a
   fuzzy name with the same type (+5.4 / +5.7) stays POSSIBLE until a very close embedding or
   shared neighbours confirm it; an exact name with a hard type conflict (+0.1) is a NON_MATCH,
   with a soft one (OTHER/CONCEPT, +7.8) still a MATCH.

Known limitations: the same name and type for two different referents (Georgia the country and
the US state), or the same name with a soft type (Python the language / python the snake typed
OTHER), can only be separated by embeddings/neighbours; nicknames (Bob/Robert), paraphrases
(World War II / Second World War) and cross-script names (清华大学 / Tsinghua University) are missed.

Implementation: ``resolve`` blocks and scores a whole batch set-based (knowledge/graph/blocking.py,
knowledge/graph/pair_scoring.py: numpy and rapidfuzz over all pairs at once, the same pairs, levels and
weights as ``candidate_pairs`` rules and ``compare``, which stays the per-pair reference; the model's table and
cut-offs live in knowledge/graph/fs_model.py).

Benchmark: ``python -m bench.resolution`` (labelled pairs in ``tests/data/resolution_pairs.json``).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from enum import Enum
from typing import Collection, Iterable, Sequence

import numpy as np
from rapidfuzz import fuzz
from rapidfuzz.distance import JaroWinkler

from knowledge.graph.blocking import candidate_positions
from knowledge.graph.fs_model import (COMPONENTS, FIELD_LEVELS, JW_THRESHOLD, NEIGHBOURS_HIGH, PARTIAL_THRESHOLD,
                                      SOFT_TYPES, TOKEN_SET_THRESHOLD, WEIGHTS, embedding_level_of, level_weight,
                                      normalized_type, type_level_of)
from knowledge.graph.name_features import abbreviated_given_names, name_features
from knowledge.graph.pair_scoring import score_pairs

__all__ = [
    "Decision",
    "EntityRecord",
    "EntityResolver",
    "FIELD_LEVELS",
    "PairScore",
    "level_weight",
]

# --------------------------------------------------------------------------------------------
# data types
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EntityRecord:
    id: int | str
    name: str
    type: str  # PERSON, ORG, PRODUCT, PLACE, EVENT, CONCEPT, FOOD, OTHER
    # unit-normalised, 384-d, may be None; excluded from ==/hash (arrays are neither)
    embedding: np.ndarray | None = field(default=None, compare=False, repr=False)
    neighbours: frozenset[str] = frozenset()  # normalize_name() of related entities


class Decision(str, Enum):
    MATCH = "match"
    POSSIBLE = "possible"
    NON_MATCH = "non_match"


@dataclass(frozen=True)
class PairScore:
    left_id: int | str
    right_id: int | str
    weight: float  # total log-likelihood ratio (log2)
    components: dict[str, float]  # per comparison field
    decision: Decision


# --------------------------------------------------------------------------------------------
# the resolver (the comparison model's table, cut-offs and rules: knowledge/graph/fs_model.py)
# --------------------------------------------------------------------------------------------


def _id_key(value: int | str) -> tuple[str, str]:
    return (type(value).__name__, str(value))


class _UnionFind:
    def __init__(self, n: int) -> None:
        self.parent = list(range(n))

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


class EntityResolver:
    """Fellegi-Sunter resolver; stateless apart from the ids of the last ``resolve`` call's
    existing records (used by :meth:`clusters` to choose representatives)."""

    def __init__(
        self,
        match_threshold: float | None = None,
        possible_threshold: float | None = None,
        *,
        max_block_size: int = 200,
        window: int = 5,
    ) -> None:
        if match_threshold is None or possible_threshold is None:
            from config.settings import get_settings

            settings = get_settings().resolver
            if match_threshold is None:
                match_threshold = settings.match_threshold
            if possible_threshold is None:
                possible_threshold = settings.possible_threshold
        if possible_threshold > match_threshold:
            raise ValueError("possible_threshold must not exceed match_threshold")
        self.match_threshold = float(match_threshold)
        self.possible_threshold = float(possible_threshold)
        self.max_block_size = max_block_size
        self.window = window
        self._last_existing_ids: frozenset[tuple[str, str]] = frozenset()

    # ---------------------------------------------------------------- stage 1: blocking
    def candidate_pairs(
        self, new: Sequence[EntityRecord], existing: Sequence[EntityRecord]
    ) -> list[tuple[EntityRecord, EntityRecord]]:
        """Pairs among ``new`` and between ``new`` and ``existing`` sharing a block key.

        Never existing-existing, never a record with itself (same id), each unordered pair once.
        New-existing pairs are oriented ``(new, existing)``; order is deterministic.
        """
        records = list(new) + list(existing)
        i, j = self._candidate_positions(records, len(new))
        return [(records[a], records[b]) for a, b in zip(i.tolist(), j.tolist())]

    def _candidate_positions(self, records: Sequence[EntityRecord], n_new: int) -> tuple[np.ndarray, np.ndarray]:
        return candidate_positions([(r.name, normalized_type(r.type)) for r in records],
                                   [_id_key(r.id) for r in records], n_new, self.max_block_size, self.window)

    # ---------------------------------------------------------------- stage 2: comparison
    @staticmethod
    def name_level(a: EntityRecord, b: EntityRecord) -> str:
        fa, fb = name_features(a.name), name_features(b.name)
        type_a, type_b = normalized_type(a.type), normalized_type(b.type)
        person = type_a == "PERSON" or type_b == "PERSON"
        ka, kb = (fa.person_key, fb.person_key) if person else (fa.key, fb.key)
        ta, tb = (fa.person_tokens, fb.person_tokens) if person else (fa.tokens, fb.tokens)
        if not ka or not kb:
            return "disagree"
        if fa.numbers and fb.numbers and fa.numbers != fb.numbers:
            return "disagree"  # GPT-3 / GPT-4, Boeing 737 / 747, World War I / II
        if ka == kb:
            return "exact"
        if type_a in SOFT_TYPES and type_b in SOFT_TYPES and fa.singular_key == fb.singular_key:
            return "exact"  # concept plurals: "large language models" / "large language model"
        if len(ta) >= 2 and sorted(ta) == sorted(tb):
            return "reordered"  # "Lin Wei" / "Wei Lin", "Smith John"
        if JaroWinkler.similarity(ka, kb) >= JW_THRESHOLD:
            return "jaro_winkler"
        sa, sb = " ".join(ta), " ".join(tb)
        token_set = fuzz.token_set_ratio(sa, sb)
        if token_set >= TOKEN_SET_THRESHOLD and min(len(ta), len(tb)) >= 2:
            return "token"
        if (
            token_set >= TOKEN_SET_THRESHOLD
            or (min(len(ka), len(kb)) >= (2 if fa.cjk or fb.cjk else 3) and (ka in kb or kb in ka))
            or (min(len(ka), len(kb)) >= 4 and fuzz.partial_ratio(ka, kb) >= PARTIAL_THRESHOLD)
            or (person and abbreviated_given_names(ta, tb))
        ):
            return "partial"
        return "disagree"

    @staticmethod
    def acronym_level(a: EntityRecord, b: EntityRecord) -> str | None:
        fa, fb = name_features(a.name), name_features(b.name)
        applicable = False
        for short, long_ in ((fa, fb), (fb, fa)):
            if short.acronym_shaped and long_.initials:
                applicable = True
                if short.key in long_.initials:
                    return "agree"
        return "disagree" if applicable else None

    @staticmethod
    def type_level(a: EntityRecord, b: EntityRecord) -> str:
        return type_level_of(normalized_type(a.type), normalized_type(b.type))

    @staticmethod
    def embedding_level(a: EntityRecord, b: EntityRecord) -> str | None:
        return embedding_level_of(a.embedding, b.embedding)

    @staticmethod
    def neighbours_level(a: EntityRecord, b: EntityRecord) -> str | None:
        if not a.neighbours or not b.neighbours:
            return None
        inter = len(a.neighbours & b.neighbours)
        jaccard = inter / len(a.neighbours | b.neighbours)
        if jaccard >= NEIGHBOURS_HIGH:
            return "high"
        if inter:
            return "some"
        return "none_shared"

    def classify(self, weight: float) -> Decision:
        if weight >= self.match_threshold:
            return Decision.MATCH
        if weight >= self.possible_threshold:
            return Decision.POSSIBLE
        return Decision.NON_MATCH

    def compare(self, a: EntityRecord, b: EntityRecord) -> PairScore:
        name = self.name_level(a, b)
        # name and acronym are dependent: the acronym is only scored when the strings disagree,
        # and when it agrees it replaces the name disagreement
        acronym = self.acronym_level(a, b) if name in ("disagree", "partial") else None
        components = dict.fromkeys(COMPONENTS, 0.0)
        if acronym != "agree":
            components["name"] = WEIGHTS["name"][name]
        if acronym is not None:
            components["acronym"] = WEIGHTS["acronym"][acronym]
        components["type"] = WEIGHTS["type"][self.type_level(a, b)]
        emb = self.embedding_level(a, b)
        if emb is not None:
            components["embedding"] = WEIGHTS["embedding"][emb]
        nb = self.neighbours_level(a, b)
        if nb is not None:
            components["neighbours"] = WEIGHTS["neighbours"][nb]
        weight = sum(components.values())
        return PairScore(a.id, b.id, weight, components, self.classify(weight))

    # ---------------------------------------------------------------- stage 3: classification
    def resolve(
        self, new: Sequence[EntityRecord], existing: Sequence[EntityRecord] = (), *,
        keep_non_matches: bool = True,
    ) -> list[PairScore]:
        """Score every candidate pair (all decisions, or only MATCH and POSSIBLE with
        ``keep_non_matches=False``), in :meth:`candidate_pairs` order, each as :meth:`compare` scores it.
        Existing records are only compared with new ones, so repeated incremental calls never re-score
        existing-existing pairs."""
        self._last_existing_ids = frozenset(_id_key(r.id) for r in existing)
        records = list(new) + list(existing)
        i, j = self._candidate_positions(records, len(new))
        weights = score_pairs(records, i, j)
        total = weights.total
        kept = range(len(i)) if keep_non_matches else np.flatnonzero(total >= self.possible_threshold).tolist()
        scores = []
        for k in kept:
            weight = float(total[k])
            scores.append(PairScore(records[i[k]].id, records[j[k]].id, weight, weights.components(k),
                                    self.classify(weight)))
        return scores

    def clusters(
        self,
        records: Sequence[EntityRecord],
        scores: Iterable[PairScore],
        existing_ids: Collection[int | str] | None = None,
    ) -> list[list[EntityRecord]]:
        """Connected components of the MATCH pairs over ``records`` (singletons included).

        Pass every record that appears in ``scores`` (new and existing). The first record of
        each cluster is its representative: an existing record if the cluster has one (ids in
        ``existing_ids``; default: the existing records of the last :meth:`resolve` call), else
        the record whose name is most frequent in the cluster, then the longest name, then the
        earliest. Other members keep input order; clusters are ordered by their earliest member.
        """
        if existing_ids is None:
            existing = self._last_existing_ids
        else:
            existing = frozenset(_id_key(i) for i in existing_ids)
        position: dict[tuple[str, str], int] = {}
        for pos, record in enumerate(records):
            position.setdefault(_id_key(record.id), pos)
        uf = _UnionFind(len(records))
        for score in scores:
            if score.decision is not Decision.MATCH:
                continue
            i = position.get(_id_key(score.left_id))
            j = position.get(_id_key(score.right_id))
            if i is not None and j is not None:
                uf.union(i, j)
        groups: dict[int, list[int]] = {}
        for pos, record in enumerate(records):
            if position[_id_key(record.id)] != pos:
                continue  # duplicate id in input
            groups.setdefault(uf.find(pos), []).append(pos)

        result: list[list[EntityRecord]] = []
        for members in sorted(groups.values(), key=lambda m: m[0]):
            names = Counter(records[i].name for i in members)

            def rank(i: int) -> tuple:
                r = records[i]
                return (_id_key(r.id) not in existing, -names[r.name], -len(r.name), i)

            rep = min(members, key=rank)
            result.append([records[rep]] + [records[i] for i in members if i != rep])
        return result
