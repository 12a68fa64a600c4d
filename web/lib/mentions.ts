// `@Corpus` mentions in the composer: find them, resolve them to corpus ids (what forwardedProps.corpus_ids
// carries), and edit them. The rules match the agent's (session/mentions.py): "@name", "@\"Two words\"",
// "@[Two words]", "@【名字】"; never inside an e-mail address; names match case-insensitively, or with
// spaces, underscores and hyphens ignored when that picks exactly one corpus.

export interface CorpusOption {
  id: string;
  name: string;
  label: string;
  description?: string;
  chunks?: number;
  libraries?: string[];
  may?: string[];
}

export interface MentionResolution {
  corpora: CorpusOption[]; // resolved, in mention order, without duplicates
  corpusIds: string[];
  unknown: string[]; // mentioned names that match no corpus of the list (or several)
}

const MENTION_RE =
  /(?<![A-Za-z0-9._%+\-])[@＠](?:"([^"\n]+)"|“([^”\n]+)”|\[([^\]\n]+)\]|【([^】\n]+)】|([\p{L}\p{M}\p{N}_](?:[\p{L}\p{M}\p{N}_\-]*[\p{L}\p{M}\p{N}_])?))/gu;
const SIMPLE_NAME_RE = /^[\p{L}\p{M}\p{N}_](?:[\p{L}\p{M}\p{N}_\-]*[\p{L}\p{M}\p{N}_])?$/u;

function exactKey(name: string): string {
  return name.normalize("NFKC").trim().toLowerCase();
}

function compactKey(name: string): string {
  return exactKey(name).replace(/[\s_\-]+/g, "");
}

/** Mentioned names in order of first appearance, de-duplicated case-insensitively. */
export function parseMentions(text: string): string[] {
  const seen = new Set<string>();
  const names: string[] = [];
  for (const match of text.matchAll(MENTION_RE)) {
    const name = (match.slice(1).find((group) => group !== undefined) ?? "").trim();
    const key = exactKey(name);
    if (name && !seen.has(key)) {
      seen.add(key);
      names.push(name);
    }
  }
  return names;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** A pattern of bare mentions of multi-word labels ("@Team Notes", any case), the longest label first; null when
 * no corpus has such a label. Like the agent's (session/mentions.py bracket_labels). */
function spacedLabelPattern(corpora: CorpusOption[]): RegExp | null {
  const spaced = [...new Set(corpora.flatMap((c) => [c.name, c.label]).map((a) => a.trim()).filter((a) => /\s/.test(a)))]
    .sort((a, b) => b.length - a.length);
  if (!spaced.length) return null;
  const alternatives = spaced.map((alias) => alias.split(/\s+/).map(escapeRegExp).join("\\s+")).join("|");
  return new RegExp(`(?<![A-Za-z0-9._%+\\-])([@＠])(${alternatives})(?![\\p{L}\\p{M}\\p{N}_\\-])`, "giu");
}

/** ``text`` with each bare multi-word label mention in the bracket form the parser reads as one name. */
export function bracketLabels(text: string, corpora: CorpusOption[]): string {
  const pattern = spacedLabelPattern(corpora);
  return pattern ? text.replace(pattern, (_whole, at: string, label: string) => `${at}[${label}]`) : text;
}

/** ``text`` as it is sent: a label mention ("@Team Notes") becomes the corpus's own mention ("@team_notes"). */
export function normalizeMentions(text: string, corpora: CorpusOption[]): string {
  const pattern = spacedLabelPattern(corpora);
  if (!pattern) return text;
  return text.replace(pattern, (whole, _at: string, label: string) => {
    const [corpus] = resolveMentions(`@[${label}]`, corpora).corpora;
    return corpus ? mentionToken(corpus) : whole;
  });
}

/** The corpora ``text`` mentions, looked up by name or label in ``corpora``. */
export function resolveMentions(text: string, corpora: CorpusOption[]): MentionResolution {
  const exact = new Map<string, CorpusOption>();
  const loose = new Map<string, CorpusOption[]>();
  for (const corpus of corpora) {
    for (const alias of [corpus.name, corpus.label]) {
      if (!exact.has(exactKey(alias))) exact.set(exactKey(alias), corpus);
      const candidates = loose.get(compactKey(alias)) ?? [];
      if (!candidates.includes(corpus)) candidates.push(corpus);
      loose.set(compactKey(alias), candidates);
    }
  }
  const resolution: MentionResolution = { corpora: [], corpusIds: [], unknown: [] };
  for (const name of parseMentions(bracketLabels(text, corpora))) {
    const found = exact.get(exactKey(name));
    const matches = found ? [found] : loose.get(compactKey(name)) ?? [];
    if (matches.length !== 1) {
      resolution.unknown.push(name);
    } else if (!resolution.corpusIds.includes(matches[0].id)) {
      resolution.corpora.push(matches[0]);
      resolution.corpusIds.push(matches[0].id);
    }
  }
  return resolution;
}

/** How a picked corpus is written into the message. */
export function mentionToken(corpus: CorpusOption): string {
  return SIMPLE_NAME_RE.test(corpus.name) ? `@${corpus.name}` : `@[${corpus.name}]`;
}

export interface MentionQuery {
  start: number; // index of the "@"
  query: string; // what was typed after it, up to the caret
}

/** The mention being typed at ``caret`` ("@" at a word start followed by no space yet), if any. */
export function mentionQueryAt(text: string, caret: number): MentionQuery | null {
  const before = text.slice(0, caret);
  const match = /(?:^|[^A-Za-z0-9._%+\-])([@＠])([^\s@＠]*)$/u.exec(before);
  if (!match) return null;
  const start = before.length - match[2].length - 1;
  return { start, query: match[2] };
}

/** ``text`` with the typed "@query" (from ``start`` to ``caret``) replaced by the corpus's mention. */
export function insertMention(text: string, start: number, caret: number, corpus: CorpusOption): { text: string; caret: number } {
  const token = `${mentionToken(corpus)} `;
  const after = text.slice(caret).replace(/^\s+/, "");
  const next = text.slice(0, start) + token + after;
  return { text: next, caret: start + token.length };
}

/** ``text`` without any mention of ``corpus`` (by name or label), spacing tidied. */
export function removeMention(text: string, corpus: CorpusOption): string {
  const keys = new Set([exactKey(corpus.name), exactKey(corpus.label), compactKey(corpus.name), compactKey(corpus.label)]);
  const stripped = text.replace(MENTION_RE, (whole, ...groups: (string | undefined)[]) => {
    const name = (groups.slice(0, 5).find((group) => group !== undefined) ?? "").trim();
    return keys.has(exactKey(name)) || keys.has(compactKey(name)) ? "" : whole;
  });
  return stripped.replace(/[ \t]{2,}/g, " ").trim();
}

/** Corpora whose name or label contains ``query`` (case-insensitive), best matches first. */
export function filterCorpora(corpora: CorpusOption[], query: string): CorpusOption[] {
  const wanted = compactKey(query);
  if (!wanted) return corpora;
  const scored = corpora
    .map((corpus) => {
      const keys = [compactKey(corpus.name), compactKey(corpus.label)];
      const rank = keys.some((k) => k.startsWith(wanted)) ? 0 : keys.some((k) => k.includes(wanted)) ? 1 : 2;
      return { corpus, rank };
    })
    .filter((item) => item.rank < 2);
  return scored.sort((a, b) => a.rank - b.rank).map((item) => item.corpus);
}
