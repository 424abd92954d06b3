"""The Turn of a recording equals what the provider's official SDK accumulates from the same bytes.

Each SDK gets the recording's bytes through a ``MockTransport`` of the HTTP client it is built on
(``httpx2`` for the installed SDKs; no network), and its own
accumulator builds the final message: the anthropic SDK's ``MessageStream.get_final_message()``, the
openai SDK's chat ``ChatCompletionStreamState`` (behind ``chat.completions.stream``) and its Responses
stream accumulator (behind ``responses.stream``).  Both sides are written out in one plain shape --
text, reasoning with what the provider requires back, calls with their argument text -- and compared,
under the explicit provider and ``auto``, whole, one byte at a time and at random cuts.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from streamcalls import ReasoningPart, TextPart, ToolCall, Turn, accumulate
from tests.support import DATA, bytewise, feed_chunks, split_at
from tests.support.sdk_clients import sdk_client

anthropic = pytest.importorskip("anthropic")
openai = pytest.importorskip("openai")
pytest.importorskip("httpx2")  # what the installed SDKs are built on

Shape = list[tuple[Any, ...]]


def chunkings(data: bytes) -> list[list[bytes]]:
    return [[data], bytewise(data)]


def turns(data: bytes, provider: str, cuts: list[int] | None = None) -> list[Turn]:
    """The turn under the explicit provider and ``auto``, whole, one byte at a time (and at ``cuts``)."""
    ways = chunkings(data) + ([split_at(data, cuts)] if cuts is not None else [])
    return [accumulate(feed_chunks(chunks, name)) for chunks in ways for name in (provider, "auto")]


def check(data: bytes, provider: str, shape_of_turn: Callable[[Turn], Shape], sdk_shape: Shape) -> None:
    for turn in turns(data, provider):
        assert shape_of_turn(turn) == sdk_shape


# -- Anthropic: MessageStream's final message ---------------------------------------------------------

# Recordings whose turn ends normally (the SDK keeps a call cut by max_tokens, with the input it
# had; a Turn holds completed calls only, and the cut one among its errors).
ANTHROPIC = [
    "thinking_then_call",
    "interleaved_thinking",
    "one_call",
    "parallel_calls",
    "text_only",
    "text_after_arguments",
]


def anthropic_final(body: bytes) -> Any:
    client = sdk_client(anthropic.Anthropic, body)
    with client.messages.stream(
        model="model-under-test", max_tokens=1024, messages=[{"role": "user", "content": "Hi"}]
    ) as stream:
        for _ in stream:
            pass
        return stream.get_final_message()


def anthropic_shape(message: Any) -> Shape:
    shape: Shape = [("message", message.id, message.model)]
    for block in message.content:
        if block.type == "text":
            shape.append(("text", block.text))
        elif block.type == "thinking":
            shape.append(("thinking", block.thinking, block.signature or None))
        elif block.type == "redacted_thinking":
            shape.append(("redacted_thinking", block.data))
        elif block.type == "tool_use":
            shape.append(("tool_use", block.id, block.name, block.input))
    return shape


def anthropic_turn_shape(turn: Turn) -> Shape:
    shape: Shape = [("message", turn.response_id, turn.model)]
    for part in turn.parts:
        if type(part) is TextPart:
            shape.append(("text", part.text))
        elif type(part) is ReasoningPart and part.kind == "redacted_thinking":
            shape.append(("redacted_thinking", part.redacted))
        elif type(part) is ReasoningPart:
            shape.append(("thinking", part.text, part.signature))
        elif type(part) is ToolCall:
            shape.append(("tool_use", part.id, part.name, part.arguments))
    return shape


@pytest.mark.parametrize("name", ANTHROPIC)
def test_anthropic_message_stream_accumulates_the_same_turn(name: str) -> None:
    data = (DATA / "anthropic" / f"{name}.sse").read_bytes()
    check(data, "anthropic", anthropic_turn_shape, anthropic_shape(anthropic_final(data)))


def test_the_anthropic_comparison_sees_the_thinking_blocks() -> None:
    message = anthropic_final((DATA / "anthropic" / "interleaved_thinking.sse").read_bytes())
    kinds = [block.type for block in message.content]
    assert kinds == ["thinking", "tool_use", "thinking", "redacted_thinking", "tool_use"]


# -- OpenAI Chat: ChatCompletionStreamState ------------------------------------------------------------

# Not gemini3_thought_signatures: Gemini's compatible endpoint sends calls without an ``index``,
# which the SDK's accumulator cannot place (a TypeError inside it).
CHAT = [
    "deepseek_reasoning_then_call",
    "openrouter_reasoning_details",
    "groq_reasoning_then_call",
    "crlf_bom_comments_reasoning",
    "one_call",
    "parallel_calls",
    "text_only",
    "no_arguments",
]


def chat_final(body: bytes) -> Any:
    client = sdk_client(openai.OpenAI, body)
    with client.chat.completions.stream(model="m", messages=[{"role": "user", "content": "Hi"}]) as stream:
        for _ in stream:
            pass
        return stream.get_final_completion()


def chat_shape(completion: Any) -> Shape:
    message = completion.choices[0].message
    extra = message.model_extra or {}
    # The SDK's accumulate_delta joins every string field of the entries with one index, so an
    # entry's "format", sent with each piece, comes out repeated: compare it apart (see below).
    details = [
        {key: value for key, value in detail.items() if key not in ("index", "format")}
        for detail in extra.get("reasoning_details") or []
    ]
    calls = []
    for call in message.tool_calls or []:
        google = ((call.model_extra or {}).get("extra_content") or {}).get("google") or {}
        calls.append((call.id, call.function.name, call.function.arguments, google.get("thought_signature")))
    reasoning = extra.get("reasoning") or None
    return [
        ("model", completion.model, completion.id),
        ("content", message.content or ""),
        ("reasoning_content", extra.get("reasoning_content") or None),
        ("reasoning", None if details else reasoning),
        ("reasoning_details", details),
        ("calls", calls),
    ]


def chat_turn_shape(turn: Turn) -> Shape:
    thoughts = [part for part in turn.parts if type(part) is ReasoningPart]
    joined = {
        kind: "".join(part.text for part in thoughts if part.kind == kind) or None
        for kind in ("reasoning_content", "reasoning")
    }
    details = []
    for part in thoughts:
        if part.kind is not None and part.kind.startswith("reasoning."):
            detail: dict[str, Any] = {"type": part.kind}
            if part.kind == "reasoning.encrypted":
                detail["data"] = part.encrypted
            else:
                detail["summary" if part.kind == "reasoning.summary" else "text"] = part.text
            for key in ("signature", "id"):
                if getattr(part, key) is not None:
                    detail[key] = getattr(part, key)
            details.append(detail)
    calls = [(call.id, call.name, turn.raw_arguments[call.id], call.thought_signature) for call in turn.calls]
    return [
        ("model", turn.model, turn.response_id),
        ("content", turn.text),
        ("reasoning_content", joined["reasoning_content"]),
        ("reasoning", joined["reasoning"]),
        ("reasoning_details", details),
        ("calls", calls),
    ]


@pytest.mark.parametrize("name", CHAT)
def test_openai_chat_stream_state_accumulates_the_same_turn(name: str) -> None:
    data = (DATA / "openai" / f"{name}.sse").read_bytes()
    check(data, "openai", chat_turn_shape, chat_shape(chat_final(data)))


def test_the_chat_comparison_sees_the_reasoning_fields() -> None:
    deepseek = chat_shape(chat_final((DATA / "openai" / "deepseek_reasoning_then_call.sse").read_bytes()))
    assert deepseek[2][1].startswith("The user asks for the weather in Hangzhou")
    final = chat_final((DATA / "openai" / "openrouter_reasoning_details.sse").read_bytes())
    openrouter = chat_shape(final)
    assert [detail["type"] for detail in openrouter[4][1]] == ["reasoning.text", "reasoning.encrypted"]
    assert openrouter[4][1][0]["signature"].startswith("EqQBCkgI")
    # The format the SDK joined, piece by piece; the turn keeps it once.
    sdk_details = final.choices[0].message.model_extra["reasoning_details"]
    assert sdk_details[0]["format"] == "anthropic-claude-v1" * 3
    turn = accumulate(
        feed_chunks([(DATA / "openai" / "openrouter_reasoning_details.sse").read_bytes()], "openai")
    )
    assert {part.format for part in turn.parts if type(part) is ReasoningPart} == {"anthropic-claude-v1"}


# -- OpenAI Responses: the Responses stream accumulator -----------------------------------------------

# Not reasoning_text: its message item streams text without a content_part.added, which the SDK's
# accumulator needs (an IndexError inside it); the API always sends one.
RESPONSES = [
    "reasoning_summaries_then_calls",
    "one_call",
    "parallel_calls",
    "parallel_interleaved",
    "text_then_calls",
    "text_only",
]


def responses_final(body: bytes) -> Any:
    client = sdk_client(openai.OpenAI, body)
    with client.responses.stream(model="m", input="Hi") as stream:
        for _ in stream:
            pass
        return stream.get_final_response()


def responses_shape(response: Any) -> Shape:
    shape: Shape = [("response", response.model, response.id)]
    for item in response.output:
        if item.type == "reasoning":
            summary = [part.text for part in item.summary]
            content = [part.text for part in item.content or []]
            shape.append(("reasoning", item.id, summary, content, item.encrypted_content))
        elif item.type == "message":
            text = "".join(part.text if part.type == "output_text" else part.refusal for part in item.content)
            shape.append(("message", text))
        elif item.type == "function_call":
            shape.append(("function_call", item.call_id, item.name, item.arguments))
    return shape


def responses_turn_shape(turn: Turn) -> Shape:
    shape: Shape = [("response", turn.model, turn.response_id)]
    for part in turn.parts:
        if type(part) is ReasoningPart:
            last = shape[-1]
            if last[0] != "reasoning" or last[1] != part.id:
                last = ("reasoning", part.id, [], [], None)
                shape.append(last)
            if part.kind == "summary_text":
                last[2].append(part.text)
            elif part.kind == "reasoning_text":
                last[3].append(part.text)
            if part.encrypted is not None:
                shape[-1] = (*last[:4], part.encrypted)
        elif type(part) is TextPart:
            shape.append(("message", part.text))
        elif type(part) is ToolCall:
            shape.append(("function_call", part.id, part.name, turn.raw_arguments[part.id]))
    return shape


@pytest.mark.parametrize("name", RESPONSES)
def test_openai_responses_accumulator_gives_the_same_turn(name: str) -> None:
    data = (DATA / "openai-responses" / f"{name}.sse").read_bytes()
    check(data, "openai-responses", responses_turn_shape, responses_shape(responses_final(data)))


def test_the_responses_comparison_sees_the_items() -> None:
    response = responses_final(
        (DATA / "openai-responses" / "reasoning_summaries_then_calls.sse").read_bytes()
    )
    assert [item.type for item in response.output] == [
        "reasoning",
        "function_call",
        "reasoning",
        "function_call",
    ]
    assert response.output[0].encrypted_content.startswith("gAAAA")


# -- any chunking --------------------------------------------------------------------------------------

RANDOM = [
    (
        "anthropic/interleaved_thinking.sse",
        "anthropic",
        anthropic_final,
        anthropic_shape,
        anthropic_turn_shape,
    ),
    ("openai/openrouter_reasoning_details.sse", "openai", chat_final, chat_shape, chat_turn_shape),
    (
        "openai-responses/reasoning_summaries_then_calls.sse",
        "openai-responses",
        responses_final,
        responses_shape,
        responses_turn_shape,
    ),
]


@pytest.mark.parametrize("case", RANDOM, ids=[r[0] for r in RANDOM])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cuts=st.lists(st.integers(0, 20_000), max_size=50))
def test_at_random_cuts_the_turn_is_the_sdks(case: tuple[Any, ...], cuts: list[int]) -> None:
    path, provider, final, sdk_shape, turn_shape = case
    data = Path(DATA / path).read_bytes()
    expected = sdk_shape(final(data))
    for name in (provider, "auto"):
        assert turn_shape(accumulate(feed_chunks(split_at(data, cuts), name))) == expected


def test_shapes_are_plain_data() -> None:  # what the comparisons compare can be printed and diffed
    shape = responses_turn_shape(
        accumulate(feed_chunks([(DATA / RANDOM[2][0]).read_bytes()], "openai-responses"))
    )
    assert msgspec.json.decode(msgspec.json.encode(shape))
