"""From accepted candidates to an :class:`Extraction`: mentions grouped, entities typed, relations found."""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from knowledge.graph import extraction_patterns as P
from knowledge.graph.extraction.naming import Candidate, name_initials
from knowledge.graph.extraction.types import (COOCCUR_WEIGHT, TYPED_WEIGHT, ExtractedEntity, ExtractedRelation,
                                              Extraction)
from knowledge.names import normalize_name

# Co-occurrence pairs are built from at most this many distinct entities per sentence.
MAX_COOCCUR_ENTITIES = 12
# Typed predicates are looked for between mentions at most this far apart.
MAX_PAIR_GAP_CHARS = 160
MAX_PAIR_GAP_MENTIONS = 6

# a word of a person's name, accents and inner capitals allowed ("Jiménez", "McCartney", "O'Brien", "C.")
_NAME_WORD_RE = re.compile(r"[^\W\d_](?:[^\W\d_]|['’.-])*")

_TIE_ORDER = {t: i for i, t in enumerate(("PERSON", "ORG", "PLACE", "PRODUCT", "EVENT", "FOOD", "CONCEPT",
                                          "OTHER"))}


@dataclass
class Group:
    key: str
    mentions: list[Candidate]
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


def _aliases(text: str, accepted: list[Candidate]) -> dict[str, str]:
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
            if len(letters) >= 2 and re.search(r"[\s-]", long.surface) and name_initials(long.surface) == letters:
                alias[b.key] = a.key
                break
    return alias


def assemble(text: str, sentences: list[tuple[int, int]], accepted: list[Candidate]) -> Extraction:
    alias = _aliases(text, accepted)
    groups: dict[str, Group] = {}
    for c in accepted:
        key = alias.get(c.key, c.key)
        c.key = key
        g = groups.get(key)
        if g is None:
            groups[key] = g = Group(key, [], Counter())
        g.mentions.append(c)
        g.votes.update(c.votes)
    _merge_country_short_names(groups)
    _merge_short_names(groups)
    by_sentence: dict[int, list[Candidate]] = {}
    for c in accepted:
        by_sentence.setdefault(c.sent, []).append(c)

    # typed relation candidates (before typing, so that roles can vote)
    pending: list[tuple[int, Candidate, Candidate, list[tuple]]] = []
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
    return finish(text, sentences, groups, by_sentence, pending)


def _merge_short_names(groups: dict[str, Group]) -> None:
    """In-text short names: "Helios" -> "Project Helios", "Aurora" -> "Aurora Vector Engine".

    Only a single-word name without strong type evidence is merged, and only when exactly one longer
    PRODUCT/ORG/EVENT name in the same text is "Project <word>" or starts with the word.
    """
    by_first: dict[str, list[Group]] = {}
    for g in groups.values():
        words = g.mentions[0].surface.split()
        if len(words) >= 2 and _decide_type(g.votes) in ("PRODUCT", "ORG", "EVENT") and max(g.votes.values()) >= 3:
            lead = words[1] if words[0].lower() in P.PRODUCT_FIRST else words[0]
            by_first.setdefault(normalize_name(lead), []).append(g)
    # "McCartney" after "Paul McCartney": a surname repeats the person's full name
    by_last: dict[str, list[Group]] = {}
    by_given: dict[str, list[Group]] = {}
    for g in groups.values():
        words = g.mentions[0].surface.split()
        if 2 <= len(words) <= 4 and all(_NAME_WORD_RE.fullmatch(w) for w in words) \
                and _decide_type(g.votes) in ("PERSON", "OTHER") and words[-1].lower() not in P.HEAD_WORDS:
            by_last.setdefault(normalize_name(words[-1]), []).append(g)
            if words[0].lower() in P.FIRST_NAMES:           # "Brian" after "Brian Harvey": the same person
                by_given.setdefault(normalize_name(words[0]), []).append(g)
    for key, g in list(groups.items()):
        surf = g.mentions[0].surface
        if " " in surf or not g.mentions[0].english or key.startswith("food:"):
            continue
        if g.votes and max(g.votes.values()) >= 3:
            continue
        targets = [t for t in by_first.get(key, []) if t.key != key]
        if not targets:
            targets = [t for t in by_last.get(key, []) if t.key != key]
        if not targets and surf.lower() in P.FIRST_NAMES:
            targets = [t for t in by_given.get(key, []) if t.key != key]
        if len(targets) == 1:
            _merge_into(groups, key, targets[0])


def _merge_country_short_names(groups: dict[str, Group]) -> None:
    """"U.S." in a text that also writes "the United States": one country, named in full."""
    for short, full in P.COUNTRY_SHORT_NAMES.items():
        if short in groups and full in groups:
            _merge_into(groups, short, groups[full])


def _merge_into(groups: dict[str, Group], key: str, target: Group) -> None:
    """The mentions of ``groups[key]`` become short-name mentions of ``target`` (which keeps its display name)."""
    g = groups.pop(key)
    for m in g.mentions:
        m.key = target.key
        m.short_alias = True
    target.mentions.extend(g.mentions)
    target.mentions.sort(key=lambda m: m.start)
    target.votes.update(g.votes)


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
# a title the name's span leaves out: "was developed by Dr. Lin Wei" -> between " was developed by "
_TRAIL_TITLE_RE = re.compile(r"(?<=\s)(?:Dr|Prof|Professor|Mr|Mrs|Ms|Mx|Sir|Dame)\.?\s+$")


def _match_predicates(text: str, a: Candidate, b: Candidate) -> list[tuple[str, bool, str | None]]:
    between = text[a.end:b.start]
    between = _TRAIL_TITLE_RE.sub("", _TRAIL_OPEN_RE.sub("", _LEAD_CLOSE_RE.sub("", between)))
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


def _constraint_ok(rtype: str, constraint: str | None, src: Group, tgt: Group) -> bool:
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


def finish(text: str, sentences: list[tuple[int, int]], groups: dict[str, Group],
           by_sentence: dict[int, list[Candidate]], pending: list) -> Extraction:
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
