"""The relation neighbours of one or more corpora's entities as arrays: what the compiled graph growth
(growth_kernel.py) walks, and what a corpus graph snapshot keeps in place of a list of named tuples per entity.

Every entity of the corpora has a row; the neighbours of row ``r`` are ``neighbour_rows[indptr[r]:indptr[r + 1]]``
with their ``weights``, in the order select_entity_neighbours returns them (strongest first). A relation and both
its ends lie in one corpus, so a neighbour's row is in its entity's corpus.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence
from uuid import UUID

import numpy as np

from knowledge.retrieval.planner.entity_graph import Neighbour


@dataclass(frozen=True)
class NeighbourTable:
    entity_ids: np.ndarray             # int64, by row
    rows_by_id: np.ndarray             # int64: the rows in the order of their entity ids (a lookup by binary search)
    corpus_codes: np.ndarray           # int64, by row: the place of its corpus in ``corpora``
    corpora: tuple[UUID, ...]
    names: Sequence[str | None]        # by row: the canonical name, known for every entity that is a neighbour
    indptr: np.ndarray                 # int64, rows + 1
    neighbour_rows: np.ndarray         # int64
    weights: np.ndarray                # float64

    @classmethod
    def of_corpus(cls, corpus_id: UUID, entity_ids: Iterable[int],
                  neighbours: Mapping[int, Sequence[tuple[int, str, float]]]) -> "NeighbourTable":
        """The table of one corpus: its entities, and each one's (neighbour id, neighbour name, weight)."""
        ids = list(dict.fromkeys(entity_ids))
        row_of = {entity_id: row for row, entity_id in enumerate(ids)}
        for found in neighbours.values():  # a neighbour is an entity of the corpus: one not in entity_ids gets a row
            for neighbour_id, _, _ in found:
                if neighbour_id not in row_of:
                    row_of[neighbour_id] = len(ids)
                    ids.append(neighbour_id)
        names: list[str | None] = [None] * len(ids)
        counts = np.zeros(len(ids) + 1, dtype=np.int64)
        rows: list[int] = []
        weights: list[float] = []
        for row, entity_id in enumerate(ids):
            found = neighbours.get(entity_id, ())
            counts[row + 1] = len(found)
            for neighbour_id, name, weight in found:
                neighbour_row = row_of[neighbour_id]
                names[neighbour_row] = name
                rows.append(neighbour_row)
                weights.append(weight)
        entity_array = np.array(ids, dtype=np.int64)
        return cls(entity_ids=entity_array, rows_by_id=np.argsort(entity_array),
                   corpus_codes=np.zeros(len(ids), dtype=np.int64), corpora=(corpus_id,), names=names,
                   indptr=np.cumsum(counts), neighbour_rows=np.array(rows, dtype=np.int64),
                   weights=np.array(weights, dtype=np.float64))

    @classmethod
    def joined(cls, tables: Sequence["NeighbourTable"]) -> "NeighbourTable":
        """One table of several corpora's (each table of one corpus, no corpus twice)."""
        if len(tables) == 1:
            return tables[0]
        offsets = np.cumsum([0] + [len(t.entity_ids) for t in tables])
        edge_offsets = np.cumsum([0] + [len(t.neighbour_rows) for t in tables])
        entity_ids = np.concatenate([t.entity_ids for t in tables])
        return cls(
            entity_ids=entity_ids, rows_by_id=np.argsort(entity_ids),
            corpus_codes=np.concatenate([np.full(len(t.entity_ids), code, dtype=np.int64)
                                         for code, t in enumerate(tables)]),
            corpora=tuple(c for t in tables for c in t.corpora), names=[n for t in tables for n in t.names],
            indptr=np.concatenate([[0]] + [t.indptr[1:] + start for t, start in zip(tables, edge_offsets.tolist())]),
            neighbour_rows=np.concatenate([t.neighbour_rows + offset for t, offset in zip(tables, offsets.tolist())]),
            weights=np.concatenate([t.weights for t in tables]))

    @property
    def size(self) -> int:
        """Neighbour entries held (the snapshot counts one row each)."""
        return len(self.neighbour_rows)

    def rows(self, entity_ids: Sequence[int]) -> np.ndarray | None:
        """The rows of the entities, None when one of them has none."""
        wanted = np.asarray(entity_ids, dtype=np.int64)
        if not len(self.entity_ids):
            return None if len(wanted) else wanted
        at = np.searchsorted(self.entity_ids, wanted, sorter=self.rows_by_id)
        rows = self.rows_by_id[np.minimum(at, len(self.entity_ids) - 1)]
        return rows if np.array_equal(self.entity_ids[rows], wanted) else None

    def neighbours(self, entity_id: int) -> list[Neighbour] | None:
        """The entity's neighbours as select_entity_neighbours reads them, None for an entity not in the table."""
        found = self.rows([entity_id])
        if found is None:
            return None
        row = int(found[0])
        start, end = self.indptr[row], self.indptr[row + 1]
        rows = self.neighbour_rows[start:end]
        return [Neighbour(neighbour_id, self.corpora[code], self.names[at], weight)  # type: ignore[arg-type]
                for neighbour_id, code, at, weight in zip(self.entity_ids[rows].tolist(),
                                                          self.corpus_codes[rows].tolist(), rows.tolist(),
                                                          self.weights[start:end].tolist())]
