"use client";
// The chat page: an AG-UI HttpAgent on the same-origin /api/agent route, the thread kept across reloads
// (its id in localStorage, its messages from the server's stored session), readable errors.
import { HttpAgent, type Message } from "@ag-ui/client";
import * as Tooltip from "@radix-ui/react-tooltip";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { buildTurns, type Approval } from "@/lib/conversation";
import { STRINGS, type Language } from "@/lib/i18n";
import { resolveMentions, type CorpusOption } from "@/lib/mentions";
import { readableError } from "@/lib/errors";
import { Composer } from "./Composer";
import type { AgentOption } from "./MentionPopover";
import { TurnView } from "./TurnView";

const THREAD_KEY = "negentropy.thread";
const STRICT_KEY = "negentropy.strictScope";
const LANGUAGE_KEY = "negentropy.language";

function newId(): string {
  return crypto.randomUUID();
}

async function getJson<T>(url: string, init?: RequestInit): Promise<T> {
  const response = await fetch(url, init);
  const body = await response.text();
  if (!response.ok) throw new Error(`HTTP ${response.status}: ${body}`);
  return JSON.parse(body) as T;
}

export function Chat() {
  const [language, setLanguage] = useState<Language>("en");
  const t = STRINGS[language];
  const [messages, setMessages] = useState<Message[]>([]);
  const [running, setRunning] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [corpora, setCorpora] = useState<CorpusOption[]>([]);
  const [corporaError, setCorporaError] = useState<string | null>(null);
  const [agents, setAgents] = useState<AgentOption[]>([]);
  const [strictScope, setStrictScope] = useState(false);
  const [ready, setReady] = useState(false);
  const agentRef = useRef<HttpAgent | null>(null);
  const bottom = useRef<HTMLDivElement>(null);

  const openThread = useCallback(async (threadId: string) => {
    const agent = new HttpAgent({ url: "/api/agent", threadId });
    agentRef.current = agent;
    setMessages([]);
    setError(null);
    try {
      const stored = await getJson<{ threadExists?: boolean; messages?: Message[] }>("/api/state", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ threadId }),
      });
      if (stored.threadExists && stored.messages?.length) {
        agent.setMessages(stored.messages);
        setMessages([...agent.messages]);
      }
    } catch (err) {
      setError(readableError(err));
    }
  }, []);

  useEffect(() => {
    const saved = localStorage.getItem(LANGUAGE_KEY) as Language | null;
    setLanguage(saved === "zh" || saved === "en" ? saved : navigator.language.startsWith("zh") ? "zh" : "en");
    setStrictScope(localStorage.getItem(STRICT_KEY) === "true");
    let threadId = localStorage.getItem(THREAD_KEY);
    if (!threadId) {
      threadId = newId();
      localStorage.setItem(THREAD_KEY, threadId);
    }
    openThread(threadId).finally(() => setReady(true));
    getJson<{ corpora: CorpusOption[] }>("/api/corpora")
      .then((body) => setCorpora(body.corpora))
      .catch((err) => setCorporaError(readableError(err)));
    getJson<{ agents: AgentOption[] }>("/api/agents")
      .then((body) => setAgents(body.agents))
      .catch(() => setAgents([]));
  }, [openThread]);

  useEffect(() => {
    bottom.current?.scrollIntoView({ block: "end" });
  }, [messages, error]);

  async function run(forwardedProps: Record<string, unknown>) {
    const agent = agentRef.current;
    if (!agent) return;
    setRunning(true);
    setError(null);
    let reported: string | null = null;
    try {
      await agent.runAgent(
        { runId: newId(), tools: [], context: [], forwardedProps },
        {
          onMessagesChanged: ({ messages: next }) => setMessages([...next]),
          onRunErrorEvent: ({ event }) => {
            reported = `${t.runError}: ${event.message}${event.code ? ` (${event.code})` : ""}`;
            setError(reported);
          },
        },
      );
    } catch (err) {
      setError(reported ?? `${t.requestError}: ${readableError(err)}`);
    } finally {
      setMessages([...agent.messages]);
      setRunning(false);
    }
  }

  function send(text: string) {
    const agent = agentRef.current;
    if (!agent) return;
    agent.addMessage({ id: newId(), role: "user", content: text });
    setMessages([...agent.messages]);
    const { corpusIds } = resolveMentions(text, corpora);
    // a message without mentions sends no ids: the agent keeps the previous corpora
    run({ strict_scope: strictScope, ...(corpusIds.length ? { corpus_ids: corpusIds } : {}) });
  }

  function decide(approval: Approval, approved: boolean) {
    const agent = agentRef.current;
    if (!agent) return;
    agent.addMessage({ id: newId(), role: "tool", toolCallId: approval.toolCallId, content: JSON.stringify({ confirmed: approved }) });
    setMessages([...agent.messages]);
    run({ strict_scope: strictScope });
  }

  function newChat() {
    agentRef.current?.abortRun();
    const threadId = newId();
    localStorage.setItem(THREAD_KEY, threadId);
    openThread(threadId);
  }

  function chooseLanguage(next: Language) {
    setLanguage(next);
    localStorage.setItem(LANGUAGE_KEY, next);
  }

  function chooseStrict(next: boolean) {
    setStrictScope(next);
    localStorage.setItem(STRICT_KEY, String(next));
  }

  const turns = useMemo(() => buildTurns(messages), [messages]);

  return (
    <Tooltip.Provider>
      <div className="page" data-ready={ready ? "true" : "false"} data-running={running ? "true" : "false"} data-testid="page">
        <header className="header">
          <div>
            <h1>{t.title}</h1>
            <p className="muted">{t.subtitle}</p>
          </div>
          <div className="header-actions">
            <div className="language" role="group" aria-label="language">
              <button type="button" className={language === "en" ? "active" : ""} onClick={() => chooseLanguage("en")}>EN</button>
              <button type="button" className={language === "zh" ? "active" : ""} onClick={() => chooseLanguage("zh")}>中文</button>
            </div>
            <button type="button" className="secondary" onClick={newChat} data-testid="new-chat">{t.newChat}</button>
          </div>
        </header>
        <main className="conversation" data-testid="conversation">
          {turns.length === 0 && !error ? <p className="muted empty">{t.empty}</p> : null}
          {turns.map((turn, index) => (
            <TurnView key={turn.id} turn={turn} corpora={corpora} isLast={index === turns.length - 1} running={running}
              error={index === turns.length - 1 ? error : null} onDecide={decide} t={t} />
          ))}
          {turns.length === 0 && error ? <div className="error" role="alert" data-testid="error">{error}</div> : null}
          <div ref={bottom} />
        </main>
        <Composer corpora={corpora} corporaError={corporaError} agents={agents} running={running} strictScope={strictScope}
          onStrictScope={chooseStrict} onSend={send} onStop={() => agentRef.current?.abortRun()} t={t} />
      </div>
    </Tooltip.Provider>
  );
}
