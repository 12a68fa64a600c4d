"""API tokens: ``ne_<token_id>_<secret>``; the database keeps only a salted sha256 of the secret."""
from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from knowledge.db.database import Database
from knowledge.db.queries import gateway as q
from knowledge.gateway.errors import UnknownTokenError

_TOKEN_RE = re.compile(r"^ne_([0-9a-f]{12})_([A-Za-z0-9_\-]{40,64})$")
_TOKEN_ID_RE = re.compile(r"^[0-9a-f]{12}$")
_DURATION_RE = re.compile(r"^\s*(\d+)\s*([smhdw])\s*$", re.I)
_DURATION_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
_DUMMY_SALT = bytes(16)
_DUMMY_HASH = bytes(32)


@dataclass(frozen=True)
class IssuedToken:
    token: str  # shown once; never stored
    token_id: str
    person_id: str
    label: str
    expires_at: datetime | None = None


@dataclass(frozen=True)
class TokenIdentity:
    token_id: str
    person_id: str


@dataclass(frozen=True)
class TokenInfo:
    token_id: str
    person_id: str
    label: str
    created_at: datetime
    revoked_at: datetime | None
    expires_at: datetime | None = None


def hash_secret(salt: bytes, secret: str) -> bytes:
    return hashlib.sha256(salt + secret.encode("utf-8")).digest()


def token_id_of(token_or_id: str) -> str:
    """The public id of a full token, or the id itself; ValueError when it is neither."""
    value = token_or_id.strip()
    match = _TOKEN_RE.match(value)
    if match:
        return match.group(1)
    if _TOKEN_ID_RE.match(value):
        return value
    raise ValueError(f"not a token or token id: {value[:16]!r}... (expected ne_<12 hex>_<secret> or <12 hex>)")


def parse_duration(text: str) -> timedelta:
    """"90m", "12h", "30d", "2w" (or seconds: "3600s") -> a positive timedelta; ValueError otherwise."""
    match = _DURATION_RE.match(text or "")
    if match is None or int(match.group(1)) == 0:
        raise ValueError(f"not a duration: {text!r} (use a positive number with s, m, h, d or w: 90m, 12h, 30d)")
    return timedelta(**{_DURATION_UNITS[match.group(2).lower()]: int(match.group(1))})


class TokenStore:
    def __init__(self, db: Database, app_name: str) -> None:
        self.db = db
        self.app_name = app_name

    async def issue(self, person_id: str, label: str = "", expires_in: timedelta | None = None) -> IssuedToken:
        """A new token; ``expires_in`` None: it never expires (it can still be revoked)."""
        if expires_in is not None and expires_in <= timedelta(0):
            raise ValueError("a token's lifetime must be positive")
        token_id = secrets.token_hex(6)
        secret = secrets.token_urlsafe(36)
        salt = secrets.token_bytes(16)
        lifetime = expires_in.total_seconds() if expires_in is not None else None
        async with self.db.connection() as conn:
            row = await q.insert_token(conn, token_id, self.app_name, person_id, label, salt,
                                       hash_secret(salt, secret), lifetime)
        return IssuedToken(f"ne_{token_id}_{secret}", token_id, person_id, label, row["expires_at"])

    async def verify(self, token: str | None) -> TokenIdentity:
        if not token:
            raise UnknownTokenError("no API token: send 'Authorization: Bearer <token>' (HTTP) or set NE_MCP__TOKEN "
                                    "(stdio); issue one with 'negentropy token issue PERSON'")
        match = _TOKEN_RE.match(token.strip())
        if match is None:
            raise UnknownTokenError("malformed API token (expected ne_<id>_<secret>)")
        token_id, secret = match.groups()
        async with self.db.connection() as conn:
            row = await q.select_active_token(conn, token_id, self.app_name)
        salt, expected = (row["salt"], row["secret_hash"]) if row else (_DUMMY_SALT, _DUMMY_HASH)
        # Hash even for an unknown id so both failures cost the same.
        if not hmac.compare_digest(hash_secret(salt, secret), expected) or row is None:
            raise UnknownTokenError(f"unknown or revoked API token {token_id}")
        if row["expired"]:
            raise UnknownTokenError(f"API token {token_id} expired at {row['expires_at']:%Y-%m-%d %H:%M %Z}; "
                                    "issue a new one with 'negentropy token issue PERSON'")
        return TokenIdentity(token_id=row["token_id"], person_id=row["person_id"])

    async def revoke(self, token_or_id: str) -> TokenIdentity:
        token_id = token_id_of(token_or_id)
        async with self.db.connection() as conn:
            row = await q.revoke_token(conn, token_id, self.app_name)
        if row is None:
            raise UnknownTokenError(f"no active token {token_id}")
        return TokenIdentity(token_id=row["token_id"], person_id=row["person_id"])

    async def list(self) -> list[TokenInfo]:
        async with self.db.connection() as conn:
            rows = await q.select_tokens(conn, self.app_name)
        return [TokenInfo(r["token_id"], r["person_id"], r["label"], r["created_at"], r["revoked_at"], r["expires_at"])
                for r in rows]
