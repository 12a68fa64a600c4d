"""Entity/relation extraction: offline rules (English + Chinese) and the LLM path with fallback."""
from __future__ import annotations

import json
import logging
from types import SimpleNamespace

import pytest

from knowledge.graph.extraction import (
    ENTITY_TYPES,
    ExtractedEntity,
    ExtractedRelation,
    Extraction,
    Extractor,
    LlmExtractor,
    OfflineExtractor,
    get_extractor,
    parse_llm_json,
    split_sentences,
)


@pytest.fixture(scope="module")
def ex() -> OfflineExtractor:
    return OfflineExtractor()


def by_name(result: Extraction) -> dict[str, ExtractedEntity]:
    return {e.name: e for e in result.entities}


def typed(result: Extraction) -> set[tuple[str, str, str]]:
    return {(r.source, r.type, r.target) for r in result.relations if r.type != "CO_OCCURS"}


def assert_spans_valid(text: str, result: Extraction) -> None:
    for e in result.entities:
        assert e.type in ENTITY_TYPES
        assert (e.start, e.end) == e.mentions[0]
        assert list(e.mentions) == sorted(e.mentions)
        for s, t in e.mentions:
            assert 0 <= s < t <= len(text)
            assert text[s:t].strip() == text[s:t] and text[s:t]


# ------------------------------------------------------------------------------ English

def test_openai_variants_merge_into_one_entity(ex):
    text = ("OpenAI Inc. released ChatGPT in 2022. Later, Open AI partnered with Microsoft. "
            "OpenAI is based in San Francisco.")
    r = ex.extract(text)
    assert_spans_valid(text, r)
    openai = [e for e in r.entities if e.type == "ORG" and "AI" in e.name]
    assert len(openai) == 1
    e = openai[0]
    assert e.name == "OpenAI Inc."            # display name keeps the legal suffix
    assert [text[s:t] for s, t in e.mentions] == ["OpenAI Inc.", "Open AI", "OpenAI"]
    assert text[e.start:e.end] == "OpenAI Inc."
    names = by_name(r)
    assert names["ChatGPT"].type == "PRODUCT"
    assert names["Microsoft"].type == "ORG"
    assert names["San Francisco"].type == "PLACE"
    rels = typed(r)
    assert ("OpenAI Inc.", "DEVELOPED", "ChatGPT") in rels
    assert ("OpenAI Inc.", "PARTNERED_WITH", "Microsoft") in rels
    assert ("OpenAI Inc.", "LOCATED_IN", "San Francisco") in rels


def test_apple_acquired_beats(ex):
    text = "Apple acquired Beats in 2014."
    r = ex.extract(text)
    names = by_name(r)
    assert names["Apple"].type == "ORG"
    assert text[names["Apple"].start:names["Apple"].end] == "Apple"
    assert "Beats" in names
    [rel] = [x for x in r.relations if x.type == "ACQUIRED"]
    assert (rel.source, rel.target, rel.weight) == ("Apple", "Beats", 2.0)
    assert rel.evidence == text
    # a typed pair is not also reported as co-occurrence
    assert not [x for x in r.relations if x.type == "CO_OCCURS"]


def test_passive_acquisition_is_reversed(ex):
    r = ex.extract("Beats was acquired by Apple.")
    assert typed(r) == {("Apple", "ACQUIRED", "Beats")}


def test_apple_in_food_context_is_food(ex):
    text = "We baked an apple pie for lunch."
    r = ex.extract(text)
    names = by_name(r)
    assert names["apple"].type == "FOOD"
    assert text[names["apple"].start:names["apple"].end] == "apple"
    assert not [e for e in r.entities if e.type == "ORG"]
    assert "We" not in names


def test_company_and_fruit_apple_stay_apart(ex):
    text = "Apple Inc. announced a new iPhone. After lunch we ate an apple from the market."
    r = ex.extract(text)
    types = {(e.name, e.type) for e in r.entities}
    assert ("Apple Inc.", "ORG") in types
    assert ("apple", "FOOD") in types


def test_sentence_initial_stopwords_are_not_entities(ex):
    text = ("The Aurora Vector Engine uses HNSW. However, Project Helios relies on PostgreSQL. "
            "This approach works. In January, Microsoft and Google partnered on a standard. "
            "We tested it on Monday.")
    r = ex.extract(text)
    assert_spans_valid(text, r)
    names = by_name(r)
    for bad in ("The", "However", "This", "In", "January", "We", "Monday", "The Aurora Vector Engine"):
        assert bad not in names
    assert names["Aurora Vector Engine"].type == "PRODUCT"   # leading "The" stripped
    assert names["Project Helios"].type == "PRODUCT"
    assert names["HNSW"].type == "CONCEPT"
    rels = typed(r)
    assert ("Aurora Vector Engine", "USES", "HNSW") in rels
    assert ("Project Helios", "USES", "PostgreSQL") in rels
    assert ("Microsoft", "PARTNERED_WITH", "Google") in rels


def test_titles_people_orgs_places(ex):
    text = "Dr. Lin Wei joined Tsinghua University in Beijing. Alice Smith works at NASA."
    r = ex.extract(text)
    assert_spans_valid(text, r)
    names = by_name(r)
    assert names["Lin Wei"].type == "PERSON"                 # title used for typing, not in the name
    assert text[names["Lin Wei"].start:names["Lin Wei"].end] == "Lin Wei"
    assert names["Tsinghua University"].type == "ORG"
    assert names["Beijing"].type == "PLACE"
    assert names["Alice Smith"].type == "PERSON"
    assert names["NASA"].type == "ORG"
    rels = typed(r)
    assert ("Lin Wei", "WORKS_AT", "Tsinghua University") in rels
    assert ("Alice Smith", "WORKS_AT", "NASA") in rels


def test_quoted_camelcase_acronyms_and_aliases(ex):
    text = ('The team calls it "semantic routing". GitHub hosts the “Helios Index”. '
            "Reciprocal Rank Fusion (RRF) merges lists; RRF is simple.")
    r = ex.extract(text)
    assert_spans_valid(text, r)
    names = by_name(r)
    assert names["semantic routing"].type == "CONCEPT"
    assert names["GitHub"].type == "ORG"
    assert names["Helios Index"].type == "PRODUCT"
    rrf = [e for e in r.entities if "RRF" in [text[s:t] for s, t in e.mentions]]
    assert len(rrf) == 1 and rrf[0].type == "CONCEPT"
    assert sorted(text[s:t] for s, t in rrf[0].mentions) == ["RRF", "RRF", "Reciprocal Rank Fusion"]


def test_part_of_and_located_in_with_legal_suffix(ex):
    text = "GitHub is part of Microsoft Corp. Alibaba Cloud is headquartered in Hangzhou."
    r = ex.extract(text)
    names = by_name(r)
    assert names["Microsoft Corp."].type == "ORG"
    rels = typed(r)
    assert ("GitHub", "PART_OF", "Microsoft Corp.") in rels
    assert ("Alibaba Cloud", "LOCATED_IN", "Hangzhou") in rels


def test_cooccurrence_weights_accumulate_per_sentence(ex):
    text = "Kafka and Redis appear together. Kafka and Redis appear again."
    r = ex.extract(text)
    co = [x for x in r.relations if x.type == "CO_OCCURS"]
    assert len(co) == 1
    assert (co[0].source, co[0].target, co[0].weight) == ("Kafka", "Redis", 2.0)
    assert co[0].evidence == "Kafka and Redis appear together."


def test_markdown_headings_labels_and_imperatives(ex):
    text = ("# Vendor Evaluation\n\nOwner: Kenji Watanabe (Helios tech lead, Berlin)\n\n## Recommendation\n"
            "Use Aurora Vector Engine for Project Helios. Keep OpenAI Inc. as the fallback.\n"
            "Steps\nRollback if needed.")
    r = ex.extract(text)
    assert_spans_valid(text, r)
    names = by_name(r)
    for bad in ("Vendor Evaluation", "Owner", "Recommendation", "Use Aurora Vector Engine", "Keep OpenAI Inc.",
                "Steps", "Rollback"):
        assert bad not in names
    assert names["Kenji Watanabe"].type == "PERSON"
    assert names["Aurora Vector Engine"].type == "PRODUCT"
    assert names["OpenAI Inc."].type == "ORG"
    assert names["Berlin"].type == "PLACE"


def test_short_names_company_products_and_accents(ex):
    text = ("Project Helios depends on the Aurora Vector Engine. At query time Helios sends the embedding "
            "to Aurora. Anthropic Claude is the primary model. The team moved from Kraków to Zurich-based offices.")
    r = ex.extract(text)
    assert_spans_valid(text, r)
    names = by_name(r)
    assert [text[s:t] for s, t in names["Project Helios"].mentions] == ["Project Helios", "Helios"]
    assert [text[s:t] for s, t in names["Aurora Vector Engine"].mentions] == ["Aurora Vector Engine", "Aurora"]
    assert names["Anthropic"].type == "ORG" and names["Claude"].type == "PRODUCT"
    assert names["Kraków"].type == "PLACE" and names["Zurich"].type == "PLACE"
    rels = typed(r)
    assert ("Project Helios", "USES", "Aurora Vector Engine") in rels
    assert ("Anthropic", "DEVELOPED", "Claude") in rels


def test_sentence_split_english_and_chinese():
    text = "Dr. Lin joined Apple Inc. in 2020. 阿里巴巴位于杭州。腾讯呢？好！Done"
    spans = [text[s:e] for s, e in split_sentences(text)]
    assert spans == ["Dr. Lin joined Apple Inc. in 2020.", "阿里巴巴位于杭州。", "腾讯呢？", "好！", "Done"]


# ------------------------------------------------------------------------------ Chinese

def test_chinese_located_in(ex):
    text = "阿里巴巴位于杭州。"
    r = ex.extract(text)
    names = by_name(r)
    assert names["阿里巴巴"].type == "ORG"
    assert names["杭州"].type == "PLACE"
    assert text[names["杭州"].start:names["杭州"].end] == "杭州"
    assert typed(r) == {("阿里巴巴", "LOCATED_IN", "杭州")}
    [rel] = r.relations
    assert rel.evidence == "阿里巴巴位于杭州。"


def test_chinese_person_and_org(ex):
    text = "张伟博士在清华大学工作"
    r = ex.extract(text)
    assert_spans_valid(text, r)
    names = by_name(r)
    assert names["张伟"].type == "PERSON"
    assert names["清华大学"].type == "ORG"
    assert (names["张伟"].start, names["张伟"].end) == (0, 2)
    assert ("张伟", "WORKS_AT", "清华大学") in typed(r)


def test_chinese_predicates(ex):
    text = ("腾讯收购了搜狗公司。李明教授开发了极光向量引擎。深圳大学与华为达成战略合作。"
            "阿里云属于阿里巴巴集团。极光向量引擎使用知识图谱。")
    r = ex.extract(text)
    assert_spans_valid(text, r)
    names = by_name(r)
    assert names["搜狗公司"].type == "ORG"
    assert names["李明"].type == "PERSON"
    assert names["极光向量引擎"].type == "PRODUCT"
    assert names["知识图谱"].type == "CONCEPT"
    assert len(names["极光向量引擎"].mentions) == 2
    rels = typed(r)
    assert {("腾讯", "ACQUIRED", "搜狗公司"), ("李明", "DEVELOPED", "极光向量引擎"),
            ("深圳大学", "PARTNERED_WITH", "华为"), ("阿里云", "PART_OF", "阿里巴巴集团"),
            ("极光向量引擎", "USES", "知识图谱")} <= rels


def test_chinese_apple_company_vs_fruit(ex):
    r = ex.extract("我们吃了一个苹果。苹果公司发布了新手机。")
    types = {(e.name, e.type) for e in r.entities}
    assert ("苹果", "FOOD") in types
    assert ("苹果公司", "ORG") in types


def test_mixed_language_text(ex):
    text = "OpenAI 总部位于旧金山。The Aurora Gateway uses Redis。"
    r = ex.extract(text)
    assert_spans_valid(text, r)
    rels = typed(r)
    assert ("OpenAI", "LOCATED_IN", "旧金山") in rels
    assert ("Aurora Gateway", "USES", "Redis") in rels


def test_empty_text(ex):
    assert ex.extract("") == Extraction([], [])
    assert ex.extract("   \n ").entities == []


# ------------------------------------------------------------------------------ LLM path

def _reply(content: str) -> SimpleNamespace:
    return SimpleNamespace(choices=[SimpleNamespace(message=SimpleNamespace(content=content))])


class FakeCompletion:
    def __init__(self, content: str | None = None, exc: Exception | None = None):
        self.content, self.exc, self.calls = content, exc, []

    def __call__(self, **kwargs):
        self.calls.append(kwargs)
        if self.exc is not None:
            raise self.exc
        return _reply(self.content)


LLM_TEXT = "Apple acquired Beats in 2014. Beats makes headphones."


def test_llm_valid_json_with_fence_and_coercion():
    payload = {
        "entities": [{"name": "Apple", "type": "organization"}, {"name": "Beats", "type": "Company"},
                     {"name": "headphones", "type": "gadget"}, {"name": "Samsung", "type": "ORG"}],
        "relations": [{"source": "Apple", "target": "Beats", "type": "acquired"},
                      {"source": "Apple", "target": "Samsung", "type": "COMPETES_WITH"}],
    }
    fake = FakeCompletion("Sure!\n```json\n" + json.dumps(payload) + "\n```")
    ext = LlmExtractor("test-model", completion=fake)
    r = ext.extract(LLM_TEXT)
    [call] = fake.calls
    assert call["model"] == "test-model" and call["temperature"] == 0
    assert LLM_TEXT in call["messages"][-1]["content"]
    names = by_name(r)
    assert set(names) == {"Apple", "Beats", "headphones"}         # Samsung is not in the text
    assert names["Apple"].type == "ORG" and names["Beats"].type == "ORG"
    assert names["headphones"].type == "OTHER"                     # unknown type coerced
    assert [LLM_TEXT[s:t] for s, t in names["Beats"].mentions] == ["Beats", "Beats"]
    rels = typed(r)
    assert rels == {("Apple", "ACQUIRED", "Beats")}                # endpoint Samsung dropped
    [acq] = [x for x in r.relations if x.type == "ACQUIRED"]
    assert acq.weight == 2.0 and acq.evidence == "Apple acquired Beats in 2014."


def test_llm_entities_pick_up_variant_mentions_and_text_casing():
    text = "OpenAI Inc. released ChatGPT. Open AI is based in San Francisco."
    payload = {"entities": [{"name": "OpenAI", "type": "ORG"}, {"name": "chatgpt", "type": "PRODUCT"},
                            {"name": "San Francisco", "type": "LOCATION"}],
               "relations": [{"source": "OpenAI", "target": "San Francisco", "type": "LOCATED_IN"}]}
    r = LlmExtractor("m", completion=FakeCompletion(json.dumps(payload))).extract(text)
    names = by_name(r)
    assert [text[s:t] for s, t in names["OpenAI"].mentions] == ["OpenAI Inc.", "Open AI"]
    assert names["ChatGPT"].type == "PRODUCT"                      # display name as written in the text
    assert names["San Francisco"].type == "PLACE"
    [loc] = [x for x in r.relations if x.type == "LOCATED_IN"]
    assert loc.evidence == "Open AI is based in San Francisco."
    assert ("OpenAI", "CO_OCCURS", "ChatGPT") in {(x.source, x.type, x.target) for x in r.relations}


def test_llm_malformed_json_falls_back(caplog):
    fallback = OfflineExtractor()
    ext = LlmExtractor("test-model", fallback=fallback, completion=FakeCompletion('{"entities": [ {"name": '))
    with caplog.at_level(logging.WARNING, logger="knowledge.graph.extraction"):
        r = ext.extract(LLM_TEXT)
    assert r == fallback.extract(LLM_TEXT)
    assert ("Apple", "ACQUIRED", "Beats") in typed(r)
    assert any("offline" in rec.getMessage() for rec in caplog.records)


def test_llm_schema_violation_falls_back():
    bad = json.dumps({"entities": [{"type": "ORG"}], "relations": []})       # entity without a name
    ext = LlmExtractor("m", completion=FakeCompletion(bad))
    r = ext.extract(LLM_TEXT)
    assert by_name(r)["Apple"].type == "ORG"
    assert ("Apple", "ACQUIRED", "Beats") in typed(r)


def test_llm_exception_falls_back(caplog):
    calls = []

    class Recording(OfflineExtractor):
        def extract(self, text):
            calls.append(text)
            return super().extract(text)

    ext = LlmExtractor("m", fallback=Recording(), completion=FakeCompletion(exc=RuntimeError("rate limited")))
    with caplog.at_level(logging.WARNING, logger="knowledge.graph.extraction"):
        r = ext.extract(LLM_TEXT)
    assert calls == [LLM_TEXT]
    assert ("Apple", "ACQUIRED", "Beats") in typed(r)
    assert any("rate limited" in rec.getMessage() for rec in caplog.records)


def test_parse_llm_json_variants():
    assert parse_llm_json('```json\n{"entities": []}\n```') == {"entities": []}
    assert parse_llm_json('Here you go: {"entities": [], "relations": []} thanks') == {"entities": [],
                                                                                       "relations": []}
    with pytest.raises(ValueError):
        parse_llm_json("[1, 2]")
    with pytest.raises(ValueError):
        parse_llm_json("no json here")


def test_get_extractor(monkeypatch):
    from config import settings as settings_mod

    monkeypatch.delenv("NE_MODEL", raising=False)
    settings_mod.reset_settings_cache()
    try:
        assert isinstance(get_extractor(), OfflineExtractor)
        llm = get_extractor("openai/gpt-4o-mini")
        assert isinstance(llm, LlmExtractor) and llm.model == "openai/gpt-4o-mini"
        assert isinstance(llm.fallback, OfflineExtractor)
        monkeypatch.setenv("NE_MODEL", "anthropic/claude-x")
        settings_mod.reset_settings_cache()
        env = get_extractor()
        assert isinstance(env, LlmExtractor) and env.model == "anthropic/claude-x"
        assert isinstance(env, Extractor) and isinstance(OfflineExtractor(), Extractor)
    finally:
        settings_mod.reset_settings_cache()


def test_dataclasses_are_frozen():
    e = ExtractedEntity("OpenAI", "ORG", 0, 6, ((0, 6),))
    with pytest.raises(Exception):
        e.name = "x"  # type: ignore[misc]
    rel = ExtractedRelation("a", "b", "USES", 2.0, "a uses b")
    assert rel.weight == 2.0
