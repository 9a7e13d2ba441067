"""The one error envelope, shared by REST and MCP.

``{"error": {"code", "message", "recovery": [...], "details"?: [...]}}``:
the code is machine-readable (SPEC §4.5 catalogue plus the HTTP-only codes
below), the message is one sentence a person can act on, ``recovery`` lists
what to do before retrying, ``details`` names each bad field and value.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class IrisError(Exception):
    """An error every door reports the same way."""

    code: str
    message: str
    status: int = 400
    recovery: list[str] = field(default_factory=list)
    details: list[dict[str, Any]] | None = None
    retry_after_s: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"

    def envelope(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "code": self.code,
            "message": self.message,
            "recovery": list(self.recovery),
            "retryable": self.retry_after_s is not None,
        }
        if self.details:
            body["details"] = self.details
        if self.retry_after_s is not None:
            body["retryAfterMs"] = self.retry_after_s * 1000
        body.update(self.extra)
        return {"error": body}


def invalid_argument(
    message: str, details: list[dict[str, Any]], *, status: int = 400
) -> IrisError:
    return IrisError(
        "IRIS_INVALID_ARGUMENT",
        message,
        status=status,
        recovery=["Fix the fields named in details and send the request again."],
        details=details,
    )


def storage_unavailable(reason: str) -> IrisError:
    return IrisError(
        "IRIS_STORAGE_ERROR",
        f"The database cannot be reached or is busy ({reason}).",
        status=503,
        recovery=[
            "Retry after the number of seconds in Retry-After.",
            "If it persists, check that the database is running and GET /api/v1/health.",
        ],
        retry_after_s=1,
    )


def not_found(what: str, ident: str) -> IrisError:
    return IrisError(
        "IRIS_NOT_FOUND",
        f"{what} {ident!r} was not found.",
        status=404,
        recovery=[f"Check the {what.lower()} id; list them with the query endpoint."],
    )
