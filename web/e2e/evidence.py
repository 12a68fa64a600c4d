"""Read what the browser suite checks in the database, as JSON: a corpus's first chunk id (a chunk to forge a
request with), the newest audit rows of the web channel, and the evidence views of a thread.

python web/e2e/evidence.py chunk DSN CORPUS_ID | audit DSN PERSON | views DSN THREAD_ID
"""
from __future__ import annotations

import asyncio
import json
import sys

import asyncpg

QUERIES = {
    "chunk": "SELECT min(id) AS id FROM knowledge WHERE corpus_id = $1::uuid",
    "audit": "SELECT tool, decision, reason FROM gateway_audit WHERE channel = 'web' AND person_id = $1 ORDER BY id DESC "
             "LIMIT 5",
    "views": "SELECT chunk_id, evidence_type, opened_at IS NOT NULL AS opened FROM evidence_view WHERE thread_id = $1 "
             "ORDER BY id",
}


async def query(kind: str, dsn: str, argument: str) -> list[dict]:
    conn = await asyncpg.connect(dsn)
    try:
        return [dict(r) for r in await conn.fetch(QUERIES[kind], argument)]
    finally:
        await conn.close()


if __name__ == "__main__":
    print(json.dumps(asyncio.run(query(*sys.argv[1:4]))))
