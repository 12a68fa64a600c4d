"""Issue 43's rules as pure units, no database: protection counts documents, broad entities never hop, a hop lifts
a chunk only when confirmed, the shown score never rises down the list, and the enterprise question family covers
what it says it covers."""
import json
from pathlib import Path
from uuid import uuid4

import pytest

from bench.enterprise_data import EnterpriseSource, load_enterprise
from bench.multihop_data import DatasetFormatError
from knowledge.retrieval.planner.context import Candidate, EntityHop
from knowledge.retrieval.planner.entity_hops import specific_limit
from knowledge.retrieval.planner.hop_evidence import confident, terms
from knowledge.retrieval.planner.rerank import Scored, rank_scores, select_results

REPO_ROOT = Path(__file__).resolve().parents[1]
A = uuid4()


def scored(chunk_id: int, relevance: float, score: float, document: str, seed_rank: int | None = 1,
           lexical_rank: int | None = None) -> Scored:
    return Scored(Candidate(chunk_id, A, 0.0, seed_rank=seed_rank, source_uri=document, lexical_rank=lexical_rank),
                  None, relevance, 0.0, score, False)


def test_protection_counts_documents_not_chunks():
    pool = [scored(1, 0.9, 0.5, "page"), scored(2, 0.85, 0.5, "page"), scored(3, 0.8, 0.5, "other"),
            scored(9, 0.2, 1.5, "hop", seed_rank=None)]
    # the two protected places go to two documents: the page's second chunk does not take the second one
    assert [s.candidate.chunk_id for s in select_results(pool, 4, {A}, dense_keep=2)][:2] == [1, 3]


def test_the_best_lexical_document_is_protected_after_the_dense_ones():
    pool = [scored(1, 0.9, 0.9, "a"), scored(2, 0.8, 0.8, "b"), scored(3, 0.7, 0.7, "c"),
            scored(7, 0.1, 0.1, "exact", seed_rank=None, lexical_rank=1), scored(9, 0.2, 1.5, "hop", seed_rank=None)]
    chosen = [s.candidate.chunk_id for s in select_results(pool, 5, {A}, dense_keep=2, lexical_keep=1)]
    assert chosen[:3] == [1, 2, 7]
    assert [s.candidate.chunk_id for s in select_results(pool, 5, {A}, dense_keep=2)][:3] == [1, 2, 9]


def test_the_shown_score_never_rises_down_the_list():
    pool = [scored(1, 0.9, 0.4, "a"), scored(2, 0.8, 0.3, "b"), scored(9, 0.2, 1.5, "hop", seed_rank=None),
            scored(3, 0.7, 0.7, "c")]
    selected = select_results(pool, 4, {A}, dense_keep=2)
    assert [s.candidate.chunk_id for s in selected] == [1, 2, 9, 3]
    assert rank_scores(selected) == [1.5, 1.5, 1.5, 0.7]


def test_the_specific_limit_grows_with_the_corpora_as_log2():
    assert specific_limit(0) == specific_limit(3) == 2
    assert specific_limit(26) == 5
    assert specific_limit(2148) == 12  # "Africa" in 32 of MuSiQue's 2,148 chunks is broad
    assert specific_limit(1_000_000) == 20


def _hop(source: int, canonical: int, name: str) -> EntityHop:
    return EntityHop(source, A, 50, A, canonical, name, 2)


def test_a_hop_lifts_a_chunk_only_with_a_second_path_or_a_question_word():
    question = terms("Who is the spouse of the director of Green Mile?")
    assert "spouse" in question and "who" not in question
    one = [_hop(1, 10, "Frank Darabont")]
    assert not confident(one, terms("Frank Darabont was born in France."), question)
    assert confident(one, terms("Frank Darabont and his spouse live in Los Angeles."), question)
    assert confident([_hop(1, 10, "Frank Darabont"), _hop(2, 10, "Frank Darabont")], frozenset(), question)
    assert confident([_hop(1, 10, "Frank Darabont"), _hop(1, 11, "Castle Rock")], frozenset(), question)
    # a question word that is the hop entity's own name confirms nothing
    assert not confident([_hop(1, 12, "Green Mile")], terms("Green Mile premiered in 1999."), question)


def test_the_enterprise_family_holds_every_demo_query_and_its_lookups():
    data = json.loads(EnterpriseSource().questions.read_text(encoding="utf-8"))
    queries = json.loads((REPO_ROOT / "demo" / "queries.json").read_text(encoding="utf-8"))
    asked = {q["question"] for q in data["questions"]}
    demo = [q.get("query") or q.get("question") for group in queries.values() for q in group]
    assert set(demo) <= asked
    kinds = [q["kind"] for q in data["questions"]]
    assert kinds.count("lookup") >= 30 and kinds.count("zh") >= 10
    dataset = EnterpriseSource().load()
    assert len(dataset.questions) == len(data["questions"]) and len(dataset.passages) == 48


def test_an_enterprise_gold_reference_naming_no_document_is_a_clear_error(tmp_path):
    bad = tmp_path / "questions.json"
    bad.write_text(json.dumps({"corpora": ["papers"], "questions": [
        {"id": "q1", "question": "?", "gold": ["papers/papers.jsonl#No Such Paper"]}]}), encoding="utf-8")
    with pytest.raises(DatasetFormatError, match="q1.*No Such Paper"):
        load_enterprise(bad, REPO_ROOT / "demo" / "corpora", "bad")
