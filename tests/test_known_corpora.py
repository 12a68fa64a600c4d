"""The planner's corpus lookup (knowledge/corpora.py KnownCorpora): a corpus found once is served from memory, an
id not found is asked again, so a corpus created meanwhile, by this process or another, is found at once."""
from uuid import uuid4

from knowledge.corpora import CorpusRegistry, KnownCorpora
from knowledge.db.database import Database


async def test_a_found_corpus_is_served_from_memory_and_a_missing_id_is_asked_again(kapp):
    alpha = await kapp.corpora.create("alpha", "Alpha Notes")
    later = uuid4()
    known = KnownCorpora(kapp.db)
    assert await known.by_ids([alpha.id, later]) == {alpha.id: alpha}
    async with kapp.db.connection() as conn:  # created behind the registry's back, as another process would
        await conn.execute("INSERT INTO corpus (id, app_name, name, label) VALUES ($1, $2, 'later', 'Later')",
                           later, kapp.settings.app_name)
    found = await known.by_ids([later, alpha.id])
    assert list(found) == [later, alpha.id] and found[later].label == "Later"
    gone = await Database.connect(kapp.settings, dsn=kapp.db.dsn, migrate=False, max_size=1)
    await gone.close()
    known.registry = CorpusRegistry(gone)  # both are known now: no database needed
    assert await known.by_ids([alpha.id, later]) == {alpha.id: alpha, later: found[later]}


async def test_a_corpus_of_another_app_is_not_found(kapp):
    async with kapp.db.connection() as conn:
        other = await conn.fetchval("INSERT INTO corpus (app_name, name, label) VALUES ('other-app', 'x', 'X') "
                                    "RETURNING id")
    assert await KnownCorpora(kapp.db).by_ids([other]) == {}
