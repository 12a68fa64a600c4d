"""Corpus registry: create, list and resolve corpora of one app."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence
from uuid import UUID

import asyncpg

from knowledge.db.database import Database
from knowledge.db.queries import corpora as q

_NAME_RE = re.compile(r"^[\w][\w\-]{0,62}$", re.UNICODE)


class UnknownCorpusError(LookupError):
    """A corpus name that does not resolve. ``reader`` set: among the corpora that person can read, so a corpus
    that exists but is forbidden reads exactly like one that does not exist (and only readable names are listed)."""

    def __init__(self, names: list[str], known: list[str], reader: str | None = None) -> None:
        self.names = names
        self.known = known
        listed = ", ".join(known) or "none yet"
        missing = ", ".join(repr(n) for n in names)
        if reader is None:
            message = f"unknown corpus {missing}; known corpora: {listed}"
        else:
            message = f"no corpus {missing} that {reader} can read; corpora {reader} can read: {listed}"
        super().__init__(message)


@dataclass(frozen=True)
class Corpus:
    id: UUID
    app_name: str
    name: str
    label: str
    description: str = ""
    chunk_count: int = 0

    @classmethod
    def from_record(cls, row: asyncpg.Record) -> "Corpus":
        return cls(id=row["id"], app_name=row["app_name"], name=row["name"], label=row["label"],
                   description=row["description"], chunk_count=row.get("chunk_count", 0) or 0)


def validate_corpus_name(name: str) -> str:
    name = name.strip()
    if not _NAME_RE.match(name):
        raise ValueError(
            f"invalid corpus name {name!r}: use 1-63 letters, digits, '_' or '-' (no spaces); put spaces in the label"
        )
    return name


def default_label(name: str) -> str:
    return " ".join(part.capitalize() for part in re.split(r"[_\-]+", name) if part) or name


def resolve_names(corpora: Sequence[Corpus], names: Sequence[str], reader: str | None = None) -> list[Corpus]:
    """``names`` (corpus names or labels, case-insensitive) among ``corpora``; UnknownCorpusError names every miss
    and lists only ``corpora`` (``reader``: whose readable corpora they are)."""
    index: dict[str, Corpus] = {}
    for corpus in corpora:
        index[corpus.name.casefold()] = corpus
        index.setdefault(corpus.label.casefold(), corpus)
    found, missing = [], []
    for name in names:
        corpus = index.get(name.strip().casefold())
        if corpus is None:
            missing.append(name)
        elif corpus not in found:
            found.append(corpus)
    if missing:
        raise UnknownCorpusError(missing, sorted(c.name for c in corpora), reader)
    return found


class CorpusRegistry:
    def __init__(self, db: Database, app_name: str | None = None) -> None:
        self.db = db
        self.app_name = app_name or db.settings.app_name

    async def create(self, name: str, label: str | None = None, description: str = "") -> Corpus:
        """Create a corpus, or return the existing one of that name."""
        name = validate_corpus_name(name)
        async with self.db.connection() as conn:
            row = await q.insert_corpus(conn, self.app_name, name, label or default_label(name), description,
                                        self.db.settings.embedding_model)
            if row is None:
                row = await q.select_corpus_by_name(conn, self.app_name, name)
        return Corpus.from_record(row)

    async def list(self) -> list[Corpus]:
        async with self.db.connection() as conn:
            return [Corpus.from_record(r) for r in await q.select_corpora(conn, self.app_name)]

    async def get(self, name: str) -> Corpus:
        return (await self.resolve([name]))[0]

    async def resolve(self, names: list[str]) -> list[Corpus]:
        """Corpora by name or label (case-insensitive); UnknownCorpusError names every miss."""
        return resolve_names(await self.list(), names)

    async def by_ids(self, ids: list[UUID]) -> list[Corpus]:
        async with self.db.connection() as conn:
            rows = await q.select_corpora_by_ids(conn, ids)
        return [Corpus.from_record(r) for r in rows if r["app_name"] == self.app_name]


class KnownCorpora:
    """Corpora by id, each read once: the application never renames a corpus (its row changes only in
    ``updated_at``, which Corpus does not carry), so a corpus once found stays as found; one deleted since
    (`negentropy corpus delete`) stays found but holds no rows, and no permission view lists it any more. Ids not
    found are asked again every time, so a corpus another process creates is seen at once."""

    def __init__(self, db: Database) -> None:
        self.registry = CorpusRegistry(db)
        self._found: dict[UUID, Corpus] = {}

    async def by_ids(self, ids: Sequence[UUID]) -> dict[UUID, Corpus]:
        missing = [i for i in ids if i not in self._found]
        if missing:
            self._found.update((c.id, c) for c in await self.registry.by_ids(missing))
        return {i: self._found[i] for i in ids if i in self._found}
