"""What a question asks for (a name, a time, a number) and whether a sentence carries such an answer.

An extractive answer is complete when one of its sentences holds the thing asked for: "Who is the CEO ...?" wants a
name the question does not already hold, "When ...?" a date, "How many ...?" a number. A yes/no or open question
asks for nothing in particular.
"""
from __future__ import annotations

import re
from enum import Enum

from agents.answer.text import name_terms


class Asked(Enum):
    NAME = "name"
    TIME = "time"
    NUMBER = "number"


_TIME_NOUNS = r"year|date|month|day|decade|century|time|period|era"
_NUMBER_NOUNS = r"number|percentage|population|amount|size|count|share|price|cost"
_ASKED = (
    (Asked.TIME, re.compile(rf"\bwhen\b|\b(?:which|what)\s+(?:{_TIME_NOUNS})\b|什么时候|何时|哪(?:一)?年|几月|哪天",
                            re.IGNORECASE)),
    (Asked.NUMBER, re.compile(rf"\bhow\s+(?:many|much|long|old|far|big|large|tall)\b|\b(?:which|what)\s+(?:"
                              rf"{_NUMBER_NOUNS})\b|多少|几个|几位|几家", re.IGNORECASE)),
    (Asked.NAME, re.compile(r"\b(?:who|whom|whose|where|which|what|name)\b|谁|哪", re.IGNORECASE)),
)
_YES_NO_RE = re.compile(r"^\s*(?:is|are|was|were|do|does|did|can|could|has|have|had|will|would|should)\b",
                        re.IGNORECASE)
_MONTHS = "january february march april may june july august september october november december"
_TIME_RE = re.compile(rf"\b(?:1[0-9]{{3}}|20[0-9]{{2}})s?\b|\b(?:{'|'.join(_MONTHS.split())})\b|\d+\s*[年月日]",
                      re.IGNORECASE)
_NUMBER_RE = re.compile(r"\d")


def asked_for(question: str) -> Asked | None:
    """The kind of answer ``question`` wants, or None for a yes/no or open question."""
    if _YES_NO_RE.match(question):
        return None
    return next((kind for kind, pattern in _ASKED if pattern.search(question)), None)


def carries_answer(sentence: str, kind: Asked | None, asked_terms: set[str]) -> bool:
    """Whether ``sentence`` holds a thing of ``kind`` beyond what the question already says."""
    if kind is Asked.TIME:
        return bool(_TIME_RE.search(sentence))
    if kind is Asked.NUMBER:
        return bool(_NUMBER_RE.search(sentence))
    if kind is Asked.NAME:
        return bool(name_terms(sentence) - asked_terms)
    return False
