"""Candidate names and the type votes their shape earns (titles, legal suffixes, heads, gazetteers)."""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from knowledge.graph import extraction_patterns as P
from knowledge.names import normalize_name


@dataclass
class Candidate:
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


def type_votes(**kw: float) -> Counter:
    return Counter({k: v for k, v in kw.items() if v})


def looks_common(word: str) -> bool:
    low = word.lower()
    return low in P.STOPWORDS or bool(P.COMMON_SUFFIX_RE.search(low)) and len(low) > 4


def is_cap(word: str) -> bool:
    return word[0].isupper() or bool(P.CAMEL_RE.fullmatch(word))


def known_key(key: str, surface: str | None = None) -> bool:
    if surface is not None and key in P.CASED_ACRONYM_KEYS and not surface.isupper():
        return False
    return (key in P.ORG_GAZ or key in P.PLACE_GAZ or key in P.PRODUCT_GAZ or key in P.CONCEPT_GAZ
            or key in P.EVENT_GAZ or key in P.PERSON_GAZ or key in P.AMBIGUOUS_ORG_KNOWN)


def cased_known(word: str) -> bool:
    """An all-caps gazetteer acronym that is also a stopword when lower-cased ("WHO", "US")."""
    return word.isupper() and len(word) > 1 and known_key(normalize_name(word), word)


def english_votes(words: list[str], surface: str, *, title: bool, legal: bool) -> Counter:
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
        name_like = all(NAME_WORD_RE.fullmatch(w) for w in words)
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


NAME_WORD_RE = re.compile(r"[A-Z][a-z]*(?:['’-][A-Z]?[a-z]+)*")


def name_initials(surface: str) -> str:
    words = [w for w in re.split(r"[\s\-]+", surface) if w and w.lower() not in
             ("of", "for", "and", "the", "a", "an", "in", "on", "to", "with", "&")]
    return "".join(w[0] for w in words).upper()

FOOD_KEYS = frozenset(P.FOOD_WORDS) | frozenset(w + "s" for w in P.FOOD_WORDS)


def singular(word: str) -> str:
    if word in P.FOOD_WORDS:
        return word
    for cut, add in (("ies", "y"), ("es", ""), ("s", "")):
        if word.endswith(cut) and word[: -len(cut)] + add in P.FOOD_WORDS:
            return word[: -len(cut)] + add
    return word
