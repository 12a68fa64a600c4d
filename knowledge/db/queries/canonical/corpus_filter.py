"""Permission layer 2: the corpus filter every alias, review and bridge query requires."""
from __future__ import annotations

from typing import Iterable
from uuid import UUID

from knowledge.corpus_ids import parse_corpus_id


def require_corpus_filter(corpus_ids: Iterable[object] | None) -> list[UUID]:
    """The corpus filter as UUIDs; PermissionError when absent or without one valid id.

    Malformed ids are dropped (they can match no row); a filter of nothing but malformed ids is refused.
    """
    if corpus_ids is None or isinstance(corpus_ids, (str, bytes)):
        raise PermissionError("canonical-layer queries need a corpus filter (a list of corpus ids)")
    parsed = list(dict.fromkeys(i for i in (parse_corpus_id(c) for c in corpus_ids) if i is not None))
    if not parsed:
        raise PermissionError("canonical-layer queries need a non-empty corpus filter of valid corpus ids")
    return parsed
