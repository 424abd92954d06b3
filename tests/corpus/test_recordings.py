"""The replay server's parts without sockets: the recordings folder, turns of a history, complete responses."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import msgspec
import pytest

import streamcalls
from streamcalls import (
    ProviderError,
    ReasoningDelta,
    StreamFinished,
    TextDelta,
    ToolCall,
    ToolCallCompleted,
    ToolCallError,
    ToolCallFailed,
    ToolResult,
    encode_call,
    encode_result,
    extract,
)
from streamcalls.codec import CodecProviderName
from streamcalls.replay._checks import Rejected, conversation_turn
from streamcalls.replay._complete import complete_response
from streamcalls.replay._recordings import CONTENT_TYPES, event_ends
from streamcalls.replay._reframe import gemini_body
from streamcalls.testing import Recording, bundled_recordings, load_recordings
from tests.support import DATA, check_protocol, counter_ids, normalize
from tests.support.eventstream import BUNDLED as BUNDLED_FOLDER
from tests.support.eventstream import build, frame
from tests.support.replaying import BUNDLED, PROVIDERS, complete_finish, complete_text, prompt, request

SSE = "text/event-stream; charset=utf-8"

# -- the folder format ---------------------------------------------------------------------------


def test_turns_are_read_beside_their_recording_in_both_layouts(tmp_path: Path) -> None:
    (tmp_path / "openai").mkdir()
    (tmp_path / "openai" / "plan.sse").write_bytes(b"first")
    (tmp_path / "openai" / "plan.turn2.sse").write_bytes(b"second")
    (tmp_path / "openai" / "plan.turn3.sse").write_bytes(b"third")
    (tmp_path / "openai" / "plan.events.jsonl").write_bytes(b"skipped")
    (tmp_path / "openai" / "plan.options.json").write_bytes(b"skipped")
    (tmp_path / "openai" / "other.bin").write_bytes(b"binary")
    (tmp_path / "anthropic_chat.sse").write_bytes(b"flat first")
    (tmp_path / "anthropic_chat.turn2.sse").write_bytes(b"flat second")
    (tmp_path / "notaprovider_chat.sse").write_bytes(b"skipped")
    (tmp_path / "README.md").write_bytes(b"skipped")
    recordings = load_recordings(tmp_path)
    assert sorted(recordings) == ["anthropic/chat", "openai/other", "openai/plan"]
    plan = recordings["openai/plan"]
    assert (plan.body, plan.turn, plan.turns) == (b"first", 1, 3)
    assert [(t.body, t.turn, t.key) for t in plan.next_turns] == [
        (b"second", 2, "openai/plan"),
        (b"third", 3, "openai/plan"),
    ]
    assert plan.maybe_turn(1) is plan
    turn3 = plan.maybe_turn(3)
    assert turn3 is not None
    assert turn3.body == b"third"
    assert plan.maybe_turn(4) is None
    assert plan.maybe_turn(0) is None
    assert recordings["openai/other"].content_type == "application/vnd.amazon.eventstream"
    chat = recordings["anthropic/chat"]
    assert (chat.body, chat.turns, chat.next_turns[0].body) == (b"flat first", 2, b"flat second")


@pytest.mark.parametrize(
    ("files", "message"),
    [
        (["plan.sse", "plan.turn3.sse"], "recording openai/plan: turn 3 is recorded but not turn 2"),
        (["plan.turn2.sse"], "recording openai/plan: turn 2 is recorded but not turn 1"),
    ],
)
def test_a_turn_without_the_turns_before_it_is_an_error(
    tmp_path: Path, files: list[str], message: str
) -> None:
    (tmp_path / "openai").mkdir()
    for name in files:
        (tmp_path / "openai" / name).write_bytes(b"data: {}\n\n")
    with pytest.raises(ValueError, match=message):
        load_recordings(tmp_path)


def test_every_bundled_turn_is_a_clean_stream_and_every_conversation_ends_in_an_answer() -> None:
    recordings = bundled_recordings()
    assert sorted(recordings) == [
        "anthropic/plan_day",
        "anthropic/thinking_interleaved",
        "anthropic/thinking_then_call",
        "bedrock/plan_day",
        "bedrock/thinking_plan_day",
        "cohere/plan_day",
        "gemini/plan_day",
        "gemini/thinking_plan_day",
        "ollama/plan_day",
        "ollama/thinking_plan_day",
        "openai-responses/plan_day",
        "openai-responses/thinking_plan_day",
        "openai/parallel_calls",
        "openai/plan_and_write",
        "openai/plan_day",
        "openai/thinking_deepseek",
        "openai/thinking_kimi",
    ]
    for key, recording in recordings.items():
        turns = [recording, *recording.next_turns]
        for turn in turns:
            events = streamcalls.parse(turn.body, recording.provider)  # type: ignore[arg-type]
            check_protocol(events)
            assert not [
                e for e in events if type(e).__name__ in ("ParseError", "ToolCallFailed", "ProviderError")
            ]
        last = streamcalls.parse(turns[-1].body, recording.provider)  # type: ignore[arg-type]
        assert last[-1] == StreamFinished("stop", last[-1].usage, last[-1].provider_reason), key  # type: ignore[union-attr]
        assert not [e for e in last if isinstance(e, ToolCallCompleted)], key


def _said(key: str, turn: int) -> tuple[str, list[tuple[str, Any]]]:
    recording = BUNDLED[key].maybe_turn(turn)
    assert recording is not None
    events = streamcalls.parse(recording.body, recording.provider)  # type: ignore[arg-type]
    text = "".join(e.text for e in events if isinstance(e, (TextDelta, ReasoningDelta)))
    return text, [(e.call.name, e.call.arguments) for e in events if isinstance(e, ToolCallCompleted)]


@pytest.mark.parametrize("provider", PROVIDERS[1:])
def test_every_provider_s_plan_day_says_what_openai_s_says(provider: str) -> None:
    """The same conversation in every wire format: its text (Cohere's first turn: its tool plan) and calls."""
    for turn in (1, 2):
        assert _said(f"{provider}/plan_day", turn) == _said("openai/plan_day", turn), turn


def test_the_bundled_bedrock_streams_are_built_from_their_readable_sources() -> None:
    sources = sorted(
        BUNDLED_FOLDER.glob("bedrock_*.frames.jsonl")
    )  # python -m tests.support.eventstream rebuilds them
    assert [s.name for s in sources] == [
        "bedrock_plan_day.frames.jsonl",
        "bedrock_plan_day.turn2.frames.jsonl",
        "bedrock_thinking_plan_day.frames.jsonl",
        "bedrock_thinking_plan_day.turn2.frames.jsonl",
    ]
    for source in sources:
        assert source.with_name(source.name.replace(".frames.jsonl", ".bin")).read_bytes() == build(source)


def test_event_ends_of_an_event_stream_are_its_messages() -> None:
    source = BUNDLED_FOLDER / "bedrock_plan_day.frames.jsonl"
    frames = [frame(msgspec.json.decode(line)) for line in source.read_bytes().splitlines()]
    body = b"".join(frames)
    ends = list(itertools.accumulate(len(f) for f in frames))
    assert event_ends(CONTENT_TYPES[".bin"], body) == ends
    assert event_ends(CONTENT_TYPES[".bin"], body[:-5]) == [*ends[:-1], len(body) - 5]  # a cut-off last one


def test_a_gemini_stream_is_served_in_either_framing() -> None:
    recording = BUNDLED["gemini/plan_day"]
    kind, array = gemini_body(recording.content_type, recording.body, json_array=True)
    assert kind == "application/json"
    assert msgspec.json.decode(array) == [
        msgspec.json.decode(line.removeprefix(b"data: "))
        for line in recording.body.splitlines()
        if line.startswith(b"data: ")
    ]
    assert gemini_body(kind, array, json_array=True) == (kind, array)
    kind, sse = gemini_body(kind, array, json_array=False)
    assert kind == recording.content_type
    events = normalize(streamcalls.parse(sse, "gemini", id_factory=counter_ids()))
    assert events == normalize(streamcalls.parse(recording.body, "gemini", id_factory=counter_ids()))
    assert gemini_body(kind, b'{"error": {}}', json_array=False) == (kind, b'{"error": {}}')


# -- which turn a history asks for ----------------------------------------------------------------

WEATHER = ToolCall("call_1", "get_weather", {"city": "Paris"})
RESULT = ToolResult("call_1", "get_weather", "sunny")
PROMPT = {"role": "user", "content": "Weather?"}


@pytest.mark.parametrize("provider", PROVIDERS)
def test_the_turn_counts_the_model_s_turns_since_the_last_prompt(provider: CodecProviderName) -> None:
    call = encode_call(WEATHER, provider)
    calls = call if isinstance(call, list) else [call]
    results = encode_result([RESULT], provider)
    answer = streamcalls.encode_turn(streamcalls.accumulate([TextDelta("Sunny.")]), provider)
    ask = prompt(provider, "Weather?")

    def turn(*messages: Any) -> int:
        return conversation_turn(provider, request(provider, list(messages))[1])

    assert turn() == 1
    assert turn(ask) == 1
    assert turn(ask, *calls, *results) == 2
    assert turn(ask, *calls, *results, *calls, *results) == 3
    assert turn(ask, *calls, *results, *answer, ask) == 1
    assert turn(ask, *answer, ask, *calls, *results) == 2
    if provider in ("openai", "openai-responses", "ollama", "cohere"):
        system = {"role": "system", "content": "Be brief."}
        assert turn(system, ask, *calls, *results) == 2


@pytest.mark.parametrize(
    ("provider", "messages", "message"),
    [
        ("openai", None, "Missing required parameter: 'messages'."),
        (
            "openai",
            {"role": "user"},
            "Invalid type for 'messages': expected an array, but got an object instead.",
        ),
        ("openai", ["hi"], "Invalid type for 'messages[0]': expected an object, but got a string instead."),
        ("openai", [{"content": "hi"}], "Missing required parameter: 'messages[0].role'."),
        (
            "openai",
            [{"role": "assistant", "tool_calls": [{"id": "c", "function": {"name": "f"}}]}],
            "Missing required parameter: 'messages[0].tool_calls[0].function.arguments'.",
        ),
        (
            "openai",
            [PROMPT, {"role": "tool", "content": "x"}],
            "Missing required parameter: 'messages[1].tool_call_id'.",
        ),
        ("anthropic", None, "messages: Field required"),
        ("anthropic", "hi", "messages: Input should be a valid list"),
        ("anthropic", [{"role": "user"}], "messages.0.content: Field required"),
        ("anthropic", [{"role": "user", "content": 3}], "messages.0.content: Input should be a valid list"),
        (
            "anthropic",
            [{"role": "user", "content": ["hi"]}],
            "messages.0.content.0: Input should be a valid dictionary",
        ),
        (
            "anthropic",
            [
                PROMPT,
                {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": "c", "name": "f", "input": "{}"}],
                },
            ],
            "messages.1.content.0.tool_use.input: Input should be a valid dictionary",
        ),
        (
            "anthropic",
            [PROMPT, {"role": "assistant", "content": [{"type": "tool_use", "name": "f", "input": {}}]}],
            "messages.1.content.0.tool_use.id: Field required",
        ),
        (
            "anthropic",
            [PROMPT, encode_call(WEATHER, "anthropic")],
            "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: call_1.",
        ),
    ],
)
def test_malformed_histories_are_rejected_in_the_providers_words(
    provider: str, messages: Any, message: str
) -> None:
    with pytest.raises(Rejected) as info:
        conversation_turn(provider, {} if messages is None else {"messages": messages})
    assert info.value.message.startswith(message)


@pytest.mark.parametrize(
    ("provider", "request_body", "message"),
    [
        ("openai-responses", {"input": 3}, "Invalid type for 'input': expected one of a string or array"),
        ("openai-responses", {"input": "Hi"}, None),
        ("openai-responses", {}, None),
        (
            "ollama",
            {"messages": {"role": "user"}},
            "json: cannot unmarshal object into Go struct field ChatRequest.messages of type []api.Message",
        ),
        ("ollama", {"messages": [None, {"role": "USER", "content": "Hi"}]}, None),
        (
            "ollama",
            {"messages": [{"role": "assistant", "tool_calls": ["f"]}]},
            "json: cannot unmarshal string "
            "into Go struct field ChatRequest.messages.tool_calls of type api.ToolCall",
        ),
        (
            "ollama",
            {"messages": [{"role": 1}]},
            "json: cannot unmarshal number into Go struct field ChatRequest.messages.role of type string",
        ),
        ("gemini", {}, "* GenerateContentRequest.contents: contents is not specified\n"),
        ("gemini", {"contents": {"parts": {"text": "Hi"}}}, None),  # one object where a list belongs
        ("gemini", {"contents": [None, [{"role": "user", "parts": [{"text": "Hi"}]}]]}, None),
        (
            "gemini",
            {"contents": [{"parts": [True]}]},
            "Invalid value at 'contents[0].parts[0]' "
            "(type.googleapis.com/google.ai.generativelanguage.v1beta.Part), true",
        ),
        ("bedrock", {"messages": {"role": "user"}}, "Start of structure or map found where not expected."),
        ("bedrock", {"messages": ["Hi"]}, "Expected null"),
        (
            "bedrock",
            {"messages": [{"content": []}]},
            "1 validation error detected: Value null at "
            "'messages.1.member.role' failed to satisfy constraint: Member must satisfy enum value set: "
            "[user, assistant]",
        ),
        (
            "cohere",
            {"messages": [{"role": "chatbot"}]},
            "invalid request: Invalid value: 'chatbot'. Supported "
            "values are: 'system', 'user', 'assistant', and 'tool'.",
        ),
    ],
)
def test_every_provider_s_shape_rules(
    provider: str, request_body: dict[str, Any], message: str | None
) -> None:
    if message is None:
        assert conversation_turn(provider, request_body) == 1
        return
    with pytest.raises(Rejected) as info:
        conversation_turn(provider, request_body)
    assert info.value.message.startswith(message)


# -- complete responses, read back by extract -------------------------------------------------------


UNSAID = {"ollama": "stop", "gemini": "STOP", "bedrock": "end_turn", "cohere": "COMPLETE"}


def _streams() -> list[Path]:
    """Every provider's recorded streams (Gemini's JSON arrays too; not the complete responses)."""
    found = []
    for provider in PROVIDERS:
        for path in sorted((DATA / provider).iterdir()):
            array = provider == "gemini" and path.suffix == ".json" and path.read_bytes().startswith(b"[")
            if path.suffix in (".sse", ".ndjson", ".bin") or array:
                found.append(path)
    return found


@pytest.mark.parametrize("path", _streams(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_complete_response_holds_what_its_stream_held(path: Path) -> None:
    """The oracle: the stream's own events, parsed with the text left as the model wrote it."""
    provider = path.parent.name
    recording = Recording(provider, path.stem, path.read_bytes(), CONTENT_TYPES[path.suffix])
    events = streamcalls.parse(recording.body, provider, detect=())  # type: ignore[arg-type]
    result = complete_response(recording, "m")
    errors = [e for e in events if isinstance(e, ProviderError)]
    if errors:
        assert result == errors[0]
        return
    assert isinstance(result, tuple)
    status, body = result
    assert status == 200
    native = [e.call for e in events if isinstance(e, ToolCallCompleted)]
    failed = [e for e in events if isinstance(e, ToolCallFailed)]
    if failed and provider == "openai":  # a call cut off: its truncated arguments, as OpenAI sends them
        with pytest.raises(ToolCallError):
            extract(body, detect=())
    else:
        recorded = [c.id if c.id.encode() in recording.body else "generated" for c in native]
        got = [c.id if c.id.encode() in recording.body else "generated" for c in extract(body, detect=())]
        assert got == recorded
        expected = [(c.name, c.arguments, i) for i, c in enumerate(native)]
        assert [(c.name, c.arguments, c.index) for c in extract(body, detect=())] == expected
    assert complete_text(body, provider) == "".join(e.text for e in events if isinstance(e, TextDelta))
    finish = next(e for e in normalize(events) if isinstance(e, StreamFinished))
    if provider == "openai-responses":
        assert complete_finish(body, provider) == ("incomplete" if finish.reason == "length" else "completed")
    elif provider == "anthropic" and finish.reason == "error" and finish.provider_reason is None:
        assert complete_finish(body, provider) is None  # Anthropic has no stop reason for a cut stream
    elif provider in ("openai", "anthropic"):
        assert complete_finish(body, provider) == (finish.provider_reason or finish.reason)
    else:  # a stream cut off before its end says nothing: the provider's usual word
        assert complete_finish(body, provider) == (finish.provider_reason or UNSAID[provider])
