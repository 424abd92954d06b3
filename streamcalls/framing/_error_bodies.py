"""What an error body says: the message and code of an error object in any
provider's shape, and the gist of an HTML page.

A provider that rejects a request answers with one JSON error object
instead of a stream; a proxy in front of it, with an HTML page.  The shapes,
from each provider's documentation:

- OpenAI, OpenAI Responses, Groq, OpenRouter, vLLM, ...:
  ``{"error": {"message", "type", "param", "code"}}``;
- Anthropic: ``{"type": "error", "error": {"type", "message"}}``;
- Gemini and Vertex AI (``google.rpc.Status``): ``{"error": {"code": 429,
  "message", "status": "RESOURCE_EXHAUSTED"}}``, also as the one element of
  an array when the request had no ``?alt=sse``;
- Ollama: ``{"error": "..."}``;
- Mistral (and older vLLM): ``{"object": "error", "message", "type",
  "param", "code"}``, where ``message`` may itself be an object;
- AWS Bedrock: ``{"message": "..."}``, with the exception's name in the
  ``x-amzn-ErrorType`` header and, from some front ends, in ``__type``
  (``"com.amazon.coral.validate#ValidationException"``);
- Cohere: ``{"message": "..."}`` (with an ``id`` in v2);
- FastAPI-based servers: ``{"detail": "..."}`` or ``{"detail": [...]}``.

The code is the provider's machine-readable name for the error: Google's
``status``, else ``code``, else ``type`` (the HTTP status number only when
nothing else names it).  The status is a number the body gives (Google's
``code``, a numeric ``code`` or ``status`` of other servers), else the one
the provider documents for the code (:mod:`streamcalls._statuses`); the
delay before a retry is Google's ``RetryInfo.retryDelay`` (``"37s"``) among
the error's ``details``.  These functions are used both by the parser, on a
body fed to it, and by the httpx front, on a response whose status already
says it failed, so the same body gives the same message and code either way.

A body is read by its shape alone, before any provider is known (under
``provider="auto"``, in the httpx front), so the reading stays here, below
the providers; the body each provider writes is its package's ``errors``
module (``providers/<name>/errors.py``).
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

import msgspec

from .._statuses import documented_status

__all__ = ("MAX_ERROR_BODY", "ErrorBody", "error_in", "gist", "html_title")

MAX_ERROR_BODY = 64 * 1024
"""Bytes of an error response's body read to report it."""

_SPACES = re.compile(r"\s+")
_TAGS = re.compile(r"<[^>]*>")
_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)
_AWS_TYPE = re.compile(r"(?:.*#)?([^:]*)")  # "namespace#Name:uri" -> "Name"
_DURATION = re.compile(r"([0-9]{1,9}(?:\.[0-9]{1,9})?)s")  # protobuf's Duration in JSON: "37s", "0.5s"


class ErrorBody(NamedTuple):
    """What an error body says, in the order :meth:`Emitter.provider_error` takes it."""

    message: str
    code: str | None
    status: int | None = None
    retry_after: float | None = None


def error_in(obj: Any) -> ErrorBody | None:
    """The message, code, status and retry delay of a decoded error body, or None if ``obj`` is not one.

    A complete Responses ``response`` is never an error body here, not even a
    failed one: its ``error`` is reported as that response's end.
    """
    if isinstance(obj, list) and len(obj) == 1:
        obj = obj[0]  # Gemini's JSON-array answer holds the error as its one element
    if not isinstance(obj, dict):
        return None
    if obj.get("object") == "response" or isinstance(obj.get("output"), list):
        return None
    error = obj.get("error")
    if isinstance(error, dict):
        message = error.get("message") or error.get("detail") or error.get("error") or error
        return _body(_text(message), error)
    if isinstance(error, str):
        return _body(error, obj)
    if obj.get("object") == "error":
        return _body(_text(obj.get("message")), obj)
    message = obj.get("message", obj.get("Message"))
    if isinstance(message, str):
        kind = obj.get("__type")
        if isinstance(kind, str) and kind:
            name = _AWS_TYPE.match(kind).group(1)  # type: ignore[union-attr]
            return ErrorBody(message, name, documented_status(name))
        return _body(message, obj)
    detail = obj.get("detail")
    if detail is not None and len(obj) == 1:
        return ErrorBody(_text(detail), None)
    return None


def _body(message: str, holder: dict[str, Any]) -> ErrorBody:
    code = _code(holder)
    status = _status(holder.get("code"))
    if status is None:
        status = _status(holder.get("status"))
    return ErrorBody(
        message, code, documented_status(code) if status is None else status, _retry_delay(holder)
    )


def _status(value: Any) -> int | None:
    """An HTTP status a body gives as a number (never a bool, never outside 100..599)."""
    return value if type(value) is int and 100 <= value <= 599 else None


def _retry_delay(holder: dict[str, Any]) -> float | None:
    """Google's ``RetryInfo.retryDelay`` among the error's ``details``, in seconds."""
    details = holder.get("details")
    if not isinstance(details, list):
        return None
    for detail in details:
        if isinstance(detail, dict) and str(detail.get("@type", "")).endswith("google.rpc.RetryInfo"):
            delay = detail.get("retryDelay")
            found = _DURATION.fullmatch(delay) if isinstance(delay, str) else None
            if found is not None:
                return float(found.group(1))
    return None


def _code(holder: dict[str, Any]) -> str | None:
    status = holder.get("status")
    if isinstance(status, str) and status:
        return status
    code = holder.get("code")
    if code is None or code == "":
        code = holder.get("type")
    return None if code is None or code == "" else str(code)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else msgspec.json.encode(value).decode()


def gist(text: str, limit: int = 300, *, html: bool = False) -> str:
    """A body in a few words: whitespace squeezed, cut at ``limit``; an HTML
    page (``html``, or text that starts with ``<``) by its ``<title>``, else
    by its text without the tags."""
    if html or text.lstrip()[:1] == "<":
        title = html_title(text)
        text = title if title is not None else _TAGS.sub(" ", text)
    text = _SPACES.sub(" ", text).strip()
    if not text:
        return "(empty body)"
    return text if len(text) <= limit else text[:limit] + "..."


def html_title(text: str) -> str | None:
    """The text of a page's first ``<title>`` element, if it has one."""
    title = _TITLE.search(text)
    return None if title is None else title.group(1)
