"""Gemini's error responses, as the replay server answers a request it refuses.

The body is ``{"error": {"code", "message", "status"}}`` (``google.rpc.Status``),
with a ``BadRequest`` field violation for a field it could not read; the
replay server sends the whole body as the one element of a JSON array when
the request asked for the array stream.
"""

from __future__ import annotations

from typing import Any

from .._refusals import Headers

__all__ = ("error_body", "no_model")

_GOOGLE_STATUSES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


def error_body(
    status: int,
    message: str,
    *,
    param: str | None = None,
    code: str | None = None,
    kind: str | None = None,
    shape: str | None = None,
    violations: tuple[tuple[str | None, str], ...] = (),
) -> tuple[Headers, Any]:
    """The extra headers and JSON body of Gemini's error (see :class:`~.._refusals.ErrorWriter`)."""
    error: dict[str, Any]
    error = {
        "code": status,
        "message": message,
        "status": kind or _GOOGLE_STATUSES.get(status, "UNKNOWN"),
    }
    if param is not None and not violations:
        violations = ((param, message),)
    if violations:
        shown = [
            {"description": text} if field is None else {"field": field, "description": text}
            for field, text in violations
        ]
        error["details"] = [{"@type": "type.googleapis.com/google.rpc.BadRequest", "fieldViolations": shown}]
    body = {"error": error}
    return [], body


def no_model(model: object, method: str) -> str:
    """Gemini's words for a model it does not have (``method``: the API method the path names)."""
    return (
        f"models/{model} is not found for API version v1beta, or is not supported for {method}. "
        "Call ListModels to see the list of available models and their supported methods."
    )
