"""What an HTTP response's status and headers say before its body is parsed.

Pure functions, no I/O: the httpx adapters call them with what they read.
A provider that rejects a request answers with a non-2xx status and a JSON
error object (or, from a proxy, an HTML page); that must reach the caller as
a :class:`~streamcalls.ProviderError` event, not as a JSON traceback.
"""

from __future__ import annotations

import email.utils
import math
from datetime import timezone
from http import HTTPStatus

import msgspec

from .._events import Event, ProviderError, StreamFinished
from ..framing._error_bodies import ErrorBody, error_in, gist

__all__ = ("STREAM_CONTENT_TYPES", "bad_response_events", "problem_with", "retry_after_in")

STREAM_CONTENT_TYPES = frozenset(
    {
        "text/event-stream",
        "application/x-ndjson",
        "application/jsonl",
        "application/json",
        "application/vnd.amazon.eventstream",
        "text/plain",
    }
)
"""Content types whose body the parser reads (a missing content type is read too)."""


def media_type(content_type: str | None) -> str:
    """``"text/event-stream; charset=utf-8"`` -> ``"text/event-stream"``."""
    if not content_type:
        return ""
    return content_type.split(";", 1)[0].strip().lower()


def problem_with(status: int, content_type: str | None) -> str | None:
    """Why a response's body is not a stream to parse (None: parse it)."""
    if not 200 <= status < 300:
        return "status"
    kind = media_type(content_type)
    if kind and kind not in STREAM_CONTENT_TYPES:
        return "content-type"
    return None


def bad_response_events(
    status: int,
    reason: str,
    content_type: str | None,
    body: bytes,
    *,
    error_type: str | None = None,
    retry_after: float | None = None,
) -> list[Event]:
    """The events for a response that is an error rather than a stream.

    A JSON error object in any provider's shape gives its message and code
    (see :mod:`..framing._error_bodies`); anything else a readable preview of the
    body (an HTML page: its title).  The message starts with
    the HTTP status; ``code`` is the provider's error code or type, else the
    error type an ``x-amzn-ErrorType`` header names (``error_type``: AWS puts
    it there, not in the body), else the status.  The event's ``status`` is
    the HTTP status of a non-2xx response (of a 2xx one, what its body says);
    ``retry_after`` the headers' delay (``retry_after``, see
    :func:`retry_after_in`), else the body's.  A :class:`StreamFinished`
    with reason ``"error"`` follows.
    """
    if not reason:
        try:
            reason = HTTPStatus(status).phrase
        except ValueError:
            reason = ""
    head = f"HTTP {status} {reason}".rstrip()
    kind = media_type(content_type)
    found = _json_error(body) if kind in ("application/json", "") or kind.endswith("+json") else None
    failed = not 200 <= status < 300
    if found is not None:
        code = found.code or aws_error_name(error_type) or str(status)
        error = ProviderError(
            f"{head}: {found.message}",
            code,
            status if failed else found.status,
            found.retry_after if retry_after is None else retry_after,
        )
    elif not failed:
        error = ProviderError(
            f"{head}: expected a stream, got {kind or 'no content type'}: {_preview(body, kind)}",
            "unexpected_content_type",
        )
    else:
        error = ProviderError(f"{head}: {_preview(body, kind)}", str(status), status, retry_after)
    return [error, StreamFinished("error", provider_reason=head)]


def retry_after_in(retry_after: str | None, retry_after_ms: str | None, now: float) -> float | None:
    """Seconds to wait, from a response's ``Retry-After`` and ``retry-after-ms`` headers.

    ``retry-after-ms`` (OpenAI's, in milliseconds) comes first; ``Retry-After``
    is seconds or an HTTP date (RFC 9110), which counts from ``now`` (a Unix
    time; a date already past is 0).  A value neither reads as is ignored.
    """
    if retry_after_ms is not None:
        seconds = _seconds(retry_after_ms)
        if seconds is not None:
            return seconds / 1000
    if retry_after is None:
        return None
    seconds = _seconds(retry_after)
    if seconds is not None:
        return seconds
    try:
        when = email.utils.parsedate_to_datetime(retry_after)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)  # an HTTP date is in GMT
    return max(0.0, when.timestamp() - now)


def _seconds(value: str) -> float | None:
    try:
        seconds = float(value.strip())
    except ValueError:
        return None
    return seconds if math.isfinite(seconds) and seconds >= 0 else None


def aws_error_name(header: str | None) -> str | None:
    """``"ValidationException:http://internal.amazon.com/..."`` -> ``"ValidationException"``."""
    if not header:
        return None
    return header.split(":", 1)[0].strip() or None


def _json_error(body: bytes) -> ErrorBody | None:
    try:
        obj = msgspec.json.decode(body)
    except (msgspec.DecodeError, UnicodeDecodeError, RecursionError):
        return None
    return error_in(obj)


def _preview(body: bytes, kind: str) -> str:
    return gist(body.decode("utf-8", "replace"), html="html" in kind)
