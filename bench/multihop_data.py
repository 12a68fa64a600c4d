"""Load multi-hop retrieval datasets: MuSiQue-style ({title, text} corpus + questions with paragraphs)
or HotpotQA-style (questions with ``context`` and ``supporting_facts``)."""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Passage:
    key: str
    title: str
    text: str


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    answer: str
    gold_keys: tuple[str, ...]
    aliases: tuple[str, ...] = ()


@dataclass
class MultiHopDataset:
    name: str
    passages: list[Passage]
    questions: list[Question]


def passage_key(title: str, text: str) -> str:
    return hashlib.sha1(f"{title.strip()}\n{' '.join(text.split())}".encode()).hexdigest()[:16]


def corpus_index(title: str, corpus_count: int) -> int:
    """Deterministic split by a hash of the title."""
    return int(hashlib.sha1(title.strip().encode()).hexdigest(), 16) % corpus_count


def _read_json(path: Path) -> list:
    raw = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in raw.splitlines() if line.strip()]
    data = json.loads(raw)
    if isinstance(data, dict):
        data = data.get("data") or data.get("questions") or list(data.values())
    return data


def _musique_question(item: dict) -> tuple[Question, list[Passage]]:
    passages = [Passage(passage_key(p["title"], p["paragraph_text"]), p["title"], p["paragraph_text"])
                for p in item["paragraphs"]]
    gold = tuple(p.key for p, raw in zip(passages, item["paragraphs"]) if raw.get("is_supporting"))
    aliases = tuple(str(a) for a in item.get("answer_aliases") or ())
    return Question(str(item["id"]), item["question"], str(item.get("answer", "")), gold, aliases), passages


def _hotpot_question(item: dict) -> tuple[Question, list[Passage]]:
    passages = [Passage(passage_key(title, " ".join(sentences)), title, " ".join(sentences))
                for title, sentences in item["context"]]
    supporting_titles = {title for title, _ in item["supporting_facts"]}
    gold = tuple(p.key for p in passages if p.title in supporting_titles)
    return Question(str(item.get("_id") or item.get("id")), item["question"], str(item.get("answer", "")), gold), passages


def load_dataset(questions_path: Path, corpus_path: Path | None = None, name: str | None = None) -> MultiHopDataset:
    """Questions file in MuSiQue or HotpotQA format; corpus file of {title, text} (default: the questions' own
    paragraphs). Gold passages missing from the corpus are added to it so recall is well defined."""
    items = _read_json(questions_path)
    passages: dict[str, Passage] = {}
    if corpus_path is not None:
        for record in _read_json(corpus_path):
            passage = Passage(passage_key(record["title"], record["text"]), record["title"], record["text"])
            passages.setdefault(passage.key, passage)
    questions: list[Question] = []
    for item in items:
        if "paragraphs" in item:
            question, own = _musique_question(item)
        elif "context" in item and "supporting_facts" in item:
            question, own = _hotpot_question(item)
        else:
            raise ValueError(f"question {item.get('id')!r} is neither MuSiQue (paragraphs) nor HotpotQA "
                             "(context + supporting_facts) format")
        for passage in own:
            if corpus_path is None or passage.key in question.gold_keys:
                passages.setdefault(passage.key, passage)
        if question.gold_keys:
            questions.append(question)
    return MultiHopDataset(name or questions_path.parent.name, list(passages.values()), questions)
