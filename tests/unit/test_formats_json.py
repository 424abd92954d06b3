"""The JSON-in-markup formats of issue 21 against their specifications (tests/data/formats).

Every case of each spec file runs through ``StreamParser(provider="text", detect=(its detector,)
+ its family's reasoning, model=..., tools=...)``: whole, one byte at a time and at random splits,
and must give the spec's expected text, reasoning, calls (name, arguments, id where the markup
writes one) and failed calls (name, raw).  The expected results were written by hand from the
formats' chat templates and the peers' documented outputs, before any detector existed: they
are the oracle.  Besides: each call completes in the very feed that brings the end of its
object (its end marker, for Hermes blocks), and no character is lost (rule 8, tests/support/conservation.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamcalls import (
    Event,
    Limits,
    StreamParser,
    ToolCallCompleted,
    detectors_for_model,
)
from streamcalls._policy import has_native_calls
from streamcalls.detectors import DETECTORS
from streamcalls.detectors._parts.jsoncalls import MAX_SKIP, Body, JsonCalls
from tests.support import (
    bytewise,
    check_protocol,
    completed_calls,
    counter_ids,
    failed_calls,
    feed_chunks,
    normalize,
    reasoning_of,
    split_at,
    text_of,
)
from tests.support.conservation import check_conservation

FORMATS = Path(__file__).parent.parent / "data" / "formats"
# The formats of this file: JSON in markup (the XML, Python-call and custom-literal ones have theirs).
NAMES = (
    "jamba",
    "hunyuan",
    "internlm",
    "apertus",
    "cohere_command",
    "granite",
    "granite_fc",
    "granite4",
    "ernie",
    "phi4_mini",
    "xlam",
    "longcat",
    "nemotron",
    "gigachat",
    "functionary_v31",
    "functionary_v32",
)
SPECS = {name: json.loads((FORMATS / f"{name}.json").read_text(encoding="utf-8")) for name in NAMES}
CASES = [(name, case) for name, spec in SPECS.items() for case in spec["cases"]]
IDS = [f"{name}/{case['name']}" for name, case in CASES]
# The detectors a family adds for its reasoning and the framing of its answer.
REASONING = {"think", "answer"}


def detect_for(name: str, case: dict[str, Any]) -> tuple[str, ...]:
    """The spec's detector, with its family's reasoning rules where the case names the model."""
    detector = SPECS[name]["detector"]
    extra: list[str] = []
    model = case.get("model")
    if model:
        family = detectors_for_model(model)
        assert detector in family, f"{model} maps to {family}, not {detector}"
        extra = [d for d in family if d in REASONING]
    if case.get("reasoning_open"):
        extra.insert(0, "think_prompted")  # the prompt opened the reasoning
    return (detector, *extra)


def run(name: str, case: dict[str, Any], chunks: list[bytes]) -> list[Event]:
    parser = StreamParser(
        "text",
        detect=detect_for(name, case),
        model=case.get("model"),
        tools=case.get("tools"),
        id_factory=counter_ids(),
    )
    events: list[Event] = []
    for chunk in chunks:
        events += parser.feed(chunk)
    return events + parser.close()


def check(case: dict[str, Any], events: list[Event]) -> None:
    expect = case["expect"]
    assert text_of(events) == expect["text"]
    assert reasoning_of(events) == expect["reasoning"]
    calls = completed_calls(events)
    wants = expect["calls"] + [{}] * (len(calls) - len(expect["calls"]))
    got = [
        {"name": c.name, "arguments": c.arguments, **({"id": c.id} if "id" in want else {})}
        for c, want in zip(calls, wants, strict=False)
    ]
    assert got == expect["calls"]
    assert [{"name": f.name or None, "raw": f.raw} for f in failed_calls(events)] == expect["failed"]
    check_protocol(events)


@pytest.mark.parametrize(("name", "case"), CASES, ids=IDS)
def test_a_case_gives_its_expected_results_whole_and_byte_by_byte(name: str, case: dict[str, Any]) -> None:
    raw = case["text"].encode()
    whole = run(name, case, [raw])
    check(case, whole)
    check_conservation(case["text"], whole, think=True)
    bytes_ = run(name, case, bytewise(raw))
    check(case, bytes_)
    assert normalize(bytes_) == normalize(whole)


@pytest.mark.parametrize(("name", "case"), CASES, ids=IDS)
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_a_case_gives_the_same_events_at_any_split(
    name: str, case: dict[str, Any], data: st.DataObject
) -> None:
    raw = case["text"].encode()
    cuts = data.draw(st.lists(st.integers(0, len(raw)), max_size=8))
    events = run(name, case, split_at(raw, cuts))
    check(case, events)
    check_conservation(case["text"], events, think=True)
    assert normalize(events) == normalize(run(name, case, [raw]))


def call_ends(name: str, case: dict[str, Any]) -> list[int | None]:
    """Where each completed call's end arrives, in bytes: its object's closing brace (a Hermes
    block's end tag); None for a call the end of the text completes (code after a python tag, a
    Hermes block whose end tag never came)."""
    ends: list[int | None] = []
    pos = 0
    for kind, piece in case["segments"]:
        start, pos = pos, pos + len(piece)
        if kind != "call":
            continue
        if SPECS[name]["detector"] == "hermes":  # a Hermes block completes at its end tag
            if not piece.endswith("</tool_call>"):
                ends.append(None)  # (or, its object closed, when the text ends)
                continue
            end = start + len(piece)
        elif "}" in piece:
            end = start + piece.rindex("}") + 1
        else:
            ends.append(None)
            continue
        ends.append(len(case["text"][:end].encode()))
    return ends


@pytest.mark.parametrize(("name", "case"), CASES, ids=IDS)
def test_each_call_completes_in_the_feed_that_brings_its_end(name: str, case: dict[str, Any]) -> None:
    raw = case["text"].encode()
    parser = StreamParser(
        "text", detect=detect_for(name, case), model=case.get("model"), tools=case.get("tools")
    )
    arrived: list[int | None] = []
    for count in range(1, len(raw) + 1):
        arrived += [count for e in parser.feed(raw[count - 1 : count]) if isinstance(e, ToolCallCompleted)]
    arrived += [None for e in parser.close() if isinstance(e, ToolCallCompleted)]
    expected = call_ends(name, case)
    if not expected:
        assert arrived == []
        return
    # A call whose end marker never came completes at its closing brace all the same.
    assert arrived == expected


def test_every_format_of_this_file_is_registered_with_its_detector() -> None:
    for spec in SPECS.values():
        assert spec["detector"] in DETECTORS


def test_xlam_shares_the_json_detector_s_triggers_so_the_search_looks_for_them_once() -> None:
    json_triggers = {(t.pattern, t.line_start) for t in DETECTORS["json"].triggers}
    xlam_triggers = {(t.pattern, t.line_start) for t in DETECTORS["xlam"].triggers}
    assert {("`" + "``json[ \\t]{0,64}\\r?\\n", True), ("\\[", True)} <= json_triggers & xlam_triggers


# -- model= --------------------------------------------------------------------------------------

MODEL_IDS = [
    (name, model) for name, spec in SPECS.items() for model in spec["models"]["hf"] + spec["models"]["ollama"]
]
NEIGHBOURS = [
    (name, neighbour["id"])
    for name, spec in SPECS.items()
    for neighbour in spec["models"]["not"]
    if not neighbour["why"].startswith("not checked")  # (the spec says it could not tell)
]


@pytest.mark.parametrize(("name", "model"), MODEL_IDS, ids=[f"{n}/{m}" for n, m in MODEL_IDS])
def test_model_maps_each_id_and_tag_of_the_spec_to_its_detector(name: str, model: str) -> None:
    family = detectors_for_model(model)
    assert SPECS[name]["detector"] in family
    assert detectors_for_model(model.upper()) == family


@pytest.mark.parametrize(("name", "model"), NEIGHBOURS, ids=[f"{n}/{m}" for n, m in NEIGHBOURS])
def test_model_keeps_each_neighbour_of_the_spec_apart(name: str, model: str) -> None:
    # Jamba and Hunyuan share a detector: their families differ by Hunyuan's reasoning and answer tags.
    own = detectors_for_model(SPECS[name]["models"]["hf"][0])
    assert detectors_for_model(model) != own


@pytest.mark.parametrize(
    ("model", "family"),
    [
        ("ibm-granite/granite-3.3-8b-instruct", ("granite", "think", "answer")),
        ("granite3.2:8b", ("granite", "think", "answer")),
        ("ibm-granite/granite-4.0-h-small", ("hermes",)),
        ("granite4:micro", ("hermes",)),
        ("ibm-granite/granite-20b-functioncalling", ("granite_fc",)),
        ("ibm-granite/granite-3b-code-instruct-2k", ()),  # Granite Code: no call markup
        ("ai-sage/GigaChat3.5-Flash", ()),  # GigaChat 3.5 writes its own markup
        ("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B", ()),  # Nemotron 3 Nano writes Qwen3-Coder's XML
        ("Salesforce/Llama-xLAM-2-8b-fc-r", ("xlam", "think")),  # xLAM, not Llama
        ("CohereLabs/c4ai-command-r-plus-08-2024", ()),  # Command R+ (2024): an older format
        ("command-r-08-2024", ()),
    ],
)
def test_the_order_keeps_granite_gigachat_nemotron_xlam_and_command_apart(
    model: str, family: tuple[str, ...]
) -> None:
    assert detectors_for_model(model) == family


COHERE_CALL = (
    '<|START_THINKING|>Paris.<|END_THINKING|><|START_ACTION|>[{"tool_call_id": "0", "tool_name": '
    '"get_weather", "parameters": {"city": "Paris"}}]<|END_ACTION|>'
)


@pytest.mark.parametrize(
    "model", ["CohereLabs/command-a-reasoning-08-2025", "command-r7b:7b", "command-a:111b"]
)
def test_cohere_open_weights_served_as_text_read_their_markup_though_command_is_a_hosted_name(
    model: str,
) -> None:
    # "command-..." names Cohere's hosted models, which have native calls: bare JSON is not read
    # for them, but a family's markup is read in every row of the policy.
    assert has_native_calls(model)
    chunk = {"model": model, "choices": [{"index": 0, "delta": {"content": COHERE_CALL}}]}
    body = b"data: " + json.dumps(chunk).encode() + b"\n\ndata: [DONE]\n\n"
    events = feed_chunks([body], "openai", model=model)
    [call] = completed_calls(events)
    assert (call.id, call.name, call.arguments, call.source) == (
        "0",
        "get_weather",
        {"city": "Paris"},
        "cohere_command",
    )
    assert reasoning_of(events) == "Paris."
    assert text_of(events) == ""


# -- the rules the cases do not pin ----------------------------------------------------------


def parse(text: str, detect: tuple[str, ...], **options: Any) -> list[Event]:
    events = feed_chunks([text.encode()], "text", detect=detect, id_factory=counter_ids(), **options)
    check_conservation(text, events, think=True)
    for cut in range(1, len(text.encode())):  # any two pieces give the same events
        raw = text.encode()
        assert normalize(feed_chunks([raw[:cut], raw[cut:]], "text", detect=detect, **options)) == normalize(
            events
        ), cut
    return events


def calls_of(events: list[Event]) -> list[tuple[str, Any, str]]:
    return [(c.name, c.arguments, c.source) for c in completed_calls(events)]


F = '{"name": "f", "arguments": {"a": 1}}'


def test_answer_tags_vanish_and_what_they_hold_is_searched_for_calls() -> None:
    text = f"<answer>\n<tool_calls>[{F}]</tool_calls>\n</answer><response>Hi</response>"
    events = parse(text, ("jamba", "answer"))
    assert calls_of(events) == [("f", {"a": 1}, "jamba")]
    assert text_of(events) == "\n\nHi"
    assert text_of(parse(text, ("jamba",))) == "<answer>\n\n</answer><response>Hi</response>"


def test_the_answer_after_reasoning_starts_a_line() -> None:
    # "</think>" then a bare call: read as at a line's start (xLAM writes it so), whole or in pieces.
    for detect, after in [
        (("think", "json"), F),
        (("think", "xlam"), f"[{F}]"),
        (("think", "xlam"), f"```json\n[{F}]\n```"),
    ]:
        events = parse(f"<think>plan</think>{after}", detect)
        assert [c[:2] for c in calls_of(events)] == [("f", {"a": 1})]
        assert (reasoning_of(events), text_of(events)) == ("plan", "")
    # Not after text that merely ends with the tag's characters:
    assert completed_calls(parse(f"no</think>{F}", ("json",))) == []


def test_a_format_sharing_the_tool_call_opener_keeps_its_other_triggers() -> None:
    detect = ("hermes", "qwen3_coder", "glm", "granite", "xlam")
    text = (
        f"<tool_call>[{F}]\n<|tool_call|>[{F}]\n[TOOL_CALLS][{F}]\n"
        f'<tool_call>{{"name": "g", "arguments": {{}}}}</tool_call>'
    )
    events = parse(text, detect)
    assert [(name, source) for name, _, source in calls_of(events)] == [
        ("f", "granite"),
        ("f", "granite"),
        ("f", "xlam"),
        ("g", "hermes"),
    ]


def test_an_opener_that_is_a_word_of_prose_needs_its_json() -> None:
    # Granite's string opener alone, Phi-4-mini's list, InternLM's code interpreter, functionary's
    # tag about the format: text, no failure.
    for text, detect in [
        ('<tool_call>{"name": "f"}</tool_call>', ("granite",)),
        ("first = functools[0]; functools[ 'a']", ("phi4_mini",)),
        ("<|action_start|><|interpreter|>\nprint(1)<|action_end|>", ("internlm",)),
        ("<function=f> is how, and <function=g><parameter=a>", ("functionary_v31",)),
        ('[1, 2]\n[{"id": 7}]\n```json\n{"a": 1}\n```\n', ("xlam",)),
    ]:
        events = parse(text, detect)
        assert text_of(events) == text
        assert not failed_calls(events)


def test_after_a_failure_the_block_runs_to_its_closer_if_it_comes_soon() -> None:
    far = "x" * (MAX_SKIP + 1)
    events = parse(f"<tool_calls>{far}</tool_calls>ok", ("jamba",))
    assert [f.raw for f in failed_calls(events)] == ["<tool_calls>"]
    assert text_of(events) == f"{far}</tool_calls>ok"
    # Another block begins first: the failure stops where it broke, and the block is read.
    events = parse(f"<tool_calls>oops <tool_calls>[{F}]</tool_calls>", ("jamba",))
    assert [f.raw for f in failed_calls(events)] == ["<tool_calls>"]
    assert (text_of(events), calls_of(events)) == ("oops ", [("f", {"a": 1}, "jamba")])
    # A broken element: the rest of the block, to its closer, is that call's markup.
    events = parse(f"<TOOLCALL>[{F}, 42, {F}]</TOOLCALL>!", ("nemotron",))
    assert [f.raw for f in failed_calls(events)] == [f"42, {F}]</TOOLCALL>"]
    assert (text_of(events), len(completed_calls(events))) == ("!", 1)
    # After a completed call, a break with no end token to read on to is no failure: no markup.
    events = parse(f"<|tool_call|>[{F}, 42, {F}]", ("granite",))
    assert (failed_calls(events), text_of(events), len(completed_calls(events))) == ([], f"42, {F}]", 1)
    # A bare "[" is no block of its own (it opens one only at a line's start): the skip reads past it.
    events = parse(f"```json\n[{F}, [1], {F}]\n```\nok", ("xlam",))
    assert [f.raw for f in failed_calls(events)] == [f"[1], {F}]\n```"]
    assert (text_of(events), len(completed_calls(events))) == ("\nok", 1)


def test_a_whole_object_that_is_no_call_fails_alone_and_the_run_goes_on() -> None:
    text = (
        '<|START_ACTION|>[{"tool_call_id": "0", "parameters": {}}, '
        '{"tool_call_id": "1", "tool_name": "g", "parameters": {}, "parameters": {"b": [1, {"c": "}"}]}}, '
        '{"tool_call_id": "2", "tool_name": "f", "parameters": {"a": 1}}]<|END_ACTION|>'
    )
    events = parse(text, ("cohere_command",))
    assert [(c.id, c.name) for c in completed_calls(events)] == [("2", "f")]
    assert [f.name for f in failed_calls(events)] == ["", "g"]
    assert text_of(events) == ""


def test_the_python_tag_calls_the_python_tool_with_the_rest_of_the_text() -> None:
    tools = [
        {
            "name": "ipython",
            "parameters": {
                "type": "object",
                "properties": {"n": {"type": "integer"}, "source": {"type": "string"}},
            },
        }
    ]
    events = parse('<|python_tag|>print("a\\tb")\n', ("functionary_v31",), tools=tools)
    assert calls_of(events) == [("ipython", {"source": 'print("a\\tb")\n'}, "functionary_v31")]
    assert calls_of(parse("<|python_tag|>1", ("functionary_v31",))) == [
        ("python", {"code": "1"}, "functionary_v31")
    ]


def test_a_long_call_fails_at_the_limit_and_the_rest_of_its_markup_is_dropped() -> None:
    tiny = Limits(max_arguments_bytes=48)
    long = '{"name": "f", "arguments": {"a": "' + "y" * 100 + '"}}'
    for text, detect in [
        (f"<tool_calls>[{long}]</tool_calls>ok", ("jamba",)),
        ("<|python_tag|>" + "z" * 100, ("functionary_v31",)),
        ("x\n>>>f\n" + long[27:-1] + "ok", ("functionary_v32",)),
    ]:
        events = parse(text, detect, limits=tiny)
        [failed] = failed_calls(events)
        assert "max_arguments_bytes" in failed.error


# -- properties: the formats' markup among prose, whole, broken and cut, any chunking ----------------

names_ = st.sampled_from(["f", "get_weather", "get_time"])
values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text('ab"\\{}[]<>é\n', max_size=6),
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.text("ab", max_size=2), inner, max_size=2),
    max_leaves=6,
)
arguments_ = st.dictionaries(st.text("abc_", min_size=1, max_size=4), values, max_size=3)
OWN = (
    "jamba",
    "internlm",
    "apertus",
    "cohere_command",
    "granite",
    "granite_fc",
    "phi4_mini",
    "xlam",
    "longcat",
    "nemotron",
    "gigachat",
    "functionary_v31",
    "functionary_v32",
    "answer",
)


def obj(name: str, args: Any, key: str = "arguments") -> str:
    return json.dumps({"name": name, key: args})


@st.composite
def json_markup(draw: st.DrawFn) -> str:
    """Calls in one of this file's formats, as their templates write them."""
    return draw(json_calls())[0]


@st.composite
def json_calls(draw: st.DrawFn) -> tuple[str, list[tuple[str, Any]]]:
    """Calls (one or two) in one of this file's formats, and the calls it holds."""
    calls = draw(st.lists(st.tuples(names_, arguments_), min_size=1, max_size=2))
    objects = ", ".join(obj(n, a) for n, a in calls)
    fmt = draw(st.sampled_from(OWN))
    n, a = calls[0]
    if fmt == "jamba":
        return f"<tool_calls>[{objects}]</tool_calls>", calls
    if fmt == "internlm":
        return f"<|action_start|><|plugin|>\n{obj(n, a, 'parameters')}<|action_end|>", calls[:1]
    if fmt == "apertus":
        items = ", ".join(json.dumps({name: args}) for name, args in calls)
        return f"<|tools_prefix|>[{items}]<|tools_suffix|>", calls
    if fmt == "cohere_command":
        items = ", ".join(
            json.dumps({"tool_call_id": str(i), "tool_name": name, "parameters": args})
            for i, (name, args) in enumerate(calls)
        )
        return f"<|START_ACTION|>\n[\n    {items}\n]\n<|END_ACTION|>", calls
    if fmt == "granite":
        return f"{draw(st.sampled_from(['<|tool_call|>', '<tool_call>']))}[{objects}]", calls
    if fmt == "granite_fc":
        return "\n".join(f"<function_call> {obj(name, args)}" for name, args in calls), calls
    if fmt == "phi4_mini":
        return f"functools[{objects}]", calls
    if fmt == "xlam":
        forms = ["[{}]", "```json\n[{}]\n```", "[TOOL_CALLS][{}]", "<tool_call>[{}]</tool_call>"]
        return draw(st.sampled_from(forms)).format(objects), calls
    if fmt == "longcat":
        return "".join(
            f"<longcat_tool_call>\n{obj(name, args)}\n</longcat_tool_call>" for name, args in calls
        ), calls
    if fmt == "nemotron":
        return f"<TOOLCALL>[{objects}]</TOOLCALL>", calls
    if fmt == "gigachat":
        header = draw(
            st.sampled_from(["<|message_sep|>\n\nfunction call<|role_sep|>\n", "<|function_call|>"])
        )
        return header + obj(n, a), calls[:1]
    if fmt == "functionary_v31":
        return "".join(f"<function={name}>{json.dumps(args)}</function>" for name, args in calls), calls
    if fmt == "functionary_v32":
        return "".join(f">>>{name}\n{json.dumps(args)}" for name, args in calls) + ">>>all\n", calls
    tags = draw(st.sampled_from([("<response>", "</response>"), ("<answer>\n", "\n</answer>")]))
    return f"{tags[0]}{draw(PROSE)}{tags[1]}", []


PROSE = st.text("ab \n\t.,;:!?{}[]<>~`|'\"\\/=-_()0123456789né😀", max_size=16)
FRAGMENTS = st.sampled_from(
    [
        "<tool_calls>",
        "</tool_calls>",
        "<|action_start|>",
        "<|plugin|>",
        "<|action_end|>",
        "<|tools_prefix|>",
        "<|tools_suffix|>",
        "<|START_ACTION|>",
        "<|END_ACTION|>",
        "<|START_RESPONSE|>",
        "<|tool_call|>",
        "<tool_call>",
        "<function_call>",
        "functools[",
        "[TOOL_CALLS]",
        "```json\n",
        "```",
        "<longcat_tool_call>",
        "<TOOLCALL>",
        "<|function_call|>",
        "<|message_sep|>\n\nfunction call<|role_sep|>\n",
        "<function=f>",
        "</function>",
        "<|python_tag|>",
        ">>>",
        ">>>all\n",
        "<response>",
        "</answer>",
        "</think>",
        "<|inner_prefix|>",
        '{"name": "f", "arguments": ',
        "}",
        "]",
        ",",
        "\n",
    ]
)


@st.composite
def broken_markup(draw: st.DrawFn) -> str:
    text = draw(json_markup())
    where = draw(st.integers(0, len(text)))
    kind = draw(st.sampled_from(["cut", "drop", "change"]))
    if kind == "cut":
        return text[:where]
    if kind == "drop":
        return text[:where] + text[where + 1 :]
    return text[:where] + draw(st.sampled_from(list('{}[]",:<>|\n x'))) + text[where + 1 :]


documents = st.lists(st.one_of(PROSE, FRAGMENTS, json_markup(), broken_markup()), min_size=1, max_size=6).map(
    "".join
)
EVERY = tuple(name for name, kind in DETECTORS.items() if not kind.opens_text)
SETS = [EVERY, *((name,) for name in OWN), ("think_prompted", "nemotron"), ("jamba", "think", "answer")]
TINY = Limits(max_arguments_bytes=48, max_buffered_bytes=64, max_json_depth=3, max_calls=3)


@settings(max_examples=300, deadline=None)
@given(text=documents, detect=st.sampled_from(SETS), tiny=st.booleans(), data=st.data())
def test_no_character_is_lost_and_any_chunking_gives_the_same_events(
    text: str, detect: tuple[str, ...], tiny: bool, data: st.DataObject
) -> None:
    options: dict[str, Any] = {"limits": TINY} if tiny else {}
    raw = text.encode()
    whole = feed_chunks([raw], "text", detect=detect, id_factory=counter_ids(), **options)
    check_protocol(whole)
    check_conservation(text, whole, think=True)
    bytes_ = feed_chunks(bytewise(raw), "text", detect=detect, id_factory=counter_ids(), **options)
    assert normalize(bytes_) == normalize(whole)
    cuts = data.draw(st.lists(st.integers(0, len(raw)), max_size=8))
    chunked = feed_chunks(split_at(raw, cuts), "text", detect=detect, id_factory=counter_ids(), **options)
    assert normalize(chunked) == normalize(whole)


@settings(max_examples=200, deadline=None)
@given(before=PROSE, markup=json_calls(), after=PROSE)
def test_markup_on_its_own_line_gives_its_calls_with_all_these_formats_on(
    before: str, markup: tuple[str, list[tuple[str, Any]]], after: str
) -> None:
    """Every format of this file at once (their openers overlap: ``<tool_call>``, ``[``, ``<function``)."""
    text = f"{before}\n{markup[0]}\n{after}"
    events = feed_chunks([text.encode()], "text", detect=OWN, id_factory=counter_ids())
    check_conservation(text, events, think=True)
    assert [(c.name, c.arguments) for c in completed_calls(events)] == markup[1]
    assert not failed_calls(events)


# -- the engine's parts these formats brought -------------------------------------------------------


class _EndsInFunctools(JsonCalls):
    """A format whose closer ends with the letters Phi-4-mini's opener begins with."""

    name = "t_functools_closer"
    openers = (("<calls>", "functools"),)
    body = Body.ARRAY
    __slots__ = ()


def test_a_token_found_by_a_later_character_must_begin_where_the_text_resumed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # "functools[" is found by its "[", looking behind for "functools": letters a region consumed
    # (here, another format's closer) do not begin it.
    monkeypatch.setitem(DETECTORS, _EndsInFunctools.name, _EndsInFunctools)
    text = f'<calls>[{F}]functools[{{"name": "g", "arguments": {{}}}}]'
    events = parse(text, (_EndsInFunctools.name, "phi4_mini"))
    assert calls_of(events) == [("f", {"a": 1}, "t_functools_closer")]
    assert text_of(events) == '[{"name": "g", "arguments": {}}]'
    # Where the text resumes before the letters, it is the token, held at a chunk's end meanwhile.
    events = parse(f"x functools[{F}]", ("phi4_mini",))
    assert (text_of(events), calls_of(events)) == ("x ", [("f", {"a": 1}, "phi4_mini")])


def test_a_token_two_formats_declare_alike_is_searched_for_once() -> None:
    from streamcalls.detectors._engine.triggers import patterns

    def scans(*names: str) -> dict[str, tuple[int, str]]:
        found = patterns(tuple(DETECTORS[name] for name in names)).search._scans
        return {scan.pattern.pattern[:2]: (len(scan.triggers), scan.literal) for scan in found}

    # xLAM's [TOOL_CALLS], bare list and json block are Mistral's and the json detector's: only its
    # <tool_call> is searched for anew, and [TOOL_CALLS] is still found by str.find.
    before, after = scans("mistral", "json"), scans("mistral", "json", "xlam")
    assert after == {**before, "<(": (1, "<tool_call>")}
    assert before["\\["] == (1, "[TOOL_CALLS]")
