import pytest

from knowledge.retrieval.query_intent import QueryKind, classify_query, is_global_summary, needs_graph_expansion

F, REL, MH, CMP, GS = (
    QueryKind.FACT,
    QueryKind.RELATION,
    QueryKind.MULTI_HOP,
    QueryKind.COMPARISON,
    QueryKind.GLOBAL_SUMMARY,
)

CASES = [
    # ---- fact
    ("What is HNSW?", F),
    ("What is the core algorithm of HNSW?", F),
    ("When was Project Helios released?", F),
    ("How many shards does Aurora run with?", F),
    ("What port does the metrics server listen on?", F),
    ("Define product quantization", F),
    ("What is the name of the default embedding model?", F),
    ("什么是 HNSW？", F),
    ("Helios 什么时候发布的？", F),
    ("Aurora 有多少个分片", F),
    ("Alice 的联系方式是什么", F),
    # ---- relation
    ("How is Aurora related to Lumen?", REL),
    ("What is the relationship between Helios and Aurora?", REL),
    ("Is there a link between the outage and the config change?", REL),
    ("Who developed HNSW?", REL),
    ("Who maintains the Lumen SDK?", REL),
    ("Which libraries does Helios depend on?", REL),
    ("What projects use Postgres?", REL),
    ("Which database does Helios use?", REL),
    ("Is Lumen part of Project Aurora?", REL),
    ("Who is the author of the Aurora design doc?", REL),
    ("How does Helios connect to the billing service?", REL),
    ("Helios 和 Aurora 是什么关系？", REL),
    ("Lumen 和哪些项目有关联", REL),
    ("Helios 依赖哪些库", REL),
    ("Lumen 属于哪个团队", REL),
    ("HNSW 是谁开发的", REL),
    ("这两个事件之间有什么联系", REL),
    ("HNSW 论文的作者是谁", REL),
    # ---- multi-hop
    ("Which university trained the author of the engine that Project Helios depends on?", MH),
    ("Where was the founder of Acme born?", MH),
    ("When did the creator of Lumen graduate?", MH),
    ("Who maintains the library that Helios uses?", MH),
    ("What is the license of the database that Aurora is built on?", MH),
    ("Which team owns the service that powers the search engine Lumen uses?", MH),
    ("Who wrote the paper that introduced the index that Lumen uses?", MH),
    ("What is Helios's lead's home office?", MH),
    ("开发 Helios 的团队的负责人是谁？", MH),
    ("Helios 依赖的引擎的作者毕业于哪所大学？", MH),
    ("使用 Postgres 的项目的负责人是谁", MH),
    ("Lumen 的作者的导师是谁", MH),
    ("谁开发了 Helios 所依赖的引擎", MH),
    ("Which company owns the labeling vendor the Atlas team picked?", MH),
    ("The Atlas team chose a data labeling vendor. Who is that vendor's parent company?", MH),
    ("Project Helios relies on a system for its nearest neighbour queries; which researcher is its creator?", MH),
    ("The multilingual entity resolution paper's lead author is based in which city?", MH),
    ("Who acquired the annotation vendor selected by the Atlas project team?", MH),
    # ---- comparison
    ("Compare Aurora and Lumen", CMP),
    ("Aurora vs Lumen for low-latency search", CMP),
    ("Helios versus Aurora: which scales better?", CMP),
    ("What is the difference between HNSW and IVF?", CMP),
    ("Is Postgres better than MySQL for our workload?", CMP),
    ("How does Lumen differ from Aurora?", CMP),
    ("Which is faster, HNSW or IVF?", CMP),
    ("Compare the founders of the companies that built Aurora and Lumen", CMP),
    ("比较 Aurora 和 Lumen 的区别", CMP),
    ("Helios 和 Aurora 有什么不同？", CMP),
    ("对比一下 HNSW 与 IVF", CMP),
    ("与 MySQL 相比，Postgres 的优势在哪里", CMP),
    ("HNSW 和 IVF 的差异", CMP),
    # ---- global summary
    ("What are the main themes across our projects?", GS),
    ("Give me an overview of all corpora", GS),
    ("What's the big picture here?", GS),
    ("Summarize everything we know about retrieval", GS),
    ("What are the core topics in @papers?", GS),
    ("Overall, how are our projects doing?", GS),
    ("Compare the main themes of Aurora and Lumen", GS),
    ("这些文档的主题是什么？", GS),
    ("给我一个项目概览", GS),
    ("团队笔记的总体情况", GS),
    ("我们项目的核心是什么", GS),
    ("整体来看这些论文讲了什么", GS),
    ("最近的工作概况", GS),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_classify_query(text: str, expected: QueryKind) -> None:
    assert classify_query(text) is expected


def test_table_coverage() -> None:
    assert len(CASES) >= 40
    assert {k for _, k in CASES} == set(QueryKind)
    assert sum(any("\u4e00" <= ch <= "\u9fff" for ch in t) for t, _ in CASES) >= 20


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("What are the main themes across our projects?", True),
        ("summarize everything", True),
        ("主题有哪些", True),
        ("What is HNSW?", False),
        ("Who are the core developers of Lumen?", False),
        ("核心开发者是谁", False),
        ("", False),
    ],
)
def test_is_global_summary(text: str, expected: bool) -> None:
    assert is_global_summary(text) is expected


@pytest.mark.parametrize(
    ("kind", "count", "expected"),
    [
        (QueryKind.RELATION, 2, True),
        (QueryKind.MULTI_HOP, 3, True),
        (QueryKind.COMPARISON, 2, True),
        ("multi_hop", 2, True),
        (QueryKind.RELATION, 1, False),
        (QueryKind.MULTI_HOP, 0, False),
        (QueryKind.FACT, 5, False),
        (QueryKind.GLOBAL_SUMMARY, 5, False),
        ("bogus", 5, False),
    ],
)
def test_needs_graph_expansion(kind, count: int, expected: bool) -> None:
    assert needs_graph_expansion(kind, count) is expected


def test_values() -> None:
    assert [k.value for k in QueryKind] == ["fact", "relation", "multi_hop", "comparison", "global_summary"]


@pytest.mark.parametrize("question", [
    "What is the name of the waterfall in the country where the Bubye River is found?",
    "What county shares a border with the county in which Johnnycake, West Virginia is located?",
    "What kind of plane dropped the bomb on Akinoshu Kenji's birthplace?",
    "What currency predated the Euro in the country Signmark is from?",
    "Of what church is the Diocese of the birthplace of Meehan Bonnar?",
    "In which country is Midway, in the same county as McRae in the same state as KAGH-FM?",
    "Which larger company owns the labeling vendor that the Atlas team picked?",
    "In which city is the lead author of the multilingual entity resolution paper based?",
])
def test_nested_descriptions_are_multi_hop(question):
    assert classify_query(question) is QueryKind.MULTI_HOP


@pytest.mark.parametrize(("question", "expected"), [
    # HotpotQA-style comparisons (not the dev set's wording)
    ("Are Aurora and Lumen both vector databases?", CMP),
    ("Were Kestrel Labs and Cobalt Systems both founded in Berlin?", CMP),
    ("Which city is larger, Berlin or Lisbon?", CMP),
    ("Which was released first, Helios or Aurora?", CMP),
    ("Who was born earlier, Maria Santos or Lin Wei?", CMP),
    ("What is more popular, tea or coffee?", CMP),
    ("Lin Wei has a PhD. Does Maria Santos also have one?", CMP),
    ("Quill and Aurora are both systems built in which decade?", CMP),
    # a choice inside a plain question is not a comparison
    ("Which film or series did Karel Vostrik direct?", F),
    ("Who is the author of Quill?", REL),
    ("What is the capital of the country where the Bubye River is found?", MH),
])
def test_comparison_questions(question: str, expected: QueryKind) -> None:
    assert classify_query(question) is expected
