"""Text calls at their edges: no arguments, a broken limit, malformed markup (issue 12, items 6-8).

Each case is checked whole, one byte at a time and in random-sized pieces
(the events must not depend on the chunking), and against the conservation
oracle (tests/support/conservation.py): no character of the input is lost.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from streamcalls import (
    Event,
    Limits,
    StreamParser,
    StreamStarted,
    ToolCall,
    ToolCallCompleted,
    ToolCallDelta,
    ToolCallError,
    ToolCallFailed,
    ToolCallStarted,
    extract,
)
from tests.support import check_protocol, counter_ids, normalize
from tests.support.conservation import check_conservation
from tests.support.streams import OPENAI_DONE, openai_chunk, openai_finish
from tests.unit.test_detectors import calls as completed
from tests.unit.test_detectors import texts

ALL = ("fence", "json", "hermes", "mistral", "llama", "deepseek")
CALLS_BEGIN, CALLS_END = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"
CALL_BEGIN, CALL_END, SEP = "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>", "<｜tool▁sep｜>"


def parse(text: str, *, bytewise: bool = True, **options: Any) -> list[Event]:
    """The events for ``text``, checked: the same for every chunking, and nothing lost."""
    options.setdefault("detect", ALL)
    data = text.encode()
    runs = [[data], [data[i : i + 1] for i in range(len(data))] if bytewise else [data]]
    rng = random.Random(len(data))
    pieces, pos = [], 0
    while pos < len(data):
        step = rng.randint(1, 97)
        pieces.append(data[pos : pos + step])
        pos += step
    runs.append(pieces)
    results = []
    for chunks in runs:
        parser = StreamParser("text", id_factory=counter_ids(), **options)
        events: list[Event] = []
        for chunk in chunks:
            events += parser.feed(chunk)
        events += parser.close()
        check_protocol(events)
        check_conservation(text, events)
        results.append(normalize(events))
    assert results[1] == results[0], "one byte at a time changed the events"
    assert results[2] == results[0], "random pieces changed the events"
    return results[0]


def failed(events: list[Event]) -> list[ToolCallFailed]:
    return [e for e in events if isinstance(e, ToolCallFailed)]


# -- item 6: a call object without "arguments" ----------------------------------------------------


@pytest.mark.parametrize(
    ("text", "source"),
    [
        ('<tool_call>\n{"name": "get_time"}\n</tool_call>', "hermes"),  # Qwen, for a tool without parameters
        ('~~~tool_call\n{"name": "get_time"}\n~~~\n', "fence"),
        ('[TOOL_CALLS][{"name": "get_time"}]', "mistral"),
        ('<|python_tag|>{"name": "get_time"}<|eom_id|>', "llama"),
        ('<tool_call>{"name": "get_time", "arguments": null}</tool_call>', "hermes"),
    ],
)
def test_explicit_markup_without_arguments_is_a_call_with_none(text: str, source: str) -> None:
    events = parse(text)
    assert completed(events) == [ToolCall("call_gen_0", "get_time", {}, 0, source)]
    assert texts(events) == ""


def test_without_arguments_the_model_id_is_kept() -> None:
    events = parse('~~~tool_call\n{"id": "t1", "name": "get_time"}\n~~~\n')
    assert completed(events) == [ToolCall("t1", "get_time", {}, 0, "fence")]


@pytest.mark.parametrize(
    "text", ['{"name": "get_time"}\nDone.', 'Here:\n```json\n{"name": "get_time"}\n```\nDone.']
)
def test_a_bare_name_only_object_is_data_unless_tools_names_it(text: str) -> None:
    # Conservative: {"name": "x"} alone in prose is far more often data than a call.
    assert texts(parse(text)) == text
    assert texts(parse(text, tools=["get_weather"])) == text
    events = parse(text, tools=["get_time", "get_weather"])
    assert [(c.name, c.arguments, c.source) for c in completed(events)] == [("get_time", {}, "json")]
    assert texts(events) == text.replace('{"name": "get_time"}', "").replace("```json\n\n```\n", "")


def test_a_name_only_call_starts_and_completes_at_its_closing_brace() -> None:
    parser = StreamParser("text", tools=["get_time"], id_factory=counter_ids())
    assert parser.feed('{"name": "get_time"') == []  # could still get a key that is no call's
    assert parser.feed("}") == [
        ToolCallStarted(0, "call_gen_0", "get_time"),
        ToolCallCompleted(ToolCall("call_gen_0", "get_time", {}, 0, "json")),
    ]


def test_extract_reads_calls_without_arguments() -> None:
    message = {"role": "assistant", "content": '<tool_call>\n{"name": "get_time"}\n</tool_call>'}
    assert [(c.name, c.arguments, c.source) for c in extract(message, detect=["hermes"])] == [
        ("get_time", {}, "hermes")
    ]
    fence = {"role": "assistant", "content": '~~~tool_call\n{"name": "get_time"}\n~~~'}
    assert [(c.name, c.arguments, c.source) for c in extract(fence)] == [("get_time", {}, "fence")]
    assert extract('{"name": "get_time"}', provider="text") == []
    [call] = extract('{"name": "get_time"}', provider="text", tools=["get_time"])
    assert (call.name, call.arguments) == ("get_time", {})


# -- item 7: a call that fails at a limit takes the rest of its value with it ----------------------------


def test_200_kb_of_brackets_past_the_depth_limit_never_become_text() -> None:
    brackets = "[" * 100_000 + "]" * 100_000
    block = '~~~tool_call\n{"name": "f", "arguments": {"a": ' + brackets + "}}\n~~~\n"
    text = "Before.\n" + block + "After."
    events = parse(text, bytewise=False)  # whole, and in pieces of up to 97 bytes
    assert texts(events) == "Before.\nAfter."
    [failure] = failed(events)
    assert failure.error == "arguments nest deeper than max_json_depth=512"
    # raw: the markup up to the limit (the bracket that broke it included), nothing after
    assert failure.raw == '~~~tool_call\n{"name": "f", "arguments": {"a": ' + "[" * 512
    deltas = "".join(e.arguments_delta for e in events if isinstance(e, ToolCallDelta))
    assert deltas == '{"a": ' + "[" * 512


def test_arguments_over_the_size_limit_fail_and_the_text_resumes_after_the_block() -> None:
    limits = Limits(max_arguments_bytes=100)
    value = '{"data": "' + "x" * 1000 + '"}'
    events = parse(f'Go:\n~~~tool_call\n{{"name": "f", "arguments": {value}}}\n~~~\nDone.', limits=limits)
    assert texts(events) == "Go:\nDone."
    [failure] = failed(events)
    assert failure.error == "arguments exceed max_arguments_bytes=100"
    assert failure.raw == '~~~tool_call\n{"name": "f", "arguments": ' + value[:100]


@pytest.mark.parametrize(
    "template",
    [
        '{{"name": "f", "arguments": {value}}}\nafter',  # bare JSON: the text resumes after the object
        '<tool_call>{{"name": "f", "arguments": {value}}}</tool_call>\nafter',
        "[TOOL_CALLS]f[ARGS]{value}\nafter",
        f"{CALLS_BEGIN}{CALL_BEGIN}f{SEP}{{value}}{CALL_END}{CALLS_END}\nafter",
        '<|python_tag|>{{"name": "f", "parameters": {value}}}<|eom_id|>\nafter',
    ],
)
@pytest.mark.parametrize("limit", ["depth", "size"])
def test_every_format_drops_the_rest_of_a_value_over_a_limit(template: str, limit: str) -> None:
    value = '{"a": [[[[[[[[[["' + "y" * 300 + '"]]]]]]]]]]}'
    limits = Limits(max_json_depth=6) if limit == "depth" else Limits(max_arguments_bytes=64)
    events = parse(template.format(value=value), limits=limits)
    assert texts(events) == "\nafter"
    [failure] = failed(events)
    assert ("max_json_depth" if limit == "depth" else "max_arguments_bytes") in failure.error
    # depth: "{" and six "[" are 7 levels; the bracket that broke the limit is the last one kept
    assert failure.raw.endswith(value[: len('{"a": ') + 6 if limit == "depth" else 64])


def test_a_run_of_calls_goes_on_after_one_failed_at_a_limit() -> None:
    deep = "[" * 20 + "]" * 20
    text = f'[{{"name": "a", "arguments": {{"x": {deep}}}}}, {{"name": "b", "arguments": {{}}}}]\nok'
    events = parse(text, limits=Limits(max_json_depth=8))
    assert [c.name for c in completed(events)] == ["b"]
    assert [f.name for f in failed(events)] == ["a"]
    assert texts(events) == "\nok"


def test_a_candidate_over_a_limit_before_its_name_is_prose() -> None:
    # The arguments come first: nothing says it is a call yet, so a limit makes it text, not a failure.
    text = '{"arguments": ' + "[" * 20 + "]" * 20 + ', "name": "f"}\nok'
    events = parse(text, limits=Limits(max_json_depth=8))
    assert texts(events) == text
    assert not [e for e in events if isinstance(e, (ToolCallStarted, ToolCallFailed))]


def test_the_failed_value_is_counted_not_kept() -> None:
    # A value that never closes: everything after the limit belongs to the call, none of it is held.
    limits = Limits(max_arguments_bytes=1000)
    parser = StreamParser("text", limits=limits, id_factory=counter_ids())
    events = parser.feed('{"name": "f", "arguments": {"a": "')
    for _ in range(200):
        events += parser.feed("z" * 10_000)
    events += parser.close()
    [failure] = failed(events)
    assert failure.raw == '{"name": "f", "arguments": {"a": "' + "z" * (1000 - len('{"a": "'))
    assert not texts(events)
    assert sum(len(e.arguments_delta) for e in events if isinstance(e, ToolCallDelta)) == 1000


# -- item 8: malformed markup fails visibly, and its text is not lost -----------------------------------


def test_a_marker_before_something_that_is_no_json_call_fails_with_its_markup() -> None:
    events = parse("[TOOL_CALLS] [not valid json]", detect=["mistral"])
    [failure] = failed(events)
    assert failure.raw == "[TOOL_CALLS] ["
    assert failure.name == ""
    assert texts(events) == "not valid json]"


def test_a_failed_bare_call_keeps_its_wrapper() -> None:
    text = 'Use:\n{"name": "f", "parameters": {"a": 1,}}\nthen.'
    events = parse(text)
    [failure] = failed(events)
    assert failure.raw == '{"name": "f", "parameters": {"a": 1,}}'
    assert texts(events) == "Use:\n\nthen."


def test_a_word_after_the_mistral_marker_is_no_call_until_args_follow() -> None:
    text = "[TOOL_CALLS] hello world"
    parser = StreamParser("text", detect=["mistral"], id_factory=counter_ids())
    assert parser.feed("[TOOL_CALLS] hello") == []  # nothing started: "hello" is not yet a tool's name
    events = parser.feed(" world") + parser.close()
    assert events[:2] == [
        ToolCallStarted(0, "call_gen_0", ""),
        ToolCallFailed(
            0, "call_gen_0", "", "[TOOL_CALLS] hello", "expected [ARGS] and the arguments after the tool name"
        ),
    ]
    assert texts(events) == " world"
    assert parse(text, detect=["mistral"]) == normalize(events)


def test_a_mistral_name_starts_its_call_once_args_follow() -> None:
    parser = StreamParser("text", detect=["mistral"], id_factory=counter_ids())
    assert parser.feed("[TOOL_CALLS]get_weather") == []
    assert parser.feed("[ARGS]{") == [ToolCallStarted(0, "call_gen_0", "get_weather"), ToolCallDelta(0, "{")]


@pytest.mark.parametrize(
    ("text", "raw", "after"),
    [
        ("Ok.[TOOL_CALLS]", "[TOOL_CALLS]", ""),
        ("[TOOL_CALLS][]\nok", "[TOOL_CALLS][]", "\nok"),
        ("[TOOL_CALLS]get_weather[ARGS]oslo", "[TOOL_CALLS]get_weather[ARGS]", "oslo"),
        (f"{CALLS_BEGIN}I cannot", CALLS_BEGIN, "I cannot"),
        (f"{CALLS_BEGIN}{CALLS_END}ok", CALLS_BEGIN + CALLS_END, "ok"),
        (f'{CALL_BEGIN}f{SEP}{{"a": 1,}}{CALL_END}{CALLS_END}ok', f'{CALL_BEGIN}f{SEP}{{"a": 1,}}{CALL_END}{CALLS_END}', "ok"),
        ('<|python_tag|>{"name": "f", "parameters": {"a": }}<|eom_id|>ok', '<|python_tag|>{"name": "f", "parameters": {"a": }}<|eom_id|>', "ok"),
        ('[TOOL_CALLS][{"name": "f", "arguments": {"a": 1,}}]ok', '[TOOL_CALLS][{"name": "f", "arguments": {"a": 1,}}]', "ok"),
        ("<tool_call>\n</tool_call>ok", "<tool_call>\n</tool_call>", "ok"),
        ('<tool_call>{"name": "f", "arguments": {}} extra</tool_call>ok', '<tool_call>{"name": "f", "arguments": {}} extra</tool_call>', "ok"),
    ],
)  # fmt: skip
def test_malformed_markup_fails_with_all_it_consumed(text: str, raw: str, after: str) -> None:
    events = parse(text)
    assert [f.raw for f in failed(events)] == [raw]
    assert texts(events) == text[: text.index(raw)] + after


def test_in_a_run_a_failed_call_takes_the_separator_after_it() -> None:
    text = '[TOOL_CALLS][{"name": "a", "arguments": {"x": 1,}}, {"name": "b", "arguments": {}}]'
    events = parse(text)
    assert [f.raw for f in failed(events)] == ['[TOOL_CALLS][{"name": "a", "arguments": {"x": 1,}}, ']
    assert [c.name for c in completed(events)] == ["b"]


def test_code_after_the_python_tag_stays_text_tag_and_all() -> None:
    text = "<|python_tag|>print(1)<|eom_id|>"
    events = parse(text, detect=["llama"])
    assert texts(events) == text
    assert not failed(events)


def test_extract_raises_with_the_markup_as_raw() -> None:
    with pytest.raises(ToolCallError) as info:
        extract("[TOOL_CALLS] [not valid json]", provider="text", detect=["mistral"])
    assert info.value.raw == "[TOOL_CALLS] ["


def test_a_candidate_that_commits_inside_its_look_ahead_gets_what_the_cut_withheld() -> None:
    # A candidate sees at most max_arguments_bytes characters ahead; this one commits within them and then
    # waits for an end token that the cut split ("<|eom_"): the rest of the chunk must reach it.
    text = '<|python_tag|>{"name": "f"}; {"name": "f"}<|eom_id|>'
    events = parse(text, detect=["llama"], limits=Limits(max_arguments_bytes=48))
    assert [c.name for c in completed(events)] == ["f", "f"]
    assert texts(events) == ""


def test_a_provider_finish_leaves_a_text_call_to_its_markup() -> None:
    # finish_reason ends the provider's calls; a fence still open is the text channel's to end, and it
    # fails as at the end of any text (it completed here, and failed under provider="text", before).
    text = '~~~tool_call\n{"name": "f", "arguments": {}}'
    stream = openai_chunk({"content": text}) + openai_finish("stop") + OPENAI_DONE
    parser = StreamParser("openai", id_factory=counter_ids())
    events = parser.feed(stream) + parser.close()
    [failure] = failed(events)
    assert (failure.raw, failure.error) == (text, "the block was never closed (the text ended inside it)")
    assert events[0] == StreamStarted("openai", "m", "chatcmpl-t")
    assert normalize(events[1:])[:-1] == parse(text, detect=["fence", "json"])[:-1]  # all but StreamFinished
