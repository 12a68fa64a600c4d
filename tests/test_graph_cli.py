"""`negentropy graph build / show / communities` against a real database (NE_DATABASE_URL)."""
import asyncio

from typer.testing import CliRunner

from cli.main import app
from config.settings import reset_settings_cache
from knowledge.app import KnowledgeApp
from knowledge.ingest.documents import documents_from_texts
from tests.conftest import make_settings

TEXTS = [
    ("helios.md", "Project Helios depends on the Aurora Vector Engine. Kestrel Labs developed Lumen Gateway."),
    ("people.md", "Maria Santos works at Kestrel Labs in Berlin. Open AI and Kestrel Labs signed a contract."),
    ("deal.md", "Kestrel Labs acquired Tidepool Analytics in May 2024. OpenAI Inc. supplies the models."),
    ("openai.md", "OpenAI released a model. OpenAI is based in San Francisco."),
]


async def test_graph_commands_build_show_and_list(new_database, embedder, tmp_path, monkeypatch):
    dsn = await new_database("cli")
    async with await KnowledgeApp.open(make_settings(tmp_path), dsn=dsn, embedder=embedder, progress=False) as kapp:
        corpus = await kapp.corpora.create("notes")
        await kapp.ingest_documents(corpus, documents_from_texts(TEXTS))
    monkeypatch.setenv("NE_DATABASE_URL", dsn)
    monkeypatch.setenv("COLUMNS", "200")
    reset_settings_cache()
    runner = CliRunner()

    def run(*args: str):
        return runner.invoke(app, list(args), catch_exceptions=False)

    try:
        built = await asyncio.to_thread(run, "graph", "build", "--corpus", "notes")
        assert built.exit_code == 0, built.output
        assert "notes" in built.output and "4 chunks" in built.output and "communities" in built.output
        async with await KnowledgeApp.open(make_settings(tmp_path), dsn=dsn, embedder=embedder,
                                           progress=False) as kapp:
            async with kapp.db.connection() as conn:
                unlinked = await conn.fetchval(
                    """SELECT count(*) FROM kg_entity e WHERE e.corpus_id = $1 AND NOT EXISTS
                       (SELECT 1 FROM kg_entity_alias a WHERE a.local_entity_id = e.id)""", corpus.id)
                entities = await conn.fetchval("SELECT count(*) FROM kg_entity WHERE corpus_id = $1", corpus.id)
        assert entities > 5 and unlinked == 0  # the rebuilt entities are linked into the canonical layer again

        shown = await asyncio.to_thread(run, "graph", "show", "Open AI", "--corpus", "notes")
        assert shown.exit_code == 0, shown.output
        assert shown.output.count("(ORG) in Notes") == 1 and "OpenAI (ORG) in Notes" in shown.output
        assert "aliases: Open AI, OpenAI, OpenAI Inc." in shown.output
        assert "mentions: 4" in shown.output and "community (level 0)" in shown.output
        assert "Kestrel Labs" in shown.output  # a relation

        listed = await asyncio.to_thread(run, "graph", "communities", "--corpus", "notes")
        assert listed.exit_code == 0, listed.output
        assert "Kestrel Labs" in listed.output and "level" in listed.output

        missing = await asyncio.to_thread(run, "graph", "show", "Nobody Atall")
        assert missing.exit_code == 1 and "no entity named 'Nobody Atall'" in missing.output
        unknown = await asyncio.to_thread(run, "graph", "communities", "--corpus", "nope")
        assert unknown.exit_code == 1 and "unknown corpus" in unknown.output
    finally:
        reset_settings_cache()
