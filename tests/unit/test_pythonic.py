"""The ``pythonic`` detector: Llama 3.2 / 4 call lists, their literals read without ``eval``.

The oracle for values is Python itself: ``ast.literal_eval`` on the test's
own literal (never on anything the library parses), turned into JSON the way
``json.dumps`` does -- tuples as lists, non-string keys as strings.
"""

from __future__ import annotations

import ast
import json
import keyword
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamcalls import (
    Event,
    Limits,
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
    split_at,
    text_run,
)
from tests.support import (
    completed_calls as calls,
)
from tests.support import (
    failed_calls as failures,
)
from tests.support import (
    text_of as texts,
)
from tests.support.conservation import check_conservation

DETECT = ("pythonic",)
run = text_run(DETECT)


def deltas(events: list[Event], index: int = 0) -> str:
    return "".join(e.arguments_delta for e in events if isinstance(e, ToolCallDelta) and e.index == index)


def as_json(value: Any) -> Any:
    """A Python literal's value as JSON has it (json.dumps's mapping)."""
    return json.loads(json.dumps(value))


# -- values: each literal kind, against Python's own reading --------------------------------------

LITERALS = [
    "'single'",
    '"double"',
    "'it\\'s'",
    '"say \\"hi\\""',
    "'tab\\tnew\\nline\\\\back'",
    "'\\x41\\101\\u00e9\\U0001F600'",
    "'\\a\\b\\f\\v\\0'",
    "'unknown \\d escape'",
    "u'unicode prefix'",
    "r'raw \\n \\d'",
    "R'raw \\' quote'",
    '"""triple "quoted" text\nover lines"""',
    "'''triple 'single' ''' ",
    "'é 😀 中文'",
    "''",
    '""',
    "0",
    "42",
    "-4",
    "1_000_000",
    "0x1F",
    "0o17",
    "0b101",
    "-0x10",
    "12345678901234567890123456789",
    "2.5",
    "-0.5",
    ".5",
    "5.",
    "1e10",
    "1E-7",
    "-2.5e+3",
    "1_0.5",
    "True",
    "False",
    "None",
    "[]",
    "[1, 'a', None]",
    "[1, 2,]",
    "()",
    "(1,)",
    "(1, 2)",
    "('a', ('b', ['c']))",
    "{}",
    "{'a': 1, 'b': [True, None]}",
    "{1: 'one', 2.5: 'x', False: 'f', None: 'n'}",
    "{'nested': {'deeper': {'k': -1}}}",
    "{'trailing': 1,}",
    "[\n  1,\n  2\n]",
]


@pytest.mark.filterwarnings("ignore:invalid escape sequence:DeprecationWarning")  # Python's own, on "\\d"
@pytest.mark.parametrize("literal", LITERALS)
def test_each_literal_reads_as_python_does(literal: str) -> None:
    expected = as_json(ast.literal_eval(literal))
    events = run(f"[f(value={literal})]")
    assert calls(events) == [ToolCall("call_gen_0", "f", {"value": expected}, 0, "pythonic")], literal
    # Rule 4: the deltas are the compact JSON of the arguments, written left to right.
    assert deltas(events) == msgspec.json.encode({"value": expected}).decode()


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        ("'Paris'", "a positional argument"),
        ("city", "a positional argument"),
        ("*args", "*args and **kwargs"),
        ("**kwargs", "*args and **kwargs"),
        ("x=1, 2", "a positional argument"),
        ("city=city_name", "a name (city_name) where a literal value should be"),
        ("when=now()", "a call (now) where a literal value should be"),
        ("n=1 + 2", "unexpected '+' after a value"),
        ("n=-x", "an expression, not a literal"),
        ("s={1, 2}", "a set"),
        ("b=b'bytes'", "a b-prefixed string"),
        ("s=f'{x}'", "a f-prefixed string"),
        ("a=1, a=2", "'a' is repeated"),
        ("d={'k': 1, 'k': 2}", "'k' is repeated"),
        ("d={1: 1, '1': 2}", "'1' is repeated"),
        ("t=(1)", "a value in parentheses"),
        ("d={[1]: 2}", "a dict key must be"),
        ("n=1e999", "is not a finite number"),
        ("n=08", "is not a number"),
        ("s='\\ud83d'", "surrogate"),
        ("s='\\N{BULLET}'", "\\N{...}"),
        ("s='\\xZZ'", "a malformed \\x escape"),
        ("l=[1, 2)", "unexpected ')'"),
    ],
)
def test_anything_else_fails_that_call_and_the_list_goes_on(arguments: str, error: str) -> None:
    text = f"[ok(a=1), bad({arguments}), ok(a=2)]\nAfter."
    events = run(text)
    assert [c.arguments for c in calls(events)] == [{"a": 1}, {"a": 2}]
    (failed,) = failures(events)
    assert failed.name == "bad"
    assert error in failed.error, failed.error
    assert failed.raw == f"bad({arguments}), "
    assert texts(events) == "\nAfter."
    check_conservation(text, events)


def test_a_line_end_in_a_one_line_string_fails_the_call() -> None:
    events = run("[f(s='line\nbreak')]")
    assert [e.error for e in failures(events)] == ["a line end inside a one-line string"]


def test_a_comparison_is_no_call() -> None:
    # The first call must show a keyword and "=" that is not "=="; later ones fail instead.
    assert texts(run("[f(a == 1)]")) == "[f(a == 1)]"
    events = run("[ok(), f(a == 1)]")
    assert [e.error for e in failures(events)] == ["an expression, not a keyword argument"]


# -- the commit rule: prose stays prose ------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "[1] See the docs.",
        "[see (a) below]",
        '["a", "b"]',
        "[x(1)]",
        "[x(a)]",
        "[x (a=1)]",  # a space before "(": not a call
        "[note: f(a=1)]",
        "Let me check: [get_weather(location='New York')]",  # not at a line start
        "  [get_weather(city='Paris')]",  # indented
        "[f(a == b)] is true",
        "[TOOL_CALLS] is Mistral's",
        "<|python_start|>print('hi')<|python_end|>",
        "<|python_start|>[1, 2]",
    ],
)
def test_prose_with_brackets_is_text(text: str) -> None:
    events = run(text + "\n")
    assert texts(events) == text + "\n"
    assert not [e for e in events if isinstance(e, (ToolCallStarted, ToolCallFailed))]


def test_with_tools_only_their_names_start_a_list() -> None:
    assert texts(run("[lookup(term='x')]", tools=["get_weather"])) == "[lookup(term='x')]"
    assert calls(run("[get_weather(city='x')]", tools=["get_weather"]))
    # Once a list is committed, a later call is a call whatever its name.
    events = run("[get_weather(city='x'), lookup(term='y')]", tools=["get_weather"])
    assert [c.name for c in calls(events)] == ["get_weather", "lookup"]


def test_wrappers_and_end_tokens_are_markup() -> None:
    for before, after in [
        ("<|python_start|>", "<|python_end|>"),
        ("<|python_start|>\n", "<|python_end|><|eot|>"),
        ("", "<|eot_id|>"),
        ("", " <|eom_id|>"),
        ("", "<|eom|>"),
    ]:
        events = run(f"{before}[get_time()]{after}Next.")
        assert [c.name for c in calls(events)] == ["get_time"]
        assert texts(events) == "Next."


def test_an_unclosed_list_ends_where_its_text_stops_being_one() -> None:
    events = run("[get_time(), get_date()]\n[f(a=1)\nThe answer.")
    assert [c.name for c in calls(events)] == ["get_time", "get_date", "f"]
    assert texts(events) == "\n\nThe answer."
    assert not failures(events)


# -- streaming -------------------------------------------------------------------------------------------


def test_a_string_streams_as_its_characters_arrive_and_other_values_when_complete() -> None:
    parser = StreamParser("text", detect=DETECT, id_factory=counter_ids())
    assert parser.feed(b"[write(path='a.txt', size=12") == [
        ToolCallStarted(0, "call_gen_0", "write"),
        ToolCallDelta(0, '{"path":"a.txt","size":'),  # 12 may still grow
    ]
    assert parser.feed(b"3, text='hello ") == [ToolCallDelta(0, '123,"text":"hello ')]
    assert parser.feed(b"wor") == [ToolCallDelta(0, "wor")]
    assert parser.feed(b"ld\\") == [ToolCallDelta(0, "ld")]  # an escape waits for its letter
    done = parser.feed(b"n')")
    assert done == [
        ToolCallDelta(0, '\\n"}'),
        ToolCallCompleted(
            ToolCall(
                "call_gen_0", "write", {"path": "a.txt", "size": 123, "text": "hello world\n"}, 0, "pythonic"
            )
        ),
    ]


def test_each_call_completes_in_the_feed_that_delivers_its_closing_parenthesis() -> None:
    text = "[get_weather(city='Paris)', days=3), get_time()]<|eot_id|>"
    data = text.encode()
    parser = StreamParser("text", detect=DETECT)
    completed_at = []
    for count in range(1, len(data) + 1):
        if any(isinstance(e, ToolCallCompleted) for e in parser.feed(data[count - 1 : count])):
            completed_at.append(count)
    assert completed_at == [text.index("3)") + 2, text.index("get_time()") + len("get_time()")]


def test_a_call_cut_off_by_the_end_fails() -> None:
    for text in ("[f(a='unclosed", "[f(a=[1, 2", "[ok(), f(a=", "[ok(), f"):
        events = run(text)
        assert [e.name for e in failures(events)] == ["f"] if "f(" in text else [""], text
    assert failures(run("[f(a='x\\"))  # an escape cut off


def test_limits_fail_the_call_at_the_same_character_however_it_is_chunked() -> None:
    limits = Limits(max_arguments_bytes=20, max_json_depth=3)
    text = "[f(a='0123456789abcdefghij'), g(b=[[[1]]]), h(c=1)]"
    whole = run(text, limits=limits)
    assert [(e.name, e.error) for e in failures(whole)] == [
        ("f", "arguments exceed max_arguments_bytes=20"),
        ("g", "arguments nest deeper than max_json_depth=3"),
    ]
    assert [c.name for c in calls(whole)] == ["h"]
    assert normalize(feed_chunks(bytewise(text.encode()), "text", detect=DETECT, limits=limits)) == normalize(
        whole
    )
    check_conservation(text, whole)


# -- properties -------------------------------------------------------------------------------------------

keys = st.from_regex(r"[a-z_][a-z0-9_]{0,6}", fullmatch=True).filter(lambda k: not keyword.iskeyword(k))
floats = st.floats(allow_nan=False, allow_infinity=False)
scalars = st.none() | st.booleans() | st.integers(-(10**30), 10**30) | floats | st.text(max_size=12)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=4) | st.integers(-9, 9), inner, max_size=3)
    ),
    max_leaves=10,
)
call_lists = st.lists(
    st.tuples(st.sampled_from(["get_weather", "f", "a.b"]), st.dictionaries(keys, values, max_size=4)),
    min_size=1,
    max_size=3,
)


def render(name: str, arguments: dict[str, Any]) -> str:
    return f"{name}({', '.join(f'{key}={value!r}' for key, value in arguments.items())})"


def has_repeated_keys(value: Any) -> bool:
    """Would two keys of a dict be one JSON key (1 and '1')?  Such a call fails instead."""
    if isinstance(value, dict):
        names = [key if isinstance(key, str) else json.dumps(key) for key in value]
        return len(set(names)) < len(names) or any(has_repeated_keys(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(has_repeated_keys(v) for v in value)
    return False


@settings(max_examples=200, deadline=None)
@given(listed=call_lists, data=st.data())
def test_any_call_list_reads_back_its_values_under_any_chunking(
    listed: list[tuple[str, dict[str, Any]]], data: st.DataObject
) -> None:
    text = "[" + ", ".join(render(name, arguments) for name, arguments in listed) + "]"
    raw = text.encode()
    cuts = data.draw(st.lists(st.integers(0, len(raw)), max_size=20))
    events = feed_chunks(split_at(raw, cuts), "text", detect=DETECT)
    for index, (name, arguments) in enumerate(listed):
        if has_repeated_keys(arguments):
            assert [e.index for e in failures(events)].count(index) == 1
            continue
        (call,) = [c for c in calls(events) if c.index == index]
        assert call.name == name
        assert call.arguments == as_json(arguments)
        assert deltas(events, index) == msgspec.json.encode(call.arguments).decode()
    assert normalize(events) == normalize(feed_chunks([raw], "text", detect=DETECT))
    check_conservation(text, events)
