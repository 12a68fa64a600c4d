"""The seeds the graph chain needs, guessed from the corpus graph snapshots while the database computes them.

The graph chain (seed entities, bridges, expansion) reads the seeds only as the first ``walk_seed_chunks`` chunk
ids of each corpus, in rank order: the seed entities come from those chunks, and every later stage of the chain
reads the seed entities. A snapshot holds the embeddings of its corpus's chunks, so the nearest ones can be found in
memory (a few hundred vectors a corpus on the dev sets) while the seed query scans the table. When the database's
seeds begin with the guessed chunks, the chain computed from the guess is the chain the database's seeds give, and
the planner keeps it; otherwise (a chunk written since the snapshot was read, a near tie that float rounding orders
the other way) it runs the chain again from the database's seeds. The guess decides nothing on its own: what a
search returns is always what the database's seeds give.

The scan in memory grows with the corpora while an HNSW seed query does not, so past MAX_GUESSED_CHUNKS chunks (a
millisecond or two of scanning, about what the seed query takes on corpora of that size) the planner does not
guess, and the chain runs after the seeds.
"""
from __future__ import annotations

from typing import Mapping, Sequence
from uuid import UUID

import numpy as np

from knowledge.retrieval.planner.context import SeedHit
from knowledge.retrieval.planner.graph_reads import GraphReads

MAX_GUESSED_CHUNKS = 5_000  # over the searched corpora


class SeedGuess:
    def __init__(self, reads: GraphReads, walk_seed_chunks: int) -> None:
        self.reads = reads
        self.count = walk_seed_chunks

    def guess(self, effective: Sequence[UUID], embedding: np.ndarray) -> dict[UUID, list[SeedHit]] | None:
        """The first ``walk_seed_chunks`` seeds of every corpus as the snapshots see them (score 0: only the ranks are
        read), or None when a corpus has no snapshot or the corpora hold too many chunks to scan."""
        graphs = self.reads.snapshots_of(effective)
        if graphs is None or sum(len(graph.chunks.chunks) for graph in graphs) > MAX_GUESSED_CHUNKS:
            return None
        by_corpus = {graph.corpus_id: graph for graph in graphs}
        return {corpus_id: [SeedHit(chunk.id, corpus_id, rank, 0.0, chunk.source_uri) for rank, chunk in
                            enumerate(by_corpus[corpus_id].chunks.nearest(embedding, self.count), start=1)]
                for corpus_id in effective}

    def confirmed(self, guessed: Mapping[UUID, Sequence[SeedHit]], seeds: Mapping[UUID, Sequence[SeedHit]]) -> bool:
        """Whether the graph chain reads the same of both: each corpus's first ``walk_seed_chunks`` chunks."""
        return self._read(guessed) == self._read(seeds)

    def _read(self, seeds: Mapping[UUID, Sequence[SeedHit]]) -> list[tuple[UUID, list[int]]]:
        return [(corpus_id, [s.chunk_id for s in hits[:self.count]]) for corpus_id, hits in seeds.items()]
