"""Name features for entity resolution: folded and normalised keys, person keys without titles, tokens,
initials, numbers, singular keys, and the blocking keys built from them."""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

from knowledge.names import name_tokens, normalize_name

STOPWORDS = frozenset(
    {
        "the", "a", "an", "of", "and", "for", "in", "on", "at", "to", "by", "with", "from",
        "de", "la", "le", "les", "du", "des", "der", "die", "das", "von", "van", "y", "el",
    }
)
_TITLES = frozenset(
    {
        "dr", "doctor", "mr", "mrs", "ms", "mx", "miss", "prof", "professor", "sir", "dame",
        "rev", "hon", "lord", "lady",
    }
)
_CJK_TITLE_SUFFIXES = ("先生", "女士", "小姐", "博士", "教授", "老师", "医生")
# company descriptors beyond normalize.strip_legal_suffix (which strips one CJK suffix only)
_CJK_ORG_SUFFIXES = ("有限责任公司", "股份有限公司", "有限公司", "控股", "股份", "集团", "公司")
_ROMAN = frozenset({"i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x", "xi", "xii"})
_DIGITS_RE = re.compile(r"\d+")
_CJK_RE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")


def _fold(text: str) -> str:
    """Remove diacritics (São -> Sao) but keep CJK/Hangul intact."""
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return unicodedata.normalize("NFKC", stripped)


def _strip_cjk(key: str, suffixes: Sequence[str]) -> str:
    changed = True
    while changed and key:
        changed = False
        for suffix in suffixes:
            if key.endswith(suffix) and len(key) > len(suffix):
                key = key[: -len(suffix)]
                changed = True
    return key


@dataclass(frozen=True)
class NameFeatures:
    key: str  # normalised key, diacritics folded, CJK company suffixes stripped
    person_key: str  # key with leading titles / CJK honorifics removed
    tokens: tuple[str, ...]  # folded tokens (legal suffix removed)
    person_tokens: tuple[str, ...]
    content_tokens: tuple[str, ...]  # tokens without stopwords / titles
    initials: frozenset[str]  # initials of multi-token names (all tokens, content tokens)
    acronym_shaped: bool  # a single short alphabetic token, e.g. IBM, WHO, P&G
    numbers: frozenset[str]  # digit runs and roman-numeral tokens
    cjk: bool
    singular_key: str  # key with the last token singularised (concept plurals)


@lru_cache(maxsize=65536)
def name_features(name: str) -> NameFeatures:
    folded = _fold(name)
    key = normalize_name(folded)
    tokens = tuple(name_tokens(folded))
    cjk = bool(_CJK_RE.search(key))
    if cjk:
        key = _strip_cjk(key, _CJK_ORG_SUFFIXES)
    person_tokens = tokens
    while len(person_tokens) > 1 and person_tokens[0] in _TITLES:
        person_tokens = person_tokens[1:]
    person_key = normalize_name(" ".join(person_tokens)) if person_tokens != tokens else key
    if cjk:
        person_key = _strip_cjk(person_key, _CJK_TITLE_SUFFIXES)
    content = tuple(t for t in tokens if t not in STOPWORDS and t not in _TITLES)
    initials: set[str] = set()
    if len(tokens) >= 2 and not cjk:
        initials.add("".join(t[0] for t in tokens))
        if len(content) >= 2:
            initials.add("".join(t[0] for t in content))
    acronym_shaped = (
        not cjk
        and 2 <= len(key) <= 6
        and key.isalpha()
        and (len(tokens) == 1 or all(len(t) == 1 for t in tokens))
    )
    numbers = set(_DIGITS_RE.findall(key))
    numbers.update(t for t in tokens if t in _ROMAN and len(tokens) > 1)
    return NameFeatures(
        key=key,
        person_key=person_key or key,
        tokens=tokens,
        person_tokens=person_tokens,
        content_tokens=content,
        initials=frozenset(initials),
        acronym_shaped=acronym_shaped,
        numbers=frozenset(numbers),
        cjk=cjk,
        singular_key=_singular_key(tokens) if tokens and not cjk else key,
    )


def _singularise(token: str) -> str:
    if len(token) > 4 and token.endswith("ies"):
        return token[:-3] + "y"
    if len(token) > 3 and token.endswith("s") and not token.endswith(("ss", "us", "is")):
        return token[:-1]
    return token


def _singular_key(tokens: tuple[str, ...]) -> str:
    return normalize_name(" ".join(tokens[:-1] + (_singularise(tokens[-1]),)))


def abbreviated_given_names(ta: Sequence[str], tb: Sequence[str]) -> bool:
    """Same surname, every other token a prefix of its counterpart: Tim Cook / Timothy Cook,
    J. Smith / John Smith."""
    if len(ta) != len(tb) or len(ta) < 2 or ta[-1] != tb[-1]:
        return False
    return all(x.startswith(y) or y.startswith(x) for x, y in zip(ta[:-1], tb[:-1]))


def _ngrams(key: str, n: int) -> set[str]:
    if len(key) <= n:
        return {key} if key else set()
    return {key[i : i + n] for i in range(len(key) - n + 1)}


def block_keys(name: str, entity_type: str) -> set[str]:
    """The blocking keys of one record (see :mod:`knowledge.graph.resolution`, stage 1)."""
    f = name_features(name)
    keys: set[str] = set()
    for k in {f.key, f.person_key} if entity_type == "PERSON" else {f.key}:
        if not k:
            continue
        keys.add("k:" + k)
        keys.update("g:" + g for g in _ngrams(k, 2 if f.cjk else 3))
    for t in f.tokens:
        if len(t) >= 2 and t not in STOPWORDS and t not in _TITLES:
            keys.add("t:" + t)
    keys.update("a:" + i for i in f.initials)
    if f.acronym_shaped:
        keys.add("a:" + f.key)
    return keys
