"""The chat UI protocols, read back: small reference readers, what a list of events should read as, and
hypothesis-made event lists in the parser's order.

The readers are written from the protocols' own definitions (the ``ai``
package's chunk schemas and ``processUIMessageStream``; AG-UI's event models
and its client's sequence rules), independently of the writer: each is strict
-- a chunk or event of an unknown type or with an unknown field, a delta for
a part or call not open, anything after the run's end fails it -- and gives a
:class:`Read`, the same summary :func:`expected` computes from the events.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from streamcalls import (
    Event,
    ParseError,
    ProviderError,
    ReasoningCompleted,
    ReasoningDelta,
    ReasoningStarted,
    StreamFinished,
    StreamStarted,
    TextDelta,
    TextSignature,
    ToolCall,
    ToolCallCompleted,
    ToolCallDelta,
    ToolCallFailed,
    ToolCallPatch,
    ToolCallStarted,
    ToolResult,
    Usage,
)

Item = Event | ToolResult

CUT = "the stream ended before the call completed"


@dataclass
class Read:
    """What a chat UI shows of a stream."""

    text: str = ""
    reasoning: list[str] = field(default_factory=list)  # each block's text
    calls: list[tuple[Any, ...]] = field(
        default_factory=list
    )  # (id, name, arguments) or (id, name, raw, error)
    results: list[tuple[str, str, bool]] = field(default_factory=list)  # (call id, content, is_error)
    finish: str | None = None  # the finish reason, in streamcalls' words
    errors: list[str] = field(default_factory=list)
    usage: Any = None  # input and output tokens: the AI SDK's summed, AG-UI's a list of entries


# -- what the events should read as ------------------------------------------------------------------------


def expected(items: list[Item], target: str) -> Read:
    """What ``target`` (``"ai-sdk"`` or ``"ag-ui"``) carries of a list of events in the parser's order, as
    the writer's ``close()`` completes it:

    - the text joined; the reasoning by block (a run of bare deltas is one, ended by the next event that is
      not a parse error or a result); the calls in start order over every stream of a tool loop, completed
      with their arguments or failed with their raw text and reason (AG-UI has no place for the raw text:
      its fragments, and for a call found in the text the raw text is its whole markup); the results;
    - the finish: the last stream's reason; the errors: each provider error, and for a stream that ended
      in error with none, the last parse error before its finish -- the AI SDK writes each where it comes,
      AG-UI's one ``RUN_ERROR`` carries the provider errors, or else the first such stream's cause, and
      then the finish is ``"error"``;
    - the usage: the AI SDK's summed over the streams, AG-UI's an entry per stream that sent one.
    """
    read = Read()
    streamed: dict[tuple[int, int], str] = {}  # by (stream, index)
    open_calls: dict[int, tuple[str, str]] = {}  # the current stream's, by index
    ended: dict[tuple[int, int], tuple[Any, ...]] = {}
    order: list[tuple[int, int]] = []
    step = 0
    block: list[str] | None = None  # the open reasoning block's text
    bare = False
    finished: StreamFinished | None = None
    completed_any = False
    step_errors = 0
    parse_error: str | None = None
    provider_errors: list[str] = []
    causes: list[str] = []
    timeline: list[str] = []  # the errors in the order the AI SDK's stream has them
    usages: list[Usage] = []
    wire_id: dict[str, str] = {}  # the id a call ended with -> the one it started with, which the wire has

    def end_block() -> None:
        nonlocal block, bare
        if block is not None:
            read.reasoning.append("".join(block))
        block, bare = None, False

    def finish(item: StreamFinished) -> None:
        nonlocal finished
        finished = item
        if item.usage is not None:
            usages.append(item.usage)
        if item.reason == "error" and not step_errors:
            causes.append(parse_error or "the stream ended in an error")
            timeline.append(causes[-1])

    for item in items:
        if bare and not isinstance(item, (ReasoningDelta, ParseError, ToolResult)):
            end_block()
        match item:
            case StreamStarted() if finished is not None:  # the next stream of a tool loop
                step, finished, completed_any, step_errors = step + 1, None, False, 0
            case TextDelta(text=text):
                read.text += text
            case ReasoningStarted():
                block = []
            case ReasoningDelta(text=text):
                if block is None:
                    block, bare = [], True
                block.append(text)
            case ReasoningCompleted():
                end_block()
            case ToolCallStarted(index=index, id=call_id, name=name):
                open_calls[index] = (call_id, name)
                order.append((step, index))
                streamed[step, index] = ""
            case ToolCallDelta(index=index, arguments_delta=fragment):
                streamed[step, index] += fragment
            case ToolCallCompleted(call=call):
                wire_id[call.id] = open_calls[call.index][0]
                ended[step, call.index] = (*open_calls.pop(call.index), call.arguments)
                completed_any = True
            case ToolCallFailed(index=index, id=call_id, raw=raw, error=error):
                wire_id[call_id] = open_calls[index][0]
                raw = streamed[step, index] if target == "ag-ui" else raw
                ended[step, index] = (*open_calls.pop(index), raw, error)
            case ParseError(message=message):
                parse_error = message
            case ProviderError(message=message):
                provider_errors.append(message)
                timeline.append(message)
                step_errors += 1
            case StreamFinished():
                finish(item)
            case ToolResult(call_id=call_id, content=content, is_error=is_error):
                read.results.append((wire_id.get(call_id, call_id), content, is_error))
    if finished is None:
        cut = bool(open_calls) or (block is not None and not bare)
        finish(StreamFinished("error" if cut else "tool_calls" if completed_any else "stop"))
    end_block()
    for index, (call_id, name) in open_calls.items():
        ended[step, index] = (call_id, name, streamed[step, index] if target == "ag-ui" else "", CUT)
    read.calls = [ended[key] for key in order]
    assert finished is not None
    read.finish = finished.reason
    if target == "ai-sdk":
        read.errors = timeline
        if usages:
            total = Usage(sum(u.input_tokens or 0 for u in usages), sum(u.output_tokens or 0 for u in usages))
            read.usage = usage_fields(total)
    else:
        read.errors = provider_errors or causes[:1]
        if read.errors:
            read.finish = "error"
        if usages:
            read.usage = [usage_fields(u) for u in usages]
    return read


def usage_fields(usage: Usage) -> dict[str, Any]:
    return {
        key: value for key, value in (("input", usage.input_tokens), ("output", usage.output_tokens)) if value
    }


def arguments_of(text: str) -> Any:
    """A call's streamed argument text, decoded (a JSON string holding the object, as some servers stream
    it, decoded again: the parser's rule)."""
    value = json.loads(text) if text.strip() else {}
    if isinstance(value, str):
        return json.loads(value) if value.strip() else {}
    return value


# -- server-sent events --------------------------------------------------------------------------------


def sse_data(body: bytes) -> list[str]:
    """The ``data`` of each event of a body of ``data:`` lines, each event ended by a blank line."""
    text = body.decode()
    assert text.endswith("\n\n"), "the body ends with a whole event"
    found = []
    for event in text[:-2].split("\n\n"):
        lines = event.split("\n")
        assert all(line.startswith("data: ") for line in lines), event
        found.append("\n".join(line[len("data: ") :] for line in lines))
    return found


# -- the Vercel AI SDK's UI message stream ------------------------------------------------------------------

# Each chunk type the writer may send, with its required and optional fields
# (the ai package's ui-message-chunks.ts).
AI_SDK_CHUNKS: dict[str, tuple[set[str], set[str]]] = {
    "start": (set(), {"messageId", "messageMetadata"}),
    "start-step": (set(), set()),
    "text-start": ({"id"}, {"providerMetadata"}),
    "text-delta": ({"id", "delta"}, {"providerMetadata"}),
    "text-end": ({"id"}, {"providerMetadata"}),
    "reasoning-start": ({"id"}, {"providerMetadata"}),
    "reasoning-delta": ({"id", "delta"}, {"providerMetadata"}),
    "reasoning-end": ({"id"}, {"providerMetadata"}),
    "tool-input-start": ({"toolCallId", "toolName"}, set()),
    "tool-input-delta": ({"toolCallId", "inputTextDelta"}, set()),
    "tool-input-available": ({"toolCallId", "toolName", "input"}, set()),
    "tool-input-error": ({"toolCallId", "toolName", "input", "errorText"}, set()),
    "tool-output-available": ({"toolCallId", "output"}, set()),
    "tool-output-error": ({"toolCallId", "errorText"}, set()),
    "error": ({"errorText"}, set()),
    "finish-step": (set(), set()),
    "finish": (set(), {"finishReason", "messageMetadata"}),
}
AI_SDK_REASONS = {
    "stop": "stop",
    "tool-calls": "tool_calls",
    "length": "length",
    "content-filter": "content_filter",
}
AI_SDK_REASONS["error"] = "error"


def read_ai_sdk(body: bytes) -> Read:
    """A UI message stream read as a client builds its message; AssertionError where it breaks the protocol."""
    data = sse_data(body)
    assert data[-1] == "[DONE]", "the stream ends with [DONE]"
    chunks = [json.loads(d) for d in data[:-1]]
    read = Read()
    for chunk in chunks:
        kind = chunk.get("type")
        assert kind in AI_SDK_CHUNKS, chunk
        required, optional = AI_SDK_CHUNKS[kind]
        assert required <= chunk.keys() <= required | optional | {"type"}, chunk
    assert [c["type"] for c in chunks[:2]] == ["start", "start-step"]
    assert chunks[-1]["type"] == "finish"
    assert [c["type"] for c in chunks].count("finish") == 1
    text: dict[str, bool] = {}  # part id -> open
    reasoning: dict[str, int] = {}  # open part id -> its index in read.reasoning
    calls: dict[str, dict[str, Any]] = {}
    order: list[str] = []
    in_step = True  # between a start-step and its finish-step (a tool loop's streams: one step each)
    for chunk in chunks[2:-1]:
        kind = chunk["type"]
        if kind == "start-step":
            assert not in_step, "start-step inside a step"
            in_step = True
            continue
        if kind == "finish-step":
            assert in_step, "finish-step outside a step"
            assert not any(text.values()), "a text part still open at the step's end"
            assert not reasoning, "a reasoning part still open at the step's end"
            in_step = False
            continue
        assert in_step or kind.startswith("tool-output"), f"{kind} outside a step"
        if kind == "text-start":
            assert chunk["id"] not in text
            text[chunk["id"]] = True
        elif kind == "text-delta":
            assert text.get(chunk["id"]), f"text-delta for a part not open: {chunk}"
            read.text += chunk["delta"]
        elif kind == "text-end":
            assert text.get(chunk["id"])
            text[chunk["id"]] = False
        elif kind == "reasoning-start":
            assert chunk["id"] not in reasoning
            reasoning[chunk["id"]] = len(read.reasoning)
            read.reasoning.append("")
        elif kind == "reasoning-delta":
            read.reasoning[reasoning[chunk["id"]]] += chunk["delta"]
        elif kind == "reasoning-end":
            del reasoning[chunk["id"]]
        elif kind == "tool-input-start":
            assert chunk["toolCallId"] not in calls, "a call id twice"
            calls[chunk["toolCallId"]] = {"name": chunk["toolName"], "text": "", "end": None, "result": None}
            order.append(chunk["toolCallId"])
        elif kind == "tool-input-delta":
            call = calls[chunk["toolCallId"]]
            assert call["end"] is None, "an argument fragment after the call's end"
            call["text"] += chunk["inputTextDelta"]
        elif kind in ("tool-input-available", "tool-input-error"):
            call = calls[chunk["toolCallId"]]
            assert call["end"] is None
            assert call["name"] == chunk["toolName"]
            if kind == "tool-input-available":
                if call["text"]:
                    assert arguments_of(call["text"]) == chunk["input"], "the fragments are the input's text"
                call["end"] = (chunk["input"],)
            else:
                call["end"] = (chunk["input"], chunk["errorText"])
        elif kind in ("tool-output-available", "tool-output-error"):
            call = calls[chunk["toolCallId"]]
            assert call["end"] is not None, "an output before the input's end"
            assert call["result"] is None, "a second output"
            is_error = kind == "tool-output-error"
            call["result"] = True
            content = chunk["errorText"] if is_error else chunk["output"]
            read.results.append((chunk["toolCallId"], content, is_error))
        else:
            assert kind == "error", kind
            read.errors.append(chunk["errorText"])
    assert not in_step, "a step never finished"
    assert not any(text.values()), "a text part still open at the finish"
    assert not reasoning, "a reasoning part still open at the finish"
    assert all(calls[i]["end"] is not None for i in order), "a call still open at the finish"
    read.calls = [(i, calls[i]["name"], *calls[i]["end"]) for i in order]
    finish = chunks[-1]
    read.finish = AI_SDK_REASONS[finish["finishReason"]]
    usage = finish.get("messageMetadata", {}).get("usage")
    if usage is not None:
        read.usage = {
            k: v for k, v in (("input", usage.get("inputTokens")), ("output", usage.get("outputTokens"))) if v
        }
    return read


# -- AG-UI -------------------------------------------------------------------------------------------------


def read_ag_ui(body: bytes) -> Read:
    """AG-UI events read as a client applies them (its sequence rules); AssertionError where one breaks."""
    events = [json.loads(d) for d in sse_data(body)]
    assert events[0]["type"] == "RUN_STARTED"
    assert {"threadId", "runId"} <= events[0].keys()
    assert events[-1]["type"] in ("RUN_FINISHED", "RUN_ERROR")
    read = Read()
    messages: dict[str, bool] = {}  # text message id -> open
    spans: dict[str, int] = {}  # open reasoning span id -> its index in read.reasoning
    reasoning_open: set[str] = set()
    calls: dict[str, dict[str, Any]] = {}
    order: list[str] = []
    for event in events[1:-1]:
        kind = event["type"]
        assert kind not in ("RUN_STARTED", "RUN_FINISHED", "RUN_ERROR"), "a second run event"
        if kind == "TEXT_MESSAGE_START":
            assert event["messageId"] not in messages
            assert event["role"] == "assistant"
            messages[event["messageId"]] = True
        elif kind == "TEXT_MESSAGE_CONTENT":
            assert messages.get(event["messageId"])
            read.text += event["delta"]
        elif kind == "TEXT_MESSAGE_END":
            assert messages.get(event["messageId"])
            messages[event["messageId"]] = False
        elif kind == "REASONING_START":
            spans[event["messageId"]] = len(read.reasoning)
            read.reasoning.append("")
        elif kind == "REASONING_MESSAGE_START":
            assert event["messageId"] in spans
            assert event["role"] == "reasoning"
            reasoning_open.add(event["messageId"])
        elif kind == "REASONING_MESSAGE_CONTENT":
            assert event["messageId"] in reasoning_open
            read.reasoning[spans[event["messageId"]]] += event["delta"]
        elif kind == "REASONING_MESSAGE_END":
            reasoning_open.remove(event["messageId"])
        elif kind == "REASONING_ENCRYPTED_VALUE":
            assert event["subtype"] == "message"
            assert event["entityId"] in spans
        elif kind == "REASONING_END":
            assert event["messageId"] not in reasoning_open
            del spans[event["messageId"]]
        elif kind == "TOOL_CALL_START":
            assert event["toolCallId"] not in calls
            calls[event["toolCallId"]] = {"name": event["toolCallName"], "text": "", "end": None}
            order.append(event["toolCallId"])
        elif kind == "TOOL_CALL_ARGS":
            call = calls[event["toolCallId"]]
            assert call["end"] is None
            call["text"] += event["delta"]
        elif kind == "TOOL_CALL_END":
            call = calls[event["toolCallId"]]
            assert call["end"] is None
            error = event.get("metadata", {}).get("error")
            call["end"] = (arguments_of(call["text"]),) if error is None else (call["text"], error)
        elif kind == "TOOL_CALL_RESULT":
            call = calls[event["toolCallId"]]
            assert call["end"] is not None
            assert event["role"] == "tool"
            is_error = event.get("metadata", {}).get("isError", False)
            read.results.append((event["toolCallId"], event["content"], is_error))
        else:
            raise AssertionError(f"unexpected event {event}")
    assert not any(messages.values()), "a text message still open at the run's end"
    assert not spans, "a reasoning message still open at the run's end"
    assert all(calls[i]["end"] is not None for i in order), "a call still open at the run's end"
    read.calls = [(i, calls[i]["name"], *calls[i]["end"]) for i in order]
    last = events[-1]
    if last["type"] == "RUN_ERROR":
        read.finish = "error"
        read.errors = last["message"].split("\n")
    else:
        assert (last["threadId"], last["runId"]) == (events[0]["threadId"], events[0]["runId"])
        read.finish = last["metadata"]["finishReason"]
    usage = last.get("usage")
    if usage is not None:
        read.usage = [
            {
                k: v
                for k, v in (("input", entry.get("inputTokens")), ("output", entry.get("outputTokens")))
                if v
            }
            for entry in usage
        ]
    return read


# -- event lists in the parser's order ---------------------------------------------------------------------

characters = st.characters(exclude_categories=["Cs"])  # any character a str of valid UTF-8 holds
texts = st.text(characters, max_size=8)  # any text, "" included
words = st.text(characters, min_size=1, max_size=8)
names = st.text("abcdefghijklmnopqrstuvwxyz_-", min_size=1, max_size=8)  # ids, names, messages
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=6,
)
arguments = st.dictionaries(texts, json_values, max_size=4)


@st.composite
def event_lists(draw: st.DrawFn, finish: bool | None = None) -> list[Item]:
    """Events as a parser emits them: text, reasoning blocks (and bare runs), calls interleaved with one
    another and with text, errors, results (also after the finish), parse errors anywhere; the finish
    at the end, or left to ``close()`` (``finish=None``: either).  Sometimes two streams, one after the
    other, as a tool loop sends them to a chat UI (the second opens with its StreamStarted)."""
    items: list[Item] = []
    awaiting: list[tuple[str, str]] = []  # ended calls with no result yet

    def maybe_result() -> None:
        if awaiting and draw(st.integers(0, 3)) == 0:
            call_id, name = awaiting.pop(draw(st.integers(0, len(awaiting) - 1)))
            items.append(ToolResult(call_id, name, draw(texts), draw(st.booleans())))

    def maybe_parse_error() -> None:
        if draw(st.integers(0, 9)) == 0:
            items.append(ParseError(draw(names)))

    steps = draw(st.integers(1, 4)) // 3 + 1  # a second stream, now and then
    for step in range(steps):
        if step or draw(st.booleans()):
            provider = draw(st.sampled_from(["openai", "anthropic"]))
            items.append(StreamStarted(provider, draw(st.none() | names)))
        calls = 0
        for _ in range(draw(st.integers(0, 6))):
            segment = draw(st.sampled_from(["text", "reasoning", "bare", "calls", "error", "signature"]))
            if segment == "text":
                items += [TextDelta(t) for t in draw(st.lists(texts, min_size=1, max_size=4))]
            elif segment == "signature":
                items.append(TextSignature(draw(names)))
            elif segment == "error":
                items.append(ProviderError(draw(names), draw(st.none() | names)))
            elif segment in ("reasoning", "bare"):
                if segment == "reasoning":
                    items.append(ReasoningStarted(draw(st.none() | names), draw(st.none() | names)))
                for text in draw(st.lists(texts, min_size=segment == "bare", max_size=3)):
                    items.append(ReasoningDelta(text))
                    maybe_parse_error()
                if segment == "reasoning":
                    sealed = draw(
                        st.sampled_from([{}, {"signature": "s"}, {"encrypted": "e"}, {"redacted": "r"}])
                    )
                    items.append(ReasoningCompleted(**sealed))
            else:
                pending = []
                for _ in range(draw(st.integers(1, 3))):
                    value = draw(arguments)
                    text = json.dumps(value, ensure_ascii=draw(st.booleans()))
                    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=4)))
                    pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
                    pending.append(
                        (calls, f"call_{step}_{calls}", draw(names), value, text, pieces, draw(st.booleans()))
                    )
                    calls += 1
                opened: list[Any] = []
                while pending or opened:
                    choice = draw(st.integers(0, len(opened) + 1))
                    if choice == len(opened) + 1:
                        items.append(TextDelta(draw(words)))
                    elif choice == len(opened):
                        if not pending:
                            continue
                        index, call_id, name, *_ = call = pending.pop(0)
                        items.append(ToolCallStarted(index, call_id, name))
                        opened.append(call)
                    else:
                        index, call_id, name, value, text, pieces, fails = opened[choice]
                        if pieces:
                            items.append(ToolCallDelta(index, pieces.pop(0)))
                            if draw(st.integers(0, 4)) == 0:
                                items.append(ToolCallPatch(index, "add", (), {}))
                        elif fails:
                            items.append(ToolCallFailed(index, call_id, name, text, draw(names)))
                            opened.pop(choice)
                            awaiting.append((call_id, name))
                        else:
                            items.append(ToolCallCompleted(ToolCall(call_id, name, value, index)))
                            opened.pop(choice)
                            awaiting.append((call_id, name))
                    maybe_result()
                    maybe_parse_error()
            maybe_result()
            maybe_parse_error()
        last = step == steps - 1
        if not last or (finish if finish is not None else draw(st.booleans())):
            usage = draw(st.none() | st.builds(Usage, st.integers(1, 100), st.integers(1, 100)))
            reason = draw(st.sampled_from(["stop", "tool_calls", "length", "content_filter", "error"]))
            items.append(StreamFinished(reason, usage))
            while awaiting:
                maybe_result()
                if draw(st.booleans()):
                    break
            maybe_parse_error()
    return items
