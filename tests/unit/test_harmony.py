"""The ``harmony`` detector: gpt-oss's messages, checked against openai/harmony's grammar.

Headers are read as ``parse_header_from_string`` reads them (openai/harmony
``src/encoding.rs``); the expectations below are written from that and from
``docs/format.md``, not from the detector.
"""

from __future__ import annotations

import pytest

from streamcalls import (
    ReasoningDelta,
    StreamParser,
    TextDelta,
    ToolCall,
    ToolCallCompleted,
    ToolCallDelta,
    ToolCallFailed,
    ToolCallPatch,
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
    reasoning_of as reasoning,
)
from tests.support import (
    text_of as texts,
)
from tests.support.conservation import check_conservation

DETECT = ("harmony",)
run = text_run(DETECT)


# -- headers: every order the harmony parser accepts ---------------------------------------------

CALL_HEADERS = [
    # recipient after the channel, constrain spaced (the renderer's own output)
    "<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>",
    # constrain adjacent to the name (harmony test: the parser inserts the space)
    "<|start|>assistant<|channel|>commentary to=functions.get_weather<|constrain|>json<|message|>",
    # content type without <|constrain|>, and none at all
    "<|start|>assistant<|channel|>commentary to=functions.get_weather json<|message|>",
    "<|start|>assistant<|channel|>commentary to=functions.get_weather<|message|>",
    # recipient in the role part ("might be defined in the role or channel section")
    "<|start|>assistant to=functions.get_weather<|channel|>commentary json<|message|>",
    "<|start|>assistant to=functions.get_weather<|channel|>commentary <|constrain|>json<|message|>",
    # no <|start|>assistant: the generation prompt wrote it
    "<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>",
    " to=functions.get_weather<|channel|>commentary json<|message|>",
    # the word before the content type is the recipient, with or without to=
    "<|channel|>commentary functions.get_weather json<|message|>",
    # a call on the analysis channel: the header decides
    "<|channel|>analysis to=functions.get_weather code<|message|>",
]


@pytest.mark.parametrize("header", CALL_HEADERS)
def test_every_header_form_is_a_call(header: str) -> None:
    events = run(header + '{"city": "Paris"}<|call|>')
    assert calls(events) == [ToolCall("call_gen_0", "get_weather", {"city": "Paris"}, 0, "harmony")]
    assert texts(events) == reasoning(events) == ""


@pytest.mark.parametrize(
    ("header", "kind"),
    [
        ("<|channel|>analysis<|message|>", "reasoning"),
        ("<|start|>assistant<|channel|>analysis<|message|>", "reasoning"),
        ("<|start|>assistant<|channel|>final<|message|>", "text"),
        ("<|start|>assistant<|channel|>commentary<|message|>", "text"),  # a preamble
        ("<|start|>assistant<|message|>", "text"),  # no channel
        ("<|channel|>commentary json<|message|>", "text"),  # "json" alone is a recipient, not functions.
        # built-in tools: the server's own, not calls; their content goes by channel
        ("<|channel|>analysis to=browser.search code<|message|>", "reasoning"),
        ("<|channel|>commentary to=python code<|message|>", "text"),
    ],
)
def test_other_messages_are_text_or_reasoning(header: str, kind: str) -> None:
    events = run(header + "Some words {with} <braces|> and |pipes|.<|end|>After.")
    assert not calls(events)
    content = "Some words {with} <braces|> and |pipes|."
    if kind == "reasoning":
        assert reasoning(events) == content
        assert texts(events) == "After."
    else:
        assert reasoning(events) == ""
        assert texts(events) == content + "After."


def test_a_message_ends_at_any_end_token_or_the_next_header() -> None:
    text = (
        "<|channel|>analysis<|message|>one<|end|>"
        "<|channel|>analysis<|message|>two<|start|>assistant<|channel|>final<|message|>three<|return|>"
        "<|channel|>final<|message|>four<|channel|>final<|message|>five"
    )
    events = run(text)
    assert reasoning(events) == "onetwo"
    assert texts(events) == "threefourfive"


def test_a_completion_s_first_header_may_start_with_its_recipient_only_at_the_text_start() -> None:
    assert calls(run(' to=functions.f<|channel|>commentary json<|message|>{"a": 1}<|call|>'))
    # Anywhere else " to=..." is prose; the header after it is the <|channel|> one.
    events = run('Note:\n to=functions.f<|channel|>commentary json<|message|>{"a": 1}<|end|>')
    assert not calls(events)
    assert texts(events) == 'Note:\n to=functions.f{"a": 1}'
    assert texts(run(" to=somewhere else")) == " to=somewhere else"


# -- calls -----------------------------------------------------------------------------------------


def test_an_empty_body_is_no_arguments() -> None:
    for end in ("<|call|>", "<|end|>", "<|return|>", "   \n<|call|>"):
        events = run("<|channel|>commentary to=functions.get_time<|message|>" + end)
        assert calls(events) == [ToolCall("call_gen_0", "get_time", {}, 0, "harmony")]
        assert not [e for e in events if isinstance(e, ToolCallDelta)]


def test_a_call_ended_by_end_or_return_is_still_a_call() -> None:
    # The gpt-oss HF template renders history calls ending <|end|>; vLLM keeps those as calls.
    for end in ("<|end|>", "<|return|>", ""):
        events = run('<|channel|>commentary to=functions.f json<|message|>{"a": [1, 2]}' + end)
        assert calls(events) == [ToolCall("call_gen_0", "f", {"a": [1, 2]}, 0, "harmony")]


def test_the_arguments_stream_as_their_text_arrives() -> None:
    parser = StreamParser("text", detect=DETECT, id_factory=counter_ids())
    head = parser.feed(b"<|channel|>commentary to=functions.write <|constrain|>json<|message|>")
    assert head == [ToolCallStarted(0, "call_gen_0", "write")]
    assert parser.feed(b'{"text": "abc') == [ToolCallDelta(0, '{"text": "abc')]
    assert parser.feed(b"def") == [ToolCallDelta(0, "def")]
    done = parser.feed(b'"}')
    assert done[0] == ToolCallDelta(0, '"}')
    assert done[1] == ToolCallCompleted(ToolCall("call_gen_0", "write", {"text": "abcdef"}, 0, "harmony"))


def test_reasoning_and_text_stream_as_they_arrive() -> None:
    parser = StreamParser("text", detect=DETECT)
    assert parser.feed(b"<|channel|>analysis<|message|>think") == [ReasoningDelta("think")]
    assert parser.feed(b"ing more<|e") == [ReasoningDelta("ing more")]  # "<|e" may be <|end|>
    assert parser.feed(b"nd|><|start|>assistant<|channel|>final<|message|>Hel") == [TextDelta("Hel")]
    assert parser.feed(b"lo.") == [TextDelta("lo.")]


@pytest.mark.parametrize(
    ("body", "error"),
    [
        ('{"q": tokyo}<|call|>', "arguments are not valid JSON"),
        ("42<|call|>", "arguments must be a JSON object, got a number"),
        ('{"q": "tok<|call|>', "arguments JSON is incomplete"),
        ('["tokyo"]<|call|>', "arguments must be a JSON object, got an array"),
    ],
)
def test_bad_arguments_fail_with_the_whole_message_as_raw(body: str, error: str) -> None:
    header = "<|start|>assistant<|channel|>commentary to=functions.search json<|message|>"
    events = run(header + body + "Then text.")
    failed = [e for e in events if isinstance(e, ToolCallFailed)]
    assert len(failed) == 1
    assert failed[0].name == "search"
    assert failed[0].raw == header + body
    assert error in failed[0].error
    assert texts(events) == "Then text."


def test_text_after_a_call_s_arguments_in_its_message_is_text() -> None:
    # Blanks right after the JSON belong to the call's markup (a pretty-printed body ends in one).
    events = run('<|channel|>commentary to=functions.f json<|message|>{"a": 1} trailing<|call|>next')
    assert calls(events) == [ToolCall("call_gen_0", "f", {"a": 1}, 0, "harmony")]
    assert texts(events) == "trailingnext"


def test_a_call_cut_off_by_the_end_fails_and_a_header_cut_off_fails() -> None:
    events = run('<|channel|>commentary to=functions.f json<|message|>{"a": ')
    failed = [e for e in events if isinstance(e, ToolCallFailed)]
    assert [(e.name, e.error) for e in failed] == [
        ("f", "the arguments were cut off (the text ended inside them)")
    ]
    events = run("<|channel|>commentary to=functions.f json<|message|>")
    assert [e.name for e in events if isinstance(e, ToolCallFailed)] == ["f"]
    events = run("Text.<|start|>assistant<|channel|>commentary to=functions.f")
    failed = [e for e in events if isinstance(e, ToolCallFailed)]
    assert [(e.name, e.raw) for e in failed] == [
        ("", "<|start|>assistant<|channel|>commentary to=functions.f")
    ]
    assert texts(events) == "Text."


def test_a_malformed_header_fails_where_it_breaks_and_the_text_resumes() -> None:
    events = run("<|start|>assistant<|channel|>final {oops}<|message|>x")
    failed = [e for e in events if isinstance(e, ToolCallFailed)]
    assert [(e.raw, e.error) for e in failed] == [
        ("<|start|>assistant<|channel|>final ", "malformed Harmony header")
    ]
    assert texts(events) == "{oops}<|message|>x"
    long_name = "<|channel|>commentary to=functions." + "n" * 200 + "<|message|>{}"
    events = run(long_name)
    assert [e.error for e in events if isinstance(e, ToolCallFailed)] == ["a Harmony header part is too long"]


# -- text that is not Harmony ------------------------------------------------------------------------


def test_without_any_header_everything_is_text() -> None:
    text = "An answer with <|end|>, <|return|>, <|call|>, <|message|> and <|constrain|> in it."
    assert texts(run(text)) == text


def test_text_whose_special_tokens_a_server_stripped_stays_text() -> None:
    # skip_special_tokens=True leaves no boundary to trust: the detector reads none into it.
    text = (
        "analysisUser wants a 3-day Paris forecast. Use get_weather."
        'assistantcommentary to=functions.get_weather json{"city":"Paris","days":3}'
    )
    events = run(text)
    assert texts(events) == text
    assert not calls(events)
    assert not reasoning(events)


# -- the rules every format keeps --------------------------------------------------------------------

FLOW = (
    "<|channel|>analysis<|message|>Two lookups.<|end|>"
    "<|start|>assistant<|channel|>commentary<|message|>Checking.<|end|>"
    '<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Oslo"}<|call|>'
    "<|start|>assistant to=functions.get_time<|channel|>commentary json<|message|><|call|>"
    "<|start|>assistant<|channel|>final<|message|>Done.<|return|>"
)


def test_each_call_completes_in_the_feed_that_delivers_its_end() -> None:
    data = FLOW.encode()
    parser = StreamParser("text", detect=DETECT, id_factory=counter_ids())
    completed_at = []
    for count in range(1, len(data) + 1):
        if any(isinstance(e, ToolCallCompleted) for e in parser.feed(data[count - 1 : count])):
            completed_at.append(count)
    first_end = FLOW.index('"Oslo"}') + len('"Oslo"}')  # the JSON closes
    second_end = FLOW.index("<|message|><|call|>") + len("<|message|><|call|>")  # an empty body: at <|call|>
    assert completed_at == [first_end, second_end]


def test_any_chunking_gives_the_same_events_and_loses_nothing() -> None:
    whole = run(FLOW)
    assert [c.name for c in calls(whole)] == ["get_weather", "get_time"]
    assert reasoning(whole) == "Two lookups."
    assert texts(whole) == "Checking.Done."
    check_conservation(FLOW, whole, harmony=True)
    one_byte = feed_chunks(bytewise(FLOW.encode()), "text", detect=DETECT)
    assert normalize(one_byte) == normalize(whole)
    check_conservation(FLOW, one_byte, harmony=True)


def test_partial_arguments_work_as_for_any_json() -> None:
    events = run(FLOW, partial_arguments=True)
    patches = [e for e in events if isinstance(e, ToolCallPatch)]
    assert patches
    assert {p.index for p in patches} == {0, 1}
