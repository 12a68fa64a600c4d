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


# ------------------------------------------------------------------ name boundaries on encyclopedic text (issue 14)
# Each case is a sentence of the kind the MuSiQue passages hold: names the rule must make, and fragments or
# non-names it must not.
NAME_BOUNDARY_CASES = [
    # a hyphen written with spaces inside a name, not a dash between two names
    ("The film stars Tom Hanks and Catherine Zeta - Jones. Kim Jong - un was the second of three children.",
     {"Catherine Zeta-Jones", "Kim Jong-un"}, {"Catherine Zeta", "Jones", "Kim Jong"}),
    ("Some philosophers of the Enlightenment - Thomas Hobbes, John Locke - had Protestant backgrounds.",
     {"Thomas Hobbes", "John Locke"}, {"Enlightenment-Thomas Hobbes"}),
    # a nickname between the given name and the surname
    ('Samuel "Sam" Schultz (born December 11, 1985) is an American football coach.',
     {"Samuel Schultz"}, {"Samuel", "Sam"}),
    # an epithet after a single name, but not a nationality
    ("Portugal explored the coast under the sponsorship of prince Henry the Navigator.",
     {"Henry the Navigator"}, {"Henry"}),
    ("The treaty promised Japan the German possessions in China.", {"Japan"}, {"Japan the"}),
    # an honorific before a lone surname stays; before a full name it goes
    ("Dame Maggie Smith played Mrs. Medlock, and the line was dedicated by Lord Dalhousie.",
     {"Maggie Smith", "Mrs. Medlock", "Lord Dalhousie"}, {"Medlock", "Dalhousie"}),
    ("Captain George Thatcher Balch was a Union Army officer.", {"George Thatcher Balch"},
     {"Captain George Thatcher Balch"}),
    # ordinals and number words inside names
    ("He was wounded during the First World War and later fought in the Second Sino - Japanese War.",
     {"First World War", "Second Sino-Japanese War"}, {"World War", "Japanese War"}),
    ("Austria seceded from the Third Reich in 1945, long after the Seven Years' War.",
     {"Third Reich", "Seven Years' War"}, {"Reich", "Years"}),
    ("The 38th Chess Olympiad was organised by FIDE. He was a member of the 14th Lok Sabha.",
     {"38th Chess Olympiad", "14th Lok Sabha"}, {"Chess Olympiad", "Lok Sabha"}),
    ("It is the home of Dwight D. Eisenhower, the 34th President of the United States.",
     {"Dwight D. Eisenhower", "United States"}, {"34th President"}),
    # possessives inside names
    ("The cathedral church of the diocese is St Paul's Cathedral in Rockhampton.",
     {"St Paul's Cathedral", "Rockhampton"}, {"St Paul"}),
    ("Beijing is a city in the People's Republic of China.", {"People's Republic of China"}, {"Republic of China"}),
    ("In February 2018, the Groenland Water Users' Association asked for water restrictions.",
     {"Groenland Water Users' Association"}, {"Groenland Water Users"}),
    # numbers: a day of a date, a coordinate or a thousands group is no version; a road keeps its number
    ("Members: Belize 1 May 1974, Suriname 4 July 1995.", {"Suriname"}, {"Suriname 4"}),
    ("Warm Springs is located on Arkansas Highway 251, north of Pocahontas.", {"Arkansas Highway 251"},
     {"Arkansas Highway"}),
    ("The highest point is Mount Sunflower 4,041 ft above sea level.", {"Mount Sunflower"}, {"Mount Sunflower 4"}),
    ("The 180 MW Tatanka Wind Farm is located in Dickey County.", {"Tatanka Wind Farm"}, {"MW Tatanka Wind Farm"}),
    # a capitalised word also written in lower case in the text is a common noun
    ("In 1947 Japan adopted its current Constitution; the constitution replaced the Meiji charter.",
     {"Japan"}, {"Constitution"}),
    # a piece of a longer title-case name cut at of / the / on / v / &
    ("The Very Private Life of Mister Sim is a 2015 French comedy film.", set(), {"Mister Sim", "Private Life"}),
    ("Maria Santos of Cobalt Systems reviewed the labels.", {"Maria Santos", "Cobalt Systems"}, set()),
    # names joined by an ampersand, by "of the", by "Party of", by two particles; post-nominal letters
    ("The hotel is managed by Omni Hotels & Resorts.", {"Omni Hotels & Resorts"}, {"Resorts"}),
    ("The Episcopal Church of the Epiphany is a parish in San Carlos.", {"Episcopal Church of the Epiphany"},
     {"Episcopal Church"}),
    ("The Communist Party of Canada is a political party.", {"Communist Party of Canada"}, {"Canada"}),
    ("Arnoud Eugène van der Biesen was a sailor from the Netherlands.", {"Arnoud Eugène van der Biesen"},
     {"Biesen"}),
    ("James Alexander Richey CIE was a British educationist.", {"James Alexander Richey"},
     {"James Alexander Richey CIE"}),
    ("He works in Washington, D.C. for a law firm.", {"Washington, D.C."}, {"Washington", "D.C"}),
    # "X and Y" after a place head or before a given name lists two names
    ("Although Hong Kong Island and Kowloon were ceded to Britain, the lease ended.",
     {"Hong Kong Island", "Kowloon"}, {"Hong Kong Island and Kowloon"}),
    # Northern / Western inside a sentence start a name; a nationality phrase with no name left is none
    ("Polytechnics were institutions in England, Wales and Northern Ireland.", {"Northern Ireland"}, {"Ireland"}),
    ("The courthouse is a Greek Revival structure. Native Americans lived in the valley.", set(),
     {"Revival", "Native", "Greek Revival"}),
    # quotations: a lower-case quoted word or phrase is no name unless coined as one
    ('A Jagunço, from the Portuguese "zarguncho" (a weapon), is an armed bodyguard.', set(), {"zarguncho"}),
    ('His thought was based on "a set of Protestant Christian assumptions".', set(),
     {"a set of Protestant Christian assumptions"}),
    # notes and headings: " - " in a title line separates a subtitle; "#atlas" is no lower-case "atlas"; an
    # imperative first word before "the" is not a title; a currency code ends a name
    ("# Project Atlas - Design Document\n\nProject Atlas stores the shared graph.", {"Project Atlas"},
     {"Project Atlas-Design Document"}),
    ("She joins the Atlas data group. Say hi in #atlas!", {"Atlas"}, set()),
    ("Ran the Helios reindex dry run on staging. - Hand the Borealis lead to Jonas by Q4.",
     {"Helios", "Borealis", "Jonas"}, {"Ran the Helios", "Hand the Borealis"}),
    ("In June the split was: Anthropic EUR 9,800 (Project Orion agents).", {"Anthropic", "Project Orion"},
     {"Anthropic EUR", "Anthropic EUR 9"}),
    # prepositions and media formats are no names
    ("Alongside Saeco, Eugster is one of the largest makers. The Soundhouse Tapes is the debut EP by Iron Maiden.",
     {"Saeco", "Iron Maiden"}, {"Alongside Saeco", "EP"}),
    # the title-case name a paragraph opens on, small words and all, and that name again in a title line;
    # not a person of an organisation, not across a sentence end
    ("Jump for Glory is a 1937 British romantic drama film.", {"Jump for Glory"}, {"Glory"}),
    ("The Jewel of the Nile\n\nThe Jewel of the Nile is a 1985 action-adventure film starring Michael Douglas.",
     {"Jewel of the Nile", "Michael Douglas"}, {"Jewel", "Nile"}),
    ("Maria Santos of Cobalt Systems is the new lead.", {"Maria Santos", "Cobalt Systems"},
     {"Maria Santos of Cobalt Systems"}),
    ("Prepared by Sofia Keller. This is the plan.", {"Sofia Keller"}, {"Prepared by Sofia Keller"}),
    # places and scripts whose names hold an "and"; two places joined by "and" are two names
    ("Citizens of the Republic of Trinidad and Tobago may apply (Traditional Chinese: 廉政).",
     {"Republic of Trinidad and Tobago", "Traditional Chinese"}, {"Republic of Trinidad", "Tobago", "Traditional"}),
    ("The Van Dusen families of the United States and Canada descend from him.", {"United States", "Canada"},
     {"United States and Canada"}),
    ("The Consulate General of the United States in Shanghai is one of six.",
     {"Consulate General of the United States", "Shanghai"}, {"Consulate General"}),
    # "and" inside an institution's name after its "of", not before a second name
    ("He graduated from the Newark College of Arts and Sciences at Rutgers.", {"Newark College of Arts and Sciences"},
     {"Newark College of Arts", "Sciences"}),
    ("He studied at the University of Tokyo and Kyoto University.", {"University of Tokyo", "Kyoto University"},
     {"University of Tokyo and Kyoto University"}),
    # a role alone is no entity; the labels of a flattened infobox join no name
    ("In 1992 he was made an Officer of the Order of Canada and later served as Vice President.",
     {"Order of Canada"}, {"Officer", "Vice President"}),
    ("Oshman's Sporting Goods Fate Acquired by Gart Sports Founded 1919 Defunct 2005 Headquarters Houston, Texas",
     {"Gart Sports", "Houston"}, {"Gart Sports Founded", "Defunct", "Headquarters Houston", "Headquarters"}),
    # beside a numbered instance the bare series is no entity; without one it stays
    ("The 2018 Winter Olympics were held in Pyeongchang, the first time South Korea hosted the Winter Olympics "
     "and the second time the Olympic Games were held in the country.",
     {"2018 Winter Olympics", "South Korea"}, {"Winter Olympics", "Olympic Games"}),
    ("Tug of war was contested as a team event in the Summer Olympics from 1900 to 1920.", {"Summer Olympics"},
     set()),
]


@pytest.mark.parametrize("text, present, absent", NAME_BOUNDARY_CASES)
def test_name_boundaries_on_encyclopedic_sentences(ex, text, present, absent):
    r = ex.extract(text)
    assert_spans_valid(text, r)
    names = set(by_name(r))
    assert present <= names, present - names
    assert not names & absent, names & absent


def test_a_lone_given_name_after_the_full_name_is_that_person(ex):
    r = ex.extract("The team hired head coach Brian Harvey in May. Brian's first priority was to sign two players.")
    names = by_name(r)
    assert "Brian" not in names
    assert len(names["Brian Harvey"].mentions) == 2


def test_a_country_short_name_beside_its_full_name_is_that_country(ex):
    names = by_name(ex.extract("The U.S. dollar is the currency of the United States. The UK uses the pound."))
    assert "U.S" not in names and "U.S." not in names
    assert len(names["United States"].mentions) == 2
    assert "UK" in names                                            # no "United Kingdom" in this text to join


def test_a_flattened_infobox_keeps_only_names_with_evidence(ex):
    infobox = ("State song (s): Home on the Range Official language English Demonym Kansan Capital Topeka Largest city "
               "Wichita Largest metro Greater Kansas City Area Ranked 15th Total 82,278 sq mi Width 410 miles Length "
               "213 miles Latitude 37 N to 40 N Longitude 94 W to 102 W Population Ranked 35th Total 2,913,123 Density "
               "35.1 Ranked 40th Median household income 54,865 Elevation Highest point Mount Sunflower")
    names = set(by_name(ex.extract(infobox)))
    assert "Mount Sunflower" in names                               # a place head is evidence
    assert not names & {"English Demonym Kansan Capital Topeka Largest", "Greater Kansas City Area Ranked",
                        "W Population Ranked", "Median", "Elevation Highest"}
    # the same names in prose are kept
    prose = "The capital of Kansas is Topeka, and its largest city is Wichita."
    assert {"Topeka", "Wichita"} <= set(by_name(ex.extract(prose)))
