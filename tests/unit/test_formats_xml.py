"""Round two's XML-parameter, Python-call and custom-literal formats, against their specifications.

The oracle is tests/data/formats/<format>.json (see its README): every case there, written from the
model's chat template and the peers' documented outputs before any detector existed, runs through
``StreamParser("text", detect=(the format's detector, its family's reasoning detector), model=...,
tools=...)`` whole, one byte at a time and at random splits, and must give the spec's text,
reasoning, calls and failed calls (name and ``raw``).  A case whose chat template opens the
reasoning (``reasoning_open``) runs with ``think_prompted``, as the guide says to.  Besides: each
call completes in the very feed that brings its end marker (eagerness); rule 8 holds
(``tests/support/conservation.py``), for the format alone and with every detector on; the value-typing
rules as tables; ``model=`` maps every id and tag of each spec, and none of its neighbours; and
calls generated from random arguments, written as each template writes them, come back exactly.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamcalls import (
    Event,
    Limits,
    ReasoningDelta,
    StreamParser,
    ToolCallCompleted,
    ToolCallFailed,
    ToolCallStarted,
    detectors_for_model,
)
from streamcalls.detectors import DETECTORS
from tests.support import (
    bytewise,
    check_protocol,
    completed_calls,
    counter_ids,
    failed_calls,
    normalize,
    reasoning_of,
    split_at,
    text_of,
)
from tests.support.conservation import FRAMED, check_conservation

FORMATS = (
    "seed_oss",
    "step3",
    "minimax_m3",
    "minicpm5",
    "kimi_k3",
    "olmo3",
    "lfm2",
    "gemma4",
    "functiongemma",
)
SPECS = {
    name: json.loads(
        (Path(__file__).parent.parent / "data" / "formats" / f"{name}.json").read_text(encoding="utf-8")
    )
    for name in FORMATS
}
CASES = [(name, case) for name, spec in SPECS.items() for case in spec["cases"]]
IDS = [f"{name}/{case['name']}" for name, case in CASES]
TINY = Limits(max_arguments_bytes=48, max_buffered_bytes=64, max_json_depth=3, max_calls=3)
EVERY = tuple(name for name, kind in DETECTORS.items() if not kind.opens_text)
NS = "]<]minimax[>["
# What completes a call, in its markup (the spec's "call_ends"): the end of the first of these in a
# call's segment, or for the Python and Gemma calls the last ")" or "}" of it.
END_MARKERS = {
    "seed_oss": "</function>",
    "step3": "</steptml:invoke>",
    "minimax_m3": NS + "</invoke>",
    "minicpm5": "</function>",
    "kimi_k3": "<|close|>call<|sep|>",
}
LAST_CLOSERS = {"olmo3": ")", "lfm2": ")", "gemma4": "}", "functiongemma": "}"}


def detect(name: str, case: dict[str, Any]) -> tuple[str, ...]:
    """The format's detector and, where its family writes reasoning, the reasoning detector."""
    if case.get("reasoning_open"):
        return (SPECS[name]["detector"], "think_prompted")
    family = detectors_for_model(SPECS[name]["models"]["hf"][0])
    return (SPECS[name]["detector"], *(n for n in family if n == "think"))


def parse(chunks: list[bytes], name: str, case: dict[str, Any], **options: Any) -> list[Event]:
    if "detect" not in options:
        options["detect"] = detect(name, case)
    parser = StreamParser(
        "text", model=case.get("model"), tools=case.get("tools"), id_factory=counter_ids(), **options
    )
    events: list[Event] = []
    for chunk in chunks:
        events += parser.feed(chunk)
    return events + parser.close()


def result(events: list[Event]) -> dict[str, Any]:
    return {
        "text": text_of(events),
        "reasoning": reasoning_of(events),
        "calls": [{"name": c.name, "arguments": c.arguments} for c in completed_calls(events)],
        "failed": [{"name": f.name or None, "raw": f.raw} for f in failed_calls(events)],
    }


def expected(case: dict[str, Any]) -> dict[str, Any]:
    want = dict(case["expect"])
    want["calls"] = [{"name": c["name"], "arguments": c["arguments"]} for c in want["calls"]]
    return want


def check(name: str, case: dict[str, Any], events: list[Event]) -> None:
    assert result(events) == expected(case)
    ids = [c.id for c in completed_calls(events)]
    assert ids == [c.get("id", ids[n]) for n, c in enumerate(case["expect"]["calls"])]  # no ids written
    check_protocol(events)
    check_conservation(case["text"], events, think=any(n in FRAMED for n in detect(name, case)))


@pytest.mark.parametrize(("name", "case"), CASES, ids=IDS)
def test_a_case_whole_and_byte_by_byte(name: str, case: dict[str, Any]) -> None:
    raw = case["text"].encode()
    whole = parse([raw], name, case)
    check(name, case, whole)
    one_by_one = parse(bytewise(raw), name, case)
    check(name, case, one_by_one)
    assert normalize(one_by_one) == normalize(whole)


@pytest.mark.parametrize(("name", "case"), CASES, ids=IDS)
@settings(max_examples=12, deadline=None)
@given(data=st.data())
def test_a_case_at_random_splits(name: str, case: dict[str, Any], data: st.DataObject) -> None:
    raw = case["text"].encode()
    cuts = data.draw(st.lists(st.integers(0, len(raw)), max_size=16))
    chunked = parse(split_at(raw, cuts), name, case)
    check(name, case, chunked)
    assert normalize(chunked) == normalize(parse([raw], name, case))


def marker_ends(name: str, case: dict[str, Any]) -> list[int]:
    """Where each completed call's end marker ends, in bytes of the case's text."""
    ends = []
    at = 0
    for kind, piece in case["segments"]:
        if kind == "call":
            marker = END_MARKERS.get(name)
            stop = piece.index(marker) + len(marker) if marker else piece.rindex(LAST_CLOSERS[name]) + 1
            ends.append(len(case["text"][: at + stop].encode()))
        at += len(piece)
    return ends


WITH_CALLS = [(name, case) for name, case in CASES if case["expect"]["calls"]]


@pytest.mark.parametrize(("name", "case"), WITH_CALLS, ids=[f"{n}/{c['name']}" for n, c in WITH_CALLS])
def test_each_call_completes_in_the_feed_that_brings_its_end_marker(name: str, case: dict[str, Any]) -> None:
    raw = case["text"].encode()
    parser = StreamParser(
        "text", detect=detect(name, case), tools=case.get("tools"), id_factory=counter_ids()
    )
    completed_at = []
    for count in range(1, len(raw) + 1):
        completed_at += [
            count for e in parser.feed(raw[count - 1 : count]) if isinstance(e, ToolCallCompleted)
        ]
    assert completed_at == marker_ends(name, case)


@pytest.mark.parametrize(("name", "case"), CASES, ids=IDS)
def test_a_case_keeps_every_character_with_every_detector_on(name: str, case: dict[str, Any]) -> None:
    raw = case["text"].encode()
    whole = parse([raw], name, case, detect=EVERY)
    check_protocol(whole)
    check_conservation(case["text"], whole, think=True)
    assert normalize(parse(bytewise(raw), name, case, detect=EVERY)) == normalize(whole)


# -- model= -------------------------------------------------------------------------------------------

NAMES = [
    (name, model)
    for name in FORMATS
    for model in SPECS[name]["models"]["hf"] + SPECS[name]["models"]["ollama"]
]
NEIGHBOURS = [(name, n["id"]) for name in FORMATS for n in SPECS[name]["models"]["not"]]


@pytest.mark.parametrize(("name", "model"), NAMES)
def test_model_maps_every_id_and_tag_of_the_spec(name: str, model: str) -> None:
    assert SPECS[name]["detector"] in detectors_for_model(model)
    assert SPECS[name]["detector"] in detectors_for_model(model.upper())  # case-blind


@pytest.mark.parametrize(("name", "model"), NEIGHBOURS)
def test_model_keeps_the_neighbours_apart(name: str, model: str) -> None:
    assert SPECS[name]["detector"] not in detectors_for_model(model)


@pytest.mark.parametrize(
    ("model", "names"),
    [
        ("google/gemma-4-31b-it", ("gemma4", "think")),
        ("google/functiongemma-270m-it", ("functiongemma",)),
        ("google/gemma-3-27b-it", ()),
        ("MiniMaxAI/MiniMax-M3", ("minimax_m3", "think")),
        ("MiniMaxAI/MiniMax-M2", ("minimax", "think")),
        ("moonshotai/Kimi-K3", ("kimi_k3", "think")),
        ("moonshotai/Kimi-K2-Instruct", ("kimi", "think")),
        ("ByteDance-Seed/Seed-OSS-36B-Instruct", ("seed_oss", "think")),
        ("stepfun-ai/step3", ("step3", "think")),
        ("stepfun-ai/Step-3.5-Flash", ("qwen3_coder",)),
        ("LiquidAI/LFM2.5-1.2B-Thinking", ("lfm2", "think")),
        ("LiquidAI/LFM2-VL-1.6B", ()),
    ],
)
def test_a_family_s_detectors_and_its_reasoning(model: str, names: tuple[str, ...]) -> None:
    assert detectors_for_model(model) == names


# -- the typing rules, as tables --------------------------------------------------------------------

FAIL = object()  # the call fails


def arguments_of(text: str, detector: str, tools: list[dict[str, Any]] | None = None) -> Any:
    events = parse([text.encode()], "", {"tools": tools}, detect=(detector,))
    check_conservation(text, events, think=detector in FRAMED)
    if any(isinstance(e, ToolCallFailed) for e in events):
        return FAIL
    [call] = completed_calls(events)
    return call.arguments["v"]


def schema(kind: Any) -> list[dict[str, Any]]:
    return [{"name": "f", "parameters": {"type": "object", "properties": {"v": {"type": kind}}}}]


# (the parameter's type, as written, the value) -- Seed-OSS reads Python's spellings too
SEED_TYPING = [
    ("integer", "42", 42),
    ("integer", "007", "007"),
    ("integer", "3.0", "3.0"),
    ("number", "1E3", 1000.0),
    ("boolean", "true", True),
    ("boolean", "False", False),
    ("boolean", "yes", "yes"),
    ("object", "{'a': [1, None], 'b': True}", {"a": [1, None], "b": True}),
    ("object", '{"a": 1}', {"a": 1}),
    ("object", "{'a': 1, 'b': x}", "{'a': 1, 'b': x}"),
    ("object", "['a']", "['a']"),
    ("array", "('a', 2)", ["a", 2]),
    ("array", "[1, 2], b=3", "[1, 2], b=3"),
    ("integer", "None", None),
    ("string", "None", "None"),
    ("string", "null", "null"),
    (["string", "null"], "null", None),
    ("string", " 42 ", " 42 "),
]


@pytest.mark.parametrize(("kind", "written", "value"), SEED_TYPING)
def test_seed_oss_types_bare_text_by_the_schema_with_python_s_spellings(
    kind: Any, written: str, value: Any
) -> None:
    text = (
        f"<seed:tool_call>\n<function=f>\n<parameter=v>{written}</parameter>\n</function>\n</seed:tool_call>"
    )
    assert arguments_of(text, "seed_oss", schema(kind)) == value
    for other in ("step3", "minicpm5"):  # the same table, without Python's spellings
        if written in ("True", "False", "None") or written.startswith(("{'", "('")):
            continue
        assert arguments_of(render(other, "f", {"v": written}), other, schema(kind)) == value


# (Kimi K3's type attribute, as written, the value)
KIMI_TYPING = [
    ("string", "007", "007"),
    ("string", " {a} ", " {a} "),
    ("number", "3", 3),
    ("number", "2.5", 2.5),
    ("number", "three", FAIL),
    ("number", '"3"', FAIL),
    ("number", "true", FAIL),
    ("integer", "3", 3),
    ("integer", "3.5", FAIL),
    ("boolean", "false", False),
    ("boolean", "0", FAIL),
    ("null", "null", None),
    ("null", "", FAIL),
    ("object", '{"a": [1]}', {"a": [1]}),
    ("object", "[1]", FAIL),
    ("array", '[{"a": null}]', [{"a": None}]),
    ("array", "{}", FAIL),
    ("", "42", 42),  # no type attribute: the schema (integer) types it
    ("date", "42", 42),  # a type it does not know: the schema too
]


@pytest.mark.parametrize(("declared", "written", "value"), KIMI_TYPING)
def test_kimi_k3_types_a_value_by_its_type_attribute(declared: str, written: str, value: Any) -> None:
    typed = f' type="{declared}"' if declared else ""
    text = (
        '<|open|>tools<|sep|><|open|>call tool="f" index="1"<|sep|>'
        f'<|open|>argument key="v"{typed}<|sep|>{written}<|close|>argument<|sep|>'
        "<|close|>call<|sep|><|close|>tools<|sep|>"
    )
    assert arguments_of(text, "kimi_k3", schema("integer")) == value


# (the value as Gemma 4 writes it, the value); FunctionGemma: <escape> instead of <|"|>
GEMMA_TYPING = [
    ('<|"|>Paris<|"|>', "Paris"),
    ('<|"|>42<|"|>', "42"),
    ('<|"|><|"|>', ""),
    ('<|"|>a,b}c:d\\n<|"|>', "a,b}c:d\\n"),
    ("42", 42),
    ("-3", -3),
    ("12345678901234567890123", 12345678901234567890123),
    ("0.25", 0.25),
    ("1.5e3", 1500.0),
    ("true", True),
    ("false", False),
    ("null", None),
    ("None", None),
    ("[]", []),
    ('[1,<|"|>x<|"|>,[true]]', [1, "x", [True]]),
    ("{a:{b:null}}", {"a": {"b": None}}),
    ("[ 1 , 2 ]", [1, 2]),
    ('"S\\u00e3o"', "São"),
    ("Paris", FAIL),
    ("007", FAIL),
    ("1.", FAIL),
    ("{a:1,a:2}", FAIL),
    ("{a}", FAIL),
    ("[1", FAIL),
    ('<|"|>open', FAIL),
]


@pytest.mark.parametrize(("written", "value"), GEMMA_TYPING)
def test_gemma_s_notation_types_its_own_values(written: str, value: Any) -> None:
    tools = schema("integer")  # the schema changes nothing: the notation decides
    assert arguments_of(f"<|tool_call>call:f{{v:{written}}}<tool_call|>", "gemma4", tools) == value
    escaped = written.replace('<|"|>', "<escape>")
    expected = FAIL if written.startswith('"') else value  # no JSON strings in FunctionGemma
    text = f"<start_function_call>call:f{{v:{escaped}}}<end_function_call>"
    assert arguments_of(text, "functiongemma", tools) == expected


# (the value as written, the value): Python literals, and JSON's names as the templates write them
PYTHON_TYPING = [
    ("'x'", "x"),
    ('"it\\u2019s"', "it’s"),
    ("True", True),
    ("true", True),
    ("null", None),
    ("None", None),
    ("-4", -4),
    ("0x10", 16),
    ("1.5e3", 1500.0),
    ("(1, 2)", [1, 2]),
    ('{"k": [null, false]}', {"k": [None, False]}),
    ("{1: 'a'}", {"1": "a"}),
    ("x", FAIL),
    ("f(1)", FAIL),
    ("{1, 2}", FAIL),
]


@pytest.mark.parametrize(("written", "value"), PYTHON_TYPING)
def test_olmo3_and_lfm2_read_python_literals_and_json_names(written: str, value: Any) -> None:
    assert arguments_of(f"<function_calls>f(v={written})</function_calls>", "olmo3") == value
    assert arguments_of(f"<|tool_call_start|>[f(v={written})]<|tool_call_end|>", "lfm2") == value


# (the parameter's schema, the element as written after NS<v>, the value)
M3_TYPING = [
    ({"type": "integer"}, "42", 42),
    ({"type": "integer"}, "018956", "018956"),
    ({"type": "string"}, " 42 \n", " 42 \n"),
    ({"type": ["string", "null"]}, "null", None),
    ({"type": "boolean"}, "true", True),
    ({"type": "object"}, '{"a": 1}', {"a": 1}),
    ({"type": "object"}, "", {}),
    ({"type": "array"}, "", []),
    (
        {"type": "array", "items": {"type": "integer"}},
        f"{NS}<item>1{NS}</item>{NS}<item>2{NS}</item>",
        [1, 2],
    ),
    ({"type": "array"}, f"{NS}<x>1{NS}</x>", ["1"]),  # an array by its schema, whatever its children
    ({}, f"{NS}<item>1{NS}</item>", ["1"]),  # by its children's names
    ({}, f"{NS}<a>1{NS}</a>{NS}<a>2{NS}</a>{NS}<b>3{NS}</b>", {"a": ["1", "2"], "b": "3"}),
    (
        {
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/n"}},
            "additionalProperties": {"type": "boolean"},
        },
        f"{NS}<a>1{NS}</a>{NS}<z>false{NS}</z>",
        {"a": 1, "z": False},
    ),
    ({}, f"text{NS}<a>1{NS}</a>", FAIL),  # text beside elements
    ({}, f"{NS}<a>1{NS}</b>", FAIL),  # a closing tag of another element
]


@pytest.mark.parametrize(("schema_", "written", "value"), M3_TYPING)
def test_minimax_m3_types_elements_by_the_nested_schema(
    schema_: dict[str, Any], written: str, value: Any
) -> None:
    tools = [
        {
            "name": "f",
            "parameters": {
                "type": "object",
                "properties": {"v": schema_},
                "$defs": {"n": {"type": "integer"}},
            },
        }
    ]
    text = f'{NS}<tool_call>\n{NS}<invoke name="f">{NS}<v>{written}{NS}</v>{NS}</invoke>\n{NS}</tool_call>'
    assert arguments_of(text, "minimax_m3", tools) == value


# -- generated calls, written as each template writes them, come back exactly -------------------------


def as_text(value: Any) -> str:
    """A value as the XML templates write it: a string raw, anything else as JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def gemma(value: Any, quote: str) -> str:
    """A value in Gemma's notation."""
    if isinstance(value, str):
        return quote + value + quote
    if isinstance(value, dict):
        return "{" + ",".join(f"{k}:{gemma(v, quote)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(gemma(v, quote) for v in value) + "]"
    return json.dumps(value)


def element(key: str, value: Any) -> str:
    """A MiniMax M3 element: an object's members and an array's items as elements."""
    if isinstance(value, dict):
        inner = "".join(element(k, v) for k, v in value.items())
    elif isinstance(value, list):
        inner = "".join(element("item", v) for v in value)
    else:
        inner = as_text(value)
    return f"{NS}<{key}>{inner}{NS}</{key}>"


GEMMA_QUOTE = '<|"|>'
KIMI_TYPES = {bool: "boolean", int: "number", float: "number", str: "string", list: "array", dict: "object"}


def render(fmt: str, name: str, args: dict[str, Any]) -> str:
    """A call as the format's chat template (or its peers' tests) writes it."""
    if fmt == "seed_oss":
        params = "".join(f"<parameter={k}>{as_text(v)}</parameter>\n" for k, v in args.items())
        return f"<seed:tool_call>\n<function={name}>\n{params}</function>\n</seed:tool_call>"
    if fmt == "step3":
        params = "".join(
            f'<steptml:parameter name="{k}">{as_text(v)}</steptml:parameter>\n' for k, v in args.items()
        )
        return (
            f'<｜tool_calls_begin｜>\n<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="{name}">\n'
            f"{params}</steptml:invoke><｜tool_call_end｜>\n<｜tool_calls_end｜>"
        )
    if fmt == "minicpm5":
        params = "".join(f'<param name="{k}">{as_text(v)}</param>' for k, v in args.items())
        return f'<function name="{name}">{params}</function>'
    if fmt == "minimax_m3":
        elements = "".join(element(k, v) for k, v in args.items())
        return f'{NS}<tool_call>\n{NS}<invoke name="{name}">{elements}{NS}</invoke>\n{NS}</tool_call>'
    if fmt == "kimi_k3":
        arguments = "".join(
            f'<|open|>argument key="{k}" type="{KIMI_TYPES.get(type(v), "null")}"<|sep|>{as_text(v)}'
            "<|close|>argument<|sep|>"
            for k, v in args.items()
        )
        return (
            f'<|open|>tools<|sep|><|open|>call tool="{name}" index="1"<|sep|>{arguments}'
            "<|close|>call<|sep|><|close|>tools<|sep|>"
        )
    if fmt in ("olmo3", "lfm2"):
        call = f"{name}({', '.join(f'{k}={v!r}' for k, v in args.items())})"
        return (
            f"<function_calls>{call}</function_calls>"
            if fmt == "olmo3"
            else f"<|tool_call_start|>[{call}]<|tool_call_end|>"
        )
    if fmt == "gemma4":
        return "<|tool_call>call:" + name + gemma(args, GEMMA_QUOTE) + "<tool_call|>"
    return f"<start_function_call>call:{name}{gemma(args, '<escape>')}<end_function_call>"


def schema_of(value: Any) -> dict[str, Any]:
    """The schema that types ``value`` as it was generated (for the formats whose values are bare text)."""
    if value is None:
        return {"type": ["string", "null"]}
    if isinstance(value, dict):
        return {"type": "object", "properties": {k: schema_of(v) for k, v in value.items()}}
    if isinstance(value, list):
        return {"type": "array", "items": schema_of(value[0]) if value else {}}
    kinds = {bool: "boolean", int: "integer", float: "number", str: "string"}
    return {"type": kinds[type(value)]}


keys = st.text("abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=5).filter(lambda k: k != "item")
plain = st.text("ab é\"'{}[],:&;\\", max_size=8)  # no "<": the formats' tags stay the only tags
scalars = plain | st.integers(-1000, 10**20) | st.booleans() | st.sampled_from([0.5, -2.25, 1e20]) | st.none()
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3),
    max_leaves=6,
)


# MiniMax M3 writes objects and arrays as elements: arrays of one kind of scalar, so that a schema
# types their items (arrays of objects are the specification's cases).
leaves = plain | st.integers(-1000, 1000) | st.booleans()
elements = st.recursive(
    leaves,
    lambda inner: (
        st.lists(plain, max_size=3)
        | st.lists(st.integers(), max_size=3)
        | st.dictionaries(keys, inner, max_size=3)
    ),
    max_leaves=6,
)
prose = st.text("ab \n.,!?{}[]()<>|:=-_é", max_size=16)


@pytest.mark.parametrize("fmt", FORMATS)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_generated_calls_come_back_exactly_for_any_chunking(fmt: str, data: st.DataObject) -> None:
    values = elements if fmt == "minimax_m3" else json_values
    calls = data.draw(
        st.lists(st.dictionaries(keys, values, max_size=3), min_size=1, max_size=3).map(
            lambda found: [(f"f{number}", args) for number, args in enumerate(found)]
        )
    )
    before = data.draw(prose)
    text = before + "\n" + "\n".join(render(fmt, name, args) for name, args in calls)
    tools = [{"name": name, "parameters": schema_of(args)} for name, args in calls]
    raw = text.encode()
    cuts = data.draw(st.lists(st.integers(0, len(raw)), max_size=10))
    events = parse(split_at(raw, cuts), fmt, {"tools": tools}, detect=(fmt,))
    assert [(c.name, c.arguments) for c in completed_calls(events)] == calls
    assert text_of(events) == before + "\n" * len(calls)
    check_conservation(text, events, think=fmt in FRAMED)


# -- markup of these formats, whole, cut and damaged, in prose: nothing lost, any chunking -------------

FRAGMENTS = (
    "<seed:tool_call>",
    "</seed:tool_call>",
    "<function=f>",
    "<parameter=a>",
    "</parameter>",
    "</function>",
    "<｜tool_calls_begin｜>",
    "<｜tool_call_begin｜>function<｜tool_sep｜>",
    '<steptml:invoke name="f">',
    '<steptml:parameter name="a">',
    "</steptml:parameter>",
    "</steptml:invoke><｜tool_call_end｜>",
    "<｜tool_calls_end｜>",
    f"{NS}<tool_call>",
    f'{NS}<invoke name="f">',
    f"{NS}<a>",
    f"{NS}</a>",
    f"{NS}</invoke>",
    f"{NS}</tool_call>",
    "</mm:think>",
    "<mm:think>",
    '<function name="f">',
    '<param name="a">',
    "<![CDATA[",
    "]]>",
    "</param>",
    "<|open|>tools<|sep|>",
    '<|open|>call tool="f" index="1"<|sep|>',
    '<|open|>argument key="a" type="number"<|sep|>',
    "<|close|>argument<|sep|>",
    "<|close|>call<|sep|>",
    "<|close|>tools<|sep|>",
    "<|close|>think<|sep|>",
    "<|open|>response<|sep|>",
    "<|end_of_msg|>",
    "<function_calls>",
    "</function_calls>",
    "<|tool_call_start|>[",
    "<|tool_call_end|>",
    "<|tool_call>call:f{",
    '<|"|>',
    "<tool_call|>",
    "<|tool_response>",
    "<start_function_call>call:f{",
    "<escape>",
    "<end_function_call>",
    "<|channel>thought\n",
    "<channel|>",
    "a:",
    "}",
    ")",
    "\n",
)


@st.composite
def markup(draw: st.DrawFn) -> str:
    fmt = draw(st.sampled_from(FORMATS))
    values = elements if fmt == "minimax_m3" else json_values
    text = render(
        fmt, draw(st.sampled_from(["f", "get_weather"])), draw(st.dictionaries(keys, values, max_size=2))
    )
    if draw(st.booleans()):
        return text
    where = draw(st.integers(0, len(text)))
    kind = draw(st.sampled_from(["cut", "drop", "add"]))
    if kind == "cut":
        return text[:where]
    if kind == "drop":
        return text[:where] + text[where + 1 :]
    return text[:where] + draw(st.sampled_from(list("<>|{}[](),:\"'=\n x"))) + text[where:]


documents = st.lists(st.one_of(prose, st.sampled_from(FRAGMENTS), markup()), min_size=1, max_size=6).map(
    "".join
)
SETS = sorted(
    {(name,) for name in FORMATS}
    | {("fence", "json", *detectors_for_model(SPECS[name]["models"]["hf"][0])) for name in FORMATS}
    | {("think_prompted", name) for name in FORMATS}
    | {EVERY}
)


@settings(max_examples=300, deadline=None)
@given(text=documents, detect=st.sampled_from(SETS), tiny=st.booleans(), data=st.data())
def test_markup_in_prose_keeps_every_character_for_any_chunking(
    text: str, detect: tuple[str, ...], tiny: bool, data: st.DataObject
) -> None:
    options: dict[str, Any] = {"detect": detect, "limits": TINY} if tiny else {"detect": detect}
    raw = text.encode()
    whole = parse([raw], "", {}, **options)
    check_protocol(whole)
    framed = any(name in FRAMED for name in detect)
    check_conservation(text, whole, think=framed)
    assert normalize(parse(bytewise(raw), "", {}, **options)) == normalize(whole)
    cuts = data.draw(st.lists(st.integers(0, len(raw)), max_size=12))
    chunked = parse(split_at(raw, cuts), "", {}, **options)
    check_conservation(text, chunked, think=framed)
    assert normalize(chunked) == normalize(whole)


# Prose full of these formats' beginnings, never whole: with every detector on, no call and no loss.
BEGINNINGS = (
    "<seed:tool_ca",
    "<seed:thi",
    "<｜tool_calls_beg",
    "<｜tool_call_begin｜>function",
    "<steptml:invoke name=",
    NS[:6],
    NS + "<tool_ca",
    NS + "<invoke",
    "</mm:thin",
    "<mm:think",
    "<function name",
    "<function_call",
    "<param name=",
    "<|tool_call_sta",
    "<|tool_call_end|>",
    "<|tool_ca",
    "call:f",
    '<|"|>',
    "<tool_call|>",
    "<start_function_ca",
    "<escape>",
    "<|open|>too",
    "<|open|>call",
    "<|sep|>",
    "<|close|>respon",
    "<|end_of_ms",
    "<|channel>though",
    "<channel|",
)
TRIGGERS = [re.compile(t.pattern) for kind in DETECTORS.values() for t in kind.triggers]
beginnings = (
    st.lists(
        st.sampled_from(BEGINNINGS) | st.text("ab \n\t.,;:!?<>|'\"\\/=-_()09né😀", max_size=6), max_size=14
    )
    .map("".join)
    .filter(lambda text: not any(trigger.search(text) for trigger in TRIGGERS))
)


@settings(max_examples=300, deadline=None)
@given(text=beginnings, cuts=st.lists(st.integers(0, 300), max_size=12))
def test_prose_with_these_formats_beginnings_makes_no_call_with_every_detector_on(
    text: str, cuts: list[int]
) -> None:
    events = parse(split_at(text.encode(), cuts), "", {}, detect=EVERY)
    assert not [
        e
        for e in events
        if isinstance(e, (ToolCallStarted, ToolCallCompleted, ToolCallFailed, ReasoningDelta))
    ]
    assert text_of(events) == text


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_long_value_in_small_reads(fmt: str) -> None:
    value = "".join(f"line {n}: a, {{b}} [c] (d) 'e' \"f\" é\\\\ " for n in range(400))  # about 16 KB
    args = {"text": value, "n": 7, "tags": ["x" * 300, "y"]}
    if fmt == "minimax_m3":
        args["tags"] = "x" * 3000  # a second long leaf after the first
    text = "Before.\n" + render(fmt, "f", args) + "\nAfter."
    tools = [{"name": "f", "parameters": schema_of(args)}]
    raw = text.encode()
    events = parse(split_at(raw, range(0, len(raw), 7)), fmt, {"tools": tools}, detect=(fmt,))
    assert [(c.name, c.arguments) for c in completed_calls(events)] == [("f", args)]
    assert text_of(events) == "Before.\n\nAfter."


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_value_past_the_limit_fails_its_call_and_the_text_goes_on(fmt: str) -> None:
    args = {"text": "abc " * 500, "n": 7}
    text = "Before.\n" + render(fmt, "f", args) + "\nAfter."
    tools = [{"name": "f", "parameters": schema_of(args)}]
    raw = text.encode()
    limits = Limits(max_arguments_bytes=1000)
    for chunks in ([raw], split_at(raw, range(0, len(raw), 5))):
        events = parse(chunks, fmt, {"tools": tools}, detect=(fmt,), limits=limits)
        [failed] = failed_calls(events)
        assert "max_arguments_bytes=1000" in failed.error
        assert failed.name == "f"
        assert not completed_calls(events)
        assert text_of(events) == "Before.\n\nAfter."
        check_conservation(text, events)


@pytest.mark.parametrize(
    ("text", "reasoning", "rest"),
    [
        ("Plan.<|open|>response<|sep|>Hi.<|close|>response<|sep|>", "Plan.", "Hi."),
        ('Plan.<|open|>tools<|sep|><|open|>call tool="f" index="1"<|sep|><|close|>call<|sep|>', "Plan.", ""),
        ("Plan.<|close|>think<|sep|><|open|>response<|sep|>Hi.", "Plan.", "Hi."),
        ("<|open|>think<|sep|>Plan.<|open|>response<|sep|>Hi.", "Plan.", "Hi."),
    ],
)
def test_kimi_k3_s_reasoning_ends_where_its_next_section_begins(text: str, reasoning: str, rest: str) -> None:
    # The think section's closer may be missing: the response or tools section ends it (as llama.cpp reads it).
    events = parse(bytewise(text.encode()), "", {}, detect=("think_prompted", "kimi_k3"))
    assert reasoning_of(events) == reasoning
    assert text_of(events) == rest
    check_conservation(text, events, think=True)


# -- malformed markup, format by format: (detector, text, the calls, the failed calls' (name, raw), the text) -----

_CALL_F = '<|open|>call tool="f" index="1"<|sep|>'
_ARG_A = '<|open|>argument key="a" type="string"<|sep|>x<|close|>argument<|sep|>'
_ENTRY = "<｜tool_call_begin｜>function<｜tool_sep｜>"
MALFORMED: list[tuple[str, str, list[str], list[tuple[str, str]], str]] = [
    ("kimi_k3", "<|open|>tools<|sep|>oops", [], [("", "<|open|>tools<|sep|>")], "oops"),
    (
        "kimi_k3",
        f"<|open|>tools<|sep|>{_CALL_F}junk<|close|>call<|sep|><|close|>tools<|sep|>after",
        [],
        [("f", f"<|open|>tools<|sep|>{_CALL_F}junk<|close|>call<|sep|><|close|>tools<|sep|>")],
        "after",
    ),
    (
        "kimi_k3",
        f'<|open|>tools<|sep|>{_CALL_F}{_ARG_A}<|open|>json type="object"<|sep|>{{}}<|close|>json<|sep|>'
        "<|close|>call<|sep|><|close|>tools<|sep|>",
        [],
        [
            (
                "f",
                f'<|open|>tools<|sep|>{_CALL_F}{_ARG_A}<|open|>json type="object"<|sep|>{{}}<|close|>json<|sep|>'
                "<|close|>call<|sep|><|close|>tools<|sep|>",
            )
        ],
        "",
    ),
    (
        "kimi_k3",
        f'<|open|>tools<|sep|>{_CALL_F}<|open|>argument type="string"<|sep|>x<|close|>argument<|sep|>'
        "<|close|>call<|sep|><|close|>tools<|sep|>",
        [],
        [
            (
                "f",
                f'<|open|>tools<|sep|>{_CALL_F}<|open|>argument type="string"<|sep|>x<|close|>argument<|sep|>'
                "<|close|>call<|sep|><|close|>tools<|sep|>",
            )
        ],
        "",
    ),
    (
        "kimi_k3",
        f'<|open|>tools<|sep|>{_CALL_F}<|open|>json type="object"<|sep|>{{"a": 1}} x<|close|>json<|sep|>'
        "<|close|>call<|sep|><|close|>tools<|sep|>",
        [],
        [
            (
                "f",
                f'<|open|>tools<|sep|>{_CALL_F}<|open|>json type="object"<|sep|>{{"a": 1}} x<|close|>json<|sep|>'
                "<|close|>call<|sep|><|close|>tools<|sep|>",
            )
        ],
        "",
    ),
    (
        "kimi_k3",
        f'<|open|>tools<|sep|>{_CALL_F}<|open|>json type="object"<|sep|>[1]<|close|>json<|sep|><|close|>call<|sep|>'
        "<|close|>tools<|sep|>",
        [],
        [
            (
                "f",
                f'<|open|>tools<|sep|>{_CALL_F}<|open|>json type="object"<|sep|>[1]<|close|>json<|sep|>'
                "<|close|>call<|sep|><|close|>tools<|sep|>",
            )
        ],
        "",
    ),
    (
        "kimi_k3",
        f'<|open|>tools<|sep|>{_CALL_F}<|open|>json type="object"<|sep|>{{"a": <|close|>json<|sep|>'
        "<|close|>call<|sep|><|close|>tools<|sep|>",
        [],
        [
            (
                "f",
                f'<|open|>tools<|sep|>{_CALL_F}<|open|>json type="object"<|sep|>{{"a": <|close|>json<|sep|>'
                "<|close|>call<|sep|><|close|>tools<|sep|>",
            )
        ],
        "",
    ),
    ("kimi_k3", f"<|open|>tools<|sep|>{_CALL_F}{_ARG_A}<|close|>tools<|sep|>.", ["f"], [], "."),
    (
        "kimi_k3",
        '<|open|>tools<|sep|><|open|>call tool="a b" index="1"<|sep|><|close|>call<|sep|><|close|>tools<|sep|>',
        [],
        [
            (
                "",
                '<|open|>tools<|sep|><|open|>call tool="a b" index="1"<|sep|><|close|>call<|sep|><|close|>tools<|sep|>',
            )
        ],
        "",
    ),
    (
        "kimi_k3",
        '<|open|>tools<|sep|><|open|>call tool="' + "x" * 600 + '"<|sep|><|close|>call<|sep|>',
        [],
        [("", '<|open|>tools<|sep|><|open|>call tool="' + "x" * 600 + '"<|sep|><|close|>call<|sep|>')],
        "",
    ),
    (
        "step3",
        f"<｜tool_calls_begin｜>{_ENTRY}get_weather\n{{}}<｜tool_call_end｜><｜tool_calls_end｜>!",
        [],
        [("", f"<｜tool_calls_begin｜>{_ENTRY}get_weather\n{{}}<｜tool_call_end｜><｜tool_calls_end｜>")],
        "!",
    ),
    (
        "step3",
        "<｜tool_calls_begin｜><｜tool_call_begin｜>" + "x" * 300 + "<｜tool_calls_end｜>",
        [],
        [("", "<｜tool_calls_begin｜><｜tool_call_begin｜>" + "x" * 300 + "<｜tool_calls_end｜>")],
        "",
    ),
    (
        "step3",
        f'<｜tool_calls_begin｜>{_ENTRY}<steptml:invoke name="f">\n</steptml:invoke>\n<｜tool_calls_end｜>',
        ["f"],
        [],
        "",
    ),
    (
        "minicpm5",
        '<function name="f"><param name="a"><![CDATA[x]]>y</param></function>.',
        [],
        [("f", '<function name="f"><param name="a"><![CDATA[x]]>y</param></function>')],
        ".",
    ),
    (
        "minicpm5",
        '<function name="f"><param name="' + "a" * 300 + '">x</param></function>',
        [],
        [("f", '<function name="f"><param name="' + "a" * 300 + '">x</param></function>')],
        "",
    ),
    ("minimax_m3", f"{NS}<tool_call>\nhello", [], [("", f"{NS}<tool_call>")], "\nhello"),
    ("minimax_m3", f"{NS}<tool_call>{NS}</tool_call>", [], [("", f"{NS}<tool_call>{NS}</tool_call>")], ""),
    (
        "minimax_m3",
        f'{NS}<tool_call>{NS}<invoke name="f">junk{NS}</invoke>{NS}</tool_call>',
        [],
        [("f", f'{NS}<tool_call>{NS}<invoke name="f">junk{NS}</invoke>{NS}</tool_call>')],
        "",
    ),
    (
        "minimax_m3",
        f'{NS}<tool_call>{NS}<invoke name="f">{NS}x>{NS}</invoke>{NS}</tool_call>',
        [],
        [("f", f'{NS}<tool_call>{NS}<invoke name="f">{NS}x>{NS}</invoke>{NS}</tool_call>')],
        "",
    ),
    (
        "minimax_m3",
        f'{NS}<tool_call>{NS}<invoke name="f">{NS}</nope>{NS}</invoke>{NS}</tool_call>',
        [],
        [("f", f'{NS}<tool_call>{NS}<invoke name="f">{NS}</nope>{NS}</invoke>{NS}</tool_call>')],
        "",
    ),
    (
        "minimax_m3",
        f'{NS}<tool_call>{NS}<invoke name="f">{NS}< a>1{NS}</ a>{NS}</invoke>{NS}</tool_call>',
        [],
        [("f", f'{NS}<tool_call>{NS}<invoke name="f">{NS}< a>1{NS}</ a>{NS}</invoke>{NS}</tool_call>')],
        "",
    ),
    ("minimax_m3", f'{NS}<tool_call>{NS}<invoke name="f">{NS}<a>1{NS}</a>{NS}</tool_call>', ["f"], [], ""),
    (
        "minimax_m3",
        f'{NS}<tool_call>{NS}<invoke name="a b">{NS}</invoke>{NS}</tool_call>',
        [],
        [("", f'{NS}<tool_call>{NS}<invoke name="a b">{NS}</invoke>{NS}</tool_call>')],
        "",
    ),
    ("gemma4", "<|tool_call>call:{a:1}<tool_call|>.", [], [("", "<|tool_call>call:{a:1}<tool_call|>")], "."),
    (
        "gemma4",
        "<|tool_call>oops<|tool_call>call:f{}<tool_call|>",
        ["f"],
        [("", "<|tool_call>oops")],
        "",
    ),
    ("gemma4", "<|tool_call>ca", [], [("", "<|tool_call>ca")], ""),
    (
        "gemma4",
        "<|tool_call>call:" + "f" * 300 + "{}",
        [],
        [("", "<|tool_call>call:" + "f" * 300 + "{}")],
        "",
    ),
    (
        "gemma4",
        '<|tool_call>call:f{a:"\\q"}<tool_call|>',
        [],
        [("f", '<|tool_call>call:f{a:"\\q"}<tool_call|>')],
        "",
    ),
    (
        "gemma4",
        "<|tool_call>call:f{a:1 b:2}<tool_call|>",
        [],
        [("f", "<|tool_call>call:f{a:1 b:2}<tool_call|>")],
        "",
    ),
    (
        "gemma4",
        "<|tool_call>call:f{a:[1,}]}<tool_call|>",
        [],
        [("f", "<|tool_call>call:f{a:[1,}]}<tool_call|>")],
        "",
    ),
    ("gemma4", "<|tool_call>call:f{a:1}junk", ["f"], [], "junk"),
    (
        "functiongemma",
        "<start_function_call>call:f{a:@}",
        [],
        [("f", "<start_function_call>call:f{a:@}")],
        "",
    ),
]


@pytest.mark.parametrize(("detector", "text", "calls", "failed", "rest"), MALFORMED)
def test_malformed_markup_fails_visibly_and_the_text_goes_on(
    detector: str, text: str, calls: list[str], failed: list[tuple[str, str]], rest: str
) -> None:
    raw = text.encode()
    for chunks in ([raw], bytewise(raw)):
        events = parse(chunks, "", {}, detect=(detector,))
        assert [c.name for c in completed_calls(events)] == calls
        assert [(f.name, f.raw) for f in failed_calls(events)] == failed
        assert text_of(events) == rest
        check_protocol(events)
        check_conservation(text, events)


@pytest.mark.parametrize("fmt", ["minimax_m3", "kimi_k3", "gemma4", "olmo3"])
def test_arguments_nested_past_the_depth_limit_fail_and_the_text_goes_on(fmt: str) -> None:
    args = {"a": {"b": {"c": {"d": {"e": "deep"}}}}}
    text = render(fmt, "f", args) + "\nAfter."
    if fmt == "kimi_k3":  # the whole arguments as one json element
        text = (
            f'<|open|>tools<|sep|>{_CALL_F}<|open|>json type="object"<|sep|>{json.dumps(args)}<|close|>json<|sep|>'
            "<|close|>call<|sep|><|close|>tools<|sep|>\nAfter."
        )
    raw = text.encode()
    for chunks in ([raw], bytewise(raw)):
        events = parse(chunks, fmt, {}, detect=(fmt,), limits=Limits(max_json_depth=3))
        [failed] = failed_calls(events)
        assert "max_json_depth=3" in failed.error
        assert text_of(events) == "\nAfter."
        check_conservation(text, events)
