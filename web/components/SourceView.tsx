"use client";
// The passage behind a citation: its document and corpus, the path of bridged evidence, and the sentence the
// answer cites highlighted. A modal <dialog>: Escape or the close button returns to the answer.
import { useEffect, useRef } from "react";
import type { Passage } from "@/lib/api";
import type { Evidence } from "@/lib/conversation";
import type { Strings } from "@/lib/i18n";

export interface OpenedSource {
  evidence: Evidence;
  passage?: Passage;
  error?: string;
}

interface Props {
  source: OpenedSource | null;
  onClose: () => void;
  t: Strings;
}

function PassageText({ passage }: { passage: Passage }) {
  const { content, highlight } = passage;
  if (!highlight) return <p className="passage">{content}</p>;
  return (
    <p className="passage">
      {content.slice(0, highlight.start)}
      <mark data-testid="cited-sentence">{content.slice(highlight.start, highlight.end)}</mark>
      {content.slice(highlight.end)}
    </p>
  );
}

export function SourceView({ source, onClose, t }: Props) {
  const dialog = useRef<HTMLDialogElement>(null);

  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (source && !element.open) element.showModal();
    if (!source && element.open) element.close();
  }, [source]);

  const passage = source?.passage;
  const bridge = source?.evidence.bridge;
  return (
    <dialog ref={dialog} className="source-view" aria-labelledby="source-title" data-testid="source-view"
      onClose={onClose}>
      {source ? (
        <>
          <div className="source-head">
            <h2 id="source-title">{passage?.document.title ?? source.evidence.title}</h2>
            <button type="button" className="secondary" onClick={onClose} data-testid="source-close">{t.close}</button>
          </div>
          <dl className="source-facts">
            <dt>{t.corpus}</dt>
            <dd data-testid="source-corpus">{passage ? `${passage.corpus.label} (@${passage.corpus.name})` : source.evidence.corpusLabel}</dd>
            {passage ? (<><dt>{t.document}</dt><dd data-testid="source-document">{passage.document.sourceUri}</dd></>) : null}
            {bridge ? (<><dt>{t.bridgedVia}</dt><dd data-testid="source-bridge">{t.bridgePath(bridge)}</dd></>) : null}
          </dl>
          {passage ? <PassageText passage={passage} /> : null}
          {source.error ? <div className="error" role="alert" data-testid="source-error">{source.error}</div> : null}
          {!passage && !source.error ? <p className="muted">{t.loading}</p> : null}
        </>
      ) : null}
    </dialog>
  );
}
