// The chat view as a function of the AG-UI message list (the same list the HttpAgent sends, and the one
// /agents/state returns after a reload): turns, the tools each turn ran with their structured results,
// references and bridged evidence, and the pending approval of a save.
import type { Message } from "@ag-ui/client";

export const CONFIRMATION_TOOL = "adk_request_confirmation";
export const SEARCH_TOOLS = ["search_knowledge_base", "search_knowledge_graph_global", "search_knowledge_graph_with_papers"];

export interface Bridge {
  source_corpus_id: string;
  source_corpus_label: string;
  target_corpus_id: string;
  target_corpus_label: string;
  via_entity: string;
  hops: number;
}

export type EvidenceType = "primary" | "graph_expanded";

export interface Evidence {
  citationId: number;
  chunkId?: number; // what the source view opens (answers stored before it existed have none)
  evidenceType: EvidenceType;
  citation: string;
  corpusLabel: string;
  title: string;
  bridge?: Bridge;
}

export interface ToolRun {
  id: string;
  name: string;
  args: Record<string, unknown>;
  result?: Record<string, unknown>;
  answered: boolean;
}

export interface Approval {
  toolCallId: string;
  tool: string; // the gated tool (ingest_to_corpus)
  args: Record<string, unknown>; // its arguments: text, corpus_id
  decision?: boolean; // the person's answer, once given
  textsBefore: number; // how many of the turn's texts came before the request (the rest answer it)
}

export interface Turn {
  id: string;
  userText: string;
  texts: string[];
  tools: ToolRun[];
  approval?: Approval;
}

function parseJson(text: string | undefined): Record<string, unknown> | undefined {
  if (!text) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content.map((part) => (part && typeof part === "object" && "text" in part ? String(part.text) : "")).join("");
  }
  return "";
}

/** Group the message list into turns, one per user message (tool answers stay in the turn that asked). */
export function buildTurns(messages: readonly Message[]): Turn[] {
  const turns: Turn[] = [];
  const runs = new Map<string, ToolRun>();
  for (const message of messages) {
    if (message.role === "user") {
      turns.push({ id: message.id, userText: textOf(message.content), texts: [], tools: [] });
      continue;
    }
    const turn = turns[turns.length - 1];
    if (!turn) continue;
    if (message.role === "assistant") {
      const text = textOf(message.content);
      if (text.trim()) turn.texts.push(text);
      for (const call of message.toolCalls ?? []) {
        const run: ToolRun = { id: call.id, name: call.function.name, args: parseJson(call.function.arguments) ?? {}, answered: false };
        runs.set(call.id, run);
        turn.tools.push(run);
        if (run.name === CONFIRMATION_TOOL) {
          const original = (run.args.originalFunctionCall ?? {}) as { name?: string; args?: Record<string, unknown> };
          turn.approval = { toolCallId: call.id, tool: String(original.name ?? ""), args: original.args ?? {},
            textsBefore: turn.texts.length };
        }
      }
    } else if (message.role === "tool") {
      const run = runs.get(message.toolCallId);
      if (!run) continue;
      run.answered = true;
      run.result = parseJson(textOf(message.content));
      if (turn.approval?.toolCallId === run.id) turn.approval.decision = run.result?.confirmed === true;
    }
  }
  return turns;
}

export interface AnswerSources {
  tool?: string;
  searchId?: string; // the search's tool call id: the same live and after a reload, so it names the answer
  mode?: string;
  fallbackReason?: string;
  strictScope?: boolean;
  references: Evidence[]; // primary evidence the answer cites
  bridged: Evidence[]; // evidence only a cross-corpus bridge brought in
  bridges: Bridge[];
  searched: string[]; // the corpora (or, when the router chose, the libraries) the search covered
}

function evidenceOf(item: Record<string, unknown>, fallbackNumber: number): Evidence {
  return {
    citationId: Number(item.citation_id ?? fallbackNumber),
    chunkId: typeof item.chunk_id === "number" ? item.chunk_id : undefined,
    evidenceType: item.evidence_type === "graph_expanded" ? "graph_expanded" : "primary",
    citation: String(item.formatted_citation ?? ""),
    corpusLabel: String(item.corpus_label ?? ""),
    title: String(item.title ?? item.source_uri ?? ""),
    bridge: item.bridge && typeof item.bridge === "object" ? (item.bridge as Bridge) : undefined,
  };
}

function citedNumbers(texts: string[]): Set<number> {
  return new Set([...texts.join("\n").matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1])));
}

function uniqueByCitation(items: Evidence[]): Evidence[] {
  const seen = new Set<number>();
  return items.filter((item) => !seen.has(item.citationId) && seen.add(item.citationId)).sort((a, b) => a.citationId - b.citationId);
}

/** The structured sources of a turn's answer: from the last search tool result the turn received. */
export function answerSources(turn: Turn): AnswerSources {
  const run = [...turn.tools].reverse().find((t) => SEARCH_TOOLS.includes(t.name) && t.result);
  if (!run?.result) return { references: [], bridged: [], bridges: [], searched: [] };
  const result = run.result;
  const listKey = run.name === "search_knowledge_graph_global" ? "evidence" : run.name === "search_knowledge_graph_with_papers" ? "papers" : "results";
  const items = (Array.isArray(result[listKey]) ? result[listKey] : []) as Record<string, unknown>[];
  const all = items.map((item, index) => ({ item, evidence: evidenceOf(item, index + 1) }));
  const cited = citedNumbers(turn.texts);
  const used = cited.size && all.some(({ evidence }) => cited.has(evidence.citationId))
    ? all.filter(({ evidence }) => cited.has(evidence.citationId))
    : all;
  const expanded = ({ evidence }: { evidence: Evidence }) => evidence.evidenceType === "graph_expanded";
  const references = uniqueByCitation(used.filter((u) => !expanded(u)).map((u) => u.evidence));
  const primary = new Set(references.map((r) => r.citationId));
  return {
    tool: run.name,
    searchId: run.id,
    mode: typeof result.mode === "string" ? result.mode : undefined,
    fallbackReason: typeof result.fallback_reason === "string" ? result.fallback_reason : undefined,
    strictScope: typeof result.strict_scope === "boolean" ? result.strict_scope : undefined,
    references,
    // a source that also gave primary evidence did not come "only through a bridge"
    bridged: uniqueByCitation(used.filter(expanded).map((u) => u.evidence)).filter((e) => !primary.has(e.citationId)),
    bridges: (Array.isArray(result.bridges) ? result.bridges : []) as Bridge[],
    searched: searchedScope(result),
  };
}

function searchedScope(result: Record<string, unknown>): string[] {
  if (Array.isArray(result.corpora)) return result.corpora.map(String);
  if (Array.isArray(result.routed_libraries)) {
    return result.routed_libraries.map((library) => String((library as { name?: unknown }).name ?? ""));
  }
  return [];
}

// where a sentence ends: a citation mark, a line break, or closing punctuation before a space that does not end
// an abbreviation or an initial ("Dr. Lin Wei", "J. Smith")
const SENTENCE_END = /\]|\n|[.!?。！？](?=\s)|[。！？]/g;
const ABBREVIATION = /(?:^|[\s(])(?:\p{Lu}|Dr|Mr|Mrs|Ms|Prof|Inc|Ltd|Co|St|Jr|Sr|vs|etc|e\.g|i\.e)$/u;

/** The sentence of ``text`` that the citation mark starting at ``markStart`` closes, without its marks. */
export function citingSentence(text: string, markStart: number): string {
  const before = text.slice(0, markStart).replace(/(?:\s*\[\d+\])+\s*$/, "").trimEnd();
  const body = before.replace(/[.!?。！？]$/, "");
  let start = 0;
  for (const end of body.matchAll(SENTENCE_END)) {
    if (end[0] === "." && ABBREVIATION.test(body.slice(0, end.index))) continue;
    start = end.index + 1;
  }
  return before.slice(start).trim();
}

/** The first sentence of the answer that cites ``citationId`` ("" when the prose never cites it). */
export function quoteFor(text: string, citationId: number): string {
  const mark = text.indexOf(`[${citationId}]`);
  return mark < 0 ? "" : citingSentence(text, mark);
}

export interface ShownEvidence {
  chunkId: number;
  evidenceType: EvidenceType;
}

/** The evidence an answer shows (what the click-through counts as shown). */
export function shownEvidence(sources: AnswerSources): ShownEvidence[] {
  return [...sources.references, ...sources.bridged]
    .filter((e): e is Evidence & { chunkId: number } => e.chunkId !== undefined)
    .map((e) => ({ chunkId: e.chunkId, evidenceType: e.evidenceType }));
}

const TEXT_SECTIONS = /\n\s*\n(?:References:|Cross-corpus links:)[\s\S]*$/;

/** The answer's prose: the text sections a model appends (references, links) are shown from data instead. */
export function answerBody(text: string, sources: AnswerSources): string {
  return sources.references.length || sources.bridged.length ? text.replace(TEXT_SECTIONS, "").trimEnd() : text;
}
