"""The enterprise question family: questions over the demo corpora (not Wikipedia), scored by ``bench multihop``
beside the two multi-hop dev sets.

Every document of the questions file's corpora is one passage (a papers.jsonl record is one passage, referred
to as ``papers/papers.jsonl#<title>``); a question's gold is the list of documents that state its answer.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from bench.multihop_data import (REPO_ROOT, DatasetFormatError, MissingDataError, MultiHopDataset, Passage, Question,
                                 passage_key)

ENTERPRISE_QUESTIONS = REPO_ROOT / "bench" / "data" / "enterprise" / "questions.json"
DEMO_CORPORA = REPO_ROOT / "demo" / "corpora"

DOCUMENT_SUFFIXES = (".md", ".txt")


def _records(path: Path, folder: Path) -> list[tuple[str, Passage]]:
    """(reference, passage) of every record of a JSON-lines file of {title, text} records."""
    out = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            title, text = record["title"], record["text"]
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise DatasetFormatError(f"{path}:{number}: not a {{title, text}} record ({exc})") from exc
        out.append((f"{path.relative_to(folder).as_posix()}#{title}", Passage(passage_key(title, text), title, text)))
    return out


def corpus_passages(folder: Path, corpora: list[str]) -> dict[str, Passage]:
    """Reference -> passage for every document of the named corpora under ``folder``."""
    passages: dict[str, Passage] = {}
    for corpus in corpora:
        root = folder / corpus
        if not root.is_dir():
            raise MissingDataError(f"no corpus folder {root} (named in the questions file's 'corpora')")
        for path in sorted(p for p in root.rglob("*") if p.is_file()):
            if path.suffix == ".jsonl":
                passages.update(_records(path, folder))
            elif path.suffix in DOCUMENT_SUFFIXES:
                reference = path.relative_to(folder).as_posix()
                text = path.read_text(encoding="utf-8")
                passages[reference] = Passage(passage_key(reference, text), reference, text)
    return passages


def load_enterprise(questions_path: Path, folder: Path, name: str) -> MultiHopDataset:
    """A questions file of {id, question, answer, gold: [references]} with its 'corpora' under ``folder``; a gold
    reference that names no document is an error naming the question."""
    if not questions_path.is_file():
        raise MissingDataError(f"no such dataset file: {questions_path}")
    try:
        data = json.loads(questions_path.read_text(encoding="utf-8"))
        corpora, items = list(data["corpora"]), list(data["questions"])
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise DatasetFormatError(f"{questions_path}: not an enterprise questions file ({exc})") from exc
    passages = corpus_passages(folder, corpora)
    questions = []
    for item in items:
        unknown = [ref for ref in item["gold"] if ref not in passages]
        if unknown or not item["gold"]:
            raise DatasetFormatError(f"{questions_path}: question {item['id']!r} has gold references that name no "
                                     f"document of {', '.join(corpora)}: {unknown or 'none given'}")
        questions.append(Question(str(item["id"]), item["question"], str(item.get("answer", "")),
                                  tuple(passages[ref].key for ref in item["gold"]), kind=str(item.get("kind", ""))))
    return MultiHopDataset(name, list(passages.values()), questions)


@dataclass(frozen=True)
class EnterpriseSource:
    """The enterprise questions and the folder of their corpora, as ``bench multihop`` reads a dataset source."""

    questions: Path = ENTERPRISE_QUESTIONS
    corpus: Path = DEMO_CORPORA
    name: str = "enterprise-questions"

    def load(self) -> MultiHopDataset:
        return load_enterprise(self.questions, self.corpus, self.name)
