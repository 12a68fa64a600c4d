"use client";
// The "@" popover: two tabs, Agents and Corpus, each a listbox the composer (a combobox) drives with the arrow keys;
// every entry has a tooltip with its description and, for a corpus, what the person may do there. Picking a corpus
// inserts its mention. On touch, where nothing hovers, the first tap on an entry shows its tooltip and the
// second picks it.
import * as Popover from "@radix-ui/react-popover";
import { useRef, useState, type PointerEvent, type ReactNode, type RefObject } from "react";
import type { CorpusOption } from "@/lib/mentions";
import type { Strings } from "@/lib/i18n";
import { Hint } from "./Hint";
import { AgentIcon, CorpusIcon } from "./icons";

export interface AgentOption {
  name: string;
  description: string;
  role: string;
}

export type MentionTab = "agents" | "corpus";

export const MENTION_LISTBOX_ID = "mention-listbox";
export const mentionOptionId = (index: number) => `mention-option-${index}`;

interface Props {
  open: boolean;
  anchor: ReactNode;
  inside: RefObject<HTMLElement | null>; // the composer: focus and clicks there keep the popover open
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

export function MentionPopover(props: Props) {
  const { open, anchor, inside, tab, onTab, agents, corpora, query, highlighted, corporaError, onPick, onClose, t } = props;
  const [pinned, setPinned] = useState<string | null>(null); // the entry whose tooltip a tap opened
  const pointer = useRef<string>("mouse");
  const notePointer = (event: PointerEvent) => { pointer.current = event.pointerType; };
  // a tap on touch shows the tooltip first; true when this tap did only that
  const previewed = (key: string) => {
    if (pointer.current !== "touch" || pinned === key) return false;
    setPinned(key);
    return true;
  };
  const keepOpen = (event: Event) => {
    if (event.target instanceof Node && inside.current?.contains(event.target)) event.preventDefault();
  };
  const tabButton = (name: MentionTab, label: string, icon: ReactNode) => (
    <button type="button" role="tab" aria-selected={tab === name} className={tab === name ? "tab active" : "tab"}
      onMouseDown={(event) => event.preventDefault()} onClick={() => onTab(name)}>
      {icon} {label}
    </button>
  );
  return (
    <Popover.Root open={open} onOpenChange={(next) => { if (!next) { setPinned(null); onClose(); } }}>
      <Popover.Anchor asChild>{anchor}</Popover.Anchor>
      <Popover.Portal>
        <Popover.Content
          className="mention-popover"
          side="top"
          align="start"
          sideOffset={6}
          aria-label={t.mentionPopover}
          onOpenAutoFocus={(event) => event.preventDefault()}
          onCloseAutoFocus={(event) => event.preventDefault()}
          onFocusOutside={keepOpen}
          onPointerDownOutside={keepOpen}
          data-testid="mention-popover"
        >
          <div className="tabs" role="tablist" aria-label={t.mentionPopover}>
            {tabButton("agents", t.agentsTab, <AgentIcon />)}
            {tabButton("corpus", t.corpusTab, <CorpusIcon />)}
          </div>
          {tab === "corpus" && corporaError ? <p className="option-error">{t.corporaError}: {corporaError}</p> : null}
          {tab === "corpus" && !corporaError && corpora.length === 0 ? (
            <p className="option-empty">{query ? `${t.noMatch} “${query}”` : t.noCorpora}</p>
          ) : null}
          <div className="options" role="listbox" id={MENTION_LISTBOX_ID} aria-label={tab === "agents" ? t.agentsTab : t.corpusTab}>
            {tab === "agents"
              ? agents.map((agent) => (
                <Hint key={agent.name} pinned={pinned === agent.name} testId="mention-tooltip"
                  content={<><strong>{agent.name}</strong> ({agent.role})<br />{agent.description}</>}>
                  <div className="option static" role="option" aria-selected={false} tabIndex={-1}
                    onPointerDown={notePointer} onClick={() => previewed(agent.name)} data-testid="agent-option">
                    <AgentIcon /> <span className="option-name">{agent.name}</span>
                    <span className="option-meta">{agent.role}</span>
                  </div>
                </Hint>
              ))
              : corpora.map((corpus, index) => (
                <Hint key={corpus.id} pinned={pinned === corpus.id} testId="mention-tooltip" content={
                  <>
                    <strong>{corpus.label}</strong> (@{corpus.name}){corpus.chunks !== undefined ? `, ${corpus.chunks} chunks` : ""}
                    {corpus.description ? <><br />{corpus.description}</> : null}
                    {corpus.may?.length ? <ul className="may">{corpus.may.map((m) => <li key={m}>{m}</li>)}</ul> : null}
                    {pinned === corpus.id ? <div className="tooltip-hint">{t.moreInfo}</div> : null}
                  </>
                }>
                  <div role="option" id={mentionOptionId(index)} aria-selected={index === highlighted} tabIndex={-1}
                    className={index === highlighted ? "option highlighted" : "option"} data-testid="corpus-option"
                    data-corpus={corpus.name} onPointerDown={notePointer}
                    onMouseDown={(event) => event.preventDefault()}
                    onClick={() => { if (!previewed(corpus.id)) onPick(corpus); }}>
                    <CorpusIcon /> <span className="option-name">{corpus.label}</span>
                    <span className="option-meta">@{corpus.name}</span>
                  </div>
                </Hint>
              ))}
          </div>
        </Popover.Content>
      </Popover.Portal>
    </Popover.Root>
  );
}
