"""The ``"ollama"`` target and Ollama's complete response, read by the ollama package (the official Python
client) through an httpx transport, and their shapes: NDJSON lines, whole calls at their completion, the
``{"error"}`` line, the ``done`` line's counts, no signatures.

The round trip through the parser is tests/corpus/test_writer_roundtrip.py; here
the reader is Ollama's: ``Client.chat(stream=True)`` over the lines
written, ``Client.chat()`` over the complete body, for every recording
whose turn has no error (the client raises on an error line).  The client's
models keep no call id: the ids are checked in the JSON.
"""

from __future__ import annotations

import json
import re
from typing import Any

import ollama
import pytest

import streamcalls
from streamcalls import (
    Event,
    ProviderError,
    ReasoningCompleted,
    ReasoningDelta,
    ReasoningStarted,
    StreamFinished,
    StreamStarted,
    StreamWriter,
    TextDelta,
    ToolCall,
    ToolCallCompleted,
    ToolCallDelta,
    ToolCallStarted,
    Usage,
    write_response,
    write_stream,
)
from tests.support import Case
from tests.support.provider_writers import READABLE, Answers, asks_for_a_stream, completed_calls, turn_calls

ANSWERS = Answers(asks_for_a_stream, "application/x-ndjson")
CLIENT = ollama.Client(host="http://ollama.test", transport=ANSWERS.transport)
ASK: list[Any] = [{"role": "user", "content": "hi"}]
RFC3339 = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z")


def read(responses: list[ollama.ChatResponse]) -> dict[str, Any]:
    """What the client's response objects hold, in the turn's terms."""
    calls = [
        (call.function.name, dict(call.function.arguments))
        for response in responses
        for call in response.message.tool_calls or ()
    ]
    last = responses[-1]
    assert last.done
    assert all(not response.done for response in responses[:-1])
    return {
        "text": "".join(response.message.content or "" for response in responses),
        "reasoning": "".join(response.message.thinking or "" for response in responses),
        "calls": calls,
        "done_reason": last.done_reason,
        "usage": (last.prompt_eval_count, last.eval_count),
        "models": {response.model for response in responses},
    }


def check(
    got: dict[str, Any], turn: streamcalls.Turn, calls: list[tuple[str, str, Any]], word: str | None = None
) -> None:
    """``word``: Ollama's own done_reason, on Ollama's own stream."""
    assert got["text"] == turn.text
    assert got["reasoning"] == turn.reasoning
    assert got["calls"] == [(name, arguments) for _, name, arguments in calls]
    assert got["done_reason"] == word or ("length" if turn.finish_reason == "length" else "stop")
    given, made, total = (
        (turn.usage.input_tokens, turn.usage.output_tokens, turn.usage.total_tokens)
        if turn.usage
        else (None, None, None)
    )
    if total is not None and (given is None) != (made is None):  # the total tells the missing count
        given, made = (total - made, made) if made is not None else (given, total - (given or 0))
    assert got["usage"] == (given, made)
    assert got["models"] == {turn.model or ""}


def lines(data: bytes) -> list[dict[str, Any]]:
    """The objects of NDJSON; fails on anything else."""
    assert data.endswith(b"\n")
    return [json.loads(line) for line in data[:-1].split(b"\n")]


def call_ids(data: bytes) -> list[str]:
    return [call["id"] for line in lines(data) for call in line.get("message", {}).get("tool_calls", ())]


@pytest.mark.parametrize("case", READABLE, ids=[c.id for c in READABLE])
def test_the_client_reads_every_recording_written_as_ollama(case: Case) -> None:
    events = case.expected()
    turn = streamcalls.accumulate(events)
    ANSWERS.stream = data = write_stream(events, "ollama")
    finish = events[-1]
    assert isinstance(finish, StreamFinished)
    word = finish.provider_reason if turn.provider == "ollama" else None
    check(read(list(CLIENT.chat("m", ASK, stream=True))), turn, completed_calls(events), word)
    assert call_ids(data) == [call_id for call_id, _, _ in completed_calls(events)]


@pytest.mark.parametrize("case", READABLE, ids=[c.id for c in READABLE])
def test_the_client_reads_every_turn_as_a_complete_response(case: Case) -> None:
    turn = streamcalls.accumulate(case.expected())
    ANSWERS.response = body = write_response(turn, "ollama")
    check(read([CLIENT.chat("m", ASK)]), turn, turn_calls(turn))
    assert [call["id"] for call in body["message"].get("tool_calls", ())] == [c.id for c in turn.calls]


def test_each_delta_is_a_line_of_its_send_and_each_call_a_line_at_its_completion() -> None:
    writer = StreamWriter("ollama")
    assert writer.media_type == "application/x-ndjson"
    assert writer.headers == {"content-type": "application/x-ndjson"}
    assert writer.send(StreamStarted("openai", "qwen3:8b", "chatcmpl-1")) == b""
    (text,) = lines(writer.send(TextDelta("Hel")))
    assert RFC3339.fullmatch(text.pop("created_at"))
    assert text == {"model": "qwen3:8b", "message": {"role": "assistant", "content": "Hel"}, "done": False}
    (thinking,) = lines(writer.send(ReasoningDelta("hmm")))
    assert thinking["message"] == {"role": "assistant", "content": "", "thinking": "hmm"}
    assert writer.send(ToolCallStarted(0, "call_1", "get_weather")) == b""
    assert writer.send(ToolCallDelta(0, '{"city":')) == b""
    assert writer.send(ToolCallDelta(0, ' "Oslo"}')) == b""
    (call,) = lines(writer.send(ToolCallCompleted(ToolCall("call_1", "get_weather", {"city": "Oslo"}, 0))))
    assert call["message"]["tool_calls"] == [
        {"id": "call_1", "function": {"index": 0, "name": "get_weather", "arguments": {"city": "Oslo"}}}
    ]
    (done,) = lines(
        writer.send(StreamFinished("tool_calls", Usage(12, 7, 19, reasoning_tokens=3))) + writer.close()
    )
    del done["created_at"]
    assert done == {
        "model": "qwen3:8b",
        "message": {"role": "assistant", "content": ""},
        "done": True,
        "done_reason": "stop",  # Ollama's word even after calls
        "total_duration": 0,
        "load_duration": 0,
        "prompt_eval_count": 12,
        "prompt_eval_duration": 0,
        "eval_count": 7,
        "eval_duration": 0,
    }


def test_ollama_s_own_done_reason_goes_back_on_its_own_stream() -> None:
    finish = StreamFinished("stop", None, "load")
    (own,) = lines(write_stream([StreamStarted("ollama", "m"), finish], "ollama"))
    (other,) = lines(write_stream([StreamStarted("openai", "m"), finish], "ollama"))
    assert (own["done_reason"], other["done_reason"]) == ("load", "stop")


def test_a_provider_error_is_an_error_line_that_ends_the_stream() -> None:
    writer = StreamWriter("ollama")
    out = writer.send(StreamStarted("openai", "qwen3:8b")) + writer.send(TextDelta("So"))
    out += writer.send(ProviderError("model runner has unexpectedly stopped", "server_error", 500))
    assert out.endswith(b'\n{"error":"model runner has unexpectedly stopped"}\n')
    # Ollama's stream ends at its error line (its client raises on it): nothing after it is written.
    assert writer.send(TextDelta("more")) + writer.send(ProviderError("again")) == b""
    assert writer.send(StreamFinished("error")) + writer.close() == b""
    ANSWERS.stream = out
    with pytest.raises(ollama.ResponseError, match="model runner has unexpectedly stopped"):
        list(CLIENT.chat("m", ASK, stream=True))


def test_an_error_first_comes_after_a_line_naming_the_model() -> None:
    """A body whose first line is an error is an error body (its next lines are not read): a line with
    an empty message, and the model, comes first."""
    data = write_stream(
        [StreamStarted("openai", "qwen3:8b"), ProviderError("busy"), StreamFinished("error", Usage(4, 0))],
        "ollama",
    )
    first, error, done = lines(data)
    assert (first["model"], first["message"], first["done"]) == (
        "qwen3:8b",
        {"role": "assistant", "content": ""},
        False,
    )
    assert error == {"error": "busy"}
    assert (done["done"], done["prompt_eval_count"]) == (True, 4)
    back = streamcalls.accumulate(streamcalls.parse(data, provider="ollama"))
    assert (back.model, back.finish_reason, back.usage and back.usage.input_tokens) == (
        "qwen3:8b",
        "error",
        4,
    )
    assert [e.message for e in back.errors if type(e) is ProviderError] == ["busy"]
    assert len(back.errors) == 1


def test_no_signature_nor_redacted_reasoning_is_written() -> None:
    events: list[Event] = [
        StreamStarted("anthropic", "claude-x", "msg_1"),
        ReasoningStarted(),
        ReasoningDelta("think"),
        ReasoningCompleted(signature="sig-thinking"),
        ReasoningStarted(),
        ReasoningCompleted(redacted="opaque-redacted"),
        TextDelta("Answer"),
        StreamFinished("stop"),
    ]
    data = write_stream(events, "ollama")
    assert b"sig-thinking" not in data
    assert b"opaque-redacted" not in data
    assert [line["message"].get("thinking") for line in lines(data)] == ["think", None, None]
    body = write_response(streamcalls.accumulate(events), "ollama")
    assert body["message"] == {"role": "assistant", "content": "Answer", "thinking": "think"}
    assert ollama.ChatResponse.model_validate(body).message.thinking == "think"
