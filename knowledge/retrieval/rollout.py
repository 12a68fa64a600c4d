"""Which retrieval path a search takes under the rollout flags: the planner or the legacy search, per person.

A person's place in the rollout is a stable hash of their id, so raising ``planner_percent`` only ever moves people
from legacy to the planner, and the same person gets the same path in every process and after every restart.
"""
from __future__ import annotations

import hashlib
from typing import Literal

from config.settings import FeatureFlags

RolloutPath = Literal["planner", "legacy"]
_BUCKETS = 10_000


def rollout_bucket(person_id: str | None) -> float:
    """The person's place in [0, 100): the first 8 bytes of sha256(id) (no id: the empty one)."""
    digest = hashlib.sha256((person_id or "").encode("utf-8")).digest()
    return (int.from_bytes(digest[:8], "big") % _BUCKETS) * 100.0 / _BUCKETS


def rollout_path(flags: FeatureFlags, app_name: str, person_id: str | None) -> RolloutPath:
    if not flags.enable_cross_corpus_kg:
        return "legacy"
    if flags.planner_apps and app_name not in flags.planner_apps:
        return "legacy"
    return "planner" if rollout_bucket(person_id) < flags.planner_percent else "legacy"
