"""The XML call formats (qwen3_coder, glm, minimax): whitespace, markup-like values, eagerness,
deltas, malformed markup (the ``<tool_call>`` opener they share with hermes: test_tool_call_opener.py).

Every call text here is written from the chat templates (formats: tests/data/text/*.txt have
the longer examples).  Expected arguments are spelled out by hand; conservation (rule 8) is
checked by the event-only oracle of tests/support/conservation.py; patches by tests/support/partial_rules.py.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec
import pytest

from streamcalls import (
    Event,
    StreamParser,
    TextDelta,
    ToolCall,
    ToolCallCompleted,
    ToolCallDelta,
    ToolCallFailed,
    ToolCallStarted,
)
from tests.support import bytewise, check_protocol, corpus, counter_ids, feed_chunks, normalize
from tests.support.conservation import check_conservation
from tests.support.partial_rules import check_patches

SHARED = ("hermes", "qwen3_coder", "glm")


def parse_all(text: str, detect: Any, **options: Any) -> list[Event]:
    """The events of ``text`` fed whole, after checking that one byte at a time gives the same."""
    whole = feed_chunks([text.encode()], "text", detect=detect, **options)
    assert normalize(feed_chunks(bytewise(text.encode()), "text", detect=detect, **options)) == normalize(
        whole
    )
    check_protocol(whole)
    check_conservation(text, whole)
    return whole


def completed(events: list[Event]) -> list[tuple[str, dict[str, Any]]]:
    return [(e.call.name, e.call.arguments) for e in events if isinstance(e, ToolCallCompleted)]


def failed(events: list[Event]) -> list[tuple[str, str, str]]:
    return [(e.name, e.raw, e.error) for e in events if isinstance(e, ToolCallFailed)]


def text_of(events: list[Event]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


def qwen(name: str, *params: tuple[str, str]) -> str:
    body = "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in params)
    return f"<tool_call>\n<function={name}>\n{body}</function>\n</tool_call>"


def glm(name: str, *params: tuple[str, str], compact: bool = False) -> str:
    nl = "" if compact else "\n"
    body = "".join(f"<arg_key>{k}</arg_key>{nl}<arg_value>{v}</arg_value>{nl}" for k, v in params)
    return f"<tool_call>{name}{nl}{body}</tool_call>"


def minimax(*calls: tuple[str, list[tuple[str, str]]]) -> str:
    invokes = "".join(
        f'<invoke name="{name}">\n'
        + "".join(f'<parameter name="{k}">{v}</parameter>\n' for k, v in params)
        + "</invoke>\n"
        for name, params in calls
    )
    return f"<minimax:tool_call>\n{invokes}</minimax:tool_call>"


# -- whitespace (rule 2) -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("between", "value"),
    [
        ("\nParis\n", "Paris"),  # the template's: one line end each side is markup
        ("Paris", "Paris"),
        ("\n\nParis\n\n", "\nParis\n"),
        ("\n  indented\n    more\n", "  indented\n    more"),
        ("\n\n", ""),
        ("\n", ""),
        ("", ""),
        ("\nline\r\n", "line\r"),
        ("\n a < b && c > d \n", " a < b && c > d "),
    ],
)
def test_qwen_owns_one_line_end_after_the_tag_and_one_before_the_closing_tag(
    between: str, value: str
) -> None:
    text = f"<tool_call>\n<function=f>\n<parameter=v>{between}</parameter>\n</function>\n</tool_call>"
    assert completed(parse_all(text, ["qwen3_coder"])) == [("f", {"v": value})]


@pytest.mark.parametrize("value", ["Paris", "\nParis\n", "  two  spaces ", "", "\n"])
def test_glm_and_minimax_keep_a_value_verbatim(value: str) -> None:
    assert completed(parse_all(glm("f", ("v", value)), ["glm"])) == [("f", {"v": value})]
    assert completed(parse_all(minimax(("f", [("v", value)])), ["minimax"])) == [("f", {"v": value})]


def test_glm_47_compact_and_45_newline_forms_give_the_same_call() -> None:
    params = (("city", "Paris"), ("days", "3"))
    for compact in (False, True):
        assert completed(parse_all(glm("get_weather", *params, compact=compact), ["glm"])) == [
            ("get_weather", {"city": "Paris", "days": "3"})
        ]


def test_blanks_around_names_keys_and_tags_are_markup() -> None:
    text = "<tool_call>  get_weather \n    <arg_key> city </arg_key>\n    <arg_value>Paris</arg_value>\n</tool_call>"
    assert completed(parse_all(text, ["glm"])) == [("get_weather", {"city": "Paris"})]
    text = "<minimax:tool_call>\n  <invoke name='f'>\n  <parameter name=k>v</parameter>\n  </invoke>\n</minimax:tool_call>"
    assert completed(parse_all(text, ["minimax"])) == [("f", {"k": "v"})]


# -- values holding markup-like text ------------------------------------------------------------------

CODE = 'if a<b:\n    print("</parameter> and <parameter=x> are text")\n</parameter>not markup'


@pytest.mark.parametrize(
    ("fmt", "text", "value"),
    [
        ("qwen3_coder", qwen("f", ("v", CODE)), CODE),
        ("qwen3_coder", qwen("f", ("v", "a </function> b </tool_call> c")), "a </function> b </tool_call> c"),
        (
            "qwen3_coder",
            qwen("f", ("v", "</parameter>" + " " * 70 + "<parameter=x>")),
            "</parameter>" + " " * 70 + "<parameter=x>",
        ),
        ("glm", glm("f", ("v", "x</arg_value>y<arg_key>z")), "x</arg_value>y<arg_key>z"),
        ("glm", glm("f", ("v", "<tool_call>g\n</tool_call>")), "<tool_call>g\n</tool_call>"),
        (
            "minimax",
            minimax(("f", [("v", '<invoke name="g"></parameter>!')])),
            '<invoke name="g"></parameter>!',
        ),
    ],
)
def test_a_closing_tag_ends_a_value_only_where_markup_follows_it(fmt: str, text: str, value: str) -> None:
    assert completed(parse_all(text, [*SHARED, "minimax"] if fmt != "minimax" else ["minimax"])) == [
        ("f", {"v": value})
    ]


def test_a_closing_tag_followed_by_markup_ends_the_value_even_inside_code() -> None:
    # The rule's other side: a value cannot hold "</parameter>" followed by "</function>".
    text = qwen("f", ("v", "x\n</parameter>\n</function>\ny"))
    events = parse_all(text, ["qwen3_coder"])
    assert completed(events) == [("f", {"v": "x"})]
    assert text_of(events).startswith("\ny")


# -- calls, duplicates, empty calls ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fmt", "text"),
    [
        ("qwen3_coder", "<tool_call>\n<function=get_time>\n</function>\n</tool_call>"),
        ("glm", "<tool_call>get_time\n</tool_call>"),
        ("glm", "<tool_call>get_time</tool_call>"),
        ("minimax", '<minimax:tool_call>\n<invoke name="get_time">\n</invoke>\n</minimax:tool_call>'),
    ],
)
def test_a_call_without_parameters_has_empty_arguments(fmt: str, text: str) -> None:
    events = parse_all(text, [fmt])
    assert completed(events) == [("get_time", {})]
    assert [e.arguments_delta for e in events if isinstance(e, ToolCallDelta)] == ["{}"]


@pytest.mark.parametrize(
    ("fmt", "text"),
    [
        ("qwen3_coder", qwen("f", ("a", "1"), ("b", "2"), ("a", "3"))),
        ("glm", glm("f", ("a", "1"), ("a", "3"))),
        ("minimax", minimax(("f", [("a", "1"), ("a", "3")]))),
    ],
)
def test_a_parameter_given_twice_fails_the_call_with_its_whole_markup(fmt: str, text: str) -> None:
    events = parse_all(text + " after", [fmt])
    assert failed(events) == [("f", text, "parameter 'a' is given twice")]
    assert text_of(events) == " after"


def test_several_functions_in_one_qwen_block_are_several_calls() -> None:
    text = "<tool_call>\n<function=a>\n</function>\n<function=b>\n<parameter=x>\n1\n</parameter>\n</function>\n</tool_call>"
    assert completed(parse_all(text, ["qwen3_coder"])) == [("a", {}), ("b", {"x": "1"})]


def test_a_missing_function_or_invoke_end_is_closed_by_the_blocks_end() -> None:
    text = "<tool_call>\n<function=f>\n<parameter=x>\n1\n</parameter>\n</tool_call>"
    assert completed(parse_all(text, ["qwen3_coder"])) == [("f", {"x": "1"})]
    text = '<minimax:tool_call><invoke name="f"><parameter name="x">1</parameter></minimax:tool_call>'
    assert completed(parse_all(text, ["minimax"])) == [("f", {"x": "1"})]


def test_text_after_a_completed_call_is_text_even_without_the_blocks_end() -> None:
    events = parse_all("<tool_call>\n<function=f>\n</function>\nSo that is done.", ["qwen3_coder"])
    assert completed(events) == [("f", {})]
    assert text_of(events) == "\nSo that is done."
    events = parse_all('<minimax:tool_call><invoke name="f"></invoke>\nDone.', ["minimax"])
    assert text_of(events) == "\nDone."


# -- malformed and cut-off markup (rule 5) ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("detect", "text", "failures", "after"),
    [
        (
            ["glm"],
            "Use <tool_call> to call.",
            [("", "<tool_call>", "<tool_call> with no tool name after it")],
            "Use  to call.",
        ),
        (
            ["qwen3_coder"],
            "a <tool_call> b",
            [("", "<tool_call>", "<tool_call> with no <function=...> after it")],
            "a  b",
        ),
        (
            ["minimax"],
            "<minimax:tool_call> hi",
            [("", "<minimax:tool_call>", "<minimax:tool_call> with no <invoke name=...> after it")],
            " hi",
        ),
        (
            ["qwen3_coder"],
            "<tool_call>\n<function=f>\n<oops>x</function>\n</tool_call>!",
            [
                (
                    "f",
                    "<tool_call>\n<function=f>\n<oops>x</function>\n</tool_call>",
                    "expected <parameter=...> or </function> in the tool call",
                )
            ],
            "!",
        ),
        (
            ["qwen3_coder"],
            "<tool_call>\n<function=bad name>\n</function>\n</tool_call>!",
            [
                (
                    "",
                    "<tool_call>\n<function=bad name>\n</function>\n</tool_call>",
                    "qwen3_coder markup with an invalid tool name 'bad name'",
                )
            ],
            "!",
        ),
        (
            ["glm"],
            "<tool_call></tool_call>!",
            [("", "<tool_call></tool_call>", "glm markup that holds no tool call")],
            "!",
        ),
        (
            ["minimax"],
            '<minimax:tool_call><invoke name="f"><bad/></invoke><invoke name="g"></invoke></minimax:tool_call>',
            [
                (
                    "f",
                    '<minimax:tool_call><invoke name="f"><bad/></invoke>',
                    "expected <parameter name=...> or </invoke> in the tool call",
                )
            ],
            "",
        ),
    ],
)
def test_malformed_markup_fails_visibly_and_the_text_goes_on(
    detect: list[str], text: str, failures: list[tuple[str, str, str]], after: str
) -> None:
    events = parse_all(text, detect)
    assert failed(events) == failures
    assert text_of(events) == after


@pytest.mark.parametrize(
    ("fmt", "text", "end_marker"),
    [
        ("qwen3_coder", qwen("get_weather", ("city", "Paris"), ("days", "3")), "</function>"),
        ("glm", glm("get_weather", ("city", "Paris"), ("days", "3")), "</tool_call>"),
        ("minimax", minimax(("get_weather", [("city", "Paris"), ("days", "3")])), "</invoke>"),
    ],
)
def test_a_call_cut_off_anywhere_fails_with_all_its_markup(fmt: str, text: str, end_marker: str) -> None:
    opener = "<minimax:tool_call>" if fmt == "minimax" else "<tool_call>"
    for cut in range(len(opener), text.index(end_marker) + len(end_marker)):
        prefix = text[:cut]
        events = parse_all("Sure. " + prefix, [fmt])
        assert text_of(events) == "Sure. ", prefix
        [(_, raw, error)] = failed(events)
        assert raw == prefix
        assert error == "the tool call was cut off (the text ended inside it)"
        assert not completed(events)


# -- eagerness: a call completes in the very feed that brings its end marker -----------------------------

EAGER = [
    ("qwen3_coder", "</function>", qwen("a", ("x", "1")) + "\n" + qwen("b") + "\nthen text"),
    ("glm", "</tool_call>", glm("a", ("x", "1")) + glm("b", compact=True) + "then text"),
    ("minimax", "</invoke>", minimax(("a", [("x", "1")]), ("b", [])) + "then text"),
]


@pytest.mark.parametrize(("fmt", "end_marker", "text"), EAGER, ids=[f for f, _, _ in EAGER])
def test_each_call_completes_in_the_feed_that_delivers_its_end_marker(
    fmt: str, end_marker: str, text: str
) -> None:
    data = text.encode()
    for detect in ([fmt], [*SHARED, "minimax", "fence", "json"]):
        parser = StreamParser("text", detect=detect, id_factory=counter_ids())
        done_at = []
        for count, byte in enumerate(bytewise(data), 1):
            done_at += [count] * sum(isinstance(e, ToolCallCompleted) for e in parser.feed(byte))
        assert done_at == [m.end() for m in re.finditer(re.escape(end_marker), text)]


# -- deltas: the compact JSON of the arguments, written left to right (rule 4) -------------------------------


@pytest.mark.parametrize(
    "case", [c for c in corpus() if c.path.stem.startswith(("qwen3", "glm4", "minimax"))], ids=str
)
def test_the_deltas_are_the_arguments_compact_json_and_patches_follow(case: Any) -> None:
    events = feed_chunks(bytewise(case.data()), "text", partial_arguments=True, **case.options())
    check_patches(events)
    deltas: dict[int, str] = {}
    for event in events:
        if isinstance(event, ToolCallDelta):
            deltas[event.index] = deltas.get(event.index, "") + event.arguments_delta
        if isinstance(event, ToolCallCompleted):
            assert deltas[event.call.index] == msgspec.json.encode(event.call.arguments).decode()


def test_a_string_value_streams_as_its_characters_arrive() -> None:
    parser = StreamParser("text", detect=["qwen3_coder"], id_factory=counter_ids())
    assert parser.feed("<tool_call>\n<function=write>\n<parameter=content>\nline one\n") == [
        ToolCallStarted(0, "call_gen_0", "write"),
        ToolCallDelta(0, '{"content":"'),
        ToolCallDelta(0, "line one"),  # the line end waits: it may be the markup's
    ]
    assert parser.feed('say "hi"\n') == [ToolCallDelta(0, '\\nsay \\"hi\\"')]
    call = ToolCall("call_gen_0", "write", {"content": 'line one\nsay "hi"'}, 0, "qwen3_coder")
    assert parser.feed("</parameter>\n</function>") == [
        ToolCallDelta(0, '"'),
        ToolCallDelta(0, "}"),
        ToolCallCompleted(call),
    ]


def test_a_typed_value_is_written_when_it_ends() -> None:
    tools = [{"name": "f", "parameters": {"type": "object", "properties": {"n": {"type": "integer"}}}}]
    parser = StreamParser("text", detect=["glm"], tools=tools, id_factory=counter_ids())
    assert parser.feed("<tool_call>f<arg_key>n</arg_key><arg_value>12") == [
        ToolCallStarted(0, "call_gen_0", "f")
    ]
    assert parser.feed("34</arg_value></tool_call>") == [
        ToolCallDelta(0, '{"n":1234'),
        ToolCallDelta(0, "}"),
        ToolCallCompleted(ToolCall("call_gen_0", "f", {"n": 1234}, 0, "glm")),
    ]


def test_a_name_over_the_limit_leaves_nothing_behind_for_the_next_one() -> None:
    # Found by the fuzzer: the dropped name's pieces shortened the next name's room when chunked.
    long, next_name = "x" * 300, "y" * 200
    text = f'<minimax:tool_call><invoke name="{long}"></invoke><invoke name="{next_name}"></invoke></minimax:tool_call>'
    events = parse_all(text, ["minimax"])
    assert completed(events) == [(next_name, {})]
    assert [error for _, _, error in failed(events)] == ["a tool name longer than the limit"]
