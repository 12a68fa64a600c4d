"""Entity and relation extraction for the per-corpus knowledge graphs.

Two implementations share one interface (:class:`Extractor`):

* :class:`OfflineExtractor` – rule based, English and Chinese, no model download.  Candidates come
  from capitalised word sequences, acronyms, CamelCase words, quoted terms, technical key phrases,
  gazetteers and (for Chinese) ``jieba.posseg`` noun chunks; types from titles, legal suffixes,
  head words, gazetteers and local context; relations from typed predicate patterns between two
  mentions of one sentence, otherwise sentence co-occurrence.
* :class:`LlmExtractor` – asks a chat model (through ``litellm``) for strict JSON and validates it;
  any failure falls back to the offline extractor.

Static word lists and regexes live in :mod:`knowledge.graph.extraction_patterns`.
"""
from __future__ import annotations

import json
import logging
import os
import re
import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from knowledge.graph import extraction_patterns as P
from knowledge.graph.normalize import normalize_name

log = logging.getLogger(__name__)

ENTITY_TYPES = ("PERSON", "ORG", "PRODUCT", "PLACE", "EVENT", "CONCEPT", "FOOD", "OTHER")
RELATION_TYPES = ("ACQUIRED", "PART_OF", "DEVELOPED", "USES", "LOCATED_IN", "WORKS_AT",
                  "PARTNERED_WITH", "CO_OCCURS")
TYPED_WEIGHT = 2.0
COOCCUR_WEIGHT = 1.0
# Co-occurrence pairs are built from at most this many distinct entities per sentence.
MAX_COOCCUR_ENTITIES = 12
# Typed predicates are looked for between mentions at most this far apart.
MAX_PAIR_GAP_CHARS = 160
MAX_PAIR_GAP_MENTIONS = 6

_TIE_ORDER = {t: i for i, t in enumerate(("PERSON", "ORG", "PLACE", "PRODUCT", "EVENT", "FOOD", "CONCEPT",
                                          "OTHER"))}


# ============================================================================================
# Public data types
# ============================================================================================

@dataclass(frozen=True)
class ExtractedEntity:
    name: str            # display name (most frequent surface form, legal suffix kept)
    type: str            # one of ENTITY_TYPES
    start: int           # char offset of the first mention
    end: int
    mentions: tuple[tuple[int, int], ...] = ()   # all (start, end) spans, sorted


@dataclass(frozen=True)
class ExtractedRelation:
    source: str   # ExtractedEntity.name
    target: str
    type: str
    weight: float
    evidence: str  # the (first) sentence


@dataclass
class Extraction:
    entities: list[ExtractedEntity] = field(default_factory=list)
    relations: list[ExtractedRelation] = field(default_factory=list)


@runtime_checkable
class Extractor(Protocol):
    def extract(self, text: str) -> Extraction: ...


# ============================================================================================
# Sentences
# ============================================================================================

_WORD_BEFORE_RE = re.compile(r"([A-Za-z][A-Za-z.]*)$")
_NEXT_WORD_RE = re.compile(r"\s+[\"“(]?([A-Za-z]+)")


def _no_split_at_period(text: str, i: int) -> bool:
    """True when the '.' at ``text[i]`` belongs to an abbreviation and does not end a sentence."""
    m = _WORD_BEFORE_RE.search(text, max(0, i - 12), i)
    if not m:
        return False
    word = m.group(1).rstrip(".")
    low = word.lower()
    if len(word) == 1 and word.isupper():          # initial: "J. Smith"
        return True
    if low in P.LEGAL_ABBREV:                       # "Apple Inc. released" vs "... Apple Inc. The"
        nxt = _NEXT_WORD_RE.match(text, i + 1)
        return not (nxt and nxt.group(1)[0].isupper() and nxt.group(1).lower() in P.STOPWORDS)
    return low in P.ABBREVIATIONS


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Sentence spans (start, end) without surrounding whitespace; English and Chinese punctuation."""
    spans: list[tuple[int, int]] = []
    start = 0
    for m in P.SENT_BOUNDARY_RE.finditer(text):
        if m.group().startswith(".") and not m.group().startswith("...") and _no_split_at_period(text, m.start()):
            continue
        _append_span(spans, text, start, m.end())
        start = m.end()
    _append_span(spans, text, start, len(text))
    return spans


def _append_span(spans: list[tuple[int, int]], text: str, s: int, e: int) -> None:
    while s < e and text[s].isspace():
        s += 1
    while e > s and text[e - 1].isspace():
        e -= 1
    if e > s:
        spans.append((s, e))


# ============================================================================================
# jieba (lazy, quiet, once)
# ============================================================================================

_JIEBA_LOCK = threading.Lock()
_JIEBA: Any = None
_JIEBA_FAILED = False


def _posseg() -> Any:
    """Return ``jieba.posseg`` initialised quietly (once, lazily), or None if jieba is unavailable."""
    global _JIEBA, _JIEBA_FAILED
    if _JIEBA is not None or _JIEBA_FAILED:
        return _JIEBA
    with _JIEBA_LOCK:
        if _JIEBA is None and not _JIEBA_FAILED:
            try:
                import jieba
                import jieba.posseg as posseg

                jieba.setLogLevel(logging.WARNING)
                jieba.initialize()
                _JIEBA = posseg
            except Exception as exc:  # pragma: no cover - depends on the environment
                log.warning("jieba unavailable (%s); Chinese extraction uses regex rules only", exc)
                _JIEBA_FAILED = True
    return _JIEBA


def _oov_flag(word: str) -> str:
    if not P.CJK_RE.search(word):
        return "eng" if word.isascii() and word.strip() and word[0].isalnum() else "x"
    if 2 <= len(word) <= 3 and (word[0] in P.ZH_COMMON_SURNAMES or word[:2] in P.ZH_COMPOUND_SURNAMES) \
            and all(P.CJK_RE.match(ch) for ch in word):
        return "nr"
    return "nz" if len(word) >= 2 else "x"


def _zh_tokens(sentence: str, offset: int) -> list[tuple[int, int, str, str]]:
    """(start, end, word, POS flag) for a Chinese sentence.

    Segmentation is ``jieba.cut`` (HMM on, finds unknown names) and the flags come from the
    ``jieba.posseg`` dictionary tag table; words the HMM discovered get a guessed flag (surname +
    1-2 chars -> nr).  This is ~5x faster than ``jieba.posseg.cut``'s joint Viterbi and gives the
    same tags for dictionary words.  Falls back to ``posseg.cut`` if the table is unavailable.
    """
    ps = _posseg()
    if ps is None:
        return []
    out: list[tuple[int, int, str, str]] = []
    pos = offset
    tab = getattr(getattr(ps, "dt", None), "word_tag_tab", None)
    if isinstance(tab, dict) and tab:
        import jieba

        for w in jieba.cut(sentence, HMM=True):
            flag = tab.get(w) or _oov_flag(w)
            out.append((pos, pos + len(w), w, flag))
            pos += len(w)
    else:  # pragma: no cover - older/newer jieba without the table
        for pair in ps.cut(sentence):
            out.append((pos, pos + len(pair.word), pair.word, pair.flag))
            pos += len(pair.word)
    return out


# ============================================================================================
# Candidates
# ============================================================================================

@dataclass
class _Cand:
    start: int
    end: int
    surface: str
    key: str
    votes: Counter
    priority: int
    sent: int
    english: bool = True
    weak: bool = False          # Chinese noun candidate kept only when frequent or pattern-marked
    marked: bool = False
    plain_noun: bool = False
    short_alias: bool = False   # "Helios" merged into "Project Helios"


def _vote(**kw: float) -> Counter:
    return Counter({k: v for k, v in kw.items() if v})


def _looks_common(word: str) -> bool:
    low = word.lower()
    return low in P.STOPWORDS or bool(P.COMMON_SUFFIX_RE.search(low)) and len(low) > 4


def _is_cap(word: str) -> bool:
    return word[0].isupper() or bool(P.CAMEL_RE.fullmatch(word))


def _known_key(key: str, surface: str | None = None) -> bool:
    if surface is not None and key in P.CASED_ACRONYM_KEYS and not surface.isupper():
        return False
    return (key in P.ORG_GAZ or key in P.PLACE_GAZ or key in P.PRODUCT_GAZ or key in P.CONCEPT_GAZ
            or key in P.EVENT_GAZ or key in P.PERSON_GAZ or key in P.AMBIGUOUS_ORG_KNOWN)


def _cased_known(word: str) -> bool:
    """An all-caps gazetteer acronym that is also a stopword when lower-cased ("WHO", "US")."""
    return word.isupper() and len(word) > 1 and _known_key(normalize_name(word), word)


def _en_votes(words: list[str], surface: str, *, title: bool, legal: bool) -> Counter:
    """Type votes from the shape of an English name."""
    v: Counter = Counter()
    key = normalize_name(surface)
    if key in P.CASED_ACRONYM_KEYS and not surface.isupper():
        key = ""                                  # "Who", "Rest": not the acronym
    low = [w.lower() for w in words]
    first, last, n = low[0], low[-1], len(words)
    if title:
        v["PERSON"] += 5
    if legal:
        v["ORG"] += 5
    for gaz, typ, w in ((P.PERSON_GAZ, "PERSON", 5), (P.ORG_GAZ, "ORG", 4), (P.PLACE_GAZ, "PLACE", 4),
                        (P.PRODUCT_GAZ, "PRODUCT", 4), (P.CONCEPT_GAZ, "CONCEPT", 4), (P.EVENT_GAZ, "EVENT", 4)):
        if key in gaz:
            v[typ] += w
    head = False
    if n >= 2:
        if last in P.ORG_HEADS or (first in P.ORG_FIRST and ("of" in low or "for" in low)):
            v["ORG"] += 3
            head = True
        if first in P.PRODUCT_FIRST:
            v["PRODUCT"] += 4
            head = True
        elif last in P.PRODUCT_HEADS:
            v["PRODUCT"] += 3
            head = True
        if P.VERSION_RE.fullmatch(words[-1]):
            v["PRODUCT"] += 2
            head = True
        if last in P.EVENT_HEADS:
            v["EVENT"] += 3
            head = True
        if last in P.PLACE_HEADS or first in ("mount", "lake", "cape", "gulf", "isle", "fort"):
            v["PLACE"] += 3
            head = True
    if not head and not v:
        name_like = all(_NAME_WORD_RE.fullmatch(w) for w in words)
        if 2 <= n <= 4 and first in P.FIRST_NAMES and name_like:
            v["PERSON"] += 3
        elif n in (2, 3) and name_like and first in P.PINYIN_SURNAMES and all(len(w) <= 7 for w in words):
            v["PERSON"] += 2
        elif n == 2 and name_like and low[1] in P.PINYIN_SURNAMES and len(words[0]) <= 7:
            v["PERSON"] += 1
        elif n == 1 and first in P.FIRST_NAMES:
            v["PERSON"] += 2
        elif n == 1 and P.ACRONYM_RE.fullmatch(surface):
            v["CONCEPT"] += 1
        elif n == 1 and P.CAMEL_RE.fullmatch(surface):
            v["PRODUCT"] += 1
    return v


_NAME_WORD_RE = re.compile(r"[A-Z][a-z]*(?:['’-][A-Z]?[a-z]+)*")


def _initials(surface: str) -> str:
    words = [w for w in re.split(r"[\s\-]+", surface) if w and w.lower() not in
             ("of", "for", "and", "the", "a", "an", "in", "on", "to", "with", "&")]
    return "".join(w[0] for w in words).upper()


_HYPHEN_TAIL_RE = re.compile(r"(.+?)-([a-z]+)")


class _DocContext:
    """Per-text facts used to judge sentence-initial words."""

    def __init__(self, text: str, sentences: list[tuple[int, int]]) -> None:
        self.tokens: list[list[tuple[int, int, str]]] = []
        self.initial: list[set[int]] = []          # sentence-, line- and label-initial token indexes
        self.lower_words: set[str] = set()
        self.mid_caps: set[str] = set()          # capitalised words seen somewhere not sentence-initially
        for s, e in sentences:
            toks = [(m.start(), m.end(), m.group()) for m in P.WORD_RE.finditer(text, s, e)]
            initial: set[int] = set()
            prev_end = s
            for k, (ts, te, w) in enumerate(toks):
                lead = text[prev_end:ts]
                if k == 0 or "\n" in lead or lead.rstrip().endswith(":") or (
                        k - 1 in initial and toks[k - 1][2].isdigit() and lead.strip() in (".", ")")):
                    initial.add(k)                           # "1. Apple ...", "Owner: ...", new line
                prev_end = te
            self.tokens.append(toks)
            self.initial.append(initial)
            for k, (ts, _, w) in enumerate(toks):
                if w.islower():
                    self.lower_words.add(w)
                elif k not in initial and _is_cap(w):
                    self.mid_caps.add(w)


@dataclass
class _SentenceContext:
    si: int
    initials: set[int]
    doc: _DocContext
    food_ctx: bool
    strong_food_ctx: bool
    company_ctx: bool
    heading: bool


def _other_org_in(text: str, toks: list, parts: list[int]) -> bool:
    """True if another well-known company is named in the sentence ("Apple, Microsoft and Google")."""
    own = set(parts)
    return any(k not in own and normalize_name(t[2]) in P.ORG_GAZ for k, t in enumerate(toks))


class OfflineExtractor:
    """Rule-based English + Chinese extractor; pure Python plus jieba, no model download."""

    def extract(self, text: str) -> Extraction:
        if not text or not text.strip():
            return Extraction([], [])
        sentences = split_sentences(text)
        cands: list[_Cand] = []
        doc = _DocContext(text, sentences)
        for si, (s, e) in enumerate(sentences):
            self._english(text, s, e, si, doc, cands)
            self._quoted(text, s, e, si, cands)
            if P.CJK_RE.search(text, s, e):
                self._chinese(text, s, e, si, cands)
        cands = self._filter_weak(cands)
        accepted = self._resolve_overlaps(cands)
        for c in accepted:
            self._context_votes(text, c)
        return _assemble(text, sentences, accepted)

    # ---------------------------------------------------------------- English
    def _english(self, text: str, s: int, e: int, si: int, doc: "_DocContext", out: list[_Cand]) -> None:
        sentence = text[s:e]
        toks = doc.tokens[si]
        n = len(toks)
        initials = doc.initial[si]
        if n >= 3 and sum(1 for t in toks if t[2].isupper() and len(t[2]) > 1) * 5 >= n * 4:
            toks, n = [], 0                                  # SHOUTED HEADING: no name candidates
        food_ctx = bool(P.FOOD_CONTEXT_RE.search(sentence))
        ctx = _SentenceContext(
            si=si, initials=initials, doc=doc, food_ctx=food_ctx,
            strong_food_ctx=bool(P.FOOD_STRONG_CONTEXT_RE.search(sentence)),
            company_ctx=bool(P.COMPANY_CONTEXT_RE.search(sentence)),
            heading=sentence.lstrip().startswith("#"),
        )
        i = 0
        while i < n:
            ts, te, word = toks[i]
            if not _is_cap(word):
                i += 1
                continue
            parts = [i]
            end = te
            legal = False
            j = i
            while j + 1 < n:
                nxt_s, nxt_e, nxt = toks[j + 1]
                gap = text[toks[j][1]:nxt_s]
                cur = toks[j][2]
                if gap in (" ", ", ", ",  ") and nxt.lower() in P.LEGAL_SUFFIXES and nxt[0].isupper():
                    parts.append(j + 1)
                    end = nxt_e + (1 if nxt.lower() in P.LEGAL_ABBREV and text[nxt_e:nxt_e + 1] == "." else 0)
                    legal = True
                    j += 1
                    break
                if gap == ". " and cur.lower() in P.TITLES and _is_cap(nxt):
                    parts.append(j + 1)
                    end = nxt_e
                    j += 1
                    continue
                if gap not in (" ", "  "):
                    if gap.strip() == "&" and len(gap) <= 3 and cur.lower() in P.OF_HEADS and _is_cap(nxt):
                        parts.append(j + 1)
                        end = nxt_e
                        j += 1
                        continue
                    break
                if _is_cap(nxt) and (nxt.lower() not in P.STOPWORDS or nxt.lower() in P.TITLES):
                    if nxt.lower() in P.MONTHS_DAYS or nxt.lower() in ("i",):
                        break
                    parts.append(j + 1)
                    end = nxt_e
                    j += 1
                    continue
                if (nxt.lower() in P.CONNECTORS and nxt.islower() and j + 2 < n
                        and text[nxt_e:toks[j + 2][0]] == " " and _is_cap(toks[j + 2][2])
                        and toks[j + 2][2].lower() not in P.STOPWORDS
                        and (cur.lower() in P.OF_HEADS or nxt in P.NAME_PARTICLES)):
                    parts.extend((j + 1, j + 2))
                    end = toks[j + 2][1]
                    j += 2
                    continue
                if P.VERSION_RE.fullmatch(nxt) and cur.lower() not in P.STOPWORDS and not cur.isdigit():
                    parts.append(j + 1)
                    end = nxt_e
                    j += 1
                break
            i = j + 1
            self._emit_sequence(text, toks, parts, end, legal, ctx, out)
        # lowercase food words ("we baked an apple pie")
        food_hits = [m for m in P.FOOD_RE.finditer(text, s, e) if m.group().islower()]
        if food_hits and (food_ctx or len(food_hits) >= 2):
            for m in food_hits:
                surface = m.group()
                out.append(_Cand(m.start(), m.end(), surface, "food:" + _singular(surface.lower()),
                                 _vote(FOOD=5), 2, si))
        # technical key phrases ("knowledge graph", "reciprocal rank fusion")
        for m in P.CONCEPT_PHRASE_RE.finditer(text, s, e):
            surface = m.group(1)
            out.append(_Cand(m.start(1), m.end(1), surface, normalize_name(surface), _vote(CONCEPT=4), 2, si))

    def _emit_sequence(self, text: str, toks: list, parts: list[int], end: int, legal: bool,
                       ctx: "_SentenceContext", out: list[_Cand]) -> None:
        title = False
        orig_last = parts[-1]
        initials, doc, si = ctx.initials, ctx.doc, ctx.si
        # leading stopwords / titles / sentence-initial common words
        while parts:
            w = toks[parts[0]][2]
            low = w.lower()
            rest = len(parts) > 1
            if low in P.TITLES and rest and not _legal_suffix_only(toks, parts[1:]):
                title = True
                parts = parts[1:]
                continue
            if (low in P.STOPWORDS or low in P.CONNECTORS) and not _cased_known(w):
                parts = parts[1:]
                continue
            if parts[0] in initials and rest:
                full_known = _known_key(normalize_name(text[toks[parts[0]][0]:end]))
                rest_key = normalize_name(text[toks[parts[1]][0]:end])
                if low in P.INITIAL_STOPWORDS and not full_known:
                    parts = parts[1:]
                    continue
                if (not full_known and not _known_key(normalize_name(w)) and w not in doc.mid_caps
                        and (_known_key(rest_key) or legal) and low not in P.FIRST_NAMES):
                    parts = parts[1:]                       # "Keep OpenAI Inc.", "Use Anthropic"
                    continue
                if (not _known_key(normalize_name(w)) and low not in P.PRODUCT_FIRST
                        and low not in P.ORG_FIRST and low not in P.PLACE_FIRST and low not in P.FIRST_NAMES
                        and (_looks_common(w) or low in doc.lower_words)):
                    parts = parts[1:]
                    continue
            break
        # trailing connectors / stopwords (never a legal suffix)
        while parts and not legal:
            w = toks[parts[-1]][2]
            if w.lower() in P.CONNECTORS or (w.lower() in P.STOPWORDS and w.lower() not in P.TITLES
                                             and not _cased_known(w)):
                parts = parts[:-1]
                end = toks[parts[-1]][1] if parts else end
                continue
            break
        if not parts:
            return
        words = [toks[k][2] for k in parts]
        if legal and len(words) == 1:
            return
        start = toks[parts[0]][0]
        if not (legal and parts[-1] == orig_last):
            end = toks[parts[-1]][1]
        extra: Counter = Counter()
        if len(words) == 1:
            w = words[0]
            # hyphenated with a lower-case tail: "Zurich-based", "EU-hosted", "Per-project"
            m = _HYPHEN_TAIL_RE.fullmatch(w)
            if m:
                head_word = m.group(1)
                if m.group(2).lower() in ("based", "headquartered", "born"):
                    extra["PLACE"] += 2
                elif not (_known_key(normalize_name(head_word)) or P.ACRONYM_RE.fullmatch(head_word)):
                    return
                w = head_word
                end = start + len(w)
                words = [w]
            low = w.lower()
            key = normalize_name(w)
            known = _known_key(key, w)
            if (low in P.STOPWORDS and not _cased_known(w)) or low in P.TITLES or low in P.LEGAL_SUFFIXES or len(w) < 2 \
                    or re.fullmatch(r"[IVX]+", w):
                return
            if (low in P.INITIAL_STOPWORDS or low in P.HEAD_WORDS) and not known:
                return
            if low in P.NON_ENTITY_ACRONYMS or w.rstrip("s").lower() in P.NON_ENTITY_ACRONYMS:
                return
            if parts[0] in initials and text[end:end + 1] == ":" and not known:
                return                                               # "Contact: ...", "Note: ..."
            if re.fullmatch(r"[A-Z]{2,}s", w):                       # "LLMs" -> "LLM"
                end -= 1
                w = text[start:end]
            strong = (known or P.ACRONYM_RE.fullmatch(w) or P.CAMEL_RE.fullmatch(w)
                      or any(ch.isdigit() for ch in w) or low in P.FIRST_NAMES)
            if parts[0] in initials and not strong:
                after = text[end:end + 60]
                if _looks_common(w) or low in doc.lower_words:
                    return
                if w not in doc.mid_caps and not (P.EN_PREDICATE_AFTER_RE.match(after)
                                                  or P.ORG_VERB_AFTER_RE.match(after)
                                                  or P.PERSON_VERB_AFTER_RE.match(after)):
                    return                                           # "Steps", "Rollback", "Purpose"
            if w.isdigit() or P.QUARTER_RE.fullmatch(w):
                return
        elif len(words) >= 3 and all(x.isupper() for x in words) and any(len(x) > 4 for x in words):
            return                                                   # shouted heading
        surface = text[start:end]
        key = normalize_name(surface)
        if not key or key.isdigit():
            return
        # "Anthropic Claude", "Microsoft Azure": company + its product -> two mentions
        if len(words) >= 2 and not _known_key(key) and normalize_name(words[0]) in P.ORG_GAZ \
                and normalize_name(text[toks[parts[1]][0]:end]) in P.PRODUCT_GAZ:
            w0_end = toks[parts[0]][1]
            w1_start = toks[parts[1]][0]
            out.append(_Cand(start, w0_end, text[start:w0_end], normalize_name(words[0]), _vote(ORG=4), 2, si))
            out.append(_Cand(w1_start, end, text[w1_start:end], normalize_name(text[w1_start:end]),
                             _vote(PRODUCT=4), 2, si))
            return
        votes = _en_votes(words, surface, title=title, legal=legal) + extra
        if ctx.heading and not votes:
            return                                                   # "# Retrieval Architecture Note"
        if key in P.AMBIGUOUS_ORG and not legal:
            after = text[end:end + 60]
            company = ctx.company_ctx or bool(P.ORG_VERB_AFTER_RE.match(after))
            if key in _FOOD_KEYS and not company and (
                    P.FOOD_NEXT_RE.match(after)
                    or (ctx.strong_food_ctx and not _other_org_in(text, toks, parts))):
                out.append(_Cand(start, end, surface, "food:" + _singular(key), _vote(FOOD=5), 2, si))
                return
            votes["ORG"] += 4 if company else 2
        elif key in _FOOD_KEYS and not votes and ctx.food_ctx:
            out.append(_Cand(start, end, surface, "food:" + _singular(key), _vote(FOOD=5), 2, si))
            return
        out.append(_Cand(start, end, surface, key, votes, 2, si))

    # ---------------------------------------------------------------- quoted terms
    def _quoted(self, text: str, s: int, e: int, si: int, out: list[_Cand]) -> None:
        for rx, typ in P.QUOTE_RES:
            for m in rx.finditer(text, s, e):
                qs, qe = m.start(1), m.end(1)
                while qs < qe and text[qs].isspace():
                    qs += 1
                while qe > qs and text[qe - 1].isspace():
                    qe -= 1
                inner = text[qs:qe]
                if not inner or P.QUOTE_BAD_RE.search(inner):
                    continue
                key = normalize_name(inner)
                if not key or key.isdigit():
                    continue
                if P.CJK_RE.search(inner):
                    if len(inner) > 20:
                        continue
                    votes = _vote(**{typ: 1})
                else:
                    words = inner.split()
                    if len(words) > 6 or len(inner) < 2:
                        continue
                    stop = sum(1 for w in words if w.lower() in P.STOPWORDS)
                    if stop * 2 > len(words) or (inner.islower() and len(words) > 4):
                        continue
                    clean = [w for w in re.findall(r"[A-Za-z0-9][\w.+-]*", inner)] or [inner]
                    votes = _en_votes(clean, inner, title=False, legal=False)
                    if not votes:
                        votes = _vote(**{typ: 1})
                out.append(_Cand(qs, qe, inner, key, votes, 3, si, english=not P.CJK_RE.search(inner)))

    # ---------------------------------------------------------------- Chinese
    def _chinese(self, text: str, s: int, e: int, si: int, out: list[_Cand]) -> None:
        sentence = text[s:e]
        fixed: list[tuple[int, int, str, str]] = []      # (start, end, kind, type) absolute offsets
        for m in _ZH_GAZ_RE.finditer(sentence):
            word = m.group()
            typ = _ZH_GAZ_TYPE[word]
            if word in P.ZH_AMBIGUOUS_ORG:
                typ = _zh_ambiguous_type(word, sentence, m.end())
            fixed.append((s + m.start(), s + m.end(), "gaz", typ))
        raw = _zh_tokens(sentence, s)
        # a place name inside a longer jieba place/institution token ("深圳" in "深圳大学") yields to it
        fixed = [f for f in fixed if not (f[3] == "PLACE" and any(
            ts <= f[0] and f[1] <= te and (te - ts) > (f[1] - f[0])
            and (flag in ("nt", "ns") or w.endswith(P.ZH_ORG_SUFFIXES)) for ts, te, w, flag in raw))]
        bounds = {t[0] for t in raw} | {t[1] for t in raw}
        for m in P.ZH_PERSON_RE.finditer(sentence):
            ms, me = s + m.start(), s + m.end()
            name = m.group()
            if name in P.ZH_STOP_NOUNS or (raw and (ms not in bounds or me not in bounds)):
                continue
            if any(fs < me and ms < fe for fs, fe, _, _ in fixed):
                continue
            fixed.append((ms, me, "person", "PERSON"))
        fixed.sort()
        # token stream: fixed spans + jieba tokens (pieces) outside them
        stream: list[tuple[int, int, str, str, str | None]] = []    # start, end, word, flag, fixed type
        for fs, fe, kind, typ in fixed:
            stream.append((fs, fe, text[fs:fe], kind, typ))
        for ts, te, w, flag in raw:
            pieces = [(ts, te)]
            for fs, fe, _, _ in fixed:
                nxt = []
                for ps_, pe_ in pieces:
                    if fe <= ps_ or fs >= pe_:
                        nxt.append((ps_, pe_))
                        continue
                    if ps_ < fs:
                        nxt.append((ps_, fs))
                    if fe < pe_:
                        nxt.append((fe, pe_))
                pieces = nxt
            for ps_, pe_ in pieces:
                stream.append((ps_, pe_, text[ps_:pe_], flag if (ps_, pe_) == (ts, te) else "x", None))
        stream.sort()
        self._zh_chunks(text, stream, si, out)

    def _zh_chunks(self, text: str, stream: list, si: int, out: list[_Cand]) -> None:
        chunk: list[tuple] = []

        def prev_word(idx: int) -> str:
            k = idx - 1
            while k >= 0 and stream[k][2].strip() in ("", "了", "过", "着", "的"):
                k -= 1
            return stream[k][2] if k >= 0 else ""

        def next_word(idx: int) -> str:
            k = idx + 1
            while k < len(stream) and stream[k][2].strip() in ("", "了", "过", "着"):
                k += 1
            return stream[k][2] if k < len(stream) else ""

        def flush(end_idx: int) -> None:
            if chunk:
                self._emit_zh_chunk(text, list(chunk), si, out,
                                    marked=prev_word(end_idx - len(chunk)) in P.ZH_PREDICATE_WORDS
                                    or next_word(end_idx - 1) in P.ZH_PREDICATE_WORDS)
                chunk.clear()

        k = 0
        while k < len(stream):
            ts, te, w, flag, ftyp = stream[k]
            if ftyp is not None and ftyp != "PLACE" or flag == "person":
                # "北京" + "智源研究院": a place directly before an institution name belongs to it
                if ftyp == "ORG" and chunk and chunk[-1][1] == ts and w.endswith(P.ZH_ORG_SUFFIXES) \
                        and all(c[4] == "PLACE" or c[3] == "ns" for c in chunk):
                    ts = chunk[0][0]
                    chunk.clear()
                flush(k)
                end = te
                # "阿里巴巴" + "集团" / "苹果" + "公司"
                if ftyp == "ORG" and k + 1 < len(stream) and stream[k + 1][0] == te \
                        and stream[k + 1][2] in P.ZH_ORG_SUFFIX_SET:
                    end = stream[k + 1][1]
                    k += 1
                surface = text[ts:end]
                votes = _vote(**{ftyp: 5})
                key = normalize_name(surface)
                if ftyp == "FOOD":
                    key = "food:" + key
                out.append(_Cand(ts, end, surface, key, votes, 3, si, english=False))
                k += 1
                continue
            nouny = (ftyp == "PLACE" or (flag in P.ZH_NOUN_FLAGS or flag.startswith("n"))) \
                and P.CJK_RE.search(w) is not None and w not in P.ZH_PREDICATE_WORDS \
                and flag not in ("nr", "nt")
            if nouny and (not chunk or chunk[-1][1] == ts):
                chunk.append(stream[k])
            elif flag in ("nr", "nt") and P.CJK_RE.search(w):
                flush(k)
                chunk.append(stream[k])
                flush(k + 1)
            else:
                flush(k)
                if nouny:
                    chunk.append(stream[k])
            k += 1
        flush(len(stream))

    def _emit_zh_chunk(self, text: str, chunk: list[tuple], si: int, out: list[_Cand], *, marked: bool) -> None:
        # trim generic nouns at the front (never the head)
        while len(chunk) > 1 and chunk[0][2] in P.ZH_STOP_NOUNS:
            chunk = chunk[1:]
        chunk = chunk[-4:]
        ts, te = chunk[0][0], chunk[-1][1]
        surface = text[ts:te]
        head, hflag, htyp = chunk[-1][2], chunk[-1][3], chunk[-1][4]
        multi = len(chunk) >= 2
        votes: Counter = Counter()
        weak = False
        org_suffix = head in P.ZH_ORG_SUFFIX_SET or (head.endswith(_ZH_LONG_ORG_SUFFIXES)
                                                     and head not in P.ZH_ORG_SUFFIX_SET)
        if org_suffix and (multi or head not in P.ZH_ORG_SUFFIX_SET):
            votes["ORG"] += 4
        elif multi and head in P.ZH_PRODUCT_HEADS:
            votes["PRODUCT"] += 3
        elif multi and head in P.ZH_CONCEPT_HEADS:
            votes["CONCEPT"] += 3
        elif multi and (head in P.ZH_EVENT_HEADS or (len(head) >= 2 and head.endswith(("大会", "峰会", "论坛")))):
            votes["EVENT"] += 3
        elif multi and head in ("市", "省", "区", "县", "镇", "村", "州", "路", "街", "湾", "岛", "山", "河", "湖"):
            votes["PLACE"] += 3
        elif not multi:
            if htyp == "PLACE" or hflag == "ns":
                if len(surface) < 2:
                    return
                votes["PLACE"] += 5 if htyp == "PLACE" else 3
            elif hflag == "nt":
                votes["ORG"] += 3
            elif hflag == "nr":
                if len(surface) < 2:
                    return
                surname_ok = surface[0] in P.ZH_SURNAME_SET or surface[:2] in P.ZH_COMPOUND_SURNAMES
                if surname_ok and len(surface) <= 4:
                    votes["PERSON"] += 3
                else:
                    votes["PERSON"] += 1
                    weak = True
                if P.PERSON_VERB_AFTER_ZH.match(text, te):
                    votes["PERSON"] += 1
            elif hflag in ("nz", "n", "nrt", "j", "nw", "nrfg"):
                if len(surface) < 2 or surface in P.ZH_STOP_NOUNS:
                    return
                votes["OTHER" if hflag == "nrt" else "CONCEPT"] += 1
                weak = True
            else:
                return
        else:
            if chunk[0][4] == "PLACE" or chunk[0][3] == "ns":     # "中国" + "人民..." -> place + rest
                self._emit_zh_chunk(text, chunk[:1], si, out, marked=False)
                self._emit_zh_chunk(text, chunk[1:], si, out, marked=marked)
                return
            if surface in P.ZH_STOP_NOUNS or all(c[2] in P.ZH_STOP_NOUNS for c in chunk):
                return
            votes["CONCEPT"] += 1
            weak = True
        if surface in P.ZH_STOP_NOUNS:
            return
        out.append(_Cand(ts, te, surface, normalize_name(surface), votes, 1, si, english=False,
                         weak=weak, marked=marked, plain_noun=not multi and hflag in ("n", "vn")))

    # ---------------------------------------------------------------- selection
    @staticmethod
    def _filter_weak(cands: list[_Cand]) -> list[_Cand]:
        """Chinese noun candidates survive when pattern-marked, already strong, or frequent
        (plain nouns 3+ times, other noun classes 2+ times)."""
        counts = Counter(c.key for c in cands)
        strong_keys = {c.key for c in cands if not c.weak}
        return [c for c in cands if not c.weak or c.marked or c.key in strong_keys
                or counts[c.key] >= (3 if c.plain_noun else 2)]

    @staticmethod
    def _resolve_overlaps(cands: list[_Cand]) -> list[_Cand]:
        by_span: dict[tuple[int, int], _Cand] = {}
        for c in cands:
            prev = by_span.get((c.start, c.end))
            if prev is None:
                by_span[(c.start, c.end)] = c
                continue
            # same span from two detectors: keep the stronger key, sum votes
            winner, loser = (c, prev) if c.priority > prev.priority else (prev, c)
            if loser.key.startswith("food:") and not winner.key.startswith("food:"):
                winner, loser = loser, winner
            winner.votes = winner.votes + loser.votes
            winner.priority = max(winner.priority, loser.priority)
            by_span[(c.start, c.end)] = winner
        ordered = sorted(by_span.values(), key=lambda c: (-c.priority, -(c.end - c.start), c.start))
        accepted: list[_Cand] = []
        taken = bytearray(max((c.end for c in ordered), default=0))
        for c in ordered:
            if any(taken[c.start:c.end]):
                continue
            taken[c.start:c.end] = b"\x01" * (c.end - c.start)
            accepted.append(c)
        accepted.sort(key=lambda c: c.start)
        return accepted

    @staticmethod
    def _context_votes(text: str, c: _Cand) -> None:
        if c.key.startswith("food:") or not c.english:
            return
        after = text[c.end:c.end + 60]
        before = text[max(0, c.start - 50):c.start]
        if P.ORG_VERB_AFTER_RE.match(after):
            c.votes["ORG"] += 1
        if P.PERSON_VERB_AFTER_RE.match(after):
            c.votes["PERSON"] += 1
        if " " in c.surface and _NAME_WORD_RE.fullmatch(c.surface.split()[0]) and not c.votes.get("ORG") \
                and not c.votes.get("PRODUCT") and not c.votes.get("PLACE") \
                and (P.PERSON_AFTER_ROLE_RE.match(after) or P.PERSON_LABEL_BEFORE_RE.search(before)):
            c.votes["PERSON"] += 2
        if P.PLACE_BEFORE_RE.search(before):
            c.votes["PLACE"] += 3
        if P.ORG_BEFORE_RE.search(before):
            c.votes["ORG"] += 2


def _legal_suffix_only(toks: list, parts: list[int]) -> bool:
    return all(toks[k][2].lower() in P.LEGAL_SUFFIXES for k in parts)


_ZH_LONG_ORG_SUFFIXES = tuple(sfx for sfx in P.ZH_ORG_SUFFIXES if len(sfx) >= 2)
_FOOD_KEYS = frozenset(P.FOOD_WORDS) | frozenset(w + "s" for w in P.FOOD_WORDS)


def _singular(word: str) -> str:
    if word in P.FOOD_WORDS:
        return word
    for cut, add in (("ies", "y"), ("es", ""), ("s", "")):
        if word.endswith(cut) and word[: -len(cut)] + add in P.FOOD_WORDS:
            return word[: -len(cut)] + add
    return word


def _build_zh_gazetteer() -> tuple[re.Pattern, dict[str, str]]:
    types: dict[str, str] = {}
    for words, typ in ((P.ZH_CONCEPT_GAZ, "CONCEPT"), (P.ZH_PRODUCT_GAZ, "PRODUCT"), (P.ZH_PLACE_GAZ, "PLACE"),
                       (P.ZH_FOOD, "FOOD"), (P.ZH_ORG_GAZ, "ORG")):
        for w in words:
            if len(w) >= 2:
                types[w] = typ
    for w in P.ZH_AMBIGUOUS_ORG:
        types[w] = "ORG"
    rx = re.compile("|".join(re.escape(w) for w in sorted(types, key=len, reverse=True)))
    return rx, types


_ZH_GAZ_RE, _ZH_GAZ_TYPE = _build_zh_gazetteer()


def _zh_ambiguous_type(word: str, sentence: str, end: int) -> str:
    """苹果 / 小米: company or food, decided from the sentence."""
    rel_end = end
    tail = sentence[rel_end:rel_end + 4]
    if re.match(r"(?:公司|集团|手机|发布|推出|股价|的CEO|的产品|科技)", tail):
        return "ORG"
    if re.match(r"(?:派|汁|酱|粥|干|片|树|园|醋)", tail):
        return "FOOD"
    rest = sentence.replace(word, "")
    food = bool(P.ZH_FOOD_CONTEXT_RE.search(rest))
    company = bool(P.ZH_COMPANY_CONTEXT_RE.search(rest))
    if food and not company:
        return "FOOD"
    if company and not food:
        return "ORG"
    return "FOOD" if word == "苹果" else "ORG"


# ============================================================================================
# Assembly: merge mentions, type entities, relations
# ============================================================================================

@dataclass
class _Group:
    key: str
    mentions: list[_Cand]
    votes: Counter
    name: str = ""
    type: str = "OTHER"


def _decide_type(votes: Counter) -> str:
    best = [(v, t) for t, v in votes.items() if v > 0 and t in _TIE_ORDER]
    if not best:
        return "OTHER"
    return min(best, key=lambda x: (-x[0], _TIE_ORDER[x[1]]))[1]


def _acronym_letters(surface: str) -> str:
    core = surface[:-1] if re.fullmatch(r"[A-Z]{2,}s", surface) else surface
    return re.sub(r"[^A-Z]", "", core) if P.ACRONYM_RE.fullmatch(core) else ""


def _aliases(text: str, accepted: list[_Cand]) -> dict[str, str]:
    """'Hierarchical Navigable Small World (HNSW)' / 'HNSW (Hierarchical ...)': one entity."""
    alias: dict[str, str] = {}
    for a, b in zip(accepted, accepted[1:]):
        if a.key == b.key or not re.fullmatch(r"\s*[(（]\s*", text[a.end:b.start]) \
                or not re.match(r"\s*[)）]", text[b.end:b.end + 3]):
            continue
        if not a.english and b.english and a.votes.get("PERSON") and P.CJK_RE.search(a.surface) \
                and re.fullmatch(r"[A-Z][a-z]+(?: [A-Z][a-z]+){1,2}", b.surface) \
                and (b.surface.split()[0].lower() in P.PINYIN_SURNAMES
                     or b.surface.split()[-1].lower() in P.PINYIN_SURNAMES):
            alias[b.key] = a.key                                      # 张敏（Zhang Min）
            continue
        for long, short in ((a, b), (b, a)):
            letters = _acronym_letters(short.surface)
            if len(letters) >= 2 and re.search(r"[\s-]", long.surface) and _initials(long.surface) == letters:
                alias[b.key] = a.key
                break
    return alias


def _assemble(text: str, sentences: list[tuple[int, int]], accepted: list[_Cand]) -> Extraction:
    alias = _aliases(text, accepted)
    groups: dict[str, _Group] = {}
    for c in accepted:
        key = alias.get(c.key, c.key)
        c.key = key
        g = groups.get(key)
        if g is None:
            groups[key] = g = _Group(key, [], Counter())
        g.mentions.append(c)
        g.votes.update(c.votes)
    _merge_short_names(groups)
    by_sentence: dict[int, list[_Cand]] = {}
    for c in accepted:
        by_sentence.setdefault(c.sent, []).append(c)

    # typed relation candidates (before typing, so that roles can vote)
    pending: list[tuple[int, _Cand, _Cand, list[tuple]]] = []
    for si, ms in by_sentence.items():
        for i, a in enumerate(ms):
            for b in ms[i + 1:i + 1 + MAX_PAIR_GAP_MENTIONS]:
                if b.start - a.end > MAX_PAIR_GAP_CHARS:
                    break
                if a.key == b.key:
                    continue
                found = _match_predicates(text, a, b)
                if found:
                    pending.append((si, a, b, found))
    for _, a, b, found in pending:
        rtype, reverse, constraint = found[0]
        if constraint in ("weak_in", "weak_comma"):
            continue
        src, tgt = (b, a) if reverse else (a, b)
        for cand, typ, w in _ROLE_VOTES.get(rtype, ()):
            groups[(src if cand == "s" else tgt).key].votes[typ] += w

    for g in groups.values():
        g.type = "FOOD" if g.key.startswith("food:") else _decide_type(g.votes)
        own = [m for m in g.mentions if not m.short_alias] or g.mentions
        surfaces = Counter(m.surface for m in own)
        first_pos: dict[str, int] = {}
        for m in own:
            first_pos.setdefault(m.surface, m.start)
        g.name = max(surfaces, key=lambda s_: (surfaces[s_], -first_pos[s_]))
    return _finish(text, sentences, groups, by_sentence, pending)


def _merge_short_names(groups: dict[str, _Group]) -> None:
    """In-text short names: "Helios" -> "Project Helios", "Aurora" -> "Aurora Vector Engine".

    Only a single-word name without strong type evidence is merged, and only when exactly one longer
    PRODUCT/ORG/EVENT name in the same text is "Project <word>" or starts with the word.
    """
    by_first: dict[str, list[_Group]] = {}
    for g in groups.values():
        words = g.mentions[0].surface.split()
        if len(words) >= 2 and _decide_type(g.votes) in ("PRODUCT", "ORG", "EVENT") and max(g.votes.values()) >= 3:
            lead = words[1] if words[0].lower() in P.PRODUCT_FIRST else words[0]
            by_first.setdefault(normalize_name(lead), []).append(g)
    for key, g in list(groups.items()):
        surf = g.mentions[0].surface
        if " " in surf or not g.mentions[0].english or key.startswith("food:"):
            continue
        if g.votes and max(g.votes.values()) >= 3:
            continue
        targets = [t for t in by_first.get(key, []) if t.key != key]
        if len(targets) != 1:
            continue
        target = targets[0]
        for m in g.mentions:
            m.key = target.key
            m.short_alias = True
        target.mentions.extend(g.mentions)
        target.mentions.sort(key=lambda m: m.start)
        target.votes.update(g.votes)
        del groups[key]


_ROLE_VOTES: dict[str, tuple[tuple[str, str, float], ...]] = {
    "LOCATED_IN": (("t", "PLACE", 2.0),),
    "WORKS_AT": (("s", "PERSON", 1.0), ("t", "ORG", 1.0)),
    "ACQUIRED": (("s", "ORG", 1.0), ("t", "ORG", 0.5)),
    "PARTNERED_WITH": (("s", "ORG", 0.5), ("t", "ORG", 0.5)),
    "DEVELOPED": (("t", "PRODUCT", 0.5),),
}

_LEAD_CLOSE_RE = re.compile(r"^[\"”’」』》)）\]]+")
_TRAIL_OPEN_RE = re.compile(r"[\"“‘「『《(（\[]+$")
_WS_RE = re.compile(r"\s+")


def _match_predicates(text: str, a: _Cand, b: _Cand) -> list[tuple[str, bool, str | None]]:
    between = text[a.end:b.start]
    between = _TRAIL_OPEN_RE.sub("", _LEAD_CLOSE_RE.sub("", between))
    after = text[b.end:b.end + 60]
    after = _LEAD_CLOSE_RE.sub("", after)
    found: list[tuple[str, bool, str | None]] = []
    if P.CJK_RE.search(between) or (not between.strip() and not (a.english and b.english)):
        bt = _WS_RE.sub("", between)
        if len(bt) > 24:
            return found
        at = after.lstrip()
        for rtype, brx, arx, reverse, constraint in P.ZH_RELATIONS:
            if brx.fullmatch(bt) and (arx is None or arx.match(at)):
                found.append((rtype, reverse, constraint))
        return found
    if "\n" in between:
        return found
    for rtype, brx, arx, reverse, constraint in P.EN_RELATIONS:
        if brx.fullmatch(between) and (arx is None or arx.match(after)):
            if constraint == "weak_in" and "," in between:
                constraint = "weak_comma"
            found.append((rtype, reverse, constraint))
    return found


def _constraint_ok(rtype: str, constraint: str | None, src: _Group, tgt: _Group) -> bool:
    st, tt = src.type, tgt.type
    if st == "FOOD" or tt == "FOOD":
        return False
    if rtype == "PART_OF" and tt == "PERSON":
        return False
    if rtype in _DIRECTIONAL_NOT_FROM_PLACE and st == "PLACE":
        return False
    if rtype in ("USES", "DEVELOPED") and tt in ("PLACE", "PERSON"):
        return False
    if constraint is None:
        return True
    if constraint == "not_place_source":
        return st != "PLACE"
    if constraint == "not_person_source":
        return st != "PERSON"
    if constraint == "located":
        return tt in ("PLACE", "ORG", "OTHER") and st != "CONCEPT"
    if constraint == "weak_in":
        return tt == "PLACE" and st in ("ORG", "PLACE")
    if constraint == "weak_comma":
        return tt == "PLACE" and st in ("ORG", "EVENT")
    if constraint == "person_source":
        return st == "PERSON" and tt != "PERSON"
    if constraint == "person_target":
        return tt == "PERSON"
    if constraint == "org_product":
        return st == "ORG" and tt == "PRODUCT"
    return True


_DIRECTIONAL_NOT_FROM_PLACE = frozenset(["DEVELOPED", "USES", "ACQUIRED", "PARTNERED_WITH"])


def _finish(text: str, sentences: list[tuple[int, int]], groups: dict[str, _Group],
            by_sentence: dict[int, list[_Cand]], pending: list) -> Extraction:
    order = {k: i for i, k in enumerate(groups)}            # first-appearance order (accepted is sorted)
    # display names must be unique within one extraction (relations refer to entities by name):
    # "Apple" the company and "Apple" in "Apple pie" -> the food keeps the lower-case form
    taken = Counter(g.name for g in groups.values())
    for g in groups.values():
        if taken[g.name] > 1 and g.type == "FOOD":
            taken[g.name] -= 1
            g.name = g.name.lower() if g.name.lower() not in taken else f"{g.name} (food)"
            taken[g.name] += 1
    rel: dict[tuple[str, str, str], list] = {}
    typed_pairs: set[tuple[int, frozenset]] = set()
    typed_seen: set[tuple[int, tuple[str, str, str]]] = set()
    for si, a, b, found in pending:
        for rtype, reverse, constraint in found:
            src, tgt = (b, a) if reverse else (a, b)
            gs, gt = groups[src.key], groups[tgt.key]
            if not _constraint_ok(rtype, constraint, gs, gt):
                continue
            pair = (si, frozenset((gs.key, gt.key)))
            triple = (gs.key, gt.key, rtype)
            if (si, triple) in typed_seen:
                break
            typed_pairs.add(pair)
            typed_seen.add((si, triple))
            _add_rel(rel, triple, TYPED_WEIGHT, text, sentences[si])
            break
    for si, ms in by_sentence.items():
        keys: list[str] = []
        for m in ms:
            if m.key not in keys:
                keys.append(m.key)
        keys = keys[:MAX_COOCCUR_ENTITIES]
        for i, k1 in enumerate(keys):
            for k2 in keys[i + 1:]:
                if (si, frozenset((k1, k2))) in typed_pairs:
                    continue
                a_, b_ = (k1, k2) if order[k1] <= order[k2] else (k2, k1)
                _add_rel(rel, (a_, b_, "CO_OCCURS"), COOCCUR_WEIGHT, text, sentences[si])
    entities = []
    for g in groups.values():
        spans = tuple(sorted((m.start, m.end) for m in g.mentions))
        entities.append(ExtractedEntity(g.name, g.type, spans[0][0], spans[0][1], spans))
    entities.sort(key=lambda e_: e_.start)
    relations = [ExtractedRelation(groups[s_].name, groups[t_].name, r_, w_, ev_)
                 for (s_, t_, r_), (w_, ev_) in rel.items()]
    return Extraction(entities, relations)


def _add_rel(rel: dict, triple: tuple[str, str, str], weight: float, text: str, span: tuple[int, int]) -> None:
    cur = rel.get(triple)
    if cur is None:
        rel[triple] = [weight, text[span[0]:span[1]]]
    else:
        cur[0] += weight


# ============================================================================================
# LLM extractor
# ============================================================================================

_TYPE_SYNONYMS = {
    "ORGANIZATION": "ORG", "ORGANISATION": "ORG", "COMPANY": "ORG", "INSTITUTION": "ORG", "CORPORATION": "ORG",
    "UNIVERSITY": "ORG", "AGENCY": "ORG", "PER": "PERSON", "PEOPLE": "PERSON", "HUMAN": "PERSON",
    "LOCATION": "PLACE", "LOC": "PLACE", "GPE": "PLACE", "CITY": "PLACE", "COUNTRY": "PLACE", "GEO": "PLACE",
    "TECHNOLOGY": "CONCEPT", "TECHNIQUE": "CONCEPT", "METHOD": "CONCEPT", "ALGORITHM": "CONCEPT",
    "TOPIC": "CONCEPT", "IDEA": "CONCEPT", "FIELD": "CONCEPT", "SOFTWARE": "PRODUCT", "TOOL": "PRODUCT",
    "SYSTEM": "PRODUCT", "PROJECT": "PRODUCT", "MODEL": "PRODUCT", "SERVICE": "PRODUCT", "DISH": "FOOD",
    "INGREDIENT": "FOOD", "FRUIT": "FOOD", "MISC": "OTHER", "DATE": "OTHER",
}


def coerce_entity_type(value: Any) -> str:
    t = re.sub(r"[^A-Z]", "", str(value or "").upper())
    if t in ENTITY_TYPES:
        return t
    return _TYPE_SYNONYMS.get(t, "OTHER")


class _LlmEntity(BaseModel):
    model_config = ConfigDict(extra="ignore")
    name: str
    type: str = "OTHER"

    @field_validator("name", mode="before")
    @classmethod
    def _name(cls, v: Any) -> str:
        if not isinstance(v, (str, int, float)):
            raise ValueError("entity name must be a string")
        v = str(v).strip()
        if not v or len(v) > 200:
            raise ValueError("bad entity name")
        return v

    @field_validator("type", mode="before")
    @classmethod
    def _type(cls, v: Any) -> str:
        return coerce_entity_type(v)


class _LlmRelation(BaseModel):
    model_config = ConfigDict(extra="ignore")
    source: str
    target: str
    type: str = "RELATED_TO"

    @field_validator("source", "target", mode="before")
    @classmethod
    def _endpoint(cls, v: Any) -> str:
        if not isinstance(v, (str, int, float)):
            raise ValueError("relation endpoint must be a string")
        return str(v).strip()

    @field_validator("type", mode="before")
    @classmethod
    def _rtype(cls, v: Any) -> str:
        t = re.sub(r"[^A-Z0-9]+", "_", str(v or "").upper()).strip("_")
        return t[:40] or "RELATED_TO"


class _LlmPayload(BaseModel):
    model_config = ConfigDict(extra="ignore")
    entities: list[_LlmEntity]
    relations: list[_LlmRelation] = []


_SYSTEM_PROMPT = (
    "You extract a knowledge graph from text. Return ONLY one JSON object, no prose, of the form\n"
    '{"entities":[{"name":"...","type":"..."}],"relations":[{"source":"...","target":"...","type":"..."}]}\n'
    "Rules:\n"
    f"- entity type is one of: {', '.join(ENTITY_TYPES)}.\n"
    "- entity name is copied exactly as written in the text (keep legal suffixes such as 'Inc.'); list each "
    "entity once even if it is mentioned several times or with variants.\n"
    "- relation type is one of: ACQUIRED, PART_OF, DEVELOPED, USES, LOCATED_IN, WORKS_AT, PARTNERED_WITH, "
    "or another short UPPER_SNAKE_CASE verb; source and target must be names from the entities list.\n"
    "- only relations stated in the text; the text may be English or Chinese.\n"
    "- no pronouns, dates, numbers or generic words as entities."
)

_FENCE_RE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)


def parse_llm_json(content: str) -> dict:
    """Parse a model reply into a dict, tolerating ```json fences and prose around the object."""
    if not isinstance(content, str):
        raise ValueError("model reply is not text")
    body = content.strip()
    m = _FENCE_RE.search(body)
    if m:
        body = m.group(1).strip()
    try:
        data = json.loads(body)
    except json.JSONDecodeError:
        lo, hi = body.find("{"), body.rfind("}")
        if lo < 0 or hi <= lo:
            raise
        data = json.loads(body[lo:hi + 1])
    if not isinstance(data, dict):
        raise ValueError("model reply is not a JSON object")
    return data


def _reply_content(resp: Any) -> str:
    if isinstance(resp, str):
        return resp
    choices = resp["choices"] if isinstance(resp, dict) else resp.choices
    first = choices[0]
    msg = first["message"] if isinstance(first, dict) else first.message
    content = msg["content"] if isinstance(msg, dict) else msg.content
    if not isinstance(content, str):
        raise ValueError("model reply has no text content")
    return content


def _litellm_completion(**kwargs: Any) -> Any:
    # litellm fetches a model price map at import unless told to use its bundled copy.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    return litellm.completion(**kwargs)


def _find_spans(text: str, name: str) -> list[tuple[int, int]]:
    """All occurrences of ``name`` (exact case first, then any case); ASCII ends respect word boundaries."""
    pat = re.escape(name)
    if name[0].isascii() and name[0].isalnum():
        pat = r"(?<![A-Za-z0-9])" + pat
    if name[-1].isascii() and name[-1].isalnum():
        pat += r"(?![A-Za-z0-9])"
    spans = [(m.start(), m.end()) for m in re.finditer(pat, text)]
    if not spans:
        spans = [(m.start(), m.end()) for m in re.finditer(pat, text, re.IGNORECASE)]
    return spans


class LlmExtractor:
    """Entity/relation extraction through a chat model (``litellm``), validated, with offline fallback."""

    def __init__(self, model: str, fallback: Extractor | None = None,
                 completion: Callable[..., Any] | None = None, max_chars: int = 12000) -> None:
        self.model = model
        self.fallback: Extractor = fallback if fallback is not None else OfflineExtractor()
        self._completion = completion
        self.max_chars = max_chars

    def messages(self, text: str) -> list[dict[str, str]]:
        return [
            {"role": "system", "content": _SYSTEM_PROMPT},
            {"role": "user", "content": f"Text:\n<<<\n{text[:self.max_chars]}\n>>>\nJSON:"},
        ]

    def extract(self, text: str) -> Extraction:
        if not text or not text.strip():
            return Extraction([], [])
        try:
            completion = self._completion or _litellm_completion
            resp = completion(model=self.model, messages=self.messages(text), temperature=0)
            payload = _LlmPayload.model_validate(parse_llm_json(_reply_content(resp)))
            return self._to_extraction(text, payload)
        except (ValidationError, ValueError, KeyError, IndexError, AttributeError, TypeError) as exc:
            log.warning("LLM extraction returned malformed output (%s); using offline extractor",
                        str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
        except Exception as exc:  # network, auth, rate limit, ...
            log.warning("LLM extraction failed (%s: %s); using offline extractor", type(exc).__name__, exc)
        return self.fallback.extract(text)

    def _to_extraction(self, text: str, payload: _LlmPayload) -> Extraction:
        sentences = split_sentences(text)
        # variant mentions ("Open AI" for "OpenAI") come from the offline rules, keyed by normalize_name
        offline: dict[tuple[str, bool], list[tuple[int, int]]] = {}
        try:
            for oe in _DEFAULT_OFFLINE.extract(text).entities:
                offline.setdefault((normalize_name(oe.name), oe.type == "FOOD"), []).extend(oe.mentions)
        except Exception as exc:  # pragma: no cover - the rules should never break the LLM path
            log.warning("offline mention lookup failed: %s", exc)
        found: dict[str, tuple[str, str, list[tuple[int, int]]]] = {}
        for ent in payload.entities:
            key = normalize_name(ent.name)
            if not key:
                continue
            exact = _find_spans(text, ent.name)
            spans = sorted(set(exact) | set(offline.get((key, ent.type == "FOOD"), ())))
            if not spans:
                continue        # not in the text: hallucinated or paraphrased
            if not exact or text[exact[0][0]:exact[0][1]] != ent.name:
                ent = ent.model_copy(update={"name": text[spans[0][0]:spans[0][1]]})
            if key in found:
                name, typ, old = found[key]
                found[key] = (name, typ if typ != "OTHER" else ent.type, sorted(set(old) | set(spans)))
            else:
                found[key] = (ent.name, ent.type, spans)
        if payload.entities and not found:
            raise ValueError("none of the model's entities occur in the text")
        # drop spans nested inside a longer entity's span ("OpenAI" inside "OpenAI Inc.")
        all_spans = [(s_, e_, k) for k, (_, _, sp) in found.items() for s_, e_ in sp]
        groups: dict[str, _Group] = {}
        cands: list[_Cand] = []
        for k, (name, typ, spans) in found.items():
            kept = [sp for sp in spans if not any(o_s <= sp[0] and sp[1] <= o_e and (o_e - o_s) > (sp[1] - sp[0])
                                                   for o_s, o_e, _ in all_spans)] or spans
            g = _Group(k, [], Counter(), name=name, type=typ)
            for s_, e_ in sorted(set(kept)):
                si = next((i for i, (a_, b_) in enumerate(sentences) if a_ <= s_ < b_), 0)
                c = _Cand(s_, e_, text[s_:e_], k, Counter(), 0, si)
                g.mentions.append(c)
                cands.append(c)
            groups[k] = g
        cands.sort(key=lambda c: c.start)
        groups = dict(sorted(groups.items(), key=lambda kv: kv[1].mentions[0].start))
        by_sentence: dict[int, list[_Cand]] = {}
        for c in cands:
            by_sentence.setdefault(c.sent, []).append(c)
        base = _finish(text, sentences, groups, by_sentence, [])
        typed: list[ExtractedRelation] = []
        seen: set[tuple[str, str, str]] = set()
        typed_pairs: set[frozenset] = set()
        for r in payload.relations:
            ks, kt = normalize_name(r.source), normalize_name(r.target)
            if ks not in groups or kt not in groups or ks == kt or (ks, kt, r.type) in seen:
                continue
            seen.add((ks, kt, r.type))
            typed_pairs.add(frozenset((ks, kt)))
            gs, gt = groups[ks], groups[kt]
            typed.append(ExtractedRelation(gs.name, gt.name, r.type, TYPED_WEIGHT,
                                           _evidence(text, sentences, gs, gt)))
        name_key = {g.name: k for k, g in groups.items()}
        co = [r for r in base.relations
              if frozenset((name_key[r.source], name_key[r.target])) not in typed_pairs]
        return Extraction(base.entities, typed + co)


def _evidence(text: str, sentences: list[tuple[int, int]], a: _Group, b: _Group) -> str:
    sa = {m.sent for m in a.mentions}
    common = sorted(sa & {m.sent for m in b.mentions})
    si = common[0] if common else min(sa)
    if not sentences:
        return text[:300]
    s_, e_ = sentences[si]
    return text[s_:e_]


# ============================================================================================
# Factory
# ============================================================================================

_DEFAULT_OFFLINE = OfflineExtractor()


def get_extractor(model: str | None = None) -> Extractor:
    """LlmExtractor when ``model`` (or ``settings.model`` / ``NE_MODEL``) is set, else the offline one."""
    if model is None:
        from config.settings import get_settings

        model = get_settings().model
    if model:
        return LlmExtractor(model, fallback=_DEFAULT_OFFLINE)
    return _DEFAULT_OFFLINE


__all__ = [
    "ENTITY_TYPES", "RELATION_TYPES", "ExtractedEntity", "ExtractedRelation", "Extraction", "Extractor",
    "OfflineExtractor", "LlmExtractor", "get_extractor", "split_sentences", "parse_llm_json",
    "coerce_entity_type",
]
