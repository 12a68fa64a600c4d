"use client";
// The composer: text with `@` mentions (chips show what they resolve to), the mention popover, the
// strict-scope toggle and send / stop. The text box is a combobox whose listbox is the popover's list.
import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from "react";
import {
  filterCorpora,
  insertMention,
  mentionQueryAt,
  removeMention,
  resolveMentions,
  type CorpusOption,
  type MentionQuery,
} from "@/lib/mentions";
import type { Strings } from "@/lib/i18n";
import { InfoTip } from "./Hint";
import { CorpusIcon } from "./icons";
import { MENTION_LISTBOX_ID, MentionPopover, mentionOptionId, type AgentOption, type MentionTab } from "./MentionPopover";

interface Props {
  corpora: CorpusOption[];
  corporaError: string | null;
  agents: AgentOption[];
  running: boolean;
  strictScope: boolean;
  onStrictScope: (value: boolean) => void;
  onSend: (text: string) => void;
  onStop: () => void;
  draft: { text: string } | null; // text to put back into the box (a stopped question); a new object each time
  t: Strings;
}

export function Composer({ corpora, corporaError, agents, running, strictScope, onStrictScope, onSend, onStop, draft, t }: Props) {
  const [text, setText] = useState("");
  const [mention, setMention] = useState<MentionQuery | null>(null);
  const [tab, setTab] = useState<MentionTab>("corpus");
  const [highlighted, setHighlighted] = useState(0);
  const textarea = useRef<HTMLTextAreaElement>(null);
  const form = useRef<HTMLFormElement>(null);

  useEffect(() => {
    if (draft) setText(draft.text);
  }, [draft]);

  const resolution = useMemo(() => resolveMentions(text, corpora), [text, corpora]);
  const options = useMemo(() => filterCorpora(corpora, mention?.query ?? ""), [corpora, mention]);

  function track(value: string, caret: number) {
    setText(value);
    const query = mentionQueryAt(value, caret);
    setMention(query);
    if (query) setHighlighted(0);
  }

  function focusAt(caret: number) {
    requestAnimationFrame(() => {
      textarea.current?.focus();
      textarea.current?.setSelectionRange(caret, caret);
    });
  }

  function pick(corpus: CorpusOption) {
    const caret = textarea.current?.selectionStart ?? text.length;
    const start = mention?.start ?? caret;
    const next = insertMention(text, start, Math.max(caret, start), corpus);
    setText(next.text);
    setMention(null);
    focusAt(next.caret);
  }

  function openPopover() {
    const caret = textarea.current?.selectionStart ?? text.length;
    const spacer = caret > 0 && !/\s$/.test(text.slice(0, caret)) ? " " : "";
    const value = text.slice(0, caret) + spacer + "@" + text.slice(caret);
    track(value, caret + spacer.length + 1);
    focusAt(caret + spacer.length + 1);
  }

  function submit() {
    const message = text.trim();
    if (!message || running) return;
    onSend(message);
    setText("");
    setMention(null);
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (mention && tab === "corpus" && options.length) {
      if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        event.preventDefault();
        const step = event.key === "ArrowDown" ? 1 : -1;
        setHighlighted((current) => (current + step + options.length) % options.length);
        return;
      }
      if (event.key === "Enter" || event.key === "Tab") {
        event.preventDefault();
        pick(options[Math.min(highlighted, options.length - 1)]);
        return;
      }
    }
    if (mention && event.key === "Escape") {
      event.preventDefault();
      setMention(null);
      return;
    }
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      submit();
    }
  }

  const open = mention !== null;
  const active = open && tab === "corpus" && options.length ? mentionOptionId(Math.min(highlighted, options.length - 1)) : undefined;
  const box = (
    <div className="composer-box">
      <textarea
        ref={textarea}
        value={text}
        placeholder={t.placeholder}
        rows={2}
        aria-label="message"
        role="combobox"
        aria-autocomplete="list"
        aria-haspopup="listbox"
        aria-expanded={open}
        aria-controls={open ? MENTION_LISTBOX_ID : undefined}
        aria-activedescendant={active}
        data-testid="composer-input"
        onChange={(event) => track(event.target.value, event.target.selectionStart)}
        onSelect={(event) => setMention(mentionQueryAt(event.currentTarget.value, event.currentTarget.selectionStart))}
        onKeyDown={onKeyDown}
      />
    </div>
  );

  return (
    <form ref={form} className="composer" onSubmit={(event) => { event.preventDefault(); submit(); }}>
      {resolution.corpora.length || resolution.unknown.length ? (
        <div className="chips" data-testid="mention-chips">
          {resolution.corpora.map((corpus) => (
            <span key={corpus.id} className="chip" data-testid="mention-chip" data-corpus-id={corpus.id}>
              <CorpusIcon /> {corpus.label}
              <button type="button" aria-label={`remove ${corpus.label}`} onClick={() => setText(removeMention(text, corpus))}>×</button>
            </span>
          ))}
          {resolution.unknown.length ? <span className="chip unknown">{t.unknownMentions(resolution.unknown)}</span> : null}
        </div>
      ) : null}
      <MentionPopover
        open={open}
        anchor={box}
        inside={form}
        tab={tab}
        onTab={setTab}
        agents={agents}
        corpora={options}
        query={mention?.query ?? ""}
        highlighted={highlighted}
        corporaError={corporaError}
        onPick={pick}
        onClose={() => setMention(null)}
        t={t}
      />
      <div className="composer-actions">
        <button type="button" className="at-button" aria-label={t.mentionButton} aria-haspopup="listbox" aria-expanded={open}
          data-testid="mention-button" onMouseDown={(event) => event.preventDefault()} onClick={openPopover}>@</button>
        <label className="toggle">
          <input type="checkbox" checked={strictScope} data-testid="strict-scope"
            onChange={(event) => onStrictScope(event.target.checked)} />
          {t.strictScope}
        </label>
        <InfoTip label={t.strictScopeAbout} text={t.strictScopeHint} testId="strict-scope-info" />
        <span className="spacer" />
        {running ? (
          <button type="button" className="secondary" onClick={onStop} data-testid="stop">{t.stop}</button>
        ) : null}
        <button type="submit" disabled={running || !text.trim()} data-testid="send">{t.send}</button>
      </div>
    </form>
  );
}
