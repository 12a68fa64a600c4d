"""Does a chat turn ask to retrieve knowledge, to ingest it, or is it unclear?

Bilingual (English + Simplified Chinese) keyword rules, precompiled; every scan is a
single regex pass over the text plus bounded look-behind windows, so it is O(N).

Rules, in order:
* a bare greeting ("hi", "你好") is AMBIGUOUS;
* ingest cues that are negated ("don't save", "不要保存") or merely descriptive
  ("what did I save", "我保存的文件") do not count; negated retrieve verbs do not count;
* only ingest cues -> INGEST, only retrieve cues -> RETRIEVE, neither -> AMBIGUOUS;
* both: if the text opens with an ingest verb ("save this: why X happened",
  "请把这段话保存：为什么会宕机") it is INGEST, if it opens with a retrieve verb
  ("find the notes I asked you to record") it is RETRIEVE - unless the other kind is
  chained on as a second request ("... and tell me", "然后告诉我"), which is AMBIGUOUS.
  Anything else with both is AMBIGUOUS.
"""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection
from enum import Enum


class ActionIntent(str, Enum):
    RETRIEVE = "retrieve"
    INGEST = "ingest"
    AMBIGUOUS = "ambiguous"


_WINDOW = 32  # characters of look-behind for negation / conjunction / subject checks

# ---------------------------------------------------------------- ingest cues
# English verbs that count only with an object-like continuation or when they open the request.
_EN_OBJECT = (
    r"(?=\s*(?::|\b(?:this|that|these|those|it|them|the|my|our|his|her|their|its|a|an|some|all"
    r"|everything|following|down|to|into|in|under|away|for\s+later)\b))"
)
_EN_WEAK_VERBS = r"save|store|remember|memori[sz]e|record|keep|add|log|ingest|upload|archive|bookmark|file|stash"
_EN_PHRASES = (
    r"note\s+(?:this|that|it|these|down)|take\s+(?:a\s+)?note|make\s+a\s+note"
    r"|put\s+(?:this|that|it|these|those|them)\s+(?:in|into|on)|jot\s+(?:this\s+|that\s+|it\s+)?down"
    r"|write\s+(?:this\s+|that\s+|it\s+)?down|keep\s+in\s+mind|keep\s+track\s+of"
)
_INGEST_EN_RE = re.compile(rf"\b(?:{_EN_PHRASES}|(?:{_EN_WEAK_VERBS})\b{_EN_OBJECT})")
_INGEST_EN_LEAD_RE = re.compile(
    rf"(?:{_EN_WEAK_VERBS}|note|put|jot|write\s+down)\b(?!\s+(?:going|up|on|in\s+touch|quiet|calm|it\s+short))"
)

# Chinese: strong cues count anywhere unless followed by 的/了/过/着 (descriptive: "我保存的文件");
# nouns-or-verbs (记录/归档/存档/存) need a verb-like continuation ("记录一下", "归档到").
_ZH_STRONG = r"保存|(?<![生依现共残保储])存(?:到|入|进|一下|下)|记住|记下|添加到|加到|写入|收录"
_ZH_WEAK = r"记录|归档|存档|(?<![生依现共残保储])存"
_INGEST_ZH_RE = re.compile(
    rf"(?:{_ZH_STRONG})(?![的了过着])|(?:{_ZH_WEAK})(?=一下|下来|下|这|那|到|进|入|起来|成|:)"
)
_INGEST_ZH_LEAD_RE = re.compile(r"(?:保存|存(?!在)|记住|记下|记录|添加|加到|收录|归档|存档|写入)(?![的了过着])")
# 把/将 construction: "把这段话保存", "将会议纪要归档到团队笔记"
_BA_LEAD_RE = re.compile(
    r"[把将][^,.;:!?。、\n]{1,40}?(?:保存|存|记住|记下|记录|添加|加到|加入|收录|归档|存档|写入)(?![的了过着])"
)

# ---------------------------------------------------------------- retrieve cues
_QUESTION_RE = re.compile(
    r"\b(?:what|who|whom|whose|why|how|when|which|where)\b|\?"
    r"|\b(?:do|did|can|could)\s+you\s+(?:still\s+)?(?:remember|recall|know)\b|\b(?:is|are)\s+there\b"
    r"|什么|谁|为什么|为何|怎么|如何|哪|吗|呢|多少|是否|有没有|是不是|还记得"
)
_RETRIEVE_VERB_RE = re.compile(
    r"\b(?:find|search|look\s+up|look\s+for|lookup|tell\s+me|explain|summari[sz]e|compare|list|show"
    r"|describe|fetch|retrieve|recall|remind\s+me|give\s+me|get\s+me|pull\s+up)\b"
    r"|查找|查询|查一下|查查|搜索|搜一下|检索|告诉我|总结|概括|比较(?![好快慢大小多少高低难容易重长短强弱新旧贵])"
    r"|对比|介绍|解释|列出|列举|找出|找一下|找到"
)

# ---------------------------------------------------------------- context
_NEGATION_RE = re.compile(
    r"(?:\b(?:don't|dont|do\s+not|never|not|no\s+need\s+to|stop|cannot|can't|won't|shouldn't|without)\b"
    r"(?:\s+\w+){0,2}\s+"
    r"|(?:不要|不用|不必|无需|不需要|没必要|别|勿|不)(?:再|去|要|用|帮我|给我|帮忙)*\s*)$"
)
# "what did I save", "have you stored": a question about past or habit, not a command.
_DESCRIPTIVE_RE = re.compile(r"\b(?:do|does|did|have|has|had)\s+(?:i|you|we|they|he|she)\s+(?:\w+\s+)?$")
_CONJUNCTION_RE = re.compile(
    r"(?:\b(?:and|then|also|plus)\b|[,;]|然后|并且|并|再|同时|顺便|还要|还有|以及|另外)"
    r"\s*(?:(?:then|also|please|pls|can\s+you|could\s+you|请|帮我|给我|也|再)\s*)*$"
)
_LEAD_PREFIX_RE = re.compile(
    r"(?:[@＠](?:\"[^\"\n]*\"|“[^”\n]*”|\[[^\]\n]*\]|【[^】\n]*】|[\w\-]+)"
    r"|[\s\W_]+"
    r"|(?:hi|hello|hey|please|pls|plz|kindly|can\s+you|could\s+you|would\s+you|will\s+you|can\s+u"
    r"|i\s+want\s+you\s+to|i\s+need\s+you\s+to|i'd\s+like\s+you\s+to|i\s+would\s+like\s+you\s+to"
    r"|go\s+ahead\s+and|help\s+me|just|also|now|ok|okay|quickly|then)\b"
    r"|你好|您好|请你|请|麻烦你|麻烦|帮我|帮忙|给我|能不能|可不可以|可以|能否|你能|你可以|帮个忙)"
)
_GREETING_RE = re.compile(
    r"(?:hi|hello|hey|yo|hiya|good\s+(?:morning|afternoon|evening)|thanks|thank\s+you|ok|okay"
    r"|你好|您好|嗨|哈喽|早上好|下午好|晚上好|早|谢谢|在吗|在不在)(?:\s+there)?[\s\W_]*"
)


def _normalize(text: str) -> str:
    text = unicodedata.normalize("NFKC", text or "").casefold()
    return text.replace("’", "'").replace("‘", "'")


def _lead_position(text: str) -> int:
    pos = 0
    while True:
        match = _LEAD_PREFIX_RE.match(text, pos)
        if not match or match.end() == pos:
            return pos
        pos = match.end()


def _before(text: str, start: int) -> str:
    return text[max(0, start - _WINDOW):start]


def _ingest_cues(text: str, lead: int) -> list[int]:
    starts: list[int] = []
    for regex in (_INGEST_EN_RE, _INGEST_ZH_RE):
        for m in regex.finditer(text):
            window = _before(text, m.start())
            if not _NEGATION_RE.search(window) and not _DESCRIPTIVE_RE.search(window):
                starts.append(m.start())
    if lead not in starts and (
        _INGEST_EN_LEAD_RE.match(text, lead) or _INGEST_ZH_LEAD_RE.match(text, lead) or _BA_LEAD_RE.match(text, lead)
    ):
        starts.append(lead)
    return sorted(starts)


def _retrieve_verbs(text: str) -> list[int]:
    return [m.start() for m in _RETRIEVE_VERB_RE.finditer(text) if not _NEGATION_RE.search(_before(text, m.start()))]


def _chained(text: str, starts: list[int], lead: int) -> bool:
    """Is any cue after the lead joined on as a second request ("... and tell me")?"""
    return any(s > lead and _CONJUNCTION_RE.search(_before(text, s)) for s in starts)


def classify(text: str) -> ActionIntent:
    norm = _normalize(text).strip()
    if not norm or _GREETING_RE.fullmatch(norm):
        return ActionIntent.AMBIGUOUS
    lead = _lead_position(norm)
    ingest = _ingest_cues(norm, lead)
    verbs = _retrieve_verbs(norm)
    question = _QUESTION_RE.search(norm) is not None

    if ingest and not (verbs or question):
        return ActionIntent.INGEST
    if not ingest:
        return ActionIntent.RETRIEVE if (verbs or question) else ActionIntent.AMBIGUOUS
    if ingest[0] == lead:
        return ActionIntent.AMBIGUOUS if _chained(norm, verbs, lead) else ActionIntent.INGEST
    if verbs and verbs[0] == lead:
        return ActionIntent.AMBIGUOUS if _chained(norm, ingest, lead) else ActionIntent.RETRIEVE
    return ActionIntent.AMBIGUOUS


def should_transfer_to_internalization(hint: ActionIntent | str | None, corpus_ids: Collection[object] | None) -> bool:
    """Hand the turn to the ingest ("internalization") agent only for a clear ingest into known corpora."""
    return isinstance(hint, str) and hint.lower() == ActionIntent.INGEST.value and bool(corpus_ids)
