"""The HTTP status each provider documents for its error codes.

An error a provider sends inside a stream comes after the response's
``200 OK``, so it has no HTTP status of its own; but the providers document
which status each of their error types stands for, and a loop deciding
whether to retry wants that number (:attr:`ProviderError.status
<streamcalls.ProviderError.status>`).  The tables, from each provider's API
reference:

- Anthropic's error types (its "Errors" page);
- Google's canonical ``status`` names (``google.rpc.Code``, whose comments
  give the HTTP mapping), used by Gemini and Vertex AI;
- AWS Bedrock's exceptions, as the event-stream frames of ConverseStream and
  InvokeModelWithResponseStream name them (``throttlingException``) and as
  the ``x-amzn-ErrorType`` header and ``__type`` field do (``ThrottlingException``).

Codes no provider documents a status for (OpenAI's ``server_error``, ...)
have none.
"""

from __future__ import annotations

__all__ = ("documented_status",)

_ANTHROPIC = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "overloaded_error": 529,
}

_GOOGLE = {
    "INVALID_ARGUMENT": 400,
    "FAILED_PRECONDITION": 400,
    "OUT_OF_RANGE": 400,
    "UNAUTHENTICATED": 401,
    "PERMISSION_DENIED": 403,
    "NOT_FOUND": 404,
    "ABORTED": 409,
    "ALREADY_EXISTS": 409,
    "RESOURCE_EXHAUSTED": 429,
    "CANCELLED": 499,
    "UNKNOWN": 500,
    "INTERNAL": 500,
    "DATA_LOSS": 500,
    "UNIMPLEMENTED": 501,
    "UNAVAILABLE": 503,
    "DEADLINE_EXCEEDED": 504,
}

_AWS = {
    "ValidationException": 400,
    "AccessDeniedException": 403,
    "ResourceNotFoundException": 404,
    "ModelTimeoutException": 408,
    "ModelErrorException": 424,
    "ModelStreamErrorException": 424,
    "ModelNotReadyException": 429,
    "ThrottlingException": 429,
    "InternalServerException": 500,
    "InternalFailure": 500,
    "ServiceUnavailableException": 503,
}

_STATUSES: dict[str, int] = {
    **_ANTHROPIC,
    **_GOOGLE,
    **_AWS,
    # The stream frames name the exceptions in lower camel case.
    **{name[0].lower() + name[1:]: status for name, status in _AWS.items()},
}


def documented_status(code: str | None) -> int | None:
    """The HTTP status a provider documents for the error ``code`` (None: none documented)."""
    if code is None:
        return None
    return _STATUSES.get(code)
