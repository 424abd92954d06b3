"""Each provider's error response, as the replay server sends it: status, headers and JSON body.

The shapes are the providers' own (see :mod:`..framing._error_bodies`, which reads
them back):

- OpenAI Chat and Responses: ``{"error": {"message", "type", "param", "code"}}``;
- Anthropic: ``{"type": "error", "error": {"type", "message"}}``;
- Ollama: ``{"error": "..."}``;
- Gemini: ``{"error": {"code", "message", "status"}}`` (``google.rpc.Status``),
  with a ``BadRequest`` field violation for a field it could not read, and
  the whole body as the one element of a JSON array when the request asked
  for the array stream;
- Bedrock: ``{"message": "..."}``, the exception's name in the
  ``x-amzn-ErrorType`` header (a real 400 body is exactly that: 340 bytes
  for the message quoted in agno-agi/agno#6698);
- Cohere: ``{"id", "message"}``;
- servers that speak OpenAI Chat in their own error shape: Moonshot's (Kimi)
  ``{"error": {"message", "type"}}``, Mistral's ``{"object": "error",
  "message", "type", "param", "code"}`` (as this repository's
  ``tests/data/openai/mistral_error_body.json``).

:func:`no_model_message` words an unknown model as each provider does, and
lists the recordings the server has instead.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

__all__ = ("Headers", "error_response", "no_model_message")

Headers = Sequence[tuple[bytes, bytes]]

_OPENAI_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    404: "invalid_request_error",
    429: "rate_limit_exceeded",
}
_ANTHROPIC_TYPES = {400: "invalid_request_error", 401: "authentication_error", 404: "not_found_error"}
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
_BEDROCK_EXCEPTIONS = {
    400: "ValidationException",
    403: "AccessDeniedException",
    404: "ResourceNotFoundException",
    408: "ModelTimeoutException",
    424: "ModelErrorException",
    429: "ThrottlingException",
    503: "ServiceUnavailableException",
}
_BEDROCK_NAMESPACE = ":http://internal.amazon.com/coral/com.amazon.bedrock/"


def error_response(
    provider: str,
    status: int,
    message: str,
    *,
    param: str | None = None,
    code: str | None = None,
    kind: str | None = None,
    shape: str | None = None,
    violations: tuple[tuple[str | None, str], ...] = (),
) -> tuple[int, Headers, Any]:
    """The provider's answer to a request it refuses: status, extra headers, JSON body.

    ``param`` and ``code`` go where the provider's body has room for them
    (OpenAI's fields, Gemini's field violation); ``kind`` overrides the
    error's type or name, which is otherwise the provider's for ``status``;
    ``shape`` picks the body of a server speaking ``provider``'s API in its
    own (``"kimi"``, ``"mistral"``); ``violations`` are Gemini's field
    violations when there are several, ``(field or None, description)``.
    """
    headers: list[tuple[bytes, bytes]] = []
    body: Any
    error: dict[str, Any]
    if provider == "anthropic":
        error = {"type": kind or _ANTHROPIC_TYPES.get(status, "api_error"), "message": message}
        body = {"type": "error", "error": error}
    elif provider == "ollama":
        body = {"error": message}
    elif provider == "gemini":
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
            error["details"] = [
                {"@type": "type.googleapis.com/google.rpc.BadRequest", "fieldViolations": shown}
            ]
        body = {"error": error}
    elif provider == "bedrock":
        name = kind or _BEDROCK_EXCEPTIONS.get(status, "InternalServerException")
        headers.append((b"x-amzn-errortype", (name + _BEDROCK_NAMESPACE).encode()))
        body = {"message": message}
    elif provider == "cohere":
        body = {"id": str(uuid.uuid4()), "message": message}
    elif shape == "kimi":
        body = {"error": {"message": message, "type": kind or _OPENAI_TYPES.get(status, "server_error")}}
    elif shape == "mistral":
        error = {"message": message, "type": kind or _OPENAI_TYPES.get(status, "server_error")}
        body = {"object": "error", **error, "param": param, "code": code}
    else:  # OpenAI Chat and Responses
        error = {"message": message, "type": kind or _OPENAI_TYPES.get(status, "server_error")}
        body = {"error": {**error, "param": param, "code": code}}
    return status, headers, body


def no_model_message(provider: str, model: object, names: list[str], method: str = "") -> str:
    """The provider's words for a model it does not have, and the recordings this server has."""
    listed = ", ".join(names) if names else f"no {provider} recordings at all"
    if provider == "anthropic":
        said = f"model: {model}"
    elif provider == "ollama":
        said = f"model '{model}' not found"
    elif provider == "gemini":
        said = (
            f"models/{model} is not found for API version v1beta, or is not supported for {method}. "
            "Call ListModels to see the list of available models and their supported methods."
        )
    elif provider == "bedrock":
        # Bedrock says this of a model id it does not know (with a 400 ValidationException);
        # the replay server answers an unknown model with a 404 ResourceNotFoundException.
        said = "The provided model identifier is invalid."
    elif provider == "cohere":
        said = f"model '{model}' not found, make sure the correct model ID was used and that you have access to the model."
    else:
        said = f"The model `{model}` does not exist or you do not have access to it."
    if said.endswith("."):
        return f"{said} This replay server has: {listed}"
    return f"{said} (this replay server has: {listed})"
