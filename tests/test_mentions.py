import uuid

import pytest

from session.mentions import bracket_labels, parse_mentions, resolve_mentions, strip_mentions


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("search @team_notes for the roadmap", ["team_notes"]),
        ("@Papers what is HNSW?", ["Papers"]),
        ('look in @"Project Docs" please', ["Project Docs"]),
        ("look in @[Project Docs] please", ["Project Docs"]),
        ("look in @“Project Docs” please", ["Project Docs"]),
        ("查一下@团队笔记 里的周报", ["团队笔记"]),
        ("查一下@团队笔记里的周报", ["团队笔记里的周报"]),  # no separator: CJK runs on
        ("@团队笔记，保存这个", ["团队笔记"]),
        ("问问@论文库。", ["论文库"]),
        ("在@团队笔记！和@论文库？里找", ["团队笔记", "论文库"]),
        ("@papers, @team_notes; @wiki.", ["papers", "team_notes", "wiki"]),
        ("what about @project-docs?", ["project-docs"]),
        ("@ProjectDocs: status", ["ProjectDocs"]),
        ("@papers and @Papers and @papers", ["papers"]),
        ("@b then @a then @b", ["b", "a"]),
        ("mail alice@example.com about it", []),
        ("mail a@b.com and ask @papers", ["papers"]),
        ("(@papers) and [@wiki]", ["papers", "wiki"]),
        ("@papers's abstract", ["papers"]),
        ("@ alone and @@ and trailing @", []),
        ('@"  " is empty', []),
        ("no mentions here", []),
        ("", []),
    ],
)
def test_parse_mentions(text: str, expected: list[str]) -> None:
    assert parse_mentions(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("search @team_notes for the roadmap", "search for the roadmap"),
        ("@Papers what is HNSW?", "what is HNSW?"),
        ('look in @"Project Docs" please', "look in please"),
        ("@团队笔记，保存这个", "保存这个"),
        ("@papers: what is HNSW", "what is HNSW"),
        ("mail a@b.com and ask @papers", "mail a@b.com and ask"),
        ("no mentions here", "no mentions here"),
        ("", ""),
    ],
)
def test_strip_mentions(text: str, expected: str) -> None:
    assert strip_mentions(text) == expected


CORPORA = {
    "project_docs": "id-docs",
    "Project Docs": "id-docs",
    "papers": "id-papers",
    "team_notes": "id-team",
    "Team Notes": "id-team",
    "团队笔记": "id-team",
}


@pytest.mark.parametrize(
    ("mentions", "expected"),
    [
        (["project_docs"], (["id-docs"], [])),
        (["Project Docs"], (["id-docs"], [])),
        (["ProjectDocs"], (["id-docs"], [])),
        (["project-docs"], (["id-docs"], [])),
        (["PROJECT_DOCS"], (["id-docs"], [])),
        (["@papers"], (["id-papers"], [])),
        (["Papers", "papers"], (["id-papers"], [])),
        (["团队笔记", "team_notes", "TeamNotes"], (["id-team"], [])),
        (["wiki"], ([], ["wiki"])),
        (["papers", "wiki", "team-notes", "wiki"], (["id-papers", "id-team"], ["wiki"])),
        ([], ([], [])),
    ],
)
def test_resolve_mentions(mentions: list[str], expected: tuple[list[str], list[str]]) -> None:
    assert resolve_mentions(mentions, CORPORA) == expected


def test_resolve_exact_beats_loose_and_loose_clash_is_unknown() -> None:
    corpora = {"a_b": "one", "a-b": "two", "ab": "three"}
    assert resolve_mentions(["a_b", "A-B", "AB"], corpora) == (["one", "two", "three"], [])
    assert resolve_mentions(["a b"], corpora) == ([], ["a b"])


def test_resolve_keeps_id_type_and_round_trips_parse() -> None:
    docs = uuid.uuid4()
    ids, unknown = resolve_mentions(parse_mentions('ask @"Project Docs" and @nope'), {"project_docs": docs})
    assert ids == [docs] and unknown == ["nope"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("when is the retro? @Team Notes", ["Team Notes"]),
        ("@team  notes and @Research Papers, please", ["team  notes", "Research Papers"]),
        ("@Team Notes Archive first", ["Team Notes Archive"]),  # the longest label wins
        ("@Team Notesy is no label", ["Team"]),
        ("mail a@Team Notes", []),
        ("@team_notes stays a name", ["team_notes"]),
    ],
)
def test_labels_of_several_words_are_one_mention(text: str, expected: list[str]) -> None:
    aliases = ["team_notes", "Team Notes", "Team Notes Archive", "papers", "Research Papers"]
    assert parse_mentions(bracket_labels(text, aliases)) == expected
