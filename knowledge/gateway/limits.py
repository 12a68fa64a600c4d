"""Request and result size limits, and the canonical JSON that digests and sizes are computed on."""
from __future__ import annotations

import hashlib
import json
from typing import Any, Mapping

from knowledge.gateway.errors import InvalidArgumentsError, OversizedRequestError

TRUNCATION_MARK = " …[truncated]"


def canonical_json(value: Any) -> str:
    try:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    except (TypeError, ValueError) as exc:
        raise InvalidArgumentsError(f"arguments are not JSON: {exc}") from exc


def arguments_digest(arguments: Mapping[str, Any]) -> str:
    return "sha256:" + hashlib.sha256(canonical_json(dict(arguments)).encode("utf-8")).hexdigest()


def check_request_size(arguments: Mapping[str, Any], max_bytes: int) -> None:
    size = len(canonical_json(dict(arguments)).encode("utf-8"))
    if size > max_bytes:
        raise OversizedRequestError(f"request arguments are {size} bytes; the limit is {max_bytes}",
                                    size_bytes=size, limit_bytes=max_bytes)


def cap_text(text: str, max_chars: int) -> tuple[str, bool]:
    if len(text) <= max_chars:
        return text, False
    return text[: max(0, max_chars - len(TRUNCATION_MARK))] + TRUNCATION_MARK, True


def result_size(result: Mapping[str, Any]) -> int:
    return len(canonical_json(dict(result)).encode("utf-8"))


def fit_result(result: dict[str, Any], rows_field: str, max_chars: int) -> dict[str, Any]:
    """Drop trailing rows until the serialised result fits ``max_chars``; flags ``truncated``."""
    rows = result.get(rows_field)
    if not isinstance(rows, list) or len(canonical_json(result)) <= max_chars:
        return result
    kept = list(rows)
    while kept and len(canonical_json({**result, rows_field: kept, "truncated": True})) > max_chars:
        kept.pop()
    return {**result, rows_field: kept, "truncated": True, "rows_omitted": len(rows) - len(kept)}


def cap_strings(value: Any, max_chars: int) -> Any:
    """A copy of a JSON-like value with every string cut to ``max_chars``."""
    if isinstance(value, str):
        return cap_text(value, max_chars)[0]
    if isinstance(value, dict):
        return {k: cap_strings(v, max_chars) for k, v in value.items()}
    if isinstance(value, list):
        return [cap_strings(v, max_chars) for v in value]
    return value
