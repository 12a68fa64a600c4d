"""Gateway refusals and failures: each has a stable code, a clear message, and the audit decision it records."""
from __future__ import annotations

from typing import Any


class GatewayError(Exception):
    code = "gateway_error"
    decision = "denied"  # what the audit log records: "denied" (refused) or "error" (failed)

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = details

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, **self.details}


class UnknownTokenError(GatewayError):
    code = "unknown_token"


class UnknownPersonGatewayError(GatewayError):
    code = "unknown_person"


class ForbiddenLibraryError(GatewayError):
    code = "forbidden_library"


class NotFoundError(GatewayError):
    code = "not_found"


class RateLimitedError(GatewayError):
    code = "rate_limited"


class OversizedRequestError(GatewayError):
    code = "oversized_request"


class InvalidArgumentsError(GatewayError):
    code = "invalid_arguments"


class UnknownToolError(GatewayError):
    code = "unknown_tool"


class ApprovalRequiredError(GatewayError):
    code = "approval_required"


class ApprovalInvalidError(GatewayError):
    code = "approval_invalid"


class ToolFailedError(GatewayError):
    code = "tool_failed"
    decision = "error"
