"""IEEE citations: a title that ends in its own mark gets no second one (issue 45: "Maria Santos!.")."""
from __future__ import annotations

from uuid import uuid4

from knowledge.retrieval.citations import assign_citations
from knowledge.retrieval.results import SearchHit


def _hit(title: str, uri: str, **meta: object) -> SearchHit:
    return SearchHit(1, uuid4(), "team_notes", "Team Notes", "text", uri, {"title": title, **meta}, 1.0)


def test_a_title_keeps_its_own_closing_mark_and_others_get_ieee_punctuation():
    hits = assign_citations([_hit("Welcome aboard, Maria Santos!", "a.md"), _hit("Atlas weekly", "b.md"),
                             _hit("Does chunking matter?", "c.md", venue="SIGIR", year=2024)])
    assert [h.formatted_citation for h in hits] == [
        "[1] \u201cWelcome aboard, Maria Santos!\u201d (from Corpus: Team Notes)",
        "[2] \u201cAtlas weekly.\u201d (from Corpus: Team Notes)",
        "[3] \u201cDoes chunking matter?\u201d SIGIR, 2024. (from Corpus: Team Notes)",
    ]
