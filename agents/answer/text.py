"""Text pieces of extractive answers: sentences of a passage, their content words and the names they hold."""
from __future__ import annotations

import re

MAX_SENTENCE_CHARS = 320

_SENTENCE_SPLIT_RE = re.compile(r"(?<=[.!?。！？])\s+|\n+|(?<=[。！？])")
_WORD_RE = re.compile(r"[a-z0-9]+(?:['\-][a-z0-9]+)*|[\u4e00-\u9fff]+")
_ABBREVIATION_RE = re.compile(r"(?:\b(?:dr|mr|mrs|ms|prof|inc|ltd|co|corp|jr|sr|st|vs|no|fig|al|e\.g|i\.e|etc)|\b[a-z])\.$",  # noqa: E501
                              re.IGNORECASE)
_HEADING_RE = re.compile(r"^\s*#")
_MARKDOWN_RE = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
# a name: capitalised words (or numbers, as in "Apollo 11"), joined by a few lower-case particles
_NAME_RE = re.compile(r"(?:[A-Z][\w'\-]*|\d{3,4})(?:\s+(?:(?:of|the|de|da|del|von|van|der|and|&)\s+)?"
                      r"(?:[A-Z][\w'\-]*|\d+))*")
_STOPWORDS = frozenset(
    "a an and are as at be by can could did do does for from had has have how i in is it its of on or our "
    "that the their them there these this those to was we were what when where which who whom whose why will "
    "with would you your about into than then also any all tell me please".split()
)


# relation words of both languages (and their stems) named by one shared term, so "Who owns ...?" meets "...
# acquired ...", "谁开发了 ...?" meets "... was developed by ..." (entity -> relation -> entity across evidence)
_RELATIONS = {
    "~owns": "own owns owned owner parent subsidiary acquire acquired acquisition bought purchased 收购 并购 母公司 "
             "子公司 属于 拥有 隶属",
    "~develops": "develop developed developer create created creator built build invent invented inventor design "
                 "designed author authored 开发 研发 创建 发明 设计",
    "~located": "located location based headquarters headquartered 位于 地址 总部 坐落",
    "~depends": "depend depends rely relies use uses used using 依赖 使用 基于 采用",
    "~leads": "ceo chief executive head headed lead leads leader led president 首席执行官 总裁 负责人 领导",
    "~founded": "found founded founder establish established 创立 创办 成立",
    "~works": "work works worked employ employed employee 工作 就职",
    "~born": "born birth birthplace 出生",
    "~died": "die died death 去世 逝世",
    "~married": "married marry spouse wife husband 结婚 配偶 妻子 丈夫",
}


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def terms(text: str) -> set[str]:
    """Content words (crudely stemmed), Chinese character bigrams and the relations named in ``text``."""
    found: set[str] = set()
    folded = text.casefold()
    for token in _WORD_RE.findall(folded):
        if "\u4e00" <= token[0] <= "\u9fff":
            found.update(token[i:i + 2] for i in range(max(len(token) - 1, 1)))
        elif len(token) > 2 and token not in _STOPWORDS:
            found.add(_stem(token))
    found.update(relation for word, relation in _RELATION_OF.items() if word in found)
    found.update(relation for word, relation in _CHINESE_RELATION_OF.items() if word in folded)
    return found


def name_terms(sentence: str) -> set[str]:
    """Content words of the names in ``sentence`` (what a next hop of a multi-hop question can follow)."""
    found: set[str] = set()
    for match in _NAME_RE.finditer(sentence):
        found |= terms(match.group(0))
    return found


def sentences(text: str) -> list[str]:
    out = []
    for line in text.splitlines():
        if not _HEADING_RE.match(line):  # a title is not evidence; the citation names the document
            out.extend(_split_line(line))
    return out


def _split_line(line: str) -> list[str]:
    pieces: list[str] = []
    for piece in _SENTENCE_SPLIT_RE.split(line):
        if pieces and _ABBREVIATION_RE.search(pieces[-1]):  # "Dr. Lin Wei" is one sentence
            pieces[-1] = f"{pieces[-1]} {piece}"
        else:
            pieces.append(piece)
    out = []
    for raw in pieces:
        sentence = _MARKDOWN_RE.sub("", raw).strip()
        if len(sentence) >= 12:
            out.append(sentence if len(sentence) <= MAX_SENTENCE_CHARS else sentence[:MAX_SENTENCE_CHARS] + "…")
    return out


def has_cjk(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


_RELATION_OF = {_stem(word): relation for relation, words in _RELATIONS.items() for word in words.split()
                if word.isascii()}
_CHINESE_RELATION_OF = {word: relation for relation, words in _RELATIONS.items() for word in words.split()
                        if not word.isascii()}
