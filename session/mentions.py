"""`@Corpus` mentions in chat text: parse, strip and resolve them to corpus ids."""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from typing import TypeVar

T = TypeVar("T")

# A mention may not follow an e-mail local-part character, so "a@b.com" is never a mention.
# CJK text may sit right before one ("请看@团队笔记"), hence the ASCII-only look-behind.
_MENTION_RE = re.compile(
    r"(?<![A-Za-z0-9._%+\-])[@＠]"
    r"(?:\"([^\"\n]+)\""          # @"Project Docs"
    r"|“([^”\n]+)”"               # @“Project Docs”
    r"|\[([^\]\n]+)\]"            # @[Project Docs]
    r"|【([^】\n]+)】"             # @【项目文档】
    r"|(\w(?:[\w\-]*\w)?))"       # @team_notes, @project-docs, @团队笔记 (stops at space/punctuation)
)
_SPACES_RE = re.compile(r"[ \t]{2,}")
_TRAILING_SPACES_RE = re.compile(r"[ \t]+$", re.MULTILINE)
_LEADING_SEPARATORS = " \t:：,，、;；"
_COMPACT_RE = re.compile(r"[\s_\-]+")


def bracket_labels(text: str, aliases: Iterable[str]) -> str:
    """``text`` with every bare mention of a multi-word alias ("@Team Notes", any case) in the bracket form
    ("@[Team Notes]") the parser reads as one name; the longest alias wins ("@Team Notes Archive")."""
    spaced = sorted({a.strip() for a in aliases if len(a.split()) > 1}, key=len, reverse=True)
    if not text or not spaced:
        return text or ""
    alternatives = "|".join(r"\s+".join(re.escape(word) for word in alias.split()) for alias in spaced)
    pattern = re.compile(rf"(?<![A-Za-z0-9._%+\-])([@＠])({alternatives})(?![\w\-])", re.IGNORECASE)
    return pattern.sub(lambda m: f"{m.group(1)}[{m.group(2)}]", text)


def _names(text: str) -> Iterable[tuple[re.Match[str], str]]:
    for match in _MENTION_RE.finditer(text):
        name = next(g for g in match.groups() if g is not None).strip()
        if name:
            yield match, name


def parse_mentions(text: str) -> list[str]:
    """Mentioned corpus names in order of first appearance, de-duplicated case-insensitively."""
    seen: set[str] = set()
    out: list[str] = []
    for _, name in _names(text or ""):
        key = name.casefold()
        if key not in seen:
            seen.add(key)
            out.append(name)
    return out


def strip_mentions(text: str) -> str:
    """The text with every mention removed and the left-over spacing tidied."""
    if not text:
        return ""
    stripped = _MENTION_RE.sub("", text)
    stripped = _SPACES_RE.sub(" ", stripped)
    stripped = _TRAILING_SPACES_RE.sub("", stripped)
    return stripped.strip().lstrip(_LEADING_SEPARATORS).strip()


def _exact_key(name: str) -> str:
    return unicodedata.normalize("NFKC", name).strip().casefold()


def _compact_key(name: str) -> str:
    return _COMPACT_RE.sub("", _exact_key(name))


def resolve_mentions(mentions: Iterable[str], corpora: Mapping[str, T]) -> tuple[list[T], list[str]]:
    """Map mentioned names to corpus ids.

    `corpora` maps any alias (name or label) to an id. A mention matches an alias
    case-insensitively, or else with spaces, underscores and hyphens ignored
    ("@ProjectDocs" finds "project_docs" / "Project Docs"). A loose match that
    would pick between different ids is treated as unknown rather than guessed.
    Returns (resolved ids without duplicates, unknown names), both in mention order.
    """
    exact: dict[str, T] = {}
    loose: dict[str, list[T]] = {}
    for alias, corpus_id in corpora.items():
        exact.setdefault(_exact_key(alias), corpus_id)
        ids = loose.setdefault(_compact_key(alias), [])
        if corpus_id not in ids:
            ids.append(corpus_id)

    resolved: list[T] = []
    unknown: list[str] = []
    for raw in mentions:
        name = raw.strip().lstrip("@＠").strip("\"“”[]【】 ")
        if not name:
            continue
        key = _exact_key(name)
        matches = [exact[key]] if key in exact else loose.get(_compact_key(name), [])
        if len(matches) != 1:
            if name not in unknown:
                unknown.append(name)
        elif matches[0] not in resolved:
            resolved.append(matches[0])
    return resolved, unknown
