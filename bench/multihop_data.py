"""Load multi-hop retrieval datasets: MuSiQue-style ({title, text} corpus + questions with paragraphs)
or HotpotQA-style (questions with ``context`` and ``supporting_facts``), and the two dev sets of ../shared/data."""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]


def _shared_data() -> Path:
    """``shared/data`` beside the checkout, or beside a folder above it (a git worktree under ../wt/<branch>)."""
    for folder in REPO_ROOT.parents:
        if (folder / "shared" / "data").is_dir():
            return folder / "shared" / "data"
    return REPO_ROOT.parent / "shared" / "data"


SHARED_DATA = _shared_data()
MUSIQUE_DIR = SHARED_DATA / "musique"
PAIRED_CORPUS = "corpus.json"  # a corpus file beside a questions file is the one they are searched in by default


class MissingDataError(FileNotFoundError):
    """A dataset file the bench needs is not there; the message says what to pass instead."""


class DatasetFormatError(ValueError):
    """A dataset file that is neither MuSiQue nor HotpotQA format, or not JSON."""


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
    kind: str = ""  # as the dataset marks it (HotpotQA: bridge / comparison), "" when it does not


@dataclass
class MultiHopDataset:
    name: str
    passages: list[Passage]
    questions: list[Question]


@dataclass(frozen=True)
class DatasetSource:
    """A questions file and the corpus its questions are searched in (None: the questions' own paragraphs)."""

    questions: Path
    corpus: Path | None = None

    @property
    def name(self) -> str:
        """Named after the questions file (its folder and stem), and after the corpus when it is not the one the
        folder pairs the questions with (the corpus.json beside them, else their own paragraphs), so two sets
        never share a results file: the MuSiQue questions over their own paragraphs are not the dev set."""
        name = f"{self.questions.parent.name}-{self.questions.stem}"
        paired = self.questions.parent / PAIRED_CORPUS
        if self.corpus is None:
            return f"{name}-own-paragraphs" if paired.is_file() else name
        if self.corpus.resolve() == paired.resolve():
            return name
        return f"{name}-over-{self.corpus.parent.name}-{self.corpus.stem}"

    def load(self) -> "MultiHopDataset":
        return load_dataset(self.questions, self.corpus, self.name)


def dev_sets(data: Path | None = None) -> list[DatasetSource]:
    """The two dev sets under ``data`` (default SHARED_DATA): MuSiQue (50 questions over its 1,890-passage corpus)
    and HotpotQA (50 questions over their own contexts)."""
    data = SHARED_DATA if data is None else data
    sets = [DatasetSource(data / "musique" / "questions_dev.json", data / "musique" / PAIRED_CORPUS),
            DatasetSource(data / "hotpotqa" / "questions_dev.json")]
    missing = [p for s in sets for p in (s.questions, s.corpus) if p is not None and not p.is_file()]
    if missing:
        raise MissingDataError(
            f"the multi-hop dev sets are read from {data} (a 'shared' folder beside the checkout or above it), and "
            f"{', '.join(str(p) for p in missing)} is missing. Pass a questions file in MuSiQue or HotpotQA "
            "format instead: --questions FILE [--corpus FILE]")
    return sets


def dev_sets_by_name(data: Path | None = None) -> dict[str, DatasetSource]:
    """``dev_sets`` by their short names, "musique" and "hotpotqa"."""
    return {source.name.split("-")[0]: source for source in dev_sets(data)}


def passage_key(title: str, text: str) -> str:
    return hashlib.sha1(f"{title.strip()}\n{' '.join(text.split())}".encode()).hexdigest()[:16]


def corpus_index(title: str, corpus_count: int) -> int:
    """Deterministic split by a hash of the title."""
    return int(hashlib.sha1(title.strip().encode()).hexdigest(), 16) % corpus_count


def _read_json(path: Path) -> list:
    if not path.is_file():
        raise MissingDataError(f"no such dataset file: {path}")
    raw = path.read_text(encoding="utf-8")
    try:
        if path.suffix == ".jsonl":
            return [json.loads(line) for line in raw.splitlines() if line.strip()]
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise DatasetFormatError(f"{path} is not valid JSON: {exc}") from exc
    if isinstance(data, dict):
        data = data.get("data") or data.get("questions") or list(data.values())
    return data


def _musique_question(item: dict) -> tuple[Question, list[Passage]]:
    passages = [Passage(passage_key(p["title"], p["paragraph_text"]), p["title"], p["paragraph_text"])
                for p in item["paragraphs"]]
    gold = tuple(p.key for p, raw in zip(passages, item["paragraphs"]) if raw.get("is_supporting"))
    aliases = tuple(str(a) for a in item.get("answer_aliases") or ())
    return Question(str(item["id"]), item["question"], str(item.get("answer", "")), gold, aliases=aliases), passages


def _hotpot_question(item: dict) -> tuple[Question, list[Passage]]:
    passages = [Passage(passage_key(title, " ".join(sentences)), title, " ".join(sentences))
                for title, sentences in item["context"]]
    supporting_titles = {title for title, _ in item["supporting_facts"]}
    gold = tuple(p.key for p in passages if p.title in supporting_titles)
    return Question(str(item.get("_id") or item.get("id")), item["question"], str(item.get("answer", "")), gold,
                    kind=str(item.get("type", ""))), passages


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
            raise DatasetFormatError(f"{questions_path}: question {item.get('id')!r} is neither MuSiQue (paragraphs) "
                                     "nor HotpotQA (context + supporting_facts) format")
        for passage in own:
            if corpus_path is None or passage.key in question.gold_keys:
                passages.setdefault(passage.key, passage)
        if question.gold_keys:
            questions.append(question)
    return MultiHopDataset(name or questions_path.parent.name, list(passages.values()), questions)
