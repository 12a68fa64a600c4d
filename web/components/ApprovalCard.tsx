"use client";
// The agent's real tool confirmation (ADK adk_request_confirmation) for a gated tool, as a card.
import type { Approval } from "@/lib/conversation";
import type { CorpusOption } from "@/lib/mentions";
import type { Strings } from "@/lib/i18n";

interface Props {
  approval: Approval;
  corpora: CorpusOption[];
  canDecide: boolean;
  onDecide: (approval: Approval, approved: boolean) => void;
  t: Strings;
}

export function ApprovalCard({ approval, corpora, canDecide, onDecide, t }: Props) {
  const target = String(approval.args.corpus_id ?? "");
  const corpus = corpora.find((c) => c.id === target || c.name === target);
  const decided = approval.decision !== undefined;
  return (
    <div className="approval" data-testid="approval-card" data-state={decided ? (approval.decision ? "approved" : "rejected") : "pending"}>
      <div className="approval-title">
        {t.approvalTitle} <span className="muted">({approval.tool})</span>
      </div>
      <div className="approval-target">
        {t.approvalInto} <strong>{corpus ? `${corpus.label} (@${corpus.name})` : target}</strong>
      </div>
      <blockquote className="approval-text">{String(approval.args.text ?? "")}</blockquote>
      {decided ? (
        <div className={approval.decision ? "decision ok" : "decision no"}>{approval.decision ? t.approved : t.rejected}</div>
      ) : (
        <div className="approval-actions">
          <button type="button" disabled={!canDecide} onClick={() => onDecide(approval, true)}>{t.approve}</button>
          <button type="button" className="secondary" disabled={!canDecide} onClick={() => onDecide(approval, false)}>{t.reject}</button>
        </div>
      )}
    </div>
  );
}
