"""`negentropy search` in-process: opens the app (database, embedding model, planner) for one search."""
from __future__ import annotations

from cli.common import open_app, run_async
from cli.context import person_errors, print_search_explain
from cli.search_output import print_report


@run_async
@person_errors
async def search_in_process(query: str, corpus: list[str], limit: int, as_: str | None, explain: bool, wide: bool,
                            strict_scope: bool) -> None:
    async with await open_app() as kapp:
        result = await kapp.router.search(query, person_id=as_, corpus_names=corpus, limit=limit,
                                          strict_scope=strict_scope)
    if explain:
        print_search_explain(result, wide=wide)
    print_report(result.report())
