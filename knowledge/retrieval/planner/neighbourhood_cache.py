"""LRU cache of per-entity graph neighbourhoods (relation neighbours, canonical bridges); cleared on ingest.

Entries are keyed by the corpus scope they were read under, so a neighbourhood read for one permission set
is never served to another.
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Awaitable, Callable, Hashable, Sequence, TypeVar
from uuid import UUID

T = TypeVar("T")
Loader = Callable[[list[int]], Awaitable[dict[int, list[T]]]]


class NeighbourhoodCache:
    def __init__(self, capacity: int) -> None:
        if capacity < 0:
            raise ValueError(f"cache capacity must be >= 0, got {capacity}")
        self.capacity = capacity
        self._entries: OrderedDict[Hashable, list] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        self._entries.clear()

    async def get_or_load(self, kind: str, entity_ids: Sequence[int], scope: Sequence[UUID], variant: Hashable,
                          load: Loader) -> dict[int, list[T]]:
        """Neighbourhood of each entity; ``load`` reads the missing ones (entities it omits have none)."""
        scope_key = frozenset(scope)
        found: dict[int, list[T]] = {}
        missing: list[int] = []
        for entity_id in dict.fromkeys(entity_ids):
            key = (kind, entity_id, scope_key, variant)
            if key in self._entries:
                self._entries.move_to_end(key)
                found[entity_id] = self._entries[key]
                self.hits += 1
            else:
                missing.append(entity_id)
        if missing:
            self.misses += len(missing)
            loaded = await load(missing)
            for entity_id in missing:
                value = loaded.get(entity_id, [])
                found[entity_id] = value
                self._store((kind, entity_id, scope_key, variant), value)
        return found

    def _store(self, key: Hashable, value: list) -> None:
        if self.capacity == 0:
            return
        self._entries[key] = value
        self._entries.move_to_end(key)
        while len(self._entries) > self.capacity:
            self._entries.popitem(last=False)
