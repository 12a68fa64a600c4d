"""The rule-based English + Chinese extractor: candidates per sentence, overlaps resolved, then assembled."""
from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass

from knowledge.graph import extraction_patterns as P
from knowledge.graph.extraction.assembly import assemble
from knowledge.graph.extraction.chinese import chinese_candidates
from knowledge.graph.extraction.naming import (
    FOOD_KEYS,
    NAME_WORD_RE,
    Candidate,
    cased_known,
    english_votes,
    is_cap,
    known_key,
    looks_common,
    singular,
    type_votes,
)
from knowledge.graph.extraction.sentences import split_sentences
from knowledge.graph.extraction.types import Extraction
from knowledge.names import normalize_name

_HYPHEN_TAIL_RE = re.compile(r"(.+?)-([a-z]+)")
_DOTTED_RE = re.compile(r"[A-Z](?:\.[A-Z])+")
_SCORE_AFTER_RE = re.compile(r"\s*(?:[-–—:]|to)\s*\d|\s+(?:points?|goals?|wins?|votes?|seats?|medals?)\b")
_YEAR_BEFORE_RE = re.compile(r"(?<![\w.,])(1[5-9]\d\d|20\d\d) $")
# one capitalised word of a longer title-case name the runs of capitalised words cut apart
_FRAGMENT_AFTER_RE = re.compile(r" (?:of|the|on|v|&) [A-Z]")
_FRAGMENT_BEFORE_RE = re.compile(r"((?:[A-Z][\w'.’-]* )+)(?:of|the|on|v|&) $")
# what introduces a coined lower-case name: 'the team calls it "semantic routing"', 'the term "polytechnic"'
_COINED_BEFORE_RE = re.compile(r"\b(?:call(?:s|ed)?(?: it| them)?|known as|term(?:ed)?|dubbed|named|nicknamed)\s*$",
                               re.IGNORECASE)
_ORDINAL_BEFORE_RE = re.compile(r"(?<![\w.,])(\d+(?:st|nd|rd|th)) $")
_ROAD_NUMBER_AFTER_RE = re.compile(r"\.? (\d{1,4})\b(?![.,]\d)")
_ROAD_HEADS = frozenset(["highway", "route", "road", "rd", "interstate", "freeway", "motorway", "expressway"])
_SENTENCE_START_RE = re.compile(r"(?:\A|[.!?:]|\n)\s*(?:(?:[-*•]|\d+[.)])\s*)?$")
# a number that is a day of a date or a coordinate, not a version: "Suriname 4 July 1995", "37°32′N 77°28′W"
_DATE_OR_DEGREE_AFTER_RE = re.compile(
    r"\s+(?:January|February|March|April|May|June|July|August|September|October|November|December)\b|\s*[°′″]|,\d")


class _DocContext:
    """Per-text facts used to judge sentence-initial words."""

    def __init__(self, text: str, sentences: list[tuple[int, int]]) -> None:
        self.tokens: list[list[tuple[int, int, str]]] = []
        self.initial: list[set[int]] = []          # sentence-, line- and label-initial token indexes
        self.lower_words: set[str] = set()
        self.prose_lower_words: set[str] = set()    # lower-case words of running text, not of "#atlas", "atlas.md"
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
                    if not _HANDLE_BEFORE_RE.search(text, max(0, ts - 2), ts) and not _HANDLE_AFTER_RE.match(text, te):
                        self.prose_lower_words.add(w)
                elif k not in initial and is_cap(w):
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
    table: bool = False
    title_line: bool = False       # a heading or a line of its own: " - " there separates a title from a subtitle


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
        cands: list[Candidate] = []
        doc = _DocContext(text, sentences)
        for si, (s, e) in enumerate(sentences):
            self._english(text, s, e, si, doc, cands)
            self._quoted(text, s, e, si, cands)
            if P.CJK_RE.search(text, s, e):
                chinese_candidates(text, s, e, si, cands)
        cands.extend(_whole_names(text, sentences))
        cands = self._filter_weak(cands)
        accepted = [c for c in _without_series_names(self._resolve_overlaps(cands)) if not _office_only(c)]
        for c in accepted:
            self._context_votes(text, c)
        return assemble(text, sentences, accepted)

    # ---------------------------------------------------------------- English
    def _english(self, text: str, s: int, e: int, si: int, doc: "_DocContext", out: list[Candidate]) -> None:
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
            table=_flattened_table(toks, sentence),
            title_line=sentence.lstrip().startswith("#") or _title_line(text, s, e),
        )
        i = 0
        while i < n:
            ts, te, word = toks[i]
            if not is_cap(word):
                i += 1
                continue
            parts = [i]
            end = te
            legal = False
            cut: tuple[int, int] | None = None
            j = i
            while j + 1 < n:
                nxt_s, nxt_e, nxt = toks[j + 1]
                gap = text[toks[j][1]:nxt_s]
                cur = toks[j][2]
                nick = _NICKNAME_RE.match(text, toks[j][1]) if len(parts) == 1 and cut is None else None
                if nick and NAME_WORD_RE.fullmatch(cur) and cur.lower() not in P.STOPWORDS:
                    k = next((k for k in range(j + 1, min(n, j + 8)) if toks[k][0] == nick.end()), None)
                    if k is not None and NAME_WORD_RE.fullmatch(toks[k][2]) and toks[k][2].lower() not in P.STOPWORDS:
                        parts.append(k)                              # 'Samuel "Sam" Schultz' is Samuel Schultz
                        cut = (toks[j][1], toks[k][0])
                        end = toks[k][1]
                        j = k
                        continue
                if gap == " " and nxt == "the" and len(parts) == 1 and j + 2 < n \
                        and (j not in initials or cur.lower() in P.FIRST_NAMES) \
                        and _epithet_follows(text, toks, j, cur):
                    parts.extend((j + 1, j + 2))                     # "Edward the Confessor", "Pliny the Elder"
                    end = toks[j + 2][1]
                    j += 2
                    break
                if gap in ("' ", "’ ") and cur.endswith("s") and len(cur) > 3 and is_cap(nxt) \
                        and nxt.lower() not in P.STOPWORDS:
                    parts.append(j + 1)                              # "Seven Years' War", "Water Users' Association"
                    end = nxt_e
                    j += 1
                    continue
                if gap in ("'", "’") and nxt == "s" and j + 2 < n \
                        and (toks[parts[0]][2].lower() in _SAINT_WORDS or cur.lower() in _COMMON_POSSESSORS) \
                        and text[nxt_e:toks[j + 2][0]] == " " and is_cap(toks[j + 2][2]) \
                        and toks[j + 2][2].lower() not in P.STOPWORDS:
                    parts.extend((j + 1, j + 2))                     # "St Paul's Cathedral", "People's Republic"
                    end = toks[j + 2][1]
                    j += 2
                    continue
                if gap in (" ", ", ", ",  ") and nxt.lower() in P.LEGAL_SUFFIXES and nxt[0].isupper():
                    parts.append(j + 1)
                    end = nxt_e + (1 if nxt.lower() in P.LEGAL_ABBREV and text[nxt_e:nxt_e + 1] == "." else 0)
                    legal = True
                    j += 1
                    break
                if gap == ". " and len(cur) == 1 and cur.isupper() and is_cap(nxt) and len(parts) <= 3:
                    parts.append(j + 1)                              # "Joseph C. Szabo"
                    end = nxt_e
                    j += 1
                    continue
                if gap == ". " and _DOTTED_RE.fullmatch(cur) and (nxt.isdigit() or (
                        is_cap(nxt) and nxt.lower() not in P.TITLES and not nxt.endswith("al"))):
                    parts.append(j + 1)                              # "U.S. Supreme Court", "U.S. 95"
                    end = nxt_e
                    j += 1
                    continue
                if gap == ". " and (cur.lower() in P.TITLES or cur.lower() in P.NAME_ABBREVIATIONS) and is_cap(nxt):
                    parts.append(j + 1)
                    end = nxt_e
                    j += 1
                    continue
                if gap == ", " and _DISTRICT_RE.fullmatch(nxt) and text[nxt_e:nxt_e + 1] == "." and len(parts) <= 2:
                    parts.append(j + 1)                              # "Washington, D.C."
                    end = nxt_e + 1
                    j += 1
                    break
                if gap == ", " and nxt.lower() in ("jr", "sr") and is_cap(nxt):
                    parts.append(j + 1)                              # "Martin Luther King, Jr."
                    end = nxt_e
                    j += 1
                    break
                if gap == " - " and not ctx.title_line and _spaced_hyphen_joins(toks, parts, nxt):
                    parts.append(j + 1)                              # "Zeta - Jones", "Kim Jong - un"
                    end = nxt_e
                    j += 1
                    continue
                if gap not in (" ", "  "):
                    if gap.strip() == "&" and len(gap) <= 3 and is_cap(nxt) and nxt.lower() not in P.STOPWORDS:
                        parts.append(j + 1)
                        end = nxt_e
                        j += 1
                        continue
                    break
                if nxt.lower() in ("i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x") and nxt.isupper() \
                        and cur.lower() not in P.STOPWORDS and _regnal(text, cur, nxt, nxt_e):
                    parts.append(j + 1)                              # "World War I", "Elizabeth II"
                    end = nxt_e
                    j += 1
                    break
                if nxt.lower() in P.INFOBOX_LABELS or cur.lower() in P.INFOBOX_LABELS:
                    break
                if is_cap(nxt) and (nxt.lower() not in P.STOPWORDS or nxt.lower() in P.TITLES
                                    or _season_name(nxt, toks, j + 1)):
                    if (nxt.lower() in P.MONTHS_DAYS and not _season_name(nxt, toks, j + 1)) or nxt.lower() in ("i",):
                        break
                    parts.append(j + 1)
                    end = nxt_e
                    j += 1
                    continue
                if (nxt.lower() in P.CONNECTORS and nxt.islower() and j + 2 < n
                        and text[nxt_e:toks[j + 2][0]] == " " and is_cap(toks[j + 2][2])
                        and toks[j + 2][2].lower() not in P.STOPWORDS
                        and (cur.lower() in P.OF_HEADS or nxt in P.NAME_PARTICLES
                             or (nxt == "of" and len(parts) == 1 and _of_head(cur)))
                        and not any(toks[k][2] == "of" for k in parts)
                        and not (nxt == "and" and _coordinated(toks, parts, j + 2))):
                    parts.extend((j + 1, j + 2))
                    end = toks[j + 2][1]
                    j += 2
                    continue
                if nxt == "and" and j + 2 < n and _and_inside_name(text, toks, parts, j):
                    parts.extend((j + 1, j + 2))                     # "College of Arts and Sciences"
                    end = toks[j + 2][1]
                    j += 2
                    continue
                if nxt == "of" and cur.lower() in P.OF_HEADS and j + 3 < n and toks[j + 2][2] == "the" \
                        and text[nxt_e:toks[j + 2][0]] == " " == text[toks[j + 2][1]:toks[j + 3][0]] \
                        and is_cap(toks[j + 3][2]) and toks[j + 3][2].lower() not in P.STOPWORDS \
                        and not any(toks[k][2] == "of" for k in parts):
                    parts.extend((j + 1, j + 2, j + 3))              # "Church of the Epiphany", "Bank of the West"
                    end = toks[j + 3][1]
                    j += 3
                    continue
                if nxt in P.NAME_PARTICLES and j + 3 < n and toks[j + 2][2] in P.NAME_PARTICLES \
                        and text[nxt_e:toks[j + 2][0]] == " " == text[toks[j + 2][1]:toks[j + 3][0]] \
                        and NAME_WORD_RE.fullmatch(toks[j + 3][2]):
                    parts.extend((j + 1, j + 2, j + 3))              # "Arnoud van der Biesen", "Vicente de la Mata"
                    end = toks[j + 3][1]
                    j += 3
                    continue
                if P.VERSION_RE.fullmatch(nxt) and cur.lower() not in P.STOPWORDS and not cur.isdigit() \
                        and len(cur) > 1 and not _SCORE_AFTER_RE.match(text, nxt_e) \
                        and not _DATE_OR_DEGREE_AFTER_RE.match(text, nxt_e) and normalize_name(cur) not in P.PLACE_GAZ:
                    parts.append(j + 1)
                    end = nxt_e
                    j += 1
                break
            i = j + 1
            self._emit_sequence(text, toks, parts, end, legal, ctx, out, cut)
        # lowercase food words ("we baked an apple pie")
        food_hits = [m for m in P.FOOD_RE.finditer(text, s, e) if m.group().islower()]
        if food_hits and (food_ctx or len(food_hits) >= 2):
            for m in food_hits:
                surface = m.group()
                out.append(Candidate(m.start(), m.end(), surface, "food:" + singular(surface.lower()),
                                     type_votes(FOOD=5), 2, si))
        # technical key phrases ("knowledge graph", "reciprocal rank fusion")
        for m in P.CONCEPT_PHRASE_RE.finditer(text, s, e):
            surface = m.group(1)
            out.append(Candidate(m.start(1), m.end(1), surface, normalize_name(surface), type_votes(CONCEPT=4), 2, si))

    def _emit_sequence(self, text: str, toks: list, parts: list[int], end: int, legal: bool,
                       ctx: "_SentenceContext", out: list[Candidate], cut: tuple[int, int] | None = None) -> None:
        title = False
        orig_last = parts[-1]
        initials, doc, si = ctx.initials, ctx.doc, ctx.si
        # leading stopwords / titles / sentence-initial common words; a word after a dropped sentence-initial
        # one is judged as sentence-initial too ("## Recommendation Keep OpenAI Inc.")
        initial = parts[0] in initials
        while parts:
            w = toks[parts[0]][2]
            low = w.lower()
            rest = len(parts) > 1
            if low in P.TITLES and rest and not _legal_suffix_only(toks, parts[1:]):
                title = True
                if low.rstrip(".") in _HONORIFICS and len(parts) == 2 \
                        and toks[parts[1]][2].lower() not in P.FIRST_NAMES \
                        and NAME_WORD_RE.fullmatch(toks[parts[1]][2]):
                    break                                   # "Mrs. Medlock", "Lord Dalhousie": a surname alone
                parts = parts[1:]
                initial = bool(parts) and parts[0] in initials
                continue
            if (low in P.STOPWORDS or (low in P.CONNECTORS and not (w[0].isupper() and low in P.NAME_PARTICLES
                                                                    and rest))) and not cased_known(w) \
                    and not (rest and _season_name(w, toks, parts[0])) \
                    and not (rest and low in _ORDINALS and (toks[parts[-1]][2].lower() in _ORDINAL_NAME_HEADS
                                                            or parts[0] not in initials)) \
                    and not (rest and low in _CARDINALS and toks[parts[-1]][2].lower() in _ORDINAL_NAME_HEADS) \
                    and not (rest and low in _COMPASS_ADJECTIVES and parts[0] not in initials):
                parts = parts[1:]
                initial = bool(parts) and parts[0] in initials
                continue
            if rest and w.isupper() and low in P.NON_ENTITY_ACRONYMS:
                parts = parts[1:]                           # "The 180 MW Tatanka Wind Farm": a unit
                initial = False
                continue
            if low in P.NATIONALITIES and rest and any(toks[k][2].lower() in P.TITLES for k in parts[1:3]):
                parts = parts[1:]                           # "British Prime Minister ..."
                initial = False
                continue
            if initial and rest:
                full_known = known_key(normalize_name(text[toks[parts[0]][0]:end]))
                rest_key = normalize_name(text[toks[parts[1]][0]:end])
                if low in P.INITIAL_STOPWORDS and not full_known:
                    parts = parts[1:]
                    continue
                if (not full_known and not known_key(normalize_name(w)) and w not in doc.mid_caps
                        and (known_key(rest_key) or legal) and low not in P.FIRST_NAMES):
                    parts = parts[1:]                       # "Keep OpenAI Inc.", "Use Anthropic"
                    continue
                if (not known_key(normalize_name(w)) and low not in P.PRODUCT_FIRST
                        and low not in P.ORG_FIRST and low not in P.PLACE_FIRST and low not in P.FIRST_NAMES
                        and (looks_common(w) or low in doc.lower_words)):
                    parts = parts[1:]
                    continue
            break
        # trailing connectors / stopwords (never a legal suffix)
        while parts and not legal:
            w = toks[parts[-1]][2]
            if w.lower() in P.CONNECTORS or (w.lower() in P.STOPWORDS and w.lower() not in P.TITLES
                                             and not cased_known(w) and not (w == "I" and len(parts) > 1)):
                parts = parts[:-1]
                end = toks[parts[-1]][1] if parts else end
                continue
            break
        # a unit or currency code after a name: "Anthropic EUR 9,800"
        while len(parts) >= 2 and toks[parts[-1]][2] in _CURRENCY_CODES:   # not "YouTube TV", "World War II"
            parts = parts[:-1]
        # post-nominal letters are not part of the name: "James Alexander Richey CIE", "Archibald Gordon CBE"
        while len(parts) >= 3 and toks[parts[-1]][2] in _POST_NOMINALS:
            parts = parts[:-1]
        # a nationality ends no name ("OrionEval German", "North American") and starts one only before a
        # name head ("American Civil War", "British Columbia"; not "American Precisionist")
        while len(parts) >= 2 and toks[parts[-1]][2].lower() in P.NATIONALITIES:
            parts = parts[:-1]
            left = toks[parts[0]][2]
            if len(parts) == 1 and not known_key(normalize_name(left)) and NAME_WORD_RE.fullmatch(left) \
                    and (parts[0] in initials or looks_common(left) or left.lower() in doc.prose_lower_words):
                return                                      # "Native Americans": no name left ("OrionEval" stays)
        if len(parts) == 2 and toks[parts[0]][2].lower() in P.NATIONALITIES and not legal \
                and toks[parts[-1]][2].lower() not in P.HEAD_WORDS | P.NATIONAL_NAME_HEADS:
            if not known_key(normalize_name(toks[parts[1]][2])) and toks[parts[1]][2].lower() not in P.FIRST_NAMES:
                return                                      # "Greek Revival", "Roman Catholic": an adjective phrase
            parts = parts[1:]
        # "Project Atlas Weekly": the meeting about the project names the project
        while len(parts) >= 3 and not legal and toks[parts[-1]][2].lower() in P.DOCUMENT_TAIL_WORDS \
                and (toks[parts[0]][2].lower() in P.PRODUCT_FIRST or ctx.heading):
            parts = parts[:-1]
        if not parts:
            return
        words = [toks[k][2] for k in parts]
        if legal and len(words) == 1:
            return
        if len(words) == 2 and words[0].lower() in P.COUNTED_UNITS and words[1][:1].isdigit():
            return                                                   # "Week 1", "Phase 2"
        start = toks[parts[0]][0]
        if not (legal and parts[-1] == orig_last):
            end = toks[parts[-1]][1]
        if len(words) >= 2 and _DISTRICT_RE.fullmatch(words[-1]) and text[end:end + 1] == ".":
            end += 1                                                 # "Washington, D.C." keeps its full stop
        if len(words) >= 2 and (words[-1].lower() in P.EVENT_HEADS or words[0].lower() in _SEASONS):
            year = _YEAR_BEFORE_RE.search(text, max(0, start - 6), start)
            if year:                                                 # "1920 Summer Olympics", "2014 FIFA World Cup"
                start = year.start(1)
                words = [year.group(1), *words]
        ordinal = _ORDINAL_BEFORE_RE.search(text, max(0, start - 8), start) if len(words) >= 2 else None
        if ordinal:                                                  # "the 38th Chess Olympiad", "the 11th Lok Sabha"
            start = ordinal.start(1)
            words = [ordinal.group(1), *words]
        road = _ROAD_NUMBER_AFTER_RE.match(text, end) if words[-1].lower() in _ROAD_HEADS else None
        if road:                                                     # "Arkansas Highway 251", "Cty Rd. 24"
            end = road.end()
            words = [*words, road.group(1)]
        extra: Counter = Counter()
        if len(words) == 1:
            w = words[0]
            # hyphenated with a lower-case tail: "Zurich-based", "EU-hosted", "Per-project"
            m = _HYPHEN_TAIL_RE.fullmatch(w)
            if m:
                head_word = m.group(1)
                if m.group(2).lower() in ("based", "headquartered", "born"):
                    extra["PLACE"] += 2
                elif not (known_key(normalize_name(head_word)) or P.ACRONYM_RE.fullmatch(head_word)):
                    return
                w = head_word
                end = start + len(w)
                words = [w]
            low = w.lower()
            key = normalize_name(w)
            known = known_key(key, w)
            if (low in P.STOPWORDS and not cased_known(w)) or low in P.TITLES or low in P.LEGAL_SUFFIXES or len(w) < 2 \
                    or re.fullmatch(r"[IVX]+", w):
                return
            if (low in P.INITIAL_STOPWORDS or low in P.HEAD_WORDS or low in P.NATIONALITIES
                    or low in P.NEVER_ALONE or low in P.INFOBOX_LABELS) and not known:
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
                if looks_common(w) or low in doc.lower_words:
                    return
                if w not in doc.mid_caps and not (P.EN_PREDICATE_AFTER_RE.match(after)
                                                  or P.ORG_VERB_AFTER_RE.match(after)
                                                  or P.PERSON_VERB_AFTER_RE.match(after)):
                    return                                           # "Steps", "Rollback", "Purpose"
            if w.isdigit() or P.QUARTER_RE.fullmatch(w):
                return
            if not strong and low in doc.prose_lower_words:
                return                                               # "the current Constitution" / "constitution"
            if not known and _title_fragment(text, start, end):
                return                                               # "Jump for [Glory]", "The [Desolation] of Smaug"
        elif len(words) >= 3 and all(x.isupper() for x in words) and any(len(x) > 4 for x in words):
            return                                                   # shouted heading
        surface = text[start:end] if cut is None or not start < cut[0] < cut[1] < end \
            else f"{text[start:cut[0]]} {text[cut[1]:end]}"
        surface = surface.replace(" - ", "-")                        # hyphens spaced apart in the source text
        key = normalize_name(surface)
        if not key or key.isdigit():
            return
        # "Anthropic Claude", "Microsoft Azure": company + its product -> two mentions
        if len(words) >= 2 and not known_key(key) and normalize_name(words[0]) in P.ORG_GAZ \
                and normalize_name(text[toks[parts[1]][0]:end]) in P.PRODUCT_GAZ:
            w0_end = toks[parts[0]][1]
            w1_start = toks[parts[1]][0]
            out.append(Candidate(start, w0_end, text[start:w0_end], normalize_name(words[0]), type_votes(ORG=4), 2, si))
            out.append(Candidate(w1_start, end, text[w1_start:end], normalize_name(text[w1_start:end]),
                                 type_votes(PRODUCT=4), 2, si))
            return
        votes = english_votes(words, surface, title=title, legal=legal) + extra
        if len(words) >= 2 and not legal and not known_key(key) and not votes \
                and _title_fragment(text, start, end):
            return                                                   # "The Very Private Life of [Mister Sim]"
        if ctx.table and not (votes["PERSON"] or votes["PLACE"] or known_key(key)):
            return                                                   # a cell run-on of a flattened infobox
        if ctx.heading and not votes:
            return                                                   # "# Retrieval Architecture Note"
        if key in P.AMBIGUOUS_ORG and not legal:
            after = text[end:end + 60]
            company = ctx.company_ctx or bool(P.ORG_VERB_AFTER_RE.match(after))
            if key in FOOD_KEYS and not company and (
                    P.FOOD_NEXT_RE.match(after)
                    or (ctx.strong_food_ctx and not _other_org_in(text, toks, parts))):
                out.append(Candidate(start, end, surface, "food:" + singular(key), type_votes(FOOD=5), 2, si))
                return
            votes["ORG"] += 4 if company else 2
        elif key in FOOD_KEYS and not votes and ctx.food_ctx:
            out.append(Candidate(start, end, surface, "food:" + singular(key), type_votes(FOOD=5), 2, si))
            return
        out.append(Candidate(start, end, surface, key, votes, 3 if cut else 2, si))

    # ---------------------------------------------------------------- quoted terms
    def _quoted(self, text: str, s: int, e: int, si: int, out: list[Candidate]) -> None:
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
                    votes = type_votes(**{typ: 1})
                else:
                    words = inner.split()
                    if len(words) > 6 or len(inner) < 2:
                        continue
                    stop = sum(1 for w in words if w.lower() in P.STOPWORDS)
                    title_case = sum(1 for w in words if w[:1].isupper()) * 2 > len(words)
                    if (stop * 2 > len(words) and not title_case) or ((inner.islower() or inner[0].islower()) and (
                            len(words) > 4 or not _COINED_BEFORE_RE.search(text, max(0, m.start() - 30), m.start()))):
                        continue                     # a "quoted" lower-case word is a name only when coined as one
                    clean = [w for w in re.findall(r"[A-Za-z0-9][\w.+-]*", inner)] or [inner]
                    votes = english_votes(clean, inner, title=False, legal=False)
                    if not votes:
                        votes = type_votes(**{typ: 1})
                out.append(Candidate(qs, qe, inner, key, votes, 3, si, english=not P.CJK_RE.search(inner)))


    @staticmethod
    def _filter_weak(cands: list[Candidate]) -> list[Candidate]:
        """Chinese noun candidates survive when pattern-marked, already strong, or frequent
        (plain nouns 3+ times, other noun classes 2+ times)."""
        counts = Counter(c.key for c in cands)
        strong_keys = {c.key for c in cands if not c.weak}
        return [c for c in cands if not c.weak or c.marked or c.key in strong_keys
                or counts[c.key] >= (3 if c.plain_noun else 2)]

    @staticmethod
    def _resolve_overlaps(cands: list[Candidate]) -> list[Candidate]:
        by_span: dict[tuple[int, int], Candidate] = {}
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
        accepted: list[Candidate] = []
        taken = bytearray(max((c.end for c in ordered), default=0))
        for c in ordered:
            if any(taken[c.start:c.end]):
                continue
            taken[c.start:c.end] = b"\x01" * (c.end - c.start)
            accepted.append(c)
        accepted.sort(key=lambda c: c.start)
        return accepted

    @staticmethod
    def _context_votes(text: str, c: Candidate) -> None:
        if c.key.startswith("food:") or not c.english:
            return
        after = text[c.end:c.end + 60]
        before = text[max(0, c.start - 50):c.start]
        if P.ORG_VERB_AFTER_RE.match(after):
            c.votes["ORG"] += 1
        if P.PERSON_VERB_AFTER_RE.match(after):
            c.votes["PERSON"] += 1
        if " " in c.surface and NAME_WORD_RE.fullmatch(c.surface.split()[0]) and not c.votes.get("ORG") \
                and not c.votes.get("PRODUCT") and not c.votes.get("PLACE") \
                and (P.PERSON_AFTER_ROLE_RE.match(after) or P.PERSON_LABEL_BEFORE_RE.search(before)):
            c.votes["PERSON"] += 2
        if P.PLACE_BEFORE_RE.search(before):
            c.votes["PLACE"] += 3
        if P.ORG_BEFORE_RE.search(before):
            c.votes["ORG"] += 2


# a sentence of at least this many words, this share of them capitalised, is a flattened table
TABLE_MIN_WORDS = 50
TABLE_CAPITALISED_SHARE = 0.55
_SEASONS = frozenset(["spring", "summer", "autumn", "fall", "winter"])
_HONORIFICS = frozenset(["mr", "mrs", "ms", "miss", "mx", "lord", "lady", "sir", "dame", "judge"])
# capitalised inside a sentence they start a name: "Northern Ireland", "Western Australia", "Eastern Europe"
_COMPASS_ADJECTIVES = frozenset(["northern", "southern", "eastern", "western"])
# a common noun whose possessive starts a name: "People's Republic of China", "Women's Society"
_COMMON_POSSESSORS = frozenset(["people", "women", "woman", "men", "children", "workers", "veterans"])
_DISTRICT_RE = re.compile(r"[A-Z]\.[A-Z]")
_POST_NOMINALS = frozenset("CBE OBE MBE KBE GBE DBE CIE KCIE CSI MVO CVO KCVO GCVO CMG KCMG GCMG CB KCB GCB DSO DSC MC "
                           "VC GC QC KC FRS FRSE FBA PC MP MEP".split())
# a lower-case word inside a hashtag, handle, path or file name ("#atlas", "atlas.md") is no prose
_HANDLE_BEFORE_RE = re.compile(r"[#@/\\_]$|\w\.$")
_HANDLE_AFTER_RE = re.compile(r"[/\\_@]|\.\w")
_CURRENCY_CODES = frozenset("USD EUR GBP JPY CNY RMB CHF CAD AUD".split())
_SAINT_WORDS = frozenset(["st", "saint", "ste"])
# "the First World War", "the Second Sino-Japanese War": an ordinal inside the name of an event
_ORDINALS = frozenset(["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"])
_CARDINALS = frozenset(["two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "thirty", "hundred"])
_ORDINAL_NAME_HEADS = P.EVENT_HEADS | P.NATIONAL_NAME_HEADS
# a nickname between a first name and the surname: Samuel "Sam" Schultz, Raymond ``Ray ''Velcoro, Ronald ("Ron")
_NICKNAME_RE = re.compile(r"""\s+\(?\s*(?:"|``|“|')\s*[A-Z][\w.-]*(?: [A-Z][\w.-]*)?\s*(?:"|''|”|')\s*\)?\s*(?=[A-Z])""")  # noqa: E501
_PRONOUN_I_AFTER_RE = re.compile(r"\s+(?:am|was|have|had|will|would|think|thought|do|did|can|could|went|said|"
                                 r"know|knew|love|feel|felt|want|need|see|saw|hope|guess|believe|also|really)\b")


def _of_head(word: str) -> bool:
    """A one-word start of an "X of Y" name ("Reign of Terror"), not a person ("Gurewitz of Bad Religion" has
    two words before "of") nor a direction ("North of Makaha")."""
    low = word.lower()
    return not (low in P.FIRST_NAMES or low in P.NEVER_ALONE or low in P.STOPWORDS or low in P.TITLES
                or low in P.NATIONALITIES or word.isupper() or looks_common(word))   # not "Ingestion of PDF"


def _coordinated(toks: list, parts: list[int], k: int) -> bool:
    """ "X and Y" lists two names when X already ends as a place ("Hong Kong Island and Kowloon", "New York City
    and Buffalo", "the United States and Canada") or Y starts as a person or a known place ("Andrew Marks and
    Spencer Unger", "Dubai and Abu Dhabi"); not "Museum and Art Gallery"."""
    return toks[parts[-1]][2].lower() in P.PLACE_HEADS or toks[k][2].lower() in P.FIRST_NAMES \
        or normalize_name(" ".join(toks[x][2] for x in parts)) in P.PLACE_GAZ \
        or normalize_name(toks[k][2]) in P.PLACE_GAZ


def _and_inside_name(text: str, toks: list, parts: list[int], j: int) -> bool:
    """ "and" inside the name of an institution that already has its "of" / "for" ("Newark College of Arts and
    Sciences", "Organisation for Economic Co-operation and Development", "Union of Cleaners and Housekeepers"),
    not before a second name ("University of Tokyo and Kyoto University", "Bank of England and Barclays")."""
    k = j + 2
    if text[toks[j][1]:toks[j + 1][0]] != " " or text[toks[j + 1][1]:toks[k][0]] != " " \
            or not any(toks[x][2] in ("of", "for") for x in parts) or not is_cap(toks[k][2]) \
            or toks[k][2].lower() in P.STOPWORDS or _coordinated(toks, parts, k) \
            or known_key(normalize_name(toks[k][2])):
        return False
    tail = [toks[k][2]]
    while k + 1 < len(toks) and text[toks[k][1]:toks[k + 1][0]] == " " and is_cap(toks[k + 1][2]):
        k += 1
        tail.append(toks[k][2])
    last = tail[-1].lower()
    return not (len(tail) >= 2 and last in P.HEAD_WORDS) and (last in P.FIELD_WORDS or looks_common(last))


def _title_fragment(text: str, start: int, end: int) -> bool:
    """A piece of a longer title-case name cut at a function word: "Jump for [Glory]" is not, "The [Desolation]
    of Smaug", "Life of [Mister Sim]", "Law & [Order]" are; after a person's name "of" names their organisation
    ("Maria Santos of [Cobalt Systems]")."""
    if _FRAGMENT_AFTER_RE.match(text, end):
        return True
    before = _FRAGMENT_BEFORE_RE.search(text, max(0, start - 60), start)
    if not before:
        return False
    run = before.group(1).split()
    if len(run) == 1 and text[before.end(1):start].startswith("the") \
            and _SENTENCE_START_RE.search(text, max(0, before.start() - 6), before.start()):
        return False                                     # "Ran the Helios reindex": a capitalised first word
    return not (len(run) >= 2 and _starts_a_person(run[0]))


def _starts_a_person(word: str) -> bool:
    """A given name, a Chinese surname or a title: what a person's name, not a title-case work, starts with."""
    first = word.lower().rstrip(".")
    return first in P.FIRST_NAMES or first in P.PINYIN_SURNAMES or first in P.TITLES


def _title_line(text: str, s: int, e: int) -> bool:
    """A line of its own that is no sentence: "Kestrel Labs - New Hire Onboarding Checklist"."""
    line = text[s:e].strip()
    return bool(line) and "\n" not in line and not line.endswith((".", "!", "?", ":")) \
        and _opens_paragraph(text, s) and _closes_line(text, e)


def _flattened_table(toks: list, sentence: str) -> bool:
    """An infobox or table flattened into one line ("Capital Topeka Largest city Wichita Largest metro ..."):
    mostly capitalised words with no cell separators, where a run of capitalised words is no name boundary."""
    if len(toks) < TABLE_MIN_WORDS or "|" in sentence or "\n" in sentence.strip():
        return False
    words = [t[2] for t in toks if t[2][0].isalpha()]
    return len(words) >= TABLE_MIN_WORDS and sum(w[0].isupper() for w in words) >= TABLE_CAPITALISED_SHARE * len(words)


def _epithet_follows(text: str, toks: list, j: int, cur: str) -> bool:
    """ "Henry the Navigator": one capitalised word after "the" that ends the run of capitalised words."""
    epithet = toks[j + 2][2]
    if text[toks[j + 1][1]:toks[j + 2][0]] != " " or not NAME_WORD_RE.fullmatch(epithet) \
            or epithet.lower() in P.STOPWORDS or epithet.lower() in P.NATIONALITIES or cur.lower() in P.STOPWORDS \
            or not NAME_WORD_RE.fullmatch(cur) or known_key(normalize_name(cur)):
        return False
    return j + 3 >= len(toks) or text[toks[j + 2][1]:toks[j + 3][0]] != " " or not is_cap(toks[j + 3][2])


def _spaced_hyphen_joins(toks: list, parts: list[int], nxt: str) -> bool:
    """A hyphen written with spaces inside a name ("Catherine Zeta - Jones", "Harley - Davidson", "Kim Jong - un"),
    not a dash between two names or before a date ("Enlightenment - Thomas Hobbes", "Indies - February")."""
    low = nxt.lower()
    if nxt[0].isupper():
        return (low not in P.STOPWORDS and low not in P.FIRST_NAMES and not nxt.isupper()
                and not toks[parts[-1]][2].isupper())
    words = [toks[k][2] for k in parts]                              # a syllable of a Korean given name
    return nxt.isalpha() and len(nxt) <= 5 and low not in P.STOPWORDS and len(words) >= 2 \
        and all(len(w) <= 5 for w in words)


def _season_name(word: str, toks: list, k: int) -> bool:
    """"Summer" in "Summer Olympics": a season word that starts a name."""
    return word.lower() in _SEASONS and k + 1 < len(toks) and toks[k + 1][2].lower() in P.SEASON_NAME_HEADS


def _regnal(text: str, cur: str, numeral: str, numeral_end: int) -> bool:
    """A Roman numeral ending a name ("World War II", "Charles I"), not the pronoun "I"."""
    if numeral != "I":
        return True
    return cur.lower() == "war" or not _PRONOUN_I_AFTER_RE.match(text, numeral_end)


def _legal_suffix_only(toks: list, parts: list[int]) -> bool:
    return all(toks[k][2].lower() in P.LEGAL_SUFFIXES for k in parts)


def _whole_names(text: str, sentences: list[tuple[int, int]]) -> list[Candidate]:
    """Names whose inner small words would cut them apart, as candidates that win every overlap: the title a
    text opens on ("The Jewel of the Nile is a 1985 film") and the places and scripts whose names hold an "and"
    ("Trinidad and Tobago", "Traditional Chinese")."""
    starts = [s for s, _ in sentences]

    def sentence_at(pos: int) -> int:
        return max(bisect_right(starts, pos) - 1, 0)

    found: list[Candidate] = []
    for s, e in sentences:
        lead = _lead_name(text, s, e) if _opens_paragraph(text, s) else None
        if lead:
            surface = text[lead[0]:lead[1]]
            if surface.split(" ", 1)[0].lower() in ("the", "a", "an"):
                surface = surface.split(" ", 1)[1]
            votes = english_votes(surface.split(), surface, title=False, legal=False)
            for m in re.finditer(re.escape(surface), text):       # the name again, in a title line or later
                found.append(Candidate(m.start(), m.end(), surface, normalize_name(surface), votes.copy(), 4,
                                       sentence_at(m.start())))
    for m in P.COMPOUND_NAME_RE.finditer(text):
        votes = type_votes(CONCEPT=4) if m.group().endswith("Chinese") else type_votes(PLACE=4)
        found.append(Candidate(m.start(), m.end(), m.group(), normalize_name(m.group()), votes, 4,
                               sentence_at(m.start())))
    return found


def _opens_paragraph(text: str, s: int) -> bool:
    """Only spaces or tabs between ``s`` and the start of the text or of its line."""
    j = s - 1
    while j >= 0 and text[j] in " \t":
        j -= 1
    return j < 0 or text[j] == "\n"


def _closes_line(text: str, e: int) -> bool:
    """Only spaces or tabs between ``e`` and the end of its line (not the end of the text)."""
    j = e
    while j < len(text) and text[j] in " \t":
        j += 1
    return j < len(text) and text[j] == "\n"


# "<title-case name> (...) is a / was an ...": how an encyclopedic text opens on its subject
_LEAD_NAME_END_RE = re.compile(r"\s+(?:\([^)\n]*\)\s+)?(?:is|was)\s+(?:a|an|the)\b")
_TITLE_SMALL_WORDS = frozenset("a an the and of on at in for to from by with be nor but as into upon over".split())
MAX_LEAD_NAME_WORDS = 10
MAX_LEAD_NAME_CHARS = 200


def _lead_name(text: str, s: int, e: int) -> tuple[int, int] | None:
    """The span of the title-case name the sentence ``text[s:e]``, which opens a paragraph, opens on when small
    words sit inside it ("Jump for Glory", "It'll be Alright on the Night", "The Girl Who Kicked the Hornets'
    Nest"); without them the runs of capitalised words already find it. Not a person of an organisation
    ("Maria Santos of Cobalt Systems is")."""
    start = s + len(text[s:e]) - len(text[s:e].lstrip())
    end = _LEAD_NAME_END_RE.search(text, start, min(e, start + MAX_LEAD_NAME_CHARS))
    if not end or any(ch in text[start:end.start()] for ch in ",;:\n"):
        return None
    words = text[start:end.start()].split()
    if not 2 <= len(words) <= MAX_LEAD_NAME_WORDS or not (is_cap(words[0]) and is_cap(words[-1])) \
            or not all(is_cap(w) or w[0].isdigit() or w in _TITLE_SMALL_WORDS for w in words):
        return None
    inner_small = [k for k in range(1, len(words) - 1) if words[k] in _TITLE_SMALL_WORDS]
    if not inner_small:
        return None
    if inner_small[0] >= 2 and _starts_a_person(words[0]):
        return None
    return start, end.start()


def _office_only(c: Candidate) -> bool:
    """ "the Officer", "a Vice President": a role, not a named entity."""
    words = c.surface.lower().replace(".", "").split()
    return c.english and all(w in P.OFFICE_WORDS or w in ("of", "the") for w in words) \
        and any(w in P.OFFICE_WORDS for w in words)


# "the 2018 Winter Olympics", "the 38th Chess Olympiad": one numbered instance of a series
_NUMBERED_INSTANCE_RE = re.compile(r"(?:1[5-9]\d\d|20\d\d|\d+(?:st|nd|rd|th)) (.+)")
_SERIES_HEADS = P.EVENT_HEADS | P.SEASON_NAME_HEADS | {"olympiad"}
# the many names of one series: "the Olympic Games", "the Winter Games", "the Summer Olympics"
_OLYMPIC_SERIES_WORDS = frozenset(["olympic", "olympics", "games", "olympiad", "winter", "summer", "youth",
                                   "paralympic", "paralympics"])


def _without_series_names(accepted: list[Candidate]) -> list[Candidate]:
    """Beside a numbered instance, the bare series ("the Winter Olympics", "Olympics" next to "the 2018 Winter
    Olympics") is no entity of its own: it would tie together every text about any of its instances."""
    series: set[str] = set()
    olympic = False
    for c in accepted:
        m = _NUMBERED_INSTANCE_RE.fullmatch(c.surface)
        if m and m.group(1).split()[-1].lower() in _SERIES_HEADS:
            words = m.group(1).split()
            series.update(normalize_name(" ".join(words[k:])) for k in range(len(words)))
            olympic = olympic or words[-1].lower() in _OLYMPIC_SERIES_WORDS
    if not series:
        return accepted
    return [c for c in accepted if c.key not in series
            and not (olympic and all(w in _OLYMPIC_SERIES_WORDS for w in c.surface.lower().split()))]


DEFAULT_OFFLINE_EXTRACTOR = OfflineExtractor()
