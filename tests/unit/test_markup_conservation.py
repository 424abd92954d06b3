"""Rule 8 as properties: every detector on, prose mixed with markup (whole, malformed, cut), any chunking.

Every registered detector is on, and each one's own triggers (drawn from
its trigger patterns) are thrown in, so a new detector is checked as soon as
it is registered.  The oracle is tests/support/conservation.py, a reader that knows only the events:
the input must read as the text and the failed calls' raw text, in order,
with gaps only where a call completed or a limit cut a failed call.  And the
bare-JSON detector must not start a call before the object shows that it is
one: ``ToolCallStarted`` comes exactly when both the name and the first
character of the arguments have arrived, computed here from the JSON text.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from streamcalls import (
    MODEL_FAMILIES,
    Event,
    Limits,
    StreamParser,
    ToolCallCompleted,
    ToolCallFailed,
    ToolCallStarted,
)
from streamcalls.detectors import DEFAULT_DETECT, DETECTORS
from tests.support import check_protocol, counter_ids, normalize, split_at
from tests.support.conservation import check_conservation, matches, pieces

# Every detector but those that read the text from its first character (think_prompted: all of
# it is reasoning until a closing tag, which would hide the rest): they are checked below.
ALL = tuple(name for name, kind in DETECTORS.items() if not kind.opens_text)
OPENING = tuple(name for name, kind in DETECTORS.items() if kind.opens_text)
HARMONY = "harmony" in ALL  # its framing may vanish (see tests/support/conservation.py)
THINK = True  # and so may the reasoning tags
TINY = Limits(max_arguments_bytes=48, max_buffered_bytes=64, max_json_depth=3, max_calls=3)

CALLS_BEGIN, CALLS_END = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"
CALL_BEGIN, CALL_END, SEP = "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>", "<｜tool▁sep｜>"

# Pieces of every format's markup, to be thrown in anywhere.
FRAGMENTS = (
    "~~~tool_call\n",
    "~~~\n",
    "~~",
    "<tool_call>",
    "</tool_call>",
    "<tool_",
    "[TOOL_CALLS]",
    "[ARGS]",
    "[CALL_ID]",
    "[TOOL_",
    "<|python_tag|>",
    "<|eom_id|>",
    CALLS_BEGIN,
    CALLS_END,
    CALL_BEGIN,
    CALL_END,
    SEP,
    "```json\n",
    "```\n",
    "<|start|>assistant",
    "<|channel|>",
    "<|channel|>analysis<|message|>",
    "<|channel|>final<|message|>",
    " to=functions.f",
    " to=functions.f<|channel|>commentary json<|message|>",
    "<|constrain|>json",
    "<|message|>",
    "<|end|>",
    "<|call|>",
    "<|return|>",
    "<|tool_calls_section_begin|>",
    "<|tool_call_section_end|>",
    "<|tool_call_begin|>functions.f:0",
    "<|tool_call_argument_begin|>",
    "<|tool_call_end|>",
    "\n[f(",
    "\n[get_weather(city='x'",
    "x=",
    "<|python_start|>[",
    "<|python_end|>",
    ")",
    "=",
    "<function=f>\n",
    "<parameter=a>\n",
    "\n</parameter>\n",
    "</function>\n",
    "f\n<arg_key>a</arg_key>",
    "<arg_value>",
    "</arg_value>",
    "<minimax:tool_call>",
    '<invoke name="f">',
    '<parameter name="a">',
    "</parameter>",
    "</invoke>",
    "</minimax:tool_call>",
    '{"name": ',
    '"arguments": ',
    '"parameters": ',
    '{"name": "f"}',
    '{"name": "f", "arguments": ',
    "function",
    "}",
    "]",
    "[",
    "{",
    ";",
    ",",
    '"',
    "\n",
    "<｜DSML｜function_calls>",
    "</｜DSML｜function_calls>",
    "<｜DSML｜tool_calls>",
    '<｜DSML｜invoke name="f">',
    "</｜DSML｜invoke>",
    '<｜DSML｜parameter name="a" string="true">',
    '<｜DSML｜parameter name="a" string="false">',
    "</｜DSML｜parameter>",
    "<think>",
    "</think>",
    "\n<think>",
    "<seed:think>",
    "</seed:think>",
    "<|START_THINKING|>",
    "<|END_THINKING|>",
)
# Every registered detector's triggers, as its own patterns match them (a line trigger after a line end).
TRIGGERS = st.sampled_from([t for kind in DETECTORS.values() for t in kind.triggers]).flatmap(
    lambda t: st.from_regex(t.pattern, fullmatch=True).map(lambda s: "\n" + s if t.line_start else s)
)
PROSE = st.text("ab \n\t.,;:!?{}[]<>~`|'\"\\/=-_()0123456789né😀", max_size=24)

names = st.sampled_from(["f", "get_weather", "get_time", "x y"])
values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text('ab"\\{}[]é\n', max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text("ab", max_size=2), inner, max_size=3),
    max_leaves=8,
)
arguments = st.dictionaries(st.text("abc_", min_size=1, max_size=4), values, max_size=3)


def draw_fields(
    draw: st.DrawFn, name: str, args: Any, key: str, *, always_arguments: bool = False
) -> list[tuple[str, Any]]:
    """A call object's keys in a random order, maybe with an id; with ``parameters``, maybe without arguments."""
    fields: list[tuple[str, Any]] = [("name", name)]
    if always_arguments or key == "arguments" or draw(st.booleans()):
        fields.append((key, args))
    if draw(st.booleans()):
        fields.append(("id", draw(st.sampled_from(["c1", "c2", "dup"]))))
    return draw(st.permutations(fields))


def render(fields: list[tuple[str, Any]]) -> str:
    return "{" + ", ".join(f"{json.dumps(key)}: {json.dumps(value)}" for key, value in fields) + "}"


def call_object(name: str, args: Any, key: str, draw: st.DrawFn) -> str:
    return render(draw_fields(draw, name, args, key))


@st.composite
def markup(draw: st.DrawFn, reasoning: bool = True) -> str:
    """One call (or run of calls) in one of the formats (or, with ``reasoning``, reasoning between tags)."""
    fmt = draw(
        st.sampled_from(
            [
                "fence",
                "json",
                "array",
                "jsonblock",
                "hermes",
                "mistral",
                "mistral_array",
                "llama",
                "deepseek",
                "harmony",
                "kimi",
                "pythonic",
                "qwen3_coder",
                "glm45",
                "glm47",
                "minimax",
                "dsml",
                "dsml_bare",
                *(["think"] if reasoning else []),
            ]
        )
    )
    if fmt in ("harmony", "kimi", "pythonic", "think"):
        return draw(open_weight_markup(fmt))
    if fmt in XML_FORMATS:
        calls = draw(st.lists(st.tuples(identifiers, arguments), min_size=1, max_size=2))
        return xml_markup(fmt, calls)
    name, args = draw(names), draw(arguments)
    obj = call_object(name, args, draw(st.sampled_from(["arguments", "parameters"])), draw)
    if fmt == "fence":
        return f"~~~tool_call\n{obj}\n~~~\n"
    if fmt == "json":
        return obj
    if fmt == "array":
        return "[" + ", ".join([obj, call_object(draw(names), draw(arguments), "arguments", draw)]) + "]"
    if fmt == "jsonblock":
        return f"```json\n{obj}\n```\n"
    if fmt == "hermes":
        return f"<tool_call>\n{obj}\n</tool_call>"
    if fmt == "mistral":
        call_id = draw(st.sampled_from(["", "[CALL_ID]a1b2c3d4e"]))
        return f"[TOOL_CALLS]{name}{call_id}[ARGS]{json.dumps(args)}"
    if fmt == "mistral_array":
        return f"[TOOL_CALLS][{obj}]"
    if fmt == "llama":
        second = call_object(draw(names), draw(arguments), "parameters", draw)
        return f"<|python_tag|>{obj}; {second}<|eom_id|>"
    if draw(st.booleans()):  # DeepSeek V3.1, else V3
        call = f"{CALL_BEGIN}{name}{SEP}{json.dumps(args)}{CALL_END}"
    else:
        call = f"{CALL_BEGIN}function{SEP}{name}\n```json\n{json.dumps(args)}\n```{CALL_END}"
    return f"{CALLS_BEGIN}{call}{CALLS_END}"


identifiers = st.sampled_from(["f", "get_weather", "get_time"])
THINK_TAGS = {
    "<think>": "</think>",
    "<seed:think>": "</seed:think>",
    "<|START_THINKING|>": "<|END_THINKING|>",
}
XML_FORMATS = {
    "qwen3_coder": "qwen3_coder",
    "glm45": "glm",
    "glm47": "glm",
    "minimax": "minimax",
    "dsml": "dsml",
    "dsml_bare": "dsml",
}  # -> source


def as_text(value: Any) -> str:
    """A value as the XML formats' templates write it: a string raw, anything else as JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def xml_markup(fmt: str, calls: list[tuple[str, dict[str, Any]]]) -> str:
    """Calls as the chat templates of Qwen3-Coder, GLM-4.5 / 4.7 (``glm45``, ``glm47``) and
    MiniMax-M2 write them (one ``<tool_call>`` each; MiniMax's in one block)."""
    if fmt == "qwen3_coder":
        return "\n".join(
            f"<tool_call>\n<function={name}>\n"
            + "".join(f"<parameter={k}>\n{as_text(v)}\n</parameter>\n" for k, v in args.items())
            + "</function>\n</tool_call>"
            for name, args in calls
        )
    if fmt in ("glm45", "glm47"):
        nl = "\n" if fmt == "glm45" else ""
        return nl.join(
            f"<tool_call>{name}{nl}"
            + "".join(
                f"<arg_key>{k}</arg_key>{nl}<arg_value>{as_text(v)}</arg_value>{nl}" for k, v in args.items()
            )
            + "</tool_call>"
            for name, args in calls
        )
    if fmt in ("dsml", "dsml_bare"):
        invokes = "".join(
            f'<｜DSML｜invoke name="{name}">\n'
            + "".join(
                f'<｜DSML｜parameter name="{k}" string="{str(isinstance(v, str)).lower()}">'
                f"{as_text(v)}</｜DSML｜parameter>\n"
                for k, v in args.items()
            )
            + "</｜DSML｜invoke>\n"
            for name, args in calls
        )
        return (
            invokes if fmt == "dsml_bare" else f"<｜DSML｜function_calls>\n{invokes}</｜DSML｜function_calls>"
        )
    invokes = "".join(
        f'<invoke name="{name}">\n'
        + "".join(f'<parameter name="{k}">{as_text(v)}</parameter>\n' for k, v in args.items())
        + "</invoke>\n"
        for name, args in calls
    )
    return f"<minimax:tool_call>\n{invokes}</minimax:tool_call>"


HARMONY_HEADERS = (
    "<|start|>assistant<|channel|>commentary to=functions.{name} <|constrain|>json<|message|>",
    "<|start|>assistant to=functions.{name}<|channel|>commentary json<|message|>",
    "<|channel|>commentary to=functions.{name}<|constrain|>json<|message|>",
    " to=functions.{name}<|channel|>commentary<|message|>",  # a header only at the text's start
)
HARMONY_TEXT = (
    "<|channel|>analysis<|message|>{prose}<|end|>",
    "<|start|>assistant<|channel|>final<|message|>{prose}<|return|>",
    "<|start|>assistant<|channel|>commentary<|message|>{prose}<|end|>",
)


@st.composite
def open_weight_markup(draw: st.DrawFn, fmt: str) -> str:
    """A harmony message, a Kimi section, a Python call list or reasoning between tags."""
    name, args = draw(identifiers), draw(arguments)
    if fmt == "think":
        opener, closer = draw(st.sampled_from(list(THINK_TAGS.items())))
        inside = draw(st.one_of(PROSE, markup(reasoning=False)))  # markup inside reasoning is no call
        return f"\n{opener}{inside}{closer}"
    if fmt == "harmony":
        if draw(st.booleans()):
            return draw(st.sampled_from(HARMONY_TEXT)).format(prose=draw(PROSE))
        header = draw(st.sampled_from(HARMONY_HEADERS)).format(name=name)
        return header + json.dumps(args) + draw(st.sampled_from(["<|call|>", "<|end|>", ""]))
    if fmt == "kimi":
        section = draw(
            st.sampled_from(
                [
                    ("<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"),
                    ("<|tool_call_section_begin|>", "<|tool_call_section_end|>"),
                ]
            )
        )
        calls = "".join(
            f"<|tool_call_begin|>functions.{draw(identifiers)}:{number}<|tool_call_argument_begin|>"
            f"{json.dumps(draw(arguments))}<|tool_call_end|>"
            for number in range(draw(st.integers(1, 2)))
        )
        return section[0] + calls + section[1]
    calls = ", ".join(
        f"{draw(identifiers)}({', '.join(f'{key}={value!r}' for key, value in draw(arguments).items())})"
        for _ in range(draw(st.integers(1, 2)))
    )
    if draw(st.booleans()):
        return f"<|python_start|>[{calls}]<|python_end|>"
    return f"\n[{calls}]"


def damaged(draw: st.DrawFn, text: str, chars: str) -> str:
    """``text`` cut short, or with a character dropped, changed or added (one of ``chars``)."""
    where = draw(st.integers(0, len(text)))
    kind = draw(st.sampled_from(["cut", "drop", "change", "add"]))
    if kind == "cut":
        return text[:where]
    if kind == "drop":
        return text[:where] + text[where + 1 :]
    char = draw(st.sampled_from(list(chars)))
    return text[:where] + char + text[where + (kind == "change") :]


@st.composite
def broken(draw: st.DrawFn) -> str:
    """Markup cut short, or with a character dropped, changed or added."""
    return damaged(draw, draw(markup()), '{}[]",:;~<>|`\n x')


@st.composite
def documents(draw: st.DrawFn) -> str:
    parts = draw(
        st.lists(
            st.one_of(PROSE, st.sampled_from(FRAGMENTS), TRIGGERS, markup(), broken(), st.just("\n")),
            min_size=1,
            max_size=8,
        )
    )
    return "".join(parts)


def run(chunks: list[bytes], *, detect: tuple[str, ...] = ALL, **options: Any) -> list[Event]:
    parser = StreamParser("text", detect=detect, id_factory=counter_ids(), **options)
    events: list[Event] = []
    for chunk in chunks:
        events += parser.feed(chunk)
    return events + parser.close()


@st.composite
def settings_(draw: st.DrawFn) -> dict[str, Any]:
    options: dict[str, Any] = {}
    if draw(st.booleans()):
        options["tools"] = ["f", "get_weather", "get_time"]
    if draw(st.integers(0, 3)) == 0:
        options["limits"] = TINY
    return options


@settings(max_examples=300, deadline=None)
@given(text=documents(), options=settings_(), data=st.data())
def test_no_character_of_the_markup_is_lost(text: str, options: dict[str, Any], data: st.DataObject) -> None:
    raw = text.encode()
    whole = run([raw], **options)
    check_protocol(whole)
    check_conservation(text, whole, harmony=HARMONY, think=THINK)
    bytewise = run([raw[i : i + 1] for i in range(len(raw))], **options)
    check_conservation(text, bytewise, harmony=HARMONY, think=THINK)
    assert normalize(bytewise) == normalize(whole)
    cuts = data.draw(st.lists(st.integers(0, len(raw)), max_size=12))
    chunked = run(split_at(raw, cuts), **options)
    check_conservation(text, chunked, harmony=HARMONY, think=THINK)
    assert normalize(chunked) == normalize(whole)


# The tests above run every detector at once.  A chunking break that shows only under fewer
# detectors -- a pythonic list without the bare-JSON "[" beside it, a shared opener with one
# format only, one model family's detectors -- went unseen there.  So every detector alone,
# every family's detectors with the defaults (as model= gives them) and a start inside
# reasoning are checked too: same events whole, byte by byte and at random cuts, nothing lost.
SETS = sorted(
    {(name,) for name in DETECTORS}
    | {tuple(dict.fromkeys(DEFAULT_DETECT + names)) for _, names in MODEL_FAMILIES}
    | {DEFAULT_DETECT, ("think_prompted", "hermes"), ("think_prompted", "deepseek", "json")}
)


@settings(max_examples=400, deadline=None)
@given(text=documents(), detect=st.sampled_from(SETS), options=settings_(), data=st.data())
def test_every_detector_set_gives_the_same_events_for_any_chunking(
    text: str, detect: tuple[str, ...], options: dict[str, Any], data: st.DataObject
) -> None:
    raw = text.encode()
    whole = run([raw], detect=detect, **options)
    check_protocol(whole)
    check_conservation(text, whole, harmony="harmony" in detect, think=THINK)
    bytewise = run([raw[i : i + 1] for i in range(len(raw))], detect=detect, **options)
    assert normalize(bytewise) == normalize(whole)
    cuts = data.draw(st.lists(st.integers(0, len(raw)), max_size=12))
    chunked = run(split_at(raw, cuts), detect=detect, **options)
    check_conservation(text, chunked, harmony="harmony" in detect, think=THINK)
    assert normalize(chunked) == normalize(whole)


def test_every_detector_and_family_is_in_the_sets() -> None:
    assert {name for names in SETS for name in names} == set(DETECTORS)
    assert OPENING  # think_prompted: checked here, not with every detector


@settings(max_examples=100, deadline=None)
@given(before=PROSE, call=broken(), after=PROSE)
def test_malformed_markup_between_prose_fails_visibly_or_stays_text(
    before: str, call: str, after: str
) -> None:
    # A broken call on its own line: wherever it is lost to prose, it is there as text.
    text = f"{before}\n{call}\n{after}"
    events = run([text.encode()])
    check_conservation(text, events, harmony=HARMONY, think=THINK)
    for event in events:
        if isinstance(event, ToolCallFailed):
            assert event.raw in text


# -- the oracle's own checks: it must catch a lost or invented character -------------------------


def test_the_oracle_catches_a_lost_character() -> None:
    events = run([b'a\n~~~tool_call\n{"name": "f", "arguments": {"a": 1,}}\n~~~\nb'])
    assert matches('a\n~~~tool_call\n{"name": "f", "arguments": {"a": 1,}}\n~~~\nb', pieces(events))
    assert not matches('a\n~~~tool_call\n{"name": "f", "arguments": {"a": 1,}}\n~~~\nbc', pieces(events))
    assert not matches('a\n~~~tool_call\n{"name": "f", "arguments": {"a": 1}}\n~~~\nb', pieces(events))
    assert not matches("a\n\nb", pieces(events))


def test_the_oracle_lets_reasoning_tags_vanish_only_whole() -> None:
    text = "Hi\n<think>plan</think>\nDone."
    assert matches(text, ["Hi\n", "plan", "\nDone."], think=True)
    assert not matches(text, ["Hi\n", "plan", "\nDone."])  # only with a reasoning detector on
    assert not matches(text, ["Hi\n", "plan", "Done."], think=True)  # a character outside the tags
    assert not matches(text, ["Hi\n<", "plan", "\nDone."], think=True)  # half a tag
    assert matches("<seed:think>a</seed:think>b", ["a", "b"], think=True)


def test_the_oracle_lets_only_harmony_s_framing_vanish() -> None:
    text = "Hi <|channel|>analysis<|message|>think<|end|><|start|>assistant<|channel|>final<|message|>Done."
    assert matches(text, ["Hi ", "think", "Done."], harmony=True)
    assert not matches(text, ["Hi ", "think", "Done."])  # only with the harmony detector on
    assert not matches(text, ["Hi ", "thnk", "Done."], harmony=True)  # a content character lost
    assert not matches(text, ["Hi", "think", "Done."], harmony=True)  # a character outside the framing
    assert matches(
        text, ["Hi <|channel|>analysis<|message|>think", "Done."], harmony=True
    )  # kept whole: fine
    assert not matches(text, ["Hi <|channel|>analysis", "think", "Done."], harmony=True)  # half of one: not
    assert not matches("a<|channel|>final{<|message|>b", ["a", "b"], harmony=True)  # not a header: "{"


def test_the_oracle_allows_gaps_only_where_a_call_completed() -> None:
    text = 'a\n~~~tool_call\n{"name": "f", "arguments": {}}\n~~~\nb'
    events = run([text.encode()])
    assert any(isinstance(e, ToolCallCompleted) for e in events)
    assert matches(text, pieces(events))
    assert matches("a\nANYTHING AT ALLb", pieces(events))
    assert not matches("ab", pieces(events))  # the line end before the fence is text


# -- no ToolCallStarted before the bare JSON object shows it is a call -------------------------------


@st.composite
def bare_calls(draw: st.DrawFn) -> tuple[str, int]:
    """A bare call object, and how many of its bytes must have arrived for it to be one."""
    key = draw(st.sampled_from(["arguments", "parameters"]))
    fields = draw_fields(draw, draw(names), draw(arguments), key, always_arguments=True)
    text = render(fields)
    name_end = args_start = 0
    for number, (field, value) in enumerate(fields):
        before = render(fields[:number])[:-1] + (", " if number else "") + json.dumps(field) + ": "
        start = len(before.encode())
        if field == key:
            args_start = start
        elif field == "name":
            name_end = start + len(json.dumps(value).encode())  # just past the name's closing quote
    return text, max(name_end, args_start + 1)


@settings(max_examples=150, deadline=None)
@given(call=bare_calls(), before=st.sampled_from(["", "Sure.\n", "a\n\n"]))
def test_a_bare_call_starts_exactly_when_its_name_and_arguments_have_shown(
    call: tuple[str, int], before: str
) -> None:
    text, committed_at = call
    data = (before + text + "\nok").encode()
    committed_at += len(before.encode())
    parser = StreamParser("text", id_factory=counter_ids())
    started_at = None
    for count in range(1, len(data) + 1):
        if any(isinstance(e, ToolCallStarted) for e in parser.feed(data[count - 1 : count])):
            started_at = count
            break
    assert started_at == committed_at


# JSON that is data: a key that is no call's, or (without tools= naming the tool) no arguments.
data_objects = st.one_of(
    st.dictionaries(st.sampled_from(["name", "age", "city", "type"]), values, min_size=1),
    st.builds(lambda name: {"name": name}, st.sampled_from(["rm", "ls"])),
)
foreign_calls = st.builds(
    lambda name, a: {"name": name, "arguments": a}, st.sampled_from(["rm", "ls"]), arguments
)


@settings(max_examples=100, deadline=None)
@given(
    objects=st.lists(data_objects, min_size=1, max_size=4),
    foreign=st.lists(foreign_calls, max_size=2),
    prose=PROSE,
)
def test_json_that_is_not_a_call_never_starts_one(
    objects: list[dict[str, Any]], foreign: list[dict[str, Any]], prose: str
) -> None:
    cases: list[tuple[dict[str, Any], list[dict[str, Any]]]] = [
        ({}, objects),
        ({"tools": ["get_weather"]}, objects + foreign),
    ]
    for options, found in cases:
        text = prose + "\n" + "\n".join(json.dumps(obj) for obj in found) + "\n"
        events = run([text.encode()], **options)
        assert not [e for e in events if isinstance(e, ToolCallStarted)]
        check_conservation(text, events, harmony=HARMONY, think=THINK)
