"use client";
// One turn: the person's message, then the agent's answer with its structured sources: IEEE references
// labelled with their corpus, and (collapsed) the evidence a cross-corpus bridge brought in with its path. Every
// [n] and reference opens its passage in the source view; the corpora the search covered follow the answer.
import { Fragment, type ReactNode } from "react";
import { answerBody, answerSources, citingSentence, quoteFor, type Approval, type Evidence, type Turn } from "@/lib/conversation";
import type { CorpusOption } from "@/lib/mentions";
import type { Strings } from "@/lib/i18n";
import { ApprovalCard } from "./ApprovalCard";
import { LinkIcon } from "./icons";

interface Props {
  turn: Turn;
  corpora: CorpusOption[];
  isLast: boolean;
  running: boolean;
  error: string | null;
  stopped: boolean;
  onDecide: (approval: Approval, approved: boolean) => void;
  onOpenSource: (evidence: Evidence, quote: string) => void;
  t: Strings;
}

type OpenSource = Props["onOpenSource"];

/** Opens ``evidence`` in the source view; ``label``: a name beginning with the visible text, for a bare [n]. */
function SourceButton({ evidence, quote, onOpen, children, label }: { evidence: Evidence; quote: string; onOpen: OpenSource; children: ReactNode; label?: string }) {
  if (evidence.chunkId === undefined) return <>{children}</>;
  return (
    <button type="button" className="source-link" aria-label={label}
      aria-haspopup="dialog" data-testid="open-source" data-citation={evidence.citationId} onClick={() => onOpen(evidence, quote)}>
      {children}
    </button>
  );
}

/** The answer's prose with each [n] a button opening its source (quoting the sentence the mark closes). */
function AnswerText({ text, evidence, onOpen, t }: { text: string; evidence: Evidence[]; onOpen: OpenSource; t: Strings }) {
  const byNumber = new Map(evidence.map((e) => [e.citationId, e]));
  const parts: ReactNode[] = [];
  let last = 0;
  for (const mark of text.matchAll(/\[(\d+)\]/g)) {
    const cited = byNumber.get(Number(mark[1]));
    if (!cited) continue;
    parts.push(text.slice(last, mark.index));
    parts.push(
      <SourceButton key={mark.index} evidence={cited} quote={citingSentence(text, mark.index)} onOpen={onOpen}
        label={`${mark[0]} ${t.sourceOf(cited.title)}`}>{mark[0]}</SourceButton>,
    );
    last = mark.index + mark[0].length;
  }
  parts.push(text.slice(last));
  return <div className="answer-text" data-testid="answer-text">{parts}</div>;
}

function UserText({ text }: { text: string }) {
  const parts = text.split(/((?<![A-Za-z0-9._%+\-])[@＠](?:"[^"\n]+"|“[^”\n]+”|\[[^\]\n]+\]|【[^】\n]+】|[\p{L}\p{M}\p{N}_](?:[\p{L}\p{M}\p{N}_\-]*[\p{L}\p{M}\p{N}_])?))/u);
  return (
    <>
      {parts.map((part, index) =>
        index % 2 === 1 ? <span key={index} className="mention">{part}</span> : <Fragment key={index}>{part}</Fragment>,
      )}
    </>
  );
}

export function TurnView({ turn, corpora, isLast, running, error, stopped, onDecide, onOpenSource, t }: Props) {
  const sources = answerSources(turn);
  // texts that answer an approval (the save's outcome) follow its card
  const split = turn.approval?.textsBefore ?? turn.texts.length;
  const text = answerBody(turn.texts.slice(0, split).join("\n\n"), sources);
  const outcome = turn.texts.slice(split).join("\n\n");
  const working = isLast && running;
  const cited = [...sources.references, ...sources.bridged];
  const answered = Boolean(text || outcome || sources.tool || turn.approval || error);
  return (
    <section className="turn" data-testid="turn">
      <div className="message user" data-testid="user-message">
        <div className="who">{t.you}</div>
        <div className="bubble"><UserText text={turn.userText} /></div>
      </div>
      {answered || working || stopped ? (
      <div className="message agent" data-testid="agent-message">
        <div className="who">{t.agent}</div>
        <div className="bubble">
          {text ? <AnswerText text={text} evidence={cited} onOpen={onOpenSource} t={t} /> : null}
          {!text && !outcome && working ? <div className="muted" data-testid="working">{t.thinking}</div> : null}
          {stopped && !working ? <div className="muted" data-testid="stopped">{t.stopped}</div> : null}
          {sources.tool ? (
            <div className="answer-meta" data-testid="answer-meta" data-tool={sources.tool} data-mode={sources.mode ?? ""}>
              {t.searchedWith} <code>{sources.tool}</code>
              {sources.mode ? <> · {t.mode} <code>{sources.mode}</code></> : null}
              {sources.strictScope ? <> · {t.strictScope}</> : null}
              {sources.fallbackReason ? <div className="fallback">{sources.fallbackReason}</div> : null}
              {sources.searched.length ? (
                <div className="searched" data-testid="searched-corpora">{t.searched}: {sources.searched.join(" · ")}</div>
              ) : null}
            </div>
          ) : null}
          {sources.references.length ? (
            <div className="references" data-testid="references">
              <div className="section-title">{t.references}</div>
              <ol>
                {sources.references.map((ref) => (
                  <li key={ref.citationId} data-testid="reference">
                    <SourceButton evidence={ref} quote={quoteFor(text, ref.citationId)} onOpen={onOpenSource}>{ref.citation}</SourceButton>
                  </li>
                ))}
              </ol>
            </div>
          ) : null}
          {sources.bridged.length ? (
            <details className="bridged" data-testid="bridged-evidence">
              <summary><LinkIcon /> {t.bridgedHeading} ({sources.bridged.length})</summary>
              <ol>
                {sources.bridged.map((ref) => (
                  <li key={ref.citationId} data-testid="bridged-reference">
                    <div><SourceButton evidence={ref} quote={quoteFor(text, ref.citationId)} onOpen={onOpenSource}>{ref.citation}</SourceButton></div>
                    {ref.bridge ? <div className="bridge-path" data-testid="bridge-path">{t.bridgePath(ref.bridge)}</div> : null}
                  </li>
                ))}
              </ol>
            </details>
          ) : null}
          {turn.approval ? (
            <ApprovalCard approval={turn.approval} corpora={corpora} canDecide={isLast && !running} onDecide={onDecide} t={t} />
          ) : null}
          {outcome ? <div className="outcome"><AnswerText text={outcome} evidence={cited} onOpen={onOpenSource} t={t} /></div> : null}
          {error ? <div className="error" role="alert" data-testid="error">{error}</div> : null}
        </div>
      </div>
      ) : null}
    </section>
  );
}
