"""Print, as JSON, the chunks of a corpus that a chat save wrote (metadata captured_by = the ingest intent)
and that contain a marker: the browser suite's check that approving saved a row and rejecting did not.

python web/e2e/rows.py DSN CORPUS_ID MARKER
"""
from __future__ import annotations

import asyncio
import json
import sys

import asyncpg


async def captured_rows(dsn: str, corpus_id: str, marker: str) -> list[dict]:
    conn = await asyncpg.connect(dsn)
    try:
        rows = await conn.fetch("SELECT content, metadata::text AS metadata FROM knowledge WHERE corpus_id = $1::uuid "
                                "AND strpos(content, $2) > 0", corpus_id, marker)
    finally:
        await conn.close()
    return [{"content": r["content"], "metadata": json.loads(r["metadata"])} for r in rows]


if __name__ == "__main__":
    print(json.dumps(asyncio.run(captured_rows(*sys.argv[1:4]))))
