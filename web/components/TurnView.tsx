"use client";
// One turn: the person's message, then the agent's answer with its structured sources: IEEE references
// labelled with their corpus, and (collapsed) the evidence a cross-corpus bridge brought in with its path.
import { Fragment } from "react";
import { answerBody, answerSources, type Approval, type Turn } from "@/lib/conversation";
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
  onDecide: (approval: Approval, approved: boolean) => void;
  t: Strings;
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

export function TurnView({ turn, corpora, isLast, running, error, onDecide, t }: Props) {
  const sources = answerSources(turn);
  // texts that answer an approval (the save's outcome) follow its card
  const split = turn.approval?.textsBefore ?? turn.texts.length;
  const text = answerBody(turn.texts.slice(0, split).join("\n\n"), sources);
  const outcome = turn.texts.slice(split).join("\n\n");
  const working = isLast && running;
  return (
    <section className="turn" data-testid="turn">
      <div className="message user" data-testid="user-message">
        <div className="who">{t.you}</div>
        <div className="bubble"><UserText text={turn.userText} /></div>
      </div>
      <div className="message agent" data-testid="agent-message">
        <div className="who">{t.agent}</div>
        <div className="bubble">
          {text ? <div className="answer-text" data-testid="answer-text">{text}</div> : null}
          {!text && !outcome && working ? <div className="muted" data-testid="working">{t.thinking}</div> : null}
          {sources.tool ? (
            <div className="answer-meta" data-testid="answer-meta" data-tool={sources.tool} data-mode={sources.mode ?? ""}>
              {t.searchedWith} <code>{sources.tool}</code>
              {sources.mode ? <> · {t.mode} <code>{sources.mode}</code></> : null}
              {sources.strictScope ? <> · {t.strictScope}</> : null}
              {sources.fallbackReason ? <div className="fallback">{sources.fallbackReason}</div> : null}
            </div>
          ) : null}
          {sources.references.length ? (
            <div className="references" data-testid="references">
              <div className="section-title">{t.references}</div>
              <ol>
                {sources.references.map((ref) => (
                  <li key={ref.citationId} data-testid="reference">{ref.citation}</li>
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
                    <div>{ref.citation}</div>
                    {ref.bridge ? <div className="bridge-path" data-testid="bridge-path">{t.bridgePath(ref.bridge)}</div> : null}
                  </li>
                ))}
              </ol>
            </details>
          ) : null}
          {turn.approval ? (
            <ApprovalCard approval={turn.approval} corpora={corpora} canDecide={isLast && !running} onDecide={onDecide} t={t} />
          ) : null}
          {outcome ? <div className="answer-text outcome" data-testid="answer-text">{outcome}</div> : null}
          {error ? <div className="error" role="alert" data-testid="error">{error}</div> : null}
        </div>
      </div>
    </section>
  );
}
