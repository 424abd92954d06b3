"""OpenAI Chat's error responses, as the replay server answers a request it refuses (OpenAI Responses' too).

OpenAI's body is ``{"error": {"message", "type", "param", "code"}}``; the
servers that speak its API in their own shape (``shape``) answer with
Moonshot's (Kimi) ``{"error": {"message", "type"}}`` or Mistral's
``{"object": "error", "message", "type", "param", "code"}`` (as this
repository's ``tests/data/openai/mistral_error_body.json``).
"""

from __future__ import annotations

from typing import Any

from .._refusals import Headers

__all__ = ("error_body", "no_model")

_OPENAI_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    404: "invalid_request_error",
    429: "rate_limit_exceeded",
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
    """The extra headers and JSON body of OpenAI's error (see :class:`~.._refusals.ErrorWriter`)."""
    body: Any
    error: dict[str, Any]
    if shape == "kimi":
        body = {"error": {"message": message, "type": kind or _OPENAI_TYPES.get(status, "server_error")}}
    elif shape == "mistral":
        error = {"message": message, "type": kind or _OPENAI_TYPES.get(status, "server_error")}
        body = {"object": "error", **error, "param": param, "code": code}
    else:  # OpenAI Chat and Responses
        error = {"message": message, "type": kind or _OPENAI_TYPES.get(status, "server_error")}
        body = {"error": {**error, "param": param, "code": code}}
    return [], body


def no_model(model: object, method: str) -> str:
    """OpenAI's words for a model it does not have."""
    return f"The model `{model}` does not exist or you do not have access to it."
