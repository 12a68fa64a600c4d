import pytest

from agents.action_intent import ActionIntent, classify, should_transfer_to_internalization

R, INGEST, A = ActionIntent.RETRIEVE, ActionIntent.INGEST, ActionIntent.AMBIGUOUS

CASES = [
    # ---- English: retrieve
    ("What is HNSW?", R),
    ("who leads Project Helios", R),
    ("Why did the migration fail last week?", R),
    ("How does Aurora handle replication?", R),
    ("Find the design doc for Lumen", R),
    ("Search @papers for vector quantization", R),
    ("Can you look up the onboarding checklist?", R),
    ("Tell me about the Q3 roadmap", R),
    ("Summarize the meeting notes from Monday", R),
    ("Compare Aurora and Lumen", R),
    ("List all the corpora", R),
    ("Show me what I saved yesterday", R),
    ("What did I save last week?", R),
    ("Do you remember the deadline we agreed on?", R),
    ("Which store sells the cheapest GPUs?", R),
    ("HNSW?", R),
    ("Don't save this, just tell me what it means", R),
    ("Find the notes I asked you to record", R),
    # ---- English: ingest
    ("Save this: the API key rotates every 30 days", INGEST),
    ("Please store these meeting notes in @team_notes", INGEST),
    ("Remember that Alice prefers async standups", INGEST),
    ("Note this down: Helios ships on Friday", INGEST),
    ("Add this to my reading list", INGEST),
    ("Record the following decision: we use Postgres", INGEST),
    ("Keep this for later", INGEST),
    ("File this under architecture", INGEST),
    ("Put this into @papers", INGEST),
    ("Ingest the attached PDF", INGEST),
    ("Upload these slides to the team corpus", INGEST),
    ("Log this incident", INGEST),
    ("save this: why the outage happened", INGEST),
    ("save this: why X happened", INGEST),
    ("Could you save this for me?", INGEST),
    ("@team_notes save this: how we compare vendors", INGEST),
    ("Hi! Remember that the demo is at 3pm.", INGEST),
    # ---- English: ambiguous
    ("hi", A),
    ("Hello there!", A),
    ("thanks", A),
    ("Project Helios uses Postgres.", A),
    ("Don't save this.", A),
    ("Save this and tell me what it means", A),
    ("Find the paper and save it to @papers", A),
    ("What should I save to the team corpus?", A),
    ("", A),
    ("keep going", A),
    # ---- Chinese: retrieve
    ("什么是 HNSW？", R),
    ("谁负责 Helios 项目", R),
    ("为什么上周的迁移失败了", R),
    ("怎么配置 Aurora 的复制？", R),
    ("如何提升检索召回率", R),
    ("哪个团队维护 Lumen", R),
    ("Helios 上线了吗", R),
    ("那 Lumen 呢", R),
    ("查找 Lumen 的设计文档", R),
    ("搜索关于向量量化的论文", R),
    ("检索 @团队笔记 里的周报", R),
    ("告诉我第三季度的路线图", R),
    ("总结一下周一的会议", R),
    ("比较 Aurora 和 Lumen", R),
    ("介绍一下 Project Helios", R),
    ("查找上周的会议记录", R),
    ("我上周保存的文件在哪里？", R),
    ("不要保存，告诉我这是什么意思", R),
    ("你还记得我们定的截止日期吗", R),
    ("存在哪里？", R),
    ("生存下来的物种有哪些", R),
    # ---- Chinese: ingest
    ("保存这段话：API 密钥每 30 天轮换一次", INGEST),
    ("把这篇文章存到团队笔记", INGEST),
    ("存入 @论文库", INGEST),
    ("记住：Alice 喜欢异步站会", INGEST),
    ("记下这个决定，我们用 Postgres", INGEST),
    ("帮我记录一下今天的会议纪要", INGEST),
    ("添加到我的阅读清单", INGEST),
    ("收录这篇论文", INGEST),
    ("请把会议纪要归档到团队笔记", INGEST),
    ("存档这份合同", INGEST),
    ("写入知识库：Helios 周五发布", INGEST),
    ("保存这个：为什么会发生宕机", INGEST),
    ("你能帮我保存一下这个吗？", INGEST),
    ("你好，帮我把这段话记下来", INGEST),
    # ---- Chinese: ambiguous
    ("你好", A),
    ("您好！", A),
    ("谢谢", A),
    ("在吗", A),
    ("这个方案比较好", A),
    ("Helios 使用 Postgres。", A),
    ("不要保存这个", A),
    ("保存这篇文章，然后告诉我它讲了什么", A),
    ("查找这篇论文并保存到论文库", A),
    ("为什么要保存这个文件？", A),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_classify(text: str, expected: ActionIntent) -> None:
    assert classify(text) is expected


def test_table_is_big_and_bilingual() -> None:
    chinese = [t for t, _ in CASES if any("\u4e00" <= ch <= "\u9fff" for ch in t)]
    assert len(CASES) >= 50
    assert len(chinese) >= len(CASES) * 0.4
    assert {e for _, e in CASES} == set(ActionIntent)


def test_values_are_strings() -> None:
    assert ActionIntent.INGEST == "ingest"
    assert ActionIntent("retrieve") is ActionIntent.RETRIEVE


@pytest.mark.parametrize(
    ("hint", "corpus_ids", "expected"),
    [
        (ActionIntent.INGEST, ["c1"], True),
        ("ingest", ("c1", "c2"), True),
        (ActionIntent.INGEST, [], False),
        (ActionIntent.INGEST, None, False),
        (ActionIntent.RETRIEVE, ["c1"], False),
        (ActionIntent.AMBIGUOUS, ["c1"], False),
        (None, ["c1"], False),
    ],
)
def test_should_transfer_to_internalization(hint, corpus_ids, expected) -> None:
    assert should_transfer_to_internalization(hint, corpus_ids) is expected
