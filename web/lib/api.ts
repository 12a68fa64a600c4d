// The same-origin JSON routes the page calls (each proxies the agent server, which answers for the /agent person).
import type { ShownEvidence, EvidenceType } from "./conversation";

export async function getJson<T>(url: string, init?: RequestInit): Promise<T> {
  const response = await fetch(url, init);
  const body = await response.text();
  if (!response.ok) throw new Error(`HTTP ${response.status}: ${body}`);
  return (body ? JSON.parse(body) : undefined) as T;
}

function sendJson<T>(url: string, method: string, payload: unknown): Promise<T> {
  return getJson<T>(url, { method, headers: { "content-type": "application/json" }, body: JSON.stringify(payload) });
}

export interface Thread {
  id: string;
  title: string;
  createdAt: string;
  updatedAt: string;
}

export const listThreads = () => getJson<{ threads: Thread[] }>("/api/threads").then((body) => body.threads);
export const renameThread = (id: string, title: string) =>
  sendJson<Thread>(`/api/threads/${encodeURIComponent(id)}`, "PATCH", { title });
export const deleteThread = (id: string) => getJson<void>(`/api/threads/${encodeURIComponent(id)}`, { method: "DELETE" });

/** Which answer a click or a showing belongs to: the thread and the user message the answer replied to. */
export interface AnswerRef {
  threadId: string;
  turnId: string;
}

export interface Passage {
  chunkId: number;
  content: string;
  highlight: { start: number; end: number } | null;
  corpus: { id: string; name: string; label: string };
  document: { title: string; sourceUri: string };
}

export const openSource = (ref: AnswerRef, chunkId: number, evidenceType: EvidenceType, quote: string) =>
  sendJson<Passage>("/api/sources/open", "POST", { ...ref, chunkId, evidenceType, quote });

export const reportShown = (ref: AnswerRef, items: ShownEvidence[]) =>
  sendJson<void>("/api/sources/shown", "POST", { ...ref, items });
