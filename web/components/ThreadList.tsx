"use client";
// The person's conversations (stored in PostgreSQL): open one to restore its messages, rename it, delete it.
import { useState } from "react";
import type { Thread } from "@/lib/api";
import type { Strings } from "@/lib/i18n";

interface Props {
  threads: Thread[];
  current: string | null;
  error: string | null;
  onOpen: (id: string) => void;
  onRename: (id: string, title: string) => void;
  onDelete: (thread: Thread) => void;
  t: Strings;
}

function ThreadItem({ thread, current, onOpen, onRename, onDelete, t }: Omit<Props, "threads" | "error" | "current"> & { thread: Thread; current: boolean }) {
  const [draft, setDraft] = useState<string | null>(null);
  if (draft !== null) {
    return (
      <li className="thread" data-testid="thread">
        <form className="thread-rename" onSubmit={(event) => { event.preventDefault(); onRename(thread.id, draft); setDraft(null); }}>
          <input value={draft} autoFocus aria-label={t.renameTo(thread.title)} maxLength={200} data-testid="thread-title-input"
            onChange={(event) => setDraft(event.target.value)} onKeyDown={(event) => event.key === "Escape" && setDraft(null)} />
          <button type="submit" disabled={!draft.trim()}>{t.save}</button>
          <button type="button" className="secondary" onClick={() => setDraft(null)}>{t.cancel}</button>
        </form>
      </li>
    );
  }
  return (
    <li className={current ? "thread current" : "thread"} data-testid="thread" data-thread-id={thread.id}>
      <button type="button" className="thread-open" aria-current={current ? "true" : undefined} onClick={() => onOpen(thread.id)}
        data-testid="thread-open">{thread.title}</button>
      <button type="button" className="icon-button" aria-label={t.renameTo(thread.title)} title={t.rename}
        onClick={() => setDraft(thread.title)} data-testid="thread-rename">✎</button>
      <button type="button" className="icon-button" aria-label={`${t.delete} “${thread.title}”`} title={t.delete}
        onClick={() => onDelete(thread)} data-testid="thread-delete">×</button>
    </li>
  );
}

export function ThreadList({ threads, current, error, onOpen, onRename, onDelete, t }: Props) {
  return (
    <nav className="threads" aria-label={t.threads} data-testid="thread-list">
      <h2>{t.threads}</h2>
      {error ? <p className="error" role="alert">{t.threadsError}: {error}</p> : null}
      {!error && threads.length === 0 ? <p className="muted">{t.noThreads}</p> : null}
      <ul>
        {threads.map((thread) => (
          <ThreadItem key={thread.id} thread={thread} current={thread.id === current} onOpen={onOpen} onRename={onRename}
            onDelete={onDelete} t={t} />
        ))}
      </ul>
    </nav>
  );
}
