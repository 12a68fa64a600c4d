"""Pure tests of the Fellegi-Sunter entity resolver (no database, no embedding model)."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from knowledge.graph.resolution import (
    FIELD_LEVELS,
    Decision,
    EntityRecord,
    EntityResolver,
    PairScore,
    level_weight,
)

DATA = Path(__file__).parent / "data" / "resolution_pairs.json"
TYPES = {"PERSON", "ORG", "PRODUCT", "PLACE", "EVENT", "CONCEPT", "FOOD", "OTHER"}


@pytest.fixture
def resolver() -> EntityResolver:
    return EntityResolver(match_threshold=7.0, possible_threshold=2.0)


def rec(id_, name, type_="ORG", embedding=None, neighbours=()):
    return EntityRecord(id_, name, type_, embedding=embedding, neighbours=frozenset(neighbours))


def unit(v) -> np.ndarray:
    v = np.asarray(v, dtype=np.float32)
    return v / np.linalg.norm(v)


def pair_ids(pairs):
    return {frozenset((a.id, b.id)) for a, b in pairs}


# ------------------------------------------------------------------------------- m/u table


def test_mu_table_is_a_probability_table():
    for field, levels in FIELD_LEVELS.items():
        assert math.isclose(sum(m for m, _ in levels.values()), 1.0, abs_tol=1e-9), field
        assert math.isclose(sum(u for _, u in levels.values()), 1.0, abs_tol=1e-9), field
        for level, (m, u) in levels.items():
            assert 0 < m < 1 and 0 < u < 1
            assert level_weight(field, level) == pytest.approx(math.log2(m / u))
    # two-level field: disagreement weight is log2((1-m)/(1-u))
    m, u = FIELD_LEVELS["acronym"]["agree"]
    assert level_weight("acronym", "disagree") == pytest.approx(math.log2((1 - m) / (1 - u)))
    # a hard type conflict outweighs an exact name; OTHER/CONCEPT conflicts are mild
    assert level_weight("name", "exact") + level_weight("type", "hard") < 2.0
    assert -2.0 < level_weight("type", "soft") < 0


def test_default_thresholds_come_from_settings():
    from config.settings import get_settings

    r = EntityResolver()
    assert r.match_threshold == get_settings().resolver.match_threshold
    assert r.possible_threshold == get_settings().resolver.possible_threshold
    with pytest.raises(ValueError):
        EntityResolver(match_threshold=1.0, possible_threshold=5.0)


# ------------------------------------------------------------------------------- key cases


def test_openai_spellings_cluster_into_one(resolver):
    records = [
        rec(1, "OpenAI"), rec(2, "Open AI"), rec(3, "OpenAI Inc."),
        rec(4, "Anthropic"), rec(5, "Open Source Initiative"),
    ]
    scores = resolver.resolve(records)
    matched = {frozenset((s.left_id, s.right_id)) for s in scores if s.decision is Decision.MATCH}
    assert matched == {frozenset(p) for p in ((1, 2), (1, 3), (2, 3))}
    clusters = resolver.clusters(records, scores)
    assert [[r.id for r in c] for c in clusters] == [[3, 1, 2], [4], [5]]  # longest name first


def test_cluster_representative_prefers_existing_record(resolver):
    existing = [rec(100, "OpenAI")]
    new = [rec(1, "Open AI"), rec(2, "OpenAI Inc."), rec(3, "Open AI")]
    scores = resolver.resolve(new, existing)
    clusters = resolver.clusters(new + existing, scores)
    assert len(clusters) == 1
    assert clusters[0][0].id == 100
    # explicit existing_ids override; without existing, the most frequent name wins
    clusters = resolver.clusters(new + existing, scores, existing_ids=())
    assert clusters[0][0].name == "Open AI"
    assert [r.id for r in clusters[0]] == [1, 2, 3, 100]


def test_clusters_are_deterministic_and_only_follow_matches(resolver):
    records = [rec(1, "Apple"), rec(2, "apple", "FOOD"), rec(3, "Apple Inc."), rec(4, "Austria", "PLACE"),
               rec(5, "Australia", "PLACE")]
    scores = resolver.resolve(records)
    first = [[r.id for r in c] for c in resolver.clusters(records, scores)]
    again = [[r.id for r in c] for c in resolver.clusters(records, list(reversed(scores)))]
    assert first == again == [[3, 1], [2], [4], [5]]


def test_apple_org_vs_apple_food_is_non_match(resolver):
    score = resolver.compare(rec(1, "Apple", "ORG"), rec(2, "apple", "FOOD"))
    assert score.components["name"] > 0 and score.components["type"] < 0
    assert score.decision is Decision.NON_MATCH


def test_jordan_person_vs_place_is_non_match(resolver):
    score = resolver.compare(rec(1, "Jordan", "PERSON"), rec(2, "Jordan", "PLACE"))
    assert score.decision is Decision.NON_MATCH
    # but a mild OTHER/CONCEPT type conflict does not veto an exact name
    assert resolver.compare(rec(1, "COVID-19", "EVENT"), rec(2, "Covid 19", "CONCEPT")).decision is Decision.MATCH


@pytest.mark.parametrize(
    ("a", "b", "type_"),
    [
        ("Dr. Lin Wei", "Lin Wei", "PERSON"),
        ("Lin Wei", "Wei Lin", "PERSON"),
        ("阿里巴巴", "阿里巴巴集团", "ORG"),
        ("马云先生", "马云", "PERSON"),
        ("São Paulo", "Sao Paulo", "PLACE"),
        ("Coca-Cola", "Coca Cola", "ORG"),
        ("IBM", "International Business Machines", "ORG"),
        ("large language models", "Large Language Model", "CONCEPT"),
    ],
)
def test_variants_match(resolver, a, b, type_):
    assert resolver.compare(rec(1, a, type_), rec(2, b, type_)).decision is Decision.MATCH


@pytest.mark.parametrize(
    ("a", "b", "type_"),
    [
        ("GPT-4", "GPT-3", "PRODUCT"),
        ("World War I", "World War II", "EVENT"),
        ("iPhone 14", "iPhone 15", "PRODUCT"),
    ],
)
def test_different_numbers_are_non_match(resolver, a, b, type_):
    score = resolver.compare(rec(1, a, type_), rec(2, b, type_))
    assert score.components["name"] < 0 and score.decision is Decision.NON_MATCH


@pytest.mark.parametrize(
    ("a", "b", "type_"),
    [
        ("Microsoft", "Micron", "ORG"),
        ("Google", "Goggle", "ORG"),
        ("Austria", "Australia", "PLACE"),
        ("Project Atlas", "Project Apollo", "OTHER"),
        ("John Smith", "John Smyth", "PERSON"),
    ],
)
def test_hard_negatives_do_not_match(resolver, a, b, type_):
    assert resolver.compare(rec(1, a, type_), rec(2, b, type_)).decision is not Decision.MATCH


# ------------------------------------------------------------------------------- blocking


def test_blocking_pairs_new_with_new_and_existing_never_existing_with_existing(resolver):
    new = [rec(1, "IBM"), rec(2, "Open AI")]
    existing = [rec(10, "International Business Machines"), rec(11, "OpenAI"), rec(12, "OpenAI Inc."),
                rec(13, "IBM Corp.")]
    pairs = resolver.candidate_pairs(new, existing)
    ids = pair_ids(pairs)
    assert frozenset((1, 10)) in ids  # acronym block
    assert frozenset((2, 11)) in ids and frozenset((2, 12)) in ids
    existing_ids = {r.id for r in existing}
    for a, b in pairs:
        assert not (a.id in existing_ids and b.id in existing_ids)
        assert a.id != b.id
        if b.id in existing_ids:
            assert a.id not in existing_ids  # oriented (new, existing)
    assert len(ids) == len(pairs)  # deduplicated
    assert frozenset((11, 12)) not in ids and frozenset((10, 13)) not in ids


def test_blocking_has_no_self_pairs_or_duplicates(resolver):
    a = rec(1, "OpenAI")
    pairs = resolver.candidate_pairs([a, rec(2, "Open AI"), a], [a, rec(3, "OpenAI Inc.")])
    assert pair_ids(pairs) == {frozenset((1, 2)), frozenset((1, 3)), frozenset((2, 3))}
    assert len(pairs) == 3


def test_blocking_skips_unrelated_names(resolver):
    assert resolver.candidate_pairs([rec(1, "Samsung")], [rec(2, "Volkswagen")]) == []


def test_oversized_blocks_are_capped_but_exact_names_still_chain():
    r = EntityResolver(match_threshold=7.0, possible_threshold=2.0, max_block_size=20, window=3)
    # 60 different "X Holdings Bank" names share the token "bank" (an oversized block) ...
    new = [rec(i, f"Zq{i:03d}x Bank") for i in range(60)]
    # ... and 40 copies of one name share an oversized exact-key block
    new += [rec(100 + i, "Acme Bank") for i in range(40)]
    pairs = r.candidate_pairs(new, [])
    assert len(pairs) < 600  # far below the 4950 of an uncapped block
    scores = r.resolve(new)
    clusters = r.clusters(new, scores)
    acme = [c for c in clusters if c[0].name == "Acme Bank"]
    assert len(acme) == 1 and len(acme[0]) == 40


def test_oversized_block_window_never_pairs_existing_with_existing():
    r = EntityResolver(match_threshold=7.0, possible_threshold=2.0, max_block_size=5, window=3)
    existing = [rec(100 + i, "Acme") for i in range(12)]
    pairs = r.candidate_pairs([rec(1, "Acme"), rec(2, "ACME Inc.")], existing)
    assert pairs and all(a.id in (1, 2) for a, _ in pairs)


def test_resolve_is_incremental(resolver):
    existing = [rec(10, "OpenAI"), rec(11, "OpenAI Inc."), rec(12, "Open AI")]
    new = [rec(1, "OpenAI LLC")]
    scores = resolver.resolve(new, existing)
    assert sorted((s.left_id, s.right_id) for s in scores) == [(1, 10), (1, 11), (1, 12)]
    assert all(isinstance(s, PairScore) and s.decision is Decision.MATCH for s in scores)
    clusters = resolver.clusters(new + existing, scores)
    # several existing records: the same frequency/length rule picks among them
    assert len(clusters) == 1 and clusters[0][0].id == 11


# ------------------------------------------------------------------------------- classification


def test_thresholds_classify():
    r = EntityResolver(match_threshold=7.0, possible_threshold=2.0)
    assert r.classify(7.0) is Decision.MATCH
    assert r.classify(6.99) is Decision.POSSIBLE
    assert r.classify(2.0) is Decision.POSSIBLE
    assert r.classify(1.99) is Decision.NON_MATCH
    exact = (rec(1, "Tesla, Inc."), rec(2, "Tesla"))
    fuzzy = (rec(1, "Austria", "PLACE"), rec(2, "Australia", "PLACE"))
    unrelated = (rec(1, "Samsung"), rec(2, "Samsonite"))
    assert r.compare(*exact).decision is Decision.MATCH
    assert r.compare(*fuzzy).decision is Decision.POSSIBLE
    assert r.compare(*unrelated).decision is Decision.NON_MATCH
    # the thresholds, not the weights, move the decision
    strict = EntityResolver(match_threshold=20.0, possible_threshold=10.0)
    assert strict.compare(*exact).decision is Decision.POSSIBLE
    assert strict.compare(*fuzzy).decision is Decision.NON_MATCH
    lax = EntityResolver(match_threshold=5.0, possible_threshold=-5.0)
    assert lax.compare(*fuzzy).decision is Decision.MATCH
    assert lax.compare(*unrelated).decision is Decision.POSSIBLE
    score = r.compare(*exact)
    assert score.weight == pytest.approx(sum(score.components.values()))
    assert set(score.components) == {"name", "acronym", "type", "embedding", "neighbours"}


def test_embedding_and_neighbours_evidence(resolver):
    a, b = rec(1, "John Smith", "PERSON"), rec(2, "John Smyth", "PERSON")
    base = resolver.compare(a, b)
    assert base.components["embedding"] == 0 and base.components["neighbours"] == 0
    v = unit(np.arange(1, 385))
    close = resolver.compare(rec(1, a.name, a.type, embedding=v), rec(2, b.name, b.type, embedding=v))
    assert close.components["embedding"] > 0 and close.weight > base.weight
    w = unit(np.r_[np.ones(192), -np.ones(192)])
    u_ = unit(np.r_[np.ones(192), np.ones(192)])
    far = resolver.compare(rec(1, a.name, a.type, embedding=w), rec(2, b.name, b.type, embedding=u_))
    assert far.components["embedding"] < 0 and far.decision is not Decision.MATCH
    # only one side embedded -> no evidence
    assert resolver.compare(rec(1, a.name, a.type, embedding=v), b).components["embedding"] == 0
    shared = resolver.compare(
        rec(1, a.name, a.type, neighbours={"acmecorp", "london"}),
        rec(2, b.name, b.type, neighbours={"acmecorp", "london", "cfo"}),
    )
    assert shared.components["neighbours"] > 0 and shared.decision is Decision.MATCH
    disjoint = resolver.compare(rec(1, a.name, a.type, neighbours={"x"}), rec(2, b.name, b.type, neighbours={"y"}))
    assert disjoint.components["neighbours"] < 0
    assert resolver.compare(rec(1, a.name, a.type, neighbours={"x"}), b).components["neighbours"] == 0


# ------------------------------------------------------------------------------- labelled set


def load_pairs() -> list[dict]:
    return json.loads(DATA.read_text(encoding="utf-8"))


def test_labelled_set_shape():
    pairs = load_pairs()
    assert len(pairs) >= 70
    positives = sum(p["match"] for p in pairs)
    assert 0.4 <= positives / len(pairs) <= 0.6
    for p in pairs:
        assert isinstance(p["match"], bool) and p["note"]
        for side in ("a", "b"):
            assert p[side]["name"] and p[side]["context"] and p[side]["type"] in TYPES


def test_labelled_set_precision_and_recall_without_embeddings():
    r = EntityResolver()  # configured thresholds
    tp = fp = fn = 0
    for i, p in enumerate(load_pairs()):
        a = EntityRecord(2 * i, p["a"]["name"], p["a"]["type"])
        b = EntityRecord(2 * i + 1, p["b"]["name"], p["b"]["type"])
        predicted = bool(r.candidate_pairs([a], [b])) and r.compare(a, b).decision is Decision.MATCH
        tp += predicted and p["match"]
        fp += predicted and not p["match"]
        fn += (not predicted) and p["match"]
    precision, recall = tp / max(tp + fp, 1), tp / max(tp + fn, 1)
    assert precision >= 0.95, (precision, tp, fp)
    assert recall >= 0.7, (recall, tp, fn)
