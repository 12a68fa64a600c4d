"""``negentropy demo``: build the bundled demo corpora and run the sample queries."""
from __future__ import annotations

from cli.console import console
from cli.printing import print_ingest_report, print_response
from cli.search_output import print_hits
from demo.build import build_demo_corpora, load_demo_queries
from knowledge.app import KnowledgeApp


async def run_demo(kapp: KnowledgeApp) -> None:
    from knowledge.retrieval.query_intent import is_global_summary

    console.rule("[bold]Negentropy demo: ingest (chunks, embeddings, knowledge graph, canonical links)")
    corpora = await build_demo_corpora(kapp, print_ingest_report)
    accessible = [c.id for c in corpora.values()]
    queries = load_demo_queries()
    for item in queries["demo_queries"]:
        names = item.get("corpora") or list(corpora)
        ids = [corpora[n].id for n in names]
        console.rule(f"[bold]{item['query']}[/]  [dim]({', '.join('@' + n for n in names)})")
        if is_global_summary(item["query"]):
            result = await kapp.search_graph_global(item["query"], ids, accessible, limit=3)
            for community in result.communities:
                console.print(f"[bold]{community.title}[/] ({community.corpus_label}, {community.member_count} "
                              f"entities): {community.summary[:240]}")
            print_hits(result.evidence[:5])
            continue
        print_response(await kapp.retrieval.search(item["query"], ids, accessible, limit=5))
    console.rule("[bold]Cross-corpus multi-hop: legacy search vs HybridPlanner")
    for case in queries["multi_hop_cases"]:
        ids = [corpora[n].id for n in case["corpora"]]
        legacy = await kapp.legacy_search(case["question"], ids, accessible, limit=5)
        planner = await kapp.retrieval.search(case["question"], ids, accessible, limit=5)
        found = lambda hits: any(case["expected_phrase"] in h.content for h in hits)  # noqa: E731
        console.rule(f"[bold]{case['question']}[/]")
        console.print(f"bridge entity: {case['bridge_entity']}; legacy top-5 finds the bridged evidence: "
                      f"{found(legacy)}; planner top-5 finds it: {found(planner.hits)}")
        print_response(planner)
    stats = await kapp.canonical.stats()
    console.rule("[bold]Canonical entity layer")
    console.print(f"{stats.canonicals} canonical entities, {stats.cross_corpus_canonicals} spanning several corpora; "
                  f"links by method {stats.links}; bridges {stats.bridges}; pending reviews {stats.pending_reviews}")
    console.rule("[bold]Chat in a browser")
    console.print("`negentropy web --user sofia` starts the agent and the web app and prints the URL to open "
                  "(type @ in the composer to pick corpora).")
