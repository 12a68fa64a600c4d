"""The set-based resolution path (knowledge/graph/blocking.py, knowledge/graph/pair_scoring.py) against the
per-pair rules it replaces: the same candidate pairs as a pair-by-pair blocking written out below, and for
every pair the same levels, components and weight as ``EntityResolver.compare``."""
from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from knowledge.graph.name_features import block_keys
from knowledge.graph.fs_model import normalized_type
from knowledge.graph.resolution import Decision, EntityRecord, EntityResolver

DATA = Path(__file__).parent / "data" / "resolution_pairs.json"
SYLLABLES = ["ka", "lo", "mi", "ra", "ten", "vor", "shi", "an", "el", "dor", "qu", "zen", "pa", "tri", "mon"]
TYPES = ["ORG", "PERSON", "PRODUCT", "PLACE", "CONCEPT", "OTHER", "EVENT"]
EXTRA_NAMES = ["IBM", "International Business Machines", "World War II", "World War I", "GPT-3", "GPT-4",
               "Dr. John Smith", "J. Smith", "John Smith", "Smith John", "large language models",
               "large language model", "清华大学", "清华", "OpenAI Inc.", "Open AI", "P&G", "Procter and Gamble",
               "Tim Cook", "Timothy Cook", "Boeing 737", "Boeing 747", "the Beatles", "Beatles", "", "---"]


def reference_candidate_pairs(resolver: EntityResolver, new: list[EntityRecord],
                              existing: list[EntityRecord]) -> list[tuple[int, int]]:
    """The pair-by-pair blocking the set-based one replaced (positions, sorted)."""
    records = new + existing
    n_new = len(new)
    blocks: dict[str, list[int]] = {}
    n_grams: list[int] = []
    for pos, record in enumerate(records):
        keys = block_keys(record.name, normalized_type(record.type))
        n_grams.append(sum(k[0] == "g" for k in keys))
        for key in keys:
            blocks.setdefault(key, []).append(pos)
    seen: dict[tuple[str, str], int] = {}
    canonical = [seen.setdefault((type(r.id).__name__, str(r.id)), pos) for pos, r in enumerate(records)]
    pairs: set[tuple[int, int]] = set()
    gram_pairs: Counter[tuple[int, int]] = Counter()

    def add(i: int, j: int, gram: bool = False) -> None:
        i, j = sorted((canonical[i], canonical[j]))
        if i >= n_new or i == j:
            return
        if gram:
            gram_pairs[(i, j)] += 1
        else:
            pairs.add((i, j))

    for key, members in blocks.items():
        if len(members) < 2:
            continue
        if len(members) > resolver.max_block_size:
            if key[0] in "ka":
                for idx, i in enumerate(members):
                    for j in members[idx + 1: idx + 1 + resolver.window]:
                        add(i, j)
            continue
        if members[0] >= n_new:
            continue
        for idx, i in enumerate(members):
            if i >= n_new:
                break
            for j in members[idx + 1:]:
                add(i, j, key[0] == "g")
    for (i, j), shared in gram_pairs.items():
        if shared >= 2 or shared >= min(n_grams[i], n_grams[j]):
            pairs.add((i, j))
    return sorted(pairs)


def synthetic(seed: int, count: int, prefix: str, vectors: np.ndarray) -> list[EntityRecord]:
    rng = random.Random(seed)
    records = []
    for k in range(count):
        if rng.random() < 0.15:
            name = rng.choice(EXTRA_NAMES)
        else:
            name = " ".join("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(1, 3))).capitalize()
                            for _ in range(rng.randint(1, 3)))
        roll = rng.random()
        embedding = None if roll < 0.1 else vectors[rng.randrange(len(vectors))]
        if 0.1 <= roll < 0.12:
            embedding = embedding[:100]  # another shape: compare() gives no evidence
        if 0.12 <= roll < 0.13:
            embedding = np.zeros_like(embedding)
        neighbours = frozenset(rng.sample(SYLLABLES, rng.randint(0, 4)))
        records.append(EntityRecord(f"{prefix}{k}", name, rng.choice(TYPES) if rng.random() > 0.05 else "",
                                    embedding, neighbours))
    return records


def vectors_near_cut_offs(seed: int) -> np.ndarray:
    """Unit vectors whose cosines with the first one sit on and around the embedding level cut-offs."""
    rng = np.random.default_rng(seed)
    base = rng.normal(size=384).astype(np.float32)
    base /= np.linalg.norm(base)
    other = rng.normal(size=384).astype(np.float32)
    other -= other.dot(base) * base
    other /= np.linalg.norm(other)
    out = [base]
    for cos in (0.9, 0.75, 0.5, 0.9 + 1e-7, 0.75 - 1e-7, 0.3, 0.99, 0.6, 0.8):
        v = (cos * base + np.sqrt(1 - cos * cos) * other).astype(np.float32)
        out.append(v / np.linalg.norm(v))
    out.extend(rng.normal(size=(20, 384)).astype(np.float32))
    return np.stack(out)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_blocking_is_the_pair_by_pair_blocking(seed):
    vectors = vectors_near_cut_offs(seed)
    new = synthetic(seed, 300, "n", vectors)
    existing = synthetic(seed + 100, 900, "e", vectors) + new[:5]  # a record passed as new and existing
    resolver = EntityResolver(7.0, 2.0, max_block_size=6, window=3)  # small blocks: oversized ones occur
    records = new + existing
    expected = reference_candidate_pairs(resolver, new, existing)
    pairs = resolver.candidate_pairs(new, existing)
    assert len(expected) > 200
    assert [(records.index(a), records.index(b)) for a, b in pairs][:50] == expected[:50]
    assert [(a.id, b.id) for a, b in pairs] == [(records[i].id, records[j].id) for i, j in expected]


@pytest.mark.parametrize("seed", [1, 2])
def test_resolve_scores_every_pair_as_compare_does(seed):
    vectors = vectors_near_cut_offs(seed)
    new = synthetic(seed, 300, "n", vectors)
    existing = synthetic(seed + 50, 600, "e", vectors)
    resolver = EntityResolver(7.0, 2.0)
    scores = resolver.resolve(new, existing)
    pairs = resolver.candidate_pairs(new, existing)
    assert len(scores) == len(pairs) > 1000
    decisions = Counter()
    for score, (a, b) in zip(scores, pairs):
        expected = resolver.compare(a, b)
        assert (score.left_id, score.right_id) == (a.id, b.id)
        assert score.components == expected.components, (a, b)
        assert score.weight == expected.weight and score.decision is expected.decision
        decisions[score.decision] += 1
    assert decisions[Decision.MATCH] and decisions[Decision.POSSIBLE] and decisions[Decision.NON_MATCH]
    kept = resolver.resolve(new, existing, keep_non_matches=False)
    assert kept == [s for s in scores if s.decision is not Decision.NON_MATCH]


def test_labelled_pairs_score_as_compare_does():
    rng = np.random.default_rng(7)
    resolver = EntityResolver(7.0, 2.0)
    for i, p in enumerate(json.loads(DATA.read_text(encoding="utf-8"))):
        vectors = rng.normal(size=(2, 384)).astype(np.float32)
        a = EntityRecord(2 * i, p["a"]["name"], p["a"]["type"], vectors[0], frozenset({"x", "y"}))
        b = EntityRecord(2 * i + 1, p["b"]["name"], p["b"]["type"], vectors[1], frozenset({"y"}))
        for left, right in ((a, b), (b, a)):
            expected = resolver.compare(left, right)
            if resolver.candidate_pairs([left], [right]):
                [score] = resolver.resolve([left], [right])
                assert score.components == expected.components and score.weight == expected.weight


def test_nothing_to_compare():
    resolver = EntityResolver(7.0, 2.0)
    lone = EntityRecord(1, "Samsung", "ORG", np.ones(384, dtype=np.float32))
    assert resolver.resolve([]) == [] and resolver.resolve([lone]) == []
    assert resolver.resolve([lone], [EntityRecord(2, "Volkswagen", "ORG")]) == []
    assert resolver.candidate_pairs([], []) == []
