"""The fallback policy (which calls in the text count) and calls written twice (issue 20).

The policy's table lives in docs/guide/calls-in-text.md; ``test_every_row_of_the_guides_table``
reads it from there and checks each row against the parser, for every provider the row names,
explicit and under ``"auto"``, the model given as ``model=`` and named by the stream. A call
written twice (a native call and its copy in the text) runs once: the events of each case are
written out here, read by eye, and the text is checked against the input by a small reader
that knows where the copy's markup was.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import streamcalls
from streamcalls import (
    StreamFinished,
    StreamParser,
    StreamStarted,
    TextDelta,
    ToolCallCompleted,
    ToolCallDelta,
    ToolCallFailed,
    ToolCallPatch,
    ToolCallStarted,
    ToolResult,
)
from streamcalls._policy import HOSTED_MODELS, has_native_calls
from tests.support import (
    DATA,
    bytewise,
    check_protocol,
    completed_calls,
    counter_ids,
    feed_chunks,
    normalize,
    split_at,
    text_of,
)
from tests.support.eventstream import frame

GUIDE = Path(__file__).parent.parent.parent / "docs" / "guide" / "calls-in-text.md"
PROVIDERS = (
    "text",
    "openai",
    "ollama",
    "anthropic",
    "openai-responses",
    "gemini",
    "bedrock",
    "bedrock-invoke",
    "cohere",
)
MODEL_FIELD = (
    "openai",
    "ollama",
    "openai-responses",
    "vllm",
    "openrouter",
)  # streams whose model field is followed
ALIASES = {"vllm": "openai", "openrouter": "openai"}

# -- streams of one text, in every provider's wire format ------------------------------------------


def _sse(payload: dict[str, Any], event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    return (head + "data: " + json.dumps(payload) + "\n\n").encode()


def _pieces(text: str, size: int = 7) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def stream(provider: str, text: str, model: str | None = None) -> bytes:
    """A stream of ``provider`` whose only output is ``text`` (in pieces), naming ``model``
    where the format carries a model; it ends normally."""
    pieces = _pieces(text)
    if provider == "text":
        return text.encode()
    if provider == "openai":
        named = {"model": model} if model else {}
        chunks = [
            {**named, "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": p}}]}
            for p in pieces
        ]
        chunks.append(
            {
                **named,
                "object": "chat.completion.chunk",
                "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
            }
        )
        return b"".join(_sse(c) for c in chunks) + b"data: [DONE]\n\n"
    if provider == "ollama":
        named = {"model": model} if model else {}
        lines = [{**named, "message": {"role": "assistant", "content": p}, "done": False} for p in pieces]
        lines.append(
            {**named, "message": {"role": "assistant", "content": ""}, "done": True, "done_reason": "stop"}
        )
        return b"".join(json.dumps(line).encode() + b"\n" for line in lines)
    if provider == "anthropic":
        out = _sse(
            {
                "type": "message_start",
                "message": {
                    "id": "msg_1",
                    "role": "assistant",
                    "model": model or "claude-x",
                    "content": [],
                    "usage": {"input_tokens": 1, "output_tokens": 1},
                },
            },
            "message_start",
        )
        out += _sse(
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
            "content_block_start",
        )
        for p in pieces:
            out += _sse(
                {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": p}},
                "content_block_delta",
            )
        out += _sse({"type": "content_block_stop", "index": 0}, "content_block_stop")
        out += _sse(
            {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 9}},
            "message_delta",
        )
        return out + _sse({"type": "message_stop"}, "message_stop")
    if provider == "openai-responses":
        response = {
            "id": "resp_1",
            "object": "response",
            "status": "in_progress",
            "output": [],
            **({"model": model} if model else {}),
        }
        out = _sse(
            {"type": "response.created", "sequence_number": 0, "response": response}, "response.created"
        )
        item = {"id": "msg_1", "type": "message", "status": "in_progress", "role": "assistant", "content": []}
        out += _sse(
            {"type": "response.output_item.added", "sequence_number": 1, "output_index": 0, "item": item},
            "response.output_item.added",
        )
        for number, p in enumerate(pieces, 2):
            delta = {
                "type": "response.output_text.delta",
                "sequence_number": number,
                "item_id": "msg_1",
                "output_index": 0,
                "content_index": 0,
                "delta": p,
            }
            out += _sse(delta, "response.output_text.delta")
        done = {
            "type": "response.output_item.done",
            "sequence_number": len(pieces) + 2,
            "output_index": 0,
            "item": {**item, "status": "completed"},
        }
        out += _sse(done, "response.output_item.done")
        completed = {**response, "status": "completed", "usage": None}
        return out + _sse(
            {"type": "response.completed", "sequence_number": len(pieces) + 3, "response": completed},
            "response.completed",
        )
    if provider == "gemini":
        parts: list[dict[str, Any]] = [
            {
                "candidates": [{"content": {"parts": [{"text": p}], "role": "model"}, "index": 0}],
                "modelVersion": model or "g",
            }
            for p in pieces
        ]
        parts[-1]["candidates"][0]["finishReason"] = "STOP"
        return b"".join(_sse(c) for c in parts)
    if provider == "bedrock":
        specs: list[dict[str, Any]] = [{"event": "messageStart", "payload": {"role": "assistant"}}]
        specs += [
            {"event": "contentBlockDelta", "payload": {"contentBlockIndex": 0, "delta": {"text": p}}}
            for p in pieces
        ]
        specs += [{"event": "contentBlockStop", "payload": {"contentBlockIndex": 0}}]
        specs += [{"event": "messageStop", "payload": {"stopReason": "end_turn"}}]
        specs += [
            {
                "event": "metadata",
                "payload": {
                    "usage": {"inputTokens": 1, "outputTokens": 2, "totalTokens": 3},
                    "metrics": {"latencyMs": 1},
                },
            }
        ]
        return b"".join(frame(spec) for spec in specs)
    if provider == "bedrock-invoke":  # Meta Llama's own chunks in InvokeModel's frames: the invoke reader's
        llama: list[dict[str, Any]] = [{"generation": p, "stop_reason": None} for p in pieces]
        llama.append({"generation": "", "stop_reason": "stop"})
        return b"".join(frame({"chunk": chunk}) for chunk in llama)
    assert provider == "cohere"
    out = _sse(
        {"type": "message-start", "id": "c1", "delta": {"message": {"role": "assistant"}}}, "message-start"
    )
    out += _sse(
        {
            "type": "content-start",
            "index": 0,
            "delta": {"message": {"content": {"type": "text", "text": ""}}},
        },
        "content-start",
    )
    for p in pieces:
        out += _sse(
            {"type": "content-delta", "index": 0, "delta": {"message": {"content": {"text": p}}}},
            "content-delta",
        )
    out += _sse({"type": "content-end", "index": 0}, "content-end")
    return out + _sse({"type": "message-end", "delta": {"finish_reason": "COMPLETE"}}, "message-end")


# What the policy is checked with: one text holding a fenced call, a bare object, a ```json block
# and Llama's bare form; the text each outcome leaves (read by eye: a fence takes its lines, a
# bare object its braces, a block its fence lines).
FENCE = '~~~tool_call\n{"name": "fenced", "arguments": {"n": 1}}\n~~~\n'
BARE = '{"name": "bare", "arguments": {"n": 2}}'
BLOCK = '```json\n{"name": "block", "arguments": {"n": 3}}\n```\n'
LLAMA = '{"name": "llama_bare", "parameters": {"n": 4}}'
TEXT = "Fence:\n" + FENCE + "Bare:\n" + BARE + "\nBlock:\n" + BLOCK + "Llama:\n" + LLAMA + "\nDone."
MARKUP_CALLS = ["fenced"]
BARE_CALLS = ["bare", "block", "llama_bare"]


def expected_text(markup: bool, bare: bool) -> str:
    fence = "" if markup else FENCE
    if bare:
        return "Fence:\n" + fence + "Bare:\n\nBlock:\nLlama:\n\nDone."
    return "Fence:\n" + fence + "Bare:\n" + BARE + "\nBlock:\n" + BLOCK + "Llama:\n" + LLAMA + "\nDone."


# Model kinds, as the guide's table names them, with names of each kind.
HOSTED = (
    "gpt-4o",
    "gpt-4o-mini-2024-07-18",
    "openrouter/openai/o3-mini",
    "claude-sonnet-4-5",
    "us.anthropic.claude-3-7-sonnet-20250219-v1:0",
    "models/gemini-2.5-flash",
    "command-r-plus-08-2024",
    "ft:gpt-4.1-mini:acme::abc123",
)
OTHER = (None, "llama3.1:8b", "Qwen/Qwen2.5-7B-Instruct", "meta-llama/Llama-3.2-3B-Instruct")
MODEL_KINDS = {
    "any": (*OTHER, "gpt-4o", "claude-sonnet-4-5"),
    "a known hosted model": HOSTED,
    "another, or none named": OTHER,
}


@dataclass(frozen=True)
class Row:
    providers: tuple[str, ...]
    models: tuple[str | None, ...]
    options: dict[str, Any]
    markup: str  # "yes", "as named", "until the first native call"
    bare: str  # "yes", "no", "as named"


def guide_rows() -> list[Row]:
    """The rows of the guide's fallback-policy table, as the test reads them."""
    section = GUIDE.read_text(encoding="utf-8").split("## The fallback policy", 1)[1]
    lines = [line for line in section.splitlines() if line.startswith("|")]
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    assert header[:3] == ["provider", "model", "options"], header
    assert header[-1] == "why", header
    rows = []
    for line in lines[2:]:
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if len(cells) != len(header):
            break  # the next table (the hosted models)
        provider, model, options, markup, bare, _ = cells
        names = tuple(re.findall(r'`"([a-z-]+)"`', provider)) if provider != "any" else PROVIDERS
        if "its aliases" in provider:
            names += ("vllm", "openrouter")
        rows.append(Row(names, MODEL_KINDS[model], _options(options), markup, bare))
    return rows


def _options(cell: str) -> dict[str, Any]:
    if cell == "none":
        return {}
    if cell == "`detect=(...)`":
        return {"detect": ...}
    match = re.fullmatch(r"`native=(True|False)`", cell)
    assert match is not None, cell
    return {"native": match.group(1) == "True"}


ROWS = guide_rows()


def test_the_guide_has_the_six_rows() -> None:
    assert [(row.markup, row.bare) for row in ROWS] == [
        ("as named", "as named"),
        ("yes", "yes"),
        ("until the first native call", "no"),
        ("yes", "no"),
        ("yes", "yes"),
        ("yes", "no"),
    ]
    assert set(ROWS[4].providers) | set(ROWS[5].providers) >= set(PROVIDERS)  # every provider has its row


def _first_row(provider: str, model: str | None, options: dict[str, Any]) -> Row:
    for row in ROWS:
        if provider in row.providers and model in row.models and row.options.keys() == options.keys():
            if all(row.options[k] is ... or row.options[k] == v for k, v in options.items()):
                return row
    raise AssertionError(f"no row for {provider} {model} {options}")


def _combos(row: Row) -> Iterator[tuple[str, str | None, dict[str, Any]]]:
    for provider, model in itertools.product(row.providers, row.models):
        if "detect" in row.options:
            for detect in ((), ("fence",), ("fence", "json")):
                yield provider, model, {"detect": detect}
        else:
            yield provider, model, dict(row.options)


@pytest.mark.parametrize("number", range(len(ROWS)), ids=[f"row{n + 1}" for n in range(len(ROWS))])
def test_every_row_of_the_guides_table(number: int) -> None:
    row = ROWS[number]
    checked = 0
    for provider, model, options in _combos(row):
        if _first_row(provider, model, options) is not row:
            continue  # an earlier row decides; it is checked there
        if "detect" in options:
            markup, bare = "fence" in options["detect"], "json" in options["detect"]
        else:
            markup, bare = row.markup != "no", row.bare == "yes"
        expected = [*(MARKUP_CALLS if markup else []), *(BARE_CALLS if bare else [])]
        # The model as model=, and as the stream names it (where the stream carries one).
        ways = [("option", model)] + ([("stream", model)] if model and provider in MODEL_FIELD else [])
        for way, name in ways:
            data = stream(ALIASES.get(provider, provider), TEXT, name if way == "stream" else None)
            for parser_provider in (provider, "auto"):
                kwargs = dict(options)
                if way == "option" and name:
                    kwargs["model"] = name
                events = feed_chunks([data], parser_provider, **kwargs)
                where = f"{provider} as {parser_provider}, model {name} ({way}), {options}"
                assert [c.name for c in completed_calls(events)] == expected, where
                assert text_of(events) == expected_text(markup, bare), where
                assert not any(isinstance(e, ToolCallFailed) for e in events), where
                finished = [e for e in events if isinstance(e, StreamFinished)]
                assert [f.reason for f in finished] == (["tool_calls"] if expected else ["stop"]), where
                checked += 1
    assert checked >= 16  # the row was walked


def test_a_bare_json_row_also_turns_the_llama_detectors_bare_object_off() -> None:
    # Llama 3.2 served where calls are native: its family's detectors run (the <|python_tag|> form counts),
    # its bare object does not.
    text = LLAMA + '\n<|python_tag|>{"name": "tagged", "parameters": {"n": 5}}'
    for provider in ("bedrock", "anthropic"):
        events = feed_chunks(
            [stream(provider, text)], provider, model="meta-llama/Llama-3.2-90B-Vision-Instruct"
        )
        assert [c.name for c in completed_calls(events)] == ["tagged"]
        assert text_of(events) == LLAMA + "\n"
    events = feed_chunks([stream("openai", text)], "openai", model="meta-llama/Llama-3.2-3B-Instruct")
    assert [(c.name, c.source) for c in completed_calls(events)] == [
        ("llama_bare", "json"),
        ("tagged", "llama"),
    ]


# -- the hosted models --------------------------------------------------------------------------


def test_the_guides_list_of_hosted_models_is_the_codes() -> None:
    section = GUIDE.read_text(encoding="utf-8").split("A known hosted model is one", 1)[1]
    table = [line for line in section.splitlines() if line.startswith("| `")]
    assert len(table) == len(HOSTED_MODELS)
    for line, (pattern, whose) in zip(table, HOSTED_MODELS, strict=True):
        written = line.split("|")[1]
        for example in re.findall(r"`([^`]+)`", written):
            assert has_native_calls(example.replace(" … ", "")) or re.search(pattern, example), (
                example,
                pattern,
            )
        assert whose.split("'s ")[0] in line.split("|")[2], (whose, line)


@pytest.mark.parametrize(
    "name",
    [
        *HOSTED,
        "gpt-3.5-turbo",
        "gpt-5",
        "GPT-4.1",
        "chatgpt-4o-latest",
        "o1",
        "o4-mini",
        "azure/o3",
        "claude-3-haiku-20240307",
        "anthropic/claude-opus-4.1",
        "claude-3-5-sonnet-v2@20241022",
        "gemini-1.5-pro-002",
        "publishers/google/models/gemini-2.0-flash-001",
        "gemini-3-pro-preview:latest",
        "cohere.command-r-plus-v1:0",
        "command-a-03-2025",
        "grok-4",
        "grok-code-fast-1",
        "deepseek-chat",
        "deepseek-reasoner",
        "amazon.nova-pro-v1:0",
    ],
)
def test_hosted_models_have_native_calls(name: str) -> None:
    assert has_native_calls(name)


@pytest.mark.parametrize(
    "name",
    [
        "openai/gpt-oss-20b",
        "gpt-oss:120b",
        "openai-community/gpt2",
        "EleutherAI/gpt-j-6b",
        "EleutherAI/gpt-neox-20b",
        "gpt4all-13b-snoozy",
        "google/gemma-3-27b-it",
        "CohereForAI/c4ai-command-r-v01",
        "deepseek-ai/DeepSeek-V3.1",
        "deepseek-r1:7b",
        "O1-OPEN/OpenO1-Qwen-7B-v0.1",
        "Skywork/Skywork-o1-Open-Llama-3.1-8B",
        "mistralai/Devstral-Small-2505",
        "mistral-large-latest",
        "llama3.1:8b",
        "my-gpt4o-deployment",
        "xai-org/grok-1",
        "",
    ],
)
def test_open_weights_and_unknown_names_are_not_hosted(name: str) -> None:
    assert not has_native_calls(name)


# -- the issue's prose JSON ---------------------------------------------------------------------

PROSE = DATA / "openai" / "prose_json_gpt4o.sse"
PROSE_ANTHROPIC = DATA / "anthropic" / "prose_json.sse"


def _sse_records(data: bytes) -> list[bytes]:
    return [record + b"\n\n" for record in data.split(b"\n\n") if record]


@pytest.mark.parametrize(("path", "provider"), [(PROSE, "openai"), (PROSE_ANTHROPIC, "anthropic")])
def test_a_json_example_in_a_native_models_prose_stays_text(path: Path, provider: str) -> None:
    data = path.read_bytes()
    for parser_provider in (provider, "auto"):
        for chunks in ([data], bytewise(data)):
            events = feed_chunks(chunks, parser_provider)
            assert not completed_calls(events)
            assert not any(isinstance(e, (ToolCallStarted, ToolCallFailed)) for e in events)
            assert '{"name": "delete_file", "arguments": {"path": "/home/me/notes.txt"}}' in text_of(events)
            assert [e.reason for e in events if isinstance(e, StreamFinished)] == ["stop"]


@pytest.mark.parametrize("provider", ["openai", "auto"])
def test_the_decision_holds_back_no_text(provider: str) -> None:
    # Fed one SSE event at a time, each event's text comes out of the very feed that brought it.
    parser = StreamParser(cast(streamcalls.ProviderName, provider))
    for record in _sse_records(PROSE.read_bytes()):
        events = parser.feed(record)
        payload = record.decode().removeprefix("data: ").strip()
        content = (
            ""
            if payload == "[DONE]"
            else "".join(choice["delta"].get("content") or "" for choice in json.loads(payload)["choices"])
        )
        assert "".join(e.text for e in events if isinstance(e, TextDelta)) == content


def test_the_same_prose_from_an_open_weight_model_is_a_call() -> None:
    # The control: the stream's model field is what decides.
    data = PROSE.read_bytes().replace(b'"gpt-4o-2024-08-06"', b'"llama3.1:8b"')
    events = feed_chunks([data], "openai")
    assert [c.name for c in completed_calls(events)] == ["delete_file", "delete_file"]
    assert [e.reason for e in events if isinstance(e, StreamFinished)] == ["tool_calls"]
    # ... unless model= says otherwise (it wins over the stream's own name).
    assert not completed_calls(feed_chunks([data], "openai", model="gpt-4o"))
    assert not completed_calls(feed_chunks([PROSE.read_bytes()], "openai", native=True, model="llama3.1:8b"))


def test_a_model_named_after_the_text_began_leaves_bare_json_as_it_was() -> None:
    first = _sse({"choices": [{"index": 0, "delta": {"content": "Hi.\n"}}]})
    later = _sse({"model": "gpt-4o", "choices": [{"index": 0, "delta": {"content": BARE + "\n"}}]})
    events = feed_chunks([first + later + b"data: [DONE]\n\n"], "openai")
    assert [c.name for c in completed_calls(events)] == ["bare"]
    # A family named late still adds its detectors.
    later = _sse(
        {
            "model": "Qwen/Qwen3-8B",
            "choices": [
                {
                    "index": 0,
                    "delta": {"content": '<tool_call>\n{"name": "t", "arguments": {}}\n</tool_call>'},
                }
            ],
        }
    )
    events = feed_chunks(
        [_sse({"model": "", "choices": [{"index": 0, "delta": {"content": "Hi."}}]}) + later], "openai"
    )
    assert [(c.name, c.source) for c in completed_calls(events)] == [("t", "hermes")]


def test_a_complete_response_under_auto_follows_its_provider() -> None:
    # No stream: true: an Anthropic message read whole under "auto" reads no bare JSON in its text.
    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": "Send:\n" + BARE}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 1, "output_tokens": 2},
    }
    for data in (json.dumps(message).encode(), json.dumps(message, indent=2).encode()):
        events = feed_chunks([data], "auto")
        assert not completed_calls(events)
        assert text_of(events) == "Send:\n" + BARE
    # An OpenAI-compatible one, on one line or several: its provider reads bare JSON.
    chat = {
        "object": "chat.completion",
        "model": "llama3.1:8b",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": BARE}, "finish_reason": "stop"}],
    }
    for data in (json.dumps(chat).encode(), json.dumps(chat, indent=2).encode()):
        assert [c.name for c in completed_calls(feed_chunks([data], "auto"))] == ["bare"]


def test_feed_event_under_auto_follows_the_provider() -> None:
    parser = StreamParser(id_factory=counter_ids())
    events = parser.feed_event(
        {
            "type": "message_start",
            "message": {"id": "m", "role": "assistant", "model": "x", "content": [], "usage": {}},
        }
    )
    events += parser.feed_event(
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}
    )
    events += parser.feed_event(
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": BARE}}
    )
    events += parser.close()
    assert text_of(events) == BARE
    assert not completed_calls(events)
    parser = StreamParser(id_factory=counter_ids())
    events = parser.feed_event(
        {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": BARE}}]}
    )
    assert [c.name for c in completed_calls(events + parser.close())] == ["bare"]


# -- tools=: a bare object naming another tool ------------------------------------------------------


def test_a_bare_object_naming_an_undeclared_tool_is_text() -> None:
    text = 'Example:\n{"name": "delete_file", "arguments": {"path": "/tmp/x"}}\n```json\n{"name": "delete_file", "arguments": {}}\n```\nand\n{"name": "get_weather", "arguments": {"city": "Oslo"}}'
    for chunks in ([text.encode()], bytewise(stream("openai", text, "llama3.1:8b"))):
        provider = "text" if len(chunks) == 1 else "openai"
        events = feed_chunks(chunks, provider, tools=["get_weather"])
        assert [c.name for c in completed_calls(events)] == ["get_weather"]
        assert not any(isinstance(e, ToolCallFailed) for e in events)
        assert text_of(events) == text.split('{"name": "get_weather"', maxsplit=1)[0]
    # In explicit markup, the markup says it is a call: an unknown name is still one.
    fenced = feed_chunks(
        [b'~~~tool_call\n{"name": "delete_file", "arguments": {}}\n~~~\n'], "text", tools=["get_weather"]
    )
    assert [c.name for c in completed_calls(fenced)] == ["delete_file"]


# -- a call written twice ---------------------------------------------------------------------------

ECHOES = [
    (DATA / "openai" / "echo_text_first.sse", "openai", "json"),
    (DATA / "openai" / "echo_native_first.sse", "openai", "native"),
    (DATA / "ollama" / "echo_in_content.ndjson", "ollama", "json"),
]


@pytest.mark.parametrize(("path", "provider", "source"), ECHOES, ids=[p.name for p, _, _ in ECHOES])
def test_an_echoed_call_is_one_call_for_any_chunking(path: Path, provider: str, source: str) -> None:
    data = path.read_bytes()
    for parser_provider in (provider, "auto"):
        for chunks in ([data], bytewise(data), split_at(data, range(3, len(data), 11))):
            events = feed_chunks(chunks, parser_provider)
            check_protocol(events)
            assert [(c.name, c.arguments["city"], c.source) for c in completed_calls(events)] == [
                ("get_weather", "Paris", source)
            ]
            assert sum(isinstance(e, ToolCallStarted) for e in events) == 1
            assert "get_weather" not in text_of(events)  # the copy's markup left the text


def _echo_tools(runs: list[dict[str, Any]]) -> dict[str, Any]:
    def get_weather(city: str, days: int = 1) -> str:
        runs.append({"city": city, "days": days})
        return f"sunny in {city}"

    return {"get_weather": get_weather}


async def _chunks(data: bytes, size: int) -> AsyncIterator[bytes]:
    for start in range(0, len(data), size):
        await anyio.sleep(0)
        yield data[start : start + size]


@pytest.mark.anyio
@pytest.mark.parametrize(("path", "provider", "source"), ECHOES, ids=[p.name for p, _, _ in ECHOES])
async def test_run_tools_runs_an_echoed_call_once(path: Path, provider: str, source: str) -> None:
    runs: list[dict[str, Any]] = []
    results = []
    async for item in streamcalls.run_tools(
        streamcalls.aparse(_chunks(path.read_bytes(), 17)), _echo_tools(runs)
    ):
        if isinstance(item, ToolResult):
            results.append(item)
    assert len(runs) == 1
    assert runs[0]["city"] == "Paris"
    assert len(results) == 1


@pytest.mark.anyio
@pytest.mark.parametrize("path", [PROSE, PROSE_ANTHROPIC], ids=["openai", "anthropic"])
async def test_run_tools_runs_nothing_for_prose_json(path: Path) -> None:
    ran: list[str] = []

    def delete_file(path: str) -> str:
        ran.append(path)
        return "deleted"

    run = streamcalls.run_tools(
        streamcalls.aparse(_chunks(path.read_bytes(), 23)), {"delete_file": delete_file}
    )
    events = [item async for item in run]
    assert ran == []
    assert [e.reason for e in events if isinstance(e, StreamFinished)] == ["stop"]


# The exact events of copies, on an OpenAI-compatible stream of an open-weight model.

NATIVE = {"index": 0, "id": "call_n", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}}


def delta(**fields: Any) -> bytes:
    return _sse({"model": "llama3.1:8b", "choices": [{"index": 0, "delta": fields}]})


def native_call(call_id: str, name: str, arguments: str, index: int = 0) -> bytes:
    return delta(
        tool_calls=[
            {
                "index": index,
                "id": call_id,
                "type": "function",
                "function": {"name": name, "arguments": arguments},
            }
        ]
    )


def native_start(call_id: str, name: str, index: int = 0) -> bytes:
    return native_call(call_id, name, "", index)


def native_args(arguments: str, index: int = 0) -> bytes:
    return delta(tool_calls=[{"index": index, "function": {"arguments": arguments}}])


END = _sse({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}) + b"data: [DONE]\n\n"


def events_of(*parts: bytes, **options: Any) -> list[streamcalls.Event]:
    events = feed_chunks([b"".join(parts)], "openai", **options)
    check_protocol(events)
    return events


def test_a_text_copy_after_its_native_call_gives_no_event() -> None:
    events = events_of(
        native_call("call_n", "f", '{"a": 1}'),
        delta(content='Ok.\n{"name": "f", "arguments": {"a": 1.0}}\nBye.'),
        END,
    )
    assert normalize(events) == [
        StreamStarted("openai", "llama3.1:8b"),
        ToolCallStarted(0, "call_n", "f"),
        ToolCallDelta(0, '{"a": 1}'),
        ToolCallCompleted(streamcalls.ToolCall("call_n", "f", {"a": 1}, 0, "native")),
        TextDelta("Ok.\n\nBye."),
        StreamFinished("tool_calls", None, "tool_calls"),
    ]


def test_a_native_copy_after_its_text_call_gives_no_event() -> None:
    events = events_of(
        delta(content='{"name": "f", "arguments": {"a": 1}}'),
        native_start("call_n", "f"),
        native_args('{"a"'),
        delta(content="\nBetween."),  # text while the native copy is withheld
        native_args(": 1}"),
        END,
        id_factory=counter_ids(),
    )
    assert normalize(events) == [
        StreamStarted("openai", "llama3.1:8b"),
        ToolCallStarted(0, "call_gen_0", "f"),
        ToolCallDelta(0, '{"a": 1}'),
        ToolCallCompleted(streamcalls.ToolCall("call_gen_0", "f", {"a": 1}, 0, "json")),
        TextDelta("\nBetween."),
        StreamFinished("tool_calls", None, "tool_calls"),
    ]


def test_a_withheld_call_that_is_no_copy_comes_out_whole_when_it_ends() -> None:
    events = events_of(
        delta(content='{"name": "f", "arguments": {"a": 1}}'),
        native_start("call_n", "f"),
        native_args('{"a"'),
        delta(content="\nBetween."),
        native_args(": 2}"),
        delta(content="\nAfter."),
        END,
        id_factory=counter_ids(),
        partial_arguments=True,
    )
    assert normalize([e for e in events if not isinstance(e, ToolCallPatch)]) == [
        StreamStarted("openai", "llama3.1:8b"),
        ToolCallStarted(0, "call_gen_0", "f"),
        ToolCallDelta(0, '{"a": 1}'),
        ToolCallCompleted(streamcalls.ToolCall("call_gen_0", "f", {"a": 1}, 0, "json")),
        TextDelta("\nBetween."),
        # All of it in the feed that completed it, with the next index: the text before it came first.
        ToolCallStarted(1, "call_n", "f"),
        ToolCallDelta(1, '{"a": 2}'),
        ToolCallCompleted(streamcalls.ToolCall("call_n", "f", {"a": 2}, 1, "native")),
        TextDelta("\nAfter."),
        StreamFinished("tool_calls", None, "tool_calls"),
    ]
    patched = [e.index for e in events if isinstance(e, ToolCallPatch)]
    assert sorted(set(patched)) == [0, 1]
    assert patched == sorted(patched)


def test_a_withheld_call_that_fails_comes_out_with_its_failure() -> None:
    events = events_of(
        delta(content='{"name": "f", "arguments": {"a": 1}}'),
        native_start("call_n", "f"),
        native_args('{"a": [1'),
        END,
    )
    failed = [e for e in events if isinstance(e, ToolCallFailed)]
    assert [(f.index, f.id, f.raw) for f in failed] == [(1, "call_n", '{"a": [1')]
    assert [type(e).__name__ for e in events if e.__class__.__name__.startswith("ToolCall")] == [
        "ToolCallStarted",
        "ToolCallDelta",
        "ToolCallCompleted",
        "ToolCallStarted",
        "ToolCallDelta",
        "ToolCallFailed",
    ]


def test_a_copy_pairs_with_one_call() -> None:
    # Two native calls with the same arguments, one text copy: two runs.
    two = delta(tool_calls=[dict(NATIVE), {**NATIVE, "index": 1, "id": "call_m"}])
    events = events_of(two, delta(content='{"name": "f", "arguments": {"a": 1}}'), END)
    assert [(c.id, c.source) for c in completed_calls(events)] == [("call_n", "native"), ("call_m", "native")]
    # Two text copies after one native call: one run (the second copy has no native call to pair with).
    events = events_of(
        native_call("call_n", "f", '{"a": 1}'),
        delta(content='{"name": "f", "arguments": {"a": 1}}\n{"name": "f", "arguments": {"a": 1}}'),
        END,
        id_factory=counter_ids(),
    )
    assert [(c.id, c.source) for c in completed_calls(events)] == [
        ("call_n", "native"),
        ("call_gen_1", "json"),
    ]


def test_arguments_are_compared_as_json_values() -> None:
    for text, copy in [
        ('{"a": 1, "b": [true, null]}', '{"b": [true, null], "a": 1.0}'),
        ('{"s": "\\u00e9"}', '{"s": "é"}'),
    ]:
        events = events_of(
            native_call("call_n", "f", text), delta(content='{"name": "f", "arguments": ' + copy + "}"), END
        )
        assert len(completed_calls(events)) == 1, (text, copy)
    for text, other in [
        ('{"a": 1}', '{"a": true}'),
        ('{"a": "1"}', '{"a": 1}'),
        ('{"a": [1]}', '{"a": [1, 1]}'),
        ('{"a": {}}', '{"a": null}'),
    ]:
        events = events_of(
            native_call("call_n", "f", text), delta(content='{"name": "f", "arguments": ' + other + "}"), END
        )
        assert len(completed_calls(events)) == 2, (text, other)
    # A different name is another call, and so is a second text call (text is not paired with text).
    events = events_of(
        delta(content='{"name": "g", "arguments": {"a": 1}}'), native_call("call_n", "f", '{"a": 1}'), END
    )
    assert len(completed_calls(events)) == 2


def test_a_copy_that_overlaps_the_call_it_repeats_fails() -> None:
    # The native call starts (it comes out), its text copy completes before it: the copy stands,
    # and the native call, already out, ends as failed -- never run.
    events = events_of(
        native_start("call_n", "f"),
        native_args('{"a": '),
        delta(content='{"name": "f", "arguments": {"a": 1}}'),
        native_args("1}"),
        END,
        id_factory=counter_ids(),
    )
    assert [(c.id, c.source) for c in completed_calls(events)] == [("call_gen_0", "json")]
    failed = [e for e in events if isinstance(e, ToolCallFailed)]
    assert [(f.id, f.error) for f in failed] == [
        ("call_n", "a copy of the text call 'call_gen_0', which completed first; not run")
    ]
    # The native call completes first instead: the text copy, withheld, is dropped.
    events = events_of(
        native_start("call_n", "f"),
        native_args('{"a": 1}'),
        delta(content='{"name": "f", "arguments": {"a": 1}}'),
        END,
    )
    assert [(c.id, c.source) for c in completed_calls(events)] == [("call_n", "native")]
    assert not any(isinstance(e, ToolCallFailed) for e in events)


def test_a_fenced_copy_in_a_gemini_stream() -> None:
    # Gemini sends calls whole; a fence repeating one, in any provider, is its copy.
    call = {"functionCall": {"name": "f", "args": {"a": 1}}}
    fence = "Calling.\n~~~tool_call\n" + '{"name": "f", "arguments": {"a": 1}}' + "\n~~~\n"
    chunks = [
        {"candidates": [{"content": {"parts": [call], "role": "model"}, "index": 0}]},
        {
            "candidates": [
                {"content": {"parts": [{"text": fence}], "role": "model"}, "finishReason": "STOP", "index": 0}
            ]
        },
    ]
    events = feed_chunks([b"".join(_sse(c) for c in chunks)], "gemini")
    check_protocol(events)
    assert [c.source for c in completed_calls(events)] == ["native"]
    assert text_of(events) == "Calling.\n"


def test_native_false_a_native_copy_of_a_text_call_is_dropped_not_failed() -> None:
    events = events_of(
        delta(content='{"name": "f", "arguments": {"a": 1}}'),
        native_call("call_n", "f", '{"a": 1}'),
        END,
        native=False,
    )
    assert [c.source for c in completed_calls(events)] == ["json"]
    assert not any(isinstance(e, ToolCallFailed) for e in events)


# Conservation for copies: the text that came in equals the text that came out plus, where each
# dropped copy was, exactly its markup (a reader written here, from the input's known layout).

PARTS = st.lists(
    st.sampled_from(
        ["Hello. ", "a{b} ", "\n", "x = [1]\n", "~~ not a fence\n", "```python\nprint(1)\n```\n"]
    ),
    max_size=4,
).map("".join)


@settings(max_examples=60, deadline=None)
@given(
    before=PARTS,
    after=PARTS,
    cuts=st.lists(st.integers(0, 2000), max_size=12),
    native_first=st.booleans(),
    markup=st.sampled_from(["json", "fence"]),
)
def test_a_dropped_copy_takes_exactly_its_markup_for_any_chunking(
    before: str, after: str, cuts: list[int], native_first: bool, markup: str
) -> None:
    call = '{"name": "f", "arguments": {"a": [1, "x"]}}'
    copy = call if markup == "json" else "~~~tool_call\n" + call + "\n~~~\n"
    text = before + ("" if not before or before.endswith("\n") else "\n") + copy + "\n" + after
    native = native_call("call_n", "f", '{"a": [1, "x"]}')
    content = delta(content=text)
    data = (native + content if native_first else content + native) + END
    events = feed_chunks(split_at(data, cuts), "openai", id_factory=counter_ids())
    check_protocol(events)
    assert len(completed_calls(events)) == 1
    kept = completed_calls(events)[0].source
    assert kept == ("native" if native_first else markup)
    # The copy's markup, and only it, left the text (a fence takes its closing line's end, a bare object only its braces).
    gone = copy if markup == "fence" else call
    assert text_of(events) == text.replace(gone, "", 1)


def test_the_fuzz_tap_counts_dropped_copies() -> None:
    from tests.support.fuzzing import run

    data = (DATA / "openai" / "echo_native_first.sse").read_bytes()
    _, tap = run(data, 7, "openai", detect=("hermes",))
    assert tap.copies == 1
    _, tap = run(data, 7, "openai", detect=("fence",))
    assert tap.copies == 0


def test_the_provider_seen_by_the_policy_is_the_adapters() -> None:
    # An alias reads as its adapter: "vllm" is an OpenAI-compatible server.
    data = stream("openai", BARE, "llama3.1:8b")
    assert [c.name for c in completed_calls(feed_chunks([data], cast(Any, "vllm")))] == ["bare"]
    assert not completed_calls(feed_chunks([stream("openai", BARE, "gpt-4o")], cast(Any, "groq")))
