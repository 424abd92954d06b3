"""Anthropic's error responses, as the replay server answers a request it refuses.

The body is ``{"type": "error", "error": {"type", "message"}}``, the type
the one Anthropic documents for the status.
"""

from __future__ import annotations

from typing import Any

from .._refusals import Headers

__all__ = ("error_body", "no_model")

_ANTHROPIC_TYPES = {400: "invalid_request_error", 401: "authentication_error", 404: "not_found_error"}


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
    """The extra headers and JSON body of Anthropic's error (see :class:`~.._refusals.ErrorWriter`)."""
    error = {"type": kind or _ANTHROPIC_TYPES.get(status, "api_error"), "message": message}
    body = {"type": "error", "error": error}
    return [], body


def no_model(model: object, method: str) -> str:
    """Anthropic's words for a model it does not have."""
    return f"model: {model}"
