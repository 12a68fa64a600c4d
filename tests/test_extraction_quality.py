"""Extraction quality: the demo's bad entities and untyped relations, generic names that must not bridge corpora,
and the extraction bench (offline extractor vs the MuSiQue silver reference) on a few passages."""
import json
from pathlib import Path

import pytest

import bench.extraction as extraction_bench
from bench.extraction_reference import ReferenceExtractor, is_date_or_number, load_reference, match_key
from knowledge.graph.extraction import DEFAULT_OFFLINE_EXTRACTOR
from knowledge.ingest.chunking import chunk_text

DEMO = Path(__file__).resolve().parents[1] / "demo" / "corpora"
SAMPLE = Path(__file__).parent / "data" / "musique_reference_sample.json"
GENERIC = {"polish", "portuguese", "german", "spanish", "english", "pdf", "pii", "llm", "shanghai", "berlin",
           "semanticsearch", "entityresolution", "denseretrieval", "finetuning"}


def _chunk_entities(relative: str) -> set[str]:
    """Entity names the offline extractor finds in the chunks ingest makes of one demo file."""
    text = (DEMO / relative).read_text(encoding="utf-8")
    return {e.name for chunk in chunk_text(text) for e in DEFAULT_OFFLINE_EXTRACTOR.extract(chunk.text).entities}


@pytest.mark.parametrize("relative, bad, good", [
    ("project_docs/vendor_eval_llm_providers.md", "Keep OpenAI Inc.", "OpenAI Inc."),   # "## Recommendation Keep ..."
    ("team_notes/onboarding-checklist.txt", "Week 1", "Kestrel Labs"),
    ("team_notes/onboarding-checklist.txt", "Day 1", "Lumen Gateway"),
    ("team_notes/2024-03-20-atlas-weekly.md", "Project Atlas Weekly", "Project Atlas"),
])
def test_demo_sentences_do_not_yield_the_bad_entities(relative, bad, good):
    names = _chunk_entities(relative)
    assert bad not in names and good in names


def test_languages_are_not_entities_but_start_names():
    names = {e.name for e in DEFAULT_OFFLINE_EXTRACTOR.extract(
        "Maria speaks Portuguese, Spanish and English, and is learning German. Their reviewers could not handle "
        "Polish legal text. The American Civil War ended in 1865; British Columbia joined later.").entities}
    assert not names & {"Portuguese", "Spanish", "English", "German", "Polish"}
    assert {"American Civil War", "British Columbia"} <= names


def test_developed_by_a_titled_person_is_a_typed_relation():
    record = json.loads((DEMO / "papers" / "papers.jsonl").read_text(encoding="utf-8").splitlines()[0])
    relations = DEFAULT_OFFLINE_EXTRACTOR.extract(record["text"]).relations
    assert ("Lin Wei", "DEVELOPED", "Aurora Vector Engine") in {(r.source, r.type, r.target) for r in relations}


def test_names_of_longer_names_and_surnames():
    extraction = DEFAULT_OFFLINE_EXTRACTOR.extract(
        "He received the Medal of Honor after World War I. Elizabeth II opened the 1948 Summer Olympics. "
        "Gordon Brown met Obama at the U.S. Supreme Court. Brown later said it went well.")
    names = {e.name for e in extraction.entities}
    assert {"Medal of Honor", "World War I", "Elizabeth II", "1948 Summer Olympics", "U.S. Supreme Court",
            "Gordon Brown"} <= names
    assert "Brown" not in names       # the surname is a mention of Gordon Brown
    brown = next(e for e in extraction.entities if e.name == "Gordon Brown")
    assert len(brown.mentions) == 2


async def test_generic_names_are_hubs_and_never_bridge_the_demo_corpora(demo_app):
    kapp, corpora = demo_app
    ids = [c.id for c in corpora.values()]
    bridges = await kapp.canonical.bridges(ids, 1000)
    shared = {match_key(r["source_name"]) for r in bridges if r["bridge_type"] == "shared_entity"}
    assert not shared & GENERIC
    assert {"auroravectorengine", "linwei", "cobaltsystems", "openai"} <= shared
    stats = await kapp.canonical.stats()
    assert stats.hubs > 0
    async with kapp.db.connection() as conn:
        hubs = {r["canonical_name_normalized"] for r in await conn.fetch(
            "SELECT canonical_name_normalized FROM kg_entity_canonical WHERE is_stopword_like")}
    assert {"shanghai", "llm"} <= hubs and "auroravectorengine" not in hubs


def test_reference_matching_ignores_case_punctuation_and_articles():
    assert match_key("The Beatles") == match_key("beatles") == match_key("Beatles'")
    assert match_key("U.S.") == match_key("US") and match_key("Paris, France") != match_key("Paris")
    assert (is_date_or_number("January 1960") and is_date_or_number("1963")
            and not is_date_or_number("2018 Impact Factor"))


def test_extraction_bench_scores_a_few_passages(capsys):
    scores = extraction_bench.main(["--reference", str(SAMPLE), "--no-write", "--errors", "3"])
    assert scores.passages == 6
    assert 0.5 < scores.entities.precision <= 1 and 0.4 < scores.entities.recall <= 1
    assert scores.entities.reference < scores.entities_all_reference.reference   # dates counted apart
    out = capsys.readouterr().out
    assert "Offline extractor vs the silver reference, 6 passages" in out and "precision" in out


def test_extraction_bench_scores_two_stable_halves_that_add_up(capsys):
    scores = extraction_bench.main(["--reference", str(SAMPLE), "--no-write", "--errors", "3",
                                    "--errors-half", "held-out"])
    halves = scores.halves
    assert set(halves) == {"tune", "held-out"}
    assert sum(h.passages for h in halves.values()) == scores.passages
    assert sum(h.entities.extracted for h in halves.values()) == scores.entities.extracted
    assert sum(h.entities.found for h in halves.values()) == scores.entities.found
    # a hash of the title (sha1), not Python's per-process hash(): the same half on every run and machine
    assert [extraction_bench.passage_half(t) for t in ("Vienna", "Athens", "Oslo", "Dublin")] == \
        ["tune", "tune", "held-out", "held-out"]
    out = " ".join(capsys.readouterr().out.split())
    assert "Entities by half of the passages" in out and "false positives, held-out" in out


def test_extraction_bench_says_where_the_reference_is_expected(tmp_path, capsys):
    with pytest.raises(SystemExit) as exited:
        extraction_bench.main(["--reference", str(tmp_path / "nope.json"), "--no-write"])
    assert exited.value.code == 2
    out = " ".join(capsys.readouterr().out.split())   # the console wraps long lines
    assert "--reference FILE" in out and "nope.json" in out


def test_reference_extractor_reads_entities_and_triples_of_the_passage():
    passages = load_reference(SAMPLE)
    extractor = ReferenceExtractor(passages)
    journal = passages[0]
    extraction = extractor.extract(f"{journal.title}\n\n{journal.text}")
    names = {e.name for e in extraction.entities}
    assert {"American Institute of Physics", "Jan Philip Solovej", "University of Copenhagen"} <= names
    assert "1963" not in names
    assert ("Journal of Mathematical Physics", "DEVELOPED", "American Institute of Physics") in {
        (r.source, r.type, r.target) for r in extraction.relations}      # "published by"
    # a text the reference does not hold goes to the offline extractor
    assert ({e.name for e in extractor.extract("Kestrel Labs is located in Berlin.").entities}
            == {"Kestrel Labs", "Berlin"})
