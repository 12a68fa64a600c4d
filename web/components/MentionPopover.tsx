"use client";
// The "@" popover: two tabs, Agents and Corpus; every entry has a tooltip with its description and, for a
// corpus, what the person may do there. Picking a corpus inserts its mention.
import * as Popover from "@radix-ui/react-popover";
import * as Tooltip from "@radix-ui/react-tooltip";
import type { ReactNode } from "react";
import type { CorpusOption } from "@/lib/mentions";
import type { Strings } from "@/lib/i18n";
import { AgentIcon, CorpusIcon } from "./icons";

export interface AgentOption {
  name: string;
  description: string;
  role: string;
}

export type MentionTab = "agents" | "corpus";

interface Props {
  open: boolean;
  anchor: ReactNode;
  tab: MentionTab;
  onTab: (tab: MentionTab) => void;
  agents: AgentOption[];
  corpora: CorpusOption[];
  query: string;
  highlighted: number;
  corporaError: string | null;
  onPick: (corpus: CorpusOption) => void;
  onClose: () => void;
  t: Strings;
}

function Hint({ children, content }: { children: ReactNode; content: ReactNode }) {
  return (
    <Tooltip.Root delayDuration={150}>
      <Tooltip.Trigger asChild>{children}</Tooltip.Trigger>
      <Tooltip.Portal>
        <Tooltip.Content className="tooltip" side="right" sideOffset={8} data-testid="mention-tooltip">
          {content}
          <Tooltip.Arrow className="tooltip-arrow" />
        </Tooltip.Content>
      </Tooltip.Portal>
    </Tooltip.Root>
  );
}

export function MentionPopover(props: Props) {
  const { open, anchor, tab, onTab, agents, corpora, query, highlighted, corporaError, onPick, onClose, t } = props;
  return (
    <Popover.Root open={open} onOpenChange={(next) => !next && onClose()}>
      <Popover.Anchor asChild>{anchor}</Popover.Anchor>
      <Popover.Portal>
        <Popover.Content
          className="mention-popover"
          side="top"
          align="start"
          sideOffset={6}
          onOpenAutoFocus={(event) => event.preventDefault()}
          onCloseAutoFocus={(event) => event.preventDefault()}
          data-testid="mention-popover"
        >
          <div className="tabs" role="tablist">
            <button type="button" role="tab" aria-selected={tab === "agents"} className={tab === "agents" ? "tab active" : "tab"}
              onMouseDown={(event) => event.preventDefault()} onClick={() => onTab("agents")}>
              <AgentIcon /> {t.agentsTab}
            </button>
            <button type="button" role="tab" aria-selected={tab === "corpus"} className={tab === "corpus" ? "tab active" : "tab"}
              onMouseDown={(event) => event.preventDefault()} onClick={() => onTab("corpus")}>
              <CorpusIcon /> {t.corpusTab}
            </button>
          </div>
          {tab === "agents" ? (
            <ul className="options" role="listbox" aria-label={t.agentsTab}>
              {agents.map((agent) => (
                <li key={agent.name}>
                  <Hint content={<><strong>{agent.name}</strong> ({agent.role})<br />{agent.description}</>}>
                    <div className="option static" role="option" aria-selected={false} tabIndex={0}>
                      <AgentIcon /> <span className="option-name">{agent.name}</span>
                      <span className="option-meta">{agent.role}</span>
                    </div>
                  </Hint>
                </li>
              ))}
            </ul>
          ) : (
            <ul className="options" role="listbox" aria-label={t.corpusTab}>
              {corporaError ? <li className="option-error">{t.corporaError}: {corporaError}</li> : null}
              {!corporaError && corpora.length === 0 ? <li className="option-empty">{query ? `${t.noMatch} “${query}”` : t.noCorpora}</li> : null}
              {corpora.map((corpus, index) => (
                <li key={corpus.id}>
                  <Hint content={
                    <>
                      <strong>{corpus.label}</strong> (@{corpus.name}){corpus.chunks !== undefined ? `, ${corpus.chunks} chunks` : ""}
                      {corpus.description ? <><br />{corpus.description}</> : null}
                      {corpus.may?.length ? <ul className="may">{corpus.may.map((m) => <li key={m}>{m}</li>)}</ul> : null}
                    </>
                  }>
                    <button type="button" role="option" aria-selected={index === highlighted}
                      className={index === highlighted ? "option highlighted" : "option"} data-testid="corpus-option"
                      data-corpus={corpus.name}
                      onMouseDown={(event) => event.preventDefault()} onClick={() => onPick(corpus)}>
                      <CorpusIcon /> <span className="option-name">{corpus.label}</span>
                      <span className="option-meta">@{corpus.name}</span>
                    </button>
                  </Hint>
                </li>
              ))}
            </ul>
          )}
        </Popover.Content>
      </Popover.Portal>
    </Popover.Root>
  );
}
