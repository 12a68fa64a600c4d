import type { Message } from "@ag-ui/client";
import { describe, expect, it } from "vitest";
import { answerBody, answerSources, buildTurns, CONFIRMATION_TOOL, quoteFor, shownEvidence } from "./conversation";

const bridge = {
  source_corpus_id: "p", source_corpus_label: "Project Docs", target_corpus_id: "r",
  target_corpus_label: "Research Papers", via_entity: "Aurora Vector Engine", hops: 1,
};

function searchResult(): string {
  return JSON.stringify({
    status: "success", mode: "planner", strict_scope: false, bridges: [bridge],
    results: [
      { citation_id: 1, formatted_citation: "[1] “Helios.” (from Corpus: Project Docs)", corpus_label: "Project Docs", evidence_type: "primary" },
      { citation_id: 1, formatted_citation: "[1] “Helios.” (from Corpus: Project Docs)", corpus_label: "Project Docs", evidence_type: "graph_expanded", bridge },
      { citation_id: 2, formatted_citation: "[2] “Aurora.” (from Corpus: Research Papers)", corpus_label: "Research Papers", evidence_type: "graph_expanded", bridge },
      { citation_id: 3, formatted_citation: "[3] “Uncited.” (from Corpus: Project Docs)", corpus_label: "Project Docs", evidence_type: "primary" },
    ],
  });
}

const answer = "Aurora was built by Dr. Lin Wei. [2] Helios uses Aurora. [1]\n\nReferences:\n[1] ...\n\nCross-corpus links:\n- ...";

const messages: Message[] = [
  { id: "u1", role: "user", content: "Who built it? @project_docs @papers" },
  { id: "a1", role: "assistant", toolCalls: [{ id: "c1", type: "function", function: { name: "search_knowledge_base", arguments: '{"query":"Who built it?"}' } }] },
  { id: "t1", role: "tool", toolCallId: "c1", content: searchResult() },
  { id: "a2", role: "assistant", content: answer },
  { id: "u2", role: "user", content: "save this to @team_notes: retro on Friday" },
  { id: "a3", role: "assistant", toolCalls: [{ id: "c2", type: "function", function: { name: CONFIRMATION_TOOL,
    arguments: JSON.stringify({ originalFunctionCall: { name: "ingest_to_corpus", args: { text: "retro on Friday", corpus_id: "t" } } }) } }] },
];

describe("buildTurns", () => {
  it("groups messages into turns with their tool runs and results", () => {
    const turns = buildTurns(messages);
    expect(turns.map((t) => t.userText)).toEqual(["Who built it? @project_docs @papers", "save this to @team_notes: retro on Friday"]);
    expect(turns[0].tools.map((t) => [t.name, t.answered])).toEqual([["search_knowledge_base", true]]);
    expect(turns[0].texts).toEqual([answer]);
  });

  it("turns the agent's tool confirmation into a pending approval, then records the answer", () => {
    expect(buildTurns(messages)[1].approval).toEqual({ toolCallId: "c2", tool: "ingest_to_corpus", args: { text: "retro on Friday", corpus_id: "t" }, textsBefore: 0 });
    const answered = buildTurns([...messages, { id: "t2", role: "tool", toolCallId: "c2", content: '{"confirmed": false}' }]);
    expect(answered[1].approval?.decision).toBe(false);
  });
});

describe("answerSources", () => {
  it("keeps cited primary references and evidence only a bridge brought in, with its path", () => {
    const sources = answerSources(buildTurns(messages)[0]);
    expect(sources.tool).toBe("search_knowledge_base");
    expect(sources.mode).toBe("planner");
    expect(sources.references.map((r) => r.citationId)).toEqual([1]);
    expect(sources.bridged.map((r) => [r.citationId, r.bridge?.via_entity])).toEqual([[2, "Aurora Vector Engine"]]);
    expect(sources.bridges).toEqual([bridge]);
  });

  it("shows the prose without the text sections the data replaces", () => {
    const turn = buildTurns(messages)[0];
    expect(answerBody(answer, answerSources(turn))).toBe("Aurora was built by Dr. Lin Wei. [2] Helios uses Aurora. [1]");
  });

  it("has no sources for a turn without a search", () => {
    expect(answerSources(buildTurns(messages)[1])).toEqual({ references: [], bridged: [], bridges: [], searched: [] });
  });
});

describe("the source view's data", () => {

  it("quotes the sentence a citation closes, past abbreviations and other citations", () => {
    expect(quoteFor(answer, 2)).toBe("Aurora was built by Dr. Lin Wei.");
    expect(quoteFor(answer, 1)).toBe("Helios uses Aurora.");
    expect(quoteFor("First point. J. Smith wrote it [3] and more.", 3)).toBe("J. Smith wrote it");
    expect(quoteFor("项目依赖奥罗拉引擎。它由林伟开发。[1]", 1)).toBe("它由林伟开发。");
    expect(quoteFor(answer, 9)).toBe("");
  });

  it("lists what an answer showed, with chunk ids and evidence types, and what it searched", () => {
    const result = JSON.parse(searchResult());
    result.results = result.results.map((r: Record<string, unknown>, i: number) => ({ ...r, chunk_id: 10 + i }));
    result.corpora = ["Project Docs", "Research Papers"];
    const turn = buildTurns([messages[0], messages[1], { ...messages[2], content: JSON.stringify(result) } as Message, messages[3]])[0];
    const sources = answerSources(turn);
    expect(shownEvidence(sources)).toEqual([{ chunkId: 10, evidenceType: "primary" }, { chunkId: 12, evidenceType: "graph_expanded" }]);
    expect(sources.searched).toEqual(["Project Docs", "Research Papers"]);
  });

  it("has nothing to show for evidence stored without chunk ids", () => {
    expect(shownEvidence(answerSources(buildTurns(messages)[0]))).toEqual([]);
  });
});
