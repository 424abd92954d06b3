"""An HTTP error response becomes a ProviderError event, whatever its body (pure functions)."""

from __future__ import annotations

import pytest

from streamcalls import ProviderError, StreamFinished
from streamcalls.aio._http import bad_response_events, problem_with


@pytest.mark.parametrize(
    ("status", "content_type", "problem"),
    [
        (200, "text/event-stream; charset=utf-8", None),
        (200, "application/x-ndjson", None),
        (200, "application/json", None),
        (200, "application/vnd.amazon.eventstream", None),
        (200, "text/plain", None),
        (200, None, None),
        (200, "text/html; charset=utf-8", "content-type"),
        (401, "application/json", "status"),
        (503, "text/event-stream", "status"),
    ],
)
def test_what_is_parsed(status: int, content_type: str | None, problem: str | None) -> None:
    assert problem_with(status, content_type) == problem


@pytest.mark.parametrize(
    ("status", "body", "message", "code"),
    [
        (
            401,
            b'{"error": {"message": "Incorrect API key provided", "type": "invalid_request_error",'
            b' "param": null, "code": "invalid_api_key"}}',
            "HTTP 401 Unauthorized: Incorrect API key provided",
            "invalid_api_key",
        ),
        (
            529,
            b'{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}',
            "HTTP 529: Overloaded",
            "overloaded_error",
        ),
        (
            404,
            b'{"error": "model \\"llama9\\" not found"}',
            'HTTP 404 Not Found: model "llama9" not found',
            "404",
        ),
        (
            429,
            b'[{"error": {"code": 429, "message": "Quota exceeded", "status": "RESOURCE_EXHAUSTED"}}]',
            "HTTP 429 Too Many Requests: Quota exceeded",
            "RESOURCE_EXHAUSTED",  # as the Gemini stream reports it: google.rpc.Status names it
        ),
        (
            400,
            b'{"object": "error", "message": "Assistant message must have either content or tool_calls",'
            b' "type": "invalid_request_error", "param": null, "code": null}',
            "HTTP 400 Bad Request: Assistant message must have either content or tool_calls",
            "invalid_request_error",
        ),
        (
            400,
            b'{"__type": "com.amazon.coral.validate#ValidationException", "message": "Malformed input request"}',
            "HTTP 400 Bad Request: Malformed input request",
            "ValidationException",
        ),
        (
            401,
            b'{"id": "5a3f", "message": "invalid api token"}',
            "HTTP 401 Unauthorized: invalid api token",
            "401",
        ),
        (422, b'{"detail": "Field required"}', "HTTP 422 Unprocessable Entity: Field required", "422"),
        (500, b"not json at all", "HTTP 500 Internal Server Error: not json at all", "500"),
        (502, b"", "HTTP 502 Bad Gateway: (empty body)", "502"),
    ],
)
def test_json_error_bodies(status: int, body: bytes, message: str, code: str) -> None:
    assert bad_response_events(status, "", "application/json", body) == [
        ProviderError(message, code, status),
        StreamFinished("error", provider_reason=message.split(":", maxsplit=1)[0]),
    ]


def test_an_html_page_is_summarized_by_its_title() -> None:
    page = b"<html><head><title>502 Bad Gateway</title></head><body><center>nginx</center></body></html>"
    events = bad_response_events(502, "Bad Gateway", "text/html", page)
    assert events[0] == ProviderError("HTTP 502 Bad Gateway: 502 Bad Gateway", "502", 502)


def test_a_2xx_that_is_not_a_stream() -> None:
    events = bad_response_events(200, "OK", "text/html", b"<html><body><p>Please log in</p></body></html>")
    assert events[0] == ProviderError(
        "HTTP 200 OK: expected a stream, got text/html: Please log in", "unexpected_content_type"
    )


def test_an_aws_error_is_named_by_its_header_when_the_body_does_not() -> None:
    body = b'{"message": "The provided model identifier is invalid."}'
    header = "ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/"
    [error, _] = bad_response_events(400, "Bad Request", "application/json", body, error_type=header)
    assert error == ProviderError(
        "HTTP 400 Bad Request: The provided model identifier is invalid.", "ValidationException", 400
    )
    [error, _] = bad_response_events(400, "Bad Request", "application/json", body)
    assert isinstance(error, ProviderError)
    assert error.code == "400"  # no header: the status
    with_code = b'{"error": {"message": "m", "code": "own_code"}}'
    [error, _] = bad_response_events(400, "Bad Request", "application/json", with_code, error_type=header)
    assert isinstance(error, ProviderError)
    assert error.code == "own_code"  # the body's own code wins
