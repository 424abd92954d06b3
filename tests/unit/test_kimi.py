"""The ``kimi`` detector: Kimi K2's tool-call section, as its chat template renders it.

The template (``render_toolcalls`` in the Kimi-K2-Thinking chat template)
writes ``<|tool_calls_section_begin|>``, then per call
``<|tool_call_begin|>{id}<|tool_call_argument_begin|>{arguments}<|tool_call_end|>``,
then ``<|tool_calls_section_end|>``, with the model writing ids
``functions.NAME:IDX``.
"""

from __future__ import annotations

import pytest

from streamcalls import (
    StreamParser,
    ToolCall,
    ToolCallCompleted,
    ToolCallDelta,
    ToolCallFailed,
    ToolCallStarted,
)
from tests.support import (
    bytewise,
    counter_ids,
    feed_chunks,
    normalize,
    text_run,
)
from tests.support import (
    completed_calls as calls,
)
from tests.support import (
    text_of as texts,
)
from tests.support.conservation import check_conservation

DETECT = ("kimi",)
run = text_run(DETECT)
BEGIN, END = "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"
CALL, ARGS, CALL_END = "<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_call_end|>"


def section(*bodies: str) -> str:
    return BEGIN + "".join(bodies) + END


def call(call_id: str, arguments: str) -> str:
    return f"{CALL}{call_id}{ARGS}{arguments}{CALL_END}"


@pytest.mark.parametrize(
    ("call_id", "name"),
    [
        ("functions.get_weather:0", "get_weather"),
        ("functions.get_weather:17", "get_weather"),  # ids need not restart at 0
        ("get_weather:0", "get_weather"),  # no namespace
        ("functions.web.search:3", "web.search"),  # dots kept
        ("functions.get-weather:1", "get-weather"),  # dashes kept
        ("functions.get_weather", "get_weather"),  # no index
        ("  functions.get_weather:0\n", "get_weather"),  # blanks around the id
    ],
)
def test_the_id_is_the_model_s_and_the_name_comes_from_it(call_id: str, name: str) -> None:
    events = run(section(call(call_id, '{"city": "Paris"}')))
    assert calls(events) == [ToolCall(call_id.strip(), name, {"city": "Paris"}, 0, "kimi")]


def test_repeated_ids_are_made_unique() -> None:
    events = run(
        section(call("functions.f:0", "{}"), call("functions.f:0", "{}"), call("functions.f:0", "{}"))
    )
    assert [c.id for c in calls(events)] == ["functions.f:0", "functions.f:0#2", "functions.f:0#3"]


def test_both_section_spellings_blanks_between_tokens_and_multiline_json() -> None:
    text = (
        "Sure.<|tool_call_section_begin|>\n  "
        f'{CALL} functions.a:0 {ARGS}\n{{\n  "x": [1,\n 2]\n}}\n{CALL_END}\n'
        f"{CALL}functions.b:1{ARGS}{CALL_END}"
        "\n<|tool_call_section_end|> After."
    )
    events = run(text)
    assert calls(events) == [
        ToolCall("functions.a:0", "a", {"x": [1, 2]}, 0, "kimi"),
        ToolCall("functions.b:1", "b", {}, 1, "kimi"),
    ]
    assert texts(events) == "Sure. After."


def test_nothing_inside_the_section_is_text() -> None:
    # Text before a call's token is that call's markup (the peers drop it too: vLLM's
    # test_noise_between_markers_suppressed); text that no call follows fails, nameless.
    text = section("intro ", call("functions.a:0", "{}"), " between ", call("functions.b:1", "{}"), " end")
    events = run("Before." + text + "After.")
    failed = [(e.name, e.raw, e.error) for e in events if isinstance(e, ToolCallFailed)]
    assert failed == [("", "end" + END, "text inside the tool-call section that is not a call")]
    assert [c.name for c in calls(events)] == ["a", "b"]
    assert texts(events) == "Before.After."
    check_conservation("Before." + text + "After.", events)


def test_text_before_a_call_in_the_section_goes_with_that_call() -> None:
    # When that call fails, the text is in its raw: nothing is lost.
    text = section("noise ", call("functions.a:0", '{"x": 1'), call("functions.b:1", "{}"))
    events = run(text)
    [failure] = [e for e in events if isinstance(e, ToolCallFailed)]
    assert failure.name == "a"
    assert failure.raw == BEGIN + "noise " + call("functions.a:0", '{"x": 1')
    assert [c.name for c in calls(events)] == ["b"]
    check_conservation(text, events)
    assert normalize(feed_chunks(bytewise(text.encode()), "text", detect=DETECT)) == normalize(events)


def test_a_call_without_a_section_and_text_after_it() -> None:
    events = run(f"Calling {call('functions.f:0', '{}')} done")
    assert calls(events) == [ToolCall("functions.f:0", "f", {}, 0, "kimi")]
    assert texts(events) == "Calling  done"


@pytest.mark.parametrize(
    ("body", "error"),
    [
        (f'{CALL}functions.f:0{ARGS}{{"a": 1{CALL_END}', "arguments JSON is incomplete (truncated)"),
        (f"{CALL}functions.f:0{ARGS}[1]{CALL_END}", "arguments must be a JSON object, got an array"),
        (f'{CALL}functions.f:0{ARGS}{{"a": tru}}{CALL_END}', "arguments are not valid JSON"),
        (f"{CALL}functions.f:0{CALL_END}", "expected <|tool_call_argument_begin|> after the call id"),
    ],
)
def test_a_bad_call_fails_with_its_markup_as_raw(body: str, error: str) -> None:
    text = section(body, call("functions.g:1", "{}"))
    events = run(text)
    failed = [e for e in events if isinstance(e, ToolCallFailed)]
    assert len(failed) == 1
    assert error in failed[0].error
    assert failed[0].raw.endswith(body)
    assert [c.name for c in calls(events)] == ["g"]
    check_conservation(text, events)


def test_a_call_cut_off_by_the_end_fails() -> None:
    events = run(BEGIN + f'{CALL}functions.f:0{ARGS}{{"a": [1, 2')
    failed = [e for e in events if isinstance(e, ToolCallFailed)]
    assert [(e.id, e.name, e.error) for e in failed] == [
        ("functions.f:0", "f", "the arguments were cut off (the text ended inside them)")
    ]
    events = run(BEGIN + f"{CALL}functions.f:0<|tool_call_arg")
    assert [e.name for e in events if isinstance(e, ToolCallFailed)] == ["f"]
    # A section whose end token never came: its complete calls stand.
    assert [c.name for c in calls(run(BEGIN + call("functions.f:0", "{}")))] == ["f"]


def test_the_arguments_stream_and_each_call_completes_at_its_closing_brace() -> None:
    parser = StreamParser("text", detect=DETECT, id_factory=counter_ids())
    assert parser.feed(f"{BEGIN}{CALL}functions.write:0{ARGS}".encode()) == [
        ToolCallStarted(0, "functions.write:0", "write")
    ]
    assert parser.feed(b'{"text": "ab') == [ToolCallDelta(0, '{"text": "ab')]
    done = parser.feed(b'c"}')
    assert done == [
        ToolCallDelta(0, 'c"}'),
        ToolCallCompleted(ToolCall("functions.write:0", "write", {"text": "abc"}, 0, "kimi")),
    ]


def test_each_call_completes_in_the_feed_that_delivers_its_end() -> None:
    text = "Let me check." + section(call("functions.a:0", '{"x": "}"}'), call("functions.b:1", ""))
    data = text.encode()
    parser = StreamParser("text", detect=DETECT)
    completed_at = []
    for count in range(1, len(data) + 1):
        if any(isinstance(e, ToolCallCompleted) for e in parser.feed(data[count - 1 : count])):
            completed_at.append(count)
    first = len(text[: text.index('"}"}') + 4].encode())  # the object's closing brace
    second = len(text[: text.rindex(CALL_END) + len(CALL_END)].encode())  # no arguments: at the call's end
    assert completed_at == [first, second]


def test_any_chunking_gives_the_same_events() -> None:
    text = "A" + section(call("functions.a:0", '{"s": "<|x|> {]"}'), call("functions.b:1", "{}")) + "Z"
    whole = run(text)
    assert normalize(feed_chunks(bytewise(text.encode()), "text", detect=DETECT)) == normalize(whole)
    check_conservation(text, whole)


def test_a_missing_call_end_before_the_next_call_or_the_section_end_is_forgiven() -> None:
    text = f'{BEGIN}{CALL}functions.a:0{ARGS}{{"x": 1}}{CALL}functions.b:1{ARGS}{{}}{END}'
    events = run(text)
    assert [c.name for c in calls(events)] == ["a", "b"]
    assert not [e for e in events if isinstance(e, ToolCallFailed)]
    check_conservation(text, events)
