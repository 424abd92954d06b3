"""Bodies that are not streams: error objects, complete responses, HTML pages.

The recordings themselves (``tests/data/<provider>/non_stream*.json``,
``error_body.json``, ``html_*.html``, ...) run through tests/corpus/test_corpus.py
like every stream: whole, one byte at a time, at every two-piece split, at
random splits, under their provider and under ``auto``.  Here:

- each complete response gives the events of its own stream: every
  ``non_stream*`` recording is the complete response of a streamed
  recording beside it, written from the same content;
- an error object in each provider's documented shape, pretty-printed or
  compact, gives ``ProviderError(message, code)`` and ``StreamFinished
  ("error")`` under every provider and ``auto`` -- the messages and codes
  are written out below, read off the bodies by eye;
- HTML pages, and what can go wrong inside a JSON document.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import streamcalls
from streamcalls import (
    Event,
    Limits,
    ParseError,
    ProviderError,
    StreamFinished,
    TextDelta,
    ToolCall,
    ToolCallCompleted,
    ToolCallDelta,
)
from streamcalls.testing import ReplayApp, bundled_recordings, serve
from tests.support import DATA, bytewise, counter_ids, feed_chunks, normalize, split_at

PROVIDERS = ("openai", "openai-responses", "anthropic", "ollama", "gemini", "bedrock", "cohere")

# (complete response, the stream it is the whole of)
PAIRS = [
    ("openai/non_stream.json", "openai/one_call.sse"),
    ("openai/non_stream_compact.json", "openai/text_only.sse"),
    ("openai/mistral_non_stream.json", "openai/mistral_thinking_parts.sse"),
    ("openai-responses/non_stream.json", "openai-responses/text_then_calls.sse"),
    ("openai-responses/non_stream_incomplete.json", "openai-responses/incomplete_max_tokens.sse"),
    ("anthropic/non_stream.json", "anthropic/thinking_then_call.sse"),
    ("anthropic/non_stream_compact.json", "anthropic/text_only.sse"),
    ("ollama/non_stream.json", "ollama/thinking_then_call.ndjson"),
    ("ollama/non_stream_compact.json", "ollama/one_call.ndjson"),
    ("gemini/non_stream.json", "gemini/text_then_calls.sse"),
    ("gemini/non_stream_array.json", "gemini/thought_parts.sse"),
    ("gemini/non_stream_compact.json", "gemini/text_only.sse"),
    ("bedrock/non_stream.json", "bedrock/reasoning_then_call.bin"),
    ("bedrock/non_stream_compact.json", "bedrock/text_only.bin"),
    ("cohere/non_stream.json", "cohere/one_call.sse"),
    ("cohere/non_stream_compact.json", "cohere/thinking_then_text.sse"),
]


def comparable(events: list[Event]) -> list[Any]:
    """Events up to how text and arguments are split, and how the arguments' JSON is spaced:
    a stream carries the provider's own argument text, a complete response an object."""
    shown: list[Any] = []
    for event in normalize(events):
        if type(event) is ToolCallDelta:
            try:
                shown.append(("arguments", event.index, msgspec.json.decode(event.arguments_delta)))
            except msgspec.DecodeError:
                shown.append(("arguments", event.index, event.arguments_delta))
        else:
            shown.append(event)
    return shown


@pytest.mark.parametrize("provider", ["explicit", "auto"])
@pytest.mark.parametrize(("document", "stream"), PAIRS, ids=[pair[0] for pair in PAIRS])
def test_a_complete_response_gives_the_events_of_its_stream(
    document: str, stream: str, provider: str
) -> None:
    name = document.split("/", maxsplit=1)[0]
    body = (DATA / document).read_bytes()
    streamed = feed_chunks([(DATA / stream).read_bytes()], name)
    chosen = name if provider == "explicit" else "auto"
    for chunks in ([body], bytewise(body)):
        assert comparable(feed_chunks(chunks, chosen)) == comparable(streamed)


def test_every_complete_response_recording_is_paired_with_its_stream() -> None:
    paired = {document for document, _ in PAIRS}
    recorded = {f"{path.parent.name}/{path.name}" for path in DATA.glob("*/non_stream*.json")}
    assert recorded - paired <= {"openai-responses/non_stream_failed.json"}  # its stream holds more


# -- error objects -------------------------------------------------------------------------------

ERRORS: list[tuple[str, Any, str, str | None]] = [
    (
        "openai",
        {
            "error": {
                "message": "Incorrect API key provided",
                "type": "invalid_request_error",
                "code": "invalid_api_key",
            }
        },
        "Incorrect API key provided",
        "invalid_api_key",
    ),
    (
        "openai without a code",
        {"error": {"message": "Rate limit reached", "type": "requests", "param": None, "code": None}},
        "Rate limit reached",
        "requests",
    ),
    (
        "openrouter",
        {"error": {"message": "No auth credentials found", "code": 401}},
        "No auth credentials found",
        "401",
    ),
    (
        "anthropic",
        {
            "type": "error",
            "error": {"type": "overloaded_error", "message": "Overloaded"},
            "request_id": "req_1",
        },
        "Overloaded",
        "overloaded_error",
    ),
    (
        "gemini",
        {"error": {"code": 429, "message": "Quota exceeded", "status": "RESOURCE_EXHAUSTED"}},
        "Quota exceeded",
        "RESOURCE_EXHAUSTED",
    ),
    ("ollama", {"error": 'model "llama9" not found'}, 'model "llama9" not found', None),
    (
        "mistral",
        {
            "object": "error",
            "message": "Invalid model: magistral-huge",
            "type": "invalid_model",
            "param": None,
            "code": "1500",
        },
        "Invalid model: magistral-huge",
        "1500",
    ),
    (
        "mistral with a structured message",
        {
            "object": "error",
            "message": {"detail": [{"msg": "Extra inputs are not permitted"}]},
            "type": "invalid_request_error",
        },
        '{"detail":[{"msg":"Extra inputs are not permitted"}]}',
        "invalid_request_error",
    ),
    (
        "bedrock",
        {"message": "The security token included in the request is invalid."},
        "The security token included in the request is invalid.",
        None,
    ),
    (
        "bedrock with its exception name",
        {"__type": "com.amazon.coral.validate#ValidationException", "message": "Malformed input request"},
        "Malformed input request",
        "ValidationException",
    ),
    ("cohere", {"id": "6c2f1a5e", "message": "invalid api token"}, "invalid api token", None),
    ("fastapi", {"detail": "Not Found"}, "Not Found", None),
]


# The status each body gives (a number of its own) or its code stands for (as the provider documents it).
STATUSES = {
    "openrouter": 401,
    "anthropic": 529,
    "gemini": 429,
    "mistral with a structured message": 400,
    "bedrock with its exception name": 400,
}


def bodies(obj: Any) -> list[bytes]:
    compact = msgspec.json.encode(obj)
    return [compact, msgspec.json.format(compact, indent=2) + b"\n", b"\r\n  " + compact + b"\n"]


@pytest.mark.parametrize("provider", [*PROVIDERS, "auto"])
@pytest.mark.parametrize(("shape", "body", "message", "code"), ERRORS, ids=[error[0] for error in ERRORS])
def test_an_error_object_in_any_shape_under_any_provider(
    shape: str, body: Any, message: str, code: str | None, provider: str
) -> None:
    expected = [ProviderError(message, code, STATUSES.get(shape)), StreamFinished("error", None, None)]
    for data in bodies(body):
        assert feed_chunks([data], provider) == expected, data
        assert feed_chunks(bytewise(data), provider) == expected, data


@pytest.mark.parametrize("provider", [*PROVIDERS, "auto"])
def test_a_gemini_error_as_the_one_element_of_an_array(provider: str) -> None:
    error = {"error": {"code": 400, "message": "API key not valid.", "status": "INVALID_ARGUMENT"}}
    for data in bodies([error]):
        events = feed_chunks(bytewise(data), provider)
        assert events == [
            ProviderError("API key not valid.", "INVALID_ARGUMENT", 400),
            StreamFinished("error", None, None),
        ]


def test_an_error_body_is_reported_the_moment_it_closes() -> None:
    parser = streamcalls.StreamParser("openai")
    body = msgspec.json.format(msgspec.json.encode(ERRORS[0][1]), indent=2)
    assert parser.feed(body[:-1]) == []
    assert parser.feed(body[-1:]) == [
        ProviderError("Incorrect API key provided", "invalid_api_key"),
        StreamFinished("error"),
    ]
    assert parser.close() == []


# -- complete responses --------------------------------------------------------------------------


@pytest.mark.parametrize("provider", ["openai", "gemini", "bedrock", "auto"])
def test_gemini_s_array_of_one_response_reads_as_the_response(provider: str) -> None:
    response = (DATA / "gemini/non_stream.json").read_bytes()
    expected = normalize(feed_chunks([response], "gemini"))
    assert normalize(feed_chunks(bytewise(b"[" + response + b"]"), provider)) == expected


def test_a_response_of_another_provider_s_shape_is_read_by_its_shape() -> None:
    """A body says what it is: an Anthropic message read with provider="openai" (a proxy's mix-up)."""
    body = (DATA / "anthropic/non_stream.json").read_bytes()
    assert feed_chunks([body], "openai") == feed_chunks([body], "anthropic")


def test_calls_in_a_complete_response_s_text_are_found_by_the_detectors() -> None:
    text = 'Checking.\n~~~tool_call\n{"name": "get_time", "arguments": {"tz": "UTC"}}\n~~~\n'
    body = msgspec.json.encode(
        {
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
            ]
        }
    )
    events = feed_chunks([body], "openai")
    assert ToolCallCompleted(ToolCall("call_gen_0", "get_time", {"tz": "UTC"}, 0, "fence")) in events
    assert events[-1] == StreamFinished("tool_calls", None, "stop")


def test_a_call_without_arguments_in_a_complete_response() -> None:
    body = msgspec.json.encode(
        {"candidates": [{"content": {"parts": [{"functionCall": {"name": "now"}}]}, "finishReason": "STOP"}]}
    )
    events = feed_chunks([body], "gemini")
    assert ToolCallCompleted(ToolCall("call_gen_0", "now", {}, 0, "native")) in events


def test_native_false_fails_the_calls_of_a_complete_response() -> None:
    body = (DATA / "openai/non_stream.json").read_bytes()
    events = feed_chunks([body], "openai", native=False)
    assert [type(e).__name__ for e in events] == [
        "StreamStarted",
        "ToolCallStarted",
        "ToolCallDelta",
        "ToolCallFailed",
        "StreamFinished",
    ]


# -- HTML pages ----------------------------------------------------------------------------------

PAGE = b"<html><head><title>502 Bad Gateway</title></head><body><h1>502</h1></body></html>"
PAGE_ERROR = [
    ProviderError("an HTML page, not a stream: 502 Bad Gateway", "html_page"),
    StreamFinished("error"),
]


@pytest.mark.parametrize(
    "page",
    [
        PAGE,
        b"<!DOCTYPE html>\n" + PAGE,
        b"<!doctype HTML>" + PAGE,
        b"\xef\xbb\xbf \r\n\t" + PAGE,  # a BOM and blanks first
        b"<HTML lang='en'><HEAD><TITLE>502 Bad Gateway</TITLE></HEAD></HTML>",
    ],
)
@pytest.mark.parametrize("provider", [*PROVIDERS, "auto"])
def test_an_html_page_is_reported_by_its_title(page: bytes, provider: str) -> None:
    assert feed_chunks([page], provider) == PAGE_ERROR
    assert feed_chunks(bytewise(page), provider) == PAGE_ERROR


def test_a_page_without_a_title_is_reported_by_its_text() -> None:
    events = feed_chunks([b"<html><body><h1>Service   Unavailable</h1>\n<p>Try later.</p></body></html>"])
    assert events[0] == ProviderError(
        "an HTML page, not a stream: Service Unavailable Try later.", "html_page"
    )


def test_a_long_page_is_reported_from_its_start_whatever_the_chunks() -> None:
    page = b"<html><body>" + b"<p>lorem ipsum</p>" * 10_000 + b"</body></html>"
    whole = feed_chunks([page])
    assert feed_chunks(split_at(page, range(0, len(page), 999))) == whole
    assert whole[0].message.startswith("an HTML page, not a stream: lorem ipsum lorem")  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "text", [b"<b>Bold</b> claims", b"<html5 is a spec", b"<htm", b"<!doctype xml>", b"<tool_call> x"]
)
def test_other_markup_is_text_under_auto(text: bytes) -> None:
    for chunks in ([text], bytewise(text)):
        events = feed_chunks(chunks, detect=())
        assert "".join(e.text for e in events if type(e) is TextDelta) == text.decode()


def test_a_model_may_write_html_with_the_text_provider() -> None:
    events = feed_chunks([PAGE], "text")
    assert events == [TextDelta(PAGE.decode()), StreamFinished("stop", None, None)]


# -- what can go wrong inside a JSON document ----------------------------------------------------


@pytest.mark.parametrize("provider", ["openai", "anthropic", "ollama", "gemini", "bedrock", "cohere"])
def test_invalid_json_is_a_parse_error_showing_the_body_never_text(provider: str) -> None:
    body = b'{\n  "error": {\n    "message": no quotes\n  }\n}\n'
    for chunks in ([body], bytewise(body)):
        events = feed_chunks(chunks, provider)
        assert [type(e) for e in events] == [ParseError, StreamFinished]
        assert events[0].message.startswith("the body is not valid JSON")  # type: ignore[union-attr]
        assert events[0].raw == body.strip().decode()  # type: ignore[union-attr]
        assert events[1] == StreamFinished("error")


@pytest.mark.parametrize("provider", ["openai", "bedrock", "ollama"])
def test_a_cut_off_document(provider: str) -> None:
    body = b'{\n  "error": {\n    "message": "cut'
    for chunks in ([body], bytewise(body)):
        assert feed_chunks(chunks, provider) == [
            ParseError("the body ended inside its JSON document (truncated)", body.decode()),
            StreamFinished("error"),
        ]


def test_a_document_over_max_line_bytes() -> None:
    body = b'{\n  "choices": [' + b" " * 5000 + b"]\n}"
    limits = Limits(max_line_bytes=1000)
    whole = feed_chunks([body], "openai", limits=limits)
    assert whole == [
        ParseError("the body's JSON document exceeds max_line_bytes=1000; not read", body[:200].decode()),
        StreamFinished("error"),
    ]
    assert feed_chunks(bytewise(body), "openai", limits=limits) == whole


@settings(max_examples=50, deadline=None)
@given(cuts=st.lists(st.integers(0, 400), max_size=12))
def test_data_after_the_document_is_reported_once_whatever_the_chunks(cuts: list[int]) -> None:
    body = msgspec.json.format(msgspec.json.encode(ERRORS[0][1]), indent=2) + b"\n\n" + b"x" * 300
    events = feed_chunks(split_at(body, cuts), "openai")
    assert events == [
        ProviderError("Incorrect API key provided", "invalid_api_key"),
        StreamFinished("error"),
        ParseError("data after the body's JSON document; ignored", "x" * 200 + "..."),
    ]


def test_a_document_neither_a_response_nor_an_error() -> None:
    body = b'{\n  "hello": "world"\n}'
    assert feed_chunks([body], "openai") == [
        ParseError(
            "the body is one JSON document, neither a response nor an error object: an object with keys hello",
            body.decode(),
        ),
        StreamFinished("error"),
    ]


@pytest.mark.parametrize(
    "text",
    [
        b'{\n  "answer": 42\n}\nThat is the JSON you asked for.',  # JSON, but no provider's
        b"{\n  not json at all\n}\n",
        b"{\n  still open",
    ],
)
def test_json_looking_text_stays_text_under_auto(text: bytes) -> None:
    for chunks in ([text], bytewise(text)):
        events = feed_chunks(chunks, detect=())
        assert "".join(e.text for e in events if type(e) is TextDelta) == text.decode()
        assert events[-1] == StreamFinished("stop", None, None)


def test_a_pretty_printed_bare_call_is_a_text_call_under_auto() -> None:
    text = b'{\n  "name": "get_weather",\n  "arguments": {"city": "Oslo"}\n}\nDone.'
    events = feed_chunks(bytewise(text))
    assert ToolCallCompleted(ToolCall("call_gen_0", "get_weather", {"city": "Oslo"}, 0, "json")) in events
    assert "".join(e.text for e in events if type(e) is TextDelta) == "\nDone."


def test_a_stream_pays_nothing_for_the_first_byte_choice() -> None:
    """After its first byte, an SSE body is fed to the SSE framer directly."""
    parser = streamcalls.StreamParser("openai")
    parser.feed(b"data: {}\n\n")
    assert type(parser._framer).__name__ == "SSEFramer"
    parser = streamcalls.StreamParser("ollama")
    parser.feed(b'{"message": {"content": "x"}, "done": false}\n')
    assert type(parser._framer).__name__ == "NDJSONFramer"


# -- over real HTTP, through aparse(response.aiter_bytes()) -------------------------------------


async def _aparse_completion(model: str) -> list[Event]:
    app = ReplayApp(bundled_recordings(), max_chunk=7, max_delay=0.0, seed=3)
    request = {"model": model, "stream": True, "messages": []}
    async with (
        serve(app) as url,
        httpx.AsyncClient(timeout=10) as client,
        client.stream("POST", f"{url}/v1/chat/completions", json=request) as response,
    ):
        chunks: AsyncIterator[bytes] = response.aiter_bytes()
        return [event async for event in streamcalls.aparse(chunks, id_factory=counter_ids())]


@pytest.mark.anyio
async def test_an_error_body_through_aparse_over_http() -> None:
    events = await _aparse_completion("http-429")
    assert events == [ProviderError("simulated error 429", "rate_limit_exceeded"), StreamFinished("error")]


@pytest.mark.anyio
async def test_an_html_page_through_aparse_over_http() -> None:
    events = await _aparse_completion("html-502")
    assert events == PAGE_ERROR


# -- the readers extract() shares ---------------------------------------------------------------


def test_a_server_side_tool_in_a_converse_response_is_no_call() -> None:
    """Nova's code interpreter runs at AWS (toolUse type server_tool_use): not a call to run here."""
    response = {
        "output": {
            "message": {
                "role": "assistant",
                "content": [
                    {
                        "toolUse": {
                            "toolUseId": "tooluse_srv",
                            "name": "nova_code_interpreter",
                            "type": "server_tool_use",
                            "input": {"snippet": "print(6 * 7)"},
                        }
                    },
                    {
                        "toolResult": {
                            "toolUseId": "tooluse_srv",
                            "content": [{"text": "42"}],
                            "status": "success",
                        }
                    },
                    {"text": "It is 42."},
                    {"toolUse": {"toolUseId": "tooluse_save", "name": "save", "input": {"n": 42}}},
                ],
            }
        },
        "stopReason": "tool_use",
    }
    call = ToolCall("tooluse_save", "save", {"n": 42}, 0, "native")
    assert streamcalls.extract(response) == [call]
    events = feed_chunks([msgspec.json.encode(response)], "bedrock")
    assert [e for e in events if type(e) is ToolCallCompleted] == [ToolCallCompleted(call)]
    assert TextDelta("It is 42.") in events


def test_reasoning_is_never_read_for_calls() -> None:
    fence = '~~~tool_call\n{"name": "rm", "arguments": {"path": "/"}}\n~~~\n'
    response = {
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": [{"type": "thinking", "thinking": fence}]},
                "finish_reason": "stop",
            }
        ]
    }
    assert streamcalls.extract(response) == []
    events = feed_chunks([msgspec.json.encode(response)], "openai")
    assert events == [
        streamcalls.StreamStarted("openai"),
        streamcalls.ReasoningStarted(kind="thinking"),
        streamcalls.ReasoningDelta(fence),
        streamcalls.ReasoningCompleted(),
        StreamFinished("stop", None, "stop"),
    ]


def test_text_and_reasoning_keep_the_response_s_order() -> None:
    message = {
        "type": "message",
        "content": [
            {"type": "text", "text": "First. "},
            {"type": "thinking", "thinking": "Now think."},
            {"type": "text", "text": "Then."},
        ],
        "stop_reason": "end_turn",
    }
    events = feed_chunks([msgspec.json.encode(message)], "anthropic")
    assert events == [
        streamcalls.StreamStarted("anthropic"),
        TextDelta("First. "),
        streamcalls.ReasoningStarted(kind="thinking"),
        streamcalls.ReasoningDelta("Now think."),
        streamcalls.ReasoningCompleted(),
        TextDelta("Then."),
        StreamFinished("stop", None, "end_turn"),
    ]


@settings(max_examples=50, deadline=None)
@given(cuts=st.lists(st.integers(0, 120), max_size=8))
def test_a_page_is_reported_the_same_however_cut(cuts: list[int]) -> None:
    """A "</title>" with no title before it must not report the page early, from what came so far
    (found by atheris: tests/fuzz_regressions/html-closing-title-before-any-title.bin)."""
    page = b"<html><head><tlable</title></head><body><h1>503 Unavailable</h1></body></html><title>T</title>"
    expected = [ProviderError("an HTML page, not a stream: T", "html_page"), StreamFinished("error")]
    assert feed_chunks(split_at(page, cuts), "openai") == expected


def test_a_framer_hands_over_by_returning_its_successor() -> None:
    """The first byte's framer returns the JSON body's framer it chose, which returns the NDJSON
    framer once the first line closes a value: each fed the rest of its chunk.  An owner that
    feeds the one returned from then on (as the parser does) gets the stream's events."""
    from streamcalls._emitter import Emitter
    from streamcalls._nonstream import DocumentReader
    from streamcalls.framing._make import make_framer
    from streamcalls.providers.ollama.reader import OllamaAdapter

    body = (DATA / "ollama/thinking_then_call.ndjson").read_bytes()
    emit = Emitter(Limits(), counter_ids())
    adapter = OllamaAdapter(emit)
    framer: Any = make_framer(adapter.framing, adapter, emit, DocumentReader(emit, adapter))
    cut = body.index(b"\n") + 1
    handed = []
    for piece in (body[:1], body[1:cut], body[cut:]):
        successor = framer.feed(piece)
        if successor is not None:
            handed.append(type(successor).__name__)
            framer = successor
    framer.close()
    adapter.close()
    assert handed == ["DocumentFramer", "NDJSONFramer"]
    assert emit.out == feed_chunks([body], "ollama")
