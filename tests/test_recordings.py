"""The replay server's parts without sockets: the recordings folder, turns of a history, complete responses."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import streamcalls
from streamcalls import (
    ProviderError,
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
from streamcalls._complete import complete_response
from streamcalls._history import Rejected, conversation_turn
from streamcalls.testing import Recording, bundled_recordings, load_recordings
from tests.support import DATA, check_protocol, normalize

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
        "anthropic/thinking_then_call",
        "bedrock/plan_day",
        "cohere/plan_day",
        "gemini/plan_day",
        "ollama/plan_day",
        "openai-responses/plan_day",
        "openai/parallel_calls",
        "openai/plan_and_write",
        "openai/plan_day",
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


# -- which turn a history asks for ----------------------------------------------------------------

WEATHER = ToolCall("call_1", "get_weather", {"city": "Paris"})
RESULT = ToolResult("call_1", "get_weather", "sunny")
PROMPT = {"role": "user", "content": "Weather?"}


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_the_turn_counts_assistant_turns_since_the_last_prompt(provider: Any) -> None:
    call = encode_call(WEATHER, provider)
    results = encode_result([RESULT], provider)
    answer = {"role": "assistant", "content": "Sunny."}
    def turn(*messages: Any) -> int:
        return conversation_turn(provider, {"messages": list(messages)})

    assert turn() == 1
    assert turn(PROMPT) == 1
    assert turn(PROMPT, call, *results) == 2
    assert turn(PROMPT, call, *results, call, *results) == 3
    assert turn(PROMPT, call, *results, answer, PROMPT) == 1
    assert turn(PROMPT, answer, PROMPT, call, *results) == 2
    if provider == "openai":
        system = {"role": "system", "content": "Be brief."}
        assert turn(system, PROMPT, call, *results) == 2


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


# -- complete responses, read back by extract -------------------------------------------------------


def _corpus() -> list[Path]:
    return sorted([*(DATA / "openai").glob("*.sse"), *(DATA / "anthropic").glob("*.sse")])


@pytest.mark.parametrize("path", _corpus(), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_a_complete_response_holds_what_its_stream_held(path: Path) -> None:
    """The oracle: the stream's own events, parsed with the text left as the model wrote it."""
    provider = path.parent.name
    recording = Recording(provider, path.stem, path.read_bytes(), SSE)
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
    text = "".join(e.text for e in events if isinstance(e, TextDelta))
    if provider == "openai":
        assert (body["choices"][0]["message"]["content"] or "") == text
    else:
        assert "".join(b["text"] for b in body["content"] if b["type"] == "text") == text
    finish = next(e for e in normalize(events) if isinstance(e, StreamFinished))
    reason = body["choices"][0]["finish_reason"] if provider == "openai" else body["stop_reason"]
    assert reason == (finish.provider_reason or finish.reason)
