"""Bedrock's error responses, as the replay server answers a request it refuses (Converse's and InvokeModel's).

The body is ``{"message": "..."}``, the exception's name in the
``x-amzn-ErrorType`` header (a real 400 body is exactly that: 340 bytes for
the message quoted in agno-agi/agno#6698).
"""

from __future__ import annotations

from typing import Any

from .._refusals import Headers

__all__ = ("error_body", "no_model")

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
    """The extra headers and JSON body of Bedrock's error (see :class:`~.._refusals.ErrorWriter`)."""
    headers: list[tuple[bytes, bytes]] = []
    name = kind or _BEDROCK_EXCEPTIONS.get(status, "InternalServerException")
    headers.append((b"x-amzn-errortype", (name + _BEDROCK_NAMESPACE).encode()))
    body = {"message": message}
    return headers, body


def no_model(model: object, method: str) -> str:
    """Bedrock's words for a model id it does not know."""
    # Bedrock says this of a model id it does not know (with a 400 ValidationException);
    # the replay server answers an unknown model with a 404 ResourceNotFoundException.
    return "The provided model identifier is invalid."
