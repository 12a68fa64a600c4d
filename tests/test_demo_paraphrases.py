"""The demo's multi-hop questions asked in other words (demo/queries.json, three paraphrases per case) on the real
demo database: the bridged document (reached only through the bridge entity) is in the planner's top 5, whatever
the wording. `negentropy bench paraphrases` reports the same share next to dense search."""
import pytest

from bench.paraphrases import TOP, bridged_rank, demo_cases


@pytest.mark.parametrize("case", [pytest.param(c, id=c.question[:60]) for c in demo_cases()])
async def test_bridged_evidence_is_in_the_top_5_of_every_wording(demo_app, case):
    kapp, corpora = demo_app
    rank = await bridged_rank(kapp, corpora, case, "planner")
    assert rank is not None and rank <= TOP, f"{case.bridged_corpus}/{case.bridged_uri} not in the top {TOP}"


def test_every_case_has_three_paraphrases_and_its_question():
    cases = demo_cases()
    assert len(cases) == 12 and sum(c.paraphrase for c in cases) == 9
