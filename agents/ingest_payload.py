"""What text a "save this ..." chat message asks to save."""
from __future__ import annotations

import re

from agents.action_intent import ActionIntent, classify
from session.mentions import strip_mentions

# "save this to: X", "note this: X", "请保存到：X" - the command ends at the first colon or line break.
_SPLIT_RE = re.compile(r"[:：\n]")
_COMMAND_RE = re.compile(
    r"^\s*(?:please\s+|pls\s+|can\s+you\s+|could\s+you\s+|kindly\s+)?"
    r"(?:save|store|remember|record|note(?:\s+down)?|log|keep|add|ingest|archive|jot\s+down|write\s+down)"
    r"(?:\s+(?:this|that|these|it|the\s+following))?(?:\s+(?:to|into|in|under))?"
    r"(?:\s+(?:that|:))?\s*",
    re.IGNORECASE,
)
_ZH_COMMAND_RE = re.compile(r"^\s*(?:请|麻烦|帮我)*(?:保存|记住|记下|记录|存)(?:一下|到|进|下来)?\s*")


def ingest_payload(text: str) -> str | None:
    """The note to save from ``text`` without mentions and command words; None when only a command remains."""
    stripped = strip_mentions(text or "")
    split = _SPLIT_RE.search(stripped)
    if split and classify(stripped[:split.start()]) is ActionIntent.INGEST:
        body = stripped[split.end():].strip()
    else:
        body = _ZH_COMMAND_RE.sub("", _COMMAND_RE.sub("", stripped, count=1), count=1).strip()
    body = body.strip(" \t:：,，")
    return body or None
