from config import ApprovalPolicy, Settings


def test_nested_env_settings(monkeypatch):
    monkeypatch.setenv("NE_KNOWLEDGE_FEATURE_FLAGS__ENABLE_CROSS_CORPUS_KG", "false")
    monkeypatch.setenv("NE_PLANNER__GRAPH_MAX_DEPTH", "1")
    monkeypatch.setenv("NE_APPROVAL_POLICY", "never")
    monkeypatch.setenv("NE_MODEL", "openai/gpt-4o-mini")
    settings = Settings()
    assert settings.knowledge_feature_flags.enable_cross_corpus_kg is False
    assert settings.planner.graph_max_depth == 1
    assert settings.approval_policy is ApprovalPolicy.never
    assert settings.model == "openai/gpt-4o-mini"


def test_design_defaults(monkeypatch):
    for key in list(__import__("os").environ):
        if key.startswith("NE_"):
            monkeypatch.delenv(key)
    settings = Settings(_env_file=None)
    assert settings.knowledge_feature_flags.enable_cross_corpus_kg is True
    planner = settings.planner
    assert (planner.per_corpus_limit, planner.pool_cap, planner.graph_max_depth, planner.graph_neighbors_per_hop,
            planner.rrf_k, planner.timeout_seconds) == (20, 100, 2, 100, 60, 12.0)
    linker = settings.linker
    assert (linker.auto_embedding_threshold, linker.review_threshold, linker.canonical_hub_degree_threshold) == (
        0.88, 0.75, 1000)
    assert settings.embedding_dimension == 384


def test_env_example_lists_every_setting_with_its_default(monkeypatch):
    from pathlib import Path

    from config.env_example import render_env_example

    for key in list(__import__("os").environ):
        if key.startswith("NE_"):
            monkeypatch.delenv(key)
    shipped = (Path(__file__).resolve().parents[1] / ".env.example").read_text(encoding="utf-8")
    assert shipped == render_env_example(), "regenerate with: python -m config.env_example"
    assert "NE_KNOWLEDGE_FEATURE_FLAGS__ENABLE_CROSS_CORPUS_KG=true" in shipped
