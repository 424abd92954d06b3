"""Parallel calls whose fragments interleave are assembled by their index or item id.

Calls 0 and 1 start in one chunk, then ``{"x":`` comes for 0, ``{"y":`` for 1, ``1}`` for 0 and
``2}`` for 1: valid streaming for every provider that names each fragment's call (Chat's
``index``, Responses' ``item_id`` / ``output_index``, Anthropic's, Bedrock's and Cohere's block
indices), and what the openai SDK's ``ChatCompletionStreamState`` assembles by index.  A call
completes in the very chunk whose fragment closes its JSON (or, with no arguments at all, at its
provider's end of the call or the finish), never because another call began.

Hypothesis draws the calls (names, arguments), how each call's argument text is cut, how the
calls' starts and fragments interleave, and how they are grouped into chunks.  The oracle is a
reference assembler written here (and, for Chat, the openai SDK's accumulator); the chunk each
call must complete in comes from the plan, not from the parser.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamcalls import (
    StreamParser,
    ToolCall,
    ToolCallCompleted,
    ToolCallDelta,
    ToolCallFailed,
)
from tests.support import check_protocol
from tests.support.eventstream import frame

openai = pytest.importorskip("openai")
from openai.lib.streaming.chat import ChatCompletionStreamState  # noqa: E402
from openai.types.chat import ChatCompletionChunk  # noqa: E402

# -- the plan: calls, their fragments, the interleaving, the chunks ---------------------------------

_scalars = st.none() | st.booleans() | st.integers(-1000, 1000) | st.text(max_size=6)
_values = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)
_arguments = st.dictionaries(st.text(min_size=1, max_size=5), _values, max_size=3)


@dataclass(frozen=True)
class PlannedCall:
    id: str
    name: str
    text: str  # the whole argument text ("" for a call streamed without arguments)

    @property
    def arguments(self) -> Any:
        return json.loads(self.text) if self.text else {}


# One step: ("start", call) or ("part", call, fragment).
Step = tuple[Any, ...]


@dataclass(frozen=True)
class Plan:
    calls: list[PlannedCall]  # in start order: call i is wire index i
    chunks: list[list[Step]]

    def closing_chunk(self, call: int) -> int | None:
        """The chunk whose fragment closes call ``call``'s JSON (None: it has no arguments)."""
        last = None
        for position, chunk in enumerate(self.chunks):
            for step in chunk:
                if step[0] == "part" and step[1] == call:
                    last = position
        return last


@st.composite
def plans(draw: st.DrawFn, *, max_calls: int = 4, one_entry_per_call: bool = False) -> Plan:
    count = draw(st.integers(1, max_calls))
    raw = []
    for _ in range(count):
        arguments = draw(_arguments | st.none())  # None: streamed without arguments
        spaced = draw(st.booleans())
        text = (
            ""
            if arguments is None
            else json.dumps(arguments, separators=(", ", ": ") if spaced else (",", ":"))
        )
        cuts = sorted(set(draw(st.lists(st.integers(1, max(1, len(text) - 1)), max_size=5)))) if text else []
        bounds = [0, *[c for c in cuts if 0 < c < len(text)], len(text)]
        fragments = [text[a:b] for a, b in itertools.pairwise(bounds) if b > a]
        name = draw(st.sampled_from(["get_weather", "get_time", "search", "lookup"]))
        raw.append((name, text, fragments))
    # Interleave: each call's start, then its fragments, in order; calls mixed freely.
    queues = [[("start", n)] + [("part", n, f) for f in raw[n][2]] for n in range(count)]
    order: list[Step] = []
    while any(queues):
        pick = draw(st.sampled_from([n for n, queue in enumerate(queues) if queue]))
        order.append(queues[pick].pop(0))
    # Wire indices follow start order.
    renumber: dict[int, int] = {}
    for step in order:
        if step[0] == "start":
            renumber[step[1]] = len(renumber)
    calls = [PlannedCall("", "", "")] * count
    for old, new in renumber.items():
        name, text, _ = raw[old]
        calls[new] = PlannedCall(f"call_{new}", name, text)
    steps = [(kind, renumber[call], *rest) for kind, call, *rest in order]
    # Group the steps into chunks.
    chunks: list[list[Step]] = [[]]
    for step in steps:
        clash = one_entry_per_call and any(other[1] == step[1] for other in chunks[-1])
        if chunks[-1] and (clash or draw(st.booleans())):
            chunks.append([])
        chunks[-1].append(step)
    return Plan(calls, chunks)


# -- running a rendered stream and checking it against the plan -----------------------------------


def run(chunks: list[bytes], provider: str) -> list[list[Any]]:
    """The events of each chunk, fed one at a time, and of close() last."""
    parser = StreamParser(provider)  # type: ignore[arg-type]
    return [parser.feed(chunk) for chunk in chunks] + [parser.close()]


def check(plan: Plan, chunks: list[bytes], provider: str, ends: Callable[[int], int]) -> None:
    """The calls complete as the plan says: each with its id, name, arguments and argument text, in
    the chunk that closes its JSON -- ``ends(call)`` for a call without arguments -- and none fails."""
    per_chunk = run(chunks, provider)
    events = [event for batch in per_chunk for event in batch]
    check_protocol(events)
    assert not [e for e in events if type(e) is ToolCallFailed]
    expected = [ToolCall(c.id, c.name, c.arguments, i) for i, c in enumerate(plan.calls)]
    completed = {e.call.index: e.call for e in events if type(e) is ToolCallCompleted}
    assert [completed.get(i) for i in range(len(plan.calls))] == expected
    for i, call in enumerate(plan.calls):
        deltas = "".join(e.arguments_delta for e in events if type(e) is ToolCallDelta and e.index == i)
        assert deltas == call.text
        closing = plan.closing_chunk(i)
        where = ends(i) if closing is None else closing
        at = next(
            n
            for n, batch in enumerate(per_chunk)
            for e in batch
            if type(e) is ToolCallCompleted and e.call.index == i
        )
        assert at == where, f"call {i} completed in chunk {at}, not {where}"


def sse(payload: dict[str, Any], event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(payload)}\n\n".encode()


# -- OpenAI Chat --------------------------------------------------------------------------------------


def chat_entry(plan: Plan, step: Step) -> dict[str, Any]:
    call = plan.calls[step[1]]
    if step[0] == "start":
        return {
            "index": step[1],
            "id": call.id,
            "type": "function",
            "function": {"name": call.name, "arguments": ""},
        }
    return {"index": step[1], "function": {"arguments": step[2]}}


def chat_payloads(plan: Plan) -> list[dict[str, Any]]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return {
            "id": "chatcmpl-1",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "gpt-4o",
            "choices": [choice],
        }

    payloads = [chunk({"tool_calls": [chat_entry(plan, step) for step in steps]}) for steps in plan.chunks]
    return [*payloads, chunk({}, "tool_calls")]


def reference_chat(payloads: list[dict[str, Any]]) -> list[tuple[str, str, Any]]:
    """An independent assembler: every entry joins the call with its index."""
    calls: dict[int, dict[str, Any]] = {}
    for payload in payloads:
        for choice in payload["choices"]:
            for entry in choice["delta"].get("tool_calls") or []:
                call = calls.setdefault(entry["index"], {"id": None, "name": "", "arguments": ""})
                call["id"] = call["id"] or entry.get("id")
                function = entry.get("function") or {}
                call["name"] += function.get("name") or ""
                call["arguments"] += function.get("arguments") or ""
    return [
        (c["id"], c["name"], json.loads(c["arguments"]) if c["arguments"] else {})
        for _, c in sorted(calls.items())
    ]


def sdk_chat(payloads: list[dict[str, Any]]) -> list[tuple[str, str, Any]]:
    state: Any = ChatCompletionStreamState()
    for payload in payloads:
        state.handle_chunk(ChatCompletionChunk.model_validate(payload))
    message = state.get_final_completion().choices[0].message
    return [
        (c.id, c.function.name, json.loads(c.function.arguments) if c.function.arguments else {})
        for c in message.tool_calls or []
    ]


@settings(max_examples=300, deadline=None)
@given(plan=plans())
def test_chat_interleaved_fragments(plan: Plan) -> None:
    payloads = chat_payloads(plan)
    chunks = [sse(payload) for payload in payloads]
    chunks[-1] += b"data: [DONE]\n\n"
    finish = len(chunks) - 1
    check(plan, chunks, "openai", lambda call: finish)
    expected = [(c.id, c.name, c.arguments) for c in plan.calls]
    assert reference_chat(payloads) == expected


@settings(max_examples=150, deadline=None)
@given(plan=plans(one_entry_per_call=True))
def test_chat_interleaving_as_the_openai_sdk_assembles_it(plan: Plan) -> None:
    # One entry per index and chunk: the SDK strands a second entry of one index in a chunk
    # (WIRE_FORMATS.md, pain point 3), which the parser reads.
    payloads = chat_payloads(plan)
    chunks = [sse(payload) for payload in payloads] + [b"data: [DONE]\n\n"]
    events = [event for batch in run(chunks, "openai") for event in batch]
    got = [(e.call.id, e.call.name, e.call.arguments) for e in events if type(e) is ToolCallCompleted]
    assert sorted(got, key=lambda c: c[0]) == sorted(sdk_chat(payloads), key=lambda c: c[0])


def test_the_issue_example() -> None:
    """Calls 0 and 1 started in one chunk, then {"x": for 0, {"y": for 1, 1} for 0, 2} for 1."""
    plan = Plan(
        [PlannedCall("call_a", "f", '{"x":1}'), PlannedCall("call_b", "g", '{"y":2}')],
        [
            [("start", 0), ("start", 1)],
            [("part", 0, '{"x":')],
            [("part", 1, '{"y":')],
            [("part", 0, "1}")],
            [("part", 1, "2}")],
        ],
    )
    payloads = chat_payloads(plan)
    chunks = [sse(payload) for payload in payloads] + [b"data: [DONE]\n\n"]
    check(plan, chunks, "openai", lambda call: len(chunks) - 1)
    assert sdk_chat(payloads) == [("call_a", "f", {"x": 1}), ("call_b", "g", {"y": 2})]


# -- OpenAI Responses -------------------------------------------------------------------------------


def responses_chunks(plan: Plan) -> tuple[list[bytes], dict[int, int]]:
    """The events, one chunk per planned chunk (each call's .done pair after its last fragment)."""
    sequence = iter(range(1, 10_000))

    def event(payload: dict[str, Any]) -> bytes:
        payload["sequence_number"] = next(sequence)
        return sse(payload, payload["type"])

    created = {
        "type": "response.created",
        "response": {"id": "resp_1", "model": "gpt-4o", "status": "in_progress"},
    }
    out = [event(created)]
    last = {i: plan.closing_chunk(i) for i in range(len(plan.calls))}
    done_at: dict[int, int] = {}
    for position, steps in enumerate(plan.chunks):
        data = b""
        for step in steps:
            i = step[1]
            call = plan.calls[i]
            item_id = f"fc_{i}"
            if step[0] == "start":
                item = {
                    "type": "function_call",
                    "id": item_id,
                    "call_id": call.id,
                    "name": call.name,
                    "arguments": "",
                }
                data += event({"type": "response.output_item.added", "output_index": i, "item": item})
            else:
                data += event(
                    {
                        "type": "response.function_call_arguments.delta",
                        "item_id": item_id,
                        "output_index": i,
                        "delta": step[2],
                    }
                )
        out.append(data)
        # Each call's .done events in the chunk after the one holding its last step.
        for i in range(len(plan.calls)):
            if i not in done_at and (
                last[i] == position or (last[i] is None and any(s[1] == i for s in steps))
            ):
                done_at[i] = len(out)
    ends: dict[int, int] = {}
    for i in sorted(done_at, key=lambda n: done_at[n]):
        call = plan.calls[i]
        item = {
            "type": "function_call",
            "id": f"fc_{i}",
            "call_id": call.id,
            "name": call.name,
            "arguments": call.text,
        }
        data = event(
            {
                "type": "response.function_call_arguments.done",
                "item_id": f"fc_{i}",
                "output_index": i,
                "arguments": call.text,
            }
        )
        data += event({"type": "response.output_item.done", "output_index": i, "item": item})
        ends[i] = len(out)
        out.append(data)
    completed = {
        "type": "response.completed",
        "response": {"id": "resp_1", "model": "gpt-4o", "status": "completed"},
    }
    out.append(event(completed))
    return out, ends


@settings(max_examples=200, deadline=None)
@given(plan=plans())
def test_responses_interleaved_deltas(plan: Plan) -> None:
    chunks, ends = responses_chunks(plan)
    # The plan's chunk n is the stream's chunk n + 1 (response.created comes first).
    shifted = Plan(plan.calls, [[], *plan.chunks])
    check(shifted, chunks, "openai-responses", lambda call: ends[call])


# -- Anthropic, Bedrock, Cohere: block indices ------------------------------------------------------


def anthropic_chunks(plan: Plan) -> tuple[list[bytes], dict[int, int]]:
    start = {
        "type": "message_start",
        "message": {"id": "msg_1", "model": "claude-sonnet-4-5", "usage": {"input_tokens": 5}},
    }
    out = [sse(start, "message_start")]
    for steps in plan.chunks:
        data = b""
        for step in steps:
            i = step[1]
            if step[0] == "start":
                call = plan.calls[i]
                block = {"type": "tool_use", "id": call.id, "name": call.name, "input": {}}
                data += sse(
                    {"type": "content_block_start", "index": i, "content_block": block}, "content_block_start"
                )
            else:
                delta = {"type": "input_json_delta", "partial_json": step[2]}
                data += sse(
                    {"type": "content_block_delta", "index": i, "delta": delta}, "content_block_delta"
                )
        out.append(data)
    stops = b"".join(
        sse({"type": "content_block_stop", "index": i}, "content_block_stop") for i in range(len(plan.calls))
    )
    end = sse(
        {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 9}},
        "message_delta",
    )
    out.append(stops + end + sse({"type": "message_stop"}, "message_stop"))
    return out, {i: len(out) - 1 for i in range(len(plan.calls))}


def bedrock_chunks(plan: Plan) -> tuple[list[bytes], dict[int, int]]:
    out = [frame({"event": "messageStart", "payload": {"role": "assistant"}})]
    for steps in plan.chunks:
        data = b""
        for step in steps:
            i = step[1]
            if step[0] == "start":
                call = plan.calls[i]
                start = {"toolUse": {"toolUseId": call.id, "name": call.name}}
                data += frame(
                    {"event": "contentBlockStart", "payload": {"contentBlockIndex": i, "start": start}}
                )
            else:
                delta = {"toolUse": {"input": step[2]}}
                data += frame(
                    {"event": "contentBlockDelta", "payload": {"contentBlockIndex": i, "delta": delta}}
                )
        out.append(data)
    stops = b"".join(
        frame({"event": "contentBlockStop", "payload": {"contentBlockIndex": i}})
        for i in range(len(plan.calls))
    )
    end = frame({"event": "messageStop", "payload": {"stopReason": "tool_use"}})
    end += frame(
        {"event": "metadata", "payload": {"usage": {"inputTokens": 5, "outputTokens": 9, "totalTokens": 14}}}
    )
    out.append(stops + end)
    return out, {i: len(out) - 1 for i in range(len(plan.calls))}


def cohere_chunks(plan: Plan) -> tuple[list[bytes], dict[int, int]]:
    out = [sse({"type": "message-start", "id": "c-1", "delta": {"message": {"role": "assistant"}}})]
    for steps in plan.chunks:
        data = b""
        for step in steps:
            i = step[1]
            if step[0] == "start":
                call = plan.calls[i]
                tool = {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": ""}}
                data += sse(
                    {"type": "tool-call-start", "index": i, "delta": {"message": {"tool_calls": tool}}}
                )
            else:
                tool = {"function": {"arguments": step[2]}}
                data += sse(
                    {"type": "tool-call-delta", "index": i, "delta": {"message": {"tool_calls": tool}}}
                )
        out.append(data)
    ends = b"".join(sse({"type": "tool-call-end", "index": i}) for i in range(len(plan.calls)))
    out.append(ends + sse({"type": "message-end", "delta": {"finish_reason": "TOOL_CALL"}}))
    return out, {i: len(out) - 1 for i in range(len(plan.calls))}


BLOCKS = {"anthropic": anthropic_chunks, "bedrock": bedrock_chunks, "cohere": cohere_chunks}


@pytest.mark.parametrize("provider", sorted(BLOCKS))
@settings(max_examples=150, deadline=None)
@given(plan=plans())
def test_block_indices_interleaved(provider: str, plan: Plan) -> None:
    chunks, ends = BLOCKS[provider](plan)
    shifted = Plan(plan.calls, [[], *plan.chunks])  # the stream's first chunk opens the message
    check(shifted, chunks, provider, lambda call: ends[call])


# -- Ollama: whole calls, on lines of any grouping ------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(plan=plans())
def test_ollama_calls_on_lines_of_any_grouping(plan: Plan) -> None:
    # Ollama sends each call whole: a chunk of the plan is one line holding the calls whose last
    # step it has (a call without arguments, on the line of its start).
    lines = []
    ends = {}
    for position in range(len(plan.chunks)):
        entries = []
        for i, call in enumerate(plan.calls):
            closing = plan.closing_chunk(i)
            home = (
                closing
                if closing is not None
                else next(n for n, c in enumerate(plan.chunks) if ("start", i) in c)
            )
            if home == position:
                entries.append(
                    {"id": call.id, "function": {"index": i, "name": call.name, "arguments": call.arguments}}
                )
                ends[i] = position
        message = {"role": "assistant", "content": "", "tool_calls": entries}
        lines.append(msgspec.json.encode({"model": "qwen3", "message": message, "done": False}) + b"\n")
    lines.append(b'{"model": "qwen3", "message": {"role": "assistant", "content": ""}, "done": true}\n')
    per_chunk = run(lines, "ollama")
    events = [event for batch in per_chunk for event in batch]
    check_protocol(events)
    # Stream indices follow the order the calls come in, which is line order here.
    got = [(e.call.id, e.call.name, e.call.arguments) for e in events if type(e) is ToolCallCompleted]
    want = sorted(((c.id, c.name, c.arguments) for c in plan.calls), key=lambda c: ends[int(c[0][5:])])
    assert got == want
