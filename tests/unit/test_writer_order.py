"""The writer's event order: what every target relies on, kept in one place.

- an event out of the parser's order raises UsageError naming it (by hand,
  and hypothesis-made: an event moved out of place in a valid list);
- whatever the parser emits is in order: every recording, and every event
  list tests/support/ui_streams.py makes, goes through;
- close() finishes a stream the events left open; send() after it raises;
- a target's name: the chat UI protocols, the providers' (to come), aliases,
  misspellings;
- a target is a small class that only formats: a test-only one, writing each
  step as a JSON line, shows the steps a target gets and their order.
"""

from __future__ import annotations

import json
import typing
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from streamcalls import (
    ParseError,
    ProviderError,
    ReasoningCompleted,
    ReasoningDelta,
    ReasoningStarted,
    StreamFinished,
    StreamStarted,
    StreamWriter,
    TargetName,
    TextDelta,
    TextSignature,
    ToolCall,
    ToolCallCompleted,
    ToolCallDelta,
    ToolCallFailed,
    ToolCallPatch,
    ToolCallStarted,
    ToolResult,
    UsageError,
    write_stream,
)
from streamcalls._writer import target_class
from streamcalls.providers import ADAPTERS, ALIASES
from streamcalls.writing import TARGETS, Block, Call, EventOrder, Target, register
from streamcalls.writing._sse import sse
from tests.support import bytewise, corpus, feed_chunks
from tests.support.ui_streams import Item, event_lists

START = ToolCallStarted(0, "call_1", "f")
DONE = ToolCallCompleted(ToolCall("call_1", "f", {}))

OUT_OF_ORDER: list[tuple[list[Any], str]] = [
    ([ToolCallDelta(0, "{")], "ToolCallDelta(index=0) out of order: call 0 was never started"),
    ([START, DONE, ToolCallDelta(0, "}")], "ToolCallDelta(index=0) out of order: call 0 has already ended"),
    (
        [START, ToolCallStarted(0, "call_2", "g")],
        "ToolCallStarted(index=0) out of order: call 0 has already started",
    ),
    (
        [START, ToolCallStarted(1, "call_1", "g")],
        "ToolCallStarted(index=1) out of order: id 'call_1' is call 0's",
    ),
    ([DONE], "ToolCallCompleted(index=0) out of order: call 0 was never started"),
    (
        [ToolCallFailed(3, "c", "f", "", "x")],
        "ToolCallFailed(index=3) out of order: call 3 was never started",
    ),
    ([ToolCallPatch(0, "add", (), {})], "ToolCallPatch(index=0) out of order: call 0 was never started"),
    ([StreamFinished("stop"), TextDelta("late")], "TextDelta out of order: after StreamFinished"),
    ([StreamFinished("stop"), ReasoningDelta("late")], "ReasoningDelta out of order: after StreamFinished"),
    ([StreamFinished("stop"), START], "ToolCallStarted(index=0) out of order: after StreamFinished"),
    ([StreamFinished("stop"), ProviderError("late")], "ProviderError out of order: after StreamFinished"),
    (
        [StreamFinished("stop"), StreamFinished("stop")],
        "StreamFinished out of order: the stream has already finished",
    ),
    ([START, StreamFinished("stop")], "StreamFinished out of order: call 0 is still open"),
    ([START, ProviderError("x")], "ProviderError out of order: call 0 is still open"),
    ([TextDelta("a"), StreamStarted("openai")], "StreamStarted out of order: the stream has already begun"),
    ([ReasoningCompleted()], "ReasoningCompleted out of order: no ReasoningStarted opened a block"),
    ([ReasoningDelta("bare"), ReasoningCompleted()], "ReasoningCompleted out of order: no ReasoningStarted"),
    ([ReasoningStarted(), TextDelta("a")], "TextDelta out of order: inside a reasoning block"),
    ([ReasoningStarted(), ReasoningStarted()], "ReasoningStarted out of order: inside a reasoning block"),
    ([ReasoningStarted(), StreamFinished("stop")], "StreamFinished out of order: inside a reasoning block"),
    (
        [START, ReasoningStarted(), ToolCallDelta(0, "{")],
        "ToolCallDelta(index=0) out of order: inside a reasoning",
    ),
    ([ReasoningStarted(), TextSignature("s")], "TextSignature out of order: inside a reasoning block"),
    (
        [ToolResult("call_1", "f", "ok")],
        "ToolResult(call_id='call_1') out of order: no call of the stream has that id",
    ),
    (
        [START, ToolResult("call_1", "f", "ok")],
        "ToolResult(call_id='call_1') out of order: call 0 has not ended",
    ),
    (
        [START, DONE, ToolResult("call_1", "f", "1"), ToolResult("call_1", "f", "2")],
        "ToolResult(call_id='call_1') out of order: call 0 has a result already",
    ),
]


@pytest.mark.parametrize("target", ["ai-sdk", "ag-ui"])
@pytest.mark.parametrize(("events", "message"), OUT_OF_ORDER, ids=[m for _, m in OUT_OF_ORDER])
def test_an_event_out_of_order_raises_naming_it(target: Any, events: list[Any], message: str) -> None:
    writer = StreamWriter(target)
    *before, last = events
    for event in before:
        writer.send(event)
    with pytest.raises(UsageError) as raised:
        writer.send(last)
    assert str(raised.value).startswith(message)


@st.composite
def misplaced(draw: st.DrawFn) -> tuple[list[Item], Item]:
    """A valid event list with one event moved where the order forbids it: a call event before its
    start or after its end, content after the finish, a second finish or start."""
    items = draw(event_lists(finish=True))
    calls = [i for i, item in enumerate(items) if isinstance(item, ToolCallStarted)]
    moves = ["after the finish", "a second finish"]
    if calls:
        moves += ["delta before the start", "delta after the end"]
    if isinstance(items[0], StreamStarted):
        moves.append("a second start")
    move = draw(st.sampled_from(moves))
    finish = next(i for i, item in enumerate(items) if isinstance(item, StreamFinished))
    if move == "after the finish":
        late: list[Item] = [TextDelta("x"), ReasoningStarted(), ToolCallStarted(99, "late", "f")]
        return items[: finish + 1], draw(st.sampled_from(late))
    if move == "a second finish":
        return items[: finish + 1], StreamFinished("stop")
    if move == "a second start":
        return items[:finish], StreamStarted("openai")
    start = draw(st.sampled_from(calls))
    index = items[start].index  # type: ignore[union-attr]
    if move == "delta before the start":
        return items[:start], ToolCallDelta(index, "{")
    end = next(
        i
        for i, item in enumerate(items)
        if (isinstance(item, ToolCallCompleted) and item.call.index == index)
        or (isinstance(item, ToolCallFailed) and item.index == index)
    )
    return items[: end + 1], ToolCallDelta(index, "}")


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]
)
@given(case=misplaced(), target=st.sampled_from(["ai-sdk", "ag-ui"]))
def test_a_misplaced_event_raises_naming_it(case: tuple[list[Item], Item], target: Any) -> None:
    before, last = case
    writer = StreamWriter(target)
    for item in before:
        writer.send(item)
    with pytest.raises(UsageError, match=rf"^{type(last).__name__}\b.* out of order: "):
        writer.send(last)


CASES = corpus()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_whatever_the_parser_emits_is_in_order(case: Any) -> None:
    """Every recording, fed whole and one byte at a time (a text detector's events differ with the cuts)."""
    for chunks in ([case.data()], bytewise(case.data())):
        events = feed_chunks(chunks, case.provider, **case.options())
        for target in ("ai-sdk", "ag-ui"):
            assert write_stream(events, target).endswith(b"\n\n")


def test_close_finishes_what_the_events_left_open() -> None:
    writer = NdjsonWriter()
    writer.send(START)
    writer.send(ToolCallDelta(0, '{"x"'))
    writer.send(TextDelta("a"))
    assert steps(writer.close()) == [
        ["text_end", 0, None],
        ["call_failed", 0, "", "the stream ended before the call completed"],
        ["finish", "error"],
        ["end"],
    ]
    with pytest.raises(UsageError, match=r"close\(\) called a second time"):
        writer.close()
    with pytest.raises(UsageError, match=r"^TextDelta sent after close\(\)"):
        writer.send(TextDelta("b"))


def test_close_gives_the_parsers_reason() -> None:
    """No StreamFinished: "tool_calls" after a completed call, "stop" otherwise, "error" if something was cut."""
    assert steps(write_ndjson([START, DONE]))[-2] == ["finish", "tool_calls"]
    assert steps(write_ndjson([TextDelta("a")]))[-2] == ["finish", "stop"]
    assert steps(write_ndjson([ReasoningStarted(), ReasoningDelta("a")]))[-3:-1] == [
        ["reasoning_end", 0, {}],
        ["finish", "error"],
    ]
    assert steps(write_ndjson([])) == [["start", None, None], ["finish", "stop"], ["end"]]


def test_a_target_without_steps_writes_one_stream() -> None:
    """A provider's response is one stream: a second start after the finish is out of order (the chat UI
    targets take it as the next step of a tool loop)."""
    writer = NdjsonWriter()
    writer.send(StreamFinished("stop"))
    with pytest.raises(
        UsageError, match="StreamStarted out of order: the stream has finished, and 'test-steps'"
    ):
        writer.send(StreamStarted("openai"))


def test_not_an_event() -> None:
    with pytest.raises(UsageError, match="takes streamcalls events and ToolResult, not dict"):
        StreamWriter("ai-sdk").send({"type": "text_delta"})  # type: ignore[arg-type]


# -- target names -----------------------------------------------------------------------------------------


def test_target_names() -> None:
    assert StreamWriter("ai-sdk").target == "ai-sdk"
    assert StreamWriter("ag-ui").target == "ag-ui"
    with pytest.raises(
        UsageError, match=r"unknown target 'ai_sdk' \(did you mean 'ai-sdk'\?\); expected one of"
    ):
        StreamWriter("ai_sdk")  # type: ignore[arg-type]
    with pytest.raises(UsageError, match=r"unknown target 'claude' \(did you mean 'anthropic'\?\)"):
        StreamWriter("claude")  # type: ignore[arg-type]
    with pytest.raises(UsageError, match=r"'auto' is a parser setting, not a wire format to write"):
        StreamWriter("auto")  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="a target is a name"):
        StreamWriter(None)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "name", ["openai", "openai-responses", "anthropic", "gemini", "ollama", "bedrock", "cohere", "groq"]
)
def test_a_providers_target_is_named_until_its_package_registers_it(name: Any) -> None:
    canonical = "openai" if name == "groq" else name
    if canonical in TARGETS:
        assert StreamWriter(name).target == canonical  # (registered by its provider's package)
        return
    with pytest.raises(
        UsageError, match=rf"target {name!r} is not available yet: no writer for {canonical!r}"
    ):
        StreamWriter(name)


# -- a target that only formats ---------------------------------------------------------------------------


class NdjsonTarget(Target):
    """Each step as a JSON line: its name and what it was given (a test's target, registered by a fixture)."""

    name = "test-steps"
    media_type = "application/x-ndjson"
    response_id_prefix = "resp_"

    __slots__ = ()

    def _line(self, *step: Any) -> bytes:
        return json.dumps(step).encode() + b"\n"

    def start(self) -> bytes:
        return self._line("start", self.stream.provider, self.stream.model)

    def text_start(self, block: Block) -> bytes:
        return self._line("text_start", block.number)

    def text(self, block: Block, text: str) -> bytes:
        return self._line("text", block.number, text)

    def text_end(self, block: Block, signature: str | None) -> bytes:
        return self._line("text_end", block.number, signature)

    def text_signature(self, signature: str) -> bytes:
        return self._line("text_signature", signature)

    def reasoning_start(self, block: Block, started: ReasoningStarted) -> bytes:
        return self._line("reasoning_start", block.number, started.kind)

    def reasoning(self, block: Block, text: str) -> bytes:
        return self._line("reasoning", block.number, text)

    def reasoning_end(self, block: Block, completed: ReasoningCompleted) -> bytes:
        sealed = {
            k: v for k, v in (("signature", completed.signature), ("encrypted", completed.encrypted)) if v
        }
        return self._line("reasoning_end", block.number, sealed)

    def call_start(self, call: Call) -> bytes:
        return self._line("call_start", call.index, call.id, call.name)

    def call_delta(self, call: Call, fragment: str) -> bytes:
        return self._line("call_delta", call.index, fragment)

    def call_end(self, call: Call, completed: ToolCall) -> bytes:
        return self._line("call_end", call.index, completed.arguments, call.streamed)

    def call_failed(self, call: Call, failed: ToolCallFailed) -> bytes:
        return self._line("call_failed", call.index, failed.raw, failed.error)

    def result(self, call: Call, result: ToolResult) -> bytes:
        return self._line("result", call.index, call.name, result.content)

    def error(self, error: ProviderError) -> bytes:
        return self._line("error", error.message, self.stream.errors)

    def parse_error(self, error: ParseError) -> bytes:
        return self._line("parse_error", error.message)

    def finish(self, finished: StreamFinished) -> bytes:
        return self._line("finish", finished.reason)

    def end(self) -> bytes:
        return self._line("end")


@pytest.fixture(autouse=True)
def steps_target() -> Iterator[None]:
    register(NdjsonTarget)
    try:
        yield
    finally:
        del TARGETS[NdjsonTarget.name]


def NdjsonWriter(**options: Any) -> StreamWriter:
    return StreamWriter(NdjsonTarget.name, **options)  # type: ignore[arg-type]


def write_ndjson(events: list[Any], **options: Any) -> bytes:
    return write_stream(events, NdjsonTarget.name, **options)  # type: ignore[arg-type]


def steps(body: bytes) -> list[list[Any]]:
    return [json.loads(line) for line in body.splitlines()]


def test_a_target_gets_its_steps_in_order() -> None:
    """What the order keeper calls: blocks opened and ended around their deltas, a text block ended where a
    call starts, bare reasoning ended by the next event, ids generated where a call had none, the start
    written with the first event that writes (after a parse error), a result after the finish."""
    events: list[Item] = [
        ParseError("junk before the stream"),
        StreamStarted("anthropic", "claude"),
        TextDelta(""),  # writes nothing
        TextDelta("Hi"),
        TextDelta(" there"),
        ToolCallStarted(0, "", "f"),  # no id: one is generated
        TextDelta("!"),  # text while the call is open: a new block
        ToolCallDelta(0, '{"a":'),
        ToolCallPatch(0, "add", (), {}),
        ToolCallDelta(0, ""),
        ToolCallDelta(0, "1}"),
        ToolCallCompleted(ToolCall("", "f", {"a": 1})),
        ReasoningDelta("bare"),
        TextSignature("sig-on-nothing"),
        ReasoningStarted(kind="thinking"),
        ParseError("inside a block"),
        ReasoningDelta("deep"),
        ReasoningCompleted(signature="s"),
        TextDelta("Done"),
        TextSignature("sig"),
        ProviderError("late", "x"),
        StreamFinished("tool_calls"),
        ParseError("after the end"),
    ]
    writer = NdjsonWriter(model="mine")
    out = [steps(writer.send(event)) for event in events]
    generated = writer.stream.calls[0].id
    assert generated.startswith("call_")
    assert len(generated) == 5 + 24
    assert writer.stream.response_id is not None
    assert writer.stream.response_id.startswith("resp_")
    assert out == [
        [["parse_error", "junk before the stream"]],
        [["start", "anthropic", "mine"]],  # the caller's model wins over the stream's
        [],
        [["text_start", 0], ["text", 0, "Hi"]],
        [["text", 0, " there"]],
        [["text_end", 0, None], ["call_start", 0, generated, "f"]],
        [["text_start", 1], ["text", 1, "!"]],
        [["call_delta", 0, '{"a":']],
        [],
        [],
        [["call_delta", 0, "1}"]],
        [["call_end", 0, {"a": 1}, True]],
        [["text_end", 1, None], ["reasoning_start", 2, None], ["reasoning", 2, "bare"]],
        [["reasoning_end", 2, {}], ["text_signature", "sig-on-nothing"]],
        [["reasoning_start", 3, "thinking"]],
        [["parse_error", "inside a block"]],
        [["reasoning", 3, "deep"]],
        [["reasoning_end", 3, {"signature": "s"}]],
        [["text_start", 4], ["text", 4, "Done"]],
        [["text_end", 4, "sig"]],
        [["error", "late", 1]],
        [["finish", "tool_calls"]],
        [["parse_error", "after the end"]],
    ]
    assert steps(writer.close()) == [["end"]]


def test_a_call_may_end_with_the_id_the_model_gave() -> None:
    """A call found in the text may end with the model's own id, given after it started: its result may
    name either; the wire keeps the id the call started with."""
    body = write_ndjson(
        [
            ToolCallStarted(0, "call_gen_0", "get"),
            ToolCallCompleted(ToolCall("a1b2c3d4e", "get", {})),
            ToolResult("a1b2c3d4e", "get", "ok"),
        ]
    )
    assert steps(body)[1:4] == [
        ["call_start", 0, "call_gen_0", "get"],
        ["call_end", 0, {}, False],
        ["result", 0, "get", "ok"],
    ]
    writer = NdjsonWriter()
    before: list[Item] = [START, DONE, ToolCallStarted(1, "call_2", "g")]
    for event in before:
        writer.send(event)
    with pytest.raises(
        UsageError, match=r"^ToolCallCompleted\(index=1\) out of order: id 'call_1' is call 0's"
    ):
        writer.send(ToolCallCompleted(ToolCall("call_1", "g", {}, 1)))


def test_a_result_comes_with_its_call() -> None:
    body = write_ndjson(
        [
            ToolCallStarted(0, "call_a", "get"),
            ToolCallFailed(0, "call_a", "get", "{", "cut"),
            StreamFinished("error"),
            ToolResult("call_a", "get", "no result: the call failed", True),
        ]
    )
    assert steps(body)[-3:] == [
        ["finish", "error"],
        ["result", 0, "get", "no result: the call failed"],
        ["end"],
    ]


def test_a_name_is_registered_once() -> None:
    with pytest.raises(UsageError, match="a target named 'test-steps' is registered already"):
        register(NdjsonTarget)
    assert target_class("test-steps") is NdjsonTarget


class Plain(Target):
    """The fewest steps a target must write: the text, and each call when it ends."""

    name = "test-plain"
    steps = True

    __slots__ = ()

    def start(self) -> bytes:
        return b"<"

    def text(self, block: Block, text: str) -> bytes:
        return text.encode()

    def reasoning(self, block: Block, text: str) -> bytes:
        return b""

    def call_start(self, call: Call) -> bytes:
        return b""

    def call_delta(self, call: Call, fragment: str) -> bytes:
        return b""

    def call_end(self, call: Call, completed: ToolCall) -> bytes:
        return f"[{call.name}]".encode()

    def call_failed(self, call: Call, failed: ToolCallFailed) -> bytes:
        return b"[failed]"

    def error(self, error: ProviderError) -> bytes:
        return b"!"

    def finish(self, finished: StreamFinished) -> bytes:
        return b">"


@settings(max_examples=50, deadline=None)
@given(items=event_lists())
def test_a_target_needs_only_its_required_steps(items: list[Item]) -> None:
    """A target that writes only what the abstract steps give takes every event list; the others write
    nothing by default."""
    order = EventOrder(Plain)
    written = b"".join([*map(order.send, items), order.close()]).decode()
    wanted = "<"
    finished = False
    for item in items:
        if isinstance(item, (StreamStarted, StreamFinished)):
            finished = isinstance(item, StreamFinished)
        if isinstance(item, TextDelta):
            wanted += item.text
        elif isinstance(item, ToolCallCompleted):
            wanted += f"[{item.call.name}]"
        elif isinstance(item, ToolCallFailed):
            wanted += "[failed]"
        elif isinstance(item, ProviderError):
            wanted += "!"
        elif isinstance(item, StreamFinished):
            wanted += ">"
    if not finished:
        wanted += ">"  # close() finishes the stream
    assert written == wanted


def test_server_sent_events_with_a_name() -> None:
    assert sse({"a": "b\nc"}, "ping") == b'event: ping\ndata: {"a":"b\\nc"}\n\n'
    assert sse([1]) == b"data: [1]\n\n"


def literal_names(kind: object) -> set[str]:
    """The strings of a Literal, nested Literals flattened."""
    return {
        name
        for arg in typing.get_args(kind)
        for name in ([arg] if isinstance(arg, str) else literal_names(arg))
    }


def test_target_name_lists_every_target() -> None:
    """TargetName (for mypy) and the names a writer takes at run time are the same: the chat UI protocols,
    every provider but "text" and "bedrock-invoke" (Bedrock frames around another provider's events), and the
    aliases of OpenAI Chat's."""
    chat_uis = {name for name in TARGETS if name != NdjsonTarget.name}
    providers = {name for name in ADAPTERS if name not in ("text", "bedrock-invoke")}
    assert literal_names(TargetName) == chat_uis | providers | set(ALIASES)
