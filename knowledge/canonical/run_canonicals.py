"""Canonicals one link run creates, kept in memory until the run writes them in one statement.

Each gets a provisional negative id; ``resolve`` maps it to the row id once written. ``nearest`` searches
them by their founder's embedding (a canonical's centroid until the run's upkeep refreshes it), for runs
over several corpora, where an entity of one corpus can join a canonical another corpus founded in the same
run; with one corpus every canonical the run creates has a member there and is never a candidate.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from knowledge.db.queries import canonical as q


@dataclass
class _Pending:
    name: str
    name_normalized: str
    canonical_type: str
    embedding: np.ndarray | None
    degree: int


class RunCanonicals:
    def __init__(self) -> None:
        self._pending: list[_Pending] = []
        self._ids: dict[int, int] = {}
        self._vectors: dict[str, list[tuple[int, np.ndarray]]] = {}  # type -> (provisional id, unit vector)
        self._matrices: dict[str, np.ndarray] = {}

    def add(self, name: str, name_normalized: str, canonical_type: str, embedding: np.ndarray | None,
            degree: int) -> int:
        self._pending.append(_Pending(name, name_normalized, canonical_type, embedding, degree))
        provisional = -len(self._pending)
        if embedding is not None:
            norm = float(np.linalg.norm(embedding))
            if norm > 0:
                self._vectors.setdefault(canonical_type, []).append((provisional, embedding / norm))
                self._matrices.pop(canonical_type, None)
        return provisional

    def retype(self, provisional: int, canonical_type: str) -> None:
        pending = self._pending[-provisional - 1]
        old = pending.canonical_type
        pending.canonical_type = canonical_type
        moved = [item for item in self._vectors.get(old, []) if item[0] == provisional]
        self._vectors[old] = [item for item in self._vectors.get(old, []) if item[0] != provisional]
        self._vectors.setdefault(canonical_type, []).extend(moved)
        self._matrices.pop(old, None)
        self._matrices.pop(canonical_type, None)

    def key(self, provisional: int) -> tuple[str, str]:
        pending = self._pending[-provisional - 1]
        return pending.name_normalized, pending.canonical_type

    def nearest(self, canonical_type: str, embedding: np.ndarray, excluded: set[int]) -> q.Nearest | None:
        items = self._vectors.get(canonical_type)
        if not items:
            return None
        matrix = self._matrices.get(canonical_type)
        if matrix is None:
            matrix = self._matrices[canonical_type] = np.stack([v for _, v in items])
        similarities = matrix @ (embedding / max(float(np.linalg.norm(embedding)), 1e-12))
        best = int(np.argmax(similarities))
        if items[best][0] not in excluded:
            return q.Nearest(items[best][0], float(similarities[best]), self.key(items[best][0]))
        for index in np.argsort(-similarities, kind="stable"):
            provisional = items[index][0]
            if provisional not in excluded:
                return q.Nearest(provisional, float(similarities[index]), self.key(provisional))
        return None

    async def write(self, conn, app_scope: str) -> None:
        rows = [q.NewCanonical(p.name, p.name_normalized, p.canonical_type, p.embedding, p.degree)
                for p in self._pending]
        ids = await q.insert_canonicals(conn, app_scope, rows)
        self._ids = {-(i + 1): ids[(p.name_normalized, p.canonical_type)] for i, p in enumerate(self._pending)}

    def resolve(self, canonical_id: int) -> int:
        """The row id of a canonical (provisional ids only after ``write``)."""
        return self._ids[canonical_id] if canonical_id < 0 else canonical_id
