"use client";
// The chat page: an AG-UI HttpAgent on the same-origin /api/agent route, the person's threads (their messages
// from the server's stored sessions; the open one's id in localStorage), the source view, readable errors.
import { HttpAgent, type Message } from "@ag-ui/client";
import * as Tooltip from "@radix-ui/react-tooltip";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { deleteThread, getJson, listThreads, openSource, renameThread, reportShown, type Thread } from "@/lib/api";
import { answerBody, answerSources, buildTurns, shownEvidence, type Approval, type Evidence, type Turn } from "@/lib/conversation";
import { STRINGS, type Language } from "@/lib/i18n";
import { normalizeMentions, resolveMentions, type CorpusOption } from "@/lib/mentions";
import { readableError } from "@/lib/errors";
import { appliedTheme, storedTheme, THEME_KEY, type ThemeChoice } from "@/lib/theme";
import { Composer } from "./Composer";
import type { AgentOption } from "./MentionPopover";
import { SourceView, type OpenedSource } from "./SourceView";
import { ThemeSwitch } from "./ThemeSwitch";
import { ThreadList } from "./ThreadList";
import { TurnView } from "./TurnView";

const THREAD_KEY = "negentropy.thread";
const STRICT_KEY = "negentropy.strictScope";
const LANGUAGE_KEY = "negentropy.language";
const DARK_QUERY = "(prefers-color-scheme: dark)";

function newId(): string {
  return crypto.randomUUID();
}

/** What a screen reader hears when a run ends: the last answer's prose. */
function lastAnswer(turns: Turn[]): string {
  const turn = turns[turns.length - 1];
  return turn ? answerBody(turn.texts.join("\n\n"), answerSources(turn)) : "";
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
  const [threadId, setThreadId] = useState<string | null>(null);
  const [threads, setThreads] = useState<Thread[]>([]);
  const [threadsError, setThreadsError] = useState<string | null>(null);
  const [stopped, setStopped] = useState<Set<string>>(new Set());
  const [source, setSource] = useState<OpenedSource | null>(null);
  const [announcement, setAnnouncement] = useState("");
  const [theme, setTheme] = useState<ThemeChoice>("system");
  const [systemDark, setSystemDark] = useState(false);
  const agentRef = useRef<HttpAgent | null>(null);
  const stopping = useRef(false);
  const reported = useRef(new Set<string>());
  const conversation = useRef<HTMLElement>(null);
  const [draft, setDraft] = useState<{ text: string } | null>(null); // a stopped question, back in the composer

  const refreshThreads = useCallback(() => {
    listThreads()
      .then((list) => { setThreads(list); setThreadsError(null); })
      .catch((err) => setThreadsError(readableError(err)));
  }, []);

  /** Tell the server which evidence the thread's answers showed (once per answer; the server ignores repeats). */
  const reportAnswers = useCallback((thread: string, turns: Turn[]) => {
    for (const turn of turns) {
      const sources = answerSources(turn);
      const items = shownEvidence(sources);
      const key = `${thread}/${sources.searchId}`;
      if (!sources.searchId || !items.length || reported.current.has(key)) continue;
      reported.current.add(key);
      reportShown({ threadId: thread, turnId: sources.searchId }, items).catch(() => reported.current.delete(key));
    }
  }, []);

  const openThread = useCallback(async (id: string) => {
    agentRef.current?.abortRun();
    const agent = new HttpAgent({ url: "/api/agent", threadId: id });
    agentRef.current = agent;
    localStorage.setItem(THREAD_KEY, id);
    setThreadId(id);
    setMessages([]);
    setError(null);
    setSource(null);
    try {
      const stored = await getJson<{ threadExists?: boolean; messages?: Message[] }>("/api/state", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ threadId: id }),
      });
      if (stored.threadExists && stored.messages?.length && agentRef.current === agent) {
        agent.setMessages(stored.messages);
        setMessages([...agent.messages]);
        reportAnswers(id, buildTurns(agent.messages));
      }
    } catch (err) {
      setError(readableError(err));
    }
  }, [reportAnswers]);

  useEffect(() => {
    const saved = localStorage.getItem(LANGUAGE_KEY) as Language | null;
    setLanguage(saved === "zh" || saved === "en" ? saved : navigator.language.startsWith("zh") ? "zh" : "en");
    setStrictScope(localStorage.getItem(STRICT_KEY) === "true");
    setTheme(storedTheme(localStorage.getItem(THEME_KEY)));
    const dark = window.matchMedia(DARK_QUERY);
    setSystemDark(dark.matches);
    const follow = (event: MediaQueryListEvent) => setSystemDark(event.matches);
    dark.addEventListener("change", follow);
    openThread(localStorage.getItem(THREAD_KEY) ?? newId()).finally(() => setReady(true));
    refreshThreads();
    getJson<{ corpora: CorpusOption[] }>("/api/corpora")
      .then((body) => setCorpora(body.corpora))
      .catch((err) => setCorporaError(readableError(err)));
    getJson<{ agents: AgentOption[] }>("/api/agents")
      .then((body) => setAgents(body.agents))
      .catch(() => setAgents([]));
    return () => dark.removeEventListener("change", follow);
  }, [openThread, refreshThreads]);

  const shownTheme = appliedTheme(theme, systemDark);
  useEffect(() => {
    const root = document.documentElement;
    if (theme === "system") delete root.dataset.theme;
    else root.dataset.theme = theme;
  }, [theme]);

  useEffect(() => {
    const element = conversation.current;
    element?.scrollTo({ top: element.scrollHeight }); // the very end: the conversation scrolls, not the page
  }, [messages, error, stopped]);

  async function run(forwardedProps: Record<string, unknown>) {
    const agent = agentRef.current;
    if (!agent) return;
    setRunning(true);
    setError(null);
    setAnnouncement("");
    stopping.current = false;
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
      // Stop aborts the request on purpose: that is no error
      if (!stopping.current && agentRef.current === agent) setError(reported ?? `${t.requestError}: ${readableError(err)}`);
    } finally {
      setRunning(false);
      if (agentRef.current === agent) { // not left for another thread meanwhile
        if (stopping.current) settleStopped(agent);
        const turns = buildTurns(agent.messages);
        setMessages([...agent.messages]);
        if (!stopping.current) setAnnouncement(lastAnswer(turns));
        reportAnswers(agent.threadId, turns);
        refreshThreads();
      }
    }
  }

  function send(text: string) {
    const agent = agentRef.current;
    if (!agent) return;
    const message = normalizeMentions(text, corpora);
    agent.addMessage({ id: newId(), role: "user", content: message });
    setMessages([...agent.messages]);
    const { corpusIds } = resolveMentions(message, corpora);
    // a message without mentions sends no ids: the agent keeps the previous corpora
    run({ strict_scope: strictScope, ...(corpusIds.length ? { corpus_ids: corpusIds } : {}) });
  }

  function stop() {
    stopping.current = true;
    agentRef.current?.abortRun(); // the proxy's request is aborted, and the server cancels the agent run
  }

  /** After Stop: a question nothing came back for returns to the composer (it would otherwise ride along with the
   * next one); an answer stopped midway stays, marked as stopped. */
  function settleStopped(agent: HttpAgent) {
    const last = buildTurns(agent.messages).at(-1);
    if (!last) return;
    if (last.texts.length || last.tools.length) {
      setStopped((current) => new Set(current).add(last.id));
    } else {
      agent.setMessages(agent.messages.filter((m) => m.id !== last.id));
      setDraft({ text: last.userText });
    }
  }

  function decide(approval: Approval, approved: boolean) {
    const agent = agentRef.current;
    if (!agent) return;
    agent.addMessage({ id: newId(), role: "tool", toolCallId: approval.toolCallId, content: JSON.stringify({ confirmed: approved }) });
    setMessages([...agent.messages]);
    run({ strict_scope: strictScope });
  }

  async function showSource(turn: Turn, evidence: Evidence, quote: string) {
    const searchId = answerSources(turn).searchId;
    if (evidence.chunkId === undefined || !threadId || !searchId) return;
    setSource({ evidence });
    try {
      const passage = await openSource({ threadId, turnId: searchId }, evidence.chunkId, evidence.evidenceType, quote);
      setSource((current) => (current?.evidence === evidence ? { evidence, passage } : current));
    } catch (err) {
      setSource((current) => (current?.evidence === evidence ? { evidence, error: readableError(err) } : current));
    }
  }

  function rename(id: string, title: string) {
    renameThread(id, title).then(refreshThreads).catch((err) => setThreadsError(readableError(err)));
  }

  function remove(thread: Thread) {
    if (!window.confirm(t.deleteConfirm(thread.title))) return;
    deleteThread(thread.id)
      .then(() => {
        if (thread.id === threadId) openThread(newId());
        refreshThreads();
      })
      .catch((err) => setThreadsError(readableError(err)));
  }

  function chooseLanguage(next: Language) {
    setLanguage(next);
    localStorage.setItem(LANGUAGE_KEY, next);
  }

  function chooseStrict(next: boolean) {
    setStrictScope(next);
    localStorage.setItem(STRICT_KEY, String(next));
  }

  function chooseTheme(next: ThemeChoice) {
    setTheme(next);
    localStorage.setItem(THEME_KEY, next);
  }

  const turns = useMemo(() => buildTurns(messages), [messages]);

  return (
    <Tooltip.Provider>
      <div className="page" data-ready={ready ? "true" : "false"} data-running={running ? "true" : "false"}
        data-theme-shown={shownTheme} data-testid="page">
        <ThreadList threads={threads} current={threadId} error={threadsError} onOpen={openThread} onRename={rename}
          onDelete={remove} t={t} />
        <div className="chat">
          <header className="header">
            <div>
              <h1>{t.title}</h1>
              <p className="muted">{t.subtitle}</p>
            </div>
            <div className="header-actions">
              <ThemeSwitch choice={theme} onChoose={chooseTheme} t={t} />
              <div className="segmented" role="group" aria-label="language">
                <button type="button" aria-pressed={language === "en"} className={language === "en" ? "active" : ""} onClick={() => chooseLanguage("en")}>EN</button>
                <button type="button" aria-pressed={language === "zh"} className={language === "zh" ? "active" : ""} onClick={() => chooseLanguage("zh")} lang="zh">中文</button>
              </div>
              <button type="button" className="secondary" onClick={() => openThread(newId())} data-testid="new-chat">{t.newChat}</button>
            </div>
          </header>
          <main className="conversation" ref={conversation} data-testid="conversation">
            {turns.length === 0 && !error ? <p className="muted empty">{t.empty}</p> : null}
            {turns.map((turn, index) => (
              <TurnView key={turn.id} turn={turn} corpora={corpora} isLast={index === turns.length - 1} running={running}
                error={index === turns.length - 1 ? error : null} stopped={stopped.has(turn.id)} onDecide={decide}
                onOpenSource={(evidence, quote) => showSource(turn, evidence, quote)} t={t} />
            ))}
            {turns.length === 0 && error ? <div className="error" role="alert" data-testid="error">{error}</div> : null}
          </main>
          <div className="sr-only" role="status" aria-live="polite" data-testid="announcer">{announcement}</div>
          <Composer corpora={corpora} corporaError={corporaError} agents={agents} running={running} strictScope={strictScope}
            onStrictScope={chooseStrict} onSend={send} onStop={stop} draft={draft} t={t} />
        </div>
        <SourceView source={source} onClose={() => setSource(null)} t={t} />
      </div>
    </Tooltip.Provider>
  );
}
