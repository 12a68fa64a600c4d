"""A 5-question smoke run of the multi-hop benchmark through the normal ingest and retrieval paths."""
from pathlib import Path

from bench.multihop import METHODS, run
from bench.multihop_data import load_dataset

DATA = Path(__file__).parent / "data" / "musique_smoke_questions.json"


def test_loader_reads_musique_and_hotpotqa_formats(tmp_path):
    dataset = load_dataset(DATA)
    assert len(dataset.questions) == 5 and all(q.gold_keys for q in dataset.questions)
    assert len(dataset.passages) >= 5 * 15
    hotpot = tmp_path / "hotpot.json"
    hotpot.write_text(
        '[{"_id": "h1", "question": "Q?", "answer": "A", "supporting_facts": [["Alpha", 0], ["Beta", 1]],'
        ' "context": [["Alpha", ["Alpha is a.", "b."]], ["Beta", ["Beta c.", "d."]], ["Gamma", ["e."]]]}]',
        encoding="utf-8")
    loaded = load_dataset(hotpot)
    assert len(loaded.passages) == 3 and len(loaded.questions[0].gold_keys) == 2


async def test_smoke_run_scores_every_method(pg_dsn):
    (result,) = await run(DATA, None, [3], limit_questions=5, restrict_corpus=True, write=False, server_dsn=pg_dsn)
    assert set(result["methods"]) == set(METHODS)
    for scores in result["methods"].values():
        assert 0.0 <= scores["recall@2"] <= scores["recall@5"] <= scores["recall@10"] <= 1.0
    assert result["methods"]["dense"]["recall@10"] > 0.3
    assert result["planner_modes"] == {"planner": 5}, "three corpora and multi-hop questions run the planner"
