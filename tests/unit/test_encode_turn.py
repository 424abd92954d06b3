"""encode_turn: a turn written back for the next request, for its own provider and for others.

The oracles: the messages written out by hand from each provider's documented history shapes (see the
table on the codec page), and the codec's own readers (the ones ``extract`` and complete responses
use), which must read back from the written history the same text, reasoning and calls (hypothesis).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from typing import Any, cast

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import streamcalls
from streamcalls import (
    ReasoningPart,
    TextPart,
    ToolCall,
    ToolCallFailed,
    ToolResult,
    Turn,
    UsageError,
    accumulate,
)
from streamcalls._found import CALL, REASONING, SIGNATURE, TEXT
from streamcalls._readers import READERS
from streamcalls.codec import CODEC_PROVIDERS, CodecProviderName
from tests.support import DATA, counter_ids, feed_chunks


def encode(turn: Any, provider: str, results: Any = None) -> list[dict[str, Any]]:
    """encode_turn with the provider's name read at run time: plain dicts, to index freely (a
    literal name types the result as the SDK's TypedDicts)."""
    written: list[dict[str, Any]] = streamcalls.encode_turn(turn, cast(CodecProviderName, provider), results)
    return written


def turn_of(path: str) -> Turn:
    return accumulate(
        feed_chunks([(DATA / path).read_bytes()], path.split("/", maxsplit=1)[0], id_factory=counter_ids())
    )


# -- the same provider: everything it requires back, unchanged and in order -------------------------


def test_anthropic_thinking_blocks_go_back_signed_and_between_the_calls() -> None:
    turn = turn_of("anthropic/interleaved_thinking.sse")
    results = [
        ToolResult("toolu_01CalendarRead", "read_calendar", "free"),
        ToolResult("toolu_01WeatherParis", "get_weather", "sunny"),
    ]
    assistant, user = encode(turn, "anthropic", results)
    assert assistant == {
        "role": "assistant",
        "content": [
            {
                "type": "thinking",
                "thinking": "The user wants the weather in Paris and a packing list. First the forecast.",
                "signature": "EuYBCkQIBxgCIkDwY2hlY2stcGFyaXMtZm9yZWNhc3QtZmlyc3QSDHRoaW5raW5nLTAwMRoM",
            },
            {
                "type": "tool_use",
                "id": "toolu_01WeatherParis",
                "name": "get_weather",
                "input": {"city": "Paris", "days": 3},
            },
            {
                "type": "thinking",
                "thinking": "A packing list depends on the forecast, but the calendar can be read now.",
                "signature": "EpQCCkQIBxgCIkBzZWNvbmQtYmxvY2stYmV0d2Vlbi10b29sLXVzZXMSDHRoaW5raW5nLTAwMhoM",
            },
            {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzixRZWRhY3RlZC1ibG9jay1iZXR3ZWVuLWNhbGxz"},
            {
                "type": "tool_use",
                "id": "toolu_01CalendarRead",
                "name": "read_calendar",
                "input": {"from": "2026-05-01", "to": "2026-05-03"},
            },
        ],
    }
    assert user == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01WeatherParis", "content": "sunny"},
            {"type": "tool_result", "tool_use_id": "toolu_01CalendarRead", "content": "free"},
        ],
    }


def test_responses_reasoning_items_go_back_before_their_calls_with_the_encrypted_content() -> None:
    turn = turn_of("openai-responses/reasoning_summaries_then_calls.sse")
    items = encode(turn, "openai-responses")
    assert items == [
        {
            "type": "reasoning",
            "id": "rs_68c1f0a3c4d5e6f70818293a4b5c6d7e",
            "summary": [
                {
                    "type": "summary_text",
                    "text": "**Planning the trip**\n\nThe user wants the Paris forecast before a packing list.",
                },
                {
                    "type": "summary_text",
                    "text": "**Choosing tools**\n\nget_weather first; the calendar can wait for its result.",
                },
            ],
            "encrypted_content": "gAAAAABowfCjX2VuY3J5cHRlZC1yZWFzb25pbmctb25lLWZvci1wYXJpcy13ZWF0aGVyLWFuZC1wYWNraW5n",
        },
        {
            "type": "function_call",
            "call_id": "call_WxPar1s3Day5",
            "name": "get_weather",
            "arguments": '{"city": "Paris", "days": 3}',  # as the model wrote it
        },
        {
            "type": "reasoning",
            "id": "rs_68c1f0a5e6f708190a18293a4b5c6d7e",
            "summary": [],
            "encrypted_content": "gAAAAABowfClc2Vjb25kLWVuY3J5cHRlZC1yZWFzb25pbmctbm8tc3VtbWFyeQ==",
        },
        {
            "type": "function_call",
            "call_id": "call_Ca1endarMay",
            "name": "read_calendar",
            "arguments": '{"from":"2026-05-01","to":"2026-05-03"}',
        },
    ]


def test_deepseek_reasoning_content_goes_back_on_the_assistant_message() -> None:
    turn = turn_of("openai/deepseek_reasoning_then_call.sse")
    for name in ("deepseek", "openai"):
        assistant, tool = encode(
            turn, name, [ToolResult("call_00_Vq4kLwXr8dN2pT7sJ1mB", "get_weather", "rain")]
        )
        assert assistant == {
            "role": "assistant",
            "reasoning_content": "The user asks for the weather in Hangzhou tomorrow. I need the get_weather tool.",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_00_Vq4kLwXr8dN2pT7sJ1mB",
                    "type": "function",
                    "function": {
                        "name": "get_weather",
                        "arguments": '{"location":"Hangzhou","date":"2026-05-02"}',
                    },
                }
            ],
        }
        assert tool == {"role": "tool", "tool_call_id": "call_00_Vq4kLwXr8dN2pT7sJ1mB", "content": "rain"}


def test_chat_reasoning_goes_back_in_the_field_it_came_in() -> None:
    groq = encode(turn_of("openai/groq_reasoning_then_call.sse"), "groq")[0]
    assert groq["reasoning"] == "Need the time in Tokyo; call get_time."
    assert "reasoning_content" not in groq
    openrouter = encode(turn_of("openai/openrouter_reasoning_details.sse"), "openrouter")[0]
    assert openrouter["reasoning_details"] == [
        {
            "type": "reasoning.text",
            "text": "The user wants Paris weather; one call will do.",
            "signature": "EqQBCkgIBxgCKkAxb3BlbnJvdXRlci1jbGF1ZGUtdGhpbmtpbmctc2lnbmF0dXJlEgxvcC0wMDEaDA==",
            "format": "anthropic-claude-v1",
            "index": 0,
        },
        {
            "type": "reasoning.encrypted",
            "data": "EmwKAhgBEgyRZWRhY3RlZC10aGlua2luZy12aWEtb3BlbnJvdXRlcg==",
            "format": "anthropic-claude-v1",
            "index": 1,
        },
    ]
    assert openrouter["content"] == "I'll check the forecast."
    # DeepSeek's name asks for reasoning_content whatever field the text came in.
    assert encode(turn_of("openai/groq_reasoning_then_call.sse"), "deepseek")[0]["reasoning_content"] == (
        "Need the time in Tokyo; call get_time."
    )


def test_mistral_thinking_chunks_go_back_in_the_content() -> None:
    message = encode(turn_of("openai/mistral_thinking_then_call.sse"), "mistral")[0]
    assert message["content"] == [
        {"type": "thinking", "thinking": [{"type": "text", "text": "Weather needs a lookup for Paris."}]}
    ]
    assert message["tool_calls"][0]["id"] == "Xk3pQ9vLm"  # nine letters and digits: kept


def test_bedrock_reasoning_content_goes_back_signed_and_redacted() -> None:
    assistant = encode(turn_of("bedrock/reasoning_then_call.bin"), "bedrock")[0]
    assert assistant["content"] == [
        {
            "reasoningContent": {
                "reasoningText": {
                    "text": "The user wants the time in Tokyo; I should call get_time.",
                    "signature": "ErUBCkYIBBgCIkB3c2lnbmF0dXJl",
                }
            }
        },
        {"reasoningContent": {"redactedContent": "ZW5jcnlwdGVk"}},
        {"text": "Let me check the time."},
        {
            "toolUse": {
                "toolUseId": "tooluse_dGltZVRva3lvMDAwMDAx",
                "name": "get_time",
                "input": {"tz": "Asia/Tokyo"},
            }
        },
    ]


def test_gemini_signatures_go_back_on_their_parts() -> None:
    (model,) = encode(turn_of("gemini/thought_signatures.sse"), "gemini")
    assert model["parts"] == [
        {
            "text": "**Two lookups**\n\nThe user wants Paris weather and the local time; both tools, in parallel.",
            "thought": True,
            "thoughtSignature": "CrIBAdHtim9Lbm8tdGhvdWdodC1ydW4tc2lnbmF0dXJlLW9uZQ==",
        },
        {"text": "Checking both."},
        {
            "functionCall": {"id": "call_gen_0", "name": "get_weather", "args": {"city": "Paris"}},
            "thoughtSignature": "CpwCAdHtim9mdW5jdGlvbi1jYWxsLXNpZ25hdHVyZS1maXJzdA==",
        },
        {"functionCall": {"id": "call_gen_1", "name": "get_time", "args": {"tz": "Europe/Paris"}}},
        {"text": "", "thoughtSignature": "EtQBAdHtim90ZXh0LXBhcnQtc2lnbmF0dXJlLWF0LXRoZS1lbmQ="},
    ]


def test_ollama_thinking_and_cohere_tool_plan_go_back() -> None:
    ollama = encode(turn_of("ollama/thinking_then_call.ndjson"), "ollama")[0]
    assert ollama["thinking"] == "The user wants the weather; call the tool."
    assert ollama["tool_calls"][0]["function"] == {
        "name": "get_weather",
        "arguments": {"city": "Zürich", "unit": "celsius"},
    }
    cohere = encode(turn_of("cohere/one_call.sse"), "cohere")[0]
    assert cohere["tool_plan"] == "I will use the weather tool."
    assert cohere["tool_calls"][0]["function"]["arguments"] == '{"location": "San Francisco"}'


def test_a_turn_without_calls_or_results_is_the_answer_alone() -> None:
    turn = Turn((TextPart("Sunny."),), provider="anthropic")
    assert encode(turn, "anthropic") == [
        {"role": "assistant", "content": [{"type": "text", "text": "Sunny."}]}
    ]
    assert encode(turn, "anthropic", []) == encode(turn, "anthropic")
    assert encode(Turn(), "openai") == []


# -- another provider: signed reasoning dropped, text and calls kept ---------------------------------


@pytest.mark.parametrize("target", [p for p in CODEC_PROVIDERS if p != "anthropic"])
def test_anthropic_signed_reasoning_never_goes_to_another_provider(target: str) -> None:
    turn = turn_of("anthropic/interleaved_thinking.sse")
    written = json.dumps(encode(turn, target))
    assert "EuYBCkQI" not in written  # a signature
    assert "EmwKAhgB" not in written  # the redacted data
    assert "packing list depends" not in written  # signed thinking text is dropped with its signature
    assert "get_weather" in written
    assert "read_calendar" in written


def test_plain_reasoning_goes_where_the_target_has_a_field_for_it() -> None:
    turn = turn_of("ollama/thinking_then_call.ndjson")
    assert encode(turn, "deepseek")[0]["reasoning_content"] == "The user wants the weather; call the tool."
    assert "reasoning_content" not in encode(turn, "openai")[0]
    assert encode(turn, "anthropic")[0]["content"][0]["type"] == "tool_use"  # no unsigned thinking block
    deepseek = turn_of("openai/deepseek_reasoning_then_call.sse")
    assert encode(deepseek, "ollama")[0]["thinking"].startswith("The user asks")


def test_a_gemini_text_signature_does_not_go_to_another_provider() -> None:
    turn = turn_of("gemini/thought_signatures.sse")
    assert "EtQBAdHt" not in json.dumps(encode(turn, "openai"))
    assert encode(turn, "anthropic")[0]["content"][0] == {"type": "text", "text": "Checking both."}


def test_an_unknown_provider_keeps_everything() -> None:  # a turn built by hand says nothing of its source
    turn = Turn((ReasoningPart("x", signature="s", kind="thinking"), TextPart("t")))
    assert encode(turn, "anthropic")[0]["content"][0] == {
        "type": "thinking",
        "thinking": "x",
        "signature": "s",
    }


# -- results, failed calls ----------------------------------------------------------------------------


def test_every_call_gets_a_result_and_a_failed_call_goes_in_with_its_reason() -> None:
    calls = [ToolCall("a", "f", {"x": 1}, 0), ToolCall("c", "h", {}, 2)]
    failed = ToolCallFailed(1, "b", "g", '{"x": ', "stream ended before the call completed")
    turn = Turn(
        (TextPart("t"), *calls),
        errors=(failed,),
        provider="openai",
        raw_arguments={"a": '{"x":1}', "c": "{}"},
    )
    messages = encode(turn, "openai", [ToolResult("c", "h", "done")])
    assert [call["id"] for call in messages[0]["tool_calls"]] == ["a", "b", "c"]
    assert messages[0]["tool_calls"][1]["function"]["arguments"] == "{}"
    assert [(m["tool_call_id"], m["content"][:30]) for m in messages[1:]] == [
        ("a", "Error: the tool did not finish"),
        ("b", "Error: the call could not be r"),
        ("c", "done"),
    ]
    assert [call["id"] for call in encode(turn, "openai")[0]["tool_calls"]] == [
        "a",
        "c",
    ]  # no results: no failed call


def test_misuse_is_refused() -> None:
    with pytest.raises(UsageError, match="takes a Turn"):
        streamcalls.encode_turn([], "openai")  # type: ignore[call-overload]
    with pytest.raises(UsageError, match="unknown provider"):
        encode(Turn(), "nope")
    with pytest.raises(UsageError, match="ToolResult"):
        encode(Turn((ToolCall("a", "f", {}),)), "openai", ["x"])


# -- call ids the target refuses ----------------------------------------------------------------------

RULES = {
    "anthropic": re.compile(r"[a-zA-Z0-9_-]{1,64}"),
    "bedrock": re.compile(r"[a-zA-Z0-9_-]{1,64}"),
    "mistral": re.compile(r"[a-zA-Z0-9]{9}"),
    "openai": re.compile(r".{1,40}", re.DOTALL),
}


def written_ids(messages: list[dict[str, Any]], target: str) -> tuple[list[str], list[str]]:
    """The ids in the assistant's calls and in the results, as the target's shape holds them."""
    text = msgspec.json.encode(messages)
    if target in ("anthropic",):
        calls = [b["id"] for b in messages[0]["content"] if b["type"] == "tool_use"]
        results = [b["tool_use_id"] for m in messages[1:] for b in m["content"]]
    elif target == "bedrock":
        calls = [b["toolUse"]["toolUseId"] for b in messages[0]["content"] if "toolUse" in b]
        results = [b["toolResult"]["toolUseId"] for m in messages[1:] for b in m["content"]]
    else:
        calls = [c["id"] for c in messages[0]["tool_calls"]]
        results = [m["tool_call_id"] for m in messages[1:]]
    assert text
    return calls, results


ids = st.lists(st.text(min_size=1, max_size=80), min_size=1, max_size=8, unique=True)


@settings(max_examples=300, deadline=None)
@given(call_ids=ids, target=st.sampled_from(sorted(RULES)))
def test_ids_are_rewritten_injectively_and_the_same_in_calls_and_results(
    call_ids: list[str], target: str
) -> None:
    calls = tuple(ToolCall(call_id, "f", {}, number) for number, call_id in enumerate(call_ids))
    results = [ToolResult(call_id, "f", "ok") for call_id in reversed(call_ids)]
    messages = encode(Turn(calls, provider="openai"), target, results)
    written, answered = written_ids(messages, target)
    assert written == answered  # the same id in a call and in its result, in call order
    assert len(set(written)) == len(written)  # distinct ids stay distinct
    for original, new in zip(call_ids, written, strict=True):
        assert RULES[target].fullmatch(new), new
        if RULES[target].fullmatch(original):
            assert new == original  # an id the target takes stays
    assert encode(Turn(calls, provider="openai"), target, results) == messages  # deterministic


def test_ids_the_targets_refuse_are_rewritten_as_the_table_says() -> None:
    long_id = "call_" + "x" * 60
    turn = Turn(
        (ToolCall("functions.get_weather:0", "f", {}), ToolCall(long_id, "g", {}, 1)), provider="openai"
    )
    anthropic_ids = written_ids(encode(turn, "anthropic", []), "anthropic")[0]
    assert anthropic_ids[0].startswith("functions_get_weather_0_")
    assert len(anthropic_ids[0]) == len("functions_get_weather_0_") + 16
    assert len(long_id) == 65  # allowed characters, one too many
    assert anthropic_ids[1] == long_id[:40] + "_" + anthropic_ids[1][-16:]
    assert len(written_ids(encode(turn, "openai", []), "openai")[0][1]) == 40
    assert [len(i) for i in written_ids(encode(turn, "mistral", []), "mistral")[0]] == [9, 9]
    assert written_ids(encode(turn, "cohere", []), "cohere")[0] == [
        "functions.get_weather:0",
        long_id,
    ]  # a target without a rule keeps every id


# -- written back, then read with the codec's readers: the same text, reasoning and calls ------------

words = st.text(st.characters(codec="utf-8"), min_size=1, max_size=12)
secrets = st.text(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=", min_size=4, max_size=24
)
values = st.recursive(
    st.none() | st.booleans() | st.integers(-1000, 1000) | words,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(words, inner, max_size=3),
    max_leaves=8,
)
arguments = st.dictionaries(words, values, max_size=4)
blobs = st.binary(min_size=1, max_size=18).map(
    lambda data: base64.b64encode(data).decode()
)  # Bedrock's blobs
call_ids = st.text("abcdefghijklmnopqrstuvwxyz0123456789_", min_size=9, max_size=9).map(lambda s: "c" + s[1:])


def reasoning_for(provider: str) -> st.SearchStrategy[ReasoningPart]:
    """Reasoning as each provider streams it (one kind per chat turn: the fields are written apart)."""
    if provider == "anthropic":
        return st.one_of(
            st.builds(lambda t, s: ReasoningPart(t, signature=s, kind="thinking"), words, secrets),
            st.builds(lambda d: ReasoningPart(redacted=d, kind="redacted_thinking"), secrets),
        )
    if provider == "bedrock":
        return st.one_of(
            st.builds(lambda t, s: ReasoningPart(t, signature=s, kind="reasoningText"), words, secrets),
            st.builds(lambda d: ReasoningPart(redacted=d, kind="redactedContent"), blobs),
        )
    if provider == "gemini":
        return st.builds(lambda t, s: ReasoningPart(t, signature=s, kind="thought"), words, secrets)
    if provider == "openai-responses":
        return st.builds(
            lambda t, e, i: ReasoningPart(t, encrypted=e, id=f"rs_{i}", kind="summary_text"),
            words,
            secrets,
            st.integers(0, 10**6),
        )
    if provider == "ollama":
        return st.builds(lambda t: ReasoningPart(t, kind="thinking"), words)
    if provider == "cohere":
        return st.builds(lambda t: ReasoningPart(t, kind="tool_plan"), words)
    return st.builds(lambda t: ReasoningPart(t, kind="reasoning_content"), words)


@st.composite
def turns(draw: st.DrawFn, provider: str) -> Turn:
    parts: list[Any] = []
    raw: dict[str, str] = {}
    for number, part_kind in enumerate(
        draw(st.lists(st.sampled_from(["text", "reasoning", "call"]), max_size=7))
    ):
        if part_kind == "text":
            parts.append(TextPart(draw(words)))
        elif part_kind == "reasoning":
            parts.append(draw(reasoning_for(provider)))
        else:
            call = ToolCall(f"{draw(call_ids)}{number}", draw(words), draw(arguments), number)
            raw[call.id] = json.dumps(
                call.arguments, indent=draw(st.sampled_from([None, 1])), ensure_ascii=False
            )
            parts.append(call)
    return Turn(tuple(parts), provider=provider, raw_arguments=raw)


def read_back(
    provider: str, messages: list[dict[str, Any]]
) -> tuple[str, str, list[tuple[str, Any]], list[str]]:
    """Text, reasoning, calls (name, arguments) and secrets, as the codec's readers read the assistant turn."""
    if not messages:
        return "", "", [], []  # nothing was written
    assistant: Any = messages if provider == "openai-responses" else messages[0]
    found = READERS[provider](assistant)
    text, reasoning, calls, kept = [], [], [], []
    for kind, value in found.steps:
        if kind == TEXT:
            text.append(value)
        elif kind == REASONING:
            reasoning.append(value.text)
            kept += [
                secret for secret in (value.signature, value.redacted, value.encrypted) if secret is not None
            ]
        elif kind == SIGNATURE:
            kept.append(value)
        elif kind == CALL:
            args = value.arguments
            calls.append((value.name, json.loads(args) if isinstance(args, str) else args))
    return "".join(text), "".join(reasoning), calls, kept


def expected_back(provider: str, turn: Turn) -> tuple[str, str, list[tuple[str, Any]], list[str]]:
    text, reasoning = turn.text, turn.reasoning
    if provider == "cohere" and turn.calls and not reasoning:
        text, reasoning = "", text  # the text before the calls is Cohere's tool plan
    kept: list[str] = []
    for part in turn.parts:
        if type(part) is ReasoningPart:
            kept += [
                secret for secret in (part.signature, part.redacted, part.encrypted) if secret is not None
            ]
    if provider == "openai-responses":
        # An item's encrypted content is written once, from its last part; read back on its last part.
        kept = []
        for number, part in enumerate(turn.parts):
            if type(part) is ReasoningPart:
                after = turn.parts[number + 1] if number + 1 < len(turn.parts) else None
                if not (type(after) is ReasoningPart and after.id == part.id) and part.encrypted is not None:
                    kept.append(part.encrypted)
    return text, reasoning, [(call.name, call.arguments) for call in turn.calls], kept


@pytest.mark.parametrize("provider", CODEC_PROVIDERS)
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_a_turn_written_back_reads_back_the_same(provider: str, data: st.DataObject) -> None:
    turn = data.draw(turns(provider))
    if provider == "openai-responses":  # one item's parts carry its encrypted content on the last only
        turn = _one_encrypted_per_item(turn)
    messages = encode(turn, provider)
    assert read_back(provider, messages) == expected_back(provider, turn)


def _one_encrypted_per_item(turn: Turn) -> Turn:
    parts = list(turn.parts)
    for number, part in enumerate(parts):
        after = parts[number + 1] if number + 1 < len(parts) else None
        if type(part) is ReasoningPart and type(after) is ReasoningPart and after.id == part.id:
            parts[number] = msgspec.structs.replace(part, encrypted=None)
    return msgspec.structs.replace(turn, parts=tuple(parts))


def test_the_recordings_turns_read_back_the_same() -> None:
    for path in (
        "anthropic/interleaved_thinking.sse",
        "openai-responses/reasoning_summaries_then_calls.sse",
        "bedrock/reasoning_then_call.bin",
        "gemini/thought_signatures.sse",
        "openai/deepseek_reasoning_then_call.sse",
        "ollama/thinking_then_call.ndjson",
    ):
        turn = turn_of(path)
        provider = turn.provider or ""
        got = read_back(provider, encode(turn, provider))
        expected = expected_back(provider, turn)
        if provider == "gemini":  # the text part's signature is read back as such
            expected = (*expected[:3], [*expected[3], "EtQBAdHtim90ZXh0LXBhcnQtc2lnbmF0dXJlLWF0LXRoZS1lbmQ="])
        assert got == expected, path


def test_the_public_name_is_the_codecs() -> None:
    assert streamcalls.encode_turn is streamcalls.codec.encode_turn


def test_a_rewritten_id_that_meets_a_kept_one_is_rewritten_again() -> None:
    refused = "call_" + "y" * 40  # 45 characters: OpenAI refuses it
    digest = hashlib.sha256(refused.encode()).hexdigest()[:16]
    taken = refused[:23] + "_" + digest  # what it would become: 40 characters, and already a call's id
    calls = (ToolCall(taken, "f", {}, 0), ToolCall(refused, "g", {}, 1))
    written, answered = written_ids(encode(Turn(calls), "openai", []), "openai")
    assert written[0] == taken
    assert written[1] != taken
    assert len(written[1]) == 40
    assert written == answered
