"""A 5-question smoke run of the multi-hop benchmark through the normal ingest and retrieval paths, and the
bench as a tool: dataset files in either format, their own paragraphs, clear errors, one results file per set."""
from pathlib import Path

import pytest

import bench.multihop as multihop
import bench.multihop_data as multihop_data
from bench.multihop import METHODS, run
from bench.multihop_data import DatasetSource, MissingDataError, load_dataset
from bench.multihop_stats import paired_comparison

DATA = Path(__file__).parent / "data" / "musique_smoke_questions.json"
HOTPOT = ('[{"_id": "h1", "question": "Q?", "answer": "A", "type": "comparison",'
          ' "supporting_facts": [["Alpha", 0], ["Beta", 1]],'
          ' "context": [["Alpha", ["Alpha is a.", "b."]], ["Beta", ["Beta c.", "d."]], ["Gamma", ["e."]]]}]')


def test_loader_reads_musique_and_hotpotqa_formats(tmp_path):
    dataset = load_dataset(DATA)
    assert len(dataset.questions) == 5 and all(q.gold_keys for q in dataset.questions)
    assert len(dataset.passages) >= 5 * 15
    hotpot = tmp_path / "hotpot.json"
    hotpot.write_text(HOTPOT, encoding="utf-8")
    loaded = load_dataset(hotpot)
    assert len(loaded.passages) == 3 and len(loaded.questions[0].gold_keys) == 2
    assert loaded.questions[0].kind == "comparison"


def test_a_questions_file_alone_is_searched_over_its_own_paragraphs(tmp_path):
    hotpot = tmp_path / "mine" / "hard_questions.json"
    hotpot.parent.mkdir()
    hotpot.write_text(HOTPOT, encoding="utf-8")
    (source,) = multihop.sources_from_args(hotpot, None)
    assert source.corpus is None and len(source.load().passages) == 3
    # named after the questions file: never the results file of another set
    assert multihop.results_path(source.name, None).name == "multihop-mine-hard_questions.json"
    names = {s.name for s in multihop_data.dev_sets()} if multihop_data.SHARED_DATA.is_dir() else set()
    assert source.name not in names


def test_the_same_questions_over_another_corpus_write_another_results_file(tmp_path):
    folder, elsewhere = tmp_path / "musique", tmp_path / "elsewhere"
    folder.mkdir()
    elsewhere.mkdir()
    questions, paired, other = folder / "questions_dev.json", folder / "corpus.json", elsewhere / "mine.json"
    for path in (questions, paired, other):
        path.write_text("[]", encoding="utf-8")
    # the dev set keeps its name; its questions over their own paragraphs or another corpus are other sets
    assert DatasetSource(questions, paired).name == "musique-questions_dev"
    assert DatasetSource(questions).name == "musique-questions_dev-own-paragraphs"
    assert DatasetSource(questions, other).name == "musique-questions_dev-over-elsewhere-mine"


def test_a_checkout_without_the_shared_data_gets_a_clear_message(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(multihop_data, "SHARED_DATA", tmp_path / "shared" / "data")  # where dev_sets looks
    with pytest.raises(SystemExit) as exited:
        multihop.main([])
    assert exited.value.code == 2
    out = capsys.readouterr().out
    assert "--questions FILE" in out and "shared" in out
    with pytest.raises(MissingDataError, match="no such dataset file"):
        DatasetSource(tmp_path / "nope.json").load()


def test_results_name_the_package_versions_their_rankings_depend_on():
    versions = multihop.package_versions()
    assert set(versions) == set(multihop.RANKING_PACKAGES)
    assert versions["torch"].startswith("2.13.0")  # the pinned CPU build
    assert versions["sentence-transformers"] != "not installed"


def test_paired_comparison_counts_and_interval():
    paired = paired_comparison([1.0, 0.5, 0.5, 1.0], [0.5, 0.5, 1.0, 0.0])
    assert (paired.wins, paired.losses, paired.ties) == (2, 1, 1)
    assert paired.mean_difference == pytest.approx(0.25)
    assert paired.ci_low <= paired.mean_difference <= paired.ci_high
    with pytest.raises(ValueError):
        paired_comparison([1.0], [1.0, 0.0])


async def test_smoke_run_scores_every_method(pg_dsn):
    (result,) = await run([DatasetSource(DATA)], [3], limit_questions=5, write=False, server_dsn=pg_dsn)
    assert set(result["methods"]) == set(METHODS)
    for scores in result["methods"].values():
        assert 0.0 <= scores["recall@2"] <= scores["recall@5"] <= scores["recall@10"] <= 1.0
        paired = scores["vs_dense_recall@5"]
        assert paired["wins"] + paired["losses"] + paired["ties"] == 5
    assert result["methods"]["dense"]["recall@10"] > 0.3
    assert result["methods"]["dense"]["vs_dense_recall@5"]["ties"] == 5
    assert result["planner_modes"] == {"planner": 5}, "three corpora run the planner"
