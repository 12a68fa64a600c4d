"""Strip secrets (API keys, bearer tokens, cloud keys, private keys, URL passwords) from tool output."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

REDACTED = "[REDACTED:{kind}]"


@dataclass(frozen=True)
class SecretPattern:
    kind: str
    regex: re.Pattern[str]
    # Group kept in front of the redaction (the "password=" of "password=hunter2"), or 0 for none.
    keep_group: int = 0


_PATTERNS: tuple[SecretPattern, ...] = (
    SecretPattern("private_key", re.compile(
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----.*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----|\Z)", re.S)),
    SecretPattern("url_password", re.compile(r"(\b[a-z][a-z0-9+.\-]*://[^\s:/@]+:)[^\s@/]+(?=@)", re.I), 1),
    SecretPattern("bearer_token", re.compile(r"(\bBearer\s+)[A-Za-z0-9\-._~+/]{16,}=*", re.I), 1),
    SecretPattern("aws_access_key", re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA)[0-9A-Z]{16}\b")),
    SecretPattern("aws_secret_key", re.compile(
        r"(\baws_?secret_?(?:access_?)?key\b[\"']?\s*[:=]\s*[\"']?)[A-Za-z0-9/+=]{40}", re.I), 1),
    SecretPattern("negentropy_token", re.compile(r"\bne_[0-9a-f]{12}_[A-Za-z0-9_\-]{40,64}")),
    SecretPattern("api_key", re.compile(
        r"\b(?:sk-(?:ant-|proj-)?[A-Za-z0-9_\-]{20,}|gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,}"
        r"|xox[abposr]-[A-Za-z0-9\-]{10,}|AIza[0-9A-Za-z_\-]{35}|glpat-[A-Za-z0-9_\-]{20,}"
        r"|(?:sk|rk)_live_[A-Za-z0-9]{16,})")),
    SecretPattern("jwt", re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}")),
    SecretPattern("credential_assignment", re.compile(
        r"(\b(?:api[_\-]?key|secret(?:[_\-]?key)?|access[_\-]?token|auth[_\-]?token|client[_\-]?secret"
        r"|password|passwd|pwd)\b[\"']?\s*[:=]\s*[\"']?)(?!\[REDACTED)[^\s\"',;]{6,}", re.I), 1),
)


@dataclass
class Redactions:
    count: int = 0

    def add(self, n: int) -> None:
        self.count += n


def redact_text(text: str, tally: Redactions | None = None) -> str:
    """``text`` with every secret replaced by ``[REDACTED:kind]``."""
    for pattern in _PATTERNS:
        def replace(match: re.Match[str], pattern: SecretPattern = pattern) -> str:
            kept = match.group(pattern.keep_group) if pattern.keep_group else ""
            return kept + REDACTED.format(kind=pattern.kind)

        text, n = pattern.regex.subn(replace, text)
        if tally is not None and n:
            tally.add(n)
    return text


def sanitize(value: Any, tally: Redactions | None = None) -> Any:
    """A copy of a JSON-like value with secrets redacted in every string (keys included)."""
    if isinstance(value, str):
        return redact_text(value, tally)
    if isinstance(value, dict):
        return {sanitize(k, tally) if isinstance(k, str) else k: sanitize(v, tally) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [sanitize(v, tally) for v in value]
    return value
