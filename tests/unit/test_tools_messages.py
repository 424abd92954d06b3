"""ToolRun.messages(provider): the next request's messages, checked against each provider's rules.

The rules are written here from the providers' documentation, independently of the codec: what
each API answers with a 400 when a history breaks them (a call without its result, results not
right after their calls, turns that do not alternate, ...).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
import msgspec
import pytest

import streamcalls
from streamcalls import ToolCallCompleted, UsageError
from streamcalls.codec import CODEC_PROVIDERS, CodecProviderName
from tests.support import DATA, plain
from tests.support.streams import openai_call_start, openai_chunk, openai_finish

pytestmark = pytest.mark.anyio

Messages = list[dict[str, Any]]


# -- each provider's rules for a history with tool calls -------------------------------------------


def _ids(items: list[dict[str, Any]], key: str, field: str) -> list[str]:
    return [item[key][field] for item in items if key in item]


def openai_rules(turn: Messages) -> tuple[list[str], list[str]]:
    """Chat Completions (and Cohere v2): an assistant message with tool_calls, then one tool message
    per tool_call_id, before anything else."""
    assistant, *results = turn
    assert assistant["role"] == "assistant"
    calls = [call["id"] for call in assistant.get("tool_calls", [])]
    assert all(message["role"] == "tool" for message in results)
    answered = [message["tool_call_id"] for message in results]
    return calls, answered


def responses_rules(turn: Messages) -> tuple[list[str], list[str]]:
    """Responses: function_call items, each answered by a function_call_output with its call_id."""
    calls = [item["call_id"] for item in turn if item.get("type") == "function_call"]
    answered = [item["call_id"] for item in turn if item.get("type") == "function_call_output"]
    first_output = next(i for i, item in enumerate(turn) if item.get("type") == "function_call_output")
    assert all(item.get("type") == "function_call_output" for item in turn[first_output:])
    for item in turn:
        assert item.get("type") in ("message", "function_call", "function_call_output")
        if item["type"] == "function_call":
            msgspec.json.decode(item["arguments"])  # a JSON string
    return calls, answered


def anthropic_rules(turn: Messages) -> tuple[list[str], list[str]]:
    """Messages API: the assistant's tool_use blocks, then ONE user message whose tool_result blocks
    answer every tool_use id (tool_result blocks first in that message)."""
    assistant, user = turn  # exactly two: alternating roles
    assert (assistant["role"], user["role"]) == ("assistant", "user")
    calls = [block["id"] for block in assistant["content"] if block["type"] == "tool_use"]
    assert all(
        isinstance(block["input"], dict) for block in assistant["content"] if block["type"] == "tool_use"
    )
    assert all(block["type"] == "tool_result" for block in user["content"])
    return calls, [block["tool_use_id"] for block in user["content"]]


def gemini_rules(turn: Messages) -> tuple[list[str], list[str]]:
    """generateContent: a model content with functionCall parts, then ONE user content with as many
    functionResponse parts (same names)."""
    model, user = turn
    assert (model["role"], user["role"]) == ("model", "user")
    calls = [part["functionCall"] for part in model["parts"] if "functionCall" in part]
    responses = [part["functionResponse"] for part in user["parts"]]
    assert len(responses) == len(calls)
    assert [r["name"] for r in responses] == [c["name"] for c in calls]
    assert all(set(r["response"]) <= {"output", "error"} for r in responses)
    return [c["id"] for c in calls], [r["id"] for r in responses]


def bedrock_rules(turn: Messages) -> tuple[list[str], list[str]]:
    """Converse: the assistant's toolUse blocks, then ONE user message with a toolResult per toolUseId."""
    assistant, user = turn
    assert (assistant["role"], user["role"]) == ("assistant", "user")
    calls = _ids(assistant["content"], "toolUse", "toolUseId")
    assert all("toolResult" in block for block in user["content"])
    for block in user["content"]:
        assert block["toolResult"]["status"] in ("success", "error")
        assert [list(piece) for piece in block["toolResult"]["content"]] == [["text"]]
    return calls, _ids(user["content"], "toolResult", "toolUseId")


def ollama_rules(turn: Messages) -> tuple[list[str], list[str]]:
    """/api/chat: the assistant's tool_calls (object arguments), then a tool message per result."""
    assistant, *results = turn
    assert all(isinstance(call["function"]["arguments"], dict) for call in assistant["tool_calls"])
    assert all(message["role"] == "tool" and message["tool_name"] for message in results)
    return [call["id"] for call in assistant["tool_calls"]], [m["tool_call_id"] for m in results]


RULES: dict[str, Callable[[Messages], tuple[list[str], list[str]]]] = {
    "openai": openai_rules,
    "openai-responses": responses_rules,
    "anthropic": anthropic_rules,
    "ollama": ollama_rules,
    "gemini": gemini_rules,
    "bedrock": bedrock_rules,
    "cohere": openai_rules,
}


def check(turn: Messages, provider: str) -> list[str]:
    """The provider's rules hold; every call is answered once, in call order.  Returns the call ids."""
    calls, answered = RULES[provider](turn)
    assert answered == calls
    assert len(set(calls)) == len(calls)
    return calls


def contents(turn: Messages, provider: str) -> list[tuple[str, bool]]:
    """(content, is_error) of each result, however the provider writes the error flag."""
    if provider == "anthropic":
        return [(b["content"], b.get("is_error", False)) for b in turn[1]["content"]]
    if provider == "bedrock":
        return [
            (b["toolResult"]["content"][0]["text"], b["toolResult"]["status"] == "error")
            for b in turn[1]["content"]
        ]
    if provider == "gemini":
        responses = [part["functionResponse"]["response"] for part in turn[1]["parts"]]
        return [(r.get("output", r.get("error")), "error" in r) for r in responses]
    if provider == "openai-responses":
        outputs = [item["output"] for item in turn if item.get("type") == "function_call_output"]
    else:
        outputs = [m["content"] for m in turn if m["role"] == "tool"]
    return [(o.removeprefix("Error: "), o.startswith("Error: ")) for o in outputs]


# -- runs --------------------------------------------------------------------------------------------


async def _chunks(*parts: bytes) -> AsyncIterator[bytes]:
    for part in parts:
        yield part


TEXT = openai_chunk({"content": "Let me check "}) + openai_chunk({"content": "both."})
SLOW_FIRST = (
    TEXT,
    openai_call_start(0, "call_a", "slow", '{"city": "Paris"}'),
    openai_call_start(1, "call_b", "fast", '{"city": "Oslo"}'),
    openai_finish(),
)


async def slow(city: str) -> str:
    await anyio.sleep(0.02)  # finishes after fast: the results come in the other order
    return f"slow {city}"


async def fast(city: str) -> str:
    return f"fast {city}"


async def run_of(*parts: bytes, tools: Any = (slow, fast)) -> streamcalls.ToolRun:
    async with streamcalls.run_tools(streamcalls.aparse(_chunks(*parts)), list(tools)) as run:
        async for _ in run:
            pass
    return run


@pytest.mark.parametrize("provider", CODEC_PROVIDERS)
async def test_the_turn_follows_each_provider_rules_with_results_in_call_order(
    provider: CodecProviderName,
) -> None:
    run = await run_of(*SLOW_FIRST)
    turn = run.messages(provider)
    assert check(turn, provider) == ["call_a", "call_b"]
    assert contents(turn, provider) == [("slow Paris", False), ("fast Oslo", False)]
    # The assistant's part is encode_call's, with the text; the results are encode_result's.
    calls = [
        streamcalls.ToolCall("call_a", "slow", {"city": "Paris"}, 0),
        streamcalls.ToolCall("call_b", "fast", {"city": "Oslo"}, 1),
    ]
    written = streamcalls.encode_call(calls, provider, text="Let me check both.")
    assistant = written if isinstance(written, list) else [written]
    # ... but with the arguments as the model wrote them, where the provider takes a string.
    as_written = msgspec.json.encode(assistant)
    for city in (b"Paris", b"Oslo"):
        as_written = as_written.replace(
            b'{\\"city\\":\\"' + city + b'\\"}', b'{\\"city\\": \\"' + city + b'\\"}'
        )
    assert turn[: len(assistant)] == msgspec.json.decode(as_written)
    if provider in ("openai", "openai-responses", "cohere"):
        assert as_written != msgspec.json.encode(assistant)  # the raw text did go in


async def test_the_order_is_the_calls_not_the_results() -> None:
    items: list[Any] = []
    async with streamcalls.run_tools(streamcalls.aparse(_chunks(*SLOW_FIRST)), [slow, fast]) as run:
        async for item in run:
            items.append(item)
    assert [i.call_id for i in items if isinstance(i, streamcalls.ToolResult)] == ["call_b", "call_a"]
    assert [m.get("tool_call_id") for m in run.messages("openai")] == [None, "call_a", "call_b"]


@pytest.mark.parametrize("provider", CODEC_PROVIDERS)
async def test_failed_calls_and_error_results(provider: CodecProviderName) -> None:
    """A call whose arguments are not JSON goes in with {} and an error result the model can act on;
    an invalid-arguments result and an unknown tool are error results."""
    run = await run_of(
        openai_call_start(0, "call_a", "slow", '{"city": 3}'),
        openai_call_start(1, "call_b", "fast", '{"city": Oslo}'),  # not JSON
        openai_call_start(2, "call_c", "nope", "{}"),
        openai_finish(),
    )
    turn = run.messages(provider)
    assert check(turn, provider) == ["call_a", "call_b", "call_c"]
    [invalid, unreadable, unknown] = contents(turn, provider)
    assert invalid == ("invalid arguments for slow: Expected str, got int - at $.city", True)
    assert unreadable[1] is True
    assert unreadable[0].startswith("the call could not be read (")
    assert unreadable[0].endswith("), so the tool did not run; make the call again")
    assert unknown == ("unknown tool 'nope' (known: 'slow', 'fast')", True)
    calls = streamcalls.extract(turn if provider == "openai-responses" else turn[0], provider=provider)
    assert [(c.id, c.name, c.arguments) for c in calls] == [
        ("call_a", "slow", {"city": 3}),
        ("call_b", "fast", {}),
        ("call_c", "nope", {}),
    ]


@pytest.mark.parametrize("provider", CODEC_PROVIDERS)
async def test_a_call_left_without_a_result_gets_an_error_result(provider: CodecProviderName) -> None:
    release = anyio.Event()

    async def hang(city: str) -> str:
        await release.wait()
        return "never"

    events = streamcalls.aparse(_chunks(*SLOW_FIRST[1:]))
    async with streamcalls.run_tools(events, [Tool_named(hang, "slow"), fast]) as run:
        async for item in run:
            if isinstance(item, ToolCallCompleted) and item.call.id == "call_b":
                break  # call_a's tool is still running: the block cancels it
    turn = run.messages(provider)
    assert check(turn, provider) == ["call_a", "call_b"]
    assert contents(turn, provider)[0] == ("the tool did not finish: the run ended before its result", True)


def Tool_named(fn: Any, name: str) -> streamcalls.Tool:
    return streamcalls.Tool.from_function(fn, name=name)


async def test_text_only_and_nothing() -> None:
    run = await run_of(TEXT, openai_finish("stop"))
    assert {p: run.messages(p) for p in CODEC_PROVIDERS} == {
        "openai": [{"role": "assistant", "content": "Let me check both."}],
        "openai-responses": [{"type": "message", "role": "assistant", "content": "Let me check both."}],
        "anthropic": [{"role": "assistant", "content": [{"type": "text", "text": "Let me check both."}]}],
        "ollama": [{"role": "assistant", "content": "Let me check both."}],
        "gemini": [{"role": "model", "parts": [{"text": "Let me check both."}]}],
        "bedrock": [{"role": "assistant", "content": [{"text": "Let me check both."}]}],
        "cohere": [{"role": "assistant", "content": "Let me check both."}],
    }
    empty = await run_of(openai_finish("stop"))
    assert empty.messages("anthropic") == []


async def test_an_alias_speaks_openai_and_misuse_is_reported() -> None:
    run = await run_of(*SLOW_FIRST)
    assert run.messages("openrouter") == run.messages("openai")
    with pytest.raises(UsageError, match=r"unknown provider 'opnai' \(did you mean 'openai'\?\)"):
        run.messages("opnai")  # type: ignore[call-overload]
    fresh = streamcalls.run_tools(streamcalls.aparse(_chunks(*SLOW_FIRST)), [slow, fast])
    with pytest.raises(UsageError, match="after the loop"):
        fresh.messages("openai")
    async with fresh:
        async for _ in fresh:
            with pytest.raises(UsageError, match="after the loop"):
                fresh.messages("openai")
            break


async def test_a_bare_loop_gives_messages_too() -> None:
    run = streamcalls.run_tools(streamcalls.aparse(_chunks(*SLOW_FIRST)), [slow, fast])
    async for _ in run:
        pass
    assert check(run.messages("bedrock"), "bedrock") == ["call_a", "call_b"]


async def test_the_next_request_round_trips() -> None:
    """Appended to a conversation, the turn is JSON that the codec reads back as the same calls."""
    run = await run_of(*SLOW_FIRST)
    conversation: Messages = [{"role": "user", "content": "Weather in Paris and Oslo?"}]
    conversation += plain(run.messages("openai"))
    decoded = msgspec.json.decode(msgspec.json.encode(conversation))
    assert decoded == conversation
    assert [c.id for c in streamcalls.extract(decoded[1])] == ["call_a", "call_b"]


# -- the run's turn: reasoning goes back too ---------------------------------------------------------

THINKING = (DATA / "anthropic" / "interleaved_thinking.sse").read_bytes()


async def test_the_run_s_turn_and_messages_keep_anthropic_s_thinking_between_the_calls() -> None:
    async def tool(**arguments: Any) -> str:
        return "ok"

    events = streamcalls.aparse(_chunks(THINKING[:700], THINKING[700:]), provider="anthropic")
    async with streamcalls.run_tools(events, {"get_weather": tool, "read_calendar": tool}) as run:
        async for _ in run:
            pass
    turn = run.turn
    assert turn == streamcalls.accumulate(streamcalls.parse(THINKING, "anthropic"))
    assert (turn.provider, turn.finish_reason) == ("anthropic", "tool_calls")
    assistant, results = plain(run.messages("anthropic"))
    assert [block["type"] for block in assistant["content"]] == [
        "thinking",
        "tool_use",
        "thinking",
        "redacted_thinking",
        "tool_use",
    ]
    assert all(block["signature"] for block in assistant["content"] if block["type"] == "thinking")
    assert [block["tool_use_id"] for block in results["content"]] == [
        "toolu_01WeatherParis",
        "toolu_01CalendarRead",
    ]
    assert run.messages("anthropic") == streamcalls.encode_turn(turn, "anthropic", run_results(run))


def run_results(run: streamcalls.ToolRun) -> list[streamcalls.ToolResult]:
    return [streamcalls.ToolResult(call.id, call.name, "ok") for call in run.calls]


async def test_the_turn_is_read_while_the_run_goes_on() -> None:
    seen = []
    async with streamcalls.run_tools(streamcalls.aparse(_chunks(*SLOW_FIRST)), [slow, fast]) as run:
        async for item in run:
            if isinstance(item, ToolCallCompleted):
                seen.append(len(run.turn.calls))
    assert seen == [1, 2]  # a call is in the turn from its ToolCallCompleted on
    assert run.turn.text == "Let me check both."
